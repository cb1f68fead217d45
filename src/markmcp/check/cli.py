"""``markmcp``: one command for a whole docs tree.

::

    markmcp check [PATH...] [--fix] [--json | --format text|json|sarif]
                  [--only ENGINE[,ENGINE]] [--jobs N] [--shard I/N] [--changed-since REV]
    markmcp serve [OPTION...]        # the MCP server of all three tool families (markmcp-mcp)
    markmcp --version | --help

``check`` walks each folder (default ``.``) and checks every document an engine owns
(see :mod:`markmcp.check`).  Exit codes: 0 nothing to fix, 1 findings (or a file found
but not readable), 2 the check could not run (a usage error, a path that does not
exist, a revision git does not know, an engine that failed on a file), 130
interrupted.  Nothing is ever printed as a traceback.

This module is the edge: it parses arguments, prints, and shows progress on standard
error when that is a terminal.  The work is in the package (:mod:`.tree`,
:mod:`.run`, :mod:`.engines`, :mod:`.report`).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from concurrent.futures.process import BrokenProcessPool
from typing import TextIO

from markmcp import __version__
from markmcp.cmdline import CommandParser, arguments, leave_stdout, parse
from markmcp.textsafe import escape_controls, tolerant

from . import report
from .findings import ENGINES, FOLDER
from .run import default_jobs, run
from .tree import TreeError, changed_since, in_shard, parse_shard, repository_top, shard_of, start

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
                    "symlinks never lead out of the tree. Exit 0 clean, 1 findings, 2 could not run.")
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


class Bar:
    """A progress line on a terminal's standard error, redrawn at most ten times a second."""

    WIDTH = 30

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.last = 0.0
        self.shown = False

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if done < total and now - self.last < 0.1:
            return
        self.last = now
        filled = self.WIDTH * done // total if total else self.WIDTH
        self.stream.write(f"\r[{'#' * filled}{'.' * (self.WIDTH - filled)}] {done}/{total} files")
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown:
            self.stream.write("\r" + " " * (self.WIDTH + 40) + "\r")
            self.stream.flush()


def command_check(options: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    form = options.format or ("json" if options.json else "text")
    if options.json and options.format not in (None, "json"):
        raise TreeError(f"--json and --format {options.format} disagree; give one")
    shard = parse_shard(options.shard) if options.shard else None
    plan, tasks = start(options.paths)  # the walk goes on while the first tasks are checked
    if options.only:
        only = frozenset(options.only)
        tasks = (task for task in tasks if task[0] in only)
    if shard is not None:
        tasks = (task for task in tasks if in_shard(task, plan.top, *shard))
    changed = changed_since(options.changed_since, plan.top) if options.changed_since else None
    use_git = repository_top(plan.top) is not None
    bar = Bar(err) if not options.no_progress and err.isatty() else None
    try:
        outcomes = run(tasks, jobs=options.jobs or default_jobs(), fix=options.fix, changed=changed,
                       use_git=use_git, progress=bar, prepare=report.encode_parts if form == "json" else None)
    finally:
        if bar is not None:
            bar.close()
    if options.only:
        plan.known = [item for item in plan.known if item["engine"] in (*options.only, FOLDER)]
    if shard is not None:
        plan.known = [known for known in plan.known if shard_of(known["path"], plan.top, shard[1]) == shard[0]]
    outcomes = sorted(plan.known + outcomes, key=lambda item: (item["path"], item["engine"]))
    if form == "json":
        out.write(report.envelope_text(outcomes))
    elif form == "sarif":
        out.write(report.json_text(report.sarif(outcomes, plan.top)))
    else:
        out.write(report.text(outcomes))
    return report.exit_code(outcomes)


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
    out, err = sys.stdout, sys.stderr
    try:
        return command_check(options, out, err)
    except TreeError as error:
        err.write(f"{PROG} check: {escape_controls(str(error))}\n")
        return 2
    except BrokenProcessPool:
        err.write(f"{PROG} check: a worker process died; the check could not finish\n")
        return 2
    except BrokenPipeError:  # `markmcp check | head`: the reader left; stop quietly
        leave_stdout()
        return report.EXIT_OK
    except KeyboardInterrupt:
        err.write(f"{PROG}: interrupted\n")
        return 130


if __name__ == "__main__":
    sys.exit(main())
