"""The operations of ops.py on real files in temporary workspaces."""

from __future__ import annotations

import difflib
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import shared_dir
from markmcp.mrsf import ops
from markmcp.mrsf.errors import MrsfError
from markmcp.mrsf.validate import sha256_hex

DOC = "# Title\n\nThe gateway routes all inbound traffic.\nWorkers process jobs.\nLast line.\n"


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.email=t@t", "-c", "user.name=t", *args], cwd=cwd,
                          check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def ws(tmp_path):
    (tmp_path / ".mrsf.yaml").write_text("", encoding="utf-8")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text(DOC, encoding="utf-8")
    return tmp_path


@pytest.fixture
def repo(tmp_path):
    git(tmp_path, "init", "-q", ".")
    (tmp_path / "a.md").write_text(DOC, encoding="utf-8")
    git(tmp_path, "add", "a.md")
    git(tmp_path, "commit", "-qm", "one")
    return tmp_path


def changed_lines(before: str, after: str):
    diff = [l for l in difflib.ndiff(before.split("\n"), after.split("\n")) if l[:2] in ("- ", "+ ")]
    return [l[2:] for l in diff if l.startswith("- ")], [l[2:] for l in diff if l.startswith("+ ")]


# -- add -------------------------------------------------------------------


def test_add_line_captures_that_line(ws):
    r = ops.add("docs/a.md", author="A (a)", text="check", line=3, root=ws)
    c = r["comment"]
    assert c["line"] == 3
    assert c["selected_text"] == "The gateway routes all inbound traffic."
    assert c["selected_text_hash"] == sha256_hex(c["selected_text"])
    assert r["created"] and r["sidecar"] == "docs/a.md.review.yaml" and r["document"] == "docs/a.md"
    assert "commit" not in c  # no git here
    data = ops.read("docs/a.md", root=ws)["data"]
    assert data == {"mrsf_version": "1.0", "document": "docs/a.md", "comments": [c]}
    assert ops.validate("docs/a.md", root=ws, strict=True, check_document=True)["valid"]


def test_add_columns_and_multiline(ws):
    c = ops.add("docs/a.md", author="a", text="t", line=3, start_column=4, end_column=11, root=ws)["comment"]
    assert c["selected_text"] == "gateway"
    c = ops.add("docs/a.md", author="a", text="t", line=3, end_line=4, start_column=4, end_column=7, root=ws)["comment"]
    assert c["selected_text"] == "gateway routes all inbound traffic.\nWorkers"
    c = ops.add("docs/a.md", author="a", text="t", line=3, end_line=4, start_column=4, end_column=3, root=ws)["comment"]
    assert c["selected_text"] == "gateway routes all inbound traffic.\nWor"


def test_add_defaults_id_timestamp_and_git_head(repo):
    r = ops.add("a.md", author="a", text="t", root=repo)
    c = r["comment"]
    assert len(c["id"]) == 36 and c["timestamp"].endswith("Z") and len(c["timestamp"]) == 24
    assert c["commit"] == git(repo, "rev-parse", "HEAD")


def test_add_rejects_bad_input_and_writes_nothing(ws):
    ops.add("docs/a.md", author="a", text="t", id="one", root=ws)
    path = ws / "docs" / "a.md.review.yaml"
    before = path.read_bytes()
    bad = [
        dict(author="", text="t"),
        dict(author="a", text="t", line=0),
        dict(author="a", text="t", line=99),
        dict(author="a", text="t", line=3, end_line=2),
        dict(author="a", text="t", line=3, start_column=5, end_column=2),
        dict(author="a", text="t", severity="urgent"),
        dict(author="a", text="t", reply_to="nobody"),
        dict(author="a", text="t", extensions={"bad": 1}),
        dict(author="a", text="t", timestamp="yesterday"),
    ]
    for kw in bad:
        with pytest.raises(MrsfError) as info:
            ops.add("docs/a.md", root=ws, **kw)
        assert info.value.code == "invalid-argument", kw
    with pytest.raises(MrsfError) as info:
        ops.add("docs/a.md", author="a", text="t", id="one", root=ws)
    assert info.value.code == "duplicate-id"
    assert path.read_bytes() == before


def test_add_to_example_changes_only_new_lines(tmp_path):
    src = shared_dir("mrsf", "examples")
    for name in ("data-model", "security-policy"):
        shutil.copy(src / f"{name}.md", tmp_path)
        shutil.copy(src / f"{name}.md.review.yaml", tmp_path)
        before = (tmp_path / f"{name}.md.review.yaml").read_text(encoding="utf-8")
        r = ops.add(f"{name}.md", author="a", text="new", line=1, extensions={"x_tool": {"n": [1, 2]}}, root=tmp_path)
        after = (tmp_path / f"{name}.md.review.yaml").read_text(encoding="utf-8")
        removed, added = changed_lines(before, after)
        assert removed == [] and after.startswith(before)
        assert added[0] == f'  - id: "{r["comment"]["id"]}"' or added[0] == f"  - id: {r['comment']['id']}"
        assert ops.read(f"{name}.md", root=tmp_path)["data"]["comments"][-1] == r["comment"]


def test_add_batch_is_one_atomic_write(ws):
    r = ops.add_batch("docs/a.md", [
        {"author": "a", "text": "one", "line": 3, "id": "p"},
        {"author": "b", "text": "two", "reply_to": "p"},
    ], root=ws)
    assert [c["text"] for c in r["comments"]] == ["one", "two"]
    before = (ws / "docs" / "a.md.review.yaml").read_bytes()
    with pytest.raises(MrsfError) as info:
        ops.add_batch("docs/a.md", [{"author": "a", "text": "ok"}, {"author": "a", "text": "bad", "line": 999}], root=ws)
    assert info.value.details["batchIndex"] == 1
    assert (ws / "docs" / "a.md.review.yaml").read_bytes() == before


# -- update ------------------------------------------------------------------


def test_update_field_changes_one_line_and_moving_anchor_recomputes_text(ws):
    c = ops.add("docs/a.md", author="a", text="t", line=3, root=ws)["comment"]
    path = ws / "docs" / "a.md.review.yaml"
    before = path.read_text(encoding="utf-8")
    r = ops.update("docs/a.md", c["id"], {"text": "changed"}, root=ws)
    assert r["changed"] == ["text"]
    removed, added = changed_lines(before, path.read_text(encoding="utf-8"))
    assert removed == ["    text: t"] and added == ["    text: changed"]
    r = ops.update("docs/a.md", c["id"], {"line": 4}, root=ws)
    assert r["comment"]["selected_text"] == "Workers process jobs."
    assert r["comment"]["selected_text_hash"] == sha256_hex("Workers process jobs.")
    assert set(r["changed"]) == {"line", "selected_text", "selected_text_hash"}
    r = ops.update("docs/a.md", c["id"], {"type": "issue", "severity": "high"}, root=ws)
    assert r["comment"]["type"] == "issue"
    r = ops.update("docs/a.md", c["id"], {"type": None}, root=ws)
    assert "type" not in r["comment"]
    with pytest.raises(MrsfError):
        ops.update("docs/a.md", c["id"], {"author": None}, root=ws)


def test_update_that_retargets_drops_the_earlier_reanchor_verdict(ws):
    c = ops.add("docs/a.md", author="a", text="t", line=3, root=ws)["comment"]
    ops.update("docs/a.md", c["id"], {"x_reanchor_status": "fuzzy", "x_reanchor_score": 0.61}, root=ws)
    r = ops.update("docs/a.md", c["id"], {"text": "only the text"}, root=ws)
    assert r["comment"]["x_reanchor_status"] == "fuzzy"  # not a new anchor: the verdict stands
    r = ops.update("docs/a.md", c["id"], {"line": 4}, root=ws)
    assert r["comment"]["selected_text"] == "Workers process jobs."
    assert "x_reanchor_status" not in r["comment"] and "x_reanchor_score" not in r["comment"]
    assert {"x_reanchor_status", "x_reanchor_score"} <= set(r["changed"])
    ops.update("docs/a.md", c["id"], {"x_reanchor_status": "orphaned"}, root=ws)
    r = ops.update("docs/a.md", c["id"], {"selected_text": "Last line."}, root=ws)
    assert "x_reanchor_status" not in r["comment"]
    r = ops.update("docs/a.md", c["id"], {"line": 5, "x_reanchor_status": "fuzzy"}, root=ws)
    assert r["comment"]["x_reanchor_status"] == "fuzzy"  # set in the same call: kept


# -- resolve -----------------------------------------------------------------


def test_resolve_by_ids_filters_and_cascade(ws):
    ops.add_batch("docs/a.md", [
        {"author": "a", "text": "p", "id": "p", "severity": "high"},
        {"author": "b", "text": "r", "id": "r", "reply_to": "p"},
        {"author": "a", "text": "q", "id": "q", "severity": "low"},
    ], root=ws)
    r = ops.resolve("docs/a.md", "p", root=ws)
    assert r["changed"] == ["p"]
    assert [c["resolved"] for c in ops.read("docs/a.md", root=ws)["data"]["comments"]] == [True, False, False]
    assert ops.resolve("docs/a.md", "p", root=ws)["changed"] == []
    r = ops.resolve("docs/a.md", "p", cascade=True, root=ws)
    assert r["changed"] == ["r"]
    r = ops.unresolve("docs/a.md", filters={"author": "a"}, root=ws)
    assert r["changed"] == ["p"]
    r = ops.resolve("docs/a.md", filters={"severity": "low"}, root=ws)
    assert r["matched"] == ["q"]
    with pytest.raises(MrsfError):
        ops.resolve("docs/a.md", root=ws)
    with pytest.raises(MrsfError) as info:
        ops.resolve("docs/a.md", filters={"colour": "red"}, root=ws)
    assert info.value.code == "invalid-argument"


# -- delete (§9.1) -----------------------------------------------------------


def test_delete_promotes_replies(ws):
    ops.add_batch("docs/a.md", [
        {"author": "a", "text": "root", "id": "g"},
        {"author": "a", "text": "parent", "id": "p", "line": 3, "reply_to": "g"},
        {"author": "b", "text": "reply", "id": "r", "reply_to": "p"},
        {"author": "b", "text": "own", "id": "o", "reply_to": "p", "line": 4},
    ], root=ws)
    r = ops.delete("docs/a.md", "p", root=ws)
    assert r["deleted"] == ["p"] and r["promoted"] == ["r", "o"]
    by = {c["id"]: c for c in ops.read("docs/a.md", root=ws)["data"]["comments"]}
    assert set(by) == {"g", "r", "o"}
    assert by["r"]["reply_to"] == "g" and by["r"]["line"] == 3
    assert by["r"]["selected_text"] == "The gateway routes all inbound traffic."
    assert by["o"]["line"] == 4 and by["o"]["selected_text"] == "Workers process jobs."
    r = ops.delete("docs/a.md", "g", root=ws)
    by = {c["id"]: c for c in ops.read("docs/a.md", root=ws)["data"]["comments"]}
    assert "reply_to" not in by["r"] and "reply_to" not in by["o"]


def test_delete_cascade(ws):
    ops.add_batch("docs/a.md", [
        {"author": "a", "text": "p", "id": "p"},
        {"author": "b", "text": "r", "id": "r", "reply_to": "p"},
        {"author": "c", "text": "s", "id": "s"},
    ], root=ws)
    r = ops.delete("docs/a.md", ["p"], cascade=True, root=ws)
    assert sorted(r["deleted"]) == ["p", "r"]
    assert [c["id"] for c in ops.read("docs/a.md", root=ws)["data"]["comments"]] == ["s"]


def test_delete_in_example_keeps_every_yaml_comment(tmp_path):
    src = shared_dir("mrsf", "examples")
    shutil.copy(src / "data-model.md", tmp_path)
    shutil.copy(src / "data-model.md.review.yaml", tmp_path)
    before = (tmp_path / "data-model.md.review.yaml").read_text(encoding="utf-8")
    r = ops.delete("data-model.md", "t1-parent-0001", root=tmp_path)
    assert r["promoted"] == ["t1-reply-0002", "t1-reply-0003"]
    after = (tmp_path / "data-model.md.review.yaml").read_text(encoding="utf-8")
    hashes = lambda t: sorted(l.strip() for l in t.split("\n") if l.strip().startswith("#"))
    assert hashes(after) == hashes(before)
    comments = ops.read("data-model.md", root=tmp_path)["data"]["comments"]
    reply = next(c for c in comments if c["id"] == "t1-reply-0002")
    assert reply["line"] == 5 and reply["end_line"] == 7 and "reply_to" not in reply
    assert ops.validate("data-model.md", root=tmp_path, strict=True)["valid"]


# -- list --------------------------------------------------------------------


def test_list_filters_summary_and_text(tmp_path):
    src = shared_dir("mrsf", "examples")
    for p in src.iterdir():
        shutil.copy(p, tmp_path)
    r = ops.list_comments(root=tmp_path)
    assert r["count"] == 28 and r["summary"]["total"] == 28 and r["errors"] == []
    assert r["summary"]["open"] + r["summary"]["resolved"] == 28
    opened = ops.list_comments(root=tmp_path, filters={"open": True})
    assert all(c["resolved"] is False for c in opened["comments"]) and opened["count"] == r["summary"]["open"]
    dm = ops.list_comments("data-model.md", root=tmp_path, filters={"author": "reviewer-ivan", "severity": "high"})
    assert [c["id"] for c in dm["comments"]] == ["t1-parent-0001"]
    ranged = ops.list_comments("data-model.md", root=tmp_path, filters={"line_from": 15, "line_to": 21})
    assert [c["id"] for c in ranged["comments"]] == ["t2-parent-0004", "standalone-0006"]
    replies = ops.list_comments("data-model.md", root=tmp_path, filters={"reply_to": "t1-parent-0001"})
    assert replies["count"] == 2
    text = ops.format_list(dm)
    assert text.splitlines()[0].startswith("[resolved] t1-parent-0001 data-model.md:5-7 [high] [question]")
    assert text.splitlines()[-1] == "1 comment(s): 0 open, 1 resolved, 0 orphaned, 1 thread(s)"
    json.dumps(r)  # plain JSON


def test_list_reports_unreadable_sidecars(ws):
    (ws / "docs" / "bad.md.review.yaml").write_text("comments: [\n")
    ops.add("docs/a.md", author="a", text="t", root=ws)
    r = ops.list_comments(root=ws)
    assert r["count"] == 1
    assert r["errors"][0]["sidecar"] == "docs/bad.md.review.yaml" and r["errors"][0]["code"] == "malformed-yaml"


# -- status ------------------------------------------------------------------


def test_status_without_git(tmp_path):
    src = shared_dir("mrsf", "examples")
    for name in ("contributing", "architecture", "api-reference"):
        shutil.copy(src / f"{name}.md", tmp_path)
        shutil.copy(src / f"{name}.md.review.yaml", tmp_path)
    r = ops.status(root=tmp_path)
    health = {x["id"]: x["health"] for x in r["results"]}
    assert health["3eeccbd3"] == "fresh"                                 # architecture: text in place
    assert health["00000000-0003-4000-8000-bbbbbbbbbbbb"] == "orphaned"  # line past the end
    assert health["a1b2c3d4-0001-4000-8000-000000000001"] == "stale"     # moved down
    assert health["00000000-0001-4000-8000-bbbbbbbbbbbb"] == "unknown"   # line-only, no git
    assert sum(r["counts"].values()) == len(r["results"])


def test_status_names_every_line_a_moved_text_occurs_at():
    """A repeated phrase that left its line is not at one place: status lists where it
    occurs (reanchor, which weighs them, calls it ambiguous), and cuts a long list short."""
    from markmcp.mrsf.health import assess_status
    base = {"id": "c", "author": "a", "timestamp": "2026-01-01T00:00:00Z", "text": "t", "line": 9}
    twice = "# T\n\nx\ny\nTODO here\n\ntext\n\nmore\n\nz\nTODO here\n"
    [r] = assess_status([dict(base, selected_text="TODO")], twice)
    assert r["health"] == "stale" and "(it occurs at lines 5 and 12)" in r["reason"]
    [r] = assess_status([dict(base, line=7, selected_text="more")], twice)
    assert r["health"] == "stale" and "(it occurs at line 9)" in r["reason"]
    many = "\n".join(["TODO"] * 8 + ["x"] * 4)
    [r] = assess_status([dict(base, line=10, selected_text="TODO")], many)
    assert "(it occurs at lines 1, 2, 3, 4, 5 and 3 more)" in r["reason"]


def test_status_with_git_compares_document_at_commit(repo):
    head = git(repo, "rev-parse", "HEAD")
    ops.add("a.md", author="a", text="line-only", line=4, selected_text="", id="l", root=repo)
    ops.update("a.md", "l", {"selected_text": None}, root=repo)
    ops.add("a.md", author="a", text="text", line=3, id="t", root=repo)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "sidecar")  # HEAD moves, the document does not
    r = {x["id"]: x for x in ops.status("a.md", root=repo)["results"]}
    assert r["l"]["health"] == "fresh" and "unchanged since" in r["l"]["reason"]
    assert r["t"]["health"] == "fresh"
    (repo / "a.md").write_text("# Title\n\nNew intro.\n" + DOC.split("\n", 2)[2], encoding="utf-8")
    r = {x["id"]: x for x in ops.status("a.md", root=repo)["results"]}
    assert r["l"]["health"] == "stale"
    assert r["t"]["health"] == "stale" and ops.read("a.md", root=repo)["data"]["comments"][0]["commit"] == head


# -- validate ----------------------------------------------------------------


def test_validate_files_and_document_mismatch(ws):
    ops.add("docs/a.md", author="a", text="t", root=ws)
    assert ops.validate(root=ws, strict=True)["valid"]
    path = ws / "docs" / "a.md.review.yaml"
    path.write_text(path.read_text().replace("document: docs/a.md", "document: other.md"))
    r = ops.validate(root=ws)
    assert r["valid"] and r["files"][0]["warnings"][0]["code"] == "document-mismatch"
    assert not ops.validate(root=ws, strict=True)["valid"]
    path.write_text("mrsf_version: [\n")
    r = ops.validate(root=ws)
    assert not r["valid"] and r["files"][0]["errors"][0]["code"] == "malformed-yaml"
    assert r["files"][0]["errors"][0]["line"] == 2


def test_validate_examples_clean(tmp_path):
    src = shared_dir("mrsf", "examples")
    for p in src.glob("*.review.yaml"):
        shutil.copy(p, tmp_path)
    r = ops.validate(root=tmp_path)
    assert r["valid"] and len(r["files"]) == 6 and r["errorCount"] == 0
    assert r["warningCount"] == 3  # the scenarios' three line-only comments (missing-selected-text)
    strict = ops.validate(root=tmp_path, strict=True)
    assert [f["valid"] for f in strict["files"]] == [True, False, False, True, True, True]


# -- init / rename / repair -------------------------------------------------------


def test_init(ws):
    r = ops.init("docs/a.md", root=ws)
    assert r["created"] and (ws / "docs/a.md.review.yaml").read_text() == 'mrsf_version: "1.0"\ndocument: docs/a.md\ncomments: []\n'
    with pytest.raises(MrsfError) as info:
        ops.init("docs/a.md", root=ws)
    assert info.value.code == "sidecar-exists"
    assert ops.init("docs/a.md", root=ws, force=True)["created"] is False
    with pytest.raises(MrsfError) as info:
        ops.init("docs/missing.md", root=ws)
    assert info.value.code == "not-found"
    r = ops.init("docs/a.md", root=ws, format="json", force=True)
    assert r["sidecar"] == "docs/a.md.review.yaml"  # the existing YAML stays authoritative


def test_init_json_and_sidecar_root(tmp_path):
    (tmp_path / ".mrsf.yaml").write_text("sidecar_root: .reviews\n")
    (tmp_path / "a.md").write_text("x\n")
    r = ops.init("a.md", root=tmp_path, format="json")
    assert r["sidecar"] == ".reviews/a.md.review.json"
    data = json.loads((tmp_path / ".reviews/a.md.review.json").read_text())
    assert data == {"mrsf_version": "1.0", "document": "a.md", "comments": []}
    ops.add("a.md", author="a", text="t", line=1, root=tmp_path)
    assert ops.locate(".reviews/a.md.review.json", root=tmp_path)["document"] == "a.md"
    text = (tmp_path / ".reviews/a.md.review.json").read_text()
    assert text.startswith('{\n  "mrsf_version": "1.0",\n  "document": "a.md",\n  "comments": [\n    {\n      "id": ')


def test_rename_moves_sidecar_and_updates_document(ws):
    ops.add("docs/a.md", author="a", text="t", line=3, root=ws)
    (ws / "docs" / "a.md").rename(ws / "b.md")
    r = ops.rename("docs/a.md", "b.md", root=ws)
    assert r["sidecar"] == "b.md.review.yaml" and r["oldSidecar"] == "docs/a.md.review.yaml"
    assert not (ws / "docs" / "a.md.review.yaml").exists()
    data = ops.read("b.md", root=ws)["data"]
    assert data["document"] == "b.md" and len(data["comments"]) == 1
    (ws / "docs" / "c.md").write_text("# C\n")
    ops.add("docs/c.md", author="a", text="t", root=ws)
    with pytest.raises(MrsfError) as info:
        ops.rename("docs/c.md", "b.md", root=ws)
    assert info.value.code == "sidecar-exists"


def test_rename_notes_a_new_document_that_does_not_exist(ws):
    ops.add("docs/a.md", author="a", text="t", root=ws)
    r = ops.rename("docs/a.md", "docs/b.md", root=ws)  # the document itself not moved
    assert "docs/b.md does not exist" in r["note"] and "move docs/a.md to docs/b.md" in r["note"]
    assert (ws / "docs" / "b.md.review.yaml").exists()
    (ws / "docs" / "a.md").rename(ws / "docs" / "c.md")
    assert "note" not in ops.rename("docs/b.md", "docs/c.md", root=ws)


def test_rename_keeps_the_permission_bits_and_leaves_no_lock_files(ws):
    ops.add("docs/a.md", author="a", text="t", root=ws)
    os.chmod(ws / "docs" / "a.md.review.yaml", 0o640)
    ops.rename("docs/a.md", "docs/b.md", root=ws)
    assert (ws / "docs" / "b.md.review.yaml").stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in (ws / "docs").iterdir()) == ["a.md", "b.md.review.yaml"]


def test_repair_salvages_parseable_comments(ws):
    ops.add_batch("docs/a.md", [{"author": "a", "text": f"c{i}", "id": f"c{i}"} for i in range(3)], root=ws)
    path = ws / "docs" / "a.md.review.yaml"
    text = path.read_text()
    broken = text.replace("    text: c1\n", '    text: "c1\n')
    path.write_text(broken)
    with pytest.raises(MrsfError):
        ops.read("docs/a.md", root=ws)
    r = ops.repair("docs/a.md", root=ws, backup=True)
    assert r["salvaged"] == 2 and len(r["dropped"]) == 1 and r["dropped"][0]["line"] > 3
    assert r["backup"] == "docs/a.md.review.yaml.bak"
    assert (ws / r["backup"]).read_text() == broken
    assert [c["id"] for c in ops.read("docs/a.md", root=ws)["data"]["comments"]] == ["c0", "c2"]
    assert ops.repair("docs/a.md", root=ws)["changed"] is False  # healthy now
    r = ops.repair("docs/a.md", root=ws, reset=True)
    assert ops.read("docs/a.md", root=ws)["data"]["comments"] == []


def test_repair_fills_missing_top_level_fields(ws):
    path = ws / "docs" / "a.md.review.yaml"
    path.write_text("comments:\n  - id: x\n    text: keep me\n")
    r = ops.repair("docs/a.md", root=ws)
    data = ops.read("docs/a.md", root=ws)["data"]
    assert data["mrsf_version"] == "1.0" and data["document"] == "docs/a.md"
    assert data["comments"] == [{"id": "x", "text": "keep me"}] and r["changed"]


def test_find_sidecars_and_locate(ws):
    ops.add("docs/a.md", author="a", text="t", root=ws)
    assert ops.find_sidecars(root=ws)["sidecars"] == ["docs/a.md.review.yaml"]
    loc = ops.locate("docs/a.md.review.yaml", root=ws)
    assert loc["document"] == "docs/a.md" and loc["exists"] and loc["documentExists"]


# -- edge-facing options -------------------------------------------------------


def test_document_text_replaces_the_file(ws):
    buffer = "the unsaved first line\r\nbuffer line two\r\n"
    r = ops.add("docs/new.md", author="a", text="t", line=2, document_text=buffer, root=ws)
    assert r["comment"]["selected_text"] == "buffer line two"
    assert not (ws / "docs" / "new.md").exists()
    r = ops.update("docs/new.md", r["comment"]["id"], {"line": 1}, document_text=buffer, root=ws)
    assert r["comment"]["selected_text"] == "the unsaved first line"
    r = ops.reanchor("docs/new.md", document_text="intro\nthe unsaved first line\n", root=ws)
    assert r["results"][0]["line"] == 2 and r["results"][0]["status"] == "anchored"


def test_an_anchor_taken_from_unsaved_text_says_so(ws):
    buffer = "the unsaved first line\r\nbuffer line two\r\n"
    r = ops.add("docs/new.md", author="a", text="t", line=2, document_text=buffer, root=ws)
    assert r["note"] == "docs/new.md is not on disk: the anchor was taken from the documentText given"
    (ws / "docs" / "new.md").write_text("the unsaved first line\nbuffer line two\n", encoding="utf-8")
    assert "note" not in ops.add("docs/new.md", author="a", text="t", line=1, document_text=buffer, root=ws)
    edited = "a new first line\n" + buffer
    r = ops.add_batch("docs/new.md", [{"author": "a", "text": "t", "line": 2}], document_text=edited, root=ws)
    assert r["note"].startswith("the anchor was taken from the documentText given, which differs from docs/new.md")
    cid = r["comments"][0]["id"]
    assert "note" not in ops.update("docs/new.md", cid, {"text": "only words"}, document_text=edited, root=ws)
    assert "unsaved" in ops.update("docs/new.md", cid, {"line": 3}, document_text=edited, root=ws)["note"]
    assert "note" not in ops.add("docs/new.md", author="a", text="t", line=1, root=ws)   # the file itself


def test_results_carry_absolute_paths_and_versions(ws):
    r = ops.add("docs/a.md", author="a", text="t", root=ws)
    assert r["sidecarPath"] == str(ws / "docs" / "a.md.review.yaml")
    assert r["documentPath"] == str(ws / "docs" / "a.md")
    for result in (ops.list_comments(root=ws), ops.status(root=ws), ops.validate(root=ws)):
        assert result["versions"] == {"docs/a.md.review.yaml": r["version"]}


def test_explicit_config_file(tmp_path):
    (tmp_path / "cfg").mkdir()
    (tmp_path / "cfg" / "review.yaml").write_text("sidecar_root: notes\n")
    (tmp_path / "cfg" / "a.md").write_text("x\n")
    r = ops.add("cfg/a.md", author="a", text="t", config="cfg/review.yaml", cwd=tmp_path)
    assert r["root"] == str(tmp_path / "cfg") and r["sidecar"] == "notes/a.md.review.yaml"
    assert ops.list_comments(config="cfg/review.yaml", cwd=tmp_path, root=tmp_path / "cfg")["count"] == 1
    with pytest.raises(MrsfError) as info:
        ops.locate("cfg/a.md", config="cfg/missing.yaml", cwd=tmp_path)
    assert info.value.code == "invalid-config"


def test_repair_wraps_a_lone_comment_mapping(ws):
    path = ws / "docs" / "a.md.review.yaml"
    path.write_text('mrsf_version: "1.0"\ndocument: docs/a.md\ncomments:\n  id: x\n  text: lone\n')
    r = ops.repair("docs/a.md", root=ws)
    assert r["salvaged"] == 1 and r["dropped"] == []
    assert ops.read("docs/a.md", root=ws)["data"]["comments"] == [{"id": "x", "text": "lone"}]


def test_hidden_document_sidecars_are_found(ws):
    (ws / ".notes.md").write_text("x\n")
    ops.add(".notes.md", author="a", text="t", root=ws)
    assert ".notes.md.review.yaml" in ops.find_sidecars(root=ws)["sidecars"]


def test_docstring_documents_every_operation():
    import inspect
    doc = ops.__doc__
    for name in ops.__all__:
        if name == "MrsfError":
            continue
        assert f"``{name}(" in doc, name
        params = [p for p in inspect.signature(getattr(ops, name)).parameters]
        block = doc[doc.index(f"``{name}("):]
        block = block[: block.index(")``")]
        for param in params:
            assert param in block, (name, param)


def test_unknown_major_version_is_refused(ws):
    path = ws / "docs" / "a.md.review.yaml"
    text = 'mrsf_version: "2.0"\ndocument: docs/a.md\ncomments: []\n'
    path.write_text(text)
    for call in (lambda: ops.add("docs/a.md", author="a", text="t", root=ws),
                 lambda: ops.reanchor("docs/a.md", root=ws)):
        with pytest.raises(MrsfError) as info:
            call()
        assert info.value.code == "unsupported-version"
    assert path.read_text() == text
    assert ops.list_comments(root=ws)["errors"][0]["code"] == "unsupported-version"
    assert ops.read("docs/a.md", root=ws)["data"]["mrsf_version"] == "2.0"
    path.write_text(text.replace("2.0", "1.7"))
    assert ops.add("docs/a.md", author="a", text="t", root=ws)["written"]


def test_repair_json_sidecar(ws):
    path = ws / "docs" / "a.md.review.json"
    path.write_text('{\n  "mrsf_version": "1.0",\n  "document": "docs/a.md",\n  "comments": [\n'
                    '    {"id": "a", "text": "brace } in \\"string\\""},\n'
                    '    {"id": "b", "text": oops},\n'
                    '    {"id": "c", "nested": {"k": [1, 2]}}\n  ]\n')  # and the closing brace is missing
    r = ops.repair("docs/a.md", root=ws)
    assert r["salvaged"] == 2 and r["dropped"][0]["index"] == 1 and r["dropped"][0]["line"] == 6
    data = ops.read("docs/a.md", root=ws)["data"]
    assert [c["id"] for c in data["comments"]] == ["a", "c"]
    assert data["comments"][0]["text"] == 'brace } in "string"'


def test_update_refuses_a_wrong_hash(ws):
    c = ops.add("docs/a.md", author="a", text="t", line=3, root=ws)["comment"]
    with pytest.raises(MrsfError) as info:
        ops.update("docs/a.md", c["id"], {"selected_text_hash": "0" * 64}, root=ws)
    assert info.value.code == "invalid-argument"
    r = ops.update("docs/a.md", c["id"], {"selected_text": "gateway"}, root=ws)
    assert r["comment"]["selected_text_hash"] == sha256_hex("gateway")


def test_add_records_head_only_for_a_committed_document(repo):
    head = git(repo, "rev-parse", "HEAD")
    assert ops.add("a.md", author="a", text="t", line=3, root=repo)["comment"]["commit"] == head
    (repo / "a.md").write_text("# Title\n\nInserted.\n" + DOC.split("\n", 2)[2])
    c = ops.add("a.md", author="a", text="t", line=4, root=repo)["comment"]
    assert "commit" not in c and c["selected_text"] == "The gateway routes all inbound traffic."
    assert ops.add("a.md", author="a", text="t", commit="abc123", root=repo)["comment"]["commit"] == "abc123"


BAD_CALLS = [
    ("add", (None,), {"author": "a", "text": "t"}),
    ("add", ("docs/a.md",), {"author": 3, "text": "t"}),
    ("add", ("docs/a.md",), {"author": "a", "text": "t", "line": "x"}),
    ("add", ("docs/a.md",), {"author": "a", "text": "t", "line": True}),
    ("add", ("docs/a.md",), {"author": "a", "text": "t", "extensions": [1]}),
    ("add", ("docs/a.md",), {"author": "a", "text": "t", "extensions": {"x_f": float("nan")}}),
    ("add_batch", ("docs/a.md", "nope"), {}),
    ("add_batch", ("docs/a.md", [1]), {}),
    ("add_batch", ("docs/a.md", [{"author": "a", "text": "t", "bogus": 1}]), {}),
    ("update", ("docs/a.md", "c", "nope"), {}),
    ("update", ("docs/a.md", "c", {"line": -1}), {}),
    ("update", ("docs/a.md", "c", {"resolved": "yes"}), {}),
    ("update", ("docs/a.md", "c", {"id": "other"}), {}),
    ("update", ("docs/a.md", "c", {"reply_to": "c"}), {}),
    ("resolve", ("docs/a.md", 5), {}),
    ("resolve", ("docs/a.md",), {"filters": "open"}),
    ("resolve", ("docs/a.md",), {"filters": {"line_from": "x"}}),
    ("delete", ("docs/a.md", []), {}),
    ("delete", ("docs/a.md", [1]), {}),
    ("list_comments", (), {"filters": {"severity": "huge"}}),
    ("list_comments", (5,), {}),
    ("init", ("docs/a.md",), {"format": "toml"}),
    ("reanchor", ("docs/a.md",), {"threshold": "high"}),
    ("reanchor", ("docs/a.md",), {"threshold": -0.1}),
    ("locate", ("docs/a\x00.md",), {}),
    ("rename", ("docs/a.md", "docs/a.md.review.yaml"), {}),
]


@pytest.mark.parametrize("name,args,kwargs", BAD_CALLS, ids=[f"{c[0]}-{i}" for i, c in enumerate(BAD_CALLS)])
def test_bad_arguments_are_clear_errors_and_write_nothing(ws, name, args, kwargs):
    ops.add("docs/a.md", author="a", text="t", id="c", line=3, root=ws)
    path = ws / "docs" / "a.md.review.yaml"
    before = path.read_bytes()
    with pytest.raises(MrsfError) as info:
        getattr(ops, name)(*args, root=ws, **kwargs)
    assert info.value.code in ("invalid-argument", "comment-not-found", "not-found", "invalid-config")
    assert info.value.message
    assert path.read_bytes() == before


def test_columns_are_utf16_code_units(ws):
    """Columns count UTF-16 code units (as upstream tools and editors do): an emoji
    before the selection counts twice."""
    (ws / "e.md").write_text("# T\n\n😀 says hello world\n", encoding="utf-8")
    c = ops.add("e.md", author="a", text="t", line=3, start_column=8, end_column=13, root=ws)["comment"]
    assert c["selected_text"] == "hello"
    with pytest.raises(MrsfError):
        ops.add("e.md", author="a", text="t", line=3, start_column=0, end_column=20, root=ws)
    assert ops.add("e.md", author="a", text="t", line=3, start_column=0, end_column=19, root=ws)["comment"]["selected_text"] == "😀 says hello world"
    assert ops.validate("e.md", root=ws, check_document=True)["warningCount"] == 0
    assert {r["health"] for r in ops.status("e.md", root=ws)["results"]} == {"fresh"}
    (ws / "e.md").write_text("# T\n\nNew line.\n\n😀 says hello world\n", encoding="utf-8")
    r = ops.reanchor("e.md", root=ws)
    moved = next(x for x in r["results"] if x["id"] == c["id"])
    assert (moved["line"], moved["start_column"], moved["end_column"]) == (5, 8, 13)


def test_json_sidecar_edits_change_only_their_lines(ws):
    ops.init("docs/a.md", format="json", root=ws)
    ops.add_batch("docs/a.md", [{"author": "a", "text": "one", "id": "p", "line": 3},
                                {"author": "b", "text": "two", "id": "r", "reply_to": "p"}], root=ws)
    path = ws / "docs" / "a.md.review.json"
    before = path.read_text()
    ops.resolve("docs/a.md", "r", root=ws)
    removed, added = changed_lines(before, path.read_text())
    assert removed == ['      "resolved": false,'] and added == ['      "resolved": true,']
    ops.delete("docs/a.md", "p", root=ws)
    data = json.loads(path.read_text())
    assert [c["id"] for c in data["comments"]] == ["r"] and data["comments"][0]["line"] == 3
    assert "reply_to" not in data["comments"][0]


def test_reply_loops_are_refused(ws):
    ops.add_batch("docs/a.md", [{"author": "a", "text": "p", "id": "p"},
                                {"author": "a", "text": "r", "id": "r", "reply_to": "p"}], root=ws)
    with pytest.raises(MrsfError) as info:
        ops.update("docs/a.md", "p", {"reply_to": "r"}, root=ws)
    assert info.value.code == "invalid-argument" and "loop" in info.value.message
    with pytest.raises(MrsfError):
        ops.add_batch("docs/a.md", [{"author": "a", "text": "x", "id": "x", "reply_to": "y"},
                                    {"author": "a", "text": "y", "id": "y", "reply_to": "x"}], root=ws)
    with pytest.raises(MrsfError):
        ops.add("docs/a.md", author="a", text="self", id="s", reply_to="s", root=ws)
    assert ops.validate("docs/a.md", root=ws, strict=True)["valid"]
