"""The FigDown renderer: a parsed document in, SVG text out (pure; no files).

::

    from markmcp.figdown.render import build, read_artifact
    out = build(source)                 # parse + draw + embed the source
    if out.diagnostics:                 # parse OR geometry diagnostics
        ...                             # out.svg is None: nothing half-drawn
    else:
        svg = out.svg                   # deterministic, self-carrying artifact
    art = read_artifact(svg)            # art.source == source, art.sha256_ok

Two diagnostic channels reach one list.  ``parse`` cannot see a coordinate, so
a document whose source is impeccable can still draw a false statement (a pin
covering a node the engine placed, a group band or bundle lasso enclosing a
non-member); the renderer reports those, and a non-empty list withholds the
picture exactly as a parse error does.  Every drawing is bounded: each typed
region by its kind's bound, and what a document's regions draw together by
:data:`.regions.bound.MAX_DOCUMENT_CELLS` (a document past that is refused
before anything is drawn); what its scenes lay out and its ladders draw, over
all its sections, by :data:`.scene.layout.MAX_LAYERED` and
:data:`.sequence.MAX_ROWS` (a :class:`.block.Budget` carried from section to
section).

Modules: :mod:`.page` (section assembly, legend, stacking) sits above the
genre renderers — :mod:`.scene` (block/topology/flowchart/statechart),
:mod:`.sequence`, :mod:`.regions` (bitfield, table, timing, chart) — each of
which hands it a :class:`.block.Block`; below them all, :mod:`.bands` (band
geometry), :mod:`.notes`, :mod:`.style`, :mod:`.svg` (the only writer of
markup) and :mod:`.text` (measure and ink).  :mod:`markmcp.figdown.provenance`
(metadata and read-back, outside this package so a read loads no drawing code)
serves :func:`build`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..context import Diagnostic
from ..parser import ParseResult, parse, utf16_order
from ..provenance import ENGINE_VERSION, Artifact, NotAnArtifact, embed, read_artifact, sha256
from .block import Budget
from .page import render_section, section_diagnostics, stack
from .regions import document_bound


@dataclass
class Picture:
    """``svg``: the drawing (no metadata), or None when there are diagnostics."""

    svg: str | None
    diagnostics: list[Diagnostic] = field(default_factory=list)

    def error_lines(self) -> list[str]:
        return sorted((f"Line {d[0]}: {d[1]}" for d in self.diagnostics), key=utf16_order)


@dataclass
class Build(Picture):
    """A whole build: ``svg`` is the self-carrying artifact (with its source)."""

    result: ParseResult | None = None


def render(result: ParseResult, *, with_title: bool = False) -> Picture:
    """Draw a clean parse result; geometry diagnostics carry document lines."""
    if result.diagnostics:
        return Picture(None, list(result.diagnostics))
    models = result.models
    if not models:
        return Picture(None, [])
    if document_bound(models) is not None:       # refused before anything is drawn
        return Picture(None, _geometry(result, models, with_title))
    many = len(models) > 1
    sections = []
    diagnostics: list[Diagnostic] = []
    budget = Budget()
    for k, model in enumerate(models):
        section = render_section(model, with_title=with_title, prefix=f"s{k}_" if many else "", budget=budget)
        diagnostics.extend(Diagnostic(result.document_line(k, line), message)
                           for line, message in section.diags)
        sections.append(section)
    if diagnostics:
        return Picture(None, diagnostics)
    return Picture(stack(sections), [])


def geometry(result: ParseResult, *, with_title: bool = False) -> list[Diagnostic]:
    """The diagnostics :func:`render` reports, found without writing its markup (what a
    check needs): the parse's when it has any, else the drawing's geometry ones."""
    if result.diagnostics:
        return list(result.diagnostics)
    return _geometry(result, result.models, with_title)


def _geometry(result: ParseResult, models: list[dict], with_title: bool) -> list[Diagnostic]:
    """:func:`geometry` of a clean parse, given its models (projected once: a large
    document's projection is not free)."""
    budget = Budget()
    found = [Diagnostic(result.document_line(k, line), message)
             for k, model in enumerate(models)
             for line, message in section_diagnostics(model, with_title=with_title, budget=budget)]
    over = document_bound(models)
    if over is not None:
        found.append(Diagnostic(result.document_line(over[0], over[1]), over[2]))
    return found


def build(source: str, *, with_title: bool = False) -> Build:
    """Parse, draw and embed: the artifact ``figdown build`` writes."""
    result = parse(source)
    picture = render(result, with_title=with_title)
    svg = None if picture.svg is None else embed(picture.svg, source, with_title=with_title)
    return Build(svg, picture.diagnostics, result)


@dataclass(frozen=True)
class SidecarCheck:
    """An artifact compared with the ``.fd`` beside it."""

    status: str                      # "matches" | "stale" | "refused"
    diagnostics: tuple[str, ...] = ()

    def describe(self, name: str) -> str:
        if self.status == "matches":
            return f"sidecar {name} matches the artifact's recorded hash"
        if self.status == "stale":
            return (f"STALE ARTIFACT: {name} has changed since this .svg was built. "
                    "The .fd is truth — rebuild.")
        return (f"SIDECAR REFUSED: {name} no longer builds — {len(self.diagnostics)} diagnostic(s), "
                "so the recorded hash could not be checked:\n  " + "\n  ".join(self.diagnostics))


def check_sidecar(artifact: Artifact, fd_source: str) -> SidecarCheck:
    """Rebuild the sidecar source and compare it with what the artifact recorded."""
    rebuilt = build(fd_source, with_title=artifact.with_title)
    if rebuilt.diagnostics:
        return SidecarCheck("refused", tuple(rebuilt.error_lines()))
    if sha256(fd_source) == artifact.recorded_sha256:
        return SidecarCheck("matches")
    return SidecarCheck("stale")


__all__ = ["ENGINE_VERSION", "Artifact", "Build", "NotAnArtifact", "Picture", "SidecarCheck",
           "build", "check_sidecar", "embed", "geometry", "read_artifact", "render", "sha256"]
