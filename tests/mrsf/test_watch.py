"""``mrsf watch``: the polling watcher's logic on a fake clock and a fake file system,
what one change does (in-process, on real files), and one real run as a subprocess."""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from markmcp.mrsf.cli import build_parser
from markmcp.mrsf.console import Context, Out
from markmcp.mrsf.watch import Change, Watcher, run
from markmcp.mrsf.watchcmd import _Watch

from .fixtures import DOC, write_pair

# ---------------------------------------------------------------------------
# The watcher, on a fake clock and a fake stat
# ---------------------------------------------------------------------------


class FakeFiles:
    """Files as (mtime_ns, size, inode), a clock and a stat function over them (the
    ctime is the mtime); the content of a file, when set, and a digest function that
    counts what it read."""

    def __init__(self) -> None:
        self.now = 0.0
        self.files: dict[str, tuple[int, int, int]] = {}
        self.contents: dict[str, bytes] = {}
        self.reads: list[str] = []
        self._inode = 100

    def clock(self) -> float:
        return self.now

    def wall_clock(self) -> int:
        return int(self.now * 1e9)

    def stat(self, path: str) -> SimpleNamespace:
        if path not in self.files:
            raise FileNotFoundError(path)
        mtime, size, inode = self.files[path]
        return SimpleNamespace(st_mtime_ns=mtime, st_ctime_ns=mtime, st_size=size, st_ino=inode)

    def digest(self, path: str) -> bytes | None:
        self.reads.append(path)
        return self.contents.get(path)

    def write(self, path: str, size: int = 10) -> None:
        """Write in place (same inode), at the current time."""
        inode = self.files[path][2] if path in self.files else self._new_inode()
        self.files[path] = (int(self.now * 1e9), size, inode)

    def replace(self, path: str, size: int = 10) -> None:
        """An editor's save through a temporary file: a new inode."""
        self.files[path] = (int(self.now * 1e9), size, self._new_inode())

    def remove(self, path: str) -> None:
        del self.files[path]

    def _new_inode(self) -> int:
        self._inode += 1
        return self._inode

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def fs() -> FakeFiles:
    fake = FakeFiles()
    fake.now = 1000.0
    fake.write("doc.md")
    fake.write("doc.md.review.yaml")
    return fake


def watcher(fs: FakeFiles, debounce: float = 0.3) -> Watcher:
    w = Watcher(debounce=debounce, clock=fs.clock, stat=fs.stat)
    w.add(["doc.md", "doc.md.review.yaml"])
    return w


def test_nothing_changes_nothing_is_told(fs: FakeFiles) -> None:
    w = watcher(fs)
    for _ in range(10):
        fs.advance(0.25)
        assert w.poll() == []


def test_a_change_is_told_once_after_the_debounce(fs: FakeFiles) -> None:
    w = watcher(fs)
    fs.advance(1)
    fs.write("doc.md", size=20)
    assert w.poll() == []  # seen, not yet quiet for 0.3 s
    assert w.pending() == ["doc.md"]
    fs.advance(0.2)
    assert w.poll() == []
    fs.advance(0.1)
    assert w.poll() == [Change("doc.md", "changed")]
    fs.advance(1)
    assert w.poll() == []


def test_a_burst_of_writes_is_one_change(fs: FakeFiles) -> None:
    w = watcher(fs)
    for size in range(11, 21):  # a write every 0.1 s for a second: never quiet for 0.3 s
        fs.advance(0.1)
        fs.write("doc.md", size=size)
        assert w.poll() == []
    fs.advance(0.29)
    assert w.poll() == []
    fs.advance(0.01)
    assert w.poll() == [Change("doc.md", "changed")]
    fs.advance(5)
    assert w.poll() == []


def test_a_save_through_a_temporary_file_is_a_change(fs: FakeFiles) -> None:
    w = watcher(fs, debounce=0)
    mtime, size, _ = fs.files["doc.md"]
    fs.files["doc.md"] = (mtime, size, 999)  # same time and size, a new inode
    assert w.poll() == [Change("doc.md", "changed")]


def test_each_file_has_its_own_debounce(fs: FakeFiles) -> None:
    w = watcher(fs)
    fs.advance(1)
    fs.write("doc.md", size=20)
    w.poll()
    fs.advance(0.2)
    fs.write("doc.md.review.yaml", size=30)
    assert w.poll() == []
    fs.advance(0.1)
    assert w.poll() == [Change("doc.md", "changed")]
    fs.advance(0.2)
    assert w.poll() == [Change("doc.md.review.yaml", "changed")]


def test_our_own_write_is_no_change(fs: FakeFiles) -> None:
    w = watcher(fs)
    fs.advance(1)
    fs.write("doc.md.review.yaml", size=50)  # the re-anchoring wrote the sidecar
    w.acknowledge("doc.md.review.yaml")
    for _ in range(8):
        fs.advance(0.25)
        assert w.poll() == []


def test_an_edit_right_after_our_write_is_told(fs: FakeFiles) -> None:
    w = watcher(fs)
    fs.advance(1)
    fs.write("doc.md.review.yaml", size=50)
    w.acknowledge("doc.md.review.yaml")
    fs.advance(0.01)
    fs.write("doc.md.review.yaml", size=51)  # the user, before the watcher looked again
    assert w.poll() == []
    fs.advance(0.3)
    assert w.poll() == [Change("doc.md.review.yaml", "changed")]


def test_an_edit_pending_before_our_write_is_still_told(fs: FakeFiles) -> None:
    w = watcher(fs)
    fs.advance(1)
    fs.write("doc.md.review.yaml", size=40)  # the user
    assert w.poll() == []
    fs.advance(0.1)
    fs.replace("doc.md.review.yaml", size=45)  # then we (an atomic replace)
    w.acknowledge("doc.md.review.yaml")
    fs.advance(0.3)
    assert w.poll() == [Change("doc.md.review.yaml", "changed")]


def test_acknowledging_an_unwatched_path_watches_nothing(fs: FakeFiles) -> None:
    w = watcher(fs)
    w.acknowledge("other.md")
    assert "other.md" not in w.paths


def test_a_removed_file_is_told_once_and_comes_back_as_added(fs: FakeFiles) -> None:
    w = watcher(fs, debounce=0.1)
    fs.advance(1)
    fs.remove("doc.md.review.yaml")
    w.poll()
    fs.advance(0.1)
    assert w.poll() == [Change("doc.md.review.yaml", "removed")]
    for _ in range(5):
        fs.advance(0.5)
        assert w.poll() == []
    assert "doc.md.review.yaml" in w.paths  # still watched
    fs.write("doc.md.review.yaml")
    w.poll()
    fs.advance(0.1)
    assert w.poll() == [Change("doc.md.review.yaml", "added")]


def test_a_file_created_and_removed_within_the_debounce_is_not_told(fs: FakeFiles) -> None:
    w = watcher(fs)
    w.add(["new.md"])
    fs.advance(1)
    fs.write("new.md")
    w.poll()
    fs.advance(0.1)
    fs.remove("new.md")
    w.poll()
    fs.advance(1)
    assert w.poll() == []


def test_a_watched_path_that_appears_is_added(fs: FakeFiles) -> None:
    w = watcher(fs, debounce=0)
    assert w.add(["later.md"]) == ["later.md"]  # missing for now
    assert w.poll() == []
    fs.write("later.md")
    assert w.poll() == [Change("later.md", "added")]


def test_new_paths_are_taken_quietly_unless_announced(fs: FakeFiles) -> None:
    w = watcher(fs, debounce=0.3)
    fs.write("b.md.review.yaml")
    fs.write("b.md")
    assert w.add(["b.md"]) == ["b.md"]
    assert w.add(["b.md.review.yaml", "doc.md"], announce=True) == ["b.md.review.yaml"]
    assert w.poll() == []
    fs.advance(0.3)
    assert w.poll() == [Change("b.md.review.yaml", "added")]


def test_a_negative_debounce_is_refused() -> None:
    with pytest.raises(ValueError):
        Watcher(debounce=-1)


def test_the_loop_polls_rescans_and_stops(fs: FakeFiles) -> None:
    w = watcher(fs, debounce=0.5)
    told: list[Change] = []
    scans: list[float] = []
    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        fs.advance(seconds)
        if len(slept) == 2:
            fs.write("doc.md", size=99)

    run(w, told.append, interval=0.25, rescan=lambda: scans.append(fs.now), rescan_every=2.0,
        stopped=lambda: fs.now >= 1005, sleep=sleep, clock=fs.clock)
    assert told == [Change("doc.md", "changed")]
    assert slept == [0.25] * 20
    assert scans == [1002.0, 1004.0]


def test_the_loop_stops_between_two_changes(fs: FakeFiles) -> None:
    w = watcher(fs, debounce=0)
    fs.write("doc.md", size=1)
    fs.write("doc.md.review.yaml", size=2)
    told: list[Change] = []
    run(w, told.append, stopped=lambda: bool(told), sleep=lambda s: pytest.fail("slept"), clock=fs.clock)
    assert len(told) == 1


def tick_watcher(fs: FakeFiles, debounce: float = 0) -> Watcher:
    """A watcher whose wall clock is the fake one, so the fake files' times are recent."""
    w = Watcher(debounce=debounce, clock=fs.clock, stat=fs.stat, wall_clock=fs.wall_clock, digest=fs.digest)
    w.add(["doc.md", "doc.md.review.yaml"])
    return w


def test_a_rewrite_inside_one_clock_tick_is_told_by_its_content(fs: FakeFiles) -> None:
    fs.contents["doc.md"] = b"one"
    w = tick_watcher(fs)
    fs.contents["doc.md"] = b"two"  # same inode, size and times: only the bytes differ
    assert w.poll() == [Change("doc.md", "changed")]
    assert w.poll() == []


def test_a_rewrite_told_by_its_content_even_when_the_next_poll_comes_late(fs: FakeFiles) -> None:
    """The look before the rewrite was made while the times were recent: the next one
    compares the content, however late it comes (a suspended process, a long interval)."""
    fs.contents["doc.md"] = b"one"
    w = tick_watcher(fs)
    fs.contents["doc.md"] = b"two"
    fs.advance(60)
    assert w.poll() == [Change("doc.md", "changed")]


def test_an_old_file_is_never_read_and_a_recent_one_only_while_recent(fs: FakeFiles) -> None:
    fs.contents["doc.md"] = b"one"
    w = tick_watcher(fs)  # both files were written just now
    assert sorted(fs.reads) == ["doc.md", "doc.md.review.yaml"]
    for _ in range(11):  # 2.75 s: still recent
        fs.advance(0.25)
        assert w.poll() == []
    assert fs.reads.count("doc.md") == 12
    fs.advance(0.5)
    assert w.poll() == []  # 3.25 s: read once more to compare, then settled
    reads = len(fs.reads)
    for _ in range(40):
        fs.advance(0.25)
        assert w.poll() == []
    assert len(fs.reads) == reads  # a stat per poll, no read
    fs.write("doc.md", size=10)  # a later write moves the times, and the file is read again
    fs.contents["doc.md"] = b"two"
    assert w.poll() == [Change("doc.md", "changed")]
    assert len(fs.reads) == reads + 1


def test_a_rewrite_back_to_the_same_bytes_is_no_change(fs: FakeFiles) -> None:
    fs.contents["doc.md"] = b"one"
    w = tick_watcher(fs, debounce=0.3)
    fs.contents["doc.md"] = b"two"
    assert w.poll() == []
    fs.contents["doc.md"] = b"one"
    fs.advance(0.3)
    assert w.poll() == []


def test_a_file_that_cannot_be_digested_falls_back_to_its_stat(fs: FakeFiles) -> None:
    w = tick_watcher(fs)  # no content: the digest function gives None (a FIFO, a huge file)
    for _ in range(4):
        fs.advance(0.25)
        assert w.poll() == []
    fs.write("doc.md", size=11)
    assert w.poll() == [Change("doc.md", "changed")]


# ---------------------------------------------------------------------------
# The same size and the same times, on real files
# ---------------------------------------------------------------------------


def test_a_rewrite_that_keeps_the_size_and_puts_the_old_mtime_back_is_told(tmp_path: Path) -> None:
    path = tmp_path / "doc.md"
    path.write_bytes(b"version one\n")
    w = Watcher(debounce=0)
    w.add([str(path)])
    before = os.stat(path)
    path.write_bytes(b"version two\n")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = os.stat(path)
    assert (after.st_mtime_ns, after.st_size, after.st_ino) == (before.st_mtime_ns, before.st_size, before.st_ino)
    assert w.poll() == [Change(str(path), "changed")]
    assert w.poll() == []


def coarse_stat(path: str) -> SimpleNamespace:
    """``os.stat`` as a file system with a coarse clock shows two writes in one tick:
    the same mtime and ctime (here: the ctime pinned to the mtime)."""
    st = os.stat(path)
    return SimpleNamespace(st_mtime_ns=st.st_mtime_ns, st_ctime_ns=st.st_mtime_ns, st_size=st.st_size,
                           st_ino=st.st_ino, st_mode=st.st_mode)


def test_two_writes_in_one_tick_of_a_coarse_clock_are_told_apart(tmp_path: Path) -> None:
    path = tmp_path / "doc.md.review.yaml"
    path.write_bytes(b"comments: []\n")
    w = Watcher(debounce=0, stat=coarse_stat)
    w.add([str(path)])
    before = os.stat(path)
    path.write_bytes(b"comments: {}\n")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert w.poll() == [Change(str(path), "changed")]
    assert w.poll() == []


@pytest.mark.skipif(os.name != "posix", reason="the ctime is the change time on POSIX systems only")
def test_an_mtime_dated_into_the_future_costs_no_reads(tmp_path: Path) -> None:
    from markmcp.mrsf.watch import digest_of

    path = tmp_path / "doc.md"
    path.write_bytes(b"one\n")
    future = time.time_ns() + 86_400 * 10**9
    os.utime(path, ns=(future, future))
    reads: list[str] = []

    def counted(p: str) -> bytes | None:
        reads.append(p)
        return digest_of(p)

    def later() -> int:  # the ctime, set just now, looks 10 s old
        return time.time_ns() + 10 * 10**9

    w = Watcher(debounce=0, wall_clock=later, digest=counted)
    w.add([str(path)])
    for _ in range(3):
        assert w.poll() == []
    assert reads == []
    path.write_bytes(b"two\n")  # the same size, and the future mtime put back: the ctime moved
    os.utime(path, ns=(future, future))
    assert w.poll() == [Change(str(path), "changed")]


def test_the_digest_never_opens_a_fifo_nor_reads_a_huge_file(tmp_path: Path) -> None:
    import threading

    from markmcp.mrsf.watch import MAX_DIGEST_BYTES, digest_of

    big = tmp_path / "big.md"
    with open(big, "wb") as handle:
        handle.truncate(MAX_DIGEST_BYTES + 1)  # sparse: no disk space, over the cap
    small = tmp_path / "small.md"
    small.write_bytes(b"x")
    (tmp_path / "link.md").symlink_to(small)
    paths = [str(big), str(small), str(tmp_path / "link.md"), str(tmp_path)]
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / "pipe.md")
        paths.append(str(tmp_path / "pipe.md"))
    result: dict[str, object] = {}

    def look() -> None:  # in a thread: a FIFO opened for reading would block it for good
        result["digests"] = [digest_of(p) for p in paths]
        w = Watcher(debounce=0)
        w.add(paths)
        result["changes"] = w.poll()

    worker = threading.Thread(target=look, daemon=True)
    worker.start()
    worker.join(timeout=10)
    assert not worker.is_alive(), "blocked on a FIFO"
    digests = result["digests"]
    assert digests[0] is None and digests[3] is None and digests[4:] == [None] * len(digests[4:])
    assert digests[1] is not None and digests[2] == digests[1]
    assert result["changes"] == []


# ---------------------------------------------------------------------------
# One change, handled in-process on real files
# ---------------------------------------------------------------------------


def session(folder: Path, *argv: str) -> tuple[_Watch, argparse.Namespace]:
    args = build_parser().parse_args(["watch", "--cwd", str(folder), *argv])
    ctx = Context(args)
    watch = _Watch(args, ctx, Out(args))
    watch.scan(first=True)
    return watch, args


def test_a_changed_document_is_reanchored_and_our_write_is_not_a_change(tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    write_pair(tmp_path)
    watch, _ = session(tmp_path, "--reanchor", "--debounce", "0", "--no-git")
    doc, sidecar = str(tmp_path / "doc.md"), str(tmp_path / "doc.md.review.yaml")
    assert sorted(watch.watcher.paths) == [doc, sidecar]
    (tmp_path / "doc.md").write_text("new\nlines\n" + (tmp_path / "doc.md").read_text(encoding="utf-8"),
                                     encoding="utf-8")
    changes = watch.watcher.poll()
    assert changes == [Change(doc, "changed")]
    watch.handle(changes[0])
    assert "line: 5" in (tmp_path / "doc.md.review.yaml").read_text(encoding="utf-8")
    assert watch.watcher.poll() == []  # the sidecar we wrote
    shown = capsys.readouterr().out
    assert "] doc.md (changed)" in shown
    assert "● c1:5 — " in shown
    assert "2 comment(s) changed, 0 orphaned." in shown
    assert f"validate ✓ {sidecar}" in shown
    assert (watch.events, watch.reanchors, watch.errors) == (1, 1, 0)


def test_a_malformed_sidecar_is_told_and_counted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_pair(tmp_path)
    watch, _ = session(tmp_path, "--reanchor", "--no-git")
    (tmp_path / "doc.md.review.yaml").write_text("comments: [\n", encoding="utf-8")
    watch.handle(Change(str(tmp_path / "doc.md"), "changed"))  # the re-anchoring cannot read it
    watch.handle(Change(str(tmp_path / "doc.md.review.yaml"), "changed"))  # validation says why
    captured = capsys.readouterr()
    assert "malformed YAML" in captured.err
    assert "validate ✗" in captured.out and "malformed YAML" in captured.out
    assert "Traceback" not in captured.err
    assert (watch.events, watch.reanchors, watch.errors) == (2, 0, 2)


def test_an_orphaned_comment_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_pair(tmp_path)
    watch, _ = session(tmp_path, "--reanchor", "--no-git", "--dry-run")
    (tmp_path / "doc.md").write_text("# Something else entirely\n", encoding="utf-8")
    before = (tmp_path / "doc.md.review.yaml").read_bytes()
    watch.handle(Change(str(tmp_path / "doc.md"), "changed"))
    assert (tmp_path / "doc.md.review.yaml").read_bytes() == before  # a dry run
    shown = capsys.readouterr().out
    assert "[dry-run] reanchor" in shown and "✗ c1" in shown
    assert watch.errors == 1


def test_a_removed_file_and_a_document_without_sidecar(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "lone.md").write_text("# Lone\n", encoding="utf-8")
    watch, _ = session(tmp_path, "--reanchor", "lone.md")
    watch.handle(Change(str(tmp_path / "lone.md"), "changed"))
    watch.handle(Change(str(tmp_path / "lone.md"), "removed"))
    shown = capsys.readouterr().out
    assert "no sidecar (lone.md.review.yaml): nothing to do" in shown
    assert "document removed" in shown
    assert (watch.events, watch.errors) == (2, 0)


def test_a_sidecar_that_appears_is_found_by_the_rescan(tmp_path: Path) -> None:
    write_pair(tmp_path)
    watch, _ = session(tmp_path, "--debounce", "0")
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "b.md").write_text("# B\n", encoding="utf-8")
    (sub / "b.md.review.yaml").write_text('mrsf_version: "1.0"\ndocument: sub/b.md\ncomments: []\n', encoding="utf-8")
    (tmp_path / "node_modules").mkdir()
    (tmp_path / "node_modules" / "x.md.review.yaml").write_text("x", encoding="utf-8")
    elsewhere = tmp_path.parent / f"{tmp_path.name}-elsewhere"
    elsewhere.mkdir()
    write_pair(elsewhere)
    (tmp_path / "linked").symlink_to(elsewhere, target_is_directory=True)
    watch.rescan()
    assert watch.watcher.poll() == [Change(str(sub / "b.md.review.yaml"), "added")]
    assert str(sub / "b.md") in watch.watcher.paths
    assert not any("node_modules" in p or "linked" in p for p in watch.watcher.paths)
    watch.rescan()  # known already: not told again
    assert watch.watcher.poll() == []


def test_a_sidecar_found_but_not_read_is_told_once_and_counted(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """As the other sweeps: a FIFO sidecar and one symlinked out of the workspace are never
    opened nor watched; the banner says them (PARTIAL, one NOT READ entry each: the workspace
    walk told them as warnings on stderr, or not at all with --json) and each counts as an
    error (exit 1); one that appears later is told once by the rescan."""
    write_pair(tmp_path)
    (tmp_path / ".git").mkdir()
    outside = tmp_path.parent / f"{tmp_path.name}-elsewhere.yaml"
    outside.write_text('mrsf_version: "1.0"\ndocument: three.md\ncomments: []\n', encoding="utf-8")
    os.symlink(outside, tmp_path / "three.md.review.yaml")
    os.mkfifo(tmp_path / "two.md.review.yaml")
    watch, _ = session(tmp_path, "--debounce", "0")
    watch.banner()
    shown = capsys.readouterr()
    assert shown.err == ""
    assert "PARTIAL: 2 sidecar(s) found but not read; they are not watched\n" in shown.out
    assert f"NOT READ — {tmp_path / 'two.md.review.yaml'}\n" in shown.out and "FIFO" in shown.out
    assert f"NOT READ — {tmp_path / 'three.md.review.yaml'}\n" in shown.out and str(outside) in shown.out
    assert sorted(watch.watcher.paths) == [str(tmp_path / "doc.md"), str(tmp_path / "doc.md.review.yaml")]
    assert watch.errors == 2
    os.mkfifo(tmp_path / "four.md.review.yaml")
    watch.rescan()
    watch.rescan()
    shown = capsys.readouterr().out
    assert shown.count("NOT READ — ") == 1 and f"NOT READ — {tmp_path / 'four.md.review.yaml'}\n" in shown
    assert watch.errors == 3
    watch, _ = session(tmp_path, "--json")
    watch.banner()
    os.mkfifo(tmp_path / "five.md.review.yaml")
    watch.rescan()
    records = [json.loads(line) for line in capsys.readouterr().out.split("\n") if line]
    assert sorted((Path(e["file"]).name, e["code"]) for e in records[0]["notRead"]) == [
        ("four.md.review.yaml", "not-regular"), ("three.md.review.yaml", "path-escape"),
        ("two.md.review.yaml", "not-regular")]
    assert records[1] == {"type": "notRead", "file": str(tmp_path / "five.md.review.yaml"), "code": "not-regular",
                          "message": records[1]["message"]} and "FIFO" in records[1]["message"]
    assert watch.errors == 4


def json_sidecar(folder: Path, document: str = "doc.md") -> Path:
    """A ``.review.json`` sidecar for ``document`` in ``folder``: one comment on line 3 of DOC."""
    comment = {"id": "j1", "author": "Jo", "timestamp": "2026-01-01T00:00:00Z", "text": "On line one",
               "resolved": False, "line": 3, "selected_text": "First paragraph line one."}
    path = folder / f"{document}.review.json"
    path.write_text(json.dumps({"mrsf_version": "1.0", "document": document, "comments": [comment]}),
                    encoding="utf-8")
    return path


def test_a_json_sidecar_that_appears_in_the_workspace_is_found(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    write_pair(tmp_path)
    (tmp_path / "b.md").write_text(DOC, encoding="utf-8")
    watch, _ = session(tmp_path, "--debounce", "0")
    sidecar = json_sidecar(tmp_path, "b.md")
    watch.rescan()
    changes = watch.watcher.poll()
    assert changes == [Change(str(sidecar), "added")]
    assert str(tmp_path / "b.md") in watch.watcher.paths
    watch.handle(changes[0])
    assert f"validate ✓ {sidecar}" in capsys.readouterr().out


def test_a_json_sidecar_that_appears_for_a_named_document_is_found_and_reanchored(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "doc.md").write_text(DOC, encoding="utf-8")
    watch, _ = session(tmp_path, "--reanchor", "--no-git", "--debounce", "0", "doc.md")
    sidecar = json_sidecar(tmp_path)
    watch.rescan()
    assert watch.watcher.poll() == [Change(str(sidecar), "added")]
    doc = tmp_path / "doc.md"
    doc.write_text("new\nlines\n" + DOC, encoding="utf-8")
    changes = watch.watcher.poll()
    assert changes == [Change(str(doc), "changed")]
    watch.handle(changes[0])
    assert json.loads(sidecar.read_text(encoding="utf-8"))["comments"][0]["line"] == 5
    assert watch.watcher.poll() == []  # the sidecar we wrote
    assert f"validate ✓ {sidecar}" in capsys.readouterr().out
    assert (watch.reanchors, watch.errors) == (1, 0)


def test_with_both_sidecars_a_document_goes_with_the_yaml_one_as_elsewhere(tmp_path: Path) -> None:
    """As every command finds a document's sidecar: the ``.review.yaml`` when it exists,
    else the ``.review.json``.  A folder stands for every sidecar in it, both included
    (as ``mrsf validate`` takes a folder)."""
    write_pair(tmp_path)
    json_path = json_sidecar(tmp_path)
    yaml_path = tmp_path / "doc.md.review.yaml"
    named, _ = session(tmp_path, "--reanchor", "--no-git", "--debounce", "0", "doc.md")
    assert sorted(named.watcher.paths) == [str(tmp_path / "doc.md"), str(yaml_path)]
    (tmp_path / "doc.md").write_text("new\nlines\n" + DOC, encoding="utf-8")
    named.handle(Change(str(tmp_path / "doc.md"), "changed"))
    assert "line: 5" in yaml_path.read_text(encoding="utf-8")
    assert json.loads(json_path.read_text(encoding="utf-8"))["comments"][0]["line"] == 3
    workspace, _ = session(tmp_path, "--debounce", "0")
    assert sorted(workspace.watcher.paths) == sorted([str(tmp_path / "doc.md"), str(yaml_path), str(json_path)])
    yaml_path.unlink()  # the yaml one goes: the document's sidecar is the json one now
    named.rescan()
    assert str(json_path) in named.watcher.paths


def test_quiet_shows_only_what_went_wrong(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_pair(tmp_path)
    watch, _ = session(tmp_path, "-q", "--reanchor", "--no-git")
    watch.handle(Change(str(tmp_path / "doc.md.review.yaml"), "changed"))
    assert capsys.readouterr().out == ""
    (tmp_path / "doc.md").write_text("# Something else entirely\n", encoding="utf-8")
    watch.handle(Change(str(tmp_path / "doc.md"), "changed"))
    shown = capsys.readouterr().out
    # c2, a reply without an anchor of its own, is orphaned with its parent c1 (MRSF §10.1)
    assert "reanchor " in shown and "✗ c1" in shown and "3 orphaned" in shown
    assert "● c2" not in shown and "validate ✓" not in shown


def test_json_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_pair(tmp_path)
    watch, _ = session(tmp_path, "--json")
    watch.banner()
    watch.handle(Change(str(tmp_path / "doc.md.review.yaml"), "changed"))
    watch.summary()
    records = [json.loads(line) for line in capsys.readouterr().out.split("\n") if line]
    assert [r["type"] for r in records] == ["watching", "event", "summary"]
    event = records[1]
    assert event["role"] == "sidecar" and event["ok"] is True and event["validate"][0]["valid"] is True
    assert records[2] == {"type": "summary", "events": 1, "reanchors": 0, "errors": 0}


@pytest.mark.parametrize("argv", [["--debounce", "-1"], ["--interval", "0"], ["-t", "2"]])
def test_bad_options_are_usage_errors(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    from markmcp.mrsf.cli import main

    assert main(["watch", *argv]) == 2
    assert "Traceback" not in capsys.readouterr().err


# ---------------------------------------------------------------------------
# A real run
# ---------------------------------------------------------------------------


def wait_for(predicate, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process")
def test_watch_reanchors_a_real_edit_and_stops_on_sigint(tmp_path: Path) -> None:
    write_pair(tmp_path)
    out_path, err_path = tmp_path / "out.txt", tmp_path / "err.txt"
    with open(out_path, "w", encoding="utf-8") as out, open(err_path, "w", encoding="utf-8") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "markmcp.mrsf.cli", "watch", "--reanchor", "--no-git",
             "--interval", "50", "--debounce", "50", "--cwd", str(tmp_path)],
            cwd=tmp_path, stdout=out, stderr=err, stdin=subprocess.DEVNULL,
        )
        try:
            assert wait_for(lambda: "Press Ctrl+C to stop." in out_path.read_text(encoding="utf-8")), \
                out_path.read_text(encoding="utf-8") + err_path.read_text(encoding="utf-8")
            doc = tmp_path / "doc.md"
            edited = tmp_path / "doc.md.tmp"  # saved as an editor does: a new file renamed over the old
            edited.write_text("Inserted one.\nInserted two.\n" + doc.read_text(encoding="utf-8"), encoding="utf-8")
            edited.replace(doc)
            sidecar = tmp_path / "doc.md.review.yaml"
            assert wait_for(lambda: "line: 5" in sidecar.read_text(encoding="utf-8")), \
                out_path.read_text(encoding="utf-8") + err_path.read_text(encoding="utf-8")
            assert wait_for(lambda: "validate ✓" in out_path.read_text(encoding="utf-8"))
            proc.send_signal(signal.SIGINT)
            code = proc.wait(timeout=10)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    stdout, stderr = out_path.read_text(encoding="utf-8"), err_path.read_text(encoding="utf-8")
    assert code == 0, stdout + stderr
    assert "Traceback" not in stderr
    assert stdout.strip().split("\n")[-1] == "Events processed: 1 | Reanchors: 1 | Errors: 0", stdout
    assert "line: 6" in (tmp_path / "doc.md.review.yaml").read_text(encoding="utf-8")  # c3 moved too


@pytest.mark.skipif(sys.platform == "win32", reason="SIGTERM to a child process")
def test_watch_json_lines_and_sigterm_with_a_broken_sidecar(tmp_path: Path) -> None:
    write_pair(tmp_path)
    out_path, err_path = tmp_path / "out.jsonl", tmp_path / "err.txt"

    def records() -> list[dict]:
        whole = out_path.read_text(encoding="utf-8").split("\n")[:-1]  # lines already ended
        return [json.loads(line) for line in whole]

    with open(out_path, "w", encoding="utf-8") as out, open(err_path, "w", encoding="utf-8") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "markmcp.mrsf.cli", "watch", "--json", "--no-git", "--interval", "50",
             "--debounce", "50"],
            cwd=tmp_path, stdout=out, stderr=err, stdin=subprocess.DEVNULL,
        )
        try:
            assert wait_for(lambda: len(records()) == 1), err_path.read_text(encoding="utf-8")
            (tmp_path / "doc.md.review.yaml").write_text("comments: [\n", encoding="utf-8")
            assert wait_for(lambda: len(records()) == 2), err_path.read_text(encoding="utf-8")
            proc.send_signal(signal.SIGTERM)
            code = proc.wait(timeout=10)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    assert code == 1
    assert "Traceback" not in err_path.read_text(encoding="utf-8")
    watching, event, summary = records()
    assert watching["type"] == "watching" and watching["mode"] == "validate"
    assert event["type"] == "event" and event["role"] == "sidecar" and event["ok"] is False
    assert event["validate"][0]["valid"] is False
    assert summary == {"type": "summary", "events": 1, "reanchors": 0, "errors": 1}
