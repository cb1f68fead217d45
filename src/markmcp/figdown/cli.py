"""``figdown``: check FigDown documents, print their model, show our reference.

Commands::

    figdown check [--json] PATH...          # files or directories
    figdown read PATH                       # the §12 model JSON
    figdown reference [NAME] [--experimental]

``check`` walks directories recursively in sorted order, skipping ``.git`` and
``node_modules``, and looks at every ``*.fd`` file; a file named directly is
checked whatever its extension.  ``-`` reads standard input.  Exit codes: 0 all
clean, 1 some document has diagnostics, 2 usage error or a path that cannot be
read (nothing is checked then).

This module is an edge: it reads files and prints.  The engine
(:func:`markmcp.figdown.parse`) never touches the filesystem.  The walking and
report helpers here are shared with ``figdown-mcp`` (:mod:`.server`).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from markmcp.figdown import ParseResult, model_json, parse
from markmcp.figdown import docs

PROG = "figdown"
SKIPPED_DIRS = frozenset({".git", "node_modules"})
SUFFIX = ".fd"
STDIN = "-"


class SourceError(Exception):
    """A path that cannot be read as a FigDown document (missing, unreadable, not UTF-8)."""


# --- finding and reading documents --------------------------------------------------


def walk(directory: Path) -> list[Path]:
    """Every ``*.fd`` file below ``directory``, depth first: a directory's files in name
    order, then its subdirectories in name order; ``.git`` and ``node_modules`` skipped.
    Symlinked directories are not followed (no cycles)."""
    found: list[Path] = []
    pending: list[Path] = [directory]
    while pending:
        current = pending.pop()
        try:
            with os.scandir(current) as scan:
                entries = sorted(scan, key=lambda entry: entry.name)
        except OSError as error:
            raise SourceError(f"cannot read directory {current}: {error.strerror or error}") from None
        subdirs: list[Path] = []
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                if entry.name not in SKIPPED_DIRS:
                    subdirs.append(Path(entry.path))
            elif entry.name.endswith(SUFFIX) and entry.is_file():
                found.append(Path(entry.path))
        # Files of a directory come before its subdirectories; subdirectories in name order.
        pending.extend(reversed(subdirs))
    return found


def read_document(path: Path) -> str:
    """The text of one document (UTF-8); :class:`SourceError` naming the path otherwise."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise SourceError(f"no such file: {path}") from None
    except IsADirectoryError:
        raise SourceError(f"{path} is a directory") from None
    except OSError as error:
        raise SourceError(f"cannot read {path}: {error.strerror or error}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise SourceError(f"{path} is not UTF-8 text (byte {error.start})") from None


# --- diagnostics and reports (shared with figdown-mcp) --------------------------------


def diagnostics(result: ParseResult) -> list[dict[str, Any]]:
    """The result's diagnostics as ``{"line", "column", "message"}``, in line order."""
    items = sorted(result.diagnostics, key=lambda d: (d.line, d.col or 0, d.message))
    return [{"line": d.line, "column": d.col, "message": d.message} for d in items]


def diagnostic_lines(items: Iterable[dict[str, Any]]) -> list[str]:
    """The engine's ``Line N: message`` text of each diagnostic."""
    return [f"Line {d['line']}: {d['message']}" for d in items]


def parse_failed(label: str, items: list[dict[str, Any]]) -> str:
    """The report of a document that does not parse: a headline, then the diagnostics verbatim."""
    head = f"PARSE FAILED — {len(items)} diagnostic(s) in {label}"
    return "\n".join([head, *diagnostic_lines(items)])


def check_report(label: str, text: str) -> dict[str, Any]:
    """``{"label", "ok", "diagnostics"}`` for one document."""
    items = diagnostics(parse(text))
    return {"label": label, "ok": not items, "diagnostics": items}


def tally(reports: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The summary of a check run: counts plus the per-document reports."""
    failing = sum(1 for report in reports if not report["ok"])
    return {
        "ok": failing == 0,
        "checked": len(reports),
        "clean": len(reports) - failing,
        "withDiagnostics": failing,
        "documents": list(reports),
    }


def tally_line(summary: dict[str, Any]) -> str:
    return (
        f"checked {summary['checked']} document(s), {summary['clean']} clean, "
        f"{summary['withDiagnostics']} with diagnostics"
    )


# --- commands ------------------------------------------------------------------------


@dataclass
class Document:
    label: str
    text: str


def _label(path: Path) -> str:
    """A path as the user will recognise it: relative to the working directory when below it."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def collect(arguments: Sequence[str], stdin: TextIO) -> list[Document]:
    """The documents named by ``arguments`` (files, directories, ``-``), in order."""
    documents: list[Document] = []
    for argument in arguments:
        if argument == STDIN:
            documents.append(Document("<stdin>", stdin.read()))
            continue
        path = Path(argument)
        if path.is_dir():
            documents.extend(Document(_label(found), read_document(found)) for found in walk(path))
        elif path.exists():
            documents.append(Document(argument, read_document(path)))
        else:
            raise SourceError(f"no such file or directory: {argument}")
    return documents


def command_check(options: argparse.Namespace, out: TextIO, stdin: TextIO) -> int:
    documents = collect(options.paths, stdin)
    summary = tally([check_report(doc.label, doc.text) for doc in documents])
    if options.json:
        out.write(json.dumps(summary, ensure_ascii=False, indent=2) + "\n")
    else:
        for report in summary["documents"]:
            if not report["ok"]:
                out.write(parse_failed(report["label"], report["diagnostics"]) + "\n\n")
        out.write(tally_line(summary) + "\n")
    return 0 if summary["ok"] else 1


def command_read(options: argparse.Namespace, out: TextIO, err: TextIO, stdin: TextIO) -> int:
    if options.path == STDIN:
        label, text = "<stdin>", stdin.read()
    else:
        path = Path(options.path)
        if path.is_dir():
            raise SourceError(f"{options.path} is a directory (read takes one document)")
        label, text = options.path, read_document(path)
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
        "check", help="check documents (files or directories, walked recursively)",
        description="Check FigDown documents. Exit 0 when all are clean, 1 when any has "
                    "diagnostics, 2 on a usage error or a path that cannot be read.",
    )
    check.add_argument("paths", nargs="+", metavar="PATH", help="a .fd file, a directory, or - for stdin")
    check.add_argument("--json", action="store_true", help="print the report as JSON")
    read = commands.add_parser("read", help="print the §12 model JSON of a document")
    read.add_argument("path", metavar="PATH", help="a .fd file, or - for stdin")
    reference = commands.add_parser("reference", help="print our FigDown reference (index without NAME)")
    reference.add_argument(
        "name", nargs="?", metavar="NAME", help="a genre, a task (reading, transcribe) or skill",
    )
    reference.add_argument(
        "--experimental", action="store_true", help="add the genre's experimental reference files",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``figdown``; returns the exit code."""
    parser = build_parser()
    try:
        options = parser.parse_args(argv)
    except SystemExit as stop:
        return 0 if stop.code in (0, None) else 2
    out, err, stdin = sys.stdout, sys.stderr, sys.stdin
    try:
        if options.command == "check":
            return command_check(options, out, stdin)
        if options.command == "read":
            return command_read(options, out, err, stdin)
        return command_reference(options, out)
    except (SourceError, docs.DocsError) as error:
        err.write(f"{PROG}: {error}\n")
        return 2
    except BrokenPipeError:  # e.g. `figdown reference | head`
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    sys.exit(main())
