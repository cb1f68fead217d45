"""What each ``mrsf`` subcommand does once its command line parsed
(:func:`markmcp.mrsf.cli.build_parser`): :func:`run` calls :mod:`markmcp.mrsf.ops`, prints
the result and turns every error into its exit code and one line on stderr.

Imported by :mod:`.cli` only after the command line is known to be good, so ``mrsf
--help`` and a usage error load no engine.  An edge like the command itself: it reads
files only through the engine and prints.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

from markmcp.mcpcore.files import FileAccessError, kind_of
from markmcp.mrsf import git, ops
from markmcp.mrsf.console import (
    EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE, Context, Out, UsageError, diagnostic_lines, placement_line,
)
from markmcp.mrsf.errors import MrsfError, os_error_message
from markmcp.textsafe import not_read

PROG = "mrsf"

#: Engine error codes that mean "the command ran and found a problem" (exit 1);
#: every other code is a usage or read error (exit 2).
PROBLEM_CODES = frozenset({"comment-not-found", "version-mismatch", "duplicate-id"})
#: Codes that mean a file could not be read at all (``validate`` reports other codes as invalid).
READ_ERROR_CODES = frozenset({"not-found", "io-error", "path-escape", "file-too-large", "not-regular", "symlink"})

_NUMBER = re.compile(r"-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?")


def parse_extension(flag: str) -> tuple[str, Any]:
    """``--ext key=value``: JSON literals (numbers, true/false/null, objects, arrays) or a string."""
    key, sep, raw = flag.partition("=")
    key = key.strip()
    if not sep or not key:
        raise UsageError(f"--ext {flag!r}: write it as x_name=value")
    if not key.startswith("x_"):
        raise UsageError(f"--ext key {key!r} is not allowed: extension keys begin with 'x_'")
    trimmed = raw.strip()
    if trimmed in ("true", "false", "null") or _NUMBER.fullmatch(trimmed):
        return key, json.loads(trimmed)
    if (trimmed.startswith("{") and trimmed.endswith("}")) or (trimmed.startswith("[") and trimmed.endswith("]")):
        try:
            return key, json.loads(trimmed)
        except json.JSONDecodeError as exc:
            raise UsageError(f"--ext value {raw!r} looks like JSON but does not parse: {exc.msg}") from None
    return key, raw


def _nothing_to_do(out: Out, empty: Any) -> int:
    """A multi-file command that found no sidecar: says so, or prints its ``empty`` JSON result."""
    out.info("Nothing to do: no sidecars here.")
    if out.as_json:
        out.json(empty)
    return EXIT_OK


def _report_errors(out: Out, errors: list[dict[str, Any]], ctx: Context, root: str) -> None:
    """Named files a multi-file engine result could not read, one line each on stderr."""
    for error in errors:
        out.error(f"✗ {ctx.shown(Path(root) / error['sidecar'])}: {ctx.unrooted(error['message'])}")


class Sweep:
    """The sidecars a multi-file command works on, and those it found but did not read.

    A folder named on the command line (none named: the working directory) stands for the
    sidecars of its documents, ``sidecar_root`` heeded, as ``ops.sidecars_of`` (and the
    server) expand it.  A sidecar found that way but not read (a FIFO or device, a symlink
    leading out of the workspace root, a file over the size limit, one that does not parse
    for ``list``/``status``/``reanchor``) goes to :attr:`not_read` and the rest are still
    worked on; a file named on the command line fails the command as before.
    """

    def __init__(self, ctx: Context, files: list[str], *, walk: bool = True) -> None:
        self.ctx = ctx
        self.targets: list[str] = []  # absolute paths, in order
        self.named: set[str] = set()  # the targets named on the command line
        self.not_read: list[dict[str, str]] = []
        self._seen: set[Any] = set()  # targets and files not read, to list each once
        for name in (files or ["."]) if walk else ():
            path = str(ctx.cwd / name)
            if kind_of(Path(path)) != "dir":
                self.targets.append(path)
                self.named.add(path)
                continue
            listed = ops.sidecars_of([path], **ctx.kwargs())
            root = Path(listed["root"])
            for error in listed["errors"]:
                self.skip(str(root / error["sidecar"]), error["code"], error["message"])
            for rel in listed["sidecars"]:
                self.add(str(root / rel))

    def add(self, sidecar: str) -> None:
        """Work on ``sidecar`` (found, not named), once."""
        if sidecar not in self._seen:
            self._seen.add(sidecar)
            self.targets.append(sidecar)

    def skip(self, file: str, code: str, message: str) -> None:
        """Report a sidecar this run found but did not read (or could not use), and why."""
        if ("not read", file) not in self._seen:
            self._seen.add(("not read", file))
            self.not_read.append({"file": str(file), "code": str(code), "message": str(message)})

    def swept(self, target: str) -> bool:
        """True when ``target`` was found by a folder walk (not named): a failure on it is
        reported in :attr:`not_read` and the run goes on."""
        return target not in self.named

    def engine_errors(self, result: dict[str, Any]) -> list[dict[str, Any]]:
        """Split a multi-file engine result's ``errors``: those of swept sidecars go to
        :attr:`not_read`; those of named files are returned (they fail the command)."""
        root, named = Path(result["root"]), []
        for error in result.get("errors", []):
            file = str(root / error["sidecar"])
            if file in self._seen and self.swept(file):
                self.skip(file, error["code"], error["message"])
            else:
                named.append(error)
        return named

    def empty(self) -> bool:
        """Nothing found: neither a sidecar to work on nor one not read."""
        return not self.targets and not self.not_read

    def json(self, output: Any, key: str) -> Any:
        """``output`` with ``notRead`` when something was not read (an array is then put
        under ``key`` of an object beside it, as the server's structured result has it)."""
        if not self.not_read:
            return output
        if isinstance(output, dict):
            return {**output, "notRead": self.not_read}
        return {key: output, "notRead": self.not_read}

    def report(self, out: Out) -> None:
        """The text report of what was not read (after the command's own report): a
        PARTIAL line, then one NOT READ entry each, in the wording every markmcp sweep uses."""
        if not self.not_read or out.as_json:
            return
        out.line("")
        out.line(f"PARTIAL: {len(self.not_read)} sidecar(s) found but not read; the report above leaves them out")
        for entry in self.not_read:
            out.line("")
            for text in not_read(self.ctx.shown(entry["file"]), self.ctx.unrooted(entry["message"])).split("\n"):  # each part escaped
                out.line(text)

    def exit_code(self, code: int) -> int:
        """``code``, or 1 (problems found) when it is 0 and something was not read."""
        return EXIT_PROBLEMS if code == EXIT_OK and self.not_read else code


# ---------------------------------------------------------------------------
# Commands
# ---------------------------------------------------------------------------


def cmd_validate(args: argparse.Namespace, ctx: Context, out: Out) -> int:
    sweep = Sweep(ctx, args.files)
    if sweep.empty():
        return _nothing_to_do(out, {"valid": True, "files": []})
    files: list[dict[str, Any]] = []
    failed = False
    for target in sweep.targets:
        try:
            result = ops.validate([target], strict=args.strict, **ctx.kwargs())
        except MrsfError as error:
            if error.code in READ_ERROR_CODES:
                if not sweep.swept(target):
                    raise
                sweep.skip(target, error.code, error.message)
                continue
            failed = True
            files.append({"sidecar": target, "valid": False, "errors": [error.to_dict()], "warnings": []})
            out.line(f"✗ {ctx.shown(target)}: {ctx.unrooted(error.message)}")
            continue
        for entry in result["files"]:
            shown = str(Path(result["root"]) / entry["sidecar"])
            unreadable = [d for d in entry["errors"] if d.get("code") in READ_ERROR_CODES]
            if unreadable:
                if not sweep.swept(target):
                    raise MrsfError(unreadable[0]["code"], f"{ctx.shown(target)}: {ctx.unrooted(unreadable[0]['message'])}")
                sweep.skip(shown, unreadable[0]["code"], unreadable[0]["message"])  # never read: not validated
                continue
            files.append(entry)
            valid = entry["valid"] and not (args.strict and entry["warnings"])
            failed = failed or not valid
            if valid and out.quiet:
                continue
            out.line(f"{'✓' if valid else '✗'} {ctx.shown(shown)}")
            for text in diagnostic_lines(entry, args.strict):
                out.line(f"  {text}")
            out.detail(f"errors: {len(entry['errors'])}, warnings: {len(entry['warnings'])}")
    sweep.report(out)
    if out.as_json:
        # a sidecar not read was not validated: the run cannot vouch for every sidecar
        out.json(sweep.json({"valid": not failed and not sweep.not_read, "files": files}, "files"))
    return sweep.exit_code(EXIT_PROBLEMS if failed else EXIT_OK)


def cmd_add(args: argparse.Namespace, ctx: Context, out: Out) -> int:
    extensions = dict(parse_extension(flag) for flag in args.ext)
    options: dict[str, Any] = {
        "author": args.author,
        "text": args.text,
        "line": args.line,
        "end_line": args.end_line,
        "start_column": args.start_column,
        "end_column": args.end_column,
        "selected_text": args.selected_text,
        "type": args.type,
        "severity": args.severity,
        "reply_to": args.reply_to,
    }
    options = {k: v for k, v in options.items() if v is not None}
    if extensions:
        options["extensions"] = extensions
    result = ops.add(str(ctx.cwd / args.document), **options, **ctx.kwargs())
    comment = result["comment"]
    if out.as_json:
        out.json(result)
        return EXIT_OK
    where = f" at line {comment['line']}" if comment.get("line") else ""
    out.info(f"New comment {comment['id']}{where} saved in {ctx.path(result)}")
    out.detail(f"sidecar: {ctx.path(result)}")
    if comment.get("selected_text"):
        out.detail(f"selected_text: {comment['selected_text'][:80]}")
    if "note" in result:  # e.g. a blank line: nothing for re-anchoring to follow
        out.error(f"note: {result['note']}")
    return EXIT_OK


def cmd_resolve(args: argparse.Namespace, ctx: Context, out: Out) -> int:
    operation = ops.unresolve if args.undo else ops.resolve
    try:
        result = operation(str(ctx.cwd / args.sidecar), [args.id], cascade=args.cascade, **ctx.kwargs())
    except MrsfError as error:
        if error.code == "comment-not-found":
            raise MrsfError(error.code, f"{args.sidecar} has no comment with id {args.id}.") from None
        raise
    if not result.get("matched", [args.id]):
        raise MrsfError("comment-not-found", f"{args.sidecar} has no comment with id {args.id}.")
    out.result(result, f"{args.id} is now {'open' if args.undo else 'resolved'} ({args.sidecar}).")
    return EXIT_OK


def cmd_list(args: argparse.Namespace, ctx: Context, out: Out) -> int:
    filters = {k: True for k in ("open", "resolved", "orphaned") if getattr(args, k)}
    filters.update({k: getattr(args, k) for k in ("author", "type", "severity") if getattr(args, k)})
    sweep = Sweep(ctx, args.files)
    if sweep.empty() and not args.files:  # (a folder named says "No sidecars found.")
        return _nothing_to_do(out, [])
    result = ops.list_comments(sweep.targets, filters=filters or None, **ctx.kwargs())
    failed = sweep.engine_errors(result)
    _report_errors(out, failed, ctx, result["root"])
    root = Path(result["root"])
    rows = [
        {
            "sidecar": str(root / c["sidecar"]),
            "document": str(root / c["document"]),
            "comment": {k: v for k, v in c.items() if k not in ("sidecar", "document")},
        }
        for c in result["comments"]
    ]
    summary = result["summary"]
    if out.as_json:
        out.json(sweep.json(summary if args.summary else rows, "comments"))
    elif args.summary:
        out.line(
            f"{summary['total']} comments: {summary['open']} open, {summary['resolved']} resolved, "
            f"{summary['orphaned']} orphaned, {summary['threads']} threads"
        )
        if summary.get("byType"):
            out.line("per type: " + ", ".join(f"{k} {v}" for k, v in summary["byType"].items()))
        if summary.get("bySeverity"):
            out.line("per severity: " + ", ".join(f"{k} {v}" for k, v in summary["bySeverity"].items()))
    elif not rows:
        if result.get("versions"):  # (a named file that failed said so on stderr: nothing more)
            out.line("No comment passes these filters." if filters else "No comments.")
        elif not failed:
            out.line("No sidecar was read." if sweep.not_read else "No sidecars found.")
    else:
        for row in rows:
            c = row["comment"]
            state = "[resolved]" if c.get("resolved") is True else "[open]"
            loc = f":{c['line']}" if c.get("line") else ""
            sev = f" [{c['severity']}]" if c.get("severity") else ""
            kind = f" ({c['type']})" if c.get("type") else ""
            out.line(f"{state} {c.get('id')} {ctx.shown(row['document'])}{loc}{sev}{kind}")
            text = c.get("text")
            out.line(f"  {c.get('author')}: {text if isinstance(text, str) else '(no text)'}")
            if c.get("reply_to"):
                out.line(f"  ↳ answers {c['reply_to']}")
            out.detail(f"sidecar: {ctx.shown(row['sidecar'])}")
            selected = c.get("selected_text")
            if isinstance(selected, str) and selected:
                out.detail(f"selected_text: {selected[:80]}{'…' if len(selected) > 80 else ''}")
            if c.get("x_reanchor_status") is not None:
                score = c.get("x_reanchor_score")
                out.detail(f"last re-anchor: {c['x_reanchor_status']}"
                           + (f" (score {score})" if isinstance(score, (int, float)) else ""))
        out.line("")
        out.line(f"{len(rows)} shown.")
    sweep.report(out)
    return EXIT_USAGE if failed else sweep.exit_code(EXIT_OK)


def cmd_reanchor(args: argparse.Namespace, ctx: Context, out: Out) -> int:
    if args.staged and args.git:
        sweep = _staged_sidecars(ctx)
    else:
        sweep = Sweep(ctx, args.files)
    if sweep.empty():
        return _nothing_to_do(out, {"totalChanged": 0, "totalOrphaned": 0, "dryRun": args.dry_run, "files": []})
    total_changed = total_orphaned = 0
    files = []
    for target in sweep.targets:
        try:
            result = ops.reanchor(
                target,
                threshold=args.threshold,
                update_text=args.update_text,
                force=args.force,
                dry_run=args.dry_run,
                from_commit=args.from_commit,
                use_git=args.git,
                **ctx.kwargs(),
            )
        except MrsfError as error:
            if not sweep.swept(target):
                raise
            sweep.skip(target, error.code, error.message)  # the others are still re-anchored
            continue
        orphaned = sum(1 for r in result["results"] if r.get("status") == "orphaned")
        total_changed += result["changed"]
        total_orphaned += orphaned
        files.append({"file": str(Path(result["root"]) / result["sidecar"]), **{k: result[k] for k in ("results", "changed", "version") if k in result}})
        if not out.quiet:
            out.line(f"{'[dry-run] ' if args.dry_run else ''}{ctx.path(result)}:")
            for r in result["results"]:
                out.line(f"  {placement_line(r)}")
                if r.get("score") is not None:
                    out.detail(f"    score: {r['score']:.3f}")
    if out.as_json:
        out.json(sweep.json({"totalChanged": total_changed, "totalOrphaned": total_orphaned, "dryRun": args.dry_run,
                             "files": files}, "files"))
    else:
        out.info("")
        out.info(f"{total_changed} comment(s) {'would change' if args.dry_run else 'changed'}, {total_orphaned} orphaned.")
        sweep.report(out)
    return sweep.exit_code(EXIT_PROBLEMS if total_orphaned else EXIT_OK)


def _staged_sidecars(ctx: Context) -> Sweep:
    """Sidecars of the Markdown files staged in git (``reanchor --staged``): none is named on
    the command line, so one that cannot be located or read is reported as not read."""
    top = git.repo_root(ctx.cwd)
    staged = git.staged_files(top) if top is not None else None
    if staged is None:
        raise UsageError("--staged needs a git work tree, and this directory is not in one.")
    sweep = Sweep(ctx, [], walk=False)
    for name in staged:
        if not name.endswith(".md"):
            continue
        document = str(Path(top) / name)
        try:  # (located, not read: a FIFO planted as the sidecar is refused when reanchor reads it)
            found = ops.sidecars_of([document], **ctx.kwargs())
        except MrsfError as error:
            sweep.skip(document, error.code, error.message)
            continue
        for sidecar in found["sidecars"]:  # none when the document has no sidecar
            sweep.add(str(Path(found["root"]) / sidecar))
    return sweep


_HEALTH_ICONS = {"fresh": "●", "stale": "◐", "orphaned": "✗", "unknown": "?"}


def cmd_status(args: argparse.Namespace, ctx: Context, out: Out) -> int:
    sweep = Sweep(ctx, args.files)
    if sweep.empty():
        return _nothing_to_do(out, [])
    result = ops.status(sweep.targets, **ctx.kwargs())
    failed = sweep.engine_errors(result)
    _report_errors(out, failed, ctx, result["root"])
    root = Path(result["root"])
    # upstream's row (commentId, health, reason) plus where the comment lives, as list's rows
    rows = [{"commentId": r["id"], "health": r["health"], "reason": r["reason"],
             "sidecar": str(root / r["sidecar"]), "document": str(root / r["document"])}
            for r in result["results"]]
    if out.as_json:
        out.json(sweep.json(rows, "results"))
    else:
        sidecar = None
        for r in rows:  # grouped by sidecar, as reanchor prints
            if r["sidecar"] != sidecar:
                if sidecar is not None:
                    out.line("")
                sidecar = r["sidecar"]
                out.line(f"{ctx.shown(sidecar)}:")
                out.detail(f"document: {ctx.shown(r['document'])}")
            out.line(f"  {_HEALTH_ICONS.get(r['health'], '?')} {r['commentId']}: {r['reason']}")
        counts = {h: sum(1 for r in rows if r["health"] == h) for h in _HEALTH_ICONS}
        if failed and not rows:  # the named file that failed said so on stderr: no empty summary
            return EXIT_USAGE
        out.info("")
        out.info(
            f"{len(rows)} comment(s): {counts['fresh']} fresh, {counts['stale']} stale, "
            f"{counts['orphaned']} orphaned, {counts['unknown']} unknown"
        )
        sweep.report(out)
    return EXIT_USAGE if failed else sweep.exit_code(EXIT_OK)


def cmd_init(args: argparse.Namespace, ctx: Context, out: Out) -> int:
    document = ctx.cwd / args.document
    kind = kind_of(document)
    if kind != "file":
        raise MrsfError("not-found" if kind is None else "not-regular",
                        f"{document}: {'no such Markdown file' if kind is None else 'not a regular file'}")
    try:
        result = ops.init(str(document), force=args.force, **ctx.kwargs())
    except MrsfError as error:
        if error.code == "sidecar-exists":  # a usage error (exit 2), with the CLI's own hint
            raise MrsfError(error.code, f"sidecar already exists: {error.details.get('path')}; "
                            "add --force to replace it") from None
        raise
    out.result(result, f"New sidecar: {ctx.path(result)}")
    return EXIT_OK


def cmd_rename(args: argparse.Namespace, ctx: Context, out: Out) -> int:
    result = ops.rename(str(ctx.cwd / args.old_document), str(ctx.cwd / args.new_document), **ctx.kwargs())
    out.result(result, f"Sidecar moved: {ctx.path(result, 'oldSidecar')} → {ctx.path(result)}")
    if "note" in result and not out.as_json:
        out.error(f"warning: {result['note']}")
    return EXIT_OK


def cmd_repair(args: argparse.Namespace, ctx: Context, out: Out) -> int:
    result = ops.repair(str(ctx.cwd / args.document), reset=args.reset, backup=args.backup, **ctx.kwargs())
    if out.as_json:
        out.json(result)
        return EXIT_OK
    if args.backup and result.get("backup"):
        out.info(f"Backup of the old sidecar: {ctx.path(result, 'backup')}")
    if args.reset:
        out.info(f"Comments cleared: {ctx.path(result)} now holds none.")
    elif not result["changed"]:
        out.info(f"Nothing to repair: {ctx.path(result)} is sound ({result['salvaged']} comment(s)).")
    else:
        out.info(f"Repaired {ctx.path(result)}: kept {result['salvaged']} comment(s), dropped {len(result['dropped'])}.")
    for dropped in result["dropped"]:
        where = f"line {dropped['line']}: " if dropped.get("line") else ""
        out.line(f"  dropped {where}{dropped['reason']}")
    return EXIT_OK


# ---------------------------------------------------------------------------
# watch
# ---------------------------------------------------------------------------


def cmd_watch(args: argparse.Namespace, ctx: Context, out: Out) -> int:
    """``mrsf watch``, which :mod:`markmcp.mrsf.watchcmd` does (imported when it runs)."""
    from markmcp.mrsf.watchcmd import cmd_watch as watch

    return watch(args, ctx, out)


COMMANDS = {
    "validate": cmd_validate,
    "add": cmd_add,
    "resolve": cmd_resolve,
    "list": cmd_list,
    "reanchor": cmd_reanchor,
    "status": cmd_status,
    "init": cmd_init,
    "rename": cmd_rename,
    "repair": cmd_repair,
    "watch": cmd_watch,
}


def run(args: argparse.Namespace) -> int:
    """Run the subcommand ``args`` names; returns the exit code (0 ok, 1 problems found,
    2 usage or read error)."""
    out = Out(args)
    try:
        ctx = Context(args)
        return COMMANDS[args.command](args, ctx, out)
    except UsageError as error:
        out.failed(f"{PROG} {args.command}: error: {error}", "usage", str(error))
        return EXIT_USAGE
    except MrsfError as error:
        out.failed(f"{PROG} {args.command}: error: {error.message}", error.code, error.message)
        return EXIT_PROBLEMS if error.code in PROBLEM_CODES else EXIT_USAGE
    except FileAccessError as error:
        out.failed(f"{PROG} {args.command}: error: {error.message}", error.code, error.message)
        return EXIT_USAGE
    except BrokenPipeError:
        return EXIT_OK
    except OSError as error:
        out.failed(f"{PROG} {args.command}: error: {os_error_message(error)}", "io-error", os_error_message(error))
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except Exception as error:  # a bug: still no traceback for the user
        out.failed(f"{PROG} {args.command}: internal error: {type(error).__name__}: {error}", "internal",
                   f"{type(error).__name__}: {error}")
        return EXIT_USAGE

