"""Resolution from the target text alone (MRSF §7.4 without a source revision):
exact text, text equal up to case and blanks, then similar text near the stored
position or anywhere, else the comment is orphaned."""

from __future__ import annotations

from dataclasses import replace

from ..fuzzy import Match, best_window, global_candidates, is_weak, word_recall, words
from ..lines import Span
from .engine import Engine, featureless, listed
from .model import (
    CONFIDENT, FUZZY_RECALL, LOCAL_RADIUS, PROXIMITY_WINDOW, STRONG_RECALL, TIE_MARGIN,
    WEAK_RECALL, WEAK_SIMILARITY, Anchor, Outcome, Placement,
)


def line_only(engine: Engine, anchor: Anchor) -> Placement:
    """A comment with a line but no selected text: keep it if the line exists."""
    doc = engine.doc
    assert anchor.line is not None
    # Lines as status, validate and add count them: the empty remainder after a final
    # newline is no line a comment can be kept on (``"a\nb\n"`` has 2).
    shown = doc.lines_shown
    if not 1 <= anchor.line <= shown:
        return Placement(
            "orphaned", 0.0,
            reason=f"Line {anchor.line} is past the end of the document "
            f"({shown} lines).",
        )
    clipped = anchor.end_line is not None and anchor.end_line > shown
    if clipped:
        anchor = replace(anchor, end_line=shown)
    hint = engine.hint_span(anchor)
    assert hint is not None
    return engine.place_at_hint(
        "fuzzy" if clipped else "anchored", 0.5, hint,
        "Line-only comment; its end line was past the end and was clipped."
        if clipped else "Line-only comment; the line still exists (unverified: no "
        "selected text or source revision to compare).",
    )


def resolve(engine: Engine, anchor: Anchor, selection: str) -> Outcome:
    """§7.4 in order: exact text, text equal up to whitespace and case, similar text."""
    exact = engine.find.exact_spans(selection)
    if exact:
        return choose_among(engine, anchor, selection, exact, "anchored", 1.0, "Exact text")
    loose = engine.find.loose_spans(selection)
    if loose:
        return choose_among(
            engine, anchor, selection, loose, "fuzzy", 0.95, "Text equal up to whitespace/case",
        )
    return Outcome(fuzzy_text_only(engine, anchor, selection))


def choose_among(
    engine: Engine, anchor: Anchor, selection: str, spans: list[Span],
    status: str, score: float, what: str,
) -> Outcome:
    """§7.4 step 1 over a list of literal candidates, with relocation guards."""
    if status in CONFIDENT and len(spans) == 1 and at_recorded_place(anchor, spans[0]):
        # §7.4 1a: the only exact match, where the comment says it is (line, and
        # columns when recorded), is anchored and unchanged however short the text
        # (``status`` calls it fresh).  The guards below are for text that left its
        # recorded place or has copies the neighbours must choose among.
        return Outcome(engine.place_match(
            status, score, spans[0], anchor, f"{what} match (unique) at the recorded position.",
        ))
    if status in CONFIDENT and featureless(selection):
        # Fences, rules, list markers and the like carry no identity of their own.
        status, score, what = "fuzzy", min(score, 0.6), f"{what} (featureless)"
    if anchor.line is None:
        if len(spans) == 1:
            return Outcome(engine.place_match(
                status, score, spans[0], anchor, f"{what} match (unique).",
            ))
        return Outcome(Placement(
            "ambiguous", 0.5,
            reason=f"{what} occurs {len(spans)} times and the comment has no line "
            f"to choose by (lines {listed(spans)}).",
        ))
    at_line = [s for s in spans if s.line == anchor.line]
    common = (len(spans) > 2 and (
        is_weak(selection) or any(engine.find.cuts_words(s) for s in at_line)
    )) or (len(spans) > 1 and featureless(selection))
    if at_line and common:
        return Outcome(
            engine.place_match(
                "fuzzy", min(score, 0.6), at_line[0], anchor,
                f"Short or featureless text that occurs {len(spans)} times; one "
                "occurrence is at the original line but it cannot be told apart from "
                "the others.",
            ),
            candidates=spans, promote="fuzzy", strict=True,
        )
    if at_line:
        column = anchor.start_column or 0
        best = min(at_line, key=lambda s: abs(s.start_column - column))
        if (
            len(spans) > 1 and anchor.start_column is not None
            and best.start_column != anchor.start_column
        ):
            return Outcome(
                engine.place_match(
                    "fuzzy", min(score, 0.7), best, anchor,
                    f"{what} occurs {len(spans)} times; the one on the original line is "
                    "at another column, so it may be a different occurrence.",
                ),
                candidates=spans, promote=status, strict=True,
            )
        placement = engine.place_match(
            status, score, best, anchor, f"{what} match at the original line.",
        )
        if len(spans) == 1:
            return Outcome(placement)
        return Outcome(
            placement, candidates=spans, verify=True, strict=True,
            promote="fuzzy" if is_weak(selection) else status,
        )
    hint = engine.hint_span(anchor)
    if hint is not None:
        kept = keep_in_place(engine, anchor, selection, hint, spans)
        if kept is not None:
            promote = "fuzzy" if is_weak(selection) else status
            # a unique copy elsewhere is the likelier answer: neighbours that moved
            # about as far as it settle it (exactly as far, among several copies)
            strict = len(spans) > 1 or is_weak(selection)
            return Outcome(kept, candidates=spans, promote=promote, strict=strict,
                            kept=not strict)
    if len(spans) == 1:
        only = spans[0]
        if status in CONFIDENT and (
            is_weak(selection) or ("\n" not in selection and engine.find.cuts_words(only))
        ):
            return Outcome(
                engine.place_match(
                    "fuzzy", 0.7, only, anchor,
                    f"The only match (line {only.line}) is short or starts or ends inside "
                    "a word: it may be a chance copy of other text, so the move is tentative.",
                ),
                candidates=spans, promote=status, strict=True,
            )
        return Outcome(engine.place_match(
            status, score, only, anchor,
            f"{what} match (unique), moved from line {anchor.line} to {only.line}.",
        ))
    return Outcome(
        Placement(
            "ambiguous", 0.5,
            reason=f"{what} occurs {len(spans)} times, none at the original line "
            f"{anchor.line} (lines {listed(spans)}).",
        ),
        candidates=spans, promote="fuzzy" if is_weak(selection) else status,
    )


def at_recorded_place(anchor: Anchor, span: Span) -> bool:
    """Whether a match sits exactly where the comment records it: its line, its end
    line when recorded, and its columns when recorded."""
    if anchor.line is None or span.line != anchor.line:
        return False
    if anchor.end_line is not None and span.end_line != anchor.end_line:
        return False
    if anchor.start_column is not None and span.start_column != anchor.start_column:
        return False
    return anchor.end_column is None or span.end_column == anchor.end_column


def keep_in_place(
    engine: Engine, anchor: Anchor, selection: str, hint: Span, spans: list[Span],
) -> Placement | None:
    """Keep a comment at its stored place when that place looks edited in place.

    A distant identical copy is a weaker clue than a near-identical line right
    where the comment was: the copy is more likely other text that happens to
    match (or was duplicated) than the commented text having moved.
    """
    recall, sim = engine.in_place_strength(selection, hint)
    nearest = min(abs(s.line - hint.line) for s in spans)
    if len(spans) == 1 and is_weak(selection):
        if engine.hint_fits(anchor, selection, hint):
            return engine.place_at_hint(
                "fuzzy", max(0.3, sim) * 0.6, hint,
                "The short selection is no longer at its position; a copy elsewhere "
                f"(line {spans[0].line}) is not enough to move it, kept in place.",
                selection=selection,
            )
        return engine.place_match(
            "fuzzy", 0.6, spans[0], anchor,
            f"The short selection occurs once, at line {spans[0].line}; too little "
            "text to be sure it is the same, so the move is tentative.",
        )
    if recall >= STRONG_RECALL and sim >= engine.threshold:
        return engine.place_at_hint(
            "fuzzy", sim, hint,
            f"Text at the original line was edited (similarity {sim:.2f}); "
            f"identical text elsewhere (line {listed(spans)}) treated as a copy.",
            selection=selection,
        )
    if len(spans) == 1 and nearest > PROXIMITY_WINDOW and recall >= WEAK_RECALL \
            and sim >= WEAK_SIMILARITY:
        return engine.place_at_hint(
            "fuzzy", sim, hint,
            f"Lone exact match at line {spans[0].line} is far from line {hint.line}, "
            "whose text still resembles the selection; kept in place.",
            selection=selection,
        )
    return None


#: lines that may have been inserted inside a multi-line selection (see :func:`opened_up`)
MAX_INSERTED = 3


def opened_up(engine: Engine, selection: str) -> Placement | None:
    """A multi-line selection whose lines are all still there, in order, with a few
    lines inserted between two of them: its first part still ends a line, each whole
    line in between is still a line, and its last part still starts one, with at most
    :data:`MAX_INSERTED` new lines among them.  When exactly one place in the document
    fits, the comment spans it (columns where the selection started and stopped;
    fuzzy, the inserted text being new).  Whole-document windows would rather take
    the one line most like the selection and drop the rest of the span."""
    parts = selection.split("\n")
    head, tail = parts[0], parts[-1]
    if len(parts) < 2 or not head.strip() or not tail.strip() or featureless(head + tail) \
            or len(head.strip()) + len(tail.strip()) < 8:
        return None
    lines = engine.doc.lines
    found: list[tuple[int, int, int]] = []
    for i, line in enumerate(lines):
        if not line.endswith(head):
            continue
        at, spare, ok = i, MAX_INSERTED, True
        for k, part in enumerate(parts[1:], start=1):
            last = k == len(parts) - 1
            step = at + 1
            while step < len(lines) and step - at - 1 <= spare:
                if (lines[step].startswith(part) if last else lines[step] == part):
                    break
                step += 1
            if step >= len(lines) or step - at - 1 > spare:
                ok = False
                break
            spare -= step - at - 1
            at = step
        if ok and spare < MAX_INSERTED:
            found.append((i, at, MAX_INSERTED - spare))
            if len(found) > 1:
                return None
    if len(found) != 1:
        return None
    first, last, inserted = found[0]
    span = Span(first + 1, last + 1, len(lines[first]) - len(head), len(tail))
    kept = len(selection)
    spanned = len(engine.doc.slice(span.line, span.end_line, span.start_column, span.end_column))
    return engine.place(
        "fuzzy", kept / spanned if spanned else 0.0, span,
        f"Every selected line is still there, in order, with {inserted} line(s) inserted "
        f"between them (lines {span.line}-{span.end_line}).",
    )


def fuzzy_text_only(engine: Engine, anchor: Anchor, selection: str) -> Placement:
    """§7.4 steps 2-4 without a source revision."""
    if "\n" in selection:
        opened = opened_up(engine, selection)
        if opened is not None:
            return opened
    hint = engine.hint_span(anchor)
    local: Match | None = None
    if hint is not None:
        local = best_window(
            engine.doc, selection, hint.line - LOCAL_RADIUS, hint.end_line + LOCAL_RADIUS,
        )
    part = "\n" not in selection and (anchor.start_column is not None or anchor.end_column is not None)
    choices = engine.find.partial_choices(selection) if "\n" not in selection else engine.find.collapsed
    found = global_candidates(engine.doc, selection, choices=choices, cutoff=engine.threshold, partial=part)
    return decide_fuzzy(engine, anchor, selection, hint, local, found)


def decide_fuzzy(
    engine: Engine, anchor: Anchor, selection: str, hint: Span | None,
    local: Match | None, found: list[Match],
) -> Placement:
    """Pick among a near-origin match and whole-document fuzzy candidates."""
    threshold = engine.threshold
    # Similar-looking text that lost most of the selection's words is other text
    # (a sibling list item, a table row of the same shape), not an edit of it.
    floor = FUZZY_RECALL if len(words(selection)) >= 3 else 0.0
    good = [m for m in found if m.score >= threshold and word_recall(selection, m.text) >= floor]
    if local is not None and word_recall(selection, local.text) < floor:
        local = None
    if local is not None and local.score >= threshold:
        rivals = [m for m in good if m.score > local.score + 0.1 and not _overlaps(m, local)]
        if not rivals:
            return engine.place_window(
                local.score, local.span, anchor, selection,
                f"Similar text near the original position (score {local.score:.2f}).",
            )
    if good:
        best = good[0]
        close = [m for m in good[1:] if m.score >= best.score - TIE_MARGIN]
        if close:
            return Placement(
                "ambiguous", best.score,
                reason=f"{len(close) + 1} similar passages (best score {best.score:.2f},"
                f" lines {listed([best.span] + [m.span for m in close])}).",
            )
        return engine.place_window(
            best.score, best.span, anchor, selection,
            f"Most similar text in the document (score {best.score:.2f}).",
        )
    if hint is not None:
        recall, sim = engine.in_place_strength(selection, hint)
        if recall >= max(WEAK_RECALL, floor) and sim >= WEAK_SIMILARITY:
            return engine.place_at_hint(
                "fuzzy", sim, hint,
                f"Text at the original line still partly matches (similarity {sim:.2f}).",
                selection=selection,
            )
    return Placement("orphaned", 0.0, reason="The selected text is gone from the document.")


def _overlaps(a: Match, b: Match) -> bool:
    return not (a.span.end_line < b.span.line or a.span.line > b.span.end_line)
