"""``markmcp-mcp`` / ``markmcp serve``: one process serving all three tool families.

Over stdio, as a host runs it: initialize names the server ``markmcp`` at the package
version; tools/list, resources/list, resources/templates/list and prompts/list are exactly
the union of the single servers' (in the same order); a call of each family works in one
session; ``--only`` serves a subset with the same options; a bad ``--only`` is a usage
error.  Each single server names itself ``markmcp-<family>`` at the package version.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from markmcp import __version__
from markmcp.figdown.server import SPEC as FIGDOWN
from markmcp.mcpcore import ServerSpec, Tool
from markmcp.mcpcore.app import build_parser
from markmcp.mcpcore.combine import combine
from markmcp.mrsf.server import SPEC as MRSF
from markmcp.server import FAMILIES, chosen_families, spec
from markmcp.visimark.server import SPEC as VISIMARK
from mcpwire import StdioClient, module_command, wipe

TIMEOUT = 60.0
SINGLE = {"markmcp.visimark.server": "markmcp-visimark", "markmcp.figdown.server": "markmcp-figdown",
          "markmcp.mrsf.server": "markmcp-mrsf", "markmcp.server": "markmcp"}


def names(client: StdioClient, method: str, key: str, field: str) -> list[str]:
    return [item[field] for item in client.call(method)["result"][key]]


@pytest.fixture(scope="module")
def combined(tmp_path_factory: pytest.TempPathFactory):
    """One ``markmcp.server`` process (started with ``--cwd`` on an empty folder), shared by the
    tests that talk to the combined server without options of their own: the folder, the client
    and the answer to initialize.  It must exit 0 when its input closes."""
    folder = tmp_path_factory.mktemp("combined")
    with StdioClient(module_command("markmcp.server", "--cwd", str(folder)), timeout=TIMEOUT) as client:
        answer = client.initialize()["result"]
        yield folder, client, answer
        code, stderr = client.finish(timeout=TIMEOUT)
        assert code == 0, stderr


@pytest.mark.parametrize("module", sorted(SINGLE))
def test_every_server_names_itself_at_the_package_version(module: str, request: pytest.FixtureRequest) -> None:
    if module == "markmcp.server":  # the combined server's own process is shared (it exits 0 at teardown)
        info = request.getfixturevalue("combined")[2]["serverInfo"]
        assert (info["name"], info["version"]) == (SINGLE[module], __version__)
        return
    with StdioClient(module_command(module), timeout=TIMEOUT) as client:
        info = client.initialize()["result"]["serverInfo"]
        code, stderr = client.finish(timeout=TIMEOUT)
    assert (info["name"], info["version"]) == (SINGLE[module], __version__)
    assert code == 0, stderr


def test_the_combined_server_serves_the_union_of_the_three(combined: tuple[Path, StdioClient, dict]) -> None:
    tmp_path, client, answer = combined
    wipe(tmp_path)  # the same empty folder whatever ran before
    (tmp_path / "fig.fd").write_text('figdown 0.1 block\nnode a "A"\n', encoding="utf-8")
    (tmp_path / "doc.md").write_text("# Notes\n\nA line to review.\n", encoding="utf-8")
    families = (VISIMARK, FIGDOWN, MRSF)
    assert (answer["serverInfo"]["name"], answer["serverInfo"]["version"]) == ("markmcp", __version__)
    assert answer["instructions"].count("\n\n") >= 3
    for spec_ in families:
        assert spec_.instructions in answer["instructions"]
    assert names(client, "tools/list", "tools", "name") == [t.name for s in families for t in s.tools]
    assert names(client, "resources/list", "resources", "uri") == [r.uri for s in families for r in s.resources]
    assert names(client, "resources/templates/list", "resourceTemplates", "uriTemplate") == [
        t.uri_template for s in families for t in s.resource_templates]
    assert names(client, "prompts/list", "prompts", "name") == [p.name for s in families for p in s.prompts]
    # one session, a call of each family
    checked = client.call_tool("figdown_check", {"path": "fig.fd"})
    assert checked["isError"] is False and checked["structuredContent"]["clean"] == 1, checked
    added = client.call_tool("mrsf_add", {"document": "doc.md", "text": "Why?", "author": "Ada", "line": 3})
    assert added["isError"] is False, added
    assert (tmp_path / "doc.md.review.yaml").is_file()
    ref = client.call_tool("visimark_ref", {"name": "SUM"})
    assert ref["isError"] is False and ref["structuredContent"]["function"]["name"] == "SUM", ref
    skill = client.call("resources/read", {"uri": "visimark://skill"})["result"]["contents"][0]
    assert skill["text"]
    sidecar = client.call("resources/read", {"uri": "mrsf://sidecar/doc.md"})["result"]["contents"][0]
    assert "Why?" in sidecar["text"]


def test_only_serves_the_chosen_families_with_the_same_options() -> None:
    with StdioClient(module_command("markmcp.server", "--only", "visimark,figdown"), timeout=TIMEOUT) as client:
        client.initialize()
        tools = names(client, "tools/list", "tools", "name")
        templates = names(client, "resources/templates/list", "resourceTemplates", "uriTemplate")
        client.finish(timeout=TIMEOUT)
    assert tools == [t.name for t in (*VISIMARK.tools, *FIGDOWN.tools)]
    assert not any(t.startswith("mrsf://") for t in templates)
    full = build_parser(spec()).format_help()
    assert build_parser(spec(["mrsf"])).format_help() == full
    assert build_parser(spec(["figdown"])).format_help() == full


def test_only_is_read_from_the_command_line() -> None:
    assert chosen_families([]) == list(FAMILIES)
    assert chosen_families(["--only", "mrsf,visimark"]) == ["visimark", "mrsf"]  # serving order, not typed order
    assert chosen_families(["--only=figdown", "--cwd", "."]) == ["figdown"]
    assert chosen_families(["--only", "figdown", "--only", "mrsf"]) == ["mrsf"]  # the last one counts, as argparse
    assert chosen_families(["--only", "nonsense"]) == list(FAMILIES)  # the full parser reports it


@pytest.mark.parametrize("value", ["nonsense", "", "visimark,paint"])
def test_a_bad_only_is_a_usage_error(value: str) -> None:
    done = subprocess.run(module_command("markmcp.server", "--only", value), capture_output=True, text=True,
                          timeout=TIMEOUT, stdin=subprocess.DEVNULL)
    assert done.returncode == 2 and done.stdout == ""
    assert "argument --only: choose from visimark, figdown, mrsf" in done.stderr
    assert "Traceback" not in done.stderr


def test_markmcp_serve_is_the_combined_server() -> None:
    done = subprocess.run([sys.executable, "-m", "markmcp.check.cli", "serve", "--version"], capture_output=True,
                          text=True, timeout=TIMEOUT)
    assert (done.returncode, done.stdout) == (0, f"markmcp serve {__version__}\n"), done.stderr
    with StdioClient([sys.executable, "-m", "markmcp.check.cli", "serve", "--only", "figdown"],
                     timeout=TIMEOUT) as client:
        assert client.initialize()["result"]["serverInfo"]["name"] == "markmcp"
        assert names(client, "tools/list", "tools", "name") == [t.name for t in FIGDOWN.tools]
        code, stderr = client.finish(timeout=TIMEOUT)
    assert code == 0, stderr
    listed = subprocess.run([sys.executable, "-m", "markmcp.check.cli", "--help"], capture_output=True, text=True,
                            timeout=TIMEOUT)
    assert "serve" in listed.stdout and "markmcp-mcp" in listed.stdout


def _tool(name: str) -> Tool:
    return Tool(name, name, "", {"type": "object"}, {"type": "object"}, lambda args, ctx: {})


def test_combine_refuses_a_name_served_twice() -> None:
    a = ServerSpec(name="a", version="1", instructions="", tools=[_tool("same")])
    b = ServerSpec(name="b", version="1", instructions="", tools=[_tool("same")])
    with pytest.raises(ValueError, match="duplicate tool names: same"):
        combine([a, b], name="ab", version="1", prog="ab", default_port=1)
    with pytest.raises(ValueError, match="nothing to combine"):
        combine([], name="ab", version="1", prog="ab", default_port=1)


def test_combine_offers_the_union_of_the_options() -> None:
    reads = ServerSpec(name="r", version="1", instructions="", tools=[_tool("r")], uses_roots=False, write_gate=False)
    writes = ServerSpec(name="w", version="1", instructions="", tools=[_tool("w")])
    alone = build_parser(combine([reads], name="x", version="1", prog="x", default_port=1)).format_help()
    assert "--root" not in alone and "--allow-write" not in alone
    both = build_parser(combine([reads], name="x", version="1", prog="x", default_port=1,
                                offered=[reads, writes])).format_help()
    assert "--root" in both and "--allow-write" in both and "--trust-client-roots" in both
    assert "--read-only" not in both
    mrsf_like = ServerSpec(name="m", version="1", instructions="", tools=[_tool("m")], write_gate=False,
                           write_default=True)
    all_three = build_parser(combine([reads], name="x", version="1", prog="x", default_port=1,
                                     offered=[reads, writes, mrsf_like])).format_help()
    assert "--read-only" in all_three and "--allow-write" in all_three
