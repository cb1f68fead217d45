"""Small pure pieces of the layer: root URIs, one-line messages, log levels, option parsing."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from markmcp.mcpcore import clientlog
from markmcp.mcpcore.app import ServerSpec, parse_settings
from markmcp.mcpcore.handlers import file_uri_to_path, one_line


def test_file_uri_to_path() -> None:
    assert file_uri_to_path("file:///tmp/a%20b") == Path("/tmp/a b").resolve()
    assert file_uri_to_path("file:///tmp/100%2525") == Path("/tmp/100%25").resolve()  # decoded once only
    assert file_uri_to_path("file://localhost/tmp") == Path("/tmp").resolve()
    assert file_uri_to_path("file://otherhost/tmp") is None
    assert file_uri_to_path("https://example.com/x") is None


def test_one_line() -> None:
    assert one_line("boom\n  second\tline\r\n") == "boom second line"


def test_log_levels_filter() -> None:
    records = [logging.LogRecord("markmcp.x", level, __file__, 1, "m", None, None)
               for level in (logging.DEBUG, logging.INFO, logging.WARNING, logging.ERROR)]
    assert [level for level, _ in clientlog.at_or_above(records, "info")] == ["info", "warning", "error"]
    assert [level for level, _ in clientlog.at_or_above(records, "notice")] == ["warning", "error"]
    assert clientlog.at_or_above(records, "emergency") == []


def test_collect_is_scoped_to_the_block() -> None:
    clientlog.install()
    log = logging.getLogger("markmcp.test")
    log.setLevel(logging.DEBUG)
    with clientlog.collect() as records:
        log.info("inside")
    log.info("outside")
    assert [r.getMessage() for r in records] == ["inside"]


def test_settings_from_argv(tmp_path: Path) -> None:
    spec = ServerSpec(
        name="x", version="1", instructions="", tools=(), default_port=3001, prog="x-mcp",
        add_arguments=lambda parser: parser.add_argument("--flavour", default="plain"),
    )
    defaults = parse_settings(spec, [])
    assert (defaults.transport, defaults.host, defaults.port) == ("stdio", "127.0.0.1", 3001)
    assert defaults.roots == () and defaults.allow_write is False and dict(defaults.options) == {"flavour": "plain"}
    (tmp_path / "r").mkdir()
    chosen = parse_settings(spec, ["--transport", "sse", "--port", "0", "--cwd", str(tmp_path), "--root", "r",
                                   "--allow-write", "--flavour", "spicy"])
    assert chosen.roots == ((tmp_path / "r").resolve(),) and chosen.cwd == tmp_path.resolve()
    assert chosen.port == 0 and chosen.allow_write and chosen.options["flavour"] == "spicy"
    for bad in (["--root", str(tmp_path / "missing")], ["--port", "70000"], ["--transport"]):
        with pytest.raises(SystemExit) as stop:
            parse_settings(spec, bad)
        assert stop.value.code == 2


def test_servers_without_roots_or_write_gate_do_not_offer_those_options(capsys) -> None:
    spec = ServerSpec(name="x", version="1", instructions="", tools=(), uses_roots=False, write_gate=False)
    settings = parse_settings(spec, [])
    assert settings.roots == () and settings.allow_write is False
    for option in ("--root", "--allow-write"):
        with pytest.raises(SystemExit) as stop:
            parse_settings(spec, [option] if option == "--allow-write" else [option, "."])
        assert stop.value.code == 2
        assert f"unrecognized arguments: {option}" in capsys.readouterr().err
    reads_only = ServerSpec(name="y", version="1", instructions="", tools=(), write_gate=False)
    assert parse_settings(reads_only, ["--root", "."]).roots == (Path(".").resolve(),)


def test_dns_rebinding_settings_per_host() -> None:
    from markmcp.mcpcore.transports import security_settings

    local = security_settings("127.0.0.1")
    assert local.enable_dns_rebinding_protection is True
    assert "localhost:*" in local.allowed_hosts and "http://127.0.0.1:*" in local.allowed_origins
    named = security_settings("10.1.2.3")
    assert "10.1.2.3:*" in named.allowed_hosts and "http://10.1.2.3:*" in named.allowed_origins
    assert "[fd00::1]:*" in security_settings("fd00::1").allowed_hosts
    assert security_settings("0.0.0.0").enable_dns_rebinding_protection is False


def test_importing_the_layer_and_parsing_a_command_line_leave_the_sdk_unloaded() -> None:
    """Start-up stays cheap: the SDK (and pydantic, anyio, the web stack) load only in serve()."""
    import subprocess
    import sys

    code = (
        "import sys, markmcp.mcpcore, markmcp.mcpcore.roots, markmcp.mcpcore.writegate, markmcp.mcpcore.files\n"
        "import markmcp.mcpcore.early, markmcp.mcpcore.spec\n"
        "from markmcp.mcpcore.app import ServerSpec, parse_settings\n"
        "parse_settings(ServerSpec(name='x', version='1', instructions='', tools=()),"
        " ['--transport', 'http', '--trust-client-roots'])\n"
        "heavy = ('mcp', 'mcp_types', 'pydantic', 'pydantic_core', 'anyio', 'starlette', 'uvicorn')\n"
        "print(sorted({name.split('.')[0] for name in sys.modules} & set(heavy)))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_completion_for_a_prompt_argument_offers_nothing_and_names_what_is_unknown() -> None:
    """``completion/complete`` on a prompt: its arguments offer no values; an unknown prompt or
    argument is -32602 naming it (escaped)."""
    import anyio
    import mcp_types as types
    from mcp.shared.exceptions import MCPError

    from markmcp.mcpcore.app import Prompt, PromptArgument
    from markmcp.mcpcore.handlers import Handlers

    prompt = Prompt("p", "P", "a prompt", lambda arguments: "text", (PromptArgument("path", "a path"),))
    spec = ServerSpec(name="x", version="1", instructions="", tools=(), prompts=(prompt,))
    handlers = Handlers(spec, parse_settings(spec, []))

    def complete(name: str, argument: str) -> types.CompleteResult:
        params = types.CompleteRequestParams(
            ref=types.PromptReference(type="ref/prompt", name=name),
            argument=types.CompletionArgument(name=argument, value=""),
        )
        return anyio.run(handlers.complete, None, params)

    assert complete("p", "path").completion.values == []
    for name, argument, said in (("q\x1b", "path", "Unknown prompt: q\\x1b"), ("p", "x\n", "Prompt 'p' has no argument 'x\\n'")):
        with pytest.raises(MCPError) as refused:
            complete(name, argument)
        assert refused.value.error.code == types.INVALID_PARAMS and refused.value.error.message == said
