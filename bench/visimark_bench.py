"""Benchmark: `check` on generated documents with 1,000 and 10,000 table rows.

Each document has a 5-rule-column table and 3 anchored totals.  Prints seconds and
peak memory per size and the 10k/1k time ratio (target: linear, ≤ 10.5×; 10k < 1 s).
Run: .venv/bin/python bench/visimark_bench.py
"""

from __future__ import annotations

import time
import tracemalloc
from decimal import ROUND_HALF_UP, Decimal

from markmcp.visimark.check import check
from markmcp.visimark.model import build


def document(rows: int) -> str:
    lines = ["| Item | Qty | Price | Net | VAT | Gross | Disc | Final |",
             "|------|----:|------:|----:|----:|------:|-----:|------:|"]
    net_t = vat_t = gross_t = Decimal(0)
    for i in range(rows):
        qty, price = i % 17 + 1, Decimal(i % 91) + Decimal("0.25")
        net = qty * price
        vat = (net * Decimal("0.23")).quantize(Decimal("0.01"), ROUND_HALF_UP)
        gross = net + vat
        disc = (gross * Decimal("0.02")).quantize(Decimal("0.01"), ROUND_HALF_UP)
        final = gross - disc
        net_t, vat_t, gross_t = net_t + net, vat_t + vat, gross_t + gross
        lines.append(f"| r{i} | {qty} | {price} | {net} | {vat} | {gross} | {disc} | {final} |")
    block = ["```vmark #lines", "Net = Qty * Price", "VAT precision 2 = Net * 23%", "Gross = Net + VAT",
             "Disc precision 2 = Gross * 2%", "Final = Gross - Disc", "net_total = SUM(Net)",
             "vat_total = SUM(VAT)", "gross_total = SUM(Gross)", "```"]
    prose = [f"Net **{net_t}**<!--vmark=lines.net_total-->, VAT **{vat_t}**<!--vmark=lines.vat_total-->, "
             f"gross **{gross_t}**<!--vmark=lines.gross_total-->."]
    return "\n".join(lines + [""] + block + [""] + prose) + "\n"


def measure(rows: int) -> tuple[float, int, int]:
    src = document(rows)
    check(build(document(10)))  # warm imports
    start = time.perf_counter()
    result = check(build(src))
    elapsed = time.perf_counter() - start
    tracemalloc.start()
    check(build(src))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return elapsed, peak, len([f for f in result.findings if f.is_problem])


def main() -> None:
    results = {}
    for rows in (1_000, 10_000):
        best = min((measure(rows) for _ in range(3)), key=lambda r: r[0])
        results[rows] = best
        print(f"{rows:>6} rows: {best[0]:.3f} s, peak {best[1] / 1e6:.1f} MB, problems {best[2]}")
    ratio = results[10_000][0] / results[1_000][0]
    print(f"10k/1k time ratio: {ratio:.2f} (linear target ≤ 10.5)")
    print(f"10k under 1 s: {results[10_000][0] < 1.0}")


if __name__ == "__main__":
    main()
