"""FigDown: figures as text.

The language engine is pure (text in, results out)::

    from markmcp.figdown import parse, model_json
    result = parse(source)
    if result.diagnostics:      # [(line, message), ...]
        ...
    else:
        print(model_json(result))   # canonical §12 model JSON
    result.section_starts           # document line where each section begins

``GENRES`` and ``VERSIONS`` are the header values the engine accepts.

Modules: :mod:`.lexer` (lines, comments, tokens), :mod:`.header`,
:mod:`.options` (the closed option registry), :mod:`.vocabulary` (per-genre
keywords), :mod:`.connector` (edge grammar), :mod:`.genres` (directive
rules), :mod:`.reference` (the whole-section post-pass), :mod:`.model`
(canonical JSON), :mod:`.parser` (sections and the statement loop).

Drawing is :mod:`markmcp.figdown.render` (``build(source)`` → the deterministic,
self-carrying SVG; ``read_artifact(svg)`` → its embedded source).

The names below are loaded on first use (PEP 562): importing a submodule that does not
need the parser (``markmcp.figdown.sources``, or ``markmcp.figdown.server`` on its way to
answering ``initialize``) does not pay for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = ["GENRES", "VERSIONS", "ParseResult", "model_json", "parse"]

if TYPE_CHECKING:
    from .parser import ParseResult, model_json, parse

    #: The header versions the engine accepts, oldest first.
    VERSIONS: tuple[str, ...]
    #: Every genre the engine accepts (under the newest version), in the order the
    #: header's "(block|topology|…)" listing names them.
    GENRES: tuple[str, ...]


def __getattr__(name: str) -> Any:
    if name in ("ParseResult", "model_json", "parse"):
        from . import parser

        value = getattr(parser, name)
    elif name in ("VERSIONS", "GENRES"):
        from .vocabulary import GENRES_BY_VERSION, LANG_VERSIONS

        value = LANG_VERSIONS if name == "VERSIONS" else GENRES_BY_VERSION[LANG_VERSIONS[-1]]
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value
