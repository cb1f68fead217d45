"""Evaluation: compile each expression once into a function of the table row, run it for
every row (or once, for a scalar or an assertion), round half-up at the binding's
width, and compare the result with what the document writes.

A value that cannot be computed because of something already reported raises
``Unevaluable`` and folds into one ``NOTE``; a fault of the value itself (division by
zero, a wrong operand type) is an ``EvalError`` reported on the binding.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from itertools import compress, count
from datetime import date, timedelta
from decimal import ROUND_HALF_UP, Decimal, DivisionByZero, InvalidOperation, Overflow

from . import lang, syntax
from .builtins import NOT_FINITE, REGISTRY, Bracketed, EvalError, irr_undetermined, map_call, reduce_call, type_word
from .findings import Finding
from .graph import children
from .inputs import _PENDING, _NotAtOnce
from .model import Node
from .results import BOOLEAN_BINDING, AssertionResult, Edit, Unevaluable, UnitError
from .values import WORKING_DIGITS, CellNumber, Decoration, parse_cell_number, quantum, render


DECIMAL_OPS: dict[str, Callable[[Decimal, Decimal], Decimal]] = {
    "+": operator.add, "-": operator.sub, "*": operator.mul,
}


#: A compiled expression: its value for a table row (None outside a table).
Evaluator = Callable[[int | None], object]


def too_large(places: int) -> str:
    """The working-precision ceiling, in the words upstream's tutorial quotes (chapter 14)."""
    return (f"this value is too large to carry {places} decimals: {places} decimals past its integer digits "
            f"exceeds the {WORKING_DIGITS}-significant-digit working precision")


class Evaluation:
    """Phase 4: every binding's value, rounded where it is bound; every written
    cell compared with its recomputation; every assertion decided."""

    def bind(self, node: Node, v: object) -> object:
        """Round a value at its binding's governing width (half-up)."""
        if isinstance(v, bool):
            raise EvalError(BOOLEAN_BINDING)
        if isinstance(v, Decimal):
            p = self.prec.get(node.id)
            if p is not None:
                if v.adjusted() + 1 + p > WORKING_DIGITS:
                    raise EvalError(too_large(p), "PRECISION")
                if isinstance(v, Bracketed) and not v.settled_at(p):
                    raise EvalError(irr_undetermined(p), "PRECISION")
                return v.quantize(quantum(p), rounding=ROUND_HALF_UP)
        return v

    def eval_column(self, node: Node) -> None:
        sheet = self.sheet_of(node)
        assert sheet is not None and sheet.table is not None and node.column is not None
        table = sheet.table
        idx = sheet.columns[node.column].index
        key = (sheet.id, node.column)
        deco = self.col_decoration.get(key)
        conflicted = key in self.unit_conflict
        prec = self.prec.get(node.id)
        formula = self.m.source[node.expr.start:node.expr.end]
        out: list[object | None] = []
        upstream = 0
        causes: set[str | None] = set()
        whole = self.column_at_once(node.expr, node, table.height)
        q = quantum(prec) if prec is not None else None
        limit = WORKING_DIGITS - 1 - (prec or 0)
        if isinstance(whole, list) and prec is not None and 0 <= prec <= 6:
            done = self._whole_column(whole, prec, limit)
            if done is not None:
                self.cells[node.id] = done
                self._compare_column(node, done, prec, deco, conflicted, formula)
                return
        fn = whole.__getitem__ if isinstance(whole, list) else self.compile(node.expr, node)
        for r, stored in enumerate(table.column(idx)):
            rounded = False
            try:
                v = fn(r)
                if type(v) is Decimal and q is not None:
                    # the common case of bind(), inline: round at the column's width
                    if v.adjusted() > limit:
                        raise EvalError(too_large(prec), "PRECISION")
                    v = v.quantize(q, rounding=ROUND_HALF_UP)
                    rounded = True
                else:
                    v = self.bind(node, v)
            except (InvalidOperation, Overflow):
                out.append(None)
                cell = table.cell(r, idx)
                self.emit(Finding("TYPE", sheet.id, node.name, NOT_FINITE,
                                  row_label=self.row_label(sheet, r), span=(cell.start, cell.end)))
                continue
            except DivisionByZero:
                out.append(None)
                cell = table.cell(r, idx)
                self.emit(Finding("TYPE", sheet.id, node.name, "division by zero",
                                  row_label=self.row_label(sheet, r), span=(cell.start, cell.end)))
                continue
            except Unevaluable as e:
                out.append(None)
                upstream += 1
                causes.add(e.cause)
                self.row_cause[(node.id, r)] = e.cause
                continue
            except EvalError as e:
                out.append(None)
                if e.message == BOOLEAN_BINDING:
                    self.emit(Finding("TYPE", sheet.id, node.name, BOOLEAN_BINDING, span=(node.stmt.start, node.stmt.end)))
                    self.unevaluable.add(node.id)
                    self.cells[node.id] = out + [None] * (table.height - len(out))
                    return
                cell = table.cell(r, idx)
                self.emit(Finding(e.code, sheet.id, node.name, e.message, row_label=self.row_label(sheet, r),
                                  span=(cell.start, cell.end)))
                continue
            out.append(v)
            # a value just rounded to the width already has its exponent: write it as it is
            text = f"{v:f}" if rounded and v else render(v, prec)
            if deco is not None and isinstance(v, Decimal):
                text = deco.apply(text)
            if conflicted or stored == text or cell_matches(stored, text, v, prec):
                continue
            cell = table.cell(r, idx)
            self.emit(Finding("STALE", sheet.id, node.name, row_label=self.row_label(sheet, r), row_index=r,
                              stored=stored, computed=text, formula=formula, is_cell=True,
                              span=(cell.start, cell.end)))
            self.edits.append(Edit(cell.start, cell.end, text, "cell"))
        self.cells[node.id] = out
        if upstream:
            self.emit(Finding("NOTE", sheet.id, node.name, suppressed_count=upstream,
                              message=f"{upstream} row{'s' if upstream != 1 else ''} not verified "
                                      f"(upstream {next(iter(causes)) + ' ' if len(causes) == 1 and None not in causes else ''}errors)"))

    @staticmethod
    def _whole_column(values: list[Decimal], prec: int, limit: int) -> list[Decimal] | None:
        """Every value of a column computed at once, rounded half-up to ``prec`` decimals;
        None when one is too large to carry them or cannot be rounded, and the column is
        then taken row by row (which reports that row)."""
        if values and max(map(Decimal.adjusted, values)) > limit:
            return None
        q = quantum(prec)
        try:
            return [v.quantize(q, rounding=ROUND_HALF_UP) for v in values]
        except ArithmeticError:
            return None

    def _compare_column(self, node: Node, values: list[Decimal], prec: int, deco: Decoration | None,
                        conflicted: bool, formula: str) -> None:
        """Compare a column computed at once (rounded to ``prec``, at most 6) with what its
        cells say: each cell that differs is STALE, in row order, and rewritten."""
        sheet = self.sheet_of(node)
        assert sheet is not None and sheet.table is not None and node.column is not None
        if conflicted:
            return
        table = sheet.table
        idx = sheet.columns[node.column].index
        # with its exponent at -prec >= -6, a nonzero value's str() is its fixed notation; a
        # zero (perhaps negative) is written as render() writes it
        texts = list(map(str, values))
        for r in compress(count(), map(operator.not_, values)):
            texts[r] = render(values[r], prec)
        if deco is not None:
            texts = list(map(deco.apply, texts))
        stored = table.column(idx)
        for r in compress(count(), map(operator.ne, stored, texts)):
            text, v = texts[r], values[r]
            if cell_matches(stored[r], text, v, prec):
                continue
            cell = table.cell(r, idx)
            self.emit(Finding("STALE", sheet.id, node.name, row_label=self.row_label(sheet, r), row_index=r,
                              stored=stored[r], computed=text, formula=formula, is_cell=True,
                              span=(cell.start, cell.end)))
            self.edits.append(Edit(cell.start, cell.end, text, "cell"))

    def column_at_once(self, e: syntax.Node, node: Node, height: int) -> list[Decimal] | Decimal | None:
        """The rule's value for every row at once, when it is sums, differences and
        products of numbers only (bare-number input cells, computed cells that all have a
        value, numeric scalars and literals); None otherwise, and the rule is evaluated
        row by row.  The arithmetic is the same operations in the same order, so the
        values are the same; only the per-row calls are saved."""
        try:
            return self._at_once(e, node, height)
        except (ArithmeticError, _NotAtOnce):
            return None

    def _at_once(self, e: syntax.Node, node: Node, height: int) -> list[Decimal] | Decimal:
        if isinstance(e, syntax.Num):
            return e.value
        if isinstance(e, syntax.Ref):
            r = self.resolve(node.sheet, e)
            if r.kind == "scalar" and r.node is not None:
                v = self.values.get(r.node.id)
                if r.node.id in self.unevaluable or type(v) is not Decimal:
                    raise _NotAtOnce()
                return v
            if r.kind == "column" and r.node is not None and r.sheet is not None and r.sheet.id == node.sheet:
                col = self.cells.get(r.node.id)
                if r.node.id in self.unevaluable or col is None or not set(map(type, col)) <= {Decimal}:
                    raise _NotAtOnce()
                return col  # type: ignore[return-value]
            if r.kind == "input" and r.sheet is not None and r.sheet.id == node.sheet and r.column is not None:
                return self.plain_input(r.sheet, r.column)
            raise _NotAtOnce()
        if isinstance(e, syntax.Unary) and e.op == "-":
            v = self._at_once(e.operand, node, height)
            return [-x for x in v] if isinstance(v, list) else -v
        if isinstance(e, syntax.Binary) and e.op in DECIMAL_OPS:
            op = DECIMAL_OPS[e.op]
            a, b = self._at_once(e.left, node, height), self._at_once(e.right, node, height)
            if isinstance(a, list) and isinstance(b, list):
                return list(map(op, a, b))
            if isinstance(a, list):
                return [op(x, b) for x in a]
            if isinstance(b, list):
                return [op(a, y) for y in b]
            return op(a, b)
        raise _NotAtOnce()

    def eval_scalar(self, node: Node) -> None:
        try:
            v = self.bind(node, self.ev(self.compile(node.expr, node), None))
        except Unevaluable:
            self.unevaluable.add(node.id)
            return
        except EvalError as e:
            self.unevaluable.add(node.id)
            self.emit(Finding(e.code, node.sheet or None, node.name, e.message, span=(node.stmt.start, node.stmt.end)))
            return
        self.values[node.id] = v

    def eval_assert(self, node: Node, deps: set[str], problems: list[Finding]) -> None:
        src = node.stmt.source
        payload = strip_assert(src)
        if problems:
            for f in problems:
                f.source = src
                self.emit(f)
            self.assertions[node.id] = AssertionResult(node.sheet, src, None, {}, payload)
            return
        if any(d in self.unevaluable for d in deps):
            self.assertions[node.id] = AssertionResult(node.sheet, src, None, {}, payload)
            self.assert_suppressed[node.sheet] = self.assert_suppressed.get(node.sheet, 0) + 1
            return
        try:
            self.unit_of(node.expr, node)
        except UnitError as e:
            self.emit(Finding("UNIT", node.sheet, None, e.message, source=src, assertion_scoped=True,
                              span=(node.stmt.start, node.stmt.end)))
            self.assertions[node.id] = AssertionResult(node.sheet, src, None, {}, payload)
            return
        try:
            v = self.ev(self.compile(node.expr, node), None)
        except Unevaluable:
            self.assertions[node.id] = AssertionResult(node.sheet, src, None, {}, payload)
            self.assert_suppressed[node.sheet] = self.assert_suppressed.get(node.sheet, 0) + 1
            return
        except EvalError as e:
            self.assertions[node.id] = AssertionResult(node.sheet, src, None, {}, payload)
            self.emit(Finding(e.code, node.sheet, None, e.message, source=src, assertion_scoped=True))
            return
        if not isinstance(v, bool):
            self.assertions[node.id] = AssertionResult(node.sheet, src, None, {}, payload)
            self.emit(Finding("TYPE", node.sheet, None, f"assert needs a boolean; `{payload}` is {type_word(v)}",
                              source=src, assertion_scoped=True))
            return
        operands, substituted = self.substitute(node)
        self.assertions[node.id] = AssertionResult(node.sheet, src, v, operands, substituted)
        if not v:
            self.emit(Finding("ASSERT", node.sheet, None, substituted, source=src, assertion_scoped=True,
                              substituted=substituted, span=(node.stmt.start, node.stmt.end)))

    def operand_text(self, node: Node, ref: syntax.Ref) -> str:
        r = self.resolve(node.sheet, ref)
        if r.node is None or r.node.id not in self.values:
            return ref.text
        v = self.values[r.node.id]
        return render(v, self.prec.get(r.node.id) if isinstance(v, Decimal) else None)

    def substitute(self, node: Node) -> tuple[dict[str, str], str]:
        expr = node.expr
        text = self.m.source[expr.start:expr.end]
        subs: list[tuple[int, int, str]] = []
        operands: dict[str, str] = {}

        def walk(e: syntax.Node) -> None:
            if isinstance(e, syntax.Ref):
                shown = self.operand_text(node, e)
                operands[e.text] = shown
                subs.append((e.start - expr.start, e.end - expr.start, shown))
            for c in children(e):
                walk(c)

        walk(expr)
        for a, b, s in sorted(subs, reverse=True):
            text = text[:a] + s + text[b:]
        return operands, text

    def ev(self, fn: Evaluator, row: int | None) -> object:
        """Run a compiled expression for one row, decimal traps reported as evaluation errors."""
        try:
            return fn(row)
        except (InvalidOperation, Overflow):
            raise EvalError(NOT_FINITE) from None
        except DivisionByZero:
            raise EvalError("division by zero") from None

    def compile(self, e: syntax.Node, node: Node) -> Evaluator:
        """``e``, part of ``node``'s expression, as a function of the table row it is
        evaluated for (None for a scalar or an assertion).

        Names are resolved and operators dispatched here, once per expression rather than
        once per cell; values are read when the function runs.  Operands are evaluated left
        to right, ``and``/``or`` short-circuit and ``IF`` evaluates only the branch taken.
        """
        if isinstance(e, (syntax.Num, syntax.DateLit, syntax.Str)):
            value = e.value
            return lambda row: value
        if isinstance(e, syntax.Ref):
            return self._compile_ref(e, node)
        if isinstance(e, syntax.Unary):
            return self._compile_unary(e, node)
        if isinstance(e, syntax.Binary):
            return self._compile_binary(e, node)
        if isinstance(e, syntax.Call):
            return self._compile_call(e, node)

        def unknown(row: int | None) -> object:
            raise EvalError("unknown expression")

        return unknown

    def _compile_ref(self, ref: syntax.Ref, node: Node) -> Evaluator:
        r = self.resolve(node.sheet, ref)
        values, cells, unevaluable = self.values, self.cells, self.unevaluable
        if r.kind == "scalar" and r.node is not None:
            scalar_id = r.node.id

            def scalar(row: int | None) -> object:
                if scalar_id in unevaluable or scalar_id not in values:
                    raise Unevaluable()
                return values[scalar_id]

            return scalar
        if r.kind == "column" and r.node is not None:
            column_id = r.node.id

            def computed_cell(row: int | None) -> object:
                if row is None:
                    raise Unevaluable()
                col = cells.get(column_id)
                v = col[row] if col is not None else None
                if v is None:
                    raise Unevaluable(self.row_cause.get((column_id, row)))
                return v

            return computed_cell
        if r.kind == "input" and r.sheet is not None and r.column is not None and r.sheet.table is not None:
            sheet, column = r.sheet, r.column
            key = (sheet.id, column)
            values = self.input_values.get(key)
            if values is None:
                values = self.input_values[key] = [_PENDING] * sheet.table.height
            read = self._read_input

            def input_cell(row: int | None) -> object:
                if row is None:
                    raise Unevaluable()
                v = values[row]
                if v is _PENDING:
                    v = values[row] = read(sheet, column, row)
                if type(v) is Unevaluable:
                    raise v
                return v

            return input_cell

        def unresolved(row: int | None) -> object:
            raise Unevaluable()

        return unresolved

    def _compile_unary(self, e: syntax.Unary, node: Node) -> Evaluator:
        operand = self.compile(e.operand, node)
        if e.op == "not":
            def negation(row: int | None) -> object:
                v = operand(row)
                if not isinstance(v, bool):
                    raise EvalError(f"`not` needs a boolean, not {type_word(v)}")
                return not v

            return negation

        def minus(row: int | None) -> object:
            v = operand(row)
            if isinstance(v, bool) or not isinstance(v, Decimal):
                raise EvalError(f"cannot negate {type_word(v)}")
            return -v

        return minus

    def _compile_binary(self, e: syntax.Binary, node: Node) -> Evaluator:
        left, right = self.compile(e.left, node), self.compile(e.right, node)
        op = e.op
        if op in ("and", "or"):
            decisive = op == "or"  # the left value that settles the result on its own

            def logic(row: int | None) -> object:
                a = left(row)
                if not isinstance(a, bool):
                    raise EvalError(f"`{op}` needs booleans, not {type_word(a)}")
                if a is decisive:
                    return a
                b = right(row)
                if not isinstance(b, bool):
                    raise EvalError(f"`{op}` needs booleans, not {type_word(b)}")
                return b

            return logic
        plain = DECIMAL_OPS.get(op)
        if plain is None:
            return lambda row: binary(op, left(row), right(row))

        def arithmetic(row: int | None) -> object:
            a = left(row)
            b = right(row)
            if type(a) is Decimal and type(b) is Decimal:
                return plain(a, b)  # the common case, without binary()'s type checks
            return binary(op, a, b)

        return arithmetic

    def _compile_call(self, e: syntax.Call, node: Node) -> Evaluator:
        name = e.name
        if REGISTRY[name].kind == "reduce":
            col_ref = e.args[-1]
            assert isinstance(col_ref, syntax.Ref)
            extra = [self.compile(a, node) for a in e.args[:-1]]

            def reduce(row: int | None) -> object:
                values = self.vector(col_ref, node)
                return reduce_call(name, values, [f(row) for f in extra])

            return reduce
        args = [self.compile(a, node) for a in e.args]
        if name == "IF":
            cond, then, otherwise = args

            def choose(row: int | None) -> object:
                c = cond(row)
                if not isinstance(c, bool):
                    raise EvalError(f"IF needs a boolean condition, not {type_word(c)}")
                return then(row) if c else otherwise(row)

            return choose
        return lambda row: map_call(name, [f(row) for f in args])

    def vector(self, ref: syntax.Ref, node: Node) -> list[object]:
        r = self.resolve(node.sheet, ref)
        if r.kind == "column" and r.node is not None:
            if r.node.id in self.unevaluable:
                raise Unevaluable()
            col = self.cells.get(r.node.id)
            if col is None or any(v is None for v in col):
                raise Unevaluable()
            return list(col)  # type: ignore[arg-type]
        if r.kind == "input" and r.sheet is not None and r.column is not None and r.sheet.table is not None:
            return [self.input_value(r.sheet, r.column, i) for i in range(r.sheet.table.height)]
        raise Unevaluable()


def strip_assert(source: str) -> str:
    return source[len("assert"):].strip() if source.startswith("assert") else source


def cell_matches(stored: str, text: str, value: object, places: int | None = None) -> bool:
    """Whether a written cell or anchor holds ``value``, whose rendering is ``text``.

    check compares numbers, not spellings, as upstream's engine does (its matchesStored:
    the written number and the value, each rounded half-up to the binding's width, are
    equal; kept "on purpose" by its display-rule spec, and what its tutorial teaches):
    ``39.88%`` and ``0.3988``, or ``0.19`` and ``0.190``, are one number.  fmt still
    writes the form ``text``."""
    if stored == text:
        return True
    if isinstance(value, Decimal) and not isinstance(value, bool):
        num = parse_cell_number(stored)
        if not isinstance(num, CellNumber):
            return False
        if places is None:
            return num.value == value
        q = quantum(places)
        try:
            return num.value.quantize(q, rounding=ROUND_HALF_UP) == value.quantize(q, rounding=ROUND_HALF_UP)
        except ArithmeticError:  # more digits than the working precision holds at that width
            return False
    return False


def binary(op: str, a: object, b: object) -> object:
    if op in lang.COMPARISONS:
        return compare(op, a, b)
    a_num = isinstance(a, Decimal) and not isinstance(a, bool)
    b_num = isinstance(b, Decimal) and not isinstance(b, bool)
    if isinstance(a, date) and op in ("+", "-"):
        if isinstance(b, date) and op == "-":
            return Decimal((a - b).days)
        if b_num:
            assert isinstance(b, Decimal)
            if b != b.to_integral_value():
                raise EvalError("a date moves by a whole number of days")
            try:
                return a + timedelta(days=int(b) if op == "+" else -int(b))
            except OverflowError:
                raise EvalError("date outside years 1–9999", "DATE") from None
    if isinstance(b, date) and op == "+" and a_num:
        return binary("+", b, a)
    if not (a_num and b_num):
        raise EvalError(f"`{op}` expects a number")
    assert isinstance(a, Decimal) and isinstance(b, Decimal)
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op == "/":
        if b == 0:
            raise EvalError("division by zero")
        return a / b
    if op == "^":
        return power(a, b)
    raise EvalError(f"unknown operator `{op}`")


def power(a: Decimal, b: Decimal) -> Decimal:
    """``a ^ b`` as upstream's engine computes it (decimal.js's ``pow`` at 40 digits, its
    result refused when it is not finite, per upstream's division-by-zero spec §3-§4):
    anything to the power 0 is 1, ``0 ^ 0`` included; 0 to a positive power is 0 and to
    a negative one is infinite; a negative base with a fractional exponent has no real
    value.  Any exponent is taken, however large: the result is refused only when it
    leaves the decimal range (past 1e999999 here; upstream's reaches 1e9e15, so a power
    between the two is refused here where upstream computes it and then meets the
    working-precision ceiling at its binding).  A result too small for that range is 0."""
    if not b:
        return Decimal(1)
    if not a:
        if b < 0:
            raise EvalError(NOT_FINITE)
        return Decimal(0)
    if a < 0 and b != b.to_integral_value():
        raise EvalError(NOT_FINITE)
    return a ** b  # an overflow is trapped and reported as NOT_FINITE by the caller


def compare(op: str, a: object, b: object) -> bool:
    same = (isinstance(a, Decimal) and isinstance(b, Decimal)) or (isinstance(a, date) and isinstance(b, date)) or (
        isinstance(a, str) and isinstance(b, str))
    if isinstance(a, bool) or isinstance(b, bool) or not same:
        if op in ("==", "!=") and isinstance(a, bool) and isinstance(b, bool):
            return (a == b) if op == "==" else (a != b)
        raise EvalError(f"`{op}` cannot compare {type_word(a)} with {type_word(b)}")
    if isinstance(a, str) and op not in ("==", "!="):
        raise EvalError(f"`{op}` cannot order strings")
    if op == "==":
        return a == b
    if op == "!=":
        return a != b
    if op == "<":
        return a < b  # type: ignore[operator]
    if op == "<=":
        return a <= b  # type: ignore[operator]
    if op == ">":
        return a > b  # type: ignore[operator]
    return a >= b  # type: ignore[operator]
