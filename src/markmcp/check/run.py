"""Running the tasks: in this process, or spread over a pool of worker processes.

The tasks may be a list or an iterator that a tree walk feeds as it goes.  With more
than one worker the pool starts as soon as the first tasks are known, and the rest are
sent while the walk is still going, so the workers check files while this process
walks: this process only walks, sends tasks and collects outcomes, and stays out of
the workers' way.  The tasks go out in batches (of at most :data:`MAX_BATCH`); only a
few batches are queued at a time, and once the walk is over the batches shrink with
the work left (guided scheduling), so the workers finish together.  The engines of the
first tasks are imported before the pool forks, so the workers share them.  With
``fix``, the MRSF sidecars are re-anchored only after every VisiMark document has been
repaired, so a sidecar meets its document as it will stay.

The outcomes are returned in task order, whatever order the workers finish in.
``progress`` (when given) is called with (done, total) as outcomes arrive; while the
walk goes on, ``total`` is the number of tasks found so far.
"""

from __future__ import annotations

import gc
import itertools
import multiprocessing
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from functools import partial
from typing import Any

from .engines import forget, preload, run_task

Task = tuple[str, str, str]
Progress = Callable[[int, int], None]
Prepare = Callable[[dict[str, Any]], dict[str, Any]]

#: Tasks per batch sent to a worker: few enough that the pool balances, enough that the
#: cost of sending them is small.
MAX_BATCH = 64
#: Batches queued per worker at a time: enough that a worker never waits for the next
#: one, even while the walk crosses a long stretch of files no engine owns (outcomes
#: are collected, and batches sent, as the walk finds tasks); few enough that the last
#: tasks can still be split finely.
QUEUED_PER_WORKER = 4
#: Once the walk is over, a batch takes at most this share of a worker's part of the
#: tasks left (guided scheduling: the last batches are small).
GUIDED_SPLIT = 4
#: Fewer tasks than this are checked in this process: a pool would cost more to start
#: (every engine imported) than it saves.
MIN_POOL_TASKS = 16


def default_jobs() -> int:
    """The processors this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _batch(tasks: Sequence[Task], fix: bool, changed: frozenset[str] | None, use_git: bool,
           prepare: Prepare | None = None) -> list[dict[str, Any]]:
    outcomes = [run_task(task, fix, changed, use_git) for task in tasks]
    return [prepare(item) for item in outcomes] if prepare is not None else outcomes


def _context() -> Any:
    """Fork where there is fork (workers inherit the imported engines), else the default."""
    if "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context()


def _in_process(tasks: Sequence[Task], fix: bool, changed: frozenset[str] | None, use_git: bool,
                progress: Progress | None) -> list[dict[str, Any]]:
    total = len(tasks)
    results: list[dict[str, Any] | None] = [None] * total
    done = 0
    first = [i for i in range(total) if not (fix and tasks[i][0] == "mrsf")]
    second = [i for i in range(total) if fix and tasks[i][0] == "mrsf"]
    for i in itertools.chain(first, second):  # with fix, sidecars after the rest
        results[i] = run_task(tasks[i], fix, changed, use_git)
        done += 1
        if progress:
            progress(done, total)
    return [result for result in results if result is not None]


class _Feeder:
    """Sends tasks to the pool in batches and gathers the outcomes by task index."""

    def __init__(self, pool: ProcessPoolExecutor, work: Callable[[list[Task]], list[dict[str, Any]]],
                 workers: int, progress: Progress | None) -> None:
        self.pool = pool
        self.work = work
        self.workers = workers
        self.progress = progress
        self.tasks: list[Task] = []
        self.results: list[dict[str, Any] | None] = []
        self.waiting: list[int] = []  # indexes found, not sent yet (in order)
        self.next = 0  # waiting[next:] are still to send
        self.pending: dict[Future[list[dict[str, Any]]], list[int]] = {}
        self.finished: list[Future[list[dict[str, Any]]]] = []  # appended by the pool's thread
        self.done = 0
        self.known_total: int | None = None

    def found(self, task: Task) -> int:
        self.tasks.append(task)
        self.results.append(None)
        return len(self.tasks) - 1

    def _submit(self, size: int) -> None:
        chunk = self.waiting[self.next:self.next + size]
        self.next += len(chunk)
        if self.next > 4096:  # drop what was sent, now and then
            del self.waiting[:self.next]
            self.next = 0
        future = self.pool.submit(self.work, [self.tasks[i] for i in chunk])
        self.pending[future] = chunk
        future.add_done_callback(self.finished.append)

    def _collect(self, ready: Iterable[Future[list[dict[str, Any]]]] = ()) -> None:
        ready = list(ready)
        while self.finished:
            ready.append(self.finished.pop())
        for future in ready:
            chunk = self.pending.pop(future, None)
            if chunk is None:  # seen already (both waited for and called back)
                continue
            for i, result in zip(chunk, future.result()):
                self.results[i] = result
            self.done += len(chunk)
            if self.progress:
                self.progress(self.done, self.known_total or len(self.tasks))

    def top_up(self, walking: bool, ready: Iterable[Future[list[dict[str, Any]]]] = ()) -> None:
        """Send what may be sent now: while walking, whole batches only."""
        self._collect(ready)
        room = self.workers * QUEUED_PER_WORKER - len(self.pending)
        while room > 0:
            left = len(self.waiting) - self.next
            if walking:
                if left < MAX_BATCH:
                    return
                size = MAX_BATCH
            else:
                if left <= 0:
                    return
                size = max(1, min(MAX_BATCH, left // (self.workers * GUIDED_SPLIT)))
            self._submit(size)
            room -= 1

    def drain(self) -> None:
        """Send the rest and wait for every outcome."""
        ready: Iterable[Future[list[dict[str, Any]]]] = ()
        while True:
            self.top_up(walking=False, ready=ready)
            if not self.pending:
                return
            ready, _ = wait(list(self.pending), return_when=FIRST_COMPLETED)


def run(tasks: Iterable[Task], *, jobs: int, fix: bool = False, changed: frozenset[str] | None = None,
        use_git: bool = False, progress: Progress | None = None,
        prepare: Prepare | None = None) -> list[dict[str, Any]]:
    """The outcome of every task, in task order.  ``prepare`` (a module-level function, when
    given) is applied to each outcome in the worker that made it: work for the report that
    the workers share instead of leaving it to the end."""
    forget()  # facts remembered by an earlier run in this process may be out of date
    try:
        return _run(tasks, jobs=jobs, fix=fix, changed=changed, use_git=use_git, progress=progress,
                    prepare=prepare)
    finally:
        forget()


def _run(tasks: Iterable[Task], *, jobs: int, fix: bool, changed: frozenset[str] | None, use_git: bool,
         progress: Progress | None, prepare: Prepare | None) -> list[dict[str, Any]]:
    known_total = len(tasks) if isinstance(tasks, Sequence) else None
    stream: Iterator[Task] = iter(tasks)
    ahead = max(MIN_POOL_TASKS, 2 * MAX_BATCH)
    head = list(itertools.islice(stream, ahead))
    if len(head) < ahead:  # the walk is over already
        known_total = len(head)
    if progress:
        progress(0, known_total if known_total is not None else len(head))
    if jobs <= 1 or len(head) < MIN_POOL_TASKS:
        everything = [*head, *stream]
        return _in_process(everything, fix, changed, use_git, progress)
    workers = max(1, min(jobs, known_total)) if known_total is not None else jobs
    preload({task[0] for task in head})
    gc.freeze()  # what the parent holds now is never collected in a worker (fewer pages copied)
    work = partial(_batch, fix=fix, changed=changed, use_git=use_git, prepare=prepare)
    with ProcessPoolExecutor(max_workers=workers, mp_context=_context()) as pool:
        feeder = _Feeder(pool, work, workers, progress)
        feeder.known_total = known_total
        later: list[int] = []  # with fix, the sidecars: after everything else
        try:
            for task in itertools.chain(head, stream):
                index = feeder.found(task)
                if fix and task[0] == "mrsf":
                    later.append(index)
                    continue
                feeder.waiting.append(index)
                if len(feeder.waiting) - feeder.next >= MAX_BATCH:
                    feeder.top_up(walking=True)
            feeder.known_total = len(feeder.tasks)
            feeder.drain()
            if later:
                feeder.waiting, feeder.next = later, 0
                feeder.drain()
        except BaseException:
            pool.shutdown(wait=True, cancel_futures=True)
            raise
        finally:
            gc.unfreeze()
    return [result for result in feeder.results if result is not None]
