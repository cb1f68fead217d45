"""The ``mrsf`` command line, run as a real subprocess on temporary copies of documents.

Every run is checked for its exit code (0 ok, 1 problems found, 2 usage or read error)
and for the absence of a Python traceback on stderr.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import shared_dir

from .fixtures import DOC, SIDECAR, sidecar_data, snapshot, write_pair


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run ``mrsf`` (as ``python -m markmcp.mrsf.cli``); never a traceback."""
    proc = subprocess.run(
        [sys.executable, "-m", "markmcp.mrsf.cli", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


@pytest.fixture
def work(tmp_path: Path) -> Path:
    """A folder with doc.md and its sidecar (3 comments)."""
    return write_pair(tmp_path)


@pytest.fixture
def examples(tmp_path: Path) -> Path:
    """A temporary copy of the upstream examples (6 documents with sidecars)."""
    target = tmp_path / "examples"
    shutil.copytree(shared_dir("mrsf", "examples"), target)
    return target


# ---------------------------------------------------------------------------
# validate
# ---------------------------------------------------------------------------


def test_validate_examples_all_valid(examples: Path) -> None:
    proc = run("validate", cwd=examples)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    ticks = [line for line in proc.stdout.splitlines() if line.startswith("✓ ")]
    assert len(ticks) == 6


def test_validate_json_shape(examples: Path) -> None:
    proc = run("validate", "--json", cwd=examples)
    assert proc.returncode == 0
    data = json.loads(proc.stdout)
    assert data["valid"] is True
    assert len(data["files"]) == 6
    for entry in data["files"]:
        assert entry["valid"] is True
        assert isinstance(entry["errors"], list) and isinstance(entry["warnings"], list)


def test_validate_missing_required_field_exits_1(work: Path) -> None:
    bad = SIDECAR.replace("    resolved: false\n    line: 3\n", "    line: 3\n", 1)
    (work / "doc.md.review.yaml").write_text(bad, encoding="utf-8")
    proc = run("validate", "doc.md.review.yaml", cwd=work)
    assert proc.returncode == 1
    assert "✗" in proc.stdout
    assert "resolved" in proc.stdout


def test_validate_malformed_yaml_exits_1_and_names_the_line(work: Path) -> None:
    (work / "doc.md.review.yaml").write_text('mrsf_version: "1.0"\ncomments: [\n  - id: x\n', encoding="utf-8")
    proc = run("validate", "doc.md.review.yaml", cwd=work)
    assert proc.returncode == 1
    assert "line" in (proc.stdout + proc.stderr).lower()


def test_validate_nonexistent_file_is_a_read_error(work: Path) -> None:
    proc = run("validate", "nope.md.review.yaml", cwd=work)
    assert proc.returncode == 2
    assert "nope.md.review.yaml" in proc.stderr


def test_validate_document_argument_finds_its_sidecar(work: Path) -> None:
    proc = run("validate", "--json", "doc.md", cwd=work)
    assert proc.returncode == 0
    assert json.loads(proc.stdout)["files"][0]["sidecar"].endswith("doc.md.review.yaml")


# ---------------------------------------------------------------------------
# add
# ---------------------------------------------------------------------------


def test_add_line_captures_that_line(work: Path) -> None:
    proc = run("add", "doc.md", "-a", "Dana", "-t", "Check this", "--line", "4", "--json", cwd=work)
    assert proc.returncode == 0, proc.stderr
    comment = json.loads(proc.stdout)["comment"]
    assert comment["line"] == 4
    assert comment["selected_text"] == "Second line with a target phrase in it."
    assert comment["selected_text_hash"] == hashlib.sha256(comment["selected_text"].encode()).hexdigest()
    stored = sidecar_data(work / "doc.md.review.yaml")["comments"]
    assert stored[-1]["id"] == comment["id"]
    assert stored[-1]["selected_text"] == "Second line with a target phrase in it."


def test_add_columns_and_type(work: Path) -> None:
    proc = run(
        "add", "doc.md", "--author", "Eve", "--text", "Typo", "-l", "4",
        "--start-column", "19", "--end-column", "32", "--type", "suggestion", "--severity", "low", "--json",
        cwd=work,
    )
    assert proc.returncode == 0, proc.stderr
    comment = json.loads(proc.stdout)["comment"]
    assert comment["selected_text"] == "target phrase"
    assert comment["type"] == "suggestion" and comment["severity"] == "low"
    assert comment["resolved"] is False


def test_add_creates_sidecar_and_prints_summary(tmp_path: Path) -> None:
    (tmp_path / "new.md").write_text("alpha\nbeta\n", encoding="utf-8")
    proc = run("add", "new.md", "-a", "Finn", "-t", "Hello", "-l", "2", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("New comment ")
    assert "at line 2" in proc.stdout
    data = sidecar_data(tmp_path / "new.md.review.yaml")
    assert data["mrsf_version"] == "1.0"
    assert data["document"] == "new.md"
    assert data["comments"][0]["selected_text"] == "beta"


def test_add_extensions_are_parsed(work: Path) -> None:
    proc = run(
        "add", "doc.md", "-a", "bot", "-t", "Flag", "--ext", "x_source=triage-bot", "--ext", "x_score=0.91",
        "--ext", 'x_labels=["a","b"]', "--ext", "x_ok=true", "--json",
        cwd=work,
    )
    assert proc.returncode == 0, proc.stderr
    stored = sidecar_data(work / "doc.md.review.yaml")["comments"][-1]
    assert stored["x_source"] == "triage-bot"
    assert stored["x_score"] == 0.91
    assert stored["x_labels"] == ["a", "b"]
    assert stored["x_ok"] is True


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--line", "0"], "--line is 0, but the smallest allowed is 1"),
        (["--line", "abc"], "--line wants a whole number, not 'abc'"),
        (["--severity", "urgent"], "severity must be low, medium or high"),
        (["--ext", "source=x"], "extension keys begin with 'x_'"),
        (["--ext", "x_bad={oops}"], "looks like JSON but does not parse"),
        (["--ext", "novalue"], "write it as x_name=value"),
    ],
)
def test_add_bad_arguments_are_usage_errors(work: Path, extra: list[str], message: str) -> None:
    before = snapshot(work)
    proc = run("add", "doc.md", "-a", "A", "-t", "T", *extra, cwd=work)
    assert proc.returncode == 2
    assert message in proc.stderr
    assert snapshot(work) == before


def test_add_requires_author_and_text(work: Path) -> None:
    proc = run("add", "doc.md", "-t", "no author", cwd=work)
    assert proc.returncode == 2
    assert "--author" in proc.stderr


# ---------------------------------------------------------------------------
# list
# ---------------------------------------------------------------------------


def test_list_json_shape_and_filters(work: Path) -> None:
    proc = run("list", "--json", cwd=work)
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)
    assert [r["comment"]["id"] for r in rows] == ["c1", "c2", "c3"]
    assert rows[0]["sidecar"].endswith("doc.md.review.yaml")
    assert rows[0]["document"].endswith("doc.md")
    proc = run("list", "--json", "--author", "Carol", cwd=work)
    assert [r["comment"]["id"] for r in json.loads(proc.stdout)] == ["c3"]
    proc = run("list", "--json", "--severity", "high", "doc.md", cwd=work)
    assert [r["comment"]["id"] for r in json.loads(proc.stdout)] == ["c3"]


def test_list_summary(work: Path) -> None:
    proc = run("list", "--summary", "--json", cwd=work)
    summary = json.loads(proc.stdout)
    assert summary["total"] == 3
    assert summary["open"] == 3
    assert summary["resolved"] == 0
    assert summary["byType"] == {"issue": 1}
    text = run("list", "--summary", cwd=work).stdout
    assert text.startswith("3 comments: 3 open, 0 resolved, 0 orphaned")


def test_list_text_output(work: Path) -> None:
    proc = run("list", cwd=work)
    assert proc.returncode == 0
    assert "[open] c3" in proc.stdout
    assert "↳ answers c1" in proc.stdout
    assert proc.stdout.rstrip().endswith("3 shown.")


def test_list_malformed_sidecar_is_a_read_error(work: Path) -> None:
    (work / "doc.md.review.yaml").write_text("comments: [\n", encoding="utf-8")
    before = snapshot(work)
    proc = run("list", "doc.md.review.yaml", cwd=work)
    assert proc.returncode == 2
    assert "doc.md.review.yaml" in proc.stderr
    assert snapshot(work) == before


def test_list_examples_counts_all_comments(examples: Path) -> None:
    proc = run("list", "--summary", "--json", cwd=examples)
    assert json.loads(proc.stdout)["total"] == 28


# ---------------------------------------------------------------------------
# resolve
# ---------------------------------------------------------------------------


def test_resolve_and_undo(work: Path) -> None:
    proc = run("resolve", "doc.md.review.yaml", "c3", cwd=work)
    assert proc.returncode == 0, proc.stderr
    assert "c3 is now resolved" in proc.stdout
    assert sidecar_data(work / "doc.md.review.yaml")["comments"][2]["resolved"] is True
    proc = run("resolve", "--undo", "doc.md.review.yaml", "c3", cwd=work)
    assert proc.returncode == 0
    assert sidecar_data(work / "doc.md.review.yaml")["comments"][2]["resolved"] is False


def test_resolve_cascade_resolves_replies(work: Path) -> None:
    proc = run("resolve", "--cascade", "doc.md.review.yaml", "c1", cwd=work)
    assert proc.returncode == 0, proc.stderr
    comments = sidecar_data(work / "doc.md.review.yaml")["comments"]
    assert comments[0]["resolved"] is True and comments[1]["resolved"] is True
    assert comments[2]["resolved"] is False


def test_resolve_unknown_id_exits_1_and_writes_nothing(work: Path) -> None:
    before = snapshot(work)
    proc = run("resolve", "doc.md.review.yaml", "nope", cwd=work)
    assert proc.returncode == 1
    assert "has no comment with id nope" in proc.stderr
    assert snapshot(work) == before


# ---------------------------------------------------------------------------
# reanchor and status
# ---------------------------------------------------------------------------


def test_reanchor_follows_inserted_lines(work: Path) -> None:
    doc = work / "doc.md"
    doc.write_text("Inserted one.\nInserted two.\n" + DOC, encoding="utf-8")
    proc = run("reanchor", "--json", "--no-git", "doc.md", cwd=work)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    data = json.loads(proc.stdout)
    assert data["totalOrphaned"] == 0
    assert data["totalChanged"] >= 2
    comments = {c["id"]: c for c in sidecar_data(work / "doc.md.review.yaml")["comments"]}
    assert comments["c1"]["line"] == 5
    assert comments["c3"]["line"] == 6


def test_reanchor_dry_run_writes_nothing(work: Path) -> None:
    (work / "doc.md").write_text("Inserted.\n" + DOC, encoding="utf-8")
    before = snapshot(work)
    proc = run("reanchor", "--dry-run", "--no-git", cwd=work)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "[dry-run]" in proc.stdout
    assert "would change" in proc.stdout
    assert snapshot(work) == before


def test_reanchor_orphaned_exits_1(work: Path) -> None:
    (work / "doc.md").write_text("# Title\n\nSomething else entirely.\n", encoding="utf-8")
    proc = run("reanchor", "--no-git", "--json", cwd=work)
    assert proc.returncode == 1
    assert json.loads(proc.stdout)["totalOrphaned"] >= 1


def test_reanchor_bad_threshold_is_usage_error(work: Path) -> None:
    proc = run("reanchor", "--threshold", "2", cwd=work)
    assert proc.returncode == 2
    assert "threshold" in proc.stderr


def test_status_json_shape(work: Path) -> None:
    proc = run("status", "--json", cwd=work)
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)
    health = {r["commentId"]: r["health"] for r in rows}
    assert health["c1"] == "fresh" and health["c3"] == "fresh"
    assert health["c2"] == "fresh"  # an unanchored reply takes its parent's health
    # upstream's keys, plus the comment's sidecar and document (as list's rows give them)
    assert all(set(r) == {"commentId", "health", "reason", "sidecar", "document"} for r in rows)
    assert {r["sidecar"] for r in rows} == {str(work / "doc.md.review.yaml")}


def test_status_groups_comments_by_sidecar_and_verbose_adds_details(work: Path) -> None:
    (work / "other.md").write_text("# Other\n\nA line to comment on.\n", encoding="utf-8")
    assert run("add", "other.md", "-a", "me", "-t", "hm", "--line", "3", cwd=work).returncode == 0
    proc = run("status", cwd=work)
    blocks = proc.stdout.split("\n\n")
    assert blocks[0].startswith("doc.md.review.yaml:\n  ● c1: "), proc.stdout
    assert blocks[1].startswith("other.md.review.yaml:\n  ● "), proc.stdout
    verbose = run("status", "-v", cwd=work)
    assert "other.md.review.yaml:\n  document: other.md\n" in verbose.stdout
    listed, detailed = run("list", cwd=work).stdout, run("list", "-v", cwd=work).stdout
    assert "sidecar: other.md.review.yaml" in detailed and "selected_text: A line to comment on." in detailed
    assert "sidecar:" not in listed


def test_status_text_reports_orphan(work: Path) -> None:
    (work / "doc.md").write_text("# Title\n\nNothing here.\n", encoding="utf-8")
    proc = run("status", cwd=work)
    assert proc.returncode == 0
    assert "✗ c1" in proc.stdout
    assert "orphaned" in proc.stdout


# ---------------------------------------------------------------------------
# sweeps over many sidecars: what was found but not read
# ---------------------------------------------------------------------------


def _hostile_sidecars(work: Path) -> Path:
    """Beside doc.md's good sidecar: a FIFO sidecar (two.md), one symlinked out of the
    workspace (three.md, a .git makes ``work`` the root) and one that does not parse (four.md)."""
    (work / ".git").mkdir()
    outside = work.parent / f"{work.name}-elsewhere.yaml"
    outside.write_text('mrsf_version: "1.0"\ndocument: three.md\ncomments: []\n', encoding="utf-8")
    (work / "three.md").write_text("three\n", encoding="utf-8")
    os.symlink(outside, work / "three.md.review.yaml")
    (work / "two.md").write_text("two\n", encoding="utf-8")
    os.mkfifo(work / "two.md.review.yaml")  # opened for reading, it would hang the run (and the test)
    (work / "four.md").write_text("four\n", encoding="utf-8")
    (work / "four.md.review.yaml").write_text("comments: [\n", encoding="utf-8")
    return outside


SWEEPS = [["validate"], ["validate", "--strict"], ["reanchor", "--dry-run"], ["reanchor"], ["status"], ["list"],
          ["list", "--summary"], ["validate", "."], ["status", "."], ["list", "--open", "."]]


@pytest.mark.parametrize("command", SWEEPS, ids=" ".join)
def test_a_sweep_reads_what_it_can_and_names_every_sidecar_it_did_not_read(work: Path, command: list[str]) -> None:
    """As the server's sweeps: a FIFO, a sidecar symlinked out of the workspace (it was
    dropped in silence) and, where the command reads it, a malformed one neither stop the run
    (validate and reanchor exited 2 at the first) nor vanish; the readable sidecar is
    reported, then PARTIAL and one NOT READ entry each on stdout, and the exit code is 1."""
    outside = _hostile_sidecars(work)
    before = snapshot(work)
    proc = run(*command, cwd=work)
    unread = ["three.md.review.yaml", "two.md.review.yaml"]
    if command[0] != "validate":  # validate judges a malformed sidecar invalid: it read it
        unread.insert(0, "four.md.review.yaml")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert proc.stderr == ""
    report, _, partial = proc.stdout.partition("\nPARTIAL: ")
    assert partial.startswith(f"{len(unread)} sidecar(s) found but not read; the report above leaves them out\n")
    entries = partial.split("\n\n")[1:]
    # named relative to the working directory, as the JSON's paths are to the root
    assert sorted(entry.split("\n")[0] for entry in entries) == [f"NOT READ — {name}" for name in unread]
    why = {entry.split("\n")[0].removeprefix("NOT READ — "): entry.split("\n")[1] for entry in entries}
    assert "is a FIFO (named pipe); it is never read" in why["two.md.review.yaml"]
    assert f"resolves to {outside}, outside the allowed folders ({work})" in why["three.md.review.yaml"]
    assert "MRSF files must lie inside the workspace root" in why["three.md.review.yaml"]
    if command[0] == "list" and "--summary" not in command:
        assert report.endswith("\n3 shown.\n") and "[open] c1 " in report, report
    if command[0] == "validate":
        assert "✓ doc.md.review.yaml" in report and "✗ four.md.review.yaml" in report
    assert snapshot(work) == before or command == ["reanchor"]


@pytest.mark.parametrize("command", SWEEPS, ids=" ".join)
def test_a_sweep_in_json_lists_what_it_did_not_read(work: Path, command: list[str]) -> None:
    _hostile_sidecars(work)
    proc = run(*command, "--json", cwd=work)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    data = json.loads(proc.stdout)
    assert isinstance(data, dict)
    codes = {Path(e["file"]).name: e["code"] for e in data["notRead"]}
    assert codes.pop("two.md.review.yaml") == "not-regular" and codes.pop("three.md.review.yaml") == "path-escape"
    assert codes == ({} if command[0] == "validate" else {"four.md.review.yaml": "malformed-yaml"})
    assert all(e["file"].startswith(str(work)) and e["message"] for e in data["notRead"])
    if command[0] == "validate":
        assert data["valid"] is False and {Path(f["sidecar"]).name for f in data["files"]} == {
            "doc.md.review.yaml", "four.md.review.yaml"}
    elif command[0] == "reanchor":
        assert [Path(f["file"]).name for f in data["files"]] == ["doc.md.review.yaml"]
    elif command[0] == "status":
        assert [r["commentId"] for r in data["results"]] == ["c1", "c2", "c3"]
    elif "--summary" in command:
        assert data["total"] == 3
    else:  # list: the rows go under "comments", beside notRead
        assert [r["comment"]["id"] for r in data["comments"]] == ["c1", "c2", "c3"]


def test_a_sweep_that_reads_everything_keeps_its_json_shape(work: Path) -> None:
    for command in (["list"], ["status"]):
        proc = run(*command, "--json", cwd=work)
        assert proc.returncode == 0 and isinstance(json.loads(proc.stdout), list)
    for command in (["validate"], ["reanchor", "--dry-run"], ["list", "--summary"]):
        proc = run(*command, "--json", cwd=work)
        assert proc.returncode == 0 and "notRead" not in json.loads(proc.stdout)


@pytest.mark.parametrize("command", [["validate"], ["reanchor", "--dry-run"], ["status"], ["list"]], ids=" ".join)
def test_a_file_named_on_the_command_line_that_cannot_be_read_still_fails(work: Path, command: list[str]) -> None:
    _hostile_sidecars(work)
    for named, why in (("two.md", "FIFO"), ("three.md.review.yaml", "outside the allowed folders")):
        proc = run(*command, "doc.md", named, cwd=work)
        assert proc.returncode == 2, (named, proc.stdout + proc.stderr)
        assert why in proc.stderr and "NOT READ" not in proc.stdout


def test_a_name_that_is_not_read_is_shown_escaped(work: Path) -> None:
    (work / ".git").mkdir()
    os.mkfifo(work / "evil\x1b[2J\nNOT READ — x.md.review.yaml")
    proc = run("status", cwd=work)
    assert proc.returncode == 1
    assert "\x1b" not in proc.stdout and "NOT READ — evil\\x1b[2J\\nNOT READ — x" in proc.stdout
    assert proc.stdout.count("\nNOT READ — ") == 1


def test_reanchor_and_validate_take_a_folder(work: Path) -> None:
    (work / ".git").mkdir()
    (work / "docs").mkdir()
    write_pair(work / "docs")
    (work / "docs" / "doc.md.review.yaml").write_text(SIDECAR.replace("document: doc.md", "document: docs/doc.md"),
                                                      encoding="utf-8")
    os.mkfifo(work / "docs" / "b.md.review.yaml")
    proc = run("reanchor", "--dry-run", "--json", "docs", cwd=work)
    assert proc.returncode == 1, proc.stdout + proc.stderr  # it said "is a directory" (exit 2)
    data = json.loads(proc.stdout)
    assert [f["file"] for f in data["files"]] == [str(work / "docs" / "doc.md.review.yaml")]
    assert [(e["file"], e["code"]) for e in data["notRead"]] == [(str(work / "docs" / "b.md.review.yaml"),
                                                                  "not-regular")]
    proc = run("validate", "docs", cwd=work)
    assert proc.returncode == 1 and f"✓ {Path('docs') / 'doc.md.review.yaml'}" in proc.stdout


def test_reanchor_staged_reports_a_staged_documents_sidecar_it_cannot_read(work: Path) -> None:
    (work / "other.md").write_text(DOC, encoding="utf-8")
    git("init", "-q", cwd=work)
    git("add", ".", cwd=work)
    git("commit", "-q", "-m", "start", cwd=work)
    os.mkfifo(work / "other.md.review.yaml")
    for name in ("doc.md", "other.md"):
        (work / name).write_text("Inserted.\n" + DOC, encoding="utf-8")
    git("add", "doc.md", "other.md", cwd=work)
    proc = run("reanchor", "--staged", cwd=work)
    assert proc.returncode == 1, proc.stdout + proc.stderr  # it stopped at the FIFO with exit 2
    assert "NOT READ — other.md.review.yaml" in proc.stdout
    assert sidecar_data(work / "doc.md.review.yaml")["comments"][0]["line"] == 4


# ---------------------------------------------------------------------------
# init and rename
# ---------------------------------------------------------------------------


def test_init_creates_then_refuses_then_forces(tmp_path: Path) -> None:
    (tmp_path / "fresh.md").write_text("text\n", encoding="utf-8")
    proc = run("init", "fresh.md", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    sidecar = tmp_path / "fresh.md.review.yaml"
    assert sidecar_data(sidecar) == {"mrsf_version": "1.0", "document": "fresh.md", "comments": []}
    proc = run("init", "fresh.md", cwd=tmp_path)
    assert proc.returncode == 2  # a usage error, like the others
    assert proc.stderr == "mrsf init: error: sidecar already exists: fresh.md.review.yaml; add --force to replace it\n"
    proc = run("init", "--force", "fresh.md", cwd=tmp_path)
    assert proc.returncode == 0


def test_init_missing_document_is_a_read_error(tmp_path: Path) -> None:
    proc = run("init", "ghost.md", cwd=tmp_path)
    assert proc.returncode == 2
    assert "ghost.md" in proc.stderr
    assert not (tmp_path / "ghost.md.review.yaml").exists()


def test_init_refuses_a_document_that_is_not_utf8_as_add_does(tmp_path: Path) -> None:
    (tmp_path / "latin1.md").write_bytes(b"caf\xe9\n")
    for command in (["init", "latin1.md"], ["add", "latin1.md", "-a", "me", "-t", "hi", "-l", "1"]):
        proc = run(*command, cwd=tmp_path)
        assert proc.returncode == 2 and "not UTF-8" in proc.stderr, proc.stderr
    assert not (tmp_path / "latin1.md.review.yaml").exists()


def test_add_on_a_blank_line_prints_the_engines_note(work: Path) -> None:
    proc = run("add", "doc.md", "-a", "A", "-t", "T", "-l", "2", cwd=work)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.startswith("note: line 2 is blank: the anchor has no text to follow"), proc.stderr
    proc = run("add", "doc.md", "-a", "A", "-t", "T", "-l", "2", "--json", cwd=work)
    assert json.loads(proc.stdout)["note"].startswith("line 2 is blank") and proc.stderr == ""
    assert run("add", "doc.md", "-a", "A", "-t", "T", "-l", "3", cwd=work).stderr == ""


def test_add_refuses_a_document_that_does_not_exist(tmp_path: Path) -> None:
    proc = run("add", "ghost.md", "-a", "me", "-t", "hi", "-l", "1", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr == "mrsf add: error: document not found: ghost.md\n"
    assert list(tmp_path.iterdir()) == []


def test_list_shows_a_comment_without_text_as_such(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# A\n", encoding="utf-8")
    (tmp_path / "a.md.review.yaml").write_text(
        'mrsf_version: "1.0"\ndocument: a.md\ncomments:\n  - id: c1\n    author: Ann\n'
        '    timestamp: "2026-01-01T00:00:00Z"\n    line: 1\n    resolved: false\n', encoding="utf-8")
    proc = run("list", "a.md", cwd=tmp_path)
    assert proc.returncode == 0
    assert "  Ann: (no text)\n" in proc.stdout and "None" not in proc.stdout


def test_list_of_a_folder_without_sidecars_says_so(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    proc = run("list", "empty", cwd=tmp_path)
    assert (proc.returncode, proc.stdout) == (0, "No sidecars found.\n")


def test_rename_moves_the_sidecar(work: Path) -> None:
    (work / "docs").mkdir()
    (work / "doc.md").rename(work / "docs" / "renamed.md")
    proc = run("rename", "doc.md", "docs/renamed.md", cwd=work)
    assert proc.returncode == 0, proc.stderr
    assert not (work / "doc.md.review.yaml").exists()
    data = sidecar_data(work / "docs" / "renamed.md.review.yaml")
    assert data["document"] == "docs/renamed.md"
    assert [c["id"] for c in data["comments"]] == ["c1", "c2", "c3"]


def test_rename_warns_when_the_new_document_is_missing(work: Path) -> None:
    proc = run("rename", "doc.md", "other.md", cwd=work)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.startswith("warning: other.md does not exist (yet)")
    assert (work / "other.md.review.yaml").exists() and not (work / "doc.md.review.yaml").exists()


def test_rename_without_sidecar_fails(tmp_path: Path) -> None:
    proc = run("rename", "a.md", "b.md", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.strip()


# ---------------------------------------------------------------------------
# global options
# ---------------------------------------------------------------------------


def test_cwd_option_before_and_after_the_command(work: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    for args in (("--cwd", str(work), "list", "--json"), ("list", "--json", "--cwd", str(work))):
        proc = run(*args, cwd=elsewhere)
        assert proc.returncode == 0, proc.stderr
        assert len(json.loads(proc.stdout)) == 3


def test_cwd_must_exist(tmp_path: Path) -> None:
    proc = run("--cwd", str(tmp_path / "missing"), "list", cwd=tmp_path)
    assert proc.returncode == 2
    assert "not a directory" in proc.stderr


def test_no_command_and_unknown_command_are_usage_errors(tmp_path: Path) -> None:
    assert run(cwd=tmp_path).returncode == 2
    proc = run("frobnicate", cwd=tmp_path)
    assert proc.returncode == 2
    assert "invalid choice" in proc.stderr


def test_an_option_a_command_does_not_take_is_shown_with_that_commands_usage(tmp_path: Path) -> None:
    proc = run("list", "--bogus", cwd=tmp_path)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr.startswith("usage: mrsf list ")
    assert proc.stderr.endswith("mrsf list: error: unrecognized arguments: --bogus\n")


def test_quiet_suppresses_info(work: Path) -> None:
    proc = run("-q", "resolve", "doc.md.review.yaml", "c1", cwd=work)
    assert proc.returncode == 0
    assert proc.stdout == ""


def test_version_flag(tmp_path: Path) -> None:
    proc = run("--version", cwd=tmp_path)
    assert proc.returncode == 0
    assert proc.stdout.startswith("mrsf ")


def test_config_option_sets_the_sidecar_root(work: Path) -> None:
    (work / "review-config.yaml").write_text("sidecar_root: reviews\n", encoding="utf-8")
    proc = run("--config", "review-config.yaml", "add", "doc.md", "-a", "A", "-t", "T", "-l", "3", cwd=work)
    assert proc.returncode == 0, proc.stderr
    stored = sidecar_data(work / "reviews" / "doc.md.review.yaml")
    assert stored["comments"][0]["selected_text"] == "First paragraph line one."
    proc = run("list", "--json", "doc.md", "--config", "review-config.yaml", cwd=work)
    assert [r["comment"]["text"] for r in json.loads(proc.stdout)] == ["T"]


def test_config_option_must_name_a_file(work: Path) -> None:
    proc = run("--config", "missing.yaml", "list", cwd=work)
    assert proc.returncode == 2
    assert "missing.yaml" in proc.stderr


def test_add_selected_text_override(work: Path) -> None:
    proc = run("add", "doc.md", "-a", "A", "-t", "T", "-l", "4", "--selected-text", "target phrase", "--json", cwd=work)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["comment"]["selected_text"] == "target phrase"


def test_add_outside_the_workspace_is_refused(work: Path) -> None:
    (work.parent / "outside.md").write_text("x\n", encoding="utf-8")
    proc = run("add", "../outside.md", "-a", "A", "-t", "T", cwd=work)
    assert proc.returncode == 2
    assert "outside.md" in proc.stderr
    assert not (work.parent / "outside.md.review.yaml").exists()


def git(*args: str, cwd: Path) -> None:
    subprocess.run(
        ["git", "-c", "user.email=t@example.com", "-c", "user.name=T", *args],
        cwd=cwd, check=True, capture_output=True,
    )


def test_reanchor_staged_only_processes_staged_documents(work: Path) -> None:
    (work / "other.md").write_text(DOC, encoding="utf-8")
    (work / "other.md.review.yaml").write_text(SIDECAR.replace("document: doc.md", "document: other.md"), encoding="utf-8")
    git("init", "-q", cwd=work)
    git("add", ".", cwd=work)
    git("commit", "-q", "-m", "start", cwd=work)
    for name in ("doc.md", "other.md"):
        (work / name).write_text("Inserted.\n" + DOC, encoding="utf-8")
    git("add", "doc.md", cwd=work)
    proc = run("reanchor", "--staged", "--json", cwd=work)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    files = json.loads(proc.stdout)["files"]
    assert [Path(f["file"]).name for f in files] == ["doc.md.review.yaml"]
    assert sidecar_data(work / "doc.md.review.yaml")["comments"][0]["line"] == 4
    assert sidecar_data(work / "other.md.review.yaml")["comments"][0]["line"] == 3


def test_reanchor_staged_outside_git_is_an_error(work: Path) -> None:
    proc = run("reanchor", "--staged", cwd=work)
    assert proc.returncode == 2
    assert "--staged needs a git work tree" in proc.stderr


def test_validate_strict_turns_warnings_into_failure(work: Path) -> None:
    (work / "doc.md.review.yaml").write_text(SIDECAR.replace("reply_to: c1", "reply_to: ghost"), encoding="utf-8")
    proc = run("validate", "doc.md", cwd=work)
    assert proc.returncode == 0, proc.stdout
    assert "WARN:" in proc.stdout and "ghost" in proc.stdout
    proc = run("validate", "--strict", "doc.md", cwd=work)
    assert proc.returncode == 1
    assert "ERROR:" in proc.stdout and "ghost" in proc.stdout


def test_a_comment_just_added_on_a_short_line_is_fresh_and_unchanged(tmp_path: Path) -> None:
    # status calls it fresh; reanchor and `markmcp check` must not see a change
    (tmp_path / "a.md").write_text(
        "# Intro\n\nSome text here that is long enough.\n\n## Setup\n\nok\n", encoding="utf-8")
    assert run("add", "a.md", "-a", "me", "-t", "ok?", "--line", "7", cwd=tmp_path).returncode == 0
    status = run("status", "--json", cwd=tmp_path)
    assert [c["health"] for c in json.loads(status.stdout)] == ["fresh"]
    before = (tmp_path / "a.md.review.yaml").read_bytes()
    dry = run("reanchor", "-n", cwd=tmp_path)
    assert dry.returncode == 0 and "0 comment(s) would change" in dry.stdout, dry.stdout
    run("reanchor", cwd=tmp_path)
    assert (tmp_path / "a.md.review.yaml").read_bytes() == before


def test_no_writer_goes_through_a_sidecar_that_is_a_symbolic_link(work: Path) -> None:
    """A sidecar path is derived from its document: a link planted there (dangling, or
    into a missing folder, or to a real file) is refused by every writer, naming the
    sidecar and never the internal lock file; nothing is created or changed."""
    (work / "dl.md").write_text("one\ntwo\n", encoding="utf-8")
    os.symlink("nowhere", work / "dl.md.review.yaml")
    (work / "d2.md").write_text("one\n", encoding="utf-8")
    os.symlink("sub/x.yaml", work / "d2.md.review.yaml")
    os.symlink("doc.md.review.yaml", work / "d3.md.review.yaml")
    (work / "d3.md").write_text(DOC, encoding="utf-8")
    before = snapshot(work)
    runs = [
        ("add", "dl.md", "-a", "me", "-t", "hi", "--line", "1"),
        ("add", "d2.md", "-a", "me", "-t", "hi", "--line", "1"),
        ("add", "d3.md", "-a", "me", "-t", "hi", "--line", "1"),
        ("reanchor", "d3.md"),
    ]
    ids = [c["id"] for c in sidecar_data(work / "doc.md.review.yaml")["comments"]]
    runs += [("resolve", "d3.md", ids[0]), ("init", "--force", "dl.md"),
             ("repair", "d3.md"), ("rename", "d3.md", "d4.md")]
    for args in runs:
        proc = run(*args, cwd=work)
        assert proc.returncode == 2, (args, proc.stdout, proc.stderr)
        assert "symbolic link" in proc.stderr and ".review.yaml" in proc.stderr, (args, proc.stderr)
        assert ".lock" not in proc.stderr, (args, proc.stderr)
    assert snapshot(work) == before
    assert not (work / "nowhere").exists() and not (work / "sub").exists()


def test_the_bundled_sample_validates_clean_where_its_readme_says_to_run_it(tmp_path: Path) -> None:
    """samples/README.md: `cd samples/docs; mrsf validate --strict` inside a git checkout."""
    samples = Path(__file__).resolve().parents[2] / "samples"
    assert "cd samples/docs" in (samples / "README.md").read_text(encoding="utf-8")
    repo = tmp_path / "checkout"
    shutil.copytree(samples / "docs", repo / "samples" / "docs")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    proc = run("validate", "--strict", cwd=repo / "samples" / "docs")
    assert proc.returncode == 0 and "✓" in proc.stdout, proc.stdout + proc.stderr
    listed = run("list", "--json", "garden-handbook.md", cwd=repo / "samples" / "docs")
    assert listed.returncode == 0, listed.stderr


@pytest.mark.parametrize("command", [["list"], ["status"], ["list", "--json"], ["status", "--json"]], ids=" ".join)
def test_a_named_file_that_fails_prints_no_empty_report(work: Path, command: list[str]) -> None:
    proc = run(*command, "missing.md", cwd=work)
    assert proc.returncode == 2
    assert "neither the document missing.md nor its sidecar" in proc.stderr, proc.stderr
    assert "No comment passes" not in proc.stdout and "0 comment(s)" not in proc.stdout, proc.stdout


def test_validate_of_a_missing_document_says_the_document_is_missing(work: Path) -> None:
    proc = run("validate", "missing.md", cwd=work)
    assert proc.returncode == 2 and "neither the document missing.md nor its sidecar" in proc.stderr, proc.stderr
    (work / "bare.md").write_text("x\n", encoding="utf-8")
    proc = run("validate", "bare.md", cwd=work)
    assert proc.returncode == 2 and "no sidecar for bare.md" in proc.stderr, proc.stderr


def test_list_open_and_resolved_together_is_a_usage_error(work: Path) -> None:
    proc = run("list", "--open", "--resolved", cwd=work)
    assert proc.returncode == 2 and "not allowed with" in proc.stderr and proc.stdout == ""
    assert run("list", "--resolved", cwd=work).returncode == 0


def test_text_output_names_files_relative_to_the_working_directory(work: Path) -> None:
    (work / ".git").mkdir()
    docs = work / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# A\n\nSome words to comment.\n", encoding="utf-8")
    added = run("add", "a.md", "-a", "me", "-t", "x", "--line", "3", cwd=docs)
    assert added.stdout.endswith("saved in a.md.review.yaml\n"), added.stdout
    assert "[open] " in (listed := run("list", "a.md", cwd=docs).stdout) and " a.md:3" in listed, listed
    assert run("validate", cwd=work).stdout.count("✓ docs/a.md.review.yaml\n") == 1
    assert "docs/a.md.review.yaml:\n" in run("reanchor", "-n", "docs", cwd=work).stdout
    assert str(work) not in run("status", cwd=work).stdout
    # JSON keeps its paths
    data = json.loads(run("list", "--json", cwd=work).stdout)
    assert str(docs / "a.md.review.yaml") in {row["sidecar"] for row in data}


def test_a_dangling_sidecar_link_is_named_as_such_not_as_a_missing_sidecar(work: Path) -> None:
    (work / "dl.md").write_text("one\n", encoding="utf-8")
    os.symlink("nowhere", work / "dl.md.review.yaml")
    for command in (["validate", "dl.md"], ["list", "dl.md"], ["resolve", "dl.md", "x"]):
        proc = run(*command, cwd=work)
        assert proc.returncode == 2 and "dl.md.review.yaml is a symbolic link to nothing" in proc.stderr, proc.stderr
    assert not (work / "nowhere").exists()


def test_json_output_of_a_run_that_cannot_finish_is_still_json(tmp_path: Path) -> None:
    """With --json a script gets a JSON error object on stdout (the message stays on stderr,
    the exit code says what kind), never an empty stdout."""
    (tmp_path / ".mrsf.yaml").write_text("", encoding="utf-8")
    missing = run("validate", "--json", "nosuch.md", cwd=tmp_path)
    assert missing.returncode == 2
    assert missing.stderr.startswith("mrsf validate: error: nosuch.md: neither the document")
    assert json.loads(missing.stdout)["error"]["code"] == "not-found"
    outside = run("list", "--json", "--cwd", "nowhere", cwd=tmp_path)
    assert outside.returncode == 2
    assert json.loads(outside.stdout)["error"] == {"code": "usage", "message": "--cwd nowhere: not a directory"}
