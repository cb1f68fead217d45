"""Re-anchoring a generated review whose fate is known comment by comment.

``evaluate.generate_workload`` writes a long Markdown document (prose, lists and tables
whose lines share prefixes with their neighbours), puts comments on distinct lines, and
edits it: lines inserted, words reworded, lines deleted, so that text moves by a few to a
hundred lines.  For every comment it knows the truth: kept (the text is unchanged, at
line L now), reworded (edited where it stands, now line L), deleted.  Text only (no
source revision), as a reviewer without git history runs it.

A CI-sized version of the benchmark's workload (10,000 lines, 1,000 comments).
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from markmcp.mrsf.evaluate import Truth, generate_workload, score_workload
from markmcp.mrsf.lines import TextIndex
from markmcp.mrsf.reanchor import Anchor, Finder, Placement, reanchor


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_text_only_places_the_generated_review_right(seed):
    work = generate_workload(seed, lines=3000, comments=300, edits=150)
    kinds = {t.kind for t in work.truth}
    assert kinds >= {"kept", "reworded"}  # the workload exercises more than exact matches
    placements = reanchor([Anchor.from_comment(c) for c in work.comments], work.target)
    score = score_workload(placements, work.truth)
    assert score.confident_wrong == 0, score.wrong
    assert score.right >= 0.99 * score.total, score.wrong


def test_a_unique_exact_match_wins_over_a_resembling_old_line():
    """The commented line moved 12 lines down; a sibling list item with the same start
    now stands at its old line.  The nearby comments moved the same way."""
    items = [f"- Configure the service {w} rotates nightly." for w in
             ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel")]
    source = "\n".join(items + [f"Paragraph {n} with its own words." for n in range(20)])
    inserted = [f"- Configure the service extra{n} rotates nightly." for n in range(12)]
    target_lines = inserted + items + [f"Paragraph {n} with its own words." for n in range(20)]
    target = "\n".join(target_lines)
    anchors = [Anchor(line=n + 1, selected_text=line) for n, line in enumerate(source.split("\n"))]
    placements = reanchor(anchors, target)
    for anchor, placement in zip(anchors, placements):
        assert placement.status == "anchored" and placement.line == anchor.line + 12, placement


def test_the_old_line_still_wins_when_nothing_else_moved():
    """Text rewritten at its line, an identical copy seven lines away and no other
    comment to go by: kept in place, tentatively (the shared corpus pins this too)."""
    target = "Origin setting revised.\n\nA.\nB.\nC.\nD.\nE.\nSource setting.\n"
    [placement] = reanchor([Anchor(line=1, selected_text="Source setting.")], target)
    assert placement.status == "fuzzy" and placement.line == 1


def test_a_deleted_line_is_not_placed_on_a_sibling_with_other_words():
    lines = [f"| {w} | primary region | {n} |" for n, w in enumerate(
        ("kafomi", "ribeta", "sunovo", "delapi", "mirako", "tuvesa"))]
    target = "\n".join(lines[:2] + lines[3:])
    [placement] = reanchor([Anchor(line=3, selected_text=lines[2])], target)
    assert placement.status == "orphaned", placement


def test_scoring_counts_what_it_says():
    truth = [Truth("kept", 3), Truth("reworded", 5), Truth("deleted", None), Truth("kept", 7)]
    placements = [Placement("anchored", 1.0, 3, 3), Placement("fuzzy", 0.8, 5, 5),
                  Placement("fuzzy", 0.7, 9, 9), Placement("anchored", 1.0, 8, 8)]
    score = score_workload(placements, truth)
    assert (score.right, score.confident_wrong) == (2, 1)
    assert [n for n, _, _ in score.wrong] == [2, 3]


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 10**6), size=st.integers(1, 40))
def test_indexed_exact_search_finds_every_occurrence(seed, size):
    """The engine's indexed search equals a plain scan of the whole text."""
    rng = random.Random(seed)
    vocab = ["alpha", "beta", "gamma", "Beta", "ß", "straße", "x", "-", "a.b", "10"]
    lines = [" ".join(rng.choice(vocab) for _ in range(rng.randint(0, 8))) for _ in range(3000)]
    text = "\n".join(lines)
    finder = Finder(text)
    start = rng.randrange(len(text) - 1)
    needle = text[start:start + size]
    assert finder.find_exact(needle) == TextIndex(text).find_all(needle)


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 10**6), size=st.integers(1, 60))
def test_indexed_exact_search_with_rare_words_finds_every_occurrence(seed, size):
    """Rare words (looked up in the index: a selection starting or ending inside one is
    found through the words ending or starting with its part) still find what a plain
    scan of the whole text finds, copies inside longer words included."""
    rng = random.Random(seed)
    syllables = ["ka", "ri", "Zo", "mu", "ße", "ne", "ß", "vo", "ti"]
    rare = ["".join(rng.choice(syllables) for _ in range(rng.randint(1, 4))) for _ in range(400)]
    common = ["the", "a", "-", "|", "10.", "Straße"]
    lines = [" ".join(rng.choice(rare if rng.random() < 0.5 else common) for _ in range(rng.randint(0, 8)))
             for _ in range(3000)]
    text = "\n".join(lines)
    finder = Finder(text)
    start = rng.randrange(len(text) - 1)
    needle = text[start:start + size]
    assert finder.find_exact(needle) == TextIndex(text).find_all(needle)
