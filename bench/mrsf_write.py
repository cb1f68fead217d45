"""MRSF sidecar write speed: milliseconds per ``ops.add`` on sidecars of growing size.

Usage::

    python bench/mrsf_write.py                 # 100 / 400 / 1000 comments, YAML and JSON
    python bench/mrsf_write.py --sizes 400 --adds 20

For each size a workspace is built (a 60-line document and a sidecar already holding
that many comments) and ``ops.add`` is timed in three situations:

* ``warm``: this process wrote the sidecar last (its parse is cached, the common case
  of one server handling a stream of adds);
* ``foreign``: two worker processes take turns, so every add finds a sidecar another
  process has just appended to (the load test's eight stdio servers);
* ``cold``: every cache is dropped before each add (a fresh process, or a file edited
  by some other program);

plus ``resolve (warm)``: ``ops.resolve``/``ops.unresolve`` of one comment in turn.

Figures are the median (and max) wall time per add in milliseconds.  It prints numbers
only; timings depend on the machine, so it never fails on them.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from markmcp.mrsf import ops, store  # noqa: E402

DOC_LINES = 60


def make_workspace(folder: Path, fmt: str, count: int) -> Path:
    """A document plus a sidecar holding ``count`` comments; returns the workspace."""
    folder.mkdir(parents=True)
    (folder / ".mrsf.yaml").write_text("")
    lines = [f"Line {n}: some reviewed text, long enough to look like prose." for n in range(1, DOC_LINES + 1)]
    (folder / "doc.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    ops.init("doc.md", format=fmt, root=folder)
    batch = [
        {"author": f"agent-{n % 8}", "text": f"Comment {n}: please check the wording here.",
         "line": n % DOC_LINES + 1, "type": "suggestion" if n % 3 else "issue"}
        for n in range(count)
    ]
    for start in range(0, count, 200):
        ops.add_batch("doc.md", batch[start:start + 200], root=folder)
    store.clear_caches()
    return folder


def one_add(folder: Path, n: int) -> float:
    start = time.perf_counter()
    ops.add("doc.md", author="bench", text=f"Bench comment {n}", line=n % DOC_LINES + 1, root=folder)
    return (time.perf_counter() - start) * 1000


def warm(folder: Path, adds: int) -> list[float]:
    one_add(folder, -1)  # the first add in a process parses the file
    return [one_add(folder, n) for n in range(adds)]


def resolves(folder: Path, count: int) -> list[float]:
    """Warm: resolve / unresolve one existing comment in turn (a one-line change)."""
    target = ops.list_comments(root=folder)["comments"][5]["id"]
    times = []
    for n in range(count + 1):
        start = time.perf_counter()
        (ops.unresolve if n % 2 else ops.resolve)("doc.md", target, root=folder)
        if n:  # the first call may parse the file
            times.append((time.perf_counter() - start) * 1000)
    return times


def cold(folder: Path, adds: int) -> list[float]:
    times = []
    for n in range(adds):
        store.clear_caches()
        times.append(one_add(folder, n))
    return times


def _turns(folder: str, go, done) -> None:
    """Worker: add one comment each time it is told to, report the time it took."""
    path = Path(folder)
    n = 0
    while go.recv():
        done.send(one_add(path, n))
        n += 1


def foreign(folder: Path, adds: int) -> list[float]:
    ctx = mp.get_context("spawn")
    workers = []
    for _ in range(2):
        parent_go, child_go = ctx.Pipe()
        child_done, parent_done = ctx.Pipe()
        proc = ctx.Process(target=_turns, args=(str(folder), child_go, child_done), daemon=True)
        proc.start()
        workers.append((proc, parent_go, parent_done))
    times = []
    try:
        for n in range(adds + 2):
            _, go, done = workers[n % 2]
            go.send(True)
            elapsed = done.recv()
            if n >= 2:  # each worker's first add parses the file
                times.append(elapsed)
    finally:
        for proc, go, _ in workers:
            go.send(False)
            proc.join(10)
    return times


def show(label: str, times: list[float]) -> str:
    return f"{label} {statistics.median(times):7.1f} ms (max {max(times):7.1f})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 400, 1000])
    parser.add_argument("--adds", type=int, default=10, help="adds timed per size and situation")
    parser.add_argument("--formats", nargs="+", default=["yaml", "json"], choices=["yaml", "json"])
    args = parser.parse_args()
    print("ops.add (and ops.resolve), milliseconds per call (median, max)")
    with tempfile.TemporaryDirectory() as tmp:
        for fmt in args.formats:
            for size in args.sizes:
                folder = make_workspace(Path(tmp) / f"{fmt}-{size}", fmt, size)
                kib = (folder / f"doc.md.review.{fmt}").stat().st_size / 1024
                row = [show("warm", warm(folder, args.adds)),
                       show("foreign", foreign(folder, args.adds)),
                       show("cold", cold(folder, max(3, args.adds // 3))),
                       show("resolve (warm)", resolves(folder, args.adds))]
                print(f"{fmt:4} {size:5} comments ({kib:6.1f} KiB): " + " | ".join(row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
