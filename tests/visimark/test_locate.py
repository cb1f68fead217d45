"""The locator's line and row splitting: cell texts and exact offsets."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from markmcp.visimark.locate import locate, plain_text, row_texts, split_lines, split_row


def cells(text: str, base: int = 0) -> list[tuple[str, int]]:
    texts, starts = split_row(text, base)
    return list(zip(texts, starts))


def rows(table) -> list[tuple[str, ...]]:
    return [tuple(table.text(r, c) for c in range(table.width)) for r in range(table.height)]


def reference_split(text: str) -> list[tuple[str, int]]:
    """An independent character-by-character statement of the row grammar, as the oracle:
    a backslash escapes the next character, every other pipe separates, the pipes before
    the first non-blank and after the last non-blank character are optional, cells trim."""
    bounds = []
    i = 0
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == "|":
            bounds.append(i)
        i += 1
    edges = [-1, *bounds, len(text)]
    pieces = [(a + 1, b) for a, b in zip(edges, edges[1:])]
    if bounds and not text[: bounds[0]].strip():
        pieces = pieces[1:]
    if bounds and not text[bounds[-1] + 1 :].strip():
        pieces = pieces[:-1]
    out = []
    for a, b in pieces:
        raw = text[a:b]
        out.append((raw.strip(), a + len(raw) - len(raw.lstrip())))
    return out


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        ("| a | b |", [("a", 2), ("b", 6)]),
        ("a | b", [("a", 0), ("b", 4)]),  # no outer pipes
        ("| a | b", [("a", 2), ("b", 6)]),  # leading only
        ("a | b |", [("a", 0), ("b", 4)]),  # trailing only
        ("  |a|  ", [("a", 3)]),  # outer pipes after and before blanks
        ("|", []),
        (" | ", []),
        ("||", [("", 1)]),  # one empty cell, placed where its content would start
        ("| a |   | b |", [("a", 2), ("", 8), ("b", 10)]),
        ("no pipes here", [("no pipes here", 0)]),
    ],
)
def test_split_row_pipes_and_offsets(row: str, expected: list[tuple[str, int]]) -> None:
    assert cells(row) == expected


def test_escaped_pipe_stays_in_its_cell_with_its_backslash() -> None:
    assert cells(r"| a \| b | c |") == [(r"a \| b", 2), ("c", 11)]
    assert cells(r"\|x|y") == [(r"\|x", 0), ("y", 4)]  # an escaped first pipe is not a leading pipe
    assert cells(r"x|y\|") == [("x", 0), (r"y\|", 2)]  # nor an escaped last pipe a trailing one


def test_a_backslash_escapes_one_character_only() -> None:
    # `\\` is an escaped backslash, so the pipe after it separates
    assert cells(r"| a\\| b |") == [(r"a\\", 2), ("b", 7)]
    assert cells(r"| a\\\| b |") == [(r"a\\\| b", 2)]
    # a backslash at the very end escapes nothing
    assert cells("| a | b\\") == [("a", 2), ("b\\", 6)]


def test_pipes_split_inside_code_spans_unless_escaped() -> None:
    # GFM splits a row before inline parsing: only an escaped pipe stays in a code span
    assert cells("| `a|b` | c |") == [("`a", 2), ("b`", 5), ("c", 10)]
    assert cells(r"| `a\|b` | c |") == [(r"`a\|b`", 2), ("c", 11)]


def test_unicode_offsets_count_characters() -> None:
    row = "| ząb | 日本語 | 🙂 x |"
    for text, start in cells(row, base=100):
        assert row[start - 100 : start - 100 + len(text)] == text
    assert [t for t, _ in cells(row)] == ["ząb", "日本語", "🙂 x"]
    # Unicode blanks trim like spaces (no-break space, ideographic space)
    assert cells("|\u00a0x\u00a0|\u3000y|") == [("x", 2), ("y", 6)]


def test_offsets_are_absolute() -> None:
    assert cells("| a | b |", base=40) == [("a", 42), ("b", 46)]


@given(st.text(alphabet="ab |\\`\t\u00a0é日", max_size=30), st.integers(0, 1000))
def test_split_row_matches_the_character_grammar(row: str, base: int) -> None:
    got = cells(row, base)
    assert got == [(t, s + base) for t, s in reference_split(row)]
    for text, start in got:
        assert row[start - base : start - base + len(text)] == text


@given(st.text(alphabet="ab |\\`\t\u00a0é日", max_size=30))
def test_row_texts_are_split_row_texts(row: str) -> None:
    assert row_texts(row) == split_row(row, 0)[0]


ROW = st.text(alphabet="ab |\\`é", min_size=1, max_size=20).filter(
    lambda r: r.strip() and r.lstrip()[0] not in "#>" and "```" not in r  # lines that would end the table
)


@given(st.integers(1, 4), st.lists(ROW, max_size=6), st.sampled_from(["\n", "\r\n", "\r"]))
def test_every_body_cell_reads_back_at_its_offsets(width: int, body: list[str], eol: str) -> None:
    header = "|" + "|".join(f" h{c} " for c in range(width)) + "|"
    delimiter = "|" + "---|" * width
    src = eol.join(["text", "", header, delimiter, *body]) + eol
    (table,) = locate(src).tables
    assert table.height == len(body) and table.width == width
    for r, line in enumerate(body):
        expected = (row_texts(line) + [""] * width)[:width]
        for c in range(width):
            cell = table.cell(r, c)
            assert cell.text == table.text(r, c) == expected[c]
            assert src[cell.start : cell.end] == cell.text
            if c >= len(row_texts(line)):  # padded: at the end of its line
                assert src[: cell.start].endswith(line)


@pytest.mark.parametrize(
    ("src", "texts", "starts"),
    [
        ("", [""], [0]),
        ("a", ["a"], [0]),
        ("a\n", ["a"], [0]),
        ("a\nb", ["a", "b"], [0, 2]),
        ("a\r\nb\rc\n\n", ["a", "b", "c", ""], [0, 3, 5, 7]),
        ("\n", [""], [0]),
        ("\n\n", ["", ""], [0, 1]),
        ("x\r\n", ["x"], [0]),
    ],
)
def test_split_lines_on_the_three_line_endings(src: str, texts: list[str], starts: list[int]) -> None:
    assert split_lines(src) == (texts, starts)


def test_table_rows_are_padded_and_cut_to_the_header() -> None:
    src = "intro\n\n| A | B | C |\r\n|---|:-:|--:|\r\n| 1 | 2 |\r\n| 4 | 5 | 6 | 7 |\r\n| x \\| y |\r\n\r\nafter\n"
    (table,) = locate(src).tables
    assert [c.text for c in table.header] == ["A", "B", "C"]
    assert rows(table) == [("1", "2", ""), ("4", "5", "6"), ("x \\| y", "", "")]
    assert table.height == 3
    assert table.column(1) == ["2", "5", ""]
    assert table.line == 3
    for r in range(table.height):
        for c in range(3):
            cell = table.cell(r, c)
            assert src[cell.start : cell.end] == cell.text
    # a missing cell is empty and sits at the end of its line, before the line ending
    line_end = src.index("| 1 | 2 |") + len("| 1 | 2 |")
    assert table.cell(0, 2) == ("", line_end, line_end)
    assert src[table.start : table.end].endswith("| x \\| y |")


def test_a_row_without_pipes_continues_the_table_until_a_blank_line() -> None:
    (table,) = locate("| A | B |\n|---|---|\n| 1 | 2 |\nloose text\n\nprose\n").tables
    assert rows(table) == [("1", "2"), ("loose text", "")]


def test_anchor_lines_count_every_line_ending() -> None:
    src = "a\r\nb\rc\n\nNet **5**<!--vmark=t.x-->\n"
    (anchor,) = locate(src).anchors
    assert anchor.line == 5


def test_plain_text_resolves_markup_and_escaped_pipes() -> None:
    assert plain_text("  **Net** total ") == "Net total"
    assert plain_text("`code` and _em_") == "code and em"
    assert plain_text(r"a \| b") == "a | b"
    assert plain_text("plain words") == "plain words"


# ---- the bounded look-back in front of an anchor gives the same answer as the whole paragraph

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from markmcp.visimark.locate import _code_spans, _value_before, _window  # noqa: E402

_pieces = st.sampled_from(["**5**", "*7*", "`3`", "``a`b``", "__x__", "_y_", "word", " ", "  ", "\n", "12.5",
                           "![c](x.svg)", "**", "*", "`", "\\*", "a_b", "—", "€5"])


@settings(max_examples=400, deadline=None)
@given(st.lists(_pieces, max_size=12))
def test_anchor_lookback_window_matches_the_whole_paragraph(parts: list[str]) -> None:
    # one paragraph: a line holding only blanks would end it, so none is kept
    lines = [line for line in "".join(parts).split("\n") if line.strip(" ")]
    text = "\n".join(lines) + "<!--vmark=s.v-->"
    k = text.index("<!--vmark=")
    codes = _code_spans(text)
    ending = {b: a for a, b in codes}
    assert _value_before(text, k, 0, ending, _window(text, k, 0)) == _value_before(text, k, 0, ending, 0)


def test_a_line_of_blanks_ends_the_paragraph_an_anchor_looks_back_in() -> None:
    from markmcp.visimark.locate import locate

    (anchor,) = locate("**5**\n \n <!--vmark=s.v-->\n").anchors
    assert anchor.kind == "empty"  # the bold 5 is in the paragraph before


def test_anchors_in_one_long_paragraph() -> None:
    from markmcp.visimark.locate import locate

    para = " ".join(f"**{i}**<!--vmark=s.v-->" for i in range(3000))
    found = locate(para + "\n").anchors
    assert len(found) == 3000 and all(a.kind == "strong" for a in found)
    assert para[found[-1].value_span[0]:found[-1].value_span[1]] == "2999"


def test_a_code_span_opened_two_lines_up_is_the_node_an_anchor_follows() -> None:
    # found by the look-back property above: the bounded window starts on the line before the
    # anchor's, and the code span's opening backtick lies before it
    text = "`\n**5**\n`<!--vmark=s.v-->"
    k = text.index("<!--vmark=")
    ending = {b: a for a, b in _code_spans(text)}
    assert _value_before(text, k, 0, ending, _window(text, k, 0)) == ("code", (1, 8), None)
