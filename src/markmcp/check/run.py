"""Running the tasks: in this process, or spread over a pool of worker processes.

With more than one worker, the tasks go to a process pool in small batches (so the
workers stay evenly loaded to the end), and the outcomes come back as they are done; the engines are imported before the pool starts, so forked workers
share them.  With ``fix``, the MRSF sidecars are re-anchored only after every
VisiMark document has been repaired, so a sidecar meets its document as it will stay.

The outcomes are returned in task order, whatever order the workers finish in.
``progress`` (when given) is called with (done, total) as outcomes arrive.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from functools import partial
from typing import Any

from .engines import preload, run_task

Task = tuple[str, str, str]
Progress = Callable[[int, int], None]

#: Tasks per batch sent to a worker: few enough that the pool balances, enough that the
#: cost of sending them is small.
MAX_BATCH = 32
#: Fewer tasks than this are checked in this process: a pool would cost more to start
#: (every engine imported) than it saves.
MIN_POOL_TASKS = 16


def default_jobs() -> int:
    """The processors this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _batch(tasks: Sequence[Task], fix: bool, changed: frozenset[str] | None, use_git: bool) -> list[dict[str, Any]]:
    return [run_task(task, fix, changed, use_git) for task in tasks]


def _phases(tasks: Sequence[Task], fix: bool) -> list[list[int]]:
    """Task indexes in the order they may run: with ``fix``, sidecars after the rest."""
    indexes = list(range(len(tasks)))
    if not fix:
        return [indexes]
    first = [i for i in indexes if tasks[i][0] != "mrsf"]
    second = [i for i in indexes if tasks[i][0] == "mrsf"]
    return [phase for phase in (first, second) if phase]


def _context() -> Any:
    """Fork where there is fork (workers inherit the imported engines), else the default."""
    if "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context()


def run(tasks: Sequence[Task], *, jobs: int, fix: bool = False, changed: frozenset[str] | None = None,
        use_git: bool = False, progress: Progress | None = None) -> list[dict[str, Any]]:
    """The outcome of every task, in task order."""
    total = len(tasks)
    results: list[dict[str, Any] | None] = [None] * total
    done = 0
    if progress:
        progress(0, total)
    workers = max(1, min(jobs, total)) if total >= MIN_POOL_TASKS else 1
    if workers == 1:
        for phase in _phases(tasks, fix):
            for i in phase:
                results[i] = run_task(tasks[i], fix, changed, use_git)
                done += 1
                if progress:
                    progress(done, total)
        return [result for result in results if result is not None]
    preload()
    work = partial(_batch, fix=fix, changed=changed, use_git=use_git)
    with ProcessPoolExecutor(max_workers=workers, mp_context=_context()) as pool:
        for phase in _phases(tasks, fix):
            ordered = phase
            size = max(1, min(MAX_BATCH, len(ordered) // (workers * 8) or 1))
            pending: dict[Future[list[dict[str, Any]]], list[int]] = {}
            for start in range(0, len(ordered), size):
                chunk = ordered[start:start + size]
                pending[pool.submit(work, [tasks[i] for i in chunk])] = chunk
            while pending:
                finished, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in finished:
                    chunk = pending.pop(future)
                    for i, result in zip(chunk, future.result()):
                        results[i] = result
                    done += len(chunk)
                    if progress:
                        progress(done, total)
    return [result for result in results if result is not None]
