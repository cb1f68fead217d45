"""Errors that say how to write what the writer meant: a `precision N` clause after the
expression (it goes before the `=`), and a quoted header read on the right-hand side, where
quoted text is a string (the column is reached through an alias).  The finding code stays
TYPE and the parser's words ("unexpected ident") stay at the front."""

from __future__ import annotations

import pytest

from markmcp.visimark.check import check
from markmcp.visimark.model import build
from markmcp.visimark.report import finding_json, format_check

F = "```"
TABLE = "| H | Q [EUR] | B |\n|--:|--:|--:|\n| 1 | 2 | _ |\n\n"


def problems(src: str) -> list:
    return [f for f in check(build(src)).findings if f.is_problem]


@pytest.mark.parametrize("rule,written", [
    ("per_head [EUR] = total / heads precision 2", "per_head [EUR] precision 2 = total / heads"),
    ("B = H * 2 precision 3", "B precision 3 = H * 2"),
    ('"B" = H * 2 precision 0', '"B" precision 0 = H * 2'),
])
def test_precision_after_the_expression_shows_where_it_goes(rule: str, written: str) -> None:
    src = f"{TABLE}{F}vmark #q3\ntotal [EUR] = SUM(Q)\nheads = SUM(H)\n{rule}\n{F}\n"
    [f] = problems(src)
    assert f.code == "TYPE"
    assert f.message == ("unexpected ident: `precision` goes before the `=` (name [unit] precision N = expression): "
                         f"write `{written}`")


def test_a_second_precision_clause_after_the_expression() -> None:
    src = f"{F}vmark #s\nz precision 2 = 1 / 3 precision 3\n{F}\n"
    [f] = problems(src)
    assert f.message == "unexpected ident: a binding takes one `precision` clause, before the `=`"


def test_other_leftover_names_keep_upstreams_words() -> None:
    [f] = problems(f"{F}vmark #s\nz = 1 foo\n{F}\n")
    assert f.message == "unexpected ident"


def test_a_quoted_header_on_the_right_hand_side_hints_at_an_alias() -> None:
    src = ("| Item | Monthly cost [EUR] | Quarter [EUR] |\n|---|--:|--:|\n| a | 2 | 6 |\n\n"
           f'{F}vmark #q\nQuarter = "Monthly cost" * 3\nx = "Monthly cost" * 3\n{F}\n')
    found = {f.name: f for f in problems(src)}
    hint = ('"Monthly cost" here is a string, not the column: declare `"Monthly cost" is monthly_cost` '
            "in the block and write `monthly_cost`")
    assert found["Quarter"].code == "UNIT" and found["Quarter"].hint == hint
    assert found["x"].code == "TYPE" and found["x"].hint == hint
    assert finding_json(found["x"], "d.md")["details"]["hint"] == hint
    assert hint in format_check("d.md", list(found.values()))


def test_a_string_that_is_no_header_gets_no_hint() -> None:
    src = f"| A |\n|--:|\n| 1 |\n\n{F}vmark #q\nx = \"nope\" * 3\n{F}\n"
    [f] = problems(src)
    assert f.hint is None
