"""The write gate: where a tool may write, and how paths are kept inside a base folder.

A server only writes when it was started with the explicit opt-in ``--allow-write``
*and* at least one root is declared (``--root DIR``, or the client's MCP roots where
the roots policy lets them count: see ``markmcp.mcpcore.roots``).  Every path is
resolved first (``..`` collapsed, symlinks followed), and the resolved path must lie
inside a root, so neither ``../../etc/passwd`` nor a symlink that points outside gets
through.  Path arguments are checked like every path in ``markmcp.mcpcore.files``: a
NUL character or a path over ``MAX_PATH_CHARS`` is an invalid argument (not an
escape), and messages name paths shortened (``files.shown``), never a whole huge one.
"""

from __future__ import annotations

import os
from pathlib import Path

from markmcp.mcpcore.spec import CallContext, ToolError
from markmcp.mcpcore.files import MAX_PATH_CHARS, Places, shown


def _argument(path: str | Path) -> str:
    """The text of a path argument; ToolError for a NUL character or an over-long path."""
    text = os.fspath(path)
    if "\x00" in text:
        raise ToolError(f"the path '{shown(text)}' contains a NUL character")
    if len(text) > MAX_PATH_CHARS:
        raise ToolError(f"the path is too long ({len(text)} characters; the limit is {MAX_PATH_CHARS})")
    return text


def _resolved(base: Path, text: str) -> Path:
    try:
        return Path(os.path.realpath(Path(base) / text))
    except (OSError, ValueError) as error:
        raise ToolError(f"the path '{shown(text)}' cannot be resolved: {getattr(error, 'strerror', None) or error}")


def resolve_inside(base: Path, path: str | Path) -> Path:
    """Resolve ``path`` (relative to ``base``, symlinks followed) and refuse escaping ``base``.

    Returns the resolved absolute path.  Raises :class:`ToolError` naming the path
    when the result is not ``base`` itself or something below it.
    """
    text = _argument(path)
    base = Path(os.path.realpath(base))
    resolved = _resolved(base, text)
    if not resolved.is_relative_to(base):
        raise ToolError(f"path '{shown(text)}' is outside {shown(base)}")
    return resolved


def writable_places(ctx: CallContext, path: str | Path, *, by_default: bool = False,
                    what: str | None = None) -> Places:
    """The write gate's opt-in and roots: the folders a tool may write ``path`` in.

    Refuses (:class:`ToolError` naming ``path``) unless the server runs with
    ``--allow-write`` and a root is declared; the roots are those the roots policy left
    (``ctx.roots``), refusals end with its hint for the transport.  Hand the result to
    :func:`markmcp.mcpcore.files.write_atomic` (``places=``), which confines the
    target to the roots; a derived path is written with ``follow=False``, so a
    symlink planted at it is refused rather than written through.

    ``by_default``: the tool writes unless the server runs with ``--read-only``
    (``ServerSpec.write_default``, MRSF's upstream behaviour), in every folder it may
    read (``ctx.places()``: ``--cwd``, each ``--root``, the client's roots as the policy allows).

    ``what`` names the file in a refusal when ``path`` is not itself what would be
    written (MRSF's tools take a document and write its sidecar).
    """
    named = what if what is not None else f"'{shown(path)}'"
    if by_default:
        if ctx.read_only:
            raise ToolError(f"writing {named} is not allowed: the server was started with --read-only")
        return ctx.places()
    if not ctx.allow_write:
        raise ToolError(f"writing {named} is not allowed: the server was started without --allow-write")
    if not ctx.roots:
        raise ToolError(f"writing {named} is not allowed: no root is declared ({ctx.hint})")
    return Places.of(ctx.roots, hint=ctx.hint)


def check_write_path(ctx: CallContext, path: str | Path) -> Path:
    """The write gate: return the resolved path a tool may write, or raise :class:`ToolError`.

    Refuses unless the server runs with ``--allow-write`` and a root is declared;
    relative paths are taken from ``ctx.cwd``; the resolved path (symlinks
    followed) must lie inside one of ``ctx.roots``.
    """
    writable_places(ctx, path)
    text = _argument(path)
    resolved = _resolved(ctx.cwd, text)
    for root in ctx.roots:
        if resolved.is_relative_to(os.path.realpath(root)):
            return resolved
    roots = ", ".join(shown(root) for root in ctx.roots)
    raise ToolError(
        f"writing '{shown(text)}' is not allowed: it resolves to {shown(resolved)}, outside the roots ({roots})"
    )
