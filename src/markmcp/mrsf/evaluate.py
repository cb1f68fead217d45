"""Scoring of re-anchoring results against the MRSF evaluation corpus.

A corpus case holds a ``source`` and a ``target`` document and comments with an
``anchor`` (measured in the source) and an ``expected`` outcome (measured in the
target).  Scoring follows the reference evaluator:

* *status correct* - the returned status equals ``expected.status``;
* *range correct* - true when nothing is expected; otherwise the returned range,
  each missing field filled in from the anchor (line -> anchor line, end line ->
  anchor end line or the line, columns -> anchor columns), must equal one of the
  expected ranges on ``line`` and on every other field that range specifies;
* *passed* - both;
* *incorrect confident relocation* - ``anchored``/``shifted`` returned while the
  expected outcome is ``ambiguous``/``orphaned`` or the range is wrong.

This module is pure: the caller reads the case files and passes document text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from .lines import normalize_newlines
from .reanchor import CONFIDENT, Anchor, Finder, Placement, reanchor

RANGE_FIELDS = ("end_line", "start_column", "end_column")


@dataclass(frozen=True)
class CommentScore:
    """How one comment fared."""

    case_id: str
    comment_id: str
    expected: str
    placement: Placement
    status_ok: bool
    range_ok: bool

    @property
    def passed(self) -> bool:
        return self.status_ok and self.range_ok

    @property
    def incorrect_confident(self) -> bool:
        if self.placement.status not in CONFIDENT:
            return False
        return self.expected in ("ambiguous", "orphaned") or not self.range_ok

    @property
    def verdict(self) -> str:
        """``correct``, ``incorrect-confident`` or ``acceptable`` (wrong but not confident)."""
        if self.passed:
            return "correct"
        if self.incorrect_confident:
            return "incorrect-confident"
        return "acceptable"


@dataclass(frozen=True)
class Summary:
    """Totals over a set of scored comments."""

    cases: int
    comments: int
    passed: int
    status_matches: int
    range_matches: int
    incorrect_confident: int

    @property
    def failed(self) -> int:
        return self.comments - self.passed

    @property
    def pass_rate(self) -> float:
        return self.passed / self.comments if self.comments else 1.0


def range_correct(anchor: Mapping[str, Any], expected: Mapping[str, Any], got: Placement) -> bool:
    """The evaluator's range check (see the module docstring)."""
    ranges = expected.get("ranges")
    if not ranges:
        return True
    line = got.line if got.line is not None else anchor.get("line")
    end_line = got.end_line
    if end_line is None:
        end_line = anchor.get("end_line", line)
    actual = {
        "end_line": end_line,
        "start_column": got.start_column if got.start_column is not None
        else anchor.get("start_column"),
        "end_column": got.end_column if got.end_column is not None
        else anchor.get("end_column"),
    }
    for wanted in ranges:
        if wanted.get("line") != line:
            continue
        if all(f not in wanted or wanted[f] == actual[f] for f in RANGE_FIELDS):
            return True
    return False


def score_case(
    case: Mapping[str, Any], source: str, target: str, *, use_source: bool,
    threshold: float = 0.6,
) -> list[CommentScore]:
    """Re-anchor every comment of a case and score each one."""
    comments = case["comments"]
    anchors = [Anchor.from_comment(c["anchor"]) for c in comments]
    placements = reanchor(
        anchors, normalize_newlines(target),
        source=normalize_newlines(source) if use_source else None,
        threshold=threshold,
    )
    scores = []
    for comment, placement in zip(comments, placements):
        expected = comment["expected"]
        scores.append(CommentScore(
            case_id=case["id"],
            comment_id=comment["id"],
            expected=expected["status"],
            placement=placement,
            status_ok=placement.status == expected["status"],
            range_ok=range_correct(comment["anchor"], expected, placement),
        ))
    return scores


def summarize(scores: Sequence[CommentScore]) -> Summary:
    """Totals as the reference evaluator reports them."""
    return Summary(
        cases=len({s.case_id for s in scores}),
        comments=len(scores),
        passed=sum(s.passed for s in scores),
        status_matches=sum(s.status_ok for s in scores),
        range_matches=sum(s.range_ok for s in scores),
        incorrect_confident=sum(s.incorrect_confident for s in scores),
    )


# --------------------------------------------------------------------------- workloads
#
# A generated review: a long Markdown document, comments on its lines, and an edited
# revision (lines inserted, reworded, deleted) where the generator knows what happened
# to every commented line.  Used by the tests (small) and the benchmark (the issue's
# size: 10,000 lines, 1,000 comments, 500 edits).


@dataclass(frozen=True)
class Truth:
    """What happened to a commented line: ``kept`` (its text is unchanged, at ``line``
    of the target, perhaps moved), ``reworded`` (edited where it stands, now ``line``),
    ``deleted``."""

    kind: str
    line: int | None


@dataclass
class Workload:
    source: str
    target: str
    comments: list[dict]      # sidecar comments (anchors measured in ``source``)
    truth: list[Truth]


@dataclass(frozen=True)
class WorkloadScore:
    total: int
    right: int
    confident_wrong: int
    wrong: list[tuple[int, str, str]]   # (comment index, truth, placement) of the misses

    def __str__(self) -> str:
        return f"{self.right}/{self.total} right, {self.confident_wrong} confident wrong"


_NOUNS = ("service", "token", "queue", "worker", "cache", "region", "schema", "index", "policy",
          "backup", "release", "metric", "alert", "owner", "budget", "report", "session", "client")
_VERBS = ("handles", "stores", "rotates", "drains", "refreshes", "validates", "exports", "retries",
          "merges", "archives", "publishes", "locks", "scales", "audits")
_ADJ = ("stale", "primary", "shared", "regional", "nightly", "manual", "cold", "external", "signed")


def _word(rng: Any) -> str:
    """A word: a third of them common, the rest from a large made-up vocabulary (so that
    sentences rarely resemble each other by chance, as in real prose)."""
    if rng.random() < 0.35:
        return rng.choice(_NOUNS + _VERBS + _ADJ)
    return "".join(rng.choice("bdfgklmnprstvz") + rng.choice("aeiou") for _ in range(rng.randint(2, 4)))


def _phrase(rng: Any, words: int) -> str:
    return " ".join(_word(rng) for _ in range(words))


def _doc_block(rng: Any, serial: int) -> list[str]:
    """A few lines of Markdown; list items, steps and table rows share prefixes with
    their neighbours, as real documents do."""
    kind = rng.random()
    if kind < 0.08:
        return [f"## {serial}. {_phrase(rng, 3).capitalize()}"]
    if kind < 0.35:
        lead = rng.choice(("- The ", "- Configure the ", "* Make sure the ", "1. Set the "))
        return [f"{lead}{rng.choice(_NOUNS)} {_phrase(rng, rng.randint(4, 10))}." for _ in range(rng.randint(2, 25))]
    if kind < 0.5:
        return [f"| {rng.choice(_NOUNS)} | {_phrase(rng, 3)} | {rng.randint(1, 999)} |" for _ in range(rng.randint(2, 25))]
    if kind < 0.58:
        return ["```", *(f"run {_word(rng)} --{_word(rng)}={rng.randint(1, 99)}" for _ in range(rng.randint(1, 4))), "```"]
    return [f"The {rng.choice(_NOUNS)} {rng.choice(_VERBS)} {_phrase(rng, rng.randint(6, 16))}."
            for _ in range(rng.randint(1, 4))]


def generate_workload(seed: int, lines: int = 10_000, comments: int = 1_000, edits: int = 500) -> Workload:
    """A seeded document of about ``lines`` lines with ``comments`` comments on distinct
    lines (each selection, a whole line or a part of one, occurs once in the document),
    and a revision after ``edits`` random edits: a line inserted (40%), a word of a line
    reworded (45%), a line deleted (15%).  Text moves by the sum of the insertions and
    deletions above it: a few lines near the top, a hundred or more near the end."""
    import random

    rng = random.Random(seed)
    doc: list[tuple[str, int]] = []          # (text, source line number or -1)
    while len(doc) < lines:
        for text in _doc_block(rng, len(doc)):
            doc.append((text, len(doc)))
        doc.append(("", len(doc)))
    source = [text for text, _ in doc]
    counts: dict[str, int] = {}
    for text in source:
        counts[text] = counts.get(text, 0) + 1
    candidates = [n for n, text in enumerate(source) if text.strip() and text != "```" and counts[text] == 1]
    chosen = sorted(rng.sample(candidates, min(comments, len(candidates))))
    finder = Finder("\n".join(source))
    notes = []
    for n in chosen:
        text = source[n]
        note: dict[str, Any] = {"id": f"w{seed}-{n}", "author": "Reviewer (rev)",
                                "timestamp": "2026-01-02T03:04:05.000Z", "text": f"Check line {n + 1}.",
                                "resolved": False, "line": n + 1}
        part = None
        if rng.random() < 0.3 and len(text) > 24:
            start = rng.randrange(0, len(text) // 2)
            while start and text[start - 1] != " ":
                start -= 1
            end = rng.randrange(start + 12, len(text) + 1)
            while end < len(text) and text[end] != " ":
                end += 1
            if len(finder.find_exact(text[start:end])) == 1:
                part = (start, end)
        if part is not None:
            note.update(end_line=n + 1, start_column=part[0], end_column=part[1], selected_text=text[part[0]:part[1]])
        else:
            note["selected_text"] = text
        notes.append(note)
    state: list[list[Any]] = [[text, origin, False] for text, origin in doc]   # text, origin, reworded
    for _ in range(edits):
        op = rng.random()
        at = rng.randrange(len(state))
        if op < 0.4:
            neighbour = state[at][0] or (state[at - 1][0] if at else "")
            if neighbour.startswith(("- ", "* ", "1. ", "| ")) and rng.random() < 0.7:
                block = [line for line in _doc_block(rng, 100_000 + at) if line.startswith(neighbour[:2])][:1]
                block = block or [neighbour[:neighbour.find(" ", 4) + 1] + _phrase(rng, 6) + "."]
            else:
                block = [f"The {rng.choice(_NOUNS)} {rng.choice(_VERBS)} {_phrase(rng, rng.randint(6, 16))}."]
            state[at:at] = [[text, -1, False] for text in block]
        elif op < 0.85:
            row = state[at]
            if not row[0].strip() or row[0] == "```":
                continue
            words = row[0].split(" ")
            k = rng.randrange(len(words))
            words[k] = _word(rng)
            row[0] = " ".join(words)
            row[2] = True
        else:
            del state[at]
    target = [row[0] for row in state]
    where = {row[1]: (n, row[2]) for n, row in enumerate(state) if row[1] >= 0}
    target_text = "\n".join(target)
    truth = []
    for note in notes:
        n = note["line"] - 1
        if n not in where:
            truth.append(Truth("deleted", None))
            continue
        at, _ = where[n]
        line = target[at]
        if "start_column" in note:
            same = note["selected_text"] in line   # perhaps at another column now
        else:
            same = line == note["selected_text"]
        truth.append(Truth("kept" if same else "reworded", at + 1))
    return Workload("\n".join(source), target_text, notes, truth)


def score_workload(placements: Sequence[Placement], truth: Sequence[Truth]) -> WorkloadScore:
    """Right: kept text anchored at its line; reworded text fuzzy at its line; deleted
    text orphaned.  Confident wrong: anchored/shifted anywhere else."""
    right = wrong_confident = 0
    misses: list[tuple[int, str, str]] = []
    for n, (p, t) in enumerate(zip(placements, truth)):
        if t.kind == "kept":
            ok = p.status in CONFIDENT and p.line == t.line
        elif t.kind == "reworded":
            ok = p.status == "fuzzy" and p.line == t.line
        else:
            ok = p.status == "orphaned"
        confident_wrong = p.status in CONFIDENT and (t.kind == "deleted" or p.line != t.line)
        right += ok
        wrong_confident += confident_wrong
        if not ok:
            misses.append((n, f"{t.kind}@{t.line}", f"{p.status}@{p.line}: {p.reason}"))
    return WorkloadScore(len(truth), right, wrong_confident, misses)
