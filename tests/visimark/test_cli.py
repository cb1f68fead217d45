"""The command line, run as a subprocess exactly as a user would."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import shared_dir


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "markmcp.visimark.cli", *args], capture_output=True,
                          text=True, encoding="utf-8", input=stdin)


def corpus(tmp_path: Path, *parts: str) -> Path:
    src = shared_dir("visimark", *parts[:-1]) / parts[-1]
    dst = tmp_path / parts[-1]
    shutil.copyfile(src, dst)
    return dst


def test_check_invoice_clean(tmp_path: Path) -> None:
    doc = corpus(tmp_path, "docs", "example-invoice.md")
    p = run("check", str(doc))
    assert p.returncode == 0
    assert p.stdout.endswith("  0 problems (0 stale, 0 errors)\n")


def test_fmt_invoice_byte_identical(tmp_path: Path) -> None:
    doc = corpus(tmp_path, "docs", "example-invoice.md")
    before = doc.read_bytes()
    for _ in range(2):
        p = run("fmt", str(doc))
        assert p.returncode == 0
        assert p.stdout == f"{doc}: unchanged\n"
    assert doc.read_bytes() == before


def test_eval_json_invoice_facts(tmp_path: Path) -> None:
    doc = corpus(tmp_path, "docs", "example-invoice.md")
    p = run("eval", str(doc), "--json")
    assert p.returncode == 0
    env = json.loads(p.stdout)
    assert (env["command"], env["status"]) == ("eval", "ok")
    assert env["values"]["vat"] == "0.23"
    assert env["values"]["lines.gross_total"] == "28659"
    assert env["values"]["lines.Net"] == ["3600", "14080", "2500", "3120"]
    assert env["assertions"][0]["holds"] is True
    assert env["assertions"][0]["substituted"] == "0.00 == 0"
    assert env["units"]["fx_eur"] == {"EUR": -1, "PLN": 1}
    assert env["units"]["terms.eur_total"] == {"EUR": 1}
    assert env["units"]["lines.Rate"] == {"PLN": 1}
    assert env["charts"] == []


def test_drift_fmt_repairs_stale_and_keeps_errors(tmp_path: Path) -> None:
    doc = corpus(tmp_path, "docs", "example-invoice-drift.md")
    p = run("check", str(doc))
    assert p.returncode == 1 and p.stdout.rstrip().endswith("27 problems (22 stale, 5 errors)")
    p = run("fmt", str(doc))
    assert p.returncode == 1
    assert p.stdout.startswith(f"{doc}: updated 7 cells, 8 anchors\n")
    assert p.stdout.rstrip().endswith("5 problems (0 stale, 5 errors)")
    after = doc.read_text(encoding="utf-8")
    p = run("fmt", str(doc))
    assert p.stdout.startswith(f"{doc}: unchanged\n") and p.returncode == 1
    assert doc.read_text(encoding="utf-8") == after
    p = run("fmt", "--fix-dates", str(doc))
    assert p.stdout.startswith(f"{doc}: updated 1 date\n")
    fixed = doc.read_text(encoding="utf-8")
    assert "| 2026-10-15 |" in fixed and "| 11/12/2026 |" in fixed and "| 15.10.2026 |" not in fixed


def test_check_json_envelope(tmp_path: Path) -> None:
    doc = corpus(tmp_path, "docs", "example-invoice-drift.md")
    p = run("check", str(doc), "--json")
    env = json.loads(p.stdout)
    assert p.returncode == 1 and env["status"] == "problems"
    assert env["files"][0]["summary"] == {"problems": 27, "stale": 22, "errors": 5}
    first = env["files"][0]["findings"][0]
    assert first["details"] == {"stored": "3120.00", "computed": "5200.00", "formula": "Qty * Rate"}
    assert first["location"]["row"] == "On-call support"


def test_refusals_before_reading() -> None:
    p = run("check", "missing.md", "--jsonn")
    assert p.returncode == 2 and "did you mean `--json`?" in p.stderr
    p = run("fmt", "missing.md", "--write")
    assert p.returncode == 2 and "--write is only valid with infer" in p.stderr
    p = run("check", "missing.md", "--scenario", "x.json", "--json")
    assert p.returncode == 2 and json.loads(p.stdout)["error"]["code"] == "USAGE"
    p = run("check", "definitely-missing.md")
    assert p.returncode == 2 and "cannot read" in p.stderr
    p = run("--version")
    assert p.returncode == 0 and p.stdout.startswith("visimark ")


def test_eval_get_and_assert_fail(tmp_path: Path) -> None:
    doc = corpus(tmp_path, "fixtures", "pmt-press.md")
    assert run("eval", str(doc), "--get", "press.instalment").stdout == "1460.25\n"
    assert run("eval", str(doc), "--get", "press.monthly_rate").stdout == "0.005\n"
    bad = run("eval", str(doc), "--get", "nope")
    assert bad.returncode == 2 and "no value named nope" in bad.stderr
    fail = corpus(tmp_path, "fixtures", "assert-fail.md")
    p = run("eval", str(fail))
    assert p.returncode == 1 and "is false" in p.stderr


def test_ref() -> None:
    p = run("ref", "ROUND")
    assert p.returncode == 0 and "the value of `places`" in p.stdout
    assert run("ref", "round").returncode == 2  # names are upper case
    assert run("ref", "ROUNDD").returncode == 2


def test_a_closed_stdout_is_not_a_traceback(tmp_path: Path) -> None:
    rows = "".join(f"| r{i} | {i} | {i * 2} |\n" for i in range(20000))
    doc = tmp_path / "big.md"
    doc.write_text(f"| Item | A | B |\n|---|---:|---:|\n{rows}\n```vmark #t\nB = A * 2\n```\n", encoding="utf-8")
    proc = subprocess.Popen([sys.executable, "-m", "markmcp.visimark.cli", "eval", str(doc), "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read().decode("utf-8")
    proc.wait(timeout=120)
    assert "Traceback" not in err


def test_check_json_counts_an_unreadable_file_in_the_summary(tmp_path: Path) -> None:
    clean = tmp_path / "clean.md"
    clean.write_text("# Notes\n\nNo numbers here.\n", encoding="utf-8")
    p = run("check", "--json", str(tmp_path / "missing.md"), str(clean))
    assert p.returncode == 2
    envelope = json.loads(p.stdout)
    assert envelope["status"] == "error"
    assert envelope["files"][0]["error"]["code"] == "READ"
    assert envelope["summary"] == {"files": 2, "problems": 1, "stale": 0, "errors": 1}


def test_explain_of_a_document_without_sheets_says_so(tmp_path: Path) -> None:
    for text in ("", "# Notes\n\nNo numbers here.\n"):
        doc = tmp_path / "plain.md"
        doc.write_text(text, encoding="utf-8")
        p = run("explain", str(doc))
        assert p.returncode == 0
        assert p.stdout.startswith(f"{doc}: nothing to explain: no `vmark` block")


def test_each_command_answers_help(tmp_path: Path) -> None:
    """`visimark COMMAND --help` (or -h, anywhere among its arguments) prints that command's
    usage, what it does and its options, and exits 0, as figdown, mrsf and markmcp do; it
    was 'unknown option --help', exit 2."""
    from markmcp.visimark.command_line import COMMANDS, FLAGS, USAGE, VALUED

    for command in COMMANDS:
        for flag in ("--help", "-h"):
            run = subprocess.run([sys.executable, "-m", "markmcp.visimark.cli", command, "x.md", flag],
                                 cwd=tmp_path, capture_output=True, text=True, timeout=60)
            assert run.returncode == 0 and run.stderr == "", (command, run.stderr)
            assert run.stdout.startswith(USAGE[command] + "\n\n"), command
            for option in FLAGS[command] | VALUED.get(command, set()):
                assert f"\n  {option} " in run.stdout, (command, option)
            assert "exit codes: 0" in run.stdout


def test_help_into_a_closed_pipe_is_quiet(tmp_path: Path) -> None:
    run = subprocess.run(f"'{sys.executable}' -m markmcp.visimark.cli --help | head -c 1 >/dev/null",
                         shell=True, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert run.stderr == ""
