"""The lexer, connector, option, header and sequence-containment rules, one by one.

These pin the rule functions those modules are built from (what each
accepts, returns and refuses), below the whole-document view the
conformance corpus gives."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from markmcp.figdown.connector import parse_connector, parse_label, parse_operator
from markmcp.figdown.genres.sequence import MAX_SCOPE_WALK, TOP_SCOPE, _enclosing_scopes, _RowKeys
from markmcp.figdown.header import first_version_with, header_genre, header_version
from markmcp.figdown.lexer import LexError, UnterminatedString, parse_quoted, tokenize
from markmcp.figdown.options import check_options, option_key, split_options

# --- lexer -------------------------------------------------------------------


def test_provenance_mask_marks_each_character() -> None:
    (tok,) = tokenize('ab"c d"e')
    assert tok.v == "abc de"
    assert tok.mask == "BBQQQB"
    assert tok.opens == (2,)
    assert not tok.q and tok.slice_quoted(2, 5) and not tok.slice_quoted(1, 5)


def test_an_empty_string_leaves_a_trace_where_it_opened() -> None:
    (tok,) = tokenize('key=""')
    assert tok.v == "key=" and tok.mask == "BBBB"
    assert tok.slice_quoted(4, 4) and not tok.slice_quoted(3, 3)


def test_an_empty_slice_inside_one_string_has_a_quote_but_not_between_two() -> None:
    (one,) = tokenize('"ab"')
    (two,) = tokenize('"a""b"')
    assert one.slice_has_quote(1, 1)
    assert two.slice_has_quote(1, 1)  # the second string opens there
    (bare,) = tokenize('a"b"')
    assert not bare.slice_has_quote(0, 0)


def test_unterminated_string_is_its_own_error_kind() -> None:
    with pytest.raises(UnterminatedString) as err:
        parse_quoted('"abc', 0)
    assert err.value.col == 4


# --- connector ---------------------------------------------------------------


@pytest.mark.parametrize("text, arrow, mid", [
    ("->", "->", None), ("--", "--", None), ("<-", "<-", None), ("<->", "<->", None),
    ("-[x]->", "->", "x"), ("-[x]-", "--", "x"), ("<-[x]-", "<-", "x"), ("<-[x]->", "<->", "x"),
])
def test_operator_table(text: str, arrow: str, mid: str | None) -> None:
    assert parse_operator(text + " b", 0, "edge") == (len(text), arrow, mid)


@pytest.mark.parametrize("text, message", [
    (">", "edge needs an operator: -> <- -- <-> (a [mid] label splits it: -[x]->)"),
    ("-x", "edge needs an operator: -> <- -- <->"),
    ("-[x]>", "expected - or -> to close the operator after [label]"),
])
def test_operator_errors(text: str, message: str) -> None:
    with pytest.raises(LexError) as err:
        parse_operator(text, 0, "edge")
    assert err.value.message == message


def test_labels_balance_brackets_or_take_a_quoted_string() -> None:
    assert parse_label("[a [b] c] x", 0) == (9, "a [b] c")
    assert parse_label('["a]b"] x', 0) == (7, "a]b")
    for text, message in [('["ab', "never closes"), ('["a"x]', "straight after its closing quote"),
                          ("[ ]", "empty [label]"), ('[""]', "empty [label]"), ("[a", "unterminated [label]")]:
        with pytest.raises(LexError) as err:
            parse_label(text, 0)
        assert message in err.value.message


def test_connector_keeps_labels_in_their_slots() -> None:
    c = parse_connector("edge a [t] -[m]-> [h] b x=1", "edge")
    assert (c.a, c.op, c.b, c.tail, c.mid, c.head, c.rest) == ("a", "->", "b", "t", "m", "h", " x=1")


# --- options -----------------------------------------------------------------


@pytest.mark.parametrize("text, key", [
    ("fill=red", "fill"), ("fill=", "fill"), ("x-y=a=b", "x-y"), ("=red", None), ("1a=b", None),
    ('"fill=red"', None), ("fill", None), ('fill="a b"', "fill"),
])
def test_option_key(text: str, key: str | None) -> None:
    (tok,) = tokenize(text)
    assert option_key(tok) == key


def test_checks_report_in_their_fixed_order() -> None:
    sp = split_options(tokenize('fill=red fill=nope bogus=1 style="dashed" note=bare'))
    problems = check_options("edge", sp, "topology", "0.5")
    assert problems[0] == 'duplicate option "fill=" on one line'
    assert problems[1] == 'unknown option "bogus="'
    assert problems[2].startswith("edge has no interior, so fill= and stroke=")
    assert "write style=dashed" in problems[3]
    assert problems[4] == 'unknown color "nope" (#hex or CSS color name)'
    assert problems[5].startswith('note= must be quoted: note="bare"')
    assert len(problems) == 6  # the quoted style gets its quoting message only


# --- header ------------------------------------------------------------------


def _header(text: str):
    return split_options(tokenize(text))


def test_header_version_falls_back_and_says_why() -> None:
    assert header_version(_header("figdown 0.4 sequence")) == ("0.4", [])
    version, problems = header_version(_header("figdown 7.0 block"))
    assert version == "0.1" and problems[0].startswith('unsupported version "7.0"')


def test_header_genre_names_the_version_that_introduced_it() -> None:
    genre, problems = header_genre(_header("figdown 0.1 sequence"), "0.1")
    assert genre is None and problems == [f'genre "sequence" requires figdown {first_version_with("sequence", "0.1")} '
                                          "(this document declares 0.1) — write: figdown "
                                          f'{first_version_with("sequence", "0.1")} sequence']
    assert header_genre(_header("figdown 0.1 block"), "0.1") == ("block", [])
    assert first_version_with("block", "0.5") is None


# --- sequence containment ------------------------------------------------------


def test_enclosing_scopes_end_at_the_top_and_stop_at_loops() -> None:
    parents = {"o1": "f1", "f1": "", "x": "y", "y": "x"}
    assert _enclosing_scopes(parents, "o1") == ["o1", "f1", TOP_SCOPE]
    assert _enclosing_scopes(parents, None) == [TOP_SCOPE]
    assert _enclosing_scopes(parents, "x") == ["x", "y", TOP_SCOPE]
    chain = {f"c{i}": f"c{i + 1}" for i in range(500)}
    assert len(_enclosing_scopes(chain, "c0")) == MAX_SCOPE_WALK + 1


@given(st.lists(st.integers(-1, 9), max_size=300), st.data())
def test_row_keys_find_the_same_slot_as_a_plain_scan(keys: list[int], data) -> None:
    if not keys:
        return
    lo = data.draw(st.integers(0, len(keys) - 1))
    hi = data.draw(st.integers(lo, len(keys) - 1))
    first = data.draw(st.integers(0, 9))
    last = data.draw(st.integers(first, 9))
    expected = next((s for s in range(lo, hi + 1) if not first <= keys[s] <= last), None)
    assert _RowKeys(keys).first_outside(lo, hi, (first, last)) == expected
