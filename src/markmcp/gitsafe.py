"""Running ``git`` in a repository we do not trust (``markmcp check --changed-since``,
``mrsf reanchor --staged``, the MRSF engine's commit look-ups).

Whoever wrote a repository may also have written its ``.git/config`` and its
``.gitattributes``: a folder unpacked from an archive, a checkout made by someone else,
a bare repository planted inside a work tree.  Git takes several commands from that
configuration and runs them while it reads the index or compares files: the
``core.fsmonitor`` hook on every index read, a ``filter.<driver>.clean`` command while
it hashes a work-tree file, ``diff.<driver>.textconv`` and ``diff.external`` while it
diffs, a promisor remote's transport (``ext::``) while it fetches a missing object.
Running plain ``git diff`` there runs the author's program with the user's rights.

:func:`run` runs git with every such setting overridden on the command line (the
command line outranks the repository's files; git hands the overrides to the git
processes it starts itself through ``GIT_CONFIG_PARAMETERS``):

* no file-system monitor, no hooks, no external diff, no network transport of any kind
  (so no lazy fetch), no signature checking;
* a bare repository is used only when named explicitly (``safe.bareRepository``), so a
  planted one inside a work tree is not discovered;
* with ``work_tree=True`` (a command that reads work-tree files), every ``filter`` and
  ``diff`` driver the configuration names has its commands emptied; git then reads the
  file as it is.  Finding the names takes one ``git config --list``, which runs nothing.
  A name may be empty or hold ``=`` (which ``-c`` would split at): such a name is given
  with ``--config-env`` (git 2.31+; an older git refuses the option, so the command
  fails instead of running the driver).

The environment closes what the command line cannot: ``GIT_ALLOW_PROTOCOL`` set empty
(a value the user's environment carries would otherwise reopen transports), no lazy fetch
(``GIT_NO_LAZY_FETCH``, git 2.44+), no terminal prompt.  ``git`` itself is looked up only
in the absolute folders of ``PATH``: an empty or relative entry (``.``) would find a
``git`` the repository planted at its top.

It also bounds what git may cost: a timeout after which git is killed, and a cap on
standard output after which it is killed too.  Git runs in a session of its own, so a
kill reaches whatever it started, and it has no terminal to wait on (a configuration
that includes ``/dev/tty``).  Failures are :class:`GitError`, with a message fit for a
user.
"""

from __future__ import annotations

import os
import re
import selectors
import shutil
import signal
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass

TIMEOUT = 10.0
"""Seconds a git command may take before it is killed."""

MAX_OUTPUT = 32 * 1024 * 1024
"""Bytes of standard output a git command may write before it is killed."""

MAX_ERRORS = 64 * 1024
"""Bytes of standard error kept; the rest is read and dropped."""

_NEVER_RUN = (
    ("core.fsmonitor", "false"),
    ("core.hooksPath", "/dev/null"),
    ("core.untrackedCache", "false"),
    ("diff.external", ""),
    ("log.showSignature", "false"),
    ("safe.bareRepository", "explicit"),
    # the index left as it was: ``git diff`` against the work tree rewrites it to record
    # fresh timestamps unless told not to (``git status`` keeps from it under
    # GIT_OPTIONAL_LOCKS=0, set below)
    ("diff.autoRefreshIndex", "false"),
    ("protocol.allow", "never"),
    # a per-transport setting outranks protocol.allow, so each is closed by name as well
    *((f"protocol.{name}.allow", "never") for name in ("ext", "file", "git", "ssh", "http", "https")),
)
"""Settings whose repository value could make git run a program, reach the network or
write the index."""

# "filter.<driver>.clean" and the like as ``git config --list`` prints them: the section
# and the variable lower-cased, the driver name as written (it may hold dots and "=",
# or be empty)
_DRIVER_KEY = re.compile(r"(filter|diff|merge)\.(.*)\.(clean|smudge|process|textconv|command|driver)", re.DOTALL)

# ``-c name=value`` splits at the first "=", so a name holding one is given as
# ``--config-env=name=VARIABLE`` (split at the last "="), its value in the environment
_VALUE_VARIABLES = {"": "MARKMCP_GIT_EMPTY", "false": "MARKMCP_GIT_FALSE"}


class GitError(Exception):
    """Git could not be run, failed, or was stopped; ``message`` says which."""

    def __init__(self, message: str, *, missing: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.missing = missing


@dataclass(frozen=True)
class Result:
    returncode: int
    stdout: bytes
    stderr: str

    @property
    def first_error_line(self) -> str:
        """What went wrong, in git's words: its first ``fatal:`` or ``error:`` line (the
        first line it wrote to standard error when there is none), or its exit status."""
        lines = [line.strip() for line in self.stderr.replace("\r", "\n").split("\n") if line.strip()]
        line = next((line for line in lines if line.startswith(("fatal:", "error:"))), lines[0] if lines else "")
        if not line:
            return f"exit {self.returncode}"
        if "dubious ownership" in line:
            line += (" (git works in a repository that belongs to another user only when your own git"
                     " configuration lists it under safe.directory)")
        return line


def _environment() -> dict[str, str]:
    env = dict(os.environ)
    env.update({"GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "", "SSH_ASKPASS": "", "GIT_PAGER": "cat",
                "LC_ALL": "C", "GIT_OPTIONAL_LOCKS": "0", "GIT_ALLOW_PROTOCOL": "", "GIT_NO_LAZY_FETCH": "1"})
    env.update({variable: value for value, variable in _VALUE_VARIABLES.items()})
    return env


def _settings(pairs: Sequence[tuple[str, str]]) -> list[str]:
    arguments: list[str] = []
    for key, value in pairs:
        if "=" in key:
            arguments.append(f"--config-env={key}={_VALUE_VARIABLES[value]}")
        else:
            arguments += ["-c", f"{key}={value}"]
    return arguments


def driver_overrides(config_listing: bytes) -> list[tuple[str, str]]:
    """Settings (name, value) that empty every filter, diff and merge driver command
    named in the output of ``git config --null --list`` (``key\\nvalue\\0`` records)."""
    overrides: list[tuple[str, str]] = []
    drivers: set[tuple[str, str]] = set()
    for record in config_listing.split(b"\0"):
        key = record.partition(b"\n")[0].decode("utf-8", "surrogateescape")
        found = _DRIVER_KEY.fullmatch(key)
        if found is not None:
            drivers.add((found.group(1), found.group(2)))
    for section, name in sorted(drivers):
        if section == "filter":
            overrides += [(f"filter.{name}.clean", ""), (f"filter.{name}.smudge", ""),
                          (f"filter.{name}.process", ""), (f"filter.{name}.required", "false")]
        elif section == "diff":
            overrides += [(f"diff.{name}.textconv", ""), (f"diff.{name}.command", "")]
        else:
            overrides.append((f"merge.{name}.driver", ""))
    return overrides


def git_program(env: dict[str, str] | None = None) -> str | None:
    """The ``git`` found in the absolute folders of ``PATH``, or None."""
    folders = [folder for folder in os.get_exec_path(env) if os.path.isabs(folder)]
    return shutil.which("git", path=os.pathsep.join(folders)) if folders else None


def run(args: Sequence[str], cwd: str | os.PathLike[str], *, timeout: float = TIMEOUT,
        max_output: int = MAX_OUTPUT, work_tree: bool = False) -> Result:
    """Run ``git args`` in ``cwd`` with the repository's commands switched off.

    Raises :class:`GitError` when git is missing or cannot start, ``cwd`` is not a
    folder, git runs past ``timeout`` seconds or writes more than ``max_output`` bytes
    (it is killed), or the driver scan for ``work_tree`` fails.  A non-zero exit status
    is not an error here: it is in the result for the caller to read."""
    folder = os.fspath(cwd)
    if not os.path.isdir(folder):
        why = "it is not a folder" if os.path.lexists(folder) else "there is no such folder"
        raise GitError(f"git cannot run in {os.fsdecode(folder)}: {why}")
    env = _environment()
    program = git_program(env)
    if program is None:
        raise GitError("no git command was found", missing=True)
    settings = _settings(_NEVER_RUN)
    if work_tree:
        listing = run(["config", "--null", "--list"], cwd, timeout=timeout)
        if listing.returncode != 0:
            raise GitError(f"git config failed: {listing.first_error_line}")
        settings += _settings(driver_overrides(listing.stdout))
    return _spawn([program, *settings, *args], folder, env, timeout, max_output)


def _spawn(command: list[str], cwd: str, env: dict[str, str], timeout: float, max_output: int) -> Result:
    posix = os.name == "posix"
    try:
        proc = subprocess.Popen(command, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, start_new_session=posix)
    except FileNotFoundError:
        raise GitError("no git command was found", missing=True) from None
    except (OSError, ValueError) as error:
        raise GitError(f"git could not run: {getattr(error, 'strerror', None) or error}") from None
    chunks: list[bytes] = []
    errors = bytearray()
    why = None
    try:
        if posix:
            why = _collect(proc, time.monotonic() + timeout, max_output, chunks, errors)
        else:  # pragma: no cover - no selectable pipes: the whole output is held, then measured
            try:
                out, err = proc.communicate(timeout=timeout)
                chunks.append(out)
                errors += err[:MAX_ERRORS]
            except subprocess.TimeoutExpired:
                why = "did not finish"
            if sum(map(len, chunks)) > max_output:
                why = f"wrote more than {max_output} bytes"
    finally:
        if proc.returncode is None:  # not reaped yet: its process group is still its own
            _kill(proc, posix)
            proc.wait()
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()
    if why == "did not finish":
        why = f"did not finish within {timeout:g} s"
    if why is not None:
        raise GitError(f"git {_verb(command)} was stopped: it {why}")
    return Result(proc.returncode, b"".join(chunks), errors.decode("utf-8", "replace"))


def _collect(proc: subprocess.Popen[bytes], deadline: float, max_output: int, chunks: list[bytes],
             errors: bytearray) -> str | None:
    """Read git's two pipes until both close and git exits, or until the deadline or the
    output cap; why it was stopped, or None."""
    assert proc.stdout is not None and proc.stderr is not None
    size = 0
    with selectors.DefaultSelector() as selector:
        selector.register(proc.stdout, selectors.EVENT_READ, "out")
        selector.register(proc.stderr, selectors.EVENT_READ, "err")
        while selector.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                return "did not finish"
            for key, _ in selector.select(left):
                chunk = os.read(key.fd, 1 << 16)
                if not chunk:
                    selector.unregister(key.fileobj)
                elif key.data == "out":
                    size += len(chunk)
                    if size > max_output:
                        return f"wrote more than {max_output} bytes"
                    chunks.append(chunk)
                elif len(errors) < MAX_ERRORS:
                    errors += chunk[:MAX_ERRORS - len(errors)]
    try:
        proc.wait(max(deadline - time.monotonic(), 0))
    except subprocess.TimeoutExpired:
        return "did not finish"
    return None


def _kill(proc: subprocess.Popen[bytes], posix: bool) -> None:
    """Kill git and, on POSIX, every process in its session's group."""
    try:
        if posix:
            os.killpg(proc.pid, signal.SIGKILL)
        else:  # pragma: no cover
            proc.kill()
    except (ProcessLookupError, PermissionError):
        pass


def _verb(command: list[str]) -> str:
    """The git sub-command in ``command`` (after the settings)."""
    index = 1
    while index < len(command):
        if command[index] == "-c":
            index += 2
        elif command[index].startswith("--config-env="):
            index += 1
        else:
            return command[index]
    return "git"
