"""Benchmark: building FigDown figures as a user does — whole commands and tool calls.

1. ``figdown build X.fd``: one fresh process per run, timed from spawning it to the
   moment it exits with ``X.svg`` on disk (the file is removed before each run, so
   every run parses, draws and writes; the bytes are checked afterwards).  Three
   figure kinds, each at a realistic size and at 10x:

   * a service architecture (``block`` scene: groups, classes, labelled edges,
     ``flow right``): 16 boxes and 22 connectors, then 160 and 220;
   * a protocol header (``bitfield``, 32-bit words, with descriptions): 16 fields,
     then 160;
   * an address map (``table``, 4 columns, a class and highlights): 12 rows, then 120.

   Beside it, the same figure built in process (parse + draw + metadata, no process
   start, no file): the inner loop, labelled as such.

   Then scenes where the author pinned a quarter of the boxes (``pin`` lines), in
   the ``block`` and the ``topology`` genre: 20 boxes / 5 pins, 200 / 50 (10x) and
   400 / 100 (20x).  Connectors touching a pinned box are routed afresh round the
   other boxes, the router's heaviest work.
2. ``figdown build DIR``: one process over a folder of figures — upstream's 59
   example figures (``FIGDOWN_UPSTREAM`` = a FigDown checkout, copied to a temporary
   folder) and the conformance corpus (``$MARKMCP_SHARED`` or ``../shared``).
3. ``figdown-mcp`` over stdio, warm (after ``--warmup`` calls), per call:
   ``figdown_build`` with ``write: true`` of the realistic and the 10x scene (the SVG
   rewritten each call: the tool is told to write, and the file is removed between
   calls), and ``figdown_check`` of the 59 upstream examples as one folder (parse +
   geometry checks, i.e. parse + render of each), printed beside the figure recorded
   for upstream's own server on the development machine (:data:`UPSTREAM_CHECK_59`).

Processes run as an installed package does, from compiled bytecode: this script gives
them a bytecode cache of their own (``PYTHONPYCACHEPREFIX`` in its temporary folder,
``PYTHONDONTWRITEBYTECODE`` cleared) and runs each command once unmeasured first.
Medians (and min/max) of ``--runs``; wall time, and the CPU time the process used (on a
small shared machine wall time also counts the time other processes hold the cores); a
tool call's CPU time is the server's, read from ``/proc`` around each call.
Exit 1 when a command fails or writes other bytes than the in-process build.

Run: .venv/bin/python bench/figdown_build.py [--runs 7] [--calls 20] [--only pinned]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "src"))

from mcp_latency import INITIALIZE, INITIALIZED, Server, percentile  # noqa: E402

from markmcp.figdown.render import build  # noqa: E402

SHARED = Path(os.environ.get("MARKMCP_SHARED", ROOT.parent / "shared"))
CLI = [sys.executable, "-m", "markmcp.figdown.cli"]
SERVER = [sys.executable, "-m", "markmcp.figdown.server"]
ENV: dict[str, str] = {}
"""The environment of every process started here (set by :func:`main`)."""


# --- figures ---------------------------------------------------------------------------------

TIERS = ("Edge", "App", "Data", "Ops")
ROLES = ("gateway", "service", "worker", "cache")


def architecture(scale: int) -> str:
    """Boxes in four tiers per region; 16 boxes and 22 connectors per unit of ``scale``."""
    lines = ["figdown 0.5 block", 'title "Order platform"', "flow right",
             'class sync "Synchronous request" stroke=#1d4ed8',
             'class async "Asynchronous event" stroke=#b45309 style=dashed']
    for region in range(scale):
        for tier in TIERS[1:]:
            lines.append(f'group {tier.lower()}{region} "{tier} tier, region {region + 1}"')
        for t, tier in enumerate(TIERS):
            for r, role in enumerate(ROLES):
                member = f" in={tier.lower()}{region}" if t else ""
                shape = " shape=cylinder" if tier == "Data" and r % 2 == 0 else ""
                lines.append(f'node n{region}_{t}_{r} "{tier} {role} {region + 1}.{r + 1}"{member}{shape}')
        for t in range(len(TIERS) - 1):
            for r in range(len(ROLES)):
                kind = "sync" if r % 2 == 0 else "async"
                lines.append(f'edge n{region}_{t}_{r} -["call {t}.{r}"]-> n{region}_{t + 1}_{r} class={kind}')
        for t in range(len(TIERS) - 1):
            lines.append(f"edge n{region}_{t}_0 -> n{region}_{t + 1}_{(t + 1) % len(ROLES)}")
        lines.append(f"edge n{region}_3_0 -[alerts]-> n{region}_0_3 class=async")
        if region:
            lines.append(f'edge n{region - 1}_2_0 -["replicates"]-> n{region}_2_0 class=async')
    return "\n".join(lines) + "\n"


FIELDS = ((4, "Version"), (4, "Header length"), (8, "Traffic class"), (16, "Total length"),
          (16, "Identification"), (3, "Flags"), (13, "Fragment offset"), (8, "Hop limit"),
          (8, "Next header"), (16, "Checksum"), (32, "Source address"), (32, "Destination address"),
          (8, "Option type"), (8, "Option length"), (16, "Option data"), (32, "Sequence number"))


def header(scale: int) -> str:
    """A protocol header of 16 fields (12 words) per unit of ``scale``."""
    lines = ["figdown 0.1 bitfield", 'title "Tunnel header"',
             'bitfield hdr "Tunnel header" word=32 numbering=msb0']
    for block in range(scale):
        for width, name in FIELDS:
            suffix = f" {block + 1}" if scale > 1 else ""
            lines.append(f'field "{name}{suffix}" {width} description="{name.lower()} of block {block + 1}"')
    return "\n".join(lines) + "\n"


def address_map(scale: int) -> str:
    """An address map of 12 rows per unit of ``scale``."""
    lines = ["figdown 0.1 table", 'title "Register map"', 'class rsvd "Reserved: reads as zero" fill=#f3f4f6',
             'table map "Peripheral registers"', "| Offset | Name | Access | Reset |",
             "|--------|------|:------:|------:|"]
    rows = 12 * scale
    for row in range(rows):
        access = ("RW", "RO", "WO", "RW1C")[row % 4]
        lines.append(f"| 0x{row * 4:04X} | REG_{row:03d}_{('CTRL', 'STATUS', 'DATA')[row % 3]} | {access} | "
                     f"0x{(row * 2654435761) % 2 ** 32:08X} |")
    lines.append("width auto,40%,auto,auto")
    lines += [f"cell ({row},2) class=rsvd" for row in range(3, rows + 1, 6)]
    lines += [f"cell {row} highlight" for row in range(2, rows + 1, 6)]
    return "\n".join(lines) + "\n"


def pinned(genre: str, nodes: int, pins: int, seed: int) -> str:
    """A ``block`` or ``topology`` scene of ``nodes`` boxes, mostly linked to recent
    ones, with ``pins`` of them pinned on a loose lattice over the automatic layout."""
    rnd = random.Random(seed)
    lines = [f"figdown 0.5 {genre}", f'title "{nodes} boxes, {pins} pinned"', "flow right"]
    for i in range(nodes):
        lines.append(f'node n{i} "Device {i}" shape=rounded' if genre == "topology"
                     else f'node n{i} "Service {i}"' + (" shape=cylinder" if i % 9 == 0 else ""))
    for i in range(1, nodes):
        j = rnd.randrange(max(0, i - 12), i)
        if genre == "topology":
            lines.append(f"edge n{j} [p{rnd.randrange(1, 9)}] -- [p{rnd.randrange(1, 9)}] n{i}")
        else:
            lines.append(f'edge n{j} -["call {i}"]-> n{i}' if rnd.random() < 0.3 else f"edge n{j} -> n{i}")
    for _ in range(nodes // 4):
        a, b = rnd.randrange(nodes), rnd.randrange(nodes)
        if a != b:
            lines.append(f"edge n{a} -- n{b}" if genre == "topology" else f"edge n{a} -> n{b} style=dashed")
    lines.append("layout")
    columns = max(4, int(pins ** 0.5 * 1.6))
    for k, i in enumerate(sorted(rnd.sample(range(nodes), pins))):
        lines.append(f"pin n{i} at=({(k % columns) * 170 + rnd.randrange(40)},{(k // columns) * 110 + rnd.randrange(30)})")
    return "\n".join(lines) + "\n"


def drawable_pinned(genre: str, nodes: int, pins: int) -> tuple[int, str]:
    """The first seed from 1 whose scene draws: a pin may land a box exactly over an
    automatically placed one, which the geometry checks rightly refuse."""
    for seed in range(1, 40):
        source = pinned(genre, nodes, pins, seed)
        if build(source).svg is not None:
            return seed, source
    raise SystemExit(f"no drawable pinned {genre} scene of {nodes} boxes in 39 seeds")


PINNED_SIZES = ((20, 5, "realistic"), (200, 50, "10x"), (400, 100, "20x"))


FIGURES: list[tuple[str, Callable[[int], str]]] = [
    ("architecture (block)", architecture), ("header (bitfield)", header), ("address map (table)", address_map),
]


# --- timing ----------------------------------------------------------------------------------


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.1f} ms"


def spread(values: list[float]) -> str:
    return f"{ms(statistics.median(values))} (min {min(values) * 1000:.1f}, max {max(values) * 1000:.1f})"


def whole_command(args: list[str], cwd: Path, outputs: list[Path], runs: int) -> tuple[list[float], list[float]]:
    """Spawn -> exit, with each of ``outputs`` removed first and present afterwards: the
    wall times, and the CPU time the process used (user + system)."""
    times, cpu = [], []
    for run in range(runs + 1):  # the first run is not measured (it may fill the bytecode cache)
        for path in outputs:
            path.unlink(missing_ok=True)
        before = os.times()
        started = time.perf_counter()
        done = subprocess.run([*CLI, *args], cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True, env=ENV)
        elapsed = time.perf_counter() - started
        after = os.times()
        if run:
            times.append(elapsed)
            cpu.append(after.children_user + after.children_system - before.children_user - before.children_system)
        if done.returncode not in (0, 1) or any(not path.is_file() for path in outputs):
            raise SystemExit(f"figdown {' '.join(args)} failed ({done.returncode}): {done.stderr.decode()[:400]}")
    return times, cpu


def in_process(source: str, runs: int) -> list[float]:
    """CPU seconds of build() per run, after one warm-up."""
    build(source)
    times = []
    for _ in range(runs):
        started = time.process_time()
        build(source)
        times.append(time.process_time() - started)
    return times


def built_on_disk(work: Path, stem: str, source: str,
                  runs: int) -> tuple[list[float], list[float], str | None, bool]:
    """``figdown build STEM.fd`` timed as a whole command (wall and CPU seconds per run),
    the SVG ``build()`` gives in process, and whether the file written is that SVG."""
    fd = work / f"{stem}.fd"
    fd.write_text(source, encoding="utf-8")
    svg = fd.with_suffix(".svg")
    whole, cpu = whole_command(["build", fd.name], work, [svg], runs)
    expected = build(source).svg
    same = expected is not None and svg.read_text(encoding="utf-8") == expected
    return whole, cpu, expected, same


def single_figures(work: Path, runs: int) -> bool:
    print(f"figdown build X.fd — process start to X.svg on disk, median of {runs} "
          "(beside it: build() in process, the inner loop)")
    ok = True
    for name, make in FIGURES:
        for scale in (1, 10):
            source = make(scale)
            whole, cpu, expected, same = built_on_disk(work, f"{make.__name__}-{scale}x", source, runs)
            if not same:
                print(f"  {name} {scale}x: the file written differs from the in-process build")
                ok = False
            inner = in_process(source, runs)
            size = f"{len(source.encode()):>6} B .fd -> {len(expected.encode()) if expected else 0:>7} B .svg"
            print(f"  {name:<22} {'realistic' if scale == 1 else '10x':<9} {size}  whole {spread(whole)} wall, "
                  f"{ms(statistics.median(cpu))} CPU;  inner {ms(statistics.median(inner))} CPU")
    return ok


def pinned_scenes(work: Path, runs: int) -> bool:
    print(f"figdown build X.fd, a quarter of the boxes pinned — process start to X.svg on disk, median of {runs} "
          "(beside it: build() in process, the inner loop)")
    ok = True
    for genre in ("block", "topology"):
        for nodes, pins, size in PINNED_SIZES:
            seed, source = drawable_pinned(genre, nodes, pins)
            whole, cpu, _, same = built_on_disk(work, f"pinned-{genre}-{nodes}", source, runs)
            if not same:
                print(f"  pinned {genre} {nodes}: the file written differs from the in-process build")
                ok = False
            inner = in_process(source, max(1, runs // 2))
            label = f"{genre} {nodes} boxes / {pins} pins"
            print(f"  {label:<29} {size:<9} (seed {seed:>2})  whole {spread(whole)} wall, "
                  f"{ms(statistics.median(cpu))} CPU;  inner {ms(statistics.median(inner))} CPU")
    return ok


def folders(work: Path, runs: int) -> None:
    print(f"figdown build DIR — one process over a folder, median of {runs}")
    upstream = os.environ.get("FIGDOWN_UPSTREAM", "")
    sets: list[tuple[str, Path | None]] = [
        ("upstream examples", Path(upstream) / "examples" if upstream else None),
        ("conformance cases", SHARED / "figdown" / "conformance" / "cases"),
        ("conformance experimental", SHARED / "figdown" / "conformance" / "experimental"),
    ]
    for label, folder in sets:
        if folder is None or not folder.is_dir():
            print(f"  {label}: not found — skipped")
            continue
        target = work / label.replace(" ", "-")
        shutil.copytree(folder, target, ignore=shutil.ignore_patterns("*.svg", "*.json", "*.md"))
        documents = sorted(target.rglob("*.fd"))
        drawn = [fd.with_suffix(".svg") for fd in documents if build(fd.read_text(encoding="utf-8")).svg]
        whole, cpu = whole_command(["build", target.name], work, drawn, runs)
        print(f"  {label:<26} {len(documents):>4} documents ({len(drawn)} drawn)  whole {spread(whole)} wall, "
              f"{ms(statistics.median(cpu))} CPU ({statistics.median(cpu) * 1000 / len(documents):.1f} ms "
              "per document)")


def process_cpu(pid: int) -> float | None:
    """CPU seconds process ``pid`` has used so far, all its threads (Linux; None elsewhere):
    from the scheduler's nanosecond counters where the kernel keeps them, else user +
    system time in clock ticks."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
        return sum(int(Path(f"/proc/{pid}/task/{task}/schedstat").read_text().split()[0])
                   for task in tasks) / 1e9
    except (OSError, ValueError, IndexError):
        pass
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


#: Upstream's figdown-mcp (Node 20) answering the same ``figdown_check`` of its 59 example
#: figures: measured on the 2-core development machine, warm calls interleaved with ours in
#: one run (this script does not run it).  Shown beside our figure for orientation only.
UPSTREAM_CHECK_59 = ("upstream figdown-mcp (Node 20), recorded 2026-12-04 on the 2-core development machine "
                     "(load ~2), 20 warm calls interleaved with ours: wall p50 165 ms, server CPU p50 228 ms "
                     "per call (ours in the same run: 113 ms wall, 99 ms CPU)")


def tool_calls(work: Path, calls: int, warmup: int) -> None:
    print(f"figdown-mcp over stdio, warm, per call (p50 / p99 of {calls} after {warmup} warm-up calls)")
    server = Server([*SERVER, "--cwd", str(work), "--allow-write", "--root", str(work)], env=ENV)
    try:
        server.send(INITIALIZE)
        server.answer(0)
        server.send(INITIALIZED)
        number = 0

        def timed_calls(tool: str, arguments: dict[str, Any], before: Callable[[], None]) -> str:
            nonlocal number
            times: list[float] = []
            cpus: list[float] = []
            for index in range(warmup + calls):
                before()
                number += 1
                cpu_start = process_cpu(server.proc.pid)
                started = time.perf_counter()
                server.send({"jsonrpc": "2.0", "id": number, "method": "tools/call",
                             "params": {"name": tool, "arguments": arguments}})
                reply = server.answer(number)
                elapsed = time.perf_counter() - started
                cpu_end = process_cpu(server.proc.pid)
                if "result" not in reply or reply["result"].get("isError"):
                    raise SystemExit(f"{tool} failed: {str(reply)[:400]}")
                if index >= warmup:
                    times.append(elapsed)
                    if cpu_start is not None and cpu_end is not None:
                        cpus.append(cpu_end - cpu_start)
            cpu = f", server CPU p50 {ms(percentile(cpus, 0.5))} per call" if len(cpus) == len(times) else ""
            return f"p50 {ms(percentile(times, 0.5))}  p99 {ms(percentile(times, 0.99))} wall{cpu}"

        for scale in (1, 10):
            fd = work / f"tool-architecture-{scale}x.fd"
            fd.write_text(architecture(scale), encoding="utf-8")
            svg = fd.with_suffix(".svg")
            figures = timed_calls("figdown_build", {"path": fd.name, "write": True},
                                  lambda svg=svg: svg.unlink(missing_ok=True))
            print(f"  figdown_build write, architecture {'realistic' if scale == 1 else '10x':<9} {figures}")
        examples = work / "upstream-examples"
        if examples.is_dir():
            count = len(list(examples.rglob("*.fd")))
            figures = timed_calls("figdown_check", {"path": examples.name}, lambda: None)
            print(f"  figdown_check of the {count} upstream examples (parse + geometry) {figures}")
            print(f"    beside it: {UPSTREAM_CHECK_59}")
        else:
            print("  figdown_check of the upstream examples: FIGDOWN_UPSTREAM not set — skipped")
    finally:
        server.close()


def main() -> int:
    parser = argparse.ArgumentParser(prog="figdown_build", description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7, help="processes per command (7)")
    parser.add_argument("--calls", type=int, default=20, help="measured tool calls (20)")
    parser.add_argument("--warmup", type=int, default=3, help="unmeasured tool calls first (3)")
    parser.add_argument("--only", choices=("pinned",), help="run one part alone: the pinned scenes")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="figdown-build-bench-") as scratch:
        work = Path(scratch) / "figures"
        work.mkdir()
        ENV.update({key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"})
        ENV["PYTHONPYCACHEPREFIX"] = str(Path(scratch) / "bytecode")
        if options.only == "pinned":
            return 0 if pinned_scenes(work, options.runs) else 1
        ok = single_figures(work, options.runs)
        ok = pinned_scenes(work, options.runs) and ok
        folders(work, max(3, options.runs // 2))
        tool_calls(work, options.calls, options.warmup)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
