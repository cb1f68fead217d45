"""The CLI on hostile files: special files never block or fill memory, `fmt` writes
only the document (never through a planted temporary-file link, keeping its mode and
its symlink), and control characters from a document never reach the terminal raw."""

from __future__ import annotations

import json
import os
import resource
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from markmcp.mcpcore.files import MAX_FILE_BYTES

DRIFTED = """| Item | Qty | Price | Net |
|------|----:|------:|----:|
| Cable | 3 | 12.50 | 37.00 |

```vmark #order
Net = Qty * Price
```
"""


def _cap_memory() -> None:
    # a CLI that reads /dev/zero into memory dies here instead of taking the machine down
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


def run(*args: str, cwd: Path | None = None, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "markmcp.visimark.cli", *args], capture_output=True, text=True,
                          encoding="utf-8", errors="backslashreplace", input=stdin, cwd=cwd, timeout=20,
                          preexec_fn=_cap_memory)


def no_traceback(p: subprocess.CompletedProcess) -> None:
    assert "Traceback" not in p.stderr and "Error:" not in p.stderr.replace("visimark:", ""), p.stderr


@pytest.mark.parametrize("command", ["check", "fmt", "eval", "explain"])
def test_a_device_is_refused_unread(command: str) -> None:
    p = run(command, "/dev/zero")
    assert p.returncode == 2
    assert p.stderr.strip() == "visimark: cannot read /dev/zero (a character device, not a regular file; it is never read)"
    no_traceback(p)


@pytest.mark.parametrize("command", ["check", "fmt", "eval", "explain"])
def test_a_fifo_is_refused_without_blocking(tmp_path: Path, command: str) -> None:
    fifo = tmp_path / "pipe.md"
    os.mkfifo(fifo)
    p = run(command, str(fifo), "--json")
    assert p.returncode == 2
    envelope = json.loads(p.stdout)
    assert envelope["status"] == "error"
    message = (envelope.get("error") or envelope["files"][0]["error"])["message"]
    assert "FIFO" in message and "never read" in message
    no_traceback(p)


def test_a_fifo_scenario_is_refused_without_blocking(tmp_path: Path) -> None:
    doc = tmp_path / "doc.md"
    doc.write_text("```vmark #s\nparam rate precision 2 = 0.25\nx = rate * 2\n```\n")
    fifo = tmp_path / "scenario.json"
    os.mkfifo(fifo)
    p = run("eval", str(doc), "--scenario", str(fifo), "--json")
    assert p.returncode == 2
    error = json.loads(p.stdout)["error"]
    assert error["code"] == "SCENARIO" and "cannot read scenario" in error["message"] and "FIFO" in error["message"]


def test_a_file_over_the_size_limit_is_refused_unread(tmp_path: Path) -> None:
    big = tmp_path / "big.md"
    with open(big, "wb") as out:
        out.truncate(MAX_FILE_BYTES + 1)
    p = run("check", str(big))
    assert p.returncode == 2
    assert f"over the {MAX_FILE_BYTES}-byte limit" in p.stderr
    no_traceback(p)


def test_fmt_never_writes_through_a_planted_temporary_link(tmp_path: Path) -> None:
    doc = tmp_path / "doc.md"
    doc.write_text(DRIFTED)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    planted = tmp_path / "doc.md.visimark-tmp"
    planted.symlink_to(victim)
    p = run("fmt", str(doc))
    assert p.returncode == 0, p.stderr
    assert victim.read_text() == "precious\n"
    assert planted.is_symlink() and os.readlink(planted) == str(victim)
    assert not doc.is_symlink() and "| 37.50 |" in doc.read_text()
    assert sorted(x.name for x in tmp_path.iterdir()) == ["doc.md", "doc.md.visimark-tmp", "victim.txt"]


def test_fmt_keeps_the_documents_mode(tmp_path: Path) -> None:
    doc = tmp_path / "doc.md"
    doc.write_text(DRIFTED)
    doc.chmod(0o600)
    assert run("fmt", str(doc)).returncode == 0
    assert stat.S_IMODE(doc.stat().st_mode) == 0o600
    assert "| 37.50 |" in doc.read_text()


def test_fmt_writes_a_symlinked_document_at_its_target(tmp_path: Path) -> None:
    target = tmp_path / "real.md"
    target.write_text(DRIFTED)
    link = tmp_path / "doc.md"
    link.symlink_to("real.md")
    assert run("fmt", str(link)).returncode == 0
    assert link.is_symlink() and os.readlink(link) == "real.md"
    assert "| 37.50 |" in target.read_text()


def test_fmt_on_a_fifo_writes_nothing(tmp_path: Path) -> None:
    fifo = tmp_path / "doc.md"
    os.mkfifo(fifo)
    p = run("fmt", str(fifo))
    assert p.returncode == 2
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert sorted(x.name for x in tmp_path.iterdir()) == ["doc.md"]


HOSTILE_TEXT = """| Item | Qty | Price | Net |
|------|----:|------:|----:|
| a\x1b[2J\x1b[31mred\u202egnp | 3 | 12.50 | 37.00 |

```vmark #order
Net = Qty * Price
```
"""


def test_control_characters_from_a_document_are_escaped_in_human_output(tmp_path: Path) -> None:
    doc = tmp_path / "doc.md"
    doc.write_text(HOSTILE_TEXT)
    p = run("check", str(doc))
    assert p.returncode == 1
    assert "\x1b" not in p.stdout and "\u202e" not in p.stdout
    assert "a\\x1b[2J\\x1b[31mred\\u202egnp" in p.stdout


def test_json_output_keeps_document_text_exact(tmp_path: Path) -> None:
    doc = tmp_path / "doc.md"
    doc.write_text(HOSTILE_TEXT)
    p = run("check", str(doc), "--json")
    finding = json.loads(p.stdout)["files"][0]["findings"][0]
    assert finding["location"]["row"] == "a\x1b[2J\x1b[31mred\u202egnp"


def test_a_file_name_cannot_forge_report_lines(tmp_path: Path) -> None:
    name = "doc\n  0 problems (0 stale, 0 errors)\x1b[A.md"
    doc = tmp_path / name
    doc.write_text(DRIFTED)
    p = run("check", name, cwd=tmp_path)
    assert p.returncode == 1
    assert "\x1b" not in p.stdout
    assert p.stdout.splitlines()[0] == "doc\\n  0 problems (0 stale, 0 errors)\\x1b[A.md"
    p = run("fmt", name, cwd=tmp_path)
    assert p.stdout.splitlines()[0] == "doc\\n  0 problems (0 stale, 0 errors)\\x1b[A.md: updated 1 cell"
