"""The little git the engine needs, through ``git`` subprocesses with timeouts.

Nothing here raises to callers: when git is missing, the directory is not a repository,
the commit is unknown or git hangs past the timeout, the functions return None (or
False) and the engine falls back to text-only behaviour.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from markmcp import gitsafe
from markmcp.mcpcore.files import FileAccessError, kind_of, read_bytes

GIT_TIMEOUT = 10.0
MAX_OUTPUT_BYTES = 32 * 1024 * 1024
#: a commit-ish we pass to git: hex ids and simple ref names, never an option
_REV = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/\-~^]{0,199}")


def _run(args: list[str], cwd: str | os.PathLike, *, timeout: float | None = None) -> tuple[int, bytes] | None:
    """(exit code, stdout) of ``git args`` in ``cwd``, or None when git could not run
    (missing, failed to start, still running after the timeout or writing more than
    :data:`MAX_OUTPUT_BYTES`: it is killed).  The repository's own commands (hooks,
    file-system monitor, filters, transports) never run: :mod:`markmcp.gitsafe`."""
    try:
        result = gitsafe.run(args, cwd, timeout=GIT_TIMEOUT if timeout is None else timeout,
                             max_output=MAX_OUTPUT_BYTES)
    except gitsafe.GitError:
        return None
    return result.returncode, result.stdout


def is_available() -> bool:
    """True when a ``git`` executable runs."""
    result = _run(["--version"], os.getcwd())
    return result is not None and result[0] == 0


def repo_root(path: str | os.PathLike) -> Path | None:
    """Top-level directory of the git work tree containing ``path``, or None."""
    start = Path(os.path.abspath(path))
    if kind_of(start) != "dir":
        start = start.parent
    if kind_of(start) != "dir":
        return None
    result = _run(["rev-parse", "--show-toplevel"], start)
    if result is None or result[0] != 0:
        return None
    # the path as git wrote it, bytes included, less its newline (a folder's name may end in
    # a space, or not be UTF-8)
    text = os.fsdecode(result[1].removesuffix(b"\n"))
    return Path(text) if text else None


def head_commit(repo: str | os.PathLike) -> str | None:
    """Full SHA of HEAD, or None (no repository, or no commit yet)."""
    result = _run(["rev-parse", "--verify", "-q", "HEAD"], repo)
    if result is None or result[0] != 0:
        return None
    sha = result[1].decode("ascii", "replace").strip()
    return sha or None


def resolve_commit(repo: str | os.PathLike, commit: str) -> str | None:
    """Full SHA of a commit-ish known to the repository, or None."""
    if not isinstance(commit, str) or not _REV.fullmatch(commit):
        return None
    result = _run(["rev-parse", "--verify", "-q", f"{commit}^{{commit}}"], repo)
    if result is None or result[0] != 0:
        return None
    return result[1].decode("ascii", "replace").strip() or None


def rel_in_repo(repo: Path, path: str | os.PathLike) -> str | None:
    """``path`` relative to the repository top level (POSIX), or None if outside."""
    try:
        return Path(os.path.realpath(path)).relative_to(Path(os.path.realpath(repo))).as_posix()
    except ValueError:
        return None


def show_file(repo: str | os.PathLike, commit: str, path: str | os.PathLike) -> str | None:
    """Text of ``path`` (absolute, or relative to the repository) at ``commit``, or None."""
    if not isinstance(commit, str) or not _REV.fullmatch(commit):
        return None
    rel = rel_in_repo(Path(repo), path) if os.path.isabs(os.fspath(path)) else os.fspath(path)
    if rel is None:
        return None
    result = _run(["cat-file", "blob", f"{commit}:{rel}"], repo)
    if result is None or result[0] != 0:
        return None
    try:
        return result[1].decode("utf-8")
    except UnicodeDecodeError:
        return None


def changed_since(repo: str | os.PathLike, commit: str, path: str | os.PathLike) -> bool | None:
    """Whether ``path`` in the work tree differs from its content at ``commit``.

    None when that cannot be told (no git, unknown commit, path outside the repository).
    A file that did not exist at ``commit`` counts as changed.
    """
    if resolve_commit(repo, commit) is None:
        return None
    rel = rel_in_repo(Path(repo), path) if os.path.isabs(os.fspath(path)) else os.fspath(path)
    if rel is None:
        return None
    old = show_file(repo, commit, rel)
    try:
        current = read_bytes(Path(repo) / rel, what="document").decode("utf-8")
    except (FileAccessError, UnicodeDecodeError):
        current = None
    if old is None or current is None:
        return old is not None or current is not None
    return old.replace("\r\n", "\n") != current.replace("\r\n", "\n")


def staged_files(repo: str | os.PathLike) -> list[str] | None:
    """Paths (relative to the repository's top) of the files added, copied, modified or
    renamed in the index, or None when git cannot tell."""
    result = _run(["diff", "--cached", "--name-only", "--no-renames", "--diff-filter=ACMR", "-z",
                   "--ignore-submodules=all"], repo)
    if result is None or result[0] != 0:
        return None
    return [os.fsdecode(name) for name in result[1].split(b"\0") if name]
