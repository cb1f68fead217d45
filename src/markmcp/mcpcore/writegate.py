"""The write gate: where a tool may write, and how paths are kept inside a base folder.

A server only writes when it was started with the explicit opt-in ``--allow-write``
*and* at least one root is declared (``--root DIR`` or the client's MCP roots).
Every path is resolved first (``..`` collapsed, symlinks followed), and the resolved
path must lie inside a root, so neither ``../../etc/passwd`` nor a symlink that
points outside gets through.
"""

from __future__ import annotations

from pathlib import Path

from markmcp.mcpcore.app import CallContext, ToolError
from markmcp.mcpcore.files import Places, shown


def resolve_inside(base: Path, path: str | Path) -> Path:
    """Resolve ``path`` (relative to ``base``, symlinks followed) and refuse escaping ``base``.

    Returns the resolved absolute path.  Raises :class:`ToolError` naming the path
    when the result is not ``base`` itself or something below it.
    """
    base = Path(base).resolve()
    candidate = Path(path)
    if "\x00" in str(candidate):
        raise ToolError(f"path '{path}' contains a NUL character")
    resolved = (base / candidate).resolve()
    if not resolved.is_relative_to(base):
        raise ToolError(f"path '{path}' is outside {base}")
    return resolved


def writable_places(ctx: CallContext, path: str | Path) -> Places:
    """The write gate's opt-in and roots: the folders a tool may write ``path`` in.

    Refuses (:class:`ToolError` naming ``path``) unless the server runs with
    ``--allow-write`` and a root is declared.  Hand the result to
    :func:`markmcp.mcpcore.files.write_atomic` (``places=``), which confines the
    target to the roots; a derived path is written with ``follow=False``, so a
    symlink planted at it is refused rather than written through.
    """
    if not ctx.allow_write:
        raise ToolError(f"writing '{shown(path)}' is not allowed: the server was started without --allow-write")
    if not ctx.roots:
        raise ToolError(
            f"writing '{shown(path)}' is not allowed: no root is declared "
            "(start the server with --root DIR or let the client declare MCP roots)"
        )
    return Places.of(ctx.roots, hint="only the roots may be written (--root DIR or the client's MCP roots)")


def check_write_path(ctx: CallContext, path: str | Path) -> Path:
    """The write gate: return the resolved path a tool may write, or raise :class:`ToolError`.

    Refuses unless the server runs with ``--allow-write`` and a root is declared;
    relative paths are taken from ``ctx.cwd``; the resolved path (symlinks
    followed) must lie inside one of ``ctx.roots``.
    """
    writable_places(ctx, path)
    if "\x00" in str(path):
        raise ToolError(f"path '{path}' contains a NUL character")
    resolved = (ctx.cwd / Path(path)).resolve()
    for root in ctx.roots:
        if resolved.is_relative_to(root.resolve()):
            return resolved
    roots = ", ".join(str(root) for root in ctx.roots)
    raise ToolError(f"writing '{path}' is not allowed: it resolves to {resolved}, outside the roots ({roots})")
