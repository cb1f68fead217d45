"""git.py: answers from a real repository; None (never an exception) without git,
outside a repository, for unknown commits, or when git hangs."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from markmcp.mrsf import git, ops


def run(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.email=t@t", "-c", "user.name=t", *args], cwd=cwd,
                          check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def repo(tmp_path):
    run(tmp_path, "init", "-q", ".")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.md").write_text("one\r\ntwo\r\n")
    run(tmp_path, "add", "-A")
    run(tmp_path, "commit", "-qm", "c1")
    return tmp_path


def test_real_repository(repo):
    head = run(repo, "rev-parse", "HEAD")
    assert git.is_available()
    assert git.repo_root(repo / "sub") == Path(os.path.realpath(repo))
    assert git.repo_root(repo / "sub" / "a.md") == Path(os.path.realpath(repo))
    assert git.head_commit(repo) == head
    assert git.resolve_commit(repo, head[:8]) == head
    assert git.show_file(repo, head, "sub/a.md") == "one\r\ntwo\r\n"
    assert git.show_file(repo, head, repo / "sub" / "a.md") == "one\r\ntwo\r\n"
    assert git.changed_since(repo, head, repo / "sub" / "a.md") is False
    (repo / "sub" / "a.md").write_text("one\ntwo\n")  # only line ends changed
    assert git.changed_since(repo, head, "sub/a.md") is False
    (repo / "sub" / "a.md").write_text("one\nthree\n")
    assert git.changed_since(repo, head, "sub/a.md") is True
    (repo / "new.md").write_text("x")
    assert git.changed_since(repo, head, "new.md") is True  # did not exist at the commit


@pytest.mark.parametrize("commit", ["deadbeef", "--output=/tmp/x", "", "a b", "HEAD:../../etc"])
def test_unknown_or_hostile_commits(repo, commit):
    assert git.show_file(repo, commit, "sub/a.md") is None
    assert git.changed_since(repo, commit, "sub/a.md") is None
    assert git.resolve_commit(repo, commit) is None


def test_outside_a_repository(tmp_path):
    assert git.repo_root(tmp_path) is None
    assert git.head_commit(tmp_path) is None
    assert git.repo_root(tmp_path / "missing" / "dir") is None


def test_without_git_on_path(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert git.is_available() is False
    assert git.repo_root(tmp_path) is None and git.head_commit(tmp_path) is None
    (tmp_path / ".git").mkdir()  # looks like a repo, but git cannot run
    (tmp_path / "a.md").write_text("hello world line\n")
    r = ops.add("a.md", author="a", text="t", line=1, root=tmp_path)
    assert "commit" not in r["comment"]
    assert ops.status(root=tmp_path)["results"][0]["health"] == "fresh"
    assert ops.reanchor("a.md", root=tmp_path)["headCommit"] is None


def test_hanging_git_is_killed_by_the_timeout(tmp_path, monkeypatch):
    fake = tmp_path / "bin"
    fake.mkdir()
    pidfile = tmp_path / "pid"
    script = fake / "git"
    sleep = shutil.which("sleep")
    script.write_text(f"#!/bin/sh\necho $$ > {pidfile}\nexec {sleep} 600\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", str(fake))
    monkeypatch.setattr(git, "GIT_TIMEOUT", 2.0)
    assert git.repo_root(tmp_path) is None
    pid = int(pidfile.read_text())
    assert git._run(["--version"], tmp_path, timeout=0.5) is None  # killed, not a failed exit
    with pytest.raises(ProcessLookupError):  # the hanging git was killed and reaped
        os.kill(pid, 0)
