"""`simulate`, lattices and reports: the spec transcripts, every variant, every lattice rule."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import shared_dir
from markmcp.visimark.check import check
from markmcp.visimark.domain import parse_clause
from markmcp.visimark.lattice import LatticeFault, points
from markmcp.visimark.model import build
from markmcp.visimark.port import MemoryFiles
from markmcp.visimark.simulate import section, simulate

CLEAN = """\
==> simulate.md <==
#plan

report ledger assertions broken

  question  hours  disc  feasible  broken
  base         10    0%  yes
  1             0    0%  yes
  2             0    5%  yes
  3             0   10%  yes
  4            10    0%  yes
  5            10    5%  yes
  6            10   10%  yes
  7            20    0%  no        margin >= 0; hours <= 15
  8            20    5%  no        margin >= 0; hours <= 15
  9            20   10%  no        margin >= 0; hours <= 15

report deltas on plan.margin among all

  plan.margin  base 500.00
    low   -650.00  (-1150.00)  hours=20 disc=10%
    high  1500.00  (+1000.00)  hours=0 disc=0%
  over 9 questions

report gates

  9 questions
  assert       holds  fails  faulted  base   first failure
  margin >= 0      6      3        0  holds  hours=20 disc=0%
  hours <= 15      6      3        0  holds  hours=20 disc=0%

report best scalar plan.margin direction max among feasible

  hours=0 disc=0%
  plan.margin  1500.00  (+1000.00 against base)
  chosen from 6 feasible of 9 questions

report forbidden

  hours = 20  every question with it breaks an assertion
  3 of 9 questions are infeasible
"""

AMONG = """\
#plan

report best scalar margin direction max among all

  hours=0 disc=0%
  margin  1500.00  (+1000.00 against base)
  chosen from 9 questions

report best scalar margin direction max among feasible

  hours=0 disc=0%
  margin  1500.00  (+1000.00 against base)
  chosen from 6 feasible of 9 questions

report best scalar margin direction max among infeasible

  hours=20 disc=0%
  margin  -500.00  (-1000.00 against base)
  chosen from 3 infeasible of 9 questions

report best scalar margin direction min among feasible

  hours=10 disc=10%
  margin  350.00  (-150.00 against base)
  chosen from 6 feasible of 9 questions

report deltas on margin among all

  margin  base 500.00
    low   -650.00  (-1150.00)  hours=20 disc=10%
    high  1500.00  (+1000.00)  hours=0 disc=0%
  over 9 questions

report deltas on margin among feasible

  margin  base 500.00
    low    350.00   (-150.00)  hours=10 disc=10%
    high  1500.00  (+1000.00)  hours=0 disc=0%
  over 6 feasible of 9 questions

report deltas on margin among infeasible

  margin  base 500.00
    low   -650.00  (-1150.00)  hours=20 disc=10%
    high  -500.00  (-1000.00)  hours=20 disc=0%
  over 3 infeasible of 9 questions"""


def fixture(name: str) -> str:
    return (shared_dir("visimark", "fixtures", "simulation") / name).read_text(encoding="utf-8")


def run(tmp_path: Path, *args: str, files: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    for name, text in (files or {}).items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    return subprocess.run([sys.executable, "-m", "markmcp.visimark.cli", "simulate", *args], capture_output=True,
                          text=True, encoding="utf-8", cwd=tmp_path)


def untimed(stderr: str) -> str:
    return re.sub(r" in \d+(?:\.\d+)? (?:ms|s)$| in \d+ min \d\d s$", "", stderr, flags=re.M)


def test_clean_run_transcript(tmp_path: Path) -> None:
    p = run(tmp_path, "simulate.md", files={"simulate.md": fixture("simulate.md")})
    assert p.returncode == 0
    assert p.stdout == CLEAN
    assert untimed(p.stderr) == ("simulate: simulate.md: 10 questions (2 lattice params)\n"
                                 "simulate: simulate.md: 1 of 1 sheets ran\n")


def test_among_transcript() -> None:
    sim = simulate(fixture("among.md"))
    assert "\n".join(section(sim)) == AMONG
    assert check(build(fixture("among.md"))).exit_code == 0


def test_one_evaluation_per_question_and_determinism() -> None:
    first = simulate(fixture("simulate.md"))
    assert first.evaluations == 10
    assert section(simulate(fixture("simulate.md"))) == section(first)


def test_several_files_and_a_file_with_no_report(tmp_path: Path) -> None:
    files = {"simulate.md": fixture("simulate.md"), "plain.md": "```vmark #s\nx = 1\n```\n"}
    p = run(tmp_path, "simulate.md", "simulate.md", files=files)
    assert p.returncode == 0 and p.stdout == CLEAN + "\n---\n\n" + CLEAN
    assert untimed(p.stderr).endswith("simulate: 2 of 2 sheets ran across 2 files\n")
    p = run(tmp_path, "plain.md")
    assert (p.returncode, p.stdout, p.stderr) == (1, "", "simulate: plain.md: no report statement\n")
    p = run(tmp_path, "simulate.md", "plain.md")
    assert p.returncode == 0 and p.stdout == CLEAN
    p = run(tmp_path, "nope.md", "simulate.md")
    assert p.returncode == 2 and p.stdout == CLEAN and p.stderr.startswith("visimark: cannot read nope.md")


@pytest.mark.parametrize("change,stderr_line", [
    (("report deltas on plan.margin among all", "report deltas on plan.marginn among all"),
     "simulate: simulate.md: #plan cannot start: UNDEF: unknown name `plan.marginn`"),
    (("in [0, 20] lattice 10", "in [0, 20] lattice 3"),
     "simulate: simulate.md: #plan cannot start: TYPE plan.hours: lattice step 3 does not reach the end of [0, 20]: "
     "20 is not a multiple of 3 above 0"),
])
def test_sheets_that_cannot_start(tmp_path: Path, change: tuple[str, str], stderr_line: str) -> None:
    text = fixture("simulate.md").replace(*change)
    p = run(tmp_path, "simulate.md", files={"simulate.md": text})
    assert (p.returncode, p.stdout) == (0, "==> simulate.md <==\n#plan\n  (cannot start)\n")
    assert stderr_line in p.stderr.split("\n")
    assert untimed(p.stderr).endswith("simulate: simulate.md: 0 of 1 sheets ran\n")
    assert run(tmp_path, "simulate.md", "--fail-on-fault").returncode == 1


def test_faulted_questions() -> None:
    text = fixture("simulate.md").replace("assert margin >= 0", "per_hour precision 2 = margin / hours\n"
                                          "assert margin >= 0\nassert per_hour >= 0")
    out = "\n".join(section(simulate(text)))
    assert "  1             0    0%  faulted" in out
    assert re.search(r"  per_hour >= 0 +\d+ +\d+ +3  holds", out)
    assert "  hours=10 disc=0%\n  plan.margin  500.00  (0.00 against base)\n  chosen from 3 feasible of 9 questions" in out


def test_no_lattice_and_nothing_feasible() -> None:
    none = re.sub(r" lattice \S+", "", fixture("simulate.md"))
    out = "\n".join(section(simulate(none)))
    assert out.count("no grid: no param declares a lattice") == 3 and "  0 questions" in out
    ledger = out.split("report ledger assertions broken\n\n")[1].split("\n\n")[0].split("\n")
    assert ledger == ["  question  feasible  broken", "  base      yes"]
    hard = fixture("simulate.md").replace("assert margin >= 0", "assert margin >= 2000")
    out = "\n".join(section(simulate(hard)))
    assert "no feasible question" in out
    for line in ("hours = 0", "hours = 10", "hours = 20", "disc = 0%", "disc = 5%", "disc = 10%"):
        assert re.search(rf"^  {line} +every question with it breaks an assertion$", out, re.M), line


def test_bakeoff_best_price() -> None:
    src = (shared_dir("visimark", "fixtures", "bakeoff-price-only") / "bakeoff.md").read_text(encoding="utf-8")
    assert section(simulate(src))[-3:] == ["  price=3.50", "  stall.profit  125.00  (+24.00 against base)",
                                           "  chosen from 5 feasible of 9 questions"]


def test_json_mode(tmp_path: Path) -> None:
    p = run(tmp_path, "simulate.md", "--json", files={"simulate.md": fixture("simulate.md")})
    env = json.loads(p.stdout)
    assert (env["command"], env["status"]) == ("simulate", "ok")
    (f,) = env["files"]
    assert f["questions"] == 10 and [lp["points"] for lp in f["latticeParams"]] == [["0", "10", "20"],
                                                                                    ["0%", "5%", "10%"]]
    assert f["answers"][7] == {"question": "7", "values": {"hours": "20", "disc": "0%"}, "state": "infeasible",
                               "broken": ["margin >= 0", "hours <= 15"]}
    assert f["sheets"][0]["reports"][2]["lines"][0] == "9 questions"
    p = run(tmp_path, "plain.md", "--json", files={"plain.md": "```vmark #s\nx = 1\n```\n"})
    env = json.loads(p.stdout)
    assert (p.returncode, env["status"]) == (1, "problems")
    assert env["files"] == [{"path": "plain.md", "sheets": [], "note": "no report statement"}]


# ------------------------------------------------------------------- lattices


@pytest.mark.parametrize("clause,step,percent,precision,expected", [
    ("in [0%, 10%]", "1%", True, 3, [f"{i / 100:.2f}" for i in range(11)]),
    ("integer in [0, 80]", "20", False, 0, ["0", "20", "40", "60", "80"]),
    ("integer in [3, 83]", "20", False, 0, ["3", "23", "43", "63", "83"]),
    ("in (0, 10)", "5", False, 1, ["5"]),
    ("integer in (0, 10)", "1", False, 0, [str(i) for i in range(1, 10)]),
    ("positive in [0, 10]", "5", False, 0, ["5", "10"]),
    ("in [3, 3]", "1", False, 0, ["3"]),
])
def test_lattice_points(clause: str, step: str, percent: bool, precision: int, expected: list[str]) -> None:
    got = points("x", parse_clause(clause), step, percent, precision)
    assert [Decimal(e) for e in expected] == got


@pytest.mark.parametrize("clause,step,percent,precision,message", [
    ("integer in [2.5, 22.5]", "5", False, 1, "lattice step 5 does not reach the end of [2.5, 22.5]: 22 is not a "
                                              "multiple of 5 above 3"),
    ("in [0, 10]", "3", False, 0, "lattice step 3 does not reach the end of [0, 10]: 10 is not a multiple of 3 above 0"),
    ("in (0, 5)", "5", False, 0, "lattice step 5 leaves no point in (0, 5)"),
    ("", "5", False, 0, "param x declares a lattice but no domain"),
    ("in { 1, 2 }", "1", False, 0, "param x declares a lattice, but a set already lists its points"),
    ("natural", "5", False, 0, "param x declares a lattice, but its domain has no upper bound"),
    ("in (, 10]", "5", False, 0, "param x declares a lattice, but its domain has no lower bound"),
    ("in [0%, 10%]", "5", True, 2, "x is a percent; lattice step 5 must be too"),
    ("in [0, 1]", "0.25", False, 1, "lattice step 0.25 has 2 decimals; param x declares 1"),
    ("in [0, 1]", "0", False, 1, "lattice step must be positive"),
    ("integer in [0, 80]", "2.5", False, 1, "lattice step 2.5 must be a whole number: param x is an integer domain"),
])
def test_lattice_faults(clause: str, step: str, percent: bool, precision: int, message: str) -> None:
    with pytest.raises(LatticeFault) as e:
        points("x", parse_clause(clause), step, percent, precision)
    assert e.value.message == message


def test_lattice_findings_leave_the_default_evaluating() -> None:
    src = "```vmark #p\nparam x precision 0 in [0, 10] lattice 3 = default 4\ny = x + 1\n```\n\n**5**<!--vmark=p.y-->\n"
    result = check(build(src))
    assert [(f.code, f.message) for f in result.findings] == [
        ("TYPE", "lattice step 3 does not reach the end of [0, 10]: 10 is not a multiple of 3 above 0")]
    assert result.values["p.y"] == 5


@pytest.mark.parametrize("line,message", [
    ("report", "a report needs a name"),
    ("report foo", "unknown report `foo`; the reports are ledger, deltas, gates, best, forbidden"),
    ("report gates among all", "`report gates` takes no options"),
    ("report best scalar y direction up among all",
     "`report best` takes: scalar REF direction max|min among feasible|infeasible|all"),
    ("report deltas on y", "`report deltas` takes: [on REF {, REF}] among feasible|infeasible|all"),
    ("report ledger broken", "`report ledger` takes: [assertions broken]"),
    ("report best scalar z direction max among all", None),
])
def test_report_grammar(line: str, message: str | None) -> None:
    src = f"```vmark #p\nparam x precision 0 in [0, 10] lattice 5 = default 5\ny = x + 1\n{line}\n```\n"
    found = [(f.code, f.message) for f in check(build(src)).findings if f.is_problem]
    if message is None:
        assert [c for c, _ in found] == ["UNDEF"]
    else:
        assert found == [("TYPE", message)]


def test_report_names_a_column_and_duplicates() -> None:
    src = ("| k | v |\n|---|---|\n| a | 1 |\n\n```vmark #p\ns = SUM(v)\nreport best scalar v direction max among all\n"
           "report gates\nreport  gates\n```\n")
    found = [(f.code, f.message) for f in check(build(src)).findings if f.is_problem]
    assert ("TYPE", "a report reads a scalar; v is a column") in found
    assert ("DUP", "report gates is declared twice in sheet p") in found
    assert check(build("```vmark\nreport gates\n```\n")).findings[0].message == "`report` must be in a `#id` sheet block"
    assert check(build("```vmark #p\nreport = 5\n```\n\n**5**<!--vmark=p.report-->\n")).exit_code == 0


# ---------------------------------------------------------------- property


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 4), st.integers(1, 4), st.integers(0, 30))
def test_simulate_is_deterministic_and_counts_its_grid(a_points: int, b_points: int, bound: int) -> None:
    src = (f"```vmark #m\nparam a precision 0 integer in [0, {a_points - 1}] lattice 1 = default 0\n"
           f"param b precision 1 in [0, {b_points - 1}] lattice 1 = default 0.0\n"
           f"t precision 1 = a * 10 - b\nassert t <= {bound}\n"
           "report ledger assertions broken\nreport gates\nreport forbidden\n"
           "report deltas among all\nreport best scalar t direction max among feasible\n```\n")
    one, two = simulate(src, MemoryFiles()), simulate(src, MemoryFiles())
    assert section(one) == section(two)
    assert one.evaluations == a_points * b_points + 1 == len(one.answers)
    feasible = sum(1 for a in range(a_points) for b in range(b_points) if a * 10 - b <= bound)
    assert f"  {a_points * b_points} questions" in section(one)
    assert sum(1 for x in one.answers[1:] if x.feasible) == feasible
