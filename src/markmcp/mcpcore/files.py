"""Guarded file access: the one way every markmcp server and CLI touches a served file.

Every repository is treated as hostile: any path a tool is given or derives (a sidecar,
a backup, a lock, a temporary file, an artifact) may be a planted symlink, a FIFO, a
device or a huge file.  The functions here are the only ones that open such paths:

* :class:`Places` is the set of folders a caller may use.  :meth:`Places.resolve`
  resolves a path (``..`` collapsed, symlinks followed) and refuses one that leaves
  every folder.
* :func:`read_bytes` / :func:`read_text` refuse what is not a regular file *before*
  anything could block (``stat``, then ``open`` with ``O_NONBLOCK | O_NOFOLLOW``, then
  ``fstat`` of the descriptor, which must be the file that was checked), and refuse a
  file over the size limit (:data:`MAX_FILE_BYTES` unless the caller sets another)
  without reading it.
* :func:`walk` lists a folder's files for a folder-wide check: symlinked folders are
  not entered, and a symlinked file that leaves the allowed folders is reported, not
  read.
* :func:`write_atomic` replaces a file through a temporary file created exclusively
  (``O_CREAT | O_EXCL``, random name, never through a symlink) in the same folder,
  keeping the old file's permission bits (and owner, where allowed); the rename is
  atomic, so a writer killed at any moment leaves the old file or the new one.  A
  derived path (``follow=False``) that is a symlink is refused outright.
* :func:`locked` takes a writer's lock: a thread lock within the process and an
  ``flock`` on a lock file beside the target, created without following symlinks and
  removed again when the lock is released (so no lock files are left behind).

Errors are :class:`FileAccessError` with a ``code`` from :data:`CODES` and a one-line
message that names the path (shortened when very long, never echoing a whole
6,000-character argument).  Edges translate them into their own error channels.

This module uses only the standard library and is cheap to import (the CLIs use it).
"""

from __future__ import annotations

import errno
import os
import stat
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from markmcp.textsafe import rewrite_surrogates

MAX_FILE_BYTES = 10 * 1024 * 1024
"""The size limit of every document, sidecar, source and walked file (10 MiB)."""

MAX_PATH_CHARS = 4096
"""Longest path argument accepted (Linux's PATH_MAX); longer ones are refused unread."""

MAX_NAME_BYTES = 255
"""Longest file or folder name (one path component, in bytes) the common file systems take."""

SHOWN_PATH_CHARS = 160
"""Paths longer than this are shortened (middle elided) in messages."""

CHUNK = 256 * 1024

CODES = (
    "invalid-path",  # empty, NUL character, too long (whole path or one name in it)
    "outside",       # resolves outside every allowed folder
    "not-found",
    "is-directory",
    "not-regular",   # FIFO, device, socket
    "symlink",       # a derived path (backup, lock, temp) is a symbolic link
    "too-large",
    "not-utf8",
    "io-error",
)

_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_O_NOCTTY = getattr(os, "O_NOCTTY", 0)
_O_DIRECTORY = getattr(os, "O_DIRECTORY", 0)


class FileAccessError(Exception):
    """A path that may not or cannot be used; ``code`` is one of :data:`CODES`."""

    def __init__(self, code: str, message: str, path: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.path = path


# --- naming paths in messages ---------------------------------------------------------


def name_text(path: str | os.PathLike[str]) -> str:
    """A path as text any output can carry: file-name bytes that are not UTF-8 (which Python
    keeps as lone surrogates) appear as ``\\xNN``; nothing else changes."""
    raw = os.fspath(path)
    try:
        return os.fsencode(raw).decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # a lone surrogate no file name holds (it can only come from an argument)
        return raw.encode("utf-8", "backslashreplace").decode("utf-8")


def name_texts(value: Any) -> Any:
    """A result (JSON values) with every string that holds a lone surrogate rewritten by
    :func:`name_text`, so a file name that is not UTF-8 reads ``b\\xff.md`` and the result can
    be sent (no UTF-8 carries a lone surrogate); everything else is returned as it is."""
    return rewrite_surrogates(value, name_text)


def shown(path: str | os.PathLike[str]) -> str:
    """A path as message text: :func:`name_text`, control characters escaped, and a very
    long path shortened in the middle."""
    text = name_text(path)
    text = "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in text)
    if len(text) > SHOWN_PATH_CHARS:
        half = (SHOWN_PATH_CHARS - 1) // 2
        text = f"{text[:half]}…{text[-half:]} ({len(text)} characters)"
    return text


def check_argument(value: str | os.PathLike[str]) -> str:
    """The path text of an argument, or ``invalid-path`` (empty, NUL, over the length limit, or
    a name in it over :data:`MAX_NAME_BYTES`, which every file operation would refuse)."""
    text = os.fspath(value)
    if not isinstance(text, str):
        text = os.fsdecode(text)
    if not text:
        raise FileAccessError("invalid-path", "the path is empty")
    if "\x00" in text:
        raise FileAccessError("invalid-path", f"the path '{shown(text)}' contains a NUL character", text)
    if len(text) > MAX_PATH_CHARS:
        raise FileAccessError(
            "invalid-path", f"the path is too long ({len(text)} characters; the limit is {MAX_PATH_CHARS})"
        )
    try:
        encoded = os.fsencode(text)
    except UnicodeEncodeError:
        raise FileAccessError(
            "invalid-path", f"the path '{shown(text)}' holds a character no file name can (a lone surrogate)", text
        ) from None
    for name in encoded.split(b"/") if len(encoded) > MAX_NAME_BYTES else ():
        size = len(name)
        if size > MAX_NAME_BYTES:
            raise FileAccessError(
                "invalid-path",
                f"the path '{shown(text)}' has a name of {size} bytes; the limit is {MAX_NAME_BYTES}", text,
            )
    return text


def _os_error(error: OSError, path: str | os.PathLike[str], doing: str) -> FileAccessError:
    """Our error for an OSError met while ``doing`` something with ``path``."""
    name = shown(path)
    code = error.errno
    if code == errno.ENOENT:
        return FileAccessError("not-found", f"{name}: no such file or directory", os.fspath(path))
    if code == errno.EISDIR:
        return FileAccessError("is-directory", f"{name} is a directory", os.fspath(path))
    if code == errno.ENAMETOOLONG:
        return FileAccessError("invalid-path", f"{name}: a name in the path is too long", os.fspath(path))
    if code == errno.ELOOP:
        return FileAccessError("symlink", f"{name}: is a symbolic link (or a loop of them); refusing to {doing} it",
                               os.fspath(path))
    reason = error.strerror or type(error).__name__
    return FileAccessError("io-error", f"{name}: cannot {doing}: {reason}", os.fspath(path))


# --- where a caller may go --------------------------------------------------------------


@dataclass(frozen=True)
class Places:
    """The folders a caller may read (or write) in, resolved.

    ``hint`` ends the refusal message (e.g. how to allow another folder).
    """

    folders: tuple[Path, ...]
    hint: str = ""

    @classmethod
    def of(cls, folders: Iterable[str | os.PathLike[str]], hint: str = "") -> Places:
        unique: list[Path] = []
        for folder in folders:
            real = Path(os.path.realpath(folder))
            if real not in unique:
                unique.append(real)
        return cls(tuple(unique), hint)

    def holds(self, real: Path) -> bool:
        """Whether the resolved path ``real`` is one of the folders or lies below one."""
        return any(real == folder or real.is_relative_to(folder) for folder in self.folders)

    def check(self, real: Path, given: str | os.PathLike[str] | None = None) -> Path:
        """``real`` (already resolved) if it lies inside, else ``outside`` naming it."""
        if not self.holds(real):
            raise self.refusal(given if given is not None else real, real)
        return real

    def refusal(self, given: str | os.PathLike[str], real: Path) -> FileAccessError:
        folders = ", ".join(shown(folder) for folder in self.folders) or "none"
        where = f"resolves to {shown(real)}, " if os.fspath(given) != os.fspath(real) else ""
        message = f"path '{shown(given)}' {where}outside the allowed folders ({folders})"
        if self.hint:
            message += f"; {self.hint}"
        return FileAccessError("outside", message, os.fspath(given))

    def resolve(self, value: str | os.PathLike[str], base: str | os.PathLike[str]) -> Path:
        """``value`` taken from ``base``, resolved, and inside a folder; else a FileAccessError."""
        text = check_argument(value)
        try:
            real = Path(os.path.realpath(Path(base) / text))
        except OSError as error:  # ENAMETOOLONG and friends
            raise _os_error(error, text, "resolve") from None
        return self.check(real, text)


def resolve(value: str | os.PathLike[str], base: str | os.PathLike[str], places: Places | None) -> Path:
    """``value`` from ``base`` resolved (symlinks followed); confined to ``places`` when given."""
    if places is not None:
        return places.resolve(value, base)
    text = check_argument(value)
    try:
        return Path(os.path.realpath(Path(base) / text))
    except OSError as error:
        raise _os_error(error, text, "resolve") from None


# --- reading ------------------------------------------------------------------------------


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    return "not a regular file"


def _refuse_special(mode: int, path: str | os.PathLike[str], what: str) -> None:
    if stat.S_ISDIR(mode):
        raise FileAccessError("is-directory", f"{shown(path)} is a directory, not a {what}", os.fspath(path))
    if not stat.S_ISREG(mode):
        raise FileAccessError(
            "not-regular", f"{shown(path)} is {_kind(mode)}, not a regular file; it is never read", os.fspath(path)
        )


def _too_large(path: str | os.PathLike[str], what: str, limit: int, size: int | None) -> FileAccessError:
    amount = f"{size} bytes" if size is not None else f"over {limit} bytes"
    return FileAccessError(
        "too-large", f"{shown(path)}: the {what} is {amount}, over the {limit}-byte limit; it was not read",
        os.fspath(path),
    )


def read_bytes(
    path: str | os.PathLike[str],
    *,
    places: Places | None = None,
    limit: int = MAX_FILE_BYTES,
    what: str = "file",
    label: str | os.PathLike[str] | None = None,
) -> bytes:
    """The bytes of a regular file, never blocking and never reading more than ``limit``.

    ``path`` is resolved (symlinks followed) and, with ``places``, must lie inside them.
    A directory, FIFO, device or socket is refused before it is opened; the descriptor is
    opened without following a final symlink and must be the file that was checked.
    ``label`` names the file in messages (default: ``path``).
    """
    name = label if label is not None else path
    text = check_argument(path)
    fd = _open_regular(text, name, places, limit, what)
    try:
        chunks: list[bytes] = []
        total = 0
        while total <= limit:
            chunk = os.read(fd, min(CHUNK, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    except OSError as error:
        raise _os_error(error, name, "read") from None
    finally:
        os.close(fd)
    if total > limit:
        raise _too_large(name, what, limit, None)
    return b"".join(chunks)


OPEN_ATTEMPTS = 5
"""How often :func:`read_bytes` opens a file again that was replaced between its check and
its opening (a writer's atomic rename) before it gives up."""


def _open_regular(text: str, name: str | os.PathLike[str], places: Places | None, limit: int, what: str) -> int:
    """A descriptor of the regular file ``text`` resolves to, checked before and after
    opening.  When the name led to another file by the time it was opened (a writer
    renamed a new version over it), the check starts again."""
    for _ in range(OPEN_ATTEMPTS):
        try:
            real = os.path.realpath(text)
        except OSError as error:
            raise _os_error(error, name, "read") from None
        if places is not None:
            places.check(Path(real), name)
        try:
            before = os.stat(real)
        except OSError as error:
            raise _os_error(error, name, "read") from None
        _refuse_special(before.st_mode, name, what)
        if before.st_size > limit:
            raise _too_large(name, what, limit, before.st_size)
        try:
            fd = os.open(real, os.O_RDONLY | _O_NONBLOCK | _O_NOFOLLOW | _O_NOCTTY | _O_CLOEXEC)
        except OSError as error:
            raise _os_error(error, name, "read") from None
        try:
            after = os.fstat(fd)
            _refuse_special(after.st_mode, name, what)
        except OSError as error:
            os.close(fd)
            raise _os_error(error, name, "read") from None
        except BaseException:
            os.close(fd)
            raise
        if (after.st_dev, after.st_ino) == (before.st_dev, before.st_ino):
            return fd
        os.close(fd)
    raise FileAccessError("io-error", f"{shown(name)}: the file kept changing while it was opened; try again",
                          os.fspath(name))


def decode_utf8(data: bytes, label: str | os.PathLike[str], what: str = "file") -> str:
    """UTF-8 text of ``data``; ``not-utf8`` naming the first bad byte and its line otherwise."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise FileAccessError(
            "not-utf8",
            f"{shown(label)}: the {what} is not UTF-8 text (byte 0x{data[error.start]:02x} at offset {error.start}, "
            f"line {line})",
            os.fspath(label),
        ) from None


def read_text(
    path: str | os.PathLike[str],
    *,
    places: Places | None = None,
    limit: int = MAX_FILE_BYTES,
    what: str = "file",
    label: str | os.PathLike[str] | None = None,
) -> str:
    """:func:`read_bytes` decoded as UTF-8 (strict; line ends untouched)."""
    data = read_bytes(path, places=places, limit=limit, what=what, label=label)
    return decode_utf8(data, label if label is not None else path, what)


def kind_of(path: str | os.PathLike[str]) -> str | None:
    """``"file"``, ``"dir"``, ``"other"`` (FIFO, device, socket) or None (missing); follows symlinks."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISDIR(mode):
        return "dir"
    return "other"


def is_link(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` itself is a symbolic link (not followed); False when missing."""
    try:
        return stat.S_ISLNK(os.lstat(path).st_mode)
    except (OSError, ValueError):
        return False


def is_system_link(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a symbolic link that root made directly in a root folder no one
    else may write to (macOS ``/tmp``, a merged ``/usr``'s ``/bin``): no repository can
    plant one there.  False for anything else, or when it cannot be told."""
    link = Path(os.path.abspath(path))
    if link.parent != Path(link.anchor) or link == link.parent:
        return False
    try:
        top, entry = os.stat(link.parent), os.lstat(link)
    except (OSError, ValueError):
        return False
    return (top.st_uid == 0 and not top.st_mode & 0o022
            and stat.S_ISLNK(entry.st_mode) and entry.st_uid == 0)


# --- walking a folder --------------------------------------------------------------------


@dataclass(frozen=True)
class Found:
    """One file a walk found: ``path`` as found under the walked folder; ``problem`` says
    why it must not be read (a symlink leaving the allowed folders, a FIFO…), else None."""

    path: Path
    problem: FileAccessError | None = None


def utf16_order(name: str) -> bytes:
    """Names compared by UTF-16 code units (the order JavaScript tools sort listings in)."""
    return name.encode("utf-16-be", "surrogatepass")


def walk(
    folder: str | os.PathLike[str],
    *,
    accept: Callable[[str], bool],
    places: Places | None = None,
    skip_dirs: Iterable[str] = (".git", "node_modules"),
    order: Callable[[str], object] = utf16_order,
    enter: Callable[[Path], bool] | None = None,
) -> Iterator[Found]:
    """The accepted files below ``folder``, depth first, entries in ``order`` of their names
    (a subfolder walked where its name falls).

    ``enter`` (when given) is asked about each subfolder (not in ``skip_dirs``) just before
    it would be listed; False leaves it unlisted (an ignored build folder, say).

    Symlinked folders are never entered (no cycles, no escapes).  A file that is a
    symlink is resolved; outside ``places`` (default: ``folder`` itself) it is yielded
    with an ``outside`` problem and never opened.  A FIFO, device or socket with an
    accepted name is yielded with a ``not-regular`` problem.  An unreadable subfolder is
    yielded as a problem too; the walk goes on.
    """
    top = Path(folder)
    allowed = places if places is not None else Places.of([top])
    skipped = frozenset(skip_dirs)

    def listing(directory: Path) -> list[os.DirEntry[str]]:
        with os.scandir(directory) as scan:
            return sorted(scan, key=lambda entry: order(entry.name))

    try:
        stack = [iter(listing(top))]
    except OSError as error:
        raise _os_error(error, top, "list") from None
    while stack:
        entry = next(stack[-1], None)
        if entry is None:
            stack.pop()
            continue
        path = Path(entry.path)
        try:
            if entry.is_dir(follow_symlinks=False):
                if entry.name not in skipped and (enter is None or enter(path)):
                    try:
                        stack.append(iter(listing(path)))
                    except OSError as error:
                        yield Found(path, _os_error(error, path, "list"))
                continue
            if not accept(entry.name):
                continue
            if entry.is_symlink():
                real = Path(os.path.realpath(path))
                if not allowed.holds(real):
                    yield Found(path, allowed.refusal(path, real))
                    continue
            mode = os.stat(path).st_mode
        except OSError as error:
            yield Found(path, _os_error(error, path, "read"))
            continue
        if stat.S_ISDIR(mode):
            continue  # a symlink to a folder inside: not entered
        if not stat.S_ISREG(mode):
            yield Found(path, FileAccessError("not-regular", f"{shown(path)} is {_kind(mode)}; it is never read",
                                              os.fspath(path)))
            continue
        yield Found(path)


# --- writing ------------------------------------------------------------------------------


def _read_umask() -> int:
    """The process umask, read once at import (reading it means setting it: not thread-safe)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


UMASK = _read_umask()

#: Test hook: called after each chunk written to a temporary file (simulates a slow disk).
write_hook: Callable[[], None] | None = None

_abandoned = threading.local()


@contextmanager
def writes_abandoned_when(event: threading.Event) -> Iterator[None]:
    """Within this block (in this thread), :func:`write_atomic` renames nothing into place
    once ``event`` is set: a tool call whose request was cancelled while its thread still
    runs leaves the file as it was (a cancel that comes after the rename began is too late:
    the file is then written whole)."""
    previous = getattr(_abandoned, "event", None)
    _abandoned.event = event
    try:
        yield
    finally:
        _abandoned.event = previous


def _write_abandoned() -> bool:
    event = getattr(_abandoned, "event", None)
    return event is not None and event.is_set()


def target_of(path: str | os.PathLike[str], *, follow: bool) -> Path:
    """The file a write to ``path`` replaces.

    ``follow=True`` (a file the user named): symlinks are resolved, so a symlinked
    document is written at its target and the link stays a link.  ``follow=False`` (a
    path we derive: backup, lock, artifact): the folder is resolved, and the final name
    must not be a symlink (``symlink``).
    """
    text = check_argument(path)
    try:
        if follow:
            return Path(os.path.realpath(text))
        parent, name = os.path.split(os.path.abspath(text))
        target = Path(os.path.realpath(parent)) / name
        mode = os.lstat(target).st_mode
    except FileNotFoundError:
        return target
    except OSError as error:
        raise _os_error(error, path, "write") from None
    if stat.S_ISLNK(mode):
        raise FileAccessError(
            "symlink", f"{shown(path)} is a symbolic link; refusing to write through it", os.fspath(path)
        )
    return target


def temp_name(target: Path) -> str:
    """A fresh temporary file name beside ``target``: ``.NAME.<16 hex>.tmp``.

    (``os.urandom``, which is what ``secrets.token_hex`` reads, without importing ``secrets``
    and the hashing and random modules behind it on every server start.)"""
    return f".{target.name}.{os.urandom(8).hex()}.tmp"


def _is_our_temp(name: str, target: Path) -> bool:
    prefix = f".{target.name}."
    middle = name[len(prefix):-len(".tmp")] if name.startswith(prefix) and name.endswith(".tmp") else ""
    return len(middle) == 16 and all(ch in "0123456789abcdef" for ch in middle)


def remove_stale_temps(target: Path) -> int:
    """Remove temporary files a killed writer of ``target`` left (call with its lock held).

    Only names of exactly our pattern are touched; a symlink among them is removed as a
    link (its target is never touched).  Returns how many were removed.
    """
    removed = 0
    try:
        names = os.listdir(target.parent)
    except OSError:
        return 0
    for name in names:
        if _is_our_temp(name, target):
            try:
                os.unlink(target.parent / name)
                removed += 1
            except OSError:
                pass
    return removed


def write_atomic(
    path: str | os.PathLike[str],
    data: bytes,
    *,
    places: Places | None = None,
    follow: bool = True,
    mode: int | None = None,
) -> Path:
    """Replace (or create) the file at ``path`` with ``data``, atomically; returns the target.

    See :func:`target_of` for ``follow``.  With ``places``, the target must lie inside
    them.  An existing target must be a regular file; its permission bits are kept (and
    its owner and group, where the process may set them); a new file gets ``0o666`` less
    the umask unless ``mode`` is given.  The temporary file is created exclusively
    (``O_EXCL`` never follows a planted symlink) in the target's folder, written,
    ``fsync``'ed and renamed over the target; the folder is ``fsync``'ed after.
    """
    target = target_of(path, follow=follow)
    if places is not None:
        places.check(target, path)
    try:
        existing: os.stat_result | None = os.lstat(target)
    except FileNotFoundError:
        existing = None
    except OSError as error:
        raise _os_error(error, path, "write") from None
    if existing is not None:
        if stat.S_ISDIR(existing.st_mode):
            raise FileAccessError("is-directory", f"{shown(path)} is a directory; nothing was written", os.fspath(path))
        if not stat.S_ISREG(existing.st_mode):
            raise FileAccessError(
                "not-regular", f"{shown(path)} is {_kind(existing.st_mode)}; nothing was written", os.fspath(path)
            )
    if mode is None:
        mode = stat.S_IMODE(existing.st_mode) if existing is not None else 0o666 & ~UMASK
    directory = target.parent
    tmp = directory / temp_name(target)
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_NOFOLLOW | _O_CLOEXEC, 0o600)
    except OSError as error:
        raise FileAccessError(
            "io-error", f"{shown(path)}: cannot create a temporary file beside it: {error.strerror or error}; "
            "nothing was written", os.fspath(path),
        ) from None
    try:
        try:
            view = memoryview(data)
            for start in range(0, len(view), CHUNK):
                chunk = view[start:start + CHUNK]
                while chunk:
                    written = os.write(fd, chunk)
                    chunk = chunk[written:]
                if write_hook is not None:
                    write_hook()
            if existing is not None and (existing.st_uid, existing.st_gid) != (os.geteuid(), os.getegid()):
                try:
                    os.fchown(fd, existing.st_uid, existing.st_gid)
                except OSError:
                    pass  # not ours to give away: the new file keeps our ownership
            os.fchmod(fd, mode)
            os.fsync(fd)
        finally:
            os.close(fd)
        if _write_abandoned():
            _unlink_quietly(tmp)
            raise FileAccessError("io-error", f"{shown(path)}: the request was cancelled; nothing was written",
                                  os.fspath(path))
        os.replace(tmp, target)
    except OSError as error:
        _unlink_quietly(tmp)
        raise FileAccessError(
            "io-error", f"{shown(path)}: the write failed: {error.strerror or error}; the file was not changed",
            os.fspath(path),
        ) from None
    except BaseException:
        _unlink_quietly(tmp)
        raise
    sync_folder(directory)
    return target


def _unlink_quietly(path: Path) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def sync_folder(directory: Path) -> None:
    """``fsync`` a folder so a rename in it is durable (quietly skipped where unsupported)."""
    try:
        fd = os.open(directory, os.O_RDONLY | _O_DIRECTORY | _O_CLOEXEC)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError as error:
        if error.errno not in (errno.EINVAL, errno.EBADF, errno.ENOTSUP):
            raise
    finally:
        os.close(fd)


def remove(path: str | os.PathLike[str], *, places: Places | None = None) -> bool:
    """Delete the file at ``path`` (not following a final symlink: a link is removed as a
    link).  Returns False when there was nothing to delete."""
    target = Path(os.path.abspath(check_argument(path)))
    real_parent = Path(os.path.realpath(target.parent))
    if places is not None:
        places.check(real_parent / target.name, path)
    try:
        mode = os.lstat(real_parent / target.name).st_mode
    except FileNotFoundError:
        return False
    except OSError as error:
        raise _os_error(error, path, "delete") from None
    if stat.S_ISDIR(mode):
        raise FileAccessError("is-directory", f"{shown(path)} is a directory; nothing was deleted", os.fspath(path))
    try:
        os.unlink(real_parent / target.name)
    except FileNotFoundError:
        return False
    except OSError as error:
        raise _os_error(error, path, "delete") from None
    sync_folder(real_parent)
    return True


def make_folders(folder: str | os.PathLike[str], *, places: Places | None = None) -> Path:
    """Create ``folder`` and its missing parents, each checked to stay inside ``places``
    (a planted symlink among the parents cannot lead the creation outside)."""
    wanted = Path(os.path.abspath(check_argument(folder)))
    missing: list[Path] = []
    probe = wanted
    while not os.path.lexists(probe):
        missing.append(probe)
        if probe.parent == probe:
            break
        probe = probe.parent
    real = Path(os.path.realpath(probe))
    if kind_of(real) != "dir":
        raise FileAccessError("io-error", f"{shown(probe)} is not a folder; cannot create {shown(folder)} in it",
                              os.fspath(folder))
    if places is not None:
        places.check(real, probe)
    for step in reversed(missing):
        created = real / step.name
        try:
            os.mkdir(created)
        except FileExistsError:
            pass
        except OSError as error:
            raise _os_error(error, step, "create the folder") from None
        real = Path(os.path.realpath(created))
        if places is not None:
            places.check(real, step)
        if kind_of(real) != "dir":
            raise FileAccessError("io-error", f"{shown(step)} is not a folder", os.fspath(step))
    return real


# --- the writer's lock -----------------------------------------------------------------------

_thread_locks_guard = threading.Lock()
_thread_locks: dict[str, tuple[threading.Lock, int]] = {}


def lock_file_of(target: Path) -> Path:
    """The lock file that guards writes to ``target``: ``.NAME.lock`` beside it."""
    return target.parent / f".{target.name}.lock"


@contextmanager
def _thread_lock(key: str) -> Iterator[None]:
    with _thread_locks_guard:
        lock, users = _thread_locks.get(key, (threading.Lock(), 0))
        _thread_locks[key] = (lock, users + 1)
    try:
        with lock:
            yield
    finally:
        with _thread_locks_guard:
            lock, users = _thread_locks[key]
            if users == 1:
                del _thread_locks[key]
            else:
                _thread_locks[key] = (lock, users - 1)


@contextmanager
def locked(path: str | os.PathLike[str], *, places: Places | None = None) -> Iterator[Path]:
    """Hold the writer's lock of the file at ``path`` (symlinks resolved: every name of one
    file shares one lock); yields the resolved target.

    Within the process a thread lock; across processes an ``flock`` on
    :func:`lock_file_of` the target.  The lock file is opened without following a
    symlink and must be a regular file; after locking, the name must still lead to the
    locked file (a releasing writer may have just removed it), else the lock is taken
    again.  On release the lock file is removed while still locked, so none is left
    behind and a waiter on the removed file notices and retries.
    """
    import fcntl  # POSIX only; imported here so the module imports anywhere

    target = target_of(path, follow=True)
    if places is not None:
        places.check(target, path)
    lock_path = lock_file_of(target)
    with _thread_lock(str(target)):
        while True:
            try:
                fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | _O_NOFOLLOW | _O_NONBLOCK | _O_CLOEXEC, 0o600)
            except OSError as error:
                if error.errno == errno.ELOOP:
                    raise FileAccessError(
                        "symlink", f"{shown(lock_path)}: the lock file is a symbolic link; refusing to use it",
                        os.fspath(lock_path),
                    ) from None
                raise _os_error(error, lock_path, "create the lock file") from None
            try:
                held = os.fstat(fd)
                if not stat.S_ISREG(held.st_mode):
                    raise FileAccessError(
                        "not-regular", f"{shown(lock_path)}: the lock file is {_kind(held.st_mode)}; refusing to use it",
                        os.fspath(lock_path),
                    )
                fcntl.flock(fd, fcntl.LOCK_EX)
                try:
                    now = os.lstat(lock_path)
                except FileNotFoundError:
                    now = None
            except BaseException:
                os.close(fd)
                raise
            if now is not None and (now.st_dev, now.st_ino) == (held.st_dev, held.st_ino):
                break
            os.close(fd)  # the lock file was replaced or removed while we waited: take the new one
        try:
            yield target
        finally:
            try:
                os.unlink(lock_path)
            except OSError:
                pass
            try:
                fcntl.flock(fd, fcntl.LOCK_UN)
            finally:
                os.close(fd)
