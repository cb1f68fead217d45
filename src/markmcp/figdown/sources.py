"""Where FigDown documents come from: found below a folder, read from a file, from a
stream (standard input) or given inline.

Shared by both edges (``figdown`` and ``figdown-mcp``); neither edge imports the other.
Every read goes through :mod:`markmcp.mcpcore.files`: regular files only (a FIFO or a
device is refused before anything could block), at most :data:`LIMIT` bytes, strict
UTF-8, and, when ``places`` are given, nowhere outside them (symlinks resolved).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from markmcp.figdown.artifact_paths import is_svg_name
from markmcp.mcpcore import files
from markmcp.mcpcore.files import FileAccessError, Places

SKIPPED_DIRS = frozenset({".git", "node_modules"})
SUFFIX = ".fd"
LIMIT = files.MAX_FILE_BYTES
"""The size limit of every document: a file, a walked file, standard input, an inline source."""

WHAT = "document"


def shown(path: str | os.PathLike[str]) -> str:
    """A path as a label any output can carry: file-name bytes that are not UTF-8 (which
    Python keeps as lone surrogates) appear as ``\\xNN``; nothing else changes (JSON output
    keeps it exact, human output escapes control characters when it prints it)."""
    return files.name_text(path)


def cwd_label(path: Path) -> str:
    """A path as the user will recognise it: relative to the working directory when below it."""
    try:
        return shown(path.relative_to(Path.cwd()))
    except ValueError:
        return shown(path)


def is_document(name: str) -> bool:
    """Whether a walk looks at a file of this name."""
    return name.endswith(SUFFIX)


def read_document(path: str | os.PathLike[str], *, places: Places | None = None, label: str | None = None) -> str:
    """The text of the document at ``path``: a regular file of at most :data:`LIMIT` bytes,
    UTF-8, inside ``places`` when given; :class:`FileAccessError` naming it as ``label``."""
    return files.read_text(path, places=places, limit=LIMIT, what=WHAT, label=label)


def read_named(path: str | os.PathLike[str], *, places: Places | None = None, label: str | None = None) -> str:
    """:func:`read_document` for a document named on its own (not found in a walk): a
    name ending in ``.svg`` is refused first, since an artifact read as FigDown gives
    nothing but noise (``<svg`` is not a keyword ...); its source is read back instead."""
    if is_svg_name(str(path)):
        shown_as = label or files.shown(str(path))
        raise FileAccessError("invalid-path", f"{shown_as} is an SVG, not a FigDown document: name the .fd it "
                              "was built from (read gives back an artifact's source)", shown_as)
    return read_document(path, places=places, label=label)


def read_stream(stream: BinaryIO, label: str) -> str:
    """A document from a stream (standard input): at most :data:`LIMIT` bytes are taken,
    so an endless stream (``< /dev/zero``) is refused instead of filling memory."""
    chunks: list[bytes] = []
    total = 0
    while total <= LIMIT:
        chunk = stream.read(min(files.CHUNK, LIMIT + 1 - total))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    if total > LIMIT:
        raise FileAccessError(
            "too-large", f"{label}: the {WHAT} is over the {LIMIT}-byte limit; the rest was not read", label
        )
    return files.decode_utf8(b"".join(chunks), label, WHAT)


def check_inline(text: str, label: str) -> str:
    """An inline document (``source``), refused over :data:`LIMIT` bytes of UTF-8 like a file."""
    if len(text) > LIMIT // 4:  # four UTF-8 bytes per character at most: shorter texts fit unmeasured
        size = len(text.encode("utf-8", "surrogatepass"))
        if size > LIMIT:
            raise FileAccessError(
                "too-large", f"{label}: the {WHAT} is {size} bytes, over the {LIMIT}-byte limit; it was not parsed",
                label,
            )
    return text


@dataclass(frozen=True)
class Source:
    """One document a walk found (at ``path``): its ``text``, or the ``problem`` that kept it unread."""

    label: str
    text: str | None = None
    problem: FileAccessError | None = None
    path: Path | None = None


def documents_below(
    folder: Path,
    *,
    places: Places | None = None,
    label: Callable[[Path], str] = shown,
) -> Iterator[Source]:
    """Every ``*.fd`` below ``folder``, read one at a time, in the reference tools' order
    (a folder's entries by UTF-16 name order, a subfolder walked where its name falls;
    ``.git`` and ``node_modules`` left out).

    Nothing that leaves ``places`` (default: ``folder`` itself) is read: a symlink leading
    out, a FIFO, a device, a file over the limit or one that is not UTF-8 comes back as a
    :class:`Source` with its ``problem``, and the walk goes on.  Symlinked folders are not
    entered.  A ``folder`` that cannot be listed at all raises :class:`FileAccessError`.
    """
    allowed = places if places is not None else Places.of([folder])
    for found in files.walk(folder, accept=is_document, places=allowed, skip_dirs=SKIPPED_DIRS):
        name = label(found.path)
        if found.problem is not None:
            yield Source(name, problem=_relabelled(found.problem, found.path, name), path=found.path)
            continue
        try:
            yield Source(name, text=read_document(found.path, places=allowed, label=name), path=found.path)
        except FileAccessError as error:
            yield Source(name, problem=error, path=found.path)


def _relabelled(problem: FileAccessError, path: Path, label: str) -> FileAccessError:
    """The walk names a file by its full path; the report names it by its label."""
    full, short = files.shown(path), files.shown(label)
    if full == short:
        return problem
    return FileAccessError(problem.code, problem.message.replace(full, short), problem.path)
