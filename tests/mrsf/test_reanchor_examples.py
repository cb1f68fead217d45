"""The engine on the six upstream example sidecars (text only, as a sidecar has no source).

Each example's YAML comments describe the intended outcome of its scenario; these
tests check the engine reaches it.
"""

from __future__ import annotations

import pytest
from ruamel.yaml import YAML

from conftest import shared_dir
from markmcp.mrsf.fuzzy import similarity
from markmcp.mrsf.reanchor import Anchor, Placement, reanchor


def run(name: str) -> list[tuple[dict, Placement]]:
    folder = shared_dir("mrsf", "examples")
    sidecar = YAML(typ="safe").load((folder / f"{name}.review.yaml").read_text(encoding="utf-8"))
    text = (folder / name).read_bytes().decode("utf-8")
    comments = sidecar["comments"]
    placements = reanchor([Anchor.from_comment(c) for c in comments], text)
    return list(zip(comments, placements))


def test_shifted_text_is_found_at_its_new_lines():
    results = run("api-reference.md")
    assert [p.status for _, p in results] == ["anchored"] * 3
    for comment, placement in results:
        assert placement.line != comment["line"]
        assert placement.text == comment["selected_text"]
    assert results[2][1].end_line == results[2][1].line + 1  # the two-line span moved whole


def test_reworded_text_is_placed_fuzzily_on_similar_text():
    for comment, placement in run("deployment-guide.md"):
        assert placement.status == "fuzzy"
        assert similarity(comment["selected_text"], placement.text) >= 0.6


def test_repeated_phrases_use_the_line_hint_or_stay_ambiguous():
    placements = [p for _, p in run("security-policy.md")]
    assert (placements[0].status, placements[0].line) == ("anchored", 52)
    assert (placements[1].status, placements[1].line) == ("anchored", 65)
    assert placements[2].status == "ambiguous"  # no line hint: must not guess
    assert placements[3].line == 59 and placements[3].text == "**Auditor**"
    assert not placements[3].confident  # a single short word is not proof enough
    assert (placements[4].status, placements[4].line) == ("anchored", 77)


def test_deleted_sections_orphan_their_comments():
    results = run("contributing.md")
    statuses = [p.status for _, p in results]
    assert statuses[1] == statuses[2] == statuses[4] == "orphaned"
    assert (results[0][1].status, results[0][1].line) == ("anchored", 5)
    assert results[0][1].score < 1.0  # line-only without a source: unverified


@pytest.mark.parametrize("name", ["architecture.md", "data-model.md"])
def test_unchanged_documents_keep_every_anchor(name):
    for comment, placement in run(name):
        assert placement.status == "anchored"
        if "line" in comment:
            assert placement.line == comment["line"]
        if comment.get("selected_text"):
            assert placement.text == comment["selected_text"]
