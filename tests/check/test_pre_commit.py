"""The pre-commit hooks (.pre-commit-hooks.yaml) work in a real pre-commit run.

The manifest is validated by pre-commit itself; then a throwaway git repository runs
the hooks through ``pre-commit run`` on what is staged.  There the hooks are declared
``repo: local`` with ``language: system`` (the manifest's own id, entry and file
pattern, run with this environment's ``markmcp``), so the test needs no network and
builds no environment; ``language: python`` in the manifest is what makes pre-commit
install markmcp for a team's repository.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from ruamel.yaml import YAML

from conftest import ROOT, required_tool

from .test_check import FIGURE, SHEET, STALE_SHEET, write

MANIFEST = ROOT / ".pre-commit-hooks.yaml"


def _tool(name: str) -> str:
    return required_tool(name, path=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
                         hint=" (pip install -e '.[test]')")


def _env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
            "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"), "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org",
            "NO_COLOR": "1"}


def _hooks() -> list[dict]:
    return YAML(typ="safe").load(MANIFEST.read_text(encoding="utf-8"))


def test_the_manifest_is_valid_for_pre_commit(tmp_path: Path) -> None:
    done = subprocess.run([_tool("pre-commit"), "validate-manifest", str(MANIFEST)], capture_output=True, text=True,
                          env=_env(tmp_path), timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    hooks = _hooks()
    assert [hook["id"] for hook in hooks] == ["markmcp-check", "markmcp-check-visimark", "markmcp-check-figdown",
                                              "markmcp-check-mrsf"]
    assert all(hook["language"] == "python" and hook["entry"].startswith("markmcp check") for hook in hooks)


def test_the_hooks_run_in_a_repository(tmp_path: Path) -> None:
    git, pre_commit = _tool("git"), _tool("pre-commit")
    repo = tmp_path / "repo"
    repo.mkdir()
    env = _env(tmp_path)

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(list(args), cwd=repo, capture_output=True, text=True, env=env, timeout=300)

    local = [{**hook, "language": "system"} for hook in _hooks()]
    config = {"repos": [{"repo": "local", "hooks": local}]}
    with (repo / ".pre-commit-config.yaml").open("w", encoding="utf-8") as stream:
        YAML().dump(config, stream)
    assert run(git, "init", "-q").returncode == 0
    write(repo / "docs" / "order.md", SHEET)
    write(repo / "figs" / "f.fd", FIGURE)
    run(git, "add", "-A")
    first = run(pre_commit, "run")
    assert first.returncode == 0, first.stdout + first.stderr
    assert "markmcp check (MRSF)" in first.stdout
    assert run(git, "commit", "-q", "--no-verify", "-m", "start").returncode == 0

    write(repo / "docs" / "order.md", STALE_SHEET)
    run(git, "add", "docs/order.md")
    stale = run(pre_commit, "run")
    assert stale.returncode == 1, stale.stdout + stale.stderr
    lines = {line.split("...")[0].strip(): line.rsplit(".", 1)[-1].strip()
             for line in stale.stdout.splitlines() if "..." in line}
    assert lines["markmcp check"] == "Failed" and lines["markmcp check (VisiMark)"] == "Failed"
    assert lines["markmcp check (FigDown)"] == "(no files to check)Skipped"
    assert "STALE   lines.Total" in stale.stdout  # VisiMark's words reach the committer

    write(repo / "docs" / "order.md", SHEET)
    run(git, "add", "docs/order.md")
    again = run(pre_commit, "run")
    assert again.returncode == 0, again.stdout + again.stderr
