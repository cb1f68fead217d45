"""The sixteen builtin functions: their registry (shape, arity, precision, units) and
their arithmetic.  The registry is the single source for static call checks, precision
derivation, unit signatures, ``visimark ref`` and the generated function reference.
"""

from __future__ import annotations

import calendar
from dataclasses import dataclass
from datetime import date
from decimal import ROUND_CEILING, ROUND_FLOOR, ROUND_HALF_UP, Decimal, InvalidOperation


class EvalError(Exception):
    """A value-level failure reported under ``code`` (TYPE, DATE, PRECISION)."""

    def __init__(self, message: str, code: str = "TYPE") -> None:
        super().__init__(message)
        self.message = message
        self.code = code


@dataclass(frozen=True)
class Builtin:
    name: str
    kind: str  # map | reduce
    params: tuple[str, ...]
    precision: str  # how the result's width is found, in words
    meaning: str
    units: str
    glyphs: tuple[str, ...] = ()
    example: str = ""
    rounding: str = ""  # only for a function with a tie rule of its own


REGISTRY: dict[str, Builtin] = {
    b.name: b
    for b in [
        Builtin("SUM", "reduce", ("col",), "the width of `col`",
                "total of a column; `0` over an empty column", "SUM(col: U) → U", ("Σ", "∑"),
                "net_total = SUM(Net)"),
        Builtin("MIN", "reduce", ("col",), "the width of `col`",
                "least value; a column mixing numbers and dates is a `TYPE` error", "MIN(col: U) → U", (),
                "cheapest = MIN(Price)"),
        Builtin("MAX", "reduce", ("col",), "the width of `col`",
                "greatest value; a column mixing numbers and dates is a `TYPE` error", "MAX(col: U) → U", (),
                "peak = MAX(Load)"),
        Builtin("AVG", "reduce", ("col",), "**must be declared**",
                "arithmetic mean; an empty column is a `TYPE` error", "AVG(col: U) → U", (),
                "mean precision 2 = AVG(Time)"),
        Builtin("COUNT", "reduce", ("col",), "always 0", "number of rows", "COUNT(col: any) → 1", (),
                "rows = COUNT(Item)"),
        Builtin("NPV", "reduce", ("rate", "flows"), "**must be declared**",
                "present value of a cash-flow column; row 0 is undiscounted; a non-numeric `rate`, "
                "a `rate` of -1 or below, an empty column or a non-numeric cell is a `TYPE` error",
                "NPV(rate: 1, flows: U) → U", (), "present precision 2 = NPV(8%, Cash)"),
        Builtin("IRR", "reduce", ("flows",), "**must be declared**",
                "rate at which a cash-flow column has present value zero; row 0 is undiscounted; an empty, "
                "all-zero or non-numeric column, or one with no or several sign changes, is a `TYPE` error",
                "IRR(flows: U) → 1", (), "rate precision 4 = IRR(Cash)"),
        Builtin("ROUND", "map", ("x", "places"), "the value of `places`", "half-up to `places` decimals",
                "ROUND(x: U, places: 1) → U", (), "whole = ROUND(x, 0)",
                "a tie rounds away from zero (half-up), never to even: 2.5 is 3 and -2.5 is -3"),
        Builtin("ABS", "map", ("x",), "the width of `x`", "absolute value", "ABS(x: U) → U", ("|x|",),
                "gap = ABS(a - b)"),
        Builtin("MOD", "map", ("x", "y"), "the wider of `x` and `y`",
                "remainder; a zero divisor is a `TYPE` error", "MOD(x: U, y: U) → U", (), "odd = MOD(n, 2)"),
        Builtin("SQRT", "map", ("x",), "**must be declared**",
                "non-negative square root; a negative operand is a `TYPE` error", "SQRT(x: U²) → U", ("√(x)",),
                "side precision 2 = SQRT(area)"),
        Builtin("FLOOR", "map", ("x", "s"), "the width of `s`",
                "greatest multiple of `s` that does not exceed `x`, toward −∞; a non-positive `s` is a `TYPE` error",
                "FLOOR(x: U, s: U) → U", ("⌊x⌋",), "nodes = FLOOR(cpu / 8, 1)"),
        Builtin("CEILING", "map", ("x", "s"), "the width of `s`",
                "least multiple of `s` that is not less than `x`, toward +∞; a non-positive `s` is a `TYPE` error",
                "CEILING(x: U, s: U) → U", ("⌈x⌉",), "nodes = CEILING(307 / 8, 1)"),
        Builtin("IF", "map", ("cond", "a", "b"), "the wider of `a` and `b`",
                "returns `a` or `b`; a non-boolean `cond` is a `TYPE` error", "IF(cond: bool, a: U, b: U) → U", (),
                'status = IF(days > 30, "late", "current")'),
        Builtin("EOMONTH", "map", ("d", "months"), "not applicable — the result is a date",
                "last day of the month `months` calendar months from `d`; a non-whole `months` is a `TYPE` error; "
                "a result outside years 1–9999 is a `DATE` error", "EOMONTH(d: date, months: any) → date", (),
                "due = EOMONTH(issued, 2)"),
        Builtin("PMT", "map", ("rate", "nper", "pv"), "**must be declared**",
                "instalment that repays `pv` to zero over `nper` periods at per-period rate `rate`; a non-numeric "
                "argument, a non-positive or non-whole `nper`, or a `rate` of -1 or below is a `TYPE` error",
                "PMT(rate: 1, nper: 1, pv: U) → U", (), "instalment precision 2 = PMT(rate, 12, loan)"),
    ]
}


def is_reduce(name: str) -> bool:
    b = REGISTRY.get(name)
    return b is not None and b.kind == "reduce"


def need_number(name: str, v: object, what: str) -> Decimal:
    """``v`` as a number, or the TYPE error upstream words as `NAME expects a number`."""
    if isinstance(v, bool) or not isinstance(v, Decimal):
        raise EvalError(f"{name} expects a number")
    return v


def type_word(v: object) -> str:
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, Decimal):
        return "a number"
    if isinstance(v, date):
        return "a date"
    return "a string"


def _numbers(name: str, values: list[object]) -> list[Decimal]:
    out = []
    for v in values:
        if isinstance(v, bool) or not isinstance(v, Decimal):
            raise EvalError(f"{name} expects a number")
        out.append(v)
    return out


def reduce_call(name: str, values: list[object], extra: list[object]) -> object:
    """Apply a reduce to a column's values (``extra`` holds NPV's rate)."""
    if name == "COUNT":
        return Decimal(len(values))
    if name == "SUM":
        total = Decimal(0)
        for v in _numbers(name, values):
            total += v
        return total
    if name in ("MIN", "MAX"):
        if not values:
            raise EvalError(f"{name}() of an empty column")
        kinds = {type(v) for v in values}
        if len(kinds) > 1:
            raise EvalError(f"{name} needs one type; the column mixes numbers and dates")
        if isinstance(values[0], bool) or not isinstance(values[0], (Decimal, date)):
            raise EvalError(f"{name} needs numbers or dates")
        return min(values) if name == "MIN" else max(values)  # type: ignore[type-var]
    if name == "AVG":
        nums = _numbers(name, values)
        if not nums:
            raise EvalError("AVG() of an empty column")
        return sum(nums, Decimal(0)) / len(nums)
    if name == "NPV":
        rate = need_number("NPV", extra[0], "rate")
        if rate <= -1:
            raise EvalError("NPV needs a rate above -1")
        flows = _numbers(name, values)
        if not flows:
            raise EvalError("NPV() of an empty column")
        return npv(rate, flows)
    if name == "IRR":
        flows = _numbers(name, values)
        return irr(flows)
    raise EvalError(f"unknown function `{name}`")


def npv(rate: Decimal, flows: list[Decimal]) -> Decimal:
    total = Decimal(0)
    factor = Decimal(1)
    base = 1 + rate
    for cf in flows:
        total += cf / factor
        factor *= base
    return total


def irr(flows: list[Decimal]) -> Decimal:
    """The unique rate above -1 at which the flows' NPV is zero (bisection)."""
    if not flows:
        raise EvalError("IRR() of an empty column")
    if all(f == 0 for f in flows):
        raise EvalError("IRR of an all-zero column")
    signs = [f > 0 for f in flows if f != 0]
    changes = sum(1 for a, b in zip(signs, signs[1:]) if a != b)
    if changes == 0:
        raise EvalError("IRR needs a sign change in its column")
    if changes > 1:
        raise EvalError("IRR needs exactly one sign change in its column; this one has more")
    lo, hi = Decimal("-0.999999999999"), Decimal(1)
    f_lo = npv(lo, flows)
    f_hi = npv(hi, flows)
    guard = 0
    while (f_lo > 0) == (f_hi > 0) and guard < 200:
        hi *= 2
        f_hi = npv(hi, flows)
        guard += 1
    if (f_lo > 0) == (f_hi > 0):
        raise EvalError("IRR found no rate for this column")
    for _ in range(200):
        mid = (lo + hi) / 2
        f_mid = npv(mid, flows)
        if f_mid == 0:
            return mid
        if (f_mid > 0) == (f_lo > 0):
            lo, f_lo = mid, f_mid
        else:
            hi = mid
    return (lo + hi) / 2


def map_call(name: str, args: list[object]) -> object:
    """Apply a map function to already-evaluated arguments (IF is handled lazily elsewhere)."""
    if name == "ROUND":
        x = need_number(name, args[0], "x")
        places = need_number(name, args[1], "places")
        if places != places.to_integral_value():
            raise EvalError("ROUND needs a whole number of places")
        return x.quantize(Decimal(1).scaleb(-int(places)), rounding=ROUND_HALF_UP)
    if name == "ABS":
        return abs(need_number(name, args[0], "x"))
    if name == "MOD":
        x = need_number(name, args[0], "x")
        y = need_number(name, args[1], "y")
        if y == 0:
            raise EvalError("division by zero")
        return x % y
    if name == "SQRT":
        x = need_number(name, args[0], "x")
        if x < 0:
            raise EvalError("SQRT of a negative number")
        return x.sqrt()
    if name in ("FLOOR", "CEILING"):
        x = need_number(name, args[0], "x")
        s = need_number(name, args[1], "s")
        if s <= 0:
            raise EvalError(f"{name} significance must be a positive number")
        q = (x / s).to_integral_value(rounding=ROUND_FLOOR if name == "FLOOR" else ROUND_CEILING)
        return q * s
    if name == "EOMONTH":
        d = args[0]
        if not isinstance(d, date):
            raise EvalError("EOMONTH expects a date")
        months = need_number(name, args[1], "months")
        if months != months.to_integral_value():
            raise EvalError("EOMONTH expects a whole number of months")
        total = d.year * 12 + (d.month - 1) + int(months)
        year, month = divmod(total, 12)
        if not 1 <= year <= 9999:
            raise EvalError("EOMONTH result falls outside years 1–9999", "DATE")
        return date(year, month + 1, calendar.monthrange(year, month + 1)[1])
    if name == "PMT":
        rate = need_number(name, args[0], "rate")
        nper = need_number(name, args[1], "nper")
        pv = need_number(name, args[2], "pv")
        if nper <= 0 or nper != nper.to_integral_value():
            raise EvalError("PMT expects a positive whole number of periods")
        if rate <= -1:
            raise EvalError("PMT needs a rate above -1")
        if rate == 0:
            return pv / nper
        return pv * rate / (1 - (1 + rate) ** (-int(nper)))
    raise EvalError(f"unknown function `{name}`")


def safe(fn, *args):  # pragma: no cover - thin guard
    try:
        return fn(*args)
    except InvalidOperation:
        raise EvalError("result is not a finite decimal") from None
