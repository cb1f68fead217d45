"""Acceptance: the worked invoice is clean and the drifted twin reproduces its transcript."""

from __future__ import annotations

from decimal import Decimal

from markmcp.visimark.check import check
from markmcp.visimark.model import build
from markmcp.visimark.report import format_check
from conftest import shared_dir


def _read(*parts: str) -> str:
    path = shared_dir("visimark", *parts[:-1]) / parts[-1]
    return path.read_bytes().decode("utf-8")


def _transcript(src: str, command: str) -> str:
    """The console block in a document's appendix after the ``$ visimark …`` line."""
    start = src.index(command + "\n") + len(command) + 1
    return src[start : src.index("```", start)]


def test_invoice_is_clean() -> None:
    result = check(build(_read("docs", "example-invoice.md")))
    assert result.findings == []
    assert result.values["vat"] == Decimal("0.23")
    assert result.values["lines.gross_total"] == Decimal("28659")
    assert result.values["terms.early_pay_total"] == Decimal("28085.82")
    assert result.values["terms.eur_total"] == Decimal("6719.58")


def test_drift_transcript_byte_for_byte() -> None:
    src = _read("docs", "example-invoice-drift.md")
    expected = _transcript(src, "$ visimark check docs/example-invoice-drift.md")
    result = check(build(src))
    assert format_check("docs/example-invoice-drift.md", result.findings) + "\n" == expected
    assert result.exit_code == 1


def test_drift_rounding_lesson() -> None:
    result = check(build(_read("docs", "example-invoice-drift.md")))
    assert result.values["terms.early_pay_total"] == Decimal("30593.05")
    assert result.values["terms.early_pay_saved"] == Decimal("624.35")
