"""No engine or edge touches a served path except through ``markmcp.mcpcore.files`` (issue 8).

Every call in the listed packages is read from the syntax tree; a call that opens, lists,
inspects or changes the filesystem directly fails the test, unless it is listed in
``ALLOWED`` with the reason it never touches a served file.  Calls on the ``files``
module itself (``files.read_text``, ``files.walk``, ``files.kind_of``...) are the way.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from conftest import ROOT

PACKAGE_ROOT = ROOT / "src" / "markmcp"

#: The packages held to the rule (a folder below src/markmcp).
PACKAGES = ["check", "figdown", "mcpcore", "mrsf", "visimark"]

#: Methods that touch the filesystem whatever object they are called on (Path, a traversable...).
PATH_METHODS = frozenset({
    "open", "read_text", "read_bytes", "write_text", "write_bytes", "iterdir", "glob", "rglob", "walk",
    "unlink", "rmdir", "mkdir", "touch", "symlink_to", "hardlink_to", "chmod", "is_file", "is_dir",
    "exists", "stat", "lstat", "samefile",
})
#: Functions of these modules that touch the filesystem.
MODULE_FUNCTIONS = {
    "os": frozenset({"open", "fdopen", "scandir", "listdir", "walk", "fwalk", "remove", "unlink", "rename",
                     "replace", "mkdir", "makedirs", "rmdir", "removedirs", "stat", "lstat", "mkfifo",
                     "symlink", "link", "chmod", "truncate"}),
    "os.path": frozenset({"exists", "lexists", "isfile", "isdir", "islink", "getsize"}),
    "shutil": frozenset({"copy", "copy2", "copyfile", "copytree", "move", "rmtree"}),
    "io": frozenset({"open", "FileIO"}),
}
#: (file below src/markmcp, call as written) -> why it is not a served path.
ALLOWED = {
    ("cmdline.py", "os.open"): "opens os.devnull to silence stdout after the reader left (broken pipe)",
    ("figdown/docs/__init__.py", "resources.files(__name__).joinpath(name).read_text"):
        "our own reference pages, shipped inside the package",
    ("figdown/docs/__init__.py", "resources.files(__name__).iterdir"):
        "lists our own reference pages, shipped inside the package",
    ("mrsf/docs/__init__.py", "resources.files(__name__).joinpath(name).read_text"):
        "our own review skill, shipped inside the package",
    ("visimark/docs/__init__.py", "resources.files(__name__).joinpath(name).read_text"):
        "our own reference pages, shipped inside the package",
    ("visimark/docs/__init__.py", "resources.files(__name__).iterdir"):
        "lists our own reference pages, shipped inside the package",
    ("visimark/docs/__main__.py", "target.write_text"):
        "the developer's regeneration of our own served skill, inside the package",
    ("visimark/disk.py", "guarded.read_bytes"): "is markmcp.mcpcore.files.read_bytes (imported as `guarded`)",
    ("mcpcore/files.py", "*"): "the guarded layer itself",
    ("mcpcore/lines.py", "os.fdopen"): "the server's own stdin and stdout (the protocol stream)",
    ("mcpcore/lines.py", "os.open"): "opens os.devnull to put in place of stdin",
    ("mcpcore/spec.py", "cwd.is_dir"): "checks the operator's own --cwd option at start-up",
    ("mcpcore/spec.py", "path.is_dir"): "checks the operator's own --root options at start-up",
    ("mrsf/ops.py", "os.stat"): "reads the permission bits of a sidecar already read through files, for its renamed copy",
}


def stray_calls(path: Path, root: Path = PACKAGE_ROOT) -> list[str]:
    """``file:line: call`` of each direct filesystem call in the file at ``path`` (named from ``root``)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id == "open":
            found.append((node.lineno, node.col_offset, "open"))
        elif isinstance(func, ast.Attribute):
            owner = ast.unparse(func.value)
            if owner == "files":
                continue  # the guarded layer
            if owner in MODULE_FUNCTIONS:
                if func.attr in MODULE_FUNCTIONS[owner]:
                    found.append((node.lineno, node.col_offset, ast.unparse(func)))
            elif func.attr in PATH_METHODS:
                found.append((node.lineno, node.col_offset, ast.unparse(func)))
    rel = path.relative_to(root).as_posix()
    if (rel, "*") in ALLOWED:
        return []
    return [f"{rel}:{line}: {call}" for line, _, call in sorted(found) if (rel, call) not in ALLOWED]


@pytest.mark.parametrize("package", PACKAGES)
def test_served_files_are_touched_only_through_mcpcore_files(package: str) -> None:
    sources = sorted((PACKAGE_ROOT / package).rglob("*.py"))
    assert sources, f"no sources found for {package}"
    stray = [call for source in sources for call in stray_calls(source)]
    assert stray == [], "direct filesystem calls (use markmcp.mcpcore.files):\n" + "\n".join(stray)


def test_the_check_catches_what_it_is_meant_to(tmp_path: Path) -> None:
    """The scanner itself: each way of touching a file is caught; the guarded calls are not."""
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import os, shutil\n"
        "from pathlib import Path\n"
        "from markmcp.mcpcore import files\n"
        "open('x')\n"
        "Path('x').read_bytes()\n"
        "os.scandir('.')\n"
        "os.path.isdir('x')\n"
        "shutil.rmtree('x')\n"
        "path = Path('x'); path.is_file()\n"
        "files.read_text('x'); files.walk('.', accept=bool); files.kind_of('x')\n"
        "'a'.replace('a', 'b'); ''.join([])\n",
        encoding="utf-8",
    )
    calls = [entry.split(": ", 1)[1] for entry in stray_calls(sample, root=tmp_path)]
    assert calls == ["open", "Path('x').read_bytes", "os.scandir", "os.path.isdir", "shutil.rmtree", "path.is_file"]

