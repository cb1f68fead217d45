"""A file name that is not UTF-8, or a ``\\ud800`` escape in a sidecar: clear answers, never a crash.

Python keeps a file-name byte that is not UTF-8 as a lone surrogate (``b"\\xff"`` ->
``"\\udcff"``), and a JSON or YAML ``\\ud800`` escape decodes to one; no UTF-8 text (so no
MCP message, SARIF log or terminal line) can carry it.  Each test here failed before
the fix: the MCP servers died on such a result (stdio) and left every later request
unanswered.
"""

from __future__ import annotations

import os
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
