"""The re-anchoring engine against the MRSF evaluation corpus and generated workloads.

Scored exactly as the reference evaluator scores an engine (see
``markmcp.mrsf.evaluate``), in two modes: with the source revision the comments
were written on, and with the current text only.  Targets:

* zero incorrect confident relocations in both modes;
* with the source revision, every comment of the committed cases passes;
* text only, at least 90% pass.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from conftest import ROOT, shared_dir
from markmcp.mrsf.evaluate import CommentScore, score_case, summarize
from markmcp.mrsf.reanchor import reanchor

COMMITTED_COMMENTS = 54
TEXT_ONLY_FLOOR = 0.90


def _document(spec: dict, case_file: Path) -> str:
    if "text" in spec:
        return spec["text"]
    return (case_file.parent / spec["path"]).read_bytes().decode("utf-8")


def _cases() -> list[tuple[dict, str, str]]:
    folder = shared_dir("mrsf", "reanchor", "cases")
    cases = []
    for path in sorted(folder.rglob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for case in data if isinstance(data, list) else [data]:
            cases.append((case, _document(case["source"], path), _document(case["target"], path)))
    return cases


def _score(use_source: bool) -> list[CommentScore]:
    scores: list[CommentScore] = []
    for case, source, target in _cases():
        scores.extend(score_case(case, source, target, use_source=use_source))
    return scores


def _describe(scores: list[CommentScore]) -> str:
    return "\n".join(
        f"{s.verdict}: {s.case_id}/{s.comment_id} expected {s.expected}, got "
        f"{s.placement.status} at {s.placement.line} ({s.placement.reason})"
        for s in scores if not s.passed
    )


def test_corpus_has_the_committed_cases():
    scores = _score(use_source=True)
    assert len(scores) == COMMITTED_COMMENTS
    assert len({s.case_id for s in scores}) == 52


def test_with_source_every_comment_passes():
    scores = _score(use_source=True)
    total = summarize(scores)
    assert total.incorrect_confident == 0, _describe(scores)
    assert total.passed == total.comments, _describe(scores)


def test_text_only_meets_floor_without_confident_errors():
    scores = _score(use_source=False)
    total = summarize(scores)
    assert total.incorrect_confident == 0, _describe(scores)
    assert total.pass_rate >= TEXT_ONLY_FLOOR, _describe(scores)


@pytest.mark.parametrize("use_source", [True, False], ids=["source", "text-only"])
def test_cases_that_must_not_guess(use_source):
    """Comments expected ambiguous/orphaned are never placed confidently, in either mode."""
    for score in _score(use_source):
        if score.expected in ("ambiguous", "orphaned"):
            assert not score.placement.confident, (score.case_id, score.placement)


# ------------------------------------------------------------------ generated docs


def _bench_module():
    path = ROOT / "bench" / "mrsf_reanchor.py"
    spec = importlib.util.spec_from_file_location("mrsf_reanchor_bench", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_generated_workload_never_relocates_confidently_wrong(seed):
    """Seeded documents with inserted, deleted, rewritten and moved blocks."""
    bench = _bench_module()
    source, target, anchors, expected = bench.generate(
        seed=seed, lines=3000, comments=300, edits=25,
    )
    with_source = reanchor(anchors, target, source=source)
    passed, wrong = bench._generated_accuracy(with_source, expected)
    assert wrong == 0
    assert passed >= 0.95 * len(anchors)
    text_only = reanchor(anchors, target)
    passed, wrong = bench._generated_accuracy(text_only, expected)
    assert wrong == 0
    assert passed >= 0.80 * len(anchors)
