"""``samples/demo.py`` (what ``make demo`` runs) works end to end and leaves the samples untouched."""

from __future__ import annotations

import subprocess
import sys

from conftest import ROOT

SAMPLES = ROOT / "samples"


def test_demo_runs_a_full_session_against_a_copy() -> None:
    before = {p: p.read_bytes() for p in sorted((SAMPLES / "docs").rglob("*")) if p.is_file()}
    proc = subprocess.run(
        [sys.executable, str(SAMPLES / "demo.py")], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
    out = proc.stdout
    assert "13 tools:" in out
    assert '"code": "version-mismatch"' in out
    assert '"code": "path-escape"' in out
    assert "gh-shed-key          anchored  line 17 → 21" in out
    assert out.rstrip().endswith("demo finished")
    after = {p: p.read_bytes() for p in sorted((SAMPLES / "docs").rglob("*")) if p.is_file()}
    assert after == before
