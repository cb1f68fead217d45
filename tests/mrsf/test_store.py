"""store.py and the write path of ops: atomic replace, locks, versions, limits, bad input."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from markmcp.mrsf import ops, store
from markmcp.mrsf.errors import MrsfConflict, MrsfError

SRC = str(Path(store.__file__).resolve().parents[2])
SIDECAR = 'mrsf_version: "1.0"\ndocument: doc.md\ncomments: []  # keep me\n'


@pytest.fixture
def ws(tmp_path):
    (tmp_path / ".mrsf.yaml").write_text("", encoding="utf-8")
    (tmp_path / "doc.md").write_text("# Doc\n\nline three\nline four\n", encoding="utf-8")
    return tmp_path


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}


def test_version_is_sha256_of_bytes(ws):
    (ws / "doc.md.review.yaml").write_text(SIDECAR, encoding="utf-8")
    import hashlib
    assert ops.read("doc.md", root=ws)["version"] == hashlib.sha256(SIDECAR.encode()).hexdigest()


def test_conflict_writes_nothing_and_has_the_pinned_shape(ws):
    path = ws / "doc.md.review.yaml"
    path.write_text(SIDECAR, encoding="utf-8")
    before = snapshot(ws)
    with pytest.raises(MrsfConflict) as info:
        ops.add("doc.md", author="a", text="t", expected_version="0" * 64, root=ws)
    assert info.value.to_dict() == {
        "status": "conflict", "code": "version-mismatch",
        "currentVersion": store.version_of(SIDECAR.encode()), "expectedVersion": "0" * 64,
    }
    after = snapshot(ws)
    after.pop(".doc.md.review.yaml.lock", None)
    assert after == before


def test_expected_version_of_missing_sidecar_is_none(ws):
    with pytest.raises(MrsfConflict) as info:
        ops.add("doc.md", author="a", text="t", expected_version="abc", root=ws)
    assert info.value.to_dict()["currentVersion"] is None
    assert not (ws / "doc.md.review.yaml").exists()


def test_write_keeps_permissions_and_yaml_comments(ws):
    path = ws / "doc.md.review.yaml"
    path.write_text(SIDECAR, encoding="utf-8")
    os.chmod(path, 0o640)
    ops.add("doc.md", author="a", text="t", line=3, root=ws)
    assert (path.stat().st_mode & 0o777) == 0o640
    text = path.read_text(encoding="utf-8")
    assert text.startswith('mrsf_version: "1.0"\ndocument: doc.md\n')
    assert "# keep me" in text


def test_huge_sidecar_is_refused_clearly(ws):
    path = ws / "doc.md.review.yaml"
    with open(path, "wb") as fh:
        fh.write(SIDECAR.encode())
        fh.write(b"# " + b"x" * (20 * 1024 * 1024) + b"\n")
    before = path.stat().st_mtime_ns, path.stat().st_size
    for call in (lambda: ops.read("doc.md", root=ws),
                 lambda: ops.add("doc.md", author="a", text="t", root=ws),
                 lambda: ops.resolve("doc.md", "x", root=ws)):
        with pytest.raises(MrsfError) as info:
            call()
        assert info.value.code == "file-too-large"
        assert "limit" in info.value.message
    assert (path.stat().st_mtime_ns, path.stat().st_size) == before


def test_malformed_yaml_names_line_and_column_and_writes_nothing(ws):
    path = ws / "doc.md.review.yaml"
    bad = 'mrsf_version: "1.0"\ndocument: doc.md\ncomments:\n  - id: a\n    text: "unclosed\n'
    path.write_text(bad, encoding="utf-8")
    with pytest.raises(MrsfError) as info:
        ops.add("doc.md", author="a", text="t", root=ws)
    err = info.value
    assert err.code == "malformed-yaml"
    assert err.details["line"] >= 5 and err.details["column"] >= 1
    assert f"line {err.details['line']}" in err.message
    assert path.read_text(encoding="utf-8") == bad


def test_duplicate_yaml_keys_are_malformed(ws):
    (ws / "doc.md.review.yaml").write_text('mrsf_version: "1.0"\ndocument: a\ndocument: b\ncomments: []\n')
    with pytest.raises(MrsfError) as info:
        ops.read("doc.md", root=ws)
    assert info.value.code == "malformed-yaml" and info.value.details.get("line") == 3


def test_not_utf8_is_a_clear_error(ws):
    (ws / "doc.md.review.yaml").write_bytes(b'mrsf_version: "1.0"\ndocument: \xff\xfe\ncomments: []\n')
    with pytest.raises(MrsfError) as info:
        ops.read("doc.md", root=ws)
    assert info.value.code == "encoding-error"


def test_unknown_comment_id_writes_nothing(ws):
    path = ws / "doc.md.review.yaml"
    path.write_text(SIDECAR, encoding="utf-8")
    for call in (lambda: ops.resolve("doc.md", "nope", root=ws),
                 lambda: ops.update("doc.md", "nope", {"text": "x"}, root=ws),
                 lambda: ops.delete("doc.md", ["nope"], root=ws)):
        with pytest.raises(MrsfError) as info:
            call()
        assert info.value.code == "comment-not-found"
    assert path.read_text(encoding="utf-8") == SIDECAR


def test_path_escape_by_dotdot_and_symlink(ws, tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside")
    (outside / "secret.md").write_text("secret\n")
    with pytest.raises(MrsfError) as info:
        ops.add("../outside/secret.md", author="a", text="t", root=ws, cwd=ws)
    assert info.value.code == "path-escape"
    os.symlink(outside / "secret.md", ws / "link.md")
    with pytest.raises(MrsfError) as info:
        ops.add("link.md", author="a", text="t", root=ws, cwd=ws)
    assert info.value.code == "path-escape"
    # a sidecar that is a symlink to a file outside
    (outside / "evil.review.yaml").write_text(SIDECAR)
    os.symlink(outside / "evil.review.yaml", ws / "doc.md.review.yaml")
    with pytest.raises(MrsfError) as info:
        ops.add("doc.md", author="a", text="t", root=ws, cwd=ws)
    assert info.value.code == "path-escape"
    assert (outside / "evil.review.yaml").read_text() == SIDECAR
    assert not (outside / "secret.md.review.yaml").exists()


WRITER = textwrap.dedent("""
    import sys, time
    sys.path.insert(0, {src!r})
    from pathlib import Path
    from markmcp.mcpcore import files
    from markmcp.mrsf import store
    from markmcp.mrsf.sidecar import parse_sidecar
    path = Path(sys.argv[1])
    def slow():
        print("chunk", flush=True)
        time.sleep(float(sys.argv[3]))
    files.write_hook = slow
    def change(sc):
        for n in range(int(sys.argv[2])):
            sc.append_comment({{"id": f"n{{n}}", "author": "w", "timestamp": "2026-01-01T00:00:00Z",
                               "text": "x" * 200, "resolved": False}})
        return sc, None
    store.transact(path, change)
    print("done", flush=True)
""")


def test_writer_killed_mid_write_leaves_old_file_intact(ws):
    path = ws / "doc.md.review.yaml"
    path.write_text(SIDECAR, encoding="utf-8")
    old = path.read_bytes()
    script = ws / "writer.py"
    script.write_text(WRITER.format(src=SRC))
    proc = subprocess.Popen([sys.executable, str(script), str(path), "50", "60"], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "chunk"  # the temporary file is half written
        temps = [p for p in ws.iterdir() if p.name.endswith(".tmp")]
        assert temps and temps[0].stat().st_size > 0
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    assert path.read_bytes() == old
    # the next writer cleans up and writes a complete file
    result = ops.add("doc.md", author="a", text="after", root=ws)
    assert not [p for p in ws.iterdir() if p.name.endswith(".tmp")]
    assert [c["text"] for c in ops.read("doc.md", root=ws)["data"]["comments"]] == ["after"]
    assert result["previousVersion"] == store.version_of(old)


def test_writer_completing_gives_the_whole_new_file(ws):
    path = ws / "doc.md.review.yaml"
    path.write_text(SIDECAR, encoding="utf-8")
    script = ws / "writer.py"
    script.write_text(WRITER.format(src=SRC))
    out = subprocess.run([sys.executable, str(script), str(path), "300", "0"], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip().endswith("done")
    data = ops.read("doc.md", root=ws)["data"]
    assert len(data["comments"]) == 300


CONCURRENT = textwrap.dedent("""
    import sys
    sys.path.insert(0, {src!r})
    from markmcp.mrsf import ops
    from markmcp.mrsf.errors import MrsfConflict
    root, name, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    retries = 0
    for n in range(count):
        while True:
            version = ops.locate("doc.md", root=root).get("version")
            try:
                ops.add("doc.md", author=name, text=f"{{name}}-{{n}}", id=f"{{name}}-{{n}}",
                        expected_version=version, root=root)
                break
            except MrsfConflict:
                retries += 1
    print(retries)
""")


def test_concurrent_writers_with_expected_version_lose_no_update(ws):
    (ws / "doc.md.review.yaml").write_text(SIDECAR, encoding="utf-8")
    script = ws / "conc.py"
    script.write_text(CONCURRENT.format(src=SRC))
    procs = [subprocess.Popen([sys.executable, str(script), str(ws), f"w{i}", "10"], stdout=subprocess.PIPE, text=True)
             for i in range(4)]
    retries = [int(p.communicate(timeout=120)[0].strip()) for p in procs]
    assert all(p.returncode == 0 for p in procs)
    ids = sorted(c["id"] for c in ops.read("doc.md", root=ws)["data"]["comments"])
    assert ids == sorted(f"w{i}-{n}" for i in range(4) for n in range(10))
    print("conflict retries per writer:", retries)


def test_threads_in_one_process_are_serialised(ws):
    import threading
    (ws / "doc.md.review.yaml").write_text(SIDECAR, encoding="utf-8")
    errors = []

    def work(name):
        try:
            for n in range(5):
                ops.add("doc.md", author=name, text="t", id=f"{name}-{n}", root=ws)
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(f"t{i}",)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(ops.read("doc.md", root=ws)["data"]["comments"]) == 20


def _script(root, cached: bool):
    steps = [
        lambda: ops.add("doc.md", author="a", text="one", line=3, id="a1", timestamp="2026-01-01T00:00:00Z", root=root),
        lambda: ops.add("doc.md", author="b", text="two", reply_to="a1", id="b1", timestamp="2026-01-01T00:00:00Z", root=root),
        lambda: ops.resolve("doc.md", "a1", root=root),
        lambda: ops.update("doc.md", "b1", {"text": "two, edited", "x_k": [1, {"z": None}]}, root=root),
        lambda: ops.delete("doc.md", "a1", root=root),
        lambda: ops.add("doc.md", author="c", text="three", id="c1", timestamp="2026-01-01T00:00:00Z", root=root),
    ]
    for step in steps:
        if not cached:
            store.clear_caches()
        step()
    return (root / "doc.md.review.yaml").read_bytes()


def test_caches_change_nothing_but_speed(tmp_path):
    runs = []
    for cached in (True, False):
        folder = tmp_path / str(cached)
        folder.mkdir()
        (folder / ".mrsf.yaml").write_text("")
        (folder / "doc.md").write_text("# Doc\n\nline three\n")
        (folder / "doc.md.review.yaml").write_text(SIDECAR)
        runs.append(_script(folder, cached))
    assert runs[0] == runs[1]


def test_cache_never_serves_stale_or_shared_data(ws):
    path = ws / "doc.md.review.yaml"
    path.write_text(SIDECAR, encoding="utf-8")
    first = ops.read("doc.md", root=ws)
    first["data"]["comments"].append("caller's own change")
    assert ops.read("doc.md", root=ws)["data"]["comments"] == []
    ops.add("doc.md", author="a", text="t", id="x", root=ws)
    # another program edits the file behind our back: same length, different bytes
    text = path.read_text()
    path.write_text(text.replace("text: t", "text: u"))
    assert [c["text"] for c in ops.list_comments(root=ws)["comments"]] == ["u"]
    ops.resolve("doc.md", "x", root=ws)  # the writer must start from the edited bytes
    assert "text: u" in path.read_text() and "resolved: true" in path.read_text()


def test_a_new_file_gets_the_umask_mode_and_the_umask_is_left_alone(tmp_path: Path) -> None:
    umask = os.umask(0o022)
    os.umask(umask)
    store.atomic_write(tmp_path / "new.review.yaml", b"comments: []\n")
    assert ((tmp_path / "new.review.yaml").stat().st_mode & 0o777) == 0o666 & ~umask
    after = os.umask(0o022)
    os.umask(after)
    assert after == umask


def test_a_lock_failure_names_the_sidecar_not_the_lock_file(ws):
    from markmcp.mrsf import store
    os.symlink("elsewhere", ws / ".doc.md.review.yaml.lock")
    with pytest.raises(MrsfError) as info:
        ops.add("doc.md", author="a", text="t", root=ws, cwd=ws)
    assert "doc.md.review.yaml: cannot write the sidecar" in info.value.message
    assert ".lock" not in info.value.message
    assert store.lock_path(ws / "doc.md.review.yaml").name == ".doc.md.review.yaml.lock"
