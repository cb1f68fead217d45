"""Issue 8, MRSF part: one regression test per finding (each failed before the fix).

The tools are called in-process through their handlers with a :class:`CallContext`
(``--cwd`` = the hostile repository); a call that does not return within a few
seconds counts as a hang.  :mod:`tests.security.test_attack_mrsf` then sweeps every
tool and CLI command over every plant.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from mcpwire import StdioClient, module_command

from markmcp.mcpcore import CallContext, FileAccessError, ToolError
from markmcp.mrsf import cli, ops, server
from markmcp.mrsf.errors import MrsfError

from .hostile import BILLION_LAUGHS, SECRET, Hostile

DOC = "# Title\n\nFirst line.\nSecond line.\n"
SIDECAR = """mrsf_version: "1.0"
document: {doc}
comments:
  - id: c1
    author: Alice
    timestamp: "2026-01-01T00:00:00Z"
    text: {text}
    resolved: false
"""
HANG = 10.0


def sidecar(doc: str, text: str = "hello") -> str:
    return SIDECAR.format(doc=doc, text=text)


def context(cwd: Path) -> CallContext:
    return CallContext(roots=(), cwd=cwd, allow_write=False, options={})


def handler(name: str):
    return next(tool.handler for tool in server.TOOLS if tool.name == name)


def in_thread(function, *args: Any, timeout: float = HANG) -> tuple[str, Any]:
    """("ok", result) or ("error", exception); fails the test when it does not return."""
    outcome: list[tuple[str, Any]] = []

    def run() -> None:
        try:
            outcome.append(("ok", function(*args)))
        except Exception as error:  # noqa: BLE001 - reported to the test
            outcome.append(("error", error))

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(timeout)
    assert outcome, f"{getattr(function, '__name__', function)} did not return within {timeout} s (a hang)"
    return outcome[0]


def call(name: str, args: dict[str, Any], cwd: Path) -> tuple[str, Any]:
    return in_thread(handler(name), args, context(cwd))


def refused(name: str, args: dict[str, Any], cwd: Path) -> ToolError:
    kind, value = call(name, args, cwd)
    assert kind == "error" and isinstance(value, ToolError), (kind, value)
    return value


@pytest.fixture()
def hostile(tmp_path: Path) -> Hostile:
    return Hostile.create(tmp_path)


# --- 1. the repair backup through a planted symlink ----------------------------------------


def test_repair_never_writes_a_backup_through_a_planted_symlink(hostile: Hostile) -> None:
    hostile.write("r.md", DOC)
    broken = "mrsf_version: [\n"
    hostile.write("r.md.review.yaml", broken)
    hostile.link_to_victim("r.md.review.yaml.bak")
    error = refused("mrsf_repair", {"document": "r.md", "backup": True}, hostile.root)
    assert "symbolic link" in error.message and error.data["code"] == "symlink"
    hostile.assert_untouched()
    assert (hostile.root / "r.md.review.yaml").read_text() == broken  # nothing was written


def test_repair_never_creates_a_file_outside_through_a_dangling_backup_link(hostile: Hostile) -> None:
    hostile.write("r.md", DOC)
    hostile.write("r.md.review.yaml", "mrsf_version: [\n")
    hostile.dangling_link("r.md.review.yaml.bak")
    refused("mrsf_repair", {"document": "r.md", "backup": True}, hostile.root)
    hostile.assert_untouched()


def test_repair_keeps_a_backup_only_when_asked_and_says_where(hostile: Hostile) -> None:
    hostile.write("r.md", DOC)
    broken = "mrsf_version: [\n"
    hostile.write("r.md.review.yaml", broken)
    kind, result = call("mrsf_repair", {"document": "r.md"}, hostile.root)
    assert kind == "ok" and result["backup"] is None
    assert not (hostile.root / "r.md.review.yaml.bak").exists()
    hostile.write("r.md.review.yaml", broken)
    kind, result = call("mrsf_repair", {"document": "r.md", "backup": True}, hostile.root)
    assert kind == "ok" and result["backup"] == str(hostile.root / "r.md.review.yaml.bak")
    assert (hostile.root / "r.md.review.yaml.bak").read_text() == broken
    # ... and the CLI: --backup
    hostile.write("r.md.review.yaml", broken)
    (hostile.root / "r.md.review.yaml.bak").unlink()
    code, out, err = run_cli("--cwd", str(hostile.root), "repair", "r.md")
    assert code == 0 and "Backup" not in out and not (hostile.root / "r.md.review.yaml.bak").exists()
    hostile.write("r.md.review.yaml", broken)
    code, out, err = run_cli("--cwd", str(hostile.root), "repair", "r.md", "--backup")
    assert code == 0, err
    assert "Backup of the old sidecar: r.md.review.yaml.bak\n" in out  # relative to --cwd, as all text output
    assert (hostile.root / "r.md.review.yaml.bak").read_text() == broken


# --- 2. a FIFO where a sidecar is expected ---------------------------------------------------


def test_discover_refuses_a_fifo_sidecar_without_blocking(hostile: Hostile) -> None:
    hostile.write("docs/x.md", DOC)
    hostile.fifo("docs/x.md.review.yaml")
    error = refused("mrsf_discover", {"document": "docs/x.md"}, hostile.root)
    assert "FIFO" in error.message and error.data["code"] == "not-regular"


def test_a_fifo_config_or_document_is_refused_without_blocking(hostile: Hostile) -> None:
    hostile.write("a.md.review.yaml", sidecar("a.md"))
    hostile.fifo("a.md")  # the document
    error = refused("mrsf_status", {"files": ["a.md"]}, hostile.root)
    assert "FIFO" in error.message
    error = refused("mrsf_add", {"document": "a.md", "text": "t", "author": "a", "line": 1}, hostile.root)
    assert "FIFO" in error.message
    hostile.fifo(".mrsf.yaml")
    error = refused("mrsf_list", {"files": ["a.md"]}, hostile.root)
    assert ".mrsf.yaml" in error.message and "FIFO" in error.message


def test_git_change_check_never_opens_a_fifo_document(tmp_path: Path) -> None:
    from markmcp.mrsf import git

    if not git.is_available():
        pytest.skip("git is not installed")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "a.md").write_text(DOC)
    subprocess.run(["git", "-C", str(tmp_path), "add", "a.md"], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "a"],
                   check=True)
    head = git.head_commit(tmp_path)
    (tmp_path / "a.md").unlink()
    os.mkfifo(tmp_path / "a.md")
    kind, changed = in_thread(git.changed_since, tmp_path, head, tmp_path / "a.md")
    assert (kind, changed) == ("ok", True)


def test_the_server_still_exits_after_a_fifo_sidecar(hostile: Hostile) -> None:
    hostile.write("docs/x.md", DOC)
    hostile.fifo("docs/x.md.review.yaml")
    with StdioClient(module_command("markmcp.mrsf.server"), cwd=hostile.root, timeout=HANG * 2) as client:
        assert "result" in client.initialize()
        result = client.call_tool("mrsf_discover", {"document": "docs/x.md"})
        assert result["isError"] is True and "FIFO" in result["content"][0]["text"]
        code, stderr = client.finish(timeout=HANG)
    assert code == 0 and "Traceback" not in stderr


# --- 4. a dangling symlink at the lock path ----------------------------------------------------


def test_a_planted_lock_link_is_refused_and_creates_nothing_outside(hostile: Hostile) -> None:
    hostile.write("x.md", DOC)
    hostile.dangling_link(".x.md.review.yaml.lock")
    error = refused("mrsf_add", {"document": "x.md", "text": "t", "author": "a"}, hostile.root)
    assert "lock file is a symbolic link" in error.message and error.data["code"] == "symlink"
    hostile.assert_untouched()
    assert not (hostile.root / "x.md.review.yaml").exists()


WRITES = [
    ("mrsf_add", {"document": "d.md", "text": "t", "author": "a"}),
    ("mrsf_add_batch", {"document": "d.md", "comments": [{"text": "t", "author": "a"}]}),
    ("mrsf_update", {"document": "d.md", "id": "c1", "text": "changed"}),
    ("mrsf_resolve", {"document": "d.md", "id": "c1"}),
    ("mrsf_reanchor", {"files": ["d.md"]}),
    ("mrsf_delete", {"document": "d.md", "id": "c1"}),
    ("mrsf_repair", {"document": "d.md", "strategy": "reset"}),
    ("mrsf_rename", {"oldDocument": "d.md", "newDocument": "e.md"}),
    ("mrsf_add", {"document": "missing/none.md", "text": "t", "author": "a"}),  # a document that does not exist
    ("mrsf_update", {"document": "d.md", "id": "nope", "text": "t"}),  # a failed write
    ("mrsf_add", {"document": "d.md", "text": "t", "author": "a", "line": 99}),  # refused: past the end
]


@pytest.mark.parametrize(("tool", "args"), WRITES, ids=[f"{t}-{i}" for i, (t, _) in enumerate(WRITES)])
def test_no_lock_file_is_left_behind(hostile: Hostile, tool: str, args: dict[str, Any]) -> None:
    hostile.write("d.md", DOC)
    hostile.write("d.md.review.yaml", sidecar("d.md"))
    call(tool, args, hostile.root)
    left = [p.name for p in hostile.root.rglob("*") if p.name.endswith(".lock") or p.name.endswith(".tmp")]
    assert left == []


# --- 5. .mrsf.yaml with sidecar_root in a parent of --cwd ----------------------------------------


@pytest.fixture()
def config_above(tmp_path: Path) -> tuple[Path, Path]:
    """(base, cwd): base/.mrsf.yaml puts sidecars under base/reviews; the server serves base/sub."""
    base = tmp_path / "base"
    cwd = base / "sub"
    cwd.mkdir(parents=True)
    (base / ".mrsf.yaml").write_text("sidecar_root: reviews\n")
    (cwd / "a.md").write_text(DOC)
    (base / "reviews" / "sub").mkdir(parents=True)
    (base / "reviews" / "sub" / "a.md.review.yaml").write_text(sidecar("sub/a.md", "SECRET-OUTSIDE-CWD"))
    return base, cwd


def tree(folder: Path) -> dict[str, bytes | None]:
    return {p.relative_to(folder).as_posix(): (p.read_bytes() if p.is_file() else None) for p in folder.rglob("*")}


CONFINED = [
    ("mrsf_list", {"files": ["a.md"]}),
    ("mrsf_status", {"files": ["a.md"]}),
    ("mrsf_validate", {"files": ["a.md"]}),
    ("mrsf_reanchor", {"files": ["a.md"]}),
    ("mrsf_discover", {"document": "a.md"}),
    ("mrsf_add", {"document": "a.md", "text": "t", "author": "a"}),
    ("mrsf_add_batch", {"document": "a.md", "comments": [{"text": "t", "author": "a"}]}),
    ("mrsf_update", {"document": "a.md", "id": "c1", "text": "x"}),
    ("mrsf_resolve", {"document": "a.md", "id": "c1"}),
    ("mrsf_delete", {"document": "a.md", "id": "c1"}),
    ("mrsf_repair", {"document": "a.md", "strategy": "reset"}),
    ("mrsf_rename", {"oldDocument": "a.md", "newDocument": "b.md"}),
]


@pytest.mark.parametrize(("tool", "args"), CONFINED, ids=[f"{t}-{i}" for i, (t, _) in enumerate(CONFINED)])
def test_sidecars_under_a_config_above_cwd_are_refused_by_every_tool(
    config_above: tuple[Path, Path], tool: str, args: dict[str, Any]
) -> None:
    base, cwd = config_above
    before = tree(base)
    error = refused(tool, args, cwd)
    assert error.data["code"] == "path-escape", error.message
    assert "SECRET-OUTSIDE-CWD" not in error.message
    assert tree(base) == before


@pytest.mark.parametrize("tool", ["mrsf_list", "mrsf_status", "mrsf_validate", "mrsf_reanchor"])
def test_a_sweep_reports_sidecars_under_a_config_above_cwd_as_not_read(
    config_above: tuple[Path, Path], tool: str
) -> None:
    """Over a folder, the sidecar outside the allowed folders is not read and not dropped
    silently: the run is partial, and says which sidecar and why (the shared refusal)."""
    base, cwd = config_above
    before = tree(base)
    kind, result = call(tool, {"files": ["."]}, cwd)
    assert kind == "ok", result
    assert [(Path(e["file"]).name, e["code"]) for e in result["notRead"]] == [("a.md.review.yaml", "path-escape")]
    assert "outside the allowed folders" in result["notRead"][0]["message"]
    assert "SECRET-OUTSIDE-CWD" not in str(result)
    assert tree(base) == before


@pytest.mark.parametrize("uri", ["mrsf://sidecar/a.md", "mrsf://comment/a.md/c1", "mrsf://anchors/a.md"])
def test_resources_refuse_a_sidecar_under_a_config_above_cwd(config_above: tuple[Path, Path], uri: str) -> None:
    _, cwd = config_above
    template = {"sidecar": server.sidecar_resource, "comment": server.comment_resource,
                "anchors": server.anchors_resource}[uri.split("/")[2]]
    params = {"path": "a.md", "id": "c1"} if "comment" in uri else {"path": "a.md"}
    kind, value = in_thread(template, params, context(cwd))
    assert kind == "error" and isinstance(value, ToolError) and "outside" in value.message


def test_rename_refuses_a_new_sidecar_outside(tmp_path: Path) -> None:
    """The new document lies inside --cwd, but its sidecar (under sidecar_root, through a
    symlinked folder) would not: nothing is moved, nothing is created outside."""
    cwd, outside = tmp_path / "cwd", tmp_path / "outside"
    (cwd / "reviews").mkdir(parents=True)
    outside.mkdir()
    (cwd / ".mrsf.yaml").write_text("sidecar_root: reviews\n")
    (cwd / "a.md").write_text(DOC)
    (cwd / "reviews" / "a.md.review.yaml").write_text(sidecar("a.md"))
    (cwd / "reviews" / "away").symlink_to(outside, target_is_directory=True)
    error = refused("mrsf_rename", {"oldDocument": "a.md", "newDocument": "away/b.md"}, cwd)
    assert error.data["code"] == "path-escape"
    assert list(outside.iterdir()) == [] and (cwd / "reviews" / "a.md.review.yaml").exists()


def test_the_cli_stays_inside_the_workspace_root_it_found(tmp_path: Path) -> None:
    """sidecar_root is a symlink to a folder outside the workspace: list, add refuse it."""
    root, outside = tmp_path / "ws", tmp_path / "outside"
    root.mkdir()
    (outside / "docs").mkdir(parents=True)
    (outside / "docs" / "a.md.review.yaml").write_text(sidecar("docs/a.md", "SECRET-OUTSIDE-ROOT"))
    (root / ".mrsf.yaml").write_text("sidecar_root: reviews\n")
    (root / "reviews").symlink_to(outside, target_is_directory=True)
    (root / "docs").mkdir()
    (root / "docs" / "a.md").write_text(DOC)
    before = tree(outside)
    for argv in (["list", "docs/a.md"], ["add", "docs/a.md", "-a", "x", "-t", "y"], ["status", "docs/a.md"]):
        code, out, err = run_cli("--cwd", str(root), *argv)
        assert code == 2 and "outside" in err and "SECRET" not in out + err, (argv, out, err)
    assert tree(outside) == before


# --- 7. the CLI on special files ------------------------------------------------------------------


def run_cli(*argv: str, timeout: float = HANG) -> tuple[int, str, str]:
    """``mrsf argv`` in-process: (exit code, stdout, stderr); a hang fails the test."""
    out, err = io.StringIO(), io.StringIO()

    def run() -> int:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            return cli.main(list(argv))

    kind, code = in_thread(run, timeout=timeout)
    assert kind == "ok", code
    return code, out.getvalue(), err.getvalue()


def test_cli_list_and_add_refuse_a_fifo(hostile: Hostile) -> None:
    hostile.write("a.md", DOC)
    hostile.fifo("a.md.review.yaml")
    code, out, err = run_cli("--cwd", str(hostile.root), "list", "a.md")
    assert code == 2 and "FIFO" in err
    hostile.fifo("b.md")
    code, out, err = run_cli("--cwd", str(hostile.root), "add", "b.md", "-a", "x", "-t", "y", "-l", "1")
    assert code == 2 and "FIFO" in err
    assert not (hostile.root / "b.md.review.yaml").exists()


def test_a_device_document_or_sidecar_is_refused_unread(hostile: Hostile) -> None:
    hostile.write("a.md", DOC)
    hostile.device_link("a.md.review.yaml", "/dev/zero")
    hostile.device_link("z.md", "/dev/zero")
    code, out, err = run_cli("--cwd", str(hostile.root), "list", "a.md")
    assert code == 2 and "outside" in err
    # allowed folders that do hold /dev: still refused, never read
    for action in (lambda: ops.read("a.md", root="/", cwd=hostile.root),
                   lambda: ops.add("z.md", author="x", text="y", line=1, root="/", cwd=hostile.root)):
        kind, error = in_thread(action)
        assert kind == "error" and isinstance(error, MrsfError) and "character device" in error.message
        assert error.code == "not-regular"


def test_cli_on_a_fifo_as_a_real_process(hostile: Hostile) -> None:
    hostile.write("a.md", DOC)
    hostile.fifo("a.md.review.yaml")
    for argv in (["list", "a.md"], ["add", "a.md", "-a", "x", "-t", "y"]):
        done = subprocess.run([sys.executable, "-m", "markmcp.mrsf.cli", "--cwd", str(hostile.root), *argv],
                              capture_output=True, text=True, timeout=30)
        assert done.returncode == 2 and "FIFO" in done.stderr and "Traceback" not in done.stderr


# --- 10. the low findings -----------------------------------------------------------------------------


def test_every_tool_refuses_a_billion_laughs_sidecar_validate_included(hostile: Hostile) -> None:
    hostile.write("a.md", DOC)
    hostile.write("a.md.review.yaml", BILLION_LAUGHS)
    kind, result = call("mrsf_validate", {"files": ["a.md"]}, hostile.root)
    assert kind == "ok" and result["valid"] is False
    [error] = result["files"][0]["result"]["errors"]
    assert "alias" in error["message"] and error["code"] == "invalid-sidecar"
    for tool, args in (("mrsf_list", {"files": ["a.md"]}), ("mrsf_status", {"files": ["a.md"]}),
                       ("mrsf_add", {"document": "a.md", "text": "t", "author": "a"})):
        assert "alias" in refused(tool, args, hostile.root).message, tool
    code, out, err = run_cli("--cwd", str(hostile.root), "validate", "a.md")
    assert code == 1 and "alias" in out


def test_repair_drops_an_aliased_list_of_lists(hostile: Hostile) -> None:
    hostile.write("a.md", DOC)
    hostile.write("a.md.review.yaml", 'mrsf_version: "1.0"\ndocument: a.md\nx_lists: &x [[1], [2]]\ncomments: *x\n')
    kind, result = call("mrsf_repair", {"document": "a.md"}, hostile.root)
    assert kind == "ok", result
    assert result["result"] != "Nothing to repair: the sidecar parsed cleanly."
    assert [d["index"] for d in result["dropped"]] == [0, 1]
    data = ops.read("a.md", root=hostile.root)["data"]
    assert data["comments"] == [] and data["x_lists"] == [[1], [2]]


def test_repair_keeps_the_mapping_comments_of_a_mixed_list(hostile: Hostile) -> None:
    hostile.write("a.md", DOC)
    hostile.write("a.md.review.yaml", sidecar("a.md") + "  - [not, a, comment]\n  - just text\n")
    result = ops.repair("a.md", root=hostile.root)
    assert result["changed"] and result["salvaged"] == 1
    assert [d["reason"] for d in result["dropped"]] == ["comment 1 is a list, not a mapping",
                                                         "comment 2 is a string, not a mapping"]
    assert [c["id"] for c in ops.read("a.md", root=hostile.root)["data"]["comments"]] == ["c1"]


BINARY_SIDECARS = [
    'mrsf_version: "1.0"\ndocument: a.md\nx_bin: !!binary aGVsbG8gd29ybGQ=\ncomments: []\n',
    sidecar("a.md") + "    x_bin: !!binary aGVsbG8gd29ybGQ=\n",
    sidecar("a.md") + '    x_bin: !!binary "aGVsbG8gd29ybGQ="\n',
    sidecar("a.md") + "    x_bin: !!binary |\n      R0lGODlhDAAMAIQAAP//9/X17unp5WZmZgAAAOfn515eXvPz7Y6OjuDg4J+fn5\n"
                      "      OTk6enp56enmlpaWNjY6Ojo4SEhP/++f/++f/++f/++f/++f/++f/++f/++f/+\n",
]


@pytest.mark.parametrize("text", BINARY_SIDECARS)
def test_an_untouched_binary_scalar_stays_byte_identical(hostile: Hostile, text: str) -> None:
    hostile.write("a.md", DOC)
    path = hostile.write("a.md.review.yaml", text)
    binary_lines = [line for line in text.split("\n") if "binary" in line or line.startswith("      ")]
    ops.add("a.md", author="a", text="new", root=hostile.root)
    if "c1" in text:
        ops.resolve("a.md", "c1", root=hostile.root)
    after = path.read_text().split("\n")
    assert [line for line in binary_lines if line not in after] == []


def test_a_nul_in_a_path_is_an_invalid_argument(hostile: Hostile) -> None:
    error = refused("mrsf_discover", {"document": "a\x00.md"}, hostile.root)
    assert error.data["code"] == "invalid-argument" and "NUL" in error.message
    with pytest.raises(MrsfError) as caught:
        ops.locate("a\x00.md", root=hostile.root)
    assert caught.value.code == "invalid-argument"
    code, out, err = run_cli("--cwd", str(hostile.root), "list", "a\x00.md")
    assert code == 2 and "NUL" in err and "\x00" not in err


@pytest.mark.parametrize("path", ["a" * 6000 + ".md", "a" * 300 + ".md", "d/" + "é" * 200 + ".md"])
def test_an_overlong_path_is_a_short_invalid_argument_error(hostile: Hostile, path: str) -> None:
    for tool, args in (("mrsf_discover", {"document": path}), ("mrsf_list", {"files": [path]}),
                       ("mrsf_add", {"document": path, "text": "t", "author": "a"})):
        error = refused(tool, args, hostile.root)
        assert error.data["code"] == "invalid-argument", (tool, error.message)
        assert "Errno" not in error.message and len(error.message) < 400
    code, out, err = run_cli("--cwd", str(hostile.root), "list", path)
    assert code == 2 and "Errno" not in err and len(err) < 500


# --- 12. terminal injection -------------------------------------------------------------------------

EVIL = "fine\x1b[2J\x1b]0;pwned\x07\rforged line\n[resolved] c9 fake.md:1\u202egnp.exe\x9b31m"


def test_human_output_escapes_control_characters_and_json_stays_exact(hostile: Hostile) -> None:
    hostile.write("a.md", DOC)
    evil = SIDECAR.format(doc="a.md", text='"' + EVIL.replace("\n", "\\n").replace("\x1b", "\\e")
                          .replace("\r", "\\r").replace("\x07", "\\a").replace("\u202e", "\\u202e")
                          .replace("\x9b", "\\x9b") + '"')
    evil = evil.replace("author: Alice", 'author: "Al\\e[31mice\\nX"')
    hostile.write("a.md.review.yaml", evil)
    assert ops.read("a.md", root=hostile.root)["data"]["comments"][0]["text"] == EVIL
    for argv in (["list"], ["list", "a.md"], ["status"], ["validate", "a.md"], ["reanchor", "-n", "a.md"],
                 ["list", "--summary"]):
        code, out, err = run_cli("--cwd", str(hostile.root), *argv)
        for char in "\x1b\x07\r\x9b\u202e":
            assert char not in out + err, (argv, char)
        assert "\nforged line" not in out and "\n[resolved] c9" not in out
    code, out, err = run_cli("--cwd", str(hostile.root), "list", "a.md")
    assert "fine\\x1b[2J\\x1b]0;pwned\\x07\\rforged line\\n[resolved] c9 fake.md:1\\u202egnp.exe\\x9b31m" in out
    assert "Al\\x1b[31mice\\nX" in out
    code, out, err = run_cli("--cwd", str(hostile.root), "list", "a.md", "--json")
    import json

    assert json.loads(out)[0]["comment"]["text"] == EVIL


def test_file_names_in_human_output_are_escaped(hostile: Hostile) -> None:
    name = "x\x1b[31m\ny.md"
    hostile.write(name, DOC)
    hostile.write(name + ".review.yaml", sidecar("x.md"))
    code, out, err = run_cli("--cwd", str(hostile.root), "list")
    assert code == 0 and "\x1b" not in out and "x\\x1b[31m\\ny.md" in out


# --- the shared layer: errors map to clear tool errors --------------------------------------------


def test_a_file_access_error_is_never_a_failure_of_the_tool(hostile: Hostile, monkeypatch) -> None:
    def boom(*args: Any, **kwargs: Any) -> None:
        raise FileAccessError("io-error", "disk on fire")

    monkeypatch.setattr(ops, "locate", boom)
    error = refused("mrsf_discover", {"document": "a.md"}, hostile.root)
    assert error.message == "disk on fire" and error.data["code"] == "io-error"


def test_secret_never_reaches_output_through_a_sidecar_symlink(hostile: Hostile) -> None:
    hostile.write("a.md", DOC)
    hostile.link_to_victim("a.md.review.yaml")
    for tool, args in (("mrsf_list", {"files": ["a.md"]}), ("mrsf_discover", {"document": "a.md"}),
                       ("mrsf_repair", {"document": "a.md", "strategy": "reset"})):
        error = refused(tool, args, hostile.root)
        assert SECRET.strip() not in error.message
    hostile.assert_untouched()


def test_repair_salvages_the_comments_beside_an_alias_bomb(hostile: Hostile) -> None:
    lines = ['mrsf_version: "1.0"', "document: a.md", "comments:",
             "  - id: bomb", "    x_a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"    x_a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 9)]
    lines += ["  - id: keep", "    text: t"]
    hostile.write("a.md", DOC)
    hostile.write("a.md.review.yaml", "\n".join(lines) + "\n")
    error = refused("mrsf_delete", {"document": "a.md", "id": "bomb"}, hostile.root)
    assert "alias" in error.message and "repair" in error.message
    kind, result = call("mrsf_repair", {"document": "a.md"}, hostile.root)
    assert kind == "ok" and result["commentsRecovered"] == 1 and result["commentsSkipped"] == 1
    assert ops.read("a.md", root=hostile.root)["data"]["comments"] == [{"id": "keep", "text": "t"}]
