"""Unit tests of the re-anchoring engine: line model, each resolution stage, edge cases."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from markmcp.mrsf.align import LineAlignment
from markmcp.mrsf.evaluate import range_correct
from markmcp.mrsf.fuzzy import LooseIndex, best_window, is_weak, similarity, word_recall
from markmcp.mrsf.lines import TextIndex, split_lines
from markmcp.mrsf.reanchor import STATUSES, Anchor, Placement, reanchor


def one(anchor: Anchor, target: str, source: str | None = None, **kw) -> Placement:
    [placement] = reanchor([anchor], target, source=source, **kw)
    return placement


# --------------------------------------------------------------------- line model


def test_split_lines_counts_like_upstream():
    assert split_lines("") == [""]
    assert split_lines("a") == ["a"]
    assert split_lines("a\n") == ["a", ""]
    assert split_lines("a\r\nb\r\n") == ["a", "b", ""]
    assert split_lines("a\rb\n") == ["a\rb", ""]  # a lone CR is an ordinary character
    assert split_lines("\n\n") == ["", "", ""]


def test_text_index_positions_and_slices():
    doc = TextIndex("ab\r\ncd\n\nef")
    assert doc.lines == ["ab", "cd", "", "ef"]
    assert doc.position(0) == (1, 0)
    assert doc.position(3) == (2, 0)
    assert doc.position(6) == (3, 0)
    assert doc.offset(2, 1) == 4
    assert doc.offset(2, 99) == 5  # clamped to the line
    assert doc.slice(1, 2, 1, 1) == "b\nc"
    assert doc.slice(2) == "cd"
    assert doc.slice(5) is None and doc.slice(0) is None
    assert doc.span(1, 4) == doc.span(1, 4)
    span = doc.span(1, 4)
    assert (span.line, span.end_line, span.start_column, span.end_column) == (1, 2, 1, 1)


def test_find_all_is_bounded():
    doc = TextIndex("x" * 1000)
    assert len(doc.find_all("x", limit=10)) == 10
    assert doc.find_all("") == []
    assert doc.find_all("xx", start=990) == list(range(990, 999))


# ------------------------------------------------------------------------ anchors


def test_anchor_from_comment_is_tolerant():
    anchor = Anchor.from_comment({
        "line": 3, "end_line": 5, "start_column": 0, "end_column": 4, "selected_text": "abc",
    })
    assert anchor == Anchor(3, 5, 0, 4, "abc")
    bad = Anchor.from_comment({
        "line": True, "end_line": "7", "start_column": -1, "end_column": 2.5,
        "selected_text": 12,
    })
    assert bad == Anchor()
    assert Anchor.from_comment({"line": 4, "end_line": 2}).end_line is None
    assert Anchor.from_comment({"selected_text": ""}).selected_text is None
    assert Anchor.from_comment("not a mapping") == Anchor()  # type: ignore[arg-type]


def test_document_level_comment_needs_no_placement():
    placement = one(Anchor(), "anything\n")
    assert placement.status == "anchored" and placement.line is None


def test_comment_mappings_are_accepted_and_text_is_required():
    [placement] = reanchor([{"line": 2, "selected_text": "beta line"}], "alpha\nbeta line\n")
    assert (placement.status, placement.line) == ("anchored", 2)
    with pytest.raises(TypeError, match="document text"):
        reanchor([Anchor(line=1)], b"bytes")  # type: ignore[arg-type]


def test_threshold_is_validated():
    with pytest.raises(ValueError, match="threshold"):
        reanchor([Anchor(line=1)], "x", threshold=1.5)
    with pytest.raises(ValueError, match="threshold"):
        reanchor([Anchor(line=1)], "x", threshold=True)
    assert one(Anchor(line=1, selected_text="abc def"), "xyz\n", threshold=0).status == "fuzzy"


# ---------------------------------------------------------------- step 1: exact


def test_exact_unique_match_moves_with_its_text():
    placement = one(Anchor(line=1, selected_text="Anchor paragraph."),
                    "New heading.\n\nAnchor paragraph.\n")
    assert (placement.status, placement.line, placement.end_line) == ("anchored", 3, 3)
    assert placement.start_column is None  # a whole-line match of a line anchor stays line-level
    assert placement.text == "Anchor paragraph."
    assert placement.score == 1.0


def test_exact_inline_match_reports_new_columns():
    placement = one(Anchor(line=1, start_column=0, end_column=13, selected_text="target phrase"),
                    "Prefix target phrase\n")
    assert (placement.line, placement.start_column, placement.end_column) == (1, 7, 20)
    assert placement.text == "target phrase"


def test_exact_partial_line_match_gets_columns_even_for_line_anchor():
    placement = one(Anchor(line=1, selected_text="Important phrase"), "**Important phrase**\n")
    assert (placement.status, placement.start_column, placement.end_column) == ("anchored", 2, 18)


def test_duplicates_without_position_are_ambiguous():
    placement = one(Anchor(selected_text="Repeated."), "Repeated.\n\nRepeated.\n")
    assert placement.status == "ambiguous"
    assert placement.line is None
    assert not placement.confident


def test_duplicates_with_position_pick_the_original_line():
    placement = one(Anchor(line=3, selected_text="Repeated."), "Repeated.\n\nRepeated.\n")
    assert (placement.status, placement.line) == ("anchored", 3)


def test_multiline_selection_with_columns():
    placement = one(
        Anchor(line=1, end_line=2, start_column=2, end_column=4, selected_text="alpha\nbeta"),
        "Intro.\n\nxxalpha\nbetayy\n",
    )
    assert (placement.status, placement.line, placement.end_line) == ("anchored", 3, 4)
    assert (placement.start_column, placement.end_column) == (2, 4)
    assert placement.text == "alpha\nbeta"


def test_a_line_inserted_inside_a_multiline_selection_widens_the_span():
    """The selection's lines are all still there in order, one new line between them:
    the comment spans the three lines, from the old start column to the old end column
    (before, the most similar single line took it and the rest of the span was lost)."""
    selection = "paragraph line one.\nAlpha paragrap"
    target = ("New heading\n\nBeta paragraph.\n\nIntro line.\n\nAlpha paragraph line one.\n"
              "An inserted middle line.\nAlpha paragraph line two.\n")
    placement = one(Anchor(line=3, end_line=4, start_column=6, end_column=14, selected_text=selection), target)
    assert (placement.status, placement.line, placement.end_line) == ("fuzzy", 7, 9)
    assert (placement.start_column, placement.end_column) == (6, 14)
    assert placement.text == "paragraph line one.\nAn inserted middle line.\nAlpha paragrap"
    # two places that fit equally: not guessed between (the usual fuzzy search decides)
    twice = target + "\nAlpha paragraph line one.\nAnother new line.\nAlpha paragraph line two.\n"
    placement = one(Anchor(line=3, end_line=4, start_column=6, end_column=14, selected_text=selection), twice)
    assert "inserted" not in placement.reason
    # more lines inserted than a small edit explains: not taken for the selection
    far = "Alpha paragraph line one.\n" + "x\n" * 4 + "Alpha paragraph line two.\n"
    placement = one(Anchor(line=1, end_line=2, start_column=6, end_column=14, selected_text=selection), far)
    assert "inserted" not in placement.reason


def test_selection_with_blank_edges():
    placement = one(Anchor(line=1, end_line=3, selected_text="\nBody text.\n"),
                    "Intro.\n\n\nBody text.\n\n")
    assert (placement.status, placement.line, placement.end_line) == ("anchored", 3, 5)


def test_crlf_target_and_selection():
    placement = one(Anchor(line=2, selected_text="two\r\nthree"), "one\r\ntwo\r\nthree\r\n")
    assert (placement.status, placement.line, placement.end_line) == ("anchored", 2, 3)
    assert placement.text == "two\nthree"


def test_unicode_columns_are_code_points():
    placement = one(Anchor(line=1, selected_text="café ☕"), "Le ✅ café ☕ ouvert\n")
    assert (placement.status, placement.start_column, placement.end_column) == ("anchored", 5, 11)


def test_lone_exact_far_away_does_not_teleport_an_edited_line():
    target = "Origin setting revised.\n\nA.\nB.\nC.\nD.\nE.\nSource setting.\n"
    placement = one(Anchor(line=1, selected_text="Source setting."), target)
    assert (placement.status, placement.line) == ("fuzzy", 1)


def test_in_place_edit_beats_a_nearby_copy():
    placement = one(Anchor(line=1, selected_text="- Configure service"),
                    "- Configure the primary service\n- Configure service\n")
    assert (placement.status, placement.line) == ("fuzzy", 1)


def test_short_selection_is_not_moved_to_another_line():
    placement = one(
        Anchor(line=1, start_column=4, end_column=10, selected_text="source"),
        "The origin is primary.\n\nAnother source exists.\n",
    )
    assert placement.status == "fuzzy"
    assert (placement.line, placement.start_column, placement.end_column) == (1, 4, 10)


def test_punctuation_only_selection_is_never_confident_without_source():
    placement = one(Anchor(line=3, selected_text="```"), "```\nx\n```\n")
    assert placement.status == "fuzzy" and placement.line == 3
    moved = one(Anchor(line=2, selected_text="---"), "---\ntitle: x\n")
    assert moved.status == "fuzzy" and moved.line == 1
    with_source = one(Anchor(line=1, selected_text="---"), "---\ntitle: x\n", "---\ntitle: x\n")
    assert with_source.status == "anchored"


def test_short_text_alone_at_its_recorded_place_is_anchored_unchanged():
    # MRSF §7.4 1a: the only exact match is the anchor, however short; a comment just
    # added on a short line must not be reported as changed (status calls it fresh)
    doc = "# Intro\n\nSome text here that is long enough.\n\n## Setup\n\nok\n"
    placement = one(Anchor(line=7, selected_text="ok"), doc)
    assert (placement.status, placement.line, placement.score) == ("anchored", 7, 1.0)
    fence = one(Anchor(line=1, selected_text="---"), "---\ntitle: x\n")
    assert (fence.status, fence.line) == ("anchored", 1)
    columns = one(Anchor(line=3, start_column=4, end_column=6, selected_text="ok"), "a\n\nis ok\n")
    assert columns.status == "fuzzy"  # recorded columns 4-6, the text is at 3-5


def test_very_common_short_text_is_never_confident():
    target = "\n".join(["```", "code", "```", ""] * 20)
    placement = one(Anchor(line=5, selected_text="```"), target)
    assert not placement.confident


def test_word_fragment_found_elsewhere_is_only_tentative():
    target = "Intro line here.\n\nAnother paragraph mentions the policy queue region.\n"
    placement = one(
        Anchor(line=1, start_column=2, end_column=17, selected_text="licy queue regi"), target,
    )
    assert placement.status == "fuzzy" and placement.line == 3


def test_slid_fence_is_not_claimed_confidently():
    block = "```sh\nrun {0}\n```\n\n"
    source = "Intro.\n\n" + block.format("first") + block.format("second") + "End.\n"
    target = "Intro.\n\n" + block.format("second") + "End.\n"
    placement = one(Anchor(line=3, selected_text="```sh"), target, source)
    assert not placement.confident
    kept = one(Anchor(line=8, selected_text="run second"), target, source)
    assert (kept.status, kept.line) == ("anchored", 4)


def test_copy_at_the_old_line_is_doubted_when_neighbours_moved():
    source = "Repeated line.\n\nFirst paragraph of the guide.\n\nSecond paragraph here.\n"
    target = "Repeated line.\nInserted text.\n\n" + source
    anchors = [
        Anchor(line=1, selected_text="Repeated line."),
        Anchor(line=3, selected_text="First paragraph of the guide."),
        Anchor(line=5, selected_text="Second paragraph here."),
    ]
    for src in (source, None):
        repeated, first, second = reanchor(anchors, target, source=src)
        assert (first.line, second.line) == (6, 8)
        assert (repeated.status, repeated.line) == ("anchored", 4)  # moved with its neighbours
    alone = one(anchors[0], target)
    assert alone.status == "anchored" and alone.line == 1  # nothing says otherwise
    assert not one(anchors[0], target, source).confident  # the diff alone cannot tell


def test_source_fence_paired_by_chance_is_not_confident():
    source = "```sh\nrun alpha\n```\n\nAlpha paragraph text.\n\n```sh\nrun beta\n```\n\nEnd.\n"
    target = "```sh\nrun beta\n```\n\n```sh\nrun alpha\n```\n\nAlpha paragraph text.\n\nEnd.\n"
    fence = one(Anchor(line=1, selected_text="```sh"), target, source)
    assert not (fence.confident and fence.line == 1)
    body = one(Anchor(line=2, selected_text="run alpha"), target, source)
    assert (body.status, body.line) == ("anchored", 6)


# ------------------------------------------------------- step 2: line fallback


def test_line_only_comment_kept_while_line_exists():
    assert one(Anchor(line=2), "a\nb\n").status == "anchored"
    past = one(Anchor(line=9), "a\nb\n")
    assert past.status == "orphaned" and past.line is None
    clipped = one(Anchor(line=2, end_line=9), "a\nb\n")
    assert (clipped.status, clipped.line, clipped.end_line) == ("fuzzy", 2, 2)
    # the empty remainder after the final newline is no line to keep a comment on, as
    # status, validate and add count (status called it orphaned, reanchor kept it)
    after = one(Anchor(line=3), "a\nb\n")
    assert after.status == "orphaned" and after.reason == "Line 3 is past the end of the document (2 lines)."
    assert one(Anchor(line=3), "a\nb\nc").status == "anchored"


def test_line_only_comment_past_the_end_counts_lines_as_an_editor_does():
    # 21 lines ending in a newline are 21 lines, as the validator, add and status say
    document = "".join(f"line {n}\n" for n in range(1, 22))
    past = one(Anchor(line=30), document)
    assert past.status == "orphaned"
    assert past.reason == "Line 30 is past the end of the document (21 lines)."
    assert one(Anchor(line=30), document.rstrip("\n")).reason.endswith("(21 lines).")
    assert one(Anchor(line=30), "").reason.endswith("(0 lines).")


def test_line_only_comment_follows_the_diff_with_source():
    source = "alpha\nbeta\ngamma\n"
    target = "new\nalpha\nbeta\ngamma\n"
    placement = one(Anchor(line=2, end_line=3), target, source)
    assert (placement.status, placement.line, placement.end_line) == ("shifted", 3, 4)
    assert one(Anchor(line=2), source, source).status == "anchored"
    gone = one(Anchor(line=2), "alpha\ngamma\n", source)
    assert gone.status == "orphaned"


# --------------------------------------------------------- step 3: contextual


def test_whitespace_and_case_changes_are_fuzzy():
    placement = one(Anchor(line=1, end_line=2, selected_text="Alpha line.\nBeta line."),
                    "Alpha  line.\n\nbeta   line.\n")
    assert (placement.status, placement.line, placement.end_line) == ("fuzzy", 1, 3)


def test_rewritten_sentence_is_fuzzy():
    placement = one(
        Anchor(line=1, selected_text="The original sentence explains the behavior clearly."),
        "The revised sentence describes the behavior more clearly.\n",
    )
    assert (placement.status, placement.line) == ("fuzzy", 1)
    assert placement.text == "The revised sentence describes the behavior more clearly."
    assert 0.6 <= placement.score < 1.0


def test_split_paragraph_spans_both_parts():
    placement = one(Anchor(line=1, selected_text="First idea continues into the second idea."),
                    "First idea continues.\n\nThe second idea follows.\n")
    assert (placement.status, placement.line, placement.end_line) == ("fuzzy", 1, 3)


def test_edited_text_found_far_away():
    target = "Intro.\n\n" + "\n\n".join(f"Filler paragraph number {i}." for i in range(30)) + \
        "\n\nThe deployment pipeline validates every signed release artifact.\n"
    placement = one(
        Anchor(line=1, selected_text="The deploy pipeline validates each signed release artifact."),
        target,
    )
    assert placement.status == "fuzzy"
    assert placement.text == "The deployment pipeline validates every signed release artifact."


def test_fuzzy_placement_of_an_inline_anchor_gets_fresh_columns():
    target = "Intro.\n\n" + "\n\n".join(f"Filler paragraph number {i}." for i in range(20)) + \
        "\n\nWe always rotate the signing keys quarterly here.\n"
    placement = one(
        Anchor(line=1, start_column=10, end_column=40,
               selected_text="rotate the signing key quarterly"),
        target,
    )
    assert placement.status == "fuzzy"
    assert placement.text == "rotate the signing keys quarterly"
    assert (placement.line, placement.start_column, placement.end_column) == (43, 10, 43)


# ------------------------------------------------------------------ step 4: orphan


def test_unrelated_replacement_is_orphaned():
    for source in (None, "Selected paragraph that will be removed.\n"):
        placement = one(Anchor(line=1, selected_text="Selected paragraph that will be removed."),
                        "Unrelated replacement.\n", source)
        assert placement.status == "orphaned" and placement.line is None


def test_anchor_past_the_end_still_finds_its_text():
    placement = one(Anchor(line=500, end_line=501, selected_text="Tail one.\nTail two."),
                    "Head.\nTail one.\nTail two.\n")
    assert (placement.status, placement.line, placement.end_line) == ("anchored", 2, 3)
    gone = one(Anchor(line=500, selected_text="Vanished sentence here."), "Head.\n")
    assert gone.status == "orphaned"


def test_loose_match_when_lower_casing_changes_lengths():
    doc = TextIndex("İstanbul notes\nHello    World again\n")  # "İ".lower() is two characters
    loose = LooseIndex(doc)
    assert loose.lowered is None
    assert loose.find_all("hello world") == [(15, 29)]
    placement = one(Anchor(line=2, selected_text="hello world again"), doc.text)
    assert (placement.status, placement.line) == ("fuzzy", 2)


def test_empty_document():
    assert one(Anchor(line=1, selected_text="Gone text here."), "").status == "orphaned"
    assert one(Anchor(line=1), "").status == "orphaned"  # no line, as add and status say
    assert one(Anchor(line=2), "").status == "orphaned"
    assert reanchor([], "") == []


# ----------------------------------------------------------------- with a source


def test_source_tells_a_surviving_copy_from_the_original():
    source = "Repeated phrase.\n\nMiddle.\n\nRepeated phrase.\n"
    target = "Changed phrase here.\n\nMiddle.\n\nRepeated phrase.\n"
    placement = one(Anchor(line=1, selected_text="Repeated phrase."), target, source)
    assert placement.status != "anchored" or placement.line == 1
    assert not (placement.confident and placement.line == 5)


def test_source_projects_columns_through_an_edited_line():
    source = "The source is primary.\n\nAnother source exists.\n"
    target = "The origin is primary.\n\nAnother source exists.\n"
    placement = one(Anchor(line=1, start_column=4, end_column=10, selected_text="source"),
                    target, source)
    assert (placement.status, placement.line) == ("fuzzy", 1)
    assert (placement.start_column, placement.end_column) == (4, 10)
    assert placement.text == "origin"


def test_source_finds_a_rewrite_in_a_passage_that_kept_its_shape():
    source = "# Guide\n\n### Dispatcher\n\nThe dispatcher assigns work.\n\n## Next\n"
    target = "# Guide\n\n### Scheduler\n\nThe scheduler assigns work.\n\n## Next\n"
    placement = one(Anchor(line=3, selected_text="### Dispatcher"), target, source)
    assert (placement.status, placement.line, placement.text) == ("fuzzy", 3, "### Scheduler")
    reshaped = "# Guide\n\nScheduler notes.\n\nThe scheduler assigns work.\n\n## Next\n"
    assert one(Anchor(line=3, selected_text="### Dispatcher"), reshaped, source).status \
        == "orphaned"  # a heading turned into a paragraph is not the same block
    assert one(Anchor(line=3, selected_text="### Dispatcher"), target).status == "orphaned"


def test_source_follows_a_moved_section_with_repeated_text():
    section = "# {0}\n\nUnique {0} start.\n\nShared line.\n\nUnique {0} end.\n\n"
    source = section.format("A") + section.format("B")
    target = "Intro.\n\n" + section.format("B") + section.format("A")
    shared_in_a = 5
    placement = one(Anchor(line=shared_in_a, selected_text="Shared line."), target, source)
    assert (placement.status, placement.line) == ("anchored", 2 + 8 + shared_in_a)


def test_reconciliation_uses_neighbours_without_source():
    section = "# {0}\n\nUnique {0} start.\n\nShared line.\n\nUnique {0} end.\n\n"
    target = "Intro.\n\n" + section.format("B") + section.format("A")
    anchors = [
        Anchor(line=3, selected_text="Unique A start."),
        Anchor(line=5, selected_text="Shared line."),
        Anchor(line=7, selected_text="Unique A end."),
    ]
    placements = reanchor(anchors, target)
    assert [p.line for p in placements] == [13, 15, 17]
    assert placements[1].status == "anchored"
    alone = reanchor(anchors[1:2], target)[0]
    assert alone.status == "ambiguous"  # without neighbours the engine refuses to guess


def test_selection_not_in_source_falls_back_to_text_only():
    placement = one(Anchor(line=1, selected_text="Anchor paragraph."),
                    "Intro.\nAnchor paragraph.\n", "Something else entirely.\n")
    assert (placement.status, placement.line) == ("anchored", 2)


def test_alignment_maps_moved_blocks():
    source = ["# A", "a1", "", "# B", "b1", ""]
    target = ["# B", "b1", "", "# A", "a1", ""]
    al = LineAlignment(source, target)
    assert al.forward[0] == 3 and al.forward[1] == 4
    assert al.forward[3] == 0 and al.forward[4] == 1
    edited = LineAlignment(["x", "old line here", "y"], ["x", "new line here", "y"])
    assert edited.forward[1] == -1
    assert edited.region(1, 1) == (1, 2)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "c", "", "```"]), max_size=30),
       st.lists(st.sampled_from(["a", "b", "c", "", "```", "d"]), max_size=30))
def test_alignment_is_a_consistent_partial_matching(source, target):
    al = LineAlignment(source, target)
    for s, t in enumerate(al.forward):
        if t != -1:
            assert source[s] == target[t] and al.backward[t] == s
    assert sum(t != -1 for t in al.forward) == sum(s != -1 for s in al.backward)
    if source == target:
        assert al.forward == list(range(len(source)))
    for s in range(len(source)):
        lo, hi = al.region(s, s)
        assert 0 <= lo <= hi <= len(target)


# ------------------------------------------------------------ huge documents


def test_huge_document_stays_correct():
    rng = random.Random(7)
    vocabulary = [f"w{n}" for n in range(400)]
    lines = [" ".join(rng.choice(vocabulary) for _ in range(8)) + "." for _ in range(20000)]
    source = "\n\n".join(lines) + "\n"
    moved = lines[:100] + lines[19000:19010] + lines[100:19000] + lines[19010:]
    target = "\n\n".join(moved) + "\n"
    anchors = [Anchor(line=2 * i + 1, selected_text=lines[i]) for i in (0, 150, 19005, 19999)]
    for src in (source, None):
        placements = reanchor(anchors, target, source=src)
        expected = [1, 2 * 160 + 1, 2 * 105 + 1, 2 * 19999 + 1]
        assert [p.line for p in placements] == expected
        assert all(p.status == "anchored" for p in placements)


# ------------------------------------------------------------------ fuzzy helpers


def test_fuzzy_helpers():
    assert similarity("a  b", "a b") == 1.0
    assert word_recall("Original phrase.", "Revised original phrase.") == 1.0
    assert word_recall("Alpha item", "Beta item") == 0.5
    assert is_weak("source") and is_weak("```") and not is_weak("Repeated phrase.")
    loose = LooseIndex(TextIndex("Hello   World\nagain"))
    assert loose.find_all("hello world\nAGAIN") == [(0, 19)]
    doc = TextIndex("x\nFirst idea continues.\n\nThe second idea follows.\ny\n")
    window = best_window(doc, "First idea continues into the second idea.", 1, 6)
    assert window is not None and (window.span.line, window.span.end_line) == (2, 4)


def test_evaluator_range_rule():
    got = Placement("anchored", 1.0, line=3)
    assert range_correct({"line": 1}, {"ranges": [{"line": 3}]}, got)
    assert not range_correct({"line": 1, "end_line": 2}, {"ranges": [{"line": 3, "end_line": 3}]},
                             got)
    assert range_correct({}, {"status": "ambiguous"}, Placement("ambiguous", 0.5))
    assert range_correct({"line": 1, "start_column": 4, "end_column": 10},
                         {"ranges": [{"line": 1, "start_column": 4, "end_column": 10}]},
                         Placement("fuzzy", 0.5, line=1))


# ----------------------------------------------------------------- properties

_text = st.text(alphabet="ab \n\r\té✅", max_size=80)


@settings(max_examples=300, deadline=None)
@given(
    source=_text, target=_text, use_source=st.booleans(),
    line=st.one_of(st.none(), st.integers(1, 12)),
    end_line=st.one_of(st.none(), st.integers(1, 12)),
    start=st.one_of(st.none(), st.integers(0, 10)),
    end=st.one_of(st.none(), st.integers(0, 10)),
    selection=st.one_of(st.none(), st.text(alphabet="ab \n\r✅", min_size=1, max_size=12)),
)
def test_any_input_gives_a_well_formed_placement(
    source, target, use_source, line, end_line, start, end, selection,
):
    anchor = Anchor.from_comment({
        "line": line, "end_line": end_line, "start_column": start, "end_column": end,
        "selected_text": selection,
    })
    [placement] = reanchor([anchor], target, source=source if use_source else None)
    assert placement.status in STATUSES
    assert 0.0 <= placement.score <= 1.0
    doc = TextIndex(target)
    if placement.line is not None:
        assert 1 <= placement.line <= (placement.end_line or placement.line) <= doc.line_count
    if placement.status in ("ambiguous", "orphaned"):
        assert placement.line is None
    if placement.confident and anchor.selected_text and placement.line is not None:
        assert placement.text == anchor.selected_text.replace("\r\n", "\n")


@settings(max_examples=150, deadline=None)
@given(st.lists(st.text(alphabet="abc .", min_size=1, max_size=20), min_size=1, max_size=15),
       st.data())
def test_unchanged_document_keeps_every_selection(lines, data):
    text = "\n".join(lines) + "\n"
    index = data.draw(st.integers(0, len(lines) - 1))
    if not lines[index].strip():
        return
    anchor = Anchor(line=index + 1, selected_text=lines[index])
    for source in (text, None):
        placement = one(anchor, text, source)
        assert placement.line == index + 1
        assert placement.status in ("anchored", "fuzzy")
        if source is not None:
            assert placement.status == "anchored"


@pytest.mark.parametrize("marker", ["1. ", "- ", "> ", "## ", "- [ ] ", "  * "])
def test_fuzzy_text_of_a_line_level_selection_leaves_out_the_line_prefix(marker):
    """The selection was the item's text; the item was edited: the placement is the
    edited text without its marker, with columns."""
    doc = f"Intro.\n\n{marker}Keep the old signing keys for a day.\n"
    placement = one(Anchor(line=3, selected_text="Keep the old signing keys for two days."), doc)
    assert placement.status == "fuzzy" and placement.line == 3
    assert placement.text == "Keep the old signing keys for a day."
    assert (placement.start_column, placement.end_column) == (len(marker), len(doc.split("\n")[2]))


def test_fuzzy_text_keeps_the_prefix_the_selection_has_and_a_whole_line_stays_line_level():
    doc = "Intro.\n\n- Keep the old signing keys for a day.\n"
    placement = one(Anchor(line=3, selected_text="- Keep the old signing keys for two days."), doc)
    assert placement.status == "fuzzy" and placement.text == "- Keep the old signing keys for a day."
    assert placement.start_column is None and placement.end_column is None


def test_fuzzy_text_inside_a_much_longer_line_is_the_part_that_matches():
    doc = "Intro.\n\nBefore all else, keep the old signing keys for a day, then rotate them and tell the team.\n"
    placement = one(Anchor(line=3, selected_text="keep the old signing keys for two days"), doc)
    assert placement.status == "fuzzy"
    assert placement.text.startswith("keep the old signing keys") and "rotate" not in placement.text
