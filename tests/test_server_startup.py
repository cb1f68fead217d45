"""What a server loads before it answers ``initialize``, and what it loads right after.

Every server command answers ``initialize`` from the shared layer over stdio
(``markmcp.mcpcore.early``); what delays the reply is what the server module imports.  So
a server module imports no engine: its tools import what they use, and the layer imports
the engine the server names (``ServerSpec.preload``) right after the reply, in the thread
that loads the SDK (before serving, over HTTP/SSE).  These tests check the imports, not
the time (``bench/mcp_latency.py --servers`` measures that):

* importing a server module leaves out the engine modules and their third-party
  dependencies, and importing its ``preload`` modules brings them in (so the names
  checked are real);
* once the ``preload`` modules are in, the usual tool calls import no further module of
  the package (the first call does not wait for an import the layer could have done);
* over stdio and over HTTP, a tool's first call finds the ``preload`` modules imported.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from markmcp.figdown.server import SPEC as FIGDOWN
from markmcp.mrsf.server import SPEC as MRSF
from markmcp.server import spec as combined_spec
from markmcp.visimark.server import SPEC as VISIMARK
from mcpwire import HttpClient, HttpServer, StdioClient

TIMEOUT = 60.0

VISIMARK_ENGINE = ("markmcp.visimark.envelopes", "markmcp.visimark.model", "markmcp.visimark.check",
                   "markmcp.visimark.evaluate")
FIGDOWN_ENGINE = ("markmcp.figdown.parser", "markmcp.figdown.render", "markmcp.figdown.render.scene",
                  "markmcp.figdown.report", "markmcp.figdown.artifacts", "markmcp.figdown.docs")
MRSF_ENGINE = ("markmcp.mrsf.ops", "markmcp.mrsf.sidecar", "markmcp.mrsf.store", "markmcp.mrsf.edits")
ENGINES = {
    "markmcp.visimark.server": VISIMARK_ENGINE,
    "markmcp.figdown.server": FIGDOWN_ENGINE,
    "markmcp.mrsf.server": MRSF_ENGINE,
    "markmcp.server": VISIMARK_ENGINE + FIGDOWN_ENGINE + MRSF_ENGINE,
}
HEAVY = ("mcp", "mcp_types", "pydantic", "anyio", "ruamel", "rapidfuzz", "markdown_it", "decimal")
"""Third-party (and slow standard) packages no server module may import before the reply."""

IMPORTS = """
import importlib, json, sys
module = importlib.import_module(sys.argv[1])
spec = module.spec() if sys.argv[1] == "markmcp.server" else module.SPEC
before = set(sys.modules)
from markmcp.mcpcore.spec import import_preloads
import_preloads(spec)
print(json.dumps({"before": sorted(before), "after": sorted(sys.modules), "preload": list(spec.preload)}))
"""


@pytest.mark.parametrize("module", sorted(ENGINES))
def test_a_server_module_imports_no_engine_and_its_preload_brings_it(module: str) -> None:
    done = subprocess.run([sys.executable, "-c", IMPORTS, module], capture_output=True, text=True,
                          timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    before, after = set(seen["before"]), set(seen["after"])
    assert module in before
    early = sorted(name for name in ENGINES[module] if name in before)
    assert not early, f"{module} imports engine modules at import time: {early}"
    assert sorted({name.split(".")[0] for name in before} & set(HEAVY)) == []
    assert not [name for name in seen["preload"] if name in before]
    assert set(ENGINES[module]) <= after, sorted(set(ENGINES[module]) - after)


def test_the_combined_server_preloads_what_each_family_does() -> None:
    assert combined_spec().preload == (*VISIMARK.preload, *FIGDOWN.preload, *MRSF.preload)
    assert combined_spec(["mrsf"]).preload == tuple(MRSF.preload)


CALLS = """
import importlib, json, sys, tempfile
from pathlib import Path
from markmcp.mcpcore.files import FileAccessError
from markmcp.mcpcore.spec import CallContext, ToolError, import_preloads
module = importlib.import_module(sys.argv[1])
import_preloads(module.SPEC)
folder = Path(tempfile.mkdtemp())
(folder / "doc.md").write_text("# Title\\n\\nSome text.\\n", encoding="utf-8")
(folder / "figure.fd").write_text("figdown 0.5 block\\nnode a\\nnode b\\nedge a -> b\\n", encoding="utf-8")
ctx = CallContext(roots=(folder,), cwd=folder, allow_write=True, options={})
tools = {tool.name: tool for tool in module.SPEC.tools}
before = set(sys.modules)
for name, arguments in json.loads(sys.argv[2]):
    tool = tools[name]
    try:
        result = tool.handler(arguments, ctx)
    except (ToolError, FileAccessError) as error:
        result = {"error": error.message}
    else:
        if tool.text is not None:
            tool.text(result)
    print(name, json.dumps(result)[:200], file=sys.stderr)
print(json.dumps(sorted(name for name in set(sys.modules) - before if name.startswith("markmcp"))))
"""

FIRST_CALLS = {
    "markmcp.visimark.server": [
        ["visimark_check", {"path": "doc.md"}], ["visimark_infer", {"content": "# x\n"}],
        ["visimark_fmt", {"content": "# x\n"}], ["visimark_eval", {"content": "# x\n"}],
        ["visimark_explain", {"content": "# x\n"}], ["visimark_ref", {}],
    ],
    "markmcp.figdown.server": [
        ["figdown_check", {"path": "figure.fd"}], ["figdown_build", {"path": "figure.fd", "write": True}],
        ["figdown_read", {"path": "figure.svg"}], ["figdown_build", {"source": "figdown 0.5 sequence\n"}],
    ],
    "markmcp.mrsf.server": [
        ["mrsf_add", {"document": "doc.md", "text": "Say more.", "author": "a", "line": 3}],
        ["mrsf_list", {"files": ["doc.md"]}], ["mrsf_validate", {}], ["mrsf_reanchor", {}],
        ["mrsf_status", {}], ["mrsf_help", {}],
    ],
}


@pytest.mark.parametrize("module", sorted(FIRST_CALLS))
def test_after_the_preload_the_first_calls_import_nothing_more(module: str) -> None:
    calls = json.dumps(FIRST_CALLS[module])
    done = subprocess.run([sys.executable, "-c", CALLS, module, calls], capture_output=True, text=True,
                          timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr
    assert "error" not in done.stderr.replace('"errors"', ""), done.stderr  # each call did its work
    assert json.loads(done.stdout) == [], done.stderr


SERVER = """
import sys
from markmcp.mcpcore import ServerSpec, Tool, serve

def loaded(args, ctx):
    return {"loaded": "preload_probe_engine" in sys.modules}

SPEC = ServerSpec(
    name="preload-probe", version="1", instructions="",
    tools=[Tool("loaded", "Loaded", "Whether the engine is imported", {"type": "object"}, {"type": "object"},
                loaded)],
    preload=("preload_probe_engine",),
)
sys.exit(serve(SPEC))
"""


def probe_command(folder: Path, *args: str) -> list[str]:
    """A server whose one tool says whether its ``preload`` module was imported; nothing but
    the layer imports that module."""
    (folder / "preload_probe_engine.py").write_text("ENGINE = True\n", encoding="utf-8")
    (folder / "preload_probe.py").write_text(SERVER, encoding="utf-8")
    return [sys.executable, str(folder / "preload_probe.py"), *args]


def test_over_stdio_the_engine_is_in_before_the_first_call(tmp_path: Path) -> None:
    with StdioClient(probe_command(tmp_path), timeout=TIMEOUT) as client:
        client.initialize()
        assert client.call_tool("loaded", {})["structuredContent"] == {"loaded": True}
        assert client.finish()[0] == 0


def test_over_http_the_engine_is_in_before_the_first_call(tmp_path: Path) -> None:
    with HttpServer(probe_command(tmp_path, "--transport", "http", "--port", "0")) as server:
        client = HttpClient(server.port)
        client.initialize()
        answer = client.call("tools/call", {"name": "loaded", "arguments": {}})
        assert answer["result"]["structuredContent"] == {"loaded": True}
