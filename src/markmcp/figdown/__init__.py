"""FigDown: figures as text.

The language engine is pure (text in, results out)::

    from markmcp.figdown import parse, model_json
    result = parse(source)
    if result.diagnostics:      # [(line, message), ...]
        ...
    else:
        print(model_json(result))   # canonical §12 model JSON

Modules: :mod:`.lexer` (lines, comments, tokens), :mod:`.header`,
:mod:`.options` (the closed option registry), :mod:`.vocabulary` (per-genre
keywords), :mod:`.connector` (edge grammar), :mod:`.genres` (directive
rules), :mod:`.reference` (the whole-section post-pass), :mod:`.model`
(canonical JSON), :mod:`.parser` (sections and the statement loop).
"""

from .parser import ParseResult, model_json, parse

__all__ = ["ParseResult", "model_json", "parse"]
