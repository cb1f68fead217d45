"""The built wheel is the product: it installs with its declared dependencies and works
outside the repository, the way ``pipx install markmcp`` or ``uvx --from markmcp mrsf-mcp``
would use it.

Once per run: the project (pyproject.toml, README.md, LICENSE, src/) is copied to a
temporary folder and built with ``pip wheel`` (the declared build backend, in an isolated
build environment); the wheel goes into a fresh virtual environment (no system site
packages, no access to this checkout) with its dependencies resolved by pip from the
configured index; then every console script named in pyproject.toml is run from a
temporary working folder: ``--help``, ``--version`` and one real call each (a command-line
tool on a small document written there; an MCP server through initialize, tools/list and
tools/call over stdio).  The wheel must hold every file of the package tree, the
documentation the servers serve included.

The console scripts are read from pyproject.toml when the tests are collected, so a new one
gets ``--help`` and ``--version`` at once; its real call is added to ``CLI_CALLS`` (a
command-line tool) or, for an MCP server, to ``TOOL_CALLS`` under one of its tools.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from email.parser import HeaderParser
from pathlib import Path
from typing import Any

import pytest
from packaging.requirements import Requirement

from conftest import ROOT, missing
from mcpwire import StdioClient

PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
SCRIPTS: dict[str, str] = PROJECT["scripts"]
VERSION: str = PROJECT["version"]
PACKAGE = ROOT / "src" / "markmcp"
SLOW = 900  # seconds: building and installing on a loaded machine; a hang still ends


def _require_pip() -> None:
    """The build and install use this interpreter's pip: missing fails in CI, skips elsewhere."""
    probe = subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True, text=True)
    if probe.returncode != 0:
        missing(f"pip is not available to {sys.executable}: cannot build the wheel")


def _run(command: list[str | Path], **kwargs: Any) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(part) for part in command], capture_output=True, text=True,
                          encoding="utf-8", **kwargs)
    assert done.returncode == 0, f"{' '.join(map(str, command))} failed:\n{done.stdout}\n{done.stderr}"
    return done


@dataclass(frozen=True)
class Installed:
    wheel: Path
    bin: Path
    python: Path
    work: Path
    """An empty folder outside the repository: the working directory of every command."""
    env: dict[str, str]

    def command(self, script: str) -> list[str]:
        return [str(self.bin / script)]

    def run(self, script: str, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*self.command(script), *args], capture_output=True, text=True, encoding="utf-8",
                              cwd=cwd or self.work, env=self.env, timeout=120)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    _require_pip()
    base = tmp_path_factory.mktemp("wheel")
    source = base / "project"
    source.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, source / name)
    shutil.copytree(ROOT / "src", source / "src",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info"))
    venv = base / "venv"
    # a user's environment: nothing of this checkout's (a PYTHONPATH naming its src/ would make
    # pip take the package as installed already), and bytecode cached as Python does by default
    # (under PYTHONDONTWRITEBYTECODE every command would compile the SDK again)
    env = {key: value for key, value in os.environ.items()
           if key not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "VIRTUAL_ENV", "PYTHONSAFEPATH",
                          "PYTHONDONTWRITEBYTECODE")}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    dist = base / "dist"
    _run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", dist, source],
         cwd=base, env=env, timeout=SLOW)
    [wheel] = dist.glob("*.whl")
    _run([sys.executable, "-m", "venv", "--without-pip", venv], env=env, timeout=SLOW)
    python = venv / "bin" / "python"
    # this interpreter's pip installs into the new environment (no second copy of pip);
    # dependencies come from the configured index, as for any user, not from this checkout
    _run([sys.executable, "-m", "pip", "--python", python, "install", "--quiet", "--no-compile", wheel],
         cwd=base, env=env, timeout=SLOW)
    work = base / "work"
    work.mkdir()
    return Installed(wheel=wheel, bin=venv / "bin", python=python, work=work, env=env)


# --- what the wheel holds --------------------------------------------------------------------


def _package_files() -> set[str]:
    """Every file of the package tree, as a wheel names it (``markmcp/...``)."""
    return {
        path.relative_to(PACKAGE.parent).as_posix()
        for path in PACKAGE.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"
    }


def test_the_wheel_holds_every_file_of_the_package(installed: Installed) -> None:
    with zipfile.ZipFile(installed.wheel) as archive:
        names = set(archive.namelist())
    in_wheel = {name for name in names if name.startswith("markmcp/")}
    tree = _package_files()
    data = {name for name in tree if not name.endswith(".py")}
    assert {name for name in data if name.startswith("markmcp/figdown/docs/")}, "no FigDown pages in the tree"
    assert {name for name in data if name.startswith("markmcp/visimark/docs/")}, "no VisiMark pages in the tree"
    assert sorted(data - in_wheel) == [], "data files left out of the wheel"
    assert sorted(tree - in_wheel) == [], "package files left out of the wheel"
    assert sorted(in_wheel - tree) == [], "files in the wheel that the package tree does not have"


def test_the_wheel_declares_the_project(installed: Installed) -> None:
    with zipfile.ZipFile(installed.wheel) as archive:
        info = f"markmcp-{VERSION}.dist-info"
        metadata = HeaderParser().parsestr(archive.read(f"{info}/METADATA").decode("utf-8"))
        entry_points = archive.read(f"{info}/entry_points.txt").decode("utf-8")
    assert metadata["Name"] == PROJECT["name"]
    assert metadata["Version"] == VERSION
    assert metadata["Requires-Python"] == PROJECT["requires-python"]
    required = {Requirement(value) for value in metadata.get_all("Requires-Dist") or [] if "extra ==" not in value}
    assert required == {Requirement(value) for value in PROJECT["dependencies"]}
    scripts = entry_points.split("[console_scripts]\n", 1)[1].split("\n[", 1)[0]
    declared = dict(line.split(" = ", 1) for line in scripts.splitlines() if line.strip())
    assert declared == SCRIPTS


def test_the_environment_runs_the_installed_package(installed: Installed) -> None:
    """The package comes from the new environment, never from this checkout."""
    probe = _run([installed.python, "-c", "import markmcp, mcp; print(markmcp.__file__); print(markmcp.__version__)"],
                 cwd=installed.work, env=installed.env, timeout=120)
    location, version = probe.stdout.split()
    assert Path(location).is_relative_to(installed.python.parent.parent)
    assert not Path(location).is_relative_to(ROOT)
    assert version == VERSION


# --- every console script --------------------------------------------------------------------


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_help(installed: Installed, script: str) -> None:
    done = installed.run(script, "--help")
    assert done.returncode == 0, done.stderr
    assert script in done.stdout
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_version(installed: Installed, script: str) -> None:
    done = installed.run(script, "--version")
    assert (done.returncode, done.stdout, done.stderr) == (0, f"{script} {VERSION}\n", "")


FIGURE = 'figdown 0.1 block\nnode a "A"\nnode b "B"\nedge a -> b\n'
DOCUMENT = "# Notes\n\nThe first line to review.\nThe second line.\n"
SHEET = (
    "| Item | Qty | Price | Total |\n|---|---:|---:|---:|\n| Pens | 2 | 1.50 | 3.00 |\n| Ink | 3 | 2.00 | 6.00 |\n\n"
    "```vmark #lines\nTotal = Qty * Price\nsum = SUM(Total)\n```\n\nThe order comes to **9.00**<!--vmark=lines.sum-->.\n"
)


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def _figdown(installed: Installed, folder: Path) -> None:
    _write(folder, "fig.fd", FIGURE)
    done = installed.run("figdown", "check", "fig.fd", cwd=folder)
    assert (done.returncode, done.stdout) == (0, "checked 1 document(s), 1 clean, 0 with diagnostics\n"), done.stderr
    _write(folder, "bad.fd", FIGURE + "frobnicate\n")
    done = installed.run("figdown", "check", "bad.fd", cwd=folder)
    assert done.returncode == 1 and done.stdout.startswith("PARSE FAILED"), done.stderr
    # the reference pages are package data: served from the installed wheel
    page = (PACKAGE / "figdown" / "docs" / "block.md").read_text(encoding="utf-8")
    done = installed.run("figdown", "reference", "block", cwd=folder)
    assert done.returncode == 0 and page.strip() in done.stdout, done.stderr


def _mrsf(installed: Installed, folder: Path) -> None:
    _write(folder, "doc.md", DOCUMENT)
    done = installed.run("mrsf", "add", "doc.md", "-a", "Ada", "-t", "Say more here", "-l", "3", cwd=folder)
    assert done.returncode == 0, done.stderr
    assert (folder / "doc.md.review.yaml").is_file()
    done = installed.run("mrsf", "list", "--json", "doc.md", cwd=folder)
    assert done.returncode == 0, done.stderr
    [row] = json.loads(done.stdout)
    assert (row["comment"]["text"], row["comment"]["author"], row["comment"]["line"]) == ("Say more here", "Ada", 3)
    assert row["comment"]["selected_text"] == "The first line to review."


def _visimark(installed: Installed, folder: Path) -> None:
    _write(folder, "order.md", SHEET)
    done = installed.run("visimark", "check", "order.md", cwd=folder)
    assert done.returncode == 0 and "0 problems" in done.stdout, done.stdout + done.stderr
    _write(folder, "stale.md", SHEET.replace("| 6.00 |", "| 7.00 |"))
    done = installed.run("visimark", "check", "--json", "stale.md", cwd=folder)
    assert done.returncode == 1, done.stderr
    assert json.loads(done.stdout)["summary"]["stale"] >= 1


def _markmcp(installed: Installed, folder: Path) -> None:
    _write(folder, "order.md", SHEET)
    _write(folder, "fig.fd", FIGURE)
    done = installed.run("markmcp", "check", cwd=folder)
    assert (done.returncode, done.stdout) == (0, "checked 2 file(s) (VisiMark 1, FigDown 1): 2 clean, "
                                                 "0 with findings\n"), done.stderr
    _write(folder, "stale.md", SHEET.replace("| 6.00 |", "| 7.00 |"))
    done = installed.run("markmcp", "check", "--json", cwd=folder)  # a pool of workers on a multi-core machine
    assert done.returncode == 1, done.stderr
    data = json.loads(done.stdout)
    assert data["status"] == "findings" and data["visimark"]["summary"]["stale"] >= 1


CLI_CALLS: dict[str, Callable[[Installed, Path], None]] = {
    "markmcp": _markmcp,
    "figdown": _figdown,
    "mrsf": _mrsf,
    "visimark": _visimark,
}


def _structured(result: dict[str, Any]) -> dict[str, Any]:
    assert result["isError"] is False, result["content"]
    return result["structuredContent"]


def _call_figdown_check(client: StdioClient, folder: Path) -> None:
    _write(folder, "fig.fd", FIGURE)
    data = _structured(client.call_tool("figdown_check", {"path": "fig.fd"}))
    assert (data["ok"], data["checked"], data["clean"]) == (True, 1, 1)


def _call_figdown_reference(client: StdioClient, folder: Path) -> None:
    data = _structured(client.call_tool("figdown_reference", {"name": "block"}))
    page = (PACKAGE / "figdown" / "docs" / "block.md").read_text(encoding="utf-8")
    assert data["files"][0] == {"file": "block.md", "text": page}


def _call_mrsf_add(client: StdioClient, folder: Path) -> None:
    _write(folder, "doc.md", DOCUMENT)
    added = _structured(client.call_tool("mrsf_add", {"document": "doc.md", "text": "Why?", "author": "Ada", "line": 4}))
    assert added["status"] == "added" and (folder / "doc.md.review.yaml").is_file()
    listed = _structured(client.call_tool("mrsf_list", {"files": ["doc.md.review.yaml"]}))
    assert added["id"] in json.dumps(listed)


def _call_visimark_check(client: StdioClient, folder: Path) -> None:
    _write(folder, "order.md", SHEET)
    data = _structured(client.call_tool("visimark_check", {"path": "order.md"}))
    assert data["status"] == "ok" and data["summary"]["problems"] == 0


# One real call per tool family, keyed by a tool the server lists (a server offering several
# families, such as a combined one, gets each family's call).
TOOL_CALLS: dict[str, Callable[[StdioClient, Path], None]] = {
    "figdown_check": _call_figdown_check,
    "figdown_reference": _call_figdown_reference,
    "mrsf_add": _call_mrsf_add,
    "visimark_check": _call_visimark_check,
}


def _serve(installed: Installed, script: str, folder: Path) -> None:
    with StdioClient(installed.command(script), cwd=folder, timeout=60, env=installed.env) as client:
        answer = client.initialize()
        assert answer["result"]["serverInfo"]["version"] == VERSION, answer
        tools = [tool["name"] for tool in client.call("tools/list")["result"]["tools"]]
        known = [name for name in tools if name in TOOL_CALLS]
        assert known, f"{script} lists none of the tools this test knows a call for: {tools}"
        for name in known:
            TOOL_CALLS[name](client, folder)
        code, stderr = client.finish(timeout=60)
    assert code == 0 and "Traceback" not in stderr, stderr


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_one_real_call(installed: Installed, script: str) -> None:
    folder = installed.work / script
    folder.mkdir()
    if script.endswith("-mcp"):
        _serve(installed, script, folder)
    else:
        assert script in CLI_CALLS, f"add a real call for the console script {script!r} to CLI_CALLS"
        CLI_CALLS[script](installed, folder)
