"""How the VisiMark edges (the CLI and the MCP server) read and write served files.

Everything goes through :mod:`markmcp.mcpcore.files`: a read refuses a FIFO, a device
or a directory before anything could block and refuses a file over the shared size
limit unread; a write replaces the file through an exclusively created temporary file
beside it, keeps its permission bits, and writes a symlinked document at its target
(the link stays a link).  Failures become :class:`DocumentError` with the envelope's
error code (``READ``, ``WRITE``, ``SCENARIO``) and a one-line ``visimark: …`` message.
"""

from __future__ import annotations

import os
from pathlib import Path

from markmcp.mcpcore import files
from markmcp.mcpcore.files import FileAccessError, Places, shown


class DocumentError(Exception):
    """A file the command could not use; ``code`` is the envelope's error code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def reason(error: FileAccessError, label: str | os.PathLike[str]) -> str:
    """The part of a file-access message after the path it names."""
    text = error.message
    name = shown(label)
    if text.startswith(name):
        text = text[len(name):].lstrip(":").strip()
        if text.startswith("is "):
            text = text[3:]
        elif text.startswith("cannot read: "):   # the caller's message says "cannot read" already
            text = text[len("cannot read: "):]
    return text


def read_document(path: str | os.PathLike[str], *, places: Places | None = None,
                  label: str | os.PathLike[str] | None = None, what: str = "document",
                  code: str = "READ") -> str:
    """The UTF-8 text of the file at ``path`` (its line ends untouched)."""
    name = label if label is not None else path
    try:
        return files.read_text(path, places=places, what=what, label=name)
    except FileAccessError as error:
        raise DocumentError(code, f"visimark: cannot read {shown(name)} ({reason(error, name)})") from None


def read_stream(stream, *, what: str = "scenario", code: str = "SCENARIO",
                limit: int = files.MAX_FILE_BYTES) -> str:
    """A text stream (stdin) read up to the shared size limit."""
    text = stream.read(limit + 1)
    if len(text.encode("utf-8", "surrogatepass")) > limit:
        raise DocumentError(code, f"visimark: the {what} on stdin is over the {limit}-byte limit; it was not read")
    return text


def write_document(path: str | os.PathLike[str], text: str, *, places: Places | None = None,
                   label: str | os.PathLike[str] | None = None) -> Path:
    """Replace the document at ``path`` with ``text`` atomically; returns the file written."""
    name = label if label is not None else path
    try:
        return files.write_atomic(path, text.encode("utf-8"), places=places, follow=True)
    except FileAccessError as error:
        raise DocumentError("WRITE", f"visimark: cannot write {shown(name)} ({reason(error, name)})") from None
