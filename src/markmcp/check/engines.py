"""One task per file: check it with its engine (and with ``fix``, repair what is safe).

A task is ``(engine, path, label)``: ``path`` is the file as found (absolute), ``label``
the path shown to the user.  :func:`run_task` never raises: an engine that fails is a
``crashed`` outcome, a file that cannot be read an ``unreadable`` one.

The engines are used through their package-level API, as their own command lines use
it (never through another package's ``cli.py`` or ``server.py``):

* **VisiMark**: a Markdown file is a VisiMark document when it has a ``vmark`` fence
  or a ``<!--vmark…-->`` comment; it is checked with its charts and imports
  (:func:`markmcp.visimark.check.check` on :class:`~markmcp.visimark.disk.DocumentFolder`);
  ``fix`` runs ``fmt`` (stale values and anchors, chart artifacts; never dates or
  units, which want a person's eye).
* **FigDown**: a ``.fd`` source is checked (:func:`markmcp.figdown.report.check_report`),
  and the ``.svg`` beside it, when FigDown built it, is compared with the source it
  records (stale when the ``.fd`` changed since); ``fix`` rebuilds a stale artifact.
* **MRSF**: a sidecar is validated (the schema and MRSF §10, as
  :func:`markmcp.mrsf.ops.validate` does) and re-anchored against its document without
  writing (as :func:`markmcp.mrsf.ops.reanchor` does with ``dry_run``), both by
  :func:`markmcp.mrsf.ops.check` from one reading of the sidecar: a comment the
  current document would move, or leaves orphaned or ambiguous, is a finding; ``fix``
  re-anchors for real (the sidecar is written under its lock).

Files are read and written through :mod:`markmcp.mcpcore.files` (the MRSF operations
do their own guarded access).  ``changed`` (a set of resolved paths, from
``--changed-since``) limits a task to files that changed themselves or through what
they depend on: a document's imported CSV or chart image, a source's artifact, a
sidecar's document.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from markmcp.mcpcore import files
from markmcp.mcpcore.files import FileAccessError
from markmcp.textsafe import escape_controls

from .findings import crashed, finding, line_starts, outcome, position, skipped, unreadable

MARKDOWN_SUFFIXES = (".md", ".markdown")
FIGDOWN_SUFFIX = ".fd"
SIDECAR_SUFFIXES = (".review.yaml", ".review.json")

#: A ``vmark`` fence opening, or a comment naming VisiMark (an anchor or the no-formulas marker).
VISIMARK_MARK = re.compile(r"^ {0,3}(?:`{3,}|~{3,})[ \t]*vmark(?![^\s])|<!--\s*vmark\s*[=:]", re.MULTILINE)


def engine_of(name: str) -> str | None:
    """The engine that owns a file of this name (Markdown may turn out not to be VisiMark's)."""
    lower = name.lower()
    if lower.endswith(SIDECAR_SUFFIXES):
        return "mrsf"
    if lower.endswith(FIGDOWN_SUFFIX) and lower != FIGDOWN_SUFFIX:
        return "figdown"
    if lower.endswith(MARKDOWN_SUFFIXES):
        return "visimark"
    return None


def is_visimark(text: str) -> bool:
    return VISIMARK_MARK.search(text) is not None


def _real(path: str | os.PathLike[str]) -> str:
    return os.path.realpath(path)


def _touched(changed: frozenset[str] | None, paths: Iterable[str | os.PathLike[str]]) -> bool:
    """Whether any of ``paths`` changed (always True without ``--changed-since``)."""
    if changed is None:
        return True
    return any(_real(path) in changed for path in paths)


def _label_of(path: Path, task_path: str, task_label: str) -> str:
    """A file beside the task's file, named the way the task's file is named."""
    head = task_label[: len(task_label) - len(os.path.basename(task_path))]
    return head + path.name


# --- VisiMark ---------------------------------------------------------------------------------


def _visimark_message(f: Any) -> str:
    from markmcp.visimark.report import group_lines, stale_line

    lines = [stale_line(f)] if f.code == "STALE" else group_lines(f)
    text = " ".join(" ".join(line.split()) for line in lines)
    return text[len(f.code):].strip() if text.startswith(f.code) else text


def _visimark_dependencies(model: Any) -> list[str]:
    """Files a document's check reads besides itself, as it names them: imported CSVs
    and chart images."""
    found = [sheet.import_decl.path for sheet in model.sheets.values() if sheet.import_decl is not None]
    found += [anchor.image_url for anchor in model.located.anchors if anchor.image_url]
    return found


def check_visimark(path: str, label: str, *, fix: bool, changed: frozenset[str] | None) -> dict[str, Any]:
    try:
        text = files.read_text(path, what="document", label=label)
    except FileAccessError as error:
        return unreadable("visimark", label, error.code, error.message)
    if not is_visimark(text):  # plain Markdown: the engine is not even imported
        return skipped("visimark", label, "not a VisiMark document (no vmark fence or anchor)")

    from markmcp.visimark.check import check
    from markmcp.visimark.disk import DocumentFolder
    from markmcp.visimark.findings import ADVICE_CODES, count
    from markmcp.visimark.model import build
    from markmcp.visimark.report import findings_json, format_check
    from markmcp.visimark.write import fmt

    model = build(text)
    folder = DocumentFolder(path)
    if changed is not None:
        here = Path(path).parent
        if not _touched(changed, [path, *(here / dep for dep in _visimark_dependencies(model))]):
            return skipped("visimark", label, "unchanged")
    fixed: list[str] = []
    if fix:
        repaired = fmt(text, files=folder)
        if repaired.artifacts:
            fixed.append(f"wrote {len(repaired.artifacts)} chart artifact(s): {', '.join(repaired.artifacts)}")
        if repaired.write_error is not None:
            fixed.append(f"could not write {repaired.write_error[0]} ({repaired.write_error[1]}); "
                         "the document was left as it was")
        elif repaired.changed:
            # never through a symlink (the walk reports one unread; this holds whoever calls)
            files.write_atomic(path, repaired.output.encode("utf-8"), follow=False)
            bits = [f"{n} {what}" for n, what in ((repaired.cells_updated, "cell(s)"),
                                                  (repaired.anchors_updated, "anchor(s)"),
                                                  (repaired.stamps_updated, "import stamp(s)")) if n]
            fixed.append("updated " + (", ".join(bits) or "the document"))
            text = repaired.output
            model = build(text)
    result = check(model, folder)
    starts = line_starts(text)
    found = []
    for f in result.findings:
        if f.anchor_group:
            # "N prose anchors bound to the values above": a roll-up of the anchors whose
            # values are findings already (each located on its anchor), kept in VisiMark's
            # own report and JSON, never a finding of its own (it has no place, and it would
            # count and annotate them twice)
            continue
        line = column = None
        if f.span is not None:
            line, column = position(starts, f.span[0])
        level = "note" if f.code == "NOTE" else "warning" if f.code in ADVICE_CODES else "error"
        found.append(finding(label, level, f.code, _visimark_message(f), line=line, column=column,
                             fails=f.is_problem))
    stale, errors = count(result.findings)
    data = {"path": label, "findings": findings_json(result.findings, label, text),
            "summary": {"problems": stale + errors, "stale": stale, "errors": errors}}
    if fixed:
        data["fixed"] = fixed
    report = format_check(escape_controls(label), result.findings) if result.findings else None
    return outcome("visimark", label, findings=found, fixed=fixed, report=report, data=data)


# --- FigDown ----------------------------------------------------------------------------------


def check_figdown(path: str, label: str, *, fix: bool, changed: frozenset[str] | None) -> dict[str, Any]:
    from markmcp.figdown.artifacts import NotOurs, artifact_for, on_disk, write_artifact
    from markmcp.figdown.render import build, sha256
    from markmcp.figdown.report import EMPTY_NOTE, check_report, refusal

    svg = artifact_for(path)
    if not _touched(changed, [path, svg]):
        return skipped("figdown", label, "unchanged")
    try:
        text = files.read_text(path, what="document", label=label)
    except FileAccessError as error:
        return unreadable("figdown", label, error.code, error.message)
    report = check_report(label, text)
    stage = report.get("stage", "parse")
    found = [finding(label, "error", stage, item["message"], line=item["line"], column=item.get("column"))
             for item in report["diagnostics"]]
    blocks = ([refusal(label, report.get("stage"), report["diagnostics"], report.get("hints", ()))]
              if report["diagnostics"] else [])
    if report.get("empty"):
        # clean, as FigDown's engine has it, but nothing was written: a word, not a failure
        found.append(finding(label, "warning", "empty", EMPTY_NOTE, fails=False))
        blocks.append(f"EMPTY — {escape_controls(label)}\n  {EMPTY_NOTE}")
    svg_label = _label_of(svg, path, label)
    fixed: list[str] = []
    try:
        existing = on_disk(svg)
    except FileAccessError as error:
        why = (f"{svg_label} is a symbolic link; an artifact is never read or written through one"
               if error.code == "symlink" else error.message.replace(files.shown(svg), svg_label))
        found.append(finding(svg_label, "error", f"not-read:{error.code}", why))
        blocks.append(f"NOT READ — {escape_controls(svg_label)}\n  {escape_controls(why)}")
        existing = None
    artifact_data: dict[str, Any] = {"path": svg_label, "status": existing.state if existing else "unreadable"}
    if existing is not None and existing.state == "foreign":
        # a hand-made picture where the source's artifact goes: `figdown build --check` says
        # NOT OURS; here a warning that does not fail (nothing here can tell what it shows,
        # and --fix never overwrites it)
        message = (f"NOT OURS — {svg_label} {existing.why}, so it is not built from {label} and whether it "
                   "shows the source cannot be told; FigDown never overwrites it (move it away to build there)")
        found.append(finding(label, "warning", "not-ours", message, line=1, fails=False))
        blocks.append(f"NOT OURS — {escape_controls(svg_label)}\n  {escape_controls(message[len('NOT OURS — '):])}")
    if existing is not None and existing.state == "ours":
        artifact = existing.artifact
        stale = artifact.recorded_sha256 != sha256(text)
        artifact_data["status"] = "stale" if stale else "current"
        if stale and fix and report["ok"]:
            built = build(text, with_title=artifact.with_title)
            if built.svg is not None:
                try:
                    write_artifact(svg, built.svg, label=svg_label)
                except (NotOurs, FileAccessError) as error:
                    fixed.append(f"could not rebuild {svg_label}: {error}")
                else:
                    fixed.append(f"rebuilt {svg_label}")
                    artifact_data["status"] = "rebuilt"
                    stale = False
        if stale:
            # on the source (line 1), the file to edit or rebuild from, named as shown
            message = (f"STALE ARTIFACT: {label} has changed since {svg_label} was built. "
                       "The .fd is truth — rebuild.")
            found.append(finding(label, "error", "stale-artifact", message, line=1))
            blocks.append(f"{escape_controls(svg_label)}\n  {escape_controls(message)}")
    data = {**report, "artifact": artifact_data}
    if fixed:
        data["fixed"] = fixed
    return outcome("figdown", label, findings=found, fixed=fixed, report="\n\n".join(blocks) or None, data=data)


# --- MRSF -------------------------------------------------------------------------------------

#: The end of a re-anchoring reason that repeats the move the check's words give already.
_MOVED_TAIL = re.compile(r",\s*moved from line \d+ to (?:line )?\d+\.?$")
_ICONS = {"anchored": "●", "shifted": "↕", "fuzzy": "≈", "ambiguous": "?", "orphaned": "✗"}


def _relabel(message: str, path: str, label: str) -> str:
    """An MRSF message naming the sidecar by its full path, naming it as the report does
    (every other file in the report is named relative to where the check was run)."""
    return message.replace(files.shown(path), files.shown(label)) if path != label else message


def check_mrsf(path: str, label: str, *, fix: bool, changed: frozenset[str] | None,
               use_git: bool) -> dict[str, Any]:
    from markmcp.mrsf import ops
    from markmcp.mrsf.discovery import find_workspace_root
    from markmcp.mrsf.errors import MrsfError

    kind = files.kind_of(path)
    if kind != "file":
        return unreadable("mrsf", label, "not-regular", f"{files.shown(label)} is not a regular file; it was not read")
    folder = os.path.dirname(path)
    root = _remembered.roots.get(folder)
    if root is None:
        root = _remembered.roots[folder] = find_workspace_root(Path(folder))
    repository = None
    if use_git:
        repository = _remembered.repositories.get(root)
        if repository is None:
            repository = _remembered.repositories[root] = ops.git_facts(root)

    def touched(where: dict[str, Any]) -> bool:
        return _touched(changed, [path, where["documentPath"]])

    try:  # located, read and parsed once: validated, then re-anchored (a dry run unless fix)
        checked = ops.check(path, root=root, fix=fix, use_git=use_git, repository=repository,
                            select=touched if changed is not None else None)
    except MrsfError as error:
        return unreadable("mrsf", label, error.code, _relabel(error.message, path, label))
    if checked.get("skipped"):
        return skipped("mrsf", label, "unchanged")
    document = Path(checked["documentPath"])
    doc_label = os.path.normpath(os.path.join(os.path.dirname(label), os.path.relpath(document, Path(path).parent)))
    found: list[dict[str, Any]] = []
    lines: list[str] = []
    for level, key in (("error", "errors"), ("warning", "warnings")):
        for diag in checked[key]:
            said = _relabel(diag["message"], path, label)
            found.append(finding(label, level, diag.get("code", "invalid"), said,
                                 line=diag.get("line"), column=diag.get("column"), fails=level == "error"))
            lines.append(f"  {'ERROR' if level == 'error' else 'WARN'}: {said}"
                         + (f" ({diag['path']})" if diag.get("path") else ""))
    fixed: list[str] = []
    anchoring: dict[str, Any] | None = checked["reanchor"]
    failed = checked["reanchorError"]
    if failed is not None:
        said = _relabel(failed["message"], path, label)
        found.append(finding(label, "error", failed["code"], said))
        lines.append(f"  ERROR: {said}")
    if anchoring is not None:
        resolved = set(checked["resolved"])  # a resolved comment that lost its place fails nothing
        for result in anchoring["results"]:
            status = result.get("status")
            moved = bool(result.get("changed")) and status in ("anchored", "shifted", "fuzzy")
            old_line = (result.get("previous") or {}).get("line")
            new_line = result.get("line")
            ident = result.get("id")
            if fix and result.get("changed"):
                fixed.append(f"re-anchored {ident} ({status}"
                             + (f", line {old_line} → {new_line}" if moved and old_line != new_line else "") + ")")
            problem = status in ("orphaned", "ambiguous") or (moved and not fix)
            if not problem:
                continue
            if status == "orphaned":
                level, what = "error", "would be orphaned"
            elif status == "ambiguous":
                level, what = "warning", "is ambiguous"
            else:
                level, what = "warning", (f"would move from line {old_line} to {new_line}"
                                          if old_line != new_line else f"would change ({status})")
            reason = result.get("reason") or ""
            if old_line != new_line:  # "would move from line 9 to 12" says it already
                reason = _MOVED_TAIL.sub("", reason)
            message = f"comment {ident} {what}" + (f": {reason}" if reason else "")
            is_resolved = ident in resolved
            code = "reanchor:moved" if status not in ("orphaned", "ambiguous") else f"reanchor:{status}"
            # located where the text is now: the line the re-anchoring found (a moved
            # comment's old line, in the edited document, holds something else); an orphaned
            # or ambiguous comment has no new place, so its old line is all there is
            at = new_line if status not in ("orphaned", "ambiguous") and isinstance(new_line, int) else old_line
            found.append(finding(doc_label, "note" if is_resolved else level, code, message,
                                 line=at if isinstance(at, int) else None,
                                 fails=not is_resolved))
            where_at = f":{old_line}" if isinstance(old_line, int) else ""
            icon = _ICONS.get(status, "·") if status in ("orphaned", "ambiguous") else _ICONS["shifted"]
            lines.append(f"  {icon} {ident}{where_at} — {what}"
                         + (f" ({reason})" if reason else ""))
    data: dict[str, Any] = {"sidecar": label, "document": doc_label, "valid": bool(checked["valid"]),
                            "errors": checked["errors"], "warnings": checked["warnings"]}
    if anchoring is not None:
        data["reanchor"] = {"results": anchoring["results"], "counts": anchoring.get("counts", {}),
                            "dryRun": anchoring.get("dryRun", not fix)}
    if fixed:
        data["fixed"] = fixed
    report = None
    if lines:
        mark = "✗" if any(item["fails"] for item in found) else "✓"
        report = "\n".join(escape_controls(line) for line in [f"{mark} {label}", *lines])
    return outcome("mrsf", label, findings=found, fixed=fixed, report=report, data=data)


# --- dispatch ---------------------------------------------------------------------------------


class _Remembered:
    """Facts about folders that hold for one run and are asked for again by every sidecar
    in them: the MRSF workspace root of a folder, and the git work tree and HEAD of a
    workspace root (asking git means starting it).  Forgotten when a run starts and ends
    (:func:`forget`); a worker process keeps them for its part of the run."""

    def __init__(self) -> None:
        self.roots: dict[str, Path] = {}
        self.repositories: dict[Path, tuple[Path | None, str | None]] = {}


_remembered = _Remembered()


def forget() -> None:
    """Drop what :class:`_Remembered` holds (the tree may change between runs)."""
    global _remembered
    _remembered = _Remembered()



def run_task(task: tuple[str, str, str], fix: bool = False, changed: frozenset[str] | None = None,
             use_git: bool = False) -> dict[str, Any]:
    """Check one task; never raises (a failing engine gives a ``crashed`` outcome)."""
    engine, path, label = task
    try:
        if engine == "visimark":
            return check_visimark(path, label, fix=fix, changed=changed)
        if engine == "figdown":
            return check_figdown(path, label, fix=fix, changed=changed)
        if engine == "mrsf":
            return check_mrsf(path, label, fix=fix, changed=changed, use_git=use_git)
        raise ValueError(f"unknown engine {engine!r}")
    except FileAccessError as error:
        return unreadable(engine, label, error.code, error.message)
    except (KeyboardInterrupt, SystemExit):
        raise
    except Exception as error:  # a bug in an engine: reported as such, the run goes on
        return crashed(engine, label, error)


def preload(engines: Iterable[str] = ("visimark", "figdown", "mrsf")) -> None:
    """Import these engines now, with the modules they import on first use (the re-anchoring
    engine and the YAML resolver it asks about plain scalars), so forked workers share them
    instead of each importing them again."""
    chosen = set(engines)
    if "figdown" in chosen:
        import markmcp.figdown.artifacts  # noqa: F401
        import markmcp.figdown.render  # noqa: F401
        import markmcp.figdown.report  # noqa: F401
    if "mrsf" in chosen:
        import markmcp.mrsf.discovery  # noqa: F401
        import markmcp.mrsf.ops  # noqa: F401
        import markmcp.mrsf.reanchor  # noqa: F401
        from markmcp.mrsf.yamlscan import resolve_plain

        resolve_plain("2026-01-01")  # loads the resolver (a timestamp asks it)
    if "visimark" in chosen:
        import markmcp.visimark.check  # noqa: F401
        import markmcp.visimark.disk  # noqa: F401
        import markmcp.visimark.report  # noqa: F401
        import markmcp.visimark.write  # noqa: F401
