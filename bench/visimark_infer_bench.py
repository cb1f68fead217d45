"""Benchmark: `visimark infer --write` as a user runs it, process start to file on disk.

Documents: the plain worked quote (two small tables, prose figures) and a generated plain
invoice with 100, 1,000 and 10,000 rows (the realistic size and ten times it) whose
totals are stated in prose.  Each run copies the document afresh and runs the installed
command in a new process; the median wall time of the runs is printed with the
children's CPU time, the 10x ratio, and what infer proposed.  The engine alone
(``infer()`` in this process, the same documents) is printed beside it, labelled so.
Run: .venv/bin/python bench/visimark_infer_bench.py
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

from markmcp.visimark.infer import infer

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("MARKMCP_SHARED", ROOT.parent / "shared"))
QUOTE = SHARED / "visimark" / "docs" / "example-quote-plain.md"
RUNS = {100: 5, 1000: 5, 10000: 3}


def plain_invoice(rows: int) -> str:
    lines = ["| Item | Qty | Price | Net | VAT | Gross |", "|------|----:|------:|----:|----:|------:|"]
    net_t = gross_t = Decimal(0)
    for i in range(rows):
        qty, price = i % 17 + 1, Decimal(i % 91 + 40)
        net = qty * price
        vat = (net * Decimal("0.23")).quantize(Decimal("0.01"), ROUND_HALF_UP)
        net_t, gross_t = net_t + net, gross_t + net + vat
        lines.append(f"| r{i} | {qty} | {price:.2f} | {net:.2f} | {vat:.2f} | {net + vat:.2f} |")
    prose = f"\nThe order comes to **{net_t:.2f}** net and **{gross_t:.2f}** gross.\n"
    return "\n".join(lines) + "\n" + prose


def command_run(src: str, runs: int) -> tuple[float, float, str]:
    """Median wall seconds of `visimark infer --write` on a fresh copy, children CPU seconds per
    run, and the report's last line."""
    walls, cpus, last = [], [], ""
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(runs):
            doc = Path(tmp) / "doc.md"
            doc.write_text(src, encoding="utf-8")
            before = os.times()
            start = time.perf_counter()
            done = subprocess.run([sys.executable, "-m", "markmcp.visimark.cli", "infer", "--write", str(doc)],
                                  capture_output=True, text=True)
            walls.append(time.perf_counter() - start)
            after = os.times()
            cpus.append(after.children_user + after.children_system - before.children_user - before.children_system)
            if done.returncode != 0:
                raise SystemExit(f"infer failed: {done.stderr}")
            last = done.stdout.strip().split("\n")[-2]
    return statistics.median(walls), statistics.median(cpus), last


def engine_run(src: str) -> float:
    start = time.process_time()
    infer(src)
    return time.process_time() - start


def main() -> int:
    docs: list[tuple[str, str, int]] = []
    if QUOTE.is_file():
        docs.append(("worked quote (2 tables, 7 rows)", QUOTE.read_text(encoding="utf-8"), 5))
    for rows, runs in RUNS.items():
        docs.append((f"plain invoice, {rows} rows", plain_invoice(rows), runs))
    medians = {}
    for label, src, runs in docs:
        wall, cpu, last = command_run(src, runs)
        engine = engine_run(src)
        medians[label] = wall
        print(f"{label:<32} infer --write: median {wall:7.3f} s wall, {cpu:6.3f} s CPU ({runs} runs)  "
              f"[engine alone {engine:6.3f} s CPU]  {last}")
    small, big = medians.get("plain invoice, 1000 rows"), medians.get("plain invoice, 10000 rows")
    if small and big:
        print(f"10x rows -> {big / small:.1f}x wall time")
    return 0


if __name__ == "__main__":
    sys.exit(main())
