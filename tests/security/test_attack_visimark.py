"""VisiMark attacked as a hostile repository: every CLI command and every visimark-mcp tool.

The repository plants symlinks at the document, the temporary file, the lock, the scenario
and an artifact path, FIFOs, links to devices, a file over the size limit and documents
nested far beyond any sane depth.  For every command and tool: nothing outside the
repository changes (and nothing is created there), the secret never shows in any output,
nothing hangs, and no traceback reaches the user.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import threading
import traceback
from pathlib import Path
from typing import Any

import pytest
from mcpwire import StdioClient, module_command

from markmcp.mcpcore.files import MAX_FILE_BYTES
from security.hostile import SECRET, Hostile, deep_nesting

TIMEOUT = 30.0
SECRET_WORD = SECRET.strip()

DRIFTED = """| Item | Qty | Price | Net |
|------|----:|------:|----:|
| Cable | 3 | 12.50 | 37.00 |
| Plug | 2 | 1.50 | 3.00 |

```vmark #order
Net = Qty * Price
total = SUM(Net)
param rate precision 2 = 0.25
```

The order comes to **40.00**<!--vmark=order.total-->.
"""
PLAIN = """| Item | Qty | Price | Net |
|------|----:|------:|----:|
| Cable | 3 | 12.50 | 37.50 |
| Plug | 2 | 1.50 | 3.00 |
| Fuse | 4 | 0.25 | 1.00 |

All of it comes to **41.50**.
"""
CHARTED = DRIFTED.replace("param rate", "chart net as bar of Net labelled Item\nparam rate") + \
    "\n![net](charts/net.svg)<!--vmark=order.net-->\n"


@pytest.fixture()
def repo(tmp_path: Path) -> Hostile:
    h = Hostile.create(tmp_path)
    h.write("doc.md", DRIFTED)
    h.write("plain.md", PLAIN)
    h.write("charted.md", CHARTED)
    h.write("real.md", DRIFTED)
    (h.root / "linked.md").symlink_to("real.md")          # a symlinked document inside
    h.link_to_victim("doc.md.visimark-tmp")                # the old fixed temporary name
    h.dangling_link(".doc.md.lock", "lock-created")         # the lock beside a document
    h.dangling_link(".plain.md.lock", "plain-lock-created")
    h.link_to_victim("charts/net.svg")                     # the artifact a chart names
    h.link_to_victim("secret.md")                          # a document leading outside
    h.dangling_link("new.md", "new-created")
    h.link_to_folder_outside("sub")
    h.fifo("fifo.md")
    h.fifo("scenario-fifo.json")
    h.device_link("zero.md")
    h.device_link("zero.json")
    h.link_to_victim("scenario.json")
    big = h.huge("big.md", MAX_FILE_BYTES + 1)
    assert big.stat().st_size > MAX_FILE_BYTES
    h.write("deep.md", "```vmark #t\nx = " + "(" * 50_000 + "1" + ")" * 50_000 + "\n```\n" + deep_nesting(50_000))
    h.write("deep.json", deep_nesting(100_000))
    return h


def _cap() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


def visimark(h: Hostile, *args: str) -> subprocess.CompletedProcess:
    """The CLI run in this process (in a thread, so a hang fails the test rather than the
    suite); an exception escaping it is reported the way Python would print it."""
    from markmcp.visimark.cli import main

    out: list[str] = []
    err: list[str] = []
    code: list[int] = []

    def run() -> None:
        try:
            code.append(main(list(args), out.append, err.append))
        except BaseException:  # noqa: BLE001 - the test asserts there is none
            err.append("Traceback: " + traceback.format_exc())
            code.append(-1)

    here = os.getcwd()
    os.chdir(h.root)
    try:
        worker = threading.Thread(target=run, daemon=True)
        worker.start()
        worker.join(TIMEOUT)
    finally:
        os.chdir(here)
    assert not worker.is_alive(), f"visimark {' '.join(args)} hung"
    return subprocess.CompletedProcess(args, code[0], "\n".join(out), "\n".join(err))


def visimark_process(h: Hostile, *args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "markmcp.visimark.cli", *args], capture_output=True, text=True,
                          encoding="utf-8", errors="backslashreplace", cwd=h.root, timeout=TIMEOUT,
                          preexec_fn=_cap, input=stdin)


def clean_run(h: Hostile, p: subprocess.CompletedProcess) -> None:
    assert SECRET_WORD not in p.stdout and SECRET_WORD not in p.stderr
    assert "Traceback" not in p.stderr, p.stderr
    assert p.returncode in (0, 1, 2)
    h.assert_untouched()


DOCS = ["doc.md", "plain.md", "charted.md", "linked.md", "secret.md", "new.md", "sub/victim.txt", "fifo.md",
        "zero.md", "big.md", "deep.md", "/dev/zero", "/proc/self/fd/0"]


@pytest.mark.parametrize("command", [["check"], ["fmt"], ["infer"], ["infer", "--write"], ["eval"], ["explain"],
                                     ["simulate"], ["check", "--json"], ["fmt", "--json"],
                                     ["infer", "--write", "--json"]])
def test_every_cli_command_on_every_planted_path(repo: Hostile, command: list[str]) -> None:
    for doc in DOCS:
        p = visimark(repo, *command, doc)
        clean_run(repo, p)
        if "--json" in command:
            json.loads(p.stdout)
    # the documents inside the repository are what the commands left (fmt repaired them in place)
    assert not (repo.root / "linked.md").is_file() or (repo.root / "linked.md").is_symlink()


@pytest.mark.parametrize("scenario", ["scenario.json", "scenario-fifo.json", "zero.json", "deep.json",
                                      "sub/victim.txt", "-"])
def test_eval_scenarios_from_planted_paths(repo: Hostile, scenario: str) -> None:
    if scenario == "-":
        p = visimark_process(repo, "eval", "doc.md", "--scenario", "-", "--json", stdin=deep_nesting(100_000))
    else:
        p = visimark(repo, "eval", "doc.md", "--scenario", scenario, "--json")
    clean_run(repo, p)
    assert p.returncode == 2 and json.loads(p.stdout)["error"]["code"] == "SCENARIO"


def test_ref_reads_no_file(repo: Hostile) -> None:
    for args in (["ref"], ["ref", "SUM"], ["ref", "secret.md"], ["ref", "--json"]):
        clean_run(repo, visimark(repo, *args))


# --- the server --------------------------------------------------------------------------------------


class Server(StdioClient):
    def __init__(self, h: Hostile, *args: str, module: str = "markmcp.visimark.server") -> None:
        super().__init__(module_command(module, "--cwd", str(h.root), *args), timeout=TIMEOUT)


SERVERS = ["markmcp.visimark.server", "markmcp.server"]  # visimark-mcp, markmcp-mcp


READ_TOOLS = ["visimark_check", "visimark_eval", "visimark_explain", "visimark_infer", "visimark_fmt"]


def no_leak(result: dict[str, Any]) -> None:
    assert SECRET_WORD not in json.dumps(result)


@pytest.mark.parametrize("module", SERVERS)
def test_every_read_tool_on_every_planted_path(repo: Hostile, module: str) -> None:
    refused = {"secret.md", "new.md", "sub/victim.txt", "fifo.md", "zero.md", "big.md", "/dev/zero",
               "/proc/self/fd/0", "../outside/victim.txt", str(repo.victim)}
    with Server(repo, "--allow-write", "--root", str(repo.root), module=module) as server:
        server.initialize()
        for tool in READ_TOOLS:
            for doc in [*DOCS, "../outside/victim.txt", str(repo.victim), "", "a\x00b"]:
                result = server.call_tool(tool, {"path": doc})
                no_leak(result)
                if doc in refused or doc in ("", "a\x00b"):
                    assert result["isError"] is True, (tool, doc)
                    assert result["structuredContent"]["error"]["code"] in ("READ", "USAGE"), (tool, doc)
                else:
                    assert result["isError"] is False, (tool, doc, result["content"][0]["text"])
            deep = server.call_tool(tool, {"content": (repo.root / "deep.md").read_text()})
            no_leak(deep)
        for scenario in ["scenario.json", "scenario-fifo.json", "zero.json", "sub/victim.txt"]:
            result = server.call_tool("visimark_eval", {"path": "doc.md", "scenarioPath": scenario})
            assert result["isError"] is True and result["structuredContent"]["error"]["code"] == "SCENARIO"
            no_leak(result)
        deep = server.call_tool("visimark_eval", {"path": "doc.md", "scenarioContent": deep_nesting(100_000)})
        assert deep["isError"] is True and deep["structuredContent"]["error"]["code"] == "SCENARIO"
        for name in (None, "SUM", "../secret.md"):
            no_leak(server.call_tool("visimark_ref", {} if name is None else {"name": name}))
        assert server.finish()[0] == 0
    repo.assert_untouched()


@pytest.mark.parametrize("module", SERVERS)
def test_every_apply_tool_against_planted_paths(repo: Hostile, module: str) -> None:
    with Server(repo, "--allow-write", "--root", str(repo.root), module=module) as server:
        server.initialize()
        # the lock beside doc.md is a planted link: refused, nothing created outside
        plan = server.call_tool("visimark_fmt", {"path": "doc.md"})["structuredContent"]
        result = server.call_tool("visimark_fmt_apply", {"path": "doc.md", "plan": plan})
        assert result["isError"] is True and result["structuredContent"]["error"]["code"] == "WRITE"
        assert "lock" in result["content"][0]["text"]
        iplan = server.call_tool("visimark_infer", {"path": "plain.md"})["structuredContent"]
        result = server.call_tool("visimark_infer_apply", {"path": "plain.md", "plan": iplan})
        assert result["isError"] is True and "lock" in result["content"][0]["text"]
        # a symlinked document inside the roots is written at its target; the link stays
        plan = server.call_tool("visimark_fmt", {"path": "linked.md"})["structuredContent"]
        result = server.call_tool("visimark_fmt_apply", {"path": "linked.md", "plan": plan})
        assert result["isError"] is False, result["content"][0]["text"]
        assert (repo.root / "linked.md").is_symlink() and "| 37.50 |" in (repo.root / "real.md").read_text()
        # a chart whose artifact path is a planted link to the victim: never written through
        plan = server.call_tool("visimark_fmt", {"path": "charted.md"})["structuredContent"]
        assert plan["artifactsWouldWrite"] == []
        assert server.call_tool("visimark_fmt_apply", {"path": "charted.md", "plan": plan})["isError"] is False
        # documents that lead outside, a dangling link, a FIFO, a device, a huge file: refused
        for doc in ["secret.md", "new.md", "sub/victim.txt", "fifo.md", "zero.md", "big.md", str(repo.victim),
                    "../outside/victim.txt"]:
            for tool, p in (("visimark_fmt_apply", {"sha256": "0" * 64, "edits": []}),
                            ("visimark_infer_apply", {"sha256": "0" * 64, "proposals": []})):
                result = server.call_tool(tool, {"path": doc, "plan": p})
                assert result["isError"] is True, (tool, doc)
                assert result["structuredContent"]["error"]["code"] in ("WRITE", "READ"), (tool, doc)
                no_leak(result)
        assert server.finish()[0] == 0
    repo.assert_untouched()
    assert (repo.root / "doc.md").read_text() == DRIFTED  # refused, so untouched
    assert os.readlink(repo.root / "doc.md.visimark-tmp") == str(repo.victim)
