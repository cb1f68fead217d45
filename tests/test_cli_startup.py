"""What a command line tool (figdown, visimark, mrsf, markmcp) imports before it answers: the command line is parsed (and
``--help``, ``--version`` and usage errors answered) before any engine module is loaded, and
each subcommand loads only the engine parts it uses.

Each case runs a tool's ``main`` in a fresh interpreter and reads back its exit code and the
modules it left in ``sys.modules``; the output itself is checked by each tool's own tests.
Every case that leaves an engine out sits beside one that brings it in, so the names
checked are real modules.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

TIMEOUT = 60.0

RUN = """
import importlib, json, sys
module, report, *argv = sys.argv[1:]
code = importlib.import_module(module).main(argv)
with open(report, "w", encoding="utf-8") as out:
    json.dump({"code": code, "modules": sorted(sys.modules)}, out)
"""

FIGDOWN_PARSER = ("markmcp.figdown.parser",)
FIGDOWN_RENDERER = ("markmcp.figdown.render", "markmcp.figdown.render.scene")
FIGDOWN_ARTIFACTS = ("markmcp.figdown.artifacts",)
FIGDOWN_DOCS = ("markmcp.figdown.docs",)
FILES = ("markmcp.mcpcore.files",)
VISIMARK_ENGINE = ("markmcp.visimark.runner", "markmcp.visimark.check", "markmcp.visimark.model",
                   "markmcp.visimark.evaluate", "markmcp.visimark.builtins")

FIGURE = "figdown 0.1 bitfield\nbitfield tcp \"Flags\" numbering=lsb0\nfield C:1,R:1,K:1\n"


def loaded(tmp_path: Path, module: str, *argv: str) -> tuple[int, set[str]]:
    """``module.main(argv)`` in a new interpreter (cwd ``tmp_path``): its exit code, its modules."""
    report = tmp_path / "report.json"
    subprocess.run([sys.executable, "-c", RUN, module, str(report), *argv], cwd=tmp_path, timeout=TIMEOUT,
                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    found = json.loads(report.read_text(encoding="utf-8"))
    return found["code"], set(found["modules"])


def absent(modules: set[str], names: tuple[str, ...]) -> list[str]:
    return [name for name in names if name in modules]


def missing(modules: set[str], names: tuple[str, ...]) -> list[str]:
    return [name for name in names if name not in modules]


@pytest.fixture
def figure(tmp_path: Path) -> Path:
    path = tmp_path / "a.fd"
    path.write_text(FIGURE, encoding="utf-8")
    return path


@pytest.mark.parametrize(("argv", "code"), [
    (["--help"], 0), (["--version"], 0), (["--bogus"], 2), ([], 2), (["nosuch"], 2),
    (["check"], 2), (["read", "--help"], 0), (["build", "--nope", "x.fd"], 2),
    (["reference", "a", "b"], 2),
])
def test_figdown_answers_its_command_line_without_an_engine(tmp_path: Path, argv: list[str], code: int) -> None:
    exit_code, modules = loaded(tmp_path, "markmcp.figdown.cli", *argv)
    assert exit_code == code
    assert absent(modules, FIGDOWN_PARSER + FIGDOWN_RENDERER + FIGDOWN_ARTIFACTS + FIGDOWN_DOCS + FILES) == []


def test_figdown_reference_loads_the_reference_alone(tmp_path: Path) -> None:
    exit_code, modules = loaded(tmp_path, "markmcp.figdown.cli", "reference", "block")
    assert exit_code == 0
    assert missing(modules, FIGDOWN_DOCS) == []
    assert absent(modules, FIGDOWN_PARSER + FIGDOWN_RENDERER + FIGDOWN_ARTIFACTS) == []


def test_figdown_read_of_a_document_loads_the_parser_not_the_renderer(tmp_path: Path, figure: Path) -> None:
    exit_code, modules = loaded(tmp_path, "markmcp.figdown.cli", "read", figure.name)
    assert exit_code == 0
    assert missing(modules, FIGDOWN_PARSER + FILES) == []
    assert absent(modules, FIGDOWN_RENDERER + FIGDOWN_ARTIFACTS) == []


def test_figdown_check_and_reading_an_artifact_beside_its_source_load_the_renderer(tmp_path: Path,
                                                                                   figure: Path) -> None:
    exit_code, modules = loaded(tmp_path, "markmcp.figdown.cli", "check", figure.name)
    assert exit_code == 0
    assert missing(modules, FIGDOWN_PARSER + FIGDOWN_RENDERER) == []
    assert loaded(tmp_path, "markmcp.figdown.cli", "build", figure.name)[0] == 0
    exit_code, modules = loaded(tmp_path, "markmcp.figdown.cli", "read", "a.svg")  # a.fd is rebuilt and compared
    assert exit_code == 0
    assert missing(modules, FIGDOWN_RENDERER + FIGDOWN_ARTIFACTS) == []


def test_figdown_read_of_an_artifact_alone_loads_no_renderer(tmp_path: Path, figure: Path) -> None:
    assert loaded(tmp_path, "markmcp.figdown.cli", "build", figure.name)[0] == 0
    (tmp_path / "a.svg").rename(tmp_path / "lone.svg")
    exit_code, modules = loaded(tmp_path, "markmcp.figdown.cli", "read", "lone.svg")
    assert exit_code == 0
    assert missing(modules, FIGDOWN_PARSER + FIGDOWN_ARTIFACTS + ("markmcp.figdown.provenance",)) == []
    assert absent(modules, FIGDOWN_RENDERER) == []


@pytest.mark.parametrize(("argv", "code"), [
    (["--help"], 0), (["--version"], 0), ([], 2), (["chek"], 2), (["check", "--nope", "x.md"], 2),
    (["eval", "a.md", "b.md"], 2), (["check", "--fix-dates", "x.md"], 2),
])
def test_visimark_answers_its_command_line_without_an_engine(tmp_path: Path, argv: list[str], code: int) -> None:
    exit_code, modules = loaded(tmp_path, "markmcp.visimark.cli", *argv)
    assert exit_code == code
    assert absent(modules, VISIMARK_ENGINE + FILES) == []


def test_visimark_check_loads_its_engine(tmp_path: Path) -> None:
    (tmp_path / "plain.md").write_text("# Notes\n\nNothing to compute.\n", encoding="utf-8")
    exit_code, modules = loaded(tmp_path, "markmcp.visimark.cli", "check", "plain.md")
    assert exit_code in (0, 1)
    assert missing(modules, VISIMARK_ENGINE) == []


MRSF_ENGINE = ("markmcp.mrsf.commands", "markmcp.mrsf.ops", "markmcp.mrsf.sidecar", "markmcp.mrsf.git")


@pytest.mark.parametrize(("argv", "code"), [
    (["--help"], 0), (["-V"], 0), ([], 2), (["nosuch"], 2), (["add"], 2), (["validate", "--help"], 0),
    (["reanchor", "--threshold", "2"], 2), (["--cwd"], 2),
])
def test_mrsf_answers_its_command_line_without_an_engine(tmp_path: Path, argv: list[str], code: int) -> None:
    exit_code, modules = loaded(tmp_path, "markmcp.mrsf.cli", *argv)
    assert exit_code == code
    assert absent(modules, MRSF_ENGINE + FILES) == []


def test_mrsf_validate_loads_its_engine(tmp_path: Path) -> None:
    exit_code, modules = loaded(tmp_path, "markmcp.mrsf.cli", "validate")
    assert exit_code == 0  # no sidecars here: nothing to do
    assert missing(modules, MRSF_ENGINE + FILES) == []


CHECK_WORK = ("markmcp.check.command", "markmcp.check.run", "markmcp.check.tree", "markmcp.check.report",
              "concurrent.futures.process")


@pytest.mark.parametrize(("argv", "code"), [
    (["--help"], 0), (["--version"], 0), ([], 2), (["check", "--help"], 0), (["check", "--only", "nope"], 2),
    (["check", "--jobs", "0"], 2), (["nosuch"], 2),
])
def test_markmcp_answers_its_command_line_without_walking(tmp_path: Path, argv: list[str], code: int) -> None:
    exit_code, modules = loaded(tmp_path, "markmcp.check.cli", *argv)
    assert exit_code == code
    assert absent(modules, CHECK_WORK + FILES) == []


def test_markmcp_check_loads_the_walk(tmp_path: Path) -> None:
    (tmp_path / "tree").mkdir()
    exit_code, modules = loaded(tmp_path, "markmcp.check.cli", "check", "--jobs", "1", "--no-progress", "tree")
    assert exit_code == 0
    assert missing(modules, CHECK_WORK) == []
