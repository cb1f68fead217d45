"""Param domains (#241): the clause grammar, membership, document findings, scenarios."""

from __future__ import annotations

import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest

from conftest import shared_dir
from markmcp.visimark.check import check
from markmcp.visimark.domain import DomainSyntaxError, domain_fault, in_domain, is_empty, parse_clause
from markmcp.visimark.model import build
from markmcp.visimark.write import fmt


def findings(block: str) -> list[tuple[str, str, str]]:
    result = check(build(f"```vmark #levers\n{block}\n```\n"))
    return [(f.code, f.ident, f.message or "") for f in result.findings if f.code != "WARN"]


def test_levers_fixture_has_no_domain_or_assert_finding() -> None:
    src = (shared_dir("visimark", "fixtures", "domain") / "levers.md").read_text(encoding="utf-8")
    result = check(build(src))
    assert [f for f in result.findings if f.is_problem] == []
    assert result.exit_code == 0
    assert result.values["levers.prepay_share"] == Decimal("0.30")
    assert fmt(src).output == src


@pytest.mark.parametrize("text,preset,domain", [
    ("integer in [0, 80]", "integer", "[0, 80]"),
    ("in { 30%, 40%, 45%, 50% }", None, "{ 30%, 40%, 45%, 50% }"),
    ("natural in [0, 8)", "natural", "[0, 8)"),
    ("ℕ in [0, 12]", "natural", "[0, 12]"),
    ("positive integer", "positive integer", None),
    ("ℤ⁺", "positive integer", None),
    ("∈ [0%, 15%]", None, "[0%, 15%]"),
    ("ℤ in [-5, 5]", "integer", "[-5, 5]"),
    ("in (, 40]", None, "(, 40]"),
    ("positive in [0, )", "positive", "[0, )"),
    ("in { }", None, "{ }"),
])
def test_clause_grammar(text: str, preset: str | None, domain: str | None) -> None:
    c = parse_clause(text)
    assert c.preset == preset
    assert (c.domain.text if c.domain else None) == domain


@pytest.mark.parametrize("text,message", [
    ("in [0,]", "malformed param domain clause"),
    ("in [,]", "malformed param domain clause"),
    ("in", "malformed param domain clause"),
    ("in [0, 1", "malformed param domain clause"),
    ("whole in [0, 1]", "unrecognised param domain preset `whole`"),
    ("in [0, x]", "a param domain bound must be a number literal"),
    ("in { 1, 2026-01-01 }", "a param domain bound must be a number literal"),
])
def test_clause_refusals(text: str, message: str) -> None:
    with pytest.raises(DomainSyntaxError) as e:
        parse_clause(text)
    assert e.value.message == message


@pytest.mark.parametrize("clause,value,member", [
    ("in [0, 80]", "40", True), ("in [0, 80]", "0", True), ("in [0, 80]", "80", True),
    ("in [0, 80]", "-1", False), ("in [0, 80]", "81", False),
    ("in [0, 40)", "40", False), ("in [0, 40)", "39", True),
    ("in (, 40]", "-1000000", True),
    ("in { 30%, 40%, 45%, 50% }", "0.40", True), ("in { 30%, 40%, 45%, 50% }", "0.35", False),
    ("integer", "-3", True), ("integer", "2.5", False),
    ("integer in [0, 80]", "40.5", False), ("integer in [0, 80]", "81", False),
    ("natural", "0", True), ("natural", "-1", False),
    ("positive integer", "0", False), ("positive integer", "1", True),
    ("positive", "0.001", True), ("positive", "0", False),
])
def test_membership_table(clause: str, value: str, member: bool) -> None:
    assert in_domain(parse_clause(clause), Decimal(value)) is member


@pytest.mark.parametrize("clause", ["integer in [0.2, 0.8]", "in [10, 0]", "in { }", "in [1, 1)",
                                    "positive integer in [-5, 0]"])
def test_empty_domains(clause: str) -> None:
    assert is_empty(parse_clause(clause))


def test_non_empty_domains() -> None:
    assert not is_empty(parse_clause("integer in [0.2, 1.8]"))
    assert not is_empty(parse_clause("in [1, 1]"))


def test_document_findings() -> None:
    assert findings("param x precision 0 integer in [0.2, 0.8] = default 0") == [
        ("DOMAIN", "levers.x", "param x declares an empty domain: integer in [0.2, 0.8] has no legal value")]
    assert findings("param x precision 0 in [10, 0] = default 0") == [
        ("DOMAIN", "levers.x", "param x declares an empty domain: [10, 0] has no legal value")]
    assert findings("param extra_hours precision 0 integer in [0, 80] = default 100") == [
        ("DOMAIN", "levers.extra_hours", "default 100 is not in the domain of extra_hours: integer in [0, 80]")]
    assert findings("param prepay_share precision 2 in { 30%, 40% } = default 35%") == [
        ("DOMAIN", "levers.prepay_share", "default 35% is not in the domain of prepay_share: { 30%, 40% }")]
    assert findings("param prepay_share precision 2 in { 33.33%, 40% } = default 40%") == [
        ("PRECISION", "levers.prepay_share", "domain value 33.33% has 4 decimals; param prepay_share declares 2")]
    assert findings("param prepay_share precision 2 in { 30%, 40 } = default 30%") == [
        ("TYPE", "levers.prepay_share", "prepay_share is a percent; domain value 40 must be too")]
    assert findings("param x precision 0 whole = default 1") == [
        ("TYPE", "levers.x", "unrecognised param domain preset `whole`")]
    assert findings("param x precision 0 in [0,] = default 1") == [
        ("TYPE", "levers.x", "malformed param domain clause")]


def test_param_width_findings() -> None:
    assert findings("param tax precision 2 = default 12.5%\nx = tax") == [
        ("PRECISION", "levers.tax", "default 12.5% has 3 decimals; param tax declares 2")]
    assert findings("param b precision 0 = default 2.00\nx precision 0 = b") == []  # trailing zeros
    result = check(build("```vmark #s\nparam tax = default 19%\nnet precision 2 = 100 * tax\nassert net > 0\n```\n"))
    (f,) = [f for f in result.findings if f.is_problem]
    assert (f.code, f.message, f.suggestion) == ("PRECISION", "param tax declares no width",
                                                 "param tax precision N = default …")
    assert "s.net" not in result.values and result.assertions[0].holds is None
    assert findings("param x precision 0 in { } = default 0") == [
        ("DOMAIN", "levers.x", "param x declares an empty domain: {} has no legal value")]
    assert findings("param x precision 1 integer in [0.2, 0.8] = default 0.5")[0][0] == "DOMAIN"


def test_a_broken_param_suppresses_its_dependants() -> None:
    got = findings("param x precision 0 in [0, 5] = default 9\ny precision 0 = x + 1\nassert y > 0")
    assert got[0][0] == "DOMAIN"
    assert not any(code in ("ASSERT", "TYPE", "UNDEF") for code, _, _ in got)


@pytest.mark.parametrize("clause,value,message", [
    ("in [30%, 60%]", "0.70", "is not in [30%, 60%]"),
    ("in { 30%, 40%, 45%, 50% }", "0.35", "is not in { 30%, 40%, 45%, 50% }"),
    ("in { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14 }", "15", "is not among the 14 legal values"),
    ("natural", "-3", "is not a non-negative integer"),
    ("positive integer", "0", "is not a positive integer"),
    ("integer", "2.5", "is not an integer"),
    ("positive", "-0.01", "is not positive"),
])
def test_scenario_fault_wording(clause: str, value: str, message: str) -> None:
    assert domain_fault(parse_clause(clause), Decimal(value)) == message


DOC = """```vmark #plan
param budget precision 2 in [0, {hi}] = default 0.30
spend precision 2 = budget * 1000
assert budget <= 0.35
```

Spend **300.00**<!--vmark=plan.spend-->.
"""


def eval_with(tmp_path: Path, hi: str) -> subprocess.CompletedProcess:
    doc = tmp_path / "plan.md"
    doc.write_text(DOC.replace("{hi}", hi), encoding="utf-8")
    scenario = shared_dir("visimark", "fixtures", "scenario") / "tight.json"
    return subprocess.run([sys.executable, "-m", "markmcp.visimark.cli", "eval", str(doc), "--scenario",
                           str(scenario)], capture_output=True, text=True, encoding="utf-8")


def test_tight_scenario_inside_the_domain_breaks_the_assertion(tmp_path: Path) -> None:
    p = eval_with(tmp_path, "0.50")
    assert p.returncode == 1
    assert "plan.spend   400" in p.stdout
    assert "0.40 <= 0.35" in p.stdout + p.stderr


def test_tight_scenario_outside_the_domain_is_refused(tmp_path: Path) -> None:
    p = eval_with(tmp_path, "0.35")
    assert p.returncode == 2
    assert p.stderr.strip() == "visimark: scenario value for budget is not in [0, 0.35]: 0.40"


def test_a_lattice_is_parsed_and_the_param_evaluates_at_its_default() -> None:
    assert parse_clause("in [1.00, 5.00] lattice 0.50").lattice == "0.50"
    assert parse_clause("integer in [0, 80] lattice 20").domain.text == "[0, 80]"
    result = check(build("```vmark #s\nparam p precision 2 in [1.00, 5.00] lattice 0.50 = default 3.00\n"
                         "q precision 2 = p * 2\n```\n\nQ **6.00**<!--vmark=s.q-->\n"))
    assert [f for f in result.findings if f.is_problem] == []
    assert result.values["s.q"] == Decimal("6.00")


@pytest.mark.parametrize("body,lines", [
    ("param raise = default 3%\nx precision 3 = raise * 2",
     ["  PRECISION s.raise           param raise declares no width",
      "            write `param raise precision N = default …`"]),
    ("param raise precision 1 = default 3%\nx precision 3 = raise * 2",
     ["  PRECISION s.raise           default 3% has 2 decimals; param raise declares 1"]),
    ("param raise precision 3 = 3%", ["  TYPE    s.raise           expected `default` after `=` in a param"]),
    ("param raise precision 3 = default 1 + 2", ["  TYPE    s.raise           a param default must be a number literal"]),
])
def test_param_mistakes_print_as_the_tutorial_shows(body: str, lines: list[str]) -> None:
    from markmcp.visimark.report import format_check

    text = format_check("p.md", check(build(f"```vmark #s\n{body}\n```\n")).findings)
    assert text.split("\n")[2:2 + len(lines)] == lines
