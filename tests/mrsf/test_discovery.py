"""discovery.py: MRSF §3 (co-location, .mrsf.yaml sidecar_root, order) and path safety."""

from __future__ import annotations

import os

import pytest

from markmcp.mrsf import ops
from markmcp.mrsf.discovery import (
    Config, document_rel_for, find_workspace_root, locate, parse_config, sidecar_rel_for,
)
from markmcp.mrsf.errors import MrsfError


def test_pure_path_mapping_both_ways():
    plain, redirected = Config(), Config(sidecar_root=".reviews")
    assert sidecar_rel_for("docs/a.md", plain) == "docs/a.md.review.yaml"
    assert sidecar_rel_for("docs/a.md", plain, "json") == "docs/a.md.review.json"
    assert sidecar_rel_for("docs/a.md", redirected) == ".reviews/docs/a.md.review.yaml"
    for config in (plain, redirected):
        for fmt in ("yaml", "json"):
            assert document_rel_for(sidecar_rel_for("docs/a.md", config, fmt), config) == "docs/a.md"


@pytest.mark.parametrize("text,expected", [
    ("", Config()),
    ("sidecar_root: .reviews\n", Config(".reviews")),
    ("sidecar_root: reviews/sub/\n", Config("reviews/sub")),
    ("sidecar_root: .\n", Config()),
    ("sidecar_root: r\nfuture_key: 1\n", Config("r")),
    ("sidecar_root: .github/reviews\n", Config(".github/reviews")),
])
def test_parse_config(text, expected):
    assert parse_config(text) == expected


@pytest.mark.parametrize("text", [
    "sidecar_root: /abs\n", "sidecar_root: ../up\n", "sidecar_root: a/../../b\n",
    "sidecar_root: 3\n", "[1, 2]\n", "sidecar_root: [\n", "sidecar_root: C:/x\n",
    # control characters became folder names; sidecars under .git were hidden from every sweep
    'sidecar_root: "\\e[31mRED"\n', 'sidecar_root: "r\\nx"\n', "sidecar_root: .git\n",
    "sidecar_root: .GIT/reviews\n", "sidecar_root: ./.git/x\n",
])
def test_bad_config_is_rejected(text):
    with pytest.raises(MrsfError) as info:
        parse_config(text)
    assert info.value.code == "invalid-config"


def test_workspace_root_is_found_upwards(tmp_path):
    (tmp_path / ".git").mkdir()
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    assert find_workspace_root(deep) == tmp_path
    (tmp_path / "a" / ".mrsf.yaml").write_text("")
    assert find_workspace_root(deep) == tmp_path / "a"


def test_locate_from_cwd_and_from_sidecar(tmp_path):
    (tmp_path / ".mrsf.yaml").write_text("sidecar_root: .reviews\n")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("x\n")
    loc = locate("a.md", cwd=tmp_path / "docs")
    assert (loc.root, loc.document, loc.sidecar) == (tmp_path, "docs/a.md", ".reviews/docs/a.md.review.yaml")
    back = locate(".reviews/docs/a.md.review.yaml", cwd=tmp_path)
    assert back.document == "docs/a.md"


def test_json_sidecar_used_when_only_json_exists(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "a.md").write_text("x\n")
    (tmp_path / "a.md.review.json").write_text('{"mrsf_version": "1.0", "document": "a.md", "comments": []}\n')
    assert locate("a.md", cwd=tmp_path).sidecar == "a.md.review.json"
    (tmp_path / "a.md.review.yaml").write_text('mrsf_version: "1.0"\ndocument: a.md\ncomments: []\n')
    assert locate("a.md", cwd=tmp_path).sidecar == "a.md.review.yaml"


def test_sidecar_root_is_the_only_authoritative_location(tmp_path):
    (tmp_path / ".mrsf.yaml").write_text("sidecar_root: .reviews\n")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("line\n")
    ops.add("docs/a.md", author="a", text="in root", root=tmp_path)
    # a stray co-located sidecar is ignored (§3.3: no merging)
    (tmp_path / "docs" / "a.md.review.yaml").write_text(
        'mrsf_version: "1.0"\ndocument: docs/a.md\ncomments:\n  - {id: stray, author: a, timestamp: "2026-01-01T00:00:00Z", text: s, resolved: false}\n')
    assert [c["text"] for c in ops.list_comments(root=tmp_path)["comments"]] == ["in root"]
    assert [c["text"] for c in ops.list_comments("docs", root=tmp_path)["comments"]] == ["in root"]
    assert [c["text"] for c in ops.list_comments("docs/a.md", root=tmp_path)["comments"]] == ["in root"]


def test_find_sidecars_skips_git_and_symlinked_escapes(tmp_path, tmp_path_factory):
    outside = tmp_path_factory.mktemp("out")
    (outside / "x.md.review.yaml").write_text("")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "y.md.review.yaml").write_text("")
    (tmp_path / "a.md.review.yaml").write_text("")
    (tmp_path / "b.md.review.json").write_text("")
    os.symlink(outside / "x.md.review.yaml", tmp_path / "x.md.review.yaml")
    os.symlink(outside, tmp_path / "linkdir")
    assert ops.find_sidecars(root=tmp_path)["sidecars"] == ["a.md.review.yaml", "b.md.review.json"]


@pytest.mark.parametrize("target", ["../x.md", "/etc/passwd", "docs/../../x.md", ""])
def test_escapes_are_refused(tmp_path, target):
    (tmp_path / ".git").mkdir()
    with pytest.raises(MrsfError) as info:
        locate(target, cwd=tmp_path)
    assert info.value.code in ("path-escape", "invalid-argument")


def test_document_field_with_dotdot_is_never_followed(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "a.md").write_text("x\n")
    (tmp_path / "a.md.review.yaml").write_text(
        'mrsf_version: "1.0"\ndocument: ../../etc/passwd\ncomments: []\n')
    loc = locate("a.md.review.yaml", cwd=tmp_path)
    assert loc.document == "a.md"  # the path decides, not the field
    r = ops.validate("a.md.review.yaml", root=tmp_path)
    codes = {w["code"] for w in r["files"][0]["warnings"]}
    assert codes == {"unsafe-document-path", "document-mismatch"}


def test_a_directory_is_not_a_document(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "docs").mkdir()
    with pytest.raises(MrsfError) as info:
        ops.add("docs", author="a", text="t", root=tmp_path)
    assert info.value.code == "invalid-argument"
    assert not (tmp_path / "docs.review.yaml").exists()


def test_a_config_linked_out_of_the_root_is_never_read(tmp_path, tmp_path_factory):
    outside = tmp_path_factory.mktemp("out")
    (outside / "config.yaml").write_text("sidecar_root: /a-value-from-outside\n")
    (tmp_path / "inside.yaml").write_text("sidecar_root: reviews\n")
    (tmp_path / "a.md").write_text("x\n")
    os.symlink(outside / "config.yaml", tmp_path / ".mrsf.yaml")
    with pytest.raises(MrsfError) as info:
        locate("a.md", cwd=tmp_path)
    assert info.value.code == "invalid-config" and "outside the allowed folders" in info.value.message
    assert "a-value-from-outside" not in info.value.message  # refused before it was read
    os.remove(tmp_path / ".mrsf.yaml")
    os.symlink("inside.yaml", tmp_path / ".mrsf.yaml")  # a link to a file inside the root is followed
    assert locate("a.md", cwd=tmp_path).sidecar == "reviews/a.md.review.yaml"
