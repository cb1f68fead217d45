"""``markmcp check`` across machines and processes: the process pool gives what one
worker gives, ``--shard`` splits stably, ``--changed-since`` follows what changed
(and what depends on it), and a terminal gets a progress bar."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from conftest import required_tool
from markmcp.check import cli, report
from markmcp.check.tree import changed_since
from markmcp.figdown.render import build
from markmcp.mrsf import ops

from .test_check import FIGURE, PAGE, SHEET, STALE_SHEET, write

CSV = "Item,Qty\nPens,2\nInk,3\n"
IMPORTING = "```vmark #stock from stock.csv\ntotal = SUM(Qty)\n```\n\nWe hold **5**<!--vmark=stock.total--> items.\n"


def _git() -> str:
    return required_tool("git")


def git(folder: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.org"}
    subprocess.run([_git(), *args], cwd=folder, check=True, capture_output=True, env=env)


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    code = cli.main(["check", "--json", *args])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, json.loads(out)


def mixed_tree(top: Path, copies: int = 6) -> None:
    for k in range(copies):
        write(top / f"d{k}" / "order.md", SHEET if k % 2 else STALE_SHEET)
        write(top / f"d{k}" / "fig.fd", FIGURE if k % 3 else FIGURE + "frobnicate\n")
        write(top / f"d{k}" / "notes.md", PAGE)
        ops.add(f"d{k}/notes.md", author="Ada", text="Why?", line=3, root=top, id=f"c{k}")


def paths(data: dict[str, Any]) -> list[str]:
    return sorted([e["path"] for e in data["visimark"]["files"]] + [e["label"] for e in data["figdown"]["documents"]]
                  + [e["sidecar"] for e in data["mrsf"]["files"]])


def test_a_pool_of_workers_reports_what_one_worker_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    mixed_tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    one = run_json(capsys, "--jobs", "1")
    many = run_json(capsys, "--jobs", "3")
    assert one == many
    assert one[0] == 1 and one[1]["summary"]["files"] == 18


def test_the_json_report_is_byte_for_byte_what_json_dumps_writes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    # the workers encode their files' parts of the envelope; joined, they are json.dumps's text
    mixed_tree(tmp_path)
    write(tmp_path / "d0" / "notes.md", "# Notes\n\nAn inserted line.\nThe first line to review.\nThe second line.\n")
    write(tmp_path / "d1" / "café.md", "Prix « total » : **3**<!--vmark=nowhere.x-->\n")
    monkeypatch.chdir(tmp_path)
    outputs = []
    for jobs in ("1", "3"):
        assert cli.main(["check", "--json", "--jobs", jobs]) == 1
        outputs.append(capsys.readouterr().out)
    one, many = outputs
    assert one == many
    assert one == report.json_text(json.loads(one))
    data = json.loads(one)
    assert data["findings"] and data["mrsf"]["files"] and "d1/café.md" in {e["path"] for e in data["visimark"]["files"]}
    assert cli.main(["check", "--json", "--jobs", "3", "--fix"]) == 1  # the FigDown errors stay
    fixed = capsys.readouterr().out
    assert fixed == report.json_text(json.loads(fixed)) and json.loads(fixed)["fixed"]


def test_git_is_asked_once_per_workspace_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    git(tmp_path, "init", "-q")
    mixed_tree(tmp_path, copies=3)
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "start")
    monkeypatch.chdir(tmp_path)
    asked: list[Path] = []
    real = ops.git_facts

    def counted(root: Any) -> Any:
        asked.append(Path(root))
        return real(root)

    monkeypatch.setattr(ops, "git_facts", counted)
    code, data = run_json(capsys, "--jobs", "1")
    assert code == 1 and len(data["mrsf"]["files"]) == 3
    assert asked == [tmp_path]  # three sidecars, one workspace root: git asked once
    head = subprocess.run([_git(), "rev-parse", "HEAD"], cwd=tmp_path, capture_output=True, text=True).stdout.strip()
    assert real(tmp_path) == (tmp_path, head)


def test_what_a_run_remembers_is_forgotten_by_the_next(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    # a folder's workspace root is remembered for a run, never across runs of one process
    mixed_tree(tmp_path, copies=1)
    write(tmp_path / ".mrsf.yaml", "")
    monkeypatch.chdir(tmp_path)
    code, data = run_json(capsys, "--jobs", "1")
    assert data["mrsf"]["files"][0]["warnings"] == []
    write(tmp_path / "d0" / ".mrsf.yaml", "")  # d0 is a workspace of its own now
    code, data = run_json(capsys, "--jobs", "1")
    [warning] = data["mrsf"]["files"][0]["warnings"]
    assert warning["code"] == "document-mismatch" and "'d0/notes.md' but this sidecar belongs to 'notes.md'" in \
        warning["message"]


def test_shards_split_the_tree_stably(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    first, second = tmp_path / "checkout-a", tmp_path / "elsewhere" / "checkout-b"
    for top in (first, second):
        top.mkdir(parents=True)
        git(top, "init", "-q")
        mixed_tree(top, copies=8)
    shards: dict[Path, list[list[str]]] = {}
    for top in (first, second):
        monkeypatch.chdir(top)
        shards[top] = [paths(run_json(capsys, "--jobs", "1", "--shard", f"{i}/3")[1]) for i in (1, 2, 3)]
        whole = paths(run_json(capsys, "--jobs", "1")[1])
        union = sorted(p for shard in shards[top] for p in shard)
        assert union == whole and len(set(union)) == len(union) == 24  # every file in exactly one shard
        assert all(shard for shard in shards[top])
    assert shards[first] == shards[second]  # the same split wherever the repository was checked out


def test_changed_since_follows_changes_and_dependencies(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    git(tmp_path, "init", "-q")
    write(tmp_path / "stock" / "stock.csv", CSV)
    write(tmp_path / "stock" / "report.md", IMPORTING)
    write(tmp_path / "orders" / "order.md", SHEET)
    write(tmp_path / "figs" / "a.fd", FIGURE)
    write(tmp_path / "figs" / "a.svg", build(FIGURE).svg or "")
    write(tmp_path / "figs" / "b.fd", FIGURE)
    write(tmp_path / "notes.md", PAGE)
    ops.add("notes.md", author="Ada", text="Why?", line=3, root=tmp_path, id="c1")
    assert cli.main(["check", "--jobs", "1", "--fix"]) == 0  # stamps the import
    capsys.readouterr()
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "start")
    code, data = run_json(capsys, "--changed-since", "HEAD", "--jobs", "1")
    assert (code, data["summary"]["files"]) == (0, 0)

    write(tmp_path / "stock" / "stock.csv", CSV + "Paper,4\n")  # the import changed, not the document
    write(tmp_path / "figs" / "a.svg", build(FIGURE + "# later\n").svg or "")  # the artifact changed
    write(tmp_path / "notes.md", "# Notes\n\nAn inserted line.\nThe first line to review.\nThe second line.\n")
    write(tmp_path / "new.fd", FIGURE + "frobnicate\n")  # untracked
    code, data = run_json(capsys, "--changed-since", "HEAD", "--jobs", "1")
    assert code == 1
    assert paths(data) == ["figs/a.fd", "new.fd", "notes.md.review.yaml", "stock/report.md"]
    codes = {(f["file"], f["code"]) for f in data["findings"]}
    assert ("stock/report.md", "STALE") in codes and ("figs/a.fd", "stale-artifact") in codes
    assert ("notes.md", "reanchor:moved") in codes
    code = cli.main(["check", "--changed-since", "no-such-revision"])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert err == "markmcp check: --changed-since no-such-revision: git knows no commit of that name here\n"


def test_changed_since_compares_content_and_leaves_the_index_alone(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    for name in ("same.md", "touched.md", "edited.md", "staged.md", "deleted.md", "staged-back.md"):
        write(tmp_path / name, f"# {name}\n")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "start")
    index = tmp_path / ".git" / "index"
    os.utime(tmp_path / "touched.md", (1, 1))  # new timestamps, same content
    write(tmp_path / "edited.md", "# edited\n")
    write(tmp_path / "staged.md", "# staged\n")
    git(tmp_path, "add", "staged.md")
    write(tmp_path / "staged-back.md", "# changed, staged, then changed back\n")
    git(tmp_path, "add", "staged-back.md")
    write(tmp_path / "staged-back.md", "# staged-back.md\n")
    (tmp_path / "deleted.md").unlink()
    write(tmp_path / "new.md", "# new\n")
    before = (index.read_bytes(), index.stat().st_mtime_ns)
    top = Path(os.path.realpath(tmp_path))
    assert changed_since("HEAD", tmp_path) == {str(top / name) for name in (
        "edited.md", "staged.md", "deleted.md", "new.md",
        "staged-back.md")}  # the one file counted though its content is the revision's again
    assert (index.read_bytes(), index.stat().st_mtime_ns) == before  # nothing written


def test_changed_since_outside_a_repository_is_exit_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    _git()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    code = cli.main(["check", "--changed-since", "HEAD"])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and err.startswith(
        "markmcp check: --changed-since needs a git repository; git rev-parse failed: fatal: not a git repository")


def test_a_terminal_gets_a_progress_bar_and_a_pipe_does_not(tmp_path: Path) -> None:
    mixed_tree(tmp_path, copies=2)
    command = [sys.executable, "-m", "markmcp.check.cli", "check", "--jobs", "2"]
    primary, secondary = pty.openpty()
    try:
        done = subprocess.run(command, cwd=tmp_path, stdout=subprocess.PIPE, stderr=secondary, timeout=120)
        os.close(secondary)
        secondary = -1
        shown = b""
        while True:
            try:
                chunk = os.read(primary, 4096)
            except OSError:
                break
            if not chunk:
                break
            shown += chunk
    finally:
        os.close(primary)
        if secondary >= 0:
            os.close(secondary)
    assert done.returncode == 1
    assert b"] 8/8 files" in shown and shown.startswith(b"\r[")  # 8 files looked at, 6 owned
    assert b"\r[" not in done.stdout  # the bar never reaches standard output
    piped = subprocess.run(command, cwd=tmp_path, capture_output=True, timeout=120)
    assert piped.returncode == 1 and piped.stderr == b""


def _where(task: tuple[str, str, str], *args: Any) -> dict[str, Any]:
    import time

    time.sleep(0.05)
    return {"engine": task[0], "path": task[2], "pid": os.getpid()}


def test_the_work_is_spread_over_worker_processes(monkeypatch: pytest.MonkeyPatch) -> None:
    from markmcp.check import run

    monkeypatch.setattr(run, "run_task", _where)
    tasks = [("figdown", f"/x/{k}.fd", f"{k}.fd") for k in range(24)]
    seen: list[tuple[int, int]] = []
    outcomes = run.run(tasks, jobs=2, progress=lambda done, total: seen.append((done, total)))
    assert [item["path"] for item in outcomes] == [f"{k}.fd" for k in range(24)]  # task order kept
    pids = {item["pid"] for item in outcomes}
    assert os.getpid() not in pids and len(pids) == 2
    assert seen[0] == (0, 24) and seen[-1] == (24, 24)
    few = run.run(tasks[: run.MIN_POOL_TASKS - 1], jobs=2)
    assert {item["pid"] for item in few} == {os.getpid()}  # too few for a pool: checked here


def _quick(task: tuple[str, str, str], *args: Any) -> dict[str, Any]:
    return {"engine": task[0], "path": task[2], "pid": os.getpid()}


def test_files_are_checked_while_the_walk_goes_on(monkeypatch: pytest.MonkeyPatch) -> None:
    from markmcp.check import run

    monkeypatch.setattr(run, "run_task", _quick)
    seen: list[tuple[int, int]] = []
    walked: list[int] = []

    def walk() -> Any:  # a walk that ends once outcomes came back (or after 20,000 files)
        for k in range(20_000):
            if k >= 2 * run.MAX_BATCH and any(done for done, _ in seen):
                return
            walked.append(k)
            yield ("figdown", f"/x/{k}.fd", f"{k}.fd")
            if k >= 2 * run.MAX_BATCH:
                time.sleep(0.001)

    outcomes = run.run(walk(), jobs=2, progress=lambda done, total: seen.append((done, total)))
    assert len(walked) < 20_000  # outcomes came back before the walk was over
    assert [item["path"] for item in outcomes] == [f"{k}.fd" for k in range(len(walked))]  # in walk order
    assert os.getpid() not in {item["pid"] for item in outcomes}
    assert seen[-1] == (len(walked), len(walked))
