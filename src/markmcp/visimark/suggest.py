"""Did-you-mean: the closest candidate by edit distance."""

from __future__ import annotations

from collections.abc import Iterable


def levenshtein(a: str, b: str) -> int:
    """Classic edit distance (insert, delete, substitute each cost 1), by code point.

    rapidfuzz's bit-parallel C implementation: a pure-Python table costs len(a) * len(b)
    steps, and a document full of long unknown names made a did-you-mean take seconds.
    """
    from rapidfuzz.distance import Levenshtein  # a dependency already; imported when first needed

    return Levenshtein.distance(a, b)


def _prefix(a: str, b: str) -> int:
    n = 0
    while n < len(a) and n < len(b) and a[n] == b[n]:
        n += 1
    return n


def closest(target: str, candidates: Iterable[str], max_distance: int | None = None) -> str | None:
    """Closest candidate; ties go to the longer shared prefix, then alphabetical order."""
    best: tuple[int, int, str] | None = None
    for c in candidates:
        if c == target:
            continue
        d = levenshtein(target, c)
        if max_distance is not None and d > max_distance:
            continue
        key = (d, -_prefix(target, c), c)
        if best is None or key < best:
            best = key
    return best[2] if best else None
