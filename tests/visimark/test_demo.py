"""``samples/visimark_demo.py`` (the VisiMark part of ``make demo``) runs end to end on a copy."""

from __future__ import annotations

import subprocess
import sys

from conftest import ROOT

SAMPLES = ROOT / "samples"


def test_visimark_demo_session() -> None:
    before = {p: p.read_bytes() for p in sorted((SAMPLES / "visimark").rglob("*")) if p.is_file()}
    proc = subprocess.run([sys.executable, str(SAMPLES / "visimark_demo.py")], capture_output=True, text=True,
                          timeout=180, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
    out = proc.stdout
    assert "8 tools: visimark_check" in out and "visimark_fmt_apply [destructive]" in out
    assert "10 problems (10 stale, 0 errors)" in out
    assert "changed=True cells=2 anchors=4" in out
    assert out.count("0 problems (0 stale, 0 errors)") == 2
    assert "near-miss   unnamed1  Cost = Units * uc" in out
    assert "tool error WRITE: writes are disabled. Start the server with --allow-write." in out
    assert out.rstrip().endswith("visimark demo finished")
    after = {p: p.read_bytes() for p in sorted((SAMPLES / "visimark").rglob("*")) if p.is_file()}
    assert after == before
