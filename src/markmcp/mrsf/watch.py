"""A polling file watcher for ``mrsf watch``: standard library only, no threads.

:class:`Watcher` keeps one snapshot per watched path (``st_mtime_ns``, ``st_size``,
``st_ino`` from :func:`os.stat`, or None while the path is missing) and compares it
with a fresh one at every :meth:`Watcher.poll`.  A path that differs becomes *pending*;
every further difference pushes its deadline ``debounce`` seconds on, so a burst of
writes (an editor saving through a temporary file, a formatter run) is one change, told
once the path has been quiet for ``debounce`` seconds.  What is told compares the
snapshot from before the burst with the one at the end: ``added`` (missing before),
``removed`` (missing now: told once, the path stays watched and comes back as
``added``) or ``changed``; a path that ends as it began is not told.

The watcher's own writes: after writing a watched file, the caller hands its path to
:meth:`Watcher.acknowledge`, which takes the file's snapshot as it is now as the one to
compare with.  The write itself is then no change, while an edit made after it differs
from that snapshot and is told; nothing is a flag that could swallow that edit.  (Two
writes that leave a file with the same size within the file system's timestamp
granularity look alike: a stat cannot tell them apart.)

Paths are only ever added (:meth:`Watcher.add`): a file that goes away stays watched.
:func:`run` is the loop (poll, hand each change over, rescan now and then, sleep).  The
clock, the sleep and the stat function are parameters, so the logic is tested without
a file system and without waiting.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

Snapshot = tuple[int, int, int] | None
StatFunction = Callable[[str], os.stat_result]

DEFAULT_DEBOUNCE = 0.3
DEFAULT_INTERVAL = 0.25
DEFAULT_RESCAN = 2.0


def snapshot_of(path: str, stat: StatFunction = os.stat) -> Snapshot:
    """(mtime_ns, size, inode) of ``path``, symlinks followed; None when it cannot be stat'ed."""
    try:
        st = stat(path)
    except (OSError, ValueError):
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


@dataclass(frozen=True)
class Change:
    """A watched path that changed: ``kind`` is ``added``, ``changed`` or ``removed``."""

    path: str
    kind: str


@dataclass
class _Pending:
    before: Snapshot  # the snapshot from before the burst
    deadline: float


class Watcher:
    """Debounced change detection over a growing set of paths (see the module docstring)."""

    def __init__(self, *, debounce: float = DEFAULT_DEBOUNCE, clock: Callable[[], float] = time.monotonic,
                 stat: StatFunction = os.stat) -> None:
        if debounce < 0:
            raise ValueError("debounce must not be negative")
        self.debounce = debounce
        self._clock = clock
        self._stat = stat
        self._seen: dict[str, Snapshot] = {}
        self._pending: dict[str, _Pending] = {}

    @property
    def paths(self) -> list[str]:
        """Every watched path, in the order they were added."""
        return list(self._seen)

    def add(self, paths: Iterable[str], *, announce: bool = False) -> list[str]:
        """Watch ``paths`` too (those already watched are left alone); returns the new ones.

        A new path is taken as it is now, quietly; with ``announce`` one that exists is
        told as ``added`` after the debounce (a file that appeared since the last look)."""
        new = []
        for path in paths:
            if path in self._seen:
                continue
            new.append(path)
            now = snapshot_of(path, self._stat)
            self._seen[path] = now
            if announce and now is not None:
                self._pending[path] = _Pending(None, self._clock() + self.debounce)
        return new

    def acknowledge(self, path: str) -> None:
        """``path`` was just written by us: its current state is no change.

        A change still pending from before our write stays pending (and is told when it
        differs from the file as it was before that burst)."""
        if path in self._seen:
            self._seen[path] = snapshot_of(path, self._stat)

    def pending(self) -> list[str]:
        """Paths with a change not told yet."""
        return list(self._pending)

    def poll(self) -> list[Change]:
        """Look at every watched path once; returns the changes whose debounce ran out
        (oldest deadline first)."""
        now = self._clock()
        for path, seen in self._seen.items():
            current = snapshot_of(path, self._stat)
            if current == seen:
                continue
            self._seen[path] = current
            pending = self._pending.get(path)
            if pending is None:
                self._pending[path] = _Pending(seen, now + self.debounce)
            else:
                pending.deadline = now + self.debounce
        due = sorted((p for p in self._pending.items() if p[1].deadline <= now), key=lambda item: item[1].deadline)
        changes = []
        for path, pending in due:
            del self._pending[path]
            after = self._seen[path]
            if after == pending.before:
                continue  # back where it began (or our own write acknowledged inside the burst)
            if pending.before is None:
                kind = "added"
            elif after is None:
                kind = "removed"
            else:
                kind = "changed"
            changes.append(Change(path, kind))
        return changes


def run(watcher: Watcher, handle: Callable[[Change], None], *, interval: float = DEFAULT_INTERVAL,
        rescan: Callable[[], None] | None = None, rescan_every: float = DEFAULT_RESCAN,
        stopped: Callable[[], bool] = lambda: False, sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic) -> None:
    """Poll ``watcher`` every ``interval`` seconds and hand each change to ``handle``;
    call ``rescan`` (which may :meth:`Watcher.add` paths) every ``rescan_every`` seconds;
    return once ``stopped()`` is true (checked after each sleep and each change)."""
    next_scan = clock() + rescan_every
    while not stopped():
        for change in watcher.poll():
            handle(change)
            if stopped():
                return
        if rescan is not None and clock() >= next_scan:
            rescan()
            next_scan = clock() + rescan_every
        if stopped():
            return
        sleep(interval)
