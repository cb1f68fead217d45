"""One roots policy for every server, mrsf-mcp and markmcp-mcp included.

Readable places are ``--cwd``, every ``--root`` and the client's MCP roots (over stdio they
add folders); a path leaving them is refused with the same message by every server, naming
``--root`` and client roots as the way to allow it.  ``@mrsf/mcp`` takes any absolute
per-call ``cwd``, so hosts launch it anywhere and pass ``cwd`` per call: with the project
declared as a client root, that configuration works unchanged here.  MRSF writes go through
the write gate, open by default (as upstream) and closed by ``--read-only``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mcpwire import HttpServer, StdioClient, module_command, wipe

from .test_roots import sdk_session, text_of

TIMEOUT = 60.0
HINT = "start the server with --root DIR (or let the client declare the folder as an MCP root) to allow it"
MRSF_SERVERS = ["markmcp.mrsf.server", "markmcp.server"]
DOCUMENT = "# Notes\n\nA line to review.\nAnother line.\n"


class Session:
    """A stdio session with one server: the client declares ``roots`` (None: no roots
    capability) and answers the server's ``roots/list`` with them."""

    def __init__(self, command: list[str], cwd: Path, roots: list[Path] | None) -> None:
        self.roots = roots
        self.client = StdioClient(command, cwd=cwd, timeout=TIMEOUT)
        self.client.initialize({"roots": {}} if roots is not None else {})

    def run(self, calls: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
        results = []
        for name, arguments in calls:
            request_id = self.client.request("tools/call", {"name": name, "arguments": arguments})
            while True:
                message = self.client.receive()
                assert message is not None, "the server closed stdout"
                if message.get("method") == "roots/list":
                    listed = [{"uri": root.as_uri()} for root in self.roots or []]
                    self.client.send({"jsonrpc": "2.0", "id": message["id"], "result": {"roots": listed}})
                elif message.get("id") == request_id and "method" not in message:
                    results.append(message["result"])
                    break
        return results

    def finish(self) -> None:
        with self.client:
            code, stderr = self.client.finish(timeout=TIMEOUT)
        assert code == 0 and "Traceback" not in stderr, stderr


def session(command: list[str], cwd: Path, roots: list[Path] | None,
            calls: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    """Run ``calls`` in a session of their own (see :class:`Session`)."""
    started = Session(command, cwd, roots)
    with started.client:  # killed if a call fails
        results = started.run(calls)
        started.finish()
    return results


def make_places(base: Path) -> dict[str, Path]:
    """A launch folder with nothing in it, the host's project, and a folder nobody granted."""
    found = {name: base / name for name in ("launch", "project", "other")}
    for folder in found.values():
        folder.mkdir(exist_ok=True)
        wipe(folder)
    (found["project"] / "doc.md").write_text(DOCUMENT, encoding="utf-8")
    (found["other"] / "doc.md").write_text(DOCUMENT, encoding="utf-8")
    return found


@pytest.fixture()
def places(tmp_path: Path) -> dict[str, Path]:
    return make_places(tmp_path)


@pytest.fixture(scope="module")
def _hosts(tmp_path_factory: pytest.TempPathFactory):
    """Per MRSF server, one session launched in an empty folder whose client declares the
    project as its root (the @mrsf/mcp host configuration), shared by the tests below that
    use exactly that configuration; their folders are wiped and seeded afresh per test."""
    base = tmp_path_factory.mktemp("hosts")
    folders = make_places(base)
    started: dict[str, Session] = {}
    yield base, folders, started
    for host in started.values():
        host.finish()


@pytest.fixture()
def host_places(_hosts: tuple[Path, dict[str, Path], dict[str, Session]]) -> dict[str, Path]:
    base, _, _ = _hosts
    return make_places(base)


@pytest.fixture()
def host(_hosts: tuple[Path, dict[str, Path], dict[str, Session]], host_places: dict[str, Path]):
    """``host(module)``: the shared session of that server (started on first use)."""
    _, folders, started = _hosts

    def get(module: str) -> Session:
        if module not in started:
            started[module] = Session(module_command(module), folders["launch"], [folders["project"]])
        return started[module]

    return get


def mrsf_calls(project: Path) -> list[tuple[str, dict[str, Any]]]:
    cwd = str(project)
    return [
        ("mrsf_add", {"document": "doc.md", "text": "Why?", "author": "Ada", "line": 3, "cwd": cwd}),
        ("mrsf_list", {"cwd": cwd}),
        ("mrsf_status", {"files": ["doc.md"], "cwd": cwd}),
    ]


@pytest.mark.parametrize("module", MRSF_SERVERS)
def test_a_host_passing_an_absolute_cwd_per_call_works_when_it_declares_the_project(
        host, host_places: dict[str, Path], module: str) -> None:
    """The @mrsf/mcp host configuration: launched elsewhere, cwd per call, the project a client root."""
    places = host_places
    added, listed, status = host(module).run(mrsf_calls(places["project"]))
    for result in (added, listed, status):
        assert result["isError"] is False, result["content"]
    assert (places["project"] / "doc.md.review.yaml").is_file()
    assert listed["structuredContent"]["files"][0]["comments"][0]["text"] == "Why?"
    assert status["structuredContent"]["counts"]["total"] == 1
    assert list(places["launch"].iterdir()) == []


@pytest.mark.parametrize("module", MRSF_SERVERS)
def test_a_cwd_outside_every_allowed_place_is_refused_naming_how_to_allow_it(
        host, host_places: dict[str, Path], module: str) -> None:
    places = host_places
    other = places["other"]
    results = host(module).run([
        ("mrsf_add", {"document": "doc.md", "text": "Why?", "author": "Ada", "line": 3, "cwd": str(other)}),
        ("mrsf_list", {"cwd": str(other)}),
        ("mrsf_add", {"document": str(other / "doc.md"), "text": "Why?", "author": "Ada", "cwd": str(places["project"])}),
    ])
    for result in results:
        assert result["isError"] is True
        message = result["content"][0]["text"]
        assert "outside the allowed folders" in message and message.endswith(HINT), message
        assert result["structuredContent"]["code"] == "path-escape"
    assert sorted(path.name for path in other.iterdir()) == ["doc.md"]


@pytest.mark.parametrize("module", MRSF_SERVERS)
def test_root_on_the_command_line_allows_the_project_without_client_roots(
        places: dict[str, Path], module: str) -> None:
    results = session(module_command(module, "--root", str(places["project"])), places["launch"], None,
                      mrsf_calls(places["project"]))
    assert [result["isError"] for result in results] == [False, False, False], results
    assert (places["project"] / "doc.md.review.yaml").is_file()
    refused = session(module_command(module), places["launch"], None, mrsf_calls(places["project"])[:1])[0]
    assert refused["isError"] is True and refused["content"][0]["text"].endswith(HINT)


@pytest.mark.parametrize("module", MRSF_SERVERS)
def test_read_only_closes_the_mrsf_write_gate(places: dict[str, Path], module: str) -> None:
    project = places["project"]
    (project / "doc.md.review.yaml").write_text(
        'mrsf_version: "1.0"\ndocument: doc.md\ncomments:\n- id: c1\n  author: Ada\n  timestamp: '
        '"2026-01-01T00:00:00Z"\n  text: Old\n  resolved: false\n  line: 3\n', encoding="utf-8")
    before = (project / "doc.md.review.yaml").read_bytes()
    calls = [
        ("mrsf_add", {"document": "doc.md", "text": "Why?", "author": "Ada", "line": 3}),
        ("mrsf_resolve", {"document": "doc.md", "id": "c1"}),
        ("mrsf_delete", {"document": "doc.md", "id": "c1"}),
        ("mrsf_repair", {"document": "doc.md", "strategy": "reset"}),
        ("mrsf_reanchor", {"files": ["doc.md"]}),
        ("mrsf_rename", {"oldDocument": "doc.md", "newDocument": "moved.md"}),
        ("mrsf_reanchor", {"files": ["doc.md"], "dryRun": True}),
        ("mrsf_list", {}),
    ]
    *writes, dry, listed = session(module_command(module, "--read-only"), project, [project], calls)
    for result in writes:
        assert result["isError"] is True, result
        assert result["content"][0]["text"].endswith("is not allowed: the server was started with --read-only")
        assert result["content"][0]["text"].startswith("writing the review sidecar of '")
        assert result["structuredContent"]["code"] == "read-only"
    assert dry["isError"] is False and listed["isError"] is False
    assert (project / "doc.md.review.yaml").read_bytes() == before
    assert sorted(path.name for path in project.iterdir()) == ["doc.md", "doc.md.review.yaml"]


def test_read_only_and_allow_write_exclude_each_other(places: dict[str, Path]) -> None:
    import subprocess

    done = subprocess.run(module_command("markmcp.server", "--read-only", "--allow-write"), capture_output=True,
                          text=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL)
    assert done.returncode == 2 and "not allowed with argument" in done.stderr and done.stdout == ""
    for module in ("markmcp.visimark.server", "markmcp.figdown.server"):
        done = subprocess.run(module_command(module, "--read-only"), capture_output=True, text=True,
                              timeout=TIMEOUT, stdin=subprocess.DEVNULL)
        assert done.returncode == 2 and "unrecognized arguments: --read-only" in done.stderr


# The same refusal from every server: module -> (tool, the argument given an absolute path outside)
REFUSALS = {
    "markmcp.visimark.server": [("visimark_check", "path")],
    "markmcp.figdown.server": [("figdown_check", "path")],
    "markmcp.mrsf.server": [("mrsf_discover", "document")],
    "markmcp.server": [("visimark_check", "path"), ("figdown_read", "path"), ("mrsf_list", "cwd")],
}


@pytest.mark.parametrize("module", REFUSALS)
def test_every_server_refuses_a_path_outside_with_the_same_message(places: dict[str, Path], module: str) -> None:
    targets = [places["other"] if key == "cwd" else places["other"] / "doc.md" for _, key in REFUSALS[module]]
    calls = [(tool, {key: str(target)}) for (tool, key), target in zip(REFUSALS[module], targets)]
    results = session(module_command(module), places["project"], [], calls)
    assert len(results) == len(calls)
    for (tool, _), target, result in zip(calls, targets, results):
        message = result["content"][0]["text"]
        expected = f"path '{target}' outside the allowed folders ({places['project']}); {HINT}"
        assert result["isError"] is True and expected in message, (tool, message)


@pytest.mark.parametrize("module", MRSF_SERVERS)
def test_over_http_client_roots_only_narrow_for_mrsf_too(places: dict[str, Path], module: str) -> None:
    """A client declaring / over HTTP gains nothing: an absolute cwd outside --cwd is refused."""
    command = module_command(module, "--transport", "http", "--port", "0", "--cwd", str(places["project"]))
    with HttpServer(command) as server:
        outside, inside = sdk_session("http", server.port, [Path("/")], [
            ("mrsf_list", {"cwd": str(places["other"])}),
            ("mrsf_add", {"document": "doc.md", "text": "Why?", "author": "Ada", "line": 3}),
        ])
    assert outside.is_error and "can only narrow" in text_of(outside), text_of(outside)
    assert not inside.is_error, text_of(inside)
    assert (places["project"] / "doc.md.review.yaml").is_file()
    assert sorted(path.name for path in places["other"].iterdir()) == ["doc.md"]
