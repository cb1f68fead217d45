"""What ``mrsf watch`` does once its command line parsed: :class:`_Watch` is one run (what
is watched, what each change does, the counts) and :func:`cmd_watch` runs it until Ctrl+C
or SIGTERM.  The polling itself is :mod:`markmcp.mrsf.watch`.

It prints with :mod:`markmcp.mrsf.console` (the output, the context and the lines the
``reanchor`` and ``validate`` commands print too); :mod:`markmcp.mrsf.commands` imports
this module only when the ``watch`` command runs.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from markmcp.mcpcore.files import FileAccessError, kind_of
from markmcp.mrsf import ops
from markmcp.mrsf.console import EXIT_OK, EXIT_PROBLEMS, Context, Out, diagnostic_lines, placement_line
from markmcp.mrsf.errors import MrsfError, os_error_message
from markmcp.textsafe import for_terminal, not_read


def _failure(error: Exception, doing: str = "") -> str:
    """What went wrong inside ``mrsf watch``, as one line (an unexpected error is a bug,
    named as such)."""
    if isinstance(error, (MrsfError, FileAccessError)):
        return error.message
    if isinstance(error, OSError):
        return os_error_message(error)
    return f"internal error{' ' + doing if doing else ''}: {type(error).__name__}: {error}"


class _Watch:
    """One ``mrsf watch`` run: what is watched, what each change does, the counts.

    A watched path is a sidecar or a document (the document of a watched sidecar, or one
    named on the command line).  A document that changed is re-anchored (``--reanchor``)
    and its sidecar validated; a sidecar that changed is validated.  Whatever goes wrong
    inside one change is told and counted, and the watch goes on."""

    def __init__(self, args: argparse.Namespace, ctx: Context, out: Out) -> None:
        from markmcp.mrsf import watch as watching
        from markmcp.mrsf.discovery import base_dirs

        self.args, self.ctx, self.out = args, ctx, out
        self.root = base_dirs(None, str(ctx.cwd), ctx.config)[1]
        self.roles: dict[str, str] = {}  # watched path -> "sidecar" or "document"
        self.told: set[str] = set()  # rescan problems already told
        self.not_read: list[dict[str, str]] = []  # sidecars found but not read (first scan; the banner says them)
        self.not_read_told: set[str] = set()  # sidecars already told as not read
        self.events = self.reanchors = self.errors = 0
        self.watcher = watching.Watcher(debounce=args.debounce / 1000)

    # -- what is watched ----------------------------------------------------

    def scan(self, *, first: bool = False) -> None:
        """Find the sidecars (and their documents) in scope and watch the new ones; a
        sidecar found after the start is told as added.  On the first scan a file
        argument that cannot be watched is an error (exit 2); later, a problem is told once.
        A sidecar a folder holds but that is not watched (a FIFO or device, a symlink leading
        out of the workspace root, one that cannot be located) is told once as NOT READ and
        counted as an error, as the other sweeps report it."""
        kwargs = self.ctx.kwargs()
        found: dict[str, str] = {}
        problems: list[str] = []
        unread: list[dict[str, str]] = []
        for target in self.ctx.targets(self.args.files) or [str(self.root)]:
            try:
                if kind_of(Path(target)) == "dir":
                    listed = ops.sidecars_of([target], **kwargs)
                    unread += [{"file": str(Path(listed["root"]) / e["sidecar"]), "code": e["code"],
                                "message": e["message"]} for e in listed["errors"]]
                    sidecars = [str(Path(listed["root"]) / s) for s in listed["sidecars"]]
                else:
                    sidecars = [target]
                for sidecar in sidecars:
                    if self.roles.get(sidecar) == "sidecar" and sidecar != target:
                        continue  # known, and its document with it
                    try:
                        loc = ops.locate(sidecar, **kwargs)
                    except MrsfError as error:
                        if first and sidecar == target:
                            raise
                        if sidecar == target:
                            problems.append(error.message)
                        else:
                            unread.append({"file": sidecar, "code": error.code, "message": error.message})
                        continue
                    found.setdefault(loc["sidecarPath"], "sidecar")
                    found.setdefault(loc["documentPath"], "document")
            except MrsfError as error:
                if first:
                    raise
                problems.append(error.message)
        for path, role in found.items():
            self.roles.setdefault(path, role)
        sidecars = [p for p, role in found.items() if role == "sidecar"]
        self.watcher.add(sidecars, announce=not first)
        self.watcher.add([p for p, role in found.items() if role == "document"])
        for problem in problems:
            if problem not in self.told:
                self.told.add(problem)
                if not self.out.as_json:
                    self.out.error(f"warning: {problem}")
        for entry in unread:
            if entry["file"] in self.not_read_told:
                continue
            self.not_read_told.add(entry["file"])
            self.errors += 1
            if first:
                self.not_read.append(entry)  # said with the banner
            elif self.out.as_json:
                self.emit({"type": "notRead", **entry})
            else:
                self.out.line("")
                self.tell_not_read(entry)
                sys.stdout.flush()

    def tell_not_read(self, entry: dict[str, str]) -> None:
        """One sidecar found but not read, in the wording every markmcp sweep uses."""
        for text in not_read(entry["file"], entry["message"]).split("\n"):  # each part escaped
            self.out.line(text)

    def rescan(self) -> None:
        try:
            self.scan()
        except Exception as error:  # a bug too: told once, the watch goes on with what it has
            message = _failure(error, "while looking for new sidecars")
        else:
            return
        if message not in self.told:
            self.told.add(message)
            if not self.out.as_json:
                self.out.error(f"warning: {message}")

    def mode(self) -> str:
        if not self.args.reanchor:
            return "validate"
        return "validate + reanchor (dry-run)" if self.args.dry_run else "validate + reanchor"

    def banner(self) -> None:
        sidecars = sum(1 for role in self.roles.values() if role == "sidecar")
        what = (f"the workspace {self.root} ({sidecars} sidecar(s))" if not self.args.files
                else f"{len(self.roles)} path(s)")
        if self.out.as_json:
            record = {"type": "watching", "root": str(self.root), "mode": self.mode(), "paths": sorted(self.roles)}
            self.emit({**record, "notRead": self.not_read} if self.not_read else record)
            return
        self.out.info(f"Watching {what} — mode: {self.mode()}")
        if self.not_read:
            self.out.line(f"PARTIAL: {len(self.not_read)} sidecar(s) found but not read; they are not watched")
            for entry in self.not_read:
                self.out.line("")
                self.tell_not_read(entry)
            self.out.line("")
        self.out.info("Press Ctrl+C to stop.")
        self.out.info("")
        sys.stdout.flush()

    # -- one change ---------------------------------------------------------

    def shown(self, path: str) -> str:
        """``path`` relative to the working directory when it lies below it."""
        try:
            return Path(path).relative_to(self.ctx.cwd).as_posix()
        except ValueError:
            return path

    def handle(self, change: Any) -> None:
        import time
        from datetime import datetime, timezone

        self.events += 1
        role = self.roles.get(change.path, "document")
        record: dict[str, Any] = {"type": "event", "time": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                                  "path": change.path, "role": role, "change": change.kind}
        lines: list[tuple[str, str]] = []  # (text, "info" | "problem" | "error")
        failures: list[str] = []
        try:
            self.react(change, role, record, lines)
        except Exception as error:  # a bug too: told and counted, the watch goes on
            failures.append(_failure(error))
        for failure in failures:
            self.errors += 1
            lines.append((f"✗ {self.shown(change.path)}: {failure}", "error"))
        record["errors"] = failures
        record["ok"] = not failures and not any(level != "info" for _, level in lines)
        if self.out.as_json:
            self.emit(record)
            return
        if self.out.quiet and record["ok"]:
            return
        print()
        print(for_terminal(f"[{time.strftime('%H:%M:%S')}] {self.shown(change.path)} ({change.kind})"))
        for text, level in lines:
            if level == "error":
                self.out.error(f"  {text}")
            elif level == "problem" or not self.out.quiet:
                print(for_terminal(f"  {text}"))
        sys.stdout.flush()

    def react(self, change: Any, role: str, record: dict[str, Any], lines: list[tuple[str, str]]) -> None:
        """What ``change`` calls for, written into ``record`` (JSON) and ``lines`` (text)."""
        if change.kind == "removed":
            lines.append((f"{role} removed", "info"))
            return
        if role == "sidecar":
            sidecar = change.path
        else:
            loc = ops.locate(change.path, **self.ctx.kwargs())
            sidecar = loc["sidecarPath"]
            if not loc["exists"]:
                lines.append((f"no sidecar ({self.shown(sidecar)}): nothing to do", "info"))
                return
            if self.args.reanchor:
                self.reanchor(sidecar, record, lines)
        self.validate(sidecar, record, lines)

    def reanchor(self, sidecar: str, record: dict[str, Any], lines: list[tuple[str, str]]) -> None:
        args = self.args
        result = ops.reanchor(sidecar, threshold=args.threshold, update_text=args.update_text, force=args.force,
                              dry_run=args.dry_run, from_commit=args.from_commit, use_git=args.git,
                              **self.ctx.kwargs())
        if result.get("written"):  # our own write: later edits are compared with the file as written
            self.watcher.acknowledge(str(result["sidecarPath"]))
            self.roles.setdefault(str(result["sidecarPath"]), "sidecar")
        self.reanchors += 1
        orphaned = sum(1 for r in result["results"] if r.get("status") == "orphaned")
        if orphaned:
            self.errors += 1
        record["reanchor"] = {"file": self.ctx.path(result), "results": result["results"],
                              "changed": result["changed"], "orphaned": orphaned, "dryRun": args.dry_run,
                              "written": bool(result.get("written"))}
        lines.append((f"{'[dry-run] ' if args.dry_run else ''}reanchor {self.ctx.path(result)}:",
                      "problem" if orphaned else "info"))
        for r in result["results"]:
            lines.append((f"  {placement_line(r)}", "problem" if r.get("status") == "orphaned" else "info"))
            if self.out.verbose and r.get("score") is not None:
                lines.append((f"      score: {r['score']:.3f}", "info"))
        lines.append((f"{result['changed']} comment(s) {'would change' if args.dry_run else 'changed'}, "
                      f"{orphaned} orphaned.", "problem" if orphaned else "info"))

    def validate(self, sidecar: str, record: dict[str, Any], lines: list[tuple[str, str]]) -> None:
        result = ops.validate([sidecar], strict=self.args.strict, **self.ctx.kwargs())
        entries = []
        for entry in result["files"]:
            shown = str(Path(result["root"]) / entry["sidecar"])
            valid = entry["valid"] and not (self.args.strict and entry["warnings"])
            if not valid:
                self.errors += 1
            entries.append({"sidecar": shown, "valid": valid, "errors": entry["errors"],
                            "warnings": entry["warnings"]})
            level = "info" if valid else "problem"
            lines.append((f"validate {'✓' if valid else '✗'} {shown}", level))
            lines += [(f"  {text}", level) for text in diagnostic_lines(entry, self.args.strict)]
        record["validate"] = entries

    # -- output -------------------------------------------------------------

    def emit(self, value: dict[str, Any]) -> None:
        """One JSON Lines record on stdout."""
        print(json.dumps(value, ensure_ascii=False))
        sys.stdout.flush()

    def summary(self) -> None:
        if self.out.as_json:
            self.emit({"type": "summary", "events": self.events, "reanchors": self.reanchors, "errors": self.errors})
            return
        self.out.line("")
        self.out.line(f"Events processed: {self.events} | Reanchors: {self.reanchors} | Errors: {self.errors}")
        sys.stdout.flush()


def cmd_watch(args: argparse.Namespace, ctx: Context, out: Out) -> int:
    import signal
    import threading

    from markmcp.mrsf import watch as watching

    session = _Watch(args, ctx, out)
    session.scan(first=True)
    stop = {"asked": False}

    def on_signal(signum: int, frame: Any) -> None:
        if stop["asked"]:  # asked twice: stop now, even inside an event
            raise KeyboardInterrupt
        stop["asked"] = True

    previous = {}
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGINT, signal.SIGTERM):
            previous[signum] = signal.signal(signum, on_signal)
    try:
        session.banner()
        watching.run(session.watcher, session.handle, interval=args.interval / 1000, rescan=session.rescan,
                     stopped=lambda: stop["asked"])
    except KeyboardInterrupt:
        pass
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    session.summary()
    return EXIT_PROBLEMS if session.errors else EXIT_OK
