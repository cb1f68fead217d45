"""Reporters: the aligned text report of ``check`` and the public JSON findings.

The text layout is fixed column arithmetic: the code field is eight wide after two
spaces, the id field sixteen, stored values end at column 59 and computed values are
padded to eleven before the formula.
"""

from __future__ import annotations

from bisect import bisect_right

from .findings import ADVICE_CODES, Finding, count
from .locate import split_lines

CONTENT_COL = 10
ID_FIELD = 16
STORED_END = 49
COMPUTED_FIELD = 11
LABEL_FIELD = 22
CONT = " " * CONTENT_COL


def prefix(code: str) -> str:
    padded = code.ljust(8)
    return "  " + (code + " " if len(padded) == len(code) else padded)


def _label(f: Finding) -> str:
    if f.assertion_scoped:
        return f"#{f.sheet}" if f.sheet else ""
    return f.ident


def stale_line(f: Finding) -> str:
    if f.artifact is not None:
        # a file has no stored-against-computed pair: the message names it and the fix
        return prefix("STALE") + f.ident.ljust(ID_FIELD) + "  " + (f.message or "")
    if f.anchor_group:
        return prefix("STALE") + f"{f.suppressed_count} prose anchors bound to the values above"
    left = f.ident.ljust(ID_FIELD) + "· " + f.row_label if f.row_label is not None else f.ident
    stored = f.stored or ""
    gap = max(1, STORED_END - len(left) - len(stored))
    computed = f.computed or ""
    if f.formula:
        # the formula starts in its own column; a computed value that fills it keeps one space
        computed = (computed.ljust(COMPUTED_FIELD) if len(computed) < COMPUTED_FIELD else computed + " ") + f.formula
    return prefix("STALE") + left + " " * gap + stored + " ≠ " + computed


def group_lines(f: Finding) -> list[str]:
    code = f.code
    if code == "DATE" and f.raw is None:
        # a date the document writes in a formula (`2026-02-30`) or one a formula
        # produces (`EOMONTH` past 9999): no cell, so the message says it all
        return [prefix("DATE") + _label(f).ljust(ID_FIELD) + "  " + (f.message or "not a calendar date")]
    if code == "DATE":
        label = f.row_label or ""
        label = label + " " if len(label) >= LABEL_FIELD else label.ljust(LABEL_FIELD)
        lines = [prefix("DATE") + f.ident.ljust(ID_FIELD) + "· " + label + f'"{f.raw}"',
                 CONT + "Dates must be ISO 8601 calendar dates: YYYY-MM-DD."]
        if f.iso_fix:
            lines.append(CONT + f"Unambiguous — `visimark fmt --fix-dates` rewrites it to {f.iso_fix}.")
        elif f.alt_a and f.alt_b:
            lines.append(CONT + f"Ambiguous: {f.alt_a} or {f.alt_b}, {f.days_apart} days apart. Fix by hand.")
        else:
            lines.append(CONT + "Fix by hand.")
        return lines
    if code == "UNIT" and f.row_label is not None:
        label = f.row_label
        label = label + " " if len(label) >= LABEL_FIELD else label.ljust(LABEL_FIELD)
        return [prefix("UNIT") + f.ident.ljust(ID_FIELD) + "· " + label + f'"{f.raw or ""}"', CONT + (f.message or "")]
    if code == "NOTE":
        return [prefix("NOTE") + _label(f).ljust(ID_FIELD) + "· " + (f.message or "")]
    if code == "ASSERT":
        return [prefix("ASSERT") + _label(f).ljust(ID_FIELD) + strip_assert(f.source or ""),
                CONT + (f.message or "") + "   is false"]
    if code == "UNDEF":
        head = prefix("UNDEF") + _label(f).ljust(ID_FIELD) + "  " + f"unknown name `{f.raw}`"
        if f.hint:
            return [head, CONT + f.hint]
        return [head] + ([CONT + f"did you mean `{f.suggestion}`?"] if f.suggestion else [])
    if code == "DUP":
        if f.message and f.name and f.name.startswith("["):
            return [prefix("DUP") + f.message]
        lines = [prefix("DUP") + f.ident.ljust(ID_FIELD) + "  " + f"`{f.name}` is already defined in this scope"]
        if f.message:
            lines = [prefix("DUP") + f.ident.ljust(ID_FIELD) + "  " + f.message]
        return lines + [CONT + "the first binding wins; delete or rename one of them"]
    if code == "VECTOR":
        return [prefix("VECTOR") + _label(f).ljust(ID_FIELD) + "  " + f"`{f.raw}` is a column, not a value.",
                CONT + f"Wrap it in an aggregate: SUM({f.raw})"]
    if code == "CYCLE":
        return [prefix("CYCLE") + " → ".join(f.cycle_path)]
    if code == "ARTIFACT":
        head = prefix("ARTIFACT")
        lines = [head + f.ident.ljust(ID_FIELD) + "  " + (f.message or "")]
        return lines + ([" " * len(head) + f"did you mean `{f.suggestion}`?"] if f.suggestion else [])
    if code == "COVERAGE":
        head = prefix("COVERAGE")
        return [head + (f.message or "")] + ([" " * len(head) + f.suggestion] if f.suggestion else [])
    if code == "WARN" and f.name and f.name.startswith("["):
        return [prefix("WARN") + (f.message or "")]
    if code == "WARN" and f.message:
        return [prefix("WARN") + f.ident.ljust(ID_FIELD) + "  " + f.message
                + (f" — did you mean `{f.suggestion}`?" if f.suggestion else "")]
    if code == "WARN":
        return [prefix("WARN") + f.ident.ljust(ID_FIELD) + "  defined and never read"
                + (f" — did you mean `{f.suggestion}`?" if f.suggestion else "")]
    if code == "TYPE":
        head = prefix("TYPE") + _label(f).ljust(ID_FIELD) + ("· " + f.row_label + "  " if f.row_label else "  ")
        if f.hint:
            return [head + (f.message or ""), CONT + f.hint]
        return [head + (f.message or "")] + ([CONT + f"did you mean `{f.suggestion}`?"] if f.suggestion else [])
    head = prefix(code)
    label = _label(f)
    lines = [head + (label.ljust(ID_FIELD) + "  " if label else "") + (f.message or "")]
    if f.hint or f.suggestion:
        lines.append(" " * len(head) + (f.hint or f.suggestion or ""))
    return lines


def strip_assert(source: str) -> str:
    return source[len("assert"):].lstrip() if source.startswith("assert") else source


def footer(findings: list[Finding]) -> str:
    stale, errors = count(findings)
    problems = stale + errors
    return (f"  {problems} problem{'' if problems == 1 else 's'} ({stale} stale, "
            f"{errors} error{'' if errors == 1 else 's'})")


def format_check(path: str, findings: list[Finding]) -> str:
    """The whole ``check`` report for one file (no trailing newline)."""
    lines = [path, ""]
    stale = [f for f in findings if f.code == "STALE"]
    rest = [f for f in findings if f.code != "STALE"]
    lines.extend(stale_line(f) for f in stale)
    if stale:
        lines.append("")
    for f in rest:
        lines.extend(group_lines(f))
        lines.append("")
    lines.append(footer(findings))
    return "\n".join(lines)


def findings_json(findings: list[Finding], file: str, source: str) -> list[dict]:
    """The public JSON form of ``findings``, each located on its line of ``source`` (the
    text they were found in)."""
    _, starts = split_lines(source)
    return [finding_json(f, file, starts) for f in findings]


def finding_json(f: Finding, file: str, starts: list[int] | None = None) -> dict:
    """The public JSON form of a finding (no spans, string values).

    Given the line starts of the source it was found in, a finding that has one place (the
    cell, anchor, rule or declaration at fault) carries its 1-based ``line``; the two
    roll-ups (a collapsed run of anchors, a NOTE about rows not verified) have none.
    """
    location: dict[str, str | int] = {"file": file}
    if f.sheet:
        location["sheet"] = f.sheet
    if f.name:
        location["name"] = f.name
    if f.row_label is not None:
        location["row"] = f.row_label
    if starts is not None and f.span is not None and not f.anchor_group:
        location["line"] = bisect_right(starts, f.span[0])
    details: dict[str, object] = {}
    if f.code == "STALE" and f.artifact is not None:
        details["message"] = f.message
        details["artifact"] = f.artifact
    elif f.code == "STALE":
        if f.anchor_group:
            details["suppressedCount"] = f.suppressed_count
            # which values the counted anchors show (every anchor of each one is counted)
            details["bindings"] = list(f.bindings)
        else:
            details["stored"] = f.stored
            details["computed"] = f.computed
            if f.formula:
                details["formula"] = f.formula
    elif f.code == "DATE" and f.raw is None:
        details["message"] = f.message or "not a calendar date"
    elif f.code == "DATE":
        details["raw"] = f.raw
        if f.iso_fix:
            details["isoFix"] = f.iso_fix
        elif f.alt_a:
            details.update(altA=f.alt_a, altB=f.alt_b, daysApart=f.days_apart)
    elif f.code == "CYCLE":
        details["cyclePath"] = list(f.cycle_path)
    elif f.code == "ASSERT":
        details["source"] = f.source
        details["substituted"] = f.substituted
    else:
        details["message"] = text_message(f)
        if f.suppressed_count is not None and f.code == "NOTE":
            details["suppressedCount"] = f.suppressed_count
        if f.suggestion and f.code in ("UNDEF", "TYPE", "WARN", "COVERAGE", "PRECISION", "ARTIFACT"):
            details["suggestion"] = f.suggestion
        if f.hint:
            details["hint"] = f.hint
    return {
        "code": f.code,
        "class": "advice" if f.code in ADVICE_CODES else "problem",
        "location": location,
        "details": details,
    }


def text_message(f: Finding) -> str:
    """A one-line message for findings whose text report composes it."""
    if f.code == "UNDEF":
        return f"unknown name `{f.raw}`"
    if f.code == "VECTOR":
        return f"`{f.raw}` is a column, not a value."
    if f.code == "DUP" and not f.message:
        return f"`{f.name}` is already defined in this scope"
    if f.code == "WARN":
        return f.message or "defined and never read"
    return f.message or ""
