"""Built figures on disk: where ``X.svg`` goes, what is there already, writing it, and
reading one back.

Shared by both edges (``figdown build`` / ``figdown read`` and the ``figdown_build`` /
``figdown_read`` tools); neither edge imports the other.  The artifact path is a path
WE derive (``X.fd`` -> ``X.svg`` beside it, or a name under ``--out``), so it is handled
as hostile ground:

* a symlink planted there is never followed, neither to look at what it points to nor
  to write through it (:func:`markmcp.mcpcore.files.target_of` with ``follow=False``);
* a FIFO, device or folder there is refused before anything could block;
* a regular file there is replaced only when it is a FigDown artifact (it carries
  ``<metadata id="figdown-source">``): an ``.svg`` someone drew by hand, or one over
  :data:`ARTIFACT_LIMIT` bytes or not UTF-8, is left alone and the build says so;
* the write is atomic (:func:`markmcp.mcpcore.files.write_atomic`), and an artifact
  whose bytes would not change is not rewritten at all (its time stamp stays).

Every file access goes through :mod:`markmcp.mcpcore.files`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from markmcp.figdown.artifact_paths import (  # the names and limits of artifact paths, used here and through here
    ARTIFACT_LIMIT,
    ARTIFACT_SUFFIX,
    SOURCE_SUFFIX,
    artifact_for,
    is_svg_name,
    looks_like_svg,
    read_svg,
    source_for,
)
from markmcp.figdown.provenance import (ENGINE_VERSION, NO_METADATA, Artifact, NotAnArtifact, read_artifact,
                                        sha256)
from markmcp.figdown.sources import read_document
from markmcp.mcpcore import files
from markmcp.mcpcore.files import FileAccessError, Places


class NotOurs(Exception):
    """The artifact path holds something a build must not replace."""

    def __init__(self, path: str | os.PathLike[str], why: str) -> None:
        self.path = os.fspath(path)
        self.why = why
        self.message = (f"{files.shown(path)} {why}; it was left alone and nothing was written "
                        "(move it away to build there)")
        super().__init__(self.message)


@dataclass(frozen=True)
class OnDisk:
    """What the artifact path holds now: ``"absent"``, ``"ours"`` (a FigDown artifact,
    ``text`` and ``artifact`` given) or ``"foreign"`` (``why`` it is not ours)."""

    state: str
    text: str | None = None
    artifact: Artifact | None = None
    why: str = ""


def on_disk(path: str | os.PathLike[str], *, places: Places | None = None) -> OnDisk:
    """Look at the artifact path without following a final symlink.

    A symlink there raises :class:`FileAccessError` (``symlink``), as does a FIFO, a
    device or a folder (``not-regular`` / ``is-directory``); with ``places`` the path
    must lie inside them (``outside``).  A regular file is read (up to
    :data:`ARTIFACT_LIMIT` bytes) only to tell whether it is ours.
    """
    target = files.target_of(path, follow=False)
    if places is not None:
        places.check(target, path)
    kind = files.kind_of(target)
    if kind is None:
        return OnDisk("absent")
    if kind == "dir":
        raise FileAccessError("is-directory", f"{files.shown(path)} is a directory; nothing was written",
                              os.fspath(path))
    if kind == "other":  # told by stat alone: a FIFO is never opened, so nothing can block
        raise FileAccessError("not-regular", f"{files.shown(path)} is not a regular file (a FIFO, device or "
                                             "socket); it was not opened and nothing was written", os.fspath(path))
    try:
        text = files.read_text(target, places=places, limit=ARTIFACT_LIMIT, what="SVG", label=path)
    except FileAccessError as error:
        if error.code == "too-large":
            return OnDisk("foreign", why=f"is over {ARTIFACT_LIMIT} bytes, too large to tell whether "
                                         "FigDown built it")
        if error.code == "not-utf8":
            return OnDisk("foreign", why="is not UTF-8 text, so FigDown did not build it")
        raise
    try:
        artifact = read_artifact(text)
    except NotAnArtifact as error:
        if str(error) != NO_METADATA:    # a block that is there but malformed: say what is wrong
            return OnDisk("foreign", text, why=f"exists and {error}")
        return OnDisk("foreign", text, why='exists and is not a FigDown artifact (it has no '
                                           '<metadata id="figdown-source">)')
    return OnDisk("ours", text, artifact)


def write_artifact(path: str | os.PathLike[str], svg: str, *, places: Places | None = None,
                   label: str | os.PathLike[str] | None = None) -> str:
    """Write ``svg`` at the artifact ``path``: ``"written"``, or ``"unchanged"`` when the
    same bytes are there already.  Raises :class:`NotOurs` for a file that is not a
    FigDown artifact and :class:`FileAccessError` for a symlink, FIFO, device or folder
    (or a path outside ``places``); messages name the file as ``label`` (default: ``path``)."""
    try:
        existing = on_disk(path, places=places)
        if existing.state == "foreign":
            raise NotOurs(label if label is not None else path, existing.why)
        if existing.state == "ours" and existing.text == svg:
            return "unchanged"
        files.write_atomic(path, svg.encode("utf-8"), places=places, follow=False)
    except FileAccessError as error:
        raise relabelled(error, path, label) from None
    return "written"


def relabelled(error: FileAccessError, path: str | os.PathLike[str],
               label: str | os.PathLike[str] | None) -> FileAccessError:
    """``error`` naming the file as ``label`` rather than by its full path."""
    if label is None:
        return error
    full, short = files.shown(path), files.shown(label)
    if full == short or full not in error.message:
        return error
    return FileAccessError(error.code, error.message.replace(full, short), error.path)


@dataclass(frozen=True)
class Freshness:
    """An artifact on disk against what a build would write now."""

    status: str     # "current" | "stale" | "missing" | "foreign"
    reason: str = ""


def freshness(existing: OnDisk, svg: str, source: str, *, with_title: bool) -> Freshness:
    """Would writing ``svg`` (built from ``source``) change the artifact on disk, and why."""
    if existing.state == "absent":
        return Freshness("missing", "no artifact has been built yet")
    if existing.state == "foreign":
        return Freshness("foreign", existing.why)
    if existing.text == svg:
        return Freshness("current")
    artifact = existing.artifact
    assert artifact is not None
    if artifact.recorded_sha256 != sha256(source):
        return Freshness("stale", "the source has changed since the artifact was built")
    if artifact.with_title != with_title:
        recorded = "with-title" if artifact.with_title else "no render options"
        wanted = "with-title" if with_title else "no render options"
        return Freshness("stale", f"it was built with {recorded}, this build uses {wanted}")
    if artifact.engine_skew:
        return Freshness("stale", f"it was drawn by {artifact.engine_version or 'an engine that did not say'}, "
                                  f"this build uses {ENGINE_VERSION}")
    return Freshness("stale", "the drawing differs from what this build writes")


@dataclass(frozen=True)
class ReadBack:
    """The source recovered from an artifact, with what a reader should know about it.

    ``sidecar`` (None when no ``.fd`` path was given): ``{"path", "status",
    "diagnostics"}``, status one of ``matches``, ``stale``, ``refused`` (the ``.fd``
    no longer builds), ``missing``, ``unreadable`` (a FIFO, a symlink leading out...),
    ``unchecked`` (the artifact records no hash).
    """

    source: str
    artifact: Artifact
    notes: tuple[str, ...]
    sidecar: dict[str, object] | None


def read_back(svg: str, *, sidecar: str | os.PathLike[str] | None = None,
              places: Places | None = None, sidecar_label: str | None = None) -> ReadBack:
    """The source embedded in ``svg`` (:class:`NotAnArtifact` when there is none), its
    engine noted when it is not ours, and the ``.fd`` at ``sidecar`` (when given and
    present) rebuilt and compared with the recorded hash."""
    artifact = read_artifact(svg)
    notes = ['source recovered from the artifact\'s <metadata id="figdown-source"> block']
    if artifact.recorded_sha256 is not None and not artifact.sha256_ok:
        notes.append("the recorded SHA-256 does not match the embedded source: the artifact was changed "
                     "after it was built; the embedded source is what was read")
    if artifact.engine_skew:
        drawn_by = artifact.engine_version or "an engine that did not record its version"
        notes.append(f"engine skew: the artifact was drawn by {drawn_by}, this is {ENGINE_VERSION}; "
                     "the same source may not give a byte-identical drawing here")
    report: dict[str, object] | None = None
    if sidecar is not None:
        name = files.shown(Path(sidecar).name)
        report = {"path": sidecar_label if sidecar_label is not None else files.shown(sidecar),
                  "status": "missing", "diagnostics": []}
        if files.kind_of(sidecar) is None and not _is_link(sidecar):
            pass  # no .fd beside it: nothing to compare
        else:
            try:
                text = read_document(sidecar, places=places, label=name)
            except FileAccessError as error:
                report["status"] = "unreadable"
                notes.append(f"sidecar {name} was not read: {error.message}")
            else:
                if artifact.recorded_sha256 is None:
                    report["status"] = "unchecked"
                    notes.append(f"the artifact records no SHA-256, so {name} could not be compared with it")
                else:
                    from markmcp.figdown.render import check_sidecar  # the drawing code, only to rebuild a sibling

                    check = check_sidecar(artifact, text)
                    report["status"] = check.status
                    report["diagnostics"] = list(check.diagnostics)
                    notes.append(check.describe(name))
    return ReadBack(artifact.source, artifact, tuple(notes), report)


def _is_link(path: str | os.PathLike[str]) -> bool:
    """A dangling symlink (kind_of sees nothing there, but something was planted)."""
    try:
        files.target_of(path, follow=False)
    except FileAccessError as error:
        return error.code == "symlink"
    return False
