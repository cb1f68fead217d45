"""Shared texts and helpers for the MRSF command-line and server tests.

One small document with a sidecar of three comments (a parent, its reply, and an
issue anchored to a phrase by columns), plus the helpers both suites use to set up a
folder and to compare or read what the tools left on disk.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

DOC = "# Title\n\nFirst paragraph line one.\nSecond line with a target phrase in it.\n\n## Section\n\nLast line.\n"

SIDECAR = """mrsf_version: "1.0"
document: doc.md
comments:
  - id: c1
    author: Alice
    timestamp: "2026-01-01T00:00:00Z"
    text: Parent comment
    resolved: false
    line: 3
    selected_text: "First paragraph line one."
  - id: c2
    author: Bob
    timestamp: "2026-01-01T00:01:00Z"
    text: A reply
    resolved: false
    reply_to: c1
  - id: c3
    author: Carol
    timestamp: "2026-01-01T00:02:00Z"
    text: About the phrase
    type: issue
    severity: high
    resolved: false
    line: 4
    start_column: 19
    end_column: 32
    selected_text: "target phrase"
"""


def write_pair(folder: Path) -> Path:
    """Write doc.md and its sidecar (3 comments) into ``folder``; return the folder."""
    (folder / "doc.md").write_text(DOC, encoding="utf-8")
    (folder / "doc.md.review.yaml").write_text(SIDECAR, encoding="utf-8")
    return folder


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file's bytes, except the engine's (empty) ``.<sidecar>.lock`` lock files."""
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and not (p.name.startswith(".") and p.name.endswith(".lock"))
    }


def sidecar_data(path: Path) -> Any:
    """A sidecar file parsed as plain YAML data (no MRSF checks)."""
    from ruamel.yaml import YAML

    return YAML(typ="safe").load(path.read_text(encoding="utf-8"))
