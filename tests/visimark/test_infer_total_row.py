"""`infer` on a table that ends in a total row: the row is not data.  Upstream's format has
no totals row inside a table (a SUM scalar replaces it) and its infer design says nothing of
one, so infer sets it aside: rules and reduces are searched on the rows above, nothing of
that table is written while the total row is in it, and the report says what the total row
holds and what to do."""

from __future__ import annotations

import pytest

from markmcp.visimark.check import check
from markmcp.visimark.infer import apply, infer, plan
from markmcp.visimark.infer_read import total_row
from markmcp.visimark.infer_report import file_json, format_infer
from markmcp.visimark.locate import locate
from markmcp.visimark.model import build

HEAD = ("# Team costs\n\n"
        "| Team    | Heads | Cost per head [EUR] | Cost [EUR] |\n"
        "|---------|------:|--------------------:|-----------:|\n"
        "| Infra   |     4 |                9000 |      36000 |\n"
        "| Product |     6 |                8500 |      51000 |\n")

# the reviewer's document: Support is wrong (3 x 6000 is not 18500), the Total row follows it
PLAIN = (HEAD + "| Support |     3 |                6000 |      18500 |\n"
         "| Total   |    13 |                     |     105500 |\n\n"
         "We spend 105500 EUR a quarter on 13 people, an average of 8115.38 per head.\n")

RIGHT = (HEAD + "| Support |     3 |                6000 |      18000 |\n"
         "| Sales   |     2 |                7000 |      14000 |\n"
         "| **Total** | **15** |                  | **119000** |\n\n"
         "We spend **119000 EUR** a quarter on **15** people.\n")


def by_kind(src: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for p in infer(src).proposals:
        out.setdefault(p.kind, []).append(p.rule or p.name)
    return out


def test_a_total_row_is_no_evidence_for_max_and_the_near_miss_is_found() -> None:
    inference = infer(PLAIN)
    rules = [p.rule for p in inference.proposals]
    assert not any("MAX(" in r for r in rules)
    [miss] = [p for p in inference.proposals if p.kind == "near-miss"]
    assert miss.rule == "Cost = Heads * ch" and (miss.fits, miss.rows) == (2, 3)
    assert miss.disagreement is not None
    assert (miss.disagreement.row_label, miss.disagreement.stored, miss.disagreement.computed) == \
        ("Support", "18500", "18000")
    scalars = {p.rule: p for p in inference.proposals if p.kind == "scalar"}
    assert set(scalars) == {"cost_total = SUM(Cost)", "heads_total = SUM(Heads)"}


def test_the_rule_over_the_rows_above_a_right_total_is_found_and_held() -> None:
    inference = infer(RIGHT)
    [rule] = [p for p in inference.proposals if p.kind == "column"]
    assert rule.rule == "Cost = Heads * ch" and (rule.fits, rule.rows) == (4, 4)
    assert rule.held is not None and not rule.writable
    assert "last row, `Total`, totals the rows above it" in (rule.reasons or "")
    assert inference.count() == {"rules": 0, "aliases": 0, "scalars": 0, "anchors": 0}


def test_nothing_of_that_table_is_written_and_no_marker_either() -> None:
    for src in (PLAIN, RIGHT):
        inference = infer(src)
        assert plan(inference) == [] and not inference.marker


def test_moving_the_total_out_as_told_gets_the_rules_written_and_checked_clean() -> None:
    moved = RIGHT.replace("| **Total** | **15** |                  | **119000** |\n", "")
    out = apply(moved, plan(infer(moved)))
    assert "Cost = Heads * ch" in out and "cost_total" in out and "heads_total" in out
    assert [f for f in check(build(out)).findings if f.is_problem] == []


def test_the_report_shows_the_total_row_and_each_sum() -> None:
    text = format_infer("plain.md", infer(RIGHT.replace("**119000**", "**119500**")))
    assert "table at line 3 — 4 rows and a total row, 4 columns" in text
    assert "Cost   = Heads * ch                       4/4 rows — not written (total row)" in text
    assert "  total row — not a row of data\n    row 5  Total, line 9\n" in text
    assert "      Heads  15      = SUM(Heads)\n" in text
    assert "      Cost   119500  SUM(Cost) gives 119000, differs by 500\n" in text


def test_the_json_gives_the_total_row_and_the_reason() -> None:
    entry = file_json("plain.md", infer(PLAIN))
    assert entry["totalRows"] == [{"sheet": "unnamed1", "rowLabel": "Total", "line": 8, "sums": [
        {"column": "Heads", "stored": "13", "sum": "13", "matches": True},
        {"column": "Cost", "stored": "105500", "sum": "105500", "matches": True}]}]
    held = [p for p in entry["proposals"] if p["kind"] in ("alias", "scalar")]
    assert held and all(p["reason"].startswith("not written: the table's last row") for p in held)


def test_a_table_without_a_total_row_has_no_total_rows_key() -> None:
    moved = RIGHT.replace("| **Total** | **15** |                  | **119000** |\n", "")
    assert "totalRows" not in file_json("d.md", infer(moved))


def table(rows: list[str]) -> str:
    return "| Item | Qty | Net |\n|---|--:|--:|\n" + "".join(f"| {r} |\n" for r in rows)


@pytest.mark.parametrize("label", ["Total", "**Total**", "Totals:", "Grand total", "Subtotal", "Sum", "Σ", "TOTAL"])
def test_labels_that_say_total(label: str) -> None:
    src = table(["a | 2 | 4", "b | 3 | 6", f"{label} | 5 | 99"])  # a wrong total is still a total
    total = total_row(locate(src).tables[0])
    assert total is not None and [s.matches for s in total.sums] == [True, False]


def test_an_unlabelled_row_of_sums_is_a_total() -> None:
    assert total_row(locate(table(["a | 2 | 4", "b | 3 | 6", " | 5 | 10"])).tables[0]) is not None
    assert total_row(locate(table(["a | 2 | 4", "b | 3 | 6", "all | 5 | 10"])).tables[0]) is not None


@pytest.mark.parametrize("rows", [
    ["a | 2 | 4", "b | 3 | 6", "c | 4 | 8"],    # data
    ["a | 1 | 4", "b | 2 | 6", "c | 3 | 8"],    # one column happens to sum, the other does not
    ["a | 1 | 4", "b | 2 | 6", "c | 3 | "],     # one sum under a label that does not say total
    ["a | 2 | 4", "Total | 3 | 6"],             # one row above: nothing to total
    ["a | 2 | 4", "b | 3 | 6", "7 | 5 | 10"],    # a number where the label goes
    ["a | 2 | 4", "b | 3 | 6", "c | 5 | x"],     # a word under a column of numbers
])
def test_rows_that_are_data(rows: list[str]) -> None:
    assert total_row(locate(table(rows)).tables[0]) is None


def test_a_rule_of_another_table_reading_a_held_scalar_is_held_too() -> None:
    src = (RIGHT + "\n| Milestone | Share | Amount |\n|---|--:|--:|\n"
           "| a | 0.5 | 59500 |\n| b | 0.25 | 29750 |\n| c | 0.25 | 29750 |\n")
    inference = infer(src)
    cross = [p for p in inference.proposals if p.kind == "column" and p.sheet == "unnamed2"]
    assert cross and all(not p.writable for p in cross)
    assert [f for f in check(build(apply(src, plan(inference)))).findings
            if f.is_problem and f.code != "COVERAGE"] == []
