"""Did-you-mean: the closest candidate by edit distance."""

from __future__ import annotations

from collections.abc import Iterable


def levenshtein(a: str, b: str) -> int:
    """Classic edit distance (insert, delete, substitute each cost 1)."""
    if not a:
        return len(b)
    if not b:
        return len(a)
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb))
        prev = cur
    return prev[-1]


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
