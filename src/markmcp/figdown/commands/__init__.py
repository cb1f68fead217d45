"""The ``figdown`` subcommands, one module each: :mod:`.check`, :mod:`.build`, :mod:`.read`
and :mod:`.reference`.

``figdown`` (:mod:`markmcp.figdown.cli`) parses its whole command line first and then
imports the one module that runs the subcommand asked for, so each subcommand loads only
the engine parts it uses: ``reference`` no engine at all, ``read`` of a ``.fd`` the parser
without the renderer.  Each module has ``run(options, out, err, stdin)``, which returns the
exit code, and ``REFUSED``, the errors that mean the command could not run (exit 2, the
message printed after ``figdown:``).

This package is an edge, like the command: the modules read files and print.  What they
share is here, standard library only.
"""

from __future__ import annotations

PROG = "figdown"
STDIN = "-"
STDIN_LABEL = "<stdin>"


class CommandError(Exception):
    """A request the command cannot carry out (a directory or a picture given to ``read``)."""


class UsageError(Exception):
    """A command line that asks for something impossible (exit 2, nothing done)."""
