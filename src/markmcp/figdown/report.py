"""What a check says: diagnostics as data, the report of each document, the tally, and
their human-readable text.

Shared by both edges (``figdown`` and ``figdown-mcp``); neither edge imports the other.
The data (JSON output, ``structuredContent``) keeps every label and message exact; the
text escapes the control characters a document or a file name brings with it
(:func:`markmcp.textsafe.escape_controls`), so a planted ``ESC [`` or newline cannot
recolour the terminal or forge a line of the report.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from markmcp.figdown import ParseResult, parse
from markmcp.mcpcore.files import FileAccessError
from markmcp.textsafe import escape_controls


def diagnostics(result: ParseResult) -> list[dict[str, Any]]:
    """The result's diagnostics as ``{"line", "column", "message"}``, in line order."""
    items = sorted(result.diagnostics, key=lambda d: (d.line, d.col or 0, d.message))
    return [{"line": d.line, "column": d.col, "message": d.message} for d in items]


def diagnostic_lines(items: Iterable[dict[str, Any]]) -> list[str]:
    """The engine's ``Line N: message`` text of each diagnostic (control characters escaped)."""
    return [f"Line {d['line']}: {escape_controls(d['message'])}" for d in items]


def parse_failed(label: str, items: list[dict[str, Any]]) -> str:
    """The report of a document that does not parse: a headline, then the diagnostics verbatim
    (control characters escaped)."""
    head = f"PARSE FAILED — {len(items)} diagnostic(s) in {escape_controls(label)}"
    return "\n".join([head, *diagnostic_lines(items)])


def not_read(label: str, problem: dict[str, str]) -> str:
    """The report of a document a check found but did not read, and why."""
    return f"NOT READ — {escape_controls(label)}\n{escape_controls(problem['message'])}"


def check_report(label: str, text: str) -> dict[str, Any]:
    """``{"label", "ok", "diagnostics"}`` for one document."""
    items = diagnostics(parse(text))
    return {"label": label, "ok": not items, "diagnostics": items}


def unread_report(label: str, problem: FileAccessError) -> dict[str, Any]:
    """The report of a document that was found but not read: ``ok`` false, no diagnostics,
    and ``problem`` (``code`` from :data:`markmcp.mcpcore.files.CODES`, ``message``)."""
    return {"label": label, "ok": False, "diagnostics": [],
            "problem": {"code": problem.code, "message": problem.message}}


def tally(reports: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The summary of a check run: counts plus the per-document reports.

    ``checked`` counts every document found (compare it with ``find DIR -name '*.fd'``);
    each is ``clean``, ``withDiagnostics`` or ``unreadable`` (found but not read).
    """
    unreadable = sum(1 for report in reports if "problem" in report)
    failing = sum(1 for report in reports if not report["ok"] and "problem" not in report)
    return {
        "ok": failing + unreadable == 0,
        "checked": len(reports),
        "clean": len(reports) - failing - unreadable,
        "withDiagnostics": failing,
        "unreadable": unreadable,
        "documents": list(reports),
    }


def tally_line(summary: dict[str, Any]) -> str:
    line = (
        f"checked {summary['checked']} document(s), {summary['clean']} clean, "
        f"{summary['withDiagnostics']} with diagnostics"
    )
    if summary["unreadable"]:
        line += f", {summary['unreadable']} not read"
    return line


def failing_blocks(summary: dict[str, Any]) -> list[str]:
    """One text block per document that is not clean, in the order they were found."""
    return [
        not_read(report["label"], report["problem"]) if "problem" in report
        else parse_failed(report["label"], report["diagnostics"])
        for report in summary["documents"] if not report["ok"]
    ]
