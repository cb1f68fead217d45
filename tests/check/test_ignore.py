"""The .gitignore matcher agrees with git itself.

Each case is a set of .gitignore files (by folder) and paths; git's own verdict comes
from ``git check-ignore`` in a throwaway repository holding exactly those files, so the
expectations are git's, not ours.  Without git in CI the test fails (it is part of the
toolchain there); elsewhere it is skipped visibly.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from conftest import required_tool
from markmcp.check.ignore import Ignorer, compile_rule

CASES: list[tuple[dict[str, str], list[str]]] = [
    ({"": "build/\n*.tmp\n"},
     ["build/x.md", "docs/build/y.md", "build", "a.tmp", "deep/er/b.tmp", "buildx/z.md", "docs/a.md"]),
    ({"": "/top.md\ndocs/*.md\n!docs/keep.md\n"},
     ["top.md", "sub/top.md", "docs/a.md", "docs/keep.md", "docs/sub/a.md", "other/docs/a.md"]),
    ({"": "**/gen/**\nlogs/**/*.log\n**/cache\n"},
     ["gen/a.md", "x/gen/b/c.md", "logs/a.log", "logs/x/y/b.log", "logs/b.md", "cache", "a/b/cache/c.md",
      "generated/a.md"]),
    ({"": "*.md\n", "docs": "!important.md\n"},
     ["a.md", "docs/important.md", "docs/other.md", "x/important.md"]),
    ({"": "# comment\n\n\\#hash.md\n\\!bang.md\ntrailing.md   \nspace\\ .md\n"},
     ["#hash.md", "!bang.md", "trailing.md", "space .md", "comment"]),
    ({"": "fig-[0-9].fd\nfig-[!0-9].svg\nq?.md\n"},
     ["fig-1.fd", "fig-a.fd", "fig-1.svg", "fig-a.svg", "q1.md", "q12.md"]),
    ({"": "docs/\n!docs/a.md\n"}, ["docs/a.md", "docs/b.md"]),
    ({"sub": "/only-here.md\nnested/deep.md\n"},
     ["sub/only-here.md", "sub/x/only-here.md", "only-here.md", "sub/nested/deep.md", "sub/a/nested/deep.md"]),
]


def _git() -> str:
    return required_tool("git")


def _git_verdicts(tmp: Path, ignores: dict[str, str], paths: list[str]) -> dict[str, bool]:
    git = _git()
    subprocess.run([git, "init", "-q", str(tmp)], check=True)
    for folder, text in ignores.items():
        (tmp / folder).mkdir(parents=True, exist_ok=True)
        (tmp / folder / ".gitignore").write_text(text, encoding="utf-8")
    for path in paths:
        target = tmp / path
        if path in ("build", "cache"):
            target.mkdir(parents=True, exist_ok=True)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("x\n", encoding="utf-8")
    verdicts = {}
    for path in paths:
        done = subprocess.run([git, "check-ignore", "-q", "--no-index", path], cwd=tmp)
        assert done.returncode in (0, 1), done
        verdicts[path] = done.returncode == 0
    return verdicts


def _ours(ignores: dict[str, str], path: str, tmp: Path) -> bool:
    """Our verdict the way the walk reaches it: an ignored folder above hides the path."""
    rules = Ignorer()
    for folder, text in ignores.items():
        rules.add(folder, text)
    parts = path.split("/")
    for k in range(1, len(parts)):
        if rules.ignored("/".join(parts[:k]), True):
            return True
    return rules.ignored(path, (tmp / path).is_dir())


@pytest.mark.parametrize("ignores, paths", CASES, ids=[f"case{k}" for k in range(len(CASES))])
def test_verdicts_match_git(tmp_path: Path, ignores: dict[str, str], paths: list[str]) -> None:
    expected = _git_verdicts(tmp_path, ignores, paths)
    got = {path: _ours(ignores, path, tmp_path) for path in paths}
    assert got == expected


def test_blank_and_comment_lines_are_no_rules() -> None:
    assert compile_rule("") is None
    assert compile_rule("   ") is None
    assert compile_rule("# note") is None
    assert compile_rule("!") is None
    rule = compile_rule("\\#x")
    assert rule is not None and rule.regex.fullmatch("#x")


def test_an_unclosed_bracket_is_a_literal() -> None:
    rule = compile_rule("a[b.md")
    assert rule is not None
    assert rule.regex.fullmatch("a[b.md") and not rule.regex.fullmatch("ab.md")
