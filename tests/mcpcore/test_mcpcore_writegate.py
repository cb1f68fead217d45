"""The write gate: explicit opt-in, a declared root, resolved paths that stay inside."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from markmcp.mcpcore import CallContext, Tool, ToolError, check_write_path, resolve_inside


def context(root: Path | None, *, allow_write: bool = True, cwd: Path | None = None) -> CallContext:
    roots = () if root is None else (root.resolve(),)
    return CallContext(roots=roots, cwd=(cwd or root or Path.cwd()).resolve(), allow_write=allow_write, options={})


def test_write_inside_root_is_allowed(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    target = check_write_path(context(tmp_path), "docs/new.md")
    assert target == (tmp_path / "docs" / "new.md").resolve()
    assert check_write_path(context(tmp_path), tmp_path / "a.md") == (tmp_path / "a.md").resolve()


def test_write_needs_the_opt_in_flag(tmp_path: Path) -> None:
    with pytest.raises(ToolError, match="--allow-write"):
        check_write_path(context(tmp_path, allow_write=False), "a.md")


def test_write_needs_a_root(tmp_path: Path) -> None:
    with pytest.raises(ToolError, match="no root is declared"):
        check_write_path(context(None, cwd=tmp_path), "a.md")


def test_dot_dot_escape_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    with pytest.raises(ToolError, match=r"outside the roots"):
        check_write_path(context(root), "../outside.md")
    with pytest.raises(ToolError, match=r"outside the roots"):
        check_write_path(context(root), "sub/../../outside.md")


def test_symlink_escape_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "root"
    outside = tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    os.symlink(outside, root / "link")
    os.symlink(outside / "target.md", root / "file-link.md")
    with pytest.raises(ToolError, match=r"outside the roots"):
        check_write_path(context(root), "link/evil.md")
    with pytest.raises(ToolError, match=r"outside the roots"):
        check_write_path(context(root), "file-link.md")


def test_symlink_inside_the_root_is_fine(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    os.symlink(tmp_path / "real", tmp_path / "alias")
    assert check_write_path(context(tmp_path), "alias/x.md") == (tmp_path / "real" / "x.md").resolve()


def test_resolve_inside(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    assert resolve_inside(tmp_path, "a/b.md") == (tmp_path / "a" / "b.md").resolve()
    with pytest.raises(ToolError, match=r"path '\.\./x' is outside"):
        resolve_inside(tmp_path / "a", "../x")
    with pytest.raises(ToolError, match="is outside"):
        resolve_inside(tmp_path, "/etc/passwd")
    os.symlink("/", tmp_path / "slash")
    with pytest.raises(ToolError, match="is outside"):
        resolve_inside(tmp_path, "slash/etc/passwd")


def test_tool_declaration_errors_are_caught_early() -> None:
    def handler(args: dict, ctx: CallContext) -> dict:
        return {}

    with pytest.raises(ValueError, match="tool name"):
        Tool("bad name", "t", "d", {"type": "object"}, {"type": "object"}, handler)
    with pytest.raises(ValueError, match="must be a JSON Schema"):
        Tool("ok", "t", "d", {"type": "string"}, {"type": "object"}, handler)
    with pytest.raises(ValueError, match="unsupported keywords: not"):
        Tool("ok", "t", "d", {"type": "object", "not": {}}, {"type": "object"}, handler)


def test_a_nul_or_an_over_long_path_is_an_invalid_argument_not_an_escape(tmp_path: Path) -> None:
    for check in (lambda p: check_write_path(context(tmp_path), p), lambda p: resolve_inside(tmp_path, p)):
        with pytest.raises(ToolError, match="contains a NUL character") as nul:
            check("a\x00b.md")
        assert "outside" not in str(nul.value)
        with pytest.raises(ToolError, match=r"the path is too long \(6000 characters; the limit is 4096\)") as long:
            check("a" * 6000)
        assert len(str(long.value)) < 100


def test_refusals_show_a_long_path_shortened(tmp_path: Path) -> None:
    deep = "../" + "d/" * 1500 + "x.md"
    with pytest.raises(ToolError, match="outside") as refused:
        resolve_inside(tmp_path, deep)
    assert len(str(refused.value)) < 500 and "characters)" in str(refused.value)


def test_a_gate_open_by_default_writes_where_it_reads_until_read_only(tmp_path: Path) -> None:
    """MRSF's gate (``by_default``): no --allow-write and no root needed; the places are the
    readable ones; --read-only closes it."""
    from dataclasses import replace

    from markmcp.mcpcore import writable_places

    ctx = context(None, allow_write=False, cwd=tmp_path)
    assert writable_places(ctx, "a.md", by_default=True).folders == (tmp_path.resolve(),)
    with pytest.raises(ToolError, match="no root is declared|--allow-write"):
        writable_places(ctx, "a.md")  # the ordinary gate stays closed for the same context
    with pytest.raises(ToolError, match="'a.md' is not allowed: the server was started with --read-only"):
        writable_places(replace(ctx, read_only=True), "a.md", by_default=True)
