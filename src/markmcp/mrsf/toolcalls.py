"""What every ``mrsf-mcp`` tool handler shares: its arguments checked, the engine called, errors shaped.

Paths are resolved against the tool's ``cwd`` and must stay inside the server's folders
(``CallContext.places()``); the write gate is asked before a writing tool touches a file;
an engine operation runs confined to those folders, and whatever it raises (an
:class:`~markmcp.mrsf.errors.MrsfError`, a version conflict, a refused file, an
operating-system error) becomes a :class:`~markmcp.mcpcore.ToolError` whose data is the
``{"status": "error", "code", "message", ...}`` object (the conflict object for a conflict).

The engine (``ops``) is imported inside the functions that use it, so that importing the
server imports no engine (see ``ENGINE_MODULES`` in :mod:`markmcp.mrsf.server`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from markmcp.mcpcore import CallContext, FileAccessError, ToolError, writable_places
from markmcp.mcpcore.files import check_argument, kind_of, shown
from markmcp.mrsf import compat
from markmcp.mrsf.errors import MrsfConflict, MrsfError, os_error_message
from markmcp.textsafe import escape_controls, not_read


def error_data(code: str, message: str, **details: Any) -> dict[str, Any]:
    """The structured result of a failed call (details that are None are left out)."""
    return {"status": "error", "code": code, "message": message, **{k: v for k, v in details.items() if v is not None}}


def invalid(message: str, **details: Any) -> ToolError:
    """An ``invalid-argument`` failure."""
    return ToolError(message, data=error_data("invalid-argument", message, **details))


def pretty(value: Any) -> str:
    """A result as text: indented JSON, as the upstream server writes it."""
    return json.dumps(value, ensure_ascii=False, indent=2)


def upstream_text(name: str) -> Callable[[dict[str, Any]], list[str]]:
    """The text content of a tool: its result in the shape the upstream server returns
    (:mod:`markmcp.mrsf.compat`), as indented JSON (a compact list is its table), first,
    so clients written for upstream parse it as before.  What that shape has no key for
    follows in a second text block: the ``note`` of a call that worked, and one ``NOT
    READ`` entry per sidecar a run over several did not read (the run is partial)."""
    shape = compat.SHAPES[name]

    def text(result: dict[str, Any]) -> list[str]:
        value = shape(result)
        blocks = [value if isinstance(value, str) else pretty(value)]
        extra = [f"NOTE: {escape_controls(result['note'])}"] if isinstance(result.get("note"), str) else []
        skipped = result.get("notRead") or []
        if skipped:
            extra.append(f"PARTIAL: {len(skipped)} sidecar(s) found but not read; the result above leaves them out")
            extra.extend(not_read(entry["file"], entry["message"]) for entry in skipped)
        if extra:
            blocks.append("\n\n".join(extra))
        return blocks

    return text


# ---------------------------------------------------------------------------
# Paths and the write gate
# ---------------------------------------------------------------------------


def workdir_of(args: dict[str, Any], ctx: CallContext) -> Path:
    """The tool's working directory: ``cwd`` if given (inside the server's), else the server's."""
    cwd = args.get("cwd")
    if cwd is None:
        return ctx.cwd.resolve()
    path = inside(ctx, ctx.cwd, cwd, "cwd")
    if kind_of(path) != "dir":
        message = f"cwd '{shown(cwd)}' is not a directory"
        raise ToolError(message, data=error_data("not-found", message))
    return path


def inside(ctx: CallContext, workdir: Path, value: str, what: str) -> Path:
    """Resolve ``value`` against ``workdir``; refuse it when no file system takes it
    (``invalid-argument``) or when it leaves the folders the server serves (``path-escape``)."""
    from markmcp.mrsf.store import file_error

    try:
        check_argument(value)
    except FileAccessError as error:
        raise invalid(f"{what}: {error.message}") from None
    try:
        return ctx.places().resolve(value, workdir)
    except FileAccessError as error:
        if error.code != "outside":
            raise ToolError(f"{what}: {error.message}", data=file_error(error).to_dict()) from None
        message = f"{what}: {error.message}"
        raise ToolError(message, data=error_data("path-escape", message, path=shown(value))) from None


def writable(ctx: CallContext, target: str | Path) -> None:
    """The write gate of a writing tool, before anything is read or written: open unless the
    server runs with ``--read-only`` (the write folders are those it may read)."""
    from markmcp.mrsf.discovery import is_sidecar_name

    # a refusal names what would be written: the sidecar, not the Markdown document
    what = None if is_sidecar_name(target) else f"the review sidecar of '{shown(target)}'"
    try:
        writable_places(ctx, target, by_default=True, what=what)
    except ToolError as error:
        raise ToolError(error.message, data=error_data("read-only", error.message)) from None


# ---------------------------------------------------------------------------
# Engine calls
# ---------------------------------------------------------------------------


def engine(call: Callable[..., dict[str, Any]], *args: Any, ctx: CallContext, **kwargs: Any) -> dict[str, Any]:
    """Run an engine operation confined to the server's folders; its MrsfError (conflicts
    included), a refused file or an operating-system error becomes a ToolError."""
    from markmcp.mrsf.store import file_error

    try:
        return call(*args, places=ctx.places(), **kwargs)
    except MrsfConflict as error:
        raise conflict(error) from None
    except MrsfError as error:
        raise ToolError(error.message, data=error.to_dict()) from None
    except FileAccessError as error:
        raise ToolError(error.message, data=file_error(error).to_dict()) from None
    except OSError as error:
        message = os_error_message(error)
        raise ToolError(message, data=error_data("io-error", message)) from None


def conflict(error: MrsfConflict) -> ToolError:
    """A version mismatch: the conflict object is both the structured and the text reply
    (clients of the upstream server parse it from the text)."""
    data = error.to_dict()
    return ToolError(pretty(data), data=data)


def raise_errors(result: dict[str, Any]) -> None:
    """Multi-file engine results list unreadable sidecars in ``errors``: the first becomes a ToolError."""
    for error in result.get("errors", []):
        message = str(error["message"])
        # The engine's message usually names the sidecar already; say it once.
        named = message if Path(str(error["sidecar"])).name in message else f"{error['sidecar']}: {message}"
        raise ToolError(named, data={"status": "error", **error})


def absolute(result: dict[str, Any], key: str = "sidecar") -> str:
    """An absolute path from a result's repository-relative ``key``."""
    return str(Path(result["root"]) / result[key])


# ---------------------------------------------------------------------------
# Targets
# ---------------------------------------------------------------------------


@dataclass
class Sweep:
    """The targets of a multi-file tool (absolute paths), and the sidecars it found but
    did not read.

    ``tolerant``: the call sweeps (no ``files``, a folder, or several files), so a sidecar
    that cannot be read or used is reported in ``not_read`` and the others still answer;
    a call naming one file fails on it instead.
    """

    workdir: Path
    targets: list[str]
    tolerant: bool
    not_read: list[dict[str, Any]] = field(default_factory=list)

    def skip(self, file: str, code: str, message: str) -> None:
        """Report a sidecar this run did not read (or could not use), and why."""
        self.not_read.append({"file": str(file), "code": code, "message": message})

    def skip_error(self, file: str, error: ToolError) -> None:
        """:meth:`skip` with a tool error met on it (a refusal, a malformed file ...)."""
        code = str(error.data.get("code", "error")) if isinstance(error.data, dict) else "error"
        self.skip(file, code, error.message)

    def skip_engine_errors(self, result: dict[str, Any]) -> None:
        """:meth:`skip` each entry of a multi-file engine result's ``errors``."""
        for error in result.get("errors", []):
            self.skip(str(Path(result["root"]) / error["sidecar"]), str(error["code"]), str(error["message"]))

    def report(self, output: dict[str, Any]) -> dict[str, Any]:
        """``output`` with ``notRead`` when something was not read."""
        if self.not_read:
            output["notRead"] = self.not_read
        return output


def sidecar_targets(args: dict[str, Any], ctx: CallContext) -> Sweep:
    """The working directory and the absolute targets of a multi-file tool: the ``files``
    given (a folder stands for the sidecars of its documents, as in the CLI), or every
    sidecar below the working directory (as for the folder ``.``, ``sidecar_root`` heeded).
    A sidecar a folder holds but that must not be read (a FIFO, a symlink leading out of
    the allowed folders) is in ``not_read``."""
    from markmcp.mrsf import ops

    workdir = workdir_of(args, ctx)
    # each file once, however often it is named (a list of one name repeated a million
    # times was worked through a million times)
    files = list(dict.fromkeys(args.get("files") or [str(workdir)]))
    paths = list(dict.fromkeys(inside(ctx, workdir, name, "file") for name in files))
    folders = [kind_of(path) == "dir" for path in paths]
    sweep = Sweep(workdir, [], tolerant=len(files) > 1 or any(folders))
    kept: dict[str, str] = {}  # sidecar (absolute) -> the first target naming it
    for path, folder in zip(paths, folders):
        if folder:
            found = engine(ops.sidecars_of, [str(path)], cwd=str(workdir), ctx=ctx)
            sweep.skip_engine_errors(found)
            for sidecar in _found(found):
                kept.setdefault(sidecar, sidecar)
        else:
            kept.setdefault(_sidecar_of(str(path), workdir, ctx), str(path))
    sweep.targets = list(kept.values())
    return sweep


def _sidecar_of(target: str, workdir: Path, ctx: CallContext) -> str:
    """The sidecar a named file stands for (``doc.md``, ``./doc.md`` and
    ``doc.md.review.yaml`` are one, worked on once), or ``target`` itself when it cannot
    be located (the tool then says what is wrong with it)."""
    from markmcp.mrsf import ops

    try:
        located = engine(ops.locate, target, cwd=str(workdir), ctx=ctx)
    except ToolError:
        return target
    return str(Path(located["root"]) / located["sidecar"])


def _found(found: dict[str, Any]) -> list[str]:
    """The absolute paths of the sidecars an engine search found."""
    return [str(Path(found["root"]) / rel) for rel in found["sidecars"]]


def document_target(
    args: dict[str, Any], ctx: CallContext, key: str = "document", *, write: bool = False
) -> tuple[Path, str]:
    """The tool's working directory and its checked target (document or sidecar).

    Besides the target itself, the sidecar the engine would write must resolve inside the
    server's folders too (a ``sidecar_root`` or a symlinked sidecar could point elsewhere
    in the workspace).  ``write``: the tool writes the sidecar, so the write gate is asked first.
    """
    from markmcp.mrsf import ops

    workdir = workdir_of(args, ctx)
    target = str(inside(ctx, workdir, args[key], key))
    if write:
        writable(ctx, target)
    found = engine(ops.locate, target, cwd=str(workdir), ctx=ctx)
    inside(ctx, workdir, found["sidecarPath"], "sidecar")
    return workdir, target


def write_kwargs(args: dict[str, Any], workdir: Path, *, text: bool = False) -> dict[str, Any]:
    """Engine keyword arguments shared by the writing tools (version check, cwd, buffer text)."""
    kwargs: dict[str, Any] = {"expected_version": args.get("expectedVersion"), "cwd": str(workdir)}
    if text and "documentText" in args:
        kwargs["document_text"] = args["documentText"]
    return kwargs
