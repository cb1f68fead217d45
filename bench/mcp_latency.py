"""Latency of an MCP server over stdio: start-up to first answer, and tools/call round trips.

Usage::

    python bench/mcp_latency.py                      # the mcpcore demo server, tool "add"
    python bench/mcp_latency.py --runs 20 --calls 1000
    python bench/mcp_latency.py --tool validate --args '{"path": "doc.md"}' -- mrsf-mcp
    python bench/mcp_latency.py --servers --runs 11    # start-up of every markmcp server, side by side
    python bench/mcp_latency.py --usage-errors --runs 11  # --help, --version and mistakes, per server

Everything after ``--`` is the server command (default: the test server in
tests/mcpcore/mcpcore_demo.py run with this Python).  Three numbers are measured:

* start-up: process start -> the ``initialize`` reply, median (and min/max) of
  ``--runs`` fresh processes; the request is written right after the process is
  spawned, as a real client does;
* first call: on ``--runs`` more fresh processes, the first ``tools/call`` of ``--tool``,
  sent as soon as the ``initialize`` reply is read (after ``notifications/initialized``):
  process start -> its reply, and the ``initialize`` reply -> its reply (what a client
  waits for after the handshake: the SDK and the engine still loading), medians;
* tools/call: ``--calls`` sequential calls of ``--tool`` with ``--args`` on one
  initialized process after ``--warmup`` calls, reported as p50/p99/max.

``--servers`` measures only the start-up, of each markmcp server command (every ``*-mcp``
script in pyproject.toml, started as the installed script starts it) and of a bare SDK
server (``bench/bare_sdk_server.py``), in turn, run after run (so a busy moment of the
machine is shared rather than charged to one server), and prints them side by side with
each server's ratio to the bare SDK server.  The package is measured twice, from two
temporary copies: compiled to bytecode ahead (what a wheel install leaves) and without
bytecode (a source tree under ``PYTHONDONTWRITEBYTECODE=1``: every start compiles).

``--usage-errors`` measures what a user waits for when a server command does not serve:
``--help``, ``--version``, an unknown option, a ``--root`` that is not a folder and a port in
use (``--transport http``), each the whole process of every server command (with bytecode),
interleaved run by run, beside ``python -c pass``.  None of them should import the SDK.

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


def measure_startup(command: list[str], runs: int, env: dict[str, str] | None = None) -> list[float]:
    """Seconds from spawning the server to reading its ``initialize`` reply, per run."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        server = Server(command, env)
        server.send(INITIALIZE)
        reply = server.answer(0)
        times.append(time.perf_counter() - started)
        server.close()
        if "result" not in reply:
            raise SystemExit(f"initialize failed: {reply}")
    return times


def first_request(command: list[str], request: dict[str, Any],
                  env: dict[str, str] | None = None) -> tuple[dict[str, Any], float, float]:
    """Spawn the server, send ``initialize``, then (on its reply, after
    ``notifications/initialized``) ``request`` with id 1, as a client does: its reply, and the
    seconds from the spawn and from the ``initialize`` reply to it."""
    started = time.perf_counter()
    server = Server(command, env)
    try:
        server.send(INITIALIZE)
        server.answer(0)
        answered = time.perf_counter()
        server.send(INITIALIZED)
        server.send({"jsonrpc": "2.0", "id": 1, **request})
        reply = server.answer(1)
        done = time.perf_counter()
    finally:
        server.close()
    return reply, done - started, done - answered


def measure_listing(command: list[str], runs: int, env: dict[str, str] | None = None) -> list[float]:
    """Seconds from spawning the server to reading its ``tools/list`` reply (:func:`first_request`)."""
    times = []
    for _ in range(runs):
        reply, elapsed, _ = first_request(command, {"method": "tools/list"}, env)
        if "result" not in reply or not reply["result"].get("tools"):
            raise SystemExit(f"tools/list failed: {reply}")
        times.append(elapsed)
    return times


def measure_first_call(command: list[str], tool: str, arguments: dict[str, Any], runs: int,
                       env: dict[str, str] | None = None) -> list[tuple[float, float]]:
    """Per run, seconds from spawning the server to the reply of its first ``tools/call``
    (sent right after the ``initialize`` reply), and from that ``initialize`` reply to it."""
    times = []
    for _ in range(runs):
        reply, elapsed, after = first_request(
            command, {"method": "tools/call", "params": {"name": tool, "arguments": arguments}}, env)
        if "result" not in reply or reply["result"].get("isError"):
            raise SystemExit(f"tools/call {tool} failed: {reply}")
        times.append((elapsed, after))
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


def server_commands() -> dict[str, list[str]]:
    """Every ``*-mcp`` console script of the package, started as its installed script starts it
    (``from module import main; sys.exit(main())``): read from pyproject.toml, so a new server
    command is measured as soon as it is declared there."""
    import tomllib

    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    commands = {}
    for name, target in sorted(scripts.items()):
        if name.endswith("-mcp"):
            module, function = target.split(":")
            commands[name] = [sys.executable, "-c", f"import sys; from {module} import {function}; sys.exit({function}())"]
    return commands


BARE_SDK = "bare SDK server"
"""The yardstick: bench/bare_sdk_server.py, a minimal server on the SDK's MCPServer."""


def package_copies(folder: Path) -> dict[str, dict[str, str]]:
    """Two copies of the package and the environment to run each: ``bytecode`` compiled ahead
    (what a wheel install leaves), ``source`` without any (every start compiles, as under
    PYTHONDONTWRITEBYTECODE=1 in a source tree)."""
    import compileall
    import shutil

    env = {key: value for key, value in os.environ.items() if key != "PYTHONPYCACHEPREFIX"}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    copies = {}
    for label in ("bytecode", "source"):
        target = folder / label
        shutil.copytree(ROOT / "src" / "markmcp", target / "markmcp", ignore=shutil.ignore_patterns("__pycache__"))
        if label == "bytecode":
            compileall.compile_dir(target, quiet=1)
        copies[label] = {**env, "PYTHONPATH": str(target)}
    return copies


def compare_startup(runs: int) -> int:
    """Start -> initialize reply of every server command, with and without bytecode, beside a
    bare SDK server; interleaved run by run."""
    import tempfile

    commands = server_commands()
    bare = [sys.executable, str(ROOT / "bench" / "bare_sdk_server.py")]
    with tempfile.TemporaryDirectory(prefix="mcp-startup-") as folder:
        envs = package_copies(Path(folder))
        cases = [(name, label) for name in commands for label in envs] + [(BARE_SDK, "bytecode")]
        times: dict[tuple[str, str], list[float]] = {case: [] for case in cases}
        ratios: dict[tuple[str, str], list[float]] = {case: [] for case in cases}
        listing: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(runs):
            bare_time = measure_startup(bare, 1, envs["bytecode"])[0]
            times[(BARE_SDK, "bytecode")].append(bare_time)
            for name, label in cases[:-1]:
                elapsed = measure_startup(commands[name], 1, envs[label])[0]
                times[(name, label)].append(elapsed)
                ratios[(name, label)].append(elapsed / bare_time)
            for name in commands:
                listing[name].append(measure_listing(commands[name], 1, envs["bytecode"])[0])
    width = max(len(name) for name, _ in cases)
    print(f"start -> initialize reply (process spawn to the reply line on stdout), median of {runs} runs "
          "(min-max), interleaved run by run; 'vs bare' is the median of each run's ratio to the bare SDK "
          "server's start in the same round:")
    print(f"  {'server'.ljust(width)}  {'with bytecode (installed)':>34}  {'vs bare':>7}  "
          f"{'without bytecode (source)':>34}  {'vs bare':>7}")

    def cell(case: tuple[str, str]) -> str:
        values = times[case]
        return (f"{statistics.median(values) * 1000:7.1f} ms ({min(values) * 1000:6.1f}-"
                f"{max(values) * 1000:7.1f})").rjust(34)

    def ratio(case: tuple[str, str]) -> str:
        return f"{statistics.median(ratios[case]):7.2f}" if ratios[case] else f"{1:7.2f}"

    for name in [*commands, BARE_SDK]:
        row = f"  {name.ljust(width)}  {cell((name, 'bytecode'))}  {ratio((name, 'bytecode'))}"
        if (name, "source") in times:
            row += f"  {cell((name, 'source'))}  {ratio((name, 'source'))}"
        print(row)
    print(f"start -> tools/list reply (sent on the initialize reply, after notifications/initialized; "
          f"with bytecode), median of {runs} runs (min-max), in the same rounds:")
    for name in commands:
        values = listing[name]
        print(f"  {name.ljust(width)}  {statistics.median(values) * 1000:7.1f} ms "
              f"({min(values) * 1000:6.1f}-{max(values) * 1000:7.1f})")
    return 0


def compare_usage_errors(runs: int) -> int:
    """Whole-process time of each server command's --help, --version and usage errors (with
    bytecode), interleaved run by run; exits 1 when one of them ends with an unexpected code."""
    import socket
    import tempfile

    commands = server_commands()
    with tempfile.TemporaryDirectory(prefix="mcp-usage-") as folder, socket.socket() as taken:
        env = package_copies(Path(folder))["bytecode"]
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        cases = {
            "--help": (["--help"], 0),
            "--version": (["--version"], 0),
            "unknown option": (["--no-such-option"], 2),
            "--root not a folder": (["--root", str(Path(folder) / "missing")], 2),
            "port in use": (["--transport", "http", "--port", str(taken.getsockname()[1])], 1),
        }
        bare = [sys.executable, "-c", "pass"]
        times: dict[tuple[str, str], list[float]] = {}
        wrong = []
        for _ in range(runs):
            started = time.perf_counter()
            subprocess.run(bare, env=env, check=True)
            times.setdefault(("python -c pass", ""), []).append(time.perf_counter() - started)
            for name, command in commands.items():
                for case, (words, expected) in cases.items():
                    started = time.perf_counter()
                    done = subprocess.run([*command, *words], env=env, stdin=subprocess.DEVNULL,
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                    times.setdefault((name, case), []).append(time.perf_counter() - started)
                    if done.returncode != expected:
                        wrong.append(f"{name} {case}: exit {done.returncode}, expected {expected}")
    print(f"process start -> exit, with bytecode (installed), median of {runs} runs (min-max), interleaved:")
    width = max(len(f"{name} {case}") for name, case in times)
    for (name, case), values in times.items():
        print(f"  {f'{name} {case}'.ljust(width)}  {statistics.median(values) * 1000:7.1f} ms "
              f"({min(values) * 1000:6.1f}-{max(values) * 1000:7.1f})")
    for line in sorted(set(wrong)):
        print(f"  wrong exit code: {line}")
    return 1 if wrong else 0


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
    parser.add_argument("--usage-errors", action="store_true",
                        help="only --help, --version and usage errors of every markmcp server (--runs each)")
    options = parser.parse_args(argv)
    if options.servers:
        return compare_startup(options.runs)
    if options.usage_errors:
        return compare_usage_errors(options.runs)
    arguments = json.loads(options.args)

    print(f"server: {' '.join(command)}")
    startup = measure_startup(command, options.runs)
    print(
        f"start -> initialize reply: median {statistics.median(startup) * 1000:.1f} ms "
        f"(min {min(startup) * 1000:.1f}, max {max(startup) * 1000:.1f}; {options.runs} runs)"
    )
    first = measure_first_call(command, options.tool, arguments, options.runs)
    print(
        f"first tools/call {options.tool}, sent on the initialize reply: start -> its reply median "
        f"{statistics.median(t for t, _ in first) * 1000:.1f} ms, initialize reply -> its reply median "
        f"{statistics.median(t for _, t in first) * 1000:.1f} ms ({options.runs} runs)"
    )
    calls = measure_calls(command, options.tool, arguments, options.calls, options.warmup)
    print(
        f"tools/call {options.tool}: p50 {percentile(calls, 0.50) * 1000:.2f} ms, "
        f"p99 {percentile(calls, 0.99) * 1000:.2f} ms, max {max(calls) * 1000:.2f} ms ({options.calls} calls)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
