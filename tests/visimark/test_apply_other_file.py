"""A plan applied to a file it was not computed for: the refusal names the file the plan is
for (or says it was computed for `content`), not "the document changed"; a plan for this file
that no longer matches it still says the document changed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conftest import shared_dir
from markmcp.mcpcore import CallContext, ToolError
from markmcp.visimark.server import fmt_apply_tool, fmt_tool, infer_apply_tool, infer_tool


@pytest.fixture()
def ws(tmp_path: Path) -> Path:
    for name in ("example-quote-plain.md", "example-invoice-drift.md", "example-invoice.md"):
        shutil.copyfile(shared_dir("visimark", "docs") / name, tmp_path / name)
    return tmp_path


def ctx(ws: Path) -> CallContext:
    return CallContext(roots=(ws.resolve(),), cwd=ws.resolve(), allow_write=True, options={})


def refusal(call, *args) -> str:
    with pytest.raises(ToolError) as e:
        call(*args)
    return str(e.value)


def test_infer_plan_for_another_file(ws: Path) -> None:
    plan = infer_tool({"path": "example-quote-plain.md"}, ctx(ws))
    before = (ws / "example-invoice.md").read_bytes()
    msg = refusal(infer_apply_tool, {"path": "example-invoice.md", "plan": plan}, ctx(ws))
    assert "this plan is for example-quote-plain.md, not example-invoice.md" in msg
    assert "changed" not in msg
    assert (ws / "example-invoice.md").read_bytes() == before


def test_fmt_plan_for_another_file(ws: Path) -> None:
    plan = fmt_tool({"path": "example-invoice-drift.md"}, ctx(ws))
    msg = refusal(fmt_apply_tool, {"path": "example-invoice.md", "plan": plan}, ctx(ws))
    assert "this plan is for example-invoice-drift.md, not example-invoice.md" in msg


def test_plan_computed_for_content(ws: Path) -> None:
    text = (ws / "example-quote-plain.md").read_text(encoding="utf-8")
    plan = infer_tool({"content": text + "\nmore\n"}, ctx(ws))
    msg = refusal(infer_apply_tool, {"path": "example-quote-plain.md", "plan": plan}, ctx(ws))
    assert "computed for a document given as `content`" in msg


def test_a_plan_for_this_file_that_changed_still_says_changed(ws: Path) -> None:
    plan = infer_tool({"path": "./example-quote-plain.md"}, ctx(ws))
    with (ws / "example-quote-plain.md").open("a", encoding="utf-8") as f:
        f.write("\nedited\n")
    msg = refusal(infer_apply_tool, {"path": "example-quote-plain.md", "plan": plan}, ctx(ws))
    assert "the document changed since this plan was computed" in msg
