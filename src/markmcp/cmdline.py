"""What every markmcp command does with its command line: the CLIs and the MCP servers.

Each command parses (and checks) its whole command line before it does any work, and never
lets argparse's ``SystemExit`` or a closed stdout end in a traceback:

* :func:`parse` runs a parser and turns argparse's way out into an exit code: 0 after
  ``--help`` or ``--version`` (printed on stdout), :data:`USAGE` after a usage error (usage
  and the message printed on stderr);
* :class:`CommandParser` is the parser of one subcommand: an argument the subcommand does
  not take is reported with the subcommand's own usage;
* :func:`leave_stdout` is what a command does when the reader of its stdout went away.

Standard library only and cheap to import.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import TypeVar

USAGE = 2
"""The exit code of a usage error (argparse's)."""

T = TypeVar("T")


def arguments(argv: Sequence[str] | None) -> list[str]:
    """The command's arguments: ``argv``, or the process's own (``sys.argv[1:]``) when None."""
    return list(sys.argv[1:] if argv is None else argv)


def parse(parse_words: Callable[[list[str]], T], argv: Sequence[str] | None) -> T | int:
    """``parse_words(arguments(argv))``, or the exit code when argparse stopped instead
    (0 after ``--help``/``--version``, :data:`USAGE` after a usage error; argparse printed
    what the user needs to see).  A caller tells the two apart with ``isinstance(result, int)``."""
    try:
        return parse_words(arguments(argv))
    except SystemExit as stop:
        return 0 if stop.code in (0, None) else USAGE


class CommandParser(argparse.ArgumentParser):
    """The parser of a subcommand (``parser_class`` of ``add_subparsers``): an argument the
    subcommand does not take is reported with the subcommand's usage (argparse would leave
    it to the top-level parser, whose usage names no argument)."""

    def parse_known_args(self, args=None, namespace=None):  # type: ignore[no-untyped-def]
        namespace, extras = super().parse_known_args(args, namespace)
        if extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return namespace, extras


def leave_stdout() -> None:
    """The reader of stdout went away (``BrokenPipeError``, e.g. ``command | head``): point
    stdout at /dev/null, so the interpreter's final flush of what is still buffered cannot
    fail again (a traceback at exit).  The command then returns its exit code quietly."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, sys.stdout.fileno())
        finally:
            os.close(devnull)
    except (OSError, ValueError):  # no stdout file descriptor to point anywhere
        pass
