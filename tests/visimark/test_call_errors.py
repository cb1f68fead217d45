"""Call and evaluation error texts, worded as upstream's engine words them, and reported at
the right granularity (one static TYPE per binding, or one per offending row, no NOTE)."""

from __future__ import annotations

import pytest

from markmcp.visimark.check import check
from markmcp.visimark.model import build

F = "```"


def findings(src: str) -> list[tuple[str, str | None, str | None, str | None]]:
    return [(f.code, f.name, f.row_label, f.message) for f in check(build(src)).findings if f.code != "WARN"]


def scalar(rule: str) -> str:
    return f"{F}vmark #s\n{rule}\n{F}\n"


def table(rows: list[tuple[str, str, str]], rule: str) -> str:
    body = "".join(f"| {a} | {b} | {c} |\n" for a, b, c in rows)
    return f"| Key | In | Out |\n|---|---:|---:|\n{body}\n{F}vmark #t\n{rule}\n{F}\n"


@pytest.mark.parametrize("rule,message", [
    ("due = EOMONTH(2026-04-10)", "EOMONTH() takes 2 arguments, got 1"),
    ("pay precision 2 = PMT(0.02, 24)", "PMT() takes 3 arguments, got 2"),
    ("n = FLOOR(7)", "FLOOR() takes 2 arguments, got 1"),
    ("n = CEILING(7, 1, 2)", "CEILING() takes 2 arguments, got 3"),
    ("n = ABS(1, 2)", "ABS() takes 1 argument, got 2"),
])
def test_arity_is_one_static_type(rule: str, message: str) -> None:
    assert findings(scalar(rule)) == [("TYPE", rule.split()[0], None, message)]


def test_arity_in_a_column_rule_is_reported_once_not_per_row() -> None:
    src = table([("a", "4", "0"), ("b", "9", "0")], "Out = FLOOR(In)")
    assert findings(src) == [("TYPE", "Out", None, "FLOOR() takes 2 arguments, got 1")]


@pytest.mark.parametrize("name", ["FLOOR", "CEILING"])
def test_non_positive_significance_is_a_row_type(name: str) -> None:
    src = table([("a", "5", "15" if name == "FLOOR" else "20"), ("b", "0", "0")], f"Out = {name}(17, In)")
    assert findings(src) == [("TYPE", "Out", "b", f"{name} significance must be a positive number")]


def test_other_function_errors() -> None:
    assert findings(scalar("half = 0.5\ndue = EOMONTH(2026-04-10, half)")) == [
        ("TYPE", "due", None, "EOMONTH expects a whole number of months")]
    pmt = table([("a", "12", "106.62"), ("b", "-3", "0.00")], "Out precision 2 = PMT(0.01, In, 1200)")
    assert findings(pmt) == [("TYPE", "Out", "b", "PMT expects a positive whole number of periods")]
    assert findings(scalar("x precision 2 = SQRT(-4)")) == [("TYPE", "x", None, "SQRT of a negative number")]
    assert findings(scalar("x precision 2 = 0 ^ -1")) == [("TYPE", "x", None, "result is not a finite decimal")]


def test_a_blank_cell_under_npv_is_type_and_the_assertion_is_a_note() -> None:
    src = ("| Cash |\n|-----:|\n| -100.00 |\n|  |\n|  60.00 |\n\n"
           f"{F}vmark #t\npv precision 2 = NPV(0.05, Cash)\nassert pv > 0\n{F}\n")
    assert findings(src) == [("TYPE", "pv", None, "NPV expects a number"),
                             ("NOTE", None, None, "1 assertion not verified (upstream errors)")]


def test_empty_column_reduces() -> None:
    src = f"| Cash |\n|-----:|\n\n{F}vmark #t\nm precision 2 = AVG(Cash)\n{F}\n"
    assert ("TYPE", "m", None, "AVG() of an empty column") in findings(src)


@pytest.mark.parametrize("sheet,listed", [
    ("cost-centre", "character `-`"),
    ("a/b..c", "characters `/`, `.`"),
    ("1abc", "character `1`"),
])
def test_invalid_sheet_ids_name_each_character_once(sheet: str, listed: str) -> None:
    src = f"{F}vmark #{sheet}\nx = 1\n{F}\n"
    sheets = [f.message for f in check(build(src)).findings if f.code == "SHEET"]
    assert sheets == [f"sheet id `{sheet}` is not a valid identifier — invalid {listed}"]


def column_rule(rule: str) -> str:
    return table([("a", "10", "0"), ("b", "4", "0")], f"Out = {rule}")


@pytest.mark.parametrize("rule,message,suggestion", [
    ("ROUND(In)", "ROUND() takes 2 arguments, got 1", None),
    ("IF(In > 5, 1)", "IF() takes 3 arguments, got 2", None),
    ("ABS(ROUND(In))", "ROUND() takes 2 arguments, got 1", None),
    ("ROND(In, 2)", "unknown function `ROND`", "ROUND"),
    ("XYZZY(In)", "unknown function `XYZZY`", None),
    ("SUMM(In)", "unknown function `SUMM`", "SUM"),
])
def test_static_call_checks_in_a_column_rule(rule: str, message: str, suggestion: str | None) -> None:
    result = check(build(column_rule(rule)))
    assert [(f.code, f.message, f.suggestion, f.row_label) for f in result.findings if f.is_problem] == [
        ("TYPE", message, suggestion, None)]


@pytest.mark.parametrize("rule,message", [
    ("SUM(In * 2)", "SUM() takes a column reference, not an expression"),
    ("Σ(In * 2)", "SUM() takes a column reference, not an expression"),
    ("Σ()", "SUM() takes 1 argument, got 0"),
    ('SQRT("x")', "SQRT expects a number"),
    ("FLOOR(2026-01-01, 1)", "FLOOR expects a number"),
    ("FLOOR(17, 0)", "FLOOR significance must be a positive number"),
])
def test_scalar_call_errors(rule: str, message: str) -> None:
    src = table([("a", "10", "0")], f"total = {rule}")
    assert [f.message for f in check(build(src)).findings if f.code == "TYPE"] == [message]


def test_a_bad_call_blames_its_own_span() -> None:
    src = column_rule("ROUND(In)")
    (f,) = [f for f in check(build(src)).findings if f.code == "TYPE"]
    assert src[f.span[0]:f.span[1]] == "ROUND(In)"


def test_assert_placement_and_keyword_messages() -> None:
    doc_scope = check(build("```vmark\nassert 1 == 1\n```\n"))
    assert [(f.code, f.message) for f in doc_scope.findings] == [("SHEET", "`assert` must be in a `#id` sheet block")]
    bound = check(build("```vmark #s\nassert = 1\n```\n"))
    assert [(f.code, f.message) for f in bound.findings] == [("TYPE", "`assert` is a keyword")]


def test_a_detached_table_is_one_sheet_finding() -> None:
    src = "| A | B |\n|--:|--:|\n| 1 | 2 |\n\nprose in the way\n\n```vmark #x\nB = A\n```\n"
    assert [f.code for f in check(build(src)).findings].count("SHEET") == 1


def test_precision_finding_matches_the_tutorial_transcript() -> None:
    from markmcp.visimark.report import format_check

    src = ("| Item | Net |\n|---|---:|\n| a | 2.00 |\n\n"
           f"{F}vmark #s\ntotal = SUM(Net)\nper_item = total / COUNT(Net)\n{F}\n\nPer item **2.00**<!--vmark=s.per_item-->\n")
    assert format_check("p.md", check(build(src)).findings).split("\n")[2:4] == [
        "  PRECISION s.per_item        `total / COUNT(Net)` has no derivable precision",
        "            declare the width: `per_item precision N = …`",
    ]


@pytest.mark.parametrize("expr,message", [
    ("|a", "expected `|`"), ("⌊a", "expected `⌋`"), ("⌊a⌉", "expected `⌋`"), ("(a⌋", "expected `)` to close `(`"),
    ("⌋a", "`⌋` has no opening `⌊`"), ("⌉a", "`⌉` has no opening `⌈`"), ("a |b|", "unexpected `|`"),
    ("⌊⌋", "unexpected `⌋`"),
])
def test_malformed_notation_pairs(expr: str, message: str) -> None:
    result = check(build(f"{F}vmark #s\na = 1\nb = 2\nx = {expr}\n{F}\n"))
    assert [(f.code, f.message) for f in result.findings if f.code == "TYPE"] == [("TYPE", message)]


def test_notation_keeps_its_spelling_in_explain(tmp_path) -> None:
    from markmcp.visimark.explain import explain_text

    src = ("| Item | Qty | Boxes | Loose |\n|---|---:|---:|---:|\n| w | 40 | 4 | 4 |\n| g | 12 | 1 | 0 |\n\n"
           f"{F}vmark #packing\nBoxes = ⌈Qty / 12⌉\nLoose = Qty - ⌊Qty / 12⌋ * 12\n\nboxes_total = Σ(Boxes)\n{F}\n\n"
           "Ships in **5**<!--vmark=packing.boxes_total--> boxes.\n")
    model = build(src)
    result = check(model)
    assert result.findings == []
    assert explain_text(model, result, []).split("\n")[2:6] == [
        "  rules:",
        "    Boxes = ⌈Qty / 12⌉              precision 0 (derived)",
        "    Loose = Qty - ⌊Qty / 12⌋ * 12   precision 0 (derived)",
        "  scalars:",
    ]


def test_dup_keeps_the_first_binding_and_points_at_the_second() -> None:
    src = ("| Item | Price | Qty |  Net |\n|------|------:|----:|-----:|\n| pen  |  5.00 |   2 | 10.00 |\n\n"
           f"{F}vmark #order\nNet = Price * Qty\nNet = 99\ntotal = SUM(Net)\n{F}\n")
    result = check(build(src))
    (dup,) = [f for f in result.findings if f.code == "DUP"]
    assert (dup.sheet, dup.name, src[dup.span[0]:dup.span[1]]) == ("order", "Net", "Net = 99")
    assert not any(f.code == "STALE" for f in result.findings)


def test_one_sheet_split_across_blocks() -> None:
    table = "| Item | Price | Qty |  Net |\n|------|------:|----:|-----:|\n| pen  |  5.00 |   2 | 10.00 |\n\n"
    ok = table + f"{F}vmark #order\nNet = Price * Qty\n{F}\n\n{F}vmark #order\ntotal = SUM(Net)\n{F}\n\nT **10.00**<!--vmark=order.total-->\n"
    assert check(build(ok)).findings == []
    clash = table + f"{F}vmark #order\nNet = Price * Qty\n{F}\n\n{F}vmark #order\nNet = 1\n{F}\n"
    assert [(f.code, f.name) for f in check(build(clash)).findings] == [("DUP", "Net")]
