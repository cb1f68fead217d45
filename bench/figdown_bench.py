"""Benchmark: the FigDown engine (parse + canonical model) and the ``figdown`` CLI.

1. In process: documents per second for ``parse`` followed by ``model_json``
   (or the sorted error lines for a rejected case) over the whole conformance
   corpus (normative + experimental), best of ``--repeat`` passes.
2. One process: ``figdown check <cases> <experimental>`` run as a single
   ``python -m markmcp.figdown.cli`` process over both corpus directories,
   timed as a whole (start-up, walking, reading, parsing, printing) with
   ``time.perf_counter`` around ``subprocess.run``; the median of ``--runs``.
3. A generated 1 MB document (every genre, several sections): the time to
   parse it and build its model.
4. Scaling: generated documents of 0.25, 0.5, 1 and 2 MB, each timed best of
   ``--repeat``, both as wall time and as this process's CPU time
   (``time.process_time``).  The verdict uses CPU time: on a small shared
   machine wall time also counts the time other processes hold the cores
   (ratios from 1.7 to 4.7 were seen for the same code), CPU time does not.
   Printed: ms and ms/MB at each size, the least-squares slope (ms per MB)
   with its fixed cost, and each size's deviation from the fitted line.
   Linear cost means ms/MB is flat and the points sit on the line; the script
   exits 1 when the 2 MB ms/MB exceeds 1.5 times the 0.25 MB one, or a point
   is off the line by more than 25 %.

Run: .venv/bin/python bench/figdown_bench.py [--repeat 5] [--runs 5]
The corpus is read from $MARKMCP_SHARED or ../shared beside the checkout.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from markmcp.figdown import model_json, parse

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("MARKMCP_SHARED", ROOT.parent / "shared"))
CORPORA = ("cases", "experimental")
SIZES_MB = (0.25, 0.5, 1.0, 2.0)
MAX_GROWTH = 1.5      # ms/MB at the largest size over ms/MB at the smallest
MAX_DEVIATION = 0.25  # a point's distance from the fitted line, relative to its time


def corpus_dirs() -> list[Path]:
    base = SHARED / "figdown" / "conformance"
    return [base / sub for sub in CORPORA if (base / sub).is_dir()]


def corpus() -> list[str]:
    return [p.read_bytes().decode("utf-8") for folder in corpus_dirs() for p in sorted(folder.glob("*.fd"))]


def run_once(text: str) -> str:
    result = parse(text)
    if result.diagnostics:
        return "\n".join(result.error_lines()) + "\n"
    return model_json(result)


# --- generated documents -------------------------------------------------------------------


def _fill(out: list[str], size: int, more: Callable[[int], list[str]]) -> list[str]:
    total, i = sum(len(x) + 1 for x in out), 0
    while total < size:
        lines = more(i)
        out += lines
        total += sum(len(x) + 1 for x in lines)
        i += 1
    return out


def section_block(k: int, size: int) -> list[str]:
    out = ["figdown 0.5 block", f'title "Block section {k}"', 'class hot "Hot path" stroke=#dc2626',
           'group g "Group"']
    out = _fill(out, size, lambda i: [f'node n{i} "Node {i}" in=g fill=#dbeafe']
                + ([f"edge n{i - 1} -[link {i}]-> n{i} class=hot id=e{i}"] if i else []))
    return out + ['threshold "cap" in=g offset=80%', 'band "zone" 10..20% in=g', "layout", "pin n0 at=(0,0)"]


def section_bitfield(k: int, size: int) -> list[str]:
    out = ["figdown 0.1 bitfield", f'bitfield h{k} "Header" word=32 numbering=msb0']
    return _fill(out, size, lambda i: [f'field "F{i}" 8 description="field number {i}"',
                                       f"field a{i}:4,b{i}:4,c{i}:8"])


def section_table(k: int, size: int) -> list[str]:
    out = ["figdown 0.1 table", f'table t{k} "Table"', "| Key | A | B |", "|---|:-:|--:|"]
    out = _fill(out, size, lambda i: [f"| row {i} | {i} | {i * 2} |"])
    return out + ["width auto,90,25%", "cell (1,2) fill=#fee2e2", "cell 2 highlight"]


def section_sequence(k: int, size: int) -> list[str]:
    out = ["figdown 0.4 sequence", 'lifeline c "Client"', 'lifeline s "Server"']
    return _fill(out, size, lambda i: [f'fragment f{i} "round {i}" type=alt', f'operand o{i} "ok" in=f{i}',
                                       f'message c -> s "request {i}" in=o{i}',
                                       f'message c <- s "reply {i}" in=o{i}'])


def document(total: int) -> str:
    """A multi-section document of about ``total`` characters."""
    parts = [section_block, section_bitfield, section_table, section_sequence]
    share = total // (len(parts) * 2)
    lines: list[str] = []
    for k in range(2):
        for make in parts:
            lines += make(k, share)
    return "\n".join(lines) + "\n"


# --- timing ----------------------------------------------------------------------------------


def best_of(repeat: int, fn: Callable[[], object], clock: Callable[[], float] = time.perf_counter) -> float:
    """The shortest of ``repeat`` runs of ``fn`` on ``clock`` (the least disturbed run)."""
    best = float("inf")
    for _ in range(repeat):
        start = clock()
        fn()
        best = min(best, clock() - start)
    return best


def one_process(dirs: list[Path], runs: int) -> tuple[float, str]:
    """Median wall time of ``figdown check <dirs>`` as one process, and its tally line."""
    command = [sys.executable, "-m", "markmcp.figdown.cli", "check", *map(str, dirs)]
    times, tally = [], ""
    for _ in range(runs):
        start = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, encoding="utf-8")
        times.append(time.perf_counter() - start)
        if done.returncode not in (0, 1):
            raise SystemExit(f"figdown check failed (exit {done.returncode}): {done.stderr.strip()}")
        tally = done.stdout.rstrip("\n").rsplit("\n", 1)[-1]
    return statistics.median(times), tally


def least_squares(points: list[tuple[float, float]]) -> tuple[float, float]:
    """(slope, intercept) of the line through ``points`` with least squared error."""
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    sxx = sum((x - mx) ** 2 for x, _ in points)
    slope = sum((x - mx) * (y - my) for x, y in points) / sxx
    return slope, my - slope * mx


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5, help="passes per in-process measurement (best is kept)")
    ap.add_argument("--runs", type=int, default=5, help="runs of the one-process check (median is kept)")
    args = ap.parse_args()
    failed = False

    docs = corpus()
    if docs:
        seconds = best_of(args.repeat, lambda: [run_once(d) for d in docs])
        kb = sum(len(d.encode("utf-8")) for d in docs) / 1024
        print(f"corpus in process: {len(docs)} documents ({kb:.0f} KB) in {seconds * 1000:.1f} ms "
              f"-> {len(docs) / seconds:,.0f} documents/s, {kb / 1024 / seconds:.2f} MB/s")
        wall, tally = one_process(corpus_dirs(), args.runs)
        print(f"corpus as one `figdown check` process: {wall * 1000:.0f} ms (median of {args.runs}) "
              f"-> {len(docs) / wall:,.0f} documents/s  [{tally}]")
    else:
        print(f"corpus: not found under {SHARED} (set MARKMCP_SHARED); skipped")

    cpu: dict[float, float] = {}
    for mb in SIZES_MB:
        text = document(int(mb * 1024 * 1024))
        result = parse(text)
        if result.diagnostics:
            print(f"generated {mb} MB document has diagnostics: {result.error_lines()[:3]}")
            return 1
        wall = best_of(args.repeat, lambda t=text: model_json(parse(t)))
        cpu[mb] = best_of(args.repeat, lambda t=text: model_json(parse(t)), time.process_time)
        print(f"generated {mb:>4} MB ({len(text):,} chars, {text.count(chr(10)):,} lines): "
              f"wall {wall * 1000:7.1f} ms ({wall / mb * 1000:6.1f} ms/MB), "
              f"cpu {cpu[mb] * 1000:7.1f} ms ({cpu[mb] / mb * 1000:6.1f} ms/MB)")
        if mb == 1.0:
            one_mb = (wall, cpu[mb])
    print(f"1 MB document: parse + model in {one_mb[0] * 1000:.0f} ms wall, {one_mb[1] * 1000:.0f} ms cpu")

    slope, intercept = least_squares([(mb, t * 1000) for mb, t in cpu.items()])
    deviations = {mb: (cpu[mb] * 1000 - (slope * mb + intercept)) / (cpu[mb] * 1000) for mb in SIZES_MB}
    growth = (cpu[SIZES_MB[-1]] / SIZES_MB[-1]) / (cpu[SIZES_MB[0]] / SIZES_MB[0])
    print(f"scaling (cpu): least-squares slope {slope:.1f} ms/MB, fixed cost {intercept:+.1f} ms; "
          "off the line: " + ", ".join(f"{mb} MB {dev:+.1%}" for mb, dev in deviations.items()))
    print(f"scaling (cpu): ms/MB at {SIZES_MB[-1]} MB over ms/MB at {SIZES_MB[0]} MB = {growth:.2f} "
          f"(linear = 1.00, limit {MAX_GROWTH}); 1 MB / 0.25 MB = {cpu[1.0] / cpu[0.25]:.2f} (linear = 4.00)")
    if growth > MAX_GROWTH or any(abs(dev) > MAX_DEVIATION for dev in deviations.values()):
        print("scaling: NOT LINEAR within the limits above")
        failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
