"""Where FigDown documents come from: finding them below a folder and reading them.

Shared by both edges (``figdown`` and ``figdown-mcp``); neither edge imports the other.
"""

from __future__ import annotations

import os
from pathlib import Path

SKIPPED_DIRS = frozenset({".git", "node_modules"})
SUFFIX = ".fd"


class SourceError(Exception):
    """A path that cannot be read as a FigDown document (missing, unreadable, not UTF-8)."""


def shown(path: str | os.PathLike[str]) -> str:
    """A path as text any output can carry: file-name bytes that are not UTF-8 (which Python
    keeps as lone surrogates) appear as ``\\xNN`` instead of breaking the JSON or the terminal."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def decode(data: bytes, label: str) -> str:
    """The UTF-8 text of a document; :class:`SourceError` naming ``label`` and the byte otherwise."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise SourceError(f"{label} is not UTF-8 text: byte 0x{data[error.start]:02x} on line {line}") from None


def _name_order(name: str) -> bytes:
    """Names compared by UTF-16 code units, the order the reference tools sort a listing in."""
    return name.encode("utf-16-be", "surrogatepass")


def _listing(directory: Path) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(directory) as scan:
            return sorted(scan, key=lambda entry: _name_order(entry.name))
    except OSError as error:
        raise SourceError(f"cannot read directory {shown(directory)}: {error.strerror or error}") from None


def walk(directory: Path) -> list[Path]:
    """Every ``*.fd`` file below ``directory``, in the reference tools' order: a directory's
    entries sorted by name, and a subdirectory walked where its name falls (``a.fd``,
    ``b/x.fd``, ``c.fd``); ``.git`` and ``node_modules`` skipped.  Symlinked directories are
    not followed (no cycles); an explicit stack instead of recursion."""
    found: list[Path] = []
    stack = [iter(_listing(directory))]
    while stack:
        entry = next(stack[-1], None)
        if entry is None:
            stack.pop()
        elif entry.is_dir(follow_symlinks=False):
            if entry.name not in SKIPPED_DIRS:
                stack.append(iter(_listing(Path(entry.path))))
        elif entry.name.endswith(SUFFIX) and entry.is_file():
            found.append(Path(entry.path))
    return found


def read_document(path: Path) -> str:
    """The text of one document (UTF-8); :class:`SourceError` naming the path otherwise."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise SourceError(f"no such file: {shown(path)}") from None
    except IsADirectoryError:
        raise SourceError(f"{shown(path)} is a directory") from None
    except OSError as error:
        raise SourceError(f"cannot read {shown(path)}: {error.strerror or error}") from None
    return decode(data, shown(path))
