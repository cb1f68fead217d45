"""Reading and writing sidecar files safely: the engine's filesystem edge.

Every file access goes through :mod:`markmcp.mcpcore.files` (the one guarded layer):

* Reads refuse a FIFO, device, socket or folder without blocking, files over
  :data:`MAX_SIDECAR_BYTES` (``file-too-large``) and non-UTF-8 text
  (``encoding-error``); with ``places`` the file must resolve inside them
  (``path-escape``).  :func:`file_error` turns the layer's errors into MrsfErrors.
* ``version`` is the SHA-256 hex digest of a sidecar's bytes.
* :func:`transact` is the only way sidecars are changed: under a per-file lock
  (:func:`markmcp.mcpcore.files.locked`: a thread lock within the process plus an
  ``flock`` on ``.<sidecar name>.lock`` beside the sidecar, opened without following a
  symlink and removed again on release) it reads the current bytes, checks
  ``expected_version`` (mismatch: :class:`MrsfConflict`, nothing written), lets the
  caller change the parsed :class:`Sidecar`, splices the changed comments into the old
  text, proves the new text reads back as the intended data (reading back only the
  spliced comments when that decides the whole file), and replaces the file atomically.
  The model of what was written is kept for the next write of the same file: a write
  costs the size of the change, not of the file.
* Atomic replace (:func:`markmcp.mcpcore.files.write_atomic`): a temporary file created
  exclusively beside the sidecar is written, fsync'ed, given the old file's permission
  bits, renamed over the sidecar, and the directory is fsync'ed.  A writer killed at any
  moment leaves the old or the new file, never a mix; its leftover temporary file is
  removed by the next writer (:func:`markmcp.mcpcore.files.remove_stale_temps`).
"""

from __future__ import annotations

import copy
import hashlib
import os
import threading
from collections import OrderedDict
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

from markmcp.mcpcore import files
from markmcp.mcpcore.files import FileAccessError, Places

from .errors import MrsfConflict, MrsfError
from .sidecar import Sidecar, parse_sidecar, render

MAX_SIDECAR_BYTES = files.MAX_FILE_BYTES
MAX_DOCUMENT_BYTES = files.MAX_FILE_BYTES

#: The engine's error code for each code of the file-access layer.
_FILE_CODES = {
    "invalid-path": "invalid-argument",
    "outside": "path-escape",
    "not-found": "not-found",
    "is-directory": "invalid-argument",
    "not-regular": "not-regular",
    "symlink": "symlink",
    "too-large": "file-too-large",
    "not-utf8": "encoding-error",
    "io-error": "io-error",
}


def file_error(error: FileAccessError) -> MrsfError:
    """The MrsfError for an error of the file-access layer (same message)."""
    return MrsfError(_FILE_CODES.get(error.code, "io-error"), error.message, path=error.path)


@contextmanager
def _guarded() -> Iterator[None]:
    """Raise the file-access layer's errors as MrsfErrors."""
    try:
        yield
    except FileAccessError as error:
        raise file_error(error) from None


def version_of(data: bytes) -> str:
    """The version of a sidecar: SHA-256 hex of its bytes."""
    return hashlib.sha256(data).hexdigest()


def read_limited(path: Path, limit: int, what: str = "file", *, places: Places | None = None) -> bytes:
    """Bytes of the regular file ``path`` (inside ``places`` when given); ``not-found``,
    ``not-regular``, ``file-too-large``, ``path-escape`` or ``io-error`` otherwise."""
    with _guarded():
        return files.read_bytes(path, places=places, limit=limit, what=what)


def decode(data: bytes, path: Path, what: str = "file") -> str:
    """UTF-8 text of ``data`` or MrsfError ``encoding-error``."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise MrsfError("encoding-error", f"{path}: {what} is not UTF-8 (byte {exc.start})", path=str(path)) from None


def read_document(path: Path, *, places: Places | None = None) -> str:
    """Text of a Markdown document (size-limited, UTF-8)."""
    return decode(read_limited(path, MAX_DOCUMENT_BYTES, "document", places=places), path, "document")


@dataclass
class Loaded:
    """A sidecar as read from disk."""

    sidecar: Sidecar
    version: str
    text: str


@dataclass
class LoadedPlain:
    """A sidecar's data as plain Python (a private copy), with its version and text."""

    data: Any
    version: str
    text: str
    fmt: str


# ---------------------------------------------------------------------------
# Caches keyed by the exact bytes (version): a stale entry can never be returned
# ---------------------------------------------------------------------------
#
# Parsing YAML in round-trip mode is the engine's main cost (pure Python).  Two small
# per-process caches avoid repeating it:
# * plain data for readers (list/status/read), handed out as deep copies;
# * the parsed Sidecar of the text a writer just wrote, handed to the next writer of the
#   same file (taken out of the cache, under the file's lock: one owner at a time).  When
#   the file has meanwhile only grown by comments appended at its end (another process
#   added them), only the new part is read (:meth:`Sidecar.extend`).

CACHE_SIZE = 32
_cache_lock = threading.Lock()
_plain_cache: "OrderedDict[str, tuple[str, Any, str, str]]" = OrderedDict()
_writer_cache: "OrderedDict[str, tuple[str, Sidecar]]" = OrderedDict()


def _key(path: Path) -> str:
    return os.path.realpath(path)


def _remember(cache: OrderedDict, key: str, value: tuple) -> None:
    with _cache_lock:
        cache[key] = value
        cache.move_to_end(key)
        while len(cache) > CACHE_SIZE:
            cache.popitem(last=False)


def clear_caches() -> None:
    """Forget every cached parse (tests; or to bound memory)."""
    with _cache_lock:
        _plain_cache.clear()
        _writer_cache.clear()


def load(path: Path, *, places: Places | None = None) -> Loaded:
    """Read and parse a sidecar (no lock needed: writers replace files atomically)."""
    return parse_bytes(read_limited(path, MAX_SIDECAR_BYTES, "sidecar", places=places), path)


def parse_bytes(raw: bytes, path: Path) -> Loaded:
    """The sidecar ``path`` whose bytes were read as ``raw``, parsed (``encoding-error``,
    ``malformed-yaml``, ``malformed-json``, ``invalid-sidecar`` as :func:`load` raises them)."""
    text = decode(raw, path, "sidecar")
    return Loaded(parse_sidecar(text, name=str(path)), version_of(raw), text)


def load_plain(path: Path, *, places: Places | None = None) -> LoadedPlain:
    """The sidecar's data as plain Python (cached by version; the caller owns the copy)."""
    raw = read_limited(path, MAX_SIDECAR_BYTES, "sidecar", places=places)
    version = version_of(raw)
    key = _key(path)
    with _cache_lock:
        hit = _plain_cache.get(key)
    if hit is not None and hit[0] == version:
        return LoadedPlain(copy.deepcopy(hit[1]), version, hit[2], hit[3])
    text = decode(raw, path, "sidecar")
    sc = parse_sidecar(text, name=str(path))
    data = sc.plain()
    _remember(_plain_cache, key, (version, data, text, sc.fmt))
    return LoadedPlain(copy.deepcopy(data), version, text, sc.fmt)


def _take_parsed(path: Path, version: str, text: str) -> Sidecar | None:
    """The Sidecar a previous write left for exactly these bytes, removed from the cache;
    or, when the file has only grown by comments appended at its end since then (another
    process wrote), that Sidecar brought up to date by parsing just the new part."""
    key = _key(path)
    with _cache_lock:
        hit = _writer_cache.pop(key, None)
    if hit is None:
        return None
    if hit[0] == version:
        return hit[1]
    return hit[1] if hit[1].extend(text) else None


def current_version(path: Path, *, places: Places | None = None) -> str | None:
    """Version of the sidecar at ``path``, or None when it does not exist."""
    try:
        return version_of(read_limited(path, MAX_SIDECAR_BYTES, "sidecar", places=places))
    except MrsfError as exc:
        if exc.code == "not-found":
            return None
        raise


# ---------------------------------------------------------------------------
# Locking and writing (through the guarded file-access layer)
# ---------------------------------------------------------------------------


def lock_path(path: Path) -> Path:
    """The lock file guarding ``path`` (it exists only while a writer holds the lock)."""
    return files.lock_file_of(Path(os.path.realpath(path)))


@contextmanager
def locked(path: Path, *, places: Places | None = None) -> Iterator[Path]:
    """Hold the in-process and the cross-process lock of ``path`` (symlinks resolved, so
    every name of one file shares one lock); yields the resolved path.  A lock file that
    is a symlink or not a regular file is refused (``symlink``/``not-regular``)."""
    stack = ExitStack()
    try:
        target = stack.enter_context(files.locked(path, places=places))
    except FileAccessError as error:
        raise _about_the_sidecar(error, path) from None
    with stack:
        yield target


def _about_the_sidecar(error: FileAccessError, path: Path) -> MrsfError:
    """The MrsfError for a lock failure, naming the sidecar: the lock file's own name is
    an internal detail (what blocks it, e.g. a planted link, is still said)."""
    lock = lock_path(path)
    if error.path != os.fspath(lock):
        return file_error(error)
    detail = error.message.removeprefix(files.shown(lock)).lstrip(": ")
    if error.code == "not-found":
        detail = "its folder does not exist"
    elif detail.startswith("is "):
        detail = "the lock file " + detail
    return MrsfError(_FILE_CODES.get(error.code, "io-error"),
                     f"{files.shown(path)}: cannot write the sidecar: {detail}", path=str(path))


def refuse_link(path: Path, places: Places | None = None) -> None:
    """A sidecar path that is itself a symbolic link is never written through (nor
    removed): the sidecar is derived from its document, so a link planted there (or
    left dangling) must not send the write to whatever it points at."""
    if files.is_link(path):
        if places is not None:  # a link out of the allowed folders says so first
            with _guarded():
                places.check(Path(os.path.realpath(path)), path)
        raise MrsfError(
            "symlink", f"{files.shown(path)}: the sidecar is a symbolic link; refusing to write "
            "through it (replace the link with a regular file to write it)", path=str(path),
        )


def atomic_write(path: Path, data: bytes, *, mode: int | None = None, places: Places | None = None,
                 follow: bool = True) -> Path:
    """Replace ``path`` with ``data`` atomically; ``follow=False`` for a derived path (a
    backup), which must not be a symlink.  Returns the file written."""
    with _guarded():
        return files.write_atomic(path, data, places=places, follow=follow, mode=mode)


def verified_bytes(sc: Sidecar) -> bytes:
    """The new text of ``sc``, proved to read back as its data; the bytes to write."""
    return _verified(sc)[0]


def _verified(sc: Sidecar) -> tuple[bytes, Callable[[], Sidecar]]:
    """(bytes to write, a function giving the Sidecar of those bytes once written).

    The text splices only the changed comments into the old text; it is read back (only
    the spliced comments when that decides the whole file, else all of it) and must give
    exactly the intended data (:func:`.sidecar.render`), or MrsfError ``internal-error``
    and nothing is written.  The model handed on is ``sc`` itself brought up to date, or
    the parse made by the proof: the next write of this file parses nothing.
    """
    rendered = render(sc)
    return rendered.text.encode("utf-8"), rendered.adopt


# ---------------------------------------------------------------------------
# Transactions
# ---------------------------------------------------------------------------


@dataclass
class Outcome:
    """What :func:`transact` did."""

    result: Any
    previous_version: str | None
    version: str | None
    written: bool


def transact(
    path: Path,
    change: Callable[[Sidecar | None], tuple[Sidecar | None, Any]],
    *,
    expected_version: str | None = None,
    create_dirs: bool = False,
    lenient: bool = False,
    places: Places | None = None,
    mode: int | None = None,
    parsed: Loaded | None = None,
) -> Outcome:
    """Read-check-change-write one sidecar under its lock.

    ``change(sidecar_or_None)`` returns ``(new_sidecar_or_None, result)``; None (or a
    sidecar whose text is unchanged) means nothing is written.  An exception from
    ``change`` writes nothing.  ``lenient``: a sidecar that does not parse is handed to
    ``change`` as None instead of raising (for repair).  ``places``: every file used
    (sidecar, lock, folders created) must lie inside them.  ``mode``: permission bits of
    the written file (default: the old file's, or the umask's for a new one).
    ``parsed``: the caller's own parse of this sidecar (read before the lock was
    taken), handed to ``change`` when the file under the lock still has exactly those
    bytes (same version), instead of parsing them again; the caller must not have
    changed it.
    """
    refuse_link(path, places)
    if create_dirs:
        with _guarded():
            files.make_folders(path.parent, places=places)
    elif files.kind_of(path.parent) != "dir":
        raise MrsfError("not-found", f"{files.shown(path.parent)}: directory not found", path=str(path.parent))
    with locked(path, places=places) as target:
        files.remove_stale_temps(target)
        try:
            raw: bytes | None = read_limited(path, MAX_SIDECAR_BYTES, "sidecar", places=places)
        except MrsfError as exc:
            if exc.code != "not-found":
                raise
            raw = None
        current = version_of(raw) if raw is not None else None
        if expected_version is not None and expected_version != current:
            raise MrsfConflict(current, expected_version, str(path))
        try:
            text = decode(raw, path, "sidecar") if raw is not None else None
        except MrsfError:
            text = None  # reported by the parse below (or handed over as None when lenient)
        sc = _take_parsed(path, current, text) if text is not None else None
        if sc is None and parsed is not None and raw is not None and parsed.version == current:
            sc = parsed.sidecar
        if raw is not None and sc is None:
            try:
                sc = parse_sidecar(decode(raw, path, "sidecar"), name=str(path))
            except MrsfError as exc:
                if not lenient or exc.code not in ("malformed-yaml", "malformed-json", "invalid-sidecar", "encoding-error"):
                    if exc.code in ("malformed-yaml", "malformed-json", "invalid-sidecar"):
                        exc.message += "; nothing was written (the repair operation can salvage the comments)"
                        exc.args = (exc.message,)
                    raise
        new_sc, result = change(sc)
        if new_sc is None:
            return Outcome(result, current, current, False)
        data, adopt = _verified(new_sc)
        if raw is not None and data == raw:
            return Outcome(result, current, current, False)
        atomic_write(path, data, places=places, mode=mode, follow=False)
        version = version_of(data)
        _remember(_writer_cache, _key(path), (version, adopt()))
        return Outcome(result, current, version, True)


def remove(path: Path, *, expected_version: str | None = None, places: Places | None = None) -> None:
    """Delete a sidecar under its lock (used by rename after the new copy is written)."""
    refuse_link(path, places)
    with locked(path, places=places):
        current = current_version(path, places=places)
        if expected_version is not None and expected_version != current:
            raise MrsfConflict(current, expected_version, str(path))
        with _guarded():
            files.remove(path, places=places)
