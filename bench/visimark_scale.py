"""Benchmark: VisiMark at scale, timed as a user runs it.

Each figure is the whole command (``python -m markmcp.visimark.cli …``: process start,
read, work, result on disk), the median of several runs in wall-clock seconds, with the
work alone beside it (the same call made in this process, CPU seconds, best of three),
labelled as such.  (The work alone is the best of five, which steadies the small sizes.)

* ``fmt`` on a table with three rule columns and a stale cell every 17th row (~5,900
  stale cells at 100,000 rows): 10,000 and 100,000 rows.  Targets: linear (the
  100k/10k ratio of the work within 12×) and the 100k command under 2 s.
* ``check`` on a paragraph with 2,000 and 20,000 anchors: linear (ratio within 12×).
* ``check`` on 100,000 rows: under 3 s, with the child's peak resident memory.
* The five example charts: rendered from the worked example, all five in under 50 ms
  (work alone); and ``fmt`` writing all five, as a command.

On a shared machine the wall figures mostly measure the neighbours; the CPU figures of
the work are the steadier ones.  Exit status 1 when a target is missed.
Run: .venv/bin/python bench/visimark_scale.py
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from decimal import Decimal
from pathlib import Path

from markmcp.visimark import charts as charts_pass
from markmcp.visimark.check import check
from markmcp.visimark.model import build
from markmcp.visimark.port import MemoryFiles
from markmcp.visimark.write import fmt

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("MARKMCP_SHARED", ROOT.parent / "shared"))


def table_document(rows: int, stale_every: int = 17) -> str:
    lines = ["| Item | Qty | Price | Net | Tax | Gross |", "|------|----:|------:|----:|----:|------:|"]
    for i in range(rows):
        qty, price = i % 13 + 1, Decimal(i % 97) + Decimal("0.50")
        net = qty * price
        tax = (net * Decimal("0.08")).quantize(Decimal("0.01"))
        gross = net + tax
        if i % stale_every == 0:
            net += 1
        lines.append(f"| r{i} | {qty} | {price} | {net} | {tax} | {gross} |")
    block = ["```vmark #t", "Net = Qty * Price", "Tax precision 2 = Net * 8%", "Gross = Net + Tax",
             "total = SUM(Gross)", "```", "", "Total **0**<!--vmark=t.total-->."]
    return "\n".join(lines + [""] + block) + "\n"


def anchors_document(n: int) -> str:
    prose = " ".join(f"**{i % 7}**<!--vmark=s.v-->" for i in range(n))
    return "```vmark #s\nv = 2 + 3\n```\n\n" + prose + "\n"


def command(*args: str) -> tuple[float, int]:
    """Wall seconds of one CLI run and the child's peak resident memory (KiB)."""
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "markmcp.visimark.cli", *args],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(proc.pid, 0)
    return time.perf_counter() - start, usage.ru_maxrss


def median_command(runs: int, prepare, *args: str) -> tuple[float, int]:
    walls, peak = [], 0
    for _ in range(runs):
        prepare()
        wall, rss = command(*args)
        walls.append(wall)
        peak = max(peak, rss)
    return statistics.median(walls), peak


def work(fn) -> float:
    """Best CPU seconds of five in-process runs of ``fn``."""
    best = float("inf")
    for _ in range(5):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best


def main() -> int:
    ok = True
    folder = Path(tempfile.mkdtemp(prefix="visimark-bench-"))
    try:
        # --- fmt, 10k and 100k rows
        cpu: dict[int, float] = {}
        wall: dict[int, float] = {}
        for rows in (10_000, 100_000):
            src = table_document(rows)
            path = folder / f"fmt{rows}.md"
            wall[rows], _ = median_command(5 if rows == 10_000 else 3, lambda: path.write_text(src), "fmt", str(path))
            cpu[rows] = work(lambda: fmt(src))
            stale = sum(1 for f in check(build(src)).findings if f.code == "STALE" and f.is_cell)
            print(f"fmt {rows:>7} rows ({stale} stale cells): command {wall[rows]:.2f} s wall (median); "
                  f"work alone {cpu[rows]:.2f} s CPU")
        ratio = cpu[100_000] / cpu[10_000]
        print(f"fmt 100k/10k work ratio {ratio:.1f} (target <= 12); 100k command under 2 s: {wall[100_000] < 2.0}")
        ok &= ratio <= 12 and wall[100_000] < 2.0

        # --- check, 100k rows, with peak memory
        src = table_document(100_000, stale_every=10**9)
        path = folder / "check100k.md"
        path.write_text(src)
        seconds, rss = median_command(3, lambda: None, "check", str(path))
        inner = work(lambda: check(build(src)))
        print(f"check  100000 rows: command {seconds:.2f} s wall (median), peak RSS {rss / 1024:.0f} MiB; "
              f"work alone {inner:.2f} s CPU; under 3 s: {seconds < 3.0}")
        ok &= seconds < 3.0

        # --- anchors in one paragraph
        anchor_cpu = {}
        for n in (2_000, 20_000):
            src = anchors_document(n)
            path = folder / f"anchors{n}.md"
            path.write_text(src)
            seconds, _ = median_command(3, lambda: None, "check", str(path))
            anchor_cpu[n] = work(lambda: check(build(src)))
            print(f"check {n:>6} anchors in one paragraph: command {seconds:.2f} s wall (median); "
                  f"work alone {anchor_cpu[n]:.3f} s CPU")
        aratio = anchor_cpu[20_000] / anchor_cpu[2_000]
        print(f"anchors 20k/2k work ratio {aratio:.1f} (target <= 12)")
        ok &= aratio <= 12

        # --- the five example charts
        docs = SHARED / "visimark" / "docs"
        if (docs / "example-charts.md").exists():
            example = (docs / "example-charts.md").read_text(encoding="utf-8")
            from markmcp.visimark import chartsvg

            draw = work(lambda: fmt(example, files=MemoryFiles()))
            # the rendering alone: the engines called on the resolved data of each chart
            data = _chart_inputs(example)
            render_only = min(_timed(lambda: [chartsvg.render(e, d) for e, d in data]) for _ in range(20))
            copy = folder / "charts-doc"
            copy.mkdir()
            shutil.copyfile(docs / "example-charts.md", copy / "example-charts.md")
            seconds, _ = median_command(3, lambda: shutil.rmtree(copy / "charts", ignore_errors=True), "fmt",
                                        str(copy / "example-charts.md"))
            written = len(list((copy / "charts").iterdir()))
            print(f"charts: render the five example charts {render_only * 1000:.1f} ms (work alone, best of 20; "
                  f"target < 50 ms); check+fmt of the document {draw * 1000:.1f} ms CPU; "
                  f"fmt command writing {written} SVGs {seconds:.2f} s wall (median)")
            ok &= render_only < 0.050
        else:
            print(f"charts: skipped, no corpus at {docs}")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return 0 if ok else 1


def _timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def _chart_inputs(example: str) -> list:
    """(engine, ChartData) of each example chart, as check resolves them."""
    from markmcp.visimark import chartsvg

    captured: list = []
    original = chartsvg.render

    def spy(engine, data):
        captured.append((engine, data))
        return original(engine, data)

    charts_pass.chartsvg.render = spy  # the artifact pass calls the renderer through its module
    try:
        check(build(example))
    finally:
        charts_pass.chartsvg.render = original
    return captured


if __name__ == "__main__":
    sys.exit(main())
