"""kill -9 at random moments: an acknowledged comment is never lost, a sidecar never broken.

A writer process adds comments to a sidecar of 20 comments in a loop with the ``mrsf``
CLI code (``cli.main(["add", ...])``; every 5th step resolves or reopens a comment,
which rewrites values in place) and prints one acknowledgement per finished command;
it is killed with SIGKILL at a random moment.  After each kill the sidecar must parse
and hold every acknowledged comment, the next writer must get through at once (no lock
or temporary file left in its way) and, once it has written, no lock or temporary file
may remain.  The writer's disk is made slow (10 ms after each chunk written, through
``files.write_hook``) so that many kills land inside a write; git is kept out of the
writer's way (not on its PATH).

To keep this quick, one helper process imports the engine once and forks a fresh
writer per trial (the writer is still a separate process that the kernel kills).
``MARKMCP_KILL_TRIALS`` sets the number of trials (default 50).  A second test does
the same to real ``mrsf-mcp`` servers over stdio, twice.
"""

from __future__ import annotations

import os
import random
import select
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from mcpwire import StdioClient, module_command

from markmcp.mrsf import git, ops

TRIALS = int(os.environ.get("MARKMCP_KILL_TRIALS", "50"))
DOC = "# Title\n\n" + "".join(f"Line {n} of the document.\n" for n in range(1, 41))
SIDECAR = 'mrsf_version: "1.0"\ndocument: doc.md\ncomments:\n' + "".join(
    f"  - id: first{'' if n == 0 else n}\n    author: setup\n    timestamp: \"2026-01-01T00:00:00Z\"\n"
    f"    text: comment number {n} with some words in it\n    resolved: false\n    line: {n % 40 + 1}\n"
    f"    selected_text: Line {n % 40 + 1} of the document.\n"
    for n in range(20)
)

#: The helper: reads "go <trial> <folder>" lines; forks a writer per line, reports
#: "pid <n>", relays nothing itself (the writer writes its own "ack" lines to the
#: shared stdout), and reports "dead <trial>" once the writer is gone.
FARM = textwrap.dedent("""
    import os, sys, time
    from markmcp.mcpcore import files
    from markmcp.mrsf import cli

    files.write_hook = lambda: time.sleep(0.01)  # a slow disk: kills land inside writes

    def writer(trial, folder):
        step = 0
        while True:
            step += 1
            text = f"k{trial}-{step}"
            if step % 5 == 0:  # resolve and reopen in turn: values rewritten in place
                argv = ["-q", "--cwd", folder, "resolve", "doc.md", "first"] + (["-u"] if step % 10 else [])
            else:
                argv = ["-q", "--cwd", folder, "add", "doc.md", "-a", "w", "-t", text, "-l", str(step % 40 + 1)]
            code = cli.main(argv)
            os.write(1, f"ack {trial} {step} {code} {text if step % 5 else '-'}\\n".encode())

    for line in sys.stdin:
        _, trial, folder = line.split(" ", 2)
        pid = os.fork()
        if pid == 0:
            try:
                writer(trial, folder.rstrip("\\n"))
            finally:
                os._exit(0)
        os.write(1, f"pid {trial} {pid}\\n".encode())
        os.waitpid(pid, 0)
        os.write(1, f"dead {trial}\\n".encode())
""")


class Lines:
    """Lines from a pipe, read with a deadline (no thread, no blocking past it)."""

    def __init__(self, stream) -> None:
        self.fd = stream.fileno()
        self.buffer = b""

    def next(self, deadline: float) -> str:
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            assert left > 0, "the helper process did not answer in time"
            ready, _, _ = select.select([self.fd], [], [], left)
            if ready:
                chunk = os.read(self.fd, 65536)
                assert chunk, "the helper process ended"
                self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line.decode()


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith((".lock", ".tmp")))


def start_folder(folder: Path) -> None:
    folder.mkdir()
    (folder / "doc.md").write_text(DOC)
    (folder / "doc.md.review.yaml").write_text(SIDECAR)


@pytest.fixture(autouse=True)
def no_git(monkeypatch: pytest.MonkeyPatch) -> None:
    """The checking writer in this process does not ask git either (the folder has none)."""
    monkeypatch.setattr(git, "repo_root", lambda path: None)


def check_after_kill(folder: Path, acked: set[str]) -> dict[str, int]:
    """The sidecar parses and holds every acknowledged comment; the next writer gets
    through; then nothing is left behind.  Returns what the kill left (for the figures)."""
    left = leftovers(folder)
    data = ops.read("doc.md", root=folder)["data"]  # raises if the sidecar does not parse
    texts = {c.get("text") for c in data["comments"]}
    lost = acked - texts
    assert not lost, f"acknowledged comments lost: {sorted(lost)}"
    started = time.monotonic()
    ops.add("doc.md", author="next", text="after the kill", root=folder)
    assert time.monotonic() - started < 10, "the next writer was held up"
    assert leftovers(folder) == [], f"left behind after the next write: {leftovers(folder)}"
    return {"temp": int(any(name.endswith(".tmp") for name in left)),
            "lock": int(any(name.endswith(".lock") for name in left)), "acked": len(acked)}


def test_writer_processes_killed_at_random_moments(tmp_path: Path) -> None:
    rng = random.Random(int(os.environ.get("MARKMCP_KILL_SEED", "8")))
    empty = tmp_path / "no-programs"
    empty.mkdir()
    farm = subprocess.Popen([sys.executable, "-c", FARM], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            env={**os.environ, "PATH": str(empty)})
    assert farm.stdin is not None and farm.stdout is not None
    lines = Lines(farm.stdout)
    figures = {"intact": 0, "temp": 0, "lock": 0, "acked": 0}
    try:
        for trial in range(TRIALS):
            folder = tmp_path / f"t{trial}"
            start_folder(folder)
            farm.stdin.write(f"go {trial} {folder}\n".encode())
            farm.stdin.flush()
            deadline = time.monotonic() + 30
            kind, _, pid = lines.next(deadline).split(" ")
            assert kind == "pid"
            acked: set[str] = set()
            # let it run for a random time (up to a few writes; most kills land inside one), then kill it
            kill_at = time.monotonic() + rng.uniform(0.02, 0.4)
            while (left := kill_at - time.monotonic()) > 0:
                if b"\n" in lines.buffer or select.select([lines.fd], [], [], left)[0]:
                    line = lines.next(deadline)
                    assert line.startswith("ack"), f"the writer ended by itself: {line}"
                    _, _, _, code, text = line.split(" ")
                    assert code == "0"
                    if text != "-":
                        acked.add(text)
            os.kill(int(pid), signal.SIGKILL)
            while True:
                line = lines.next(deadline)
                if line.startswith("dead"):
                    break
                _, _, _, code, text = line.split(" ")
                if text != "-":
                    acked.add(text)
            found = check_after_kill(folder, acked)
            figures["intact"] += 1
            for key in ("temp", "lock", "acked"):
                figures[key] += found[key]
    finally:
        farm.stdin.close()
        farm.wait(timeout=30)
    print(f"kill -9 trials: {figures['intact']}/{TRIALS} intact, 0 acknowledged comments lost "
          f"({figures['acked']} acknowledged); the kill left a temporary file {figures['temp']} times "
          f"and a lock file {figures['lock']} times, each cleared by the next writer")
    assert figures["intact"] == TRIALS


@pytest.mark.parametrize("trial", range(2))
def test_real_server_killed_while_adding_comments(tmp_path: Path, trial: int) -> None:
    folder = tmp_path / "ws"
    start_folder(folder)
    rng = random.Random(trial)
    acked: set[str] = set()
    with StdioClient(module_command("markmcp.mrsf.server"), cwd=folder, timeout=30) as client:
        assert "result" in client.initialize()
        pending: dict[int, str] = {}
        for step in range(rng.randrange(4, 12)):  # requests sent back to back, answered one by one
            text = f"s{trial}-{step}"
            pending[client.request("tools/call", {"name": "mrsf_add", "arguments": {
                "document": "doc.md", "text": text, "author": "s", "line": step % 40 + 1}})] = text
        # read some answers, then kill while the rest are being written
        for _ in range(rng.randrange(0, len(pending))):
            message = client.receive()
            assert message is not None
            if message.get("id") in pending and not message["result"]["isError"]:
                acked.add(pending[message["id"]])
        client.proc.send_signal(signal.SIGKILL)
        client.proc.wait(timeout=30)
        while (message := client.receive(timeout=10)) is not None:  # answers sent before the kill count too
            if message.get("id") in pending and not message["result"]["isError"]:
                acked.add(pending[message["id"]])
    check_after_kill(folder, acked)
