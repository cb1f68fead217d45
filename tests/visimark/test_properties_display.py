"""Property tests for the newer surfaces: the `|nbsp` round-trip model is sound against a
real CommonMark parser, `|nbsp` anchors re-read clean after `fmt`, and random param
domain clauses never raise."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from markmcp.visimark.check import check
from markmcp.visimark.display import nbsp_refusal, nbsp_render, nbsp_words
from markmcp.visimark.domain import DomainSyntaxError, in_domain, is_empty, parse_clause
from markmcp.visimark.model import build
from markmcp.visimark.write import fmt

ALPHABET = list("ab xyZ09 ._-*`[]<>&~\\#!():/@;\u00a0") + ["www.", "&amp;", "&nbsp;", "http://", "a_b", " "]
values = st.lists(st.sampled_from(ALPHABET), max_size=10).map("".join)
delimiters = st.sampled_from(["**", "*", "__", "_"])
befores = st.sampled_from(["", " ", "x", "(", "é", ":"])


def reads_back(before: str, delim: str, value: str) -> bool:
    """Oracle: does CommonMark parse the rendering as one strong/em node holding exactly the words?"""
    markdown_it = pytest.importorskip("markdown_it")
    md = markdown_it.MarkdownIt("commonmark").enable("strikethrough")
    line = f"{before}{delim}{nbsp_render(value)}{delim}<!--vmark=s.v|nbsp-->"
    tokens = [t for t in md.parseInline(line)[0].children if not (t.type == "text" and t.content == "")]
    if before:
        if not tokens or tokens[0].type != "text" or tokens[0].content != before:
            return False
        tokens = tokens[1:]
    kind = "strong" if len(delim) == 2 else "em"
    shape = [t.type for t in tokens]
    return (shape == [f"{kind}_open", "text", f"{kind}_close", "html_inline"]
            and tokens[1].content == "\u00a0".join(nbsp_words(value)))


@settings(max_examples=400, deadline=None)
@given(values, delimiters, befores)
def test_nbsp_model_never_accepts_what_commonmark_reads_differently(value: str, delim: str, before: str) -> None:
    if nbsp_refusal(value, delim, delim, before, "<") is None:
        assert reads_back(before, delim, value), (before, delim, value)


@settings(max_examples=150, deadline=None)
@given(values.filter(lambda v: '"' not in v and "\n" not in v and "\r" not in v), delimiters)
def test_nbsp_anchor_is_refused_or_rereads_clean(value: str, delim: str) -> None:
    doc = f'```vmark #s\nv = "{value}"\n```\n\nSeed {delim}_{delim}<!--vmark=s.v|nbsp-->.\n'
    result = check(build(doc))
    refused = [f for f in result.findings if f.code == "ANCHOR"]
    out = fmt(doc)
    if refused or not nbsp_words(value):
        assert out.output == doc
        return
    assert f"{delim}{nbsp_render(value)}{delim}<!--vmark=s.v|nbsp-->" in out.output
    again = check(build(out.output))
    assert [f for f in again.findings if f.is_problem] == []
    assert fmt(out.output).output == out.output


numbers = st.sampled_from(["0", "1", "-5", "2.5", "40%", "0.001", "12", "-0.5"])
clause_parts = st.lists(st.sampled_from(["integer", "natural", "positive", "ℤ", "ℕ", "ℤ⁺", "in", "∈", "[", "]",
                                         "(", ")", "{", "}", ",", "x", " "]) | numbers, max_size=9)


@settings(max_examples=300, deadline=None)
@given(clause_parts, numbers)
def test_random_domain_clauses_parse_or_refuse_cleanly(parts: list[str], default: str) -> None:
    text = " ".join(parts)
    try:
        clause = parse_clause(text)
    except DomainSyntaxError as e:
        assert e.message and 0 <= e.pos <= len(text)
    else:
        is_empty(clause)
        value = Decimal(default.rstrip("%")) / (100 if default.endswith("%") else 1)
        in_domain(clause, value)
    doc = f"```vmark #p\nparam x precision 3 {text} = default {default}\n```\n"
    assert check(build(doc)).exit_code in (0, 1)


PIECES = [
    "```vmark #s\n", "```vmark\n", "```\n", "\n", "| A [kg] | B |\n|--:|--:|\n| 1 kg | 2 |\n", "| 5% | $3 |\n",
    "param p precision 2 ", "integer ", "in [0, 1) ", "∈ { 1, 2 } ", "lattice 0.5 ", "= default 1\n",
    "x [kg] precision 2 = SUM(A)\n", "y = x / 2 [kg]\n", "[J] = [N⋅m]\n", "[a] = [a]\n", "s = \"a *b*\"\n",
    "**_**<!--vmark=s.x|unit-->", "*_*<!--vmark=s.s|nbsp-->", "`3`<!--vmark=s.p|percent-->", "<!--vmark=s.y-->",
    "<!--vmark=s.x|nbsp|unit-->", "x_y<!--vmark=s.s-->", " to <!--vmark=s.x--> ", "assert x > 0\n", "\"A [kg]\" is w\n",
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=18).map("".join))
def test_random_documents_with_new_syntax_never_raise(doc: str) -> None:
    result = check(build(doc))
    assert result.exit_code in (0, 1)
    out = fmt(doc)
    assert fmt(out.output).output == out.output
