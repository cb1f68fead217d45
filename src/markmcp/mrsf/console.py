"""What the ``mrsf`` commands print with, shared by the one-shot commands
(:mod:`.commands`) and ``mrsf watch`` (:mod:`.watchcmd`): the exit codes, the output
channel (:class:`Out`), the run's settings (:class:`Context`), and the lines both print
for a validated sidecar and for a re-anchored comment."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from markmcp.mcpcore.files import kind_of
from markmcp.textsafe import for_terminal

EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """A bad command line; reported on stderr with exit code 2."""


# ---------------------------------------------------------------------------
# Output helpers
# ---------------------------------------------------------------------------


class Out:
    """Where a command prints: stdout for results, stderr for diagnostics.

    Human output passes through :func:`for_terminal`: a control character (a newline
    too) inside a value from a file is printed escaped, so each call prints exactly one
    line; a blank line is its own call.  ``json`` output is exact.
    """

    def __init__(self, args: argparse.Namespace) -> None:
        self.quiet = bool(getattr(args, "quiet", False))
        self.verbose = bool(getattr(args, "verbose", False))
        self.as_json = bool(getattr(args, "json", False))

    def info(self, text: str) -> None:
        """Informational output, hidden by --quiet and --json."""
        if not self.quiet and not self.as_json:
            print(for_terminal(text))

    def line(self, text: str) -> None:
        """Essential output (hidden only by --json)."""
        if not self.as_json:
            print(for_terminal(text))

    def detail(self, text: str) -> None:
        if self.verbose and not self.as_json:
            print(f"  {for_terminal(text)}")

    def json(self, value: Any) -> None:
        print(json.dumps(value, ensure_ascii=False, indent=2))

    def result(self, value: Any, text: str) -> None:
        """A command's result: ``value`` as JSON with --json, else the informational ``text``."""
        if self.as_json:
            self.json(value)
        else:
            self.info(text)

    @staticmethod
    def error(text: str) -> None:
        print(for_terminal(text), file=sys.stderr)

    def failed(self, text: str, code: str, message: str) -> None:
        """The command could not finish: ``text`` on stderr and, with --json, ``{"error":
        {code, message}}`` on stdout, so a script reading JSON never gets nothing."""
        self.error(text)
        if self.as_json:
            self.json({"error": {"code": code, "message": message}})


class Context:
    """Per-invocation settings shared by the commands."""

    def __init__(self, args: argparse.Namespace) -> None:
        cwd = getattr(args, "cwd", None)
        self.cwd = Path(cwd or os.getcwd()).resolve()
        if kind_of(self.cwd) != "dir":
            raise UsageError(f"--cwd {cwd}: not a directory")
        self.config = getattr(args, "config", None)
        if self.config is not None:
            config = (self.cwd / self.config).resolve()
            kind = kind_of(config)
            if kind != "file":
                raise UsageError(f"--config {self.config}: {'file not found' if kind is None else 'not a regular file'}")
            self.config = str(config)

    def kwargs(self) -> dict[str, Any]:
        """Keyword arguments every engine call takes."""
        kwargs: dict[str, Any] = {"cwd": str(self.cwd)}
        if self.config is not None:
            kwargs["config"] = self.config
        return kwargs

    def targets(self, files: list[str]) -> list[str] | None:
        """File arguments as absolute paths (None: discover every sidecar)."""
        return [str(self.cwd / f) for f in files] if files else None

    def path(self, result: dict[str, Any], key: str = "sidecar") -> str:
        """A result's repository-relative ``key`` for text output: relative to the working
        directory when below it (as the JSON's paths are to the root), else absolute."""
        return self.shown(Path(result["root"]) / result[key])

    def unrooted(self, message: str) -> str:
        """An engine message with the working directory's absolute prefix taken off the
        paths it names (text output names files relative to where the command ran)."""
        prefix = str(self.cwd).rstrip(os.sep) + os.sep
        return message.replace(prefix, "") if len(prefix) > 1 else message

    def shown(self, path: str | Path) -> str:
        """``path`` for text output: relative to the working directory when below it,
        else as given (absolute)."""
        try:
            return str(Path(path).relative_to(self.cwd))
        except ValueError:
            return str(path)


# ---------------------------------------------------------------------------
# Report lines
# ---------------------------------------------------------------------------


def _where(diag: dict[str, Any]) -> str:
    return f" ({diag['path']})" if diag.get("path") else ""


def diagnostic_lines(entry: dict[str, Any], strict: bool) -> list[str]:
    """A validated sidecar's errors and warnings, one line each (a warning is an ERROR under --strict)."""
    lines = [f"ERROR: {diag['message']}{_where(diag)}" for diag in entry["errors"]]
    lines += [f"{'ERROR' if strict else 'WARN'}: {diag['message']}{_where(diag)}" for diag in entry["warnings"]]
    return lines


_REANCHOR_ICONS = {"anchored": "●", "shifted": "↕", "fuzzy": "≈", "ambiguous": "?", "orphaned": "✗"}


def placement_line(r: dict[str, Any]) -> str:
    """One comment of a re-anchoring result: icon, id, new line, reason."""
    where = f":{r['line']}" if r.get("line") is not None else ""
    return f"{_REANCHOR_ICONS.get(r.get('status'), '·')} {r.get('id')}{where} — {r.get('reason', '')}"
