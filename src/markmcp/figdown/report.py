"""What a check says: diagnostics as data, the report of each document, the tally, and
their human-readable text.

Shared by both edges (``figdown`` and ``figdown-mcp``); neither edge imports the other.
Only :func:`findings` (and so :func:`check_report`) loads the renderer, when it draws.
The data (JSON output, ``structuredContent``) keeps every label and message exact; the
text escapes the control characters a document or a file name brings with it
(:func:`markmcp.textsafe.escape_controls`), so a planted ``ESC [`` or newline cannot
recolour the terminal or forge a line of the report.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from markmcp.figdown import ParseResult, parse
from markmcp.figdown.context import Diagnostic
from markmcp.mcpcore.files import FileAccessError
from markmcp import textsafe
from markmcp.textsafe import escape_controls


def diagnostics(result: ParseResult) -> list[dict[str, Any]]:
    """The result's diagnostics as ``{"line", "column", "message"}``, in line order."""
    return as_items(result.diagnostics)


def as_items(found: Iterable[Diagnostic]) -> list[dict[str, Any]]:
    """Diagnostics as ``{"line", "column", "message"}``, in line order."""
    items = sorted(found, key=lambda d: (d.line, d.col or 0, d.message))
    return [{"line": d.line, "column": d.col, "message": d.message} for d in items]


def findings(result: ParseResult) -> tuple[str | None, list[dict[str, Any]]]:
    """What stops a document from being drawn: ``("parse", items)`` when it does not
    parse, ``("geometry", items)`` when it parses but the drawing would state what the
    source does not (a pin covering a node, a band or lasso enclosing a non-member),
    ``(None, [])`` when it builds.  The geometry diagnostics are the drawing's own
    (:func:`markmcp.figdown.render.geometry`), found without writing its markup."""
    if result.diagnostics:
        return "parse", diagnostics(result)
    # the one place this module reaches the renderer: loaded by a check, never by a
    # report of diagnostics alone (``figdown read`` of a .fd, ``figdown_read``)
    from markmcp.figdown.render import geometry

    found = geometry(result)
    if found:
        return "geometry", as_items(found)
    return None, []


#: A diagnostic about a name that nothing declares (``unknown endpoint "r1"``,
#: ``unknown fragment "f" — …``), and the name.
_UNKNOWN = re.compile(r'unknown [a-z -]*?"([^"\n]+)"')


def hints(text: str, items: Sequence[dict[str, Any]]) -> list[str]:
    """Where a diagnostic says a name is unknown but a line that declares it failed, a
    hint to fix that line first (FigDown's engine registers no element from a line in
    error, so a mistake in ``node r1 …`` is reported again wherever ``r1`` is named;
    the diagnostics themselves stay the engine's, word for word)."""
    failed = {d["line"] for d in items}
    lines = text.split("\n")
    declared: dict[str, int] = {}
    for number, line in enumerate(lines, 1):
        if number not in failed:
            continue
        words = line.split()
        if len(words) >= 2 and words[0].isalpha():
            declared.setdefault(words[1], number)
    out = []
    for d in items:
        found = _UNKNOWN.search(d["message"])
        where = declared.get(found.group(1)) if found else None
        if where is not None and where != d["line"]:
            out.append(f'line {d["line"]} names "{found.group(1)}", which line {where} declares, but line '
                       f"{where} has a diagnostic of its own and declared nothing: fix line {where} first")
    return out


def hint_lines(found: Iterable[str]) -> list[str]:
    """The text of each hint (control characters escaped)."""
    return [f"hint: {escape_controls(h)}" for h in found]


def diagnostic_lines(items: Iterable[dict[str, Any]]) -> list[str]:
    """The engine's ``Line N: message`` text of each diagnostic (control characters escaped)."""
    return [f"Line {d['line']}: {escape_controls(d['message'])}" for d in items]


def parse_failed(label: str, items: list[dict[str, Any]], found_hints: Sequence[str] = ()) -> str:
    """The report of a document that does not parse: a headline, then the diagnostics verbatim
    (control characters escaped), then any :func:`hints`."""
    head = f"PARSE FAILED — {len(items)} diagnostic(s) in {escape_controls(label)}"
    return "\n".join([head, *diagnostic_lines(items), *hint_lines(found_hints)])


def figure_refused(label: str, items: list[dict[str, Any]]) -> str:
    """The report of a document that parses but whose drawing the renderer refuses: a
    headline, then the geometry diagnostics (control characters escaped)."""
    head = (f"FIGURE REFUSED — {len(items)} geometry diagnostic(s) in {escape_controls(label)} "
            "(it parses, but it cannot be drawn as written: the drawing would state what the source does "
            "not, or is past a size bound; nothing was drawn)")
    return "\n".join([head, *diagnostic_lines(items)])


def refusal(label: str, stage: str | None, items: list[dict[str, Any]], found_hints: Sequence[str] = ()) -> str:
    """:func:`parse_failed` (with its hints) or :func:`figure_refused`, by the stage that
    found ``items``."""
    return figure_refused(label, items) if stage == "geometry" else parse_failed(label, items, found_hints)


def not_read(label: str, problem: dict[str, str]) -> str:
    """The report of a document a check found but did not read, and why."""
    return textsafe.not_read(label, problem["message"])


def check_report(label: str, text: str) -> dict[str, Any]:
    """``{"label", "ok", "diagnostics"}`` for one document, plus ``"stage"`` (``parse``
    or ``geometry``) when it has diagnostics, and ``"hints"`` (:func:`hints`) when some
    help: a check parses AND makes the drawing's geometry checks, because a document
    the renderer refuses cannot be built either.

    A document with no header and nothing declared (empty, blank or only comments)
    parses clean, as FigDown's own engine has it, and draws a blank picture; its report
    says ``"empty": true`` so a file read wrong, or never written, is not taken for a
    finished figure."""
    result = parse(text)
    stage, items = findings(result)
    report: dict[str, Any] = {"label": label, "ok": not items, "diagnostics": items}
    if stage is not None:
        report["stage"] = stage
    found = hints(text, items) if stage == "parse" else []
    if found:
        report["hints"] = found
    if not items and is_empty(result):
        report["empty"] = True
    return report


def is_empty(result: ParseResult) -> bool:
    """No section of ``result`` has a header naming a genre: nothing was written."""
    return all("genre" not in model.get("header", {}) for model in result.models)


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
        "empty": sum(1 for report in reports if report.get("empty")),
        "documents": list(reports),
    }


def tally_line(summary: dict[str, Any]) -> str:
    clean = f"{summary['clean']} clean"
    if summary.get("empty"):
        clean += f" ({summary['empty']} of them empty)"
    line = f"checked {summary['checked']} document(s), {clean}, {summary['withDiagnostics']} with diagnostics"
    if summary["unreadable"]:
        line += f", {summary['unreadable']} not read"
    return line


EMPTY_NOTE = ("no header and nothing declared: it parses, and draws a blank picture. "
              "A figure starts with `figdown <version> <genre>`.")


def failing_blocks(summary: dict[str, Any]) -> list[str]:
    """One text block per document that is not clean, and one per empty document (clean,
    but worth a word), in the order they were found."""
    return [
        not_read(report["label"], report["problem"]) if "problem" in report
        else refusal(report["label"], report.get("stage"), report["diagnostics"], report.get("hints", ()))
        if not report["ok"]
        else f"EMPTY — {escape_controls(report['label'])}\n{EMPTY_NOTE}"
        for report in summary["documents"] if not report["ok"] or report.get("empty")
    ]
