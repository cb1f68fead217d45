"""``make fuzz``: a million inputs into each parser, crashes and inputs/s reported.

The targets, their corpora and the mutations are those of the CI-sized Hypothesis fuzz tests
(``tests/fuzz_targets.py``): FigDown ``parse``, the FigDown renderer on what parses, what
``visimark check`` runs on a document, MRSF ``parse_sidecar`` + the validator, the validator
alone on mutated data, and the stdio session's JSON-RPC line handler.  A *crash* is any exception other than the engine's
documented error type (a MemoryError included: each worker may use at most ``MEMORY_BYTES``
of address space); a *hang* is an input that runs longer than ``--timeout`` seconds of
CPU time twice in a row (CPU, not wall-clock time: a worker starved by a busy machine is not
hung; an input over the limit once and in time on the second run is a *stall*, listed apart).

Input ``i`` of a target is generated from ``random.Random(f"{seed}:{target}:{i}")`` alone,
so every crash is reproducible with ``--replay TARGET:INDEX`` (which prints the input and
the traceback).  Work is cut into chunks shared by ``--workers`` processes (default 2).
Each input runs under a CPU-time interval timer (a Python-level hang raises inside the
worker); the parent kills a worker that makes no progress for ``STUCK_SECONDS`` (a hang
in C code) after it dumped its stacks, replays that input in a fresh process to confirm
it (a stall that does not recur is listed apart, not counted as a hang) and goes on from
the next input.  Crashing inputs are written to ``--crashes`` (a temporary folder by
default), one file per distinct crash site.

Figures: ``inputs/s`` is the wall-clock throughput of all workers together (it depends on
how busy the machine is); ``per CPU-s`` divides by the CPU time the workers spent on the
inputs, which does not.

Usage: ``python bench/fuzz.py [--inputs 1000000] [--targets figdown,figdown-render,visimark,mrsf,mrsf-validate,jsonrpc]
[--workers 2] [--timeout 5] [--seed 1] [--crashes DIR] [--replay TARGET:INDEX]``
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import queue
import random
import signal
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "tests"))

import fuzz_targets as targets  # noqa: E402  (after the path set-up)

CHUNK = 2_000
"""Inputs per unit of work handed to a worker."""

STUCK_SECONDS = 120.0
"""Wall-clock seconds on one input after which the parent kills the worker."""

MEMORY_BYTES = 2 << 30
"""Address space a worker (or a replay) may use: an input that wants more raises MemoryError,
a crash like any other, instead of exhausting the machine."""


def cap_memory() -> None:
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = MEMORY_BYTES if hard == resource.RLIM_INFINITY else min(MEMORY_BYTES, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


class Hang(Exception):
    """Raised by the interval timer inside a worker when one input runs too long."""


# --- inputs --------------------------------------------------------------------------------------


class Inputs:
    """Everything a target's inputs are made from (loaded once, before the workers fork)."""

    def __init__(self, target: targets.Target, shared: Path) -> None:
        self.target = target
        self.seeds = target.seeds(shared)
        if not self.seeds:
            raise SystemExit(f"fuzz: no corpus documents for {target.name} under {shared} (set MARKMCP_SHARED)")
        self.contexts = target.contexts(shared)
        needs_data = target.structural or target.name == "jsonrpc"
        self.data = self._data() if needs_data else []

    def _data(self) -> list[Any]:
        if self.target.name == "jsonrpc":
            return [json.loads(seed) for seed in self.seeds]
        return targets.parsed_seed_data(self.seeds)

    def make(self, seed: int, index: int) -> tuple[Any, Any]:
        """Input ``index`` and its context, from the index alone."""
        rng = random.Random(f"{seed}:{self.target.name}:{index}")
        context = rng.choice(self.contexts) if self.contexts and rng.random() < 0.5 else None
        alphabet = self.target.alphabet
        if self.target.structural:
            return targets.mutate_data(rng.choice(self.data), rng), context
        roll = rng.random()
        if self.target.name == "jsonrpc":
            if roll < 0.35:
                return json.dumps(targets.mutate_data(rng.choice(self.data), rng), ensure_ascii=rng.random() < 0.5), None
            if roll < 0.40:
                return rng.randbytes(rng.randint(0, 200)), None
        if roll < 0.92:
            base = targets.window(rng.choice(self.seeds), rng)
            return targets.mutate(base, rng, alphabet, rng.choice(self.seeds)), context
        return targets.random_text(rng, alphabet), context


# --- the worker ------------------------------------------------------------------------------------


def _on_alarm(signum: int, frame: Any) -> None:
    raise Hang()


def _site(error: BaseException) -> str:
    """Where an exception was raised: its type and the innermost frame inside markmcp (or the last one)."""
    frames = traceback.extract_tb(error.__traceback__)
    ours = [frame for frame in frames if "/markmcp/" in frame.filename] or frames
    where = f"{Path(ours[-1].filename).name}:{ours[-1].lineno} in {ours[-1].name}" if ours else "?"
    return f"{type(error).__name__} at {where}"


def stack_file(crashes_dir: Path, pid: int) -> Path:
    return crashes_dir / f"worker-{pid}.stack"


def worker(
    inputs: dict[str, Inputs], seed: int, timeout: float, tasks: Any, results: Any, progress: Any, crashes_dir: Path
) -> None:
    """Take (target, start, count) chunks until told to stop; report crashes and finished chunks.

    SIGUSR1 dumps every thread's stack to :func:`stack_file` (the watchdog asks before it
    kills a stuck worker, so a stall can be told apart from a hang in C code).
    """
    import faulthandler

    stacks = stack_file(crashes_dir, os.getpid()).open("w")
    faulthandler.register(signal.SIGUSR1, file=stacks, all_threads=True)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGPROF, _on_alarm)
    cap_memory()
    runners: dict[str, Any] = {}

    def run_chunk(name: str, start: int, count: int) -> None:
        source = inputs[name]
        run = runners.get(name) or runners.setdefault(name, source.target.runner())
        progress[2], progress[3] = start, count
        cpu = time.process_time()
        for index in range(start, start + count):
            value, context = source.make(seed, index)
            progress[0], progress[1] = index, time.monotonic()
            for attempt in (1, 2):  # an input over the limit runs once more before it counts as a hang
                hung, crashed = False, None
                signal.setitimer(signal.ITIMER_PROF, timeout)
                try:
                    run(value, context)
                except Hang:
                    hung = True
                except Exception as error:  # noqa: BLE001 - every exception is a finding here
                    crashed = (_site(error), "".join(traceback.format_exception(error))[-4000:])
                finally:
                    signal.setitimer(signal.ITIMER_PROF, 0)
                if not hung:
                    break
            if hung:
                results.put(("hang", name, index, f"over {timeout:g} s of CPU time, twice", ""))
            elif attempt == 2:
                results.put(("stall", name, index, f"over {timeout:g} s of CPU time once, in time when run again", ""))
            if crashed:
                results.put(("crash", name, index, *crashed))
            progress[1] = 0.0
        results.put(("done", name, start, count, time.process_time() - cpu))

    def loop() -> None:
        while True:
            task = tasks.get()
            if task is None:
                return
            name, start, count = task
            if inputs[name].target.in_event_loop:
                import anyio

                async def in_loop() -> None:
                    run_chunk(name, start, count)

                anyio.run(in_loop)
                runners.pop(name, None)  # its session belonged to that loop
            else:
                run_chunk(name, start, count)

    loop()


# --- the parent ------------------------------------------------------------------------------------


class Report:
    def __init__(self, crashes_dir: Path) -> None:
        self.crashes_dir = crashes_dir
        self.sites: dict[tuple[str, str], list[int]] = {}
        self.hangs: dict[str, list[int]] = {}
        self.stalls: dict[str, list[int]] = {}
        self.done: dict[str, int] = {}
        self.first: dict[tuple[str, str], str] = {}

    def crash(self, name: str, index: int, site: str, trace: str, inputs: Inputs, seed: int) -> None:
        key = (name, site)
        indexes = self.sites.setdefault(key, [])
        indexes.append(index)
        if len(indexes) == 1:
            self.first[key] = trace
            value, context = inputs.make(seed, index)
            path = self.crashes_dir / f"{name}-{index}.txt"
            path.write_text(
                f"# {name} input {index} (--seed {seed}): {site}\n# replay: python bench/fuzz.py --replay {name}:{index}"
                f" --seed {seed}\n{trace}\n# input (repr):\n{value!r}\n# context (repr):\n{context!r}\n",
                encoding="utf-8",
            )
            print(f"  CRASH {name} #{index}: {site} (saved {path})", flush=True)


def dump_stack(pid: int, crashes_dir: Path) -> str:
    """The stacks a worker writes on SIGUSR1 (faulthandler), or "" when it cannot answer."""
    path = stack_file(crashes_dir, pid)
    try:
        before = path.stat().st_size
        os.kill(pid, signal.SIGUSR1)
        for _ in range(20):
            time.sleep(0.1)
            if path.stat().st_size > before:
                break
        time.sleep(0.2)
        return path.read_text(encoding="utf-8", errors="replace")[before:]
    except OSError:
        return ""


def confirm(name: str, index: int, seed: int, timeout: float) -> bool:
    """Whether input ``index`` still fails (hangs, crashes the process) when replayed alone."""
    import subprocess

    command = [sys.executable, str(Path(__file__).resolve()), "--replay", f"{name}:{index}", "--seed", str(seed)]
    try:
        done = subprocess.run(command, capture_output=True, timeout=STUCK_SECONDS, cwd=ROOT)
    except subprocess.TimeoutExpired:
        return True
    return done.returncode != 0


def run_all(names: list[str], total: int, workers: int, timeout: float, seed: int, crashes_dir: Path) -> int:
    shared = targets.shared_root()
    crashes_dir.mkdir(parents=True, exist_ok=True)
    print(f"fuzz: corpus {shared}; {total:,} inputs per target; {workers} worker(s); timeout {timeout:g} s; "
          f"seed {seed}; crashes go to {crashes_dir}", flush=True)
    inputs = {name: Inputs(targets.TARGETS[name], shared) for name in names}
    context = mp.get_context("fork")
    tasks = context.Queue()
    results = context.Queue()
    report = Report(crashes_dir)
    figures: list[tuple[str, int, float, float]] = []

    def start_worker() -> tuple[Any, Any]:
        progress = context.Array("d", [0.0, 0.0, 0.0, 0.0], lock=False)  # index, started at, chunk start, count
        process = context.Process(
            target=worker, args=(inputs, seed, timeout, tasks, results, progress, crashes_dir), daemon=True
        )
        process.start()
        return process, progress

    pool = [start_worker() for _ in range(workers)]
    try:
        for name in names:
            chunks = [(name, start, min(CHUNK, total - start)) for start in range(0, total, CHUNK)]
            for chunk in chunks:
                tasks.put(chunk)
            finished = 0
            began = time.monotonic()
            last_note = began
            done_inputs = 0
            cpu_seconds = 0.0
            while finished < len(chunks):
                try:
                    kind, target, index, detail, trace = results.get(timeout=0.5)
                except queue.Empty:
                    kind = ""
                if kind == "done":
                    finished += 1
                    done_inputs += detail  # (start, count, CPU seconds) arrive as (index, detail, trace)
                    cpu_seconds += trace
                elif kind == "crash":
                    report.crash(target, index, detail, trace, inputs[target], seed)
                elif kind == "hang":
                    report.hangs.setdefault(target, []).append(index)
                    print(f"  HANG {target} #{index}: {detail}", flush=True)
                elif kind == "stall":
                    report.stalls.setdefault(target, []).append(index)
                    print(f"  stall {target} #{index}: {detail} (a busy machine?); not counted", flush=True)
                now = time.monotonic()
                for slot, (process, progress) in enumerate(pool):
                    busy = progress[1] != 0.0
                    stuck = busy and now - progress[1] > STUCK_SECONDS
                    if not stuck and process.is_alive():
                        continue
                    if busy:  # killed or died on one input: that input is a finding, the chunk goes on
                        index, chunk_start, chunk_count = int(progress[0]), int(progress[2]), int(progress[3])
                        stack = ""
                        if process.is_alive():
                            stack = dump_stack(process.pid, crashes_dir)
                            process.kill()
                        why = "stuck (in C code?)" if stuck else f"died (exit {process.exitcode})"
                        if confirm(name, index, seed, timeout):
                            print(f"  HANG {name} #{index}: the worker {why}, and again on replay", flush=True)
                            report.hangs.setdefault(name, []).append(index)
                        else:
                            print(f"  stall {name} #{index}: the worker {why}, but the input replays in time "
                                  "(a busy machine?); not counted", flush=True)
                            report.stalls.setdefault(name, []).append(index)
                        if stack:
                            print("    where the worker was:\n" + "\n".join(f"    {line}" for line in stack.split("\n")[:24]),
                                  flush=True)
                        rest = chunk_start + chunk_count - (index + 1)
                        if rest > 0:
                            tasks.put((name, index + 1, rest))
                            chunks.append((name, index + 1, rest))
                        done_inputs += index + 1 - chunk_start
                        finished += 1
                    if process.is_alive():
                        process.kill()
                    process.join()
                    pool[slot] = start_worker()
                if now - last_note > 60:
                    rate = done_inputs / (now - began)
                    print(f"  {name}: {done_inputs:,}/{total:,} inputs, {rate:,.0f}/s", flush=True)
                    last_note = now
            elapsed = time.monotonic() - began
            figures.append((name, done_inputs, elapsed, cpu_seconds))
            crashes = sum(len(v) for (t, _), v in report.sites.items() if t == name)
            print(f"== {name}: {done_inputs:,} inputs in {elapsed:,.0f} s = {done_inputs / elapsed:,.0f} inputs/s "
                  f"({workers} workers; {done_inputs / max(cpu_seconds, 1e-9):,.0f} per CPU-second); "
                  f"{crashes} crash(es), {len(report.hangs.get(name, []))} hang(s)", flush=True)
    finally:
        for _ in pool:
            tasks.put(None)
        for process, _ in pool:
            process.join(timeout=10)
            if process.is_alive():
                process.kill()

    print("\nfuzz summary")
    print(f"{'target':<14} {'inputs':>10} {'seconds':>9} {'inputs/s':>9} {'per CPU-s':>9} {'crashes':>8} {'sites':>6} "
          f"{'hangs':>6} {'stalls':>6}")
    failed = 0
    for name, count, elapsed, cpu_seconds in figures:
        sites = [site for (target, site) in report.sites if target == name]
        crashes = sum(len(report.sites[(name, site)]) for site in sites)
        hangs = len(report.hangs.get(name, []))
        failed += crashes + hangs
        print(f"{name:<14} {count:>10,} {elapsed:>9,.0f} {count / elapsed:>9,.0f} {count / max(cpu_seconds, 1e-9):>9,.0f} "
              f"{crashes:>8} {len(sites):>6} {hangs:>6} {len(report.stalls.get(name, [])):>6}")
    for (name, site), indexes in sorted(report.sites.items()):
        print(f"\n{name}: {site}: {len(indexes)} input(s), first #{indexes[0]}\n{report.first[(name, site)]}")
    return 1 if failed else 0


def replay(spec: str, seed: int) -> int:
    cap_memory()
    name, _, index = spec.partition(":")
    target = targets.TARGETS[name]
    source = Inputs(target, targets.shared_root())
    value, context = source.make(seed, int(index))
    print(f"input {name}:{index} (seed {seed}):\n{value!r}\ncontext: {context!r}")

    def go() -> int:
        try:
            target.runner()(value, context)
        except Exception:  # noqa: BLE001
            traceback.print_exc()
            return 1
        print("no crash")
        return 0

    if target.in_event_loop:
        import anyio

        async def in_loop() -> int:
            return go()

        return anyio.run(in_loop)
    return go()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--inputs", type=int, default=1_000_000, help="inputs per target (default 1,000,000)")
    parser.add_argument("--targets", default=",".join(targets.TARGETS), help="comma-separated (default: all)")
    parser.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1), help="processes (default 2)")
    parser.add_argument("--timeout", type=float, default=5.0, help="seconds one input may take (default 5)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--crashes", type=Path, help="folder for crashing inputs (default: a new temporary folder)")
    parser.add_argument("--replay", metavar="TARGET:INDEX", help="run one input and show its traceback")
    args = parser.parse_args(argv)
    if args.replay:
        return replay(args.replay, args.seed)
    names = [name.strip() for name in args.targets.split(",") if name.strip()]
    unknown = [name for name in names if name not in targets.TARGETS]
    if unknown:
        parser.error(f"unknown target(s): {', '.join(unknown)} (known: {', '.join(targets.TARGETS)})")
    crashes_dir = args.crashes or Path(tempfile.mkdtemp(prefix="markmcp-fuzz-"))
    crashes_dir.mkdir(parents=True, exist_ok=True)
    return run_all(names, args.inputs, max(1, args.workers), args.timeout, args.seed, crashes_dir)


if __name__ == "__main__":
    sys.exit(main())
