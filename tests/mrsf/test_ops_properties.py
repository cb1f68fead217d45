"""Property test: any sequence of operations with arbitrary (often wrong) arguments either
succeeds or raises MrsfError, and the sidecar on disk is always a valid MRSF file."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from markmcp.mrsf import ops, store
from markmcp.mrsf.errors import MrsfError
from markmcp.mrsf.sidecar import parse_sidecar
from markmcp.mrsf.validate import validate

DOC = "# Title\n\nalpha beta gamma delta\n😀 emoji line here\n\n- item one\n- item two\n"
ids = st.sampled_from(["c1", "c2", "c3", "nope"])
text = st.text(max_size=12)
small = st.one_of(st.none(), st.integers(-1, 9))
good_add = st.tuples(st.just("add"), st.fixed_dictionaries(
    {"author": st.just("A (a)"), "text": text, "id": st.sampled_from(["c1", "c2", "c3"])},
    optional={"line": st.integers(1, 7), "reply_to": st.sampled_from(["c1", "c2"]),
              "severity": st.just("high"), "extensions": st.just({"x_tool": {"n": [1]}})}))
step = st.one_of(
    good_add, good_add,
    st.tuples(st.just("add"), st.fixed_dictionaries(
        {"author": st.sampled_from(["A (a)", ""]), "text": text},
        optional={"id": ids, "line": small, "end_line": small, "start_column": small, "end_column": small,
                  "reply_to": ids, "severity": st.sampled_from(["low", "bad"]), "type": text,
                  "selected_text": text, "extensions": st.dictionaries(st.sampled_from(["x_a", "b"]), text, max_size=1)})),
    st.tuples(st.just("update"), st.sampled_from(["c1", "c1", "c2"]), st.one_of(
        st.fixed_dictionaries({"reply_to": st.sampled_from(["c1", "c2", "c3"])}),
        st.fixed_dictionaries({"text": text}), st.fixed_dictionaries({"line": st.integers(1, 7)}),
        st.fixed_dictionaries({"resolved": st.booleans()}), st.fixed_dictionaries({"x_k": text}),
        st.fixed_dictionaries({"line": st.integers(1, 4), "start_column": st.integers(0, 3)}))),
    st.tuples(st.just("update"), ids, st.dictionaries(
        st.sampled_from(["text", "line", "end_line", "start_column", "resolved", "severity", "x_k", "reply_to", "type"]),
        st.one_of(text, small, st.booleans()), min_size=1, max_size=2)),
    st.tuples(st.just("resolve"), ids, st.booleans()),
    st.tuples(st.just("delete"), st.sampled_from(["c1", "c2", "nope"]), st.booleans()),
    st.tuples(st.just("reanchor"), st.booleans()),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=st.lists(step, min_size=1, max_size=8))
def test_operations_keep_the_sidecar_valid(steps):
    root = Path(tempfile.mkdtemp())
    try:
        (root / ".mrsf.yaml").write_text("")
        (root / "d.md").write_text(DOC, encoding="utf-8")
        ops.add("d.md", author="A (a)", text="first", id="c1", line=3, root=root)
        for s in steps:
            try:
                if s[0] == "add":
                    ops.add("d.md", root=root, **s[1])
                elif s[0] == "update":
                    ops.update("d.md", s[1], s[2], root=root)
                elif s[0] == "resolve":
                    (ops.resolve if s[2] else ops.unresolve)("d.md", s[1], root=root)
                elif s[0] == "delete":
                    ops.delete("d.md", s[1], cascade=s[2], root=root)
                else:
                    ops.reanchor("d.md", root=root, dry_run=s[1])
            except MrsfError as exc:
                assert exc.code and exc.message
            path = root / "d.md.review.yaml"
            if path.exists():
                sc = parse_sidecar(path.read_text(encoding="utf-8"))
                result = validate(sc, document_text=DOC)
                assert result["errors"] == [], result["errors"]
                assert {w["code"] for w in result["warnings"]} <= {
                    "missing-selected-text", "stale-selected-text", "orphaned-anchor"}
    finally:
        store.clear_caches()
        shutil.rmtree(root, ignore_errors=True)
