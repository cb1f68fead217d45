"""Charts: the worked example reproduced byte for byte, staleness, fmt, and every refusal."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import shared_dir
from markmcp.visimark.check import check
from markmcp.visimark.disk import DocumentFolder
from markmcp.visimark.model import build
from markmcp.visimark.port import MemoryFiles
from markmcp.visimark.report import format_check
from markmcp.visimark.write import fmt

SVGS = {
    "performance": "example-charts-sales.svg",
    "trend": "example-charts-trend.svg",
    "split": "example-charts-split.svg",
    "mix": "example-charts-audience.svg",
    "spread": "example-charts-spread.svg",
}


def example() -> tuple[str, dict[str, bytes]]:
    docs = shared_dir("visimark", "docs")
    src = (docs / "example-charts.md").read_text(encoding="utf-8")
    return src, {f"charts/{p.name}": p.read_bytes() for p in (docs / "charts").iterdir()}


def problems(src: str, files: MemoryFiles | None = None) -> list[tuple[str, str | None, str | None]]:
    result = check(build(src), files if files is not None else MemoryFiles())
    return [(f.code, f.ident, f.message) for f in result.findings if f.is_problem]


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    return subprocess.run([sys.executable, "-m", "markmcp.visimark.cli", *args], capture_output=True, text=True,
                          encoding="utf-8", cwd=cwd, env=env)


# ------------------------------------------------------------- the worked example


def test_fmt_writes_the_five_example_charts_byte_for_byte() -> None:
    src, committed = example()
    files = MemoryFiles()
    r = fmt(src, files=files)
    assert r.output == src and not r.changed
    assert sorted(r.artifacts) == sorted(committed)
    assert files.files == committed


def test_example_is_clean_and_fmt_writes_nothing() -> None:
    src, committed = example()
    files = MemoryFiles(committed)
    result = check(build(src), files)
    assert [f.code for f in result.findings] == []
    assert [(c.name, c.state) for c in result.charts] == [(n, "current") for n in SVGS]
    r = fmt(src, files=files)
    assert (r.artifacts, files.writes) == ([], [])


@pytest.mark.parametrize("chart,svg", SVGS.items())
def test_deleting_one_svg_is_one_stale_and_fmt_restores_it(chart: str, svg: str) -> None:
    src, committed = example()
    files = MemoryFiles({k: v for k, v in committed.items() if not k.endswith(svg)})
    result = check(build(src), files)
    assert [(f.code, f.name, f.message) for f in result.findings] == [
        ("STALE", chart, f"artifact missing at `charts/{svg}`")]
    assert format_check("x.md", result.findings).endswith("1 problem (1 stale, 0 errors)")
    r = fmt(src, files=files)
    assert r.artifacts == [f"charts/{svg}"] and r.unfixable == []
    assert files.files == committed


def test_changing_revenue_makes_its_charts_stale_until_fmt() -> None:
    src, committed = example()
    edited = src.replace("| Jan   | 48200.00 |", "| Jan   | 50000.00 |", 1)
    files = MemoryFiles(committed)
    result = check(build(edited), files)
    stale_charts = [f.name for f in result.findings if f.code == "STALE" and f.artifact]
    assert stale_charts == ["performance", "trend", "split"]
    text = format_check("x.md", result.findings)
    assert "  STALE   sales.performance  artifact is out of date — run `visimark fmt`" in text.split("\n")
    r = fmt(edited, files=files)
    assert sorted(r.artifacts) == sorted(f"charts/{SVGS[c]}" for c in stale_charts)
    assert r.cells_updated == 1 and r.anchors_updated == 2
    again = check(build(r.output), files)
    assert [f.code for f in again.findings] == []
    assert files.files["charts/example-charts-audience.svg"] == committed["charts/example-charts-audience.svg"]
    assert files.files["charts/example-charts-sales.svg"] != committed["charts/example-charts-sales.svg"]


def test_crlf_on_disk_compares_equal() -> None:
    src, committed = example()
    files = MemoryFiles({k: v.replace(b"\n", b"\r\n") for k, v in committed.items()})
    assert problems(src, files) == []


def test_fmt_no_artifacts_declines_the_write_not_the_verdict() -> None:
    src, _ = example()
    files = MemoryFiles()
    r = fmt(src, files=files, artifacts=False)
    assert (r.artifacts, r.artifacts_skipped, files.writes, r.unfixable) == ([], 5, [], [])
    assert len([f for f in check(build(src), files).findings if f.code == "STALE"]) == 5


# ------------------------------------------------------------------- chart-fail


def test_chart_fail_transcript(tmp_path: Path) -> None:
    src = shared_dir("visimark", "fixtures") / "chart-fail.md"
    shutil.copyfile(src, tmp_path / "chart-fail.md")
    p = run("check", "chart-fail.md", cwd=tmp_path)
    assert p.returncode == 1
    assert p.stdout == ("chart-fail.md\n\n"
                        "  ARTIFACT ledger.balances   pie of `Balance` contains a negative value (-450.00, row 3)\n\n"
                        "  1 problem (0 stale, 1 error)\n")
    f = run("fmt", "chart-fail.md", cwd=tmp_path)
    assert f.returncode == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["chart-fail.md"]  # no charts/ folder, no file


# --------------------------------------------------------------------- refusals

TABLE = """| Item | Net | Qty | Note |
|------|----:|----:|------|
| pen  | 20.00 | 2 | a |
| ink  | 15.00 | 3 | b |
"""


def doc(*lines: str, image: str = "![c](charts/c.svg)<!--vmark=items.c-->", table: str = TABLE) -> str:
    return table + "\n```vmark #items\n" + "\n".join(lines) + "\n```\n\n" + image + "\n"


@pytest.mark.parametrize("statement,finding", [
    ("chart c as pei of Net labelled Item", ("ARTIFACT", "items.c", "unknown chart type `pei`")),
    ("chart c as bar of Net labelled Item aspect 16:0", ("ARTIFACT", "items.c", "aspect needs two positive integers, as `16:9`")),
    ("chart c as bar of Net labelled Item aspect 16:x", ("ARTIFACT", "items.c", "aspect needs two positive integers, as `16:9`")),
    ("chart c as bar of Net / Qty labelled Item", ("TYPE", "items.c", "a chart takes a column, not an expression")),
    ("chart c as bar of Net labelled Note", None),
    ("chart c as bar of Note labelled Item", ("ARTIFACT", "items.c", "`Note` needs numbers")),
    ("chart c as bar of Nett labelled Item", ("UNDEF", "items.c", None)),
    ("chart c as bar of Net labelled Itme", ("ARTIFACT", "items.c", "`Itme` is not a column of this sheet")),
    ("chart c as bar of Net labelled Item extra", ("TYPE", "items.c", "unexpected `extra` after the chart statement")),
    ("chart c bar of Net labelled Item", ("TYPE", "items.c", "expected `as`")),
    ("chart c as bar Net labelled Item", ("TYPE", "items.c", "expected `of`")),
    ("chart as bar of Net labelled Item", ("TYPE", "items.", "a chart needs a name")),
])
def test_statement_findings(statement: str, finding: tuple | None) -> None:
    found = problems(doc(statement))
    if finding is None:
        assert found == [("STALE", "items.c", "artifact missing at `charts/c.svg`")]
        return
    code, ident, message = finding
    assert found[0][:2] == (code, ident) and (message is None or found[0][2] == message), found


def test_unknown_engine_suggests_the_closest() -> None:
    result = check(build(doc("chart c as pei of Net labelled Item")), MemoryFiles())
    (f,) = result.findings
    assert f.suggestion == "pie"
    assert format_check("d.md", result.findings).split("\n")[2:4] == [
        "  ARTIFACT items.c           unknown chart type `pei`", "           did you mean `pie`?"]


def test_pie_refusals() -> None:
    zero = TABLE.replace("20.00", "0.00").replace("15.00", "0.00")
    assert problems(doc("chart c as pie of Net labelled Item", table=zero)) == [
        ("ARTIFACT", "items.c", "pie of `Net` sums to zero")]
    blank = TABLE.replace("| 15.00 |", "|  |")
    assert problems(doc("chart c as pie of Net labelled Item", table=blank)) == [
        ("ARTIFACT", "items.c", "`Net` contains a blank cell (row 2)")]
    empty = "| Item | Net |\n|---|---|\n"
    assert problems(doc("chart c as bar of Net labelled Item", table=empty)) == [
        ("ARTIFACT", "items.c", "`Net` has no rows")]


def test_negative_bar_is_legal_where_a_pie_is_not() -> None:
    neg = TABLE.replace("| 15.00 |", "| -15.00 |")
    assert problems(doc("chart c as bar of Net labelled Item", table=neg)) == [
        ("STALE", "items.c", "artifact missing at `charts/c.svg`")]
    assert problems(doc("chart c as pie of Net labelled Item", table=neg)) == [
        ("ARTIFACT", "items.c", "pie of `Net` contains a negative value (-15.00, row 2)")]


def test_single_row_pie_is_a_whole_circle() -> None:
    one = "| Item | Net |\n|---|---:|\n| pen | 20.00 |\n"
    files = MemoryFiles()
    fmt(doc("chart c as pie of Net labelled Item", table=one), files=files)
    svg = files.files["charts/c.svg"].decode()
    assert '<circle cx="320.00" cy="200.00" r="136.00" fill="#808080"' in svg and "pen 100.0%" in svg


def test_series_with_different_decorations_is_a_unit_error() -> None:
    money = TABLE.replace("| 20.00 |", "| $20.00 |").replace("| 15.00 |", "| $15.00 |")
    assert problems(doc("chart c as bar of Net, Qty labelled Item", table=money)) == [
        ("UNIT", "items.c", "a chart's series must agree about their unit")]


def test_decoration_is_carried_into_value_labels() -> None:
    money = TABLE.replace("| 20.00 |", "| $20.00 |").replace("| 15.00 |", "| $15.00 |")
    files = MemoryFiles()
    fmt(doc("chart c as bar of Net labelled Item", table=money), files=files)
    assert ">$20.00</text>" in files.files["charts/c.svg"].decode()


def test_missing_image_line_and_collisions() -> None:
    assert problems(doc("chart c as bar of Net labelled Item", image="")) == [
        ("ARTIFACT", "items.c", "no image reference for this chart — add `![...](path)<!--vmark=items.c-->`")]
    two = doc("chart c as bar of Net labelled Item", "chart d as line of Net labelled Item",
              image="![c](charts/c.svg)<!--vmark=items.c-->\n\n![d](charts/c.svg)<!--vmark=items.d-->")
    assert problems(two) == [("ARTIFACT", "items.c", "two charts write to `charts/c.svg`"),
                             ("ARTIFACT", "items.d", "two charts write to `charts/c.svg`")]


@pytest.mark.parametrize("lines,finding", [
    (["Net = Qty * 10.00", "chart Net as bar of Qty labelled Item"], ("DUP", "items.Net")),
    (["total = SUM(Net)", "chart total as bar of Qty labelled Item"], ("DUP", "items.total")),
    (["chart c as bar of Qty labelled Item", "x = c"], ("TYPE", "items.x")),
    (["chart c as bar of other.Qty labelled Item"], ("VECTOR", "items.c")),
    (["t = 1", "chart c as bar of t labelled Item"], ("TYPE", "items.c")),
    (["chart = 1"], ("TYPE", "items.chart")),
])
def test_names_and_shapes(lines: list[str], finding: tuple[str, str]) -> None:
    other = "\n| K | Qty |\n|---|---|\n| a | 1 |\n\n```vmark #other\nk = SUM(Qty)\n```\n"
    found = problems(doc(*lines) + other)
    assert finding in [(c, i) for c, i, _ in found], found


def test_chart_outside_a_sheet_with_a_table() -> None:
    assert ("SHEET", ".c", "`chart` must be in a `#id` sheet block") in problems(
        "```vmark\nchart c as bar of Net labelled Item\n```\n")
    assert ("SHEET", "s.c", "a chart needs a table") in problems(
        "```vmark #s\nchart c as bar of Net labelled Item\n```\n")


def test_upstream_error_folds_into_one_note_per_sheet() -> None:
    src = doc("Net = Qty * bogus", "chart c as bar of Net labelled Item", "chart d as line of Net labelled Item",
              image="![c](charts/c.svg)<!--vmark=items.c-->\n\n![d](charts/d.svg)<!--vmark=items.d-->")
    result = check(build(src), MemoryFiles())
    notes = [f for f in result.findings if f.code == "NOTE"]
    assert [(f.sheet, f.message) for f in notes] == [("items", "2 charts not built (upstream errors)")]
    assert [c.state for c in result.charts] == ["skipped", "skipped"]


def test_anchors_naming_charts() -> None:
    src = doc("chart c as bar of Net labelled Item", image="A **1**<!--vmark=items.c-->")
    assert ("ANCHOR", "items.c", "a chart anchor follows its image: `![...](path)<!--vmark=items.c-->`") in problems(src)
    scalar = doc("t = SUM(Net)", image="![t](charts/t.svg)<!--vmark=items.t-->")
    assert ("ANCHOR", "items.t", "an image anchor must name a chart") in problems(scalar)


# ---------------------------------------------------------------- the path gate


@pytest.mark.parametrize("path,message", [
    ("/etc/x.svg", "artifact path must be relative"),
    ("C:/x.svg", "artifact path must be relative, not a drive letter"),
    ("https://example.com/x.svg", "artifact path must be a relative path, not a URL"),
    ("charts/x.SVG", "artifact path must end in `.svg`"),
    ("charts/x.png", "artifact path must end in `.svg`"),
    ("charts/CON.svg", "artifact path uses a reserved device name `CON.svg`"),
    ("nul/x.svg", "artifact path uses a reserved device name `nul`"),
    ("../../etc/x.svg", "artifact path escapes the document's directory"),
    ("charts/../../x.svg", "artifact path escapes the document's directory"),
])
def test_path_gate(path: str, message: str) -> None:
    assert problems(doc("chart c as bar of Net labelled Item", image=f"![c]({path})<!--vmark=items.c-->")) == [
        ("ARTIFACT", "items.c", message)]


def test_a_file_that_is_not_ours_is_never_overwritten() -> None:
    src = doc("chart c as bar of Net labelled Item")
    files = MemoryFiles({"charts/c.svg": b"<svg xmlns='http://www.w3.org/2000/svg'><circle r='4'/></svg>\n"})
    assert problems(src, files) == [
        ("ARTIFACT", "items.c", "`charts/c.svg` exists and was not generated by visimark")]
    r = fmt(src, files=files)
    assert files.writes == [] and r.artifacts == []
    other = MemoryFiles({"charts/c.svg": b'<svg><metadata><visimark sheet="items" chart="d"/></metadata></svg>\n'})
    assert problems(src, other) == [("ARTIFACT", "items.c", "`charts/c.svg` belongs to chart `items.d`")]


# ------------------------------------------------------------------ on disk


def test_cli_fmt_creates_the_folder_and_check_is_then_clean(tmp_path: Path) -> None:
    path = tmp_path / "d.md"
    path.write_text(doc("chart c as bar of Net labelled Item", image="![c](out/deep/c.svg)<!--vmark=items.c-->"),
                    encoding="utf-8")
    p = run("fmt", str(path))
    assert (p.returncode, p.stdout) == (0, f"{path}: updated 1 artifact\n")
    assert (tmp_path / "out" / "deep" / "c.svg").read_bytes().startswith(b"<svg ")
    assert run("check", str(path)).returncode == 0
    assert run("fmt", str(path)).stdout == f"{path}: unchanged\n"


def test_symlink_out_of_the_folder_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    home = tmp_path / "doc"
    home.mkdir()
    (home / "charts").symlink_to(outside)
    (home / "d.md").write_text(doc("chart c as bar of Net labelled Item"), encoding="utf-8")
    result = check(build((home / "d.md").read_text()), DocumentFolder(home / "d.md"))
    assert [(f.code, f.message) for f in result.findings] == [
        ("ARTIFACT", "artifact path `charts/c.svg` resolves through a symlink out of the document's directory")]
    p = run("fmt", str(home / "d.md"))
    assert p.returncode == 1 and list(outside.iterdir()) == []


def test_a_directory_in_the_way_is_an_artifact_error(tmp_path: Path) -> None:
    (tmp_path / "charts" / "c.svg").mkdir(parents=True)
    (tmp_path / "d.md").write_text(doc("chart c as bar of Net labelled Item"), encoding="utf-8")
    p = run("check", str(tmp_path / "d.md"))
    assert p.returncode == 1 and "  ARTIFACT items.c" in p.stdout and "directory" in p.stdout


def test_cli_no_artifacts_and_json(tmp_path: Path) -> None:
    path = tmp_path / "d.md"
    path.write_text(doc("chart c as bar of Net labelled Item"), encoding="utf-8")
    p = run("fmt", "--no-artifacts", str(path))
    assert (p.returncode, p.stdout) == (0, f"{path}: unchanged, 1 artifact skipped\n")
    assert not (tmp_path / "charts").exists()
    p = run("fmt", "--json", str(path))
    import json

    env = json.loads(p.stdout)
    assert env["files"][0]["artifacts"] == [{"path": "charts/c.svg"}]
    assert env["files"][0]["artifactsSkipped"] == 0 and env["summary"]["artifacts"] == 1
    c = json.loads(run("check", "--json", str(path)).stdout)
    assert c["status"] == "ok"
    assert run("check", "--no-artifacts", str(path)).stderr == "visimark: --no-artifacts is only valid with fmt\n"
