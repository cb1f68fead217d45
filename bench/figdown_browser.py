"""Benchmark: node labels measured in a real browser, ours beside upstream's SVGs.

Every upstream example figure (``FIGDOWN_UPSTREAM`` = a FigDown checkout) is built by
our renderer and loaded, with upstream's shipped ``.svg`` of the same figure, into
headless Chromium (the system package, driven by Playwright).  The browser lays out
each node label with the fonts this machine has; a label overflows when a corner of
its text box leaves its shape (``tests/figdown/chromium.py`` holds the measure).
Printed per side: figures, labels measured, labels that overflow (listed), and the
smallest horizontal room left between a label and its shape's edge.  The conformance
corpus (``$MARKMCP_SHARED`` or ``../shared``) is measured for ours too.

Skipped (exit 0, with the reason) without Playwright, a Chromium or the checkout.

Run: .venv/bin/python bench/figdown_browser.py
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "tests" / "figdown"))

import chromium  # noqa: E402

from markmcp.figdown.render import build  # noqa: E402

SHARED = Path(os.environ.get("MARKMCP_SHARED", ROOT.parent / "shared"))


def measure_all(probe: chromium.Probe, svgs: list[tuple[str, str]]) -> tuple[int, list[str], float | None, float]:
    labels, found, slack = 0, [], None
    start = time.perf_counter()
    for name, svg in svgs:
        measured = probe.measure(svg)
        labels += measured["labels"]
        if measured["slack"] is not None:
            slack = measured["slack"] if slack is None else min(slack, measured["slack"])
        found += [f"{name}: {o['node']} {o['text']!r} ({o['textWidth']} px in {o['shapeWidth']} px)"
                  for o in measured["overflows"]]
    return labels, found, slack, time.perf_counter() - start


def report(side: str, svgs: list[tuple[str, str]], probe: chromium.Probe) -> None:
    labels, found, slack, seconds = measure_all(probe, svgs)
    room = "n/a" if slack is None else f"{slack:.1f} px"
    print(f"  {side:<28} {len(svgs):>4} figures  {labels:>5} labels  {len(found):>3} overflow  "
          f"tightest {room:>8}  ({seconds:.1f} s)")
    for line in found:
        print(f"      {line}")


def main() -> int:
    why = chromium.unavailable()
    if why is not None:
        print(f"figdown_browser: skipped — {why}")
        return 0
    upstream = os.environ.get("FIGDOWN_UPSTREAM", "")
    examples = Path(upstream) / "examples"
    with chromium.probe() as probe:
        print(f"browser: {chromium.executable()}  font used for system-ui,sans-serif: {probe.font()}")
        print("node labels that leave their shape (browser text measurement):")
        if upstream and examples.is_dir():
            documents = sorted(examples.rglob("*.fd"))
            ours = [(fd.relative_to(examples).as_posix(), build(fd.read_text(encoding="utf-8")).svg)
                    for fd in documents]
            theirs = [(fd.relative_to(examples).as_posix(), fd.with_suffix(".svg").read_text(encoding="utf-8"))
                      for fd in documents if fd.with_suffix(".svg").is_file()]
            report("ours, upstream examples", [(n, s) for n, s in ours if s is not None], probe)
            report("upstream's shipped SVGs", theirs, probe)
        else:
            print("  upstream examples: FIGDOWN_UPSTREAM is not set to a FigDown checkout — skipped")
        base = SHARED / "figdown" / "conformance"
        if base.is_dir():
            corpus = [(fd.name, build(fd.read_text(encoding="utf-8")).svg)
                      for sub in ("cases", "experimental") for fd in sorted((base / sub).glob("*.fd"))]
            report("ours, conformance corpus", [(n, s) for n, s in corpus if s is not None], probe)
    return 0


if __name__ == "__main__":
    sys.exit(main())
