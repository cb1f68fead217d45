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


def test_no_two_modules_import_each_other_even_around_a_loop():
    """The README's promise: each package reads bottom-up.  Every import counts (module
    level, under TYPE_CHECKING, inside functions); a package's ``__init__`` only hands
    names on, so it is no step of a loop."""
    src = ROOT / "src"
    graph: dict[str, set[str]] = {}
    for path in sorted((src / "markmcp").rglob("*.py")):
        if path.name == "__init__.py":
            continue
        name = ".".join(path.relative_to(src).with_suffix("").parts)
        graph[name] = {used for used in _imported_modules(path)
                       if used != name and (src / (used.replace(".", "/") + ".py")).is_file()}
    state: dict[str, int] = {}   # 1: on the current path, 2: done
    for start in graph:
        stack = [(start, iter(sorted(graph[start])))]
        path = [start]
        state[start] = state.get(start, 0) or 1
        if state[start] == 2:
            continue
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                state[node] = 2
                stack.pop()
                path.pop()
                continue
            assert state.get(child) != 1, " -> ".join([*path[path.index(child):], child])
            if state.get(child) is None:
                state[child] = 1
                path.append(child)
                stack.append((child, iter(sorted(graph.get(child, ())))))
    assert len(graph) > 150
