"""A repository's own git configuration never makes us run its commands.

Each hostile repository below is first shown to be live: plain ``git`` run in it does
run the planted program (it leaves a marker file).  Then the same question asked through
markmcp (``--changed-since``, ``reanchor --staged``, the MRSF commit look-ups) must
leave no marker and still give the right answer.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import required_tool
from markmcp import gitsafe
from markmcp.check.tree import TreeError, changed_since
from markmcp.mrsf import git as mrsf_git

TIMEOUT = 60


class Repository:
    def __init__(self, root: Path, markers: Path) -> None:
        self.root = root
        self.markers = markers
        self.git = required_tool("git")
        self.env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(markers),
                    "GIT_AUTHOR_NAME": "A", "GIT_AUTHOR_EMAIL": "a@example.org",
                    "GIT_COMMITTER_NAME": "A", "GIT_COMMITTER_EMAIL": "a@example.org"}

    @classmethod
    def committed(cls, tmp_path: Path, files: dict[str, str], name: str = "repo") -> Repository:
        """A new repository ``tmp_path/name`` holding ``files`` in one commit (markers
        are left in ``tmp_path/markers``)."""
        markers = tmp_path / "markers"
        markers.mkdir()
        repo = cls(tmp_path / name, markers)
        repo.root.mkdir()
        repo.run("init", "-q")
        for relative, text in files.items():
            (repo.root / relative).write_text(text)
        repo.run("add", "-A")
        repo.run("commit", "-q", "-m", "first")
        return repo

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[bytes]:
        """Plain git, in a process group of its own: whatever it leaves running (a
        transport helper waiting on a remote that never answers) is killed after it."""
        with subprocess.Popen([self.git, *args], cwd=self.root, env=self.env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, start_new_session=True) as proc:
            try:
                out, err = proc.communicate(timeout=TIMEOUT)
            finally:
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        done = subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
        if check:
            done.check_returncode()
        return done

    def program(self, name: str, *, passes_input: bool = True) -> str:
        """A command that leaves the marker ``name`` and passes its input through (or
        exits at once)."""
        script = self.markers / f"{name}.py"
        script.write_text(f"import pathlib, sys\npathlib.Path({str(self.markers / name)!r}).touch()\n"
                          + ("sys.stdout.buffer.write(sys.stdin.buffer.read())\n" if passes_input else ""))
        return f"'{sys.executable}' '{script}'"

    def fired(self) -> set[str]:
        found = {path.name for path in self.markers.iterdir() if not path.name.endswith(".py")}
        for path in self.markers.iterdir():
            if not path.name.endswith(".py"):
                path.unlink()
        return found


@pytest.fixture
def hostile(tmp_path: Path) -> Repository:
    """A work tree whose .git/config and .gitattributes name programs for git to run."""
    repo = Repository.committed(tmp_path, {
        "doc.md": "# Title\n\nOne line.\n",
        "doc.md.review.yaml": "mrsf_version: '1.0'\ndocument: doc.md\ncomments:\n- id: c1\n  author: A\n"
                              "  timestamp: '2026-01-01T00:00:00Z'\n  text: Hi\n  resolved: false\n  line: 3\n"
                              "  selected_text: One line.\n"})
    repo.run("config", "core.fsmonitor", repo.program("fsmonitor"))
    repo.run("config", "filter.evil.clean", repo.program("clean"))
    repo.run("config", "filter.evil.smudge", repo.program("smudge"))
    repo.run("config", "filter.evil.required", "true")
    repo.run("config", "diff.evil.textconv", repo.program("textconv"))
    repo.run("config", "diff.external", repo.program("external"))
    (repo.root / ".gitattributes").write_text("*.md filter=evil diff=evil\n")
    # same size, new content: git must read the file (through the clean filter) to compare
    (repo.root / "doc.md").write_text("# Title\n\nTwo line.\n")
    return repo


def test_plain_git_runs_the_planted_programs(hostile: Repository) -> None:
    hostile.run("diff", "HEAD", "--", "doc.md")
    assert {"fsmonitor", "clean", "external"} <= hostile.fired()


def test_changed_since_runs_none_of_them(hostile: Repository) -> None:
    names = changed_since("HEAD", hostile.root)
    assert hostile.fired() == set()
    top = Path(os.path.realpath(hostile.root))
    assert names == {str(top / "doc.md"), str(top / ".gitattributes")}


def test_staged_files_and_commit_lookups_run_none_of_them(hostile: Repository) -> None:
    hostile.run("add", "doc.md")  # with the repository's clean filter (git's own add): then forget it
    hostile.fired()
    assert mrsf_git.repo_root(hostile.root) == Path(os.path.realpath(hostile.root))
    assert mrsf_git.staged_files(hostile.root) == ["doc.md"]
    assert mrsf_git.show_file(hostile.root, "HEAD", "doc.md") == "# Title\n\nOne line.\n"
    assert mrsf_git.changed_since(hostile.root, "HEAD", "doc.md") is True
    assert hostile.fired() == set()


def test_reanchor_staged_runs_none_of_them(hostile: Repository) -> None:
    from markmcp.mrsf.cli import main

    hostile.run("add", "doc.md")
    hostile.fired()
    assert main(["reanchor", "--staged", "--dry-run", "--cwd", str(hostile.root)]) == 0
    assert hostile.fired() == set()


def partial_clone(tmp_path: Path) -> Repository:
    """A repository with one commit whose one file's content is missing, and the
    configuration of a partial clone that would fetch it from its promisor remote."""
    repo = Repository.committed(tmp_path, {"doc.md": "# Doc\n"})
    blob = repo.run("rev-parse", "HEAD:doc.md").stdout.decode().strip()
    (repo.root / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    for key, value in (("core.repositoryformatversion", "1"), ("extensions.partialClone", "origin"),
                       ("remote.origin.promisor", "true")):
        repo.run("config", key, value)
    return repo


def test_a_promisor_remote_is_never_fetched_from(tmp_path: Path) -> None:
    """A partial clone whose promisor remote is an ``ext::`` command: git would run it to
    fetch an object that is missing."""
    repo = partial_clone(tmp_path)
    fetch = repo.program("fetch", passes_input=False).replace("'", "")  # ext:: splits its command at spaces
    for key, value in (("remote.origin.url", f"ext::{fetch}"), ("protocol.ext.allow", "always")):
        repo.run("config", key, value)
    repo.run("cat-file", "blob", "HEAD:doc.md", check=False)
    assert repo.fired() == {"fetch"}
    assert mrsf_git.show_file(repo.root, "HEAD", "doc.md") is None
    assert repo.fired() == set()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_config_include_that_never_ends_is_stopped(hostile: Repository) -> None:
    """``include.path`` naming a FIFO nobody writes to: git would wait forever."""
    os.mkfifo(hostile.markers / "pipe")
    hostile.run("config", "include.path", str(hostile.markers / "pipe"))
    with pytest.raises(gitsafe.GitError, match="did not finish within 1 s"):
        gitsafe.run(["rev-parse", "--show-toplevel"], hostile.root, timeout=1)
    assert mrsf_git._run(["rev-parse", "HEAD"], hostile.root, timeout=1) is None


def test_output_past_the_cap_stops_git(hostile: Repository) -> None:
    with pytest.raises(gitsafe.GitError, match="wrote more than 8 bytes"):
        gitsafe.run(["cat-file", "blob", "HEAD:doc.md"], hostile.root, max_output=8)
    assert gitsafe.run(["cat-file", "blob", "HEAD:doc.md"], hostile.root, max_output=64).stdout == \
        b"# Title\n\nOne line.\n"


def test_a_failing_git_is_a_tree_error_with_its_first_line(tmp_path: Path) -> None:
    with pytest.raises(TreeError, match="git rev-parse failed: fatal: not a git repository"):
        changed_since("HEAD", tmp_path)


def test_driver_overrides_cover_every_named_driver() -> None:
    listing = (b"core.bare\nfalse\0filter.lfs.clean\ngit-lfs clean\0filter.a.b.process\nx\0"
               b"diff.pdf.textconv\npdftotext\0merge.ours.driver\ntrue\0diff.color\nauto\0"
               b"filter.x=y.clean\nz\0filter..smudge\nz\0")
    overrides = gitsafe.driver_overrides(listing)
    assert ("filter.lfs.clean", "") in overrides and ("filter.lfs.required", "false") in overrides
    assert ("filter.a.b.process", "") in overrides  # a driver name may hold dots
    assert ("filter.x=y.clean", "") in overrides  # or "="
    assert ("filter..smudge", "") in overrides  # or be empty
    assert ("diff.pdf.textconv", "") in overrides and ("merge.ours.driver", "") in overrides
    assert not any(key.startswith(("core.", "diff.color")) for key, _ in overrides)


def test_a_bare_repository_planted_in_a_folder_is_not_used(tmp_path: Path) -> None:
    """A bare repository (as an archive or a checkout can carry one) whose config names
    the folder around it as its work tree and a monitor hook: git run inside it would
    read the index and run the hook."""
    markers = tmp_path / "markers"
    markers.mkdir()
    repo = Repository(tmp_path / "project" / "planted.git", markers)
    repo.root.parent.mkdir()
    subprocess.run([repo.git, "init", "-q", "--bare", str(repo.root)], env=repo.env, check=True, timeout=TIMEOUT)
    repo.run("config", "core.bare", "false")
    repo.run("config", "core.worktree", str(repo.root.parent))
    repo.run("config", "core.fsmonitor", repo.program("fsmonitor"))
    repo.run("ls-files", check=False)
    assert repo.fired() == {"fsmonitor"}
    assert mrsf_git.repo_root(repo.root) is None
    with pytest.raises(TreeError, match="safe.bareRepository"):
        changed_since("HEAD", repo.root)
    assert repo.fired() == set()


@pytest.mark.parametrize("driver", ["x=y", ""], ids=["equals-sign", "empty"])
def test_a_driver_whose_name_a_command_line_setting_cannot_spell_is_switched_off(tmp_path: Path,
                                                                                driver: str) -> None:
    """``-c filter.x=y.clean=`` sets ``filter.x`` (git splits at the first "="), and a
    pattern wanting a non-empty name misses ``filter..clean``: both drivers stay live
    unless named another way."""
    repo = Repository.committed(tmp_path, {"doc.md": "# Title\n\nOne line.\n"})
    repo.run("config", f"filter.{driver}.clean", repo.program("clean"))
    repo.run("config", f"filter.{driver}.required", "true")
    (repo.root / ".gitattributes").write_text(f"*.md filter={driver}\n")
    (repo.root / "doc.md").write_text("# Title\n\nTwo line.\n")
    repo.run("diff", "HEAD", "--name-only")
    assert repo.fired() == {"clean"}
    top = Path(os.path.realpath(repo.root))
    assert changed_since("HEAD", repo.root) == {str(top / "doc.md"), str(top / ".gitattributes")}
    assert repo.fired() == set()


def test_git_allow_protocol_in_the_users_environment_does_not_reopen_transports(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``GIT_ALLOW_PROTOCOL`` outranks every ``protocol.*.allow`` setting, the command
    line's too: a promisor remote given as a local path, with its own upload-pack
    program, is reached through it."""
    repo = partial_clone(tmp_path)
    for key, value in (("remote.origin.url", str(tmp_path / "elsewhere")),
                       ("remote.origin.uploadpack", repo.program("upload", passes_input=False))):
        repo.run("config", key, value)
    repo.env["GIT_ALLOW_PROTOCOL"] = "file"
    monkeypatch.setenv("GIT_ALLOW_PROTOCOL", "file")
    repo.run("-c", "protocol.allow=never", "cat-file", "blob", "HEAD:doc.md", check=False)
    assert repo.fired() == {"upload"}
    assert mrsf_git.show_file(repo.root, "HEAD", "doc.md") is None
    assert repo.fired() == set()


def test_a_git_planted_where_a_relative_path_entry_finds_it_is_not_run(
        hostile: Repository, monkeypatch: pytest.MonkeyPatch) -> None:
    """An empty entry in ``PATH`` (a trailing ":") means the current folder: the
    repository's own ``git`` at its top would be found before the real one."""
    planted = hostile.root / "git"
    planted.write_text(f"#!/bin/sh\ntouch '{hostile.markers / 'planted'}'\n")
    planted.chmod(0o755)
    monkeypatch.setenv("PATH", ":" + os.environ.get("PATH", ""))
    subprocess.run(["git", "--version"], cwd=hostile.root, env={**hostile.env, "PATH": os.environ["PATH"]},
                   timeout=TIMEOUT, check=True)
    assert hostile.fired() == {"planted"}
    assert mrsf_git.head_commit(hostile.root) == hostile.run("rev-parse", "HEAD").stdout.decode().strip()
    assert hostile.fired() == set()


def test_a_program_git_leaves_running_is_killed_with_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A git that starts a program holding its output open, then hangs: the timeout
    kills both (they share a process group of their own) instead of waiting for the
    output to end."""
    import shutil
    import threading

    fake = tmp_path / "bin"
    fake.mkdir()
    pid_file = tmp_path / "pid"
    sleep = shutil.which("sleep")
    (fake / "git").write_text(f"#!/bin/sh\n{sleep} 600 &\necho $! > '{pid_file}'\nexec {sleep} 600\n")
    (fake / "git").chmod(0o755)
    monkeypatch.setenv("PATH", str(fake))
    outcome: list[BaseException] = []

    def ask() -> None:
        try:
            # 3 s, not less: on a loaded machine the shell must have written the pid by then
            gitsafe.run(["--version"], tmp_path, timeout=3)
        except gitsafe.GitError as error:
            outcome.append(error)

    thread = threading.Thread(target=ask, daemon=True)
    thread.start()
    thread.join(TIMEOUT)
    assert not thread.is_alive(), "gitsafe.run waited for the output of a program git left running"
    assert "did not finish within 3 s" in str(outcome[0])
    state = Path(f"/proc/{pid_file.read_text().strip()}/stat")
    # the kill is sent when run() gives up; the program is gone, or listed only as a
    # zombie, once the kernel has delivered it (a moment later on a loaded machine)
    deadline = time.monotonic() + TIMEOUT
    while True:
        try:
            status = state.read_text().rpartition(")")[2].split()[0]
        except OSError:
            break                        # gone
        if status == "Z" or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert not state.exists() or status == "Z", f"the program git left running is still {status}"


def test_a_folder_that_is_not_there_is_named_as_such(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    for where, why in ((tmp_path / "missing", "there is no such folder"), (tmp_path / "file", "it is not a folder")):
        with pytest.raises(gitsafe.GitError, match=f"git cannot run in .*: {why}") as caught:
            gitsafe.run(["rev-parse", "HEAD"], where)
        assert not caught.value.missing  # git itself is there
    with pytest.raises(TreeError, match="there is no such folder"):
        changed_since("HEAD", tmp_path / "missing")


def test_a_repository_of_another_user_is_refused_with_a_hint(hostile: Repository,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Git refuses a repository owned by someone else (``safe.directory``); the
    repository's own config cannot lift that, and we do not either."""
    monkeypatch.setenv("GIT_TEST_ASSUME_DIFFERENT_OWNER", "1")
    hostile.run("config", "safe.directory", "*")  # ignored by git: not the user's own config
    with pytest.raises(TreeError, match="dubious ownership.*lists it under safe.directory"):
        changed_since("HEAD", hostile.root)
    assert mrsf_git.repo_root(hostile.root) is None
    assert hostile.fired() == set()


@pytest.mark.parametrize("name", ["ends in a space ", os.fsdecode(b"not utf-8 \xff")], ids=["space", "bytes"])
def test_a_repository_folder_with_an_awkward_name(tmp_path: Path, name: str) -> None:
    repo = Repository.committed(tmp_path, {"doc.md": "# Doc\n"}, name=name)
    (repo.root / "doc.md").write_text("# Changed\n")
    top = Path(os.path.realpath(repo.root))
    assert mrsf_git.repo_root(repo.root) == top
    assert mrsf_git.show_file(top, "HEAD", top / "doc.md") == "# Doc\n"
    assert changed_since("HEAD", repo.root) == {str(top / "doc.md")}


def test_git_has_no_terminal_to_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A configuration may include ``/dev/tty``: git in our session would sit reading the
    user's keystrokes.  Git runs in a session of its own, without a controlling
    terminal (opening ``/dev/tty`` fails), and leads its own process group."""
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "git").write_text(f"#!{sys.executable}\nimport os\nprint(os.getpid(), os.getsid(0), os.getpgid(0))\n"
                              "try:\n    open('/dev/tty').close()\nexcept OSError:\n    print('no terminal')\n")
    (fake / "git").chmod(0o755)
    monkeypatch.setenv("PATH", str(fake))
    pid, session, group, *rest = gitsafe.run(["--version"], tmp_path).stdout.decode().split()
    assert pid == session == group and int(session) != os.getsid(0)
    assert rest == ["no", "terminal"]


def test_a_work_tree_set_elsewhere_is_reported_in_gits_words(hostile: Repository, tmp_path: Path) -> None:
    """``core.worktree`` may name any folder: git then reports that folder as the top,
    and from there it finds no repository.  The check says so instead of blaming the
    revision, and runs nothing on the way."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    hostile.run("config", "core.worktree", str(elsewhere))
    hostile.run("ls-files", check=False)
    assert "fsmonitor" in hostile.fired()
    with pytest.raises(TreeError, match="git rev-parse failed: fatal: not a git repository"):
        changed_since("HEAD", hostile.root)
    assert hostile.fired() == set()


def test_a_submodules_own_config_runs_nothing(hostile: Repository) -> None:
    """A submodule's repository (``.git/modules/<name>``) has a configuration of its
    own, which the overrides computed for the outer repository do not cover: plain git
    comparing the work tree runs git inside the submodule, which runs its monitor and its
    filter.  We compare the submodule's recorded commit only."""
    inner = Repository(hostile.root.parent / "inner", hostile.markers)
    inner.root.mkdir()
    inner.run("init", "-q")
    (inner.root / "a.md").write_text("one\n")
    inner.run("add", "-A")
    inner.run("commit", "-q", "-m", "inner")
    hostile.run("-c", "protocol.file.allow=always", "submodule", "add", "-q", str(inner.root), "sub")
    hostile.run("commit", "-q", "-m", "sub")
    hostile.run("-C", "sub", "config", "core.fsmonitor", hostile.program("sub-fsmonitor"))
    hostile.run("-C", "sub", "config", "filter.evil.clean", hostile.program("sub-clean"))
    hostile.run("-C", "sub", "config", "filter.evil.required", "true")
    (hostile.root / "sub" / ".gitattributes").write_text("*.md filter=evil\n")
    (hostile.root / "sub" / "a.md").write_text("two\n")
    hostile.fired()
    hostile.run("diff", "HEAD", "--name-only")
    assert {"sub-fsmonitor", "sub-clean"} <= hostile.fired()
    top = Path(os.path.realpath(hostile.root))
    assert changed_since("HEAD", hostile.root) == {str(top / "doc.md"), str(top / ".gitattributes")}
    assert mrsf_git.staged_files(hostile.root) == []
    assert hostile.fired() == set()
