"""Param domains: the clause between `precision N` and `= default`, and membership.

Grammar (one optional preset, then an optional `in`/`∈` domain)::

    clause  := preset? ( ("in" | "∈") domain )? ( "lattice" literal )?
    preset  := "positive integer" | "integer" | "natural" | "positive" | "ℤ⁺" | "ℤ" | "ℕ"
    domain  := range | set
    range   := ("[" | "(") literal? "," literal? ("]" | ")")     an omitted end is open
    set     := "{" ( literal ( "," literal )* )? "}"
    literal := "-"? digits ( "." digits )? "%"?

Every grammar function takes ``(src, pos)`` and returns ``(pos, value)``; errors carry
the offset inside the clause and are reported as `TYPE` on the param.  Membership is
exact decimal arithmetic on the folded value (`40%` is 0.40).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal

WS = " \t"
PRESET_WORDS = {"integer": "integer", "ℤ": "integer", "natural": "natural", "ℕ": "natural",
                "positive": "positive", "ℤ⁺": "positive integer"}
LITERAL_RE = re.compile(r"-?[0-9]+(?:\.[0-9]+)?%?")
WORD_RE = re.compile(r"[^\s\[\](){},]+")
MALFORMED = "malformed param domain clause"
NOT_LITERAL = "a param domain bound must be a number literal"
SET_LIST_LIMIT = 10


class DomainSyntaxError(Exception):
    def __init__(self, message: str, pos: int) -> None:
        super().__init__(message)
        self.message = message
        self.pos = pos


@dataclass
class Literal:
    """A number literal as written, and its value with a percent folded."""

    text: str
    value: Decimal

    @property
    def percent(self) -> bool:
        return self.text.endswith("%")



@dataclass
class Domain:
    """A range (either end may be open or missing) or a finite set of literals."""

    text: str
    members: list[Literal] | None = None
    lo: Literal | None = None
    hi: Literal | None = None
    lo_closed: bool = True
    hi_closed: bool = True

    @property
    def literals(self) -> list[Literal]:
        if self.members is not None:
            return list(self.members)
        return [x for x in (self.lo, self.hi) if x is not None]

    def contains(self, v: Decimal) -> bool:
        if self.members is not None:
            return any(m.value == v for m in self.members)
        if self.lo is not None and (v < self.lo.value or (v == self.lo.value and not self.lo_closed)):
            return False
        if self.hi is not None and (v > self.hi.value or (v == self.hi.value and not self.hi_closed)):
            return False
        return True


@dataclass
class Clause:
    """A param's preset (normalised: integer, natural, positive, positive integer) and domain."""

    text: str = ""
    preset: str | None = None
    domain: Domain | None = None
    presets: list[str] = field(default_factory=list)
    preset_text: str | None = None
    lattice: str | None = None  # the step as written; `simulate` sweeps its points

    @property
    def shown(self) -> str:
        """The clause as messages print it: `integer in [0, 80]`, `{ 30%, 40% }`."""
        domain = self.domain.text if self.domain else None
        if self.domain is not None and self.domain.members == []:
            domain = "{}"  # however it was spaced: the domain spec's message prints an empty set so
        parts = [self.preset_text, domain]
        return " in ".join(p for p in parts if p)


def _skip(src: str, pos: int) -> int:
    while pos < len(src) and src[pos] in WS:
        pos += 1
    return pos


def parse_literal(src: str, pos: int) -> tuple[int, Literal]:
    m = LITERAL_RE.match(src, pos)
    if not m:
        raise DomainSyntaxError(NOT_LITERAL, pos)
    end = m.end()
    if end < len(src) and src[end] not in WS + ",)]}":
        raise DomainSyntaxError(NOT_LITERAL, pos)
    text = m.group(0)
    value = Decimal(text.rstrip("%"))
    if text.endswith("%"):
        value = value.scaleb(-2)  # exactly: `30%` is 0.30
    return end, Literal(text, value)


def parse_preset(src: str, pos: int) -> tuple[int, str | None]:
    m = WORD_RE.match(src, pos)
    if not m or m.group(0) in ("in", "∈"):
        return pos, None
    word = m.group(0)
    if word not in PRESET_WORDS:
        raise DomainSyntaxError(f"unrecognised param domain preset `{word}`", pos)
    end = m.end()
    if word == "positive":
        after = _skip(src, end)
        m2 = WORD_RE.match(src, after)
        if m2 and m2.group(0) == "integer":
            return m2.end(), "positive integer"
    return end, PRESET_WORDS[word]


def parse_range(src: str, pos: int) -> tuple[int, Domain]:
    start = pos
    lo_closed = src[pos] == "["
    pos = _skip(src, pos + 1)
    lo = hi = None
    if pos < len(src) and src[pos] != ",":
        pos, lo = parse_literal(src, pos)
        pos = _skip(src, pos)
    if pos >= len(src) or src[pos] != ",":
        raise DomainSyntaxError(MALFORMED, pos)
    pos = _skip(src, pos + 1)
    if pos < len(src) and src[pos] not in ")]":
        pos, hi = parse_literal(src, pos)
        pos = _skip(src, pos)
    if pos >= len(src) or src[pos] not in ")]":
        raise DomainSyntaxError(MALFORMED, pos)
    hi_closed = src[pos] == "]"
    pos += 1
    # an omitted end has no closedness to declare: its bracket must be open
    if (lo is None and lo_closed) or (hi is None and hi_closed):
        raise DomainSyntaxError(MALFORMED, start)
    text = ("[" if lo_closed else "(") + (lo.text if lo else "") + ", " + (hi.text if hi else "") + \
        ("]" if hi_closed else ")")
    return pos, Domain(text, lo=lo, hi=hi, lo_closed=lo_closed, hi_closed=hi_closed)


def parse_set(src: str, pos: int) -> tuple[int, Domain]:
    start = pos
    pos = _skip(src, pos + 1)
    members: list[Literal] = []
    if pos < len(src) and src[pos] == "}":
        return pos + 1, Domain(src[start:pos + 1], members=members)
    while True:
        pos, lit = parse_literal(src, pos)
        members.append(lit)
        pos = _skip(src, pos)
        if pos < len(src) and src[pos] == ",":
            pos = _skip(src, pos + 1)
            continue
        if pos < len(src) and src[pos] == "}":
            pos += 1
            break
        raise DomainSyntaxError(MALFORMED, pos)
    return pos, Domain("{ " + ", ".join(m.text for m in members) + " }", members=members)


def parse_domain(src: str, pos: int) -> tuple[int, Domain]:
    if pos < len(src) and src[pos] in "[(":
        return parse_range(src, pos)
    if pos < len(src) and src[pos] == "{":
        return parse_set(src, pos)
    raise DomainSyntaxError(MALFORMED, pos)


def parse_clause(src: str) -> Clause:
    """Parse the whole clause text (may be empty); raise DomainSyntaxError when malformed."""
    out = Clause(text=" ".join(src.split()))
    pos = _skip(src, 0)
    begin = pos
    pos, out.preset = parse_preset(src, pos)
    if out.preset is not None:
        out.presets = out.preset.split()
        out.preset_text = " ".join(src[begin:pos].split())
    pos = _skip(src, pos)
    if pos < len(src) and not _at_lattice(src, pos):
        if src.startswith("in", pos) and (pos + 2 == len(src) or src[pos + 2] in WS + "[({"):
            pos += 2
        elif src[pos] == "∈":
            pos += 1
        else:
            m = WORD_RE.match(src, pos)
            if m and out.preset is not None and m.group(0) in PRESET_WORDS:
                raise DomainSyntaxError(MALFORMED, pos)  # one preset clause only
            raise DomainSyntaxError(MALFORMED, pos)
        pos = _skip(src, pos)
        pos, out.domain = parse_domain(src, pos)
        pos = _skip(src, pos)
    if _at_lattice(src, pos):
        at = _skip(src, pos + len("lattice"))
        try:
            pos, step = parse_literal(src, at)
        except DomainSyntaxError:
            raise DomainSyntaxError("a lattice step must be a number literal", at) from None
        out.lattice = step.text
        pos = _skip(src, pos)
    if pos < len(src):
        raise DomainSyntaxError(MALFORMED, pos)
    return out


def _at_lattice(src: str, pos: int) -> bool:
    return src.startswith("lattice", pos) and (pos + 7 == len(src) or src[pos + 7] in WS)


# ------------------------------------------------------------------- membership

def preset_fault(preset: str | None, v: Decimal) -> str | None:
    """The scenario wording for a value outside a preset, or None."""
    whole = v == v.to_integral_value()
    if preset == "integer" and not whole:
        return "is not an integer"
    if preset == "natural" and (not whole or v < 0):
        return "is not a non-negative integer"
    if preset == "positive integer" and (not whole or v <= 0):
        return "is not a positive integer"
    if preset == "positive" and v <= 0:
        return "is not positive"
    return None


def domain_fault(clause: Clause, v: Decimal) -> str | None:
    """Why ``v`` is outside the clause, worded for a scenario message (before ': value')."""
    fault = preset_fault(clause.preset, v)
    if fault is not None:
        return fault
    d = clause.domain
    if d is None or d.contains(v):
        return None
    if d.members is not None and len(d.members) > SET_LIST_LIMIT:
        return f"is not among the {len({m.value for m in d.members})} legal values"
    return f"is not in {d.text}"


def in_domain(clause: Clause, v: Decimal) -> bool:
    return domain_fault(clause, v) is None


def is_empty(clause: Clause) -> bool:
    """Decidable emptiness: a reversed or degenerate range, an empty set, or a lattice
    preset with no member in the range.  `positive` over a narrow range is not walked."""
    d = clause.domain
    if d is None:
        return False
    if d.members is not None:
        return not any(in_domain(Clause(preset=clause.preset), m.value) for m in d.members)
    lo, hi = d.lo, d.hi
    if lo is not None and hi is not None:
        if lo.value > hi.value or (lo.value == hi.value and not (d.lo_closed and d.hi_closed)):
            return True
    if clause.preset == "positive" and hi is not None and hi.value <= 0:
        return True
    if clause.preset in ("integer", "natural", "positive integer"):
        floor_ = None if lo is None else _ceil_int(lo.value, d.lo_closed)
        if clause.preset == "natural":
            floor_ = 0 if floor_ is None else max(floor_, 0)
        if clause.preset == "positive integer":
            floor_ = 1 if floor_ is None else max(floor_, 1)
        if hi is not None and floor_ is not None:
            top = _floor_int(hi.value, d.hi_closed)
            return floor_ > top
    return False


def _ceil_int(x: Decimal, closed: bool) -> int:
    n = int(x.to_integral_value(rounding="ROUND_CEILING"))
    return n + 1 if (not closed and n == x) else n


def _floor_int(x: Decimal, closed: bool) -> int:
    n = int(x.to_integral_value(rounding="ROUND_FLOOR"))
    return n - 1 if (not closed and n == x) else n


# ---------------------------------------------------------------- reporting

FOLD_LIMIT = 10_000  # a domain with more members than this is described, not listed


def clauses(clause: Clause) -> list[str]:
    """The clause's parts as written, in source order: ``["integer", "[0, 80]"]``."""
    return [x for x in (clause.preset_text, clause.domain.text if clause.domain else None) if x]


def fold(clause: Clause) -> list[Decimal] | None:
    """Every member, when the domain is a finite list known exactly (a set, or an integer
    preset over a bounded range); None otherwise."""
    d = clause.domain
    if d is not None and d.members is not None:
        return sorted({m.value: m.value for m in d.members if in_domain(Clause(preset=clause.preset), m.value)}.values())
    if clause.preset not in ("integer", "natural", "positive integer") or d is None or d.lo is None and \
            clause.preset == "integer" or d.hi is None:
        return None
    low = _ceil_int(d.lo.value, d.lo_closed) if d.lo is not None else 0
    if clause.preset == "natural":
        low = max(low, 0)
    if clause.preset == "positive integer":
        low = max(low, 1)
    high = _floor_int(d.hi.value, d.hi_closed)
    if high - low + 1 > FOLD_LIMIT:
        return None
    return [Decimal(i) for i in range(low, high + 1)]


def domain_json(clause: Clause) -> dict:
    out: dict = {"clauses": clauses(clause)}
    members = fold(clause)
    if members is not None:
        out["fold"] = [f"{v:f}" for v in members]
    return out
