"""FigDown numbers (core §12.5): decimal text bound to an IEEE double."""

from __future__ import annotations

import math
import re
from decimal import Decimal

#: A non-negative decimal: digits, optionally one fraction.
DECIMAL_RE = re.compile(r"[0-9]+(?:\.[0-9]+)?\Z")
SIGNED_DECIMAL = r"-?[0-9]+(?:\.[0-9]+)?"
DIGITS_RE = re.compile(r"[0-9]+\Z")
MAX_SAFE_INTEGER = 9007199254740991


def to_number(text: str) -> int | float:
    """The double a decimal text denotes, as an int when integral."""
    value = float(text)
    if value.is_integer() and abs(value) < 1e21:
        return int(value)
    return value


#: Above 2**53 an integer is no longer its own shortest double spelling.
_EXACT = 2**53


def number_text(value: float | int) -> str:
    """The text ECMAScript's ``String(number)`` gives for ``value`` read as a double.

    Integral values print without a fraction; above 2**53 they print the shortest
    digits that read back as the same double, padded with zeros
    (``123456789012345680000``, not the exact ``123456789012345683968``); from 1e21
    up, and below 1e-6, in exponent form; non-finite values as ``Infinity``,
    ``-Infinity`` and ``NaN``."""
    if isinstance(value, int):
        if abs(value) <= _EXACT:
            return str(value)
        try:
            value = float(value)
        except OverflowError:
            value = math.inf if value > 0 else -math.inf
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == int(value) and abs(value) <= _EXACT:
        return str(int(value))
    text = repr(value)
    if value == int(value) and abs(value) < 1e21:
        return format(Decimal(text).normalize(), "f")
    if "e" in text:
        mantissa, exp = text.split("e")
        sign = "-" if exp.startswith("-") else "+"
        digits = exp.lstrip("+-").lstrip("0") or "0"
        if sign == "-" and int(digits) <= 6:
            # ECMAScript writes plain decimals down to 1e-6
            return format(Decimal(text), "f")
        return f"{mantissa}e{sign}{digits}"
    return text
