"""Validation of an MRSF sidecar: the JSON schema (mrsf.schema.json) and MRSF §10.

Pure: takes a parsed :class:`~markmcp.mrsf.sidecar.Sidecar` (or plain data) and,
optionally, the text of the annotated document; returns diagnostics.

Each diagnostic is a plain dict::

    {"code": "duplicate-id", "severity": "error", "message": "...",
     "path": "/comments/3/id", "index": 3, "commentId": "c1", "line": 27, "column": 5}

``path`` is a JSON pointer into the sidecar; ``index``/``commentId`` name the comment;
``line``/``column`` (1-based) locate the key in a YAML sidecar when known.

Codes (severity) -- names shared with the upstream validator where it has one:

Errors (the JSON schema and MRSF §10):
  ``invalid-type``                    a value has the wrong type (also the top level,
                                      ``comments``, a comment that is not a mapping)
  ``missing-field``                   a required field is absent
  ``invalid-version``                 ``mrsf_version`` is not "major.minor"
  ``unsupported-version``             ``mrsf_version`` major is not 1
  ``invalid-timestamp``               not an RFC 3339 date-time with a time zone
  ``invalid-enum``                    ``severity`` not low/medium/high
  ``below-minimum``                   line/end_line < 1, start/end_column < 0
  ``text-too-long``                   ``text`` over 16384 characters
  ``selected-text-too-long``          ``selected_text`` over 4096 characters
  ``anchored-text-too-long``          ``anchored_text`` over 4096 characters
  ``invalid-hash``                    ``selected_text_hash`` not 64 lower-case hex digits
  ``duplicate-id``                    two comments share an ``id``
  ``end-line-before-line``            ``end_line`` < ``line``
  ``end-column-before-start-column``  ``end_column`` < ``start_column`` on one line

Warnings:
  ``hash-mismatch``                   ``selected_text_hash`` != SHA-256(selected_text)
  ``unresolved-reply-to``             ``reply_to`` names no comment in the file
  ``reply-to-self``                   a comment replies to itself
  ``reply-cycle``                     ``reply_to`` links form a loop
  ``missing-selected-text``           a line anchor without ``selected_text`` (fragile)
  ``orphaned-anchor``                 ``x_reanchor_status`` is ``orphaned`` on an open
                                      comment (a resolved one has had its decision)
  ``unsafe-document-path``            ``document`` is absolute or contains ``..``
  ``line-out-of-range``               (with the document) line/end_line past its end
  ``column-out-of-range``             (with the document) a column past its line
  ``stale-selected-text``             (with the document) ``selected_text`` is not at
                                      the anchor, or nowhere in the document

``strict`` turns every warning into an error (severity ``error``, same code).
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import re
from typing import Any

from .sidecar import Sidecar, type_name

TEXT_MAX = 16384
SELECTED_TEXT_MAX = 4096
REQUIRED_TOP = ("mrsf_version", "document", "comments")
REQUIRED_COMMENT = ("id", "author", "timestamp", "text", "resolved")
STRING_FIELDS = (
    "id", "author", "text", "commit", "type", "severity", "reply_to",
    "selected_text", "anchored_text", "selected_text_hash",
)
INT_FIELDS = {"line": 1, "end_line": 1, "start_column": 0, "end_column": 0}
SEVERITIES = ("low", "medium", "high")

# ASCII digits only: the schema's ``\d`` is JavaScript's, and Python's ``\d`` would also
# take other scripts' digits ("1.\u0663", full-width years).
_VERSION = re.compile(r"([0-9]+)\.([0-9]+)")
_HASH = re.compile(r"[a-f0-9]{64}")
_DATE_TIME = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt ]([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]+)?([Zz]|[+-][0-9]{2}:[0-9]{2})"
)


def sha256_hex(text: str) -> str:
    """Lower-case hex SHA-256 of the UTF-8 encoding of ``text`` (MRSF §6.2)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def split_lines(text: str) -> list[str]:
    """Document lines as MRSF counts them: CRLF -> LF, split on LF only."""
    return text.replace("\r\n", "\n").split("\n")


def line_count(lines: list[str]) -> int:
    """How many lines the document of ``lines`` (:func:`split_lines`) has, as an editor and
    ``wc -l`` count them: the empty remainder after a final newline is not a line (MRSF
    §6.2 takes a line's content "excluding the trailing newline": a newline ends a line),
    so ``"a\nb\n"`` has 2 lines, ``"a\nb"`` 2 and ``""`` none."""
    return len(lines) - 1 if lines and lines[-1] == "" else len(lines)


def is_rfc3339(value: Any) -> bool:
    """True for an RFC 3339 date-time string with offset, or a tz-aware datetime."""
    if isinstance(value, _dt.datetime):
        return value.tzinfo is not None
    if not isinstance(value, str):
        return False
    m = _DATE_TIME.fullmatch(value)
    if not m:
        return False
    year, month, day, hour, minute, second = (int(m.group(i)) for i in range(1, 7))
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)  # proleptic Gregorian: 0000 is one
    days = (31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
    if not (1 <= month <= 12 and 1 <= day <= days[month - 1] and hour <= 23 and minute <= 59 and second <= 60):
        return False
    tz = m.group(8)
    offset = 0
    if tz not in ("Z", "z"):
        if int(tz[1:3]) > 23 or int(tz[4:6]) > 59:
            return False
        offset = (int(tz[1:3]) * 60 + int(tz[4:6])) * (1 if tz[0] == "+" else -1)
    # a leap second is the 61st second of the last minute of a UTC day (RFC 3339 5.7)
    return second < 60 or (hour * 60 + minute - offset) % 1440 == 23 * 60 + 59


class _Report:
    def __init__(self, sc: Sidecar | None) -> None:
        self.sc = sc
        self.errors: list[dict] = []
        self.warnings: list[dict] = []

    def add(self, severity: str, code: str, message: str, path: str, *,
            index: int | None = None, comment_id: Any = None, key: str | None = None) -> None:
        diag: dict[str, Any] = {"code": code, "severity": severity, "message": message, "path": path}
        if index is not None:
            diag["index"] = index
        if isinstance(comment_id, str):
            diag["commentId"] = comment_id
        if self.sc is not None:
            pos = self.sc.position(index=index, key=key)
            if pos:
                diag["line"], diag["column"] = pos
        (self.errors if severity == "error" else self.warnings).append(diag)

    def error(self, code: str, message: str, path: str, **kw: Any) -> None:
        self.add("error", code, message, path, **kw)

    def warn(self, code: str, message: str, path: str, **kw: Any) -> None:
        self.add("warning", code, message, path, **kw)


def validate(source: Sidecar | Any, *, strict: bool = False, document_text: str | None = None) -> dict:
    """Validate a sidecar (a Sidecar or plain data).

    Returns ``{"valid": bool, "errors": [...], "warnings": [...]}``; with ``document_text``
    the anchors are also checked against the document (line/column ranges, stale text).
    """
    sc = source if isinstance(source, Sidecar) else None
    data = source.data if sc is not None else source
    report = _Report(sc)
    if not isinstance(data, dict):
        report.error("invalid-type", f"the sidecar must be a mapping, found {type_name(data)}", "/")
        return _finish(report, strict)
    _check_top(data, report)
    comments = data.get("comments")
    if isinstance(comments, list):
        _check_comments(comments, report)
        if document_text is not None:
            _check_against_document(comments, document_text, report)
    return _finish(report, strict)


def _finish(report: _Report, strict: bool) -> dict:
    errors, warnings = report.errors, report.warnings
    if strict and warnings:
        errors = errors + [dict(w, severity="error") for w in warnings]
        warnings = []
    return {"valid": not errors, "errors": errors, "warnings": warnings}


def _check_top(data: dict, report: _Report) -> None:
    for key in REQUIRED_TOP:
        if key not in data:
            report.error("missing-field", f"required field `{key}` is missing", f"/{key}")
    version = data.get("mrsf_version")
    if "mrsf_version" in data:
        if not isinstance(version, str):
            report.error(
                "invalid-type",
                f"`mrsf_version` must be a string (quote it: \"1.0\"), found {type_name(version)}",
                "/mrsf_version", key="mrsf_version",
            )
        else:
            m = _VERSION.fullmatch(version)
            if not m:
                report.error("invalid-version", f"`mrsf_version` must be \"major.minor\", found {version!r}",
                             "/mrsf_version", key="mrsf_version")
            elif m.group(1) != "1":
                report.error("unsupported-version",
                             f"unsupported MRSF major version {m.group(1)} (this tool reads 1.x)",
                             "/mrsf_version", key="mrsf_version")
    document = data.get("document")
    if "document" in data:
        if not isinstance(document, str):
            report.error("invalid-type", f"`document` must be a string, found {type_name(document)}",
                         "/document", key="document")
        elif document.startswith("/") or re.match(r"[A-Za-z]:[\\/]", document) or ".." in re.split(r"[\\/]", document):
            report.warn("unsafe-document-path",
                        f"`document` should be a relative path inside the repository, found {document!r}",
                        "/document", key="document")
    comments = data.get("comments")
    if "comments" in data and not isinstance(comments, list):
        report.error("invalid-type", f"`comments` must be a list, found {type_name(comments)}",
                     "/comments", key="comments")


def _check_comments(comments: list, report: _Report) -> None:
    ids: dict[str, int] = {}
    all_ids = {c.get("id") for c in comments if isinstance(c, dict) and isinstance(c.get("id"), str)}
    for i, c in enumerate(comments):
        base = f"/comments/{i}"
        if not isinstance(c, dict):
            report.error("invalid-type", f"comment {i} must be a mapping, found {type_name(c)}", base, index=i)
            continue
        cid = c.get("id")

        def err(code: str, message: str, key: str | None = None) -> None:
            report.error(code, message, f"{base}/{key}" if key else base, index=i, comment_id=cid, key=key)

        def warn(code: str, message: str, key: str | None = None) -> None:
            report.warn(code, message, f"{base}/{key}" if key else base, index=i, comment_id=cid, key=key)

        label = f"comment {cid!r}" if isinstance(cid, str) else f"comment {i}"
        for key in REQUIRED_COMMENT:
            if key not in c:
                err("missing-field", f"{label}: required field `{key}` is missing")
        for key in STRING_FIELDS:
            if key in c and not isinstance(c[key], str):
                err("invalid-type", f"{label}: `{key}` must be a string, found {type_name(c[key])}", key)
        if "resolved" in c and not isinstance(c["resolved"], bool):
            err("invalid-type", f"{label}: `resolved` must be true or false, found {type_name(c['resolved'])}", "resolved")
        if "timestamp" in c:
            ts = c["timestamp"]
            if not isinstance(ts, (str, _dt.datetime, _dt.date)):
                err("invalid-type", f"{label}: `timestamp` must be a string, found {type_name(ts)}", "timestamp")
            elif not is_rfc3339(ts):
                err("invalid-timestamp",
                    f"{label}: `timestamp` must be an RFC 3339 date-time with a time zone, found {str(ts)!r}",
                    "timestamp")
        ints: dict[str, int] = {}
        for key, minimum in INT_FIELDS.items():
            if key not in c:
                continue
            value = c[key]
            if isinstance(value, float) and value.is_integer():
                value = int(value)  # JSON Schema: 3.0 is an integer
            if isinstance(value, bool) or not isinstance(value, int):
                err("invalid-type", f"{label}: `{key}` must be an integer, found {type_name(value)}", key)
            elif value < minimum:
                err("below-minimum", f"{label}: `{key}` must be >= {minimum}, found {value}", key)
            else:
                ints[key] = value
        if isinstance(c.get("severity"), str) and c["severity"] not in SEVERITIES:
            err("invalid-enum", f"{label}: `severity` must be low, medium or high, found {c['severity']!r}", "severity")
        if isinstance(c.get("text"), str) and len(c["text"]) > TEXT_MAX:
            err("text-too-long", f"{label}: `text` has {len(c['text'])} characters (at most {TEXT_MAX})", "text")
        selected = c.get("selected_text")
        if isinstance(selected, str) and len(selected) > SELECTED_TEXT_MAX:
            err("selected-text-too-long",
                f"{label}: `selected_text` has {len(selected)} characters (at most {SELECTED_TEXT_MAX})",
                "selected_text")
        anchored = c.get("anchored_text")
        if isinstance(anchored, str) and len(anchored) > SELECTED_TEXT_MAX:
            err("anchored-text-too-long",
                f"{label}: `anchored_text` has {len(anchored)} characters (at most {SELECTED_TEXT_MAX})",
                "anchored_text")
        digest = c.get("selected_text_hash")
        if isinstance(digest, str):
            if not _HASH.fullmatch(digest):
                err("invalid-hash", f"{label}: `selected_text_hash` must be 64 lower-case hex digits", "selected_text_hash")
            elif isinstance(selected, str) and digest != sha256_hex(selected):
                warn("hash-mismatch",
                     f"{label}: `selected_text_hash` does not match `selected_text` "
                     f"(expected {sha256_hex(selected)[:12]}…, found {digest[:12]}…); the comment may be corrupted",
                     "selected_text_hash")
        if isinstance(cid, str):
            if cid in ids:
                err("duplicate-id", f"duplicate comment id {cid!r} (also comment {ids[cid]})", "id")
            else:
                ids[cid] = i
        if "line" in ints and "end_line" in ints and ints["end_line"] < ints["line"]:
            err("end-line-before-line", f"{label}: `end_line` ({ints['end_line']}) must be >= `line` ({ints['line']})", "end_line")
        # one line unless both line and end_line are given and differ (MRSF 7.1)
        if (
            "start_column" in ints and "end_column" in ints
            and not ("line" in ints and "end_line" in ints and ints["end_line"] != ints["line"])
            and ints["end_column"] < ints["start_column"]
        ):
            err("end-column-before-start-column",
                f"{label}: `end_column` ({ints['end_column']}) must be >= `start_column` ({ints['start_column']}) on the same line",
                "end_column")
        reply_to = c.get("reply_to")
        if isinstance(reply_to, str):
            if reply_to == cid:
                warn("reply-to-self", f"{label} replies to itself", "reply_to")
            elif reply_to not in all_ids:
                warn("unresolved-reply-to", f"{label}: `reply_to` {reply_to!r} names no comment in this file", "reply_to")
        if "line" in c and c.get("line") is not None and not selected:
            warn("missing-selected-text",
                 f"{label} has a line anchor but no selected_text: anchoring will be fragile across edits",
                 "selected_text" if "selected_text" in c else "line")
        # MRSF §7.3 and §10.1: an orphan is surfaced for the reviewer to decide (resolve,
        # retarget or delete); once resolved, the decision is made and there is nothing to flag
        if c.get("x_reanchor_status") == "orphaned" and c.get("resolved") is not True:
            warn("orphaned-anchor", f"{label} is orphaned: its text was not found in the document", "x_reanchor_status")
    _check_cycles(comments, report)


def _check_cycles(comments: list, report: _Report) -> None:
    parent = {}
    index = {}
    for i, c in enumerate(comments):
        if isinstance(c, dict) and isinstance(c.get("id"), str) and isinstance(c.get("reply_to"), str):
            parent.setdefault(c["id"], c["reply_to"])
            index.setdefault(c["id"], i)
    reported: set[str] = set()
    for start in parent:
        seen = []
        node = start
        while node in parent and node not in seen:
            seen.append(node)
            node = parent[node]
        if node in seen and node == start and parent[start] != start and start not in reported:
            loop = seen[seen.index(node):]
            reported.update(loop)
            i = index[start]
            report.warn("reply-cycle", f"`reply_to` links form a loop: {' -> '.join(loop + [start])}",
                        f"/comments/{i}/reply_to", index=i, comment_id=start, key="reply_to")


# Columns in sidecars are offsets in UTF-16 code units, as upstream tools (JavaScript)
# and editors (VS Code, LSP) count them; Python indexes code points.  They differ only
# after characters outside the Basic Multilingual Plane (emoji...), which count twice.


def _astral(text: str) -> bool:
    return any(ord(ch) > 0xFFFF for ch in text)


def utf16_len(text: str) -> int:
    """Length of ``text`` in UTF-16 code units."""
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF) if _astral(text) else len(text)


def utf16_to_index(text: str, column: int) -> int:
    """Python index of UTF-16 column ``column`` in ``text`` (a column inside a surrogate
    pair rounds up; past the end stays past the end)."""
    if not _astral(text):
        return column
    units = 0
    for index, ch in enumerate(text):
        if units >= column:
            return index
        units += 2 if ord(ch) > 0xFFFF else 1
    return len(text) + max(column - units, 0)


def index_to_utf16(text: str, index: int) -> int:
    """UTF-16 column of Python index ``index`` in ``text``."""
    if not _astral(text):
        return index
    return index + sum(1 for ch in text[:index] if ord(ch) > 0xFFFF)


def extract_text(lines: list[str], line: int, end_line: int | None = None,
                 start_column: int | None = None, end_column: int | None = None) -> str | None:
    """The document text an anchor covers, or None when the lines do not exist.

    ``line``/``end_line`` are 1-based and inclusive; ``start_column`` cuts the first line,
    ``end_column`` (exclusive) cuts the last line; columns are UTF-16 code units.
    """
    last = end_line if end_line is not None else line
    if line < 1 or last < line or last > len(lines):
        return None
    # Join the spanned lines, then cut the joined text once: from the start column of the
    # first line to the end column of the last (both converted from UTF-16 units).
    span = lines[line - 1 : last]
    joined = "\n".join(span)
    first, final = span[0], span[-1]
    head = min(utf16_to_index(first, start_column), len(first)) if start_column is not None else 0
    tail = len(joined)
    if end_column is not None:
        tail -= len(final) - min(utf16_to_index(final, end_column), len(final))
    return joined[head:tail]


def _check_against_document(comments: list, document_text: str, report: _Report) -> None:
    lines = split_lines(document_text)
    normalized = "\n".join(lines)
    count = line_count(lines)
    for i, c in enumerate(comments):
        if not isinstance(c, dict):
            continue
        cid = c.get("id")
        label = f"comment {cid!r}" if isinstance(cid, str) else f"comment {i}"
        base = f"/comments/{i}"

        def warn(code: str, message: str, key: str) -> None:
            report.warn(code, message, f"{base}/{key}", index=i, comment_id=cid, key=key)

        vals = {k: c.get(k) for k in INT_FIELDS}
        ok = {k: v for k, v in vals.items() if isinstance(v, int) and not isinstance(v, bool) and v >= INT_FIELDS[k]}
        line, end_line = ok.get("line"), ok.get("end_line")
        in_range = True
        if line is not None and line > count:
            warn("line-out-of-range", f"{label}: `line` {line} is past the end of the document ({count} lines)", "line")
            in_range = False
        if end_line is not None and end_line > count:
            warn("line-out-of-range", f"{label}: `end_line` {end_line} is past the end of the document ({count} lines)", "end_line")
            in_range = False
        if in_range and line is not None:
            first = lines[line - 1]
            last = lines[(end_line or line) - 1]
            if ok.get("start_column") is not None and ok["start_column"] > utf16_len(first):
                warn("column-out-of-range", f"{label}: `start_column` {ok['start_column']} is past the end of line {line}", "start_column")
                in_range = False
            if ok.get("end_column") is not None and ok["end_column"] > utf16_len(last):
                warn("column-out-of-range",
                     f"{label}: `end_column` {ok['end_column']} is past the end of line {end_line or line}", "end_column")
                in_range = False
        selected = c.get("selected_text")
        if not isinstance(selected, str) or not selected:
            continue
        wanted = selected.replace("\r\n", "\n")
        if wanted not in normalized:
            warn("stale-selected-text", f"{label}: `selected_text` no longer occurs in the document", "selected_text")
        elif line is not None and in_range:
            here = extract_text(lines, line, end_line, ok.get("start_column"), ok.get("end_column"))
            if here is not None and here != wanted and wanted not in here:
                warn("stale-selected-text",
                     f"{label}: `selected_text` is not at line {line} any more (the document changed; run reanchor)",
                     "selected_text")
