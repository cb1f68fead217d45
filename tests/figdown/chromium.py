"""Measure FigDown SVGs in a real browser: does every node label fit inside its shape,
and does every note's text stay apart and inside its note?

Our renderer sizes a box from a character-width table (no font is measured, so output
is the same on every machine); this asks the browser, with the fonts it really has,
whether the text it lays out stays inside the shape drawn round it.  A node is a
``<g data-node="id">`` holding its shape(s) and its ``<text>`` label(s), in our SVGs and
in upstream's alike.  A label fits when all four corners of the text's bounding box
(the browser's own measurement: advance widths and the font's ascent and descent) lie
inside the fill area of one of the node's shapes (``isPointInFill``, so the corners of
rounded boxes, diamonds and ellipses count as outside).

Used by ``tests/figdown/test_render_browser.py`` and ``bench/figdown_browser.py``.
Needs Playwright (PyPI ``playwright``) and a system Chromium (Debian: ``apt-get install
chromium``); Playwright's own browser download is never used.  :func:`unavailable`
says why a browser cannot be had, so callers can skip visibly.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
ENV = "MARKMCP_CHROMIUM"
"""An explicit browser executable (otherwise the first of :data:`CANDIDATES` on ``PATH``)."""

#: One entry per label that does not fit: the node, the label text, the text's width and
#: the width of the node's first shape, and which corners fell outside.
MEASURE = r"""
() => {
  const found = [];
  let labels = 0;
  let slack = Infinity;
  const geometry = el => el instanceof SVGGeometryElement && !(el instanceof SVGTextContentElement)
                         && el.tagName !== 'line';
  for (const node of document.querySelectorAll('g[data-node]')) {
    const shapes = [...node.children].filter(geometry);
    const texts = [...node.children].filter(el => el.tagName === 'text');
    if (!shapes.length) continue;
    for (const text of texts) {
      const box = text.getBBox();
      if (box.width === 0) continue;
      labels += 1;
      const corners = [[box.x, box.y], [box.x + box.width, box.y],
                       [box.x, box.y + box.height], [box.x + box.width, box.y + box.height]];
      const outside = corners.filter(([x, y]) => {
        const onScreen = new DOMPoint(x, y).matrixTransform(text.getCTM());
        return !shapes.some(s => s.isPointInFill(onScreen.matrixTransform(s.getCTM().inverse())));
      });
      const frame = shapes[0].getBBox();
      slack = Math.min(slack, box.x - frame.x, frame.x + frame.width - box.x - box.width);
      if (outside.length) {
        found.push({node: node.getAttribute('data-node'), text: text.textContent,
                    textWidth: Math.round(box.width * 10) / 10, shapeWidth: Math.round(frame.width * 10) / 10,
                    corners: outside.length});
      }
    }
  }
  return {labels, overflows: found, slack: labels ? Math.round(slack * 10) / 10 : null};
}
"""

#: One entry per note line whose bold opening (the target's name) runs into the words
#: after it (less than a pixel and a half between them), or that runs past its note's
#: right edge: the note (``data-note-for``), the text, and the gap or the overrun in px.
MEASURE_NOTES = r"""
() => {
  const found = [];
  let lines = 0;
  for (const note of document.querySelectorAll('g.fd-note')) {
    const frame = note.querySelector('path').getBBox();
    const who = note.getAttribute('data-note-for');
    for (const text of note.querySelectorAll('text')) {
      lines += 1;
      const spans = [...text.querySelectorAll('tspan')];
      for (let i = 0; i + 1 < spans.length; i++) {
        const a = spans[i].getBBox(), b = spans[i + 1].getBBox();
        const gap = b.x - a.x - a.width;
        if (gap < 1.5) found.push({note: who, text: spans[i].textContent + spans[i + 1].textContent,
                                   kind: 'runs into', px: Math.round(gap * 10) / 10});
      }
      const box = text.getBBox();
      const over = box.x + box.width - (frame.x + frame.width);
      if (over > 0) found.push({note: who, text: text.textContent, kind: 'spills', px: Math.round(over * 10) / 10});
    }
  }
  return {lines, found};
}
"""


def executable() -> str | None:
    """The system browser to drive, or None."""
    named = os.environ.get(ENV)
    if named:
        return named if os.access(named, os.X_OK) else None
    for name in CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    return None


def unavailable() -> str | None:
    """Why no browser can be driven here (None when one can)."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright is not installed (pip install playwright)"
    if executable() is None:
        return f"no Chromium found (apt-get install chromium, or set {ENV})"
    return None


class Probe:
    """One headless page; :meth:`measure` loads an SVG and runs :data:`MEASURE` on it."""

    def __init__(self, page: Any) -> None:
        self.page = page

    def run(self, svg: str, script: str) -> Any:
        """Load an SVG alone in the page and evaluate ``script`` (a JavaScript function) there."""
        self.page.set_content("<!doctype html><html><body style=\"margin:0\">" + svg + "</body></html>")
        return self.page.evaluate(script)

    def measure(self, svg: str) -> dict[str, Any]:
        return self.run(svg, MEASURE)

    def notes(self, svg: str) -> dict[str, Any]:
        """Load an SVG and run :data:`MEASURE_NOTES` on it."""
        return self.run(svg, MEASURE_NOTES)

    def font(self) -> str:
        """The family the browser actually uses for the SVGs' ``system-ui,sans-serif``."""
        self.page.set_content("<!doctype html><html><body><svg xmlns=\"http://www.w3.org/2000/svg\" "
                              "font-family=\"system-ui,sans-serif\"><text id=\"t\" font-size=\"13\">Mg</text>"
                              "</svg></body></html>")
        session = self.page.context.new_cdp_session(self.page)
        try:
            session.send("DOM.enable")
            session.send("CSS.enable")
            root = session.send("DOM.getDocument")["root"]["nodeId"]
            node = session.send("DOM.querySelector", {"nodeId": root, "selector": "#t"})["nodeId"]
            fonts = session.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
            return ", ".join(f["familyName"] for f in fonts) or "unknown"
        finally:
            session.detach()


@contextmanager
def probe() -> Iterator[Probe]:
    """A headless Chromium page (the system browser, never a downloaded one)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable(), headless=True,
                                             args=["--no-sandbox", "--disable-gpu"])
        try:
            yield Probe(browser.new_page())
        finally:
            browser.close()
