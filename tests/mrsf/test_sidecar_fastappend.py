"""Appending comments without serialising the whole sidecar (``Sidecar.fast_append``),
catching up with another process's appends (``Sidecar.extend``), and rewriting only the
lines of changed scalar values (``Sidecar.fast_replace``).

The shortcut must be invisible: for every upstream example and every layout variant the
text is byte-identical to a full serialisation, the model left behind equals a fresh
parse of the written text (data, line/column positions, later edits), and anything the
shortcut cannot prove falls back to the full path.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from ruamel.yaml.comments import CommentedMap, CommentedSeq

from conftest import shared_dir
from markmcp.mrsf import ops, store
from markmcp.mrsf.errors import MrsfError
from markmcp.mrsf.sidecar import parse_entry_line, parse_fragment, parse_sidecar

from .test_sidecar_styles import VARIANTS

EXAMPLES = ["api-reference", "architecture", "contributing", "data-model", "deployment-guide", "security-policy"]
ZERO = VARIANTS["zero-offset"]
TWO = ZERO.replace("\n- ", "\n  - ").replace("\n  ", "\n    ").replace("\n    - ", "\n  - ")
#: Layouts beyond test_sidecar_styles: what follows the last item, and how it ends.
EXTRA = {
    "two-offset": TWO,
    "trailing-comment-lines": ZERO + "# trailing note\n\n# another one\n",
    "trailing-blank-line": ZERO + "\n",
    "end-of-line-comment-last": ZERO.replace("deep: 1", "deep: 1  # eol"),
    "keep-chomp-last": ZERO + "  x_tail: |+\n    kept\n\n",
    "literal-last-no-newline": ZERO + "  x_tail: |\n    lit",
    "folded-last": ZERO + "  x_tail: >\n    folded\n    text\n",
    "flow-item-last": ZERO + "- {id: c9, author: f, text: flow}\n",
    "document-end-marker": ZERO + "...\n",
    "comments-not-last": ZERO.replace('mrsf_version: "1.0"\n', "") + 'mrsf_version: "1.0"\n',
    "crlf-bom-two-offset": "\ufeff" + TWO.replace("\n", "\r\n"),
    "anchor-and-alias": ZERO + "- id: c2\n  x_a: &shared\n    k: 1\n  x_b: *shared\n",
}
#: Variants where the shortcut must apply (so the equality tests cannot pass vacuously).
FAST = {"zero-offset", "four-indent", "explicit-start", "crlf", "bom", "no-final-newline", "two-offset",
        "trailing-comment-lines", "trailing-blank-line", "end-of-line-comment-last", "crlf-bom-two-offset",
        "flow-item-last"}
#: Variants where it must not (it could not prove the result).
SLOW = {"empty-flow-list", "literal-last-no-newline", "document-end-marker", "comments-not-last", "odd-spacing"}

text_values = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00\ufeff"),
                      max_size=30)
scalars = st.one_of(text_values, st.integers(-5, 10**9), st.booleans(), st.none(),
                    st.floats(allow_nan=False, allow_infinity=False, width=32))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                        st.dictionaries(text_values, inner, max_size=3)),
                      max_leaves=6)
new_comments = st.lists(
    st.fixed_dictionaries(
        {"author": text_values, "text": text_values},
        optional={"line": st.integers(1, 500), "resolved": st.booleans(), "type": text_values,
                  "selected_text": text_values, "x_ext": values, "x_flag": scalars},
    ),
    min_size=1, max_size=3,
)


def texts() -> dict[str, str]:
    out = dict(VARIANTS)
    out.update(EXTRA)
    return out


def example_text(name: str) -> str:
    return (shared_dir("mrsf", "examples") / f"{name}.md.review.yaml").read_bytes().decode("utf-8")


def appended(text: str, items: list[dict]):
    """(Sidecar with ``items`` appended, the same edit on a second parse)."""
    fast, full = parse_sidecar(text), parse_sidecar(text)
    for n, item in enumerate(items):
        fast.append_comment({"id": f"new-{n}", **item})
        full.append_comment({"id": f"new-{n}", **item})
    return fast, full


def positions(node, path=()):
    """Every recorded (line, column) in a parsed tree, by path (an empty value has no
    text, so only its key's position counts: ruamel marks it where the next token starts)."""
    out = {}
    if isinstance(node, (CommentedMap, CommentedSeq)):
        out[path] = (node.lc.line, node.lc.col)
        for key, pos in (node.lc.data or {}).items():
            empty = isinstance(node, CommentedMap) and node.get(key) is None
            out[path + (key,)] = tuple(pos[:2] if empty else pos)
        children = node.items() if isinstance(node, CommentedMap) else enumerate(node)
        for key, child in children:
            out.update(positions(child, path + (key, "/")))
    return out


def same_model(model, text: str) -> None:
    """``model`` is what parsing ``text`` gives: data, positions, later edits."""
    fresh = parse_sidecar(text)
    assert model.original == text
    assert model.plain() == fresh.plain()
    assert positions(model.data) == positions(fresh.data)
    assert model.dump() == text
    for sc in (model, fresh):
        sc.set_field(sc.comments[-1], "resolved", True)
        sc.delete_field(sc.comments[0], "author")
    assert model.dump() == fresh.dump()


@pytest.mark.parametrize("name", sorted(texts()))
def test_fast_append_equals_full_serialisation_on_every_variant(name):
    text = texts()[name]
    items = [{"author": "z", "text": "new: with a colon, 'quotes' and # hash"},
             {"author": "y", "text": "two\nlines", "x_ext": {"a": [1, {"b": None}], "c": "d"}, "line": 3}]
    fast, full = appended(text, items)
    if name in FAST:
        assert fast.fast_append() is not None
    if name in SLOW:
        assert fast.fast_append() is None
    assert fast.dump() == full.dump(fast=False)
    assert parse_sidecar(fast.dump()).plain()["comments"][-2:] == [{"id": f"new-{n}", **c} for n, c in enumerate(items)]


@pytest.mark.parametrize("name", EXAMPLES)
def test_fast_append_on_examples_equals_full_and_leaves_a_true_model(name):
    text = example_text(name)
    fast, full = appended(text, [{"author": "Golden (g)", "text": 'A "new" comment: yes', "line": 2}])
    append = fast.fast_append()
    assert append is not None
    out = fast.dump()
    assert out == full.dump(fast=False) and out.startswith(text)
    fast.commit_append(append, parse_fragment(append.fragment, fast.yaml_style))
    same_model(fast, out)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(sorted(texts()) + EXAMPLES), items=new_comments)
def test_fast_append_property(name, items):
    text = texts()[name] if name in texts() else example_text(name)
    fast, full = appended(text, items)
    if name in FAST or name in EXAMPLES:
        assert fast.fast_append() is not None
    assert fast.dump() == full.dump(fast=False)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(sorted(FAST) + EXAMPLES), items=new_comments, more=new_comments)
def test_extend_catches_up_with_another_writer(name, items, more):
    """Process A holds the model of T; process B appends; A extends to B's text and its
    model is exactly a fresh parse of it (and its own next append is still exact)."""
    text = texts()[name] if name in texts() else example_text(name)
    mine = parse_sidecar(text)
    mine.faithful  # noqa: B018 - known, as after a write
    other, _ = appended(text, items)
    grown = other.dump()
    # refused only when the new part does not re-serialise to itself (some floats)
    assume(mine.extend(grown))
    same_model(mine, grown)
    mine = parse_sidecar(text)
    mine.faithful  # noqa: B018
    assert mine.extend(grown)
    for n, item in enumerate(more):
        mine.append_comment({"id": f"more-{n}", **item})
    again = parse_sidecar(grown)
    for n, item in enumerate(more):
        again.append_comment({"id": f"more-{n}", **item})
    append = mine.fast_append()
    assert append is not None and append.text == again.dump(fast=False)
    mine.commit_append(append, parse_fragment(append.fragment, mine.yaml_style))
    same_model(mine, append.text)


@pytest.mark.parametrize("tail", [
    "# a comment line\n- id: z\n  text: t\n",         # comment lines: not the serialiser's own
    "- id: z\n  text: t\nextra_key: 1\n",             # a new top-level key
    "- id: z\n  text:    t\n",                        # unusual spacing
    "  - id: z\n    text: t\n",                       # another column
    "- id: z\n  text: t\n...\n",                      # document end
    "- id: z\n  text: t\r\n",                         # line ends differ
    "- id: z\n  x: *undefined\n",                     # alias to the earlier text
    "- id: z\n  text: t",                             # no final newline
])
def test_extend_refuses_what_it_cannot_prove(tail):
    mine = parse_sidecar(ZERO)
    mine.faithful  # noqa: B018
    before = mine.plain()
    assert not mine.extend(ZERO + tail)
    assert mine.plain() == before and mine.original == ZERO
    assert not mine.extend("x" + ZERO + "- id: z\n  text: t\n")  # not a prefix


def test_store_uses_extend_and_matches_a_cold_write(tmp_path):
    """Another program appends to the sidecar between two of our writes: the next write
    gives exactly the bytes it gives with every cache dropped."""
    outputs = []
    for cold in (False, True):
        root = tmp_path / str(cold)
        root.mkdir()
        (root / ".mrsf.yaml").write_text("")
        (root / "doc.md").write_text("one\ntwo\nthree\n")
        path = root / "doc.md.review.yaml"
        path.write_text(ZERO)
        ops.add("doc.md", author="a", text="first", id="f1", timestamp="2026-01-01T00:00:00Z", root=root)
        other, _ = appended(path.read_text(), [{"author": "b", "text": "from elsewhere"}])
        path.write_text(other.dump())
        if cold:
            store.clear_caches()
        ops.add("doc.md", author="a", text="second", id="f2", timestamp="2026-01-01T00:00:00Z", root=root)
        ops.resolve("doc.md", "new-0", root=root)
        outputs.append(path.read_bytes())
    assert outputs[0] == outputs[1]
    assert [c["id"] for c in parse_sidecar(outputs[0].decode()).plain()["comments"]] == ["c1", "f1", "new-0", "f2"]


def test_fast_write_that_would_not_read_back_is_refused(tmp_path, monkeypatch):
    (tmp_path / ".mrsf.yaml").write_text("")
    (tmp_path / "doc.md").write_text("one\n")
    path = tmp_path / "doc.md.review.yaml"
    path.write_text(ZERO)
    ops.add("doc.md", author="a", text="first", root=tmp_path)
    before = path.read_bytes()

    def wrong(fragment, style):
        items = CommentedSeq([{"id": "something else"}])
        items.lc.add_idx_line_col(0, [1, 2])
        return items

    monkeypatch.setattr(store, "parse_fragment", wrong)
    with pytest.raises(MrsfError) as info:
        ops.add("doc.md", author="a", text="second", root=tmp_path)
    assert info.value.code == "internal-error" and path.read_bytes() == before


scalar_keys = st.sampled_from(["text", "resolved", "line", "type", "severity", "author", "selected_text",
                               "timestamp", "x_reanchor_score"])


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(sorted(texts()) + EXAMPLES),
       changes=st.lists(st.tuples(st.integers(0, 40), scalar_keys, scalars), min_size=1, max_size=4))
def test_fast_replace_equals_full_serialisation(name, changes):
    text = texts()[name] if name in texts() else example_text(name)
    fast, full = parse_sidecar(text), parse_sidecar(text)
    assume(fast.comments)
    for index, key, value in changes:
        for sc in (fast, full):
            comment = sc.comments[index % len(sc.comments)]
            if key in comment:
                sc.set_field(comment, key, value)
    assert fast.dump() == full.dump(fast=False)
    replace = fast.fast_replace()
    if replace is not None:
        values = [parse_entry_line(line, key) for _, _, _, key, line in replace.edits]
        fast.commit_replace(replace, values)
        same_model(fast, replace.text)


@pytest.mark.parametrize("name", EXAMPLES)
def test_resolving_rewrites_one_line_on_examples(name):
    text = example_text(name)
    sc = parse_sidecar(text)
    target = sc.comments[len(sc.comments) // 2]
    sc.set_field(target, "resolved", not target.get("resolved", False))
    replace = sc.fast_replace()
    assert replace is not None and len(replace.edits) == 1
    full = parse_sidecar(text)
    full.set_field(full.comments[len(full.comments) // 2], "resolved", not target.get("resolved", True) is False)
    assert replace.text == full.dump(fast=False)
    changed = [(a, b) for a, b in zip(text.split("\n"), replace.text.split("\n")) if a != b]
    assert len(changed) == 1 and changed[0][1].strip().startswith("resolved: ")


@pytest.mark.parametrize("text", [
    ZERO.replace("text: hello", "text: hello  # eol"),                         # end-of-line comment
    ZERO.replace("text: hello", "text: &t hello") + "- id: c2\n  text: *t\n",  # anchored value
    ZERO.replace("text: hello", "text: |\n    hello"),                        # block scalar
    ZERO + "- {id: c2, text: hello}\n",                                        # inside a flow mapping
])
def test_fast_replace_declines_what_it_cannot_prove(text):
    sc, full = parse_sidecar(text), parse_sidecar(text)
    for s in (sc, full):
        s.set_field(s.comments[-1] if "c2" in text else s.comments[0], "text", "changed")
    assert sc.fast_replace() is None
    assert sc.dump() == full.dump(fast=False)
