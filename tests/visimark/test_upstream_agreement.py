"""Behaviour where this engine once disagreed with upstream's documents and specs.

Each test names the rule it holds: a percent literal's width, a text cell that only
looks decorated, anchor comments with blanks inside, a byte-order mark, a very long
dependency cycle, DATE findings with no cell, and scenario values.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from markmcp.visimark.check import check
from markmcp.visimark.findings import Finding
from markmcp.visimark.lang import parse_expression
from markmcp.visimark.model import build
from markmcp.visimark.report import finding_json, format_check
from markmcp.visimark.syntax import Num
from markmcp.visimark.values import parse_cell_number
from markmcp.visimark.write import fmt


def codes(src: str) -> list[str]:
    return [f.code for f in check(build(src)).findings]


# --- a percent literal is exactly the written number / 100, written decimals + 2 wide


@pytest.mark.parametrize("text,value,places", [
    ("40%", "0.40", 2), ("23%", "0.23", 2), ("12.5%", "0.125", 3), ("150%", "1.50", 2), ("0%", "0.00", 2),
    ("100%", "1.00", 2), ("0.5%", "0.005", 3),
])
def test_percent_literal_width_is_written_decimals_plus_two(text: str, value: str, places: int) -> None:
    node = parse_expression(text)
    assert isinstance(node, Num) and node.percent
    assert (str(node.value), node.places) == (value, places)


def test_anchored_percent_scalar_writes_two_decimals() -> None:
    src = "```vmark #g\nmin_margin = 40%\n```\n\nA floor of **0.40**<!--vmark=g.min_margin-->.\n"
    result = check(build(src))
    assert [f.code for f in result.findings] == []
    assert result.precision["g.min_margin"] == 2
    stale = src.replace("**0.40**", "**0.4**")
    assert fmt(stale).output == src


# --- a text cell is text unless it is one decoration and one number


@pytest.mark.parametrize("text", ["search x3", "item no 7", "phase a 2"])
def test_two_words_before_a_number_are_text(text: str) -> None:
    assert parse_cell_number(text) is None


def test_text_cell_with_a_number_inside_is_not_a_unit_error() -> None:
    src = ("| Step | Query | Hits |\n|---|---|---:|\n| a | search x3 | 4 |\n| b | plain | 5 |\n\n"
           "```vmark #t\ntotal = SUM(Hits)\n```\n\nTotal **9**<!--vmark=t.total-->.\n")
    assert codes(src) == []


@pytest.mark.parametrize("text,deco", [("$5.50", "$"), ("5.50 PLN", " PLN"), ("$-5.00", "$")])
def test_single_decorations_still_read_as_numbers(text: str, deco: str) -> None:
    num = parse_cell_number(text)
    assert num is not None and not isinstance(num, str) and num.decoration is not None
    assert num.decoration.text == deco


# --- anchor comments may carry blanks after `<!--`, around `=` and before `-->`


@pytest.mark.parametrize("comment", [
    "<!--vmark= s.t -->", "<!-- vmark=s.t-->", "<!-- vmark = s.t -->", "<!--vmark=s.t  -->",
])
def test_anchor_comment_with_inner_blanks_is_an_anchor(comment: str) -> None:
    src = f"```vmark #s\nt = 2 + 3\n```\n\nValue **4**{comment}.\n"
    result = check(build(src))
    assert [(f.code, f.stored, f.computed) for f in result.findings if f.code == "STALE" and not f.anchor_group] == [
        ("STALE", "4", "5")]
    assert fmt(src).output == src.replace("**4**", "**5**")


def test_loose_comment_that_does_not_parse_is_still_malformed() -> None:
    src = "```vmark #s\nt = 1\n```\n\nValue **1**<!-- vmark=s-t -->.\n"
    assert "ANCHOR" in codes(src)


def test_no_formulas_marker_with_blanks() -> None:
    src = "| a | b |\n|---|---|\n| 1 | 2 |\n\n<!-- vmark:no-formulas -->\n"
    assert codes(src) == []


# --- a byte-order mark is not content


def test_bom_does_not_hide_the_first_table() -> None:
    body = ("| Item | Qty | Price | Net |\n|---|--:|--:|--:|\n| a | 2 | 1.50 | 3.00 |\n\n"
            "```vmark #lines\nNet = Qty * Price\ntotal = SUM(Net)\n```\n\nTotal **3.00**<!--vmark=lines.total-->.\n")
    plain, marked = check(build(body)), check(build("\ufeff" + body))
    assert [f.code for f in marked.findings] == [f.code for f in plain.findings] == []
    assert marked.values == plain.values
    stale = "\ufeff" + body.replace("| 3.00 |", "| 9.00 |")
    out = fmt(stale).output
    assert out == "\ufeff" + body  # the mark is kept, the cell repaired at the right offset


# --- a long cycle is a CYCLE finding, however many bindings it has


@pytest.mark.parametrize("n", [3, 1200, 3000])
def test_long_cycle_is_one_cycle_finding(n: int) -> None:
    lines = [f"a{i} = a{i + 1} + 1" for i in range(1, n)] + [f"a{n} = a1 + 1"]
    src = "```vmark #s\n" + "\n".join(lines) + "\n```\n\nX **1**<!--vmark=s.a1-->\n"
    result = check(build(src))
    cycles = [f for f in result.findings if f.code == "CYCLE"]
    assert len(cycles) == 1 and len(cycles[0].cycle_path) == n + 1
    assert [f.code for f in result.findings] == ["CYCLE"]


def test_long_cycle_through_the_cli_is_exit_1_not_a_crash(tmp_path: Path) -> None:
    n = 2000
    lines = [f"a{i} = a{i + 1} + 1" for i in range(1, n)] + [f"a{n} = a1 + 1"]
    path = tmp_path / "c.md"
    path.write_text("```vmark #s\n" + "\n".join(lines) + "\n```\n", encoding="utf-8")
    p = subprocess.run([sys.executable, "-m", "markmcp.visimark.cli", "check", str(path)],
                       capture_output=True, text=True, encoding="utf-8")
    assert p.returncode == 1, p.stderr
    assert "  CYCLE   s.a1 → " in p.stdout and "nests too deeply" not in p.stderr


# --- DATE findings with no cell say what is wrong and never print None


@pytest.mark.parametrize("expr,message", [
    ("2026-02-30", "`2026-02-30` is not a calendar date"),
    ("EOMONTH(9999-12-01, 3)", "EOMONTH result falls outside years 1–9999"),
])
def test_date_finding_without_a_cell(expr: str, message: str) -> None:
    src = f"```vmark #s\nd = {expr}\nn = 1\n```\n\n**x**<!--vmark=s.n-->\n"
    result = check(build(src))
    (date_finding,) = [f for f in result.findings if f.code == "DATE"]
    text = format_check("d.md", result.findings)
    assert "None" not in text and message in text
    js = finding_json(date_finding, "d.md")
    assert js["details"] == {"message": message}


def test_cell_date_finding_keeps_its_raw_text() -> None:
    f = Finding("DATE", "s", "Due", raw="15.10.2026", row_label="a", iso_fix="2026-10-15")
    text = format_check("d.md", [f])
    assert '"15.10.2026"' in text and "rewrites it to 2026-10-15" in text


# --- scenario values


LEVERS = """```vmark #levers
param hours precision 0 integer in [0, 80] = default 40
param disc  precision 3 in [0%, 15%] = default 0%
param share precision 3 in [0, 1] = default 0.5
assert levers.hours <= 80
```
"""


def scenario(tmp_path: Path, text: str) -> subprocess.CompletedProcess:
    path = tmp_path / "levers.md"
    path.write_text(LEVERS, encoding="utf-8")
    return subprocess.run([sys.executable, "-m", "markmcp.visimark.cli", "eval", "--scenario", "-", str(path)],
                          input=text, capture_output=True, text=True, encoding="utf-8")


@pytest.mark.parametrize("text,key,shown", [
    ('{ "hours": "44.0" }', "levers.hours", "44"),
    ('{ "disc": "12.5%" }', "levers.disc", "0.125"),
    ('{ "share": "12.5%" }', "levers.share", "0.125"),
    ('{ "share": "0.250" }', "levers.share", "0.25"),
])
def test_scenario_values_that_fit_are_accepted(tmp_path: Path, text: str, key: str, shown: str) -> None:
    p = scenario(tmp_path, text)
    assert p.returncode == 0, p.stderr
    rows = [line.split() for line in p.stdout.split("\n") if line.startswith(f"  {key} ")]
    assert rows and rows[0][1] == shown and rows[0][2] == "scenario"


@pytest.mark.parametrize("text,message", [
    ('{ "hours": "4", "hours": "5" }', "visimark: scenario key hours is given twice"),
    ('{ "hours": "4", "levers.hours": "5" }', "visimark: scenario key hours is given twice"),
    ('{ "hours": "44.5" }', "visimark: scenario value for hours has 1 decimal; hours declares 0"),
    ('{ "disc": "12.55%" }', "visimark: scenario value for disc has 4 decimals; disc declares 3"),
])
def test_scenario_faults(tmp_path: Path, text: str, message: str) -> None:
    p = scenario(tmp_path, text)
    assert (p.returncode, p.stdout, p.stderr) == (2, "", message + "\n")


def test_ambiguous_bare_scenario_key(tmp_path: Path) -> None:
    path = tmp_path / "two.md"
    path.write_text("```vmark #a\nparam x precision 0 = default 1\n```\n\n```vmark #b\nparam x precision 0 = default 2\n```\n",
                    encoding="utf-8")
    p = subprocess.run([sys.executable, "-m", "markmcp.visimark.cli", "eval", "--scenario", "-", str(path)],
                       input='{ "x": "3" }', capture_output=True, text=True, encoding="utf-8")
    assert (p.returncode, p.stderr) == (2, "visimark: scenario key x is ambiguous: a.x, b.x\n")

