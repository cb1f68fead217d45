"""``figdown``: check FigDown documents, print their model, show our reference.

Commands::

    figdown check [--json] PATH...          # files or directories
    figdown read PATH                       # the §12 model JSON
    figdown reference [NAME] [--experimental]

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

Exit codes: 0 all clean, 1 some document has diagnostics or was not read, 2 usage
error or a named path that cannot be read (nothing is checked then), 130
interrupted.  No input makes it print a traceback: paths whose bytes are not UTF-8
are shown with ``\\xNN`` escapes, control characters from documents and file names
are escaped in the text report (``--json`` keeps them exact), and output that the
terminal's encoding cannot carry is escaped rather than refused.

This module is an edge: it reads files and prints.  The engine
(:func:`markmcp.figdown.parse`) never touches the filesystem.  Finding and reading
documents (:mod:`.sources`) and the report text (:mod:`.report`) are shared with
``figdown-mcp``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, BinaryIO, TextIO

from markmcp.figdown import docs, model_json, parse
from markmcp.figdown.report import (
    check_report,
    diagnostics,
    failing_blocks,
    parse_failed,
    tally,
    tally_line,
    unread_report,
)
from markmcp.figdown.sources import documents_below, read_document, read_stream, shown
from markmcp.mcpcore import files
from markmcp.mcpcore.files import FileAccessError
from markmcp.textsafe import escape_controls

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
    if options.path == STDIN:
        label, text = STDIN_LABEL, read_stream(stdin, STDIN_LABEL)
    else:
        label = shown(options.path)
        if files.kind_of(options.path) == "dir":
            raise CommandError(f"{files.shown(options.path)} is a directory (read takes one document)")
        if Path(options.path).suffix.lower() == ".svg":
            raise CommandError(f"{files.shown(options.path)} is an SVG: recovering the source from a built "
                               "figure is not supported yet; read the .fd it was built from (never the picture)")
        text = read_document(options.path, label=label)
    result = parse(text)
    if result.diagnostics:
        err.write(parse_failed(label, diagnostics(result)) + "\n")
        return 1
    out.write(model_json(result))
    return 0


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
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    check = commands.add_parser(
        "check", help="check documents (files, or every .fd below a directory)",
        description="Check FigDown documents. Exit 0 when all are clean, 1 when any has "
                    "diagnostics or could not be read, 2 on a usage error or a named path that "
                    "cannot be read. Nothing outside a walked directory is read; no document may "
                    "exceed 10 MiB.",
    )
    check.add_argument("paths", nargs="+", metavar="PATH", help="a .fd file, a directory, or - for stdin")
    check.add_argument("--json", action="store_true", help="print the report as JSON")
    read = commands.add_parser("read", help="print the §12 model JSON of a document")
    read.add_argument("path", metavar="PATH", help="a .fd file, or - for stdin")
    reference = commands.add_parser("reference", help="print our FigDown reference (index without NAME)")
    reference.add_argument(
        "name", nargs="?", metavar="NAME", help="a genre name, reading, transcribe, or skill",
    )
    reference.add_argument(
        "--experimental", action="store_true", help="add the genre's experimental reference files",
    )
    return parser


def _tolerant(stream: TextIO) -> None:
    """Let ``stream`` escape what its encoding cannot carry instead of raising."""
    reconfigure = getattr(stream, "reconfigure", None)
    if reconfigure is not None and getattr(stream, "errors", None) == "strict":
        reconfigure(errors="backslashreplace")


def _stdin_bytes() -> BinaryIO:
    return getattr(sys.stdin, "buffer", sys.stdin)  # type: ignore[return-value]


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``figdown``; returns the exit code."""
    _tolerant(sys.stdout)
    _tolerant(sys.stderr)
    parser = build_parser()
    try:
        options = parser.parse_args(argv)
    except SystemExit as stop:
        return 0 if stop.code in (0, None) else 2
    out, err = sys.stdout, sys.stderr
    try:
        if options.command == "check":
            return command_check(options, out, _stdin_bytes())
        if options.command == "read":
            return command_read(options, out, err, _stdin_bytes())
        return command_reference(options, out)
    except (FileAccessError, CommandError, docs.DocsError) as error:
        err.write(f"{PROG}: {escape_controls(str(error))}\n")
        return 2
    except BrokenPipeError:  # e.g. `figdown reference | head`: the reader left; stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # the interpreter's final flush must not fail again
        return 0
    except KeyboardInterrupt:
        err.write(f"{PROG}: interrupted\n")
        return 130


if __name__ == "__main__":
    sys.exit(main())
