"""Re-anchoring: place review comments in the current text of their document.

This is MRSF §7.3-§7.4 as a pure function: anchors (what a sidecar stores for each
comment) and document text in, one :class:`Placement` per anchor out.  No file or
git access happens here; the caller supplies the current text and, when it knows
it, the ``source`` revision the comments were written against.

Resolution follows the spec's order - exact text, line/column fallback,
contextual fuzzy match, orphan - with one overriding rule: never claim a
confident relocation (``anchored``/``shifted``) on weak evidence.  When the
evidence is split the answer is ``fuzzy`` (a tentative place to review) or
``ambiguous`` (several equally good places; nothing is guessed).

Statuses:

* ``anchored`` - the selected text was found (or, for a line-only comment, the
  line is still there); ``score`` 1.0 unless neighbours were needed to decide;
* ``shifted`` - a line-only comment whose line moved; the source revision's diff
  says where;
* ``fuzzy`` - the text changed; the placement is the most similar text, or the
  original position when the text there was edited in place;
* ``ambiguous`` - several places fit equally well; no position is returned;
* ``orphaned`` - the text is gone; no position is returned.

With ``source`` the engine aligns the two revisions line by line
(:mod:`.align`): unchanged lines map directly, an identical copy elsewhere that
grew out of a *different* source line is not mistaken for the comment's text,
and edited text is searched for where its neighbours now are.  Without
``source`` the same stages run on the target alone, with more conservative
guards.  Afterwards all comments of the document are reconciled together:
confidently placed comments become landmarks whose displacement can pick the
right one among identical candidates of an otherwise ambiguous comment.

The package, one stage a module: :mod:`.model` (anchors, placements, thresholds),
:mod:`.search` (the target text indexed for exact, loose and word searches),
:mod:`.engine` (one document's state and the placement building blocks),
:mod:`.text_only` and :mod:`.with_source` (MRSF §7.4 without and with the source
revision), :mod:`.reconcile` (neighbours settle the undecided).
"""

from __future__ import annotations

from typing import Sequence

from ..lines import normalize_newlines, split_lines
from . import text_only, with_source
from .engine import Engine
from .model import CONFIDENT, DEFAULT_THRESHOLD, STATUSES, Anchor, Outcome, Placement
from .reconcile import reconcile
from .search import Finder

__all__ = [
    "CONFIDENT",
    "DEFAULT_THRESHOLD",
    "STATUSES",
    "Anchor",
    "Engine",
    "Finder",
    "Placement",
    "reanchor",
    "resolve",
    "split_lines",
]


def reanchor(
    anchors: Sequence[Anchor],
    target: str,
    *,
    source: str | None = None,
    threshold: float = DEFAULT_THRESHOLD,
) -> list[Placement]:
    """Place every comment of one document in its current text.

    ``anchors`` are the comments' stored anchors, ``target`` the document now,
    ``source`` (optional) the revision the anchors were measured in.  All comments
    of a document should be passed together: neighbours help settle ambiguous
    ones.  ``threshold`` is the minimum similarity (0..1) for a fuzzy placement.
    Returns one :class:`Placement` per anchor, in order (a plain comment mapping is
    accepted in place of an :class:`Anchor` and read with :meth:`Anchor.from_comment`).
    """
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) \
            or not 0.0 <= threshold <= 1.0:
        raise ValueError(f"threshold must be a number from 0 to 1, got {threshold!r}")
    if not isinstance(target, str) or not (source is None or isinstance(source, str)):
        raise TypeError("target and source must be document text (str)")
    anchors = [a if isinstance(a, Anchor) else Anchor.from_comment(a) for a in anchors]
    engine = Engine(target, source, threshold)
    outcomes = [resolve(engine, anchor) for anchor in anchors]
    reconcile(anchors, outcomes, engine)
    return [outcome.placement for outcome in outcomes]


def resolve(engine: Engine, anchor: Anchor) -> Outcome:
    """One comment on its own (:func:`reanchor` then lets the comments of the document
    settle each other)."""
    selection = (
        normalize_newlines(anchor.selected_text) if anchor.selected_text else None
    )
    if selection is None and anchor.line is None:
        return Outcome(Placement(
            "anchored", 1.0, reason="Document-level comment: nothing to place.",
        ))
    if engine.src is not None:
        outcome = with_source.resolve(engine, anchor, selection)
        if outcome is not None:
            return outcome
    if selection is None:
        return Outcome(text_only.line_only(engine, anchor))
    return text_only.resolve(engine, anchor, selection)
