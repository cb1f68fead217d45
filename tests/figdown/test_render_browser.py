"""Our SVGs in a real browser: headless Chromium (the system package, driven by Playwright)
lays out every node label with the fonts it has, and each must fit inside its shape
(:mod:`.chromium` says how that is measured).

The figures: every conformance document that draws, and every upstream example figure
(``FIGDOWN_UPSTREAM`` = a FigDown checkout).  Without Playwright or a Chromium the
tests are skipped, visibly, with the reason; ``bench/figdown_browser.py`` reports the
same counts for upstream's own SVGs beside ours.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import shared_dir
from markmcp.figdown.render import build

from . import chromium

CLEAN = 'figdown 0.1 block\nnode api "Public API gateway"\nnode db "Orders DB" shape=cylinder\nedge api -> db\n'


@pytest.fixture(scope="module")
def probe() -> Iterator[chromium.Probe]:
    why = chromium.unavailable()
    if why is not None:
        pytest.skip(f"no real browser here: {why}")
    with chromium.probe() as page:
        yield page


def overflows(probe: chromium.Probe, documents: list[Path]) -> tuple[int, int, list[str]]:
    """(figures drawn, labels measured, "file: node 'label'" for each label that does not fit)."""
    figures = labels = 0
    found: list[str] = []
    for fd in documents:
        svg = build(fd.read_bytes().decode("utf-8")).svg
        if svg is None:
            continue
        figures += 1
        measured = probe.measure(svg)
        labels += measured["labels"]
        found += [f"{fd.name}: {o['node']} {o['text']!r} ({o['textWidth']} px in {o['shapeWidth']} px)"
                  for o in measured["overflows"]]
    return figures, labels, found


def test_the_measure_sees_a_label_that_does_not_fit(probe: chromium.Probe) -> None:
    svg = build(CLEAN).svg
    assert svg is not None
    fits = probe.measure(svg)
    assert fits["labels"] == 2 and fits["overflows"] == [] and fits["slack"] > 0
    # the same figure with the gateway's box narrowed to 40 px (its left edge kept): its
    # label, still centred where it was, now spills out on the right
    width = re.search(r'<g data-node="api"[^>]*><rect [^>]*?width="([0-9.]+)"', svg)
    assert width is not None
    squeezed = svg.replace(f'width="{width.group(1)}"', 'width="40"', 1)
    spilled = probe.measure(squeezed)
    assert [o["node"] for o in spilled["overflows"]] == ["api"]
    assert spilled["overflows"][0]["corners"] == 2


def test_every_conformance_figure_keeps_its_labels_inside_their_shapes(probe: chromium.Probe) -> None:
    documents = [fd for corpus in ("cases", "experimental")
                 for fd in sorted(shared_dir("figdown", "conformance", corpus).glob("*.fd"))]
    figures, labels, found = overflows(probe, documents)
    assert figures > 100 and labels > 200  # the corpus draws; the counts keep the loop honest
    assert found == []


def test_every_upstream_example_keeps_its_labels_inside_their_shapes(probe: chromium.Probe) -> None:
    value = os.environ.get("FIGDOWN_UPSTREAM", "")
    root = Path(value)
    if not value or not (root / "examples").is_dir():
        pytest.skip("set FIGDOWN_UPSTREAM to an upstream FigDown checkout to measure its example figures")
    documents = sorted((root / "examples").rglob("*.fd"))
    figures, labels, found = overflows(probe, documents)
    assert figures == len(documents) >= 59 and labels > 200
    assert found == []


def note_troubles(probe: chromium.Probe, documents: list[Path]) -> tuple[int, list[str]]:
    """(note lines measured, "file: note: text (kind, px)" for each that runs together or spills)."""
    lines = 0
    found: list[str] = []
    for fd in documents:
        svg = build(fd.read_bytes().decode("utf-8")).svg
        if svg is None or "fd-note" not in svg:
            continue
        measured = probe.notes(svg)
        lines += measured["lines"]
        found += [f"{fd.name}: {o['note']}: {o['text']!r} ({o['kind']} {o['px']} px)" for o in measured["found"]]
    return lines, found


def test_the_note_measure_sees_words_run_together(probe: chromium.Probe) -> None:
    svg = build('figdown 0.3 block\nnode wan "WAN" note="a node outside every group"\n').svg
    assert probe.notes(svg)["found"] == []
    # the note's own words drawn 12 px further left: they run into its bold "WAN:"
    runs = re.findall(r'<tspan x="([0-9.]+)"', svg)
    assert len(runs) == 2
    glued = svg.replace(f'<tspan x="{runs[1]}"', f'<tspan x="{float(runs[1]) - 12:g}"', 1)
    assert [o["kind"] for o in probe.notes(glued)["found"]] == ["runs into"]


def test_every_conformance_note_keeps_its_words_apart_and_inside(probe: chromium.Probe) -> None:
    """A note on a node or group opens with the target's name in bold; the table of
    character widths says "WAN:" is 22 px wide, the browser sets it in 27, and the note's
    own words were drawn into it."""
    documents = [fd for corpus in ("cases", "experimental")
                 for fd in sorted(shared_dir("figdown", "conformance", corpus).glob("*.fd"))]
    lines, found = note_troubles(probe, documents)
    assert lines > 20
    assert found == []


def test_bold_names_of_every_shape_keep_clear_of_the_note_words(probe: chromium.Probe) -> None:
    """Capitals, brackets, wide and narrow letters: each node's bold name ahead of its note
    leaves a space before the note's words, as the browser sets them."""
    names = ["WAN", "CDN edge", "web pods (Deployment)", "MMWW", "Forwarded", "ill-fitting iii", "QoS@edge #2"]
    source = "figdown 0.3 block\nflow down\n" + "".join(
        f'node n{i} "{name}" note="words after the name"\n' for i, name in enumerate(names))
    measured = probe.notes(build(source).svg)
    assert measured["lines"] >= len(names)
    assert measured["found"] == []


FIELD_NAMES_INSIDE = r"""
() => {
  const cells = [...document.querySelectorAll('rect')].map(r => r.getBoundingClientRect())
                .filter(b => b.width > 4 && b.height > 20);
  const out = [];
  for (const t of document.querySelectorAll('text')) {
    const size = parseFloat(t.getAttribute('font-size'));
    if (!(size >= 7 && size <= 11) || /^[0-9]*$/.test(t.textContent.trim())) continue;   // names, not the ruler or title
    if (t.getAttribute('text-anchor') !== 'middle') continue;   // (nor the lines under the bitfield)
    const b = t.getBoundingClientRect();
    const inside = cells.some(c => b.left >= c.left - 0.5 && b.right <= c.right + 0.5
                                   && b.top >= c.top - 0.5 && b.bottom <= c.bottom + 0.5);
    if (!inside) out.push(t.textContent);
  }
  return out;
}
"""


def test_bitfield_field_names_stay_inside_their_cells(probe: chromium.Probe) -> None:
    """A register map of one-bit flags: names too wide across their cell stand upright,
    or end in "…" (the whole name in a <title>); none runs into its neighbours."""
    source = ("figdown 0.1 bitfield\nbitfield cr1 \"USART_CR1\" word=32 numbering=lsb0\n"
              "field \"Res.\" 3\nfield \"M1\" 1\nfield \"EOBIE\" 1\nfield \"RTOIE\" 1\nfield \"DEAT[4:0]\" 5\n"
              "field \"DEDT[4:0]\" 5\nfield \"OVER8\" 1\nfield \"CMIE\" 1\nfield \"MME\" 1\nfield \"M0\" 1\n"
              "field \"WAKE\" 1\nfield \"PCE\" 1\nfield \"PS\" 1\nfield \"PEIE\" 1\nfield \"TXEIE\" 1\n"
              "field \"TCIE\" 1\nfield \"RXNEIE\" 1\nfield \"IDLEIE\" 1\nfield \"TE\" 1\nfield \"RE\" 1\n"
              "field \"UESM\" 1\nfield \"UE\" 1\n"
              "bitfield st \"Status\" word=8 numbering=lsb0\nfield \"Transmit buffer empty\" 1\n"
              "field \"Receive buffer not empty\" 1\nfield \"Overrun error\" 1\nfield \"Busy\" 1\nfield \"Mode\" 4\n")
    svg = build(source).svg
    assert probe.run(svg, FIELD_NAMES_INSIDE) == []
    assert "<title>Transmit buffer empty</title>" in svg
    assert "= Transmit buffer empty;" in svg   # and written whole under the bitfield
    assert svg.count('text-anchor="middle"') >= 25   # the names the probe measured


TEXTS_APART = r"""
() => {
  const seen = new Map();
  for (const t of document.querySelectorAll('svg text')) {
    const b = t.getBoundingClientRect();
    if (!b.width) continue;
    const key = [Math.round(b.left), Math.round(b.top), t.textContent].join('|');   // a halo's twin
    seen.set(key, {b, text: t.textContent});
  }
  const all = [...seen.values()], out = [];
  for (let i = 0; i < all.length; i++)
    for (let j = i + 1; j < all.length; j++) {
      const a = all[i].b, c = all[j].b;
      if (a.left < c.right - 1 && c.left < a.right - 1 && a.top < c.bottom - 1 && c.top < a.bottom - 1)
        out.push(all[i].text + ' / ' + all[j].text);
    }
  return out;
}
"""


def test_multi_line_names_and_labels_in_a_sequence_keep_apart(probe: chromium.Probe) -> None:
    """A three-line lifeline name, two-line message labels, a two-line state, and a fragment's
    and an operand's two-line labels: each ran into the next text (the heads and pills did
    not grow, the labels stacked upwards into the row above, and guards stacked)."""
    source = ('figdown 0.4 sequence\nlifeline a "Edge proxy\\n(Envoy 1.29)\\nzone a"\nlifeline b "Auth"\n'
              'message a -> b "CheckRequest\\nheaders: 14"\nstate b "CACHE\\nWARM"\n'
              'fragment f "retry policy:\\n3 attempts" type=loop\noperand o "while 5xx\\nand budget left" in=f\n'
              'message a -> b "SELECT …\\nFOR UPDATE" in=o\n')
    svg = build(source).svg
    assert probe.run(svg, TEXTS_APART) == []
