"""Tabs in YAML sidecars: YAML 1.2 white space everywhere on a line but in its indentation.

The reference tools write a string holding a tab as a plain scalar (``anchored_text: a<TAB>b``)
and read ``key:<TAB>value`` and ``value<TAB># note``; the YAML library under the full reader
refused all three ("found character '\\t' that cannot start any token")."""

from __future__ import annotations

import pytest

from markmcp.mrsf import ops
from markmcp.mrsf.errors import MrsfError
from markmcp.mrsf.sidecar import parse_sidecar

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
