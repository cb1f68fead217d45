"""Units as algebra: reading ``[kg⋅m²/s²]`` brackets, combining them, printing them.

We represent a unit as a sorted tuple of ``(name, power)`` pairs with every power a
non-zero integer, so two units are equal exactly when their tuples are.  Unit names
carry no built-in meaning (there is no table of physical units): names are related only
through the definitions a document writes itself, such as ``[J] = [N⋅m]``.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

UnitMap = tuple[tuple[str, int], ...]

DIMENSIONLESS: UnitMap = ()

# Grammar character sets.
MUL_MARKS = "⋅*·×"
SUPERSCRIPTS = "⁰¹²³⁴⁵⁶⁷⁸⁹"
SUPER_TO_DIGIT = {ch: str(i) for i, ch in enumerate(SUPERSCRIPTS)}
DIGIT_TO_SUPER = {str(i): ch for i, ch in enumerate(SUPERSCRIPTS)}
TEMPERATURE_SPELLINGS = {"degC": "℃", "°C": "℃", "℃": "℃", "degF": "℉", "°F": "℉", "℉": "℉"}


class UnitSyntaxError(ValueError):
    """A bracket's content does not follow the unit grammar; the message is user-facing."""


@dataclass(frozen=True)
class ParsedUnit:
    """A parsed unit bracket: its map and whether it was written in normalised form."""

    map: UnitMap
    text: str


def make_map(exponents: dict[str, int]) -> UnitMap:
    """Build a canonical map, dropping atoms whose exponents cancelled to zero."""
    return tuple(sorted((a, e) for a, e in exponents.items() if e != 0))


def combine(a: UnitMap, b: UnitMap, sign: int = 1) -> UnitMap:
    """Multiply (sign 1) or divide (sign -1) two maps."""
    out = dict(a)
    for atom, exp in b:
        out[atom] = out.get(atom, 0) + sign * exp
    return make_map(out)


def power(a: UnitMap, n: int) -> UnitMap:
    """Raise a map to an integer power."""
    return make_map({atom: exp * n for atom, exp in a})


def _is_letter(ch: str) -> bool:
    return unicodedata.category(ch).startswith("L")


def _atom(src: str, pos: int) -> tuple[int, str]:
    """atom := "℃" | "℉" | "°"? letter+"""
    if pos < len(src) and src[pos] in "℃℉":
        return pos + 1, src[pos]
    start = pos
    if pos < len(src) and src[pos] == "°":
        pos += 1
    letters = pos
    while pos < len(src) and _is_letter(src[pos]):
        pos += 1
    if pos == letters:
        raise UnitSyntaxError("")
    text = src[start:pos]
    return pos, TEMPERATURE_SPELLINGS.get(text, text)


def _exponent(src: str, pos: int) -> tuple[int, int]:
    """exponent := "^" positive-integer | superscript-digit+ (default 1)"""
    if pos < len(src) and src[pos] == "^":
        pos += 1
        start = pos
        while pos < len(src) and src[pos].isascii() and src[pos].isdigit():
            pos += 1
        if pos == start or int(src[start:pos]) == 0:
            raise UnitSyntaxError("")
        return pos, int(src[start:pos])
    start = pos
    while pos < len(src) and src[pos] in SUPER_TO_DIGIT:
        pos += 1
    if pos == start:
        return pos, 1
    value = int("".join(SUPER_TO_DIGIT[c] for c in src[start:pos]))
    if value == 0:
        raise UnitSyntaxError("")
    return pos, value


def _factor(src: str, pos: int) -> tuple[int, str, int]:
    pos, atom = _atom(src, pos)
    pos, exp = _exponent(src, pos)
    return pos, atom, exp


def _skip_spaces(src: str, pos: int) -> int:
    while pos < len(src) and src[pos] == " ":
        pos += 1
    return pos


def parse_unit(content: str) -> UnitMap:
    """Parse a bracket's content (without the brackets) into a unit map.

    Raises UnitSyntaxError with the documented message when the content is not a unit.
    """
    text = content.strip()
    shown = f"[{content}]"
    letters_only = f"{shown} is not a unit — an atom is letters only"
    if text == "%":
        raise UnitSyntaxError("[%] is not a unit — % is number syntax (23% is 0.23); drop the bracket")
    if text in ("", "1"):
        raise UnitSyntaxError(f"{shown} declares no unit")

    def factor(pos: int) -> tuple[int, str, int]:
        if pos >= len(text):
            raise UnitSyntaxError(letters_only)
        try:
            pos, atom, exp = _factor(text, pos)
        except UnitSyntaxError:
            raise UnitSyntaxError(letters_only) from None
        if pos < len(text) and text[pos].isdigit():
            raise UnitSyntaxError(letters_only)
        return pos, atom, exp

    def junk(pos: int) -> UnitSyntaxError:
        ch = text[pos]
        if _is_letter(ch) or ch in "°℃℉":
            return UnitSyntaxError(f"{shown} is not a unit — write a product as N⋅m")
        return UnitSyntaxError(letters_only)

    exps: dict[str, int] = {}
    pos = 0
    if text[0] == "1" and text[1:].lstrip().startswith("/"):
        pos = _skip_spaces(text, 1)
    else:
        pos, atom, exp = factor(0)
        exps[atom] = exps.get(atom, 0) + exp
        while True:
            after = _skip_spaces(text, pos)
            if after < len(text) and text[after] in MUL_MARKS:
                pos, atom, exp = factor(_skip_spaces(text, after + 1))
                exps[atom] = exps.get(atom, 0) + exp
                continue
            if after < len(text) and text[after] != "/":
                raise junk(after)
            pos = after
            break
    while pos < len(text):
        pos, atom, exp = factor(_skip_spaces(text, pos + 1))
        exps[atom] = exps.get(atom, 0) - exp
        after = _skip_spaces(text, pos)
        if after < len(text) and text[after] in MUL_MARKS:
            raise UnitSyntaxError(f"{shown} is ambiguous — write a⋅c/b or a/b/c")
        if after < len(text) and text[after] != "/":
            raise junk(after)
        pos = after
    result = make_map(exps)
    if not result:
        raise UnitSyntaxError(f"{shown} declares no unit")
    return result


def _superscript(n: int) -> str:
    return "".join(DIGIT_TO_SUPER[d] for d in str(n))


def format_unit(m: UnitMap) -> str:
    """Normalised spelling: ``kg⋅m²/s²``, ``USD/month/node``, ``1/s``."""
    if not m:
        return "dimensionless"
    num = [(a, e) for a, e in m if e > 0]
    den = [(a, -e) for a, e in m if e < 0]

    def part(atom: str, exp: int) -> str:
        return atom + (_superscript(exp) if exp != 1 else "")

    head = "⋅".join(part(a, e) for a, e in num) if num else "1"
    return head + "".join("/" + part(a, e) for a, e in den)


def map_to_json(m: UnitMap) -> dict[str, int]:
    """The ``eval --json`` form: atoms in code-point order with their exponents."""
    return {a: e for a, e in m}


class UnitDefinitions:
    """A document's scale-1 unit definitions and their full expansion."""

    def __init__(self) -> None:
        self.defs: dict[str, UnitMap] = {}
        self.cyclic: set[str] = set()

    def expand(self, m: UnitMap) -> UnitMap:
        """Expand every defined atom recursively (cycles are left unexpanded)."""
        out: UnitMap = DIMENSIONLESS
        for atom, exp in m:
            out = combine(out, power(self._expand_atom(atom, ()), exp))
        return out

    def _expand_atom(self, atom: str, seen: tuple[str, ...]) -> UnitMap:
        if atom not in self.defs or atom in seen or atom in self.cyclic:
            return ((atom, 1),)
        out: UnitMap = DIMENSIONLESS
        for a, e in self.defs[atom]:
            out = combine(out, power(self._expand_atom(a, seen + (atom,)), e))
        return out

    def equal(self, a: UnitMap, b: UnitMap) -> bool:
        """Two maps are equal after full expansion of definitions."""
        return a == b or self.expand(a) == self.expand(b)

    def find_cycle(self, atom: str) -> list[str] | None:
        """The definition cycle starting at ``atom``, if its expansion returns to it."""

        def walk(cur: str, path: list[str]) -> list[str] | None:
            for a, _ in self.defs.get(cur, ()):
                if a == atom:
                    return path + [a]
                if a in self.defs and a not in path:
                    found = walk(a, path + [a])
                    if found:
                        return found
            return None

        return walk(atom, [atom])
