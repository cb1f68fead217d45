"""Did-you-mean's edit distance is the classic Levenshtein distance by code point (now
computed by rapidfuzz; the plain table below is the reference it must equal).  Fuzzing
found the pure-Python table taking 20 s on a document full of long unknown names."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from markmcp.visimark.suggest import closest, levenshtein


def table(a: str, b: str) -> int:
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb))
        prev = cur
    return prev[-1]


words = st.text(alphabet="abcAB_é\U0001f600", max_size=12)


@given(words, words)
def test_levenshtein_is_the_classic_distance(a: str, b: str) -> None:
    assert levenshtein(a, b) == table(a, b)


def test_closest_examples() -> None:
    assert levenshtein("kitten", "sitting") == 3
    assert closest("revenu", ["revenue", "cost", "reveal"]) == "revenue"
    assert closest("SUMM", ["SUM", "MIN"], 3) == "SUM"
    assert closest("zzzzzz", ["SUM"], 3) is None
