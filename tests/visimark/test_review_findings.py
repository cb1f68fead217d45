"""Smaller answers an agent could not act on: the anchor roll-up names the values whose
anchors it counts, a unit column with one cell that is not a number names that cell, and the
path/content refusal is grammatical."""

from __future__ import annotations

from pathlib import Path

import pytest

from markmcp.mcpcore import CallContext, ToolError
from markmcp.visimark.check import check
from markmcp.visimark.model import build
from markmcp.visimark.report import finding_json, format_check
from markmcp.visimark.server import check_tool

F = "```"


def test_the_anchor_roll_up_names_its_values() -> None:
    src = ("| Item | Qty |\n|---|--:|\n| a | 4 |\n| b | 6 |\n\n"
           f"{F}vmark #s\ntotal = SUM(Qty)\nn = COUNT(Qty)\nkeep = 7\n{F}\n\n"
           "Total **12**<!--vmark=s.total-->, again **10**<!--vmark=s.total-->, rows **3**<!--vmark=s.n-->, "
           "kept **7**<!--vmark=s.keep-->.\n")
    findings = check(build(src)).findings
    [group] = [f for f in findings if f.anchor_group]
    details = finding_json(group, "d.md")["details"]
    assert details == {"suppressedCount": 3, "bindings": ["s.total", "s.n"]}
    # the text report keeps upstream's line
    assert "3 prose anchors bound to the values above" in format_check("d.md", findings)


def test_a_cell_that_is_not_a_number_in_a_unit_column_is_named() -> None:
    src = ("| Posten | Betrag [EUR] |\n|---|--:|\n| a | 12.50 |\n| b | 1e400 |\n\n"
           f"{F}vmark #k\nsumme [EUR] = SUM(Betrag)\n{F}\n")
    [f] = [f for f in check(build(src)).findings if f.code == "UNIT" and f.name == "Betrag"]
    assert f.row_label == "b" and f.raw == "1e400"
    assert f.message == ("a string cannot carry a unit: the cell `1e400` is not a number "
                         "(write a plain decimal such as 1250.50)")
    assert finding_json(f, "d.md")["location"]["row"] == "b"


def test_a_column_of_words_with_a_unit_keeps_the_column_level_finding() -> None:
    src = f"| Name [EUR] | Qty |\n|---|--:|\n| a | 1 |\n\n{F}vmark #k\nn = SUM(Qty)\n{F}\n"
    [f] = [f for f in check(build(src)).findings if f.code == "UNIT"]
    assert f.message == "a string cannot carry a unit" and f.row_label is None


@pytest.mark.parametrize("args,words", [({"path": "d.md", "content": "x"}, "both were given"),
                                        ({}, "neither was given")])
def test_path_and_content_refusal_is_grammatical(tmp_path: Path, args: dict, words: str) -> None:
    ctx = CallContext(roots=(tmp_path,), cwd=tmp_path, allow_write=False, options={})
    with pytest.raises(ToolError) as e:
        check_tool(args, ctx)
    assert str(e.value) == f"visimark: give either `path` or `content` — {words}"
