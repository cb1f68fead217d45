"""Minimal MCP clients for every server test: raw JSON-RPC over a real subprocess.

Shared by tests/mcpcore (the demo server), tests/mrsf (``mrsf-mcp``) and tests/figdown
(``figdown-mcp``); ``tests/`` is on ``sys.path`` for all of them, so ``import mcpwire``.

Three clients, each as plain as possible so the tests see the wire: ``StdioClient``
(JSON lines on the child's stdin/stdout), ``HttpClient`` (streamable HTTP POSTs to
/mcp, answers as JSON or SSE) and ``SseClient`` (GET /sse plus POSTs to the
announced endpoint); ``HttpServer`` starts a server on an HTTP transport and reads its
port.  Every read has a timeout so a broken server fails a test instead of hanging it.
"""

from __future__ import annotations

import http.client
import json
import queue
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DEMO = HERE / "mcpcore" / "mcpcore_demo.py"
TIMEOUT = 20.0
PROTOCOL = "2025-11-25"


def wipe(folder: Path) -> None:
    """Remove everything inside ``folder`` (symlinks removed, never followed); the folder
    itself stays, so a server started in it keeps its working directory."""
    for entry in folder.iterdir():
        wipe_entry(entry)


def wipe_entry(entry: Path) -> None:
    """Remove one file, symlink or folder tree (a symlink to a folder is unlinked, not followed)."""
    if entry.is_dir() and not entry.is_symlink():
        shutil.rmtree(entry)
    else:
        entry.unlink()


def demo_command(*args: str) -> list[str]:
    """The command line of the mcpcore demo server (tests/mcpcore/mcpcore_demo.py)."""
    return [sys.executable, str(DEMO), *args]


def module_command(module: str, *args: str) -> list[str]:
    """The command line of ``python -m <module>`` in this interpreter."""
    return [sys.executable, "-m", module, *args]


def initialize_params(capabilities: dict[str, Any] | None = None, client: str = "markmcp-tests") -> dict[str, Any]:
    return {
        "protocolVersion": PROTOCOL,
        "capabilities": capabilities or {},
        "clientInfo": {"name": client, "version": "1"},
    }


class StdioClient:
    """A server subprocess spoken to over stdin/stdout, one JSON-RPC message per line.

    ``command`` is the full command line; ``timeout`` bounds every wait for an answer;
    ``env`` replaces the environment (default: this process's).
    """

    def __init__(self, command: list[str], *, cwd: Path | None = None, timeout: float = TIMEOUT,
                 env: dict[str, str] | None = None) -> None:
        self.timeout = timeout
        self.proc = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=env,
        )
        self.lines: queue.Queue[bytes | None] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()
        self.next_id = 0

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def send(self, message: dict[str, Any] | str) -> None:
        data = message if isinstance(message, str) else json.dumps(message)
        assert self.proc.stdin is not None
        self.proc.stdin.write(data.encode() + b"\n")
        self.proc.stdin.flush()

    def request(self, method: str, params: dict[str, Any] | None = None) -> int:
        """Send a request; return its id (read the answer with ``response``)."""
        self.next_id += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        return self.next_id

    def receive(self, timeout: float | None = None) -> dict[str, Any] | None:
        """The next message from the server (None at end of output)."""
        line = self.lines.get(timeout=self.timeout if timeout is None else timeout)
        return None if line is None else json.loads(line)

    def response(self, request_id: int, timeout: float | None = None) -> dict[str, Any]:
        """Wait for the response to ``request_id`` (other messages are skipped)."""
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while True:
            message = self.receive(max(0.1, deadline - time.monotonic()))
            assert message is not None, "server closed stdout before answering"
            if message.get("id") == request_id and "method" not in message:
                return message

    def call(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """Send a request and wait for its answer (the whole JSON-RPC response)."""
        return self.response(self.request(method, params))

    def call_tool(self, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        """tools/call (no ``arguments`` key when None); returns the result
        (``isError``, ``structuredContent``, ``content``)."""
        params: dict[str, Any] = {"name": name}
        if arguments is not None:
            params["arguments"] = arguments
        answer = self.call("tools/call", params)
        assert "result" in answer, answer
        return answer["result"]

    def initialize(self, capabilities: dict[str, Any] | None = None, client: str = "markmcp-tests") -> dict[str, Any]:
        """The initialize handshake (request, then the initialized notification); returns the answer."""
        answer = self.call("initialize", initialize_params(capabilities, client))
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return answer

    def close_stdin(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()

    def finish(self, timeout: float | None = None) -> tuple[int, str]:
        """Close stdin, wait for exit, release the pipes; return (exit code, stderr)."""
        if self.proc.stdin and not self.proc.stdin.closed:
            self.proc.stdin.close()
        try:
            code = self.proc.wait(timeout=self.timeout if timeout is None else timeout)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
        assert self.proc.stderr is not None
        stderr = self.proc.stderr.read().decode()
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()
        return code, stderr

    def __enter__(self) -> StdioClient:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None and not stream.closed:
                stream.close()


def demo_client(*args: str, cwd: Path | None = None) -> StdioClient:
    """The mcpcore demo server on stdio, started with ``args``."""
    return StdioClient(demo_command(*args), cwd=cwd)


def demo_http(transport: str, *args: str) -> HttpServer:
    """The mcpcore demo server on ``--transport <transport> --port 0``, started with ``args``."""
    return HttpServer(demo_command("--transport", transport, "--port", "0", *args))


class HttpServer:
    """A server subprocess on an HTTP transport; the port is read from its stderr banner.

    ``command`` is the full command line, normally ending ``--transport http|sse --port 0``.
    """

    def __init__(self, command: list[str], *, cwd: Path | None = None) -> None:
        self.proc = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
        )
        assert self.proc.stderr is not None
        seen = []
        while True:
            line = self.proc.stderr.readline().decode()
            seen.append(line)
            match = re.search(r"serving .* on http://\S+:(\d+)/", line)
            if match or not line:
                break
        assert match, f"no listening banner on stderr: {''.join(seen)!r}"
        self.port = int(match.group(1))
        # keep draining stderr so a chatty server never blocks on a full pipe
        self.stderr_lines: list[bytes] = []
        self.drain = threading.Thread(target=self._drain_stderr, daemon=True)
        self.drain.start()

    def _drain_stderr(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.stderr_lines.append(line)

    def stop(self, sig: int | None = None, timeout: float = TIMEOUT) -> tuple[int, str, str]:
        """Signal the server (default SIGTERM); return (exit code, stdout, rest of stderr)."""
        if sig is None:
            self.proc.terminate()
        else:
            self.proc.send_signal(sig)
        return self.wait(timeout)

    def wait(self, timeout: float = TIMEOUT) -> tuple[int, str, str]:
        """Wait for the server to exit (killed after ``timeout``); return (exit code, stdout, stderr)."""
        try:
            self.proc.wait(timeout=timeout)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
        self.drain.join(timeout=timeout)
        assert self.proc.stdout is not None
        out = self.proc.stdout.read()
        return self.proc.returncode, out.decode(), b"".join(self.stderr_lines).decode()

    def __enter__(self) -> HttpServer:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None and not stream.closed:
                stream.close()


def _sse_events(response: http.client.HTTPResponse) -> Any:
    """Yield (event, data) pairs from an SSE response body."""
    event, data = "message", []
    while True:
        raw = response.readline()
        if not raw:
            return
        line = raw.decode().rstrip("\r\n")
        if line == "":
            if data:
                yield event, "\n".join(data)
            event, data = "message", []
        elif line.startswith("event:"):
            event = line[6:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].removeprefix(" "))


class HttpClient:
    """A streamable HTTP client session (raw POSTs to /mcp)."""

    def __init__(self, port: int, host_header: str | None = None) -> None:
        self.port = port
        self.session_id: str | None = None
        self.host_header = host_header
        self.next_id = 0

    def post(self, message: dict[str, Any]) -> tuple[int, list[dict[str, Any]]]:
        """POST one message; return (HTTP status, JSON-RPC messages in the answer)."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=TIMEOUT)
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": PROTOCOL,
        }
        if self.host_header:
            headers["Host"] = self.host_header
        if self.session_id:
            headers["Mcp-Session-Id"] = self.session_id
        conn.request("POST", "/mcp", body=json.dumps(message), headers=headers)
        response = conn.getresponse()
        self.session_id = response.getheader("mcp-session-id") or self.session_id
        kind = response.getheader("content-type") or ""
        if kind.startswith("text/event-stream"):
            messages = [json.loads(data) for event, data in _sse_events(response) if event == "message" and data]
        else:
            body = response.read()
            messages = [json.loads(body)] if kind.startswith("application/json") and body.strip() else []
        conn.close()
        return response.status, messages

    def call(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        self.next_id += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            message["params"] = params
        status, messages = self.post(message)
        assert status == 200, f"HTTP {status}"
        answers = [m for m in messages if m.get("id") == self.next_id and "method" not in m]
        assert len(answers) == 1, messages
        return answers[0]

    def initialize(self) -> dict[str, Any]:
        answer = self.call("initialize", initialize_params())
        status, _ = self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})
        assert status == 202
        return answer


class SseClient:
    """An SSE-transport client: GET /sse stays open; messages are POSTed to the announced endpoint."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT)
        self.conn.request("GET", "/sse", headers={"Accept": "text/event-stream"})
        response = self.conn.getresponse()
        assert response.status == 200, response.status
        self.events = _sse_events(response)
        event, data = next(self.events)
        assert event == "endpoint", (event, data)
        self.endpoint = data
        self.next_id = 0

    def call(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        self.next_id += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            message["params"] = params
        self.post(message)
        for event, data in self.events:
            answer = json.loads(data)
            if event == "message" and answer.get("id") == self.next_id and "method" not in answer:
                return answer
        raise AssertionError("SSE stream ended before the answer")

    def post(self, message: dict[str, Any]) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=TIMEOUT)
        conn.request("POST", self.endpoint, body=json.dumps(message), headers={"Content-Type": "application/json"})
        response = conn.getresponse()
        response.read()
        conn.close()
        assert response.status == 202, response.status

    def initialize(self) -> dict[str, Any]:
        answer = self.call("initialize", initialize_params())
        self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return answer

    def close(self) -> None:
        self.conn.close()
