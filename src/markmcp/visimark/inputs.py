"""Input columns: the cells a human writes, read with the table-cell literal grammar.

Each cell is read once, when a rule first needs it; a date that is not ISO 8601 is
reported (once per cell) and leaves the cell unevaluable.  A column's numbers must
share one decoration (``$``, `` kg``) or none, and agree with a unit its header
declares; a column that does not is a ``UNIT`` finding and its rows are not verified.
"""

from __future__ import annotations

import re
from decimal import Decimal

from .findings import Finding
from .locate import plain_text
from .model import Sheet
from .results import Edit, Unevaluable
from .units import UnitMap, UnitSyntaxError, format_unit, parse_unit
from .values import PLAIN_RE, CellNumber, Decoration, diagnose_date, parse_cell_number, parse_iso


_PENDING = object()  # an input cell not read yet


class _NotAtOnce(Exception):
    """A rule that must be evaluated row by row: evaluation's whole-column path gives up
    (an input column raises it when its cells are not all bare numbers)."""


# A column's cells are tested all at once, joined by NUL.  Every quantifier is possessive
# (the grammar never needs to give a character back), so the match keeps no backtracking
# state per cell and takes time linear in the column; with ordinary quantifiers a pattern
# repeating a group once per cell grew faster than the column.
_NUMBER_ONCE = r"-?\d++(?:\.\d++)?+"
ALL_PLAIN_RE = re.compile(rf"(?:(?:{_NUMBER_ONCE})?+\x00)*+(?:{_NUMBER_ONCE})?+")


_WORD_ONCE = r"[A-Za-z_][A-Za-z0-9_]*+"
ALL_WORDS_RE = re.compile(rf"(?:(?:{_WORD_ONCE})?+\x00)*+(?:{_WORD_ONCE})?+")


def every_cell(pattern: re.Pattern[str], cells: list[str]) -> bool:
    """Whether every cell of ``cells`` is what ``pattern`` (ALL_PLAIN_RE, ALL_WORDS_RE) allows."""
    return pattern.fullmatch("\x00".join(cells)) is not None


DECIMALS_RE = re.compile(r"\.(\d+)")


class InputColumns:
    """Phase 2: the columns a human writes, read once: their values, type, width
    and the one decoration their numbers share."""

    def input_info(self, sheet: Sheet, column: str) -> tuple[str, int | None]:
        """Static type and width of an input column, read off its cells."""
        key = (sheet.id, column)
        if key in self.input_cache:
            return self.input_cache[key]
        assert sheet.table is not None
        idx = sheet.columns[column].index
        kind, width = "?", None
        widths = []
        saw_date = saw_text = False
        cells = sheet.table.column(idx)
        if cells and self.bare_numbers(sheet, column) and any(cells):
            # every cell a bare number (or empty): the width is the most decimals written
            kind, width = "num", max(map(len, DECIMALS_RE.findall("\x00".join(cells))), default=0)
            self.input_cache[key] = (kind, width)
            return kind, width
        plain = PLAIN_RE.fullmatch
        for t in cells:
            if not t:
                continue
            m = plain(t)
            if m is not None:  # a bare number: its width is its decimals
                widths.append(len(m.group(3) or ""))
                continue
            num = parse_cell_number(t)
            if isinstance(num, CellNumber):
                widths.append(num.places)
            elif (not sheet.imported and diagnose_date(t) is not None) or parse_iso(t):
                saw_date = True
            else:
                saw_text = True
        if saw_text:
            kind = "str"
        elif saw_date:
            kind = "date"
        elif widths:
            kind, width = "num", max(widths)
        self.input_cache[key] = (kind, width)
        return kind, width

    def not_a_number(self, sheet: Sheet, column: str) -> tuple[int, str] | None:
        """In a column that holds numbers, the first cell that is text (row, text); None
        when no cell is a number (a column of words) or every cell is one."""
        assert sheet.table is not None
        first: tuple[int, str] | None = None
        numbers = False
        for r, t in enumerate(sheet.table.column(sheet.columns[column].index)):
            if not t:
                continue
            if PLAIN_RE.fullmatch(t) is not None or isinstance(parse_cell_number(t), CellNumber):
                numbers = True
            elif first is None and not ((not sheet.imported and diagnose_date(t) is not None) or parse_iso(t)):
                first = (r, t)
        return first if numbers else None

    def column_decoration(self, sheet: Sheet, column: str) -> Decoration | None:
        """The v1 inert decoration shared by a column's numeric cells (UNIT when mixed)."""
        key = (sheet.id, column)
        if key in self.col_decoration:
            return self.col_decoration[key]
        assert sheet.table is not None
        col = sheet.columns[column]
        table = sheet.table
        # each distinct decoration of a numeric cell, with the first row that has it
        forms: dict[Decoration | None, int] = {}
        plain = PLAIN_RE.fullmatch
        cells = table.column(col.index)
        if self.bare_numbers(sheet, column):  # bare numbers (or empty cells) only: one form, none
            first = next((r for r, t in enumerate(cells) if t), None)
            if first is not None:
                forms[None] = first
            cells = []
        elif every_cell(ALL_WORDS_RE, cells):  # plain words only: no number at all
            cells = []
        for r, t in enumerate(cells):
            if not t:
                continue
            if plain(t) is not None:  # a bare number: no decoration
                if None not in forms:
                    forms[None] = r
                continue
            num = parse_cell_number(t)
            if isinstance(num, CellNumber):
                if num.decoration not in forms:
                    forms[num.decoration] = r
            elif num == "both":
                self.unit_conflict.add(key)
                cell = table.cell(r, col.index)
                self.emit(Finding("UNIT", sheet.id, column, row_label=self.row_label(sheet, r), raw=t,
                                  message=f"`{t}` is decorated on both sides; a unit sits before the number or after it, not both",
                                  span=(cell.start, cell.end)))
                self.col_decoration[key] = None
                return None
        if col.unit is not None and column not in sheet.rules:
            kind, _ = self.input_info(sheet, column)
            if kind in ("date", "str"):
                self.unit_conflict.add(key)
                message = f"a {'date' if kind == 'date' else 'string'} cannot carry a unit"
                odd = self.not_a_number(sheet, column) if kind == "str" else None
                if odd is not None:
                    # a column of numbers with one cell that is not: that cell is the problem
                    r, t = odd
                    cell = table.cell(r, col.index)
                    self.emit(Finding("UNIT", sheet.id, column, f"{message}: the cell `{t}` is not a number "
                                      "(write a plain decimal such as 1250.50)", row_label=self.row_label(sheet, r),
                                      raw=t, span=(cell.start, cell.end)))
                else:
                    self.emit(Finding("UNIT", sheet.id, column, message, span=col.unit_span))
                self.col_decoration[key] = None
                return None
        if col.unit is not None:
            for r, t in enumerate(table.column(col.index)):
                problem = self.decoration_problem(t, col.unit, "cell", "the column declares",
                                                  "a column with a unit forbids")
                if problem is not None:
                    self.unit_conflict.add(key)
                    cell = table.cell(r, col.index)
                    self.emit(Finding("UNIT", sheet.id, column, row_label=self.row_label(sheet, r), raw=cell.text,
                                      message=problem, span=(cell.start, cell.end)))
                    self.col_decoration[key] = None
                    return None
        deco: Decoration | None = None
        if forms:
            keys = {d: self.decoration_key(d) for d in forms}
            first = next(iter(forms))
            if len(set(keys.values())) > 1:
                deviant = min(r for d, r in forms.items() if keys[d] != keys[first])
                self.unit_conflict.add(key)
                shown = []
                for d in forms:  # in order of first appearance
                    s = d.text.strip() if d else "(none)"
                    if s not in shown:
                        shown.append(s)
                cell = table.cell(deviant, col.index)
                self.emit(Finding("UNIT", sheet.id, column, row_label=self.row_label(sheet, deviant), raw=cell.text,
                                  message="column mixes units: " + " and ".join(shown),
                                  span=(cell.start, cell.end)))
            else:
                deco = first
        self.col_decoration[key] = deco
        return deco

    def decoration_key(self, d: Decoration | None) -> object:
        """Decorations compare by unit map when the suffix parses as a unit (`m^2` is `m²`)."""
        if d is None:
            return None
        if d.side == "suffix":
            try:
                return ("unit", self.m.units.expand(parse_unit(d.text.strip())))
            except UnitSyntaxError:
                pass
        return (d.side, d.text.strip())

    def decoration_problem(self, text: str, unit: UnitMap, what: str, declares: str, forbids: str) -> str | None:
        """Why a written number's decoration disagrees with a declared unit, or None."""
        num = parse_cell_number(text)
        if not isinstance(num, CellNumber):
            return None
        t = text.strip()
        if num.percent:
            return f"{t} is a ratio and cannot carry a unit"
        d = num.decoration
        if d is None:
            return None
        if d.side == "prefix":
            return f'{what} "{t}" has a prefix, which {forbids}'
        suffix = d.text.strip()
        try:
            carried = parse_unit(suffix)
        except UnitSyntaxError:
            return f'{what} "{t}" carries "{suffix}", which is not a unit'
        if not self.m.units.equal(carried, unit):
            return f'{what} "{t}" carries {suffix}, but {declares} {format_unit(unit)}'
        return None

    def row_label(self, sheet: Sheet, row: int) -> str:
        assert sheet.table is not None
        return plain_text(sheet.table.text(row, 0)) or f"row {row + 1}"

    def bare_numbers(self, sheet: Sheet, column: str) -> bool:
        """Whether every cell of the column is a bare number or empty (decided once)."""
        key = (sheet.id, column)
        known = self.bare_columns.get(key)
        if known is None:
            assert sheet.table is not None
            cells = sheet.table.column(sheet.columns[column].index)
            known = self.bare_columns[key] = every_cell(ALL_PLAIN_RE, cells)
        return known

    def plain_input(self, sheet: Sheet, column: str) -> list[Decimal]:
        """Every cell of an input column as a number, when every one is a bare number
        (no empty cell, no decoration, no date); raises otherwise.  Read once."""
        key = (sheet.id, column)
        cached = self.plain_columns.get(key)
        if cached is not None:
            return cached
        assert sheet.table is not None
        cells = sheet.table.column(sheet.columns[column].index)
        if key in self.unit_conflict or not all(cells) or not self.bare_numbers(sheet, column):
            raise _NotAtOnce()
        values = self.plain_columns[key] = list(map(Decimal, cells))
        return values

    def input_value(self, sheet: Sheet, column: str, row: int) -> object:
        """An input cell's value (number, date, text); the column's cells are read once."""
        key = (sheet.id, column)
        values = self.input_values.get(key)
        if values is None:
            assert sheet.table is not None
            values = self.input_values[key] = [_PENDING] * sheet.table.height
        v = values[row]
        if v is _PENDING:
            v = values[row] = self._read_input(sheet, column, row)
        if isinstance(v, Unevaluable):
            raise v
        return v

    def _read_input(self, sheet: Sheet, column: str, row: int) -> object:
        try:
            return self._input_cell(sheet, column, row)
        except Unevaluable as e:
            return e

    def _input_cell(self, sheet: Sheet, column: str, row: int) -> object:
        assert sheet.table is not None
        if (sheet.id, column) in self.unit_conflict:
            raise Unevaluable("UNIT")  # already reported
        idx = sheet.columns[column].index
        t = sheet.table.text(row, idx)
        if PLAIN_RE.fullmatch(t) is not None:
            return Decimal(t)
        num = parse_cell_number(t)
        if isinstance(num, CellNumber):
            return num.value
        iso = parse_iso(t)
        if iso is not None:
            return iso
        problem = None if sheet.imported else diagnose_date(t)  # an imported field is only ever text
        if problem is not None:
            key = (sheet.id, column, row)
            if key not in self.date_rows:
                self.date_rows.add(key)
                cell = sheet.table.cell(row, idx)
                self.emit(Finding("DATE", sheet.id, column, row_label=self.row_label(sheet, row), raw=problem.raw,
                                  iso_fix=problem.iso_fix, alt_a=problem.alt_a, alt_b=problem.alt_b,
                                  days_apart=problem.days_apart, span=(cell.start, cell.end)))
                if problem.iso_fix:
                    self.edits.append(Edit(cell.start, cell.end, problem.iso_fix, "date"))
            raise Unevaluable("DATE")
        if num == "both":
            raise Unevaluable("UNIT")
        return plain_text(t)
