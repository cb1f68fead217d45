"""``markmcp check``: what it finds, in each engine's words; what --fix repairs; the walk;
exit codes; the JSON envelope.  Run in process with one worker (``--jobs 1``) unless
a test is about the pool."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from markmcp.check import cli
from markmcp.figdown.render import build, read_artifact, sha256
from markmcp.mrsf import ops

SHEET = (
    "| Item | Qty | Price | Total |\n|---|---:|---:|---:|\n| Pens | 2 | 1.50 | 3.00 |\n| Ink | 3 | 2.00 | 6.00 |\n\n"
    "```vmark #lines\nTotal = Qty * Price\nsum = SUM(Total)\n```\n\nThe order comes to **9.00**<!--vmark=lines.sum-->.\n"
)
STALE_SHEET = SHEET.replace("| 6.00 |", "| 7.00 |").replace("**9.00**", "**10.00**")
FIGURE = 'figdown 0.1 block\nnode a "A"\nnode b "B"\nedge a -> b\n'
PAGE = "# Notes\n\nThe first line to review.\nThe second line.\n"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def check(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = cli.main(["check", "--jobs", "1", *args])
    out, err = capsys.readouterr()
    return code, out, err


def envelope(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    code, out, _ = check(capsys, "--json", *args)
    return code, json.loads(out)


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


# --- clean, and the summary ---------------------------------------------------------------------


def test_a_clean_tree_exits_0_with_one_summary_line(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tree / "docs" / "order.md", SHEET)
    write(tree / "docs" / "plain.md", "# Just prose\n")
    write(tree / "figs" / "f.fd", FIGURE)
    write(tree / "notes.md", PAGE)
    ops.add("notes.md", author="Ada", text="Why?", line=3, root=tree)
    code, out, err = check(capsys)
    assert (code, err) == (0, "")
    assert out == "checked 3 file(s) (VisiMark 1, FigDown 1, MRSF 1): 3 clean, 0 with findings\n"


def test_an_empty_tree_is_clean(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = check(capsys)
    assert (code, out) == (0, "checked 0 file(s): 0 clean, 0 with findings\n")


# --- VisiMark -----------------------------------------------------------------------------------


def test_visimark_findings_in_visimark_words_and_fix(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = write(tree / "order.md", STALE_SHEET)
    code, out, _ = check(capsys)
    assert code == 1
    assert "order.md\n\n  STALE   lines.Total     · Ink" in out  # VisiMark's own check report
    assert "7.00 ≠ 6.00" in out
    assert out.endswith("checked 1 file(s) (VisiMark 1): 0 clean, 1 with findings; "
                        "2 finding(s) (2 error(s), 0 warning(s))\n")  # the anchor roll-up is no finding
    code, out, _ = check(capsys, "--fix")
    assert code == 0
    assert "fixed order.md: updated 1 cell(s), 1 anchor(s)" in out
    assert doc.read_text(encoding="utf-8") == SHEET
    assert check(capsys)[0] == 0


def test_markdown_without_vmark_is_passed_over(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tree / "readme.md", "# Title\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```python\nvmark = 1\n```\n")
    code, data = envelope(capsys)
    assert code == 0
    assert data["summary"]["files"] == 0 and data["summary"]["skipped"] == 1


def test_a_visimark_error_has_its_line(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tree / "bad.md", SHEET.replace("sum = SUM(Total)", "sum = SUM(Totl)"))
    code, data = envelope(capsys)
    assert code == 1
    [undef] = [f for f in data["findings"] if f["code"] == "UNDEF"]
    assert undef["engine"] == "visimark" and undef["file"] == "bad.md" and undef["level"] == "error"
    assert undef["line"] == 8 and undef["message"].startswith("lines.sum unknown name `Totl`")
    assert data["visimark"]["files"][0]["findings"][0]["code"] == "UNDEF"  # VisiMark's own JSON shape


# --- FigDown ------------------------------------------------------------------------------------


def test_figdown_diagnostics_and_stale_artifacts(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tree / "bad.fd", FIGURE + "frobnicate\n")
    source = write(tree / "fig.fd", FIGURE)
    svg = write(tree / "fig.svg", build(FIGURE.replace('"B"', '"Before"')).svg or "")
    write(tree / "hand.fd", FIGURE)
    hand = write(tree / "hand.svg", "<svg xmlns='http://www.w3.org/2000/svg'/>")
    code, out, _ = check(capsys)
    assert code == 1
    assert "PARSE FAILED — 1 diagnostic(s) in bad.fd\nLine 5:" in out
    assert ("fig.svg\n  STALE ARTIFACT: fig.fd has changed since fig.svg was built. The .fd is truth — rebuild."
            in out)
    # an .svg FigDown did not build is not its artifact: said (as `figdown build --check` does), not failed
    assert "NOT OURS — hand.svg\n  hand.svg exists and is not a FigDown artifact" in out
    code, out, _ = check(capsys, "--fix")
    assert code == 1  # bad.fd still fails
    assert "fixed fig.fd: rebuilt fig.svg" in out
    assert read_artifact(svg.read_text(encoding="utf-8")).recorded_sha256 == sha256(source.read_text(encoding="utf-8"))
    assert hand.read_text(encoding="utf-8") == "<svg xmlns='http://www.w3.org/2000/svg'/>"
    code, data = envelope(capsys, "fig.fd")
    assert code == 0 and data["figdown"]["documents"][0]["artifact"] == {"path": "fig.svg", "status": "current"}
    code, data = envelope(capsys, "hand.fd")
    assert code == 0  # a warning that does not fail
    [(level, code_, file, line, fails)] = [(f["level"], f["code"], f["file"], f["line"], f["fails"])
                                           for f in data["findings"]]
    assert (level, code_, file, line, fails) == ("warning", "not-ours", "hand.fd", 1, False)
    write(tree / "lone.fd", FIGURE)  # no .svg at all: nothing to say (it may not be built yet)
    code, data = envelope(capsys, "lone.fd")
    assert code == 0 and data["findings"] == []


def test_a_stale_artifact_is_located_on_its_source(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tree / "figures" / "net.fd", FIGURE)
    write(tree / "figures" / "net.svg", build(FIGURE.replace('"B"', '"Before"')).svg or "")
    code, data = envelope(capsys)
    assert code == 1
    [stale] = data["findings"]
    assert (stale["file"], stale["line"], stale["code"]) == ("figures/net.fd", 1, "stale-artifact")
    assert stale["message"].startswith("STALE ARTIFACT: figures/net.fd has changed since figures/net.svg was built")
    write(tree / "figures" / "net.fd", FIGURE + "frobnicate\n")  # now it fails to parse too: two blocks
    code, out, _ = check(capsys)
    assert "Line 5: " in out and "\n\nfigures/net.svg\n  STALE ARTIFACT" in out  # a blank line between them


def test_a_prose_anchor_roll_up_is_not_a_finding(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """"N prose anchors bound to the values above" sums up anchors that are findings
    already: VisiMark's own report keeps it, the findings (and SARIF) do not repeat it."""
    doc = STALE_SHEET.replace("**10.00**<!--vmark=lines.sum-->.", "**10.00**<!--vmark=lines.sum--> and "
                              "again **10.00**<!--vmark=lines.sum-->.")
    write(tree / "order.md", doc)
    code, out, _ = check(capsys)
    assert code == 1 and "prose anchors bound to the values above" in out
    code, data = envelope(capsys)
    assert all(isinstance(f["line"], int) for f in data["findings"]), data["findings"]
    assert not any("bound to the values above" in f["message"] for f in data["findings"])
    assert data["summary"]["findings"] == len(data["findings"])


def test_an_empty_figure_is_clean_with_a_warning(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tree / "empty.fd", "# to be drawn\n")
    code, out, _ = check(capsys, "empty.fd")
    assert code == 0
    assert out.startswith("EMPTY — empty.fd\n  no header and nothing declared")
    code, data = envelope(capsys, "empty.fd")
    assert code == 0
    assert [(f["level"], f["code"], f["fails"]) for f in data["findings"]] == [("warning", "empty", False)]


def test_the_totals_count_every_finding_shown(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A warning that does not fail is still counted (by level), and its file is not called
    clean; the failing ones are counted apart; JSON's totals agree with its list."""
    write(tree / "empty.fd", "# to be drawn\n")
    write(tree / "bad.fd", FIGURE + "frobnicate\n")
    write(tree / "ok.fd", FIGURE)
    code, out, _ = check(capsys)
    assert code == 1
    assert out.endswith("checked 3 file(s) (FigDown 3): 1 clean, 1 with findings, 1 with only findings that do "
                        "not fail; 2 finding(s) (1 error(s), 1 warning(s)), 1 failing\n")
    code, data = envelope(capsys)
    numbers = data["summary"]
    assert numbers["findings"] == len(data["findings"]) == 2
    assert (numbers["errors"], numbers["warnings"], numbers["notes"], numbers["failing"]) == (1, 1, 0, 1)
    assert (numbers["clean"], numbers["withFindings"], numbers["withNonFailing"]) == (1, 1, 1)
    section = data["figdown"]["summary"]  # the engine's section counts its files the same way
    assert (section["clean"], section["withFindings"], section["withNonFailing"]) == (1, 1, 1)
    code, out, _ = check(capsys, "empty.fd")
    assert code == 0  # exit codes unchanged: nothing fails
    assert out.endswith("0 clean, 0 with findings, 1 with only findings that do not fail; "
                        "1 finding(s) (0 error(s), 1 warning(s)), 0 failing\n")


def test_a_named_svg_checks_its_source(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tree / "fig.fd", FIGURE)
    write(tree / "fig.svg", build(FIGURE + "# older\n").svg or "")
    code, data = envelope(capsys, "fig.svg")
    assert code == 1 and data["summary"]["byEngine"]["figdown"] == 1
    assert data["findings"][0]["file"] == "fig.fd"  # a stale artifact is located on its source


# --- MRSF ---------------------------------------------------------------------------------------


def test_mrsf_comments_that_would_move_or_be_orphaned(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    page = write(tree / "notes.md", PAGE)
    ops.add("notes.md", author="Ada", text="Why?", line=3, id="c1", root=tree)
    ops.add("notes.md", author="Ada", text="And this?", line=4, id="c2", root=tree)
    sidecar = tree / "notes.md.review.yaml"
    before = sidecar.read_bytes()
    page.write_text("# Notes\n\nA new opening line.\n\nThe first line to review.\nSomething else.\n", encoding="utf-8")
    code, out, _ = check(capsys)
    assert code == 1
    assert "✗ notes.md.review.yaml" in out
    assert "↕ c1:3 — would move from line 3 to 5 (Exact text match (unique))\n" in out  # the move said once
    assert "✗ c2:4 — would be orphaned" in out
    assert sidecar.read_bytes() == before  # a check writes nothing
    assert sorted(p.name for p in tree.iterdir()) == ["notes.md", "notes.md.review.yaml"]  # no lock file left
    code, data = envelope(capsys)
    levels = {f["code"]: (f["level"], f["file"], f["line"]) for f in data["findings"]}
    assert levels["reanchor:moved"] == ("warning", "notes.md", 5)  # where the text is now, not its old line
    assert levels["reanchor:orphaned"] == ("error", "notes.md", 4)
    code, out, _ = check(capsys, "--fix")
    assert code == 1  # the orphan needs a person
    assert "fixed notes.md.review.yaml: re-anchored c1 (anchored, line 3 → 5)" in out
    comments = {c["id"]: c for c in ops.read("notes.md", root=tree)["data"]["comments"]}
    assert comments["c1"]["line"] == 5 and comments["c2"]["x_reanchor_status"] == "orphaned"
    ops.resolve("notes.md", ["c2"], root=tree)
    code, out, _ = check(capsys)
    assert code == 0, out  # a resolved comment that lost its place fails nothing


def test_an_invalid_sidecar_is_reported_by_the_validator(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tree / "notes.md", PAGE)
    write(tree / "notes.md.review.yaml", "mrsf_version: '1.0'\ndocument: notes.md\ncomments:\n  - id: x\n")
    code, data = envelope(capsys)
    assert code == 1
    codes = {f["code"] for f in data["findings"]}
    assert "missing-field" in codes
    entry = data["mrsf"]["files"][0]
    assert entry["valid"] is False and entry["errors"] and "reanchor" not in entry


def test_mrsf_messages_name_the_sidecar_as_the_report_does(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tree / "docs" / "notes.md", PAGE)
    write(tree / "docs" / "notes.md.review.yaml", "mrsf_version: '1.0'\ndocument: notes.md\ncomments: [\n")
    code, out, _ = check(capsys)
    assert code == 1 and "ERROR: docs/notes.md.review.yaml: malformed YAML" in out and str(tree) not in out
    code, data = envelope(capsys)
    assert [f["message"].split(":")[0] for f in data["findings"]] == ["docs/notes.md.review.yaml"]


def test_a_named_document_brings_its_sidecar(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tree / "notes.md", PAGE)
    ops.add("notes.md", author="Ada", text="Why?", line=3, root=tree)
    code, data = envelope(capsys, "notes.md")
    assert code == 0 and data["summary"]["byEngine"]["mrsf"] == 1


# --- the walk -----------------------------------------------------------------------------------


def test_gitignore_git_and_node_modules_are_honoured(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tree / ".gitignore", "build/\n*.draft.md\n!keep.draft.md\n")
    for path in ("build/a.md", "x.draft.md", "node_modules/pkg/b.md", ".git/c.md", "docs/build/d.md"):
        write(tree / path, STALE_SHEET)
    write(tree / "keep.draft.md", STALE_SHEET)
    write(tree / "docs" / ".gitignore", "local.md\n")
    write(tree / "docs" / "local.md", STALE_SHEET)
    code, data = envelope(capsys)
    assert [entry["path"] for entry in data["visimark"]["files"]] == ["keep.draft.md"]
    code, data = envelope(capsys, "build/a.md")  # named directly: checked whatever the rules say
    assert [entry["path"] for entry in data["visimark"]["files"]] == ["build/a.md"]


def test_symlinks_do_not_lead_out_of_the_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    outside = tmp_path / "outside"
    write(outside / "secret.md", STALE_SHEET.replace("Pens", "SECRET-PENS"))
    tree = tmp_path / "tree"
    write(tree / "ok.md", SHEET)
    (tree / "leak.md").symlink_to(outside / "secret.md")
    (tree / "linked").symlink_to(outside, target_is_directory=True)
    monkeypatch.chdir(tree)
    code, out, _ = check(capsys)
    assert code == 1
    assert "NOT READ — leak.md" in out and "outside the allowed folders" in out
    assert "SECRET" not in out and "linked" not in out


def test_a_fifo_is_refused_without_blocking(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    os.mkfifo(tree / "pipe.md")
    write(tree / "ok.md", SHEET)
    code, data = envelope(capsys)
    assert code == 1
    assert data["summary"]["unreadable"] == 1
    [problem] = [f for f in data["findings"]]
    assert problem["file"] == "pipe.md" and problem["code"] == "not-read:not-regular"


# --- exit 2 -------------------------------------------------------------------------------------


@pytest.mark.parametrize("args, message", [
    (["missing"], "markmcp check: missing: no such file or folder\n"),
    (["--shard", "3/2"], "markmcp check: --shard 3/2: I must be between 1 and N (for example 2/4)\n"),
    (["--shard", "x"], "markmcp check: --shard wants I/N (for example 2/4), not 'x'\n"),
    (["--json", "--format", "sarif"], "markmcp check: --json and --format sarif disagree; give one\n"),
])
def test_could_not_run_is_exit_2(tree: Path, capsys: pytest.CaptureFixture[str], args: list[str],
                                 message: str) -> None:
    code, out, err = check(capsys, *args)
    assert (code, out, err) == (2, "", message)


def test_a_named_file_no_engine_checks_is_said(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A mistyped target does not pass silently: a named file no engine owns is warned about
    on standard error; when nothing named is left to check, the check could not run (exit 2)."""
    write(tree / "stock.csv", "Item,Qty\n")
    write(tree / "order.md", SHEET)
    foreign = ("stock.csv: no engine checks a file of this kind (Markdown, a .fd source, the .svg built from "
               "one, a .review.yaml or .review.json sidecar)")
    code, out, err = check(capsys, "stock.csv")
    assert (code, out, err) == (2, "", f"markmcp check: {foreign}; nothing to check\n")
    code, out, err = check(capsys, "stock.csv", "order.md")
    assert code == 0 and err == f"markmcp check: warning: {foreign}; not checked\n"
    assert out == "checked 1 file(s) (VisiMark 1): 1 clean, 0 with findings\n"
    write(tree / "picture.svg", "<svg xmlns='http://www.w3.org/2000/svg'/>")
    assert check(capsys, "picture.svg") == (0, "checked 0 file(s): 0 clean, 0 with findings\n", "")  # a picture


def test_a_usage_error_is_exit_2(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = check(capsys, "--only", "latex")
    assert code == 2 and "choose from visimark, figdown, mrsf" in err and "Traceback" not in err


def test_an_engine_that_fails_is_exit_2_and_named(tree: Path, capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from markmcp.check import engines

    def broken(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(engines, "check_figdown", broken)
    write(tree / "f.fd", FIGURE)
    write(tree / "ok.md", SHEET)
    code, out, err = check(capsys)
    assert code == 2 and err == ""
    assert "COULD NOT CHECK — f.fd\n  the figdown check failed on this file: RuntimeError: boom" in out
    assert "1 could not be checked" in out


def test_only_chooses_engines(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tree / "bad.fd", FIGURE + "frobnicate\n")
    write(tree / "order.md", STALE_SHEET)
    code, data = envelope(capsys, "--only", "figdown")
    assert code == 1 and data["summary"]["byEngine"] == {"visimark": 0, "figdown": 1, "mrsf": 0}


# --- the envelope -------------------------------------------------------------------------------


def test_the_json_envelope_has_a_section_per_engine(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tree / "order.md", STALE_SHEET)
    write(tree / "f.fd", FIGURE)
    write(tree / "notes.md", PAGE)
    ops.add("notes.md", author="Ada", text="Why?", line=3, root=tree)
    code, data = envelope(capsys)
    assert code == 1
    assert list(data) == ["command", "markmcp", "status", "summary", "visimark", "figdown", "mrsf", "findings",
                          "fixed"]
    assert data["status"] == "findings"
    assert data["visimark"]["summary"] == {"files": 1, "clean": 0, "withFindings": 1, "withNonFailing": 0,
                                           "unreadable": 0, "crashed": 0, "problems": 3, "stale": 3, "errors": 0}
    assert data["figdown"]["documents"][0]["label"] == "f.fd" and data["figdown"]["documents"][0]["ok"] is True
    assert data["mrsf"]["files"][0]["reanchor"]["counts"] == {"anchored": 1}
    assert data["summary"]["byEngine"] == {"visimark": 1, "figdown": 1, "mrsf": 1}
    assert data["summary"]["skipped"] == 1  # notes.md itself: Markdown, not VisiMark


def test_a_file_named_twice_or_named_and_walked_is_checked_once(tree: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    write(tree / "order.md", STALE_SHEET)
    code, data = envelope(capsys, "order.md", "./order.md", str(tree / "order.md"))
    assert code == 1 and data["summary"]["files"] == 1
    code, data = envelope(capsys, "order.md", ".")
    assert [entry["path"] for entry in data["visimark"]["files"]] == ["order.md"]


def test_a_symlink_inside_the_tree_is_reported_not_read(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A symlinked file is not read, nor written through by --fix, even when its target is
    in the tree: its target is checked once, under its own name."""
    write(tree / "real" / "q.md", STALE_SHEET)
    write(tree / "real" / "r.fd", FIGURE + "frobnicate\n")
    write(tree / "real" / "notes.md", PAGE)
    ops.add(tree / "real" / "notes.md", author="Ada", text="Why?", line=3, root=tree)
    (tree / "docs").mkdir()
    (tree / "docs" / "q.md").symlink_to("../real/q.md")
    (tree / "docs" / "link.fd").symlink_to("../real/r.fd")
    (tree / "docs" / "notes.md.review.yaml").symlink_to("../real/notes.md.review.yaml")
    code, data = envelope(capsys)
    assert code == 1
    unread = {f["file"]: f["code"] for f in data["findings"] if f["code"].startswith("not-read")}
    assert unread == {"docs/q.md": "not-read:symlink", "docs/link.fd": "not-read:symlink",
                      "docs/notes.md.review.yaml": "not-read:symlink"}
    assert {f["file"] for f in data["findings"] if f["code"] == "STALE"} == {"real/q.md"}  # once, not twice
    assert [f["file"] for f in data["findings"] if f["code"] == "parse"] == ["real/r.fd"]
    code, out, _ = check(capsys, "--fix", "docs")
    assert "NOT READ — docs/q.md\n" in out and "fixed" not in out  # (outside docs/, the folder walked)
    assert (tree / "real" / "q.md").read_text(encoding="utf-8") == STALE_SHEET  # never written through
    code, out, _ = check(capsys, "--fix", "docs/q.md")  # named: the same
    assert code == 1 and "NOT READ — docs/q.md\n  docs/q.md is a symbolic link" in out
    assert (tree / "real" / "q.md").read_text(encoding="utf-8") == STALE_SHEET


def test_a_folder_that_could_not_be_read_is_not_counted_as_a_file() -> None:
    from markmcp.check import report
    from markmcp.check.findings import FOLDER, outcome, unreadable

    outcomes = [outcome("visimark", "ok.md", status="clean"),
                unreadable("figdown", "pipe.fd", "not-regular", "not a regular file"),
                unreadable(FOLDER, "deep/er", "invalid-path", "a name in the path is too long")]
    numbers = report.summary(outcomes)
    assert (numbers["files"], numbers["unreadable"], numbers["foldersNotRead"]) == (2, 1, 1)
    assert numbers["findings"] == 2  # the folder's finding is still one of them
    assert report.summary_line(numbers) == (
        "checked 2 file(s) (VisiMark 1, FigDown 1): 1 clean, 0 with findings, 1 not read; "
        "1 folder(s) could not be read; 2 finding(s) (2 error(s), 0 warning(s))")
    assert report.exit_code(outcomes) == 1


def test_encoded_outcomes_make_the_same_envelope_and_carry_only_the_json(tree: Path) -> None:
    """What a worker sends the parent with --json (report.encode_parts) is the JSON text and
    what the summaries count; the envelope made of it is the one made of whole outcomes."""
    from markmcp.check import report
    from markmcp.check.engines import run_task

    write(tree / "ok.md", SHEET)
    write(tree / "stale.md", STALE_SHEET)
    write(tree / "plain.md", PAGE)
    write(tree / "f.fd", FIGURE + "# newer\n")
    (tree / "f.svg").write_text(build(FIGURE).svg or "", encoding="utf-8")
    write(tree / "notes.md", "# Notes\n\nA new opening line.\n\nThe first line to review.\nSomething else.\n")
    write(tree / "notes.md.review.yaml", "mrsf_version: '1.0'\ndocument: notes.md\ncomments:\n"
          + "".join(f"  - id: {cid}\n    author: A\n    timestamp: '2026-01-01T10:00:00Z'\n    text: t\n"
                    f"    resolved: false\n    line: {line}\n    selected_text: {text}\n"
                    for cid, line, text in (("c1", 3, "The first line to review."), ("c2", 4, "Gone."))))
    write(tree / "bad.md.review.yaml", "mrsf_version: '1.0'\ndocument: bad.md\ncomments: [}\n")
    os.mkfifo(tree / "pipe.md")
    tasks = [(engine, str(tree / name), name) for engine, name in (
        ("visimark", "ok.md"), ("visimark", "stale.md"), ("visimark", "plain.md"), ("visimark", "pipe.md"),
        ("figdown", "f.fd"), ("mrsf", "notes.md.review.yaml"), ("mrsf", "bad.md.review.yaml"))]
    whole = [run_task(task) for task in tasks]
    assert {item["status"] for item in whole} == {"clean", "findings", "skipped", "unreadable"}
    encoded = [report.encode_parts(dict(item)) for item in whole]
    for item in encoded:
        if item["status"] != "skipped":
            assert item["data"] is None and item["report"] is None and report.PARTS in item
            assert all(set(f) == {"level", "fails"} for f in item["findings"])
    text = report.envelope_text(encoded)
    assert text == report.envelope_text(whole) == report.json_text(report.envelope(whole))
    body = json.loads(text)
    assert body["mrsf"]["summary"]["comments"] == {"anchored": 1, "orphaned": 1}
    assert body["figdown"]["summary"]["artifacts"] == {"current": 0, "stale": 1, "rebuilt": 0}
    assert body["visimark"]["summary"]["problems"] >= 1
