"""Behaviour of the FigDown engine beyond the conformance goldens.

Lexing (lines, comments, quotedness), sections and line numbers, the model
text format, error columns and recovery, and the public API.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from markmcp.figdown import GENRES, VERSIONS, model_json, parse
from markmcp.figdown.lexer import LexError, find_comment, split_list, tokenize
from markmcp.figdown.model import dumps, js_number
from markmcp.figdown.numbers import number_text

# --- lexing ----------------------------------------------------------------------


def test_tokens_remember_which_characters_were_quoted() -> None:
    toks = tokenize('node a "Two words" note="x y" ""')
    assert [t.v for t in toks] == ["node", "a", "Two words", "note=x y", ""]
    assert [t.q for t in toks] == [False, False, True, False, True]
    note = toks[3]
    assert note.slice_quoted(5, len(note.v)) and not note.slice_quoted(0, 4)


def test_escapes_and_their_errors() -> None:
    assert tokenize(r'"a\nb \"q\" \\"')[0].v == 'a\nb "q" \\'
    with pytest.raises(LexError) as exc:
        tokenize(r'"bad\t"')
    assert exc.value.message == 'unknown escape "\\t" (allowed: \\n \\" \\\\)'
    with pytest.raises(LexError, match="unterminated string"):
        tokenize('"open')


def test_comment_needs_whitespace_before_it_and_skips_strings_and_labels() -> None:
    assert find_comment("node a # c") == 7
    assert find_comment("# whole line") == 0
    assert find_comment("fill=#0d9488") == -1
    assert find_comment('title "a \\" # b"') == -1
    assert find_comment("edge a -[hop #1]-> b # real") == 21


ATOMS = ["a", "#", '\\"', "\\\\", " ", "b#c", "\\\\#", "# ", " # "]


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(ATOMS), st.sampled_from(ATOMS),
       st.sampled_from(['title "{0}{1}"', 'title "{0}" # {1}', 'field x 8 note="{0}{1}"',
                        'node id "{0}" fill=#0d9488', 'node id "{0}{1}" # trailing {1}']))
def test_comment_scanner_never_cuts_inside_a_string(a: str, b: str, template: str) -> None:
    """Upstream's comment-scanner property: the kept prefix tokenizes to a
    prefix of the whole line's tokens."""
    line = template.format(a, b)
    try:
        whole = tokenize(line)
    except LexError:
        return  # not a well-formed line; nothing to promise
    cut = find_comment(line)
    kept = tokenize(line if cut < 0 else line[:cut])
    assert [t.v for t in kept] == [t.v for t in whole[: len(kept)]]


def test_comma_lists_split_only_on_unquoted_commas() -> None:
    tok = tokenize('"a,b",c,,d')[0]
    assert [(i.v, i.q) for i in split_list(tok)] == [("a,b", True), ("c", False), ("", False), ("d", False)]


def test_comma_list_items_know_empty_quotes_and_mixed_quoting() -> None:
    """An empty quoted item counts as quoted; a half-quoted item is not quoted but has a quote."""
    tok = tokenize('data="",x"y",z')[0]
    items = split_list(tok, len("data="))
    assert [(i.v, i.q, i.h) for i in items] == [("", True, True), ("xy", False, True), ("z", False, False)]
    assert not tok.q and tokenize('""')[0].q and tokenize('"a"" b"')[0].q
    assert tok.slice_quoted(5, 5) and not tok.slice_quoted(6, 6)


# --- lines and sections ------------------------------------------------------------


def test_only_lf_ends_a_line() -> None:
    # CR before LF is trimmed as whitespace; U+2028, NEL and form feed are not line breaks
    result = parse('figdown 0.1 block\r\nnode a "A\u2028B\x85C"\r\nnode b "B"\n')
    model = json.loads(model_json(result))
    assert [(n["label"], n["line"]) for n in model["nodes"]] == [("A\u2028B\x85C", 2), ("B", 3)]
    result = parse('figdown 0.1 block\nnode c "C\x0c"\nnode d "D"\n')
    assert result.error_lines() == [
        "Line 2: illegal character U+000C — XML forbids it, so the artifact could not be well-formed "
        "(below U+0020 only tab, newline and carriage return are allowed)",
    ]


def test_sections_report_document_line_numbers() -> None:
    text = '# provenance\nfigdown 0.1 block\nnode a "A"\n\nfigdown 0.1 bitfield\nnode b "B"\n'
    assert parse(text).error_lines() == ['Line 6: "node" is not allowed in genre bitfield']


def test_several_sections_give_the_sections_wrapper() -> None:
    text = 'figdown 0.1 block\nnode a "A"\nfigdown 0.1 block\nnode a "Again"\n'
    model = json.loads(model_json(parse(text)))
    assert [s["nodes"][0]["label"] for s in model["sections"]] == ["A", "Again"]
    assert [s["nodes"][0]["line"] for s in model["sections"]] == [2, 2]


def test_section_starts_map_model_lines_to_document_lines() -> None:
    text = ('# provenance\n\nfigdown 0.1 block\nnode a "A"\n\n# second\nfigdown 0.1 table\ntable t "T"\n'
            '| A | B |\n|---|---|\n| 1 | 2 |\n')
    result = parse(text)
    assert result.ok and result.section_starts == [1, 7]
    block, table = result.models
    assert block["nodes"][0]["line"] == 4 and result.document_line(0, 4) == 4
    table_line = table["regions"][0]["line"]
    assert text.split("\n")[result.document_line(1, table_line) - 1] == 'table t "T"'


def test_section_starts_are_there_with_diagnostics_too() -> None:
    result = parse('figdown 0.1 block\nnode\nfigdown 0.1 nope\n')
    assert not result.ok and result.section_starts == [1, 3]
    assert parse("").section_starts == [1]


def test_the_public_genre_and_version_tuples_are_what_the_header_accepts() -> None:
    assert set(GENRES) == {"block", "topology", "flowchart", "bitfield", "table", "timing",
                           "statechart", "sequence"}
    for version in VERSIONS:
        for genre in GENRES:
            messages = [m for _, m in parse(f"figdown {version} {genre}\n").diagnostics]
            assert not any("unknown genre" in m or "unsupported version" in m for m in messages)
    assert parse(f"figdown {VERSIONS[-1]} pie\n").error_lines() == [
        "Line 1: unknown genre \"pie\" (" + "|".join(GENRES) + ")"]


def test_a_leading_byte_order_mark_is_ignored() -> None:
    assert parse('\ufefffigdown 0.1 block\nnode a "A"\n').ok


# --- the model text -------------------------------------------------------------------


@pytest.mark.parametrize(("value", "text"), [
    (50.0, "50"), (12.5, "12.5"), (300.5, "300.5"), (1.5e-06, "0.0000015"), (1e-07, "1e-7"),
    (1e21, "1e+21"), (float("inf"), "null"), (float("nan"), "null"), (10**400, "null"), (7, "7"),
])
def test_numbers_print_as_ecmascript_does(value: float, text: str) -> None:
    assert js_number(value) == text


@pytest.mark.parametrize(("value", "text"), [
    (1.2345678901234568e20, "123456789012345680000"), (123456789012345683968, "123456789012345680000"),
    (-1.2345678901234568e20, "-123456789012345680000"), (1e20, "100000000000000000000"),
    (2.0**53, "9007199254740992"), (2**53 + 2, "9007199254740994"), (9007199254740993, "9007199254740992"),
])
def test_integral_doubles_above_two_to_the_53_print_their_shortest_digits(value: float, text: str) -> None:
    """JSON.stringify pads the shortest round-trip digits with zeros; the exact binary
    integer a large double holds is not what it prints."""
    assert js_number(value) == text


@settings(max_examples=200, deadline=None)
@given(st.floats(min_value=2.0**53, max_value=1e21, exclude_max=True))
def test_a_large_integral_double_prints_no_more_digits_than_it_carries(value: float) -> None:
    value = float(int(value))
    text = js_number(value)
    assert float(text) == value
    significant = text.rstrip("0")
    assert len(significant) <= 17 and len(significant) <= len(repr(value).split("e")[0].replace(".", ""))


def _significant_digits(text: str) -> str:
    """The digit string of a number's spelling without sign, point, exponent or padding zeros."""
    mantissa = text.lstrip("-").split("e")[0].replace(".", "")
    return mantissa.strip("0") or "0"


@settings(max_examples=300, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_every_finite_double_prints_its_shortest_round_trip_digits(value: float) -> None:
    """number_text reads back as the same double and carries exactly the shortest digits
    that do (Python's repr finds them too), so ECMAScript and this engine agree on them."""
    text = number_text(value)
    assert float(text) == value
    assert _significant_digits(text) == _significant_digits(repr(value))
    assert ("e" in text) == (value != 0 and not 1e-6 <= abs(value) < 1e21)


def test_a_large_number_reaches_the_model_and_the_messages_as_ecmascript_reads_it() -> None:
    head = "figdown 0.1 bitfield\nbitfield b numbering=lsb0 word=123456789012345678901\n"
    model = model_json(parse(head + 'field "A" 123456789012345678901\n'))
    assert '"word": 123456789012345680000,' in model
    assert '"width": 123456789012345680000,' in model
    refused = parse(head.replace(" word=123456789012345678901", "")
                    + 'field "A" 8 index=0..123456789012345678901\n')
    assert any("a reader would get 123456789012345680000 back" in line for line in refused.error_lines())


NINES = "9" * 400  # past the largest double: ECMAScript reads it as Infinity


@pytest.mark.parametrize(("source", "line"), [
    ("figdown 0.1 timing\ntiming t\nsignal a 0101\ngap 123456789012345678901\ngap 123456789012345678901\n",
     "Line 5: duplicate gap at cycle 123456789012345680000"),
    (f"figdown 0.1 timing\ntiming t\nsignal a 0101\ngap {NINES}\n",
     "Line 4: gap cycle Infinity is past the end of the timing lane (length 4)"),
    ("figdown 0.1 table\ntable t\n|a|b|\n|-|-|\n|1|2|\ncell (9007199254740993,0) fill=red\n",
     "Line 6: cell 9007199254740992,0 out of range"),
    ("figdown 0.1 table\ntable t\n|a|b|\n|-|-|\n|1|2|\ncell (1,1000000000000000000000) fill=red\n",
     "Line 6: cell 1,1e+21 out of range"),
    ("figdown 0.1 table\ntable t\n|a|b|\n|-|-|\n|1|2|\ncell 123456789012345678901 highlight\n",
     "Line 6: row 123456789012345680000 out of range"),
    (f"figdown 0.1 table\ntable t\n|a|b|\n|-|-|\n|1|2|\ncell {NINES} highlight\n",
     "Line 6: row Infinity out of range"),
], ids=["duplicate-gap", "gap-infinity", "cell-row-2^53+1", "cell-col-1e21", "highlight-row", "highlight-infinity"])
def test_a_number_quoted_in_a_message_is_the_double_the_line_denotes(source: str, line: str) -> None:
    """A message repeats the number as ECMAScript's String() prints the double it reads
    (shortest digits, exponent from 1e21, Infinity), not the digits as written."""
    assert line in parse(source).error_lines()


@pytest.mark.parametrize(("item", "fits"), [
    ("x:9007199254740992", True), ("x:9007199254740993", True), ("x:9007199254740994", False),
])
def test_a_compact_item_is_measured_against_the_word_as_doubles(item: str, fits: bool) -> None:
    """2**53+1 and 2**53 are one double, so an item that long fits a 2**53-bit word."""
    result = parse(f"figdown 0.1 bitfield\nbitfield b numbering=lsb0 word=9007199254740992\nfield {item}\n")
    assert result.ok is fits


def test_the_word_a_compact_item_overflows_is_quoted_as_a_double() -> None:
    result = parse("figdown 0.1 bitfield\nbitfield b numbering=lsb0 word=123456789012345678901\n"
                   "field x:999999999999999999999999\n")
    assert any('is wider than word=123456789012345680000 — ' in line for line in result.error_lines())


def test_a_cell_fill_on_a_highlighted_row_quotes_its_address_as_doubles() -> None:
    result = parse("figdown 0.1 table\ntable t\n|a|b|\n|-|-|\n|1|2|\ncell 1 highlight\n"
                   "cell (1,9007199254740993) fill=red\n")
    assert any(line.startswith("Line 7: cell (1,9007199254740992) resolves to a fill on row 1,")
               for line in result.error_lines())


def test_an_index_too_large_for_any_double_is_reported_as_infinity() -> None:
    refused = parse(f"figdown 0.1 bitfield\nbitfield b numbering=lsb0\nfield \"A\" 8 index=0..{NINES}\n")
    assert any("a reader would get Infinity back" in line for line in refused.error_lines())


def test_canonical_json_layout() -> None:
    assert dumps({"a": [], "b": {}, "c": ["é", 1.0], "d": None}) == (
        '{\n  "a": [],\n  "b": {},\n  "c": [\n    "é",\n    1\n  ],\n  "d": null\n}\n')


def test_omitted_label_is_absent_and_empty_label_is_kept() -> None:
    model = json.loads(model_json(parse('figdown 0.1 block\nnode a\nnode b ""\n')))
    assert "label" not in model["nodes"][0]
    assert model["nodes"][1]["label"] == ""


def test_defaults_are_materialised() -> None:
    model = json.loads(model_json(parse('figdown 0.2 flowchart\nprocess p "P"\n')))
    assert model["flow"] == "down"
    assert model["nodes"][0] == {"id": "p", "label": "P", "role": "process", "shape": "box",
                                 "plane": "base", "line": 2}
    assert model["planes"] == [{"id": "base", "z": 0}]


# --- diagnostics, columns and recovery ----------------------------------------------


def test_lexical_errors_carry_a_column() -> None:
    result = parse('figdown 0.1 block\n  node a "bad\\tx"\n')
    (diag,) = result.diagnostics
    assert diag == (2, 'unknown escape "\\t" (allowed: \\n \\" \\\\)')
    assert diag.line == 2 and diag.col == 14


def test_one_bad_line_does_not_cascade() -> None:
    text = 'figdown 0.1 block\nnode a "A" shape=hexagon\nnode b "B"\nedge b -> c\nnode c "C"\n'
    assert parse(text).error_lines() == [
        'Line 2: unknown shape "hexagon" (box|rounded|circle|ellipse|diamond|cylinder)',
    ]


def test_a_missing_header_is_reported_once_and_the_rest_is_still_read() -> None:
    text = 'node a "A"\nnode b "B" fill=nope\n'
    assert parse(text).error_lines() == [
        'Line 1: first line must be "figdown 0.1 <genre>"',
        'Line 2: unknown color "nope" (#hex or CSS color name)',
    ]


def test_a_rejected_block_opener_orphans_its_children() -> None:
    text = 'figdown 0.1 bitfield\nbitfield 1x numbering=msb0\nfield "A" 8\n'
    lines = parse(text).error_lines()
    assert lines[1] == 'Line 3: "field" is a typed-block child — it needs a bitfield/table/timing block above it'


def test_a_line_with_only_options_names_the_missing_keyword() -> None:
    (line,) = parse('figdown 0.1 block\nfill=#fff\n').error_lines()
    assert line.startswith("Line 2: a directive line starts with its keyword") and "fill=" in line


def test_a_line_with_only_options_closes_an_open_typed_block() -> None:
    text = 'figdown 0.1 bitfield\nbitfield h "H" numbering=msb0\nfield "A" 8\ndescription="x"\nfield "B" 8\n'
    lines = parse(text).error_lines()
    assert [line.split(":")[0] for line in lines] == ["Line 4", "Line 5"]
    assert lines[1] == ('Line 5: "field" is a typed-block child — it needs a bitfield/table/timing block '
                        "above it")


def test_model_json_refuses_a_document_with_diagnostics() -> None:
    result = parse("figdown 0.1 block\nnode 1 x\n")
    assert not result.ok and result.models == []
    with pytest.raises(ValueError):
        model_json(result)


def test_forward_references_resolve_after_the_section() -> None:
    text = 'figdown 0.1 block\nedge a -> b\nnode a "A" in=g\nnode b "B"\ngroup g "G"\n'
    model = json.loads(model_json(parse(text)))
    assert model["edges"][0]["a"] == "a" and model["nodes"][0]["group"] == "g"


@pytest.mark.parametrize("name", ["017-document-composition", "500-table-basic", "401-bitfield-compact"])
def test_crlf_and_lf_documents_have_the_same_model(name: str) -> None:
    from conftest import shared_dir

    text = (shared_dir("figdown", "conformance", "cases") / f"{name}.fd").read_text(encoding="utf-8")
    assert "\r" not in text
    assert model_json(parse(text.replace("\n", "\r\n"))) == model_json(parse(text))


def test_a_bare_cr_does_not_end_a_line() -> None:
    (line,) = parse('figdown 0.1 block\rnode a "A"\n').error_lines()
    assert line == 'Line 1: unexpected argument "node"'


def test_error_lines_sort_by_utf16_code_units_like_the_goldens() -> None:
    from markmcp.figdown.context import Diagnostic
    from markmcp.figdown.parser import ParseResult

    result = ParseResult([Diagnostic(2, 'b "\uff01"'), Diagnostic(2, 'b "\U0001f600"'),
                          Diagnostic(10, "a"), Diagnostic(2, "a")])
    # U+1F600 is the surrogate pair D83D DE00, below U+FF01 in UTF-16 (code points say otherwise)
    assert result.error_lines() == ["Line 10: a", "Line 2: a", 'Line 2: b "\U0001f600"', 'Line 2: b "\uff01"']


def test_the_engine_is_pure_it_imports_nothing_that_reaches_outside() -> None:
    """The engine modules import only these.  Not engine: the two edges (cli with the
    subcommands it runs, under commands/; server), the helpers only they share (sources:
    finding and reading files; report: the check's text; artifacts and artifact_paths:
    built figures on disk), and the docs."""
    import ast
    from pathlib import Path

    import markmcp.figdown as package

    allowed = {"__future__", "bisect", "collections", "dataclasses", "decimal", "functools", "hashlib",
               "heapq", "itertools", "json", "math", "re", "typing"}
    root = Path(package.__file__).parent
    engine = [p for p in sorted(root.rglob("*.py"))
              if p.name not in ("cli.py", "server.py", "sources.py", "report.py", "artifacts.py", "artifact_paths.py")
              and not {"docs", "commands"} & set(p.relative_to(root).parts[:-1])]
    assert len(engine) >= 15
    for path in engine:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            else:
                continue
            for name in names:
                assert name.split(".")[0] in allowed, f"{path.name} imports {name}"


def test_an_empty_numbering_value_is_refused_not_defaulted() -> None:
    """A deliberate difference from the reference engine, which reads ``numbering=`` as lsb0."""
    text = 'figdown 0.1 bitfield\nbitfield a "A" numbering=\nfield "x" 8\n'
    assert parse(text).error_lines() == ["Line 2: numbering must be lsb0 or msb0"]


def test_a_sequence_line_under_a_failed_header_is_named_as_one() -> None:
    """A header that opens no genre leaves a real sequence word unread; the diagnostic says
    whose word it is instead of calling it unknown (a reviewer's agent took that literally)."""
    for header in ("figdown 0.3 sequence", "figdown 0.1 fancy"):
        lines = parse(f"{header}\nlifeline a \"A\"\nfoo b\n").error_lines()
        assert lines[1:] == [
            'Line 2: "lifeline" is a line of genre sequence, and this section has no genre (no valid header '
            "opened one), so the line is not read",
            'Line 3: "foo" is not a FigDown keyword, so this line means nothing',
        ]
    # under a genre that has its own word for it, the conformance corpus's named error still answers
    assert parse('figdown 0.1 block\nlifeline a "A"\n').error_lines()[0].startswith(
        'Line 2: "lifeline" is not the word genre block uses for this')
