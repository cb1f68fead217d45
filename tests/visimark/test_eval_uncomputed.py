"""``eval`` of a document some of whose declared values could not be computed: each one is
listed under ``uncomputed`` with the reason (the root binding when it was stopped by one it
reads), ``get`` on one says it is declared and why it has no value, and the CLI says the same
on stderr; an undeclared name is still "no value named"."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from markmcp.mcpcore import CallContext, ToolError
from markmcp.visimark.envelopes import CommandError, eval_envelope
from markmcp.visimark.server import eval_tool

F = "```"
DIV0 = f"| A |\n|--|\n| 1 |\n\n{F}vmark #s\nx precision 2 = SUM(A) / 0\ny = x + 1\nz = SUM(A)\n{F}\n"
CYCLE = f"{F}vmark #c\na = b + 1\nb = a + 1\n{F}\n"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "markmcp.visimark.cli", *args], capture_output=True,
                          text=True, encoding="utf-8")


def test_uncomputed_values_are_listed_with_their_reason() -> None:
    body, _ = eval_envelope("<content>", DIV0, None)
    assert body["status"] == "ok"  # eval's status is its assertions (upstream's contract)
    assert body["values"] == {"s.z": "1"}
    assert body["uncomputed"] == {
        "s.x": {"code": "TYPE", "message": "division by zero"},
        "s.y": {"code": "TYPE", "message": "division by zero", "cause": "s.x"},
    }


def test_a_cycle_is_the_reason_of_each_of_its_members() -> None:
    body, _ = eval_envelope("<content>", CYCLE, None)
    assert set(body["uncomputed"]) == {"c.a", "c.b"}
    assert all(e["code"] == "CYCLE" for e in body["uncomputed"].values())


def test_nothing_uncomputed_is_an_empty_object() -> None:
    body, _ = eval_envelope("<content>", f"{F}vmark #s\nz = 2\n{F}\n", None)
    assert body["uncomputed"] == {}


@pytest.mark.parametrize("get,why", [
    ("s.x", "s.x is declared but could not be computed: TYPE division by zero"),
    ("x", "s.x is declared but could not be computed: TYPE division by zero"),
    ("s.y", "s.y is declared but could not be computed: it reads s.x, which could not be computed "
            "(TYPE division by zero)"),
])
def test_get_of_an_uncomputed_value_says_why(get: str, why: str) -> None:
    with pytest.raises(CommandError) as e:
        eval_envelope("<content>", DIV0, None, get=get)
    assert e.value.message == "visimark: " + why


def test_get_of_an_undeclared_name_is_still_no_value_named() -> None:
    with pytest.raises(CommandError) as e:
        eval_envelope("<content>", DIV0, None, get="s.nope")
    assert e.value.message == "visimark: no value named s.nope"


def test_the_server_tool_says_why(tmp_path: Path) -> None:
    ctx = CallContext(roots=(tmp_path,), cwd=tmp_path, allow_write=False, options={})
    body = eval_tool({"content": DIV0}, ctx)
    assert body["uncomputed"]["s.x"] == {"code": "TYPE", "message": "division by zero"}
    with pytest.raises(ToolError) as e:
        eval_tool({"content": DIV0, "get": "s.x"}, ctx)
    assert "declared but could not be computed: TYPE division by zero" in str(e.value)


def test_the_cli_says_why(tmp_path: Path) -> None:
    doc = tmp_path / "d.md"
    doc.write_text(DIV0, encoding="utf-8")
    p = run("eval", str(doc))
    assert p.returncode == 0 and p.stdout == "s.z  1\n"
    assert "s.x is declared but could not be computed: TYPE division by zero" in p.stderr
    g = run("eval", str(doc), "--get", "s.y")
    assert g.returncode == 2 and "it reads s.x, which could not be computed" in g.stderr
    assert "no value named" not in g.stderr


def test_under_get_units_are_keyed_by_the_name_asked_for_as_values_are() -> None:
    src = f"| A [EUR] |\n|--:|\n| 1 |\n\n{F}vmark #q3\ntotal [EUR] = SUM(A)\n{F}\n"
    body, _ = eval_envelope("<content>", src, None, get="total")
    assert body["values"] == {"total": "1"}
    assert body["units"] == {"total": {"EUR": 1}}


def test_a_bare_name_two_sheets_declare_is_ambiguous_not_unknown() -> None:
    src = f"{F}vmark #a\nx = 1\n{F}\n\n{F}vmark #b\nx = 2\n{F}\n"
    with pytest.raises(CommandError) as e:
        eval_envelope("<content>", src, None, get="x")
    assert e.value.message == "visimark: x is ambiguous: write one of a.x, b.x"
