"""Each engine's command line and its MCP server agree on the outcome of the same input.

One table per engine: the same bad (and good) inputs go to the CLI (in process) and to the
server (a real subprocess over stdio), and each side's answer is reduced to an outcome
class, ``ok``, ``problems`` (the input was read and has findings) or ``error`` (it could not
be read or the request is wrong).  The expected class is pinned too, so two sides that
agree on a wrong answer still fail.

CLI exit codes: 0 ok, 1 problems, 2 error.  Servers: a tool error is ``error``; otherwise
the result's own verdict (``valid``, ``status``, ``ok``) tells ``problems`` from ``ok``.
Where they differ by design, confinement, there is no case here: a command reads what its
user names, a server only what its allowed places hold (tests/security/test_roots.py).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any, Callable

import pytest

import mcpwire

ROOT = Path(__file__).resolve().parent.parent
CLI_CLASS = {0: "ok", 1: "problems", 2: "error"}

# --- MRSF -----------------------------------------------------------------------------------

SIDECAR = (
    'mrsf_version: "1.0"\ndocument: a.md\ncomments:\n'
    "  - id: c1\n    author: Ann (ann)\n    timestamp: \"2026-01-01T00:00:00Z\"\n"
    "    text: Check this\n    line: 1\n    resolved: false\n"
)


def mrsf_tree(root: Path) -> None:
    (root / "a.md").write_text("# Title\n\nSome text.\n")
    (root / "a.md.review.yaml").write_text(SIDECAR)
    (root / "latin1.md").write_bytes(b"caf\xe9\n")
    (root / "broken.md").write_text("# Broken\n")
    (root / "broken.md.review.yaml").write_text("comments: [\n")
    (root / "invalid.md").write_text("# Invalid\n")
    (root / "invalid.md.review.yaml").write_text(SIDECAR.replace("document: a.md", "document: invalid.md")
                                                 .replace("    author: Ann (ann)\n", ""))
    (root / "empty").mkdir()


def mrsf_server_class(result: dict[str, Any]) -> str:
    if result.get("isError"):
        return "error"
    data = result.get("structuredContent") or {}
    return "problems" if data.get("valid") is False else "ok"


MRSF_CASES = [
    # (what, CLI argv, tool, arguments, outcome)
    ("add to a document that does not exist", ["add", "missing.md", "-a", "me", "-t", "hi", "-l", "1"],
     "mrsf_add", {"document": "missing.md", "author": "me", "text": "hi", "line": 1}, "error"),
    ("add to a document that is not UTF-8", ["add", "latin1.md", "-a", "me", "-t", "hi", "-l", "1"],
     "mrsf_add", {"document": "latin1.md", "author": "me", "text": "hi", "line": 1}, "error"),
    ("list a folder without sidecars", ["list", "empty"], "mrsf_list", {"files": ["empty"]}, "ok"),
    ("validate a folder without sidecars", ["validate", "empty"], "mrsf_validate", {"files": ["empty"]}, "ok"),
    ("status of a folder without sidecars", ["status", "empty"], "mrsf_status", {"files": ["empty"]}, "ok"),
    ("list a sidecar that is not YAML", ["list", "broken.md"], "mrsf_list", {"files": ["broken.md"]}, "error"),
    ("validate a sidecar missing a required field", ["validate", "invalid.md"],
     "mrsf_validate", {"files": ["invalid.md"]}, "problems"),
    ("validate a good sidecar", ["validate", "a.md"], "mrsf_validate", {"files": ["a.md"]}, "ok"),
    ("list a good sidecar", ["list", "a.md"], "mrsf_list", {"files": ["a.md"]}, "ok"),
]

# --- VisiMark -------------------------------------------------------------------------------


def visimark_tree(root: Path) -> None:
    stale = (ROOT / "samples" / "visimark" / "catering-quote.md").read_text(encoding="utf-8")
    (root / "stale.md").write_text(stale, encoding="utf-8")
    (root / "latin1.md").write_bytes(b"| a |\n|---|\n| caf\xe9 |\n")
    (root / "folder").mkdir()
    (root / "clean.md").write_text("| Item | Qty | Price | Net |\n|---|--:|--:|--:|\n| Tea | 2 | 1.50 | 3.00 |\n\n"
                                   "```vmark #t\nNet = Qty * Price\n```\n", encoding="utf-8")
    (root / "undefined.md").write_text("| Item | Qty |\n|---|--:|\n| Tea | 2 |\n\n```vmark\nNet = Qty * Nope\n```\n",
                                       encoding="utf-8")


def visimark_server_class(result: dict[str, Any]) -> str:
    if result.get("isError"):
        return "error"
    return {"ok": "ok", "problems": "problems"}[(result.get("structuredContent") or {}).get("status")]


VISIMARK_CASES = [
    ("a clean document", ["check", "clean.md"], "visimark_check", {"path": "clean.md"}, "ok"),
    ("stale numbers", ["check", "stale.md"], "visimark_check", {"path": "stale.md"}, "problems"),
    ("an unknown name in a rule", ["check", "undefined.md"], "visimark_check", {"path": "undefined.md"}, "problems"),
    ("a missing file", ["check", "missing.md"], "visimark_check", {"path": "missing.md"}, "error"),
    ("a file that is not UTF-8", ["check", "latin1.md"], "visimark_check", {"path": "latin1.md"}, "error"),
    ("a folder", ["check", "folder"], "visimark_check", {"path": "folder"}, "error"),
]

# --- FigDown --------------------------------------------------------------------------------

FIGURE = "figdown 0.1 block\nnode a \"Start\"\nnode b \"End\"\nedge a -> b\n"


def figdown_tree(root: Path) -> None:
    (root / "good.fd").write_text(FIGURE, encoding="utf-8")
    (root / "bad.fd").write_text("figdown 0.1 flowchart\nnode\n", encoding="utf-8")
    (root / "nogenre.fd").write_text("flowchart\n", encoding="utf-8")
    (root / "latin1.fd").write_bytes(b"figdown 0.1 flowchart\nnode a \"caf\xe9\"\n")
    (root / "figs").mkdir()
    (root / "figs" / "bad.fd").write_text("figdown 0.1 flowchart\nnode\n", encoding="utf-8")


def figdown_server_class(result: dict[str, Any]) -> str:
    if result.get("isError"):
        return "error"
    data = result.get("structuredContent") or {}
    if data.get("unreadable"):
        return "error"
    return "ok" if data.get("ok") else "problems"


FIGDOWN_CASES = [
    ("a good figure", ["check", "good.fd"], "figdown_check", {"path": "good.fd"}, "ok"),
    ("a missing file", ["check", "missing.fd"], "figdown_check", {"path": "missing.fd"}, "error"),
    ("a statement missing its name", ["check", "bad.fd"], "figdown_check", {"path": "bad.fd"}, "problems"),
    ("no header line", ["check", "nogenre.fd"], "figdown_check", {"path": "nogenre.fd"}, "problems"),
    ("a file that is not UTF-8", ["check", "latin1.fd"], "figdown_check", {"path": "latin1.fd"}, "error"),
    ("a folder with a bad figure", ["check", "figs"], "figdown_check", {"path": "figs"}, "problems"),
]


def _mrsf_cli(argv: list[str]) -> int:
    from markmcp.mrsf import cli

    return cli.main(argv)


def _visimark_cli(argv: list[str]) -> int:
    import io

    from markmcp.visimark import cli

    sink = io.StringIO()
    return cli.main(argv, out=sink.write, err=sink.write)


def _figdown_cli(argv: list[str]) -> int:
    from markmcp.figdown import cli

    return cli.main(argv)


ENGINES: dict[str, tuple[Callable[[Path], None], str, Callable[[list[str]], int], Callable[[dict], str], list]] = {
    "mrsf": (mrsf_tree, "markmcp.mrsf.server", _mrsf_cli, mrsf_server_class, MRSF_CASES),
    "visimark": (visimark_tree, "markmcp.visimark.server", _visimark_cli, visimark_server_class, VISIMARK_CASES),
    "figdown": (figdown_tree, "markmcp.figdown.server", _figdown_cli, figdown_server_class, FIGDOWN_CASES),
}


@pytest.fixture(scope="module", params=sorted(ENGINES))
def engine(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    """A fresh tree per engine and one server over it; each case gets the tree as it was."""
    make_tree, module, run_cli, server_class, cases = ENGINES[request.param]
    pristine = tmp_path_factory.mktemp(f"{request.param}-pristine") / "work"
    pristine.mkdir()
    make_tree(pristine)
    work = tmp_path_factory.mktemp(request.param) / "work"
    shutil.copytree(pristine, work)
    with mcpwire.StdioClient(mcpwire.module_command(module, "--cwd", str(work)), cwd=work) as client:
        client.initialize()
        yield request.param, pristine, work, client, run_cli, server_class, cases


def _reset(pristine: Path, work: Path) -> None:
    """``work`` as ``pristine`` again (emptied and refilled: it is the CLI's and the server's
    working folder, so the folder itself stays)."""
    mcpwire.wipe(work)
    shutil.copytree(pristine, work, dirs_exist_ok=True)


def test_cli_and_server_agree_on_every_case(engine, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    name, pristine, work, client, run_cli, server_class, cases = engine
    monkeypatch.chdir(work)
    disagreements = []
    for what, argv, tool, arguments, expected in cases:
        _reset(pristine, work)
        cli_class = CLI_CLASS.get(run_cli(argv), "exit code outside 0-2")
        cli_said = capsys.readouterr().err.strip()
        cli_tree = sorted(p.relative_to(work).as_posix() for p in work.rglob("*"))
        _reset(pristine, work)
        server_result = client.call_tool(tool, arguments)
        served_class = server_class(server_result)
        server_tree = sorted(p.relative_to(work).as_posix() for p in work.rglob("*"))
        if not (cli_class == served_class == expected):
            disagreements.append(f"{what}: CLI {cli_class}, server {served_class}, expected {expected}"
                                 f" (CLI stderr: {cli_said[:200]!r})")
        elif expected == "error" and cli_tree != server_tree:
            disagreements.append(f"{what}: a refused request left different files ({cli_tree} vs {server_tree})")
    _reset(pristine, work)
    assert not disagreements, f"{name}:\n" + "\n".join(disagreements)
