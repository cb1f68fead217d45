"""Units (#317): cell decorations under a header unit, definition cycles and unused
definitions, the header-name hint, anchored decorations, and `fmt --fix-units`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from markmcp.visimark.check import check
from markmcp.visimark.model import build
from markmcp.visimark.report import format_check
from markmcp.visimark.write import fmt


def column_doc(cells: list[str], header: str = "Weight [kg]", unit: str = "kg") -> str:
    rows = "".join(f"| r{i} | {c} |\n" for i, c in enumerate(cells))
    stem = header.split(" [")[0]
    return (f"| Item | {header} |\n|---|---:|\n{rows}\n"
            f"```vmark #s\ntotal [{unit}] = SUM({stem})\n```\n\nT **0**<!--vmark=s.total-->\n")


def problems(src: str) -> list[tuple[str, str, str]]:
    return [(f.code, f.ident, f.message or "") for f in check(build(src)).findings if f.is_problem]


@pytest.mark.parametrize("cells", [["40", "2"], ["40 kg", "40kg"]])
def test_cells_that_agree_with_the_header_unit(cells: list[str]) -> None:
    src = column_doc(cells).replace("**0**", f"**{80 if cells[1] != '2' else 42}**")
    assert problems(src) == []


def test_superscript_and_caret_spellings_agree() -> None:
    src = column_doc(["5 m²", "1 m^2"], header="Area [m^2]", unit="m²").replace("**0**", "**6**")
    assert problems(src) == []


@pytest.mark.parametrize("cell,message", [
    ("40 lbs", 'cell "40 lbs" carries lbs, but the column declares kg'),
    ("5 kilogram", 'cell "5 kilogram" carries kilogram, but the column declares kg'),
    ("5 pcs.", 'cell "5 pcs." carries "pcs.", which is not a unit'),
    ("$40.00", 'cell "$40.00" has a prefix, which a column with a unit forbids'),
    ("5%", "5% is a ratio and cannot carry a unit"),
])
def test_cell_decorations_that_disagree_are_unit_errors(cell: str, message: str) -> None:
    src = column_doc(["1", cell])
    result = check(build(src))
    assert [(f.code, f.ident, f.row_label, f.message) for f in result.findings if f.is_problem] == [
        ("UNIT", "s.Weight", "r1", message)]  # one root cause: the total is suppressed, not STALE
    assert fmt(src).output == src


def test_mixed_bare_and_decorated_cells_still_conflict() -> None:
    got = problems(column_doc(["1", "2 kg"]))
    assert [c for c, _, _ in got] == ["UNIT"]


def test_definition_cycle_is_reported_once() -> None:
    src = "```vmark\n[a] = [b]\n[b] = [a]\n```\n\n```vmark #s\nx [a] = 1\n```\n\nX **1**<!--vmark=s.x-->\n"
    result = check(build(src))
    text = format_check("c.md", result.findings)
    assert "  CYCLE   [a] → [b] → [a]" in text.split("\n")
    assert text.endswith("1 problem (0 stale, 1 error)")


def test_self_referencing_definition() -> None:
    src = "```vmark\n[a] = [a⋅m]\n```\n\n```vmark #s\nx [a] = 1\n```\n\nX **1**<!--vmark=s.x-->\n"
    assert "  CYCLE   [a] → [a]" in format_check("c.md", check(build(src)).findings)


def test_unused_definition_is_advice() -> None:
    src = "```vmark\n[J] = [N⋅m]\n```\n\n```vmark #s\nx = 1\n```\n\nX **1**<!--vmark=s.x-->\n"
    result = check(build(src))
    assert result.exit_code == 0
    assert format_check("w.md", result.findings).split("\n")[2] == "  WARN    [J] is defined and never used"
    used = src.replace("x = 1", "x [J] = 1")
    assert not any(f.code == "WARN" for f in check(build(used)).findings)


def test_unit_header_name_hint_replaces_did_you_mean() -> None:
    src = ("| Weight [kg] | Count |\n|---:|---:|\n| 4 | 1 |\n\n```vmark #s\n\"Weight [kg]\" is w\n"
           "total [kg] = SUM(Weight)\n```\n\nT **4**<!--vmark=s.total-->\n")
    text = format_check("h.md", check(build(src)).findings)
    assert "  UNDEF   s.w               unknown name `Weight [kg]`" in text
    assert "          the header's name is Weight; [kg] is its unit" in text
    assert "did you mean" not in text


@pytest.mark.parametrize("seed,message", [
    ("40 lbs", 'anchor "40 lbs" carries lbs, but w declares kg'),
    ("$40", 'anchor "$40" has a prefix, which a value with a unit forbids'),
])
def test_anchored_decoration_under_a_declared_unit(seed: str, message: str) -> None:
    src = f"```vmark #s\nw [kg] = 40\n```\n\nW **{seed}**<!--vmark=s.w-->\n"
    assert problems(src) == [("UNIT", "s.w", message)]
    assert fmt(src).output == src
    assert problems(src.replace(seed, "40 kg")) == []


FIX_UNITS = """```vmark
[kJ] = [kg*m^2/s^2]
```

| Item | Load [node⋅USD/month] |
|---|---:|
| a | 3 |

```vmark #s
t [degC] = 20
f [°F] = 68
e [kJ] = 1 [kg*m^2/s^2]
total [node⋅USD/month] = SUM(Load)
```

T **20**<!--vmark=s.t--> F **68**<!--vmark=s.f--> E **1**<!--vmark=s.e--> L **3**<!--vmark=s.total-->
"""


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "markmcp.visimark.cli", *args], capture_output=True,
                          text=True, encoding="utf-8")


def test_fmt_fix_units_normalises_every_bracket(tmp_path: Path) -> None:
    doc = tmp_path / "u.md"
    doc.write_text(FIX_UNITS, encoding="utf-8")
    p = run("fmt", str(doc))
    assert (p.returncode, doc.read_text(encoding="utf-8")) == (0, FIX_UNITS)  # plain fmt leaves them
    p = run("fmt", str(doc), "--fix-units")
    assert p.returncode == 0
    assert p.stdout == f"{doc}: updated 6 units\n"
    out = doc.read_text(encoding="utf-8")
    assert out == (FIX_UNITS.replace("[kg*m^2/s^2]", "[kg⋅m²/s²]").replace("[node⋅USD/month]", "[USD⋅node/month]")
                   .replace("[degC]", "[℃]").replace("[°F]", "[℉]"))
    p = run("fmt", str(doc), "--fix-units")
    assert p.stdout == f"{doc}: unchanged\n"
    assert run("check", str(doc)).returncode == 0


def test_fix_units_is_refused_on_other_commands(tmp_path: Path) -> None:
    doc = tmp_path / "u.md"
    doc.write_text(FIX_UNITS, encoding="utf-8")
    p = run("check", str(doc), "--fix-units")
    assert p.returncode == 2
    assert doc.read_text(encoding="utf-8") == FIX_UNITS


def spelling_fixture() -> str:
    from conftest import shared_dir

    return (shared_dir("visimark", "fixtures") / "decoration-unit-spelling.md").read_text(encoding="utf-8")


def test_decoration_spelling_is_kept_on_write() -> None:
    src = spelling_fixture().replace("12 m^2", "13 m^2")
    result = check(build(src))
    stale = [f for f in result.findings if f.code == "STALE" and not f.anchor_group]
    assert [(f.ident, f.stored, f.computed) for f in stale] == [("flat.total", "42 m^2", "43 m^2")]
    assert "Floor area **43 m^2**<!--vmark=flat.total-->" in fmt(src).output


def test_a_cell_in_another_unit_names_both_forms() -> None:
    lines = spelling_fixture().split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith("| office"))
    lines.insert(at + 1, "| store  |   4 kg    |")
    result = check(build("\n".join(lines)))
    assert [(f.code, f.row_label, f.message) for f in result.findings if f.is_problem] == [
        ("UNIT", "store", 'cell "4 kg" carries kg, but the column declares m²')]


def test_spellings_of_one_unit_do_not_conflict_without_a_header_unit() -> None:
    src = ("| Room | Area |\n|---|---:|\n| a | 12 m^2 |\n| b | 30 m² |\n\n"
           "```vmark #flat\ntotal precision 0 = SUM(Area)\n```\n\nT **42**<!--vmark=flat.total-->\n")
    assert problems(src) == []
    assert [c for c, _, _ in problems(src.replace("30 m²", "30 kg"))] == ["UNIT"]


ORDER = """
| Item  | Price | Qty |    Net |
|-------|------:|----:|-------:|
| pen   | $5.50 |   3 | $16.50 |
| paper | {paper} |   2 |  $8.00 |

```vmark #order
Net = Price * Qty
total = SUM(Net)
```

Total: **24.50**<!--vmark=order.total-->
"""


def test_uniform_inert_decoration_computes_on_the_number() -> None:
    result = check(build(ORDER.format(paper="$4.00")))
    assert result.findings == []
    assert result.values["order.total"] == 24.5


@pytest.mark.parametrize("paper,needle", [("€4.00", "€"), (" 4.00", "(none)")])
def test_mixed_decorations_are_one_unit_error_and_suppress_dependants(paper: str, needle: str) -> None:
    src = ORDER.format(paper=paper)
    result = check(build(src))
    units = [f for f in result.findings if f.code == "UNIT"]
    assert [(f.name, f.row_label) for f in units] == [("Price", "paper")]
    assert units[0].message == f"column mixes units: $ and {needle}"
    assert src[units[0].span[0]:units[0].span[1]].strip() == paper.strip()
    assert not any(f.code == "STALE" for f in result.findings)
    notes = [f.message for f in result.findings if f.code == "NOTE"]
    assert notes and all("(upstream UNIT errors)" in n for n in notes)


def test_stale_decorated_cell_reports_the_decorated_text() -> None:
    src = ORDER.format(paper="$4.00").replace("$16.50", " $9.99")
    stale = [f for f in check(build(src)).findings if f.code == "STALE" and f.is_cell]
    assert [(f.stored, f.computed) for f in stale] == [("$9.99", "$16.50")]


def test_suffix_decorations_and_percent_cells() -> None:
    newtons = ("| Beam | Force |  Span |\n|------|------:|------:|\n| A    |  12 N | 3.0 m |\n\n"
               "```vmark #beam\npeak = SUM(Force)\n```\n\nPeak: **12**<!--vmark=beam.peak-->\n")
    assert check(build(newtons)).findings == []
    metres = ("| Beam | Span  | Times |  Total |\n|------|------:|------:|-------:|\n| A    | 3.5 m |     2 |  7.0 m |\n\n"
              "```vmark #b\nTotal = Span * Times\n```\n")
    result = check(build(metres))
    assert result.findings == [] and result.precision["b.Total"] == 1
    pct = "| Row | Share | Amount |\n|-----|------:|-------:|\n| a   |   30% |  30.00 |\n\n```vmark #s\nAmount = Share * 100\n```\n"
    assert check(build(pct)).findings == []


@pytest.mark.parametrize("text,number", [("25 to 39", False), ("55 and over", False), ("Under 25", True),
                                         ("12 m^2", True), ("50 1/s", True), ("5 pcs.", True), ("384 vCPU", True)])
def test_words_after_a_number_are_a_label_not_a_unit(text: str, number: bool) -> None:
    from markmcp.visimark.values import CellNumber, parse_cell_number

    assert isinstance(parse_cell_number(text), CellNumber) is number


HEADER = "| Weight [kg] | Count |\n|---:|---:|\n| 2 | 4 |\n\n"


@pytest.mark.parametrize("line,name", [('"Weight [kg]" is w', "w"), ('"Weight [kg]" = Count * 2', "Weight [kg]")])
def test_full_header_text_gets_the_unit_hint_not_a_suggestion(line: str, name: str) -> None:
    (f,) = [f for f in check(build(HEADER + f"```vmark #s\n{line}\n```\n")).findings if f.code == "UNDEF"]
    assert (f.name, f.hint, f.suggestion) == (name, "the header's name is Weight; [kg] is its unit", None)


@pytest.mark.parametrize("src,code,message", [
    ("| Weight | Weight [kg] |\n|---:|---:|\n| 1 | 2 |\n\n```vmark #s\nn = SUM(Weight)\n```\n", "DUP", None),
    ("| Revenue [1] |\n|---:|\n| 1 |\n\n```vmark #s\nn = SUM(Revenue)\n```\n", "UNIT", "[1] declares no unit"),
    ("```vmark\nx [N m] = 1\n```\n", "UNIT", "[N m] is not a unit — write a product as N⋅m"),
    ("| Qty | Net |\n|---:|---:|\n| 2 | 4 |\n\n```vmark #s\nNet [PLN] = Qty * 2\n```\n", "UNIT",
     "Net's unit is declared on its header, not on its rule"),
    ("```vmark\nx = a [PLN]\n```\n", "UNIT", "a unit can be written only on a number literal"),
    ("```vmark #s\n[J] = [N⋅m]\n```\n", "SHEET", "a unit definition belongs in a document-scope block"),
    ("```vmark\n[J] = [N⋅m]\n[J] = [N⋅m]\n```\n", "DUP", "[J] is already defined at line 2"),
    ("```vmark\n[x] = [1]\n```\n", "UNIT", "a unit cannot be defined as dimensionless"),
])
def test_declaration_findings(src: str, code: str, message: str | None) -> None:
    found = [(f.code, f.message) for f in check(build(src)).findings]
    assert any(c == code and (message is None or m == message) for c, m in found), found


def test_each_definition_cycle_is_reported_once() -> None:
    src = "```vmark\n[a] = [b]\n[b] = [a]\n[c] = [c⋅m]\n```\n"
    assert [f.cycle_path for f in check(build(src)).findings if f.code == "CYCLE"] == [
        ["[a]", "[b]", "[a]"], ["[c]", "[c]"]]


def test_a_non_identifier_stem_is_reached_through_its_alias() -> None:
    src = ("| Worker cost [USD/node/month] | Workers [node] |\n|---:|---:|\n| 250 | 48 |\n| 250 | 2 |\n\n"
           "```vmark #s\n\"Worker cost\" is wc\nMonthly = wc * Workers\n```\n")
    src = src.replace("| Workers [node] |\n|---:|---:|", "| Workers [node] | Monthly [USD/month] |\n|---:|---:|---:|")
    src = src.replace("| 250 | 48 |", "| 250 | 48 | 12000 |").replace("| 250 | 2 |", "| 250 | 2 | 500 |")
    assert [f for f in check(build(src)).findings if f.is_problem] == []


def test_unit_conflict_block_matches_the_tutorial_layout() -> None:
    from markmcp.visimark.report import format_check

    src = ("| Item | Price | Qty | Net |\n|---|---:|---:|---:|\n| a | $5.50 | 3 | $16.50 |\n| b | €4.00 | 2 | $8.00 |\n\n"
           "```vmark #s\nNet = Price * Qty\n```\n")
    lines = format_check("u.md", check(build(src)).findings).split("\n")
    assert lines[2:4] == ['  UNIT    s.Price         · b                     "€4.00"',
                          "          column mixes units: $ and €"]
