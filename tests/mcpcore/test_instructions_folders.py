"""Every server's instructions say which folders its tools may read, as the roots policy has it."""

from __future__ import annotations

from pathlib import Path

import pytest

from markmcp.mcpcore.roots import READABLE, RootsPolicy


@pytest.mark.parametrize("module", ["markmcp.mrsf.server", "markmcp.figdown.server", "markmcp.visimark.server"])
def test_instructions_name_the_working_directory_among_the_readable_folders(module: str) -> None:
    from importlib import import_module

    instructions = import_module(module).SPEC.instructions
    assert READABLE in instructions and "working directory" in READABLE


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_the_working_directory_is_readable_without_being_a_root(tmp_path: Path, transport: str) -> None:
    """What the instructions say: the working directory is read, every transport, and is
    not a write root."""
    policy = RootsPolicy(cwd=tmp_path, roots=(), allow_write=True, options=None,
                         trust_client=transport == "stdio", transport=transport)
    ctx = policy.context([])
    assert tmp_path in ctx.readable and ctx.roots == ()
