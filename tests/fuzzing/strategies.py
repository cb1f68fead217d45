"""Hypothesis strategies for the fuzz tests: corpus documents edited by shrinkable edits."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from fuzz_targets import COUNTS, EDITS, MAX_WINDOW_LINES, capped, edit


def _window(text: str, start: int, length: int) -> str:
    lines = text.split("\n")
    if len(lines) <= MAX_WINDOW_LINES:
        return text
    start %= len(lines) - MAX_WINDOW_LINES + 1
    return "\n".join(lines[start:start + length])


@st.composite
def edited(draw: Any, seeds: list[str], alphabet: str, max_edits: int = 6) -> str:
    """A corpus document (a window of it when long) with up to ``max_edits`` edits; a
    failing example shrinks towards fewer, smaller edits of a shorter document."""
    text = draw(st.sampled_from(seeds))
    text = _window(text, draw(st.integers(0, 10_000)), draw(st.integers(1, MAX_WINDOW_LINES)))
    other = draw(st.sampled_from(seeds))
    edits = draw(st.lists(
        st.tuples(
            st.integers(0, EDITS - 1),
            st.integers(0, 1 << 20),
            st.text(alphabet=alphabet, min_size=1, max_size=8),
            st.sampled_from(COUNTS),
        ),
        max_size=max_edits,
    ))
    for kind, pos, piece, count in edits:
        text = capped(edit(text, kind, pos, piece, count, other))
    return text


def documents(seeds: list[str], alphabet: str) -> st.SearchStrategy[str]:
    """Edited corpus documents, mostly; sometimes text from the grammar's characters or any text."""
    return st.one_of(
        edited(seeds, alphabet),
        edited(seeds, alphabet),
        edited(seeds, alphabet),
        st.text(alphabet=alphabet, max_size=300),
        st.text(max_size=100),
    )
