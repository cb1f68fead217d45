"""Run every benchmark of the repository in turn (``make bench``).

Each benchmark is a standalone script in this folder that prints its own figures.
A script that exits non-zero (for example the re-anchoring scorer missing a target)
makes the whole run exit non-zero, after the others have still run.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

# (script, arguments): the order is the order of the report.
BENCHMARKS: list[tuple[str, list[str]]] = [
    ("mrsf_reanchor.py", []),
    ("mrsf_write.py", []),
    # eight concurrent writers through mrsf-mcp (HTTP, stdio), 400 comments, no lost update
    ("mrsf_load.py", []),
    # what a user runs: CLI and MCP processes, start to sidecar on disk (with peak memory)
    ("mrsf_e2e.py", []),
    # protocol overhead alone (mrsf_help answers from memory), then a call that reads a
    # sidecar and its document from disk (the bundled sample; paths are relative to ROOT)
    ("mcp_latency.py", ["--tool", "mrsf_help", "--args", '{"tool": "mrsf_add"}',
                        "--", sys.executable, "-m", "markmcp.mrsf.server"]),
    ("mcp_latency.py", ["--runs", "3", "--tool", "mrsf_status",
                        "--args", '{"files": ["samples/docs/garden-handbook.md"]}',
                        "--", sys.executable, "-m", "markmcp.mrsf.server"]),
    ("mcp_latency.py", ["--runs", "3", "--tool", "figdown_check",
                        "--args", '{"source": "figdown 0.5 block\\nnode a \\"A\\"\\nnode b \\"B\\"\\nedge a -> b\\n"}',
                        "--", sys.executable, "-m", "markmcp.figdown.server"]),
    ("mcp_latency.py", ["--runs", "3", "--tool", "visimark_check",
                        "--args", '{"path": "samples/visimark/catering-quote.md"}',
                        "--", sys.executable, "-m", "markmcp.visimark.server"]),
    ("mcp_latency.py", ["--servers", "--runs", "11"]),
    # what a server command costs when it does not serve: --help, --version, usage errors
    ("mcp_latency.py", ["--usage-errors", "--runs", "11"]),
    ("figdown_bench.py", []),
    # the renderer in process (inner loop), then layout quality beside upstream's shipped
    # figures (needs FIGDOWN_UPSTREAM = a FigDown checkout; skipped without it)
    ("figdown_render.py", []),
    # what a user runs: figdown build X.fd (process start to X.svg on disk) at realistic
    # and 10x sizes, build DIR, and figdown_build / figdown_check as warm tool calls
    ("figdown_build.py", []),
    ("figdown_layout.py", []),
    # node labels measured in headless Chromium, ours beside upstream's SVGs (needs
    # Playwright, a system Chromium and FIGDOWN_UPSTREAM; skipped, saying why, without them)
    ("figdown_browser.py", []),
    ("visimark_bench.py", []),
    ("visimark_scale.py", []),
    ("visimark_infer_bench.py", []),
    # markmcp check on a generated 5,000-file tree: one worker against every core
    ("markmcp_check.py", []),
]


def main() -> int:
    failed: list[str] = []
    for script, args in BENCHMARKS:
        path = HERE / script
        if not path.exists():
            print(f"== {script}: not present yet, skipped\n", flush=True)
            continue
        print(f"== {script} {' '.join(args)}".rstrip(), flush=True)
        start = time.perf_counter()
        code = subprocess.call([sys.executable, str(path), *args], cwd=ROOT)
        print(f"== {script}: exit {code} after {time.perf_counter() - start:.1f} s\n", flush=True)
        if code:
            failed.append(script)
    if failed:
        print("benchmarks that reported a failure: " + ", ".join(failed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
