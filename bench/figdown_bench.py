"""Benchmark: the FigDown engine (parse + canonical model), in process.

1. Throughput over the whole conformance corpus (normative + experimental):
   documents per second for ``parse`` followed by ``model_json`` (or the
   sorted error lines for a rejected case), best of ``--repeat`` passes.
2. Scaling: the time to parse and project generated documents of 0.25, 0.5
   and 1 MB (every genre, several sections).  The cost should grow
   linearly: the 1 MB / 0.25 MB time ratio is printed next to the ideal 4.0,
   and the script exits 1 when it exceeds 5.0.

Run: .venv/bin/python bench/figdown_bench.py [--repeat 5]
The corpus is read from $MARKMCP_SHARED or ../shared beside the checkout.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from markmcp.figdown import model_json, parse

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("MARKMCP_SHARED", ROOT.parent / "shared"))


def corpus() -> list[str]:
    base = SHARED / "figdown" / "conformance"
    return [p.read_bytes().decode("utf-8") for sub in ("cases", "experimental")
            for p in sorted((base / sub).glob("*.fd"))]


def run_once(text: str) -> str:
    result = parse(text)
    if result.diagnostics:
        return "\n".join(result.error_lines()) + "\n"
    return model_json(result)


def section_block(k: int, size: int) -> list[str]:
    out = ["figdown 0.5 block", f'title "Block section {k}"', 'class hot "Hot path" stroke=#dc2626',
           'group g "Group"']
    i = 0
    while sum(len(x) + 1 for x in out) < size:
        out.append(f'node n{i} "Node {i}" in=g fill=#dbeafe')
        if i:
            out.append(f"edge n{i - 1} -[link {i}]-> n{i} class=hot id=e{i}")
        i += 1
    out += ['threshold "cap" in=g offset=80%', 'band "zone" 10..20% in=g', "layout", "pin n0 at=(0,0)"]
    return out


def section_bitfield(k: int, size: int) -> list[str]:
    out = ["figdown 0.1 bitfield", f'bitfield h{k} "Header" word=32 numbering=msb0']
    i = 0
    while sum(len(x) + 1 for x in out) < size:
        out.append(f'field "F{i}" 8 description="field number {i}"')
        out.append(f"field a{i}:4,b{i}:4,c{i}:8")
        i += 1
    return out


def section_table(k: int, size: int) -> list[str]:
    out = ["figdown 0.1 table", f'table t{k} "Table"', "| Key | A | B |", "|---|:-:|--:|"]
    i = 0
    while sum(len(x) + 1 for x in out) < size:
        out.append(f"| row {i} | {i} | {i * 2} |")
        i += 1
    out += ["width auto,90,25%", "cell (1,2) fill=#fee2e2", "cell 2 highlight"]
    return out


def section_sequence(k: int, size: int) -> list[str]:
    out = ["figdown 0.4 sequence", 'lifeline c "Client"', 'lifeline s "Server"']
    i = 0
    while sum(len(x) + 1 for x in out) < size:
        out += [f'fragment f{i} "round {i}" type=alt', f'operand o{i} "ok" in=f{i}',
                f'message c -> s "request {i}" in=o{i}', f'message c <- s "reply {i}" in=o{i}']
        i += 1
    return out


def document(total: int) -> str:
    """A multi-section document of about ``total`` characters."""
    parts = [section_block, section_bitfield, section_table, section_sequence]
    share = total // (len(parts) * 2)
    lines: list[str] = []
    for k in range(2):
        for make in parts:
            lines += make(k, share)
    return "\n".join(lines) + "\n"


def best_of(repeat: int, fn) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()

    docs = corpus()
    if docs:
        seconds = best_of(args.repeat, lambda: [run_once(d) for d in docs])
        kb = sum(len(d.encode("utf-8")) for d in docs) / 1024
        print(f"corpus: {len(docs)} documents ({kb:.0f} KB) in {seconds * 1000:.1f} ms "
              f"-> {len(docs) / seconds:,.0f} documents/s, {kb / 1024 / seconds:.2f} MB/s")
    else:
        print(f"corpus: not found under {SHARED} (set MARKMCP_SHARED); skipped")

    times = {}
    for mb in (0.25, 0.5, 1.0):
        text = document(int(mb * 1024 * 1024))
        result = parse(text)
        assert not result.diagnostics, result.error_lines()[:3]
        times[mb] = best_of(max(1, args.repeat // 2), lambda t=text: model_json(parse(t)))
        print(f"generated {mb:>4} MB ({len(text):,} chars, {text.count(chr(10)):,} lines): "
              f"{times[mb] * 1000:7.1f} ms  ({times[mb] / mb * 1000:6.1f} ms/MB)")
    ratio = times[1.0] / times[0.25]
    print(f"scaling: 1 MB / 0.25 MB = {ratio:.2f} (linear = 4.00)")
    return 0 if ratio <= 5.0 else 1


if __name__ == "__main__":
    sys.exit(main())
