"""Resolution with the source revision the comments were written against: the two
revisions aligned line by line say where unchanged text went, which copy of a
repeated line is the comment's own, and where edited text now stands."""

from __future__ import annotations

import re
from typing import Any

from rapidfuzz.distance import Levenshtein

from ..align import LineAlignment
from ..fuzzy import Match, best_window, global_candidates, is_weak, similarity, word_recall
from ..lines import Span
from .engine import Engine, featureless, listed
from .model import TIE_MARGIN, WEAK_RECALL, WEAK_SIMILARITY, Anchor, Outcome, Placement


def locate_in_source(engine: Engine, anchor: Anchor, selection: str) -> Span | None:
    """Where the selection was in the source revision (None if unknown).

    The stored position is checked first; otherwise the occurrence nearest to
    the stored line (searching outwards in widening bands) is taken.  Without a
    stored line the selection must occur exactly once.
    """
    assert engine.src is not None
    src = engine.src
    if anchor.line is None:
        found = src.find_all(selection, limit=2)
        return src.span(found[0], found[0] + len(selection)) if len(found) == 1 else None
    if src.has_line(anchor.line):
        at = src.offset(anchor.line, anchor.start_column or 0)
        if src.text.startswith(selection, at):
            return src.span(at, at + len(selection))
    column = anchor.start_column or 0
    radius = 64
    while True:
        lo = src.line_offset(anchor.line - radius)
        hi = src.line_offset(anchor.line + radius + 1)
        whole = lo == 0 and hi >= src.starts[-1]
        hits = src.find_all(selection, start=lo, end=len(src.text) if whole else hi)
        if hits or whole:
            break
        radius *= 4
    spans = [src.span(o, o + len(selection)) for o in hits]
    if not spans:
        return None
    return min(
        spans, key=lambda s: (abs(s.line - anchor.line), abs(s.start_column - column)),
    )


def resolve(engine: Engine, anchor: Anchor, selection: str | None) -> Outcome | None:
    """Resolve using the source revision; None means "fall back to text only"."""
    assert engine.src is not None and engine.alignment is not None
    if selection is None:
        return project_line_only(engine, anchor)
    exact = engine.find.exact_spans(selection)
    if anchor.line is None and len(exact) > 1:
        return Outcome(Placement(
            "ambiguous", 0.5,
            reason=f"Exact text occurs {len(exact)} times and the comment has no line "
            f"to choose by (lines {listed(exact)}).",
        ))
    origin = locate_in_source(engine, anchor, selection)
    if origin is None:
        return None
    al = engine.alignment
    s_lo, s_hi = origin.line - 1, origin.end_line - 1
    mapped = al.forward[s_lo]
    if mapped != -1:
        at = engine.doc.starts[mapped] + origin.start_column
        if engine.doc.text.startswith(selection, at):
            own = engine.doc.span(at, at + len(selection))
            return own_exact(engine, anchor, selection, origin, own, exact)
    t_lo, t_hi = al.region(s_lo, s_hi)
    unclaimed = [s for s in exact if al.backward[s.line - 1] == -1]
    local = [s for s in unclaimed if t_lo < s.line <= t_hi]
    remote = [s for s in unclaimed if not t_lo < s.line <= t_hi]
    weak = is_weak(selection)
    if local:
        sure = not featureless(selection) and (not weak or al.pinned(s_lo, s_hi))
        return choose_local(
            engine, anchor, origin, local, t_lo, "anchored" if sure else "fuzzy",
            1.0 if sure else 0.7, "Exact text",
        )
    in_place = in_place_match(engine, origin, selection, t_lo, t_hi)
    strong = in_place is not None and in_place[1] >= engine.threshold
    if remote:
        if strong:
            assert in_place is not None
            return Outcome(place_in_place(engine, anchor, in_place, remote))
        if len(remote) == 1:
            if weak or ("\n" not in selection and engine.find.cuts_words(remote[0])):
                return Outcome(engine.place_match(
                    "fuzzy", 0.6, remote[0], anchor,
                    f"The selection occurs once in new text (line {remote[0].line}),"
                    " but it is too short or cut mid-word to be sure it is the same text.",
                ))
            return Outcome(engine.place_match(
                "anchored", 1.0, remote[0], anchor,
                f"Exact text moved from line {origin.line} to line {remote[0].line}.",
            ))
        return Outcome(
            Placement(
                "ambiguous", 0.5,
                reason=f"Exact text occurs {len(remote)} times in new text "
                f"(lines {listed(remote)}); none is where the original was.",
            ),
            candidates=remote,
        )
    loose = [
        s for s in engine.find.loose_spans(selection)
        if al.backward[s.line - 1] == -1 or s_lo <= al.backward[s.line - 1] <= s_hi
    ]
    loose_local = [s for s in loose if t_lo < s.line <= t_hi]
    if loose_local:
        return choose_local(
            engine, anchor, origin, loose_local, t_lo, "fuzzy", 0.95,
            "Text equal up to whitespace/case",
        )
    if loose and not strong:
        if len(loose) == 1:
            return Outcome(engine.place_match(
                "fuzzy", 0.9, loose[0], anchor,
                "Text equal up to whitespace/case moved to line "
                f"{loose[0].line}.",
            ))
        return Outcome(Placement(
            "ambiguous", 0.5,
            reason=f"Text equal up to whitespace/case occurs {len(loose)} times "
            f"(lines {listed(loose)}).",
        ))
    if strong:
        assert in_place is not None
        return Outcome(place_in_place(engine, anchor, in_place, []))
    found = global_candidates(
        engine.doc, selection, choices=engine.unclaimed, cutoff=engine.threshold,
    )
    found = [m for m in found if not _claimed(al, m.span)]
    good = [m for m in found if m.score >= engine.threshold]
    if good:
        best = good[0]
        close = [m for m in good[1:] if m.score >= best.score - TIE_MARGIN]
        if close:
            return Outcome(Placement(
                "ambiguous", best.score,
                reason=f"{len(close) + 1} similar passages in new text "
                f"(lines {listed([best.span] + [m.span for m in close])}).",
            ))
        return Outcome(engine.place_window(
            best.score, best.span, anchor, selection,
            f"Edited text found in new text at line {best.span.line} "
            f"(score {best.score:.2f}).",
        ))
    if in_place is not None:
        match, score = in_place
        recall = word_recall(selection, engine.hint_lines(match.span))
        if recall >= WEAK_RECALL and score >= WEAK_SIMILARITY:
            return Outcome(place_in_place(engine, anchor, in_place, []))
    rewritten = rewritten_in_place(engine, anchor, origin, selection)
    if rewritten is not None:
        return Outcome(rewritten)
    return Outcome(Placement(
        "orphaned", 0.0,
        reason="The selected text was removed and nothing similar took its place.",
    ))


def rewritten_in_place(
    engine: Engine, anchor: Anchor, origin: Span, selection: str,
) -> Placement | None:
    """A rewrite in a passage that kept its shape: same slot, same kind of block.

    Unchanged neighbours on both sides, the same number of lines between them,
    the corresponding line of the same Markdown kind (heading level, list item,
    table row, quote, paragraph) and still loosely similar: the text was
    rewritten where it stood.
    """
    assert engine.src is not None and engine.alignment is not None
    pair = engine.alignment.counterpart(origin.line - 1, origin.end_line - 1)
    if pair is None:
        return None
    first, last = pair
    before = engine.src.lines[origin.line - 1:origin.end_line]
    after = engine.doc.lines[first:last + 1]
    if _block_kind(before[0]) != _block_kind(after[0]):
        return None
    score = similarity("\n".join(before), "\n".join(after))
    if score < WEAK_SIMILARITY:
        return None
    span = Span(first + 1, last + 1, 0, len(after[-1]))
    return engine.place_window(
        score, span, anchor, selection,
        f"Rewritten in place (similarity {score:.2f}): its neighbours are unchanged and "
        "the passage between them kept its shape.",
    )


def own_exact(
    engine: Engine, anchor: Anchor, selection: str, origin: Span, span: Span, exact: list[Span],
) -> Outcome:
    """The comment's own text survived unchanged (possibly moved).

    Confident unless the diff's pairing is itself a guess: a copy of the line
    right next to an insertion or deletion (either copy could be the original),
    or a short line not pinned down by unchanged neighbours.  Then the placement
    is tentative and neighbours may still settle it.
    """
    hint = engine.hint_span(anchor)
    if (
        hint is not None and span.line != hint.line
        and engine.alignment is not None and engine.alignment.backward[hint.line - 1] == -1
        and engine.is_edited_in_place(selection, hint)
    ):
        recall, sim = engine.in_place_strength(selection, hint)
        return Outcome(engine.place_at_hint(
            "fuzzy", sim, hint,
            f"New text at the original line resembles the selection (similarity "
            f"{sim:.2f}); the unchanged copy at line {span.line} is treated as moved away.",
            selection=selection,
        ))
    if span.line == origin.line:
        reason = "Exact text unchanged at its position."
    else:
        reason = f"Exact text unchanged, moved from line {origin.line} to {span.line}."
    assert engine.alignment is not None
    weak = is_weak(selection)
    assert engine.src is not None
    key_line = next(
        (i for i in range(origin.line - 1, origin.end_line) if engine.src.lines[i].strip()),
        origin.line - 1,
    )
    if engine.alignment.slides(key_line) or (
        weak and not engine.alignment.supported(origin.line - 1)
    ):
        return Outcome(
            engine.place_match(
                "fuzzy", 0.7, span, anchor,
                "The text is unchanged, but an identical copy borders the edit next to "
                "it (or nothing distinctive pins it), so this copy may not be the original.",
            ),
            candidates=exact if len(exact) > 1 else None, strict=True,
            promote="fuzzy" if weak or featureless(selection) else "anchored",
        )
    return Outcome(engine.place_match("anchored", 1.0, span, anchor, reason))


def choose_local(
    engine: Engine, anchor: Anchor, origin: Span, spans: list[Span], t_lo: int,
    status: str, score: float, what: str,
) -> Outcome:
    """Pick among candidates inside the edited region the original text was in."""
    assert engine.alignment is not None
    offset = origin.line - 1 - engine.alignment.gap_start(origin.line - 1)
    expected = t_lo + 1 + offset

    def key(span: Span) -> tuple[int, int]:
        return abs(span.line - expected), abs(span.start_column - origin.start_column)

    ranked = sorted(spans, key=key)
    if len(ranked) > 1 and key(ranked[0]) == key(ranked[1]):
        return Outcome(
            Placement(
                "ambiguous", 0.5,
                reason=f"{what} occurs {len(spans)} times in the edited passage "
                f"(lines {listed(spans)}).",
            ),
            candidates=spans,
        )
    return Outcome(engine.place_match(
        status, score, ranked[0], anchor,
        f"{what} kept inside the edited passage (line {ranked[0].line}).",
    ))


def in_place_match(
    engine: Engine, origin: Span, selection: str, t_lo: int, t_hi: int,
) -> tuple[Match, float] | None:
    """The edited counterpart of the origin's lines in region [t_lo, t_hi).

    Returns the placement range (the selection's columns carried through a
    character alignment when it covered only part of its lines) and the
    similarity of the whole lines, which is what says "same passage, edited".
    """
    assert engine.src is not None and engine.alignment is not None
    if t_lo >= t_hi:
        return None
    src = engine.src
    context = "\n".join(src.lines[origin.line - 1:origin.end_line])
    skip = {
        t + 1 for t in range(t_lo, t_hi)
        if engine.alignment.backward[t] != -1 and engine.doc.lines[t].strip()
    }
    window = best_window(engine.doc, context, t_lo + 1, t_hi, skip=skip)
    if window is None:
        return None
    if context == selection:
        return window, window.score
    start_in = origin.start_column
    end_in = src.offset(origin.end_line, origin.end_column) - src.starts[origin.line - 1]
    ops = Levenshtein.opcodes(context, window.text)
    start = _carry(ops, start_in, False)
    end = max(start, _carry(ops, end_in, True))
    base = engine.doc.starts[window.span.line - 1]
    span = engine.doc.span(base + start, base + end)
    text = window.text[start:end]
    return Match(span, text, window.score), window.score


def place_in_place(
    engine: Engine, anchor: Anchor, in_place: tuple[Match, float], copies: list[Span],
) -> Placement:
    match, context_score = in_place
    inline = anchor.start_column is not None or anchor.end_column is not None
    columns = inline or match.span.start_column != 0 or match.span.end_column != len(
        engine.doc.lines[match.span.end_line - 1]
    )
    reason = f"Text edited in place (similarity of its lines {context_score:.2f})"
    if copies:
        reason += f"; identical text at line {listed(copies)} is newer text, not the original"
    return engine.place("fuzzy", context_score, match.span, reason + ".", columns=columns)


def project_line_only(engine: Engine, anchor: Anchor) -> Outcome | None:
    """Carry a line-only comment through the diff of source and target."""
    assert engine.src is not None and engine.alignment is not None
    al = engine.alignment
    line = anchor.line
    assert line is not None
    if not engine.src.has_line(line):
        return None
    last = min(anchor.end_line or line, engine.src.line_count)
    mapped = al.forward[line - 1]
    if mapped != -1:
        end_mapped = al.forward[last - 1]
        new_last = end_mapped + 1 if end_mapped >= mapped else mapped + 1 + (last - line)
        new_last = min(new_last, engine.doc.line_count)
        span = Span(mapped + 1, new_last, -1, -1)
        if mapped + 1 == line:
            return Outcome(engine.place_at_hint(
                "anchored", 1.0, _with_columns(span, anchor),
                "Line-only comment; the line is unchanged.",
            ))
        return Outcome(engine.place_at_hint(
            "shifted", 1.0, _with_columns(span, anchor),
            f"Line-only comment; the line moved from {line} to {mapped + 1}.",
        ))
    t_lo, t_hi = al.region(line - 1, last - 1)
    context = "\n".join(engine.src.lines[line - 1:last])
    window = best_window(engine.doc, context, t_lo + 1, t_hi) if context.strip() else None
    if window is not None and window.score >= engine.threshold:
        return Outcome(engine.place_window(
            window.score, window.span, anchor, None,
            f"Line-only comment; its line was edited (similarity {window.score:.2f}).",
        ))
    return Outcome(Placement(
        "orphaned", 0.0, reason=f"Line-only comment; line {line} was removed.",
    ))


_BLOCK_MARKER = re.compile(r"\s*(#{1,6}(?=\s)|[-*+](?=\s)|\d+[.)](?=\s)|>|\|)")


def _block_kind(line: str) -> str:
    """The Markdown block marker a line starts with (``p`` for plain text)."""
    match = _BLOCK_MARKER.match(line)
    if match is None:
        return "p"
    marker = match.group(1)
    return "1." if marker[0].isdigit() else marker


def _with_columns(span: Span, anchor: Anchor) -> Span:
    return Span(
        span.line, span.end_line,
        -1 if anchor.start_column is None else anchor.start_column,
        -1 if anchor.end_column is None else anchor.end_column,
    )


def _carry(ops: Any, position: int, is_end: bool) -> int:
    """Map a character position through Levenshtein opcodes (source -> target)."""
    result = 0
    for op in ops:
        tag, i1, i2, j1, j2 = tuple(op)
        inside = (i1 < position <= i2) if is_end else (i1 <= position < i2)
        if inside:
            if tag == "equal":
                return j1 + (position - i1)
            return j2 if is_end else j1
        if i2 <= position:
            result = j2
    return result


def _claimed(al: LineAlignment, span: Span) -> bool:
    return any(al.backward[t - 1] != -1 for t in range(span.line, span.end_line + 1)
               if al.target[t - 1].strip())
