"""A file name that is not UTF-8, or a ``\\ud800`` escape in a sidecar: clear answers, never a crash.

Python keeps a file-name byte that is not UTF-8 as a lone surrogate (``b"\\xff"`` ->
``"\\udcff"``), and a JSON or YAML ``\\ud800`` escape decodes to one; no UTF-8 text (so no
MCP message, SARIF log or terminal line) can carry it.  Each test here failed before
the fix: the MCP servers died on such a result (stdio) and left every later request
unanswered.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcpwire import StdioClient, module_command

DOC = "# T\n\nhello world\n"
PLAIN_SIDECAR = 'mrsf_version: "1.0"\ndocument: {doc}\ncomments: []\n'


def strings(value: Any) -> list[str]:
    """Every string in a JSON value."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for member in value.values() for text in strings(member)]
    if isinstance(value, list):
        return [text for member in value for text in strings(member)]
    return []


def plant_odd_name(folder: Path) -> None:
    """A document and its sidecar whose names hold the byte 0xff (not UTF-8)."""
    base = os.fsencode(folder)
    with open(base + b"/b\xff.md", "w", encoding="utf-8") as doc:
        doc.write(DOC)
    with open(base + b"/b\xff.md.review.yaml", "w", encoding="utf-8") as sidecar:
        sidecar.write(PLAIN_SIDECAR.format(doc="b.md"))


@pytest.mark.parametrize("module", ["markmcp.mrsf.server", "markmcp.server"])
def test_mcp_sweeps_show_a_name_that_is_not_utf8_escaped(tmp_path: Path, module: str) -> None:
    plant_odd_name(tmp_path)
    with StdioClient(module_command(module, "--cwd", str(tmp_path)), cwd=tmp_path) as client:
        client.initialize()
        validated = client.call_tool("mrsf_validate", {})
        assert validated["isError"] is False, validated
        files = [entry["file"] for entry in validated["structuredContent"]["files"]]
        assert files == [str(tmp_path / "b\\xff.md.review.yaml")]
        for tool, arguments in [("mrsf_list", {}), ("mrsf_status", {}), ("mrsf_reanchor", {"dryRun": True})]:
            answer = client.call_tool(tool, arguments)
            assert answer["isError"] is False, (tool, answer)
            assert str(tmp_path / "b\\xff.md.review.yaml") in strings(answer["structuredContent"]), tool
        assert client.call("ping")["result"] == {}
        code, stderr = client.finish()
    assert code == 0, stderr
    assert "Traceback" not in stderr


LONE_SIDECAR = "\n".join([
    'mrsf_version: "1.0"', "document: a.md", "comments:", "- id: c1", "  author: a",
    '  timestamp: "2024-01-01T00:00:00Z"', '  text: "bad \\ud800 text"', "  resolved: false", "  line: 3", "",
])
LONE_PROBLEM = "malformed YAML at line 7, column 14: comments[0].text: a lone surrogate \\ud800 is not a character"


def mrsf(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "import sys; from markmcp.mrsf.cli import main; sys.exit(main())", *args],
        cwd=folder, capture_output=True, text=True, timeout=60,
    )


def test_the_cli_refuses_a_lone_surrogate_escape_naming_line_and_field(tmp_path: Path) -> None:
    """``validate`` called the sidecar valid; list/status/reanchor said "internal error:
    UnicodeEncodeError" with no location.  Now every command names the same problem."""
    (tmp_path / "a.md").write_text(DOC, encoding="utf-8")
    (tmp_path / "a.md.review.yaml").write_text(LONE_SIDECAR, encoding="utf-8")
    before = (tmp_path / "a.md.review.yaml").read_bytes()
    for command in (["validate", "a.md"], ["list", "a.md"], ["list", "a.md", "--json"], ["status", "a.md"],
                    ["reanchor", "a.md"]):
        run = mrsf(tmp_path, *command)
        assert run.returncode != 0, command
        said = run.stdout + run.stderr
        assert LONE_PROBLEM in said, (command, said)
        assert "internal error" not in said and "Traceback" not in said, command
    assert (tmp_path / "a.md.review.yaml").read_bytes() == before


def test_a_lone_surrogate_escape_is_malformed_a_pair_is_one_character() -> None:
    from markmcp.mrsf.errors import MrsfError
    from markmcp.mrsf.sidecar import parse_sidecar

    with pytest.raises(MrsfError) as refused:
        parse_sidecar(LONE_SIDECAR, name="a.md.review.yaml")
    assert refused.value.code == "malformed-yaml" and LONE_PROBLEM in refused.value.message
    pair = LONE_SIDECAR.replace("bad \\ud800 text", "ok \\ud83d\\ude00")
    assert parse_sidecar(pair, name="a.md.review.yaml").data["comments"][0]["text"] == "ok \U0001f600"
    literal = LONE_SIDECAR.replace('"bad \\ud800 text"', "'bad \\ud800 text'")  # single quotes: no escapes
    assert parse_sidecar(literal, name="a.md.review.yaml").data["comments"][0]["text"] == "bad \\ud800 text"
    escaped_backslash = LONE_SIDECAR.replace("bad \\ud800", "bad \\\\ud800")
    assert parse_sidecar(escaped_backslash, name="a.md.review.yaml").data["comments"][0]["text"] == "bad \\ud800 text"
    as_json = '{"mrsf_version": "1.0", "document": "a.md",\n "comments": [{"id": "c1", "text": "x \\udc00"}]}'
    with pytest.raises(MrsfError) as refused:
        parse_sidecar(as_json, name="a.md.review.json")
    assert refused.value.code == "malformed-json" and refused.value.details == {"line": 2, "column": 39}
    assert "comments[0].text: a lone surrogate \\udc00 is not a character" in refused.value.message


def test_repair_drops_a_json_comment_holding_a_lone_surrogate(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text(DOC, encoding="utf-8")
    comment = '{"id": "%s", "author": "a", "timestamp": "2024-01-01T00:00:00Z", "text": "%s", "resolved": false}'
    sidecar = tmp_path / "a.md.review.json"
    sidecar.write_text('{"mrsf_version": "1.0", "document": "a.md", "comments": [\n%s,\n%s]}\n'
                       % (comment % ("c1", "x \\udc00"), comment % ("c2", "fine")), encoding="utf-8")
    run = mrsf(tmp_path, "repair", "a.md")
    assert run.returncode == 0, run.stderr
    assert "text: a lone surrogate \\udc00 is not a character" in run.stdout
    assert [c["id"] for c in json.loads(sidecar.read_text(encoding="utf-8"))["comments"]] == ["c2"]


def test_mcp_tools_and_resources_name_a_lone_surrogate_escape(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text(DOC, encoding="utf-8")
    (tmp_path / "a.md.review.yaml").write_text(LONE_SIDECAR, encoding="utf-8")
    with StdioClient(module_command("markmcp.mrsf.server", "--cwd", str(tmp_path)), cwd=tmp_path) as client:
        client.initialize()
        validated = client.call_tool("mrsf_validate", {"files": ["a.md"]})
        assert validated["structuredContent"]["valid"] is False
        assert LONE_PROBLEM in json.dumps(validated["structuredContent"], ensure_ascii=False).replace("\\\\", "\\")
        for tool in ("mrsf_list", "mrsf_status"):
            answer = client.call_tool(tool, {"files": ["a.md"]})
            assert answer["isError"] is True and LONE_PROBLEM in answer["content"][0]["text"], tool
        read = client.call("resources/read", {"uri": "mrsf://sidecar/a.md"})
        assert LONE_PROBLEM in read["error"]["message"]
        assert client.call("ping")["result"] == {}
        code, stderr = client.finish()
    assert code == 0 and "Traceback" not in stderr, stderr
