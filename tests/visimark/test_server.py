"""``visimark-mcp``: the SDK's own client over stdio and over HTTP, the write gate, plans.

The acceptance of the server: 8 tools / 5 resources / 2 prompts with their annotations;
``visimark_check`` of the drift invoice as ``content`` is a successful call with the same 27
problems as the CLI; path+content, a missing file and a bad scenario are tool errors with
their codes; fmt -> fmt_apply repairs every STALE value (a second plan is empty); a file
edited between plan and apply is refused and left untouched; the write gate refuses without
``--allow-write``, without a root, and outside the roots; infer -> infer_apply writes what
``infer --write`` writes.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import jsonschema
import pytest
from mcpwire import HttpServer, StdioClient, module_command, wipe

from conftest import shared_dir
from markmcp import __version__
from markmcp.visimark.docs import SERVED_SKILL, doc_text, served_skill
from markmcp.visimark.server import NO_ROOTS, WRITES_DISABLED

TIMEOUT = 60.0
TOOLS = ["visimark_check", "visimark_eval", "visimark_explain", "visimark_infer", "visimark_fmt", "visimark_ref",
         "visimark_fmt_apply", "visimark_infer_apply"]
RESOURCES = ["visimark://skill", "visimark://cli-reference", "visimark://function-reference",
             "visimark://example/invoice", "visimark://example/drift"]


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "markmcp.visimark.cli", *args], capture_output=True, text=True,
                          encoding="utf-8", timeout=TIMEOUT)


def seed(ws: Path) -> None:
    for name in ("example-invoice-drift.md", "example-quote-plain.md", "example-invoice.md"):
        shutil.copyfile(shared_dir("visimark", "docs") / name, ws / name)
    shutil.copyfile(shared_dir("visimark", "fixtures", "domain") / "levers.md", ws / "levers.md")


@pytest.fixture()
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    seed(ws)
    return ws


def server_params(ws: Path, *args: str):
    from mcp import StdioServerParameters
    from mcp.client.stdio import get_default_environment

    # the SDK passes the server only a few variables; PYTHONPATH too, so the server runs the
    # code under test (the one the `cli` helper runs), not whatever the interpreter installed
    env = get_default_environment()
    if "PYTHONPATH" in os.environ:
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    return StdioServerParameters(command=sys.executable, args=["-m", "markmcp.visimark.server", "--cwd", str(ws),
                                                                *args], env=env)


def roots_callback(*folders: Path):
    import mcp_types as types

    async def list_roots(context: object) -> types.ListRootsResult:
        return types.ListRootsResult(roots=[types.Root(uri=folder.as_uri()) for folder in folders])

    return list_roots


def structured(result: Any, tool: Any | None = None) -> dict[str, Any]:
    assert result.is_error is False, result.content[0].text
    data = result.structured_content
    assert json.loads(result.content[0].text) == data  # the text is the same envelope
    if tool is not None:
        jsonschema.validate(data, tool.output_schema)
    return data


def tool_error(result: Any, code: str) -> dict[str, Any]:
    assert result.is_error is True
    error = result.structured_content["error"]
    assert error["code"] == code, error
    assert result.content[0].text == error["message"]
    assert result.structured_content["status"] == "error"
    return error


async def acceptance(session: Any, ws: Path) -> dict[str, Any]:
    """The whole acceptance conversation; returns what the test asserts afterwards."""
    seen: dict[str, Any] = {}
    init = await session.initialize()
    seen["server"] = (init.server_info.name, init.server_info.version)
    tools = {t.name: t for t in (await session.list_tools()).tools}
    seen["tools"] = tools
    seen["resources"] = [str(r.uri) for r in (await session.list_resources()).resources]
    seen["prompts"] = [p.name for p in (await session.list_prompts()).prompts]

    drift = (ws / "example-invoice-drift.md").read_text(encoding="utf-8")
    seen["check_content"] = structured(await session.call_tool("visimark_check", {"content": drift}),
                                       tools["visimark_check"])
    seen["both"] = tool_error(await session.call_tool("visimark_check", {"path": "x.md", "content": "x"}), "USAGE")
    seen["neither"] = tool_error(await session.call_tool("visimark_check", {}), "USAGE")
    seen["missing"] = tool_error(await session.call_tool("visimark_check", {"path": "missing.md"}), "READ")
    seen["scenario"] = tool_error(await session.call_tool(
        "visimark_eval", {"path": "levers.md", "scenarioContent": '{"nope": "1"}'}), "SCENARIO")

    # fmt -> fmt_apply repairs every STALE value; a second plan is empty
    plan = structured(await session.call_tool("visimark_fmt", {"path": "example-invoice-drift.md"}),
                      tools["visimark_fmt"])
    seen["plan"] = plan
    applied = structured(await session.call_tool("visimark_fmt_apply", {"path": "example-invoice-drift.md",
                                                                        "plan": plan}), tools["visimark_fmt_apply"])
    seen["applied"] = applied
    seen["second_plan"] = structured(await session.call_tool("visimark_fmt", {"path": "example-invoice-drift.md"}))
    seen["check_after"] = structured(await session.call_tool("visimark_check", {"path": "example-invoice-drift.md"}))

    # a plan made stale by an edit is refused, and the file is left as the edit left it
    shutil.copyfile(shared_dir("visimark", "docs") / "example-invoice-drift.md", ws / "again.md")
    stale_plan = structured(await session.call_tool("visimark_fmt", {"path": "again.md"}))
    edited = (ws / "again.md").read_text(encoding="utf-8").replace("Invoice", "Invoyce", 1)
    (ws / "again.md").write_text(edited, encoding="utf-8")
    seen["stale"] = tool_error(await session.call_tool("visimark_fmt_apply", {"path": "again.md", "plan": stale_plan}),
                               "WRITE")
    seen["stale_file"] = (ws / "again.md").read_text(encoding="utf-8") == edited

    # infer -> infer_apply on the plain quote
    infer_plan = structured(await session.call_tool("visimark_infer", {"path": "example-quote-plain.md"}),
                            tools["visimark_infer"])
    seen["infer_plan"] = infer_plan
    seen["infer_applied"] = structured(await session.call_tool(
        "visimark_infer_apply", {"path": "example-quote-plain.md", "plan": infer_plan}),
        tools["visimark_infer_apply"])

    seen["skill"] = (await session.read_resource("visimark://skill")).contents[0].text
    seen["drift_resource"] = (await session.read_resource("visimark://example/drift")).contents[0].text
    prompt = await session.get_prompt("visimark/take-over", {"path": "quote.md"})
    seen["take_over"] = prompt.messages[0].content.text
    seen["author"] = (await session.get_prompt("visimark/author")).messages[0].content.text
    return seen


def test_sdk_client_over_stdio(workspace: Path) -> None:
    from mcp import ClientSession, stdio_client

    async def conversation() -> dict[str, Any]:
        async with stdio_client(server_params(workspace, "--allow-write")) as (read, write):
            async with ClientSession(read, write, list_roots_callback=roots_callback(workspace)) as session:
                return await acceptance(session, workspace)

    seen = anyio.run(conversation)
    assert seen["server"] == ("markmcp-visimark", __version__)
    tools = seen["tools"]
    assert list(tools) == TOOLS
    for name, tool in tools.items():
        apply = name.endswith("_apply")
        assert tool.annotations.read_only_hint is (not apply), name
        assert tool.annotations.destructive_hint is apply, name
        assert tool.output_schema["type"] == "object"
    assert seen["resources"] == RESOURCES
    assert seen["prompts"] == ["visimark/take-over", "visimark/author"]

    # the drift invoice as content: a successful call with the CLI's 27 problems
    check = seen["check_content"]
    assert (check["command"], check["visimark"], check["status"]) == ("check", __version__, "problems")
    assert check["summary"] == {"files": 1, "problems": 27, "stale": 22, "errors": 5}
    assert check["skipped"] == {}
    ran = cli("check", str(shared_dir("visimark", "docs") / "example-invoice-drift.md"), "--json")
    assert ran.returncode == 1
    by_cli = json.loads(ran.stdout)["files"][0]["findings"]
    strip = [{**f, "location": {k: v for k, v in f["location"].items() if k != "file"}} for f in by_cli]
    ours = [{**f, "location": {k: v for k, v in f["location"].items() if k != "file"}}
            for f in check["files"][0]["findings"]]
    assert ours == strip

    assert "both" in seen["both"]["message"] and "neither" in seen["neither"]["message"]
    assert "missing.md" in seen["missing"]["message"]
    assert "nope" in seen["scenario"]["message"]

    plan = seen["plan"]
    assert plan["applied"] is False and plan["artifactsWouldWrite"] == [] and plan["skipped"] == {}
    assert len(plan["sha256"]) == 64 and plan["edits"]
    assert (plan["cellsUpdated"], plan["anchorsUpdated"]) == (7, 8)
    applied = seen["applied"]
    assert applied["applied"] is True and applied["changed"] is True
    assert applied["summary"] == {"problems": 5, "stale": 0, "errors": 5}
    assert seen["second_plan"]["edits"] == [] and seen["second_plan"]["cellsUpdated"] == 0
    assert seen["check_after"]["summary"] == {"files": 1, "problems": 5, "stale": 0, "errors": 5}

    assert "the document changed since this plan was computed" in seen["stale"]["message"]
    assert seen["stale_file"] is True

    infer_plan = seen["infer_plan"]
    assert infer_plan["summary"] == {"files": 1, "rules": 4, "scalars": 6, "anchors": 6}
    assert infer_plan["wouldWrite"] == {"blocks": 2, "anchors": 6, "marker": False}
    assert seen["infer_applied"]["written"] == {"blocks": 2, "anchors": 6, "marker": False}

    assert seen["skill"] == served_skill() == doc_text(SERVED_SKILL)
    assert "visimark_infer" in seen["skill"] and "## Working with an agent's tools" not in seen["skill"]
    assert seen["drift_resource"] == doc_text("example-invoice-drift.md")
    assert "`quote.md`" in seen["take_over"] and "visimark_infer` it FIRST" in seen["take_over"]
    assert "table" in seen["author"] and "visimark_fmt" in seen["author"]


def test_fmt_apply_equals_cli_fmt_and_infer_apply_equals_infer_write(workspace: Path, tmp_path: Path) -> None:
    """The applied files are byte for byte what the CLI writes."""
    from mcp import ClientSession, stdio_client

    async def conversation() -> None:
        async with stdio_client(server_params(workspace, "--allow-write")) as (read, write):
            async with ClientSession(read, write, list_roots_callback=roots_callback(workspace)) as session:
                await session.initialize()
                for tool, doc in (("visimark_fmt", "example-invoice-drift.md"),
                                  ("visimark_infer", "example-quote-plain.md")):
                    plan = (await session.call_tool(tool, {"path": doc})).structured_content
                    result = await session.call_tool(f"{tool}_apply", {"path": doc, "plan": plan})
                    assert result.is_error is False, result.content[0].text

    anyio.run(conversation)
    mine = tmp_path / "cli"
    mine.mkdir()
    for name in ("example-invoice-drift.md", "example-quote-plain.md"):
        shutil.copyfile(shared_dir("visimark", "docs") / name, mine / name)
    assert cli("fmt", str(mine / "example-invoice-drift.md")).returncode == 1
    assert cli("infer", "--write", str(mine / "example-quote-plain.md")).returncode == 0
    for name in ("example-invoice-drift.md", "example-quote-plain.md"):
        assert (workspace / name).read_bytes() == (mine / name).read_bytes(), name


def test_http_transport(workspace: Path) -> None:
    """Over HTTP the client's MCP roots only narrow, so the operator grants the folder with --root."""
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    command = module_command("markmcp.visimark.server", "--transport", "http", "--port", "0", "--cwd", str(workspace),
                             "--root", str(workspace), "--allow-write")
    with HttpServer(command) as served:
        async def conversation() -> dict[str, Any]:
            async with streamable_http_client(f"http://127.0.0.1:{served.port}/mcp") as streams:
                async with ClientSession(streams[0], streams[1],
                                         list_roots_callback=roots_callback(workspace)) as session:
                    return await acceptance(session, workspace)

        try:
            seen = anyio.run(conversation)
        finally:
            served.stop()
    assert list(seen["tools"]) == TOOLS and seen["resources"] == RESOURCES and len(seen["prompts"]) == 2
    assert seen["check_content"]["summary"]["problems"] == 27
    assert seen["applied"]["summary"]["stale"] == 0 and seen["second_plan"]["edits"] == []
    assert seen["stale_file"] is True
    assert seen["infer_applied"]["written"]["blocks"] == 2


# --- the write gate, with the raw client (roots from --root or none at all) ----------------------------


class Raw(StdioClient):
    def __init__(self, ws: Path, *args: str) -> None:
        super().__init__(module_command("markmcp.visimark.server", "--cwd", str(ws), *args), timeout=TIMEOUT)


@pytest.fixture(scope="module")
def _plain_server(tmp_path_factory: pytest.TempPathFactory):
    ws = tmp_path_factory.mktemp("plain") / "ws"
    ws.mkdir()
    with Raw(ws) as server:
        server.initialize()
        yield ws, server
        assert server.finish()[0] == 0


@pytest.fixture()
def plain(_plain_server: tuple[Path, Raw]) -> tuple[Path, Raw]:
    """One server started without options, shared by the tests that only read; its folder is
    wiped and seeded afresh for each test, so each sees exactly the files ``workspace`` holds."""
    ws, server = _plain_server
    wipe(ws)
    seed(ws)
    return ws, server


def call(server: Raw, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return server.call_tool(tool, arguments)


@pytest.mark.parametrize("args, message", [
    ((), WRITES_DISABLED),
    (("--allow-write",), NO_ROOTS),
])
def test_the_gate_refuses_before_reading(workspace: Path, args: tuple[str, ...], message: str) -> None:
    before = (workspace / "example-invoice-drift.md").read_bytes()
    with Raw(workspace, *args) as server:
        server.initialize()
        plan = call(server, "visimark_fmt", {"path": "example-invoice-drift.md"})["structuredContent"]
        for tool, plan_for in (("visimark_fmt_apply", plan), ("visimark_infer_apply", {"sha256": "0" * 64})):
            result = call(server, tool, {"path": "example-invoice-drift.md", "plan": plan_for})
            assert result["isError"] is True
            assert result["content"][0]["text"] == message
            assert result["structuredContent"]["error"] == {"code": "WRITE", "message": message}
        listed = [t["name"] for t in server.call("tools/list")["result"]["tools"]]
        assert listed == TOOLS  # the apply tools are listed even when writes are off
        assert server.finish()[0] == 0
    assert (workspace / "example-invoice-drift.md").read_bytes() == before


def test_a_path_outside_the_roots_is_refused(workspace: Path) -> None:
    docs = workspace / "docs"
    docs.mkdir()
    before = (workspace / "example-invoice-drift.md").read_bytes()
    with Raw(workspace, "--allow-write", "--root", str(docs)) as server:
        server.initialize()
        plan = call(server, "visimark_fmt", {"path": "example-invoice-drift.md"})["structuredContent"]
        result = call(server, "visimark_fmt_apply", {"path": "example-invoice-drift.md", "plan": plan})
        assert result["isError"] is True and result["structuredContent"]["error"]["code"] == "WRITE"
        assert "outside the allowed folders" in result["content"][0]["text"]
        (docs / "link.md").symlink_to(workspace / "example-invoice-drift.md")
        result = call(server, "visimark_fmt_apply", {"path": "docs/link.md", "plan": plan})
        assert result["isError"] is True and "outside" in result["content"][0]["text"]
        shutil.copyfile(workspace / "example-invoice-drift.md", docs / "inside.md")
        result = call(server, "visimark_fmt_apply", {"path": "docs/inside.md", "plan": plan})
        assert result["isError"] is False, result["content"][0]["text"]
    assert (workspace / "example-invoice-drift.md").read_bytes() == before


def test_plans_are_exact(workspace: Path) -> None:
    """An edit the engine did not plan is refused; a left-out edit is not applied; an emptied
    infer plan inserts nothing (and never the no-formulas marker)."""
    with Raw(workspace, "--allow-write", "--root", str(workspace)) as server:
        server.initialize()
        plan = call(server, "visimark_fmt", {"path": "example-invoice-drift.md"})["structuredContent"]
        forged = {**plan, "edits": [{**plan["edits"][0], "text": "rm -rf /"}]}
        result = call(server, "visimark_fmt_apply", {"path": "example-invoice-drift.md", "plan": forged})
        assert result["isError"] is True and "did not plan" in result["content"][0]["text"]
        result = call(server, "visimark_fmt_apply", {"path": "example-invoice-drift.md",
                                                     "plan": {**plan, "artifactsWouldWrite": ["x.svg"]}})
        assert result["isError"] is True and "would not write" in result["content"][0]["text"]
        one = {**plan, "edits": plan["edits"][:1]}
        result = call(server, "visimark_fmt_apply", {"path": "example-invoice-drift.md", "plan": one})
        assert result["isError"] is False and result["structuredContent"]["cellsUpdated"] + \
            result["structuredContent"]["anchorsUpdated"] == 1
        again = call(server, "visimark_fmt", {"path": "example-invoice-drift.md"})["structuredContent"]
        assert len(again["edits"]) == len(plan["edits"]) - 1

        before = (workspace / "example-quote-plain.md").read_bytes()
        iplan = call(server, "visimark_infer", {"path": "example-quote-plain.md"})["structuredContent"]
        emptied = {**iplan, "files": [{**iplan["files"][0], "proposals": []}]}
        result = call(server, "visimark_infer_apply", {"path": "example-quote-plain.md", "plan": emptied})
        assert result["isError"] is False
        assert result["structuredContent"]["changed"] is False and result["structuredContent"]["written"] == \
            {"blocks": 0, "anchors": 0, "marker": False}
        assert (workspace / "example-quote-plain.md").read_bytes() == before
        invented = {**iplan, "proposals": [{"kind": "column", "sheet": "unnamed1", "name": "Seats",
                                            "rule": "Seats = Fee * 2", "fits": 4, "rows": 4, "weak": False}]}
        result = call(server, "visimark_infer_apply", {"path": "example-quote-plain.md", "plan": invented})
        assert result["isError"] is True and "did not make" in result["content"][0]["text"]
        # a real proposal whose kind was changed (to one infer never writes) is refused too:
        # it was dropped without a word, and notWritten did not name it
        real = iplan["files"][0]["proposals"][0]
        rekinded = {**iplan, "proposals": [{**real, "kind": "columnX"}]}
        result = call(server, "visimark_infer_apply", {"path": "example-quote-plain.md", "plan": rekinded})
        assert result["isError"] is True and "did not make" in result["content"][0]["text"]
        assert "columnX" in result["content"][0]["text"]
        # keeping a rule without the total it reads would write a broken document: refused
        proposals = iplan["files"][0]["proposals"]
        orphan = [p for p in proposals if p["name"] != "delivered_total"]
        result = call(server, "visimark_infer_apply", {"path": "example-quote-plain.md",
                                                       "plan": {**iplan, "proposals": orphan}})
        assert result["isError"] is True and "UNDEF" in result["content"][0]["text"]
        assert (workspace / "example-quote-plain.md").read_bytes() == before


def test_content_mode_names_what_it_skipped(plain: tuple[Path, Raw]) -> None:
    charts = (shared_dir("visimark", "docs") / "example-charts.md").read_text(encoding="utf-8")
    imports = (shared_dir("visimark", "docs") / "example-invoice-csv-import.md").read_text(encoding="utf-8")
    workspace, server = plain
    result = call(server, "visimark_check", {"content": charts})["structuredContent"]
    assert result["skipped"] == {"charts": ["sales.performance", "sales.trend", "sales.split", "audience.mix",
                                            "audience.spread"]}
    assert result["status"] == "ok"  # valid; nothing on disk could be compared, and it says so
    plan = call(server, "visimark_fmt", {"content": imports})["structuredContent"]
    assert plan["skipped"] == {"imports": ["lines"]} and plan["artifactsWouldWrite"] == []
    # by path, the same documents are checked against their folder: nothing skipped
    shutil.copytree(shared_dir("visimark", "docs") / "charts", workspace / "charts")
    for name in ("example-charts.md", "example-invoice-csv-import.md", "example-invoice-csv-import.csv"):
        shutil.copyfile(shared_dir("visimark", "docs") / name, workspace / name)
    for name in ("example-charts.md", "example-invoice-csv-import.md"):
        by_path = call(server, "visimark_check", {"path": name})["structuredContent"]
        assert by_path["skipped"] == {} and by_path["status"] == "ok", by_path["files"][0]["findings"]


def test_artifacts_are_planned_and_written_first(workspace: Path) -> None:
    """A missing chart is in the plan and written by the apply (identical to the original); an
    artifact that stopped being VisiMark's between plan and apply refuses the whole apply."""
    shutil.copytree(shared_dir("visimark", "docs") / "charts", workspace / "charts")
    shutil.copyfile(shared_dir("visimark", "docs") / "example-charts.md", workspace / "charts.md")
    original = (workspace / "charts" / "example-charts-trend.svg").read_bytes()
    (workspace / "charts" / "example-charts-trend.svg").unlink()
    with Raw(workspace, "--allow-write", "--root", str(workspace)) as server:
        server.initialize()
        plan = call(server, "visimark_fmt", {"path": "charts.md"})["structuredContent"]
        assert plan["artifactsWouldWrite"] == ["charts/example-charts-trend.svg"] and plan["edits"] == []
        # something appears at the target before the apply: not ours, so nothing is written
        (workspace / "charts" / "example-charts-trend.svg").write_text("<svg>hand drawn</svg>")
        result = call(server, "visimark_fmt_apply", {"path": "charts.md", "plan": plan})
        assert result["isError"] is True and result["structuredContent"]["error"]["code"] == "WRITE"
        assert (workspace / "charts" / "example-charts-trend.svg").read_text() == "<svg>hand drawn</svg>"
        (workspace / "charts" / "example-charts-trend.svg").unlink()
        result = call(server, "visimark_fmt_apply", {"path": "charts.md", "plan": plan})
        assert result["isError"] is False, result["content"][0]["text"]
        assert result["structuredContent"]["artifacts"] == ["charts/example-charts-trend.svg"]
        assert (workspace / "charts" / "example-charts-trend.svg").read_bytes() == original
        assert call(server, "visimark_fmt", {"path": "charts.md"})["structuredContent"]["artifactsWouldWrite"] == []
        # a plan that names an artifact this run would not write is refused
        forged = {**plan, "artifactsWouldWrite": ["charts/other.svg"]}
        result = call(server, "visimark_fmt_apply", {"path": "charts.md", "plan": forged})
        assert result["isError"] is True and "would not write" in result["content"][0]["text"]


def test_read_tools_match_the_cli_json(plain: tuple[Path, Raw]) -> None:
    """One contract: each read tool's envelope is what `visimark --json` prints."""
    def same(tool: str, arguments: dict[str, Any], *argv: str, drop: tuple[str, ...] = ("skipped",)) -> None:
        got = {k: v for k, v in call(server, tool, arguments)["structuredContent"].items() if k not in drop}
        ran = cli(*argv)
        assert got == {k: v for k, v in json.loads(ran.stdout).items() if k not in drop}, tool

    workspace, server = plain
    inv = str(workspace / "example-invoice.md")
    same("visimark_check", {"path": inv}, "check", inv, "--json")
    same("visimark_eval", {"path": inv}, "eval", inv, "--json")
    same("visimark_eval", {"path": inv, "get": "gross_total"}, "eval", inv, "--get", "gross_total", "--json")
    same("visimark_explain", {"path": inv, "sheet": "lines"}, "explain", inv, "#lines", "--json")
    same("visimark_ref", {}, "ref", "--json")
    same("visimark_ref", {"name": "PMT"}, "ref", "PMT", "--json")
    quote = str(workspace / "example-quote-plain.md")
    same("visimark_infer", {"path": quote}, "infer", quote, "--json",
         drop=("skipped", "sha256", "wouldWrite", "applied"))
    lever = str(workspace / "levers.md")
    (workspace / "tight.json").write_text('{ "budget": "0.40" }')
    got = call(server, "visimark_eval", {"path": lever, "scenarioPath": str(workspace / "tight.json")})
    ran = cli("eval", lever, "--scenario", str(workspace / "tight.json"), "--json")
    assert got["isError"] is (ran.returncode == 2)
    for tool, arguments, argv in (("visimark_ref", {"name": "SUMM"}, ("ref", "SUMM", "--json")),
                                  ("visimark_explain", {"path": inv, "sheet": "nope"},
                                   ("explain", inv, "#nope", "--json"))):
        result = call(server, tool, arguments)
        assert result["isError"] is True
        assert result["structuredContent"] == json.loads(cli(*argv).stdout)


def test_unknown_option_and_clean_shutdown(workspace: Path) -> None:
    bad = subprocess.run(module_command("markmcp.visimark.server", "--nope"), capture_output=True, text=True,
                         timeout=TIMEOUT)
    assert bad.returncode == 2 and bad.stdout == "" and "--nope" in bad.stderr
    with Raw(workspace) as server:
        assert server.initialize()["result"]["serverInfo"]["version"] == __version__
        assert server.finish()[0] == 0


def test_prompts_refuse_unknown_names_and_arguments(plain: tuple[Path, Raw]) -> None:
    workspace, server = plain
    assert server.call("prompts/get", {"name": "visimark/nope"})["error"]["code"] == -32602
    answer = server.call("prompts/get", {"name": "visimark/author", "arguments": {"pth": "x"}})
    assert answer["error"]["code"] == -32602 and "pth" in answer["error"]["message"]
    listed = server.call("resources/read", {"uri": "visimark://nope"})
    assert listed["error"]["code"] == -32002


def test_served_skill_is_generated_from_the_skill() -> None:
    assert doc_text(SERVED_SKILL) == served_skill(), "regenerate: python -m markmcp.visimark.docs"


def test_start_up_imports_no_engine_module() -> None:
    """Starting the server costs the shared layer and the SDK, not the engine: the tools import
    what they use (the layer loads it right after the ``initialize`` reply: ServerSpec.preload)."""
    code = ("import sys, markmcp.visimark.server; "
            "print(sorted(m for m in sys.modules if m.startswith('markmcp.visimark.')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=TIMEOUT)
    assert done.stdout.strip() == "['markmcp.visimark.server']", done.stdout + done.stderr
    import markmcp.visimark.server as server

    text = Path(server.__file__).read_text(encoding="utf-8")
    assert "visimark.cli" not in text and "from .cli" not in text  # the edges never import each other
