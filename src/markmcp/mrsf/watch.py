"""A polling file watcher for ``mrsf watch``: no threads, no notification library.

:class:`Watcher` keeps one :class:`Snapshot` per watched path (``st_mtime_ns``,
``st_ctime_ns``, ``st_size``, ``st_ino`` from :func:`os.stat`, and while the file changed
recently a digest of its content; None while the path is missing) and compares it with a
fresh one at every :meth:`Watcher.poll`.  A path that differs becomes *pending*; every
further difference pushes its deadline ``debounce`` seconds on, so a burst of writes (an
editor saving through a temporary file, a formatter run) is one change, told once the
path has been quiet for ``debounce`` seconds.  What is told compares the snapshot from
before the burst with the one at the end: ``added`` (missing before), ``removed``
(missing now: told once, the path stays watched and comes back as ``added``) or
``changed``; a path that ends as it began is not told.

Why a digest: a file system stamps a change with a coarse clock (a few milliseconds on
ext4, two seconds on FAT), so two writes of the same size within one tick leave the same
stat behind.  A change made after a look, though, is stamped no earlier than one tick
before that look.  So while a file's change time is less than :data:`RECENT_NS` away from
the wall clock at the look, the snapshot also holds a digest of the bytes, and the next
look that finds the same stat reads the file again to compare, however late it comes.
Once a look finds the change time older than that, any later write moves it: the digest
is dropped and the file is not read again until its stat changes.  A settled file costs
one stat per poll, as before.

The change time is the ctime on POSIX systems: the kernel sets it at every write,
rename or ``os.utime`` and no call sets it to a chosen time, so a rewrite that puts the old
mtime back (``touch -r``, a copy that keeps times) still moves it, however old the file,
and an mtime dated into the future costs no reads.  Elsewhere (Windows, where the ctime
is the creation time) it is the mtime.  Limits: a file on a file system whose clock is
more than :data:`RECENT_NS` off ours (a network share with a skewed server), one over
:data:`MAX_DIGEST_BYTES`, and on Windows a settled file whose mtime is put back, are
compared by their stat alone.  A change of permissions moves the ctime too and is told
as a change.

The content is read only through :func:`markmcp.mcpcore.files.read_bytes`: a FIFO,
device or socket is never opened for reading (it could block), a file over the limit is
never read, and a symlink is followed as :func:`os.stat` follows it.

The watcher's own writes: after writing a watched file, the caller hands its path to
:meth:`Watcher.acknowledge`, which takes the file's snapshot as it is now as the one to
compare with.  The write itself is then no change, while an edit made after it differs
from that snapshot and is told; nothing is a flag that could swallow that edit.

Paths are only ever added (:meth:`Watcher.add`): a file that goes away stays watched.
:func:`run` is the loop (poll, hand each change over, rescan now and then, sleep).  The
clocks, the sleep, the stat and the digest function are parameters, so the logic is
tested without a file system and without waiting.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import NamedTuple

from markmcp.mcpcore import files

StatFunction = Callable[[str], os.stat_result]
DigestFunction = Callable[[str], "bytes | None"]

DEFAULT_DEBOUNCE = 0.3
DEFAULT_INTERVAL = 0.25
DEFAULT_RESCAN = 2.0

RECENT_NS = 3 * 10**9
"""A file whose change time is less than this away from the look (3 s: over the 2 s tick
of the coarsest file systems in use, FAT's, with a second to spare) is compared by content too."""

_CTIME_IS_CHANGE = os.name == "posix"  # elsewhere st_ctime is the creation time

MAX_DIGEST_BYTES = files.MAX_FILE_BYTES
"""The largest file whose content is compared.  The engine refuses to read a larger
document or sidecar anyway, so a rewrite of one that keeps its stat loses nothing it
could act on; and a recent file is read once a poll for a few seconds, so the cap also
bounds what a huge file planted in the workspace can cost."""


def digest_of(path: str) -> bytes | None:
    """A digest of the bytes of the regular file ``path`` (symlinks followed); None when it
    is not a regular file, is over :data:`MAX_DIGEST_BYTES` or cannot be read (then the
    stat alone tells a change).  Never opens a FIFO or device for reading, never reads
    past the cap."""
    try:
        data = files.read_bytes(path, limit=MAX_DIGEST_BYTES)
    except (files.FileAccessError, OSError, ValueError):
        return None
    return hashlib.blake2b(data, digest_size=16).digest()


class Snapshot(NamedTuple):
    """What one look at an existing path found: its stat and, while its change time is
    recent, a digest of its content (None otherwise, or when it could not be read).  Two
    are the same file when they are equal: a digest against none counts as a difference
    (told, never lost)."""

    stamp: tuple[int, int, int, int]  # (mtime_ns, ctime_ns, size, inode)
    digest: bytes | None = None


@dataclass(frozen=True)
class Change:
    """A watched path that changed: ``kind`` is ``added``, ``changed`` or ``removed``."""

    path: str
    kind: str


@dataclass
class _Pending:
    before: Snapshot | None  # the snapshot from before the burst
    deadline: float


class Watcher:
    """Debounced change detection over a growing set of paths (see the module docstring)."""

    def __init__(self, *, debounce: float = DEFAULT_DEBOUNCE, clock: Callable[[], float] = time.monotonic,
                 stat: StatFunction = os.stat, wall_clock: Callable[[], int] = time.time_ns,
                 digest: DigestFunction = digest_of) -> None:
        """``clock`` (seconds, monotonic) times the debounce; ``wall_clock`` (nanoseconds
        since the epoch, as file times are) tells whether a file changed recently."""
        if debounce < 0:
            raise ValueError("debounce must not be negative")
        self.debounce = debounce
        self._clock = clock
        self._stat = stat
        self._wall_clock = wall_clock
        self._digest = digest
        self._seen: dict[str, Snapshot | None] = {}
        self._pending: dict[str, _Pending] = {}

    def look(self, path: str, before: Snapshot | None = None, wall: int | None = None) -> tuple[Snapshot | None, bool]:
        """(the snapshot of ``path`` now, whether it changed recently); None when it cannot
        be stat'ed.  The content is digested when it changed recently, or when ``before``
        holds a digest and the same stat (a rewrite inside one tick of the clock).  ``wall``:
        the wall clock's time (default: asked now)."""
        try:
            st = self._stat(path)
        except (OSError, ValueError):
            return None, False
        stamp = (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino)
        if wall is None:
            wall = self._wall_clock()
        changed = st.st_ctime_ns if _CTIME_IS_CHANGE else st.st_mtime_ns
        recent = -RECENT_NS < wall - changed < RECENT_NS
        if before is not None and before.stamp == stamp:
            if before.digest is None and not recent:
                return before, False  # settled and unchanged: the common case, nothing new to build
            return Snapshot(stamp, self._digest(path)), recent
        return Snapshot(stamp, self._digest(path) if recent else None), recent

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
            now = self.look(path)[0]
            self._seen[path] = now
            if announce and now is not None:
                self._pending[path] = _Pending(None, self._clock() + self.debounce)
        return new

    def acknowledge(self, path: str) -> None:
        """``path`` was just written by us: its current state is no change.

        A change still pending from before our write stays pending (and is told when it
        differs from the file as it was before that burst)."""
        if path in self._seen:
            self._seen[path] = self.look(path)[0]

    def pending(self) -> list[str]:
        """Paths with a change not told yet."""
        return list(self._pending)

    def poll(self) -> list[Change]:
        """Look at every watched path once; returns the changes whose debounce ran out
        (oldest deadline first)."""
        now, wall = self._clock(), self._wall_clock()
        for path, seen in self._seen.items():
            current, recent = self.look(path, seen, wall)
            same = current == seen
            if current is not None and current.digest is not None and not recent:
                current = Snapshot(current.stamp)  # settled: a later write moves the stat, no need to read it again
            self._seen[path] = current
            if same:
                continue
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
