"""Where a built figure lives and how its path is recognised: ``X.svg`` beside ``X.fd``,
an ``.svg`` name or markup text, and reading an ``.svg`` a reader named.

No engine here: ``figdown read`` of a ``.fd`` tells it is not an artifact without loading
the renderer.  Building, replacing and reading an artifact back are in :mod:`.artifacts`,
which offers these names too.
"""

from __future__ import annotations

import os
from pathlib import Path

from markmcp.mcpcore import files
from markmcp.mcpcore.files import Places

SOURCE_SUFFIX = ".fd"
ARTIFACT_SUFFIX = ".svg"

ARTIFACT_LIMIT = 8 * files.MAX_FILE_BYTES
"""The largest SVG read back (a 10 MiB source draws an artifact larger than itself)."""


def artifact_for(document: str | os.PathLike[str]) -> Path:
    """``X.svg`` beside ``X.fd`` (a name without ``.fd`` gets ``.svg`` appended)."""
    path = Path(document)
    name = path.name
    stem = name[: -len(SOURCE_SUFFIX)] if name.endswith(SOURCE_SUFFIX) and name != SOURCE_SUFFIX else name
    return path.with_name(stem + ARTIFACT_SUFFIX)


def source_for(artifact: str | os.PathLike[str]) -> Path | None:
    """``X.fd`` beside ``X.svg``; None when the name does not end in ``.svg``."""
    path = Path(artifact)
    if not is_svg_name(path.name) or path.name.lower() == ARTIFACT_SUFFIX:
        return None
    return path.with_name(path.name[: -len(ARTIFACT_SUFFIX)] + SOURCE_SUFFIX)


def is_svg_name(name: str) -> bool:
    return name.lower().endswith(ARTIFACT_SUFFIX)


def looks_like_svg(text: str) -> bool:
    """Is ``text`` markup rather than FigDown?  (No FigDown document begins with ``<``:
    a comment is ``#`` and every statement begins with a word.)"""
    return text.lstrip("\ufeff \t\r\n").startswith("<")


def read_svg(path: str | os.PathLike[str], *, places: Places | None = None,
             label: str | os.PathLike[str] | None = None) -> str:
    """The text of an ``.svg`` a reader named (symlinks followed, as for any named file;
    confined to ``places`` when given)."""
    return files.read_text(path, places=places, limit=ARTIFACT_LIMIT, what="SVG", label=label)
