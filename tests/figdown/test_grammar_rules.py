"""The small grammar rules the genre modules are built from, tested one by one.

Each rule is a pure function from text to a value or a problem; these tests pin
what each accepts, what it returns and which problem it names, independently
of the conformance corpus (which only sees them through whole documents)."""

from __future__ import annotations

import pytest

from markmcp.figdown import parse
from markmcp.figdown.genres.bitfield import compact_item
from markmcp.figdown.genres.scene import band_span, bundle_member
from markmcp.figdown.genres.table import (
    cell_address,
    column_alignment,
    column_width,
    is_numeric,
    pipe_segments,
    table_cell,
)


def test_compact_item_reads_name_and_width() -> None:
    assert compact_item("flags:4", 32) == ("flags", "4")
    assert compact_item("rest:*", 32) == ("rest", "*")
    assert compact_item("a:b:3", 32) == ("a:b", "3")  # the name runs to the last colon


@pytest.mark.parametrize("text, fragment", [
    ("flags", "quote a name that contains spaces"),
    ("flags:x", 'bad item "flags:x" (expected name:width)'),
    ("flags:0", 'bad item "flags:0"'),
    ("wide:40", "is wider than word=32"),
])
def test_compact_item_names_its_problem(text: str, fragment: str) -> None:
    problem = compact_item(text, 32)
    assert isinstance(problem, str) and fragment in problem


def test_band_span_forms() -> None:
    assert band_span("40%") == (0, 40)
    assert band_span("15..35%") == (15, 35)
    assert band_span("1.5..2%") == (1.5, 2)
    assert band_span("15..35") is None
    assert band_span("15-35%") is None


def test_bundle_member_forms() -> None:
    assert bundle_member("a--b", False, True) == {"a": "a", "b": "b"}
    assert bundle_member("e1", False, True) == {"id": "e1"}
    assert bundle_member("e1", False, False) == 'bad member "e1" (expected A--B)'
    assert "connector id" in bundle_member("e 1", False, True)
    assert bundle_member("a--b--c", False, True) == 'bad member "a--b--c" (expected A--B)'
    assert "ids are bare" in bundle_member("a--b", True, True)


def test_pipe_segments_honour_escaped_pipes() -> None:
    row = "| a | b\\|c |"
    assert pipe_segments(row, 1, len(row) - 1) == [" a ", " b|c "]
    assert pipe_segments("|", 1, 0) == [""]
    # a pipe after any backslash is literal (the one backslash goes); a backslash before
    # anything else stays; the stretch ends where it is told, whatever follows
    assert pipe_segments("|a\\\\|b|", 1, 6) == ["a\\|b"]
    assert pipe_segments("|a\\b|c\\|", 1, 6) == ["a\\b", "c"]
    assert pipe_segments("|x\\|", 1, 3) == ["x\\"]


def test_table_cells_and_alignment() -> None:
    assert table_cell("") == {"v": "", "merge": "left"}
    assert table_cell(" ^^ ") == {"v": "", "merge": "up"}
    assert table_cell(" \\^^ ") == {"v": "^^"}
    assert table_cell(" a<br/>b ") == {"v": "a\nb"}
    assert [column_alignment(s) for s in (":--", "--:", ":-:", "---")] == ["left", "right", "center", "none"]


def test_column_width_forms() -> None:
    assert column_width("auto") == "auto"
    assert column_width("90") == {"px": 90}
    assert column_width("25%") == {"pct": 25}
    assert "drop the px suffix and write 90" in column_width("90px")
    assert column_width("wide") == 'bad width "wide" (auto | <px> | <n>%)'


def test_cell_address_forms() -> None:
    assert cell_address("(2,3)") == (False, 2, 3)
    assert cell_address("(h1,3)") == (True, 1, 3)
    assert cell_address("4") == (False, 4, None)
    assert cell_address("2,3") is None
    assert is_numeric("-1.5") and not is_numeric("1e3")


def test_block_head_is_shared_by_every_typed_block() -> None:
    for genre, opener in (("bitfield", "bitfield r numbering=lsb0"), ("table", "table r"),
                          ("timing", "timing r")):
        header = f"figdown 0.5 {genre}\n"
        result = parse(header + opener.replace(" r", " r bare", 1))
        assert [d.message for d in result.diagnostics] == [
            f'{genre} label must be quoted: {genre} r "bare" — '
            "whitespace also separates positionals, so a bare token cannot express a phrase (MIGRATIONS 0.1)"]
        twice = parse(header + opener + "\n" + opener)
        assert (3, 'duplicate id "r"') in [(d.line, d.message) for d in twice.diagnostics]
