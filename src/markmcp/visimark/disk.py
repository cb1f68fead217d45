"""The file port on disk: a document's folder, through :mod:`markmcp.mcpcore.files`.

Every path a document names (a chart's SVG, an imported CSV) is taken relative to the
folder the document is in, resolved with symlinks followed, and must stay inside that
folder.  Reads refuse FIFOs, devices and folders before opening anything and stop at
the size cap; writes go through an exclusive temporary file and an atomic rename, never
through a symlink, creating missing sub-folders inside the document's folder.

This is an edge module (the CLI and the MCP server both use it); the engine only sees
the :class:`~markmcp.visimark.port.Files` protocol.
"""

from __future__ import annotations

import os
from pathlib import Path

from markmcp.mcpcore import files as guarded

from .port import PortError

SIDE_FILE_LIMIT = guarded.MAX_FILE_BYTES


class DocumentFolder:
    """The files beside one document (``doc_path`` is the document as the user named it)."""

    def __init__(self, doc_path: str | os.PathLike[str]) -> None:
        self.base = Path(os.path.realpath(os.path.dirname(os.path.abspath(os.fspath(doc_path)))))
        self.places = guarded.Places.of([self.base])

    def _target(self, rel: str) -> Path:
        try:
            return self.places.resolve(rel, self.base)
        except guarded.FileAccessError as e:
            raise PortError(e.code, e.message) from None

    def read(self, rel: str) -> bytes | None:
        target = self._target(rel)
        if guarded.kind_of(target) is None:
            return None
        try:
            return guarded.read_bytes(target, places=self.places, limit=SIDE_FILE_LIMIT, label=rel)
        except guarded.FileAccessError as e:
            if e.code == "not-found":
                return None
            raise PortError(e.code, e.message) from None

    def write(self, rel: str, data: bytes) -> None:
        lexical = self.base / rel
        try:
            guarded.make_folders(lexical.parent, places=self.places)
            guarded.write_atomic(lexical, data, places=self.places, follow=False)
        except guarded.FileAccessError as e:
            raise PortError(e.code, e.message) from None
