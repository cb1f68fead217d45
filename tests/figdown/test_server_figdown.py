"""``figdown-mcp`` over a real stdio subprocess, raw JSON-RPC: every tool, every channel.

Channels: a JSON-RPC error for a protocol fault (unknown tool), ``isError`` for a malformed
request (both/neither of source and path, no such file, a directory where one document is
needed, a path outside the server's folders, an unknown reference), and a normal result
whose first line is ``PARSE FAILED — …`` for a document that does not parse.  Every
normal result carries ``structuredContent`` valid against the tool's ``outputSchema``.
"""

from __future__ import annotations

import http.client
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from mcpwire import HttpServer, StdioClient, module_command, wipe

from markmcp.figdown import model_json, parse

TIMEOUT = 30.0
CLEAN = 'figdown 0.1 block\ntitle "Pair"\nnode a "A"\nnode b ""\nnode c\nedge a -> b\nlayout\npin a at=(1,2)\n'
BROKEN = 'figdown 0.1 block\nnode a "A"\nfrobnicate\nedge a -> nowhere\n'
SEQUENCE = (
    'figdown 0.4 sequence\nlifeline c "Client"\nlifeline s "Server"\n'
    'message c -> s "hello"\nmessage c <- s "welcome"\nstate c "READY"\n'
)


class Server(StdioClient):
    """``python -m markmcp.figdown.server`` on stdio, one JSON-RPC message per line."""

    def __init__(self, cwd: Path, *args: str) -> None:
        super().__init__(module_command("markmcp.figdown.server", *args), cwd=cwd, timeout=TIMEOUT)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("figdown-mcp")
    files = {
        "figs/clean.fd": CLEAN,
        "figs/ladder.fd": SEQUENCE,
        "figs/sub/broken.fd": BROKEN,
        "figs/.git/skip.fd": "garbage\n",
        "figs/node_modules/skip.fd": "garbage\n",
        "figs/readme.md": "not a figure\n",
        "empty/.keep": "",
    }
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    (root / "figs" / "latin.bin").write_bytes(b"figdown 0.1 block\nnode a \"caf\xe9\"\n")
    return root


@pytest.fixture(scope="module")
def server(workspace: Path) -> Iterator[Server]:
    with Server(workspace) as running:
        assert "result" in running.initialize(client="figdown-tests")
        yield running
        assert running.finish()[0] == 0


@pytest.fixture(scope="module")
def schemas(server: Server) -> dict[str, dict[str, Any]]:
    listing = server.call("tools/list")["result"]["tools"]
    return {tool["name"]: tool for tool in listing}


def texts(result: dict[str, Any]) -> list[str]:
    return [block["text"] for block in result["content"] if block["type"] == "text"]


def normal(result: dict[str, Any], tool: dict[str, Any]) -> dict[str, Any]:
    """Assert a normal result whose structuredContent matches the tool's outputSchema."""
    assert result.get("isError") is False, texts(result)
    structured = result["structuredContent"]
    jsonschema.validate(structured, tool["outputSchema"])
    return structured


def refused(result: dict[str, Any], fragment: str) -> None:
    assert result["isError"] is True
    assert fragment in texts(result)[0], texts(result)


# --- listing and protocol faults -----------------------------------------------------------


def test_four_tools_with_schemas_and_annotations(schemas: dict[str, dict[str, Any]]) -> None:
    assert set(schemas) == {"figdown_build", "figdown_check", "figdown_read", "figdown_reference"}
    for name, tool in schemas.items():
        assert tool["inputSchema"]["type"] == "object"
        assert tool["outputSchema"]["type"] == "object"
        assert tool["annotations"]["readOnlyHint"] is (name != "figdown_build")
    build = schemas["figdown_build"]
    assert set(build["inputSchema"]["properties"]) == {"source", "path", "write", "with_title", "return_svg",
                                                       "include_model"}
    assert build["annotations"]["destructiveHint"] is False and build["annotations"]["idempotentHint"] is True
    assert set(schemas["figdown_check"]["inputSchema"]["properties"]) == {"source", "path"}
    assert set(schemas["figdown_read"]["inputSchema"]["properties"]) == {"source", "path"}
    assert set(schemas["figdown_reference"]["inputSchema"]["properties"]) == {"name", "experimental"}


def test_unknown_tool_is_a_jsonrpc_error(server: Server) -> None:
    answer = server.call("tools/call", {"name": "figdown_render", "arguments": {"source": CLEAN}})
    assert "result" not in answer
    assert answer["error"]["code"] == -32602


def test_unknown_method_is_a_jsonrpc_error(server: Server) -> None:
    answer = server.call("figdown/whatever", {})
    assert answer["error"]["code"] == -32601


def test_wrong_argument_type_is_is_error(server: Server) -> None:
    refused(server.call_tool("figdown_check", {"source": 42}), "source")
    refused(server.call_tool("figdown_read", {"source": CLEAN, "extra": 1}), "extra")


# --- figdown_check ----------------------------------------------------------------------------


def test_check_clean_source(server: Server, schemas: dict[str, dict[str, Any]]) -> None:
    result = server.call_tool("figdown_check", {"source": CLEAN})
    data = normal(result, schemas["figdown_check"])
    assert (data["ok"], data["checked"], data["clean"], data["withDiagnostics"]) == (True, 1, 1, 0)
    assert texts(result) == ["checked 1 document(s), 1 clean, 0 with diagnostics"]


def test_check_broken_source_is_a_normal_parse_failed_result(
    server: Server, schemas: dict[str, dict[str, Any]],
) -> None:
    result = server.call_tool("figdown_check", {"source": BROKEN})
    data = normal(result, schemas["figdown_check"])
    assert data["ok"] is False and data["withDiagnostics"] == 1
    first = texts(result)[0].split("\n")
    assert first[0] == "PARSE FAILED — 2 diagnostic(s) in <source>"
    assert first[1:] == [f"Line {line}: {message}" for line, message in sorted(parse(BROKEN).diagnostics)]
    assert [d["line"] for d in data["documents"][0]["diagnostics"]] == [3, 4]
    assert texts(result)[-1] == "checked 1 document(s), 0 clean, 1 with diagnostics"


FAILED_DECLARATION = 'figdown 0.1 block\nnode a "A\nnode b "B"\nedge a -> b\n'


def test_a_name_whose_declaration_failed_gets_a_hint_in_every_tool(
    server: Server, schemas: dict[str, dict[str, Any]],
) -> None:
    """The engine reports ``unknown endpoint "a"`` on line 4 because line 2, which declares
    ``a``, failed; the diagnostics stay the engine's, and a hint says to fix line 2 first."""
    hint = ('line 4 names "a", which line 2 declares, but line 2 has a diagnostic of its own and '
            "declared nothing: fix line 2 first")
    for tool in ("figdown_check", "figdown_build", "figdown_read"):
        result = server.call_tool(tool, {"source": FAILED_DECLARATION})
        data = normal(result, schemas[tool])
        found = data["documents"][0] if tool == "figdown_check" else data
        assert [d["message"] for d in found["diagnostics"]] == ["unterminated string", 'unknown endpoint "a"']
        assert found["hints"] == [hint]
        assert texts(result)[0].split("\n")[-1] == f"hint: {hint}"
    data = normal(server.call_tool("figdown_check", {"source": BROKEN}), schemas["figdown_check"])
    assert "hints" not in data["documents"][0]


def test_check_walks_a_directory(server: Server, schemas: dict[str, dict[str, Any]]) -> None:
    result = server.call_tool("figdown_check", {"path": "figs"})
    data = normal(result, schemas["figdown_check"])
    assert [doc["label"] for doc in data["documents"]] == ["figs/clean.fd", "figs/ladder.fd", "figs/sub/broken.fd"]
    assert (data["checked"], data["clean"], data["withDiagnostics"]) == (3, 2, 1)
    assert texts(result)[0].startswith("PARSE FAILED — 2 diagnostic(s) in figs/sub/broken.fd\n")
    assert texts(result)[-1] == "checked 3 document(s), 2 clean, 1 with diagnostics"


def test_check_a_single_file_and_an_empty_directory(server: Server, schemas: dict[str, dict[str, Any]]) -> None:
    data = normal(server.call_tool("figdown_check", {"path": "figs/clean.fd"}), schemas["figdown_check"])
    assert data["checked"] == 1 and data["documents"][0]["label"] == "figs/clean.fd"
    result = server.call_tool("figdown_check", {"path": "empty"})
    data = normal(result, schemas["figdown_check"])
    assert data["checked"] == 0 and data["ok"] is True
    assert texts(result) == ["checked 0 document(s), 0 clean, 0 with diagnostics (no .fd file found)"]


def test_an_empty_document_checks_and_builds_clean_with_a_word(
    server: Server, schemas: dict[str, dict[str, Any]],
) -> None:
    result = server.call_tool("figdown_check", {"source": "# nothing yet\n"})
    data = normal(result, schemas["figdown_check"])
    assert (data["ok"], data["clean"], data["empty"], data["documents"][0]["empty"]) == (True, 1, 1, True)
    assert texts(result)[0].startswith("EMPTY — <source>\nno header and nothing declared")
    assert texts(result)[-1] == "checked 1 document(s), 1 clean (1 of them empty), 0 with diagnostics"
    assert "empty" not in normal(server.call_tool("figdown_check", {"source": CLEAN}),
                                 schemas["figdown_check"])["documents"][0]
    built = server.call_tool("figdown_build", {"source": ""})
    data = normal(built, schemas["figdown_build"])
    assert data["ok"] is True and data["empty"] is True
    assert texts(built)[0].split("\n")[-1].startswith("EMPTY — no header and nothing declared")
    assert "empty" not in normal(server.call_tool("figdown_build", {"source": CLEAN}), schemas["figdown_build"])


def test_check_writes_nothing(server: Server, workspace: Path) -> None:
    before = sorted(str(p.relative_to(workspace)) for p in workspace.rglob("*"))
    server.call_tool("figdown_check", {"path": "figs"})
    assert sorted(str(p.relative_to(workspace)) for p in workspace.rglob("*")) == before


@pytest.mark.parametrize("tool", ["figdown_check", "figdown_read"])
def test_malformed_requests_are_is_error(server: Server, tool: str) -> None:
    refused(server.call_tool(tool, {"source": CLEAN, "path": "figs/clean.fd"}), "both given")
    refused(server.call_tool(tool, {}), "neither `source` nor `path`")
    refused(server.call_tool(tool, {"path": "figs/missing.fd"}), "no such file")
    refused(server.call_tool(tool, {"path": "../outside.fd"}), "outside the allowed folders")
    refused(server.call_tool(tool, {"path": "figs/latin.bin"}), "is not UTF-8 text")


# --- figdown_read -----------------------------------------------------------------------------


def test_read_returns_shape_contract_and_model(server: Server, schemas: dict[str, dict[str, Any]]) -> None:
    result = server.call_tool("figdown_read", {"path": "figs/clean.fd"})
    data = normal(result, schemas["figdown_read"])
    assert data["ok"] is True and data["label"] == "figs/clean.fd"
    assert data["sections"] == [{"section": 1, "startLine": 1, "version": "0.1", "genre": "block", "title": "Pair",
                                 "counts": {"nodes": 3, "edges": 1, "pins": 1}}]
    assert data["model"] == json.loads(model_json(parse(CLEAN)))
    assert [node["line"] for node in data["model"]["nodes"]] == [3, 4, 5]
    assert "sequence" not in data["contract"]
    head, contract, model = texts(result)
    assert head.split("\n")[0] == "1 section(s) in figs/clean.fd"
    assert "figdown 0.1 block" in head and "3 nodes" in head
    assert contract == data["contract"] and contract.startswith("READING CONTRACT")
    assert json.loads(model.split("\n", 1)[1]) == data["model"]


def test_read_sequence_adds_one_contract_line(server: Server, schemas: dict[str, dict[str, Any]]) -> None:
    plain = normal(server.call_tool("figdown_read", {"source": CLEAN}), schemas["figdown_read"])["contract"]
    data = normal(server.call_tool("figdown_read", {"source": CLEAN + SEQUENCE}), schemas["figdown_read"])
    extra = data["contract"].split("\n")
    assert extra[:-1] == plain.split("\n")
    assert "messages are not edges" in extra[-1] and "listed order" in extra[-1]
    assert [s["genre"] for s in data["sections"]] == ["block", "sequence"]
    assert data["sections"][1]["counts"] == {"lifelines": 2, "messages": 2, "states": 1}
    # §12: model lines count from the first line of their own section; startLine maps them back.
    assert [m["line"] for m in data["model"]["sections"][1]["messages"]] == [4, 5]
    start = len(CLEAN.split("\n"))  # CLEAN ends with LF: the sequence header is the line after it
    assert [s["startLine"] for s in data["sections"]] == [1, start]
    document = (CLEAN + SEQUENCE).split("\n")
    assert document[start + 4 - 2].startswith("message c -> s")
    head = texts(server.call_tool("figdown_read", {"source": CLEAN + SEQUENCE}))[0].split("\n")
    assert head[1].startswith("  section 1 (from line 1): figdown 0.1 block")
    assert head[2].startswith(f"  section 2 (from line {start}): figdown 0.4 sequence")


def test_read_broken_document_is_a_normal_parse_failed_result(
    server: Server, schemas: dict[str, dict[str, Any]],
) -> None:
    result = server.call_tool("figdown_read", {"path": "figs/sub/broken.fd"})
    data = normal(result, schemas["figdown_read"])
    assert data["ok"] is False and data["model"] is None and data["sections"] == []
    lines = texts(result)[0].split("\n")
    assert lines[0] == "PARSE FAILED — 2 diagnostic(s) in figs/sub/broken.fd"
    assert lines[1].startswith("Line 3: ") and lines[2].startswith("Line 4: ")
    assert len(texts(result)) == 1


NO_METADATA = ('is an SVG with no <metadata id="figdown-source"> block — it was not produced by FigDown, so '
               "there is no source to read. Never OCR the picture.")


def test_read_refuses_a_directory_and_a_picture_we_did_not_build(server: Server, workspace: Path) -> None:
    refused(server.call_tool("figdown_read", {"path": "figs"}), "is a directory")
    (workspace / "figs" / "picture.svg").write_text("<svg/>", encoding="utf-8")
    try:
        result = server.call_tool("figdown_read", {"path": "figs/picture.svg"})
        assert result["isError"] is True and texts(result) == [f"figs/picture.svg {NO_METADATA}"]
        result = server.call_tool("figdown_read", {"source": '<?xml version="1.0"?>\n<svg><text>A</text></svg>'})
        assert result["isError"] is True and texts(result) == [f"<source> {NO_METADATA}"]
    finally:
        (workspace / "figs" / "picture.svg").unlink()


# --- figdown_reference ------------------------------------------------------------------------


def test_reference_index(server: Server, schemas: dict[str, dict[str, Any]]) -> None:
    result = server.call_tool("figdown_reference", {})
    data = normal(result, schemas["figdown_reference"])
    assert data["kind"] == "index" and data["files"] == []
    assert [g["name"] for g in data["genres"]] == [
        "block", "bitfield", "table", "topology", "flowchart", "statechart", "timing", "sequence",
    ]
    assert [t["name"] for t in data["tasks"]] == ["reading", "transcribe", "build"]
    assert texts(result)[0].startswith("FigDown reference index.")


@pytest.mark.parametrize("genre", ["block", "bitfield", "table", "topology", "flowchart", "statechart"])
def test_reference_genre_loads_its_file(server: Server, schemas: dict[str, dict[str, Any]], genre: str) -> None:
    result = server.call_tool("figdown_reference", {"name": genre})
    data = normal(result, schemas["figdown_reference"])
    assert data["kind"] == "genre" and data["name"] == genre
    assert data["files"][0]["file"] == f"{genre}.md"
    assert f"===== {genre}.md =====" in texts(result)[0]


def test_reference_experimental_adds_files(server: Server, schemas: dict[str, dict[str, Any]]) -> None:
    plain = normal(server.call_tool("figdown_reference", {"name": "sequence"}), schemas["figdown_reference"])
    assert plain["files"] == [] and plain["heldBack"] == ["sequence.md"] and "experimental" in plain["note"]
    full = normal(server.call_tool("figdown_reference", {"name": "sequence", "experimental": True}),
                  schemas["figdown_reference"])
    assert [f["file"] for f in full["files"]] == ["sequence.md"] and full["heldBack"] == []
    block = normal(server.call_tool("figdown_reference", {"name": "block", "experimental": True}),
                   schemas["figdown_reference"])
    assert [f["file"] for f in block["files"]] == ["block.md", "layout.md", "experimental.md"]


def test_reference_tasks_and_skill(server: Server, schemas: dict[str, dict[str, Any]]) -> None:
    for name, file in (("reading", "reading.md"), ("transcribe", "transcribe.md"), ("build", "building.md"),
                       ("skill", "SKILL.md")):
        data = normal(server.call_tool("figdown_reference", {"name": name}), schemas["figdown_reference"])
        assert [f["file"] for f in data["files"]] == [file]


def test_reference_unknown_name_is_is_error(server: Server) -> None:
    refused(server.call_tool("figdown_reference", {"name": "pie"}), "unknown reference 'pie'")


# --- the server's command line ------------------------------------------------------------------


def test_roots_widen_the_readable_folders(workspace: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "x.fd").write_text(CLEAN, encoding="utf-8")
    with Server(workspace, "--root", str(other)) as running:
        assert "result" in running.initialize(client="figdown-tests")
        data = running.call_tool("figdown_check", {"path": str(other / "x.fd")})["structuredContent"]
        assert data["checked"] == 1 and data["ok"] is True
        assert running.finish()[0] == 0


@pytest.fixture(scope="module")
def help_run(workspace: Path) -> subprocess.CompletedProcess[str]:
    """``figdown-mcp --help``, run once for the tests that read it."""
    return subprocess.run([sys.executable, "-m", "markmcp.figdown.server", "--help"], cwd=workspace,
                          capture_output=True, text=True, timeout=60)


def test_help_names_the_default_port(workspace: Path, help_run: subprocess.CompletedProcess[str]) -> None:
    run = help_run
    assert run.returncode == 0
    assert "default 3002" in run.stdout
    bad = subprocess.run([sys.executable, "-m", "markmcp.figdown.server", "--transport", "carrier-pigeon"],
                         cwd=workspace, capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and bad.stdout == ""


def test_http_transport_serves_the_same_tools(workspace: Path) -> None:
    """One round trip over streamable HTTP: the transport is the shared layer's, the answer ours."""
    command = module_command("markmcp.figdown.server", "--transport", "http", "--port", "0")
    with HttpServer(command, cwd=workspace) as served:
        port = served.port
        session: dict[str, str] = {}

        def post(message: dict[str, Any]) -> list[dict[str, Any]]:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT)
            headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
                       "MCP-Protocol-Version": "2025-11-25", **session}
            conn.request("POST", "/mcp", body=json.dumps(message), headers=headers)
            response = conn.getresponse()
            if response.getheader("mcp-session-id"):
                session["Mcp-Session-Id"] = response.getheader("mcp-session-id")  # type: ignore[assignment]
            body = response.read().decode()
            conn.close()
            if (response.getheader("content-type") or "").startswith("text/event-stream"):
                data = [line[5:] for line in body.split("\n") if line.startswith("data:")]
                return [json.loads(item) for item in data if item.strip()]
            return [json.loads(body)] if body.strip() else []

        post({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
        post({"jsonrpc": "2.0", "method": "notifications/initialized"})
        answers = post({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                        "params": {"name": "figdown_check", "arguments": {"source": BROKEN}}})
        result = next(a for a in answers if a.get("id") == 2)["result"]
        assert result["isError"] is False
        assert result["content"][0]["text"].startswith("PARSE FAILED — 2 diagnostic(s) in <source>")
        assert result["structuredContent"]["withDiagnostics"] == 1
        served.stop()


# --- nasty inputs: a report or a clear refusal, and the server keeps serving --------------------


@pytest.mark.parametrize("tool", ["figdown_check", "figdown_read"])
def test_an_empty_path_is_refused(server: Server, tool: str) -> None:
    refused(server.call_tool(tool, {"path": ""}), "`path` is empty")
    refused(server.call_tool(tool, {"path": "  "}), "`path` is empty")


def test_an_empty_document_reads_as_one_empty_section(server: Server, schemas: dict[str, dict[str, Any]]) -> None:
    for source in ("", "\ufeff", "# a comment only\n"):
        result = server.call_tool("figdown_read", {"source": source})
        data = normal(result, schemas["figdown_read"])
        assert data["ok"] is True and data["sections"][0]["genre"] is None
        assert data["sections"][0]["startLine"] == 1
        assert texts(result)[0].split("\n")[1] == "  section 1 (from line 1): empty: no header and nothing declared"


@pytest.mark.skipif(sys.platform != "linux", reason="needs file names that are not UTF-8")
def test_a_file_name_that_is_not_utf8_is_shown_escaped(
    server: Server, schemas: dict[str, dict[str, Any]], workspace: Path,
) -> None:
    odd = workspace / "odd"
    odd.mkdir()
    (odd / os.fsdecode(b"caf\xe9.fd")).write_text(BROKEN, encoding="utf-8")
    data = normal(server.call_tool("figdown_check", {"path": "odd"}), schemas["figdown_check"])
    assert [doc["label"] for doc in data["documents"]] == ["odd/caf\\xe9.fd"]
    (odd / os.fsdecode(b"caf\xe9.fd")).unlink()
    (odd / os.fsdecode(b"l\xe9gacy.fd")).write_bytes(b'figdown 0.1 block\nnode a "\xe9"\n')
    data = normal(server.call_tool("figdown_check", {"path": "odd"}), schemas["figdown_check"])
    assert data["documents"][0]["label"] == "odd/l\\xe9gacy.fd"
    assert data["documents"][0]["problem"] == {
        "code": "not-utf8",
        "message": "odd/l\\xe9gacy.fd: the document is not UTF-8 text (byte 0xe9 at offset 26, line 2)"}
    # the server is still there
    normal(server.call_tool("figdown_check", {"source": CLEAN}), schemas["figdown_check"])


@pytest.mark.parametrize("source", [
    "figdown 0.1 block\nnode a \"\x00\x01\ufffe\"\n",
    "figdown 0.1 block\nnode a \"" + "x" * 100_000 + "\n",
    "figdown 0.4 sequence\n" + "fragment f type=alt in=f\n" * 2_000,
    "\r\r\r\n" * 1_000,
])
def test_nasty_sources_give_a_normal_result(server: Server, schemas: dict[str, dict[str, Any]], source: str) -> None:
    for tool in ("figdown_check", "figdown_read"):
        normal(server.call_tool(tool, {"source": source}), schemas[tool])


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
@pytest.mark.parametrize("tool", ["figdown_check", "figdown_read"])
def test_a_named_pipe_is_refused_not_read(server: Server, workspace: Path, tool: str) -> None:
    """Reading a pipe nobody writes to would block the tool call forever."""
    pipe = workspace / f"pipe-{tool}.fd"
    os.mkfifo(pipe)
    try:
        refused(server.call_tool(tool, {"path": pipe.name}), "is a FIFO (named pipe), not a regular file")
    finally:
        pipe.unlink()


# --- figdown_build ----------------------------------------------------------------------------

#: Parses clean, but the pin puts "b" entirely over "a", which the engine placed (line 4).
COVERED = 'figdown 0.1 block\nnode a "A"\nnode b "B"\npin b at=(0,0) width=400 height=300\nedge a -> b\n'


def test_build_a_source_returns_the_svg_inline(server: Server, schemas: dict[str, dict[str, Any]]) -> None:
    from markmcp.figdown.render import ENGINE_VERSION, build, read_artifact, sha256

    result = server.call_tool("figdown_build", {"source": CLEAN})
    data = normal(result, schemas["figdown_build"])
    expected = build(CLEAN).svg
    assert data["ok"] is True and data["svg"] == expected and data["written"] is None and data["model"] is None
    assert (data["sha256"], data["engine"], data["bytes"]) == (sha256(CLEAN), ENGINE_VERSION,
                                                               len(expected.encode("utf-8")))
    summary, svg = texts(result)
    assert svg == expected and read_artifact(svg).source == CLEAN
    assert summary.split("\n")[:4] == [f"BUILT <source>: an SVG of {data['bytes']} bytes", f"engine: {ENGINE_VERSION}",
                                       f"source sha256: {sha256(CLEAN)}",
                                       "written: no (pass `path` and `write: true` to save X.svg beside X.fd)"]


def test_build_options_title_model_and_return_svg(server: Server, schemas: dict[str, dict[str, Any]]) -> None:
    from markmcp.figdown.render import build, read_artifact

    data = normal(server.call_tool("figdown_build", {"path": "figs/clean.fd", "with_title": True,
                                                     "include_model": True}), schemas["figdown_build"])
    assert data["svg"] == build(CLEAN, with_title=True).svg and ">Pair</text>" in data["svg"]
    assert data["renderOptions"] == "with-title" and read_artifact(data["svg"]).with_title
    assert data["model"] == json.loads(model_json(parse(CLEAN)))
    result = server.call_tool("figdown_build", {"path": "figs/clean.fd", "return_svg": False, "include_model": True})
    data = normal(result, schemas["figdown_build"])
    assert data["svg"] is None and data["bytes"] > 0
    summary, model = texts(result)
    assert "SVG not sent" in summary and json.loads(model.split("\n", 1)[1]) == data["model"]


def test_build_withholds_a_huge_svg_unless_asked(server: Server, schemas: dict[str, dict[str, Any]]) -> None:
    from markmcp.figdown.server import INLINE_SVG_LIMIT

    huge = 'figdown 0.1 timing\ntiming t "long"\nsignal clk ' + "p" * 20000 + "\n"
    result = server.call_tool("figdown_build", {"source": huge})
    data = normal(result, schemas["figdown_build"])
    assert data["ok"] and data["svg"] is None and data["bytes"] > INLINE_SVG_LIMIT and data["withheld"] == "size"
    assert f"SVG not sent: {data['bytes']:,} bytes is over the {INLINE_SVG_LIMIT:,}-byte limit" in texts(result)[0]
    data = normal(server.call_tool("figdown_build", {"source": huge, "return_svg": True}), schemas["figdown_build"])
    assert len(data["svg"].encode("utf-8")) == data["bytes"] and "withheld" not in data
    result = server.call_tool("figdown_build", {"source": CLEAN, "return_svg": False})
    assert texts(result)[0].endswith("SVG not sent (`return_svg: false`).")  # nothing was written either


def test_build_refusals_are_normal_results_that_draw_nothing(server: Server,
                                                             schemas: dict[str, dict[str, Any]]) -> None:
    data = normal(result := server.call_tool("figdown_build", {"source": BROKEN}), schemas["figdown_build"])
    assert (data["ok"], data["stage"], data["svg"], data["sha256"]) == (False, "parse", None, None)
    assert texts(result)[0].startswith("PARSE FAILED — 2 diagnostic(s) in <source>\nLine 3: ")
    data = normal(result := server.call_tool("figdown_build", {"source": COVERED}), schemas["figdown_build"])
    assert (data["ok"], data["stage"], data["svg"]) == (False, "geometry", None)
    assert [d["line"] for d in data["diagnostics"]] == [4]
    first = texts(result)[0].split("\n")
    assert first[0].startswith("FIGURE REFUSED — 1 geometry diagnostic(s) in <source>")
    assert first[1].startswith('Line 4: pin puts "b" completely over "a"')


def test_build_malformed_requests(server: Server) -> None:
    refused(server.call_tool("figdown_build", {"source": CLEAN, "write": True}), "`write` needs `path`")
    refused(server.call_tool("figdown_build", {"path": "figs"}), "is a directory")
    refused(server.call_tool("figdown_build", {"path": "figs/x.svg"}), "is an SVG: figdown_build takes the .fd")
    refused(server.call_tool("figdown_check", {"path": "figs/x.svg"}), "is an SVG, not a FigDown document")
    refused(server.call_tool("figdown_build", {"path": "figs/latin.bin", "write": True}), "is not a .fd file")
    refused(server.call_tool("figdown_build", {"path": "../outside.fd"}), "outside the allowed folders")
    refused(server.call_tool("figdown_build", {"source": CLEAN, "return_svg": "yes"}), "return_svg")


def test_build_write_needs_the_gate(server: Server, workspace: Path) -> None:
    refused(server.call_tool("figdown_build", {"path": "figs/clean.fd", "write": True}),
            "writing 'figs/clean.svg' is not allowed: the server was started without --allow-write")
    assert not (workspace / "figs" / "clean.svg").exists()
    with Server(workspace, "--allow-write") as running:  # the opt-in, but no root: the cwd is not writable
        running.initialize(client="figdown-tests")
        refused(running.call_tool("figdown_build", {"path": "figs/clean.fd", "write": True}), "no root is declared")
        assert running.finish()[0] == 0
    assert not (workspace / "figs" / "clean.svg").exists()


def test_help_offers_the_write_gate(help_run: subprocess.CompletedProcess[str]) -> None:
    run = help_run
    assert "--allow-write" in run.stdout and "--root DIR" in run.stdout


@pytest.fixture(scope="module")
def _writable_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, Path]]:
    root = tmp_path_factory.mktemp("writable")
    with Server(root, "--allow-write", "--root", ".") as running:
        running.initialize(client="figdown-tests")
        yield running, root
        assert running.finish()[0] == 0


@pytest.fixture()
def writable(_writable_server: tuple[Server, Path]) -> tuple[Server, Path]:
    """One server started with ``--allow-write --root .``, shared by the tests that write; its
    folder is emptied and seeded afresh for each test (``figs/clean.fd``, ``figs/covered.fd``)."""
    running, root = _writable_server
    wipe(root)
    (root / "figs").mkdir()
    (root / "figs" / "clean.fd").write_text(CLEAN, encoding="utf-8")
    (root / "figs" / "covered.fd").write_text(COVERED, encoding="utf-8")
    return running, root


def test_build_writes_the_artifact_beside_its_source(writable: tuple[Server, Path],
                                                     schemas: dict[str, dict[str, Any]]) -> None:
    from markmcp.figdown.render import build

    running, root = writable
    result = running.call_tool("figdown_build", {"path": "figs/clean.fd", "write": True})
    data = normal(result, schemas["figdown_build"])
    artifact = root / "figs" / "clean.svg"
    assert artifact.read_text(encoding="utf-8") == build(CLEAN).svg
    assert (data["written"], data["unchanged"], data["svg"]) == ("figs/clean.svg", False, None)
    assert len(texts(result)) == 1 and "written: figs/clean.svg" in texts(result)[0]
    stamp = artifact.stat().st_mtime_ns
    data = normal(running.call_tool("figdown_build", {"path": "figs/clean.fd", "write": True, "return_svg": True}),
                  schemas["figdown_build"])
    assert data["unchanged"] is True and data["svg"] == artifact.read_text(encoding="utf-8")
    assert artifact.stat().st_mtime_ns == stamp  # the same bytes: not rewritten
    data = normal(running.call_tool("figdown_build", {"path": "figs/clean.fd", "write": True, "with_title": True}),
                  schemas["figdown_build"])
    assert data["unchanged"] is False and artifact.read_text(encoding="utf-8") == build(CLEAN, with_title=True).svg
    # a refused figure writes nothing
    data = normal(running.call_tool("figdown_build", {"path": "figs/covered.fd", "write": True}),
                  schemas["figdown_build"])
    assert data["stage"] == "geometry" and not (root / "figs" / "covered.svg").exists()
    assert sorted(p.name for p in (root / "figs").iterdir()) == ["clean.fd", "clean.svg", "covered.fd"]


def test_build_never_replaces_an_svg_it_did_not_build(writable: tuple[Server, Path]) -> None:
    running, root = writable
    foreign = root / "figs" / "clean.svg"
    foreign.write_text('<svg xmlns="http://www.w3.org/2000/svg"><text>hand drawn</text></svg>', encoding="utf-8")
    result = running.call_tool("figdown_build", {"path": "figs/clean.fd", "write": True})
    assert result["isError"] is True
    assert texts(result) == ['figs/clean.svg exists and is not a FigDown artifact (it has no '
                             '<metadata id="figdown-source">); it was left alone and nothing was written '
                             "(move it away to build there)"]
    assert "hand drawn" in foreign.read_text(encoding="utf-8")
    # what the build would write is still available inline
    assert running.call_tool("figdown_build", {"path": "figs/clean.fd"})["structuredContent"]["svg"]


def test_an_svg_with_a_malformed_reference_is_not_read_and_never_replaced(writable: tuple[Server, Path]) -> None:
    # "&#²;" reached int() and the tools answered "tool 'figdown_read' failed: ValueError: ..."
    running, root = writable
    planted = root / "figs" / "clean.svg"
    text = ('<svg xmlns="http://www.w3.org/2000/svg"><metadata id="figdown-source" data-sha256="00">'
            "x&#\u00b2;</metadata></svg>\n")
    planted.write_text(text, encoding="utf-8")
    why = ('is not a FigDown artifact: its <metadata id="figdown-source"> block holds a malformed character '
           'reference "&#\u00b2;" at character offset 88 (a character reference is &# and ASCII digits, or &#x and '
           "hex digits), so there is no source to read")
    result = running.call_tool("figdown_read", {"path": "figs/clean.svg"})
    assert result["isError"] is True and texts(result) == [f"figs/clean.svg {why}"]
    result = running.call_tool("figdown_build", {"path": "figs/clean.fd", "write": True})
    assert result["isError"] is True
    assert texts(result) == [f"figs/clean.svg exists and {why}; it was left alone and nothing was written "
                             "(move it away to build there)"]
    assert planted.read_text(encoding="utf-8") == text


# --- figdown_check: geometry too -----------------------------------------------------------------


def test_check_runs_the_geometry_checks(server: Server, schemas: dict[str, dict[str, Any]]) -> None:
    result = server.call_tool("figdown_check", {"source": COVERED})
    data = normal(result, schemas["figdown_check"])
    assert (data["ok"], data["withDiagnostics"]) == (False, 1)
    document = data["documents"][0]
    assert document["stage"] == "geometry" and [d["line"] for d in document["diagnostics"]] == [4]
    assert texts(result)[0].startswith("FIGURE REFUSED — 1 geometry diagnostic(s) in <source>")
    assert normal(server.call_tool("figdown_check", {"source": BROKEN}), schemas["figdown_check"])[
        "documents"][0]["stage"] == "parse"
    assert "stage" not in normal(server.call_tool("figdown_check", {"source": CLEAN}),
                                 schemas["figdown_check"])["documents"][0]


# --- figdown_read of an artifact ------------------------------------------------------------------


def test_read_an_artifact_gives_back_its_source_and_compares_the_sidecar(
    writable: tuple[Server, Path], schemas: dict[str, dict[str, Any]],
) -> None:
    from markmcp.figdown.render import ENGINE_VERSION, sha256

    running, root = writable
    running.call_tool("figdown_build", {"path": "figs/clean.fd", "write": True})
    result = running.call_tool("figdown_read", {"path": "figs/clean.svg"})
    data = normal(result, schemas["figdown_read"])
    assert data["model"] == json.loads(model_json(parse(CLEAN))) and data["label"] == "figs/clean.svg"
    assert data["artifact"] == {"engineVersion": ENGINE_VERSION, "engineSkew": False, "recordedSha256": sha256(CLEAN),
                                "sha256Matches": True, "renderOptions": None,
                                "sidecar": {"path": "figs/clean.fd", "status": "matches", "diagnostics": []}}
    assert "! sidecar clean.fd matches the artifact's recorded hash" in texts(result)[0].split("\n")
    # the .fd moved on: the artifact is stale, and what is read is still the artifact's source
    (root / "figs" / "clean.fd").write_text(CLEAN.replace("edge a -> b", 'edge a -> b\nnode d "D"'),
                                            encoding="utf-8")
    data = normal(result := running.call_tool("figdown_read", {"path": "figs/clean.svg"}), schemas["figdown_read"])
    assert data["artifact"]["sidecar"]["status"] == "stale" and len(data["model"]["nodes"]) == 3
    assert ("! STALE ARTIFACT: clean.fd has changed since this .svg was built. The .fd is truth — rebuild."
            in texts(result)[0].split("\n"))
    # the .fd no longer builds
    (root / "figs" / "clean.fd").write_text(BROKEN, encoding="utf-8")
    data = normal(result := running.call_tool("figdown_read", {"path": "figs/clean.svg"}), schemas["figdown_read"])
    assert data["artifact"]["sidecar"]["status"] == "refused" and data["artifact"]["sidecar"]["diagnostics"]
    assert "! SIDECAR REFUSED: clean.fd no longer builds — 2 diagnostic(s)" in texts(result)[0]
    # no .fd beside it: nothing to compare
    (root / "figs" / "clean.fd").unlink()
    data = normal(running.call_tool("figdown_read", {"path": "figs/clean.svg"}), schemas["figdown_read"])
    assert data["artifact"]["sidecar"]["status"] == "missing" and data["ok"] is True


def test_read_an_artifact_from_another_engine_notes_the_skew(server: Server,
                                                             schemas: dict[str, dict[str, Any]]) -> None:
    from markmcp.figdown.render import ENGINE_VERSION, build

    svg = build(CLEAN).svg.replace(f'data-engine-version="{ENGINE_VERSION}"', 'data-engine-version="0.5.0"')
    result = server.call_tool("figdown_read", {"source": svg})
    data = normal(result, schemas["figdown_read"])
    assert data["artifact"]["engineSkew"] is True and data["artifact"]["engineVersion"] == "0.5.0"
    assert data["artifact"]["sidecar"] is None
    assert any(line.startswith("! engine skew: the artifact was drawn by 0.5.0, this is ")
               for line in texts(result)[0].split("\n"))
    # a hand-edited artifact: the hash no longer matches the embedded source
    edited = build(CLEAN).svg.replace('node b ""', 'node b "Bee"')
    data = normal(server.call_tool("figdown_read", {"source": edited}), schemas["figdown_read"])
    assert data["artifact"]["sha256Matches"] is False and data["model"]["nodes"][1]["label"] == "Bee"
    assert any("does not match the embedded source" in note for note in data["notes"])


def test_the_pages_are_resources_too(server: Server) -> None:
    listed = server.call("resources/list")["result"]["resources"]
    assert [(r["uri"], r["mimeType"]) for r in listed] == [
        ("figdown://skill", "text/markdown"), ("figdown://reference", "text/markdown")]
    templates = server.call("resources/templates/list")["result"]["resourceTemplates"]
    assert [t["uriTemplate"] for t in templates] == ["figdown://reference/{name}"]

    def read(uri: str) -> dict[str, Any]:
        return server.call("resources/read", {"uri": uri})

    skill = read("figdown://skill")["result"]["contents"][0]
    assert skill["mimeType"] == "text/markdown" and "===== SKILL.md =====" in skill["text"]
    assert read("figdown://reference")["result"]["contents"][0]["text"].startswith("FigDown reference index.")
    # the same text the tool gives, for a genre, a task and a genre's experimental pages
    for name, arguments in (("timing", {"name": "timing"}), ("build", {"name": "build"}),
                            ("sequence+experimental", {"name": "sequence", "experimental": True})):
        page = read(f"figdown://reference/{name}")["result"]["contents"][0]["text"]
        assert page == texts(server.call_tool("figdown_reference", arguments))[0]
    assert "===== sequence.md =====" in read("figdown://reference/sequence+experimental")["result"]["contents"][0]["text"]
    for uri, fragment in (("figdown://reference/nosuch", "unknown reference 'nosuch'"),
                          ("figdown://reference/timing+all", "+experimental")):
        error = read(uri)["error"]
        assert error["code"] == -32602 and fragment in error["message"]
    offered = server.call("completion/complete", {
        "ref": {"type": "ref/resource", "uri": "figdown://reference/{name}"},
        "argument": {"name": "name", "value": "t"}})["result"]["completion"]["values"]
    assert offered == ["table", "topology", "timing", "transcribe"]
