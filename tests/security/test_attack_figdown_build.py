"""FigDown's write paths against a hostile repository: ``figdown build`` (and ``--check``,
``--out``) and the ``figdown_build`` tool with ``write: true``, plus ``figdown_read`` on
the ``X.svg`` they derive.

``X.svg`` is a path WE derive from ``X.fd``, so an attacker can plant anything there
before a build runs.  Each plant below sits at the artifact path of an ordinary,
buildable ``X.fd``:

* a symlink to the victim file outside, to a file inside, to a missing file outside
  (writing through it would create that file), to ``/dev/zero`` and to
  ``/proc/self/environ``;
* a FIFO (opening it for reading or writing would block), a folder;
* an ``.svg`` someone drew by hand (no FigDown metadata), one over the read-back limit
  (sparse: its size alone must decide), one that is not UTF-8;
* a hard link to a FigDown artifact (of another source) outside: the build replaces it,
  and the file outside must not change.

Every build must finish (a call running longer than :data:`HANG` seconds fails as a
hang), print no traceback, never show the victim's content or the environment, leave
the plant exactly as it was (a link still a link to the same place, the foreign file's
bytes unchanged) and create or change nothing outside.  The same holds for the
``--out`` folder, for ``--check`` (which never writes) and for the tool through the
write gate (``--allow-write`` and a root), in-process and over a real stdio session.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import resource
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcpwire import StdioClient, module_command

from markmcp.figdown import artifacts, cli, server
from markmcp.figdown.render import build
from markmcp.mcpcore import CallContext, FileAccessError, ToolError

from .hostile import SECRET, Hostile
from .test_attack_figdown import CANARY_NAME, CANARY_VALUE, HANG, MEMORY_CAP, assert_safe_text, leaks, within

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="needs symlinks, FIFOs and /proc")

CLEAN = 'figdown 0.1 block\nnode a "A"\nnode b "B"\nedge a -> b\n'
OLDER = 'figdown 0.1 block\nnode z "an artifact outside, hard-linked in"\n'
FOREIGN_SVG = '<svg xmlns="http://www.w3.org/2000/svg"><text>drawn by hand</text></svg>\n'
OVER = artifacts.ARTIFACT_LIMIT + 1
ELSEWHERE = {"artifact.svg": hashlib.sha256((build(OLDER).svg or "").encode()).hexdigest(),
             "x.fd": hashlib.sha256(CLEAN.encode()).hexdigest()}

#: Every plant, by the name of the document whose artifact path it sits at.  The value is
#: the code of the refusal (``FileAccessError.code``) or ``"not-ours"`` (left alone as foreign).
PLANTS = {
    "victim-link": "symlink", "inside-link": "symlink", "dangling": "symlink", "zero": "symlink",
    "environ": "symlink", "pipe": "not-regular", "folder": "is-directory", "foreign": "not-ours",
    "oversize": "not-ours", "latin": "not-ours",
}


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


class Planted(Hostile):
    """The hostile repository with a fingerprint of every plant, to prove none was touched.
    ``elsewhere`` (beside ``outside``) holds a FigDown artifact and a document outside the
    repository, which a build must not change or build beside."""

    @property
    def elsewhere(self) -> Path:
        return self.root.parent / "elsewhere"

    def elsewhere_snapshot(self) -> dict[str, str]:
        return {p.name: digest(p) for p in sorted(self.elsewhere.iterdir())}

    def fingerprint(self) -> dict[str, str]:
        state: dict[str, str] = {}
        for name in PLANTS:
            path = self.root / "figs" / f"{name}.svg"
            info = os.lstat(path)
            if stat.S_ISLNK(info.st_mode):
                state[name] = "link:" + os.readlink(path)
            elif stat.S_ISREG(info.st_mode):
                state[name] = f"file:{info.st_size}:{info.st_ino}:{info.st_mtime_ns}"
            else:
                state[name] = f"mode:{stat.S_IFMT(info.st_mode)}:{info.st_ino}"
        return state


def plant(base: Path) -> Planted:
    h = Planted.create(base)
    h.elsewhere.mkdir()
    (h.elsewhere / "artifact.svg").write_text(build(OLDER).svg or "")
    (h.elsewhere / "x.fd").write_text(CLEAN)
    for name in [*PLANTS, "good", "hardlink"]:
        h.write(f"figs/{name}.fd", CLEAN)
    h.write("figs/other.txt", "inside, not an artifact\n")
    h.link_to_victim("figs/victim-link.svg")
    (h.root / "figs" / "inside-link.svg").symlink_to("other.txt")
    h.dangling_link("figs/dangling.svg", "new.svg")
    h.device_link("figs/zero.svg", "/dev/zero")
    h.device_link("figs/environ.svg", "/proc/self/environ")
    h.fifo("figs/pipe.svg")
    (h.root / "figs" / "folder.svg").mkdir()
    h.write("figs/foreign.svg", FOREIGN_SVG)
    with open(h.root / "figs" / "oversize.svg", "wb") as sparse:  # its size alone must decide: never read
        sparse.truncate(OVER)
    h.write("figs/latin.svg", b'<svg xmlns="http://www.w3.org/2000/svg"><text>caf\xe9</text></svg>')
    os.link(h.elsewhere / "artifact.svg", h.root / "figs" / "hardlink.svg")
    return h


@pytest.fixture()
def repo(tmp_path: Path) -> Planted:
    return plant(tmp_path)


def assert_nothing_moved(repo: Planted, before: dict[str, str], outside: dict[str, str]) -> None:
    assert repo.fingerprint() == before, "a plant at an artifact path was changed"
    assert repo.outside_snapshot() == outside, "something outside the repository changed"
    assert repo.elsewhere_snapshot() == ELSEWHERE, "the artifact or document outside the repository changed"
    assert sorted(os.listdir(repo.elsewhere)) == ["artifact.svg", "x.fd"]
    repo.assert_untouched()
    assert (repo.root / "figs" / "foreign.svg").read_text() == FOREIGN_SVG
    assert not any(name.startswith(".") for name in os.listdir(repo.root / "figs")), "a temporary file was left"


# --- the CLI ---------------------------------------------------------------------------------


def run_cli(args: list[str], cwd: Path, monkeypatch: pytest.MonkeyPatch,
            capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    monkeypatch.chdir(cwd)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"")))
    code = within(lambda: cli.main(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_build_refuses_every_plant_and_builds_the_rest(repo: Planted, monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    before, outside = repo.fingerprint(), repo.outside_snapshot()
    code, out, err = run_cli(["build", "figs"], repo.root, monkeypatch, capsys)
    assert code == 1 and err == ""
    assert_safe_text(out)
    for name in PLANTS:
        assert f"NOT WRITTEN — figs/{name}.svg\n" in out, name
    assert "figs/pipe.svg is not a regular file (a FIFO, device or socket); it was not opened" in out
    assert "figs/oversize.svg is over" in out and "too large to tell whether FigDown built it" in out
    assert "OK  figs/good.svg\n" in out and "OK  figs/hardlink.svg\n" in out
    assert out.endswith(f"built 2 artifact(s), 0 unchanged, {len(PLANTS)} not built (of {len(PLANTS) + 2} "
                        "document(s))\n")
    assert_nothing_moved(repo, before, outside)
    # the hard link was replaced by a new file; the artifact outside it shared bytes with is unchanged
    assert (repo.root / "figs" / "hardlink.svg").stat().st_nlink == 1
    assert (repo.root / "figs" / "good.svg").read_text() == build(CLEAN).svg


@pytest.mark.parametrize("name", sorted(PLANTS))
def test_build_names_the_plant_alone(repo: Planted, monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str], name: str) -> None:
    before, outside = repo.fingerprint(), repo.outside_snapshot()
    code, out, err = run_cli(["build", f"figs/{name}.fd"], repo.root, monkeypatch, capsys)
    assert code == 1 and err == "" and not leaks(out)
    assert out.startswith(f"NOT WRITTEN — figs/{name}.svg\n")
    assert out.endswith("built 0 artifact(s), 0 unchanged, 1 not built (of 1 document(s))\n")
    assert_nothing_moved(repo, before, outside)


def test_check_reports_every_plant_and_writes_nothing(repo: Planted, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    before, outside = repo.fingerprint(), repo.outside_snapshot()
    code, out, err = run_cli(["build", "--check", "figs"], repo.root, monkeypatch, capsys)
    assert code == 1 and err == "" and not leaks(out)
    assert_safe_text(out)
    for name, why in PLANTS.items():
        word = "NOT OURS" if why == "not-ours" else "UNUSABLE"
        assert f"{word} — figs/{name}.svg: " in out, name
    assert "MISSING — figs/good.svg" in out
    assert "STALE — " not in out.replace("STALE — figs/hardlink.svg", "")
    assert not (repo.root / "figs" / "good.svg").exists()
    assert_nothing_moved(repo, before, outside)


def test_out_folder_with_a_planted_subfolder_link_stays_inside(repo: Planted, monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """``--out build`` keeps a walked folder's subfolders; one planted as a link leading out
    is refused, not followed, and the build goes on."""
    repo.write("src/sub/a.fd", CLEAN)
    repo.write("src/b.fd", CLEAN)
    (repo.root / "build").mkdir()
    (repo.root / "build" / "sub").symlink_to(repo.outside, target_is_directory=True)
    repo.dangling_link("build/b.svg", "b.svg")
    before = repo.outside_snapshot()
    code, out, err = run_cli(["build", "--out", "build", "src"], repo.root, monkeypatch, capsys)
    assert code == 1 and err == "" and not leaks(out)
    assert "NOT WRITTEN — build/sub/a.svg\n" in out and "NOT WRITTEN — build/b.svg\n" in out
    assert repo.outside_snapshot() == before
    repo.assert_untouched()
    assert os.readlink(repo.root / "build" / "b.svg") == str(repo.outside / "b.svg")


def test_out_file_that_is_a_plant_is_refused(repo: Planted, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    before, outside = repo.fingerprint(), repo.outside_snapshot()
    for target in ("figs/victim-link.svg", "figs/pipe.svg", "figs/foreign.svg", "figs/dangling.svg"):
        code, out, err = run_cli(["build", "--out", target, "figs/good.fd"], repo.root, monkeypatch, capsys)
        assert code == 1 and out.startswith(f"NOT WRITTEN — {target}\n"), (target, out, err)
        assert not leaks(out + err)
    assert_nothing_moved(repo, before, outside)


def test_read_of_a_planted_artifact_is_refused(repo: Planted, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    before, outside = repo.fingerprint(), repo.outside_snapshot()
    for name in ("zero", "environ", "pipe", "folder", "foreign", "oversize", "latin", "dangling"):
        code, out, err = run_cli(["read", f"figs/{name}.svg"], repo.root, monkeypatch, capsys)
        assert code == 2 and out == "" and err.startswith("figdown: ") and err.count("\n") == 1, (name, err)
        assert not leaks(err) and "Traceback" not in err
    # a link the user names is followed, as `cat` would; the victim holds no FigDown metadata
    code, out, err = run_cli(["read", "figs/victim-link.svg"], repo.root, monkeypatch, capsys)
    assert code == 2 and out == "" and not leaks(err)
    assert_nothing_moved(repo, before, outside)


def cli_process(args: list[str], cwd: Path) -> subprocess.CompletedProcess[bytes]:
    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))

    env = {**os.environ, CANARY_NAME: CANARY_VALUE}
    return subprocess.run([sys.executable, "-m", "markmcp.figdown.cli", *args], cwd=cwd, stdin=subprocess.DEVNULL,
                          capture_output=True, timeout=HANG, env=env, preexec_fn=cap)


def test_build_as_a_process(repo: Planted) -> None:
    before, outside = repo.fingerprint(), repo.outside_snapshot()
    for args in (["build", "figs"], ["build", "--check", "figs"], ["build", "--with-title", "figs"]):
        run = cli_process(args, repo.root)
        text = (run.stdout + run.stderr).decode("utf-8")
        assert run.returncode == 1, (args, text)
        assert_safe_text(text)
    assert_nothing_moved(repo, before, outside)


# --- the tool --------------------------------------------------------------------------------


def context(repo: Planted, *, roots: tuple[Path, ...] | None = None, allow_write: bool = True) -> CallContext:
    return CallContext(roots=(repo.root,) if roots is None else roots, cwd=repo.root, allow_write=allow_write,
                       options={})


def call(handler: Callable[[dict[str, Any], CallContext], dict[str, Any]], args: dict[str, Any],
         ctx: CallContext) -> tuple[str, Any]:
    try:
        return "result", within(lambda: handler(args, ctx))
    except (ToolError, FileAccessError) as error:
        return "refused", error.message


@pytest.mark.parametrize("name", sorted(PLANTS))
def test_the_tool_refuses_every_plant(repo: Planted, name: str) -> None:
    before, outside = repo.fingerprint(), repo.outside_snapshot()
    kind, message = call(server.build_tool, {"path": f"figs/{name}.fd", "write": True}, context(repo))
    assert kind == "refused", message
    assert message.startswith(f"figs/{name}.svg ") and not leaks(message) and len(message) < 1000
    if PLANTS[name] == "not-ours":
        assert "it was left alone and nothing was written" in message
    assert_nothing_moved(repo, before, outside)


def test_the_tool_writes_only_inside_a_root(repo: Planted) -> None:
    before, outside = repo.fingerprint(), repo.outside_snapshot()
    repo.write("top.fd", CLEAN)
    # readable from the working folder, but the root is figs/: top.svg lies outside it
    kind, message = call(server.build_tool, {"path": "top.fd", "write": True},
                         context(repo, roots=(repo.root / "figs",)))
    assert kind == "refused" and "top.svg" in message and not (repo.root / "top.svg").exists()
    for ctx in (context(repo, allow_write=False), context(repo, roots=())):
        kind, message = call(server.build_tool, {"path": "figs/good.fd", "write": True}, ctx)
        assert kind == "refused" and message.startswith("writing 'figs/good.svg' is not allowed")
    # the source outside the folders is never read, so nothing is built beside it
    kind, message = call(server.build_tool, {"path": str(repo.elsewhere / "x.fd"), "write": True}, context(repo))
    assert kind == "refused" and not leaks(message)
    kind, result = call(server.build_tool, {"path": "figs/good.fd", "write": True}, context(repo))
    assert kind == "result" and result["written"] == "figs/good.svg" and result["svg"] is None
    kind, result = call(server.build_tool, {"path": "figs/hardlink.fd", "write": True}, context(repo))
    assert kind == "result" and (repo.root / "figs" / "hardlink.svg").stat().st_nlink == 1
    assert_nothing_moved(repo, before, outside)


def test_the_tool_reads_no_plant_back(repo: Planted) -> None:
    before, outside = repo.fingerprint(), repo.outside_snapshot()
    for name in PLANTS:
        kind, answer = call(server.read, {"path": f"figs/{name}.svg"}, context(repo))
        assert kind == "refused", (name, answer)
        assert not leaks(answer) and len(answer) < 1000
    assert_nothing_moved(repo, before, outside)


@pytest.mark.parametrize("module", ["markmcp.figdown.server", "markmcp.server"])  # figdown-mcp, markmcp-mcp
def test_a_stdio_session_with_the_write_gate_open(repo: Planted, monkeypatch: pytest.MonkeyPatch, module: str) -> None:
    before, outside = repo.fingerprint(), repo.outside_snapshot()
    monkeypatch.setenv(CANARY_NAME, CANARY_VALUE)
    command = [*module_command(module), "--allow-write", "--root", str(repo.root)]
    with StdioClient(command, cwd=repo.root, timeout=HANG) as stdio:
        assert "result" in stdio.initialize(client="attack")

        def tool(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
            answer = stdio.call("tools/call", {"name": name, "arguments": arguments})
            assert not leaks(json.dumps(answer, ensure_ascii=False)), leaks(json.dumps(answer))
            return answer["result"]

        for name in PLANTS:
            result = tool("figdown_build", {"path": f"figs/{name}.fd", "write": True})
            assert result["isError"] is True, (name, result)
            assert_safe_text(result["content"][0]["text"])
        done = tool("figdown_build", {"path": "figs/good.fd", "write": True})
        assert done["isError"] is False and done["structuredContent"]["written"] == "figs/good.svg"
        again = tool("figdown_build", {"path": "figs/good.fd", "write": True})
        assert again["structuredContent"]["unchanged"] is True
        back = tool("figdown_read", {"path": "figs/good.svg"})
        assert back["structuredContent"]["artifact"]["sidecar"]["status"] == "matches"
        code, stderr = stdio.finish()
    assert code == 0 and "Traceback" not in stderr and not leaks(stderr)
    assert_nothing_moved(repo, before, outside)
    assert (repo.root / "figs" / "good.svg").read_text() == build(CLEAN).svg
    assert SECRET not in (repo.root / "figs" / "good.svg").read_text()
