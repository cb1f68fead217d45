"""``markmcp check`` attacked through everything it reads or derives beyond the files it walks.

``test_attack_check.py`` plants at the documents, sources, artifacts and ``.gitignore``
files the walk meets.  Here the plants sit where an engine goes from there:

* MRSF: a sidecar whose document is a symlink out, a FIFO or too large; the lock file
  and the temporary file ``--fix`` re-anchoring would use (a symlink to the victim, a
  FIFO, a folder, a dangling link); a ``.mrsf.yaml`` whose ``sidecar_root`` leads out
  (``../``, absolute, through a symlinked folder), that is itself a symlink to a file
  outside or a FIFO; a sidecar naming ``document: ../outside/…``.
* VisiMark: an ``import`` of a CSV outside (``../``, absolute, a symlinked CSV), a FIFO
  or huge CSV; a chart's SVG that is a symlink, a FIFO, a folder, a dangling link, or
  lies in a symlinked folder; a document symlinked in from outside.
* FigDown: a folder at the artifact path; a source in a symlinked folder, whose
  artifact would be written through it.
* A ``.gitignore`` that is a symlink to a file outside (git does not read it; nor does
  the check).
* Names holding a newline, ``ESC [``, a carriage return, C1 controls, a bidirectional
  override or a line separator: the text report, the progress line, the JSON envelope
  and the SARIF log show them inert (escaped) and never forge a line; JSON values stay
  exact and the SARIF log valid.
* Paths named on the command line that a symlink leads out of the tree.
* A loop of symlinked folders and a tree nested past the system's path limit.
* ``--changed-since`` in a git repository holding plants.

For each: nothing outside changes or appears, the secret never shows, every command
ends (each has a timeout) with exit 1 (findings) and no traceback, and ``--fix`` writes
through no plant and replaces none.  Commands run with ``--jobs 2`` (a worker pool:
every repository here has enough files for one) and ``--jobs 1`` (in this process).
"""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import pytest
from jsonschema import Draft7Validator

from check.test_sarif import SARIF_RULES
from conftest import required_tool
from markmcp.check.tree import system_top
from markmcp.figdown.render import build
from markmcp.mcpcore.files import MAX_FILE_BYTES

from .hostile import SECRET, Hostile

TIMEOUT = 120
SECRET_WORD = SECRET.strip()
FIGURE = 'figdown 0.1 block\nnode a "A"\nnode b "B"\nedge a -> b\n'
STALE_SHEET = (
    "| Item | Qty | Price | Total |\n|---|---:|---:|---:|\n| Pens | 2 | 1.50 | 3.00 |\n| Ink | 3 | 2.00 | 7.00 |\n\n"
    "```vmark #lines\nTotal = Qty * Price\nsum = SUM(Total)\n```\n\nThe order comes to **10.00**<!--vmark=lines.sum-->.\n"
)
IMPORTING = "```vmark #t from {path}\ntotal = SUM(Sales)\n```\n\nSales come to **8**<!--vmark=t.total-->.\n"
CHARTED = ("| Month | Sales |\n|---|---:|\n| Jan | 3 |\n| Feb | 5 |\n\n```vmark #s\nchart bars as bar of Sales "
           "labelled Month\n```\n\n![Sales]({path})<!--vmark=s.bars-->\n")
PAGE = "# Notes\n\nThe first line to review.\n"
MOVED_PAGE = "# Notes\n\nAn introduction.\n\nThe first line to review.\n"
#: Raw characters no output may carry (the layout's own newline aside).
UNSAFE = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def sidecar(document: str) -> str:
    return (f"mrsf_version: '1.0'\ndocument: {document}\ncomments:\n  - id: c1\n    author: A\n"
            "    timestamp: '2026-01-01T10:00:00Z'\n    text: t\n    resolved: false\n    line: 3\n"
            "    selected_text: The first line to review.\n")


def run_check(root: Path, *args: str, stderr: int | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "markmcp.check.cli", "check", *args], cwd=root,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE if stderr is None else stderr,
                          text=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL)


def assert_safe(done: subprocess.CompletedProcess[str], code: int = 1) -> None:
    output = done.stdout + (done.stderr or "")
    assert done.returncode == code, (done.returncode, done.stderr, done.stdout[-3000:])
    assert "Traceback" not in output, done.stderr
    assert SECRET_WORD not in output


class Repo:
    """A hostile repository, the state of what lies outside it, and its plants' ``lstat``."""

    def __init__(self, hostile: Hostile) -> None:
        self.h = hostile
        self.root = hostile.root
        self.outside_before = hostile.outside_snapshot()
        self.plants = {path: path.lstat() for path in hostile.planted}

    def assert_outside_untouched(self) -> None:
        assert self.h.victim.read_text() == SECRET
        assert self.h.outside_snapshot() == self.outside_before

    def assert_plants_kept(self, *gone: str) -> None:
        """Every plant is what it was (no write through it, no replacement), except the
        ones named in ``gone`` (a killed writer's temporary file, removed as a link)."""
        for path, was in self.plants.items():
            if path.name in gone:
                continue
            now = path.lstat()
            assert (now.st_ino, now.st_mode, now.st_mtime_ns, now.st_size) == \
                (was.st_ino, was.st_mode, was.st_mtime_ns, was.st_size), path


@pytest.fixture
def derived(tmp_path: Path) -> Repo:
    h = Hostile.create(tmp_path)
    out = h.outside
    (out / "victim.csv").write_text(f"Month,Sales\n{SECRET_WORD},3\n")
    (out / "doc.md").write_text(STALE_SHEET)                       # a VisiMark document --fix would rewrite
    (out / "mrsf.yaml").write_text(f"sidecar_root: /{SECRET_WORD}\n")  # a config whose value would be echoed
    (out / "notes.md.review.yaml").write_text(sidecar("notes.md"))
    (out / "a.fd").write_text(FIGURE + "# newer\n")
    (out / "a.svg").write_text(build(FIGURE).svg or "")             # stale: a --fix through the link would rebuild it
    os.mkfifo(out / "away.md")                                      # blocks whoever opens it carelessly
    h.write(".mrsf.yaml", "# the workspace root\n")
    # MRSF: the sidecar's document
    h.link_to_victim("m-link.md")
    h.write("m-link.md.review.yaml", sidecar("m-link.md"))
    h.fifo("m-fifo.md")
    h.write("m-fifo.md.review.yaml", sidecar("m-fifo.md"))
    h.huge("m-huge.md", MAX_FILE_BYTES + 1)
    h.write("m-huge.md.review.yaml", sidecar("m-huge.md"))
    h.write("m-away.md", PAGE)
    h.write("m-away.md.review.yaml", sidecar("../outside/away.md"))
    # MRSF: what --fix re-anchoring derives (each comment would move from line 3 to 5)
    for name in ("r-ok", "r-lock-link", "r-lock-fifo", "r-lock-dir", "r-lock-dangling", "r-temp"):
        h.write(f"{name}.md", MOVED_PAGE)
        h.write(f"{name}.md.review.yaml", sidecar(f"{name}.md"))
    h.link_to_victim(".r-lock-link.md.review.yaml.lock")
    h.fifo(".r-lock-fifo.md.review.yaml.lock")
    h._at(".r-lock-dir.md.review.yaml.lock").mkdir()
    h.dangling_link(".r-lock-dangling.md.review.yaml.lock", "lock-created")
    h.link_to_victim(".r-temp.md.review.yaml.0123456789abcdef.tmp")  # a killed writer's leftover, by its name
    # MRSF: .mrsf.yaml (each folder is its own workspace)
    for folder, config in (("cfg-up", "sidecar_root: ../outside\n"), ("cfg-abs", f"sidecar_root: {out}\n"),
                           ("cfg-link", "sidecar_root: revs\n")):
        h.write(f"{folder}/.mrsf.yaml", config)
    for folder in ("cfg-up", "cfg-abs", "cfg-link", "cfg-leak", "cfg-fifo"):
        h.write(f"{folder}/notes.md", MOVED_PAGE)
        h.write(f"{folder}/notes.md.review.yaml", sidecar("notes.md"))
    h.link_to_folder_outside("cfg-link/revs")
    (h._at("cfg-leak/.mrsf.yaml")).symlink_to(out / "mrsf.yaml")
    h.fifo("cfg-fifo/.mrsf.yaml")
    # VisiMark: imports
    for name, path in (("v-up", "../outside/victim.csv"), ("v-abs", str(out / "victim.csv")),
                       ("v-link", "link.csv"), ("v-fifo", "fifo.csv"), ("v-huge", "huge.csv")):
        h.write(f"{name}.md", IMPORTING.format(path=path))
    (h._at("link.csv")).symlink_to(out / "victim.csv")
    h.fifo("fifo.csv")
    h.huge("huge.csv", MAX_FILE_BYTES + 1, fill=b"1,")
    # VisiMark: chart artifacts --fix would write, and a document linked in from outside
    for name, path in (("c-link", "c-link.svg"), ("c-fifo", "c-fifo.svg"), ("c-dir", "c-dir.svg"),
                       ("c-dangling", "c-dangling.svg"), ("c-folder", "charts/c.svg"), ("c-up", "../outside/c.svg")):
        h.write(f"{name}.md", CHARTED.format(path=path))
    h.link_to_victim("c-link.svg")
    h.fifo("c-fifo.svg")
    h._at("c-dir.svg").mkdir()
    h.dangling_link("c-dangling.svg", "chart-created.svg")
    h.link_to_folder_outside("charts")
    (h._at("v-in.md")).symlink_to(out / "doc.md")
    # FigDown: a folder at the artifact path; a source reached through a symlinked folder
    h.write("f-dir.fd", FIGURE)
    h._at("f-dir.svg").mkdir()
    h.link_to_folder_outside("figures")
    # a .gitignore linked to a file outside (git reads no symlinked .gitignore; neither does the check)
    (out / "rules").write_text("*.md\n")
    h.write("ig/x.md", STALE_SHEET)
    (h._at("ig/.gitignore")).symlink_to(out / "rules")
    return Repo(h)


def test_check_reads_nothing_it_derives_outside(derived: Repo) -> None:
    text = run_check(derived.root, "--jobs", "2")
    assert_safe(text)
    for name in ("m-link.md", "m-fifo.md", "m-huge.md", "v-in.md", "f-dir.svg", "cfg-up/notes.md.review.yaml",
                 "cfg-abs/notes.md.review.yaml", "cfg-leak/notes.md.review.yaml", "cfg-fifo/notes.md.review.yaml"):
        assert f"NOT READ — {name}\n" in text.stdout, name
    assert "cfg-leak/.mrsf.yaml' resolves to" in text.stdout  # the config linked out is refused, not read
    assert not [line for line in text.stdout.split("\n") if "away.md" in line and "FIFO" in line]  # never opened
    for name, why in (("v-up", "escapes the document's directory"), ("v-abs", "must be relative"),
                      ("v-link", "through a symlink out"), ("v-fifo", "FIFO"), ("v-huge", "over the"),
                      ("c-link", "through a symlink out"), ("c-fifo", "FIFO"), ("c-dir", "directory"),
                      ("c-dangling", "through a symlink out"), ("c-folder", "through a symlink out"),
                      ("c-up", "escapes the document's directory")):
        block = ("\n" + text.stdout).split(f"\n{name}.md\n", 1)[1].split("problem", 1)[0]
        assert why in block, (name, block)
    assert "figures" not in text.stdout and "cfg-link/revs" not in text.stdout  # symlinked folders: not entered
    assert "\nig/x.md\n" in text.stdout  # checked: the linked .gitignore was not read
    data = json.loads(run_check(derived.root, "--jobs", "1", "--json").stdout)
    assert data["status"] == "findings"
    mrsf = {entry.get("sidecar", entry.get("path")): entry for entry in data["mrsf"]["files"]}
    assert mrsf["m-away.md.review.yaml"]["reanchor"]["counts"] == {"anchored": 1}  # against m-away.md, not outside
    assert {w["path"] for w in mrsf["m-away.md.review.yaml"]["warnings"]} == {"/document"}
    assert data["mrsf"]["summary"]["unreadable"] == 5  # m-link and the four workspaces whose config is refused
    sarif = run_check(derived.root, "--jobs", "2", "--format", "sarif")
    assert_safe(sarif)
    assert not list(Draft7Validator(SARIF_RULES).iter_errors(json.loads(sarif.stdout)))
    derived.assert_outside_untouched()
    derived.assert_plants_kept()


def test_fix_writes_through_no_plant(derived: Repo) -> None:
    first = run_check(derived.root, "--jobs", "1", "--fix")
    assert_safe(first)
    second = run_check(derived.root, "--jobs", "2", "--fix", "--json")
    assert_safe(second)
    derived.assert_outside_untouched()
    derived.assert_plants_kept(".r-temp.md.review.yaml.0123456789abcdef.tmp")
    assert not (derived.root / ".r-temp.md.review.yaml.0123456789abcdef.tmp").is_symlink()  # removed as a link
    assert "fixed r-ok.md.review.yaml: re-anchored c1 (anchored, line 3 → 5)" in first.stdout
    assert "fixed r-temp.md.review.yaml: re-anchored c1" in first.stdout
    assert "fixed cfg-link/notes.md.review.yaml: re-anchored c1" in first.stdout  # co-located, in its own folder
    for name, why in (("r-lock-link", "the lock file is a symbolic link"),
                      ("r-lock-fifo", "the lock file is a FIFO"), ("r-lock-dir", "is a directory"),
                      ("r-lock-dangling", "the lock file is a symbolic link")):
        block = first.stdout.split(f"✗ {name}.md.review.yaml\n", 1)[1].split("\n\n", 1)[0]
        assert why in block, (name, block)
        assert (derived.root / f"{name}.md.review.yaml").read_text() == sidecar(f"{name}.md")
    assert "fixed c-" not in first.stdout and "fixed f-dir" not in first.stdout and "fixed v-in" not in first.stdout
    data = json.loads(second.stdout)
    assert [item["path"] for item in data["fixed"]] == []  # everything that could be fixed was, the first time
    assert sorted(p.name for p in derived.root.iterdir() if p.name.endswith(".tmp")) == []


def test_named_paths_a_symlink_leads_out_are_not_read(derived: Repo) -> None:
    """Naming a file or folder does not let a symlink in its path lead the check out."""
    done = run_check(derived.root, "--jobs", "1", "--fix", "v-in.md", "m-link.md", "figures/a.fd", "c-link.svg")
    assert_safe(done)
    for name in ("v-in.md", "figures/a.fd"):
        assert f"NOT READ — {name}\n  path '{name}' resolves to" in done.stdout
    folder = run_check(derived.root, "--jobs", "1", "--fix", "figures")
    assert_safe(folder, code=2)
    assert "'figures' resolves to" in folder.stderr and "not walked" in folder.stderr
    inside = run_check(derived.root / "cfg-link", "--jobs", "1", "notes.md", str(derived.root / "r-ok.md"))
    assert_safe(inside)  # named paths without a symlink in them are checked wherever they lie
    assert "would move from line 3 to 5" in inside.stdout and "NOT READ" not in inside.stdout
    derived.assert_outside_untouched()
    derived.assert_plants_kept()


def test_only_the_systems_own_top_level_links_are_followed(tmp_path: Path) -> None:
    """A named path outside the working folder is confined to the tree it lies in. macOS
    reaches ``/tmp`` through a root-made link, so that link is followed: stopping there
    would make ``/`` the tree. A link planted deeper is never followed."""
    planted = tmp_path / "planted"
    planted.symlink_to(tmp_path / "elsewhere")
    assert system_top(planted / "doc.md") == (Path("/"), (planted / "doc.md").parts[1:])
    links = sorted(p for p in Path("/").iterdir() if p.is_symlink() and p.lstat().st_uid == 0)
    if not links:
        pytest.skip("this machine's / holds no link of the system's to follow")
    assert system_top(links[0] / "a" / "b") == (Path(os.path.realpath(links[0])), ("a", "b"))


# --- names ----------------------------------------------------------------------------------

NAMES = ("nl\nFORGED-nl", "esc\x1b[31mFORGED-esc", "cr\rFORGED-cr", "c1\x9b31mFORGED-c1",
         "bidi\u202eFORGED-bidi", "sep\u2028FORGED-sep")


@pytest.fixture
def named(tmp_path: Path) -> Repo:
    h = Hostile.create(tmp_path)
    for name in NAMES:
        h.write(f"{name}.md", STALE_SHEET)                        # --fix: "fixed NAME.md: updated …"
        h.write(f"{name}.md.review.yaml", "mrsf_version: '1.0'\ndocument: x\ncomments: [}\n")
        h.write(f"{name}/bad.fd", FIGURE + "frobnicate\n")         # a parse failure inside a folder of that name
        h.write(f"{name}.fd", FIGURE + "# newer\n")
        h.write(f"{name}.svg", build(FIGURE).svg or "")           # stale: --fix rebuilds it
        h.fifo(f"{name}-pipe.md")
    return Repo(h)


def _no_forged_line(text: str) -> None:
    assert not UNSAFE.search(text), sorted({hex(ord(c)) for c in UNSAFE.findall(text)})
    forged = [line for line in text.split("\n") if line.lstrip().startswith("FORGED")]
    assert not forged, forged


def test_names_are_shown_inert_in_every_output(named: Repo) -> None:
    text = run_check(named.root, "--jobs", "2")
    assert_safe(text)
    _no_forged_line(text.stdout + text.stderr)
    assert "NOT READ — nl\\nFORGED-nl-pipe.md\n" in text.stdout
    assert "PARSE FAILED — 1 diagnostic(s) in esc\\x1b[31mFORGED-esc/bad.fd" in text.stdout
    report = run_check(named.root, "--jobs", "1", "--json")
    assert_safe(report)
    _no_forged_line(report.stdout)
    data = json.loads(report.stdout)
    assert {entry["path"] for entry in data["visimark"]["files"]} == \
        {f"{name}{tail}" for name in NAMES for tail in (".md", "-pipe.md")}  # the values stay exact
    sarif = run_check(named.root, "--jobs", "2", "--format", "sarif")
    assert_safe(sarif)
    _no_forged_line(sarif.stdout)
    log = json.loads(sarif.stdout)
    assert not list(Draft7Validator(SARIF_RULES).iter_errors(log))
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in log["runs"][0]["results"]}
    assert "nl%0AFORGED-nl.md" in uris and "bidi%E2%80%AEFORGED-bidi.fd" in uris
    fixed = run_check(named.root, "--jobs", "2", "--fix")
    assert_safe(fixed)
    _no_forged_line(fixed.stdout + fixed.stderr)
    assert "fixed nl\\nFORGED-nl.md: updated" in fixed.stdout
    assert "fixed cr\\rFORGED-cr.fd: rebuilt cr\\rFORGED-cr.svg" in fixed.stdout
    named.assert_outside_untouched()


def test_the_progress_line_carries_no_name(named: Repo) -> None:
    """On a terminal the progress line is drawn on standard error; it counts, and names nothing."""
    leader, follower = pty.openpty()
    try:
        done = run_check(named.root, "--jobs", "2", stderr=follower)
    finally:
        os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the other end is closed: all read
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    shown = b"".join(chunks).decode("utf-8", "replace")
    assert_safe(done)
    assert "files" in shown and "FORGED" not in shown  # the bar was drawn, with counts only
    assert not UNSAFE.search(shown.replace("\r", "")), shown


# --- loops, depth, git ------------------------------------------------------------------------


def test_a_folder_loop_and_a_tree_past_the_path_limit(tmp_path: Path) -> None:
    h = Hostile.create(tmp_path)
    h.write(".gitignore", "*.tmp\n")
    h.write("a/b/x.md", STALE_SHEET)
    (h._at("loop")).symlink_to(".", target_is_directory=True)
    (h._at("a/b/up")).symlink_to("../../a", target_is_directory=True)
    folder = os.open(h.root, os.O_RDONLY)
    try:
        # 400 folders "d", then 18 of 250-character names: deep, and past the 4,096 characters
        # a path may have (shallow enough for the recursive removal of pytest's old folders)
        for depth, name in enumerate(["d"] * 400 + ["e" * 250] * 18):
            os.mkdir(name, dir_fd=folder)
            deeper = os.open(name, os.O_RDONLY, dir_fd=folder)
            os.close(folder)
            folder = deeper
            if depth == 100:
                fd = os.open("deep.md", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=folder)
                os.write(fd, STALE_SHEET.encode())
                os.close(fd)
    finally:
        os.close(folder)
    for jobs in ("1", "2"):
        done = run_check(h.root, "--jobs", jobs, "--format", "sarif")
        assert_safe(done)
        log = json.loads(done.stdout)
        assert not list(Draft7Validator(SARIF_RULES).iter_errors(log))
        found = {(r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].count("d/"))
                 for r in log["runs"][0]["results"]}
        assert ("visimark/STALE", 101) in found  # the document deep down is checked
        assert any(rule == "folder/not-read:invalid-path" for rule, _ in found)  # the folder past the limit is said
        assert not any("loop" in r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                       for r in log["runs"][0]["results"])
    text = run_check(h.root, "--jobs", "1", "--only", "mrsf")
    assert_safe(text)
    assert "a name in the path is too long" in text.stdout  # said whatever the engines chosen
    assert "; 1 folder(s) could not be read" in text.stdout  # and counted as a folder, not a file
    h.assert_untouched()


def test_changed_since_in_a_hostile_git_repository(derived: Repo) -> None:
    git = required_tool("git")
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(derived.h.outside.parent),
           "GIT_AUTHOR_NAME": "A", "GIT_AUTHOR_EMAIL": "a@example.org", "GIT_COMMITTER_NAME": "A",
           "GIT_COMMITTER_EMAIL": "a@example.org"}

    def run_git(*args: str) -> None:
        subprocess.run([git, *args], cwd=derived.root, env=env, check=True, capture_output=True, timeout=TIMEOUT)

    run_git("init", "-q")
    run_git("add", "-A")  # the plants are committed too (git keeps symlinks; FIFOs it leaves out)
    run_git("commit", "-q", "-m", "hostile")
    for name in ("r-ok.md", "c-link.md", "v-up.md", "m-away.md"):
        (derived.root / name).write_text((derived.root / name).read_text() + "\nChanged.\n")
    derived.h.link_to_victim("new-leak.md")
    derived.h.fifo("new-pipe.md")
    derived.h.link_to_victim("new-leak.md.review.yaml")
    derived.plants = {path: path.lstat() for path in derived.h.planted}
    text = run_check(derived.root, "--jobs", "1", "--changed-since", "HEAD")
    assert_safe(text)
    for name in ("new-leak.md", "new-pipe.md", "new-leak.md.review.yaml"):
        assert f"NOT READ — {name}\n" in text.stdout, name
    fixed = run_check(derived.root, "--jobs", "2", "--changed-since", "HEAD", "--fix", "--json")
    assert_safe(fixed)
    data = json.loads(fixed.stdout)
    assert {item["path"] for item in data["fixed"]} == {"r-ok.md.review.yaml"}
    derived.assert_outside_untouched()
    derived.assert_plants_kept()
