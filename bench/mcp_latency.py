"""Latency of an MCP server over stdio: start-up to first answer, and tools/call round trips.

Usage::

    python bench/mcp_latency.py                      # the mcpcore demo server, tool "add"
    python bench/mcp_latency.py --runs 20 --calls 1000
    python bench/mcp_latency.py --tool validate --args '{"path": "doc.md"}' -- mrsf-mcp
    python bench/mcp_latency.py --servers --runs 11    # start-up of every markmcp server, side by side

Everything after ``--`` is the server command (default: the test server in
tests/mcpcore/mcpcore_demo.py run with this Python).  Two numbers are measured:

* start-up: process start -> the ``initialize`` reply, median (and min/max) of
  ``--runs`` fresh processes; the request is written right after the process is
  spawned, as a real client does;
* tools/call: ``--calls`` sequential calls of ``--tool`` with ``--args`` on one
  initialized process after ``--warmup`` calls, reported as p50/p99/max.

``--servers`` measures only the start-up, of each markmcp server (``mrsf-mcp``,
``figdown-mcp``, ``visimark-mcp``) in turn, run after run (so a busy moment of the machine
is shared rather than charged to one server), and prints them side by side.

Standard library only; prints the numbers and exits 1 if the server misbehaves.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_COMMAND = [sys.executable, str(ROOT / "tests" / "mcpcore" / "mcpcore_demo.py")]

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "mcp-latency-bench", "version": "1"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


class Server:
    """A server process spoken to with JSON-RPC lines."""

    def __init__(self, command: list[str], env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env
        )

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def answer(self, request_id: int) -> dict[str, Any]:
        """Read lines until the response to ``request_id`` arrives."""
        assert self.proc.stdout is not None
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise SystemExit(f"server exited (code {self.proc.wait()}) before answering request {request_id}")
            message = json.loads(line)
            if message.get("id") == request_id and "method" not in message:
                return message

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self.proc.stdout:
            self.proc.stdout.close()


def measure_startup(command: list[str], runs: int) -> list[float]:
    """Seconds from spawning the server to reading its ``initialize`` reply, per run."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        server = Server(command)
        server.send(INITIALIZE)
        reply = server.answer(0)
        times.append(time.perf_counter() - started)
        server.close()
        if "result" not in reply:
            raise SystemExit(f"initialize failed: {reply}")
    return times


def measure_calls(command: list[str], tool: str, arguments: dict[str, Any], calls: int, warmup: int) -> list[float]:
    """Seconds per ``tools/call`` round trip on one initialized server."""
    server = Server(command)
    try:
        server.send(INITIALIZE)
        server.answer(0)
        server.send(INITIALIZED)
        times = []
        for number in range(1, warmup + calls + 1):
            request = {"jsonrpc": "2.0", "id": number, "method": "tools/call",
                       "params": {"name": tool, "arguments": arguments}}
            started = time.perf_counter()
            server.send(request)
            reply = server.answer(number)
            elapsed = time.perf_counter() - started
            if "result" not in reply or reply["result"].get("isError"):
                raise SystemExit(f"tools/call {tool} failed: {reply}")
            if number > warmup:
                times.append(elapsed)
        return times
    finally:
        server.close()


SERVERS = {
    "mrsf-mcp": [sys.executable, "-m", "markmcp.mrsf.server"],
    "figdown-mcp": [sys.executable, "-m", "markmcp.figdown.server"],
    "visimark-mcp": [sys.executable, "-m", "markmcp.visimark.server"],
}


def compare_startup(runs: int) -> int:
    """Start -> initialize reply of every server, interleaved run by run."""
    times: dict[str, list[float]] = {name: [] for name in SERVERS}
    cpu: dict[str, list[float]] = {name: [] for name in SERVERS}
    for _ in range(runs):
        for name, command in SERVERS.items():
            before = os.times()
            times[name] += measure_startup(command, 1)
            after = os.times()
            cpu[name].append(after.children_user + after.children_system
                             - before.children_user - before.children_system)
    width = max(len(name) for name in SERVERS)
    print(f"start -> initialize reply, median of {runs} runs each (interleaved); CPU is the server "
          "process's whole life (start, initialize, exit on stdin EOF):")
    for name, values in times.items():
        print(f"  {name.ljust(width)}  median {statistics.median(values) * 1000:7.1f} ms wall "
              f"(min {min(values) * 1000:.1f}, max {max(values) * 1000:.1f}), "
              f"median {statistics.median(cpu[name]) * 1000:6.1f} ms CPU")
    return 0


def percentile(values: list[float], fraction: float) -> float:
    """The ``fraction`` quantile by nearest rank."""
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(fraction * len(ordered) + 0.5) - 1))
    return ordered[index]


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    command = DEFAULT_COMMAND
    if "--" in argv:
        split = argv.index("--")
        argv, command = argv[:split], argv[split + 1:]
        if not command:
            print("mcp_latency: no server command after --", file=sys.stderr)
            return 2
    parser = argparse.ArgumentParser(prog="mcp_latency", description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10, help="fresh processes for the start-up median (10)")
    parser.add_argument("--calls", type=int, default=500, help="measured tools/call round trips (500)")
    parser.add_argument("--warmup", type=int, default=20, help="unmeasured calls first (20)")
    parser.add_argument("--tool", default="add", help="tool to call (default: add)")
    parser.add_argument("--args", default='{"a": 1, "b": 2}', help="tool arguments as JSON")
    parser.add_argument("--servers", action="store_true",
                        help="only the start-up, of every markmcp server side by side (--runs each)")
    options = parser.parse_args(argv)
    if options.servers:
        return compare_startup(options.runs)
    arguments = json.loads(options.args)

    print(f"server: {' '.join(command)}")
    startup = measure_startup(command, options.runs)
    print(
        f"start -> initialize reply: median {statistics.median(startup) * 1000:.1f} ms "
        f"(min {min(startup) * 1000:.1f}, max {max(startup) * 1000:.1f}; {options.runs} runs)"
    )
    calls = measure_calls(command, options.tool, arguments, options.calls, options.warmup)
    print(
        f"tools/call {options.tool}: p50 {percentile(calls, 0.50) * 1000:.2f} ms, "
        f"p99 {percentile(calls, 0.99) * 1000:.2f} ms, max {max(calls) * 1000:.2f} ms ({options.calls} calls)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
