"""The file port: how the engine reaches the files a document names, without opening any.

A document may name two kinds of file beside itself: chart artifacts it owns (written
by ``fmt``, compared by ``check``) and CSV inputs it imports (read, never written).
The engine asks a :class:`Files` object for their bytes and hands it bytes to write;
the edge (CLI, MCP server) supplies the object, confined to the document's folder
(:mod:`markmcp.visimark.disk`).  Tests supply :class:`MemoryFiles`.

Paths reach a port only after the engine's own gate (relative, no scheme or drive, no
control characters or device names, the right extension); the port adds what needs
the filesystem: containment after symlinks, regular files only, a size cap.
"""

from __future__ import annotations

import posixpath
from typing import Protocol


class PortError(Exception):
    """A file the port will not or cannot use.

    ``code`` is ``outside`` (it resolves out of the document's folder, through ``..``
    or a symlink), ``not-found``, ``not-regular``, ``too-large``, ``symlink`` or
    ``io-error``; ``message`` names the file and the reason.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class Files(Protocol):
    """Files relative to one document's folder."""

    def read(self, rel: str) -> bytes | None:
        """The file's bytes; None when nothing is there; PortError when it may not be read."""

    def write(self, rel: str, data: bytes) -> None:
        """Create or replace the file (and its missing folders); PortError on refusal."""


class MemoryFiles:
    """A document folder held in memory: ``{relative path: bytes}``.

    Paths are normalised the way a filesystem would resolve them; one that climbs out
    of the folder is ``outside``.  ``writes`` records every write in order.
    """

    def __init__(self, files: dict[str, bytes] | None = None) -> None:
        self.files: dict[str, bytes] = dict(files or {})
        self.writes: list[str] = []

    @staticmethod
    def key(rel: str) -> str:
        norm = posixpath.normpath(rel.replace("\\", "/"))
        if norm == ".." or norm.startswith("../") or norm.startswith("/"):
            raise PortError("outside", f"{rel} is outside the document's folder")
        return norm

    def read(self, rel: str) -> bytes | None:
        return self.files.get(self.key(rel))

    def write(self, rel: str, data: bytes) -> None:
        key = self.key(rel)
        self.files[key] = bytes(data)
        self.writes.append(key)


class ReadOnce:
    """A port that reads each file once and then answers from memory, for a run that reads
    the same files many times (``fmt`` checks up to MAX_PASSES times, ``simulate`` once a
    question; a CSV or an SVG does not change in between).  A write goes through to
    ``files`` and is what a later read gets, or is refused when ``read_only``."""

    def __init__(self, files: Files, read_only: bool = False, doing: str = "this run") -> None:
        self.files = files
        self.read_only = read_only
        self.doing = doing
        self.cache: dict[str, bytes | None] = {}

    def read(self, rel: str) -> bytes | None:
        if rel not in self.cache:
            self.cache[rel] = self.files.read(rel)
        return self.cache[rel]

    def write(self, rel: str, data: bytes) -> None:
        if self.read_only:
            raise PortError("io-error", f"{rel}: {self.doing} writes nothing")
        self.files.write(rel, data)
        self.cache[rel] = bytes(data)


# --------------------------------------------------------------- the path gate

DEVICE_NAMES = frozenset({"con", "prn", "aux", "nul"} | {f"com{i}" for i in range(1, 10)}
                         | {f"lpt{i}" for i in range(1, 10)})


def gate(path: str, what: str, extension: str) -> str | None:
    """Why a path a document names may not be used (``what`` is ``artifact path`` or
    ``imported file path``), or None.  Every rule is a refusal, never a repair."""
    if not path:
        return f"{what} is empty"
    if any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in path):
        return f"{what} contains a control character"
    if len(path) >= 2 and path[0].isascii() and path[0].isalpha() and path[1] == ":":
        return f"{what} must be relative, not a drive letter"
    head = path.split(":", 1)[0] if ":" in path else ""
    if head and head[0].isascii() and head[0].isalpha() and all(
            ch.isascii() and (ch.isalnum() or ch in "+.-") for ch in head):
        return f"{what} must be a relative path, not a URL"
    if path.startswith(("/", "\\")):
        return f"{what} must be relative"
    if not path.endswith(extension):
        return f"{what} must end in `{extension}`"
    for segment in path.replace("\\", "/").split("/"):
        if segment.split(".", 1)[0].lower() in DEVICE_NAMES:
            return f"{what} uses a reserved device name `{segment}`"
    norm = posixpath.normpath(path.replace("\\", "/"))
    if norm == ".." or norm.startswith("../") or norm == ".":
        return f"{what} escapes the document's directory"
    return None


def port_problem(error: PortError, what: str, path: str) -> str:
    """The finding message for a port refusal of ``path``, which passed :func:`gate`."""
    if error.code == "outside":
        return f"{what} `{path}` resolves through a symlink out of the document's directory"
    return error.message
