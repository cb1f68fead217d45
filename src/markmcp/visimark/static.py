"""Static checks: what a binding is before anything is computed.

The derivation table gives each expression its type and width (a number literal its
decimals, ``*`` the sum of its operands' widths, ``/`` none: a binding that divides and
is written declares its width); the unit algebra gives its unit, checked against any
declared one.  A param's default, domain and lattice are checked here, as are unit
definitions (cycles, unused ones) and the document's coverage.
"""

from __future__ import annotations

from . import lang, syntax
from .builtins import REGISTRY
from .domain import in_domain, is_empty
from .findings import Finding
from .graph import children
from .lattice import LatticeFault
from .lattice import count as lattice_count
from .locate import NO_FORMULAS_MARKER
from .model import Node
from .results import BOOLEAN_BINDING, UnitError
from .units import DIMENSIONLESS, UnitMap, combine, format_unit, power


class StaticChecks:
    """Phase 3: before any value is computed, each binding's type, width and unit,
    and the param and unit-definition rules."""

    def derive(self, e: syntax.Node, node: Node) -> tuple[str, int | None]:
        """(type, width) of an expression, by the derivation table."""
        if isinstance(e, syntax.Num):
            return "num", e.places
        if isinstance(e, syntax.DateLit):
            return "date", None
        if isinstance(e, syntax.Str):
            return "str", None
        if isinstance(e, syntax.Ref):
            r = self.resolve(node.sheet, e)
            if r.node is not None:
                return self.vtype.get(r.node.id, "?"), self.prec.get(r.node.id)
            if r.kind == "input" and r.sheet is not None and r.column is not None:
                return self.input_info(r.sheet, r.column)
            return "?", None
        if isinstance(e, syntax.Unary):
            if e.op == "not":
                return "bool", None
            return self.derive(e.operand, node)
        if isinstance(e, syntax.Binary):
            if e.op in lang.COMPARISONS or e.op in ("and", "or"):
                return "bool", None
            lt, lp = self.derive(e.left, node)
            rt, rp = self.derive(e.right, node)
            if e.op in ("+", "-") and ("date" in (lt, rt)):
                if lt == "date" and rt == "date" and e.op == "-":
                    return "num", 0
                return "date", None
            if "str" in (lt, rt):
                return "str", None
            if e.op in ("+", "-"):
                return "num", None if lp is None or rp is None else max(lp, rp)
            if e.op == "*":
                return "num", None if lp is None or rp is None else lp + rp
            if e.op == "^":
                n = whole_literal(e.right)
                return "num", None if n is None or lp is None else lp * n
            return "num", None
        if isinstance(e, syntax.Call):
            name = e.name
            args = [self.derive(a, node) for a in e.args]
            if name in ("SUM", "MIN", "MAX"):
                t, p = args[0] if args else ("?", None)
                return (t if t != "?" else "num"), p
            if name == "COUNT":
                return "num", 0
            if name == "ROUND":
                return "num", whole_literal(e.args[1]) if len(e.args) == 2 else None
            if name in ("FLOOR", "CEILING"):
                return "num", args[1][1] if len(args) == 2 else None
            if name == "ABS":
                return "num", args[0][1] if args else None
            if name == "MOD":
                ps = [p for _, p in args]
                return "num", None if None in ps or not ps else max(ps)  # type: ignore[type-var]
            if name == "IF":
                if len(args) == 3:
                    t = args[1][0] if args[1][0] != "?" else args[2][0]
                    ps = [args[1][1], args[2][1]]
                    if t != "num":
                        return t, None
                    return "num", None if None in ps else max(ps)  # type: ignore[type-var]
                return "?", None
            if name == "EOMONTH":
                return "date", None
            return "num", None
        return "?", None

    def unit_of(self, e: syntax.Node, node: Node) -> tuple[UnitMap | None, bool]:
        """(unit map or None for non-numbers, whether any operand carries a unit)."""
        defs = self.m.units
        if isinstance(e, syntax.Num):
            return (e.unit or DIMENSIONLESS), e.unit is not None
        if isinstance(e, (syntax.DateLit, syntax.Str)):
            return None, False
        if isinstance(e, syntax.Ref):
            r = self.resolve(node.sheet, e)
            if r.node is not None:
                u = self.units.get(r.node.id)
                return u, bool(u)
            if r.kind == "input" and r.sheet is not None and r.column is not None:
                col = r.sheet.columns[r.column]
                kind, _ = self.input_info(r.sheet, r.column)
                if kind in ("date", "str"):
                    return None, False
                return (col.unit or DIMENSIONLESS), bool(col.unit)
            return DIMENSIONLESS, False
        if isinstance(e, syntax.Unary):
            u, c = self.unit_of(e.operand, node)
            return (None, c) if e.op == "not" else (u, c)
        if isinstance(e, syntax.Binary):
            lu, lc = self.unit_of(e.left, node)
            ru, rc = self.unit_of(e.right, node)
            carries = lc or rc
            if e.op in ("and", "or"):
                return None, carries
            if e.op in ("+", "-") or e.op in lang.COMPARISONS:
                if lu is None or ru is None:
                    if e.op == "-" and lu is None and ru is None:
                        return DIMENSIONLESS, carries  # date - date: a count of days
                    return None, carries
                if not (is_zero(e.left) or is_zero(e.right)) and not defs.equal(lu, ru):
                    raise UnitError(f"{e.op} needs matching units: {format_unit(lu)} and {format_unit(ru)}")
                if e.op in lang.COMPARISONS:
                    return None, carries
                return (ru if is_zero(e.left) else lu), carries
            if lu is None or ru is None:
                return None, carries
            if e.op == "*":
                return combine(lu, ru), carries
            if e.op == "/":
                return combine(lu, ru, -1), carries
            if e.op == "^":
                if not lu:
                    return DIMENSIONLESS, carries
                if isinstance(e.right, syntax.Num) and e.right.value == e.right.value.to_integral_value() and e.right.value >= 0:
                    return power(lu, int(e.right.value)), carries
                raise UnitError(f"^ needs a literal exponent when its base has a unit ({format_unit(lu)})")
        if isinstance(e, syntax.Call):
            args = [self.unit_of(a, node) for a in e.args]
            carries = any(c for _, c in args)
            maps = [u for u, _ in args]
            name = e.name

            def dimensionless(i: int, what: str) -> None:
                if i < len(maps) and maps[i]:
                    raise UnitError(f"{name}'s {what} must be dimensionless, not {format_unit(maps[i])}")

            def tied(i: int, j: int, msg: str) -> UnitMap | None:
                a, b = maps[i], maps[j]
                if a is None or b is None:
                    return a if b is None else b
                if e.implicit_step and name in ("FLOOR", "CEILING"):
                    return a
                if not (is_zero(e.args[i]) or is_zero(e.args[j])) and not defs.equal(a, b):
                    raise UnitError(f"{msg}: {format_unit(a)} and {format_unit(b)}")
                return b if is_zero(e.args[i]) else a

            if len(maps) != len(REGISTRY[name].params) if name in REGISTRY else True:
                return DIMENSIONLESS, carries
            if name in ("SUM", "MIN", "MAX", "AVG", "ABS"):
                return maps[0], carries
            if name in ("COUNT", "IRR"):
                return DIMENSIONLESS, carries
            if name == "NPV":
                dimensionless(0, "rate")
                return maps[1], carries
            if name == "ROUND":
                dimensionless(1, "places")
                return maps[0], carries
            if name == "MOD":
                return tied(0, 1, "MOD needs matching units"), carries
            if name in ("FLOOR", "CEILING"):
                return tied(0, 1, f"{name} needs matching units"), carries
            if name == "SQRT":
                u = maps[0] or DIMENSIONLESS
                odd = [a for a, x in u if x % 2]
                if odd:
                    raise UnitError(f"SQRT needs even exponents; {odd[0]} has an odd one")
                return tuple((a, x // 2) for a, x in u), carries
            if name == "IF":
                return tied(1, 2, "IF's branches need matching units"), carries
            if name == "EOMONTH":
                return None, carries
            if name == "PMT":
                dimensionless(0, "rate")
                dimensionless(1, "nper")
                return maps[2], carries
        return DIMENSIONLESS, False

    def check_unit_definitions(self) -> None:
        """CYCLE for a definition that expands back to itself, WARN for one nothing uses."""
        defs = self.m.units
        reported: set[frozenset[str]] = set()
        for d in self.m.unit_defs:
            path = defs.find_cycle(d.atom)
            if path is None:
                continue
            defs.cyclic.update(path)
            members = frozenset(path)
            if members in reported:
                continue
            reported.add(members)
            self.emit(Finding("CYCLE", None, f"[{d.atom}]", cycle_path=[f"[{a}]" for a in path],
                              span=(d.start, d.end)))
        used: set[str] = set()
        for d in self.m.unit_defs:
            used.update(a for a, _ in d.unit)
        for sheet in self.m.sheets.values():
            for col in sheet.columns.values():
                used.update(a for a, _ in col.unit or ())
        for node in self.m.nodes:
            b = node.stmt
            if isinstance(b, syntax.Binding):
                used.update(a for a, _ in b.unit or ())
                stack: list[syntax.Node] = [b.expr]
                while stack:
                    e = stack.pop()
                    if isinstance(e, syntax.Num) and e.unit:
                        used.update(a for a, _ in e.unit)
                    stack.extend(children(e))
            elif isinstance(b, syntax.Assert):
                stack = [b.expr]
                while stack:
                    e = stack.pop()
                    if isinstance(e, syntax.Num) and e.unit:
                        used.update(a for a, _ in e.unit)
                    stack.extend(children(e))
        for d in self.m.unit_defs:
            if d.atom not in used:
                self.emit(Finding("WARN", None, f"[{d.atom}]", f"[{d.atom}] is defined and never used",
                                  span=(d.start, d.end)))

    def coverage(self) -> None:
        m = self.m
        rules = len(m.nodes)
        marked = m.located.no_formulas is not None
        if marked and rules > 0:
            self.emit(Finding("COVERAGE", message=f"marked `{NO_FORMULAS_MARKER}`, but the document has {rules} rule{'s' if rules != 1 else ''}",
                              suggestion="delete the marker — those rules are checked either way",
                              span=m.located.no_formulas))
        elif (not marked and rules == 0 and m.located.tables and not m.unit_defs
              and not any(fence.lang == "vmark" for fence in m.located.fences)):
            # a document with a `vmark` block (aliases only, say) has started on its
            # rules: its other findings say what is wrong, not "there are no rules"
            self.emit(Finding("COVERAGE", message="a table with no `vmark` rules — nothing in this document is checked",
                              suggestion=f"run `visimark infer` to derive them, or mark it `{NO_FORMULAS_MARKER}`"))

    def written(self, node: Node) -> bool:
        return node.kind == "column" or bool(self.anchors_by_id.get(node.id))

    def static_checks(self, node: Node) -> bool:
        """Type, precision and unit of a binding, before any value is computed."""
        b = node.binding
        vtype, derived = self.derive(b.expr, node)
        self.vtype[node.id] = vtype
        if b.precision is not None and vtype in ("date", "str"):
            self.emit(Finding("TYPE", node.sheet or None, node.name,
                              f"a `precision` clause on a {'date' if vtype == 'date' else 'string'}-valued binding",
                              span=(b.start, b.end)))
            return False
        if vtype == "bool":
            self.emit(Finding("TYPE", node.sheet or None, node.name, BOOLEAN_BINDING, span=(b.start, b.end)))
            return False
        gov = b.precision if b.precision is not None else derived
        self.prec[node.id] = gov if vtype in ("num", "?") else None
        if vtype in ("num", "?") and gov is None and self.written(node):
            text = self.m.source[b.expr.start:b.expr.end]
            head = b.name if not b.quoted else f'"{b.name}"'
            self.emit(Finding("PRECISION", node.sheet or None, node.name,
                              f"`{text}` has no derivable precision",
                              suggestion=f"declare the width: `{head} precision N = …`",
                              span=(b.start, b.end)))
            return False
        if b.param is not None and not self.check_param(node):
            return False
        # units
        try:
            derived_unit, carries = self.unit_of(b.expr, node)
        except UnitError as e:
            self.emit(Finding("UNIT", node.sheet or None, node.name, e.message, span=(b.start, b.end)))
            return False
        declared = b.unit
        if node.kind == "column":
            sheet = self.sheet_of(node)
            assert sheet is not None and node.column is not None
            declared = sheet.columns[node.column].unit
        if declared is not None:
            if vtype in ("date", "str"):
                self.emit(Finding("UNIT", node.sheet or None, node.name,
                                  f"a {'date' if vtype == 'date' else 'string'} cannot carry a unit", span=(b.start, b.end)))
                return False
            if isinstance(b.expr, syntax.Num) and b.expr.percent or (
                    isinstance(b.expr, syntax.Unary) and isinstance(b.expr.operand, syntax.Num) and b.expr.operand.percent):
                lit = b.expr if isinstance(b.expr, syntax.Num) else b.expr.operand  # type: ignore[union-attr]
                self.emit(Finding("UNIT", node.sheet or None, node.name,
                                  f"{self.m.source[lit.start:lit.end]} is a ratio and cannot carry a unit", span=(b.start, b.end)))
                return False
            if carries and not self.m.units.equal(derived_unit or DIMENSIONLESS, declared):
                self.emit(Finding("UNIT", node.sheet or None, node.name,
                                  f"{node.name} declares {format_unit(declared)} but its formula derives "
                                  f"{format_unit(derived_unit or DIMENSIONLESS)}", span=(b.start, b.end)))
                return False
            self.units[node.id] = declared
        else:
            self.units[node.id] = derived_unit if vtype not in ("date", "str") else None
        return True

    def check_param(self, node: Node) -> bool:
        b = node.binding
        assert b.param is not None
        expr = b.expr
        lit = expr.operand if isinstance(expr, syntax.Unary) else expr
        if b.precision is None:
            self.emit(Finding("PRECISION", node.sheet or None, node.name, f"param {node.name} declares no width",
                              suggestion=f"param {node.name} precision N = default …",
                              hint=f"write `param {node.name} precision N = default …`", span=(b.start, b.end)))
            return False
        assert isinstance(lit, syntax.Num)
        places = significant_places(b.param.default_text)
        if places > b.precision:
            self.emit(Finding("PRECISION", node.sheet or None, node.name,
                              f"default {b.param.default_text} has {places} decimals; param {node.name} "
                              f"declares {b.precision}", span=(b.start, b.end)))
            return False
        value = -lit.value if isinstance(expr, syntax.Unary) else lit.value
        clause = b.param.clause
        if clause.text and is_empty(clause):
            self.emit(Finding("DOMAIN", node.sheet or None, node.name,
                              f"param {node.name} declares an empty domain: {clause.shown} has no legal value",
                              span=(b.start, b.end)))
            return False
        if clause.domain is not None:
            for d in clause.domain.literals:
                if d.percent != b.param.percent:
                    message = (f"{node.name} is a percent; domain value {d.text} must be too" if b.param.percent
                               else f"{node.name} is not a percent; domain value {d.text} must not be one")
                    self.emit(Finding("TYPE", node.sheet or None, node.name, message, span=(b.start, b.end)))
                    return False
                if significant_places(d.text) > b.precision:
                    self.emit(Finding("PRECISION", node.sheet or None, node.name,
                                      f"domain value {d.text} has {significant_places(d.text)} decimals; "
                                      f"param {node.name} "
                                      f"declares {b.precision}", span=(b.start, b.end)))
                    return False
        if not in_domain(clause, value):
            self.emit(Finding("DOMAIN", node.sheet or None, node.name,
                              f"default {b.param.default_text} is not in the domain of {node.name}: {clause.shown}",
                              span=(b.start, b.end)))
            return False
        if clause.lattice is not None:
            # an impossible lattice is a finding on the declaration only: the default still evaluates
            try:
                lattice_count(node.name, clause, clause.lattice, b.param.percent, b.precision)
            except LatticeFault as e:
                self.emit(Finding(e.code, node.sheet or None, node.name, e.message, span=(b.start, b.end)))
        return True


def is_zero(e: syntax.Node) -> bool:
    return isinstance(e, syntax.Num) and e.value == 0 and e.unit is None and not e.percent


def whole_literal(e: syntax.Node) -> int | None:
    """The whole number a literal exponent or ROUND width is written as, or None.  As
    upstream's derivation reads it: a literal whose text (a percent once divided by 100)
    is digits only, so `2` and `200%` are 2 while `2.0` and `250%` are no width at all."""
    if not isinstance(e, syntax.Num):
        return None
    if e.percent:
        return int(e.value) if e.value == e.value.to_integral_value() else None
    return int(e.value) if e.places == 0 else None


def significant_places(literal: str) -> int:
    """Decimals a number literal needs once trailing zeros go (`2.00` needs 0, `12.5%` needs 3)."""
    percent = literal.endswith("%")
    digits = literal.rstrip("%").lstrip("-")
    frac = digits.split(".")[1].rstrip("0") if "." in digits else ""
    return len(frac) + (2 if percent else 0)
