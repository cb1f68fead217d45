"""Writes that splice only the changed comments into the old text, the model kept for
the next write, and catching up with another process's appends (``Sidecar.extend``).

Whatever shortcut a write takes must be invisible: the model left behind after a write
behaves exactly like a fresh parse of the written text (data, positions, later edits),
a write that would not read back is refused with nothing written, and a file another
program appended to gives the same bytes as a cold write.
"""

from __future__ import annotations

import pytest

from markmcp.mrsf import ops, store, yamlscan
from markmcp.mrsf.errors import MrsfError
from markmcp.mrsf.sidecar import dump, parse_sidecar, render

from .test_sidecar_styles import VARIANTS

ZERO = VARIANTS["zero-offset"]
TWO = ZERO.replace("\n- ", "\n  - ").replace("\n  ", "\n    ").replace("\n    - ", "\n  - ")
EXTRA = {
    "two-offset": TWO,
    "trailing-comment-lines": ZERO + "# trailing note\n\n# another one\n",
    "trailing-blank-line": ZERO + "\n",
    "end-of-line-comment-last": ZERO.replace("deep: 1", "deep: 1  # eol"),
    "literal-last-no-newline": ZERO + "  x_tail: |\n    lit",
    "folded-last": ZERO + "  x_tail: >\n    folded\n    text\n",
    "flow-item-last": ZERO + "- {id: c9, author: f, text: flow}\n",
    "comments-not-last": ZERO.replace('mrsf_version: "1.0"\n', "") + 'mrsf_version: "1.0"\n',
    "crlf-bom-two-offset": "\ufeff" + TWO.replace("\n", "\r\n"),
    "anchor-and-alias": ZERO + "- id: c2\n  x_a: &shared\n    k: 1\n  x_b: *shared\n",
    "deep-comment-after-literal": ZERO + "  x_tail: |\n    lit\n      # more indented comment-looking line\n",
}


def texts() -> dict[str, str]:
    out = dict(VARIANTS)
    out.update(EXTRA)
    return out


def positions(sc) -> list:
    return [(sc.position(index=i), sc.position(index=i, key="id"), sc.position(index=i, key="resolved"))
            for i in range(len(sc.comments or []))] + [sc.position(key=k) for k in sc.data]


def edits(sc) -> None:
    sc.append_comment({"id": "more", "author": "m", "text": "later"})
    if len(sc.comments) > 1:
        sc.set_field(sc.comments[0], "resolved", True)
        sc.delete_field(sc.comments[0], "author")


@pytest.mark.parametrize("name", sorted(texts()))
def test_the_model_after_a_write_is_a_fresh_parse_of_it(name):
    sc = parse_sidecar(texts()[name])
    sc.append_comment({"id": "n1", "author": "z", "text": "new: with 'quotes' and # hash", "x": {"a": [1, None]}})
    if len(sc.comments) > 1:
        sc.set_field(sc.comments[0], "text", "changed\nover two lines")
    rendered = render(sc)
    model, fresh = rendered.adopt(), parse_sidecar(rendered.text)
    assert model.original == rendered.text and model.plain() == fresh.plain()
    assert positions(model) == positions(fresh)
    edits(model)
    edits(fresh)
    assert render(model).text == render(fresh).text


def test_appending_after_a_literal_block_at_the_end_without_newline_keeps_its_value():
    text = EXTRA["literal-last-no-newline"]
    sc = parse_sidecar(text)
    assert sc.comments[0]["x_tail"] == "lit"
    sc.append_comment({"id": "n1", "text": "t"})
    out = render(sc).text
    assert parse_sidecar(out).plain()["comments"][0]["x_tail"] == "lit" and not out.endswith("\n")


@pytest.mark.parametrize("tail", [
    "# a comment line\n- id: z\n  text: t\n",
    "- id: z\n  text: t\nextra_key: 1\n",
    "  - id: z\n    text: t\n",
    "- id: z\n  text: t\n...\n",
    "- id: z\n  text: t\r\n",
    "- id: z\n  x: *undefined\n",
    "- id: z\n  text: t",
])
def test_extend_refuses_what_it_cannot_prove(tail):
    mine = parse_sidecar(ZERO)
    before = mine.plain()
    assert not mine.extend(ZERO + tail)
    assert mine.plain() == before and mine.original == ZERO
    assert not mine.extend("x" + ZERO + "- id: z\n  text: t\n")  # not a prefix


def test_extend_reads_only_the_new_items():
    mine = parse_sidecar(ZERO)
    grown = ZERO + "- id: z\n  text: 'from elsewhere'\n"
    assert mine.extend(grown)
    fresh = parse_sidecar(grown)
    assert mine.plain() == fresh.plain() and positions(mine) == positions(fresh)
    edits(mine)
    edits(fresh)
    assert render(mine).text == render(fresh).text


def test_store_catches_up_and_matches_a_cold_write(tmp_path):
    outputs = []
    for cold in (False, True):
        root = tmp_path / str(cold)
        root.mkdir()
        (root / ".mrsf.yaml").write_text("")
        (root / "doc.md").write_text("one\ntwo\nthree\n")
        path = root / "doc.md.review.yaml"
        path.write_text(ZERO)
        ops.add("doc.md", author="a", text="first", id="f1", timestamp="2026-01-01T00:00:00Z", root=root)
        other = parse_sidecar(path.read_text())
        other.append_comment({"id": "new-0", "author": "b", "text": "from elsewhere"})
        path.write_text(render(other).text)
        if cold:
            store.clear_caches()
        ops.add("doc.md", author="a", text="second", id="f2", timestamp="2026-01-01T00:00:00Z", root=root)
        ops.resolve("doc.md", "new-0", root=root)
        outputs.append(path.read_bytes())
    assert outputs[0] == outputs[1]
    assert [c["id"] for c in parse_sidecar(outputs[0].decode()).plain()["comments"]] == ["c1", "f1", "new-0", "f2"]


def test_a_write_that_would_not_read_back_is_refused_and_nothing_changes(tmp_path, monkeypatch):
    (tmp_path / ".mrsf.yaml").write_text("")
    (tmp_path / "doc.md").write_text("one\n")
    path = tmp_path / "doc.md.review.yaml"
    path.write_text(ZERO)
    ops.add("doc.md", author="a", text="first", root=tmp_path)
    before = path.read_bytes()
    monkeypatch.setattr(yamlscan, "read_items", lambda *a, **k: yamlscan.Read(data=[{"id": "something else"}]))
    with pytest.raises(MrsfError) as info:
        ops.add("doc.md", author="a", text="second", root=tmp_path)
    assert info.value.code == "internal-error" and path.read_bytes() == before


@pytest.mark.parametrize("name", ["pyyaml", "ruamel"])
def test_resolving_rewrites_one_line(name):
    from .test_sidecar_properties import render as yaml_text
    data = {"mrsf_version": "1.0", "document": "a.md",
            "comments": [{"id": f"c{n}", "text": "long words " * 12, "resolved": False} for n in range(5)]}
    text = yaml_text(data, name)
    sc = parse_sidecar(text)
    sc.set_field(sc.comments[2], "resolved", True)
    out = render(sc).text
    changed = [(a, b) for a, b in zip(text.split("\n"), out.split("\n")) if a != b]
    assert len(out.split("\n")) == len(text.split("\n"))
    assert changed == [(changed[0][0], changed[0][0].replace("false", "true"))]


BINARY = ('mrsf_version: "1.0"\ndocument: a.md\ncomments:\n'
          "  - id: c1\n    text: hello\n    x_bin: !!binary aGVsbG8gd29ybGQ=\n"
          "    x_block: !!binary |\n      R0lGODlh\n      DAAMAIQA\n"
          "  - id: c2\n    text: other\n")


def test_binary_values_are_read_as_binary_by_both_readers():
    fast = parse_sidecar(BINARY)
    assert fast._exact  # the fast reader took it
    slow = parse_sidecar(BINARY + "x_anchor: &a 1\nx_alias: *a\n")  # only the full parser takes this
    assert not slow._exact
    for sc in (fast, slow):
        c1 = sc.plain()["comments"][0]
        assert isinstance(c1["x_bin"], yamlscan.Binary) and c1["x_bin"] == "aGVsbG8gd29ybGQ="
        assert isinstance(c1["x_block"], yamlscan.Binary) and c1["x_block"] == "R0lGODlhDAAMAIQA"


@pytest.mark.parametrize("extra", ["", "x_anchor: &a 1\nx_alias: *a\n"])
def test_binary_values_survive_edits_of_their_comment(extra):
    sc = parse_sidecar(BINARY + extra)
    sc.set_field(sc.comments[0], "resolved", True)
    sc.set_field(sc.comments[1], "text", "changed")
    out = dump(sc)
    again = parse_sidecar(out).plain()["comments"][0]
    assert again["resolved"] is True
    assert isinstance(again["x_bin"], yamlscan.Binary) and again["x_bin"] == "aGVsbG8gd29ybGQ="
    assert isinstance(again["x_block"], yamlscan.Binary) and again["x_block"] == "R0lGODlhDAAMAIQA"
    if not extra:  # spliced: the untouched binary lines are kept byte for byte
        assert "    x_bin: !!binary aGVsbG8gd29ybGQ=\n    x_block: !!binary |\n      R0lGODlh\n" in out


def test_a_binary_value_is_not_a_string_of_the_same_text():
    from markmcp.mrsf.sidecar import same_value

    assert not same_value(yamlscan.Binary("aGk="), "aGk=")
    assert same_value(yamlscan.Binary("aGk="), yamlscan.Binary("aGk="))
    with pytest.raises(yamlscan.Unsupported):
        yamlscan.decode_binary("not base64!")


KEY_MOVED = """\
mrsf_version: "1.0"
document: a.md
comments:
  - id: c1
    author: ann
    text: first
    type: suggestion
    resolved: false
    x_ext:
      n:
        # a note inside the list
        - 1
        - 2
  - id: c2
    author: bob
    text: second
"""


@pytest.mark.parametrize("fast", [True, False], ids=["fast-reader", "full-reader"])
def test_a_key_removed_and_set_again_moves_to_the_end_and_every_comment_line_stays(fast):
    # a key dropped and set again comes last in the model; the item used to be written
    # anew for that reordering, and the YAML comment inside its nested list was lost
    text = KEY_MOVED if fast else KEY_MOVED.replace("author: ann", "author: !!str ann")
    sc = parse_sidecar(text, fmt="yaml")
    node = sc.comments[0]
    sc.delete_field(node, "type")
    sc.set_field(node, "type", "issue")
    out = render(sc).text
    assert out == text.replace("    type: suggestion\n", "").replace(
        "        - 2\n", "        - 2\n    type: issue\n", 1)
    again = parse_sidecar(out, fmt="yaml").plain()["comments"][0]
    assert list(again) == ["id", "author", "text", "resolved", "x_ext", "type"] and again["type"] == "issue"


AFTER_LITERAL = """\
mrsf_version: '1.0'
document: a.md
comments:
- id: c1
  selected_text: |-
    e
    b
  x_ext:
    n:
    - 1
    # inside x_ext
    - 2
    # after x_ext
- id: c2
  x_ext:
    # deep in c2
    n: 1
    # after c2
- id: c3
"""


def _comment_texts(text: str) -> list[str]:
    return sorted(line.strip() for line in text.split("\n") if line.strip().startswith("#"))


@pytest.mark.parametrize("fast", [True, False], ids=["fast-reader", "full-reader"])
def test_comment_lines_left_after_a_literal_block_stay_comment_lines(fast):
    # comment lines a removed entry or item leaves behind come to follow a literal block
    # scalar; indented as far as its content they would be read into it (the write was
    # refused, or, for a removed item, changed the text of the comment before it)
    text = AFTER_LITERAL if fast else AFTER_LITERAL.replace("- id: c2\n", "- id: c2\n  author: !!str bob\n")
    sc = parse_sidecar(text, fmt="yaml")
    expected = sc.plain()
    sc.delete_field(sc.comments[0], "x_ext")
    sc.remove_comment(1)
    del expected["comments"][1]
    del expected["comments"][0]["x_ext"]
    out = render(sc).text
    assert parse_sidecar(out, fmt="yaml").plain() == expected
    assert _comment_texts(out) == _comment_texts(text)
    assert out.startswith(text[:text.index("  x_ext:")] + "  # inside x_ext\n  # after x_ext\n")


ANCHORED = """\
mrsf_version: '1.0'
document: a.md
comments:
- id: c1
  author: &who Ann  # eol
  text: &t first text
  x_a: &shared
    k: 1
  resolved: false
- id: c2
  author: *who
  text: *t
  x_b: *shared
  x_c:
  - *who
- id: c3
  author: *who
  x_b: *shared
"""


def _edit_anchored(sc, how):
    first = sc.comments[0]
    if how == "change-scalar":
        sc.set_field(first, "author", "Bob")
    elif how == "change-mapping":
        sc.set_field(first, "x_a", {"k": 2})
    elif how == "delete":
        sc.delete_field(first, "text")
    elif how == "move":
        sc.delete_field(first, "author")
        sc.set_field(first, "author", "Ann")
    else:
        sc.remove_comment(0)


@pytest.mark.parametrize("how", ["change-scalar", "change-mapping", "delete", "move", "remove-comment"])
def test_editing_an_anchored_value_keeps_what_its_aliases_read(how):
    # the aliases elsewhere lost their anchor: "the new sidecar would not parse
    # (undefined alias)".  The anchor now moves to the first alias left, which is
    # written with the value it stood for (what ruamel.yaml does with a replaced node)
    sc = parse_sidecar(ANCHORED, fmt="yaml")
    expected = sc.plain()
    _edit_anchored(sc, how)
    intended = sc.plain()
    out = render(sc).text
    again = parse_sidecar(out, fmt="yaml").plain()
    assert again == intended
    for before in expected["comments"][1:]:
        assert before in again["comments"]
    assert _comment_texts(out) == _comment_texts(ANCHORED) or how == "remove-comment"
    if how == "change-scalar":
        assert out == ANCHORED.replace("&who Ann  # eol", "Bob  # eol").replace(
            "- id: c2\n  author: *who", "- id: c2\n  author: &who Ann")


REWRITTEN = """\
mrsf_version: '1.0'
document: a.md
comments:
- id: c1  # the id
  # about the text
  text: first
  x_ext: &m
    # inside x_ext
    n: 1
  resolved: false  # open
- id: c2
  x_b: *m
"""


def _hashes(text: str) -> list[str]:
    return sorted(line[line.index("#"):] for line in text.split("\n") if "#" in line)


def _reset_every_key(sc, node):
    values = dict(node)
    for key in list(node):
        sc.delete_field(node, key)
    sc.set_field(node, "x_new", 1)
    for key in reversed(list(values)):
        sc.set_field(node, key, values[key])


def _move_anchored(sc, node):
    value = node["x_ext"]
    sc.delete_field(node, "x_ext")
    sc.set_field(node, "x_ext", value)


@pytest.mark.parametrize("fast", [True, False], ids=["fast-reader", "full-reader"])
@pytest.mark.parametrize("edit", [_reset_every_key, _move_anchored, lambda sc, node: sc.set_field(node, "x_ext", {"n": 2})],
                         ids=["every-key-reset", "anchored-value-moved", "anchored-value-changed"])
def test_an_item_rewritten_key_by_key_keeps_its_comments(fast, edit):
    # an item whose keys all moved (a new key first), or whose moved or changed value was
    # of a form the writer does not rewrite (an anchored mapping), was written anew and
    # lost every YAML comment inside it; now moved keys take their lines along
    # (an anchor makes the fast reader decline the text; without it, it reads it)
    text = REWRITTEN.replace(" &m", "").replace("*m", "{n: 1}") if fast else REWRITTEN
    sc = parse_sidecar(text, fmt="yaml")
    edit(sc, sc.comments[0])
    intended = sc.plain()
    out = render(sc).text
    assert parse_sidecar(out, fmt="yaml").plain() == intended
    assert _hashes(out) == _hashes(text)
    if edit is _move_anchored:
        entry = text[text.index("  x_ext:"):text.index("  resolved:")]
        assert out == text.replace(entry, "").replace("  resolved: false  # open\n", "  resolved: false  # open\n" + entry)


def test_an_item_emptied_keeps_its_comment_lines():
    sc = parse_sidecar(REWRITTEN, fmt="yaml")
    node = sc.comments[0]
    for key in list(node):
        sc.delete_field(node, key)
    out = render(sc).text
    assert parse_sidecar(out, fmt="yaml").plain()["comments"][0] == {}
    assert out.startswith("mrsf_version: '1.0'\ndocument: a.md\ncomments:\n- {}\n  # about the text\n    # inside x_ext\n")


def test_an_item_written_anew_keeps_its_comment_lines_after_it():
    # a changed value whose form the writer does not rewrite in place (a flow list over
    # two lines) makes the item be written anew; its comment lines were dropped with it
    text = "mrsf_version: '1.0'\ndocument: a.md\ncomments:\n- id: c1\n  x: [1,\n    2]\n  # note\n  text: t\n- id: c2\n"
    sc = parse_sidecar(text, fmt="yaml")
    sc.set_field(sc.comments[0], "x", [3])
    out = render(sc).text
    assert out == text.replace("  x: [1,\n    2]\n  # note\n  text: t\n", "  x:\n  - 3\n  text: t\n  # note\n")
