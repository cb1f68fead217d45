"""The roots policy: over HTTP/SSE a client's MCP roots only narrow --cwd/--root; over stdio they count.

Finding 9: a client declaring ``/`` as a root over HTTP made ``figdown_read`` print any
file.  Here a client declares ``/`` (and other roots) with the SDK's own client, against
the mcpcore demo server and ``figdown-mcp``, over HTTP and SSE; and over stdio, where
the host that started the server is trusted and its roots add folders.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import anyio
import pytest

from conftest import shared_dir
from markmcp.mcpcore.app import ServerSpec, Settings, parse_settings
from markmcp.mcpcore.roots import RootsPolicy, intersect
from mcpwire import HttpServer, demo_client, demo_command, module_command

from .hostile import SECRET

# --- the policy itself ----------------------------------------------------------------------------


def test_intersect_keeps_the_deeper_folder_of_each_related_pair() -> None:
    granted = (Path("/srv/work"), Path("/srv/shared"))
    assert intersect([Path("/")], granted) == granted  # a root holding both leaves both
    assert intersect([Path("/srv/work/sub")], granted) == (Path("/srv/work/sub"),)  # inside one: narrowed
    assert intersect([Path("/srv/work")], granted) == (Path("/srv/work"),)
    assert intersect([Path("/etc"), Path("/srv/workshop")], granted) == ()  # unrelated, even by prefix
    assert intersect([Path("/srv/shared/a"), Path("/srv")], granted) == (Path("/srv/shared/a"), *granted)


def settings(transport: str, *, roots: tuple[Path, ...] = (), trust: bool = False) -> Settings:
    return Settings(
        transport=transport, host="127.0.0.1", port=0, roots=roots, allow_write=True,
        cwd=Path("/srv/work"), log_level="warning", trust_client_roots=trust,
    )


def test_stdio_adds_client_roots() -> None:
    ctx = RootsPolicy.of(settings("stdio", roots=(Path("/srv/shared"),))).context([Path("/")])
    assert ctx.roots == (Path("/srv/shared"), Path("/"))
    assert ctx.places().folders == (Path("/srv/work"), Path("/srv/shared"), Path("/"))


@pytest.mark.parametrize("transport", ["http", "sse"])
def test_http_and_sse_only_narrow(transport: str) -> None:
    policy = RootsPolicy.of(settings(transport, roots=(Path("/srv/shared"),)))
    everything = policy.context([Path("/")])
    assert everything.roots == (Path("/srv/shared"),)  # writable: --root only
    assert everything.places().folders == (Path("/srv/work"), Path("/srv/shared"))
    narrowed = policy.context([Path("/srv/work/docs")])
    assert narrowed.roots == () and narrowed.places().folders == (Path("/srv/work/docs"),)
    unrelated = policy.context([Path("/home/someone")])
    assert unrelated.roots == () and unrelated.places().folders == ()
    silent = policy.context([])  # a client that declares no roots narrows nothing
    assert silent.roots == (Path("/srv/shared"),) and silent.places().folders == (Path("/srv/work"), Path("/srv/shared"))
    assert "can only narrow" in everything.hint


@pytest.mark.parametrize("transport, widened", [("stdio", True), ("http", False), ("sse", False)])
def test_visimark_write_gate_takes_its_roots_from_the_policy(tmp_path: Path, transport: str, widened: bool) -> None:
    """visimark-mcp's write gate uses the policy's writable roots and its hint, not the raw client roots."""
    from markmcp.mcpcore.app import ToolError
    from markmcp.visimark.server import NO_ROOTS, _writable

    ctx = RootsPolicy.of(settings(transport)).context([tmp_path])  # no --root; the client declares tmp_path
    if widened:
        assert _writable("fmt", str(tmp_path / "a.md"), ctx)[0] == tmp_path / "a.md"
        return
    with pytest.raises(ToolError) as refused:
        _writable("fmt", str(tmp_path / "a.md"), ctx)
    message = refused.value.message
    assert message.startswith("writes are disabled: no root is declared. Over ") and "can only narrow" in message
    assert message != NO_ROOTS and "let the client declare" not in message.lower()


def test_trust_client_roots_restores_adding_over_http() -> None:
    ctx = RootsPolicy.of(settings("http", trust=True)).context([Path("/")])
    assert ctx.roots == (Path("/"),) and Path("/") in ctx.places().folders


def test_the_option_is_parsed_and_documented() -> None:
    spec = ServerSpec(name="x", version="1", instructions="", tools=())
    assert parse_settings(spec, ["--transport", "http"]).trust_client_roots is False
    assert parse_settings(spec, ["--transport", "http", "--trust-client-roots"]).trust_client_roots is True
    help_text = subprocess.run(demo_command("--help"), capture_output=True, text=True, timeout=60).stdout
    flat = " ".join(help_text.split())
    assert "--trust-client-roots" in flat
    assert "over http/sse, let the client's MCP roots add folders as they do over stdio" in flat
    assert "their roots only narrow --cwd and --root" in flat


# --- over the wire ----------------------------------------------------------------------------------


@pytest.fixture()
def tree(tmp_path: Path) -> dict[str, Path]:
    work = tmp_path / "work"
    (work / "sub").mkdir(parents=True)
    (work / "a.txt").write_text("in the working folder\n")
    (work / "sub" / "b.txt").write_text("in the sub folder\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET)
    (outside / "secret.fd").write_text(SECRET)
    return {"work": work, "sub": work / "sub", "outside": outside}


def sdk_session(transport: str, port: int, roots: list[Path], calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    """Run ``calls`` through the SDK's client, which declares ``roots`` (answers roots/list with them)."""
    import mcp_types as types
    from mcp.client.session import ClientSession
    from mcp.client.sse import sse_client
    from mcp.client.streamable_http import streamable_http_client

    async def list_roots(context: object) -> types.ListRootsResult:
        return types.ListRootsResult(roots=[types.Root(uri=root.as_uri()) for root in roots])

    async def conversation() -> list[Any]:
        if transport == "http":
            connect = streamable_http_client(f"http://127.0.0.1:{port}/mcp")
        else:
            connect = sse_client(f"http://127.0.0.1:{port}/sse")
        async with connect as streams, ClientSession(streams[0], streams[1], list_roots_callback=list_roots) as s:
            await s.initialize()
            return [await s.call_tool(name, arguments) for name, arguments in calls]

    return anyio.run(conversation)


def text_of(result: Any) -> str:
    return "\n".join(block.text for block in result.content if block.type == "text")


def demo(transport: str, *args: str) -> HttpServer:
    return HttpServer(demo_command("--transport", transport, "--port", "0", *args))


def test_over_http_client_roots_only_narrow(tree: dict[str, Path]) -> None:
    """One server (--cwd work, --root shared, --allow-write); clients declaring different roots."""
    shared = tree["outside"]
    (shared / "inner").mkdir()
    args = ("--cwd", str(tree["work"]), "--root", str(shared), "--allow-write")
    with demo("http", *args) as server:
        slash = sdk_session("http", server.port, [Path("/")], [
            ("roots", {}),
            ("read_text", {"path": "/etc/passwd"}),
            ("read_text", {"path": "a.txt"}),
            ("read_text", {"path": str(shared / "secret.txt")}),
        ])
        inside_cwd = sdk_session("http", server.port, [tree["sub"]], [
            ("roots", {}),
            ("read_text", {"path": "a.txt"}),
            ("read_text", {"path": "sub/b.txt"}),
            ("write_text", {"path": "sub/new.txt", "text": "x"}),
        ])
        inside_root = sdk_session("http", server.port, [shared / "inner"], [
            ("roots", {}),
            ("write_text", {"path": str(shared / "inner" / "ok.txt"), "text": "ok"}),
            ("write_text", {"path": str(shared / "no.txt"), "text": "no"}),
            ("read_text", {"path": str(shared / "secret.txt")}),
        ])

    shown, passwd, in_cwd, in_root = slash  # "/" holds both granted folders: it leaves both, adds nothing
    assert shown.structured_content["roots"] == [str(shared)]
    assert shown.structured_content["readable"] == [str(tree["work"]), str(shared)]
    assert passwd.is_error and "outside the allowed folders" in text_of(passwd)
    assert "can only narrow the server's folders" in text_of(passwd) and "root:" not in text_of(passwd)
    assert in_cwd.structured_content == {"text": "in the working folder\n"}
    assert in_root.structured_content == {"text": SECRET}  # --root granted it

    shown, above, below, written = inside_cwd  # a folder inside --cwd: reads narrowed to it, no writes
    assert shown.structured_content == {"roots": [], "readable": [str(tree["sub"])], "greeting": "hello"}
    assert above.is_error and "outside the allowed folders" in text_of(above)
    assert below.structured_content == {"text": "in the sub folder\n"}
    assert written.is_error and "no root is declared" in text_of(written) and not (tree["sub"] / "new.txt").exists()

    shown, written, refused, secret = inside_root  # a folder inside --root: writes and reads narrowed to it
    assert shown.structured_content["roots"] == [str(shared / "inner")]
    assert shown.structured_content["readable"] == [str(shared / "inner")]
    assert not written.is_error and (shared / "inner" / "ok.txt").read_text() == "ok"
    assert refused.is_error and not (shared / "no.txt").exists()
    assert secret.is_error and "TOP-SECRET" not in text_of(secret)


def test_over_sse_a_client_declaring_slash_cannot_read_outside(tree: dict[str, Path]) -> None:
    with demo("sse", "--cwd", str(tree["work"]), "--allow-write") as server:
        shown, secret, inside, written = sdk_session("sse", server.port, [Path("/")], [
            ("roots", {}),
            ("read_text", {"path": str(tree["outside"] / "secret.txt")}),
            ("read_text", {"path": "a.txt"}),
            ("write_text", {"path": str(tree["outside"] / "new.txt"), "text": "x"}),
        ])
    assert shown.structured_content["roots"] == [] and shown.structured_content["readable"] == [str(tree["work"])]
    assert secret.is_error and "outside the allowed folders" in text_of(secret) and "TOP-SECRET" not in text_of(secret)
    assert "over SSE the client's MCP roots can only narrow" in text_of(secret)
    assert inside.structured_content == {"text": "in the working folder\n"}
    assert written.is_error and "no root is declared" in text_of(written)
    assert not (tree["outside"] / "new.txt").exists()


def test_trust_client_roots_lets_http_clients_add_folders(tree: dict[str, Path]) -> None:
    with demo("http", "--cwd", str(tree["work"]), "--trust-client-roots") as server:
        (secret,) = sdk_session("http", server.port, [tree["outside"]], [
            ("read_text", {"path": str(tree["outside"] / "secret.txt")}),
        ])
    assert not secret.is_error and secret.structured_content == {"text": SECRET}


def test_over_stdio_the_hosts_roots_count(tree: dict[str, Path]) -> None:
    with demo_client("--cwd", str(tree["work"])) as client:
        client.initialize({"roots": {}})
        request_id = client.request("tools/call", {"name": "read_text", "arguments": {"path": str(tree["outside"] / "secret.txt")}})
        ask = client.receive()
        assert ask["method"] == "roots/list"
        client.send({"jsonrpc": "2.0", "id": ask["id"], "result": {"roots": [{"uri": tree["outside"].as_uri()}]}})
        result = client.response(request_id)["result"]
    assert result["isError"] is False and result["structuredContent"] == {"text": SECRET}


def test_figdown_mcp_ignores_a_widening_client_root(tree: dict[str, Path]) -> None:
    """figdown-mcp reads and builds through the same policy: a client root of / over HTTP reads
    nothing outside --cwd, and without --root figdown_build writes nothing, even into --cwd."""
    (tree["work"] / "fig.fd").write_text('figdown 0.1 block\nnode a "A"\n')
    command = module_command("markmcp.figdown.server", "--transport", "http", "--port", "0", "--cwd", str(tree["work"]),
                             "--allow-write")
    with HttpServer(command) as server:
        *results, built = sdk_session("http", server.port, [Path("/")], [
            ("figdown_read", {"path": str(tree["outside"] / "secret.fd")}),
            ("figdown_check", {"path": str(tree["outside"])}),
            ("figdown_read", {"path": "/etc/passwd"}),
            ("figdown_build", {"path": "fig.fd", "write": True}),
        ])
    for result in results:
        assert result.is_error, text_of(result)
        assert "outside" in text_of(result)
        assert "TOP-SECRET" not in text_of(result) and "root:" not in text_of(result)
    assert built.is_error and "no root is declared" in text_of(built) and "can only narrow" in text_of(built)
    assert not (tree["work"] / "fig.svg").exists()


def test_figdown_mcp_over_stdio_reads_in_a_client_root(tree: dict[str, Path]) -> None:
    """The stdio host's roots count for figdown-mcp too (the same policy for every server)."""
    (tree["outside"] / "fig.fd").write_text('figdown 0.1 block\nnode a "A"\n')
    from mcpwire import StdioClient

    with StdioClient(module_command("markmcp.figdown.server", "--cwd", str(tree["work"]))) as client:
        client.initialize({"roots": {}})
        request_id = client.request("tools/call", {"name": "figdown_check", "arguments": {"path": str(tree["outside"] / "fig.fd")}})
        ask = client.receive()
        assert ask["method"] == "roots/list"
        client.send({"jsonrpc": "2.0", "id": ask["id"], "result": {"roots": [{"uri": tree["outside"].as_uri()}]}})
        result = client.response(request_id)["result"]
    assert result["isError"] is False and result["structuredContent"]["checked"] == 1


def test_visimark_mcp_over_http_client_roots_only_narrow(tree: dict[str, Path]) -> None:
    """visimark-mcp reads and writes through the same policy: a client root of / adds nothing to
    --cwd/--root, a client root inside --root narrows reads and writes to it."""
    drift = shared_dir("visimark", "docs") / "example-invoice-drift.md"
    work, sub, outside = tree["work"], tree["sub"], tree["outside"]
    for folder in (work, sub, outside):
        shutil.copyfile(drift, folder / "doc.md")
    original = drift.read_bytes()
    command = module_command("markmcp.visimark.server", "--transport", "http", "--port", "0", "--cwd", str(work),
                             "--root", str(work), "--allow-write")
    with HttpServer(command) as server:
        secret, elsewhere, planned = sdk_session("http", server.port, [Path("/")], [
            ("visimark_check", {"path": str(outside / "secret.txt")}),
            ("visimark_fmt", {"path": str(outside / "doc.md")}),
            ("visimark_fmt", {"path": "doc.md"}),
        ])
        plan = planned.structured_content
        assert not planned.is_error and plan["edits"], text_of(planned)
        above, unread, below = sdk_session("http", server.port, [sub], [
            ("visimark_fmt_apply", {"path": "doc.md", "plan": plan}),
            ("visimark_check", {"path": "doc.md"}),
            ("visimark_fmt_apply", {"path": "sub/doc.md", "plan": plan}),
        ])
        (applied,) = sdk_session("http", server.port, [Path("/")], [
            ("visimark_fmt_apply", {"path": "doc.md", "plan": plan}),
        ])
    for refused in (secret, elsewhere):
        assert refused.is_error and "outside the allowed folders" in text_of(refused)
        assert "can only narrow" in text_of(refused) and "TOP-SECRET" not in text_of(refused)
    assert above.is_error and above.structured_content["error"]["code"] == "WRITE", text_of(above)
    assert unread.is_error and unread.structured_content["error"]["code"] == "READ", text_of(unread)
    assert not below.is_error and (sub / "doc.md").read_bytes() != original, text_of(below)
    assert not applied.is_error and (work / "doc.md").read_bytes() == (sub / "doc.md").read_bytes()
    assert (outside / "doc.md").read_bytes() == original
