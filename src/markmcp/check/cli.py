"""``markmcp``: one command for a whole docs tree.

::

    markmcp check [PATH...] [--fix] [--json | --format text|json|sarif]
                  [--only ENGINE[,ENGINE]] [--jobs N] [--shard I/N] [--changed-since REV]
    markmcp serve [OPTION...]        # the MCP server of all three tool families (markmcp-mcp)
    markmcp --version | --help

``check`` walks each folder (default ``.``) and checks every document an engine owns
(see :mod:`markmcp.check`).  Exit codes: 0 nothing to fix, 1 findings (or a file found
but not readable), 2 the check could not run (a usage error, a path that does not
exist, only files named that no engine checks, a revision git does not know, an engine that failed on a file), 130
interrupted.  Nothing is ever printed as a traceback.

This module is the edge with :mod:`.command`: it parses the whole command line (and
answers ``--help``, ``--version`` and usage errors) before :mod:`.command` prints and
shows progress on standard error when that is a terminal.  The work is in the package
(:mod:`.tree`, :mod:`.run`, :mod:`.engines`, :mod:`.report`).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from markmcp import __version__
from markmcp.cmdline import CommandParser, arguments, parse
from markmcp.textsafe import tolerant

from .findings import ENGINES

PROG = "markmcp"


def _engines(text: str) -> list[str]:
    chosen = [part.strip() for part in text.split(",") if part.strip()]
    unknown = [part for part in chosen if part not in ENGINES]
    if unknown or not chosen:
        raise argparse.ArgumentTypeError(f"choose from {', '.join(ENGINES)} (comma-separated), not {text!r}")
    return chosen


def _jobs(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"wants a whole number, not {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"wants at least 1, not {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=PROG, description="markmcp: VisiMark, FigDown and MRSF documents, "
                                     "checked together.", allow_abbrev=False)
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=CommandParser)
    check = commands.add_parser(
        "check", help="check every VisiMark, FigDown and MRSF document of a tree", allow_abbrev=False,
        description="Check every document each engine owns below PATH (default: the working folder): "
                    "VisiMark documents with their charts and imports, FigDown sources and the .svg "
                    "artifacts built from them, MRSF sidecars (valid, and where the current document "
                    "puts each comment). .gitignore is honoured, .git and node_modules are skipped, "
                    "a symlinked file is reported, never read or written through. Exit 0 clean, 1 findings, "
                    "2 could not run.")
    check.add_argument("paths", nargs="*", metavar="PATH", help="a folder to walk or a file to check")
    check.add_argument("--fix", action="store_true",
                       help="repair what is safe (VisiMark fmt, FigDown rebuild of stale .svg, MRSF "
                            "re-anchor) and say what changed")
    check.add_argument("--format", choices=("text", "json", "sarif"), default=None,
                       help="text (default), json (one envelope, a section per engine) or sarif (2.1.0)")
    check.add_argument("--json", action="store_true", help="the same as --format json")
    check.add_argument("--only", type=_engines, metavar="ENGINE[,ENGINE]",
                       help=f"check only these engines' files ({', '.join(ENGINES)})")
    check.add_argument("--jobs", "-j", type=_jobs, metavar="N",
                       help="worker processes (default: one per processor)")
    check.add_argument("--shard", metavar="I/N",
                       help="check only shard I of N (a stable split by path, for a CI matrix)")
    check.add_argument("--changed-since", metavar="REV",
                       help="check only what git says changed since REV (and what depends on it)")
    check.add_argument("--no-progress", action="store_true", help="no progress bar on standard error")
    # listed for --help only: main hands `serve` and everything after it to the server's own parser
    commands.add_parser("serve", help="run the MCP server of all three tool families (the same as markmcp-mcp; "
                        "`markmcp serve --help` lists its options)", add_help=False)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``markmcp``; returns the exit code."""
    tolerant(sys.stdout, sys.stderr)
    argv = arguments(argv)
    if argv[:1] == ["serve"]:
        from markmcp.server import main as serve  # the server's modules load only for `serve`

        return serve(argv[1:], prog=f"{PROG} serve")
    options = parse(build_parser().parse_args, argv)
    if isinstance(options, int):  # --help, --version or a usage error, already told
        return options
    from .command import check  # the walk and the engines, loaded once the command line is good

    return check(options)


if __name__ == "__main__":
    sys.exit(main())
