"""The engine's core never touches the filesystem: only the edges do (the CLI, the MCP
server, the file port over mcpcore.files that both hand to the engine, and documents.py,
through which both read and write the document itself)."""

from __future__ import annotations

import ast
from pathlib import Path

import markmcp.visimark as package

EDGES = {"cli.py", "server.py", "disk.py", "documents.py"}
FILE_METHODS = {"open", "read_text", "read_bytes", "write_text", "write_bytes", "iterdir", "mkdir", "touch", "glob",
                "rglob"}
FILE_MODULES = {"os", "shutil", "pathlib", "tempfile", "glob"}


def test_core_modules_never_touch_files() -> None:
    root = Path(package.__file__).parent
    offenders = []
    for path in sorted(root.glob("*.py")):
        if path.name in EDGES:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                f = node.func
                if isinstance(f, ast.Name) and f.id == "open":
                    offenders.append(f"{path.name}:{node.lineno} open()")
                if isinstance(f, ast.Attribute) and (f.attr in FILE_METHODS or (
                        isinstance(f.value, ast.Name) and f.value.id in FILE_MODULES | {"Path"})):
                    offenders.append(f"{path.name}:{node.lineno} .{f.attr}()")
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
                offenders += [f"{path.name}:{node.lineno} import {n}" for n in names
                              if n.split(".")[0] in FILE_MODULES]
    assert offenders == []


def test_the_file_port_is_the_only_way_out() -> None:
    root = Path(package.__file__).parent
    users = sorted(p.name for p in root.glob("*.py") if "mcpcore" in p.read_text(encoding="utf-8")
                   and p.name not in EDGES)
    assert users == []
