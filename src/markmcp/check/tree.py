"""Which files a check looks at: the tree walk, files named directly, git's changes and
the shard.

* A folder is walked with :func:`markmcp.mcpcore.files.walk`: ``.git`` and
  ``node_modules`` are skipped, symlinked folders are never entered, a symlinked file
  is reported and never read nor written through (one that leads out of the folder as
  ``outside``, one inside as ``symlink``: its target is checked only under its own
  name), and git's ignore rules hold (every ``.gitignore`` from the repository's top
  down to each folder, except one that is a symlink, which git does not read either; an
  ignored folder is not entered).
  Files are taken by name: Markdown (``.md``, ``.markdown``; the VisiMark check then
  tells whether it is a VisiMark document), FigDown sources
  (``.fd``) and MRSF sidecars (``.review.yaml``, ``.review.json``).
* A file named directly is checked whatever the ignore rules say, with what belongs to
  it: a Markdown file's sidecar, an ``.svg``'s ``.fd`` source, a sidecar's document is
  the sidecar's business.  A symlink in a named path never leads out of the tree it is
  named in (:func:`leads_out`): such a file is reported and not read, such a folder
  not walked.  A named file that is itself a symlink is reported and not read, as in a
  walk (a symlinked folder on the way, inside the tree, is followed).
* A folder the walk cannot list (nested past the system's path limit, no permission)
  is reported as not read, under :data:`~.findings.FOLDER` (it belongs to no engine).
* ``--changed-since REV``: the files git lists as changed between ``REV`` and the work
  tree (staged or not) plus the untracked files it does not ignore.  The tasks are still
  found by the walk; each task then checks whether it or what it depends on changed.
* ``--shard I/N``: a task belongs to shard ``1 + h mod N``, ``h`` the SHA-256 of its
  path relative to the repository's top folder (the working folder outside a
  repository), so every machine of a CI matrix agrees on the split whatever folder it
  checked the repository out to.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from markmcp import gitsafe
from markmcp.mcpcore import files
from markmcp.mcpcore.files import FileAccessError

from .engines import FIGDOWN_SUFFIX, SIDECAR_SUFFIXES, engine_of
from .findings import FOLDER, unreadable
from .ignore import Ignorer

GIT_TIMEOUT = 60.0
GIT_MAX_OUTPUT = 256 * 1024 * 1024
"""A list of changed names longer than this stops the check (git is killed)."""
IGNORE_FILE = ".gitignore"


class TreeError(Exception):
    """The check cannot run as asked (a missing path, a bad revision): exit 2."""


@dataclass
class Plan:
    """The tasks to run (``(engine, path, label)``; listed by :func:`plan_for`, given one by
    one by :func:`start`), the outcomes the walk already knows (files found but not
    readable), and the folder paths are measured from."""

    top: Path
    tasks: list[tuple[str, str, str]] = field(default_factory=list)
    known: list[dict[str, Any]] = field(default_factory=list)
    seen: set[tuple[str, str]] = field(default_factory=set)
    foreign: list[str] = field(default_factory=list)
    """Files named on the command line that no engine owns (as named): warned about."""

    def take(self, engine: str, path: str, label: str, *, walked: bool = False) -> tuple[str, str, str] | None:
        """The task of a file, or None when it is one already: a walked file is known by
        its absolute path (a walk enters no symlinked folder, so it meets each path once),
        a named one by its resolved path too, so the same file named twice, or named and
        walked, is one task."""
        absolute = os.path.abspath(path)
        keys = [(engine, absolute)] if walked else [(engine, absolute), (engine, os.path.realpath(path))]
        if any(key in self.seen for key in keys):
            return None
        self.seen.update(keys)
        return (engine, absolute, label)


def repository_top(start: Path) -> Path | None:
    """The nearest folder at or above ``start`` holding ``.git`` (a folder, or the file a
    worktree or submodule has), or None."""
    here = Path(os.path.abspath(start))
    for candidate in (here, *here.parents):
        if files.kind_of(candidate / ".git") in ("dir", "file"):
            return candidate
    return None


def _label(path: str) -> str:
    """A walked path as shown: without a leading ``./``."""
    while path.startswith("./"):
        path = path[2:]
    return path


def _read_ignore(folder: Path) -> str | None:
    """The ``.gitignore`` of a folder, or None (absent, a symlink, which git does not
    follow either, or not a readable regular file)."""
    path = folder / IGNORE_FILE
    if files.is_link(path) or files.kind_of(path) is None:
        return None
    try:
        return files.read_text(path, what="ignore file")
    except FileAccessError:
        return None


def _posix(path: Path, top: Path) -> str | None:
    """``path`` relative to ``top``, POSIX ('' for ``top`` itself), or None when outside."""
    try:
        rel = path.relative_to(top).as_posix()
    except ValueError:
        return None
    return "" if rel == "." else rel


def folder_tasks(plan: Plan, folder: str, *, ignore: bool = True) -> Iterator[tuple[str, str, str]]:
    """The tasks below ``folder``, as the walk finds them (a file found but not readable
    goes to ``plan.known`` meanwhile)."""
    start = Path(os.path.abspath(folder))
    top = repository_top(start) or start
    rules = Ignorer()
    if ignore:
        chain = [start, *start.parents]
        for candidate in reversed(chain[: chain.index(top) + 1] if top in chain else [start]):
            text = _read_ignore(candidate)
            if text is not None:
                rules.add(_posix(candidate, top) or "", text)
        if rules.rules and (rel := _posix(start, top)) and rules.ignored(rel, True):
            return  # the folder itself is ignored

    def enter(path: Path) -> bool:
        if not ignore:
            return True
        absolute = Path(os.path.abspath(path))
        rel = _posix(absolute, top)
        if rel is None:
            return True
        if rules.ignored(rel, True):
            return False
        text = _read_ignore(absolute)
        if text is not None:
            rules.add(rel, text)
        return True

    top_prefix = str(top).rstrip("/") + "/"
    for found in files.walk(folder, accept=lambda name: engine_of(name) is not None, enter=enter):
        text = str(found.path)
        label = _label(text)
        if ignore and rules.rules:
            absolute = os.path.abspath(text)
            if absolute.startswith(top_prefix) and rules.ignored(absolute[len(top_prefix):], False):
                continue
        engine = engine_of(found.path.name)
        if engine is None:  # a folder the walk could not list (too deep, no permission): said, not hidden
            problem = found.problem or FileAccessError("io-error", f"{files.shown(text)}: cannot list")
            plan.known.append(unreadable(FOLDER, label, problem.code, problem.message))
            continue
        if found.problem is not None:
            plan.known.append(unreadable(engine, label, found.problem.code, found.problem.message))
            continue
        if files.is_link(found.path):  # in the tree, but a link all the same: not read
            plan.known.append(symlinked(engine, label))
            continue
        task = plan.take(engine, text, label, walked=True)
        if task is not None:
            yield task


def system_top(path: Path) -> tuple[Path, tuple[str, ...]]:
    """The real folder an absolute path starts in, and the parts below it.

    The first folder is followed when it is one of the system's own links, made by root
    in a root folder that no one else may write to (macOS ``/tmp`` and ``/var`` lead to
    ``/private/...``; a merged ``/usr`` makes ``/bin`` and ``/lib`` links): no repository
    can plant one there. Any other first folder is kept as written."""
    anchor = Path(path.anchor)
    parts = path.parts[1:]
    if not parts:
        return anchor, parts
    first = anchor / parts[0]
    if not files.is_system_link(first):
        return anchor, parts
    return Path(os.path.realpath(first)), parts[1:]


def leads_out(path: str) -> FileAccessError | None:
    """Why a path named on the command line is not followed, or None.

    A path is taken where it is named, anywhere; but a symlink in it (the file itself,
    or a folder on the way) must not lead out of the tree it is named in, as no walked
    one may: the repository holding the working folder (or the working folder) for a
    path below it, else the repository holding the path's last folder that is not a
    symlink (or that folder; the system's own top-level links do not count as symlinks
    here, see :func:`system_top`)."""
    lexical = Path(os.path.abspath(path))
    real = Path(os.path.realpath(path))
    if real == lexical:
        return None
    here = Path.cwd()
    if lexical.is_relative_to(here):
        home = repository_top(here) or here
    else:
        base, parts = system_top(lexical.parent)
        for part in parts:
            if files.is_link(base / part):
                break
            base = base / part
        home = repository_top(base) or base
    allowed = files.Places.of([home])
    return None if allowed.holds(real) else allowed.refusal(path, real)


def symlinked(engine: str, label: str) -> dict[str, Any]:
    """The outcome of a file that is itself a symbolic link (one inside the tree; one that
    leads out is refused as ``outside``): reported, never read nor written through, so a
    link planted in a repository cannot make the check (or ``--fix``) act on its target,
    and a file is not checked twice, as the link and as its target."""
    return unreadable(engine, label, "symlink",
                      f"{files.shown(label)} is a symbolic link; the check never reads or writes through one: "
                      "the file it points to is checked only under its own name")


def named_file_tasks(plan: Plan, path: str) -> Iterator[tuple[str, str, str]]:
    """The tasks of a file named on the command line and of the files that belong to it
    (one a symlink leads out of the tree with goes to ``plan.known``, never read)."""
    label = _label(path)
    name = os.path.basename(path)
    engine = engine_of(name)
    out = leads_out(path)
    if engine is not None:
        if out is not None:
            plan.known.append(unreadable(engine, label, out.code, out.message))
            return
        if files.is_link(path):
            plan.known.append(symlinked(engine, label))
            return
        if (task := plan.take(engine, path, label)) is not None:
            yield task
    if out is not None:
        return
    for related, related_label in related_files(path, label):
        if files.kind_of(related) == "file":
            related_engine = engine_of(os.path.basename(related))
            if related_engine is None:
                continue
            if (away := leads_out(related)) is not None:
                plan.known.append(unreadable(related_engine, related_label, away.code, away.message))
            elif files.is_link(related):
                plan.known.append(symlinked(related_engine, related_label))
            elif (task := plan.take(related_engine, related, related_label)) is not None:
                yield task


def related_files(path: str, label: str) -> list[tuple[str, str]]:
    """The task files a change to ``path`` concerns besides itself: a document's sidecars,
    an artifact's source."""
    lower = path.lower()
    if lower.endswith(".svg"):
        return [(path[: -len(".svg")] + FIGDOWN_SUFFIX, label[: -len(".svg")] + FIGDOWN_SUFFIX)]
    if engine_of(os.path.basename(path)) == "visimark":
        return [(path + suffix, label + suffix) for suffix in SIDECAR_SUFFIXES]
    return []


FOREIGN = ("no engine checks a file of this kind (Markdown, a .fd source, the .svg built from one, "
           "a .review.yaml or .review.json sidecar)")


def plan_for(paths: list[str]) -> Plan:
    """The tasks for the PATH arguments (default ``.``), every one found before this returns."""
    plan, tasks = start(paths)
    plan.tasks.extend(tasks)
    return plan


def start(paths: list[str]) -> tuple[Plan, Iterator[tuple[str, str, str]]]:
    """The plan for the PATH arguments (default ``.``) and its tasks, found lazily: each
    argument is checked here (a missing one is a TreeError before anything is walked), the
    walk happens as the tasks are taken, so checking can start while it goes on.  The
    tasks come in walk order, each file once; ``plan.known`` is complete once they are
    all taken."""
    arguments = paths or ["."]
    first = Path(os.path.abspath(arguments[0]))
    plan = Plan(top=repository_top(first if files.kind_of(first) == "dir" else first.parent) or Path.cwd())
    checked: list[tuple[str, str | None]] = []
    for argument in arguments:
        try:
            text = files.check_argument(argument)
        except FileAccessError as error:
            raise TreeError(error.message) from None
        kind = files.kind_of(text)
        if kind is None:
            raise TreeError(f"{files.shown(text)}: no such file or folder")
        if kind == "dir" and (out := leads_out(text)) is not None:
            raise TreeError(f"{out.message}; a folder a symlink leads out of the tree with is not walked")
        if kind != "dir" and engine_of(os.path.basename(text)) is None and not related_files(text, text):
            plan.foreign.append(text)  # /etc/passwd, a CSV: nothing here checks it
            continue
        checked.append((text, kind))
    if not checked:
        names = ", ".join(files.shown(text) for text in plan.foreign)
        raise TreeError(f"{names}: {FOREIGN}; nothing to check")

    def tasks() -> Iterator[tuple[str, str, str]]:
        for text, kind in checked:
            if kind == "dir":
                yield from folder_tasks(plan, text)
            else:
                yield from named_file_tasks(plan, text)

    return plan, tasks()


# --- git ----------------------------------------------------------------------------------


def _git(args: list[str], cwd: Path, *, work_tree: bool = False, silent_failure: str = "") -> bytes:
    """Standard output of ``git args``; a :class:`TreeError` when it fails, worded
    ``silent_failure`` when git said nothing about why (``rev-parse --quiet``)."""
    try:
        done = gitsafe.run(args, cwd, timeout=GIT_TIMEOUT, max_output=GIT_MAX_OUTPUT, work_tree=work_tree)
    except gitsafe.GitError as error:
        if error.missing:
            raise TreeError("--changed-since needs git, and no git command was found") from None
        raise TreeError(error.message) from None
    if done.returncode != 0:
        if silent_failure and not done.stderr.strip():
            raise TreeError(silent_failure)
        raise TreeError(f"git {args[0]} failed: {done.first_error_line}")
    return done.stdout


def changed_since(revision: str, where: Path) -> frozenset[str]:
    """Resolved paths of every file that differs between ``revision`` and the work tree of
    the repository holding ``where`` (deleted ones included), and of every untracked file
    git does not ignore."""
    if not revision or revision.startswith("-") or "\x00" in revision:
        raise TreeError(f"--changed-since: {revision!r} is not a revision")
    # less the newline only: a folder's name may end in a space
    try:
        top_text = os.fsdecode(_git(["rev-parse", "--show-toplevel"], where).removesuffix(b"\n"))
    except TreeError as error:
        if "not a git repository" in str(error):  # say what is wanted, then git's own words
            raise TreeError(f"--changed-since needs a git repository; {error}") from None
        raise
    top = Path(top_text)
    # an unknown revision fails without a word; any other failure says what it was (a
    # repository whose core.worktree names a folder git cannot find it from)
    _git(["rev-parse", "--verify", "--quiet", "--end-of-options", f"{revision}^{{commit}}"], top,
         silent_failure=f"--changed-since {revision}: git knows no commit of that name here")
    # what differs is told in two parts, neither of which writes the index: the index
    # against the revision (blobs only), and ``git status`` for the work tree against the
    # index and for untracked files. ``git diff REVISION`` would do both at once, but it
    # either lists every file whose timestamps changed (an untouched checkout, a ``touch``)
    # or, to find out, rewrites ``.git/index``. Files are hashed, so the repository's
    # filter drivers are switched off (gitsafe); a submodule counts as changed when its
    # recorded commit did, not when files inside it were edited (that would run git in it).
    names = _git(["diff", "--cached", "--name-only", "--no-renames", "--no-ext-diff", "--no-textconv",
                  "--ignore-submodules=dirty", "-z", revision, "--"], top).split(b"\0")
    names += _work_tree_changes(_git(["status", "--porcelain=v1", "-z", "--no-renames",
                                      "--untracked-files=all", "--ignore-submodules=dirty"],
                                     top, work_tree=True))
    return frozenset(os.path.realpath(top / os.fsdecode(name)) for name in names if name)


def _work_tree_changes(status: bytes) -> list[bytes]:
    """The paths ``git status --porcelain=v1 -z --no-renames`` shows changed in the work
    tree (its second column) or untracked. A file changed in the work tree is counted even
    where its content has come back to the revision's (rare: more is checked, never less)."""
    entries = status.split(b"\0")
    return [entry[3:] for entry in entries if len(entry) > 3 and entry[1:2] != b" "]


# --- sharding -----------------------------------------------------------------------------


def parse_shard(text: str) -> tuple[int, int]:
    """``I/N`` as (I, N), 1 <= I <= N."""
    index, sep, total = text.partition("/")
    try:
        i, n = int(index), int(total)
    except ValueError:
        raise TreeError(f"--shard wants I/N (for example 2/4), not {text!r}") from None
    if not sep or n < 1 or not 1 <= i <= n:
        raise TreeError(f"--shard {text}: I must be between 1 and N (for example 2/4)")
    return i, n


def shard_of(path: str, top: Path, total: int) -> int:
    """The shard (1..total) a task's file belongs to."""
    absolute = Path(os.path.abspath(path))
    rel = _posix(absolute, top) or absolute.as_posix()
    digest = hashlib.sha256(rel.encode("utf-8", "surrogateescape")).digest()
    return 1 + int.from_bytes(digest[:8], "big") % total


def in_shard(task: tuple[str, str, str], top: Path, index: int, total: int) -> bool:
    """Whether a task belongs to shard ``index`` of ``total``."""
    return shard_of(task[1], top, total) == index
