"""``mrsf``: the MRSF (Sidemark) command-line tool.

Subcommands (as the upstream ``@mrsf/cli``): ``validate``, ``add``, ``list``, ``resolve``,
``reanchor``, ``status``, ``init``, ``rename``, ``watch``; and ``repair`` (as the
``mrsf_repair`` tool of the server).  ``watch`` polls the files (every ``--interval``
ms, no file-system notification library) and runs until Ctrl+C or SIGTERM; with
``--json`` it prints one JSON object per line (a ``watching`` record, one ``event``
record per change, a final ``summary``).  Global options ``--cwd``, ``--config``,
``--no-color``, ``-q/--quiet``, ``-v/--verbose`` may stand before or after the subcommand.
Every subcommand takes ``--json`` for machine-readable output on stdout.

Exit codes
    0  success
    1  problems found: invalid sidecars (``validate``), orphaned comments
       (``reanchor``), any error while watching (``watch``), an unknown comment id, a sidecar that already exists (``init``),
       a version conflict; or a sidecar that a run over a folder or the workspace found
       but did not read (see below)
    2  usage error or a file named on the command line that cannot be read (missing,
       malformed, outside the workspace); the message goes to stderr, never a traceback

Runs over several sidecars (``validate``, ``reanchor``, ``status``, ``list`` and
``watch`` over a folder or the whole workspace, ``reanchor --staged``) work on every
sidecar they can read and report each one they found but did not read (a FIFO or
device, a symlink leading out of the workspace root, a file over the size limit; for
all but ``validate``, which judges it invalid, one that does not parse): after the
report on stdout, ``PARTIAL: N sidecar(s) found but not read`` and one ``NOT READ —
file`` entry each with why (the wording of the server and of FigDown's folder check);
with ``--json``, a ``notRead`` list (``file``, ``code``, ``message``) beside the result
(``list`` and ``status``, whose result is an array, then print an object: the array
under ``comments`` or ``results``, and ``notRead``; ``watch`` puts it in its
``watching`` record, or a ``notRead`` record for one found later).  Such a run exits 1
(``validate`` is then not ``valid``: a sidecar not read was not validated); a file
named on the command line that cannot be read still exits 2.

This module is an edge: it parses the whole command line (and answers ``--help``,
``--version`` and usage errors) before it imports :mod:`.commands`, which calls
:mod:`markmcp.mrsf.ops` and prints.
One deliberate difference from upstream: ``add --line N`` captures line N of the
document as ``selected_text`` (upstream captures line N-1).

Files are read and written only inside the workspace root the engine finds (through
:mod:`markmcp.mcpcore.files`: a FIFO or device is refused, never read), and the human
output escapes control characters, so a sidecar cannot send escape sequences or forged
lines to the terminal (``--json`` output is exact).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from markmcp import __version__
from markmcp.cmdline import USAGE, CommandParser, parse

PROG = "mrsf"

#: The end of ``mrsf --help``.
EXIT_CODES = ("exit codes: 0 success; 1 problems found (an invalid sidecar, an orphaned comment, an error while "
              "watching, an unknown comment id, a version conflict, or a sidecar that a run over a folder or the "
              "workspace found but did not read); 2 usage error, or a file named on the command line that cannot "
              "be read")
#: The end of the help of each command that runs over several sidecars.
SWEEP_HELP = ("Over a folder or the whole workspace (no files given), every sidecar that can be read is worked on; "
              "each one found but not read (a FIFO or device, a symlink leading out of the workspace root, a file "
              "over the size limit, one that does not parse, which validate judges invalid instead) is listed "
              "after the report (watch: when it starts, or finds one) as PARTIAL, then 'NOT READ — file' and why "
              "(with --json: notRead, each with file, code and message; list and status then print an object, "
              "their array under 'comments' or 'results' beside notRead), and the exit code is 1. A file named on "
              "the command line that cannot be read exits 2.")


# ---------------------------------------------------------------------------
# Argument types
# ---------------------------------------------------------------------------


def _integer(minimum: int, what: str) -> Callable[[str], int]:
    """An argparse type: an integer of at least ``minimum``."""

    def parse(text: str) -> int:
        try:
            value = int(text, 10)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{what} wants a whole number, not {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{what} is {value}, but the smallest allowed is {minimum}")
        return value

    return parse


def _threshold(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"threshold must be a number between 0 and 1, got {text!r}") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"threshold must be between 0 and 1, got {text}")
    return value


def _severity(text: str) -> str:
    if text not in ("low", "medium", "high"):
        raise argparse.ArgumentTypeError(f"severity must be low, medium or high, got {text!r}")
    return text


# ---------------------------------------------------------------------------
# Parser
# ---------------------------------------------------------------------------


def _global_options(parser: argparse.ArgumentParser, *, suppress: bool) -> None:
    """The global options; on subcommands they default to SUPPRESS so the main values stay."""
    default = {"default": argparse.SUPPRESS} if suppress else {}
    parser.add_argument("--cwd", metavar="DIR", help="resolve relative paths from DIR instead of the current directory", **default)
    parser.add_argument("--config", metavar="PATH", help="use this .mrsf.yaml rather than the one at the workspace root", **default)
    parser.add_argument("--no-color", action="store_true", help="plain text without ANSI colours", **default)
    parser.add_argument("-q", "--quiet", action="store_true", help="print only results and errors", **default)
    parser.add_argument("-v", "--verbose", action="store_true", help="also print details: each comment's sidecar and selected text (list, add), re-anchoring scores (reanchor), each sidecar's document (status), counts (validate)", **default)


def build_parser() -> argparse.ArgumentParser:
    """The ``mrsf`` argument parser."""
    parser = argparse.ArgumentParser(prog=PROG, description="mrsf: keep review comments on Markdown files in MRSF (Sidemark) sidecars, and keep them anchored", epilog=EXIT_CODES, allow_abbrev=False)
    parser.add_argument("-V", "--version", action="version", version=f"{PROG} {__version__}")
    _global_options(parser, suppress=False)
    sub = parser.add_subparsers(dest="command", metavar="<command>", parser_class=CommandParser)

    def command(name: str, help_text: str,
                json_help: str = "print one JSON value on stdout instead of text",
                sweeps: bool = False) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text, description=help_text, allow_abbrev=False,
                           epilog=SWEEP_HELP if sweeps else None)
        _global_options(p, suppress=True)
        p.add_argument("--json", action="store_true", help=json_help)
        return p

    p = command("validate", "check sidecars for schema and MRSF rule violations (exit 1 if any is invalid)",
                sweeps=True)
    p.add_argument("files", nargs="*", help="sidecars, or the Markdown files they belong to; none given means every sidecar in the workspace")
    p.add_argument("-s", "--strict", action="store_true", help="a warning makes the file invalid too")

    p = command("add", "write a new comment into a Markdown file's sidecar (created if missing)")
    p.add_argument("document")
    p.add_argument("-a", "--author", required=True, help="who writes the comment")
    p.add_argument("-t", "--text", required=True, help="the body of the comment")
    p.add_argument("-l", "--line", type=_integer(1, "--line"), help="1-based line the comment is about; its text becomes selected_text")
    p.add_argument("--end-line", type=_integer(1, "--end-line"), help="last line of the span, 1-based and included")
    p.add_argument("--start-column", type=_integer(0, "--start-column"), help="0-based column where the span begins (UTF-16 code units, as editors count)")
    p.add_argument("--end-column", type=_integer(0, "--end-column"), help="0-based column where the span stops (exclusive, UTF-16 code units)")
    p.add_argument("--type", help="kind of comment, e.g. issue, question, suggestion")
    p.add_argument("--severity", type=_severity, help="one of low, medium, high")
    p.add_argument("--reply-to", metavar="ID", help="id of the comment this one answers")
    p.add_argument("--selected-text", metavar="TEXT", help="store this as selected_text instead of taking it from the document")
    p.add_argument("--ext", action="append", default=[], metavar="KEY=VALUE", help="set an x_* field; VALUE may be JSON (number, true, [..], {..}) or plain text; may repeat")

    p = command("resolve", "mark one comment (picked by id) as resolved, or as open again with --undo "
                "(exit 1 when the sidecar has no comment with that id, as upstream's CLI)")
    p.add_argument("sidecar", help="sidecar file, or the Markdown file it belongs to")
    p.add_argument("id")
    p.add_argument("--cascade", action="store_true", help="apply the same change to its direct replies")
    p.add_argument("-u", "--undo", action="store_true", help="reopen the comment instead of resolving it")

    p = command("list", "print the comments of one or more sidecars, optionally filtered", sweeps=True)
    p.add_argument("files", nargs="*")
    state = p.add_mutually_exclusive_group()  # both at once would show nothing: a usage error
    state.add_argument("--open", action="store_true", help="show open ones only")
    state.add_argument("--resolved", action="store_true", help="show resolved ones only")
    p.add_argument("--orphaned", action="store_true", help="show those whose x_reanchor_status is orphaned")
    p.add_argument("--author", help="show those whose author is exactly this")
    p.add_argument("--type", help="show those of this kind")
    p.add_argument("--severity", type=_severity, help="show those rated at this severity")
    p.add_argument("--summary", action="store_true", help="print counts only (by state, type, severity)")

    p = command("reanchor", "move comments to where their text now is in the edited document (exit 1 if any is orphaned)",
                sweeps=True)
    p.add_argument("files", nargs="*")
    p.add_argument("-n", "--dry-run", action="store_true", help="show what would change; write nothing")
    p.add_argument("-t", "--threshold", type=_threshold, default=0.6, help="similarity (0 to 1) a fuzzy match must reach (default 0.6)")
    p.add_argument("--staged", action="store_true", help="work on the sidecars of the Markdown files in the git index")
    p.add_argument("--no-git", dest="git", action="store_false", help="do not ask git for HEAD or older document versions")
    p.add_argument("--from", dest="from_commit", metavar="COMMIT", help="take the document as of COMMIT as every comment's starting point (instead of each comment's commit)")
    p.add_argument("--update-text", action="store_true", help="write the text found into selected_text instead of anchored_text")
    p.add_argument("-f", "--force", action="store_true", help="for matches scoring 0.8 or more, set commit to HEAD and drop x_reanchor_* fields")

    p = command("status", "rate each comment fresh, stale, orphaned or unknown against the current document "
                "(a report: exit 0 whatever it finds, as upstream's CLI; `reanchor -n` exits 1 on an orphan)",
                sweeps=True)
    p.add_argument("files", nargs="*")

    p = command("init", "create an empty sidecar for a Markdown file (beside it, or under the configured sidecar_root)")
    p.add_argument("document")
    p.add_argument("-f", "--force", action="store_true", help="replace a sidecar that is already there")

    p = command("rename", "after moving a Markdown file, move its sidecar along and fix the document field")
    p.add_argument("old_document", metavar="old-document")
    p.add_argument("new_document", metavar="new-document")

    p = command("watch", "watch Markdown files and sidecars: validate a sidecar when it changes; with --reanchor, re-anchor a document's comments when it changes (Ctrl+C stops; exit 1 if any error was seen)",
                "print one JSON object per line on stdout (JSON Lines): what is watched, one per event, then a summary",
                sweeps=True)
    p.add_argument("files", nargs="*", help="documents, sidecars or folders to watch; none given means the whole workspace (sidecars added later count)")
    p.add_argument("--reanchor", action="store_true", help="re-anchor a document's comments when it changes, then validate its sidecar")
    p.add_argument("-n", "--dry-run", action="store_true", help="with --reanchor: show what would change; write nothing")
    p.add_argument("-t", "--threshold", type=_threshold, default=0.6, help="similarity (0 to 1) a fuzzy match must reach (default 0.6)")
    p.add_argument("-s", "--strict", action="store_true", help="a validation warning counts as an error")
    p.add_argument("--no-git", dest="git", action="store_false", help="do not ask git for HEAD or older document versions")
    p.add_argument("--from", dest="from_commit", metavar="COMMIT", help="take the document as of COMMIT as every comment's starting point")
    p.add_argument("--update-text", action="store_true", help="write the text found into selected_text instead of anchored_text")
    p.add_argument("-f", "--force", action="store_true", help="for matches scoring 0.8 or more, set commit to HEAD and drop x_reanchor_* fields")
    p.add_argument("--debounce", type=_integer(0, "--debounce"), default=300, metavar="MS", help="act once a file has been quiet this many milliseconds (default 300)")
    p.add_argument("--interval", type=_integer(10, "--interval"), default=250, metavar="MS", help="look at the files every MS milliseconds (default 250)")

    p = command("repair", "rewrite a sidecar that no longer parses, keeping every comment that still reads")
    p.add_argument("document", help="the Markdown file, or its sidecar")
    p.add_argument("--reset", action="store_true", help="start over with an empty comment list instead")
    p.add_argument("--backup", action="store_true", help="first save the old bytes beside it as <sidecar>.bak")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``mrsf``; returns the exit code (0 ok, 1 problems found, 2 usage or read error)."""
    parser = build_parser()
    args = parse(parser.parse_args, argv)
    if isinstance(args, int):  # --help, --version or a usage error, already told
        return args
    if not args.command:
        parser.print_help(sys.stderr)
        return USAGE
    from markmcp.mrsf.commands import run  # the engine, loaded once the command line is good

    return run(args)


if __name__ == "__main__":
    sys.exit(main())
