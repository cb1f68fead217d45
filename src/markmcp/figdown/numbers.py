"""FigDown numbers (core §12.5): decimal text bound to an IEEE double."""

from __future__ import annotations

import re

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
