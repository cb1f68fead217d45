"""Tabs in YAML sidecars: YAML 1.2 white space everywhere on a line but in its indentation.

The reference tools write a string holding a tab as a plain scalar (``anchored_text: a<TAB>b``)
and read ``key:<TAB>value`` and ``value<TAB># note``; the YAML library under the full reader
refused all three ("found character '\\t' that cannot start any token")."""

from __future__ import annotations

import pytest

from markmcp.mrsf import ops
from markmcp.mrsf.errors import MrsfError
from markmcp.mrsf.sidecar import parse_sidecar, render

HEAD = 'mrsf_version: "1.0"\ndocument: doc.md\ncomments:\n'


def one(line: str) -> str:
    return HEAD + (
        "  - id: c1\n"
        "    author: A\n"
        "    timestamp: \"2026-01-02T03:04:05Z\"\n"
        "    resolved: false\n"
        f"    {line}\n"
    )


@pytest.mark.parametrize("line, key, value", [
    ("text: a\tb", "text", "a\tb"),                 # inside a plain scalar: part of it
    ("text: a \t\tb  c", "text", "a \t\tb  c"),
    ("text: a\tb\t# note", "text", "a\tb"),         # before a comment: a separator
    ("text:\ta", "text", "a"),                      # after the colon: a separator
    ("text: a\t", "text", "a"),                     # trailing: not part of the value
    ("line:\t3", "line", 3),
    ('text: "a\tb"', "text", "a\tb"),               # quoted: as before
    ("text: [a,\tb]", "text", ["a", "b"]),
])
def test_tabs_outside_indentation_are_white_space(line, key, value):
    assert parse_sidecar(one(line)).data["comments"][0][key] == value


@pytest.mark.parametrize("text", [
    HEAD + "\t- id: c1\n",
    one("text: a").replace("    text: a", "\ttext: a"),
])
def test_a_tab_in_indentation_is_still_malformed(text):
    with pytest.raises(MrsfError) as info:
        parse_sidecar(text)
    assert info.value.code == "malformed-yaml"


def test_a_sidecar_with_plain_tabs_can_be_validated_and_edited(tmp_path):
    (tmp_path / ".mrsf.yaml").write_text("", encoding="utf-8")
    (tmp_path / "doc.md").write_text("a\tb\n", encoding="utf-8")
    text = one("text: t\n    line: 1\n    selected_text: \"a\\tb\"\n    anchored_text: a\tb\n    x_note: keep\tme  # why")
    sidecar = tmp_path / "doc.md.review.yaml"
    sidecar.write_text(text, encoding="utf-8")
    assert ops.validate(str(sidecar), root=str(tmp_path))["valid"]
    ops.resolve(str(sidecar), ["c1"], root=str(tmp_path))
    after = parse_sidecar(sidecar.read_text(encoding="utf-8")).data["comments"][0]
    before = parse_sidecar(text).data["comments"][0]
    assert after == {**before, "resolved": True}
    assert after["anchored_text"] == "a\tb" and after["x_note"] == "keep\tme"


# An item the fast reader declines (a tab, a tag, an anchor) is edited entry by entry too:
# the reference writer edits such a file in place, keeping every YAML comment and style.
DECLINED = HEAD + (
    "  - id: c1\n"
    "    # a comment line inside the item\n"
    "    author: !!str A   # why\n"
    "    timestamp: '2026-01-02T03:04:05Z'\n"
    "    text: &t |\n"
    "      body\n"
    "      # body, not a comment\n"
    "    # a comment after the block\n"
    "    resolved: false   # still open\n"
    "    anchored_text: a\tb\n"
    "    x_note: keep\tme  # why\n"
    "  - id: c2\n"
    "    author: B\n"
    "    timestamp: '2026-01-02T03:04:05Z'\n"
    "    text: *t\n"
    "    resolved: false\n"
)


def test_editing_a_declined_item_keeps_its_other_lines():
    sc = parse_sidecar(DECLINED)
    first = sc.comments[0]
    sc.set_field(first, "resolved", True)
    sc.set_field(first, "line", 2)
    text = render(sc).text
    assert text == DECLINED.replace("resolved: false   # still open", "resolved: true   # still open").replace(
        "    x_note: keep\tme  # why\n", "    x_note: keep\tme  # why\n    line: 2\n")
    assert parse_sidecar(text).data["comments"][0] == {**parse_sidecar(DECLINED).data["comments"][0],
                                                        "resolved": True, "line": 2}


def test_removing_an_entry_of_a_declined_item_keeps_the_comment_lines():
    sc = parse_sidecar(DECLINED)
    sc.delete_field(sc.comments[0], "anchored_text")
    text = render(sc).text
    assert text == DECLINED.replace("    anchored_text: a\tb\n", "")


def test_a_declined_item_whose_changed_value_is_not_simple_is_written_anew_correctly():
    sc = parse_sidecar(DECLINED)
    sc.set_field(sc.comments[0], "author", "Z")           # a tagged value
    after = parse_sidecar(render(sc).text).data["comments"]
    assert after[0]["author"] == "Z" and after[0]["x_note"] == "keep\tme" and after[1]["text"] == after[0]["text"]


def test_resolving_in_an_upstream_written_sidecar_changes_one_line(tmp_path):
    (tmp_path / ".mrsf.yaml").write_text("", encoding="utf-8")
    (tmp_path / "doc.md").write_text("a\tb\n", encoding="utf-8")
    text = one("text: t\n    line: 1\n    selected_text: \"a\\tb\"\n    anchored_text: a\tb\n    x_note: keep\tme  # why")
    sidecar = tmp_path / "doc.md.review.yaml"
    sidecar.write_text(text, encoding="utf-8")
    ops.resolve(str(sidecar), ["c1"], root=str(tmp_path))
    assert sidecar.read_text(encoding="utf-8") == text.replace("resolved: false", "resolved: true")


# A plain scalar over several lines whose continuation lines hold a tab after their
# indentation: YAML 1.2 white space there (s-flow-line-prefix: the indentation, then
# s-separate-in-line, tabs allowed), folded like spaces.  The YAML library refused it.
CONTINUED = HEAD + (
    "  - id: c1\n"
    "    author: A\n"
    "    text: first part\n"
    "      \tsecond part\n"
    "      \t\n"
    "      \tthird\tend  # note\n"
    "    resolved: false\n"
    "    line: 2\n"
    "  - id: c2\n"
    "    text: t\n"
)


@pytest.mark.parametrize("prefix, value", [
    ("      \t", "first part second part"),      # past the indentation the text needs
    ("     \t", "first part second part"),       # exactly that indentation, then a tab
    ("      \t \t", "first part second part"),
])
def test_a_tab_starting_a_continuation_line_is_white_space(prefix, value):
    text = one("text: first part\n" + prefix + "second part")
    assert parse_sidecar(text).data["comments"][0]["text"] == value


@pytest.mark.parametrize("prefix", ["    \t", "\t"])
def test_a_tab_inside_the_indentation_of_a_continuation_line_is_still_malformed(prefix):
    # the plain scalar's lines must be indented past its key (column 5 here) with spaces
    with pytest.raises(MrsfError) as info:
        parse_sidecar(one("text: first part\n" + prefix + "second part"))
    assert info.value.code == "malformed-yaml" and info.value.details.get("line") == 9


def test_a_sidecar_with_tabbed_continuation_lines_is_edited_in_place():
    sc = parse_sidecar(CONTINUED)
    assert sc.data["comments"][0]["text"] == "first part second part\nthird\tend"
    assert sc.position(index=0, key="resolved") == (10, 5) and sc.position(index=0, key="line") == (11, 5)
    assert sc.position(index=1) == (12, 5)
    sc.set_field(sc.comments[0], "resolved", True)
    assert render(sc).text == CONTINUED.replace("resolved: false", "resolved: true")
    sc = parse_sidecar(CONTINUED)
    sc.set_field(sc.comments[0], "text", "new")
    assert render(sc).text == CONTINUED.replace(
        "text: first part\n      \tsecond part\n      \t\n      \tthird\tend  # note\n", "text: new  # note\n")
