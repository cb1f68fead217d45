"""Benchmark: the FigDown renderer (parse + draw + embed the source), in process.

These are INNER-LOOP figures (no process start, no file writing): the
``figdown build`` command and the ``figdown_build`` / ``figdown_check`` tools that
wrap this package are timed whole by ``bench/figdown_build.py``.

1. Conformance corpus (normative + experimental): documents per second for
   ``build`` (parse, geometry checks, SVG, metadata), beside ``parse`` alone;
   medians of ``--repeat`` passes, as wall time and as this process's CPU
   time (on a small shared machine wall time also counts other processes).
2. Upstream's example figures (``FIGDOWN_UPSTREAM`` = a FigDown checkout;
   skipped when unset): every ``examples/**/*.fd`` built twice — ms per
   figure, byte-identical check, which refuse and why.
3. Scaling: generated scenes of 25 to 400 boxes (a layered graph with groups
   and back edges), and of 30 to 120 author-placed boxes (free routing round
   obstacles), CPU ms each — how the layout grows.

Run: .venv/bin/python bench/figdown_render.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

import xml.etree.ElementTree as ET  # noqa: E402

from markmcp.figdown import parse  # noqa: E402
from markmcp.figdown.render import build, read_artifact  # noqa: E402
from markmcp.figdown.render.svg import ATTRIBUTES, ELEMENTS  # noqa: E402

NS = "{http://www.w3.org/2000/svg}"


def profile_ok(svg: str) -> bool:
    """Well-formed, and every element and attribute name inside the Safe SVG profile."""
    for el in ET.fromstring(svg).iter():
        if not el.tag.startswith(NS) or el.tag[len(NS):] not in ELEMENTS:
            return False
        if any(k not in ATTRIBUTES for k in el.attrib):
            return False
    return True

SHARED = Path(os.environ.get("MARKMCP_SHARED", ROOT.parent / "shared"))


def corpus() -> list[str]:
    base = SHARED / "figdown" / "conformance"
    return [p.read_bytes().decode("utf-8") for sub in ("cases", "experimental")
            for p in sorted((base / sub).glob("*.fd"))]


def timed(fn, repeat: int) -> tuple[float, float]:
    walls, cpus = [], []
    for _ in range(repeat):
        w, c = time.perf_counter(), time.process_time()
        fn()
        walls.append(time.perf_counter() - w)
        cpus.append(time.process_time() - c)
    return statistics.median(walls), statistics.median(cpus)


def generated(n: int) -> str:
    lines = ["figdown 0.5 block", 'class hot "Hot path" stroke=#dc2626']
    groups = max(1, n // 12)
    for g in range(groups):
        lines.append(f'group g{g} "Group {g}"')
    for i in range(n):
        grp = f" in=g{i % groups}" if i % 3 == 0 else ""
        lines.append(f'node n{i} "Node {i}"{grp}')
    for i in range(1, n):
        lines.append(f"edge n{(i - 1) // 2} -> n{i}" + (" class=hot" if i % 5 == 0 else ""))
        if i % 7 == 0:
            lines.append(f"edge n{i} -[back]-> n{max(0, i - 9)}")
    return "\n".join(lines) + "\n"


def pinned(n: int) -> str:
    """n author-placed boxes on a grid, each joined to a pseudo-random other (fixed seed)."""
    lines = ["figdown 0.5 block"] + [f'node n{i} "N{i}"' for i in range(n)]
    state = 7
    for i in range(n):
        state = (state * 1103515245 + 12345) % 2 ** 31
        lines.append(f"edge n{i} -> n{state % n}")
    lines.append("layout")
    lines += [f"pin n{i} at=({(i % 12) * 110},{(i // 12) * 80})" for i in range(n)]
    return "\n".join(lines) + "\n"


def random_graph(n: int, links: int) -> str:
    """n boxes joined by ``links`` links between pseudo-random pairs (fixed seed), no layout
    hints: the worst case for a layered layout, every link free to span many ranks."""
    lines = ["figdown 0.5 block"] + [f'node n{i} "Node {i}"' for i in range(n)]
    state, made = 11, 0
    while made < links:
        state = (state * 1103515245 + 12345) % 2 ** 31
        a = state % n
        state = (state * 1103515245 + 12345) % 2 ** 31
        b = state % n
        if a != b:
            lines.append(f"edge n{a} -> n{b}")
            made += 1
    return "\n".join(lines) + "\n"


def random_scaling(sizes: list[int]) -> None:
    """Random graphs of N boxes and 2N links, single runs: the whole ``figdown build FILE``
    (process start to the SVG on disk, wall), and beside it ``build()`` in process (the
    inner loop, CPU) with the SVG's size."""
    import subprocess
    import tempfile

    print("random graphs, N boxes and 2N links (single runs):")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    with tempfile.TemporaryDirectory() as folder:
        for size in sizes:
            src = random_graph(size, 2 * size)
            fd = Path(folder) / f"random{size}.fd"
            fd.write_text(src, encoding="utf-8")
            w = time.perf_counter()
            run = subprocess.run([sys.executable, "-m", "markmcp.figdown.cli", "build", str(fd)],
                                 env=env, capture_output=True, text=True)
            whole = time.perf_counter() - w
            svg_path = fd.with_suffix(".svg")
            if run.returncode != 0 or not svg_path.exists():
                print(f"  {size:5d} boxes: figdown build failed: {run.stderr.strip()[:200]}")
                continue
            svg_path.unlink()
            c = time.process_time()
            svg = build(src).svg or ""
            dt = time.process_time() - c
            print(f"  {size:5d} boxes: whole command {whole:7.2f} s wall; inner loop {dt:7.2f} s CPU; "
                  f"SVG {len(svg.encode()) / 1e6:6.2f} MB")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--random", metavar="N,N,...", default="",
                    help="only time random graphs of these sizes (N boxes, 2N links), e.g. 250,500,1000")
    args = ap.parse_args()
    if args.random:
        random_scaling([int(x) for x in args.random.split(",") if x.strip()])
        return 0
    docs = corpus()
    if not docs:
        print(f"figdown_render: no conformance corpus under {SHARED} — skipped")
        return 0
    for src in docs:   # warm: imports, caches
        build(src)
    wall, cpu = timed(lambda: [build(s) for s in docs], args.repeat)
    pwall, pcpu = timed(lambda: [parse(s) for s in docs], args.repeat)
    n = len(docs)
    print(f"conformance corpus, {n} documents (in process, median of {args.repeat}):")
    print(f"  build (parse + draw + metadata): {n / wall:7.0f} docs/s wall  {n / cpu:7.0f} docs/s CPU")
    print(f"  parse alone:                     {n / pwall:7.0f} docs/s wall  {n / pcpu:7.0f} docs/s CPU")
    upstream = os.environ.get("FIGDOWN_UPSTREAM")
    examples = sorted((Path(upstream) / "examples").rglob("*.fd")) if upstream else []
    if examples:
        total, worst, refused, unstable, unsafe, unread = 0.0, (0.0, ""), [], [], [], []
        for fd in examples:
            src = fd.read_text(encoding="utf-8")
            c = time.process_time()
            first = build(src)
            dt = time.process_time() - c
            total += dt
            worst = max(worst, (dt, str(fd.relative_to(upstream))))
            if build(src).svg != first.svg:
                unstable.append(fd.name)
            if first.diagnostics:
                refused.append((str(fd.relative_to(upstream)), first.error_lines()))
                continue
            if not profile_ok(first.svg):
                unsafe.append(fd.name)
            back = read_artifact(first.svg).source
            if back != src or parse(back).models != first.result.models:
                unread.append(fd.name)
        print(f"upstream examples: {len(examples)} figures built, {total * 1000:.0f} ms CPU in all "
              f"({total * 1000 / len(examples):.1f} ms each; slowest {worst[0] * 1000:.0f} ms, {worst[1]})")
        print(f"  byte-identical on a second build: {len(examples) - len(unstable)}/{len(examples)}")
        drawn = len(examples) - len(refused)
        print(f"  well-formed and inside the Safe SVG profile: {drawn - len(unsafe)}/{drawn}; "
              f"read back to the same source and model: {drawn - len(unread)}/{drawn}")
        print(f"  refused: {len(refused)}")
        for name, lines in refused:
            for line in lines:
                print(f"    {name}: {line[:150]}")
    else:
        print("upstream examples: FIGDOWN_UPSTREAM not set — skipped")
    print("scaling (generated block scenes, CPU ms, median):")
    for size in (25, 50, 100, 200, 400):
        src = generated(size)
        _, c = timed(lambda: build(src), max(1, args.repeat // 2))
        print(f"  {size:4d} boxes, auto layout:  {c * 1000:8.1f} ms")
    for size in (30, 60, 120):
        src = pinned(size)
        _, c = timed(lambda: build(src), 1)
        print(f"  {size:4d} boxes, all pinned:   {c * 1000:8.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
