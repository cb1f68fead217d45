"""What a check says: diagnostics as data, the PARSE FAILED text and the tally.

Shared by both edges (``figdown`` and ``figdown-mcp``); neither edge imports the other.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from markmcp.figdown import ParseResult, parse


def diagnostics(result: ParseResult) -> list[dict[str, Any]]:
    """The result's diagnostics as ``{"line", "column", "message"}``, in line order."""
    items = sorted(result.diagnostics, key=lambda d: (d.line, d.col or 0, d.message))
    return [{"line": d.line, "column": d.col, "message": d.message} for d in items]


def diagnostic_lines(items: Iterable[dict[str, Any]]) -> list[str]:
    """The engine's ``Line N: message`` text of each diagnostic."""
    return [f"Line {d['line']}: {d['message']}" for d in items]


def parse_failed(label: str, items: list[dict[str, Any]]) -> str:
    """The report of a document that does not parse: a headline, then the diagnostics verbatim."""
    head = f"PARSE FAILED — {len(items)} diagnostic(s) in {label}"
    return "\n".join([head, *diagnostic_lines(items)])


def check_report(label: str, text: str) -> dict[str, Any]:
    """``{"label", "ok", "diagnostics"}`` for one document."""
    items = diagnostics(parse(text))
    return {"label": label, "ok": not items, "diagnostics": items}


def tally(reports: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The summary of a check run: counts plus the per-document reports."""
    failing = sum(1 for report in reports if not report["ok"])
    return {
        "ok": failing == 0,
        "checked": len(reports),
        "clean": len(reports) - failing,
        "withDiagnostics": failing,
        "documents": list(reports),
    }


def tally_line(summary: dict[str, Any]) -> str:
    return (
        f"checked {summary['checked']} document(s), {summary['clean']} clean, "
        f"{summary['withDiagnostics']} with diagnostics"
    )
