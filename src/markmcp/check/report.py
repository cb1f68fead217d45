"""The three forms of one check's report: text, the JSON envelope, and SARIF 2.1.0.

* **text**: each file that has findings, in its engine's own report (VisiMark's
  aligned check report, FigDown's ``PARSE FAILED`` / ``FIGURE REFUSED`` blocks, MRSF's
  validation and re-anchoring lines), then what ``--fix`` changed, then one summary
  line.  Control characters from documents and file names are escaped.
* **JSON** (``--json``): one envelope ``{"command": "check", "markmcp", "status",
  "summary", "visimark", "figdown", "mrsf", "findings", "fixed"}``; each engine's
  section holds its files in that engine's own JSON shape (VisiMark's check entries,
  FigDown's check reports with the artifact's state, MRSF's validation entries with
  the re-anchoring results) and its own summary; ``findings`` lists every finding in
  the engine-neutral form (:mod:`.findings`).
* **SARIF** (``--format sarif``): one run of the tool ``markmcp``; each finding is a
  result whose rule is ``<engine>/<code>``, located by a URI relative to the
  repository's top folder (``%SRCROOT%``) and, where the engine knows it, a line and
  column (Unicode code points), so code scanning shows it on the line.

``status`` and the exit code agree: ``ok`` (0) nothing fails, ``findings`` (1) a
finding fails or a file could not be read, ``error`` (2) an engine could not check a
file.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path
from typing import Any
from urllib.parse import quote

from markmcp import __version__
from markmcp.mcpcore.files import name_texts
from markmcp.textsafe import escape_controls, inert_json

from .findings import ENGINES, FOLDER

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://pypi.org/project/markmcp/"
TITLES = {"visimark": "VisiMark", "figdown": "FigDown", "mrsf": "MRSF"}
EXIT_OK, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


def _checked(outcomes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [item for item in outcomes if item["status"] != "skipped"]


def exit_code(outcomes: list[dict[str, Any]]) -> int:
    statuses = {item["status"] for item in outcomes}
    if "crashed" in statuses:
        return EXIT_ERROR
    if statuses & {"findings", "unreadable"}:
        return EXIT_FINDINGS
    return EXIT_OK


def summary(outcomes: list[dict[str, Any]]) -> dict[str, Any]:
    """The totals of a check, counting what the report shows: every finding (each entry of
    the envelope's ``findings`` and each SARIF result) by level, and apart from that how
    many of them fail.  A file is ``clean`` when it shows nothing, ``withFindings`` when
    a finding of it fails, ``withNonFailing`` when it shows only findings that do not fail
    (a warning, a note)."""
    everything = _checked(outcomes)
    checked = [item for item in everything if item["engine"] != FOLDER]  # files, not folders
    statuses = Counter(item["status"] for item in checked)
    remarks = sum(1 for item in checked if item["status"] == "clean" and item["findings"])
    shown = [f for item in everything for f in item["findings"]]
    levels = Counter(f["level"] for f in shown)
    return {
        "files": len(checked),
        "byEngine": {engine: sum(1 for item in checked if item["engine"] == engine) for engine in ENGINES},
        "clean": statuses["clean"] - remarks,
        "withFindings": statuses["findings"],
        "withNonFailing": remarks,
        "unreadable": statuses["unreadable"],
        "crashed": statuses["crashed"],
        "skipped": len(outcomes) - len(checked),
        "findings": len(shown),
        "errors": levels["error"],
        "warnings": levels["warning"],
        "notes": levels["note"],
        "failing": sum(1 for f in shown if f["fails"]),
        "fixed": sum(1 for item in checked if item["fixed"]),
        "foldersNotRead": len(everything) - len(checked),
    }


def summary_line(numbers: dict[str, Any]) -> str:
    engines = ", ".join(f"{TITLES[engine]} {count}" for engine, count in numbers["byEngine"].items() if count)
    line = f"checked {numbers['files']} file(s)" + (f" ({engines})" if engines else "")
    parts = [f"{numbers['clean']} clean", f"{numbers['withFindings']} with findings"]
    if numbers["withNonFailing"]:
        parts.append(f"{numbers['withNonFailing']} with only findings that do not fail")
    if numbers["unreadable"]:
        parts.append(f"{numbers['unreadable']} not read")
    if numbers["crashed"]:
        parts.append(f"{numbers['crashed']} could not be checked")
    line += ": " + ", ".join(parts)
    if numbers["foldersNotRead"]:
        line += f"; {numbers['foldersNotRead']} folder(s) could not be read"
    if numbers["findings"]:
        levels = f"{numbers['errors']} error(s), {numbers['warnings']} warning(s)"
        if numbers["notes"]:
            levels += f", {numbers['notes']} note(s)"
        line += f"; {numbers['findings']} finding(s) ({levels})"
        if numbers["failing"] != numbers["findings"]:
            line += f", {numbers['failing']} failing"
    if numbers["fixed"]:
        line += f"; fixed {numbers['fixed']} file(s)"
    return line


def text(outcomes: list[dict[str, Any]]) -> str:
    """The human report (ends with a newline)."""
    blocks = [item["report"] for item in outcomes if item["status"] != "skipped" and item["report"]]
    fixed = [escape_controls(f"fixed {item['path']}: {change}") for item in outcomes for change in item["fixed"]]
    parts = [*blocks]
    if fixed:
        parts.append("\n".join(fixed))
    parts.append(summary_line(summary(outcomes)))
    return escape_controls("\n\n".join(parts), keep="\n") + "\n"


def json_text(body: Any) -> str:
    """``body`` (the envelope or the SARIF log) as the JSON text printed (ends with a
    newline): non-ASCII kept as it is, except the characters a terminal acts on, which
    are ``\\uXXXX`` escapes (:func:`markmcp.textsafe.inert_json`)."""
    return inert_json(json.dumps(body, ensure_ascii=False, indent=2)) + "\n"


#: The key under which an encoded outcome (:func:`encode_parts`) carries what its
#: engine's section summary counts of its entry (:func:`_tally`), the entry itself gone.
TALLY = "jsonTally"


def _tally(engine: str, entry: dict[str, Any]) -> Any:
    """What the summary of ``engine``'s section counts of one file's entry: VisiMark's
    problems, stale values and errors, FigDown's artifact state, MRSF's comments by
    re-anchoring status."""
    if engine == "visimark":
        numbers = entry.get("summary") or {}
        return {key: numbers.get(key, 0) for key in ("problems", "stale", "errors")}
    if engine == "figdown":
        return (entry.get("artifact") or {}).get("status")
    return (entry.get("reanchor") or {}).get("counts") or {}


def _section(engine: str, items: list[dict[str, Any]]) -> dict[str, Any]:
    entries = [item["data"] for item in items]
    tallies = [item[TALLY] if TALLY in item else _tally(engine, item["data"]) for item in items]
    remarks = sum(1 for item in items if item["status"] == "clean" and item["findings"])
    numbers: dict[str, Any] = {"files": len(items),
                               "clean": sum(1 for item in items if item["status"] == "clean") - remarks,
                               "withFindings": sum(1 for item in items if item["status"] == "findings"),
                               "withNonFailing": remarks,
                               "unreadable": sum(1 for item in items if item["status"] == "unreadable"),
                               "crashed": sum(1 for item in items if item["status"] == "crashed")}
    if engine == "visimark":
        for key in ("problems", "stale", "errors"):
            numbers[key] = sum(tally[key] for tally in tallies)
        return {"files": entries, "summary": numbers}
    if engine == "figdown":
        artifacts = Counter(tallies)
        numbers["artifacts"] = {status: artifacts[status] for status in ("current", "stale", "rebuilt")}
        return {"documents": entries, "summary": numbers}
    counts: Counter[str] = Counter()
    for tally in tallies:
        counts.update(tally)
    numbers["comments"] = dict(sorted(counts.items()))
    return {"files": entries, "summary": numbers}


def envelope(outcomes: list[dict[str, Any]]) -> dict[str, Any]:
    checked = _checked(outcomes)
    code = exit_code(outcomes)
    body: dict[str, Any] = {"command": "check", "markmcp": __version__,
                            "status": {EXIT_OK: "ok", EXIT_FINDINGS: "findings"}.get(code, "error"),
                            "summary": summary(outcomes)}
    for engine in ENGINES:
        body[engine] = _section(engine, [item for item in checked if item["engine"] == engine])
    body["findings"] = [{"engine": item["engine"], **f} for item in checked for f in item["findings"]]
    body["fixed"] = [{"engine": item["engine"], "path": item["path"], "changes": item["fixed"]}
                     for item in checked if item["fixed"]]
    return body


# --- the JSON envelope as text -----------------------------------------------------------------

#: The key under which an outcome may carry its share of the JSON envelope, encoded
#: already (by :func:`encode_parts`, in the worker that checked the file).
PARTS = "jsonParts"
#: Where an engine section's entries and the findings sit in the envelope (nesting depth).
ENTRY_DEPTH, FINDING_DEPTH = 3, 2
INDENT = "  "


def _dumps(value: Any, depth: int) -> str:
    """``value`` as :func:`json.dumps` (indent 2) writes it ``depth`` levels deep.  JSON
    text has no newline inside a string (it is escaped), so indenting each line is safe."""
    text = json.dumps(value, ensure_ascii=False, indent=2)
    return text.replace("\n", "\n" + INDENT * depth) if depth else text


def encode_parts(item: dict[str, Any]) -> dict[str, Any]:
    """The outcome with its entry of its engine's section and its findings encoded now (a
    worker does it while the others check on, so the report at the end only joins text).

    The encoded outcome is what :func:`envelope_text` needs and no more (it is what
    crosses from a worker to the parent): the JSON text (``PARTS``), the entry's
    :func:`_tally` (``TALLY``) for the section summaries, and of each finding its
    ``level`` and ``fails`` for the summary; no ``data`` and no text ``report``.  A
    skipped outcome is returned as it is (it is in no section)."""
    if item["status"] == "skipped":
        return item
    return {"engine": item["engine"], "path": item["path"], "status": item["status"], "fixed": item["fixed"],
            "findings": [{"level": f["level"], "fails": f["fails"]} for f in item["findings"]],
            "report": None, "data": None, TALLY: _tally(item["engine"], item["data"]),
            PARTS: (_dumps(item["data"], ENTRY_DEPTH),
                    [_dumps({"engine": item["engine"], **f}, FINDING_DEPTH) for f in item["findings"]])}


class _Encoded:
    """JSON text that :func:`_encode` puts in as it is."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def _encode(value: Any, depth: int) -> str:
    """What ``json.dumps(value, ensure_ascii=False, indent=2)`` writes ``depth`` levels
    deep, with :class:`_Encoded` parts put in as they are."""
    if isinstance(value, _Encoded):
        return value.text
    inner = INDENT * (depth + 1)
    if isinstance(value, dict) and value and all(isinstance(key, str) for key in value):
        members = [f"{inner}{json.dumps(key, ensure_ascii=False)}: {_encode(item, depth + 1)}"
                   for key, item in value.items()]
        return "{\n" + ",\n".join(members) + "\n" + INDENT * depth + "}"
    if isinstance(value, list) and value:
        return "[\n" + ",\n".join(inner + _encode(item, depth + 1) for item in value) + "\n" + INDENT * depth + "]"
    return _dumps(value, depth)


def envelope_text(outcomes: list[dict[str, Any]]) -> str:
    """``json_text(envelope(outcomes))``, made of the parts the workers encoded
    (:func:`encode_parts`; an outcome without them is encoded here)."""
    body = envelope(outcomes)
    checked = _checked(outcomes)
    parts = [item.get(PARTS) or encode_parts(item)[PARTS] for item in checked]
    for engine in ENGINES:
        key = "documents" if engine == "figdown" else "files"
        body[engine][key] = [_Encoded(part[0]) for item, part in zip(checked, parts) if item["engine"] == engine]
    body["findings"] = [_Encoded(text) for part in parts for text in part[1]]
    return inert_json(_encode(body, 0)) + "\n"  # one character at a time: the same on parts or the whole


# --- SARIF ------------------------------------------------------------------------------------


def _uri(label: str, top: Path) -> tuple[str, str | None]:
    """(uri, uriBaseId) of a file shown as ``label``: relative to ``top`` when inside it.

    The URI escapes the name's bytes, so a byte that is not UTF-8 (which Python holds as
    a lone surrogate) is ``%FF``, exactly the file's name."""
    absolute = Path(os.path.abspath(label))
    try:
        rel = absolute.relative_to(top).as_posix()
    except ValueError:
        return absolute.as_uri(), None
    return quote(os.fsencode(rel), safe="/"), "%SRCROOT%"


def _sendable(log: dict[str, Any]) -> dict[str, Any]:
    """A SARIF log whose every string is Unicode: a file-name byte that is not UTF-8, held
    as a lone surrogate, appears in messages as ``\\xNN`` (``files.name_text``), as the
    text output shows it (no UTF-8 file can hold a lone surrogate)."""
    return name_texts(log)


def _driver(rules: list[dict[str, Any]]) -> dict[str, Any]:
    return {"driver": {"name": "markmcp", "version": __version__, "semanticVersion": __version__,
                       "informationUri": INFORMATION_URI, "rules": rules}}


def failure_envelope(message: str) -> dict[str, Any]:
    """The JSON envelope of a check that could not start (exit 2): what went wrong, no
    sections and no findings (nothing was checked)."""
    return {"command": "check", "markmcp": __version__, "status": "error", "error": {"message": message}}


def failure_sarif(message: str, top: Path) -> dict[str, Any]:
    """The SARIF log of a check that could not start (exit 2): no results, an invocation
    that did not succeed, and why, as a tool execution notification (so a CI step that
    uploads the log uploads a valid one that says so)."""
    run = {
        "tool": _driver([]),
        "originalUriBaseIds": {"%SRCROOT%": {"uri": top.as_uri().rstrip("/") + "/"}},
        "columnKind": "unicodeCodePoints",
        "invocations": [{"executionSuccessful": False, "exitCode": EXIT_ERROR,
                         "toolExecutionNotifications": [{"level": "error", "message": {"text": message}}]}],
        "results": [],
    }
    return _sendable({"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]})


def sarif(outcomes: list[dict[str, Any]], top: Path) -> dict[str, Any]:
    """The SARIF 2.1.0 log of a check."""
    rules: list[dict[str, Any]] = []
    index: dict[str, int] = {}
    results: list[dict[str, Any]] = []
    for item in _checked(outcomes):
        engine = item["engine"]
        for f in item["findings"]:
            rule_id = f"{engine}/{f['code']}"
            if rule_id not in index:
                index[rule_id] = len(rules)
                rules.append({"id": rule_id,
                              "shortDescription": {"text": f"{TITLES.get(engine, engine)}: {f['code']}"},
                              "properties": {"engine": engine}})
            uri, base = _uri(f["file"], top)
            artifact: dict[str, Any] = {"uri": uri}
            if base is not None:
                artifact["uriBaseId"] = base
            physical: dict[str, Any] = {"artifactLocation": artifact}
            if isinstance(f["line"], int) and f["line"] >= 1:
                region: dict[str, Any] = {"startLine": f["line"]}
                if isinstance(f["column"], int) and f["column"] >= 1:
                    region["startColumn"] = f["column"]
                physical["region"] = region
            result: dict[str, Any] = {"ruleId": rule_id, "ruleIndex": index[rule_id], "level": f["level"],
                                      "message": {"text": f["message"] or f["code"]},
                                      "locations": [{"physicalLocation": physical}]}
            if not f["fails"]:
                result["properties"] = {"fails": False}
            results.append(result)
    code = exit_code(outcomes)
    run = {
        "tool": _driver(rules),
        "originalUriBaseIds": {"%SRCROOT%": {"uri": top.as_uri().rstrip("/") + "/"}},
        "columnKind": "unicodeCodePoints",
        "invocations": [{"executionSuccessful": code != EXIT_ERROR, "exitCode": code}],
        "results": results,
    }
    return _sendable({"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]})
