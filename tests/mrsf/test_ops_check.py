"""ops.check: what validate and reanchor say of one sidecar, from one reading of it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from markmcp.mrsf import discovery, ops, sidecar, store
from markmcp.mrsf.errors import MrsfError

DOC = "# Notes\n\nAn opening line.\n\nThe first line to review.\nSomething else.\n"


def comment(cid: str, line: int, text: str, *, resolved: bool = False) -> str:
    return (f"  - id: {cid}\n    author: A\n    timestamp: '2026-01-01T10:00:00Z'\n    text: t\n"
            f"    resolved: {'true' if resolved else 'false'}\n    line: {line}\n    selected_text: {text}\n")


SIDECAR = ("mrsf_version: '1.0'\ndocument: a.md\ncomments:\n" + comment("moves", 3, "The first line to review.")
           + comment("gone", 4, "A line nobody wrote.") + comment("gone-resolved", 4, "Also never there.", resolved=True))


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    (tmp_path / ".mrsf.yaml").write_text("", encoding="utf-8")
    (tmp_path / "a.md").write_text(DOC, encoding="utf-8")
    (tmp_path / "a.md.review.yaml").write_text(SIDECAR, encoding="utf-8")
    return tmp_path


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the sidecars parsed from now on."""
    seen: list[str] = []
    real = sidecar.parse_sidecar

    def counting(text: str, **kwargs):  # type: ignore[no-untyped-def]
        seen.append(kwargs.get("name") or "")
        return real(text, **kwargs)

    monkeypatch.setattr(store, "parse_sidecar", counting)
    store.clear_caches()
    return seen


def test_check_says_what_validate_and_a_dry_reanchor_say(ws: Path) -> None:
    entry = ops.validate([ws / "a.md.review.yaml"], root=ws)["files"][0]
    dry = ops.reanchor(ws / "a.md.review.yaml", root=ws, dry_run=True, use_git=False)
    checked = ops.check(ws / "a.md.review.yaml", root=ws, use_git=False)
    assert {key: checked[key] for key in ("valid", "errors", "warnings", "version")} == \
        {key: entry[key] for key in ("valid", "errors", "warnings", "version")}
    assert checked["reanchor"] == dry and checked["reanchorError"] is None
    assert [r["status"] for r in dry["results"]] == ["anchored", "orphaned", "orphaned"]
    assert checked["resolved"] == ["gone-resolved"]
    assert checked["sidecar"] == "a.md.review.yaml" and checked["documentPath"] == str(ws / "a.md")
    assert (ws / "a.md.review.yaml").read_text(encoding="utf-8") == SIDECAR  # a dry run writes nothing


def test_check_reads_and_parses_the_sidecar_once(ws: Path, parses: list[str]) -> None:
    ops.check(ws / "a.md.review.yaml", root=ws, use_git=False)
    assert parses == [str(ws / "a.md.review.yaml")]


def test_check_with_fix_writes_what_reanchor_writes_from_its_one_parse(ws: Path, tmp_path_factory: pytest.TempPathFactory,
                                                                     parses: list[str]) -> None:
    other = tmp_path_factory.mktemp("other")
    for name in (".mrsf.yaml", "a.md", "a.md.review.yaml"):
        (other / name).write_bytes((ws / name).read_bytes())
    fixed = ops.check(ws / "a.md.review.yaml", root=ws, fix=True, use_git=False)
    assert parses == [str(ws / "a.md.review.yaml")]  # the transaction took the parse the check made
    real = ops.reanchor(other / "a.md.review.yaml", root=other, use_git=False)
    assert fixed["reanchor"]["written"] and fixed["reanchor"]["results"] == real["results"]
    assert (ws / "a.md.review.yaml").read_bytes() == (other / "a.md.review.yaml").read_bytes() != SIDECAR.encode()
    assert not [p for p in os.listdir(ws) if p.endswith(".lock")]


def test_a_parse_is_not_used_once_the_file_changed(ws: Path) -> None:
    path = ws / "a.md.review.yaml"
    early = store.load(path)
    path.write_text(SIDECAR.replace("id: moves", "id: renamed"), encoding="utf-8")
    handed: list[object] = []

    def change(sc):  # type: ignore[no-untyped-def]
        handed.append(sc)
        return None, None

    store.transact(path, change, parsed=early)
    assert handed[0] is not early.sidecar and handed[0].comments[0]["id"] == "renamed"


def test_an_invalid_or_unparsable_sidecar_is_not_reanchored(ws: Path) -> None:
    path = ws / "a.md.review.yaml"
    path.write_text("mrsf_version: '1.0'\ndocument: a.md\ncomments:\n  - id: x\n", encoding="utf-8")
    invalid = ops.check(path, root=ws, use_git=False)
    assert not invalid["valid"] and invalid["reanchor"] is None and invalid["resolved"] == []
    assert {e["code"] for e in invalid["errors"]} == {"missing-field"}
    path.write_text("mrsf_version: '1.0'\ndocument: a.md\ncomments: [}\n", encoding="utf-8")
    broken = ops.check(path, root=ws, use_git=False)
    assert not broken["valid"] and broken["reanchor"] is None
    assert [(e["code"], e["line"]) for e in broken["errors"]] == [("malformed-yaml", 3)]


def test_a_missing_document_is_a_reanchor_error(ws: Path) -> None:
    (ws / "a.md").unlink()
    checked = ops.check(ws / "a.md.review.yaml", root=ws, use_git=False)
    assert checked["valid"] and checked["reanchor"] is None
    assert checked["reanchorError"] == {"code": "not-found", "message": "document not found: a.md"}


def test_a_sidecar_that_cannot_be_read_raises(ws: Path) -> None:
    (ws / "a.md.review.yaml").unlink()
    os.mkfifo(ws / "a.md.review.yaml")
    with pytest.raises(MrsfError) as caught:
        ops.check(ws / "a.md.review.yaml", root=ws, use_git=False)
    assert caught.value.code == "not-regular"


def test_select_passes_over_a_sidecar_before_it_is_parsed(ws: Path, parses: list[str]) -> None:
    asked: list[str] = []

    def select(where):  # type: ignore[no-untyped-def]
        asked.append(where["documentPath"])
        return False

    checked = ops.check(ws / "a.md.review.yaml", root=ws, use_git=False, select=select)
    assert checked["skipped"] is True and "reanchor" not in checked
    assert asked == [str(ws / "a.md")] and parses == []


def test_a_config_text_is_parsed_once_but_read_every_time(ws: Path) -> None:
    (ws / ".mrsf.yaml").write_text("sidecar_root: reviews\n", encoding="utf-8")
    first = discovery.load_config(ws)
    assert first.sidecar_root == "reviews" and discovery.load_config(ws) is first
    (ws / ".mrsf.yaml").write_text("sidecar_root: other\n", encoding="utf-8")
    assert discovery.load_config(ws).sidecar_root == "other"
    (ws / ".mrsf.yaml").write_text("sidecar_root: [\n", encoding="utf-8")
    for _ in range(2):  # an error is raised every time, never remembered as a config
        with pytest.raises(MrsfError, match="malformed YAML"):
            discovery.load_config(ws)
