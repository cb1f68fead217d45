"""Values and their text forms: decimal context, cell literals, decorations and dates.

A runtime value is a ``Decimal``, a ``datetime.date``, a ``str`` or (only in flight,
never stored) a ``bool``.  Arithmetic runs at 40 significant digits; rounding half-up
happens only where a value is bound to a name.
"""

from __future__ import annotations

import re
from functools import lru_cache
from dataclasses import dataclass
from datetime import date
from decimal import ROUND_HALF_UP, Context, Decimal, DivisionByZero, InvalidOperation, Overflow

from .units import UnitSyntaxError, parse_unit

WORKING_DIGITS = 40
CONTEXT = Context(prec=WORKING_DIGITS, rounding=ROUND_HALF_UP, traps=[InvalidOperation, DivisionByZero, Overflow])

NUMBER_RE = re.compile(r"-?\d+(?:\.\d+)?")
ISO_RE = re.compile(r"\d{4}-\d{2}-\d{2}")
DATEISH_RE = re.compile(r"(\d{1,4})([./-])(\d{1,4})\2(\d{1,4})")
DECORATED_RE = re.compile(
    r"(?P<pre>[^\d\s.\-]*?)\s*(?P<neg>-?)(?P<pre2>[^\d\s.\-]*?)\s*(?P<num>\d+(?:\.\d+)?)(?P<pct>%?)"
    r"(?P<suf>(?:\s+\S.*)|(?:[^\d\s.\-/].*))?"
)


@dataclass(frozen=True)
class Decoration:
    """A unit decoration on a written number: the text before or after it, spacing kept."""

    side: str  # prefix | suffix
    text: str

    def apply(self, number: str) -> str:
        return self.text + number if self.side == "prefix" else number + self.text


@dataclass(frozen=True)
class CellNumber:
    value: Decimal
    places: int
    percent: bool
    decoration: Decoration | None
    digits: str  # the number as written, sign included


def _suffix_ok(suffix: str) -> bool:
    """A suffix decoration is one digit-free word (`kg`, `pcs.`, `€`) or a unit (`m^2`, `1/s`)."""
    if re.fullmatch(r"[^\d\s]+", suffix):
        return True
    try:
        parse_unit(suffix)
    except UnitSyntaxError:
        return False
    return True


PLAIN_RE = re.compile(r"(-?)(\d+)(?:\.(\d+))?")
WORD_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@lru_cache(maxsize=65536)
def parse_cell_number(text: str) -> CellNumber | str | None:
    """Read a written number: ``None`` when the text is not one, ``"both"`` when it is
    decorated on both sides."""
    plain = PLAIN_RE.fullmatch(text)
    if plain is not None:  # the common case: a bare number, no decoration
        return CellNumber(Decimal(text), len(plain.group(3) or ""), False, None, text)
    if WORD_RE.fullmatch(text):  # a word (`r12`, `e2e`): letters glued to digits are never a number
        return None
    t = text.strip()
    if not t or DATEISH_RE.fullmatch(t) or ISO_RE.fullmatch(t):
        return None
    m = DECORATED_RE.fullmatch(t)
    if not m:
        return None
    pre = m.group("pre") or m.group("pre2")
    if pre and any(ch.isalpha() for ch in pre):
        rest = t.lstrip("-")
        if not (rest.startswith(pre) and len(rest) > len(pre) and rest[len(pre)].isspace()):
            return None  # letters glued to a number are a word (`e2e-checkout`), not a unit
    if m.group("pre") and m.group("pre2"):
        # two runs before the number (`search x3`): a decoration is one run, so this is text
        return None
    suf = m.group("suf")
    if suf and not _suffix_ok(suf.strip()):
        return None  # `25 to 39`, `55 and over`: words after a number, not a unit
    if pre and suf:
        return "both"
    if m.group("pct") and (pre or suf):
        return None
    num = m.group("num")
    places = len(num.split(".")[1]) if "." in num else 0
    value = Decimal(num)
    if m.group("neg"):
        value = -value
    percent = bool(m.group("pct"))
    if percent:
        value = value / 100
        places += 2
    deco = None
    if pre:
        # keep whatever spacing separates the prefix from the number
        start = t.find(pre) + len(pre)
        gap = t[start : start + (len(t) - start - len(t[start:].lstrip()))]
        deco = Decoration("prefix", pre + gap)
    elif suf:
        deco = Decoration("suffix", suf)
    digits = ("-" if m.group("neg") else "") + num
    return CellNumber(value, places, percent, deco, digits)


def parse_iso(text: str) -> date | None:
    if not ISO_RE.fullmatch(text):
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        return None


@dataclass
class DateProblem:
    """A date-like cell that is not ISO 8601: either one fix or two readings."""

    raw: str
    iso_fix: str | None = None
    alt_a: str | None = None
    alt_b: str | None = None
    days_apart: int | None = None


def diagnose_date(text: str) -> DateProblem | None:
    """Explain a non-ISO date: decidable (one reading) or ambiguous (two readings)."""
    t = text.strip()
    if ISO_RE.fullmatch(t):
        return None if parse_iso(t) else DateProblem(t)
    m = DATEISH_RE.fullmatch(t)
    if not m:
        return None
    a, b, c = m.group(1), m.group(3), m.group(4)
    readings: list[date] = []
    if len(a) == 4:  # year first: YYYY/MM/DD
        cand = [(int(a), int(b), int(c))]
    elif len(c) == 4:
        cand = [(int(c), int(b), int(a)), (int(c), int(a), int(b))]  # day-first, month-first
    else:
        cand = []
    for y, mo, d in cand:
        try:
            dt = date(y, mo, d)
        except ValueError:
            continue
        if dt not in readings:
            readings.append(dt)
    if len(readings) == 1:
        return DateProblem(t, iso_fix=readings[0].isoformat())
    if len(readings) == 2:
        first, second = readings
        return DateProblem(t, alt_a=first.isoformat(), alt_b=second.isoformat(),
                           days_apart=abs((second - first).days))
    return DateProblem(t)


@lru_cache(maxsize=64)
def quantum(places: int) -> Decimal:
    """``10**-places``: the exponent a value rounded to ``places`` decimals takes (built
    exactly, so a width past the context's exponent range is no error here: quantizing to
    it is, where the caller reports it)."""
    return Decimal((0, (1,), -places))


def fixed(value: Decimal, places: int) -> str:
    """The value rounded half-up and written with exactly ``places`` decimals."""
    q = value.quantize(quantum(places), rounding=ROUND_HALF_UP, context=CONTEXT)
    text = f"{q:f}"
    if text.startswith("-") and q == 0:
        text = text[1:]
    return text


def canonical(value: object) -> str:
    """The value's own decimal string, trailing zeros dropped (``28659``, ``0.23``), and
    always positional: ``25000000000000000000000000000000.25``, never ``2.5…e+31``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, str):
        return value
    assert isinstance(value, Decimal)
    if value == 0:
        return "0"
    return f"{value.normalize(CONTEXT):f}"


def render(value: object, places: int | None) -> str:
    """A value as ``fmt`` writes it: numbers at their width, dates ISO, strings verbatim."""
    if isinstance(value, Decimal):
        return fixed(value, places) if places is not None else canonical(value)
    return canonical(value)
