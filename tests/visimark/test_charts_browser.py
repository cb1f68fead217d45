"""The example charts in a real browser: each SVG renders, and every text label lies
inside the canvas (its bounding box within the viewBox), as a reader would see it.

Needs Playwright and a Chromium on the machine (``CHROMIUM`` or the system
``chromium``); without them the test is skipped, visibly, with the reason.
"""

from __future__ import annotations

import os
import shutil
from decimal import Decimal

import pytest

from markmcp.visimark.chartsvg import ChartData, Series, render
from markmcp.visimark.port import MemoryFiles
from markmcp.visimark.write import fmt
from test_charts import example

MEASURE = """() => {
  const svg = document.querySelector('svg');
  const box = svg.viewBox.baseVal;
  return {width: box.width, height: box.height,
          texts: [...svg.querySelectorAll('text')].map(t => {
            const b = t.getBBox();
            return {text: t.textContent, x: b.x, y: b.y, w: b.width, h: b.height};
          })};
}"""


def chromium() -> str:
    path = os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not path:
        pytest.skip("no Chromium on this machine (install the `chromium` package to run this test)")
    return path


@pytest.fixture(scope="module")
def page():
    sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed (pip install playwright)")
    executable = chromium()
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        try:
            yield browser.new_page()
        finally:
            browser.close()


def measure(page, svg: str) -> dict:
    page.set_content(f"<!doctype html><html><body style='margin:0'>{svg}</body></html>")
    return page.evaluate(MEASURE)


def example_svgs() -> dict[str, str]:
    src, _ = example()
    files = MemoryFiles()
    fmt(src, files=files)
    return {path: data.decode("utf-8") for path, data in files.files.items()}


def test_every_label_of_the_example_charts_lies_inside_the_canvas(page) -> None:
    svgs = example_svgs()
    assert len(svgs) == 5
    for path, svg in svgs.items():
        seen = measure(page, svg)
        assert seen["texts"], path
        for t in seen["texts"]:
            assert t["w"] > 0 and t["h"] > 0, (path, t)
            inside = (t["x"] >= -0.5 and t["y"] >= -0.5 and t["x"] + t["w"] <= seen["width"] + 0.5
                      and t["y"] + t["h"] <= seen["height"] + 0.5)
            assert inside, (path, t, seen["width"], seen["height"])


def test_a_hostile_label_renders_as_text(page) -> None:
    label = '<img src=x onerror="window.hit=1">'
    svg = render("bar", ChartData("s", "c", (Series("S", (Decimal(1),), 0),), (label,)))
    seen = measure(page, svg)
    assert label in [t["text"] for t in seen["texts"]]
    assert page.evaluate("() => window.hit === undefined && document.querySelectorAll('img').length === 0")
