"""Benchmark: the MRSF concurrent-writer load test at its acceptance size.

Eight clients add 50 comments each (400 in all) to one sidecar through ``mrsf-mcp``,
passing ``expectedVersion`` and retrying on conflicts: once through one server over
streamable HTTP, once through eight stdio servers, each on a YAML and a JSON sidecar.
Every comment must arrive exactly once, in each client's order, and the sidecar must
validate; the test suite runs the same test with 8 comments per client, each set-up on
one format.  This script runs
``tests/mrsf/test_server_load.py`` with pytest at the full size and prints each set-up's
time, adds per second and conflicts retried.  Exit status: pytest's.

Run: .venv/bin/python bench/mrsf_load.py [--per-client N]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--per-client", type=int, default=50, help="comments each of the eight clients adds (default 50)")
    args = parser.parse_args(argv)
    env = {**os.environ, "MARKMCP_LOAD_PER_CLIENT": str(args.per_client), "MARKMCP_LOAD_ALL": "1"}
    command = [sys.executable, "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider",
               "tests/mrsf/test_server_load.py", "-k", "eight"]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    lines = [line for line in done.stdout.splitlines() if line.startswith("load[")]
    print(f"MRSF load: 8 clients x {args.per_client} comments, expectedVersion and retries")
    for line in lines:
        print("  " + line)
    if done.returncode != 0:
        print(done.stdout[-4000:])
        print(done.stderr[-2000:], file=sys.stderr)
    else:
        print(f"  every comment present once, in order, sidecar valid ({len(lines)} set-ups)")
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
