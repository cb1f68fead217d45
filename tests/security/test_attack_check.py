"""``markmcp check`` (and ``--fix``) on a hostile repository.

Planted at the paths the check reads or derives — documents, FigDown sources, the
``X.svg`` beside a source, a chart artifact, a sidecar, a ``.gitignore`` — are symlinks
to a file outside, dangling links, links to a folder outside, FIFOs, device links and
files over the size limit.  Whatever is planted: nothing outside changes or appears,
the secret never shows in any output, nothing hangs, no traceback; the command ends
with exit 1 (what it could not read is a finding), never by crashing.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from markmcp.figdown.render import build
from markmcp.mcpcore.files import MAX_FILE_BYTES

from .hostile import SECRET, Hostile

FIGURE = 'figdown 0.1 block\nnode a "A"\nnode b "B"\nedge a -> b\n'
SHEET = (
    "| Item | Qty | Price | Total |\n|---|---:|---:|---:|\n| Pens | 2 | 1.50 | 3.00 |\n| Ink | 3 | 2.00 | 7.00 |\n\n"
    "```vmark #lines\nTotal = Qty * Price\nsum = SUM(Total)\n```\n\nThe order comes to **10.00**<!--vmark=lines.sum-->.\n"
)
CHART = ("| Month | Sales |\n|---|---:|\n| Jan | 3 |\n| Feb | 5 |\n\n```vmark #s\nchart bars = bar(Month, Sales)\n```\n\n"
         "![Sales](sales.svg)<!--vmark=s.bars-->\n")
PAGE = "# Notes\n\nThe first line to review.\n"
SIDECAR = ("mrsf_version: '1.0'\ndocument: notes.md\ncomments:\n  - id: c1\n    author: A\n"
           "    timestamp: '2026-01-01T10:00:00Z'\n    text: t\n    resolved: false\n    line: 3\n"
           "    selected_text: The first line to review.\n")


def _run(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "markmcp.check.cli", "check", "--jobs", "2", *args], cwd=root,
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)


@pytest.fixture
def hostile(tmp_path: Path) -> Hostile:
    repo = Hostile.create(tmp_path)
    repo.write("ok.md", SHEET)
    repo.write("fig.fd", FIGURE)
    repo.write("notes.md", PAGE)
    repo.write("notes.md.review.yaml", SIDECAR)
    # documents and sources that are not what they seem
    repo.link_to_victim("leak.md")
    repo.link_to_victim("leak.fd")
    repo.link_to_victim("leak.md.review.yaml")
    repo.dangling_link("dangling.md")
    repo.link_to_folder_outside("linked")
    repo.fifo("pipe.md")
    repo.fifo("pipe.fd")
    repo.fifo("pipe.review.yaml")
    repo.device_link("zero.md")
    repo.huge("huge.md", MAX_FILE_BYTES + 1)
    # derived paths: the artifact of a source, a chart image, a .gitignore
    repo.write("a.fd", FIGURE)
    repo.link_to_victim("a.svg")
    repo.write("b.fd", FIGURE)
    repo.fifo("b.svg")
    repo.write("c.fd", FIGURE)
    repo.dangling_link("c.svg", name="c-created.svg")
    repo.write("d.fd", FIGURE + "# newer\n")
    repo.write("d.svg", build(FIGURE).svg or "")  # stale: --fix rebuilds this one, and only this one
    repo.write("charts/report.md", CHART)
    repo.link_to_victim("charts/sales.svg")
    repo.fifo("sub/.gitignore")
    repo.write("sub/x.md", SHEET)
    return repo


def test_check_reads_nothing_outside_and_never_hangs(hostile: Hostile) -> None:
    done = _run(hostile.root)
    assert done.returncode == 1, done.stderr
    assert SECRET.strip() not in done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    for name in ("leak.md", "leak.fd", "leak.md.review.yaml", "pipe.md", "pipe.fd", "zero.md", "huge.md"):
        assert f"NOT READ — {name}" in done.stdout, name
    assert "linked" not in done.stdout  # a symlinked folder is not entered
    hostile.assert_untouched()


def test_fix_writes_through_nothing_planted(hostile: Hostile) -> None:
    before = {path: path.lstat() for path in hostile.planted}
    done = _run(hostile.root, "--fix")
    assert done.returncode == 1, done.stderr
    assert SECRET.strip() not in done.stdout + done.stderr and "Traceback" not in done.stderr
    hostile.assert_untouched()
    for path, stat in before.items():  # every plant is still what it was (no write through, no replacement)
        now = path.lstat()
        assert (now.st_ino, now.st_mode, now.st_mtime_ns) == (stat.st_ino, stat.st_mode, stat.st_mtime_ns), path
    assert "fixed d.fd: rebuilt d.svg" in done.stdout
    assert "fixed ok.md: updated" in done.stdout
    assert not (hostile.outside / "c-created.svg").exists()
