"""The distribution's metadata agrees with the package."""

import importlib
import tomllib
from importlib import metadata

import pytest

import markmcp
from conftest import ROOT

SCRIPTS = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]


def test_version_matches_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert markmcp.__version__ == project["version"]
    assert metadata.version("markmcp") == project["version"]


def _imported_modules(path):
    """Every module a source file imports (absolute names; relative ones resolved)."""
    import ast

    package = "markmcp." + path.parent.relative_to(ROOT / "src" / "markmcp").as_posix().replace("/", ".")
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base]) if base else ".".join(parts)
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


def test_edges_never_import_each_other():
    """A tool's CLI and its MCP server share helpers through the package, not through each other."""
    edges = sorted((ROOT / "src" / "markmcp").glob("*/server.py")) + sorted((ROOT / "src" / "markmcp").glob("*/cli.py"))
    assert len(edges) >= 5
    for edge in edges:
        other = "cli" if edge.stem == "server" else "server"
        sibling = f"markmcp.{edge.parent.name}.{other}"
        assert sibling not in _imported_modules(edge), f"{edge.relative_to(ROOT)} imports {sibling}"


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_every_command_prints_its_version(script, capsys):
    """``<command> --version`` prints ``<command> <package version>`` on stdout and exits 0."""
    module, function = SCRIPTS[script].split(":")
    main = getattr(importlib.import_module(module), function)
    assert main(["--version"]) == 0
    captured = capsys.readouterr()
    assert captured.out == f"{script} {markmcp.__version__}\n"
    assert captured.err == ""


def test_the_long_test_files_named_to_run_first_exist() -> None:
    """A renamed long file would silently lose its place at the front of the run."""
    from conftest import LONG_FIRST, ROOT

    assert [name for name in LONG_FIRST if not (ROOT / name).is_file()] == []
