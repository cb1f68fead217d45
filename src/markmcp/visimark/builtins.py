"""The sixteen builtin functions: their registry (shape, parameters, precision, units,
errors, examples) and their arithmetic.  The registry is the single source for static call
checks, precision derivation, unit signatures, ``visimark ref`` and the generated function
reference.
"""

from __future__ import annotations

import calendar
from dataclasses import dataclass
from datetime import date
from decimal import (MAX_EMAX, MAX_PREC, MIN_EMIN, ROUND_CEILING, ROUND_FLOOR, ROUND_HALF_UP, Context, Decimal, Inexact,
                     localcontext)


#: A computation with no decimal result (upstream's division-by-zero spec §4, its words).
NOT_FINITE = "result is not a finite decimal"


class EvalError(Exception):
    """A value-level failure reported under ``code`` (TYPE, DATE, PRECISION)."""

    def __init__(self, message: str, code: str = "TYPE") -> None:
        super().__init__(message)
        self.message = message
        self.code = code


@dataclass(frozen=True)
class Param:
    """One parameter of a builtin: its name, the kind of value it takes, what it means."""

    name: str
    type: str  # number | column | date | bool | any
    note: str


@dataclass(frozen=True)
class Builtin:
    """A builtin function as the engine checks it and as ``visimark ref`` describes it.

    ``summary`` is one lower-case clause; ``errors`` are (noun phrase, finding code) pairs;
    ``examples`` are (expression, value as ``eval`` prints it) pairs that a test evaluates,
    reduces over the sample table :data:`SAMPLE`.
    """

    name: str
    kind: str  # map | reduce
    params: tuple[Param, ...]
    summary: str
    returns: str
    precision: str  # how the result's width is found, in words
    units: str
    errors: tuple[tuple[str, str], ...] = ()
    examples: tuple[tuple[str, str], ...] = ()
    see: tuple[str, ...] = ()
    glyphs: tuple[str, ...] = ()
    rounding: str = ""  # only for a function with a tie rule of its own

    @property
    def param_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.params)

    @property
    def meaning(self) -> str:
        """The summary followed by each error, as the function table's Meaning cell reads."""
        return "; ".join([self.summary] + [f"{when} is a `{code}` error" for when, code in self.errors])


#: The table every reduce example reads: ``t.Amount`` 12.50, 7.50, 40.00; ``t.Cash``
#: -100.00, 60.00, 70.00; ``t.Day`` 2026-03-02, 2026-01-15, 2026-02-20.
SAMPLE = """| Row | Amount |    Cash | Day        |
|-----|-------:|--------:|------------|
| a   |  12.50 | -100.00 | 2026-03-02 |
| b   |   7.50 |   60.00 | 2026-01-15 |
| c   |  40.00 |   70.00 | 2026-02-20 |

```vmark #t
```
"""

NUM = "number"
COL = "column"
NOT_NUMBER = "a non-numeric cell"

REGISTRY: dict[str, Builtin] = {
    b.name: b
    for b in [
        Builtin("SUM", "reduce", (Param("col", COL, "the numbers being added"),),
                "adds up every cell of a column (an empty column gives `0`)", NUM, "the width of `col`", "SUM(col: U) → U",
                ((NOT_NUMBER, "TYPE"),), (("SUM(t.Amount)", "60"), ("SUM(t.Amount) * 2", "120")),
                ("AVG", "COUNT"), ("Σ", "∑")),
        Builtin("MIN", "reduce", (Param("col", COL, "numbers only, or dates only"),),
                "the smallest entry of the column", "number or date, as the column holds", "the width of `col`", "MIN(col: U) → U",
                (("an empty column", "TYPE"), ("a column mixing numbers and dates", "TYPE")),
                (("MIN(t.Amount)", "7.5"), ("MIN(t.Day)", "2026-01-15")), ("MAX",)),
        Builtin("MAX", "reduce", (Param("col", COL, "numbers only, or dates only"),),
                "the largest entry of the column", "number or date, as the column holds", "the width of `col`", "MAX(col: U) → U",
                (("an empty column", "TYPE"), ("a column mixing numbers and dates", "TYPE")),
                (("MAX(t.Amount)", "40"), ("MAX(t.Day)", "2026-03-02")), ("MIN",)),
        Builtin("AVG", "reduce", (Param("col", COL, "the numbers whose mean is taken"),),
                "the sum of the cells divided by how many there are", NUM, "**must be declared**", "AVG(col: U) → U",
                (("an empty column", "TYPE"), (NOT_NUMBER, "TYPE")),
                (("AVG(t.Amount)", "20"),), ("SUM", "COUNT")),
        Builtin("COUNT", "reduce", (Param("col", COL, "any column of the sheet; only its length matters"),),
                "how many rows the column has", NUM, "always 0", "COUNT(col: any) → 1", (),
                (("COUNT(t.Amount)", "3"),), ("SUM",)),
        Builtin("NPV", "reduce", (Param("rate", NUM, "the discount rate per period"),
                                  Param("flows", COL, "the cash flows, one per period; row 0 is not discounted")),
                "discounts each period's cash flow back to period 0 and adds them up", NUM, "**must be declared**",
                "NPV(rate: 1, flows: U) → U",
                (("a non-numeric `rate`", "TYPE"), ("a `rate` of -1 or below", "TYPE"), ("an empty column", "TYPE"),
                 (NOT_NUMBER, "TYPE")),
                (("ROUND(NPV(10%, t.Cash), 2)", "12.4"),), ("IRR", "PMT")),
        Builtin("IRR", "reduce", (Param("flows", COL, "the cash flows, one per period; row 0 is not discounted"),),
                "the per-period discount rate that brings the cash flows' net present value to zero", NUM, "**must be declared**",
                "IRR(flows: U) → 1",
                (("an empty column", "TYPE"), (NOT_NUMBER, "TYPE"), ("an all-zero column", "TYPE"),
                 ("a column with no sign change, or with several", "TYPE"),
                 ("a rate not determined at the declared width", "PRECISION")),
                (("ROUND(IRR(t.Cash), 4)", "0.1888"),), ("NPV",)),
        Builtin("ROUND", "map", (Param("x", NUM, "the number being rounded"), Param("places", NUM, "decimal places in the result")),
                "rounds `x` to `places` decimal places, halves going up", NUM, "the value of `places`", "ROUND(x: U, places: 1) → U",
                (("a non-whole `places`", "TYPE"),),
                (("ROUND(2.345, 2)", "2.35"), ("ROUND(2.5, 0)", "3"), ("ROUND(-2.5, 0)", "-3")),
                ("FLOOR", "CEILING"), (),
                "a tie rounds away from zero (half-up), never to even: 2.5 is 3 and -2.5 is -3"),
        Builtin("ABS", "map", (Param("x", NUM, "any number"),),
                "drops the sign of `x`", NUM, "the width of `x`", "ABS(x: U) → U",
                (("a non-numeric `x`", "TYPE"),), (("ABS(-7.25)", "7.25"), ("ABS(4)", "4")), (), ("|x|",)),
        Builtin("MOD", "map", (Param("x", NUM, "the number being divided"), Param("y", NUM, "the number dividing it")),
                "what is left over when `x` is divided by `y`", NUM, "the wider of `x` and `y`", "MOD(x: U, y: U) → U",
                (("a zero divisor", "TYPE"),), (("MOD(7, 3)", "1"), ("MOD(7.5, 2)", "1.5")), ("FLOOR",)),
        Builtin("SQRT", "map", (Param("x", NUM, "zero or a positive number"),),
                "the square root of `x`, never negative", NUM, "**must be declared**", "SQRT(x: U²) → U",
                (("a negative operand", "TYPE"),), (("SQRT(9)", "3"), ("ROUND(SQRT(2), 2)", "1.41")), (), ("√(x)",)),
        Builtin("FLOOR", "map", (Param("x", NUM, "the number being rounded down"), Param("s", NUM, "the step, greater than zero")),
                "rounds `x` down (towards −∞) to a whole number of steps `s`", NUM, "the width of `s`",
                "FLOOR(x: U, s: U) → U", (("a non-positive `s`", "TYPE"),),
                (("FLOOR(7, 3)", "6"), ("FLOOR(-7, 3)", "-9"), ("FLOOR(1.27, 0.05)", "1.25")),
                ("CEILING", "ROUND"), ("⌊x⌋",)),
        Builtin("CEILING", "map", (Param("x", NUM, "the number being rounded up"), Param("s", NUM, "the step, greater than zero")),
                "rounds `x` up (towards +∞) to a whole number of steps `s`", NUM, "the width of `s`",
                "CEILING(x: U, s: U) → U", (("a non-positive `s`", "TYPE"),),
                (("CEILING(7, 3)", "9"), ("CEILING(-7, 3)", "-6")), ("FLOOR", "ROUND"), ("⌈x⌉",)),
        Builtin("IF", "map", (Param("cond", "bool", "a comparison or a logical combination of them"),
                              Param("a", "any", "the result if `cond` is true"),
                              Param("b", "any", "the result if `cond` is false")),
                "picks `a` if `cond` is true and `b` if it is false", "whichever of `a` and `b` was chosen",
                "the wider of `a` and `b`", "IF(cond: bool, a: U, b: U) → U", (("a non-boolean `cond`", "TYPE"),),
                (("IF(2 > 1, 10, 20)", "10"), ('IF(2 < 1, "late", "on time")', "on time"))),
        Builtin("EOMONTH", "map", (Param("d", "date", "the starting month (only its year and month are used)"),
                                   Param("months", NUM, "whole months to move, negative for earlier")),
                "the final day of the month lying `months` months after (or, if negative, before) `d`", "date",
                "not applicable — the result is a date", "EOMONTH(d: date, months: any) → date",
                (("a non-whole `months`", "TYPE"), ("a result outside years 1–9999", "DATE")),
                (("EOMONTH(2026-01-31, 1)", "2026-02-28"), ("EOMONTH(2024-01-10, 1)", "2024-02-29"),
                 ("EOMONTH(2026-01-15, -1)", "2025-12-31")), ("MIN", "MAX")),
        Builtin("PMT", "map", (Param("rate", NUM, "the interest rate per period"),
                               Param("nper", NUM, "the number of periods, a positive whole number"),
                               Param("pv", NUM, "the amount borrowed")),
                "the equal payment per period that pays off `pv` in `nper` periods at interest `rate` per period", NUM,
                "**must be declared**", "PMT(rate: 1, nper: 1, pv: U) → U",
                (("a non-numeric `rate`, `nper` or `pv`", "TYPE"), ("a non-positive or non-whole `nper`", "TYPE"),
                 ("a `rate` of -1 or below", "TYPE")),
                (("ROUND(PMT(1%, 12, 1200), 2)", "106.62"), ("PMT(0, 4, 100)", "25")), ("NPV",)),
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
    if set(map(type, values)) <= {Decimal}:  # the common case, checked in one pass
        return list(values)  # type: ignore[arg-type]
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
        return sum(_numbers(name, values), Decimal(0))  # left to right from 0, as a loop would
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
            raise EvalError("NPV rate must be greater than -1")
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


#: sums and products without rounding (any that would round raises Inexact)
EXACT = Context(prec=MAX_PREC, Emax=MAX_EMAX, Emin=MIN_EMIN, traps=[Inexact])
#: rounding to any number of places, whatever the working precision
WIDE = Context(prec=MAX_PREC, Emax=MAX_EMAX, Emin=MIN_EMIN)


class Bracketed(Decimal):
    """IRR's rate when no exact decimal root was found: the midpoint of the bracket
    ``[lo, hi]`` the search closed on (``hi`` None: the root lies above ``lo``, beyond the
    search).  A binding rounding it to N decimals first checks that both ends round alike
    (upstream's IRR spec §4, order 6); any arithmetic on it gives a plain Decimal."""

    lo: Decimal
    hi: Decimal | None

    def settled_at(self, places: int) -> bool:
        if self.hi is None:
            return False
        q = Decimal((0, (1,), -places))
        return (self.lo.quantize(q, rounding=ROUND_HALF_UP, context=WIDE)
                == self.hi.quantize(q, rounding=ROUND_HALF_UP, context=WIDE))


def irr_undetermined(places: int) -> str:
    """Upstream's IRR spec §4, order 6, in its words."""
    return f"IRR did not determine a rate at precision {places}"


#: -1 + 1e-40: the lowest rate above -1 that 40 significant digits can write
IRR_FLOOR = Decimal((1, (9,) * 40, -40))
#: the search's top: 1, 3, 7, ... doubled and one added 200 times (about 3.2e60)
IRR_EXPANSIONS = 200
IRR_WIDTH = Decimal((0, (1,), -40))


def irr(flows: list[Decimal]) -> Decimal:
    """The unique rate r > -1 at which the flows' NPV is zero (upstream's IRR spec §3).

    The spec contradicts itself in places; what this follows, and why:

    * Width. Its examples declare precision 38 and 39 (§3, §4 order 6, §6), but a declared
      width is 0 to 18 (the design's §7 and the declared-precision spec §2, which this
      engine enforces), so order 6 can only arise at 18 decimals or fewer, as upstream's
      finance article shows it (``IRR did not determine a rate at precision 18``).
    * Stopping. §3 lets the solver stop once every rate in its bracket rounds alike at the
      declared width, §5 says it searches at 40 digits and no more; upstream's engine does
      the latter (its bracket closes to 1e-40 or to neighbouring 40-digit values, whatever
      the width), and so does this: the width is looked at only when the rate is bound.
    * Exact roots. §3 asks for the short decimal (``0.1``, ``0``), "not a 40-digit
      neighbour at which NPV only rounds to zero"; upstream's engine tests its candidates
      at 40 digits, this tests them exactly, which is what the sentence asks.
    * No rate found. Neither the spec nor upstream's engine has a message for it (one sign
      change always has a root). A root closer to -1 than 1e-40 is returned as -1 + 1e-40,
      as upstream's engine returns it (the same at every width a binding can declare). A
      root beyond the search (above about 3.2e60, a flow 61 digits larger than another) is
      returned as the search's top with an open bracket, which no width can write (the
      working-precision ceiling); upstream's engine returns -1 + 1e-40 there, a wrong rate.
    * Guess. There is none (§1, §2, §7); upstream's engine takes none either.
    """
    if not flows:
        raise EvalError("IRR() of an empty column")
    if all(f == 0 for f in flows):
        raise EvalError("IRR() of an all-zero column")
    signs = [f > 0 for f in flows if f != 0]
    changes = sum(1 for a, b in zip(signs, signs[1:]) if a != b)
    if changes == 0:
        raise EvalError("IRR needs one sign change")
    if changes > 1:
        raise EvalError("IRR has more than one sign change")
    if sum(flows) == 0:
        return Decimal(0)

    def f(rate: Decimal) -> Decimal:
        # NPV(rate) times (1 + rate)^(n-1), by Horner's rule: the same sign and roots above -1
        base = rate + 1
        s = flows[0]
        for cf in flows[1:]:
            s = s * base + cf
        return s

    lo = IRR_FLOOR
    f_lo = f(lo)
    if f_lo == 0:
        return lo
    lo_positive = f_lo > 0
    if lo_positive == signs[0]:
        return lo  # NPV already has its far sign at -1 + 1e-40: the root is below it
    hi = Decimal(1)
    f_hi = f(hi)
    expansions = 0
    while f_hi != 0 and (f_hi > 0) == lo_positive:
        if expansions == IRR_EXPANSIONS:
            out = Bracketed(hi)
            out.lo, out.hi = hi, None
            return out
        hi = 2 * hi + 1
        f_hi = f(hi)
        expansions += 1
    if f_hi == 0:
        return hi
    while hi - lo >= IRR_WIDTH:
        mid = (lo + hi) / 2
        if not lo < mid < hi:
            break  # neighbours at 40 significant digits
        f_mid = f(mid)
        if f_mid == 0:
            exact = _exact_root(flows, mid)
            return mid if exact is None else exact
        if (f_mid > 0) == lo_positive:
            lo = mid
        else:
            hi = mid
    mid = (lo + hi) / 2
    exact = _exact_root(flows, mid)
    if exact is not None:
        return exact
    out = Bracketed(mid)
    out.lo, out.hi = lo, hi
    return out


def _exact_root(flows: list[Decimal], near: Decimal) -> Decimal | None:
    """The shortest decimal of at most 20 places, within 1e-30 (relative) of ``near``, at
    which the flows' NPV is exactly zero; None when there is none."""
    reach = max(Decimal(1), abs(near)) * Decimal("1e-30")
    for places in range(21):
        try:
            c = near.quantize(Decimal((0, (1,), -places)), rounding=ROUND_HALF_UP)
        except ArithmeticError:
            break  # more places than 40 digits can hold at this magnitude
        if abs(c - near) > reach or c <= -1:
            continue
        try:
            with localcontext(EXACT):
                base = c + 1
                s = flows[0]
                for cf in flows[1:]:
                    s = s * base + cf
        except Inexact:
            continue
        if s == 0:
            return Decimal(0) if c == 0 else c.normalize()
    return None


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
            raise EvalError("PMT rate must be greater than -1")
        if rate == 0:
            return pv / nper
        # PMT's spec states the closed form in this order, and its full working values
        # (40 digits) follow from evaluating it so: pv * r * (1 + r)^n / ((1 + r)^n - 1)
        growth = (1 + rate) ** int(nper)
        if growth == 1:  # a rate too small to move 40 digits: the quotient has no finite value
            raise EvalError(NOT_FINITE)
        return pv * rate * growth / (growth - 1)
    raise EvalError(f"unknown function `{name}`")
