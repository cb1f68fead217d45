"""No stray file access: served files are opened, walked, written, locked and deleted only
through ``markmcp.mcpcore.files``.

The source of each package listed in :data:`PACKAGES` is parsed and every call that
touches the file system directly is reported: ``open(...)``, ``os.replace``,
``os.unlink``, ``os.walk``..., ``shutil.*``, ``fcntl.*``, and the ``pathlib`` methods
``read_text``, ``write_bytes``, ``unlink``, ``mkdir``, ``iterdir``...  Calls on the
``files`` module itself (``files.read_bytes(...)``) and names imported from it are the
sanctioned way.  :data:`ALLOWED` lists the few direct calls that never touch a served
path, each with its reason.

A package joins the check when its edges go through the shared layer: add it to
:data:`PACKAGES`.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src" / "markmcp"

PACKAGES = ("mcpcore", "mrsf")
"""Packages whose every file access is checked (the others join as they move to the shared layer)."""

SHARED_LAYER = "mcpcore/files.py"

#: (file, text of the call) -> why it is not a served path.
ALLOWED = {
    ("mcpcore/stdio.py", "os.fdopen(os.dup(0), 'rb')"): "the server's own stdin (the protocol stream)",
    ("mcpcore/stdio.py", "os.fdopen(os.dup(1), 'wb')"): "the server's own stdout (the protocol stream)",
    ("mcpcore/stdio.py", "os.open(os.devnull, os.O_RDONLY)"): "/dev/null put in place of stdin",
}

#: Receivers whose calls are not file-system calls of the same name.
ENGINE_APIS = {"files", "ops"}
#: Modules whose every function touches the file system.
FILE_MODULES = {"shutil", "fcntl", "tempfile", "glob"}
#: Functions of ``os`` and ``io`` that open, write, list, create or delete.
OS_CALLS = {
    "open", "fdopen", "replace", "rename", "renames", "unlink", "remove", "rmdir", "removedirs", "mkdir",
    "makedirs", "walk", "fwalk", "listdir", "scandir", "chmod", "lchmod", "chown", "lchown", "link", "symlink",
    "truncate", "mkfifo", "mknod", "utime",
}
#: ``pathlib.Path`` methods that open, write, list, create or delete.
PATH_METHODS = {
    "open", "read_bytes", "read_text", "write_bytes", "write_text", "unlink", "mkdir", "rmdir", "touch",
    "iterdir", "glob", "rglob", "chmod", "lchmod", "symlink_to", "hardlink_to", "rename",
}


def direct_file_access(source: str) -> list[tuple[int, str]]:
    """(line, call text) of every call in ``source`` that touches files directly."""
    tree = ast.parse(source)
    from_files: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module in ("markmcp.mcpcore.files",) or (
            isinstance(node, ast.ImportFrom) and node.module == "files"
        ):
            from_files.update(alias.asname or alias.name for alias in node.names)
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        flagged = False
        if isinstance(func, ast.Name):
            flagged = func.id == "open" and "open" not in from_files
        elif isinstance(func, ast.Attribute):
            receiver = func.value.id if isinstance(func.value, ast.Name) else None
            if receiver in ENGINE_APIS:
                continue  # the shared layer itself, or an engine API of the same name (ops.rename)
            if receiver in FILE_MODULES:
                flagged = True
            elif receiver in ("os", "io"):
                flagged = func.attr in OS_CALLS
            else:
                flagged = func.attr in PATH_METHODS
        if flagged:
            found.append((node.lineno, ast.unparse(node)))
    return found


def test_the_checker_finds_what_it_must() -> None:
    sample = (
        "import os, shutil\nfrom pathlib import Path\nfrom markmcp.mcpcore import files\n"
        "from markmcp.mcpcore.files import read_bytes\n"
        "open('x')\nPath('x').read_text()\nos.replace('a', 'b')\nshutil.copy('a', 'b')\np.unlink()\n"
        "files.read_bytes('x')\nread_bytes('x')\n'a'.replace('a', 'b')\nos.path.exists('x')\nops.rename('a', 'b')\n"
    )
    assert [line for line, _ in direct_file_access(sample)] == [5, 6, 7, 8, 9]


@pytest.mark.parametrize("package", PACKAGES)
def test_no_stray_file_access(package: str) -> None:
    stray = []
    for path in sorted((SRC / package).rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        if rel == SHARED_LAYER:
            continue
        for line, call in direct_file_access(path.read_text(encoding="utf-8")):
            if (rel, call) not in ALLOWED:
                stray.append(f"{rel}:{line}: {call}")
    assert stray == [], "file access outside markmcp.mcpcore.files:\n" + "\n".join(stray)


def test_every_allowance_is_still_needed() -> None:
    for (rel, call), reason in ALLOWED.items():
        calls = {text for _, text in direct_file_access((SRC / rel).read_text(encoding="utf-8"))}
        assert call in calls, f"{rel}: {call} ({reason}) is gone: remove it from ALLOWED"
