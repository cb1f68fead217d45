"""A param's ``lattice STEP``: the points a sweep visits in its declared domain.

The points run from the lower end of the effective interval (the intersection of the
range and the preset's bound; an integral preset rounds the ends inwards) in steps of
``STEP``, exactly, and must land on the upper end; an open end is dropped.  Every
fault is reported once, as the first rule in this order that fails: the step's
percent-ness, its width, the domain's shape, the step's sign and wholeness, its reach,
and at least one point left.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from .domain import Clause, Literal, parse_literal


class LatticeFault(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass
class Bound:
    value: Decimal
    closed: bool


def _places(text: str) -> int:
    digits = text.rstrip("%").lstrip("-")
    frac = digits.split(".")[1].rstrip("0") if "." in digits else ""
    return len(frac) + (2 if text.endswith("%") else 0)


def _interval(clause: Clause) -> tuple[Bound | None, Bound | None]:
    lo = hi = None
    d = clause.domain
    if d is not None and d.members is None:
        lo = Bound(d.lo.value, d.lo_closed) if d.lo else None
        hi = Bound(d.hi.value, d.hi_closed) if d.hi else None
    floor = {"natural": Bound(Decimal(0), True), "positive": Bound(Decimal(0), False),
             "positive integer": Bound(Decimal(0), False)}.get(clause.preset or "")
    if floor is not None and (lo is None or floor.value > lo.value or (floor.value == lo.value and not floor.closed)):
        lo = floor
    return lo, hi


def _span(name: str, clause: Clause, step_text: str, percent: bool, precision: int) -> tuple[Decimal, Decimal, int, int]:
    """``(a, s, first, last)``: the points are ``a + k*s`` for ``k`` from ``first`` to ``last``;
    or LatticeFault (TYPE or PRECISION).  Decided by arithmetic alone, without visiting the
    points (a lattice may declare billions)."""
    step: Literal = parse_literal(step_text, 0)[1]
    if step.percent != percent:
        raise LatticeFault("TYPE", f"{name} is a percent; lattice step {step.text} must be too" if percent
                           else f"{name} is not a percent; lattice step {step.text} must not be one")
    if _places(step.text) > precision:
        raise LatticeFault("PRECISION", f"lattice step {step.text} has {_places(step.text)} decimals; "
                                        f"param {name} declares {precision}")
    if clause.domain is None and clause.preset is None:
        raise LatticeFault("TYPE", f"param {name} declares a lattice but no domain")
    if clause.domain is not None and clause.domain.members is not None:
        raise LatticeFault("TYPE", f"param {name} declares a lattice, but a set already lists its points")
    lo, hi = _interval(clause)
    if hi is None:
        raise LatticeFault("TYPE", f"param {name} declares a lattice, but its domain has no upper bound")
    if lo is None:
        raise LatticeFault("TYPE", f"param {name} declares a lattice, but its domain has no lower bound")
    s = step.value
    if s <= 0:
        raise LatticeFault("TYPE", "lattice step must be positive")
    integral = clause.preset in ("integer", "natural", "positive integer")
    if integral and s != s.to_integral_value():
        raise LatticeFault("TYPE", f"lattice step {step.text} must be a whole number: param {name} is an integer domain")
    a, b = lo.value, hi.value
    if integral:
        a, b = a.to_integral_value(rounding="ROUND_CEILING"), b.to_integral_value(rounding="ROUND_FLOOR")
    shown = clause.domain.text if clause.domain is not None else clause.shown
    n = (b - a) / s
    if n < 0 or n != n.to_integral_value():
        raise LatticeFault("TYPE", f"lattice step {step.text} does not reach the end of {shown}: "
                                   f"{_shown(b, percent)} is not a multiple of {step.text} above {_shown(a, percent)}")
    # every candidate a + k*s lies in [lo, hi]: only the first can sit on the low end, only
    # the last (b) on the high end, so dropping the open ends trims at most one from each side
    first = 1 if a == lo.value and not lo.closed else 0
    last = int(n) - 1 if b == hi.value and not hi.closed else int(n)
    if last < first:
        raise LatticeFault("TYPE", f"lattice step {step.text} leaves no point in {shown}")
    return a, s, first, last


def count(name: str, clause: Clause, step_text: str, percent: bool, precision: int) -> int:
    """How many points the lattice has, or LatticeFault (TYPE or PRECISION): what ``check``
    decides, in constant time."""
    _, _, first, last = _span(name, clause, step_text, percent, precision)
    return last - first + 1


def points(name: str, clause: Clause, step_text: str, percent: bool, precision: int) -> list[Decimal]:
    """The lattice's points in ascending order, or LatticeFault (TYPE or PRECISION)."""
    a, s, first, last = _span(name, clause, step_text, percent, precision)
    return [a + k * s for k in range(first, last + 1)]


def _plain(v: Decimal) -> str:
    n = v.normalize()
    return f"{n:f}" if n != 0 else "0"


def _shown(v: Decimal, percent: bool) -> str:
    """A bound as a message prints it: a percent param's numbers as percents (`10%`)."""
    return _plain(v.scaleb(2)) + "%" if percent else _plain(v)
