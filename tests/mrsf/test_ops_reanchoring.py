"""ops.reanchor: applying the engine's placements to sidecars (MRSF §7 fields)."""

from __future__ import annotations

import difflib
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import shared_dir
from markmcp.mrsf import ops
from markmcp.mrsf.edits import apply_placement
from markmcp.mrsf.errors import MrsfConflict, MrsfError
from markmcp.mrsf.reanchor import Placement
from markmcp.mrsf.sidecar import parse_sidecar
from markmcp.mrsf.validate import sha256_hex

NAMES = ["api-reference", "architecture", "contributing", "data-model", "deployment-guide", "security-policy"]


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.email=t@t", "-c", "user.name=t", *args], cwd=cwd,
                          check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def examples(tmp_path):
    src = shared_dir("mrsf", "examples")
    for p in src.iterdir():
        shutil.copy(p, tmp_path)
    return tmp_path


def comments(root: Path, name: str) -> dict:
    return {c["id"]: c for c in ops.read(f"{name}.md", root=root)["data"]["comments"]}


def test_shifted_lines_are_moved_and_only_those_lines_change(examples):
    before = (examples / "api-reference.md.review.yaml").read_text()
    r = ops.reanchor("api-reference.md", root=examples)
    assert r["written"] and r["counts"] == {"anchored": 3}
    after = (examples / "api-reference.md.review.yaml").read_text()
    diff = [l for l in difflib.ndiff(before.split("\n"), after.split("\n")) if l[:2] in ("- ", "+ ")]
    assert all(l.strip(" -+").split(":")[0] in ("line", "end_line") for l in diff), diff
    doc = (examples / "api-reference.md").read_text().split("\n")
    for c in comments(examples, "api-reference").values():
        assert c["selected_text"].split("\n")[0] in doc[c["line"] - 1]
        assert "x_reanchor_status" not in c
    # idempotent
    again = ops.reanchor("api-reference.md", root=examples)
    assert again["written"] is False and again["changed"] == 0


def test_orphans_and_fuzzy_results_are_persisted_with_anchored_text(examples):
    ops.reanchor("contributing.md", root=examples)
    by = comments(examples, "contributing")
    orphaned = [c for c in by.values() if c.get("x_reanchor_status") == "orphaned"]
    assert {c["id"][:11] for c in orphaned} == {"00000000-00"} and len(orphaned) == 3
    assert all(c["x_reanchor_score"] == 0.0 for c in orphaned)
    assert ops.status("contributing.md", root=examples)["counts"]["orphaned"] >= 3
    assert ops.list_comments("contributing.md", root=examples, filters={"orphaned": True})["count"] == 3

    r = ops.reanchor("deployment-guide.md", root=examples)
    assert r["counts"] == {"fuzzy": 4}
    for c in comments(examples, "deployment-guide").values():
        assert c["x_reanchor_status"] == "fuzzy" and 0.6 <= c["x_reanchor_score"] <= 1
        assert c["anchored_text"] != c["selected_text"]
        assert c["selected_text_hash"] if "selected_text_hash" in c else True


def test_dry_run_writes_nothing(examples):
    path = examples / "deployment-guide.md.review.yaml"
    before = path.read_bytes()
    r = ops.reanchor("deployment-guide.md", root=examples, dry_run=True)
    assert r["dryRun"] and not r["written"] and r["changed"] == 4
    assert path.read_bytes() == before and r["version"] == r["previousVersion"]


def test_dry_run_takes_no_lock_and_leaves_the_folder_as_it_was(examples, monkeypatch):
    """A dry run only reads: no lock file is made (a read-only checkout can be checked)."""
    from markmcp.mcpcore import files

    def refuse(*args, **kwargs):
        raise AssertionError("a dry run took the writer's lock")

    monkeypatch.setattr(files, "locked", refuse)
    listing = sorted(p.name for p in examples.iterdir())
    r = ops.reanchor("deployment-guide.md", root=examples, dry_run=True)
    assert r["counts"] == {"fuzzy": 4} and not r["written"]
    assert sorted(p.name for p in examples.iterdir()) == listing
    with pytest.raises(MrsfConflict):
        ops.reanchor("deployment-guide.md", root=examples, dry_run=True, expected_version="0" * 64)


def test_update_text_replaces_selected_text_and_hash(tmp_path):
    (tmp_path / "a.md").write_text("# T\n\nThe quick brown fox jumps over the lazy dog today.\n")
    ops.add("a.md", author="a", text="t", line=3, id="c", root=tmp_path,
            selected_text="The quick brown fox jumped over the lazy dog today.")
    c = ops.read("a.md", root=tmp_path)["data"]["comments"][0]
    assert c["selected_text_hash"] == sha256_hex(c["selected_text"])
    r = ops.reanchor("a.md", root=tmp_path, update_text=True)
    c = ops.read("a.md", root=tmp_path)["data"]["comments"][0]
    assert r["results"][0]["status"] == "fuzzy"
    assert c["selected_text"] == "The quick brown fox jumps over the lazy dog today."
    assert c["selected_text_hash"] == sha256_hex(c["selected_text"]) and "anchored_text" not in c


def test_later_clean_anchoring_removes_audit_fields(tmp_path):
    (tmp_path / "a.md").write_text("# T\n\nalpha beta gamma delta\n")
    ops.add("a.md", author="a", text="t", line=3, id="c", root=tmp_path, selected_text="alpha beta gamma delta")
    (tmp_path / "a.md").write_text("# T\n\nalpha beta gamma delta epsilon zeta eta\n")
    ops.reanchor("a.md", root=tmp_path)
    c = ops.read("a.md", root=tmp_path)["data"]["comments"][0]
    first = c.get("x_reanchor_status")
    (tmp_path / "a.md").write_text("# T\n\nintro\n\nalpha beta gamma delta\n")
    ops.reanchor("a.md", root=tmp_path)
    c = ops.read("a.md", root=tmp_path)["data"]["comments"][0]
    assert c["line"] == 5 and "x_reanchor_status" not in c and "x_reanchor_score" not in c
    assert "anchored_text" not in c
    assert first is None or first != "anchored"


def test_git_source_and_force_rebase(tmp_path):
    git(tmp_path, "init", "-q", ".")
    doc = "# T\n\n" + "".join(f"Paragraph {i} talks about topic {i}.\n\n" for i in range(8))
    (tmp_path / "a.md").write_text(doc)
    git(tmp_path, "add", "a.md")
    git(tmp_path, "commit", "-qm", "one")
    old = git(tmp_path, "rev-parse", "HEAD")
    ops.add("a.md", author="a", text="t", line=9, id="c", root=tmp_path)
    assert ops.read("a.md", root=tmp_path)["data"]["comments"][0]["commit"] == old
    (tmp_path / "a.md").write_text("# T\n\nNew intro.\n\nMore intro.\n\n" + doc.split("\n", 2)[2])
    git(tmp_path, "commit", "-qam", "two")
    new = git(tmp_path, "rev-parse", "HEAD")
    r = ops.reanchor("a.md", root=tmp_path, force=True)
    c = ops.read("a.md", root=tmp_path)["data"]["comments"][0]
    assert r["headCommit"] == new and r["results"][0]["status"] in ("anchored", "shifted")
    assert c["line"] == 13 and c["commit"] == new and "x_reanchor_status" not in c


def test_without_git_and_missing_document(tmp_path):
    (tmp_path / "a.md").write_text("The quick brown fox jumps over the lazy dog.\n")
    ops.add("a.md", author="a", text="t", line=1, root=tmp_path)
    r = ops.reanchor("a.md", root=tmp_path, use_git=False)
    assert r["headCommit"] is None and r["results"][0]["status"] == "anchored"
    (tmp_path / "a.md").unlink()
    with pytest.raises(MrsfError) as info:
        ops.reanchor("a.md", root=tmp_path)
    assert info.value.code == "not-found"
    with pytest.raises(MrsfError):
        ops.reanchor("a.md", root=tmp_path, threshold=2)


def test_apply_placement_unit():
    text = ('mrsf_version: "1.0"\ndocument: a.md\ncomments:\n  - id: c\n    author: a\n'
            '    timestamp: "2026-01-01T00:00:00Z"\n    text: t\n    resolved: false\n    line: 3\n'
            '    selected_text: abc\n')
    sc = parse_sidecar(text)
    c = sc.comments[0]
    out = apply_placement(sc, c, Placement("ambiguous", 0.5, reason="twice"))
    assert out["line"] == 3 and c["x_reanchor_status"] == "ambiguous" and out["changed"] == ["x_reanchor_status", "x_reanchor_score"]
    out = apply_placement(sc, c, Placement("shifted", 1.0, line=7, end_line=7, text="abc"))
    assert c["line"] == 7 and "end_line" not in c and c["x_reanchor_status"] == "shifted"
    out = apply_placement(sc, c, Placement("fuzzy", 0.75, line=8, end_line=9, text="abd\nx"))
    assert c["end_line"] == 9 and c["anchored_text"] == "abd\nx" and c["x_reanchor_score"] == 0.75
    out = apply_placement(sc, c, Placement("anchored", 1.0, line=8, end_line=8, text="abc"))
    assert "anchored_text" not in c and "x_reanchor_status" not in c and c["end_line"] == 8
    assert out["previous"] == {"line": 8, "end_line": 9}
    with pytest.raises(MrsfError):
        apply_placement(sc, c, Placement("weird", 1.0))


def test_status_after_reanchor(examples):
    ops.reanchor("deployment-guide.md", root=examples)
    ops.reanchor("contributing.md", root=examples)
    ops.reanchor("api-reference.md", root=examples)
    health = {r["id"]: r["health"] for r in ops.status(root=examples)["results"]}
    dg = {k: v for k, v in health.items() if k.startswith("f1e2d3c4")}
    assert set(dg.values()) == {"stale"}  # fuzzy placements need a reviewer
    assert {v for k, v in health.items() if k.startswith("a1b2c3d4")} == {"fresh"}  # moved back in place
    assert sum(1 for k, v in health.items() if k.startswith("00000000") and v == "orphaned") == 3


@pytest.mark.parametrize("selection", ['    selected_text: ""\n', ""])
def test_a_line_only_comment_with_an_empty_selection_gets_no_anchored_text(tmp_path, selection):
    # an empty selected_text is no selection, as for the engine: the line is not recorded
    (tmp_path / ".mrsf.yaml").write_text("", encoding="utf-8")
    (tmp_path / "doc.md").write_text("# Title\n\nBody line.\n", encoding="utf-8")
    sidecar = tmp_path / "doc.md.review.yaml"
    sidecar.write_text(
        'mrsf_version: "1.0"\ndocument: doc.md\ncomments:\n  - id: c1\n    author: a\n'
        '    timestamp: "2026-01-02T03:04:05Z"\n    text: t\n    resolved: false\n    line: 3\n' + selection,
        encoding="utf-8")
    before = sidecar.read_text(encoding="utf-8")
    result = ops.reanchor("doc.md", root=tmp_path, use_git=False)
    assert [r["status"] for r in result["results"]] == ["anchored"]
    assert sidecar.read_text(encoding="utf-8") == before
