"""``mrsf-mcp`` driven as a real subprocess over stdio with raw JSON-RPC.

These are the MRSF-specific checks (the generic protocol behaviour of the shared layer
is tested in tests/mcpcore): every tool, versions and the version-mismatch conflict,
path escapes, unknown ids, wrong argument types and malformed sidecars, each a clear
error with nothing written.
"""

from __future__ import annotations

import hashlib
import json
import re
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcpwire import StdioClient, module_command, wipe, wipe_entry

from .fixtures import DOC, SIDECAR, sidecar_data, snapshot, write_pair

TIMEOUT = 30.0

TOOL_NAMES = {
    "mrsf_discover", "mrsf_validate", "mrsf_reanchor", "mrsf_add", "mrsf_add_batch", "mrsf_update",
    "mrsf_resolve", "mrsf_list", "mrsf_status", "mrsf_rename", "mrsf_delete", "mrsf_repair", "mrsf_help",
}

#: Every parameter of the current upstream server (plus documentText/expectedVersion, and backup on repair).
PARAMETERS = {
    "mrsf_discover": {"document", "cwd"},
    "mrsf_validate": {"files", "strict", "cwd"},
    "mrsf_reanchor": {"files", "dryRun", "threshold", "updateText", "force", "documentText", "expectedVersion", "cwd"},
    "mrsf_add": {
        "document", "text", "author", "line", "end_line", "start_column", "end_column", "type", "severity",
        "reply_to", "extensions", "documentText", "expectedVersion", "cwd",
    },
    "mrsf_add_batch": {"document", "comments", "documentText", "expectedVersion", "cwd"},
    "mrsf_update": {
        "document", "id", "text", "type", "severity", "line", "end_line", "start_column", "end_column",
        "extensions", "documentText", "expectedVersion", "cwd",
    },
    "mrsf_resolve": {"document", "id", "ids", "author", "type", "severity", "unresolve", "expectedVersion", "cwd"},
    "mrsf_list": {"files", "open", "resolved", "author", "type", "severity", "format", "summary", "cwd"},
    "mrsf_status": {"files", "cwd"},
    "mrsf_rename": {"oldDocument", "newDocument", "expectedVersion", "cwd"},
    "mrsf_delete": {"document", "id", "cascade", "expectedVersion", "cwd"},
    "mrsf_repair": {"document", "strategy", "backup", "expectedVersion", "cwd"},
    "mrsf_help": {"tool"},
}


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


ROOT_HINT = "start the server with --root DIR (or let the client declare the folder as an MCP root) to allow it"


class Server(StdioClient):
    """An ``mrsf-mcp`` subprocess on stdio, initialized, with helpers for tool calls."""

    def __init__(self, cwd: Path, *args: str) -> None:
        super().__init__(module_command("markmcp.mrsf.server", *args), cwd=cwd, timeout=TIMEOUT)
        answer = self.initialize(client="mrsf-tests")
        assert "result" in answer, answer

    def tool(self, tool: str, /, **arguments: Any) -> dict[str, Any]:
        """tools/call with keyword arguments; returns the result."""
        return self.call_tool(tool, arguments)

    def ok(self, tool: str, /, **arguments: Any) -> dict[str, Any]:
        result = self.tool(tool, **arguments)
        assert result["isError"] is False, result["content"][0]["text"]
        return result["structuredContent"]

    def fail(self, tool: str, /, **arguments: Any) -> tuple[str, dict[str, Any] | None]:
        result = self.tool(tool, **arguments)
        assert result["isError"] is True, result
        return result["content"][0]["text"], result.get("structuredContent")


@pytest.fixture(scope="module")
def _writing(tmp_path_factory: pytest.TempPathFactory):
    """One server for the tests that write, over a folder each test gets afresh."""
    base = tmp_path_factory.mktemp("writing")
    root = base / "ws"
    root.mkdir()
    srv = Server(root)
    yield srv, base, root
    _, stderr = srv.finish()
    assert "Traceback" not in stderr, stderr


@pytest.fixture
def work(_writing: tuple[Server, Path, Path]) -> Path:
    """The shared server's folder, wiped (with its parent, where tests put outside files)
    and seeded with the pair: every test sees exactly the files it would in a new folder."""
    _, base, root = _writing
    for entry in base.iterdir():
        if entry != root:
            wipe_entry(entry)
    wipe(root)  # the folder itself stays: it is the server's working directory
    return write_pair(root)


@pytest.fixture
def server(_writing: tuple[Server, Path, Path], work: Path) -> Server:
    return _writing[0]


@pytest.fixture(scope="module")
def reading(tmp_path_factory: pytest.TempPathFactory):
    """One server over one workspace, shared by the tests that only read: each of them
    either asserts that nothing was written or reads what no other of them changes."""
    root = tmp_path_factory.mktemp("reading") / "ws"
    root.mkdir()
    work = write_pair(root)
    srv = Server(work)
    yield srv, work
    _, stderr = srv.finish()
    assert "Traceback" not in stderr, stderr


def comments_of(path: Path) -> list[dict[str, Any]]:
    return sidecar_data(path)["comments"]


# ---------------------------------------------------------------------------
# Listing and help
# ---------------------------------------------------------------------------


def test_tools_list_has_every_upstream_tool_and_parameter(reading: tuple[Server, Path]) -> None:
    server, _ = reading
    tools = {t["name"]: t for t in server.call("tools/list")["result"]["tools"]}
    assert set(tools) == TOOL_NAMES
    for name, tool in tools.items():
        assert set(tool["inputSchema"]["properties"]) == PARAMETERS[name], name
        assert tool["outputSchema"]["type"] == "object"
        assert tool["description"]


def test_annotations(reading: tuple[Server, Path]) -> None:
    server, _ = reading
    tools = {t["name"]: t["annotations"] for t in server.call("tools/list")["result"]["tools"]}
    for name in ("mrsf_discover", "mrsf_validate", "mrsf_list", "mrsf_status", "mrsf_help"):
        assert tools[name]["readOnlyHint"] is True and tools[name]["idempotentHint"] is True, name
        assert tools[name]["destructiveHint"] is False
    for name in ("mrsf_delete", "mrsf_repair"):
        assert tools[name]["destructiveHint"] is True and tools[name]["readOnlyHint"] is False
    for name in ("mrsf_add", "mrsf_add_batch", "mrsf_update", "mrsf_resolve", "mrsf_rename", "mrsf_reanchor"):
        assert tools[name]["readOnlyHint"] is False and tools[name]["destructiveHint"] is False, name


def test_help_is_generated_from_the_live_schemas(reading: tuple[Server, Path]) -> None:
    server, _ = reading
    listing = {t["name"]: t for t in server.call("tools/list")["result"]["tools"]}
    overview = server.ok("mrsf_help")["tools"]
    assert {row["tool"] for row in overview} == TOOL_NAMES
    for row in overview:
        schema = listing[row["tool"]]["inputSchema"]
        assert set(row["requiredParams"]) == set(schema.get("required", []))
        assert set(row["requiredParams"]) | set(row["optionalParams"]) == set(schema["properties"])
    detail = server.ok("mrsf_help", tool="mrsf_add")
    assert detail["tool"] == "mrsf_add"
    params = detail["parameters"]
    assert params["line"] == {
        "type": "integer (≥ 1)",
        "required": False,
        "description": listing["mrsf_add"]["inputSchema"]["properties"]["line"]["description"],
    }
    assert params["severity"]["type"] == "enum: low | medium | high"
    assert params["text"]["required"] is True
    assert "documentText" in params and "expectedVersion" in params
    batch = server.ok("mrsf_help", tool="mrsf_add_batch")["parameters"]["comments"]
    assert batch["type"] == "object[]"
    assert batch["items"]["author"]["required"] is True


def test_help_unknown_tool(reading: tuple[Server, Path]) -> None:
    server, _ = reading
    text, data = server.fail("mrsf_help", tool="mrsf_nope")
    assert "There is no tool called 'mrsf_nope'" in text
    assert "mrsf_add" in text
    # a huge or hostile name is not echoed whole (15 MB in gave 31 MB out)
    text, _ = server.fail("mrsf_help", tool="x" * 200_000 + "\x1b[31m")
    assert len(text) < 2_000 and " characters)" in text and "\x1b" not in text


# ---------------------------------------------------------------------------
# Read-only tools
# ---------------------------------------------------------------------------


def test_discover(reading: tuple[Server, Path]) -> None:
    server, work = reading
    found = server.ok("mrsf_discover", document="doc.md")
    assert found["sidecarPath"] == str(work / "doc.md.review.yaml")
    assert found["documentPath"] == str(work / "doc.md")
    assert found["version"] == sha(work / "doc.md.review.yaml")
    text, _ = server.fail("mrsf_discover", document="other.md")
    assert text.startswith("This document has no sidecar yet")


def test_validate(server: Server, work: Path) -> None:
    result = server.ok("mrsf_validate", files=["doc.md"])
    assert result["valid"] is True
    assert result["version"] == sha(work / "doc.md.review.yaml")
    # a file named many times, or under two spellings, is validated once (16,000 copies of
    # one name took 12 s and answered 5.7 MB)
    many = server.ok("mrsf_validate", files=["doc.md"] * 3000 + ["./doc.md", "doc.md.review.yaml"])
    assert many["valid"] is True and len(many["files"]) == 1
    (work / "bad.md").write_text("# Bad\n", encoding="utf-8")
    (work / "bad.md.review.yaml").write_text(
        'mrsf_version: "1.0"\ndocument: bad.md\ncomments:\n  - id: x\n    author: A\n'
        '    timestamp: "2026-01-01T00:00:00Z"\n    text: no resolved\n',
        encoding="utf-8",
    )
    result = server.ok("mrsf_validate", files=["bad.md.review.yaml"])
    assert result["valid"] is False
    errors = result["files"][0]["result"]["errors"]
    assert any("resolved" in e["message"] for e in errors)
    assert all(e.get("code") for e in errors)
    everything = server.ok("mrsf_validate")
    assert len(everything["files"]) == 2 and everything["valid"] is False


def test_list_full_compact_summary(reading: tuple[Server, Path]) -> None:
    server, work = reading
    full = server.ok("mrsf_list", files=["doc.md.review.yaml"])
    assert [c["id"] for c in full["files"][0]["comments"]] == ["c1", "c2", "c3"]
    assert full["version"] == sha(work / "doc.md.review.yaml")
    compact = server.tool("mrsf_list", files=["doc.md.review.yaml"], format="compact")
    text = compact["content"][0]["text"]
    assert "doc.md.review.yaml" in text and "Parent comment" in text and "○" in text
    with pytest.raises(json.JSONDecodeError):
        json.loads(text)
    summary = server.ok("mrsf_list", summary=True)["summary"]
    assert summary["total"] == 3 and summary["open"] == 3
    filtered = server.ok("mrsf_list", author="Carol")
    assert [c["id"] for c in filtered["files"][0]["comments"]] == ["c3"]


def test_status(reading: tuple[Server, Path]) -> None:
    server, work = reading
    result = server.ok("mrsf_status", files=["doc.md"])
    health = {r["commentId"]: r["health"] for r in result["results"]}
    assert health == {"c1": "fresh", "c2": "fresh", "c3": "fresh"}  # the reply takes its parent's health
    assert result["counts"] == {"total": 3, "fresh": 3, "stale": 0, "orphaned": 0, "unknown": 0}
    assert result["version"] == sha(work / "doc.md.review.yaml")


# ---------------------------------------------------------------------------
# Writing tools, versions and conflicts
# ---------------------------------------------------------------------------


def test_add_captures_line_and_returns_new_version(server: Server, work: Path) -> None:
    before = sha(work / "doc.md.review.yaml")
    added = server.ok("mrsf_add", document="doc.md", text="Look", author="Dana", line=4, expectedVersion=before)
    assert added["status"] == "added"
    assert added["line"] == 4
    assert added["end_line"] in (None, 4)
    assert added["version"] == sha(work / "doc.md.review.yaml") != before
    stored = comments_of(work / "doc.md.review.yaml")[-1]
    assert stored["id"] == added["id"]
    assert stored["selected_text"] == "Second line with a target phrase in it."


def test_stale_expected_version_is_a_conflict_and_writes_nothing(server: Server, work: Path) -> None:
    stale = sha(work / "doc.md.review.yaml")
    server.ok("mrsf_add", document="doc.md", text="first", author="A", expectedVersion=stale)
    current = sha(work / "doc.md.review.yaml")
    before = snapshot(work)
    result = server.tool("mrsf_add", document="doc.md", text="second", author="B", expectedVersion=stale)
    assert result["isError"] is True
    assert result["structuredContent"] == {
        "status": "conflict",
        "code": "version-mismatch",
        "currentVersion": current,
        "expectedVersion": stale,
    }
    assert snapshot(work) == before
    for tool, args in (
        ("mrsf_update", {"document": "doc.md", "id": "c1", "text": "x"}),
        ("mrsf_resolve", {"document": "doc.md", "id": "c1"}),
        ("mrsf_delete", {"document": "doc.md", "id": "c1"}),
        ("mrsf_add_batch", {"document": "doc.md", "comments": [{"text": "t", "author": "a"}]}),
        ("mrsf_repair", {"document": "doc.md"}),
        ("mrsf_reanchor", {"files": ["doc.md"]}),
        ("mrsf_rename", {"oldDocument": "doc.md", "newDocument": "moved.md"}),
    ):
        result = server.tool(tool, **args, expectedVersion=stale)
        assert result["isError"] is True, tool
        assert result["structuredContent"]["code"] == "version-mismatch", tool
        assert result["structuredContent"]["currentVersion"] == current, tool
        assert snapshot(work) == before, tool


def test_add_with_document_text_uses_the_buffer(server: Server, work: Path) -> None:
    buffer = "Unsaved line one.\nUnsaved line two.\n"
    added = server.ok("mrsf_add", document="doc.md", text="t", author="A", line=2, documentText=buffer)
    stored = next(c for c in comments_of(work / "doc.md.review.yaml") if c["id"] == added["id"])
    assert stored["selected_text"] == "Unsaved line two."


def test_add_new_sidecar_and_extensions(server: Server, work: Path) -> None:
    (work / "new.md").write_text("alpha\nbeta\n", encoding="utf-8")
    added = server.ok(
        "mrsf_add", document="new.md", text="t", author="A", line=1, extensions={"x_source": "mcp", "x_rank": 2}
    )
    assert added["version"] == sha(work / "new.md.review.yaml")
    assert added["previousVersion"] is None
    stored = comments_of(work / "new.md.review.yaml")[0]
    assert stored["x_source"] == "mcp" and stored["x_rank"] == 2 and stored["selected_text"] == "alpha"
    before = snapshot(work)
    text, _ = server.fail("mrsf_add", document="new.md", text="t", author="A", extensions={"bad": 1})
    assert "x_" in text
    assert snapshot(work) == before


def test_add_batch(server: Server, work: Path) -> None:
    result = server.ok(
        "mrsf_add_batch",
        document="doc.md",
        comments=[
            {"text": "one", "author": "A", "line": 1},
            {"text": "two", "author": "B", "line": 3, "severity": "low"},
            {"text": "three", "author": "C"},
        ],
    )
    assert result["total"] == 3 and len(result["added"]) == 3
    assert result["version"] == sha(work / "doc.md.review.yaml")
    stored = comments_of(work / "doc.md.review.yaml")
    assert [c["text"] for c in stored[-3:]] == ["one", "two", "three"]
    assert stored[-3]["selected_text"] == "# Title"


def test_update(server: Server, work: Path) -> None:
    result = server.ok("mrsf_update", document="doc.md", id="c1", text="Edited", line=8)
    assert set(result["updated"]) >= {"text", "line"}
    stored = comments_of(work / "doc.md.review.yaml")[0]
    assert stored["text"] == "Edited" and stored["line"] == 8
    assert stored["selected_text"] == "Last line."
    assert result["version"] == sha(work / "doc.md.review.yaml")


def test_unknown_comment_id_is_an_error_and_writes_nothing(server: Server, work: Path) -> None:
    before = snapshot(work)
    for tool in ("mrsf_update", "mrsf_delete"):
        text, data = server.fail(tool, document="doc.md", id="ghost", **({"text": "x"} if tool == "mrsf_update" else {}))
        assert "ghost" in text
        assert data is not None and data["code"] == "comment-not-found"
    result = server.ok("mrsf_resolve", document="doc.md", ids=["ghost"])
    assert result["notFound"] == ["ghost"] and result["changed"] == []
    assert snapshot(work) == before


def test_resolve_variants(server: Server, work: Path) -> None:
    result = server.ok("mrsf_resolve", document="doc.md.review.yaml", id="c3")
    assert result == {**result, "resolved": True, "changed": ["c3"]}
    assert comments_of(work / "doc.md.review.yaml")[2]["resolved"] is True
    result = server.ok("mrsf_resolve", document="doc.md", id="c3", unresolve=True)
    assert result["resolved"] is False
    assert comments_of(work / "doc.md.review.yaml")[2]["resolved"] is False
    result = server.ok("mrsf_resolve", document="doc.md", ids=["c1", "ghost"])
    assert result["changed"] == ["c1"] and result["notFound"] == ["ghost"]
    result = server.ok("mrsf_resolve", document="doc.md", author="Bob")
    assert result["changed"] == ["c2"]
    text, _ = server.fail("mrsf_resolve", document="doc.md")
    assert "Nothing selected: give id, ids, or at least one of author, type, severity" in text


def test_delete_promotes_or_cascades(server: Server, work: Path) -> None:
    result = server.ok("mrsf_delete", document="doc.md", id="c1")
    assert result["deleted"] is True and result["cascade"] is False
    stored = {c["id"]: c for c in comments_of(work / "doc.md.review.yaml")}
    assert "c1" not in stored
    assert "reply_to" not in stored["c2"] and stored["c2"]["line"] == 3
    (work / "doc.md.review.yaml").write_text(SIDECAR, encoding="utf-8")
    server.ok("mrsf_delete", document="doc.md", id="c1", cascade=True)
    assert [c["id"] for c in comments_of(work / "doc.md.review.yaml")] == ["c3"]


def test_rename(server: Server, work: Path) -> None:
    (work / "docs").mkdir()
    (work / "doc.md").rename(work / "docs" / "moved.md")
    result = server.ok("mrsf_rename", oldDocument="doc.md", newDocument="docs/moved.md")
    assert result["newSidecar"] == str(work / "docs" / "moved.md.review.yaml")
    assert not (work / "doc.md.review.yaml").exists()
    assert result["version"] == sha(work / "docs" / "moved.md.review.yaml")


def test_rename_onto_a_missing_document_says_so(server: Server, work: Path) -> None:
    result = server.ok("mrsf_rename", oldDocument="doc.md", newDocument="gone.md")
    assert result["note"].startswith("gone.md does not exist (yet)")
    assert (work / "gone.md.review.yaml").exists()


def test_a_comment_anchored_in_an_unsaved_buffer_is_noted(server: Server, work: Path) -> None:
    buffer = "A line only the editor has.\n" + (work / "doc.md").read_text(encoding="utf-8")
    result = server.ok("mrsf_add", document="doc.md", text="t", author="a", line=1, documentText=buffer)
    assert "differs from doc.md on disk (unsaved changes?)" in result["note"]
    assert result["comment"]["selected_text"] == "A line only the editor has."


def test_reanchor_with_document_text_and_dry_run(server: Server, work: Path) -> None:
    shifted = "New first line.\n" + DOC
    before = snapshot(work)
    dry = server.ok("mrsf_reanchor", files=["doc.md"], documentText=shifted, dryRun=True)
    assert dry["dryRun"] is True and dry["totalChanged"] >= 2
    assert snapshot(work) == before
    done = server.ok("mrsf_reanchor", files=["doc.md"], documentText=shifted)
    assert done["totalOrphaned"] == 0
    stored = {c["id"]: c for c in comments_of(work / "doc.md.review.yaml")}
    assert stored["c1"]["line"] == 4 and stored["c3"]["line"] == 5
    assert done["version"] == sha(work / "doc.md.review.yaml")


def test_repair_malformed_sidecar(server: Server, work: Path) -> None:
    broken = SIDECAR.replace("    text: A reply\n", "    text: [unclosed\n")
    (work / "doc.md.review.yaml").write_text(broken, encoding="utf-8")
    result = server.ok("mrsf_repair", document="doc.md")
    assert result["strategy"] == "salvage"
    assert result["commentsRecovered"] >= 2
    assert result["version"] == sha(work / "doc.md.review.yaml")
    assert server.ok("mrsf_validate", files=["doc.md"])["files"][0]["result"]["errors"] == []
    reset = server.ok("mrsf_repair", document="doc.md", strategy="reset")
    assert reset["commentsRecovered"] == 0
    assert comments_of(work / "doc.md.review.yaml") == []


# ---------------------------------------------------------------------------
# Bad input: each a clear error, nothing written
# ---------------------------------------------------------------------------


def test_malformed_yaml_sidecar_is_refused_untouched(server: Server, work: Path) -> None:
    (work / "doc.md.review.yaml").write_text('mrsf_version: "1.0"\ncomments: [\n  - id: x\n', encoding="utf-8")
    before = snapshot(work)
    for tool, args in (
        ("mrsf_add", {"document": "doc.md", "text": "t", "author": "a"}),
        ("mrsf_update", {"document": "doc.md", "id": "x", "text": "t"}),
        ("mrsf_list", {"files": ["doc.md"]}),
        ("mrsf_resolve", {"document": "doc.md", "id": "x"}),
    ):
        text, data = server.fail(tool, **args)
        assert "YAML" in text and "line" in text, (tool, text)
        assert data is not None and data["code"] == "malformed-yaml", tool
    assert snapshot(work) == before


def test_path_escape_with_dotdot(server: Server, work: Path) -> None:
    outside = work.parent / "outside.md"
    outside.write_text("secret\n", encoding="utf-8")
    before = snapshot(work.parent)
    for tool, args in (
        ("mrsf_add", {"document": "../outside.md", "text": "t", "author": "a"}),
        ("mrsf_discover", {"document": "../outside.md"}),
        ("mrsf_list", {"files": ["../outside.md"]}),
        ("mrsf_add", {"document": "doc.md", "text": "t", "author": "a", "cwd": ".."}),
    ):
        text, data = server.fail(tool, **args)
        assert "outside the allowed folders" in text and ROOT_HINT in text, text  # the message of every server
        assert data is not None and data["code"] == "path-escape"
    assert snapshot(work.parent) == before


def test_path_escape_with_symlink(server: Server, work: Path) -> None:
    outside = work.parent / "elsewhere"
    outside.mkdir()
    (outside / "x.md").write_text("x\n", encoding="utf-8")
    os.symlink(outside, work / "link")
    before = snapshot(outside)
    text, _ = server.fail("mrsf_add", document="link/x.md", text="t", author="a", line=1)
    assert "outside the allowed folders" in text and ROOT_HINT in text
    assert snapshot(outside) == before
    assert not (outside / "x.md.review.yaml").exists()


def test_resource_path_escape(server: Server, work: Path) -> None:
    answer = server.call("resources/read", {"uri": "mrsf://sidecar/../outside.md.review.yaml"})
    assert "error" in answer


@pytest.mark.parametrize(
    "arguments, name",
    [
        ({"document": "doc.md", "text": "t", "author": "a", "line": "3"}, "line"),
        ({"document": "doc.md", "text": "t", "author": "a", "line": 0}, "line"),
        ({"document": "doc.md", "text": 5, "author": "a"}, "text"),
        ({"document": "doc.md", "text": "t"}, "author"),
        ({"document": "doc.md", "text": "t", "author": "a", "severity": "urgent"}, "severity"),
        ({"document": "doc.md", "text": "t", "author": "a", "colour": "red"}, "colour"),
    ],
)
def test_wrong_argument_types(reading: tuple[Server, Path], arguments: dict[str, Any], name: str) -> None:
    server, work = reading
    before = snapshot(work)
    text, _ = server.fail("mrsf_add", **arguments)
    assert name in text
    assert snapshot(work) == before


# ---------------------------------------------------------------------------
# Resources
# ---------------------------------------------------------------------------


def test_resource_templates_and_reads(server: Server, work: Path) -> None:
    templates = server.call("resources/templates/list")["result"]["resourceTemplates"]
    assert {t["uriTemplate"] for t in templates} == {
        "mrsf://sidecar/{+path}",
        "mrsf://comment/{+path}/{id}",
        "mrsf://anchors/{+path}",
    }
    sidecar = server.call("resources/read", {"uri": "mrsf://sidecar/doc.md.review.yaml"})["result"]
    data = json.loads(sidecar["contents"][0]["text"])
    assert [c["id"] for c in data["comments"]] == ["c1", "c2", "c3"]
    comment = server.call("resources/read", {"uri": "mrsf://comment/doc.md.review.yaml/c3"})["result"]
    assert json.loads(comment["contents"][0]["text"])["selected_text"] == "target phrase"
    anchors = server.call("resources/read", {"uri": "mrsf://anchors/doc.md"})["result"]
    rows = json.loads(anchors["contents"][0]["text"])
    assert {r["commentId"]: r["health"] for r in rows} == {"c1": "fresh", "c2": "fresh", "c3": "fresh"}
    missing = server.call("resources/read", {"uri": "mrsf://comment/doc.md.review.yaml/ghost"})
    assert "error" in missing and "ghost" in missing["error"]["message"]


def test_the_review_skill_is_served_and_names_only_real_tools_and_arguments(server: Server) -> None:
    listed = server.call("resources/list")["result"]["resources"]
    assert [(r["uri"], r["mimeType"]) for r in listed] == [("mrsf://skill", "text/markdown")]
    text = server.call("resources/read", {"uri": "mrsf://skill"})["result"]["contents"][0]["text"]
    assert text.startswith("---\nname: mrsf-review\n")
    tools = {t["name"]: set(t["inputSchema"]["properties"]) for t in server.call("tools/list")["result"]["tools"]}
    named = set(re.findall(r"`(mrsf_[a-z_]+)`", text))
    assert named and named <= set(tools)
    # an argument the skill spells `name: value` belongs to some tool
    arguments = set().union(*tools.values())
    spelled = set(re.findall(r"`([a-zA-Z_]+): (?:true|[a-z]+)`", text))
    assert spelled and spelled <= arguments, spelled - arguments


# ---------------------------------------------------------------------------
# The upstream examples, and the command line of the server
# ---------------------------------------------------------------------------


def test_upstream_examples_over_mcp(tmp_path: Path) -> None:
    import shutil

    from conftest import shared_dir

    workspace = tmp_path / "examples"
    shutil.copytree(shared_dir("mrsf", "examples"), workspace)
    before = snapshot(workspace)
    srv = Server(workspace)
    try:
        validated = srv.ok("mrsf_validate")
        assert validated["valid"] is True and len(validated["files"]) == 6
        for entry in validated["files"]:
            assert entry["version"] == sha(Path(entry["file"]))
        listed = srv.ok("mrsf_list", summary=True)
        assert listed["summary"]["total"] == 28
        assert sum(entry["count"] for entry in listed["files"]) == 28
        threads = srv.ok("mrsf_list", files=["data-model.md"])["files"][0]["comments"]
        assert any(c.get("reply_to") for c in threads)
    finally:
        assert "Traceback" not in srv.finish()[1]
    assert snapshot(workspace) == before


def test_server_command_line(tmp_path: Path) -> None:
    helped = subprocess.run(
        [sys.executable, "-m", "markmcp.mrsf.server", "--help"], capture_output=True, text=True, timeout=60
    )
    assert helped.returncode == 0
    assert "mrsf-mcp" in helped.stdout and "default 3001" in helped.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "markmcp.mrsf.server", "--transport", "carrier-pigeon"],
        capture_output=True, text=True, timeout=60,
    )
    assert bad.returncode == 2
    assert "carrier-pigeon" in bad.stderr and bad.stdout == ""
    assert "Traceback" not in bad.stderr


def test_engine_argument_errors_are_clear(server: Server, work: Path) -> None:
    before = snapshot(work)
    for tool, args, words in (
        ("mrsf_update", {"document": "doc.md", "id": "c1"}, "Nothing to update"),
        ("mrsf_add", {"document": "doc.md", "text": "t", "author": "a", "line": 99}, "past the end"),
        ("mrsf_add", {"document": "doc.md", "text": "t", "author": "a", "reply_to": "nope"}, "nope"),
        ("mrsf_add_batch", {"document": "doc.md", "comments": []}, "at least one"),
        ("mrsf_reanchor", {"files": ["doc.md", "other.md"], "documentText": "x"}, "exactly one file"),
    ):
        text, data = server.fail(tool, **args)
        assert words in text, (tool, text)
        assert data is not None and data["code"] == "invalid-argument"
    assert snapshot(work) == before


def test_symlinked_sidecar_leaving_the_working_directory_is_refused(tmp_path: Path) -> None:
    """The workspace root (a git repository) is above the server's directory; a sidecar
    symlinked to elsewhere in the repository is still outside what the server may touch."""
    repo = tmp_path / "repo"
    (repo / "sub").mkdir(parents=True)
    (repo / "elsewhere").mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "sub" / "d.md").write_text("a\nb\n", encoding="utf-8")
    (repo / "elsewhere" / "x.yaml").write_text('mrsf_version: "1.0"\ndocument: sub/d.md\ncomments: []\n', encoding="utf-8")
    os.symlink("../elsewhere/x.yaml", repo / "sub" / "d.md.review.yaml")
    before = snapshot(repo / "elsewhere")
    srv = Server(repo / "sub")
    try:
        for tool, args in (
            ("mrsf_add", {"document": "d.md", "text": "t", "author": "a", "line": 1}),
            ("mrsf_repair", {"document": "d.md", "strategy": "reset"}),
            ("mrsf_discover", {"document": "d.md"}),
        ):
            text, data = srv.fail(tool, **args)
            assert "outside the allowed folders" in text and ROOT_HINT in text, (tool, text)
            assert data is not None and data["code"] == "path-escape"
    finally:
        assert "Traceback" not in srv.finish()[1]
    assert snapshot(repo / "elsewhere") == before


def test_list_open_and_resolved_filters(server: Server, work: Path) -> None:
    server.ok("mrsf_resolve", document="doc.md", id="c3")
    ids = lambda result: [c["id"] for c in result["files"][0]["comments"]]  # noqa: E731
    assert ids(server.ok("mrsf_list", files=["doc.md"], open=True)) == ["c1", "c2"]
    assert ids(server.ok("mrsf_list", files=["doc.md"], resolved=True)) == ["c3"]
    assert ids(server.ok("mrsf_list", files=["doc.md"], open=False)) == ["c1", "c2", "c3"]


def test_validate_strict_and_reanchor_of_every_sidecar(server: Server, work: Path) -> None:
    (work / "doc.md.review.yaml").write_text(SIDECAR.replace("reply_to: c1", "reply_to: ghost"), encoding="utf-8")
    lenient = server.ok("mrsf_validate", files=["doc.md"])
    assert lenient["valid"] is True
    assert [w["code"] for w in lenient["files"][0]["result"]["warnings"]] == ["unresolved-reply-to"]
    assert server.ok("mrsf_validate", files=["doc.md"], strict=True)["valid"] is False
    (work / "two.md").write_text("# Two\n\nTwo lines.\n", encoding="utf-8")
    server.ok("mrsf_add", document="two.md", text="t", author="a", line=3)
    (work / "two.md").write_text("# Two\n\nNew.\n\nTwo lines.\n", encoding="utf-8")
    (work / "doc.md").write_text("Top.\n" + DOC, encoding="utf-8")
    result = server.ok("mrsf_reanchor")
    assert sorted(Path(f["file"]).name for f in result["files"]) == ["doc.md.review.yaml", "two.md.review.yaml"]
    assert result["version"] is None and result["totalOrphaned"] == 0
    assert comments_of(work / "two.md.review.yaml")[0]["line"] == 5
    assert comments_of(work / "doc.md.review.yaml")[0]["line"] == 4


def test_schemas_are_valid_json_schema(reading: tuple[Server, Path]) -> None:
    server, _ = reading
    from jsonschema import Draft202012Validator

    for tool in server.call("tools/list")["result"]["tools"]:
        Draft202012Validator.check_schema(tool["inputSchema"])
        Draft202012Validator.check_schema(tool["outputSchema"])


def test_binary_sidecar_is_a_clear_error(server: Server, work: Path) -> None:
    (work / "doc.md.review.yaml").write_bytes(b"mrsf_version: \xff\xfe\x00\n")
    before = snapshot(work)
    for tool, args in (
        ("mrsf_list", {"files": ["doc.md"]}),
        ("mrsf_add", {"document": "doc.md", "text": "t", "author": "a"}),
    ):
        text, data = server.fail(tool, **args)
        assert "UTF-8" in text, text
        assert data is not None and data["code"] == "encoding-error"
    assert snapshot(work) == before


def test_reanchor_over_several_sidecars_ignores_expected_version_and_says_so(server: Server, work: Path) -> None:
    """The spec's concurrency section: expectedVersion guards one sidecar; for a multi-target
    mrsf_reanchor it is ignored and the reply notes it (it was refused)."""
    (work / "sub").mkdir()
    write_pair(work / "sub")
    result = server.ok("mrsf_reanchor", files=["doc.md", "sub/doc.md"], dryRun=True, expectedVersion="0" * 64)
    assert len(result["files"]) == 2
    assert "expectedVersion ignored" in result["note"]
    single = server.ok("mrsf_reanchor", files=["doc.md"], dryRun=True)
    assert "note" not in single
    text, _ = server.fail("mrsf_reanchor", files=["doc.md", "sub/doc.md"], documentText="x")
    assert "documentText needs exactly one file (got 2)" in text


def test_resolve_with_both_id_and_ids_is_a_usage_error(server: Server, work: Path) -> None:
    before = snapshot(work)
    text, data = server.fail("mrsf_resolve", document="doc.md", id="c1", ids=["c2"])
    assert "id" in text and "ids" in text and "not both" in text
    assert data is not None and data["code"] == "invalid-argument"
    assert snapshot(work) == before


def test_one_malformed_sidecar_does_not_block_workspace_reads(server: Server, work: Path) -> None:
    """mrsf_list / mrsf_status over the workspace or a folder answer the healthy sidecars
    and list the broken one under ``notRead``; naming the broken file alone stays an error,
    its path said once."""
    (work / "sub").mkdir()
    write_pair(work / "sub")
    (work / "sub" / "bad.md").write_text("x\n", encoding="utf-8")
    (work / "sub" / "bad.md.review.yaml").write_text("comments: [\n  - {id: \n", encoding="utf-8")
    before = snapshot(work)
    for tool, args in (("mrsf_list", {}), ("mrsf_list", {"format": "compact"}), ("mrsf_status", {}),
                       ("mrsf_list", {"files": ["sub"]}), ("mrsf_status", {"files": ["sub"]}),
                       ("mrsf_reanchor", {"dryRun": True})):
        result = server.ok(tool, **args)
        assert [(Path(e["file"]).name, e["code"]) for e in result["notRead"]] == [
            ("bad.md.review.yaml", "malformed-yaml")], (tool, args)
        assert all(Path(f["file"]).name == "doc.md.review.yaml" for f in result["files"]), (tool, args)
        assert result["files"], (tool, args)
    compact = server.tool("mrsf_list", format="compact")["content"]
    assert "bad.md" not in compact[0]["text"] and "NOT READ — " in compact[1]["text"]
    assert "bad.md.review.yaml" in compact[1]["text"]
    text, _ = server.fail("mrsf_list", files=["sub/bad.md"])
    assert text.count("bad.md.review.yaml") == 1, text
    assert snapshot(work) == before


def test_missing_sidecar_error_names_no_command_the_server_lacks(server: Server, work: Path) -> None:
    (work / "lonely.md").write_text("a\n", encoding="utf-8")
    text, _ = server.fail("mrsf_resolve", document="lonely.md", id="c1")
    assert "no sidecar" in text and "init" not in text


def test_a_sweep_reads_what_it_can_and_names_every_sidecar_it_did_not_read(server: Server, work: Path) -> None:
    """Over every sidecar (no ``files``), a FIFO and a sidecar symlinked out of the allowed
    folders neither abort the run nor vanish: validate, reanchor, list and status answer
    the readable sidecar and list the two others in ``notRead`` (code and why), the same
    way, and say so in a second text block; validation is not ``valid`` overall."""
    outside = work.parent / "elsewhere.yaml"
    outside.write_text('mrsf_version: "1.0"\ndocument: three.md\ncomments: []\n', encoding="utf-8")
    (work / "three.md").write_text("three\n", encoding="utf-8")
    os.symlink(outside, work / "three.md.review.yaml")
    (work / "two.md").write_text("two\n", encoding="utf-8")
    os.mkfifo(work / "two.md.review.yaml")
    before = snapshot(work)
    wanted = [("three.md.review.yaml", "path-escape"), ("two.md.review.yaml", "not-regular")]
    for tool, args in (("mrsf_validate", {}), ("mrsf_validate", {"strict": True}), ("mrsf_reanchor", {"dryRun": True}),
                       ("mrsf_reanchor", {}), ("mrsf_list", {}), ("mrsf_list", {"summary": True}),
                       ("mrsf_list", {"format": "compact"}), ("mrsf_status", {}), ("mrsf_status", {"files": ["."]})):
        result = server.tool(tool, **args)
        assert result["isError"] is False, (tool, result["content"][0]["text"])
        data = result["structuredContent"]
        assert sorted((Path(e["file"]).name, e["code"]) for e in data["notRead"]) == wanted, (tool, args)
        assert [Path(f["file"]).name for f in data["files"]] == ["doc.md.review.yaml"], (tool, args)
        escape = next(e for e in data["notRead"] if e["code"] == "path-escape")["message"]
        assert "outside the allowed folders" in escape and ROOT_HINT in escape and str(outside) in escape
        assert "FIFO" in next(e for e in data["notRead"] if e["code"] == "not-regular")["message"]
        extra = result["content"][1]["text"]
        assert extra.startswith("PARTIAL: 2 sidecar(s) found but not read"), extra
        assert extra.count("NOT READ — ") == 2 and "two.md.review.yaml" in extra and "three.md.review.yaml" in extra
    assert server.ok("mrsf_validate")["valid"] is False  # the readable sidecar is valid, but not every one was read
    assert server.ok("mrsf_validate", files=["doc.md"])["valid"] is True
    text, data = server.fail("mrsf_validate", files=["two.md"])
    assert "FIFO" in text and data is not None and data["code"] == "not-regular"
    assert snapshot(work) == before


def test_a_sidecar_symlinked_out_is_refused_in_the_shared_words(server: Server, work: Path) -> None:
    """Named alone, the sidecar symlinked out of the allowed folders is refused as every
    markmcp path refusal reads: the path, where it leads, the folders, how to allow it."""
    outside = work.parent / "elsewhere.yaml"
    outside.write_text('mrsf_version: "1.0"\ndocument: three.md\ncomments: []\n', encoding="utf-8")
    (work / "three.md").write_text("three\n", encoding="utf-8")
    os.symlink(outside, work / "three.md.review.yaml")
    for tool, args in (("mrsf_list", {"files": ["three.md"]}), ("mrsf_status", {"files": ["three.md"]}),
                       ("mrsf_add", {"document": "three.md", "text": "t", "author": "a", "line": 1})):
        text, data = server.fail(tool, **args)
        assert text == (f"path 'three.md.review.yaml' resolves to {outside}, outside the allowed folders ({work}); "
                        f"{ROOT_HINT}"), (tool, text)
        assert data is not None and data["code"] == "path-escape"


def test_a_reply_shares_its_orphaned_parents_verdict_in_every_tool(server: Server, work: Path) -> None:
    """MRSF §6.2/§10.1: a reply without targeting fields inherits its parent's anchor.  Once
    the parent's paragraph is gone, status, reanchor (dry run and real) and the list
    summary all call the reply orphaned and count the same two orphans."""
    (work / "doc.md").write_text(DOC.replace("First paragraph line one.\n", ""), encoding="utf-8")
    status = server.ok("mrsf_status", files=["doc.md"])
    health = {r["commentId"]: r["health"] for r in status["results"]}
    assert health["c1"] == health["c2"] == "orphaned" and status["counts"]["orphaned"] == 2
    for dry in (True, False):
        result = server.ok("mrsf_reanchor", files=["doc.md"], dryRun=dry)
        by_id = {r["commentId"]: r for r in result["files"][0]["results"]}
        assert by_id["c1"]["status"] == by_id["c2"]["status"] == "orphaned", by_id
        assert "inherits its parent's anchor" in by_id["c2"]["reason"] and by_id["c2"]["changed"] == []
        assert result["totalOrphaned"] == 2
    stored = {c["id"]: c for c in comments_of(work / "doc.md.review.yaml")}
    assert "x_reanchor_status" not in stored["c2"] and "line" not in stored["c2"]  # nothing written on the reply
    assert server.ok("mrsf_list", files=["doc.md"], summary=True)["summary"]["orphaned"] == 2
    assert server.ok("mrsf_status", files=["doc.md"])["counts"]["orphaned"] == 2
    assert server.ok("mrsf_list", files=["doc.md"], summary=True, author="Bob")["summary"]["orphaned"] == 1


def test_add_counts_lines_as_an_editor_and_notes_a_blank_line(server: Server, work: Path) -> None:
    """DOC has 8 lines and ends with a newline (``wc -l`` says 8): line 9 is refused with
    that count; a blank line inside is accepted, with a note that it has no text to follow."""
    assert DOC.count("\n") == 8 and DOC.endswith("\n")
    before = snapshot(work)
    for args in ({"line": 9}, {"line": 8, "end_line": 9}):
        text, data = server.fail("mrsf_add", document="doc.md", text="t", author="a", **args)
        assert text == "line 9 is past the end of the document (8 lines)", text
        assert data is not None and data["code"] == "invalid-argument"
    text, _ = server.fail("mrsf_add_batch", document="doc.md", comments=[{"text": "t", "author": "a", "line": 9}])
    assert "(8 lines)" in text
    assert snapshot(work) == before
    result = server.tool("mrsf_add", document="doc.md", text="t", author="a", line=2)
    assert result["isError"] is False
    note = result["structuredContent"]["note"]
    assert note.startswith("line 2 is blank: the anchor has no text to follow"), note
    assert result["content"][1]["text"] == f"NOTE: {note}"
    assert "note" not in server.ok("mrsf_add", document="doc.md", text="t", author="a", line=8)
    batch = server.ok("mrsf_add_batch", document="doc.md", comments=[
        {"text": "t", "author": "a", "line": 3}, {"text": "t", "author": "a", "line": 5}])
    assert batch["note"].startswith("comment 1: line 5 is blank"), batch["note"]


def test_update_onto_a_blank_line_notes_it_as_add_does(server: Server, work: Path) -> None:
    """mrsf_update moving an anchor onto a blank line says what mrsf_add says of one."""
    added = server.tool("mrsf_add", document="doc.md", text="t", author="a", line=2)["structuredContent"]["note"]
    result = server.tool("mrsf_update", document="doc.md", id="c1", line=5)
    assert result["isError"] is False
    note = result["structuredContent"]["note"]
    assert note == added.replace("line 2", "line 5"), note
    assert result["content"][1]["text"] == f"NOTE: {note}"
    stored = {c["id"]: c for c in comments_of(work / "doc.md.review.yaml")}
    assert stored["c1"]["line"] == 5 and stored["c1"]["selected_text"] == ""
    # onto a line with text, or a change that moves nothing: no note
    assert "note" not in server.ok("mrsf_update", document="doc.md", id="c1", line=8)
    assert "note" not in server.ok("mrsf_update", document="doc.md", id="c3", text="Reworded")
    spanned = server.ok("mrsf_update", document="doc.md", id="c1", line=5, end_line=5)
    assert spanned["note"].startswith("line 5 is blank"), spanned


def test_add_batch_replies_within_the_list_by_a_given_id(server: Server, work: Path) -> None:
    """The description says a reply may name another comment of the same list: a batch
    item may carry its id (MRSF §6.1: any unique string), which a later item's reply_to names."""
    tools = {t["name"]: t for t in server.call("tools/list")["result"]["tools"]}
    batch = tools["mrsf_add_batch"]
    assert "id" in batch["inputSchema"]["properties"]["comments"]["items"]["properties"]
    assert "give the parent an id" in batch["description"]
    parent = "3f1c7a52-0b7e-4f7e-9a55-5a0d2d1f8c01"
    result = server.ok("mrsf_add_batch", document="doc.md", comments=[
        {"id": parent, "text": "Why?", "author": "a", "line": 3},
        {"text": "Because.", "author": "b", "reply_to": parent}])
    assert result["added"][0]["id"] == parent
    stored = {c["id"]: c for c in comments_of(work / "doc.md.review.yaml")}
    assert stored[result["added"][1]["id"]]["reply_to"] == parent
    before = snapshot(work)
    text, data = server.fail("mrsf_add_batch", document="doc.md", comments=[
        {"text": "t", "author": "a"}, {"id": "c1", "text": "t", "author": "a"}])
    assert "comment 1" in text and "c1" in text and data is not None and data["code"] == "duplicate-id"
    assert snapshot(work) == before
