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

This module is an edge: it parses the command line (and answers ``--help``,
``--version`` and usage errors) with the standard library alone, then imports the one
module of :mod:`markmcp.figdown.commands` that runs the subcommand, so each loads only
the engine parts it needs.  The engine (:func:`markmcp.figdown.parse`) never touches the
filesystem.  Finding and reading documents (:mod:`.sources`), the report text
(:mod:`.report`) and artifacts on disk (:mod:`.artifacts`) are shared with ``figdown-mcp``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import BinaryIO

from markmcp import __version__, cmdline
from markmcp.figdown.commands import PROG
from markmcp.textsafe import escape_controls, tolerant


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


def runner(command: str) -> ModuleType:
    """The module that runs ``command`` (``run`` and ``REFUSED``), imported only now: the
    command line is parsed before any engine module is loaded, and each subcommand loads
    only what it uses."""
    if command == "check":
        from markmcp.figdown.commands import check as module
    elif command == "build":
        from markmcp.figdown.commands import build as module
    elif command == "read":
        from markmcp.figdown.commands import read as module
    else:
        from markmcp.figdown.commands import reference as module
    return module


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
        command = runner(options.command)
        try:
            return command.run(options, out, err, _stdin_bytes())
        except command.REFUSED as error:
            err.write(f"{PROG}: {escape_controls(str(error))}\n")
            if getattr(options, "json", False):
                # a script reading --json gets JSON even when the run could not start
                code = getattr(error, "code", None) or "usage"
                out.write(json.dumps({"ok": False, "error": {"code": code, "message": str(error)}},
                                     ensure_ascii=False, indent=2) + "\n")
            return 2
    except BrokenPipeError:  # e.g. `figdown reference | head`: the reader left; stop quietly
        cmdline.leave_stdout()
        return 0
    except KeyboardInterrupt:
        err.write(f"{PROG}: interrupted\n")
        return 130


if __name__ == "__main__":
    sys.exit(main())
