"""Format preservation beyond the examples: other indentation styles, CRLF, BOM, no final
newline, ``---``, texts the serialiser cannot reproduce, and JSON layouts."""

from __future__ import annotations

import difflib
import json

import pytest

from markmcp.mrsf.errors import MrsfError
from markmcp.mrsf.sidecar import dump, new_sidecar, parse_sidecar, to_plain

NEW = {"id": "n1", "author": "z", "timestamp": "2026-01-01T00:00:00Z", "text": "new", "resolved": False}

ZERO_OFFSET = (
    'mrsf_version: "1.0"\n'
    "document: a.md\n"
    "comments:\n"
    "- id: c1\n"
    "  author: a\n"
    "  timestamp: '2026-01-01T00:00:00Z'\n"
    "  text: hello\n"
    "  resolved: false\n"
    "  x_meta:\n"
    "      deep: 1\n"
)
FOUR = (
    'mrsf_version: "1.0"\n'
    "document: a.md\n"
    "comments:\n"
    "    - id: c1\n"
    "      author: a\n"
    "      timestamp: '2026-01-01T00:00:00Z'\n"
    "      text: hello\n"
    "      resolved: false\n"
)
VARIANTS = {
    "zero-offset": ZERO_OFFSET,
    "four-indent": FOUR,
    "explicit-start": "---\n" + ZERO_OFFSET,
    "crlf": ZERO_OFFSET.replace("\n", "\r\n"),
    "bom": "\ufeff" + ZERO_OFFSET,
    "no-final-newline": ZERO_OFFSET.rstrip("\n"),
    "empty-flow-list": 'mrsf_version: "1.0"\ndocument: a.md\ncomments: []\n',
    "odd-spacing": ZERO_OFFSET.replace("text: hello", "text:    hello").replace("document: a.md", "document: a.md   # doc"),
    "folded-and-literal": ZERO_OFFSET.replace("text: hello", "text: >-\n    folded\n    text") + "- id: c2\n  author: b\n  timestamp: '2026-01-01T00:00:00Z'\n  text: |\n    literal\n    block\n  resolved: true\n",
}


def diff(before: str, after: str):
    lines = [l for l in difflib.ndiff(before.split("\n"), after.split("\n")) if l[:2] in ("- ", "+ ")]
    return [l[2:] for l in lines if l[0] == "-"], [l[2:] for l in lines if l[0] == "+"]


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_variant_roundtrip_and_minimal_edits(name):
    text = VARIANTS[name]
    sc = parse_sidecar(text)
    assert dump(sc) == text
    nl = "\r\n" if "\r\n" in text else "\n"
    body = text.lstrip("\ufeff").replace("\r\n", "\n")
    # append
    sc.append_comment(dict(NEW))
    out = dump(sc)
    assert out.startswith("\ufeff") == text.startswith("\ufeff")
    assert ("\r\n" in out) == (nl == "\r\n") and "\r\r" not in out
    removed, added = diff(body, out.lstrip("\ufeff").replace("\r\n", "\n"))
    if name == "empty-flow-list":
        assert removed == ["comments: []"] and added[0] == "comments:"
    else:
        assert removed == [] or (name == "no-final-newline" and removed == [])
        assert [a.strip() for a in added if a.strip()][0] == "- id: n1"
    assert parse_sidecar(out).plain()["comments"][-1] == NEW
    # update one field
    if sc.comments and sc.comments[0]["id"] == "c1":
        sc2 = parse_sidecar(text)
        sc2.set_field(sc2.comments[0], "resolved", True)
        removed, added = diff(body, dump(sc2).lstrip("\ufeff").replace("\r\n", "\n"))
        assert [r.strip() for r in removed] == ["resolved: false"] and [a.strip() for a in added] == ["resolved: true"]


def test_indentation_is_detected():
    sc = parse_sidecar(ZERO_OFFSET)
    assert (sc.yaml_style.offset, sc.yaml_style.sequence) == (0, 2)
    assert sc.yaml_style.mapping == 4
    sc.append_comment({**NEW, "x_obj": {"k": "v"}})
    assert dump(sc).endswith("- id: n1\n  author: z\n  timestamp: \"2026-01-01T00:00:00Z\"\n  text: new\n  resolved: false\n  x_obj:\n      k: v\n")


def test_unreproducible_text_keeps_untouched_lines():
    text = VARIANTS["odd-spacing"].replace("author: a", "author:   a") + "- id: c2\n  author: b\n  timestamp: '2026-01-01T00:00:00Z'\n  text: [ x,  y ]\n  resolved: false\n"
    sc = parse_sidecar(text)
    assert dump(sc) == text
    sc.set_field(sc.comments[1], "resolved", True)
    removed, added = diff(text, dump(sc))
    assert removed == ["  resolved: false"] and added == ["  resolved: true"]
    assert "text: [ x,  y ]" in dump(sc) and "document: a.md   # doc" in dump(sc)


def test_scalar_styles_for_new_values():
    sc = parse_sidecar(VARIANTS["empty-flow-list"])
    sc.append_comment({"id": "123", "author": "yes", "timestamp": "2026-01-01T00:00:00Z",
                       "text": "multi\nline: #x", "resolved": False, "line": 3, "x_f": 0.5, "x_n": None})
    out = dump(sc)
    assert '- id: "123"' in out and 'author: "yes"' in out and 'text: "multi\\nline: #x"' in out
    assert parse_sidecar(out).plain()["comments"][0]["id"] == "123"


def test_invalid_items_survive_a_write():
    text = ZERO_OFFSET + "- just a string\n- 42\n- {id: weird, line: x}\n"
    sc = parse_sidecar(text)
    assert len(sc.comments) == 4
    sc.append_comment(dict(NEW))
    again = parse_sidecar(dump(sc))
    assert again.plain()["comments"][1:4] == ["just a string", 42, {"id": "weird", "line": "x"}]


@pytest.mark.parametrize("text,code,line", [
    ("mrsf_version: [\n", "malformed-yaml", 2),
    ("a: 1\n  b: 2\n", "malformed-yaml", 2),
    ("- 1\n- 2\n", "invalid-sidecar", 1),
    ("", "invalid-sidecar", None),
    ("# only a comment\n", "invalid-sidecar", None),
    ('{"a": 1,}', "malformed-json", 1),
    ('{"a": 1, "a": 2}', "malformed-json", None),
    ('{"a": NaN}', "malformed-json", None),
])
def test_parse_errors(text, code, line):
    with pytest.raises(MrsfError) as info:
        parse_sidecar(text, fmt="json" if text.startswith("{") else None)
    assert info.value.code == code
    assert info.value.details.get("line") == line


JSON_LAYOUTS = {
    "two": {"indent": 2},
    "four": {"indent": 4},
    "tab": {"indent": "\t"},
    "compact": {"indent": None},
}


@pytest.mark.parametrize("name", sorted(JSON_LAYOUTS))
def test_json_roundtrip_and_append(name):
    data = {"mrsf_version": "1.0", "document": "a.md", "x_tool": {"z": 1, "a": [1, 2]},
            "comments": [{"id": "c1", "text": "héllo", "author": "a", "timestamp": "2026-01-01T00:00:00Z", "resolved": False}]}
    text = json.dumps(data, ensure_ascii=False, **JSON_LAYOUTS[name]) + "\n"
    sc = parse_sidecar(text, name="a.md.review.json")
    assert sc.fmt == "json" and dump(sc) == text
    sc.append_comment(dict(NEW))
    out = dump(sc)
    assert list(json.loads(out)) == ["mrsf_version", "document", "x_tool", "comments"]
    assert json.loads(out)["comments"][-1] == NEW
    if name != "compact":
        removed, added = diff(text, out)
        assert len(removed) <= 2  # only the closing brace of the previous item gains a comma
    escaped = json.dumps(data, ensure_ascii=True, indent=2) + "\n"
    assert dump(parse_sidecar(escaped, fmt="json")) == escaped


def test_new_sidecar_text():
    assert dump(new_sidecar("docs/a b.md")) == 'mrsf_version: "1.0"\ndocument: docs/a b.md\ncomments: []\n'
    assert json.loads(dump(new_sidecar("a.md", "json"))) == {"mrsf_version": "1.0", "document": "a.md", "comments": []}


@pytest.mark.parametrize("fmt", ["yaml", "json"])
def test_deep_nesting_is_a_clear_error(fmt):
    deep = "[" * 70 + "]" * 70
    text = (f'mrsf_version: "1.0"\ndocument: a\ncomments: []\nx_deep: {deep}\n' if fmt == "yaml"
            else f'{{"mrsf_version": "1.0", "document": "a", "comments": [], "x": {deep}}}')
    with pytest.raises(MrsfError) as info:
        parse_sidecar(text, fmt=fmt)
    assert info.value.code == "invalid-sidecar" and "nested" in info.value.message
    very = text.replace(deep, "[" * 5000 + "]" * 5000)
    with pytest.raises(MrsfError):
        parse_sidecar(very, fmt=fmt)


def test_alias_bomb_is_refused():
    lines = ['mrsf_version: "1.0"', "document: a", "comments: []", "a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i-1}'] * 10)}]" for i in range(1, 9)]
    with pytest.raises(MrsfError) as info:
        parse_sidecar("\n".join(lines) + "\n")  # expanding would make 10**9 nodes: measured, refused
    assert info.value.code == "invalid-sidecar" and "alias" in info.value.message


def test_alias_bomb_is_refused_when_converted_to_plain_data():
    node: list = ["x"] * 10
    for _ in range(8):
        node = [node] * 10  # shared, as YAML aliases are
    with pytest.raises(MrsfError) as info:
        to_plain({"comments": node})
    assert info.value.code == "invalid-sidecar"


def test_aliases_that_expand_modestly_are_read():
    lines = ['mrsf_version: "1.0"', "document: a", "x_a0: &a0 [x, x, x]", "x_a1: &a1 [*a0, *a0, *a0]",
             "comments:", "  - id: c", "    x_list: *a1"]
    data = parse_sidecar("\n".join(lines) + "\n").plain()
    assert data["comments"][0]["x_list"] == [["x", "x", "x"]] * 3


def test_aliases_within_bounds_read_as_copies():
    text = 'mrsf_version: "1.0"\ndocument: a\ncomments:\n  - id: c1\n    x_a: &shared {k: 1}\n    x_b: *shared\n'
    sc = parse_sidecar(text)
    assert sc.plain()["comments"][0] == {"id": "c1", "x_a": {"k": 1}, "x_b": {"k": 1}}
    sc.set_field(sc.comments[0], "text", "t")
    assert parse_sidecar(dump(sc)).plain()["comments"][0]["text"] == "t"


def test_json_nested_past_the_decoder_says_where_like_yaml() -> None:
    """A JSON sidecar nested deeper than Python's decoder can follow got "malformed JSON:
    maximum recursion depth exceeded while decoding a JSON array from a unicode string";
    it is refused as YAML's is, with the place the 65th level opens (brackets in strings
    do not count)."""
    from markmcp.mrsf.errors import MrsfError
    from markmcp.mrsf.sidecar import MAX_DEPTH

    head = '{"mrsf_version": "1.0", "document": "a.md",\n"comments": ["[[[", '
    text = head + "[" * 5000 + "]" * 5000 + "]}\n"
    try:
        parse_sidecar(text, fmt="json")
    except MrsfError as error:
        assert error.code == "invalid-sidecar"
        assert error.message.endswith(f"values are nested more than {MAX_DEPTH} levels deep (line 2, column 83)")
    else:
        raise AssertionError("a sidecar nested 5,000 deep was read")
