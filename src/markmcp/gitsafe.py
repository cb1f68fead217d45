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

It also bounds what git may cost: a timeout after which git is killed, and a cap on
standard output after which it is killed too.  Failures are :class:`GitError`, with a
message fit for a user.
"""

from __future__ import annotations

import os
import re
import subprocess
import threading
from collections.abc import Sequence
from dataclasses import dataclass

TIMEOUT = 10.0
"""Seconds a git command may take before it is killed."""

MAX_OUTPUT = 32 * 1024 * 1024
"""Bytes of standard output a git command may write before it is killed."""

_NEVER_RUN = (
    "core.fsmonitor=false",
    "core.hooksPath=/dev/null",
    "core.untrackedCache=false",
    "diff.external=",
    "log.showSignature=false",
    "safe.bareRepository=explicit",
    "protocol.allow=never",
    # a per-transport setting outranks protocol.allow, so each is closed by name as well
    *(f"protocol.{name}.allow=never" for name in ("ext", "file", "git", "ssh", "http", "https")),
)
"""Settings whose repository value could make git run a program or reach the network."""

# "filter.<driver>.clean" and the like as ``git config --list`` prints them: the section
# and the variable lower-cased, the driver name as written (it may hold dots)
_DRIVER_KEY = re.compile(r"(filter|diff|merge)\.(.+)\.(clean|smudge|process|textconv|command|driver)")


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
        """The first line git wrote to standard error, or its exit status."""
        for line in self.stderr.replace("\r", "\n").split("\n"):
            if line.strip():
                return line.strip()
        return f"exit {self.returncode}"


def _environment() -> dict[str, str]:
    env = dict(os.environ)
    env.update({"GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "", "SSH_ASKPASS": "", "GIT_PAGER": "cat",
                "LC_ALL": "C", "GIT_OPTIONAL_LOCKS": "0"})
    return env


def _settings(pairs: Sequence[str]) -> list[str]:
    arguments: list[str] = []
    for pair in pairs:
        arguments += ["-c", pair]
    return arguments


def driver_overrides(config_listing: bytes) -> list[str]:
    """Settings that empty every filter, diff and merge driver command named in the
    output of ``git config --null --list`` (``key\\nvalue\\0`` records)."""
    overrides: list[str] = []
    drivers: set[tuple[str, str]] = set()
    for record in config_listing.split(b"\0"):
        key = record.partition(b"\n")[0].decode("utf-8", "surrogateescape")
        found = _DRIVER_KEY.fullmatch(key)
        if found is not None:
            drivers.add((found.group(1), found.group(2)))
    for section, name in sorted(drivers):
        if section == "filter":
            overrides += [f"filter.{name}.clean=", f"filter.{name}.smudge=", f"filter.{name}.process=",
                          f"filter.{name}.required=false"]
        elif section == "diff":
            overrides += [f"diff.{name}.textconv=", f"diff.{name}.command="]
        else:
            overrides.append(f"merge.{name}.driver=")
    return overrides


def run(args: Sequence[str], cwd: str | os.PathLike[str], *, timeout: float = TIMEOUT,
        max_output: int = MAX_OUTPUT, work_tree: bool = False) -> Result:
    """Run ``git args`` in ``cwd`` with the repository's commands switched off.

    Raises :class:`GitError` when git is missing or cannot start, runs past ``timeout``
    seconds or writes more than ``max_output`` bytes (it is killed), or the driver scan
    for ``work_tree`` fails.  A non-zero exit status is not an error here: it is in the
    result for the caller to read."""
    settings = _settings(_NEVER_RUN)
    if work_tree:
        listing = run(["config", "--null", "--list"], cwd, timeout=timeout)
        if listing.returncode != 0:
            raise GitError(f"git config failed: {listing.first_error_line}")
        settings += _settings(driver_overrides(listing.stdout))
    return _spawn(["git", *settings, *args], os.fspath(cwd), timeout, max_output)


def _spawn(command: list[str], cwd: str, timeout: float, max_output: int) -> Result:
    import tempfile

    with tempfile.TemporaryFile() as errors:
        try:
            proc = subprocess.Popen(command, cwd=cwd, env=_environment(), stdin=subprocess.DEVNULL,
                                    stdout=subprocess.PIPE, stderr=errors)
        except FileNotFoundError:
            raise GitError("no git command was found", missing=True) from None
        except (OSError, ValueError) as error:
            raise GitError(f"git could not run: {getattr(error, 'strerror', None) or error}") from None
        stopped: list[str] = []

        def stop(why: str) -> None:
            stopped.append(why)
            if proc.poll() is None:
                proc.kill()

        def late() -> None:
            if proc.poll() is None:
                stop(f"did not finish within {timeout:g} s")

        timer = threading.Timer(timeout, late)
        timer.daemon = True
        timer.start()
        chunks: list[bytes] = []
        size = 0
        try:
            assert proc.stdout is not None
            while chunk := proc.stdout.read(1 << 16):
                size += len(chunk)
                if size > max_output:
                    stop(f"wrote more than {max_output} bytes")
                    break
                chunks.append(chunk)
            proc.stdout.close()
            code = proc.wait()
        finally:
            timer.cancel()
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        if stopped:
            raise GitError(f"git {_verb(command)} was stopped: it {stopped[0]}")
        errors.seek(0)
        stderr = errors.read(64 * 1024).decode("utf-8", "replace")
    return Result(code, b"".join(chunks), stderr)


def _verb(command: list[str]) -> str:
    """The git sub-command in ``command`` (after the ``-c`` settings)."""
    index = 1
    while index < len(command) and command[index] == "-c":
        index += 2
    return command[index] if index < len(command) else "git"
