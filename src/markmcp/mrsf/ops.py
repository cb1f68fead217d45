"""The MRSF operations: the API the ``mrsf`` CLI and the ``mrsf-mcp`` server are built on.

Every function here works on files (it is the file-level edge); the work itself is done
by pure functions in :mod:`markmcp.mrsf.edits` on a :class:`~markmcp.mrsf.sidecar.Sidecar`
and the document text, so it can be used and tested without a filesystem.

Conventions
-----------
* ``target`` is a path to a Markdown document *or* to its sidecar
  (``*.review.yaml`` / ``*.review.json``), relative to ``cwd`` (default: the process's
  working directory).  The sidecar is found per MRSF §3 (``.mrsf.yaml`` ``sidecar_root``
  at the workspace root, else beside the document).
* ``root`` is the workspace root (default: the nearest directory above ``cwd`` holding
  ``.mrsf.yaml`` or ``.git``, else ``cwd``).  When ``root`` is given and ``cwd`` is not,
  relative paths are relative to ``root``.  Every path must stay inside it, after
  following symlinks, or MrsfError ``path-escape`` is raised.
* ``config`` names a ``.mrsf.yaml`` to use instead of ``<root>/.mrsf.yaml`` (relative to
  ``cwd``); without ``root``, the root is then the directory holding that file.
* ``places`` (a :class:`markmcp.mcpcore.files.Places`; default: the root) are the folders
  every file an operation touches must lie in, symlinks followed: the document, the
  sidecar (old and new, wherever ``sidecar_root`` puts it), its lock and backup.  A
  server passes the folders it serves, so a ``.mrsf.yaml`` above them cannot lead a
  read or write outside (``path-escape``).  Every file is read, written, locked and
  removed through :mod:`markmcp.mcpcore.files`: FIFOs, devices and folders are refused
  without blocking (``not-regular``, ``invalid-argument``), a symlink planted at a
  derived path (lock, backup) is refused (``symlink``), a path no file system takes
  (NUL, too long) is ``invalid-argument``.
* Every single-sidecar result is a plain JSON-able dict with ``"status": "ok"`` and at
  least ``root`` (absolute), ``document`` (repository-relative, ``/``-separated),
  ``sidecar`` (repository-relative), ``documentPath``/``sidecarPath`` (absolute) and,
  once a sidecar exists, ``version``.  Multi-sidecar results (``list_comments``,
  ``status``, ``validate``) carry ``versions``: ``{sidecar: version}`` of the bytes that
  were read.
* ``document_text`` (``add``, ``add_batch``, ``update``, ``reanchor``) is used as the
  document instead of reading the file (an unsaved editor buffer); the file need not
  exist.  CRLF is normalised like a file's.
* ``version`` is the SHA-256 hex digest of the sidecar's bytes.  Every writing operation
  takes ``expected_version``; when given and different from the file's current version
  nothing is written and :class:`~markmcp.mrsf.errors.MrsfConflict` is raised, whose
  ``to_dict()`` is ``{"status": "conflict", "code": "version-mismatch",
  "currentVersion": ..., "expectedVersion": ...}`` (``currentVersion`` is None when the
  sidecar does not exist).  Writing results also carry ``previousVersion`` and
  ``written`` (False when the change was a no-op).  The read / compare / write runs
  under an exclusive per-sidecar lock that threads and other processes respect
  (``fcntl.flock`` on ``.<sidecar>.lock``), and the file is replaced atomically, so two
  writers that both read version V cannot both succeed: no update is lost.
* Failures raise :class:`~markmcp.mrsf.errors.MrsfError` (``code``, ``message``,
  ``to_dict()``); nothing is written.  Codes are listed in :mod:`markmcp.mrsf.errors`.
* A sidecar whose ``mrsf_version`` has a major other than 1 is refused by every
  operation but ``read``/``validate`` (``unsupported-version``; ``list_comments`` and
  ``status`` report it in ``errors``), per MRSF §5.
* A "comment" in results is the comment's fields as stored (plain data, every key kept).
* Lines are 1-based (a document is split on LF after CRLF -> LF); columns are 0-based
  offsets in UTF-16 code units, as upstream tools and editors count them (they equal
  Python string indexes unless a line has characters outside the BMP, e.g. emoji).
* Filters (``list_comments``, ``resolve``, ``unresolve``) are a dict with any of:
  ``open`` (bool), ``resolved`` (bool), ``orphaned`` (bool: ``x_reanchor_status`` is
  ``orphaned``), ``author``, ``type``, ``severity`` (exact strings), ``ids`` (list),
  ``reply_to`` (id), ``line_from`` / ``line_to`` (the comment's line span overlaps),
  ``has_anchor`` (bool).  Unknown filter names raise ``invalid-argument``.

Operations (signature -> result keys besides status/root/document/sidecar/version)
----------------------------------------------------------------------------------
``locate(target, *, root=None, cwd=None, config=None, places=None)``
    -> ``documentPath``, ``sidecarPath`` (absolute), ``format`` ("yaml"|"json"),
    ``exists`` (bool), ``documentExists`` (bool).  ``version`` only when it exists.
``read(target, *, root=None, cwd=None, config=None, places=None)``
    -> ``format``, ``data`` (the whole sidecar, plain), ``text`` (the raw text).
``init(document, *, format="yaml", force=False, expected_version=None, root=None, cwd=None, config=None,
      places=None)``
    -> ``created`` (bool).  Existing sidecar without ``force``: MrsfError ``sidecar-exists``.
``add(target, *, author, text, line=None, end_line=None, start_column=None,
      end_column=None, selected_text=None, type=None, severity=None, reply_to=None,
      commit=None, id=None, timestamp=None, extensions=None, expected_version=None,
      document_text=None, root=None, cwd=None, config=None, places=None)``
    -> ``comment``, ``previousVersion``, ``created`` (sidecar created).  ``id`` defaults to a
    UUID4, ``timestamp`` to now (UTC, ISO-8601 with milliseconds and ``Z``), ``commit`` to
    git HEAD when the document is in a git repository and unchanged since HEAD (with
    uncommitted edits the line numbers would not match that commit, so none is recorded).  With ``line`` (1-based) and no
    ``selected_text``, ``selected_text`` is the text of document line ``line`` (through
    ``end_line``, cut at ``start_column``/``end_column``) and ``selected_text_hash`` its
    SHA-256.  ``extensions`` are ``x_*`` keys.  ``reply_to`` must name another comment of
    the sidecar (or of the same batch); reply loops are refused.
``add_batch(target, comments, *, expected_version=None, document_text=None, root=None, cwd=None, config=None,
            places=None)``
    ``comments`` is a list of dicts with ``add``'s keyword names; one atomic write; all
    are checked first (a bad one raises with ``batchIndex`` in the error details).
    -> ``comments`` (list), ``previousVersion``, ``created``.
``update(target, comment_id, changes, *, expected_version=None, document_text=None, root=None, cwd=None,
         config=None, places=None)``
    ``changes`` maps field names to new values; ``None`` removes an optional field.
    Moving the anchor (line/end_line/columns) without giving ``selected_text``
    recomputes ``selected_text`` and ``selected_text_hash`` from the document.
    -> ``comment``, ``changed`` (list of field names), ``previousVersion``, and ``note``
    when the moved anchor is on a blank line (``add``'s wording) or was taken from an
    unsaved ``document_text``.
``resolve(target, ids=None, *, filters=None, cascade=False, expected_version=None, root=None, cwd=None,
          config=None, places=None)``
``unresolve(target, ids=None, *, filters=None, cascade=False, expected_version=None, root=None, cwd=None,
            config=None, places=None)``
    ``ids`` a string or list (an unknown id raises ``comment-not-found``, nothing
    written); or ``filters``; ``cascade`` also sets direct replies.
    -> ``changed`` (ids whose value changed), ``matched`` (ids), ``previousVersion``.
``delete(target, ids, *, cascade=False, expected_version=None, root=None, cwd=None, config=None,
         places=None)``
    MRSF §9.1: direct replies are promoted: a reply with no targeting field of its own
    (line, end_line, start_column, end_column, selected_text) takes the parent's anchor
    (those fields plus selected_text_hash, anchored_text, commit); ``reply_to`` is
    re-pointed to the grandparent or removed.  ``cascade`` deletes direct replies too.
    -> ``deleted`` (ids), ``promoted`` (ids), ``previousVersion``.
``list_comments(targets=None, *, filters=None, root=None, cwd=None, config=None, places=None)``
    ``targets``: list of documents/sidecars/directories (None: every sidecar under root).
    -> ``comments`` (each comment's fields plus ``document``, ``sidecar``),
    ``count``, ``summary`` (``total, open, resolved, orphaned, threads, byType,
    bySeverity``), ``versions``, ``errors`` (unreadable sidecars:
    ``{sidecar, document, code, message}``).
``format_list(result)`` -> str: the compact text form of a ``list_comments`` result.
``status(targets=None, *, root=None, cwd=None, config=None, use_git=True, places=None)``
    -> ``results`` (``{id, document, sidecar, health, reason}``; health is
    ``fresh|stale|orphaned|unknown``, see ``health.assess_status``), ``counts``,
    ``versions``, ``errors``.
``validate(targets=None, *, strict=False, check_document=False, root=None, cwd=None, config=None,
           places=None)``
    -> ``valid`` (bool), ``files`` (``{sidecar, document, valid, errors, warnings}``),
    ``errorCount``, ``warningCount``, ``versions``.  ``check_document`` adds the anchor
    checks against the document; a ``document`` field that disagrees with the sidecar's
    location gives ``document-mismatch`` (when the root has ``.git``/``.mrsf.yaml``).
    Unreadable files are reported as files with one error.  Each diagnostic: ``{code, severity, message,
    path, commentId?, index?, line?, column?}`` (see :mod:`markmcp.mrsf.validate`).
``rename(old_document, new_document, *, expected_version=None, root=None, cwd=None, config=None,
         places=None)``
    Rewrites ``document`` and moves the sidecar to the new document's sidecar path.
    -> ``oldSidecar``, ``previousVersion``.
``repair(target, *, reset=False, backup=False, expected_version=None, root=None, cwd=None, config=None,
         places=None)``
    Malformed sidecar: keep every comment block that still parses, drop ``comments``
    items that are not mappings, fill in missing top-level fields; ``reset`` starts an
    empty sidecar.  ``backup``: the damaged original is first saved as
    ``<sidecar>.bak`` (``backup`` in the result says where; never written through a
    symlink).
    -> ``salvaged`` (count), ``dropped`` (``{index?, line?, reason}``), ``backup``,
    ``reset``, ``changed`` (bool), ``previousVersion``.
``reanchor(target, *, threshold=0.6, update_text=False, force=False, dry_run=False,
           from_commit=None, use_git=True, expected_version=None, document_text=None, root=None,
           cwd=None, config=None, places=None, repository=None)``
    Places every anchored comment in the current document (``markmcp.mrsf.reanchor``),
    passing the document as of the comment's ``commit`` (or ``from_commit``) as the
    source when git has it.  -> ``results`` (``{id, status, score, reason, line,
    end_line, start_column, end_column, anchoredText, previous, changed}``),
    ``changed`` (count), ``written`` (bool), ``counts`` (by status), ``dryRun``,
    ``headCommit``, ``previousVersion``.  Results other than ``anchored`` are stored as
    ``x_reanchor_status``/``x_reanchor_score``; an ``anchored`` result removes them.
    ``update_text``: ``selected_text`` takes the text found (hash recomputed) instead of
    ``anchored_text``; ``force``: anchored/shifted results scoring >= 0.8 are re-based on
    HEAD (``commit`` = HEAD, audit fields removed); ``dry_run``: nothing written, and no lock
    taken (the sidecar is read as it is, so a read-only checkout can be checked);
    ``repository``: what ``git_facts`` gave for the root (git is then not asked again).
``check(target, *, fix=False, use_git=True, repository=None, select=None, root=None, cwd=None,
        config=None, places=None)``
    What ``validate`` and ``reanchor`` (a dry run unless ``fix``) say of one sidecar, from
    one reading of it (located once, read once, parsed once; with ``fix`` the file is
    parsed again under the lock only when it changed meanwhile).  -> ``version``,
    ``valid``, ``errors``, ``warnings`` (as a ``validate`` file entry), ``reanchor``
    (``reanchor``'s result, or None when the sidecar is not valid or re-anchoring
    failed), ``reanchorError`` (``{code, message}`` when it failed, else None),
    ``resolved`` (ids of the resolved comments, in order).  A sidecar that cannot be read
    (``not-found``, ``not-regular``, ``file-too-large``, ``path-escape``, ...) raises; one
    that is not UTF-8 or does not parse is an invalid sidecar with that one error.
    ``select``, when given, is called with the located paths (``_base`` keys and
    ``version``) once the sidecar is read, before it is parsed: False ends the operation
    there, with ``skipped`` True (``markmcp check --changed-since`` passes over what did
    not change).
``git_facts(root)``
    -> (top folder of the git work tree holding ``root``, its HEAD commit), each None
    when there is none.
``find_sidecars(directory=None, *, root=None, cwd=None, config=None, places=None)``
    -> ``sidecars`` (relative paths).
``sidecars_of(targets, *, root=None, cwd=None, config=None, places=None)``
    -> ``sidecars`` (relative paths), ``errors``: the targets expanded as the multi-file
    operations expand them; a sidecar outside ``places`` is an error entry, never read.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any, Callable, Iterable

from markmcp.mcpcore.files import FileAccessError, Places, is_link, kind_of, shown

from . import edits, git, health, salvage, store
from .discovery import (
    Location, base_dirs, config_file_path, document_rel_for, has_marker, inside_or_root,
    is_sidecar_name, load_config, load_config_file, sidecar_rel_for,
)
from .discovery import find_sidecars as _find_sidecars
from .discovery import sweep_sidecars as _sweep_sidecars
from .discovery import locate as _locate
from .errors import MrsfError
from .sidecar import Sidecar, new_sidecar, to_plain, type_name
from .validate import split_lines
from .validate import validate as _validate

__all__ = [
    "locate", "read", "init", "add", "add_batch", "update", "resolve", "unresolve", "delete",
    "list_comments", "format_list", "status", "validate", "rename", "repair", "reanchor",
    "find_sidecars", "sidecars_of", "git_facts", "check", "MrsfError",
]

PathLike = str | os.PathLike


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------


def _confined(loc: Location, places: Places | None) -> Location:
    """``loc`` carrying ``places``, once its document and sidecar are checked to lie inside
    them (``path-escape`` otherwise: e.g. a ``sidecar_root`` of a ``.mrsf.yaml`` above
    the allowed folders)."""
    loc = dataclasses.replace(loc, places=places)
    for path in (loc.sidecar_path, loc.document_path):
        try:
            loc.allowed.check(Path(os.path.realpath(path)), path)
        except FileAccessError as error:
            raise store.file_error(error) from None
    return loc


def _find(target: PathLike, root: PathLike | None, cwd: PathLike | None, config: PathLike | None,
          places: Places | None) -> Location:
    """The Location of ``target`` (document or sidecar), confined to ``places``."""
    loc = _locate(target, root=root, cwd=cwd, config=config, places=places)
    # locate has proved that the document and the sidecar lie inside the root as written,
    # and inside the root (no ``places``) or ``places`` with symlinks followed
    return loc if places is None else _confined(loc, places)


def _base(loc: Location) -> dict[str, Any]:
    return {"status": "ok", "root": str(loc.root), "document": loc.document, "sidecar": loc.sidecar,
            "documentPath": str(loc.document_path), "sidecarPath": str(loc.sidecar_path)}


def _document_text(loc: Location, given: str | None = None) -> str | None:
    if given is not None:
        if not isinstance(given, str):
            raise MrsfError("invalid-argument", "`document_text` must be a string")
        if len(given.encode("utf-8")) > store.MAX_DOCUMENT_BYTES:
            raise MrsfError("file-too-large", f"`document_text` is over the {store.MAX_DOCUMENT_BYTES} byte limit")
        return given
    path = loc.document_path
    if kind_of(path) is None:
        return None
    return store.read_document(path, places=loc.allowed)


def _no_sidecar(loc: Location) -> str:
    """Why a target has no sidecar to read: the document itself may be missing too, or the
    sidecar path may be a symbolic link leading nowhere."""
    if is_link(loc.sidecar_path):
        return f"the sidecar {loc.sidecar} is a symbolic link to nothing (dangling); it is never read nor written through"
    if kind_of(loc.document_path) is None:
        return f"neither the document {loc.document} nor its sidecar {loc.sidecar} exists"
    return f"no sidecar for {loc.document}"


def _require_sidecar(loc: Location) -> None:
    if kind_of(loc.sidecar_path) is None:
        if kind_of(loc.document_path) is None or is_link(loc.sidecar_path):
            raise MrsfError("not-found", _no_sidecar(loc), path=loc.sidecar)
        raise MrsfError("not-found", f"no sidecar for {loc.document} (expected {loc.sidecar}); adding a comment creates it",
                        path=loc.sidecar)


def _head(loc: Location, text: str | None = None) -> str | None:
    """HEAD of the document's repository; with ``text``, only when the document at HEAD
    is that text (otherwise line numbers would not refer to the recorded commit)."""
    repo = git.repo_root(loc.document_path.parent if kind_of(loc.document_path.parent) is not None else loc.root)
    head = git.head_commit(repo) if repo else None
    if head is not None and text is not None:
        committed = git.show_file(repo, head, loc.document_path)
        if committed is None or committed.replace("\r\n", "\n") != text.replace("\r\n", "\n"):
            return None
    return head


def _check_version(data: Any, where: str) -> None:
    """MRSF §5: refuse a sidecar of an unknown major version (a missing or malformed
    version is left to validation)."""
    version = data.get("mrsf_version") if isinstance(data, dict) else None
    if isinstance(version, str):
        major = version.split(".", 1)[0]
        if major.isdigit() and major != "1":
            raise MrsfError("unsupported-version",
                            f"{where}: MRSF version {version} is not supported (this tool handles 1.x)",
                            path=where)


def _write(loc: Location, change, *, expected_version: str | None, create: bool = False,
           parsed: store.Loaded | None = None) -> store.Outcome:
    if not create:
        _require_sidecar(loc)

    def guarded(sc: Sidecar | None):
        if sc is not None:
            _check_version(sc.data, loc.sidecar)
        return change(sc)

    return store.transact(loc.sidecar_path, guarded, expected_version=expected_version, create_dirs=create,
                          places=loc.allowed, parsed=parsed)


def _written(loc: Location, outcome: store.Outcome, **extra: Any) -> dict[str, Any]:
    return {**_base(loc), "version": outcome.version, "previousVersion": outcome.previous_version,
            "written": outcome.written, **extra}


def _targets(targets: Iterable[PathLike] | PathLike | None, root: PathLike | None,
             cwd: PathLike | None, config_path: PathLike | None,
             places: Places | None = None) -> tuple[Path, list[Location], list[dict]]:
    """Expand documents/sidecars/directories into sidecar locations (existing sidecars);
    a sidecar a folder holds but that must not be read (one leading outside ``places``,
    default the root, is ``path-escape``; a FIFO or device ``not-regular``) is reported in
    the errors, never read."""
    cwd_path, root_path = base_dirs(root, cwd, config_path)
    config = (load_config_file(config_file_path(config_path, cwd)) if config_path is not None
              else load_config(root_path))
    if targets is None:
        try:
            cwd_path.relative_to(root_path)
            targets = [cwd_path]
        except ValueError:
            targets = [root_path]
    elif isinstance(targets, (str, os.PathLike)):
        targets = [targets]
    elif not isinstance(targets, (list, tuple)):
        raise MrsfError("invalid-argument", "`targets` must be a path or a list of paths")
    locs: list[Location] = []
    errors: list[dict] = []
    seen: set[str] = set()
    for target in targets:
        lexical, rel = inside_or_root(root_path, target, cwd_path)
        if kind_of(lexical) == "dir":
            walk = rel
            prefix = f"{config.sidecar_root}/" if config.sidecar_root else None
            if prefix and rel != "." and not (rel + "/").startswith(prefix):
                walk = prefix + rel  # §3.2: the sidecars of docs/ live under <sidecar_root>/docs/
                if kind_of(root_path / walk) != "dir":
                    continue
            swept, problems = _sweep_sidecars(walk, root_path, places)
            for sidecar, problem in problems:
                if (prefix and not sidecar.startswith(prefix)) or sidecar in seen:
                    continue
                seen.add(sidecar)  # found but never read (a FIFO, a symlink leading out...): said, not skipped
                errors.append({"sidecar": sidecar, "document": document_rel_for(sidecar, config),
                               "code": store.file_error(problem).code, "message": problem.message})
            for sidecar in swept:
                if prefix and not sidecar.startswith(prefix):
                    continue  # §3.3: only the configured location is authoritative
                if sidecar not in seen:
                    seen.add(sidecar)
                    found = Location(root_path, document_rel_for(sidecar, config), sidecar, config)
                    try:
                        locs.append(_confined(found, places))
                    except MrsfError as exc:
                        errors.append({"sidecar": sidecar, "document": found.document, "code": exc.code,
                                       "message": exc.message})
            continue
        loc = _find(target, root_path, cwd_path, config_path, places)
        if loc.sidecar in seen:
            continue
        seen.add(loc.sidecar)
        if kind_of(loc.sidecar_path) is None:
            errors.append({"sidecar": loc.sidecar, "document": loc.document, "code": "not-found",
                           "message": _no_sidecar(loc)})
            continue
        locs.append(loc)
    return root_path, locs, errors


# ---------------------------------------------------------------------------
# operations
# ---------------------------------------------------------------------------


def locate(target: PathLike, *, root: PathLike | None = None, cwd: PathLike | None = None,
           config: PathLike | None = None,
           places: Places | None = None) -> dict:
    """Where the document and sidecar of ``target`` are (see module docstring)."""
    loc = _find(target, root, cwd, config, places)
    out = {**_base(loc), "format": loc.format, "exists": kind_of(loc.sidecar_path) is not None,
           "documentExists": kind_of(loc.document_path) is not None}
    if out["exists"]:
        out["version"] = store.current_version(loc.sidecar_path, places=loc.allowed)
    return out


def read(target: PathLike, *, root: PathLike | None = None, cwd: PathLike | None = None,
         config: PathLike | None = None,
         places: Places | None = None) -> dict:
    """The sidecar's data (plain), raw text and version."""
    loc = _find(target, root, cwd, config, places)
    _require_sidecar(loc)
    loaded = store.load_plain(loc.sidecar_path, places=loc.allowed)
    return {**_base(loc), "version": loaded.version, "format": loaded.fmt,
            "data": loaded.data, "text": loaded.text}


def init(document: PathLike, *, format: str = "yaml", force: bool = False, expected_version: str | None = None,
         root: PathLike | None = None, cwd: PathLike | None = None, config: PathLike | None = None,
         places: Places | None = None) -> dict:
    """Create an empty sidecar for a document."""
    if format not in ("yaml", "json"):
        raise MrsfError("invalid-argument", f"format must be yaml or json, got {format!r}")
    loc = _find(document, root, cwd, config, places)
    if loc.format != format and kind_of(loc.sidecar_path) is None:
        loc = _confined(dataclasses.replace(loc, sidecar=sidecar_rel_for(loc.document, loc.config, format)), places)
    if _document_text(loc) is None:
        raise MrsfError("not-found", f"document not found: {loc.document}", path=loc.document)
    # (read, not only found: a document that is not UTF-8 is refused here as add refuses it)

    def change(sc: Sidecar | None):
        if sc is not None and not force:
            raise MrsfError("sidecar-exists", f"sidecar already exists: {loc.sidecar} (use force to replace it)",
                            path=loc.sidecar)
        return new_sidecar(loc.document, format), sc is None

    outcome = _write(loc, change, expected_version=expected_version, create=True)
    return _written(loc, outcome, created=outcome.result)


def _add(loc: Location, specs: list[dict], expected_version: str | None,
         document_text: str | None) -> tuple[store.Outcome, list[dict]]:
    text = _document_text(loc, document_text)
    if text is None:
        # as init and reanchor: a comment needs a document to be anchored in
        raise MrsfError("not-found", f"document not found: {loc.document}", path=loc.document)
    head = None
    if any(not s.get("commit") for s in specs if isinstance(s, dict)):
        head = _head(loc, text if text is not None else "")

    def change(sc: Sidecar | None):
        created = sc is None
        if sc is None:
            sc = new_sidecar(loc.document, loc.format)
        comments = edits.add_comments(sc, specs, document_text=text, head_commit=head)
        return sc, (comments, created)

    outcome = _write(loc, change, expected_version=expected_version, create=True)
    return outcome, outcome.result


def _unsaved(loc: Location, given: str | None) -> dict[str, str]:
    """``{"note": …}`` when an anchor was taken from ``document_text`` that is not the
    document on disk (an editor's unsaved buffer): its line numbers and selected text
    belong to that text until the document is saved.  Empty otherwise, and when the file
    cannot be read for the comparison."""
    if given is None:
        return {}
    try:
        disk = _document_text(loc)
    except (MrsfError, FileAccessError, OSError):
        return {}
    if disk is None:
        return {"note": f"{loc.document} is not on disk: the anchor was taken from the documentText given"}
    if disk.replace("\r\n", "\n") != given.replace("\r\n", "\n"):
        return {"note": f"the anchor was taken from the documentText given, which differs from {loc.document} on "
                        "disk (unsaved changes?): its lines and selected text are those of that text until the "
                        "document is saved"}
    return {}


def _blank(comments: list[dict]) -> list[str]:
    """What to say of new comments anchored to lines that hold no text (blank, or only
    spaces): nothing for re-anchoring to follow, so they stay where they are when lines move."""
    said = []
    for n, c in enumerate(comments):
        selected = c.get("selected_text")
        if isinstance(c.get("line"), int) and (not isinstance(selected, str) or not selected.strip()):
            where = f"line {c['line']}" if c.get("end_line", c["line"]) == c["line"] else \
                f"lines {c['line']}-{c['end_line']}"
            who = f"comment {n}: " if len(comments) > 1 else ""
            said.append(f"{who}{where} {'is' if where.startswith('line ') else 'are'} blank: the anchor has no "
                        "text to follow when lines move (anchor the comment to the sentence it is about)")
    return said


def _notes(*parts: dict[str, str] | list[str]) -> dict[str, str]:
    """``{"note": …}`` joining what each part has to say (nothing when none has)."""
    said = [text for part in parts for text in (part.values() if isinstance(part, dict) else part)]
    return {"note": "; ".join(said)} if said else {}


def add(target: PathLike, *, author: str, text: str, line: int | None = None, end_line: int | None = None,
        start_column: int | None = None, end_column: int | None = None, selected_text: str | None = None,
        type: str | None = None, severity: str | None = None, reply_to: str | None = None,
        commit: str | None = None, id: str | None = None, timestamp: str | None = None,
        extensions: dict | None = None, expected_version: str | None = None, document_text: str | None = None,
        root: PathLike | None = None, cwd: PathLike | None = None, config: PathLike | None = None,
        places: Places | None = None) -> dict:
    """Add one comment (see module docstring)."""
    loc = _find(target, root, cwd, config, places)
    spec = {k: v for k, v in dict(
        author=author, text=text, line=line, end_line=end_line, start_column=start_column,
        end_column=end_column, selected_text=selected_text, type=type, severity=severity,
        reply_to=reply_to, commit=commit, id=id, timestamp=timestamp, extensions=extensions,
    ).items() if v is not None}
    outcome, (comments, created) = _add(loc, [spec], expected_version, document_text)
    return _written(loc, outcome, comment=comments[0], created=created,
                    **_notes(_unsaved(loc, document_text), _blank(comments)))


def add_batch(target: PathLike, comments: list[dict], *, expected_version: str | None = None,
              document_text: str | None = None,
              root: PathLike | None = None, cwd: PathLike | None = None, config: PathLike | None = None,
              places: Places | None = None) -> dict:
    """Add several comments in one atomic write."""
    loc = _find(target, root, cwd, config, places)
    if not isinstance(comments, list):
        raise MrsfError("invalid-argument", "`comments` must be a list")
    outcome, (built, created) = _add(loc, [dict(c) if isinstance(c, dict) else c for c in comments], expected_version,
                                 document_text)
    return _written(loc, outcome, comments=built, created=created,
                    **_notes(_unsaved(loc, document_text), _blank(built)))


def update(target: PathLike, comment_id: str, changes: dict, *, expected_version: str | None = None,
           document_text: str | None = None,
           root: PathLike | None = None, cwd: PathLike | None = None, config: PathLike | None = None,
           places: Places | None = None) -> dict:
    """Change fields of one comment (see module docstring)."""
    loc = _find(target, root, cwd, config, places)
    text = _document_text(loc, document_text)

    def change(sc: Sidecar | None):
        comment, changed = edits.update_comment(sc, comment_id, changes, document_text=text)
        return sc, (comment, changed)

    outcome = _write(loc, change, expected_version=expected_version)
    comment, changed = outcome.result
    moved = any(key in changed for key in ("line", "end_line", "start_column", "end_column"))
    # an anchor moved onto a blank line is said as add says it (with the document known:
    # without it no text was taken, so there is nothing to judge)
    return _written(loc, outcome, comment=comment, changed=changed,
                    **(_notes(_unsaved(loc, document_text), _blank([comment]) if text is not None else [])
                       if moved else {}))


def _set_resolved(value: bool, target: PathLike, ids: Any, filters: dict | None, cascade: bool,
                  expected_version: str | None, root: PathLike | None, cwd: PathLike | None,
                  config: PathLike | None, places: Places | None) -> dict:
    loc = _find(target, root, cwd, config, places)

    def change(sc: Sidecar | None):
        return sc, edits.set_resolved(sc, value, ids=ids, filters=filters, cascade=cascade)

    outcome = _write(loc, change, expected_version=expected_version)
    matched, changed = outcome.result
    return _written(loc, outcome, matched=matched, changed=changed)


def resolve(target: PathLike, ids: Any = None, *, filters: dict | None = None, cascade: bool = False,
            expected_version: str | None = None, root: PathLike | None = None, cwd: PathLike | None = None,
            config: PathLike | None = None,
            places: Places | None = None) -> dict:
    """Mark comments resolved (by ids and/or filters)."""
    return _set_resolved(True, target, ids, filters, cascade, expected_version, root, cwd, config, places)


def unresolve(target: PathLike, ids: Any = None, *, filters: dict | None = None, cascade: bool = False,
              expected_version: str | None = None, root: PathLike | None = None, cwd: PathLike | None = None,
              config: PathLike | None = None,
              places: Places | None = None) -> dict:
    """Mark comments open again (by ids and/or filters)."""
    return _set_resolved(False, target, ids, filters, cascade, expected_version, root, cwd, config, places)


def delete(target: PathLike, ids: Any, *, cascade: bool = False, expected_version: str | None = None,
           root: PathLike | None = None, cwd: PathLike | None = None, config: PathLike | None = None,
           places: Places | None = None) -> dict:
    """Delete comments; replies are promoted (MRSF §9.1) unless ``cascade``."""
    loc = _find(target, root, cwd, config, places)

    def change(sc: Sidecar | None):
        return sc, edits.delete_comments(sc, ids, cascade=cascade)

    outcome = _write(loc, change, expected_version=expected_version)
    deleted, promoted = outcome.result
    return _written(loc, outcome, deleted=deleted, promoted=promoted)


def list_comments(targets: Iterable[PathLike] | PathLike | None = None, *, filters: dict | None = None,
                  root: PathLike | None = None, cwd: PathLike | None = None, config: PathLike | None = None,
                  places: Places | None = None) -> dict:
    """Comments of one or more sidecars, filtered, with summary counts."""
    match = edits.compile_filters(filters)
    root_path, locs, errors = _targets(targets, root, cwd, config, places)
    comments: list[dict] = []
    orphans: set[int] = set()  # the listed comments that are orphaned (a reply inherits it)
    versions: dict[str, str] = {}
    for loc in locs:
        try:
            loaded = store.load_plain(loc.sidecar_path, places=loc.allowed)
        except MrsfError as exc:
            errors.append({"sidecar": loc.sidecar, "document": loc.document, "code": exc.code, "message": exc.message})
            continue
        versions[loc.sidecar] = loaded.version
        try:
            _check_version(loaded.data, loc.sidecar)
        except MrsfError as exc:
            errors.append({"sidecar": loc.sidecar, "document": loc.document, "code": exc.code, "message": exc.message})
            continue
        items = loaded.data.get("comments") if isinstance(loaded.data, dict) else None
        items = items if isinstance(items, list) else []
        orphaned = health.orphaned_comments(items)
        for plain in items:
            if not isinstance(plain, dict):
                continue
            if match(plain):
                comments.append({**plain, "document": loc.document, "sidecar": loc.sidecar})
                if id(plain) in orphaned:
                    orphans.add(id(comments[-1]))
    return {"status": "ok", "root": str(root_path), "comments": comments, "count": len(comments),
            "summary": edits.summarize(comments, orphaned=lambda c: id(c) in orphans), "versions": versions,
            "errors": errors}


def format_list(result: dict) -> str:
    """The compact text form of a ``list_comments`` result."""
    lines = [edits.format_comment_line(c) for c in result.get("comments", [])]
    s = result.get("summary") or edits.summarize(result.get("comments", []))
    lines.append(f"{s['total']} comment(s): {s['open']} open, {s['resolved']} resolved, "
                 f"{s['orphaned']} orphaned, {s['threads']} thread(s)")
    for err in result.get("errors", []):
        lines.append(f"error: {err['sidecar']}: {err['message']}")
    return "\n".join(lines)


def status(targets: Iterable[PathLike] | PathLike | None = None, *, root: PathLike | None = None,
           cwd: PathLike | None = None, use_git: bool = True, config: PathLike | None = None,
           places: Places | None = None) -> dict:
    """Anchor health (fresh/stale/orphaned/unknown) of every comment."""
    root_path, locs, errors = _targets(targets, root, cwd, config, places)
    results: list[dict] = []
    versions: dict[str, str] = {}
    for loc in locs:
        try:
            loaded = store.load_plain(loc.sidecar_path, places=loc.allowed)
            _check_version(loaded.data, loc.sidecar)
            text = _document_text(loc)
        except MrsfError as exc:
            errors.append({"sidecar": loc.sidecar, "document": loc.document, "code": exc.code, "message": exc.message})
            continue
        versions[loc.sidecar] = loaded.version
        repo = git.repo_root(loc.root) if use_git else None
        cache: dict[str, bool | None] = {}

        def changed(commit: str, loc=loc, repo=repo, cache=cache) -> bool | None:
            if repo is None:
                return None
            if commit not in cache:
                cache[commit] = git.changed_since(repo, commit, loc.document_path)
            return cache[commit]

        items = loaded.data.get("comments") if isinstance(loaded.data, dict) else None
        plain = list(items) if isinstance(items, list) else []
        for r in health.assess_status(plain, text, changed_since=changed):
            results.append({**r, "document": loc.document, "sidecar": loc.sidecar})
    counts = {k: sum(1 for r in results if r["health"] == k) for k in ("fresh", "stale", "orphaned", "unknown")}
    return {"status": "ok", "root": str(root_path), "results": results, "counts": counts, "versions": versions,
            "errors": errors}


def _unparsed(loc: Location, exc: MrsfError) -> dict[str, Any]:
    """The validation entry of a sidecar that could not be read or parsed: one error."""
    diag = {"code": exc.code, "severity": "error", "message": exc.message, "path": "/"}
    for key in ("line", "column"):
        if key in exc.details:
            diag[key] = exc.details[key]
    return {"sidecar": loc.sidecar, "document": loc.document, "valid": False, "errors": [diag], "warnings": []}


def _validated(loc: Location, loaded: store.Loaded, *, strict: bool, document_text: str | None) -> dict[str, Any]:
    """The validation entry of a parsed sidecar (``validate``'s ``files`` item): the schema,
    MRSF §10, the anchors against ``document_text`` when given, and a ``document`` field
    that disagrees with where the sidecar lies (when the root is marked)."""
    report = _validate(loaded.sidecar, strict=strict, document_text=document_text)
    data = loaded.sidecar.data
    recorded = data.get("document") if isinstance(data, dict) else None
    if isinstance(recorded, str) and recorded != loc.document and has_marker(loc.root):
        diag = {"code": "document-mismatch", "severity": "error" if strict else "warning",
                "message": f"`document` is {recorded!r} but this sidecar belongs to '{shown(loc.document)}'",
                "path": "/document"}
        pos = loaded.sidecar.position(key="document")
        if pos:
            diag["line"], diag["column"] = pos
        (report["errors"] if strict else report["warnings"]).append(diag)
        report["valid"] = not report["errors"]
    return {"sidecar": loc.sidecar, "document": loc.document, "version": loaded.version, **report}


def validate(targets: Iterable[PathLike] | PathLike | None = None, *, strict: bool = False,
             check_document: bool = False, root: PathLike | None = None, cwd: PathLike | None = None,
             config: PathLike | None = None,
             places: Places | None = None) -> dict:
    """Validate sidecars (schema + MRSF §10; with ``check_document`` also the anchors)."""
    root_path, locs, errors = _targets(targets, root, cwd, config, places)
    files = []
    for err in errors:
        files.append({"sidecar": err["sidecar"], "document": err["document"], "valid": False,
                      "errors": [{"code": err["code"], "severity": "error", "message": err["message"], "path": "/"}],
                      "warnings": []})
    for loc in locs:
        try:
            loaded = store.load(loc.sidecar_path, places=loc.allowed)
        except MrsfError as exc:
            files.append(_unparsed(loc, exc))
            continue
        text = None
        if check_document:
            try:
                text = _document_text(loc)
            except MrsfError:
                text = None
        files.append(_validated(loc, loaded, strict=strict, document_text=text))
    versions = {f["sidecar"]: f["version"] for f in files if "version" in f}
    return {"status": "ok", "root": str(root_path), "valid": all(f["valid"] for f in files) and bool(files),
            "versions": versions,
            "files": files, "errorCount": sum(len(f["errors"]) for f in files),
            "warningCount": sum(len(f["warnings"]) for f in files)}


def rename(old_document: PathLike, new_document: PathLike, *, expected_version: str | None = None,
           root: PathLike | None = None, cwd: PathLike | None = None, config: PathLike | None = None,
           places: Places | None = None) -> dict:
    """The document moved: rewrite ``document`` and move the sidecar beside its new path."""
    old = _find(old_document, root, cwd, config, places)
    if is_sidecar_name(old.document):
        raise MrsfError("invalid-argument", "give the old document path, not a sidecar path")
    new = _find(new_document, old.root, cwd, config, places)
    if is_sidecar_name(new.document):
        raise MrsfError("invalid-argument", "give the new document path, not a sidecar path")
    _require_sidecar(old)
    store.refuse_link(old.sidecar_path, old.allowed)  # moving it would write its target's bytes anew
    new = _confined(dataclasses.replace(new, sidecar=sidecar_rel_for(new.document, new.config, old.format)), places)
    if new.sidecar == old.sidecar:
        raise MrsfError("invalid-argument", "the old and new document paths are the same")
    if kind_of(new.sidecar_path) is not None:
        raise MrsfError("sidecar-exists", f"a sidecar already exists at {new.sidecar}", path=new.sidecar)
    loaded = store.load(old.sidecar_path, places=old.allowed)
    if expected_version is not None and expected_version != loaded.version:
        from .errors import MrsfConflict
        raise MrsfConflict(loaded.version, expected_version, old.sidecar)
    mode = os.stat(old.sidecar_path).st_mode & 0o7777

    def change(sc: Sidecar | None):
        if sc is not None:
            raise MrsfError("sidecar-exists", f"a sidecar already exists at {new.sidecar}", path=new.sidecar)
        moved = loaded.sidecar
        moved.set_top("document", new.document)
        return moved, None

    outcome = store.transact(new.sidecar_path, change, create_dirs=True, places=new.allowed, mode=mode)
    try:
        store.remove(old.sidecar_path, expected_version=loaded.version, places=old.allowed)
    except MrsfError:
        # the old sidecar changed meanwhile: keep both rather than lose the change
        raise MrsfError("version-mismatch", f"{old.sidecar} changed during rename; the new sidecar {new.sidecar} was "
                        "written from the earlier version and the old one was kept") from None
    result = {**_base(new), "oldSidecar": old.sidecar, "oldDocument": old.document, "version": outcome.version,
              "previousVersion": loaded.version, "written": True}
    if kind_of(new.document_path) is None:
        # moving the sidecar first is allowed (the document may follow), but never silently
        result["note"] = (f"{new.document} does not exist (yet): its sidecar {new.sidecar} is written; "
                          f"move {old.document} to {new.document} as well, or rename back")
    return result


def repair(target: PathLike, *, reset: bool = False, backup: bool = False, expected_version: str | None = None,
           root: PathLike | None = None, cwd: PathLike | None = None, config: PathLike | None = None,
           places: Places | None = None) -> dict:
    """Salvage a damaged sidecar (or reset it); with ``backup`` the original bytes are first
    saved as ``<sidecar>.bak`` (never through a symlink planted there)."""
    loc = _find(target, root, cwd, config, places)
    _require_sidecar(loc)
    report: dict[str, Any] = {"salvaged": 0, "dropped": [], "backup": None, "reset": reset}

    def change(sc: Sidecar | None):
        raw = store.read_limited(loc.sidecar_path, store.MAX_SIDECAR_BYTES, "sidecar", places=loc.allowed)
        text = raw.decode("utf-8", "replace")
        odd = _odd_comments(sc)
        if reset:
            fresh = new_sidecar(loc.document, loc.format)
        elif (sc is not None and isinstance(sc.comments, list) and not odd
              and all(k in sc.data for k in ("mrsf_version", "document"))):
            report["salvaged"] = len(sc.comments)
            return None, None  # parses and has its structure: nothing to repair
        elif sc is not None:
            fresh = sc
            if "mrsf_version" not in fresh.data:
                fresh.set_top("mrsf_version", "1.0")
            if "document" not in fresh.data:
                fresh.set_top("document", loc.document)
            comments = fresh.data.get("comments")
            if isinstance(comments, dict):  # a single comment written without its "- "
                fresh.set_top("comments", [to_plain(comments)])
            elif not isinstance(comments, list):
                if comments is not None:
                    report["dropped"].append({"reason": f"`comments` was not a list but {type_name(comments)}"})
                fresh.set_top("comments", [])
            elif odd:
                report["dropped"].extend(odd)
                dropped = {entry["index"] for entry in odd}
                fresh.set_top("comments", [to_plain(c) for i, c in enumerate(comments) if i not in dropped])
            report["salvaged"] = len(fresh.comments or [])
        else:
            if loc.format == "json":
                fresh, dropped, salvaged = salvage.salvage_json(text, loc.document)
            else:
                fresh, dropped, salvaged = salvage.salvage(text, loc.document)
            report["dropped"], report["salvaged"] = dropped, salvaged
        if backup:
            saved = loc.sidecar_path.with_name(loc.sidecar_path.name + ".bak")
            store.atomic_write(saved, raw, places=loc.allowed, follow=False)
            report["backup"] = saved.relative_to(loc.root).as_posix()
        return fresh, None

    outcome = store.transact(loc.sidecar_path, change, expected_version=expected_version, lenient=True,
                             places=loc.allowed)
    return _written(loc, outcome, changed=outcome.written, **report)


def _odd_comments(sc: Sidecar | None) -> list[dict]:
    """What repair drops from a ``comments`` list that parses: items that are not mappings
    (e.g. ``comments: *alias`` of a list of lists), each as ``{index, line?, reason}``."""
    items = sc.comments if sc is not None else None
    odd = []
    for index, item in enumerate(items or ()):
        if not isinstance(item, dict):
            entry: dict[str, Any] = {"index": index, "reason": f"comment {index} is a {type_name(item)}, not a mapping"}
            position = sc.position(index=index)
            if position:
                entry["line"] = position[0]
            odd.append(entry)
    return odd


def sidecars_of(targets: Iterable[PathLike] | PathLike, *, root: PathLike | None = None,
                cwd: PathLike | None = None, config: PathLike | None = None,
                places: Places | None = None) -> dict:
    """The existing sidecars that documents, sidecars and folders in ``targets`` stand for, as
    the multi-file operations expand them (a folder: the sidecars of the documents below
    it, under ``sidecar_root`` when one is configured); one outside ``places`` is listed in
    ``errors`` (``path-escape``), never read."""
    root_path, locs, errors = _targets(targets, root, cwd, config, places)
    return {"status": "ok", "root": str(root_path), "sidecars": [loc.sidecar for loc in locs], "errors": errors}


def find_sidecars(directory: PathLike | None = None, *, root: PathLike | None = None,
                  cwd: PathLike | None = None, config: PathLike | None = None,
                  places: Places | None = None) -> dict:
    """Every sidecar under ``directory`` (default: the working directory); with ``places``,
    the directory must lie inside them and sidecars leading out of them are left out."""
    cwd_path, root_path = base_dirs(root, cwd, config)
    start = directory if directory is not None else cwd_path
    lexical, rel = inside_or_root(root_path, start, cwd_path)
    found = _find_sidecars(rel, root_path)
    if places is not None:
        try:
            places.check(Path(os.path.realpath(lexical)), lexical)
        except FileAccessError as error:
            raise store.file_error(error) from None
        found = [s for s in found if places.holds(Path(os.path.realpath(root_path / s)))]
    return {"status": "ok", "root": str(root_path), "sidecars": found}


GitFacts = tuple[Path | None, str | None]


def git_facts(root: PathLike) -> GitFacts:
    """(top folder of the git work tree holding ``root``, its HEAD commit): (None, None)
    outside a repository or without git, HEAD None before the first commit."""
    repo = git.repo_root(root)
    return repo, (git.head_commit(repo) if repo else None)


def reanchor(target: PathLike, *, threshold: float = 0.6, update_text: bool = False, force: bool = False,
             dry_run: bool = False, from_commit: str | None = None, use_git: bool = True,
             expected_version: str | None = None, document_text: str | None = None,
             root: PathLike | None = None, cwd: PathLike | None = None, config: PathLike | None = None,
             places: Places | None = None, repository: GitFacts | None = None) -> dict:
    """Re-anchor every comment against the current document (see module docstring).

    ``repository`` (with ``use_git``) is what :func:`git_facts` gives for the workspace
    root, when the caller already asked: a check of many sidecars asks git once, not twice
    per sidecar."""
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not 0.0 <= threshold <= 1.0:
        raise MrsfError("invalid-argument", f"threshold must be a number between 0 and 1, got {threshold!r}")
    loc = _find(target, root, cwd, config, places)
    _require_sidecar(loc)
    text, repo, head = _anchoring_inputs(loc, document_text, use_git, repository)
    return _reanchored(loc, text, repo, head, threshold=threshold, update_text=update_text, force=force,
                       dry_run=dry_run, from_commit=from_commit, expected_version=expected_version)


def _anchoring_inputs(loc: Location, document_text: str | None, use_git: bool,
                      repository: GitFacts | None) -> tuple[str, Path | None, str | None]:
    """What re-anchoring ``loc`` starts from: the document's text (``document_text`` when
    given), and the repository and its HEAD commit (``repository`` when the caller asked
    git already; none without ``use_git``).  MrsfError ``not-found`` without a document."""
    text = _document_text(loc, document_text)
    if text is None:
        raise MrsfError("not-found", f"document not found: {loc.document}", path=loc.document)
    repo, head = (repository if repository is not None else git_facts(loc.root)) if use_git else (None, None)
    return text, repo, head


def _reanchored(loc: Location, text: str, repo: Path | None, head: str | None, *, threshold: float = 0.6,
                update_text: bool = False, force: bool = False, dry_run: bool = False,
                from_commit: str | None = None, expected_version: str | None = None,
                loaded: store.Loaded | None = None) -> dict:
    """:func:`reanchor` of the located sidecar ``loc`` against the document ``text``.

    ``loaded``: the sidecar as the caller read and parsed it (unchanged): a dry run works
    on it without reading the file again, and a real one under the lock uses it when the
    file still has those bytes."""
    from . import reanchor as engine

    sources: dict[str, str | None] = {}

    def source_for(commit: Any) -> str | None:
        commit = from_commit or commit
        if repo is None or not isinstance(commit, str):
            return None
        if commit not in sources:
            sources[commit] = git.show_file(repo, commit, loc.document_path)
        return sources[commit]

    target_lines = split_lines(text)

    def change(sc: Sidecar | None):
        items = [c for c in sc.comments or () if isinstance(c, dict)]
        work = [c for c in items if any(k in c for k in edits.ANCHOR_FIELDS)]
        groups: dict[Any, list[dict]] = {}
        for c in work:
            src = source_for(c.get("commit"))
            groups.setdefault(src, []).append(c)
        placements: dict[int, Any] = {}
        for src, group in groups.items():
            measured_in = split_lines(src if src is not None else text)
            anchors = [engine.Anchor.from_comment(edits.columns_to_indexes(to_plain(c), measured_in)) for c in group]
            found = engine.reanchor(anchors, text, source=src, threshold=threshold)
            for c, placement in zip(group, found):
                placements[id(c)] = placement
        done: dict[int, dict] = {}
        for c in items:
            if id(c) in placements:
                done[id(c)] = edits.apply_placement(sc, c, placements[id(c)], update_text=update_text,
                                                    force=force, head_commit=head, lines=target_lines)
        by_id = {c.get("id"): c for c in items}

        def unanchored(c: dict, depth: int = 0) -> dict:
            # a reply without an anchor of its own shares its parent's verdict (as status does);
            # nothing of it is written: it has no anchor to move
            parent = health.parent_of(c, by_id)
            if parent is not None and depth < 50:
                found = done[id(parent)] if id(parent) in done else unanchored(parent, depth + 1)
                return {"id": c.get("id"), "status": found["status"], "score": found.get("score"),
                        "reason": f"reply: inherits its parent's anchor ({found.get('reason', '')})", "changed": []}
            return {"id": c.get("id"), "status": "anchored", "score": 1.0,
                    "reason": "no anchor (document-level comment)", "changed": []}

        results = [done[id(c)] if id(c) in done else unanchored(c) for c in items]
        return (None if dry_run else sc), results

    if dry_run:
        if loaded is None:
            loaded = store.load(loc.sidecar_path, places=loc.allowed)
        if expected_version is not None and expected_version != loaded.version:
            from .errors import MrsfConflict
            raise MrsfConflict(loaded.version, expected_version, loc.sidecar)
        _check_version(loaded.sidecar.data, loc.sidecar)
        outcome = store.Outcome(change(loaded.sidecar)[1], loaded.version, loaded.version, False)
    else:
        outcome = _write(loc, change, expected_version=expected_version, parsed=loaded)
    results = outcome.result
    counts: dict[str, int] = {}
    for r in results:
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    changed = sum(1 for r in results if r.get("changed"))
    return _written(loc, outcome, results=results, changed=changed, counts=counts, dryRun=dry_run,
                    headCommit=head)


def check(target: PathLike, *, fix: bool = False, use_git: bool = True, repository: GitFacts | None = None,
          select: Callable[[dict[str, Any]], bool] | None = None, root: PathLike | None = None,
          cwd: PathLike | None = None, config: PathLike | None = None, places: Places | None = None) -> dict:
    """Validate one sidecar and re-anchor its comments (a dry run unless ``fix``) from one
    reading of it (see module docstring): what ``markmcp check`` asks of each sidecar."""
    loc = _find(target, root, cwd, config, places)
    raw = store.read_limited(loc.sidecar_path, store.MAX_SIDECAR_BYTES, "sidecar", places=loc.allowed)
    out: dict[str, Any] = {**_base(loc), "version": store.version_of(raw)}
    if select is not None and not select(out):
        return {**out, "skipped": True}
    loaded: store.Loaded | None
    try:
        loaded = store.parse_bytes(raw, loc.sidecar_path)
    except MrsfError as exc:
        loaded, entry = None, _unparsed(loc, exc)
    else:
        entry = _validated(loc, loaded, strict=False, document_text=None)
    out.update(valid=entry["valid"], errors=entry["errors"], warnings=entry["warnings"], reanchor=None,
               reanchorError=None, resolved=[])
    if loaded is None or not entry["valid"]:
        return out
    out["resolved"] = [c.get("id") for c in loaded.sidecar.comments or ()
                       if isinstance(c, dict) and c.get("resolved") is True]  # re-anchoring changes none
    try:
        text, repo, head = _anchoring_inputs(loc, None, use_git, repository)
        out["reanchor"] = _reanchored(loc, text, repo, head, dry_run=not fix, loaded=loaded)
    except MrsfError as exc:
        out["reanchorError"] = {"code": exc.code, "message": exc.message}
    return out
