"""Acceptance load test: concurrent writers through mrsf-mcp lose no update.

Eight clients each add comments to the same sidecar with ``mrsf_add``, always passing
the ``expectedVersion`` they last saw and retrying on a ``version-mismatch`` conflict
(taking the conflict's ``currentVersion``).  Two set-ups:

* one ``mrsf-mcp`` over streamable HTTP with eight concurrent client sessions;
* eight separate ``mrsf-mcp`` processes over stdio, one client each.

Afterwards every comment must be in the sidecar exactly once, each client's comments
in the order it added them, and the sidecar must validate.  Each set-up runs on a YAML
and on a JSON sidecar.  The clients are the MCP SDK's
own ``ClientSession``.  The numbers (time, conflicts retried) are printed (run with -s).

The suite runs 8 comments per client (64 in all; the eight writers still collide on most
calls, a few hundred retried conflicts per set-up), and each set-up on one format: HTTP on
a YAML sidecar, stdio on a JSON one (the transports and the sidecar formats meet in no code
but the tool call, and every other server test runs both formats).  ``make bench`` runs the
acceptance size, 50 per client (400 in all), on all four pairs through
``bench/mrsf_load.py``, which sets ``MARKMCP_LOAD_PER_CLIENT`` and ``MARKMCP_LOAD_ALL``.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcpwire import HttpServer, module_command

CLIENTS = 8
PER_CLIENT = int(os.environ.get("MARKMCP_LOAD_PER_CLIENT", "8"))
DOC_LINES = 60
#: Every conflict means another writer succeeded, so a writer needs at most
#: CLIENTS * PER_CLIENT attempts per comment; more means the server is broken.
MAX_ATTEMPTS = CLIENTS * PER_CLIENT + 1
#: Seconds any single request may take before the test fails instead of hanging.
READ_TIMEOUT = 120.0

#: Both sidecar formats are exercised (YAML, the format of every upstream example, and JSON):
#: in the suite one per set-up, with MARKMCP_LOAD_ALL=1 each set-up on both.
ALL_PAIRS = os.environ.get("MARKMCP_LOAD_ALL", "") == "1"
HTTP_FORMATS = ["yaml", "json"] if ALL_PAIRS else ["yaml"]
STDIO_FORMATS = ["yaml", "json"] if ALL_PAIRS else ["json"]


def make_workspace(root: Path, fmt: str) -> Path:
    """A document and its empty sidecar; returns the sidecar path."""
    root.mkdir()
    lines = [f"Line {n}: some reviewed text." for n in range(1, DOC_LINES + 1)]
    (root / "doc.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    if fmt == "json":
        sidecar = root / "doc.md.review.json"
        sidecar.write_text('{\n  "mrsf_version": "1.0",\n  "document": "doc.md",\n  "comments": []\n}\n', encoding="utf-8")
    else:
        sidecar = root / "doc.md.review.yaml"
        sidecar.write_text('mrsf_version: "1.0"\ndocument: doc.md\ncomments: []\n', encoding="utf-8")
    return sidecar


async def writer(session: ClientSession, client: int, stats: dict[str, Any]) -> None:
    """Add PER_CLIENT comments with expectedVersion, retrying on version-mismatch."""
    found = await session.call_tool("mrsf_discover", {"document": "doc.md"})
    assert not found.is_error, found.content
    version = found.structured_content["version"]
    for n in range(PER_CLIENT):
        arguments = {
            "document": "doc.md",
            "text": f"client {client} comment {n}",
            "author": f"agent-{client}",
            "line": (client * PER_CLIENT + n) % DOC_LINES + 1,
        }
        for _ in range(MAX_ATTEMPTS):
            result = await session.call_tool("mrsf_add", {**arguments, "expectedVersion": version})
            data = result.structured_content
            if not result.is_error:
                version = data["version"]
                stats["added"] += 1
                break
            assert data is not None and data.get("code") == "version-mismatch", result.content
            assert data["status"] == "conflict" and data["expectedVersion"] == version
            stats["conflicts"] += 1
            version = data["currentVersion"]
        else:
            raise AssertionError(f"client {client}: comment {n} still conflicting after {MAX_ATTEMPTS} attempts")


def check_sidecar(sidecar: Path, workspace: Path) -> None:
    """Every comment present once, per-client order kept, the sidecar valid."""
    from markmcp.mrsf import ops

    listing = ops.list_comments([str(sidecar)], cwd=str(workspace))
    assert listing["errors"] == []
    texts = [c["text"] for c in listing["comments"]]
    assert len(texts) == CLIENTS * PER_CLIENT, f"{len(texts)} comments, expected {CLIENTS * PER_CLIENT}"
    assert len(set(texts)) == len(texts), "a comment was written twice"
    for client in range(CLIENTS):
        mine = [t for t in texts if t.startswith(f"client {client} ")]
        assert mine == [f"client {client} comment {n}" for n in range(PER_CLIENT)], f"client {client} lost updates"
    ids = [c["id"] for c in listing["comments"]]
    assert len(set(ids)) == len(ids)
    report = ops.validate([str(sidecar)], cwd=str(workspace))
    assert report["valid"], report["files"]


def report(label: str, fmt: str, seconds: float, stats: dict[str, Any]) -> None:
    print(
        f"\nload[{label}, {fmt}]: {stats['added']} comments by {CLIENTS} clients in {seconds:.1f} s "
        f"({stats['added'] / seconds:.1f} adds/s), {stats['conflicts']} version conflicts retried"
    )


def run_writers(connect: Callable[[], Any], stats: dict[str, Any]) -> float:
    """Run CLIENTS writers at once, each in its own session over ``connect()``; return the seconds."""

    async def one_client(client: int) -> None:
        async with connect() as (read, write):
            async with ClientSession(read, write, read_timeout_seconds=READ_TIMEOUT) as session:
                await session.initialize()
                await writer(session, client, stats)

    async def main() -> None:
        async with anyio.create_task_group() as group:
            for client in range(CLIENTS):
                group.start_soon(one_client, client)

    started = time.perf_counter()
    anyio.run(main)
    return time.perf_counter() - started


@pytest.mark.parametrize("fmt", HTTP_FORMATS)
def test_eight_http_clients_through_one_server(tmp_path: Path, fmt: str) -> None:
    workspace = tmp_path / "ws"
    sidecar = make_workspace(workspace, fmt)
    stats = {"added": 0, "conflicts": 0}
    command = module_command("markmcp.mrsf.server", "--transport", "http", "--port", "0", "--cwd", str(workspace))
    with HttpServer(command) as server:
        url = f"http://127.0.0.1:{server.port}/mcp"
        try:
            seconds = run_writers(lambda: streamable_http_client(url), stats)
        finally:
            server.stop()
    report("http, 1 server", fmt, seconds, stats)
    check_sidecar(sidecar, workspace)
    assert stats["conflicts"] > 0, "the writers never collided: the test proved nothing"


@pytest.mark.parametrize("fmt", STDIO_FORMATS)
def test_eight_stdio_servers_on_one_sidecar(tmp_path: Path, fmt: str) -> None:
    workspace = tmp_path / "ws"
    sidecar = make_workspace(workspace, fmt)
    stats = {"added": 0, "conflicts": 0}
    params = StdioServerParameters(command=sys.executable, args=["-m", "markmcp.mrsf.server"], cwd=str(workspace))
    seconds = run_writers(lambda: stdio_client(params, errlog=sys.stderr), stats)
    report("stdio, 8 servers", fmt, seconds, stats)
    check_sidecar(sidecar, workspace)
    assert stats["conflicts"] > 0, "the writers never collided: the test proved nothing"


def test_stale_writer_gets_one_conflict_then_succeeds(tmp_path: Path) -> None:
    """A writer whose first expectedVersion is stale gets one conflict, then succeeds."""
    workspace = tmp_path / "ws"
    make_workspace(workspace, "yaml")
    params = StdioServerParameters(command=sys.executable, args=["-m", "markmcp.mrsf.server"], cwd=str(workspace))

    async def main() -> dict[str, Any]:
        async with stdio_client(params, errlog=sys.stderr) as (read, write):
            async with ClientSession(read, write, read_timeout_seconds=READ_TIMEOUT) as session:
                await session.initialize()
                first = await session.call_tool("mrsf_add", {"document": "doc.md", "text": "a", "author": "x"})
                assert not first.is_error
                stale_version = "0" * 64
                conflict = await session.call_tool(
                    "mrsf_add", {"document": "doc.md", "text": "b", "author": "x", "expectedVersion": stale_version}
                )
                retry = await session.call_tool(
                    "mrsf_add",
                    {
                        "document": "doc.md", "text": "b", "author": "x",
                        "expectedVersion": conflict.structured_content["currentVersion"],
                    },
                )
                return {"first": first, "conflict": conflict, "retry": retry}

    results = anyio.run(main)
    assert results["conflict"].is_error is True
    assert results["conflict"].structured_content == {
        "status": "conflict",
        "code": "version-mismatch",
        "currentVersion": results["first"].structured_content["version"],
        "expectedVersion": "0" * 64,
    }
    assert results["retry"].is_error is False
    assert results["retry"].structured_content["previousVersion"] == results["first"].structured_content["version"]
