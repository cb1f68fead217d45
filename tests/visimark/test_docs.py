"""Our shipped VisiMark documentation: the generated function reference does not drift,
the worked invoice is clean, and its drifted twin's appendix is the exact `check` report."""

from __future__ import annotations

import re
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest

from markmcp.visimark import docs
from markmcp.visimark.builtins import REGISTRY
from markmcp.visimark.check import check
from markmcp.visimark.cli import FLAGS, VALUED
from markmcp.visimark.display import RULES
from markmcp.visimark.findings import ADVICE_CODES, ERROR_CODES
from markmcp.visimark.model import build
from markmcp.visimark.reference import function_reference
from markmcp.visimark.report import format_check
from markmcp.visimark.write import fmt

DRIFT_COMMAND = "$ visimark check example-invoice-drift.md"


def test_shipped_files() -> None:
    assert docs.doc_names() == sorted([docs.SKILL, docs.CLI_REFERENCE, docs.FUNCTION_REFERENCE,
                                       docs.EXAMPLE, docs.EXAMPLE_DRIFT, docs.SERVED_SKILL, docs.SERVED_RUNNING])
    with pytest.raises(docs.DocsError):
        docs.doc_text("../pyproject.toml")


def test_function_reference_is_generated_from_the_registry() -> None:
    assert docs.doc_text(docs.FUNCTION_REFERENCE) == function_reference(), (
        "regenerate: python -c 'from markmcp.visimark.reference import function_reference as f; "
        "open(\"src/markmcp/visimark/docs/function-reference.md\", \"w\").write(f())'")


def test_function_reference_generation_follows_the_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    from dataclasses import replace

    from markmcp.visimark import builtins

    changed = dict(builtins.REGISTRY)
    changed["SUM"] = replace(changed["SUM"], summary="a reworded meaning")
    monkeypatch.setattr("markmcp.visimark.reference.REGISTRY", changed)
    assert "a reworded meaning" in function_reference()
    assert function_reference() != docs.doc_text(docs.FUNCTION_REFERENCE)


def test_invoice_is_clean_and_fmt_stable() -> None:
    src = docs.doc_text(docs.EXAMPLE)
    result = check(build(src))
    assert result.findings == []
    assert result.exit_code == 0
    v = result.values
    assert (v["order.subtotal"], v["order.tax_total"], v["order.due"]) == (
        Decimal("9230.00"), Decimal("1938.30"), Decimal("11168.30"))
    assert v["extras.late_fee"] == Decimal("167.52")
    assert v["extras.in_usd"] == Decimal("12139.94")
    assert v["balance.unplanned"] == 0
    assert [a.holds for a in result.assertions] == [True]
    once = fmt(src)
    assert once.output == src and not once.changed


def drift_transcript(src: str) -> str:
    start = src.index(DRIFT_COMMAND + "\n") + len(DRIFT_COMMAND) + 1
    return src[start:src.index("\n```", start)]


def test_drift_check_equals_its_appendix_byte_for_byte() -> None:
    src = docs.doc_text(docs.EXAMPLE_DRIFT)
    result = check(build(src))
    assert result.exit_code == 1
    assert format_check("example-invoice-drift.md", result.findings) == drift_transcript(src)


def test_drift_fmt_repairs_every_stale_value_and_keeps_the_errors() -> None:
    src = docs.doc_text(docs.EXAMPLE_DRIFT)
    before = check(build(src))
    out = fmt(src)
    assert out.changed
    after = check(build(out.output))
    assert not any(f.code == "STALE" for f in after.findings)
    assert sorted(f.code for f in after.findings if f.is_problem) == ["CYCLE", "DATE", "DATE", "UNDEF", "VECTOR"]
    assert sorted(f.code for f in before.findings if f.is_problem and f.code != "STALE") == [
        "CYCLE", "DATE", "DATE", "UNDEF", "VECTOR"]
    assert after.exit_code == 1
    assert "**11277.20 EUR**<!--vmark=order.due|unit-->" in out.output
    assert "|       70.00 |   1260.00 |    264.60 |     1524.60 |" in out.output
    assert "|    499.80 |" in out.output
    assert fmt(out.output).output == out.output


def test_drift_fix_dates_rewrites_only_the_unambiguous_date() -> None:
    src = docs.doc_text(docs.EXAMPLE_DRIFT)
    fixed = fmt(src, fix_dates=True).output
    plain = fmt(src).output
    # the fixed date also lets its row's Days cell be verified, and so recomputed
    assert fixed == plain.replace("| 15.12.2026 |   43 |", "| 2026-12-15 |   57 |", 1)
    assert "03/11/2026" in fixed


@pytest.mark.parametrize("name", [docs.SKILL, docs.CLI_REFERENCE, docs.FUNCTION_REFERENCE, docs.SERVED_SKILL])
def test_reference_documents_check_clean(name: str) -> None:
    result = check(build(docs.doc_text(name)))
    assert [f for f in result.findings if f.is_problem] == []


def test_cli_reference_covers_every_command_option_and_code() -> None:
    text = docs.doc_text(docs.CLI_REFERENCE)
    for command in FLAGS:
        assert f"`visimark {command}" in text
    for options in list(FLAGS.values()) + list(VALUED.values()):
        for option in options:
            assert f"`{option}" in text
    listed = set(re.findall(r"^\| `([A-Z]+)` \| (?:problem|advice) \|", text, re.M))
    assert listed == ERROR_CODES | ADVICE_CODES | {"STALE"}


def test_skill_names_every_display_rule_and_the_function_count() -> None:
    text = docs.doc_text(docs.SKILL)
    for rule in RULES:
        assert f"`|{rule}`" in text
    assert len(REGISTRY) == 16 and "sixteen functions" in text


def test_docs_ship_in_the_wheel_metadata() -> None:
    pyproject = (Path(__file__).resolve().parents[2] / "pyproject.toml").read_text(encoding="utf-8")
    assert '"*" = ["*.md"' in pyproject  # package data picks up docs/*.md (docs is a package)


def test_cli_runs_on_the_shipped_invoice(tmp_path: Path) -> None:
    doc = tmp_path / "example-invoice.md"
    doc.write_text(docs.doc_text(docs.EXAMPLE), encoding="utf-8")
    p = subprocess.run([sys.executable, "-m", "markmcp.visimark.cli", "check", str(doc)],
                       capture_output=True, text=True, encoding="utf-8")
    assert p.returncode == 0 and p.stdout.endswith("0 problems (0 stale, 0 errors)\n")


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_every_reference_example_evaluates_to_what_it_states(name: str) -> None:
    from markmcp.visimark.builtins import SAMPLE

    b = REGISTRY[name]
    assert b.examples, f"{name} has no example"
    lines = [f"e{i} = {expr}" for i, (expr, _) in enumerate(b.examples)]
    result = check(build(SAMPLE + "\n```vmark #x\n" + "\n".join(lines) + "\n```\n"))
    assert [f for f in result.findings if f.is_problem] == []
    from markmcp.visimark.envelopes import eval_values

    values = eval_values(result)
    assert [values[f"x.e{i}"] for i in range(len(b.examples))] == [value for _, value in b.examples]


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_reference_entries_are_complete(name: str) -> None:
    from markmcp.visimark.findings import ERROR_CODES

    b = REGISTRY[name]
    assert b.summary and b.summary == b.summary.rstrip(".") and b.summary[0].islower() or b.summary[0] == "`"
    assert all(code in ERROR_CODES for _, code in b.errors)
    assert all(when[0].islower() and not when.endswith(".") for when, _ in b.errors)
    assert all(other in REGISTRY for other in b.see)


def test_skill_report_excerpt_is_real_output() -> None:
    skill = docs.doc_text(docs.SKILL)
    start = skill.index("## Reading a report")
    block = skill[skill.index("```text\n", start) + 8:skill.index("\n```", start + 30)]
    transcript = drift_transcript(docs.doc_text(docs.EXAMPLE_DRIFT))
    for line in block.split("\n"):
        assert line in transcript.split("\n"), line


def test_served_skill_generation_fails_loudly_when_the_skill_drifts(monkeypatch: pytest.MonkeyPatch) -> None:
    """The served skill is derived from SKILL.md; a SKILL.md edit that removes a sentence the
    server version rewrites stops generation (the fix is one line in SERVED_REPLACEMENTS)."""
    original = docs.doc_text

    def edited(name: str) -> str:
        text = original(name)
        return text.replace("`visimark check` recomputes everything", "check recomputes everything") \
            if name == docs.SKILL else text

    monkeypatch.setattr(docs, "doc_text", edited)
    with pytest.raises(docs.DocsError, match="SERVED_REPLACEMENTS"):
        docs.served_skill()
