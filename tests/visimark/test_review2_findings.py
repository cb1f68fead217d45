"""What a second reviewer, driving visimark-mcp as an agent would, could not act on: an
UNDEF did-you-mean that proposed the rule's own name (or a row label it cannot name)."""

from __future__ import annotations

from markmcp.visimark.check import check
from markmcp.visimark.model import build
from markmcp.visimark.report import finding_json, format_check

F = "```"

TEAM = ("# Q3\n\n"
        "| Item   | Cost [EUR] |\n"
        "|--------|-----------:|\n"
        "| Cloud  |        100 |\n"
        "| Office |        200 |\n\n")


def undef(src: str) -> list:
    return [f for f in check(build(src)).findings if f.code == "UNDEF"]


# --- 15: did-you-mean ---------------------------------------------------------------------------


def test_a_scalar_is_never_offered_its_own_name() -> None:
    [f] = undef(TEAM + f"{F}vmark #q3\ntotal = SUM(Cost)\noffice_x = Offce + 1\n{F}\n")
    assert f.raw == "Offce" and f.suggestion != "office_x"


def test_a_qualified_read_of_the_own_sheet_is_never_offered_its_own_name() -> None:
    [f] = undef(TEAM + f"{F}vmark #q3\noffice_x = q3.Offce + 1\n{F}\n")
    assert f.suggestion != "office_x"


def test_a_document_scope_binding_is_never_offered_its_own_name() -> None:
    [f] = undef(f"{F}vmark\nrate_x = rate_y * 2\n{F}\n")
    assert f.suggestion is None


def test_a_column_rule_is_never_offered_its_own_column_or_alias() -> None:
    src = ("| Item | Qty | Net |\n|---|--:|--:|\n| a | 2 | 4 |\n| b | 3 | 6 |\n\n"
           f"{F}vmark #s\n\"Net\" is nett\nnett = Qty * Nte\n{F}\n")
    [f] = undef(src)
    assert f.raw == "Nte" and f.suggestion not in ("Net", "nett")


def test_another_binding_close_to_the_name_is_still_offered() -> None:
    [f] = undef(TEAM + f"{F}vmark #q3\nbase_x = 5\noffice_x = base_y + 1\n{F}\n")
    assert f.suggestion == "base_x"


def test_a_row_label_read_as_a_name_says_rows_cannot_be_named() -> None:
    src = TEAM + f"{F}vmark #q3\ncloud_q [EUR] = SUM(Cloud)\n{F}\n"
    [f] = undef(src)
    assert f.suggestion is None
    assert f.hint == "`Cloud` is a row label: a rule cannot name a row, only a column or a scalar"
    report = format_check("d.md", check(build(src)).findings)
    assert "unknown name `Cloud`\n          `Cloud` is a row label" in report
    assert "did you mean" not in report
    j = finding_json(f, "d.md")
    assert j["details"] == {"message": "unknown name `Cloud`", "hint": f.hint}


def test_a_name_that_is_no_row_label_keeps_its_did_you_mean() -> None:
    [f] = undef(TEAM + f"{F}vmark #q3\ncloud_q [EUR] = SUM(Cots)\n{F}\n")
    assert f.hint is None and f.suggestion == "Cost"
