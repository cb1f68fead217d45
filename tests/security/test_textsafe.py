"""Escaping what a repository could use to forge terminal output."""

from __future__ import annotations

from hypothesis import given, strategies as st

from markmcp.textsafe import escape_controls, for_terminal


def test_escape_sequences_and_line_forgery_are_inert():
    hostile = "ok\x1b[2J\x1b]0;title\x07\r\nFORGED LINE\u202egnp.exe\x9b31m"
    shown = escape_controls(hostile)
    assert shown == "ok\\x1b[2J\\x1b]0;title\\x07\\r\\nFORGED LINE\\u202egnp.exe\\x9b31m"
    assert all(ch.isprintable() for ch in shown)


def test_keep_leaves_structural_newlines():
    assert escape_controls("a\nb\x1bc", keep="\n") == "a\nb\\x1bc"


def test_printable_text_is_unchanged():
    assert escape_controls("Zürich — 東京 ✓ 🙂") == "Zürich — 東京 ✓ 🙂"
    assert for_terminal(None) == "None"
    assert for_terminal(3) == "3"


@given(st.text())
def test_output_is_printable_and_escaping_is_idempotent(text):
    once = escape_controls(text)
    assert escape_controls(once) == once
    assert not any(ch in once for ch in "\x1b\r\n\x00\x9b\u202e")


def test_json_text_is_made_inert_and_keeps_its_values() -> None:
    import json

    from markmcp.textsafe import UNSAFE, inert_json

    value = {"name": "a\nb\x1b[31m\x7f\x9b31m\u202egpj\u2028é😀", "list": ["\r", "\u2066x"]}
    text = inert_json(json.dumps(value, ensure_ascii=False, indent=2))
    assert json.loads(text) == value
    assert not UNSAFE.search(text.replace("\n", ""))  # only the layout's own newlines are raw
    assert "é😀" in text  # everything else stays as it is


def test_a_lone_surrogate_is_escaped_for_the_terminal_and_in_json() -> None:
    """A file name's byte that is not UTF-8 (kept as \\udcff) printed as a raw 0xff byte:
    `markmcp check --json` then wrote JSON that is not UTF-8.  The terminal sees \\xff;
    JSON gets the \\udcff escape, which reads back as the very name."""
    import json

    from markmcp.textsafe import inert_json

    assert escape_controls("b\udcff.md \ud800") == "b\\xff.md \\ud800"
    text = inert_json(json.dumps({"file": "b\udcff.md"}, ensure_ascii=False))
    text.encode("utf-8")  # no lone surrogate left raw
    assert json.loads(text) == {"file": "b\udcff.md"}
