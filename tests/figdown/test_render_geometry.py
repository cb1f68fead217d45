"""``geometry()``: a check's diagnostics, found without writing markup, are the build's.

``figdown check`` and ``figdown_check`` stop before the markup (the scene's
annotations and drawing, the sequence ladder, the tables); what they report must
still be exactly what ``render()`` reports, parse or geometry, in the same order,
so a document the check clears is one the build draws.  The random documents of
the fuzz tests compare the two as well (``fuzz_targets.run_figdown_render``).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import shared_dir
from markmcp.figdown import parse
from markmcp.figdown.render import geometry, render
from markmcp.figdown.render.regions import bitfield
from markmcp.figdown.report import check_report

from .test_render_lassos import AGG

REFUSED = {
    "a pin covering a placed box": AGG + "pin m at=(150,100)\n",
    "a bitfield past its bound": ('figdown 0.1 bitfield\nbitfield b "B" word=32 numbering=lsb0\n'
                                  'field "Head" 8\nfield "Big" 900000000000\nfield "Tail" 3\n'),
    "the second section refused": ('figdown 0.1 block\nnode a "A"\n\nfigdown 0.1 bitfield\n'
                                   'bitfield hdr numbering=msb0 word=70000\nfield "Payload" *\n'),
    "a table past its bound": ('figdown 0.1 table\ntable t "T"\n|' + "h|" * 20_000 + "\n|" + "-|" * 20_000 + "\n"),
    "a timing block past its bound": 'figdown 0.1 timing\ntiming w\nsignal a ' + "p" * 70_000 + "\n",
    "bitfields past the document's bound": ('figdown 0.1 bitfield\ntitle "T"\n' + 'bitfield a word=65536 numbering=lsb0\n'
                                            'field "x" *\nbitfield b word=2 numbering=lsb0\nfield "y" 2\n'),
    "two sections, a title, the first refused": (AGG.replace("topology\n", 'topology\ntitle "T"\n')
                                                 + "pin m at=(150,100)\n\nfigdown 0.4 block\nnode z \"Z\"\n"),
}


@pytest.mark.parametrize("source", REFUSED.values(), ids=REFUSED.keys())
@pytest.mark.parametrize("with_title", [False, True])
def test_a_refused_drawing_is_found_without_drawing(source: str, with_title: bool) -> None:
    result = parse(source)
    assert result.ok
    drawn = render(result, with_title=with_title).diagnostics
    assert drawn, "the example must be refused by the renderer"
    assert geometry(result, with_title=with_title) == drawn


def test_a_parse_error_is_reported_as_render_reports_it() -> None:
    result = parse('figdown 0.4 block\nnode a "A" colour=red\n')
    assert not result.ok
    assert geometry(result) == render(result).diagnostics == result.diagnostics


@pytest.mark.parametrize("corpus", ["cases", "experimental"])
def test_every_conformance_case_gets_the_renderers_verdict(corpus: str) -> None:
    refused = 0
    for fd in sorted(shared_dir("figdown", "conformance", corpus).glob("*.fd")):
        result = parse(fd.read_bytes().decode("utf-8"))
        for with_title in (False, True):
            drawn = render(result, with_title=with_title).diagnostics
            assert geometry(result, with_title=with_title) == drawn, fd.name
        refused += bool(result.ok and drawn)
    assert refused >= 1     # the corpus pins geometry refusals in both folders


def test_the_check_report_names_the_geometry_stage() -> None:
    report = check_report("agg.fd", REFUSED["a pin covering a placed box"])
    assert report["ok"] is False and report["stage"] == "geometry"
    assert [d["line"] for d in report["diagnostics"]] == [12]


# --- a bitfield's bound, walked without drawing -----------------------------------------------


@st.composite
def bitfields(draw) -> str:
    word = draw(st.sampled_from([1, 3, 8, 16, 32]))
    lines = ["figdown 0.2 bitfield", f'bitfield b "B" word={word} numbering=lsb0']
    for k in range(draw(st.integers(1, 8))):
        if draw(st.integers(0, 5)) == 0:
            lines.append("break")
            continue
        index = draw(st.sampled_from(["", "", f" index=0..{draw(st.integers(1, 9))}",
                                      f" index={draw(st.integers(2, 9))}..0", ' index="0..Last Entry"',
                                      ' index=""']))
        lines.append(f'field "F{k}" {draw(st.integers(1, 70))}{index}')
    if draw(st.booleans()):
        lines.append('field "Rest" *')
    return "\n".join(lines) + "\n"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(bitfields(), st.sampled_from([24, 64, 96, 200]))
def test_a_bitfield_is_refused_on_the_same_line_drawn_or_not(source: str, bound: int) -> None:
    # with a small bound, random fields cross it at every kind of field line
    result = parse(source)
    if not result.ok:
        return
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(bitfield, "MAX_CELLS", bound)
        assert geometry(result) == render(result).diagnostics
