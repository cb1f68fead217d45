"""``figdown read``: the §12 model JSON of one document, or of an SVG FigDown built.

Loads the parser; the renderer only for an SVG (the artifact format is part of it).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import BinaryIO, TextIO

from markmcp.figdown import model_json, parse
from markmcp.figdown.artifact_paths import is_svg_name, looks_like_svg, read_svg, source_for
from markmcp.figdown.commands import PROG, STDIN, STDIN_LABEL, CommandError
from markmcp.figdown.report import diagnostics, hints, parse_failed
from markmcp.figdown.sources import read_document, read_stream, shown
from markmcp.mcpcore import files
from markmcp.mcpcore.files import FileAccessError
from markmcp.textsafe import escape_controls

REFUSED = (FileAccessError, CommandError)


def run(options: argparse.Namespace, out: TextIO, err: TextIO, stdin: BinaryIO) -> int:
    sidecar = None
    if options.path == STDIN:
        label, text = STDIN_LABEL, read_stream(stdin, STDIN_LABEL)
    else:
        label = shown(options.path)
        if files.kind_of(options.path) == "dir":
            raise CommandError(f"{files.shown(options.path)} is a directory (read takes one document)")
        if is_svg_name(options.path):
            text = read_svg(options.path, label=label)
            sidecar = source_for(options.path)
        else:
            text = read_document(options.path, label=label)
    if is_svg_name(label) or looks_like_svg(text):
        text = embedded_source(text, label, sidecar, err)
    result = parse(text)
    if result.diagnostics:
        items = diagnostics(result)
        err.write(parse_failed(label, items, hints(text, items)) + "\n")
        return 1
    out.write(model_json(result))
    return 0


def embedded_source(svg: str, label: str, sidecar: Path | None, err: TextIO) -> str:
    """The FigDown source an artifact carries, its notes told on ``err``; :class:`CommandError`
    when ``svg`` is not an artifact.  The renderer is loaded only to rebuild a ``.fd`` found
    beside it."""
    from markmcp.figdown import artifacts
    from markmcp.figdown.provenance import NotAnArtifact

    try:
        back = artifacts.read_back(svg, sidecar=sidecar)
    except NotAnArtifact as error:
        raise CommandError(f"{files.shown(label)} {error}") from None
    for note in back.notes:
        err.write(f"{PROG}: {escape_controls(note)}\n")
    return back.source
