"""Property and fuzz tests: every input yields a model or diagnostics, never an exception.

Time is bounded by construction, not measured: hypothesis runs with
``deadline=None`` and the generated sizes are moderate; the large inputs
(100 KB lines, 10,000 repeated or nested directives) are fixed examples
that the engine reads in one linear pass.
"""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from markmcp.figdown import model_json, parse

LINE_RE = re.compile(r"Line [1-9][0-9]*: ")

SETTINGS = settings(max_examples=200, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

HEADERS = ["figdown 0.1 block", "figdown 0.5 topology", "figdown 0.2 flowchart",
           "figdown 0.2 statechart", "figdown 0.1 bitfield", "figdown 0.1 table",
           "figdown 0.1 timing", "figdown 0.4 sequence", "figdown 0.1", "figdown 9.9 nope"]
FRAGMENTS = [
    'node a "A"', 'node b "B" in=g', 'group g "G"', "edge a -> b", "edge a -[x]-> b",
    "flowline a -> b", "transition a -> b", 'state a "S"', 'lifeline a "A"', 'lifeline b "B"',
    'message a -> b "m"', 'fragment f "F" type=alt', 'operand o "O" in=f', 'message a -> b in=o',
    'bitfield h "H" numbering=msb0', 'field "X" 8', "field a:4,b:4", "break",
    'table t "T"', "| A | B |", "|---|:-:|", "| 1 | 2 |", "| ^^ | 3 |", "cell (1,1) fill=red",
    "width auto,90", 'timing w "W"', "signal clk p...", "gap 1", 'class c "C" fill=#fff',
    "rank a,b", "flow down", "layout", "pin a at=(1,2)", "bundle x a--b", 'title "T"',
    'threshold "t" in=g offset=50%', 'band "b" 10..20% in=g', "chart t", "# comment", "",
    'external e "E"', 'process p "P"', 'decision d "D"', 'terminator t2 "T"',
]


def check_total(text: str) -> None:
    """The engine's contract on any text."""
    result = parse(text)
    if result.diagnostics:
        lines = result.error_lines()
        assert lines == sorted(lines)
        for line_no, message in result.diagnostics:
            assert isinstance(line_no, int) and line_no >= 1
            assert isinstance(message, str) and message
        n_lines = text.count("\n") + 1
        assert all(line_no <= n_lines for line_no, _ in result.diagnostics)
        with pytest.raises(ValueError):
            model_json(result)
    else:
        out = model_json(result)
        assert out.endswith("\n") and not out.endswith("\n\n")
        model = json.loads(out)
        assert isinstance(model, dict)
        # deterministic: the same text gives the same bytes
        assert model_json(parse(text)) == out


@SETTINGS
@given(st.binary(max_size=2000))
def test_random_bytes(data: bytes) -> None:
    check_total(data.decode("utf-8", errors="replace"))


@SETTINGS
@given(st.text(max_size=600))
def test_random_text(text: str) -> None:
    check_total(text)


@SETTINGS
@given(st.text(alphabet=st.sampled_from(list('\x00\x01\x08\x0b\x0c\x1b\x1f\ufffe\uffff\t\r\n '
                                             'abc"\\[]#;|=,-<>^*:%().')), max_size=400))
def test_control_and_xml_illegal_characters(text: str) -> None:
    check_total("figdown 0.1 block\n" + text)


@st.composite
def documents(draw) -> str:
    """Plausible documents: headers and directive fragments, then mutated."""
    lines = [draw(st.sampled_from(HEADERS))]
    lines += draw(st.lists(st.sampled_from(HEADERS + FRAGMENTS * 4), max_size=40))
    text = "\n".join(lines)
    for _ in range(draw(st.integers(0, 6))):
        if not text:
            break
        i = draw(st.integers(0, len(text)))
        op = draw(st.sampled_from(["insert", "delete", "duplicate"]))
        if op == "insert":
            text = text[:i] + draw(st.sampled_from(list('"[]#;,=-><|^.:%()\\ \t\r\x00é中😀'))) + text[i:]
        elif op == "delete":
            text = text[:i] + text[i + 1:]
        else:
            text = text[:i] + text[i:i + 20] + text[i:]
    return text


@SETTINGS
@given(documents())
def test_mutated_documents(text: str) -> None:
    check_total(text)


BIG_INPUTS = {
    "100kb-label": 'figdown 0.1 block\nnode a "' + "x" * 100_000 + '"\n',
    "100kb-unterminated": 'figdown 0.1 block\nnode a "' + "x" * 100_000 + "\n",
    "100kb-quotes": "figdown 0.1 block\n" + '""' * 50_000 + "\n",
    "100kb-brackets": "figdown 0.1 block\nedge a -" + "[" * 100_000 + "\n",
    "100kb-pipes": 'figdown 0.1 table\ntable t "T"\n' + "|" * 100_000 + "\n",
    "100kb-comma-list": "figdown 0.1 block\nrank " + ",".join(f"a{i}" for i in range(20_000)) + "\n",
    "10k-headers": "\n".join(["figdown 0.1 block"] * 10_000),
    "10k-nodes": "figdown 0.1 block\n" + "\n".join(f'node n{i} "N{i}" in=g' for i in range(10_000))
                 + '\ngroup g "G"\n',
    "10k-duplicates": "figdown 0.1 block\n" + '\nnode a "A"' * 10_000,
    "10k-edges": "figdown 0.1 block\nnode a\nnode b\n" + "\nedge a -> b" * 10_000,
    "10k-fields": 'figdown 0.1 bitfield\nbitfield h "H" numbering=msb0\n' + '\nfield "x" 8' * 10_000,
    "10k-nested-sequence": "figdown 0.4 sequence\nlifeline a\nlifeline b\n" + "\n".join(
        f"fragment f{i} type=alt" + (f" in=o{i - 1}" if i else "") + f"\noperand o{i} in=f{i}"
        for i in range(5_000)) + "\nmessage a -> b in=o4999\n",
    "10k-states": "figdown 0.4 sequence\nlifeline a\n" + "\n".join(
        f'state a "S{i % 2}"' for i in range(10_000)),
    "10k-group-chain": "figdown 0.1 block\n" + "\n".join(
        f'group g{i} "G"' + (f" in=g{i - 1}" if i else "") for i in range(10_000)),
    "10k-group-cycle": "figdown 0.1 block\n" + "\n".join(
        f'group g{i} "G" in=g{(i + 1) % 10_000}' for i in range(10_000)),
    "10k-classes-on-one-node": "figdown 0.1 block\n" + "\n".join(f'class c{i} "C"' for i in range(10_000))
                               + "\nnode a class=" + ",".join(f"c{i}" for i in range(10_000)) + "\n",
    "10k-ranks-and-pins": "figdown 0.1 block\n" + "\n".join(f"node n{i}" for i in range(10_000)) + "\n"
                          + "\n".join(f"rank n{i},n{i + 1}" for i in range(9_999)) + "\nlayout\n"
                          + "\n".join(f"pin n{i} at=({i},{i})" for i in range(10_000)) + "\n",
    "3k-bundle-members": "figdown 0.5 topology\nnode a\nnode b\n" + "\n".join(
        f"edge a -> b id=e{i}" for i in range(3_000)) + "\nbundle x " + ",".join(f"e{i}" for i in range(3_000)),
    "10k-timing-signals": 'figdown 0.1 timing\ntiming w "W"\n' + "\n".join(
        f"signal s{i} p....." for i in range(10_000)),
    "10k-sections-with-nul": "figdown 0.1 block\nnode a \"\x00\"\n" * 5_000,
}


@pytest.mark.parametrize("name", sorted(BIG_INPUTS))
def test_large_and_repeated_inputs(name: str) -> None:
    check_total(BIG_INPUTS[name])


def test_nested_sequence_reports_depth_once_per_fragment() -> None:
    result = parse(BIG_INPUTS["10k-nested-sequence"])
    nesting = [m for _, m in result.diagnostics if "levels deep" in m]
    assert len(nesting) == 5_000 - 2  # f0 and f1 are legal (one enclosing fragment at most)


def test_a_rejected_line_declares_nothing() -> None:
    """Recovery: the bad line is reported once and the next line is read normally."""
    result = parse('figdown 0.1 block\nnode a "A" fill=nope\nnode a "again"\n')
    assert result.error_lines() == ['Line 2: unknown color "nope" (#hex or CSS color name)']
    assert all(LINE_RE.match(x) for x in result.error_lines())
