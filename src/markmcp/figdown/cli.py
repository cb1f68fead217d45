"""``figdown``: check FigDown documents, print their model, show our reference.

Commands::

    figdown check [--json] PATH...          # files or directories
    figdown read PATH                       # the §12 model JSON
    figdown reference [NAME] [--experimental]

``check`` walks directories in name order (a subdirectory where its name falls),
skipping ``.git`` and ``node_modules``, and looks at every ``*.fd`` file; a file
named directly is checked whatever its extension.  ``-`` reads standard input (as bytes, like a
file: UTF-8, line ends untouched).  Exit codes: 0 all clean, 1 some document has
diagnostics, 2 usage error or a path that cannot be read (nothing is checked
then), 130 interrupted.  No input makes it print a traceback: paths whose bytes
are not UTF-8 are shown with ``\\xNN`` escapes, and output that the terminal's
encoding cannot carry is escaped rather than refused.

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
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, TextIO

from markmcp.figdown import docs, model_json, parse
from markmcp.figdown.report import check_report, diagnostics, parse_failed, tally, tally_line
from markmcp.figdown.sources import SourceError, decode, read_document, shown, walk

PROG = "figdown"
STDIN = "-"


# --- commands ------------------------------------------------------------------------


@dataclass
class Document:
    label: str
    text: str


def _label(path: Path) -> str:
    """A path as the user will recognise it: relative to the working directory when below it."""
    try:
        return shown(path.relative_to(Path.cwd()))
    except ValueError:
        return shown(path)


def read_stdin(stdin: BinaryIO) -> Document:
    """Standard input as one document, decoded like a file."""
    return Document("<stdin>", decode(stdin.read(), "<stdin>"))


def collect(arguments: Sequence[str], stdin: BinaryIO) -> list[Document]:
    """The documents named by ``arguments`` (files, directories, ``-``), in order.
    Everything is read before anything is checked, so a path that cannot be read
    stops the run with nothing reported."""
    documents: list[Document] = []
    for argument in arguments:
        if argument == STDIN:
            documents.append(read_stdin(stdin))
            continue
        path = Path(argument)
        if path.is_dir():
            documents.extend(Document(_label(found), read_document(found)) for found in walk(path))
        elif path.exists():
            documents.append(Document(shown(argument), read_document(path)))
        else:
            raise SourceError(f"no such file or directory: {shown(argument)}")
    return documents


def command_check(options: argparse.Namespace, out: TextIO, stdin: BinaryIO) -> int:
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


def command_read(options: argparse.Namespace, out: TextIO, err: TextIO, stdin: BinaryIO) -> int:
    if options.path == STDIN:
        label, text = "<stdin>", read_stdin(stdin).text
    else:
        path = Path(options.path)
        if path.is_dir():
            raise SourceError(f"{shown(options.path)} is a directory (read takes one document)")
        if path.suffix.lower() == ".svg":
            raise SourceError(f"{shown(options.path)} is an SVG: recovering the source from a built figure "
                              "is not supported yet; read the .fd it was built from (never the picture)")
        label, text = shown(options.path), read_document(path)
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
                    "diagnostics, 2 on a usage error or a path that cannot be read.",
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
    except (SourceError, docs.DocsError) as error:
        err.write(f"{PROG}: {error}\n")
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
