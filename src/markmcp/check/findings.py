"""The engine-neutral record of what a check found, and of one checked file.

Each engine reports in its own words (its messages, its codes, its JSON shapes); this
module only gives those words a common frame, so one report, one exit code and one
SARIF log can be made from all three engines:

* a **finding** is a plain dict ``{"file", "line", "column", "level", "code",
  "message", "fails"}``: ``file`` is the path shown to the user (the document, or an
  artifact or sidecar of it), ``line``/``column`` are 1-based or None, ``level`` is
  ``error``, ``warning`` or ``note`` (the SARIF levels), and ``fails`` says whether
  the finding makes the check fail (the engine's own command would exit 1 for it);
* an **outcome** is what checking one task (a document, a source, a sidecar) gave:
  ``{"engine", "path", "status", "findings", "fixed", "report", "data"}``, where
  ``status`` is ``clean``, ``findings``, ``unreadable`` (the file was found but not
  read: a FIFO, a symlink leading out, too large, not UTF-8), ``skipped`` (not this
  engine's, or unchanged under ``--changed-since``) or ``crashed`` (an engine failed:
  the check could not run); ``fixed`` lists what ``--fix`` changed, in words;
  ``report`` is the engine's text block for the file (None when clean), its lines
  separated by newlines and every name and message in it escaped
  (:func:`markmcp.textsafe.escape_controls`: a newline in a file name cannot forge a
  line of the report); ``data`` is
  the file's entry in the engine's own JSON shape.

Everything here is plain data, so outcomes cross process boundaries as they are.
"""

from __future__ import annotations

from typing import Any

from markmcp.textsafe import escape_controls

ENGINES = ("visimark", "figdown", "mrsf")
FOLDER = "folder"
"""The ``engine`` of a folder the walk could not list: it belongs to no engine (it may
hold any engine's files), so it is in no engine's section, only among the findings."""
LEVELS = ("error", "warning", "note")
STATUSES = ("clean", "findings", "unreadable", "skipped", "crashed")


def finding(file: str, level: str, code: str, message: str, *, line: int | None = None,
            column: int | None = None, fails: bool = True) -> dict[str, Any]:
    """One finding (see the module docstring)."""
    assert level in LEVELS, level
    return {"file": file, "line": line, "column": column, "level": level, "code": code,
            "message": message, "fails": fails}


def outcome(engine: str, path: str, *, findings: list[dict[str, Any]] | None = None,
            fixed: list[str] | None = None, report: str | None = None, data: Any = None,
            status: str | None = None) -> dict[str, Any]:
    """One task's outcome; ``status`` defaults to ``findings`` when any finding fails,
    else ``clean``."""
    found = list(findings or [])
    if status is None:
        status = "findings" if any(item["fails"] for item in found) else "clean"
    assert status in STATUSES, status
    return {"engine": engine, "path": path, "status": status, "findings": found,
            "fixed": list(fixed or []), "report": report, "data": data}


def unreadable(engine: str, path: str, code: str, message: str) -> dict[str, Any]:
    """The outcome of a file that was found but not read (``code`` from
    :data:`markmcp.mcpcore.files.CODES`)."""
    return outcome(engine, path, status="unreadable",
                   findings=[finding(path, "error", f"not-read:{code}", message)],
                   report=f"NOT READ — {escape_controls(path)}\n  {escape_controls(message)}",
                   data={"path": path, "problem": {"code": code, "message": message}})


def skipped(engine: str, path: str, why: str) -> dict[str, Any]:
    return outcome(engine, path, status="skipped", data={"path": path, "skipped": why})


def crashed(engine: str, path: str, error: BaseException) -> dict[str, Any]:
    """An engine raised where it should have reported: the check could not run on this file."""
    message = f"the {engine} check failed on this file: {type(error).__name__}: {error}"
    return outcome(engine, path, status="crashed", findings=[finding(path, "error", "crash", message)],
                   report=f"COULD NOT CHECK — {escape_controls(path)}\n  {escape_controls(message)}",
                   data={"path": path, "crash": {"type": type(error).__name__, "message": str(error)}})


def line_starts(text: str) -> list[int]:
    """Offsets where each line of ``text`` begins; lines end at ``\\n``, ``\\r\\n`` or a
    bare ``\\r`` (the Markdown line endings)."""
    starts = [0]
    i = 0
    n = len(text)
    while True:
        lf = text.find("\n", i)
        cr = text.find("\r", i)
        if lf < 0 and cr < 0:
            return starts
        if cr < 0 or (0 <= lf < cr):
            i = lf + 1
        elif cr + 1 < n and text[cr + 1] == "\n":
            i = cr + 2
        else:
            i = cr + 1
        if i >= n:
            return starts
        starts.append(i)


def position(starts: list[int], offset: int) -> tuple[int, int]:
    """1-based (line, column) of a character offset, given :func:`line_starts`."""
    from bisect import bisect_right

    line = bisect_right(starts, offset)
    return line, offset - starts[line - 1] + 1
