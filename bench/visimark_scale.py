"""Benchmark: VisiMark at scale, timed as a user runs it.

Usage::

    python bench/visimark_scale.py             # every target, 5 runs each (a few minutes)
    python bench/visimark_scale.py --runs 9

Every target is first timed as a whole command (``python -m markmcp.visimark.cli …``, from
process start to its result on disk, start-up and imports included): the median wall
seconds of ``--runs`` runs (at least 5), the median CPU seconds (user + system) of the
child, and its largest peak resident memory, all from ``wait4``.  One warm-up run before
each target is not counted; it also writes the bytecode caches an installed package has
(the children run without PYTHONDONTWRITEBYTECODE).  Beside it, labelled "work alone",
the same call made in this process (best CPU seconds of five), which shows the engine
without start-up and without the neighbours' noise.

Targets (issue 12):

* ``fmt`` on a table with three rule columns and a stale cell every 17th row (~5,900
  stale cells at 100,000 rows), 10,000 and 100,000 rows: the 100,000-row command under
  2 s wall, and within 12x of the 10,000-row command (wall and CPU ratios printed).  The
  work-alone ratio is printed too; it runs above the command's (no fixed start-up to
  share) and above 10x even for the passes that are single C calls (splitting, joining),
  since ten times the data no longer fits the caches and takes fresh memory pages.
* ``check`` on 10,000 and 100,000 clean rows: the 100,000-row command under 3 s wall,
  peak memory reported.
* ``check`` on 2,000 and 20,000 anchors in one paragraph: linear (20k/2k within 12x).
* The five example charts (``example-charts.md`` in the shared corpus): rendered all
  five in under 50 ms (work alone: the renderer called on each chart's resolved data),
  and ``fmt`` writing all five SVGs as a command.

The machine may be shared: wall figures then measure the neighbours too, and the CPU
figures are the steadier ones.  Exit status 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
SHARED = Path(os.environ.get("MARKMCP_SHARED", ROOT.parent / "shared"))

from markmcp.visimark.check import check  # noqa: E402
from markmcp.visimark.model import build  # noqa: E402
from markmcp.visimark.port import MemoryFiles  # noqa: E402
from markmcp.visimark.write import fmt  # noqa: E402

CLI = [sys.executable, "-m", "markmcp.visimark.cli"]


def table_document(rows: int, stale_every: int = 17) -> str:
    """A table of ``rows`` rows with three rule columns and a SUM anchored in prose; every
    ``stale_every``-th row's Net cell is off by one."""
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
    """One paragraph of ``n`` anchors bound to one scalar."""
    prose = " ".join(f"**{i % 7}**<!--vmark=s.v-->" for i in range(n))
    return "```vmark #s\nv = 2 + 3\n```\n\n" + prose + "\n"


@dataclass
class Command:
    wall: float  # median seconds, process start to exit
    cpu: float  # median user + system seconds of the child
    peak_mib: float  # largest peak resident set size
    runs: int


def child_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed package has its bytecode cached
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT / "src"), env.get("PYTHONPATH")) if p)
    return env


# Each command is started by a small launcher process, itself started before this script
# builds its large documents: a child's peak memory counts the memory of the process that
# forked it (Linux carries the pre-exec high-water mark over), so a child forked from
# this script would report this script's size, not its own.
LAUNCHER = """
import json, os, subprocess, sys, time
for line in sys.stdin:
    args, env = json.loads(line)
    start = time.perf_counter()
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    print(json.dumps([wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, os.waitstatus_to_exitcode(status)]),
          flush=True)
"""
_launcher: subprocess.Popen[str] | None = None


def run_once(args: list[str], env: dict[str, str]) -> tuple[float, float, int, int]:
    """Wall seconds, CPU seconds, peak RSS (KiB) and exit status of one CLI run."""
    global _launcher
    if _launcher is None:
        _launcher = subprocess.Popen([sys.executable, "-c", LAUNCHER], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)
    assert _launcher.stdin is not None and _launcher.stdout is not None
    _launcher.stdin.write(json.dumps([CLI + args, env]) + "\n")
    _launcher.stdin.flush()
    wall, cpu, rss, code = json.loads(_launcher.stdout.readline())
    return wall, cpu, rss, code


def command(runs: int, prepare: Callable[[], None], *args: str) -> Command:
    """The whole command, ``runs`` times after one warm-up; ``prepare`` runs before each
    (untimed), to put the input back as it was."""
    env = child_env()
    prepare()
    run_once(list(args), env)  # warm-up: not counted
    walls, cpus, peak = [], [], 0
    for _ in range(runs):
        prepare()
        wall, cpu, rss, code = run_once(list(args), env)
        if code not in (0, 1):
            raise SystemExit(f"visimark {' '.join(args)} exited {code}")
        walls.append(wall)
        cpus.append(cpu)
        peak = max(peak, rss)
    return Command(statistics.median(walls), statistics.median(cpus), peak / 1024, runs)


def work(fn: Callable[[], object]) -> float:
    """Work alone: the best CPU seconds of five in-process runs of ``fn``."""
    best = float("inf")
    for _ in range(5):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best


def row(label: str, c: Command, inner: float | None = None) -> None:
    extra = f"; work alone {inner * 1000:.0f} ms CPU" if inner is not None else ""
    print(f"  {label:<34} command {c.wall:6.2f} s wall, {c.cpu:5.2f} s CPU, peak {c.peak_mib:4.0f} MiB "
          f"(median of {c.runs}){extra}", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5, help="timed runs per target (at least 5)")
    runs = max(5, ap.parse_args().runs)
    floor = run_once(["--version"], child_env())[2] / 1024  # starts the launcher while this process is small
    print(f"(peak memory of a bare `visimark --version`: {floor:.0f} MiB)")
    ok = True
    folder = Path(tempfile.mkdtemp(prefix="visimark-bench-"))
    try:
        # --- fmt, 10k and 100k rows
        print("fmt (three rule columns, a stale Net cell every 17th row):")
        fmt_cmd: dict[int, Command] = {}
        fmt_work: dict[int, float] = {}
        for rows in (10_000, 100_000):
            src = table_document(rows)
            path = folder / f"fmt{rows}.md"
            stale = sum(1 for f in check(build(src)).findings if f.code == "STALE" and f.is_cell)
            fmt_cmd[rows] = command(runs, lambda: path.write_text(src, encoding="utf-8"), "fmt", str(path))
            fmt_work[rows] = work(lambda: fmt(src))
            row(f"{rows:>7,} rows ({stale:,} stale cells)", fmt_cmd[rows], fmt_work[rows])
        big, small = fmt_cmd[100_000], fmt_cmd[10_000]
        ratio_wall, ratio_cpu = big.wall / small.wall, big.cpu / small.cpu
        ratio_work = fmt_work[100_000] / fmt_work[10_000]
        print(f"  100k/10k: command {ratio_wall:.1f}x wall, {ratio_cpu:.1f}x CPU (target <= 12x); "
              f"work alone {ratio_work:.1f}x; 100k command under 2 s wall: {big.wall < 2.0}")
        ok &= big.wall < 2.0 and ratio_wall <= 12 and ratio_cpu <= 12

        # --- check, 10k and 100k clean rows, with peak memory
        print("check (the same table, no stale cell):")
        for rows in (10_000, 100_000):
            src = table_document(rows, stale_every=10**9)
            path = folder / f"check{rows}.md"
            path.write_text(src, encoding="utf-8")
            c = command(runs, lambda: None, "check", str(path))
            row(f"{rows:>7,} rows", c, work(lambda: check(build(src))))
            if rows == 100_000:
                print(f"  100k command under 3 s wall: {c.wall < 3.0}")
                ok &= c.wall < 3.0

        # --- anchors in one paragraph
        print("check (anchors in one paragraph):")
        anchor_cmd: dict[int, Command] = {}
        anchor_work: dict[int, float] = {}
        for n in (2_000, 20_000):
            src = anchors_document(n)
            path = folder / f"anchors{n}.md"
            path.write_text(src, encoding="utf-8")
            anchor_cmd[n] = command(runs, lambda: None, "check", str(path))
            anchor_work[n] = work(lambda: check(build(src)))
            row(f"{n:>7,} anchors", anchor_cmd[n], anchor_work[n])
        a_wall = anchor_cmd[20_000].wall / anchor_cmd[2_000].wall
        a_work = anchor_work[20_000] / anchor_work[2_000]
        print(f"  20k/2k: command {a_wall:.1f}x wall; work alone {a_work:.1f}x (target <= 12x)")
        ok &= a_work <= 12

        # --- the five example charts
        docs = SHARED / "visimark" / "docs"
        print("charts (the five example charts):")
        if (docs / "example-charts.md").exists():
            example = (docs / "example-charts.md").read_text(encoding="utf-8")
            data = _chart_inputs(example)
            from markmcp.visimark import chartsvg

            render = min(_cpu(lambda: [chartsvg.render(e, d) for e, d in data]) for _ in range(20))
            whole = work(lambda: fmt(example, files=MemoryFiles()))
            copy = folder / "charts-doc"
            copy.mkdir()
            shutil.copyfile(docs / "example-charts.md", copy / "example-charts.md")
            c = command(runs, lambda: shutil.rmtree(copy / "charts", ignore_errors=True), "fmt",
                        str(copy / "example-charts.md"))
            written = len(list((copy / "charts").iterdir()))
            print(f"  render all {len(data)} (work alone, best of 20)   {render * 1000:.1f} ms CPU (target < 50 ms); "
                  f"check + fmt of the document in process {whole * 1000:.0f} ms CPU")
            row(f"fmt writing {written} SVGs", c)
            ok &= render < 0.050 and len(data) == 5
        else:
            print(f"  skipped: no corpus at {docs}")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        if _launcher is not None and _launcher.stdin is not None:
            _launcher.stdin.close()
            _launcher.wait()
    print("all targets met" if ok else "a target was missed")
    return 0 if ok else 1


def _cpu(fn: Callable[[], object]) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def _chart_inputs(example: str) -> list:
    """(engine, ChartData) of each example chart, as check resolves them."""
    from markmcp.visimark import chartsvg

    captured: list = []
    original = chartsvg.render

    def spy(engine, data):
        captured.append((engine, data))
        return original(engine, data)

    chartsvg.render = spy  # the artifact pass looks the renderer up on its module at each call
    try:
        check(build(example))
    finally:
        chartsvg.render = original
    return captured


if __name__ == "__main__":
    sys.exit(main())
