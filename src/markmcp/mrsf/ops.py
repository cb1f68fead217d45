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
  ``.mrsf.yaml`` or ``.git``, else ``cwd``).  Every path must stay inside it, after
  following symlinks, or MrsfError ``path-escape`` is raised.
* Every result is a plain JSON-able dict with ``"status": "ok"`` and at least
  ``root`` (absolute), ``document`` (repository-relative, ``/``-separated),
  ``sidecar`` (repository-relative) and, once a sidecar exists, ``version``.
* ``version`` is the SHA-256 hex digest of the sidecar's bytes.  Every writing operation
  takes ``expected_version``; when given and different from the file's current version
  nothing is written and :class:`~markmcp.mrsf.errors.MrsfConflict` is raised, whose
  ``to_dict()`` is ``{"status": "conflict", "code": "version-mismatch",
  "currentVersion": ..., "expectedVersion": ...}`` (``currentVersion`` is None when the
  sidecar does not exist).  Writing results also carry ``previousVersion``.
* Failures raise :class:`~markmcp.mrsf.errors.MrsfError` (``code``, ``message``,
  ``to_dict()``); nothing is written.  Codes are listed in :mod:`markmcp.mrsf.errors`.
* A "comment" in results is the comment's fields as stored (plain data, every key kept).
* Filters (``list_comments``, ``resolve``, ``unresolve``) are a dict with any of:
  ``open`` (bool), ``resolved`` (bool), ``orphaned`` (bool: ``x_reanchor_status`` is
  ``orphaned``), ``author``, ``type``, ``severity`` (exact strings), ``ids`` (list),
  ``reply_to`` (id), ``line_from`` / ``line_to`` (the comment's line span overlaps),
  ``has_anchor`` (bool).  Unknown filter names raise ``invalid-argument``.

Operations (signature -> result keys besides status/root/document/sidecar/version)
----------------------------------------------------------------------------------
``locate(target, *, root=None, cwd=None)``
    -> ``documentPath``, ``sidecarPath`` (absolute), ``format`` ("yaml"|"json"),
    ``exists`` (bool), ``documentExists`` (bool).  ``version`` only when it exists.
``read(target, *, root=None, cwd=None)``
    -> ``format``, ``data`` (the whole sidecar, plain), ``text`` (the raw text).
``init(document, *, format="yaml", force=False, expected_version=None, root=None, cwd=None)``
    -> ``created`` (bool).  Existing sidecar without ``force``: MrsfError ``sidecar-exists``.
``add(target, *, author, text, line=None, end_line=None, start_column=None,
      end_column=None, selected_text=None, type=None, severity=None, reply_to=None,
      commit=None, id=None, timestamp=None, extensions=None, expected_version=None,
      root=None, cwd=None)``
    -> ``comment``, ``previousVersion``, ``created`` (sidecar created).  ``id`` defaults to a
    UUID4, ``timestamp`` to now (UTC, ISO-8601 with milliseconds and ``Z``), ``commit`` to
    git HEAD when the document is in a git repository.  With ``line`` (1-based) and no
    ``selected_text``, ``selected_text`` is the text of document line ``line`` (through
    ``end_line``, cut at ``start_column``/``end_column``) and ``selected_text_hash`` its
    SHA-256.  ``extensions`` are ``x_*`` keys.
``add_batch(target, comments, *, expected_version=None, root=None, cwd=None)``
    ``comments`` is a list of dicts with ``add``'s keyword names; one atomic write.
    -> ``comments`` (list), ``previousVersion``, ``created``.
``update(target, comment_id, changes, *, expected_version=None, root=None, cwd=None)``
    ``changes`` maps field names to new values; ``None`` removes an optional field.
    Moving the anchor (line/end_line/columns) without giving ``selected_text``
    recomputes ``selected_text`` and ``selected_text_hash`` from the document.
    -> ``comment``, ``changed`` (list of field names), ``previousVersion``.
``resolve(target, ids=None, *, filters=None, cascade=False, expected_version=None, ...)``
``unresolve(target, ids=None, *, filters=None, cascade=False, expected_version=None, ...)``
    ``ids`` a string or list; or ``filters``; ``cascade`` also sets direct replies.
    -> ``changed`` (ids whose value changed), ``matched`` (ids), ``previousVersion``.
``delete(target, ids, *, cascade=False, expected_version=None, root=None, cwd=None)``
    MRSF §9.1: direct replies are promoted (inherit missing anchor fields, ``reply_to``
    re-pointed to the grandparent or removed); ``cascade`` deletes direct replies too.
    -> ``deleted`` (ids), ``promoted`` (ids), ``previousVersion``.
``list_comments(targets=None, *, filters=None, root=None, cwd=None)``
    ``targets``: list of documents/sidecars/directories (None: every sidecar under root).
    -> ``comments`` (each comment's fields plus ``document``, ``sidecar``),
    ``count``, ``summary`` (``total, open, resolved, orphaned, threads, byType,
    bySeverity``), ``errors`` (unreadable sidecars: ``{sidecar, code, message}``).
    ``format_list(result) -> str`` renders the compact text form.
``status(targets=None, *, root=None, cwd=None, use_git=True)``
    -> ``results`` (``{id, document, sidecar, health, reason}``; health is
    ``fresh|stale|orphaned|unknown``), ``counts``, ``errors``.
``validate(targets=None, *, strict=False, check_document=True, root=None, cwd=None)``
    -> ``valid`` (bool), ``files`` (``{sidecar, document, valid, errors, warnings}``),
    ``errorCount``, ``warningCount``.  Each diagnostic: ``{code, severity, message,
    path, commentId?, index?, line?, column?}`` (see :mod:`markmcp.mrsf.validate`).
``rename(old_document, new_document, *, expected_version=None, root=None, cwd=None)``
    Rewrites ``document`` and moves the sidecar to the new document's sidecar path.
    -> ``oldSidecar``, ``previousVersion``.
``repair(target, *, reset=False, expected_version=None, root=None, cwd=None)``
    Malformed sidecar: keep every comment block that still parses, fill in missing
    top-level fields, save the damaged original as ``<sidecar>.bak``; ``reset`` starts
    an empty sidecar (original kept as ``.bak``).
    -> ``salvaged`` (count), ``dropped`` (``{index?, line?, reason}``), ``backup``,
    ``reset``, ``changed`` (bool), ``previousVersion``.
``reanchor(target, *, threshold=0.6, update_text=False, force=False, dry_run=False,
           from_commit=None, use_git=True, expected_version=None, root=None, cwd=None)``
    Places every anchored comment in the current document (``markmcp.mrsf.reanchor``),
    passing the document as of the comment's ``commit`` (or ``from_commit``) as the
    source when git has it.  -> ``results`` (``{id, status, score, reason, line,
    end_line, start_column, end_column, anchoredText, previous, changed}``),
    ``changed`` (count), ``written`` (bool), ``counts`` (by status), ``previousVersion``.
``find_sidecars(directory=None, *, root=None, cwd=None)`` -> ``sidecars`` (relative paths).
"""
