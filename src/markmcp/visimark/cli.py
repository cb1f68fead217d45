"""The ``visimark`` command line: check, fmt, eval, explain, ref.

With :mod:`.runner` (what each command does), the only VisiMark module that touches the
filesystem.  Options are validated (:mod:`.command_line`) before any file is read or any
engine module imported; an unknown or misplaced option is exit 2 with a did-you-mean.
Exit codes: 0 nothing to fix, 1 the document has problems, 2 the command could not run.
"""

from __future__ import annotations

import sys

from markmcp import __version__
from markmcp.cmdline import arguments, leave_stdout
from markmcp.textsafe import escape_controls

from .command_line import (ALL_OPTIONS, COMMANDS, FLAGS, HELP, OUT_OF_SCOPE, USAGE, VALUED, Args, Usage, command_help,
                           parse_args)
from .suggest import closest

__all__ = ["ALL_OPTIONS", "COMMANDS", "FLAGS", "HELP", "OUT_OF_SCOPE", "USAGE", "VALUED", "Args", "Usage",
           "main", "parse_args"]


def main(argv: list[str] | None = None, out=None, err=None) -> int:
    """Entry point: returns the exit code (0, 1 or 2)."""
    try:
        return _main(argv, out, err)
    except BrokenPipeError:
        leave_stdout()  # the reader went away (`visimark --help | head -1`): stop quietly
        return 1


def _main(argv: list[str] | None, out, err) -> int:
    argv = arguments(argv)
    out = out or (lambda s: print(s))
    err = err or (lambda s: print(s, file=sys.stderr))
    if not argv:  # a usage error, so the usage goes where errors go (upstream's CLI test)
        err(HELP)
        return 2
    if argv[0] in ("--help", "-h", "help"):
        out(HELP)
        return 0
    if argv[0] in ("--version", "-v", "version"):
        out(f"visimark {__version__}")
        return 0
    command = argv[0]
    if command not in COMMANDS:
        if command in OUT_OF_SCOPE:
            err(f"visimark: {command} is not supported by this engine")
        else:
            guess = closest(command, COMMANDS, 3)
            err(f"visimark: unknown command {escape_controls(command)}" + (f" — did you mean `{guess}`?" if guess else ""))
        return 2
    if any(a in ("--help", "-h") for a in argv[1:]):
        out(command_help(command))
        return 0
    try:
        args = parse_args(command, argv[1:])
    except Usage as e:
        err(escape_controls(str(e)))
        if "--json" in argv:
            import json

            out(json.dumps({"command": command, "visimark": __version__, "status": "error",
                            "error": {"code": "USAGE", "message": str(e)}}, indent=2, ensure_ascii=False))
        return 2
    from .runner import Runner  # the engine, loaded once the command line is known to be good

    runner = Runner(out, err, raw_out=out)
    try:
        return getattr(runner, command)(args)
    except RecursionError:
        err("visimark: the document nests too deeply to evaluate")
        return 2
    except BrokenPipeError:
        leave_stdout()  # the reader went away (`visimark eval … | head`): stop quietly
        return 1


if __name__ == "__main__":
    sys.exit(main())
