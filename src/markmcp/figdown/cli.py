"""``figdown``: check and build FigDown documents, print their model, show our reference.

Commands::

    figdown check [--json] PATH...          # files or directories: parse and geometry
    figdown build [--out DIR|FILE] [--with-title] [--check] PATH...
    figdown read PATH                       # the §12 model JSON (of a .fd, or of an .svg we built)
    figdown reference [NAME] [--experimental]

``build`` writes ``X.svg`` beside each ``X.fd`` (or under ``--out DIR``, keeping a
walked folder's subfolders; ``--out FILE.svg`` for one document; ``-`` reads standard
input and writes the SVG to standard output unless ``--out`` names a file).  It never
writes through a symlink planted at the output path, never replaces an ``.svg`` that
FigDown did not build (one without ``<metadata id="figdown-source">``), writes
atomically, and leaves an artifact whose bytes would not change untouched.
``--check`` writes nothing: it reports each artifact that is missing, stale (and
why) or not ours, and exits 1 when any is.

``check`` walks directories in name order (a subdirectory where its name falls),
skipping ``.git`` and ``node_modules``, and looks at every ``*.fd`` file; a file
named directly is checked whatever its extension.  ``-`` reads standard input (as
bytes, like a file: UTF-8, line ends untouched).

Files are read through :mod:`markmcp.mcpcore.files`, like the server reads them: a
FIFO, a device or a socket is refused before anything could block, and no document
(file, walked file or standard input) may exceed 10 MiB.  A walk reads nothing
outside the directory it walks: a ``*.fd`` symlink leading out of it, a FIFO, a file
over the limit or one that is not UTF-8 is reported as ``NOT READ`` (with
``"problem"`` in ``--json``) and the walk goes on.

Exit codes: 0 all clean (built, current), 1 some document has diagnostics or was not
read, or an artifact was not written (``build``) or is missing or stale (``build
--check``), 2 usage error or a named path that cannot be read (nothing is checked or
built then), 130 interrupted.  No input makes it print a traceback: paths whose bytes are not UTF-8
are shown with ``\\xNN`` escapes, control characters from documents and file names
are escaped in the text report (``--json`` keeps them exact), and output that the
terminal's encoding cannot carry is escaped rather than refused.

This module is an edge: it reads files and prints.  The engine
(:func:`markmcp.figdown.parse`) never touches the filesystem.  Finding and reading
documents (:mod:`.sources`), the report text (:mod:`.report`) and artifacts on disk
(:mod:`.artifacts`) are shared with ``figdown-mcp``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, BinaryIO, TextIO

from markmcp import __version__, cmdline
from markmcp.figdown import artifacts, docs, model_json, parse
from markmcp.figdown.render import NotAnArtifact, build
from markmcp.figdown.report import (
    as_items,
    check_report,
    diagnostics,
    failing_blocks,
    parse_failed,
    refusal,
    tally,
    tally_line,
    unread_report,
)
from markmcp.figdown.sources import documents_below, read_document, read_stream, shown
from markmcp.mcpcore import files
from markmcp.mcpcore.files import FileAccessError, Places
from markmcp.textsafe import escape_controls, tolerant

PROG = "figdown"
STDIN = "-"
STDIN_LABEL = "<stdin>"


# --- commands ------------------------------------------------------------------------


def _label(path: Path) -> str:
    """A path as the user will recognise it: relative to the working directory when below it."""
    try:
        return shown(path.relative_to(Path.cwd()))
    except ValueError:
        return shown(path)


class CommandError(Exception):
    """A request the command cannot carry out (a directory or a picture given to ``read``)."""


def collect(arguments: Sequence[str], stdin: BinaryIO) -> list[dict[str, Any]]:
    """The report of every document named by ``arguments`` (files, directories, ``-``), in
    order.  A file or ``-`` that cannot be read stops the run (nothing is printed then); a
    document found in a directory that cannot be read is reported, and the walk goes on.
    Each document is checked as it is read, so only the reports are held."""
    reports: list[dict[str, Any]] = []
    for argument in arguments:
        if argument == STDIN:
            reports.append(check_report(STDIN_LABEL, read_stream(stdin, STDIN_LABEL)))
        elif files.kind_of(argument) == "dir":
            for source in documents_below(Path(argument), label=_label):
                if source.problem is not None:
                    reports.append(unread_report(source.label, source.problem))
                else:
                    reports.append(check_report(source.label, source.text or ""))
        else:
            label = shown(argument)
            reports.append(check_report(label, read_document(argument, label=label)))
    return reports


def command_check(options: argparse.Namespace, out: TextIO, stdin: BinaryIO) -> int:
    summary = tally(collect(options.paths, stdin))
    if options.json:
        out.write(json.dumps(summary, ensure_ascii=False, indent=2) + "\n")
    else:
        for block in failing_blocks(summary):
            out.write(block + "\n\n")
        out.write(tally_line(summary) + "\n")
    return 0 if summary["ok"] else 1


def command_read(options: argparse.Namespace, out: TextIO, err: TextIO, stdin: BinaryIO) -> int:
    sidecar = None
    if options.path == STDIN:
        label, text = STDIN_LABEL, read_stream(stdin, STDIN_LABEL)
    else:
        label = shown(options.path)
        if files.kind_of(options.path) == "dir":
            raise CommandError(f"{files.shown(options.path)} is a directory (read takes one document)")
        if artifacts.is_svg_name(options.path):
            text = artifacts.read_svg(options.path, label=label)
            sidecar = artifacts.source_for(options.path)
        else:
            text = read_document(options.path, label=label)
    if artifacts.is_svg_name(label) or artifacts.looks_like_svg(text):
        try:
            back = artifacts.read_back(text, sidecar=sidecar)
        except NotAnArtifact as error:
            raise CommandError(f"{files.shown(label)} {error}") from None
        for note in back.notes:
            err.write(f"{PROG}: {escape_controls(note)}\n")
        text = back.source
    result = parse(text)
    if result.diagnostics:
        err.write(parse_failed(label, diagnostics(result)) + "\n")
        return 1
    out.write(model_json(result))
    return 0


class UsageError(Exception):
    """A command line that asks for something impossible (exit 2, nothing done)."""


class Job:
    """One document to build: where it came from, its text (or why it was not read),
    where its artifact goes and the folders that write must stay inside."""

    __slots__ = ("label", "text", "problem", "output", "places")

    def __init__(self, label: str, text: str | None, problem: FileAccessError | None,
                 output: Path | None, places: Places | None) -> None:
        self.label, self.text, self.problem, self.output, self.places = label, text, problem, output, places


def _out_mode(options: argparse.Namespace) -> str | None:
    """``None`` (beside each document), ``"file"`` or ``"dir"``."""
    if options.out is None:
        return None
    value = options.out
    if files.kind_of(value) == "dir" or value.endswith(("/", os.sep)):
        return "dir"
    return "file" if artifacts.is_svg_name(value) else "dir"


def build_jobs(options: argparse.Namespace, stdin: BinaryIO) -> list[Job]:
    """Every document ``build`` was given, read, with its output path (nothing is
    written yet).  A named path that cannot be read raises (exit 2)."""
    mode = _out_mode(options)
    out_dir = Path(options.out) if mode == "dir" else None
    out_places = None
    jobs: list[Job] = []
    for argument in options.paths:
        if argument == STDIN:
            text = read_stream(stdin, STDIN_LABEL)
            if mode == "dir":
                raise UsageError("standard input has no name to give its artifact in --out DIR: "
                                 "name a file (--out FIGURE.svg) or leave --out away to print the SVG")
            output = Path(options.out) if mode == "file" else None
            jobs.append(Job(STDIN_LABEL, text, None, output, None))
        elif files.kind_of(argument) == "dir":
            walked = Path(argument)
            inside = Places.of([walked])
            for source in documents_below(walked, places=inside, label=_label):
                found = source.path or walked
                if out_dir is not None:
                    output = out_dir / artifacts.artifact_for(found.relative_to(walked))
                    places = out_places = out_places or _out_places(out_dir)
                else:
                    output, places = artifacts.artifact_for(found), inside
                jobs.append(Job(source.label, source.text, source.problem, output, places))
        else:
            label = shown(argument)
            text = read_document(argument, label=label)
            if out_dir is not None:
                output = out_dir / artifacts.artifact_for(Path(argument).name)
                places = out_places = out_places or _out_places(out_dir)
            elif mode == "file":
                output, places = Path(options.out), None
            else:
                output, places = artifacts.artifact_for(argument), None
            jobs.append(Job(label, text, None, output, places))
    if mode == "file" and len(jobs) != 1:
        raise UsageError(f"--out {files.shown(options.out)} names one file, but {len(jobs)} documents were "
                         "given: name a folder to build several")
    return jobs


def _out_places(out_dir: Path) -> Places:
    """The --out folder, created when missing; every write under it stays inside it."""
    return Places.of([files.make_folders(out_dir)])


def command_build(options: argparse.Namespace, out: TextIO, err: TextIO, stdin: BinaryIO) -> int:
    jobs = build_jobs(options, stdin)
    if options.check and any(job.output is None for job in jobs):
        raise UsageError("--check compares with an artifact on disk: standard input needs --out FIGURE.svg")
    report = err if any(job.output is None for job in jobs) else out  # stdout may carry the SVG itself
    seen: dict[str, str] = {}
    counts = {"written": 0, "unchanged": 0, "current": 0, "stale": 0, "missing": 0, "failed": 0}
    for job in jobs:
        if job.problem is not None:
            report.write(f"NOT READ — {escape_controls(job.label)}\n{escape_controls(job.problem.message)}\n\n")
            counts["failed"] += 1
            continue
        if job.output is not None:
            key = os.path.abspath(job.output)
            if key in seen:
                report.write(f"NOT WRITTEN — {files.shown(job.output)}\nit is already the artifact of "
                             f"{escape_controls(seen[key])} in this run\n\n")
                counts["failed"] += 1
                continue
            seen[key] = job.label
        built = build(job.text or "", with_title=options.with_title)
        if built.svg is None:
            stage = "parse" if built.result is not None and built.result.diagnostics else "geometry"
            report.write(refusal(job.label, stage, as_items(built.diagnostics)) + "\n\n")
            counts["failed"] += 1
            continue
        if job.output is None:
            out.write(built.svg)
            counts["written"] += 1
            continue
        shown_out = _label(job.output)
        try:
            if options.check:
                fresh = artifacts.freshness(artifacts.on_disk(job.output, places=job.places), built.svg,
                                            job.text or "", with_title=options.with_title)
                if fresh.status == "current":
                    counts["current"] += 1
                    continue
                word = {"stale": "STALE", "missing": "MISSING", "foreign": "NOT OURS"}[fresh.status]
                report.write(f"{word} — {escape_controls(shown_out)}: {escape_controls(fresh.reason)}\n")
                counts["stale" if fresh.status == "stale" else "missing" if fresh.status == "missing"
                       else "failed"] += 1
                continue
            if job.places is not None:  # under --out DIR: a walked folder's subfolders are made inside it
                files.make_folders(job.output.parent, places=job.places)
            done = artifacts.write_artifact(job.output, built.svg, places=job.places)
        except (artifacts.NotOurs, FileAccessError) as error:
            if options.check:
                report.write(f"UNUSABLE — {escape_controls(shown_out)}: {escape_controls(error.message)}\n")
            else:
                report.write(f"NOT WRITTEN — {escape_controls(shown_out)}\n{escape_controls(error.message)}\n\n")
            counts["failed"] += 1
            continue
        counts[done] += 1
        report.write(f"OK  {escape_controls(shown_out)}" + (" (unchanged)\n" if done == "unchanged" else "\n"))
    total = len(jobs)
    if options.check:
        line = (f"checked {total} artifact(s): {counts['current']} current, {counts['stale']} stale, "
                f"{counts['missing']} missing, {counts['failed']} not built")
        ok = counts["current"] == total
    else:
        line = (f"built {counts['written']} artifact(s), {counts['unchanged']} unchanged, "
                f"{counts['failed']} not built (of {total} document(s))")
        ok = counts["failed"] == 0
    if not (ok and report is err):  # a clean build to standard output says nothing else
        report.write(line + "\n")
    return 0 if ok else 1


def command_reference(options: argparse.Namespace, out: TextIO) -> int:
    answer = docs.lookup(options.name, experimental=options.experimental)
    out.write(docs.render(answer))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="FigDown figures as text: check documents, print their model, read the reference.",
        allow_abbrev=False,
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    commands = parser.add_subparsers(
        dest="command", required=True, metavar="COMMAND", parser_class=cmdline.CommandParser
    )
    check = commands.add_parser(
        "check", help="check documents (files, or every .fd below a directory)",
        description="Check FigDown documents. Exit 0 when all are clean, 1 when any has "
                    "diagnostics or could not be read, 2 on a usage error or a named path that "
                    "cannot be read. Nothing outside a walked directory is read; no document may "
                    "exceed 10 MiB.",
    )
    check.add_argument("paths", nargs="+", metavar="PATH", help="a .fd file, a directory, or - for stdin")
    check.add_argument("--json", action="store_true", help="print the report as JSON")
    build_cmd = commands.add_parser(
        "build", help="draw documents as self-carrying SVG (X.fd -> X.svg)",
        description="Build each FigDown document into its SVG artifact: X.svg beside X.fd, or under --out. "
                    "The SVG embeds its source, the source's SHA-256 and the engine version. A symlink at "
                    "the output path is never written through and an .svg FigDown did not build is never "
                    "replaced. Exit 0 when every artifact was built (or is current, with --check), 1 when "
                    "any document has diagnostics or an artifact could not be written (or is missing or "
                    "stale, with --check), 2 on a usage error or a named path that cannot be read.",
    )
    build_cmd.add_argument("paths", nargs="+", metavar="PATH",
                           help="a .fd file, a directory (every .fd below it), or - for stdin")
    build_cmd.add_argument("--out", metavar="DIR|FILE",
                           help="write artifacts into DIR (created when missing; subfolders kept), or one "
                                "artifact to FILE.svg")
    build_cmd.add_argument("--with-title", action="store_true",
                           help="draw the title inside the figure (recorded in the artifact)")
    build_cmd.add_argument("--check", action="store_true",
                           help="write nothing: report artifacts that are missing or stale, exit 1 if any")
    read = commands.add_parser("read", help="print the §12 model JSON of a document (or of an SVG we built)")
    read.add_argument("path", metavar="PATH",
                      help="a .fd file, an .svg built by FigDown (its embedded source is read), or - for stdin")
    reference = commands.add_parser("reference", help="print our FigDown reference (index without NAME)")
    reference.add_argument(
        "name", nargs="?", metavar="NAME", help="a genre name, reading, transcribe, build, or skill",
    )
    reference.add_argument(
        "--experimental", action="store_true", help="add the genre's experimental reference files",
    )
    return parser


def _stdin_bytes() -> BinaryIO:
    return getattr(sys.stdin, "buffer", sys.stdin)  # type: ignore[return-value]


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``figdown``; returns the exit code."""
    tolerant(sys.stdout, sys.stderr)
    options = cmdline.parse(build_parser().parse_args, argv)
    if isinstance(options, int):  # --help, --version or a usage error, already told
        return options
    out, err = sys.stdout, sys.stderr
    try:
        if options.command == "check":
            return command_check(options, out, _stdin_bytes())
        if options.command == "build":
            return command_build(options, out, err, _stdin_bytes())
        if options.command == "read":
            return command_read(options, out, err, _stdin_bytes())
        return command_reference(options, out)
    except (FileAccessError, CommandError, UsageError, docs.DocsError) as error:
        err.write(f"{PROG}: {escape_controls(str(error))}\n")
        return 2
    except BrokenPipeError:  # e.g. `figdown reference | head`: the reader left; stop quietly
        cmdline.leave_stdout()
        return 0
    except KeyboardInterrupt:
        err.write(f"{PROG}: interrupted\n")
        return 130


if __name__ == "__main__":
    sys.exit(main())
