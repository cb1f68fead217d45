"""What ``markmcp check`` does once its command line parsed (:mod:`.cli`): walk the
tree, check each document in worker processes, print the report.

Imported by :mod:`.cli` only after the command line is known to be good, so ``markmcp
--help`` and a usage error start no walk and load no engine.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from concurrent.futures.process import BrokenProcessPool
from typing import TextIO

from markmcp.cmdline import leave_stdout
from markmcp.mcpcore import files
from markmcp.textsafe import escape_controls

from . import report
from .findings import FOLDER
from .run import default_jobs, run
from .tree import FOREIGN, TreeError, changed_since, in_shard, parse_shard, repository_top, shard_of, start

PROG = "markmcp"


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


def _form(options: argparse.Namespace) -> str | None:
    """The report's form, or None when --json and --format disagree."""
    if options.json and options.format not in (None, "json"):
        return None
    return options.format or ("json" if options.json else "text")


def command_check(options: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    form = _form(options)
    if form is None:
        raise TreeError(f"--json and --format {options.format} disagree; give one")
    shard = parse_shard(options.shard) if options.shard else None
    plan, tasks = start(options.paths)  # the walk goes on while the first tasks are checked
    for name in plan.foreign:
        err.write(f"{PROG} check: warning: {escape_controls(files.shown(name))}: {FOREIGN}; not checked\n")
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


def check(options: argparse.Namespace) -> int:
    """Run ``markmcp check`` as ``options`` ask; returns the exit code."""
    out, err = sys.stdout, sys.stderr
    try:
        return command_check(options, out, err)
    except TreeError as error:
        return could_not_run(options, str(error), out, err)
    except BrokenProcessPool:
        return could_not_run(options, "a worker process died; the check could not finish", out, err)
    except BrokenPipeError:  # `markmcp check | head`: the reader left; stop quietly
        leave_stdout()
        return report.EXIT_OK
    except KeyboardInterrupt:
        err.write(f"{PROG}: interrupted\n")
        return 130


def could_not_run(options: argparse.Namespace, message: str, out: TextIO, err: TextIO) -> int:
    """Say why the check could not run (exit 2): on standard error, and, for --json or
    --format sarif, as a JSON error envelope or a SARIF log whose invocation did not
    succeed, so whatever reads standard output gets a document, not an empty file
    (nothing when --json and --format disagree: no form was chosen)."""
    err.write(f"{PROG} check: {escape_controls(message)}\n")
    form = _form(options)
    try:
        if form == "json":
            out.write(report.json_text(report.failure_envelope(message)))
        elif form == "sarif":
            here = Path.cwd()
            out.write(report.json_text(report.failure_sarif(message, repository_top(here) or here)))
    except BrokenPipeError:
        leave_stdout()
    return report.EXIT_ERROR
