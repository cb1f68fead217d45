"""Format preservation of markmcp.mrsf.sidecar, proved on the six upstream example sidecars.

* load + dump with no change is byte-identical;
* appending one comment adds exactly that comment's lines and nothing else;
* updating one field changes exactly that field's line;
* deleting a comment removes exactly its lines and keeps every YAML comment line.

The expected outputs are also stored as golden files in ``golden/`` (regenerate with
``MRSF_REGEN_GOLDEN=1``; a regenerated file must still pass the diff assertions).
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

import pytest

from conftest import shared_dir
from markmcp.mrsf.sidecar import dump, parse_sidecar

GOLDEN = Path(__file__).parent / "golden"
REGEN = os.environ.get("MRSF_REGEN_GOLDEN") == "1"
EXAMPLES = [
    "api-reference", "architecture", "contributing",
    "data-model", "deployment-guide", "security-policy",
]
NEW_COMMENT = {
    "id": "golden-new-0001",
    "author": "Golden Tester (golden)",
    "timestamp": "2026-03-01T12:00:00.000Z",
    "text": "A new comment: with a colon, \"quotes\" and a # hash.",
    "type": "suggestion",
    "resolved": False,
    "line": 2,
    "selected_text": "multi\nline",
    "selected_text_hash": "3a1c0b1e2c1f6c4b0a8f8b5f0f3d9d1c1e7a9f2b3c4d5e6f708192a3b4c5d6e7",
}


def example(name: str) -> tuple[Path, str]:
    path = shared_dir("mrsf", "examples") / f"{name}.md.review.yaml"
    return path, path.read_bytes().decode("utf-8")


def changes(before: str, after: str) -> tuple[list[str], list[str]]:
    """(removed lines, added lines) of a line diff."""
    removed, added = [], []
    for line in difflib.ndiff(before.split("\n"), after.split("\n")):
        if line.startswith("- "):
            removed.append(line[2:])
        elif line.startswith("+ "):
            added.append(line[2:])
    return removed, added


def check_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if REGEN:
        path.write_text(text, encoding="utf-8", newline="")
    assert path.read_bytes().decode("utf-8") == text


def comment_lines(text: str) -> list[str]:
    return sorted(line.strip() for line in text.split("\n") if line.strip().startswith("#"))


@pytest.mark.parametrize("name", EXAMPLES)
def test_unchanged_roundtrip_is_byte_identical(name):
    path, text = example(name)
    sc = parse_sidecar(text, name=str(path))
    assert dump(sc).encode("utf-8") == path.read_bytes()


@pytest.mark.parametrize("name", EXAMPLES)
def test_append_comment_adds_only_its_lines(name):
    path, text = example(name)
    sc = parse_sidecar(text, name=str(path))
    before = [c["id"] for c in sc.comments]
    sc.append_comment(dict(NEW_COMMENT))
    out = dump(sc)
    removed, added = changes(text, out)
    assert removed == []
    assert added[0] == "  - id: golden-new-0001"
    assert added[1:] == [
        "    author: Golden Tester (golden)",
        '    timestamp: "2026-03-01T12:00:00.000Z"',
        '    text: "A new comment: with a colon, \\"quotes\\" and a # hash."',
        "    type: suggestion",
        "    resolved: false",
        "    line: 2",
        '    selected_text: "multi\\nline"',
        '    selected_text_hash: "3a1c0b1e2c1f6c4b0a8f8b5f0f3d9d1c1e7a9f2b3c4d5e6f708192a3b4c5d6e7"',
    ]
    # the original text is a prefix: the new comment is appended at the end
    assert out.startswith(text)
    reparsed = parse_sidecar(out)
    assert [c["id"] for c in reparsed.comments] == before + ["golden-new-0001"]
    assert reparsed.plain()["comments"][-1] == NEW_COMMENT
    check_golden(f"{name}.add.review.yaml", out)


@pytest.mark.parametrize("name", EXAMPLES)
def test_update_changes_only_that_line(name):
    path, text = example(name)
    sc = parse_sidecar(text, name=str(path))
    first = sc.comments[0]
    assert sc.set_field(first, "resolved", not first["resolved"])
    assert sc.set_field(first, "author", first["author"]) is False  # equal: no change
    out = dump(sc)
    removed, added = changes(text, out)
    assert len(removed) == len(added) == 1
    assert removed[0].strip() == f"resolved: {str(first['resolved'] is False).lower()}"
    assert added[0].strip() == f"resolved: {str(first['resolved']).lower()}"
    check_golden(f"{name}.resolve.review.yaml", out)


@pytest.mark.parametrize("name", EXAMPLES)
def test_update_keeps_quote_style(name):
    path, text = example(name)
    sc = parse_sidecar(text, name=str(path))
    first = sc.comments[0]
    old_line = next(line for line in text.split("\n") if line.strip().startswith("timestamp:"))
    quote = old_line.split(":", 1)[1].strip()[0]
    sc.set_field(first, "timestamp", "2030-01-01T00:00:00Z")
    removed, added = changes(text, dump(sc))
    assert removed == [old_line]
    assert added == [old_line.split(":", 1)[0] + f": {quote}2030-01-01T00:00:00Z{quote}"]


@pytest.mark.parametrize("name", EXAMPLES)
def test_delete_each_comment_removes_only_its_lines(name):
    path, text = example(name)
    ids = [c["id"] for c in parse_sidecar(text).comments]
    for index, removed_id in enumerate(ids):
        sc = parse_sidecar(text)
        sc.remove_comment(index)
        out = dump(sc)
        removed, added = changes(text, out)
        assert added == [], (removed_id, added)
        assert any(line.strip() == f"- id: {removed_id}" for line in removed)
        assert comment_lines(out) == comment_lines(text)
        assert [c["id"] for c in parse_sidecar(out).comments] == [i for i in ids if i != removed_id]


def test_new_key_after_trailing_comment_block_goes_before_it():
    """data-model's reply 1 is followed by a comment block about reply 2: a key appended
    to reply 1 must come before that block, not after it."""
    path, text = example("data-model")
    sc = parse_sidecar(text)
    reply = sc.get("t1-reply-0002")
    sc.set_field(reply, "x_reanchor_status", "fuzzy")
    out = dump(sc)
    removed, added = changes(text, out)
    assert removed == [] and added == ["    x_reanchor_status: fuzzy"]
    lines = out.split("\n")
    at = lines.index("    x_reanchor_status: fuzzy")
    assert lines[at - 1] == "    reply_to: t1-parent-0001"
    assert lines[at + 2] == "  # Reply 2: follow-up from original reviewer, also resolved"
    check_golden("data-model.addkey.review.yaml", out)


def test_delete_field_keeps_following_comment_lines():
    path, text = example("data-model")
    sc = parse_sidecar(text)
    parent = sc.get("t1-parent-0001")
    assert sc.delete_field(parent, "commit")  # carries the "# Reply 1" block in ruamel
    out = dump(sc)
    removed, added = changes(text, out)
    assert removed == ['    commit: "4444444444444444"'] and added == []
    assert comment_lines(out) == comment_lines(text)
