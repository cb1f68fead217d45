"""Drop-in for ``@mrsf/mcp`` clients: every tool's text reply has the upstream JSON shape.

The upstream Sidemark MCP server (``mcp/src/server.ts`` of wictorwilen/MRSF) answers
each call with a single text content, ``JSON.stringify(result, null, 2)``; clients parse
that text.  ``UPSTREAM`` below writes down, per tool, the shape of that result as the
upstream source builds it (object literals in ``server.ts``, ``ReanchorResult``,
``ValidationResult`` and ``StatusResult`` in ``@mrsf/cli``'s ``types.ts``, the summary of
``summarize``), plus the ``version`` fields its 0.6 documentation adds to results.  A
key written ``name?`` may be absent (upstream leaves ``undefined`` values out); every
other key must be there, and no key outside the shape may appear.

Each tool is called over MCP as a client would, and its text reply is compared key by key
with the shape, recursively.  The structured content stays an object carrying our extra
fields; the behaviour differences the shapes cannot show (columns of whole-line hits,
trimmed fuzzy text, ``previousVersion`` on resolve, moved text rated stale) have their
own tests here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .fixtures import DOC, sidecar_data
from .test_server import Server, sha
from .test_server import _writing, server, work  # noqa: F401 - fixtures: one server, a fresh folder per test

HEX = str  # a version: lowercase hex SHA-256 (checked separately where it matters)
NUMBER = (int, float)

DIAGNOSTIC = {"severity": str, "message": str, "path?": str, "commentId?": str, "code?": str}
COMMENT = dict  # a comment exactly as stored: any MRSF fields
REANCHOR_RESULT = {
    "commentId": str, "status": str, "score": NUMBER,
    "newLine?": int, "newEndLine?": int, "newStartColumn?": int, "newEndColumn?": int,
    "anchoredText?": str, "previousSelectedText?": str, "reason": str,
}
SUMMARY = {
    "total": int, "open": int, "resolved": int, "orphaned": int, "threads": int,
    "byType": dict, "bySeverity": dict,
}
FILE_VERSION = {"file": str, "version": HEX}

UPSTREAM: dict[str, Any] = {
    "mrsf_discover": {"sidecarPath": str, "documentPath": str, "version": HEX},
    "mrsf_validate": {
        "valid": bool,
        "files": [{"file": str, "result": {"valid": bool, "errors": [DIAGNOSTIC], "warnings": [DIAGNOSTIC]}}],
    },
    "mrsf_reanchor": {
        "totalChanged": int, "totalOrphaned": int, "dryRun": bool,
        "files": [{"file": str, "results": [REANCHOR_RESULT], "changed": int, "version": HEX}],
    },
    "mrsf_add": {"id": str, "line": (int, type(None)), "end_line": (int, type(None)), "status": str,
                 "sidecarPath": str, "version": HEX},
    "mrsf_add_batch": {"sidecarPath": str, "added": [{"id": str, "line?": int, "end_line?": int}], "total": int,
                       "version": HEX},
    "mrsf_update": {"id": str, "updated": [str], "sidecarPath": str, "version": HEX},
    "mrsf_resolve": {"resolved": bool, "changed": [str], "notFound?": [str], "sidecarPath": str, "version": HEX},
    "mrsf_list": [{"file": str, "comments": [COMMENT], "version": HEX}],
    "mrsf_list summary": {**SUMMARY, "files": [FILE_VERSION]},
    "mrsf_status": {
        "counts": {"total": int, "fresh": int, "stale": int, "orphaned": int, "unknown": int},
        "results": [{"commentId": str, "health": str, "reason": str}],
        "files": [FILE_VERSION],
    },
    "mrsf_rename": {"oldSidecar": str, "newSidecar": str, "document": str, "version": HEX},
    "mrsf_delete": {"id": str, "deleted": bool, "cascade": bool, "sidecarPath": str, "version": HEX},
    "mrsf_repair": {"strategy": str, "sidecarPath": str, "result": str, "commentsRecovered": int,
                    "commentsSkipped?": int, "version": HEX},
    "mrsf_help": [{"tool": str, "description": str, "requiredParams": [str], "optionalParams": [str]}],
    "mrsf_help tool": {"tool": str, "description": str,
                       "parameters": {"*": {"type": str, "required": bool, "description": str}}},
    "conflict": {"status": str, "code": str, "currentVersion": HEX, "expectedVersion": str},
}


def mismatches(value: Any, shape: Any, where: str = "$") -> list[str]:
    """Every place where ``value`` differs from ``shape`` (empty: it conforms)."""
    if isinstance(shape, list):
        if not isinstance(value, list):
            return [f"{where}: expected an array, got {type(value).__name__}"]
        return [m for n, item in enumerate(value) for m in mismatches(item, shape[0], f"{where}[{n}]")]
    if isinstance(shape, dict):
        if not isinstance(value, dict):
            return [f"{where}: expected an object, got {type(value).__name__}"]
        if set(shape) == {"*"}:  # a map: every value has one shape
            return [m for key, item in value.items() for m in mismatches(item, shape["*"], f"{where}.{key}")]
        keys = {k.rstrip("?"): k.endswith("?") for k in shape}
        found = [f"{where}: unexpected key {k!r}" for k in value if k not in keys]
        found += [f"{where}: missing key {k!r}" for k, optional in keys.items() if not optional and k not in value]
        for key, item in value.items():
            if key in keys:
                wanted = shape[key + "?" if keys[key] else key]
                found += mismatches(item, wanted, f"{where}.{key}")
        return found
    if shape is dict:
        return [] if isinstance(value, dict) else [f"{where}: expected an object"]
    kinds = shape if isinstance(shape, tuple) else (shape,)
    if isinstance(value, bool) and bool not in kinds:
        return [f"{where}: expected {kinds}, got a boolean"]
    return [] if isinstance(value, kinds) else [f"{where}: expected {kinds}, got {value!r}"]


def test_the_checker_catches_extra_missing_and_mistyped_keys() -> None:
    shape = {"a": int, "b?": [str], "c": {"d": str}}
    assert mismatches({"a": 1, "c": {"d": "x"}}, shape) == []
    assert mismatches({"a": 1, "b": ["x"], "c": {"d": "x"}}, shape) == []
    assert mismatches({"a": 1, "c": {"d": "x"}, "e": 2}, shape) == ["$: unexpected key 'e'"]
    assert mismatches({"c": {"d": "x"}}, shape) == ["$: missing key 'a'"]
    assert sorted(mismatches({"a": True, "b": [1], "c": {}}, shape)) == [
        "$.a: expected (<class 'int'>,), got a boolean", "$.b[0]: expected (<class 'str'>,), got 1",
        "$.c: missing key 'd'"]
    assert mismatches([{"a": 1, "c": {"d": "x"}}], [shape]) == []
    assert mismatches({"a": 1, "c": {"d": "x"}}, [shape]) == ["$: expected an array, got dict"]


def reply(server: Server, name: str, /, **arguments: Any) -> tuple[Any, dict[str, Any]]:
    """(the first text content parsed as JSON, the structured content) of a successful call;
    a second text block, when there is one, carries what upstream's shape has no key for
    (a note, the sidecars a sweep did not read)."""
    result = server.call_tool(name, arguments)
    assert result["isError"] is False, result["content"][0]["text"]
    assert 1 <= len(result["content"]) <= 2 and all(c["type"] == "text" for c in result["content"])
    assert all(c["text"].startswith(("NOTE: ", "PARTIAL: ")) for c in result["content"][1:]), result["content"]
    assert isinstance(result["structuredContent"], dict)  # the protocol wants an object
    return json.loads(result["content"][0]["text"]), result["structuredContent"]


def conforms(value: Any, shape_name: str) -> None:
    problems = mismatches(value, UPSTREAM[shape_name])
    assert problems == [], f"{shape_name}: {problems}\n{json.dumps(value, indent=2)[:2000]}"


def test_every_tool_replies_in_the_upstream_shape(server: Server, work: Path) -> None:
    """One session calling all thirteen tools the way an @mrsf/mcp client does."""
    text, data = reply(server, "mrsf_discover", document="doc.md")
    conforms(text, "mrsf_discover")
    assert text["version"] == data["version"] == sha(work / "doc.md.review.yaml")

    (work / "bad.md").write_text("x\n", encoding="utf-8")
    (work / "bad.md.review.yaml").write_text(
        'mrsf_version: "1.0"\ndocument: bad.md\ncomments:\n  - id: a\n    text: t\n', encoding="utf-8")
    text, _ = reply(server, "mrsf_validate")
    conforms(text, "mrsf_validate")
    assert text["valid"] is False and len(text["files"]) == 2
    assert all(d.get("code") for f in text["files"] for d in f["result"]["errors"])
    (work / "bad.md.review.yaml").unlink()
    (work / "bad.md").unlink()

    text, _ = reply(server, "mrsf_list", files=["doc.md"])
    conforms(text, "mrsf_list")
    assert [c["id"] for c in text[0]["comments"]] == ["c1", "c2", "c3"]
    text, data = reply(server, "mrsf_list", summary=True)
    conforms(text, "mrsf_list summary")
    assert (text["total"], text["open"], text["threads"]) == (3, 3, 2)
    assert data["summary"]["total"] == 3  # structured: our object around it
    # a summary asked for with the compact format is still the summary, as upstream answers
    # (this combination once failed with an internal error)
    both, both_data = reply(server, "mrsf_list", summary=True, format="compact")
    assert both == text and "table" not in both_data

    text, _ = reply(server, "mrsf_status", files=["doc.md"])
    conforms(text, "mrsf_status")

    text, _ = reply(server, "mrsf_add", document="doc.md", text="Look", author="Dana", line=4)
    conforms(text, "mrsf_add")
    added = text["id"]
    text, _ = reply(server, "mrsf_add", document="doc.md", text="General", author="Dana")
    conforms(text, "mrsf_add")
    assert text["line"] is None and text["end_line"] is None  # upstream writes these as null

    text, _ = reply(server, "mrsf_add_batch", document="doc.md",
                    comments=[{"text": "one", "author": "E", "line": 3}, {"text": "two", "author": "E"}])
    conforms(text, "mrsf_add_batch")
    assert text["added"][0]["line"] == 3 and "line" not in text["added"][1]  # upstream leaves it out

    text, _ = reply(server, "mrsf_update", document="doc.md", id=added, text="Look again")
    conforms(text, "mrsf_update")
    assert text["updated"] == ["text"]

    text, _ = reply(server, "mrsf_resolve", document="doc.md", ids=[added, "nope"])
    conforms(text, "mrsf_resolve")
    assert text["changed"] == [added] and text["notFound"] == ["nope"]
    text, _ = reply(server, "mrsf_resolve", document="doc.md", id="c1")
    conforms(text, "mrsf_resolve")
    assert "notFound" not in text

    (work / "doc.md").write_text("Inserted.\n" + DOC, encoding="utf-8")
    text, _ = reply(server, "mrsf_reanchor", files=["doc.md"])
    conforms(text, "mrsf_reanchor")

    text, _ = reply(server, "mrsf_delete", document="doc.md", id=added)
    conforms(text, "mrsf_delete")

    text, _ = reply(server, "mrsf_repair", document="doc.md")
    conforms(text, "mrsf_repair")
    text, _ = reply(server, "mrsf_repair", document="doc.md", strategy="reset")
    conforms(text, "mrsf_repair")

    text, _ = reply(server, "mrsf_rename", oldDocument="doc.md", newDocument="renamed.md")
    conforms(text, "mrsf_rename")

    text, data = reply(server, "mrsf_help")
    conforms(text, "mrsf_help")
    assert [t["tool"] for t in text] == [t["tool"] for t in data["tools"]] and len(text) == 13
    text, _ = reply(server, "mrsf_help", tool="mrsf_add_batch")
    conforms(text, "mrsf_help tool")


def test_a_version_conflict_text_is_the_conflict_object(server: Server, work: Path) -> None:
    result = server.tool("mrsf_resolve", document="doc.md", id="c1", expectedVersion="0" * 64)
    assert result["isError"] is True
    text = json.loads(result["content"][0]["text"])
    conforms(text, "conflict")
    assert text == result["structuredContent"] == {
        "status": "conflict", "code": "version-mismatch",
        "currentVersion": sha(work / "doc.md.review.yaml"), "expectedVersion": "0" * 64,
    }


def test_reanchor_results_carry_the_range_found(server: Server, work: Path) -> None:
    """A whole-line exact hit spells out its end line and columns (0 to the line's end);
    a fuzzy hit on a list item is the item's text without its marker, with columns."""
    doc = ("# Notes\n\nIntro line here.\n\n1. Configure the service so that it rotates nightly.\n"
           "- Keep the old keys for a day.\n")
    (work / "list.md").write_text(doc, encoding="utf-8")
    (work / "list.md.review.yaml").write_text(
        'mrsf_version: "1.0"\ndocument: list.md\ncomments:\n'
        '  - {id: w, author: a, timestamp: "2026-01-01T00:00:00Z", text: t, resolved: false,'
        ' line: 3, selected_text: "Intro line here."}\n'
        '  - {id: f, author: a, timestamp: "2026-01-01T00:00:00Z", text: t, resolved: false,'
        ' line: 5, selected_text: "Configure the service so that it rotates nightly."}\n',
        encoding="utf-8")
    edited = doc.replace("# Notes\n", "# Notes\n\nA new paragraph.\n").replace("nightly", "weekly")
    (work / "list.md").write_text(edited, encoding="utf-8")
    text, data = reply(server, "mrsf_reanchor", files=["list.md"])
    whole, fuzzy = text["files"][0]["results"]
    assert whole == {"commentId": "w", "status": "anchored", "score": 1.0, "newLine": 5, "newEndLine": 5,
                     "newStartColumn": 0, "newEndColumn": len("Intro line here."), "reason": whole["reason"]}
    assert fuzzy["status"] == "fuzzy" and fuzzy["newLine"] == 7
    assert fuzzy["anchoredText"] == "Configure the service so that it rotates weekly."
    assert (fuzzy["newStartColumn"], fuzzy["newEndColumn"]) == (3, 3 + len(fuzzy["anchoredText"]))
    assert fuzzy["previousSelectedText"] == "Configure the service so that it rotates nightly."
    stored = {c["id"]: c for c in sidecar_data(work / "list.md.review.yaml")["comments"]}
    assert stored["f"]["anchored_text"] == fuzzy["anchoredText"]
    assert (stored["f"]["start_column"], stored["f"]["end_column"]) == (3, 51)
    assert "start_column" not in stored["w"]  # a line-level comment found whole stays line-level
    item = data["files"][0]["results"][1]  # structured: the same fields, and ours beside them
    assert item["anchoredText"] == fuzzy["anchoredText"] and item["previous"] == {"line": 5}
    assert "anchored_text" in item["changed"]


def test_resolve_reports_the_previous_version(server: Server, work: Path) -> None:
    before = sha(work / "doc.md.review.yaml")
    _, data = reply(server, "mrsf_resolve", document="doc.md", id="c1")
    assert data["previousVersion"] == before != data["version"] == sha(work / "doc.md.review.yaml")
    _, again = reply(server, "mrsf_resolve", document="doc.md", ids=["nope"])
    assert again["previousVersion"] == again["version"] == data["version"]  # nothing written


def test_text_moved_unchanged_is_stale_and_says_where_it_is(server: Server, work: Path) -> None:
    """MRSF §7.1: line values go stale when edits above shift the text; upstream calls this
    fresh because the text still occurs somewhere.  We follow the spec."""
    (work / "doc.md").write_text("one\ntwo\nthree\nfour\nfive\n" + DOC, encoding="utf-8")
    text, _ = reply(server, "mrsf_status", files=["doc.md"])
    c1 = next(r for r in text["results"] if r["commentId"] == "c1")
    assert c1["health"] == "stale" and "line 8" in c1["reason"] and "reanchor" in c1["reason"]
