"""A server command's usage errors, ``--help`` and ``--version`` never wait for the MCP SDK.

Importing the SDK (``mcp``, ``mcp_types``, pydantic, anyio, the web stack) costs about a
second; everything a user can get wrong on a server's command line is checked before it:
unknown options, bad values, a ``--root`` or ``--cwd`` that is not a folder, a port in use.
These tests run each server's entry point in this process with the SDK (and the layer's
modules built on it) taken out of ``sys.modules`` and any import of them refused, and
check the exit code, the message and that no such import was even attempted.  (How long
the commands take is measured by ``bench/mcp_latency.py --servers``, not here.)
"""

from __future__ import annotations

import importlib.abc
import socket
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import markmcp.mcpcore
import markmcp.mcpcore.app
from markmcp import __version__
from markmcp.check.cli import main as markmcp_main
from markmcp.figdown.server import main as figdown_main
from markmcp.mrsf.server import main as mrsf_main
from markmcp.server import main as combined_main
from markmcp.visimark.server import main as visimark_main

SDK = ("mcp", "mcp_types", "pydantic", "pydantic_core", "anyio", "starlette", "sse_starlette", "uvicorn", "httpx")
"""The SDK and the packages it brings (top-level names)."""
ON_THE_SDK = ("exchanges", "handlers", "stdio", "transports", "wire")
"""The modules of ``markmcp.mcpcore`` that import the SDK."""

SERVERS: dict[str, Callable[[list[str]], int]] = {
    "visimark-mcp": visimark_main,
    "figdown-mcp": figdown_main,
    "mrsf-mcp": mrsf_main,
    "markmcp-mcp": combined_main,
}


def _needs_sdk(name: str) -> bool:
    return name.split(".")[0] in SDK or name in {f"markmcp.mcpcore.{leaf}" for leaf in ON_THE_SDK}


class SdkBlocker(importlib.abc.MetaPathFinder):
    """Refuses every import of the SDK side and remembers what was asked for."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def find_spec(self, name, path=None, target=None):  # type: ignore[no-untyped-def]
        if _needs_sdk(name):
            self.asked.append(name)
            raise ImportError(f"{name}: the SDK may not be imported here")
        return None


@pytest.fixture
def blocker(monkeypatch: pytest.MonkeyPatch) -> Iterator[SdkBlocker]:
    """The SDK side out of ``sys.modules`` (restored afterwards) and refused if imported."""
    for name in [name for name in sys.modules if _needs_sdk(name)]:
        monkeypatch.delitem(sys.modules, name)
    for leaf in ON_THE_SDK:  # `from markmcp.mcpcore import transports` would find the attribute
        monkeypatch.delattr(markmcp.mcpcore, leaf, raising=False)
    found = SdkBlocker()
    monkeypatch.setattr(sys, "meta_path", [found, *sys.meta_path])
    yield found


@pytest.fixture
def busy_port() -> Iterator[int]:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        yield taken.getsockname()[1]


@pytest.mark.parametrize("prog", SERVERS)
def test_help_and_version_answer_without_the_sdk(prog: str, blocker: SdkBlocker, capsys) -> None:
    main = SERVERS[prog]
    assert main(["--help"]) == 0
    shown = capsys.readouterr()
    assert shown.out.startswith(f"usage: {prog} ") and "--transport" in shown.out and shown.err == ""
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"{prog} {__version__}\n"
    assert blocker.asked == []


@pytest.mark.parametrize("prog", SERVERS)
def test_usage_errors_exit_2_without_the_sdk(prog: str, blocker: SdkBlocker, tmp_path: Path, capsys) -> None:
    main = SERVERS[prog]
    afile = tmp_path / "a.md"
    afile.write_text("x\n", encoding="utf-8")
    cases = {
        ("--bogus",): "unrecognized arguments: --bogus",
        ("--transport", "carrier-pigeon"): "argument --transport: invalid choice: 'carrier-pigeon'",
        ("--transport", "http", "--port", "99999"): "argument --port: port out of range 0-65535: 99999",
        ("--port", "eighty"): "argument --port: not a port number: 'eighty'",
        ("--log-level", "loud"): "argument --log-level: invalid choice: 'loud'",
        ("--root", str(tmp_path / "missing")): f"--root {tmp_path / 'missing'}: not a directory",
        ("--cwd", str(afile)): f"--cwd {afile}: not a directory",
        ("--root",): "argument --root: expected one argument",
    }
    for argv, message in cases.items():
        assert main(list(argv)) == 2, argv
        shown = capsys.readouterr()
        assert shown.out == ""
        assert shown.err.startswith(f"usage: {prog} ")
        assert shown.err.endswith("\n") and shown.err.count("Traceback") == 0
        last = shown.err.rstrip("\n").rsplit("\n", 1)[-1]
        assert last.startswith(f"{prog}: error: {message}"), (argv, shown.err)  # (argparse adds the choices)
    assert blocker.asked == []


@pytest.mark.parametrize("transport", ["http", "sse"])
def test_a_port_in_use_is_told_without_the_sdk(transport: str, blocker: SdkBlocker, busy_port: int, capsys) -> None:
    for prog, main in SERVERS.items():
        assert main(["--transport", transport, "--port", str(busy_port)]) == 1
        shown = capsys.readouterr()
        assert shown.out == ""
        assert shown.err == f"{prog}: cannot listen on 127.0.0.1:{busy_port}: Address already in use\n"
    assert blocker.asked == []


def test_the_combined_servers_own_options_are_checked_without_the_sdk(blocker: SdkBlocker, capsys) -> None:
    assert combined_main(["--only", "visimark,nothing"]) == 2
    assert "argument --only: choose from visimark, figdown, mrsf (comma-separated), not 'visimark,nothing'" in (
        capsys.readouterr().err
    )
    assert markmcp_main(["serve", "--bogus"]) == 2
    shown = capsys.readouterr()
    assert shown.err.startswith("usage: markmcp serve ") and "unrecognized arguments: --bogus" in shown.err
    assert markmcp_main(["serve", "--version"]) == 0
    assert capsys.readouterr().out == f"markmcp serve {__version__}\n"
    assert blocker.asked == []


def test_the_blocker_sees_the_sdk_when_a_server_gets_as_far_as_serving(
    blocker: SdkBlocker, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check above can fail: a good command line does reach the SDK import (refused here)."""
    monkeypatch.setattr(markmcp.mcpcore.app, "_configure_logging", lambda level: None)
    with pytest.raises(ImportError, match="may not be imported"):
        mrsf_main(["--transport", "http", "--port", "0"])
    assert blocker.asked == ["markmcp.mcpcore.transports"]
