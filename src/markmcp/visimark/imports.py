"""Declared local imports: a sheet whose table is a CSV file beside the document.

    vmark #id from PATH [delimited C] [labelled A, B, … | unlabelled A, B, …] [at sha256:DIGEST]

The fence info is parsed when the model is built (:mod:`.import_decl`); the file is
resolved when the document is checked (:func:`resolve_imports`), before any binding is
analysed, in a fixed order that stops at the first failure: path gate, file present,
stamp well-formed, stamp matches, CSV parses, header names distinct and identifiers,
``labelled`` matches (``unlabelled``: every row as wide as the declared names).

A stamp that does not match is ``STALE``, and ``fmt`` rewrites only the digest; a
missing stamp is ``IMPORT`` and ``fmt`` adds it; every other failure is ``IMPORT``.
The CSV is read through the file port and never written.  Its fields are read with
the table-cell literal grammar (a date-shaped string is a string here, not a DATE).
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Callable

from .findings import Finding
from .import_decl import ImportDecl
from .locate import Cell, Table
from .model import Column, Model, Sheet
from .port import Files, PortError, gate, port_problem
from .results import Edit

WHAT = "imported file path"
DIGEST_RE = re.compile(r"[0-9a-f]{64}")
IDENT_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
FIELD_LIMIT = 16 * 1024 * 1024


class ImportedTable(Table):
    """A table read from a CSV file: its cells have no place in the document, so every
    cell reports the import declaration's span."""

    def cell(self, row: int, col: int) -> Cell:
        return Cell(self.text(row, col), self.start, self.end)


# -------------------------------------------------------------------- the CSV


def read_csv(text: str, delimiter: str) -> list[list[str]]:
    """Rows of fields (RFC 4180 through the standard ``csv`` module); ValueError with the
    IMPORT message when the text is not a CSV this grammar accepts."""
    if not text:
        raise ValueError("empty file (not even a header row)")
    crlf = "\r\n" in text
    rest = text.replace("\r\n", "")
    if crlf and ("\n" in rest or "\r" in rest):
        raise ValueError("mixed line endings — the file mixes CRLF and bare LF/CR")
    import csv  # here, not at the top: only a document that imports a CSV pays for it
    import io

    csv.field_size_limit(max(csv.field_size_limit(), FIELD_LIMIT))
    try:
        rows = [row or [""] for row in csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)]
    except csv.Error as e:
        raise ValueError("unterminated quoted field" if "end of data" in str(e) else f"malformed CSV: {e}") from None
    if not rows:
        raise ValueError("empty file (not even a header row)")
    return rows


# ------------------------------------------------------------------ resolution


def resolve_imports(model: Model, files: Files | None, emit: Callable[[Finding], object],
                    edits: list[Edit]) -> None:
    """Give every imported sheet its table, or report why it has none: findings go to
    ``emit``, the stamps ``fmt`` may write to ``edits``."""
    for sheet in model.sheets.values():
        decl = sheet.import_decl
        if decl is not None:
            _resolve(model, files, emit, edits, sheet, decl)


def _fail(emit: Callable[[Finding], object], sheet: Sheet, message: str, span: tuple[int, int]) -> None:
    assert sheet.import_decl is not None
    sheet.import_decl.state = "error"
    sheet.import_failed = True
    emit(Finding("IMPORT", sheet.id, None, message, assertion_scoped=True, span=span))


def _resolve(model: Model, files: Files | None, emit: Callable[[Finding], object], edits: list[Edit],
             sheet: Sheet, decl: ImportDecl) -> None:
    if files is None:
        decl.state = "skipped"  # no folder to read from: nothing can be verified, nothing is claimed
        sheet.import_failed = True
        return
    refused = gate(decl.path, WHAT, ".csv")
    if refused:
        _fail(emit, sheet, refused, decl.path_span)
        return
    try:
        raw = files.read(decl.path)
    except PortError as e:
        _fail(emit, sheet,
              port_problem(e, WHAT, decl.path) if e.code == "outside" else f"cannot read `{decl.path}`: {e.message}",
              decl.path_span)
        return
    if raw is None:
        _fail(emit, sheet, f"imported file not found: `{decl.path}`", decl.path_span)
        return
    from hashlib import sha256  # only a document that imports a CSV needs it

    digest = sha256(raw).hexdigest()
    decl.digest = digest
    if decl.stamp_span is not None:
        if decl.stamp_prefix != "sha256":
            _fail(emit, sheet,
                  f"unrecognised stamp prefix `{decl.stamp_prefix or ''}` — only `sha256:` is supported",
                  decl.stamp_span)
            return
        stamp = decl.stamp_digest or ""
        if not DIGEST_RE.fullmatch(stamp):
            reason = ("wrong length" if len(stamp) != 64 else
                      "uppercase hex" if re.search(r"[A-F]", stamp) else "non-hex character")
            _fail(emit, sheet, f"malformed digest ({reason})", decl.stamp_span)
            return
    state = "ok"
    if decl.stamp_span is not None and decl.stamp_digest != digest:
        state = "stale"
        emit(Finding("STALE", sheet.id, None, f"`{decl.path}` does not match its recorded stamp — "
                     f"expected sha256:{decl.stamp_digest}, got sha256:{digest}", artifact=decl.path,
                     span=decl.stamp_span))
        assert decl.digest_span is not None
        edits.append(_edit(decl.digest_span, digest))
    elif decl.stamp_span is None:
        state = "unstamped"
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        _fail(emit, sheet, f"`{decl.path}` is not UTF-8 text (byte 0x{raw[e.start]:02x} at offset {e.start})",
              decl.decl_span)
        return
    try:
        rows = read_csv(text.removeprefix("\ufeff"), decl.delimiter)
    except ValueError as e:
        _fail(emit, sheet, str(e), decl.decl_span)
        return
    unlabelled = decl.mode == "unlabelled"
    names = list(decl.labels or []) if unlabelled else rows[0]
    body = rows if unlabelled else rows[1:]
    where = decl.labels_span or decl.decl_span if unlabelled else decl.decl_span
    dupes = [n for i, n in enumerate(names) if n in names[:i]]
    if dupes:
        listed = ", ".join(f"`{d}`" for d in dict.fromkeys(dupes))
        _fail(emit, sheet, f"duplicate column {listed} " + ("in `unlabelled` declaration" if unlabelled
                                                            else "in imported header"), where)
        return
    bad = next((n for n in names if not IDENT_RE.fullmatch(n)), None)
    if bad is not None:
        _fail(emit, sheet, f"{'declared' if unlabelled else 'imported'} column `{bad}` is not a valid identifier",
              where)
        return
    if decl.mode == "labelled" and decl.labels != names:
        _fail(emit, sheet, f"labelled header does not match: expected [{', '.join(decl.labels or [])}], "
                           f"got [{', '.join(names)}]", decl.labels_span or decl.decl_span)
        return
    if unlabelled:
        for r, row in enumerate(body, 1):
            if len(row) != len(names):
                word = "too few" if len(names) < len(row) else "too many"
                _fail(emit, sheet, f"{word} names: declared {len(names)}, row {r} has {len(row)} fields", where)
                return
    _attach(model, emit, sheet, decl, names, body)
    decl.state = state
    if state == "unstamped":
        emit(Finding("IMPORT", sheet.id, None, "unstamped import", assertion_scoped=True, span=decl.decl_span))
        edits.append(_edit((decl.decl_span[1], decl.decl_span[1]), f" at sha256:{digest}"))


def _edit(span: tuple[int, int], text: str) -> Edit:
    return Edit(span[0], span[1], text, "stamp")


def _attach(model: Model, emit: Callable[[Finding], object], sheet: Sheet, decl: ImportDecl, names: list[str],
            body: list[list[str]]) -> None:
    start, end = decl.decl_span
    width = len(names)
    texts: list[str] = []
    for row in body:
        texts += row[:width] + [""] * (width - len(row))
    header = tuple(Cell(n, start, end) for n in names)
    sheet.table = ImportedTable(header, texts, array("q", [start, end] * len(body)), model.source, start, end, 0)
    sheet.columns = {n: Column(n, i, header[i]) for i, n in enumerate(names)}
    # a binding named like an imported column would be a column rule, and there is no cell to write
    for name in names:
        node = sheet.scalars.pop(name, None)
        if node is None:
            continue
        model.nodes.remove(node)
        emit(Finding("IMPORT", sheet.id, name, f"column rule on an imported sheet: `{name}` is a read-only "
                     "imported column", assertion_scoped=True, span=(node.stmt.start, node.stmt.end)))
