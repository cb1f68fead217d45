"""The guarded file-access module (markmcp.mcpcore.files) on a hostile folder."""

from __future__ import annotations

import os
import stat
import threading
import time
from pathlib import Path

import pytest

from markmcp.mcpcore import files
from markmcp.mcpcore.files import FileAccessError, Places


@pytest.fixture()
def tree(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "root"
    outside = tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (outside / "secret.txt").write_text("TOP SECRET\n")
    return root, outside


def test_fifo_is_refused_without_blocking(tree):
    root, _ = tree
    fifo = root / "x.md"
    os.mkfifo(fifo)
    result: list[object] = []

    def attempt() -> None:
        try:
            files.read_bytes(fifo)
        except FileAccessError as error:
            result.append(error)

    worker = threading.Thread(target=attempt, daemon=True)
    worker.start()
    worker.join(timeout=5)
    assert not worker.is_alive(), "reading a FIFO blocked"
    assert isinstance(result[0], FileAccessError) and result[0].code == "not-regular"
    assert "FIFO" in result[0].message


def test_devices_are_refused():
    with pytest.raises(FileAccessError) as caught:
        files.read_bytes("/dev/zero")
    assert caught.value.code == "not-regular"


def test_directory_is_refused(tree):
    root, _ = tree
    with pytest.raises(FileAccessError) as caught:
        files.read_bytes(root)
    assert caught.value.code == "is-directory"


def test_symlink_out_of_places_is_refused(tree):
    root, outside = tree
    (root / "link.md").symlink_to(outside / "secret.txt")
    places = Places.of([root], hint="start the server with --root DIR")
    with pytest.raises(FileAccessError) as caught:
        files.read_bytes(root / "link.md", places=places)
    assert caught.value.code == "outside"
    assert "--root DIR" in caught.value.message
    assert "TOP SECRET" not in caught.value.message
    assert files.read_bytes(root / "link.md") == b"TOP SECRET\n"  # unconfined: allowed


def test_size_limit_is_checked_before_reading(tree):
    root, _ = tree
    big = root / "big.md"
    big.write_bytes(b"a" * 2000)
    assert files.read_bytes(big, limit=2000) == b"a" * 2000
    with pytest.raises(FileAccessError) as caught:
        files.read_bytes(big, limit=1999)
    assert caught.value.code == "too-large" and "2000 bytes" in caught.value.message


def test_path_arguments_are_checked(tree):
    root, _ = tree
    places = Places.of([root])
    with pytest.raises(FileAccessError) as caught:
        places.resolve("a\x00b", root)
    assert caught.value.code == "invalid-path" and "NUL" in caught.value.message
    long_path = "a/" * 3000
    with pytest.raises(FileAccessError) as caught:
        places.resolve(long_path, root)
    assert caught.value.code == "invalid-path"
    assert len(caught.value.message) < 200
    with pytest.raises(FileAccessError) as caught:
        files.read_bytes(root / ("n" * 300))
    assert caught.value.code == "invalid-path" and len(caught.value.message) < 300
    assert places.resolve("../root/x", root) == root.resolve() / "x"
    with pytest.raises(FileAccessError) as caught:
        places.resolve("../outside/secret.txt", root)
    assert caught.value.code == "outside"


@pytest.mark.parametrize("name", ["n" * 256, "é" * 128, "a/" + "n" * 256 + "/b.md"])
def test_a_name_over_255_bytes_is_an_invalid_path_before_any_file_call(tree, name):
    root, _ = tree
    with pytest.raises(FileAccessError) as caught:
        files.check_argument(name)
    assert caught.value.code == "invalid-path" and "255" in caught.value.message
    assert len(caught.value.message) < 300
    with pytest.raises(FileAccessError) as caught:
        Places.of([root]).resolve(name, root)
    assert caught.value.code == "invalid-path"
    assert files.check_argument("n" * 255 + "/" + "é" * 127) == "n" * 255 + "/" + "é" * 127


def test_a_lone_surrogate_is_an_invalid_path(tree):
    root, _ = tree
    with pytest.raises(FileAccessError) as caught:
        Places.of([root]).resolve("x\ud800.md", root)
    assert caught.value.code == "invalid-path" and "\\ud800" in caught.value.message
    assert files.shown("x\ud800") == "x\\ud800"


def _swapping_open(monkeypatch, path: Path, times: int) -> list[int]:
    """os.open that replaces ``path`` by a new file (as a writer's rename does) just
    before each of its first ``times`` openings of it."""
    real_open, swaps = os.open, []

    def swapping_open(name, flags, *args):
        if len(swaps) < times and Path(name) == path.resolve():
            swaps.append(1)
            fresh = path.parent / "fresh"
            fresh.write_text(f"version {len(swaps)}\n")
            os.replace(fresh, path)
        return real_open(name, flags, *args)

    monkeypatch.setattr(files.os, "open", swapping_open)
    return swaps


def test_a_file_replaced_while_it_is_opened_is_opened_again(tree, monkeypatch):
    root, _ = tree
    path = root / "s.yaml"
    path.write_text("version 0\n")
    swaps = _swapping_open(monkeypatch, path, 1)
    assert files.read_bytes(path) == b"version 1\n" and swaps == [1]


def test_a_file_that_keeps_changing_is_an_error_not_a_loop(tree, monkeypatch):
    root, _ = tree
    path = root / "s.yaml"
    path.write_text("version 0\n")
    _swapping_open(monkeypatch, path, 1000)
    with pytest.raises(FileAccessError) as caught:
        files.read_bytes(path)
    assert caught.value.code == "io-error" and "kept changing" in caught.value.message


def test_not_utf8_names_the_byte_and_line(tree):
    root, _ = tree
    (root / "bad.md").write_bytes(b"ok\n\xff\n")
    with pytest.raises(FileAccessError) as caught:
        files.read_text(root / "bad.md", what="document")
    assert caught.value.code == "not-utf8" and "0xff" in caught.value.message and "line 2" in caught.value.message


def test_write_keeps_mode_and_symlinked_document(tree):
    root, _ = tree
    real = root / "real.md"
    real.write_text("old\n")
    os.chmod(real, 0o600)
    (root / "doc.md").symlink_to("real.md")
    files.write_atomic(root / "doc.md", b"new\n", places=Places.of([root]))
    assert (root / "doc.md").is_symlink()
    assert real.read_bytes() == b"new\n"
    assert stat.S_IMODE(real.stat().st_mode) == 0o600
    assert [p.name for p in root.iterdir() if p.name.endswith(".tmp")] == []


def test_derived_path_that_is_a_symlink_is_never_written_through(tree):
    root, outside = tree
    victim = outside / "secret.txt"
    (root / "r.md.review.yaml.bak").symlink_to(victim)
    with pytest.raises(FileAccessError) as caught:
        files.write_atomic(root / "r.md.review.yaml.bak", b"payload", follow=False)
    assert caught.value.code == "symlink"
    assert victim.read_text() == "TOP SECRET\n"
    (root / "dangling.bak").symlink_to(outside / "created")
    with pytest.raises(FileAccessError):
        files.write_atomic(root / "dangling.bak", b"payload", follow=False)
    assert not (outside / "created").exists()


def test_write_outside_places_is_refused(tree):
    root, outside = tree
    (root / "doc.md").symlink_to(outside / "secret.txt")
    with pytest.raises(FileAccessError) as caught:
        files.write_atomic(root / "doc.md", b"x", places=Places.of([root]))
    assert caught.value.code == "outside"
    assert (outside / "secret.txt").read_text() == "TOP SECRET\n"


def test_write_refuses_special_targets(tree):
    root, _ = tree
    os.mkfifo(root / "pipe.md")
    with pytest.raises(FileAccessError) as caught:
        files.write_atomic(root / "pipe.md", b"x")
    assert caught.value.code == "not-regular"
    assert stat.S_ISFIFO(os.lstat(root / "pipe.md").st_mode)


def test_lock_file_is_removed_and_symlink_refused(tree):
    root, outside = tree
    target = root / "a.md.review.yaml"
    with files.locked(target) as held:
        assert held == target.resolve()
        assert (root / ".a.md.review.yaml.lock").exists()
    assert not (root / ".a.md.review.yaml.lock").exists()
    (root / ".b.md.review.yaml.lock").symlink_to(outside / "created")
    with pytest.raises(FileAccessError) as caught:
        with files.locked(root / "b.md.review.yaml"):
            pass
    assert caught.value.code == "symlink"
    assert not (outside / "created").exists()
    os.mkfifo(root / ".c.md.review.yaml.lock")
    with pytest.raises(FileAccessError) as caught:
        with files.locked(root / "c.md.review.yaml"):
            pass
    assert caught.value.code == "not-regular"


def test_lock_excludes_other_threads(tree):
    root, _ = tree
    target = root / "counter"
    target.write_text("0")

    def bump() -> None:
        for _ in range(50):
            with files.locked(target):
                value = int(target.read_text())
                time.sleep(0)
                files.write_atomic(target, str(value + 1).encode())

    threads = [threading.Thread(target=bump) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert target.read_text() == "200"
    assert sorted(p.name for p in root.iterdir()) == ["counter"]


def test_walk_reports_escapes_and_specials(tree):
    root, outside = tree
    (root / "a.fd").write_text("ok")
    (root / "sub").mkdir()
    (root / "sub" / "b.fd").write_text("ok")
    (root / "leak.fd").symlink_to(outside / "secret.txt")
    (root / "inner.fd").symlink_to(root / "a.fd")
    (root / "linkdir").symlink_to(outside, target_is_directory=True)
    (outside / "c.fd").write_text("never seen")
    os.mkfifo(root / "pipe.fd")
    found = list(files.walk(root, accept=lambda name: name.endswith(".fd")))
    by_name = {f.path.name: f for f in found}
    assert set(by_name) == {"a.fd", "b.fd", "leak.fd", "inner.fd", "pipe.fd"}
    assert by_name["a.fd"].problem is None and by_name["inner.fd"].problem is None
    assert by_name["leak.fd"].problem.code == "outside"
    assert by_name["pipe.fd"].problem.code == "not-regular"


def test_walk_enters_only_the_folders_the_caller_lets_in(tree):
    root, _ = tree
    for name in ("a/x.fd", "a/skip/y.fd", "b/z.fd", "node_modules/n.fd"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("ok")
    asked: list[str] = []

    def enter(folder):
        asked.append(folder.relative_to(root).as_posix())
        return folder.name != "skip"

    found = [f.path.relative_to(root).as_posix() for f in files.walk(root, accept=lambda n: True, enter=enter)]
    assert found == ["a/x.fd", "b/z.fd"]
    assert asked == ["a", "a/skip", "b"]  # asked before listing; skipped folders never asked


def test_stale_temps_only_ours(tree):
    root, _ = tree
    target = root / "doc.md"
    (root / f".doc.md.{'0' * 16}.tmp").write_text("left by a killed writer")
    (root / ".doc.md.notours.tmp").write_text("keep")
    assert files.remove_stale_temps(target) == 1
    assert (root / ".doc.md.notours.tmp").exists()


def test_make_folders_refuses_symlinked_parent(tree):
    root, outside = tree
    (root / "reviews").symlink_to(outside, target_is_directory=True)
    with pytest.raises(FileAccessError) as caught:
        files.make_folders(root / "reviews" / "docs", places=Places.of([root]))
    assert caught.value.code == "outside"
    assert not (outside / "docs").exists()
    made = files.make_folders(root / "x" / "y", places=Places.of([root]))
    assert made.is_dir()
