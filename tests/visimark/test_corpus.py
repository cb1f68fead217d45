"""Every corpus document and fixture gives the outcome EXPECTED.md documents.

Every document of the corpus is listed in exactly one of CLEAN and OUTCOMES (a test
checks that nothing is left out).
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from conftest import shared_dir
from markmcp.visimark.check import CheckResult, check
from markmcp.visimark.disk import DocumentFolder
from markmcp.visimark.model import build
from markmcp.visimark.report import format_check
from markmcp.visimark.write import fmt

CLEAN = [
    "docs/example-invoice.md",
    "docs/example-bandwidth.md",
    "docs/example-structural-check.md",
    "docs/example-pricing-policy.md",
    "fixtures/ceiling-nodes.md",
    "fixtures/floor-nodes.md",
    "fixtures/pmt-press.md",
    "fixtures/prose-notation.md",
    "fixtures/display-rule-percent.md",
    "fixtures/display-rule-unit.md",
    "fixtures/decoration-unit-spelling.md",
    "fixtures/column-alias-unused.md",
    "fixtures/display-rule-nbsp.md",
    "fixtures/domain/levers.md",
    "docs/example-charts.md",
    "docs/example-invoice-csv-import.md",
    "fixtures/import/benchmark.md",
    "fixtures/import/benchmark-headerless.md",
    "fixtures/simulation/among.md",
    "fixtures/simulation/simulate.md",
    "fixtures/bakeoff-price-only/bakeoff.md",
]
# (document, codes that must appear, exit code)
OUTCOMES = [
    ("docs/example-quote-plain.md", ["COVERAGE"], 1),
    ("docs/example-ci-sharding.md", ["PRECISION"], 1),
    ("fixtures/sqrt-braces.md", ["PRECISION"], 1),
    ("fixtures/assert-fail.md", ["ASSERT"], 1),
    ("fixtures/irr-press.md", ["ANCHOR"], 1),
    ("fixtures/npv-press.md", ["ANCHOR"], 1),
    ("fixtures/percent-display-sigil.md", ["ANCHOR"], 1),
    ("docs/example-executable-documentation.md", ["ANCHOR"], 1),
    ("fixtures/column-alias-dup-header.md", ["DUP"], 1),
    ("fixtures/column-alias-dup-target.md", ["DUP"], 1),
    ("fixtures/column-alias-undef.md", ["UNDEF"], 1),
    ("fixtures/display-rule-errors.md", ["ANCHOR", "TYPE"], 1),
    ("fixtures/display-rule-nbsp-errors.md", ["ANCHOR", "TYPE"], 1),
    ("fixtures/display-rule-unit-errors.md", ["ANCHOR", "TYPE"], 1),
    ("fixtures/anchor-placeholder-acceptance.md", ["ANCHOR", "STALE"], 1),
    ("fixtures/chart-fail.md", ["ARTIFACT"], 1),
    ("docs/example-invoice-drift.md", ["STALE", "DATE", "UNDEF", "VECTOR", "CYCLE"], 1),
    ("fixtures/column-alias-quoted-string-header.md", ["COVERAGE"], 1),
    # copies older than the `among` clause (required on `best` and `deltas` since #351):
    # a bare `report deltas` now fails with the deltas synopsis, as the among spec says
    ("fixtures/simulation/bare-deltas.md", ["TYPE"], 1),
    ("fixtures/simulation/levers.md", ["TYPE"], 1),
]


def path_of(rel: str):
    parts = rel.split("/")
    return shared_dir("visimark", *parts[:-1]) / parts[-1]


def read(rel: str) -> str:
    return path_of(rel).read_bytes().decode("utf-8")


def check_doc(rel: str) -> CheckResult:
    """Check a corpus document with its folder (charts, imports) as the user's CLI would."""
    return check(build(read(rel)), DocumentFolder(path_of(rel)))


@pytest.mark.parametrize("rel", CLEAN)
def test_clean_and_fmt_stable(rel: str) -> None:
    src = read(rel)
    result = check_doc(rel)
    assert [f for f in result.findings if f.is_problem] == [], format_check(rel, result.findings)
    assert result.exit_code == 0
    # nothing to write: the corpus folder is read-only, so a write attempt would show
    again = fmt(src, files=DocumentFolder(path_of(rel)))
    assert (again.output, again.artifacts, again.artifacts_skipped, again.write_error) == (src, [], 0, None)


def test_a_fixture_older_than_declared_precision_is_clean_and_fmt_writes_the_width() -> None:
    """eomonth-terms.md was written before declared precision: gross_total now derives 4 places,
    and its anchor's 20073.60 is that number (check compares numbers, not spellings, as upstream's
    engine does), so it is clean, and fmt writes the width, 20073.6000."""
    rel = "fixtures/eomonth-terms.md"
    assert [f for f in check_doc(rel).findings if f.is_problem] == []
    out = fmt(read(rel), files=DocumentFolder(path_of(rel)))
    assert out.output == read(rel).replace("**20073.60**", "**20073.6000**")


@pytest.mark.parametrize("rel,codes,exit_code", OUTCOMES)
def test_documented_outcome(rel: str, codes: list[str], exit_code: int) -> None:
    result = check_doc(rel)
    seen = {f.code for f in result.findings}
    assert set(codes) <= seen, format_check(rel, result.findings)
    assert result.exit_code == exit_code


# EXPECTED.md: "exactly one finding" (advice included)
EXACTLY = [
    ("docs/example-quote-plain.md", "COVERAGE"),
    ("fixtures/column-alias-undef.md", "UNDEF"),
    ("fixtures/column-alias-unused.md", "WARN"),
]


@pytest.mark.parametrize("rel,code", EXACTLY)
def test_exactly_one_finding(rel: str, code: str) -> None:
    result = check_doc(rel)
    assert [f.code for f in result.findings] == [code], format_check(rel, result.findings)


def test_undef_alias_names_the_raw_header_and_the_near_miss() -> None:
    result = check(build(read("fixtures/column-alias-undef.md")))
    (finding,) = result.findings
    assert (finding.sheet, finding.name) == ("network", "bpu")
    text = format_check("x.md", result.findings)
    assert "Bandwidth per Unyt (TB/s)" in text and "Bandwidth per Unit (TB/s, full-duplex)" in text


def test_assert_fail_substitution() -> None:
    result = check(build(read("fixtures/assert-fail.md")))
    (finding,) = [f for f in result.findings if f.code == "ASSERT"]
    assert finding.message.startswith("0.90 == 1")
    assert format_check("a.md", result.findings).endswith("1 problem (0 stale, 1 error)")


def test_documented_values() -> None:
    v = check(build(read("docs/example-structural-check.md"))).values
    assert v["loads.total"] == Decimal("50.0")
    assert v["joist.w_plf"] == Decimal("66.67")
    assert v["span.Mallow"] == Decimal("1559.69")
    assert v["span.Lmax_ft"] == Decimal("13.68")
    v = check(build(read("fixtures/eomonth-terms.md"))).values
    assert v["terms.due"].isoformat() == "2026-03-31"
    v = check(build(read("fixtures/prose-notation.md"))).values
    assert {k.split(".")[-1]: str(x) for k, x in v.items() if k.split(".")[-1] in ("fl", "ce", "fln", "rt")} == {
        "fl": "7", "ce": "8", "fln": "-8", "rt": "4"}
    v = check(build(read("docs/example-bandwidth.md"))).values
    assert v["network.peak"] == Decimal(400)


def test_display_rule_unit_drift() -> None:
    src = read("fixtures/display-rule-unit.md").replace("23300 [PLN]", "24000 [PLN]")
    result = check(build(src))
    text = format_check("d.md", result.findings)
    assert "STALE   s.total" in text and "23300.00 PLN ≠ 24000.00 PLN" in text
    assert text.endswith("2 problems (2 stale, 0 errors)")
    assert fmt(src).anchors_updated == 1


def test_structural_check_mutations() -> None:
    src = read("docs/example-structural-check.md")
    spaced = check(build(src.replace("spacing_in [in] = 16", "spacing_in [in] = 1.6", 1)))
    stale = [(f.ident, f.stored, f.computed) for f in spaced.findings if f.code == "STALE" and not f.anchor_group]
    assert stale == [("joist.w_plf", "66.67", "6.67"), ("span.Lmax_ft", "13.68", "43.25")]
    assert format_check("deck.md", spaced.findings).endswith(
        "  STALE   2 prose anchors bound to the values above\n\n  4 problems (4 stale, 0 errors)")
    dropped = src.replace("loads.total * spacing_in / 12 [in/ft]", "loads.total * spacing_in", 1)
    text = format_check("deck.md", check(build(dropped)).findings)
    assert "  UNIT    joist.w_plf       w_plf declares lb/ft but its formula derives in⋅psf" in text.split("\n")
    assert text.endswith("1 problem (0 stale, 1 error)")


def test_quoted_string_header_fixture_is_not_clean() -> None:
    """EXPECTED.md documents this fixture through `infer` (tests/visimark/test_infer.py);
    `check` must not pass it silently: a table with no `vmark` block is a COVERAGE problem."""
    result = check(build(read("fixtures/column-alias-quoted-string-header.md")))
    assert [f.code for f in result.findings] == ["COVERAGE"], format_check("x.md", result.findings)
    assert result.exit_code == 1


def test_every_corpus_document_has_an_expected_outcome() -> None:
    root = shared_dir("visimark")
    listed = set(CLEAN) | {rel for rel, _, _ in OUTCOMES} | {"fixtures/eomonth-terms.md"}  # its own test
    present = {p.relative_to(root).as_posix() for p in root.rglob("*.md") if p.name != "EXPECTED.md"}
    assert present == listed
