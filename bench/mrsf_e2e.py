"""MRSF end to end: what a user runs, timed from process start to the sidecar on disk.

Usage::

    python bench/mrsf_e2e.py                  # everything (a few minutes)
    python bench/mrsf_e2e.py --quick          # 100 / 1,000 / 400-comment sizes only
    python bench/mrsf_e2e.py --runs 5

Three parts, each on freshly copied workspaces (a Markdown document and a sidecar written
by PyYAML with its defaults: items at column 0, long text folded at 80 columns):

* re-anchoring 100 / 1,000 / 10,000 comments in a document of ten lines per comment that
  was edited (about one edit per two comments: lines inserted, reworded, deleted), text
  only, with the CLI (``mrsf reanchor doc.md``) and over MCP (a fresh ``mrsf-mcp`` stdio
  process: initialize, one ``mrsf_reanchor`` call, end of input, exit);
* adding one comment to sidecars of 10 / 400 / 10,000 comments, with the CLI
  (``mrsf add``) and over MCP (``mrsf_add``), the same way;
* the acceptance workload: 10,000 lines, 1,000 comments, 500 edits (seed 9); the sidecar
  the CLI writes is scored against the generator's truth (kept text anchored at its new
  line, reworded text fuzzy at its line, deleted text orphaned), validated, and the folder
  is checked for files other than the sidecar that changed or appeared.

Figures are medians of ``--runs`` runs: wall time (process start to the sidecar on disk;
for MCP until the answer to the call), the CPU time the process used, and the largest
peak memory (maximum resident set size, from ``wait4``).  The machine is shared: wall
times are noisy, CPU times less so.  Exit status 1 when a check fails: re-anchoring 10,000
comments takes more than 12 times the CPU of 1,000; the acceptance workload has fewer than
995 right or any confident wrong placement, or its sidecar does not validate.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml  # PyYAML, a test dependency: it writes the sidecars as most tools do

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from markmcp.mrsf.evaluate import Truth, generate_workload  # noqa: E402

BIN = Path(sys.executable).parent
MRSF = [str(BIN / "mrsf")] if (BIN / "mrsf").exists() else [sys.executable, "-m", "markmcp.mrsf.cli"]
SERVER = [sys.executable, "-m", "markmcp.mrsf.server"]
SIDECAR = "doc.md.review.yaml"


# ------------------------------------------------------------------ workspaces


def write_workspace(folder: Path, document: str, comments: list[dict]) -> Path:
    folder.mkdir(parents=True)
    (folder / ".mrsf.yaml").write_text("")
    (folder / "doc.md").write_text(document if document.endswith("\n") else document + "\n", encoding="utf-8")
    data = {"mrsf_version": "1.0", "document": "doc.md", "comments": comments}
    (folder / SIDECAR).write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return folder


def reanchor_workspace(folder: Path, count: int, seed: int = 9) -> tuple[Path, list[Truth]]:
    """``count`` comments, a document of ``10 * count`` lines edited ``count / 2`` times."""
    work = generate_workload(seed, lines=10 * count, comments=count, edits=count // 2)
    return write_workspace(folder, work.target, work.comments), work.truth


def add_workspace(folder: Path, count: int, seed: int = 5) -> Path:
    """A sidecar of ``count`` comments on an unedited document."""
    work = generate_workload(seed, lines=max(100, 10 * count), comments=count, edits=0)
    return write_workspace(folder, work.source, work.comments)


# ------------------------------------------------------------------ running


@dataclass
class Measure:
    wall: float      # seconds, process start to the sidecar on disk
    cpu: float       # seconds of CPU the process used (user + system)
    kib: int         # peak resident memory


#: Runs a command and reports its CPU time and peak memory on stderr.  It is a small
#: process of its own: a child forked from this (large) benchmark process would count
#: the benchmark's memory as its own until it execs.
LAUNCHER = """
import json, os, subprocess, sys
proc = subprocess.Popen(sys.argv[1:], stderr=subprocess.DEVNULL)
_, status, usage = os.wait4(proc.pid, 0)
sys.stderr.write(json.dumps([os.waitstatus_to_exitcode(status), usage.ru_utime + usage.ru_stime, usage.ru_maxrss]))
"""


def spawn(command: list[str], cwd: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", LAUNCHER, *command], cwd=cwd, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def finish(proc: subprocess.Popen) -> tuple[int, float, int]:
    """(exit status, CPU seconds, peak KiB) of a command started by :func:`spawn`."""
    assert proc.stderr is not None
    report = proc.stderr.read()
    proc.stderr.close()
    proc.wait()
    status, cpu, kib = json.loads(report)
    return status, cpu, kib


def run(command: list[str], cwd: Path, stdin: bytes = b"") -> tuple[Measure, int, bytes]:
    """(measure, exit status, output) of one process."""
    started = time.perf_counter()
    proc = spawn(command, cwd)
    out = _talk(proc, stdin)
    status, cpu, kib = finish(proc)
    elapsed = time.perf_counter() - started
    return Measure(elapsed, cpu, kib), status, out


def _talk(proc: subprocess.Popen, stdin: bytes) -> bytes:
    assert proc.stdin is not None and proc.stdout is not None
    if stdin:
        proc.stdin.write(stdin)
    proc.stdin.close()
    out = proc.stdout.read()
    proc.stdout.close()
    return out


def mcp(cwd: Path, tool: str, arguments: dict[str, Any]) -> tuple[Measure, dict]:
    """One MCP session: spawn, initialize, one tools/call (timed until its answer: the
    sidecar is on disk), then end of input and exit (CPU and memory are the process's)."""
    started = time.perf_counter()
    proc = spawn(SERVER, cwd)
    assert proc.stdin is not None and proc.stdout is not None

    def send(message: dict) -> None:
        proc.stdin.write(json.dumps(message).encode() + b"\n")
        proc.stdin.flush()

    def answer(number: int) -> dict:
        while True:
            line = proc.stdout.readline()
            if not line:
                raise SystemExit(f"mrsf-mcp exited before answering request {number}")
            message = json.loads(line)
            if message.get("id") == number and "method" not in message:
                return message

    send({"jsonrpc": "2.0", "id": 0, "method": "initialize",
          "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                     "clientInfo": {"name": "mrsf-e2e-bench", "version": "1"}}})
    answer(0)
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    send({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool, "arguments": arguments}})
    reply = answer(1)
    elapsed = time.perf_counter() - started
    proc.stdin.close()
    proc.stdout.read()
    proc.stdout.close()
    _, cpu, kib = finish(proc)
    result = reply.get("result") or {}
    if result.get("isError") or "error" in reply:
        raise SystemExit(f"{tool} failed: {json.dumps(reply)[:400]}")
    return Measure(elapsed, cpu, kib), result


def timed(make, action, runs: int, scratch: Path, label: str) -> Measure:
    """Median wall and CPU seconds and the largest peak memory of ``action(workspace)``
    over fresh copies of one workspace built once by ``make(folder)``."""
    template = scratch / f"{label}-template"
    if not template.exists():
        make(template)
    measures: list[Measure] = []
    for n in range(runs):
        folder = scratch / f"{label}-{n}"
        shutil.copytree(template, folder)
        measures.append(action(folder))
        shutil.rmtree(folder)
    return Measure(statistics.median(m.wall for m in measures), statistics.median(m.cpu for m in measures),
                   max(m.kib for m in measures))


def show(m: Measure) -> str:
    return f"{m.wall:6.2f} s ({m.cpu:5.2f} s CPU) {m.kib / 1024:5.1f} MiB"


def cli_reanchor(folder: Path) -> Measure:
    measure, status, out = run(MRSF + ["reanchor", "doc.md"], folder)
    if status not in (0, 1):  # 1: some comment is orphaned
        raise SystemExit(f"mrsf reanchor failed ({status}): {out[-400:]!r}")
    return measure


def mcp_reanchor(folder: Path) -> Measure:
    return mcp(folder, "mrsf_reanchor", {"files": ["doc.md"]})[0]


def cli_add(folder: Path) -> Measure:
    measure, status, out = run(MRSF + ["add", "doc.md", "-a", "Bench (b)", "-t", "One more comment.", "-l", "5"],
                               folder)
    if status != 0:
        raise SystemExit(f"mrsf add failed ({status}): {out[-400:]!r}")
    return measure


def mcp_add(folder: Path) -> Measure:
    return mcp(folder, "mrsf_add", {"document": "doc.md", "author": "Bench (b)",
                                    "text": "One more comment.", "line": 5})[0]


# ------------------------------------------------------------------ acceptance


def score_sidecar(path: Path, truth: list[Truth]) -> tuple[int, int]:
    """(right, confident wrong) of the comments as the written sidecar records them."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    right = wrong = 0
    for comment, t in zip(data["comments"], truth):
        status = comment.get("x_reanchor_status", "anchored")
        line = comment.get("line")
        confident = status in ("anchored", "shifted")
        if t.kind == "kept":
            ok = confident and line == t.line
        elif t.kind == "reworded":
            ok = status == "fuzzy" and line == t.line
        else:
            ok = status == "orphaned"
        right += ok
        wrong += confident and (t.kind == "deleted" or line != t.line)
    return right, wrong


def snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    return {p.name: (p.stat().st_size, p.stat().st_mtime_ns) for p in folder.iterdir()}


def acceptance(scratch: Path, runs: int) -> bool:
    print("\n== acceptance: 10,000 lines, 1,000 comments, 500 edits (seed 9), PyYAML-written sidecar, text only ==")
    template = scratch / "acceptance-template"
    work = generate_workload(9, lines=10_000, comments=1_000, edits=500)
    write_workspace(template, work.target, work.comments)
    measures: list[Measure] = []
    ok = True
    for n in range(runs):
        folder = scratch / f"acceptance-{n}"
        shutil.copytree(template, folder)
        before = snapshot(folder)
        measure = cli_reanchor(folder)
        measures.append(measure)
        if n == 0:
            after = snapshot(folder)
            others = sorted(name for name in set(before) | set(after)
                            if name != SIDECAR and before.get(name) != after.get(name))
            right, wrong = score_sidecar(folder / SIDECAR, work.truth)
            _, status, _ = run(MRSF + ["validate", "doc.md"], folder)
            kinds = {k: sum(t.kind == k for t in work.truth) for k in ("kept", "reworded", "deleted")}
            print(f"  truth: {kinds['kept']} kept (moved or not), {kinds['reworded']} reworded, {kinds['deleted']} deleted")
            print(f"  placed right: {right}/{len(work.truth)}, confident wrong: {wrong}")
            print(f"  sidecar validates: {'yes' if status == 0 else 'NO'}")
            print(f"  files changed besides the sidecar: {', '.join(others) if others else 'none'}")
            print(f"  peak memory: {measure.kib / 1024:.1f} MiB")
            ok = right >= 995 and wrong == 0 and status == 0
        shutil.rmtree(folder)
    wall = statistics.median(m.wall for m in measures)
    cpu = statistics.median(m.cpu for m in measures)
    print(f"  mrsf reanchor doc.md, end to end: median {wall:.2f} s ({cpu:.2f} s CPU) over {runs} runs")
    return ok


# ------------------------------------------------------------------ main


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="skip the 10,000-comment sizes")
    args = parser.parse_args(argv)
    ok = True
    with tempfile.TemporaryDirectory(prefix="mrsf-e2e-") as tmp:
        scratch = Path(tmp)
        print(f"== re-anchoring, end to end (median of {args.runs}; document: 10 lines per comment) ==")
        print(f"  {'comments':>8} | {'CLI':^34} | {'MCP':^34}")
        cli_times: dict[int, Measure] = {}
        mcp_times: dict[int, Measure] = {}
        for count in (100, 1_000) + (() if args.quick else (10_000,)):
            cli = timed(lambda f: reanchor_workspace(f, count), cli_reanchor, args.runs, scratch, f"re{count}")
            server = timed(lambda f: reanchor_workspace(f, count), mcp_reanchor, args.runs, scratch, f"re{count}")
            cli_times[count], mcp_times[count] = cli, server
            print(f"  {count:>8,} | {show(cli)} | {show(server)}")
        if 10_000 in cli_times:
            for name, times in (("CLI", cli_times), ("MCP", mcp_times)):
                wall = times[10_000].wall / times[1_000].wall
                cpu = times[10_000].cpu / times[1_000].cpu
                good = cpu <= 12
                ok = ok and good
                print(f"  {name}: 1,000 -> 10,000 comments takes {wall:.1f}x the time ({cpu:.1f}x the CPU: "
                      f"{'within' if good else 'OVER'} 12x)")
        print(f"\n== adding one comment, end to end (median of {args.runs}) ==")
        print(f"  {'comments':>8} | {'CLI':^34} | {'MCP':^34}")
        for count in (10, 400) + (() if args.quick else (10_000,)):
            cli = timed(lambda f: add_workspace(f, count), cli_add, args.runs, scratch, f"add{count}")
            server = timed(lambda f: add_workspace(f, count), mcp_add, args.runs, scratch, f"add{count}")
            print(f"  {count:>8,} | {show(cli)} | {show(server)}")
        ok = acceptance(scratch, args.runs) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
