"""Declared local CSV imports: the stamp, fmt's one owned span, and every IMPORT refusal."""

from __future__ import annotations

import csv
import hashlib
import io
import shutil
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from conftest import shared_dir
from markmcp.visimark.check import check
from markmcp.visimark.disk import DocumentFolder
from markmcp.visimark.import_decl import parse_import
from markmcp.visimark.imports import read_csv
from markmcp.visimark.model import build
from markmcp.visimark.port import MemoryFiles
from markmcp.visimark.report import format_check
from markmcp.visimark.write import fmt

CSV = b"Id,Time\n1,12.3\n2,10.1\n3,15.0\n"
DIGEST = hashlib.sha256(CSV).hexdigest()


def doc(decl: str, *lines: str) -> str:
    body = "\n".join(lines or ("Mean precision 2 = AVG(benchmark.Time)",))
    return f"```vmark #benchmark {decl}\n{body}\n```\n\nMean **12.47**<!--vmark=benchmark.Mean-->\n"


def findings(src: str, files: dict[str, bytes] | None = None) -> list[tuple[str, str | None]]:
    result = check(build(src), MemoryFiles({"benchmark.csv": CSV} if files is None else files))
    return [(f.code, f.message) for f in result.findings if f.is_problem]


def test_clean_import_evaluates() -> None:
    src = doc(f"from benchmark.csv labelled Id, Time at sha256:{DIGEST}")
    result = check(build(src), MemoryFiles({"benchmark.csv": CSV}))
    assert [f.code for f in result.findings] == []
    assert result.values["benchmark.Mean"] == Decimal("12.47")


def test_the_invoice_import_example_is_clean(tmp_path: Path) -> None:
    docs = shared_dir("visimark", "docs")
    for name in ("example-invoice-csv-import.md", "example-invoice-csv-import.csv"):
        shutil.copyfile(docs / name, tmp_path / name)
    path = tmp_path / "example-invoice-csv-import.md"
    result = check(build(path.read_text(encoding="utf-8")), DocumentFolder(path))
    assert [f.code for f in result.findings] == []
    anchors = [path.read_text()[a.value_span[0]:a.value_span[1]] for a in build(path.read_text()).located.anchors]
    assert anchors == ["23300.00", "5359.00", "28659.00"]
    # editing the CSV makes the stamp stale; fmt rewrites the `at` clause and nothing else
    csv_path = tmp_path / "example-invoice-csv-import.csv"
    edited = csv_path.read_bytes().replace(b"On-call support,hour,12", b"On-call support,hour,13")
    csv_path.write_bytes(edited)
    before = path.read_text(encoding="utf-8")
    stale = check(build(before), DocumentFolder(path))
    (f,) = [f for f in stale.findings if f.code == "STALE"]
    new = hashlib.sha256(edited).hexdigest()
    assert f.message == ("`example-invoice-csv-import.csv` does not match its recorded stamp — expected sha256:"
                         f"e6667fb8dda6801721d885c259e2456a9e6c92f1ec89af7f14330e0c54c6ac14, got sha256:{new}")
    p = subprocess.run([sys.executable, "-m", "markmcp.visimark.cli", "fmt", str(path)], capture_output=True,
                       text=True)
    assert p.stdout == f"{path}: updated 1 stamp\n"
    after = path.read_text(encoding="utf-8")
    assert after == before.replace("e6667fb8dda6801721d885c259e2456a9e6c92f1ec89af7f14330e0c54c6ac14", new)
    assert csv_path.read_bytes() == edited
    # the data changed too (its values are the CSV's own): the anchors still say so
    assert check(build(after), DocumentFolder(path)).exit_code == 0


def test_stale_stamp_is_stale_and_fmt_touches_only_the_digest() -> None:
    old = "0" * 64
    src = doc(f"from benchmark.csv labelled Id, Time at sha256:{old}")
    files = MemoryFiles({"benchmark.csv": CSV})
    result = check(build(src), files)
    assert [(f.code, f.artifact) for f in result.findings] == [("STALE", "benchmark.csv")]
    text = format_check("b.md", result.findings)
    assert f"  STALE   benchmark.        `benchmark.csv` does not match its recorded stamp — expected sha256:{old}" in text
    r = fmt(src, files=files)
    assert r.output == src.replace(old, DIGEST) and r.stamps_updated == 1
    assert files.writes == [] and files.files["benchmark.csv"] == CSV
    assert fmt(r.output, files=files).output == r.output


def test_unstamped_import_is_an_error_fmt_stamps() -> None:
    src = doc("from benchmark.csv labelled Id, Time")
    assert findings(src) == [("IMPORT", "unstamped import")]
    out = fmt(src, files=MemoryFiles({"benchmark.csv": CSV})).output
    assert out == doc(f"from benchmark.csv labelled Id, Time at sha256:{DIGEST}")


@pytest.mark.parametrize("decl,message", [
    ("from missing.csv at sha256:" + DIGEST, "imported file not found: `missing.csv`"),
    ("from ../../../etc/passwd.csv", "imported file path escapes the document's directory"),
    ("from /etc/passwd.csv", "imported file path must be relative"),
    ("from benchmark.txt", "imported file path must end in `.csv`"),
    ("from https://example.com/x.csv", "imported file path must be a relative path, not a URL"),
    ("from benchmark.csv labelled Id, Time, Extra at sha256:" + DIGEST,
     "labelled header does not match: expected [Id, Time, Extra], got [Id, Time]"),
    ("from benchmark.csv at md5:abc", "unrecognised stamp prefix `md5` — only `sha256:` is supported"),
    ("from benchmark.csv at sha256:" + DIGEST.upper(), "malformed digest (uppercase hex)"),
    ("from benchmark.csv at sha256:abc", "malformed digest (wrong length)"),
])
def test_import_refusals(decl: str, message: str) -> None:
    assert findings(doc(decl)) == [("IMPORT", message)]


@pytest.mark.parametrize("data,message", [
    (b"", "empty file (not even a header row)"),
    (b"Id,Time\r\n1,2\n", "mixed line endings — the file mixes CRLF and bare LF/CR"),
    (b'Id,Time\n1,"2\n', "unterminated quoted field"),
    (b"Id,Id\n1,2\n", "duplicate column `Id` in imported header"),
    (b"Id,Run time\n1,2\n", "imported column `Run time` is not a valid identifier"),
])
def test_malformed_csv(data: bytes, message: str) -> None:
    src = doc("from benchmark.csv at sha256:" + hashlib.sha256(data).hexdigest())
    assert findings(src, {"benchmark.csv": data}) == [("IMPORT", message)]


def test_column_rule_on_an_imported_sheet() -> None:
    src = doc(f"from benchmark.csv labelled Id, Time at sha256:{DIGEST}", "Time = 0", "n = COUNT(Time)")
    assert findings(src) == [("IMPORT", "column rule on an imported sheet: `Time` is a read-only imported column")]


def test_grammar_of_the_declaration() -> None:
    assert ("TYPE", "`labelled` is out of order or repeated") in findings(
        doc("from benchmark.csv unlabelled A, B labelled Id, Time"))
    assert ("TYPE", "unrecognised token `with` in import declaration") in findings(doc("from benchmark.csv with x"))
    assert ("TYPE", "`delimited 5` is not allowed — a delimiter may not be a letter, digit, quote, `.`, `-`, "
                    "or whitespace") in findings(doc("from benchmark.csv delimited 5"))
    decl = parse_import(" from a.csv delimited ; labelled A, B at sha256:x", 10)
    assert decl is not None and (decl.delimiter, decl.labels, decl.stamp_digest) == (";", ["A", "B"], "x")


def test_headerless_and_delimited_imports() -> None:
    data = b"1;12.3\n2;10.1\n3;15.0\n"
    src = doc("from benchmark.csv delimited ; unlabelled Id, Time at sha256:" + hashlib.sha256(data).hexdigest())
    result = check(build(src), MemoryFiles({"benchmark.csv": data}))
    assert [f.code for f in result.findings if f.is_problem] == []
    assert result.values["benchmark.Mean"] == Decimal("12.47")
    ragged = b"1;12.3\n2\n"
    src = doc("from benchmark.csv delimited ; unlabelled Id, Time at sha256:" + hashlib.sha256(ragged).hexdigest())
    assert findings(src, {"benchmark.csv": ragged}) == [("IMPORT", "too many names: declared 2, row 2 has 1 fields")]


def test_failed_import_suppresses_its_readers_instead_of_undef() -> None:
    src = doc("from missing.csv")
    assert findings(src) == [("IMPORT", "imported file not found: `missing.csv`")]


def test_failed_import_counts_its_readers_in_one_note_per_sheet() -> None:
    # upstream's import spec, section 4 ("Suppression"): every binding that reads a sheet
    # whose import failed is folded into one per-sheet NOTE, not reported one by one
    src = doc("from missing.csv", "Mean precision 2 = AVG(benchmark.Time)", "Top = MAX(benchmark.Time)",
              "n = COUNT(Time)", "assert Top > 0")
    result = check(build(src), MemoryFiles({}))
    notes = [(f.code, f.sheet, f.suppressed_count, f.message) for f in result.findings if f.code == "NOTE"]
    assert notes == [("NOTE", "benchmark", 3, "3 bindings not verified (upstream IMPORT errors)"),
                     ("NOTE", "benchmark", 1, "1 assertion not verified (upstream errors)")]
    report = format_check("doc.md", result.findings)
    assert "NOTE    #benchmark      · 3 bindings not verified (upstream IMPORT errors)" in report
    assert report.rstrip().endswith("1 problem (0 stale, 1 error)")  # advice never counts


def test_no_import_note_when_nothing_was_read() -> None:
    # without a folder to read from nothing is verified and nothing is claimed: no finding
    result = check(build(doc("from missing.csv")))
    assert [f.code for f in result.findings] == []
    # a sheet whose import succeeded has no note either
    assert [f.code for f in check(build(doc("from benchmark.csv")), MemoryFiles({"benchmark.csv": CSV})).findings
            if f.code == "NOTE"] == []


def test_a_date_shaped_field_is_text() -> None:
    data = b"Id,When\n1,15/10/2026\n"
    src = doc("from benchmark.csv at sha256:" + hashlib.sha256(data).hexdigest(), "n = COUNT(When)")
    assert findings(src, {"benchmark.csv": data}) == []


def test_import_path_through_a_symlink_out_of_the_folder(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "benchmark.csv").write_bytes(CSV)
    home = tmp_path / "doc"
    home.mkdir()
    (home / "benchmark.csv").symlink_to(outside / "benchmark.csv")
    src = doc(f"from benchmark.csv at sha256:{DIGEST}")
    result = check(build(src), DocumentFolder(home / "d.md"))
    assert [(f.code, f.message) for f in result.findings if f.is_problem] == [
        ("IMPORT", "imported file path `benchmark.csv` resolves through a symlink out of the document's directory")]


# ------------------------------------------------------------- round trips

# names without digits: a digit beside punctuation reads as a decorated number, and a
# column mixing those with text is (rightly) a UNIT finding, not what this test is about
field = st.text(st.characters(exclude_categories=("Cs", "Nd", "No", "Nl"), exclude_characters="\r\x00"), max_size=12)
numbers = st.decimals(min_value=-10**6, max_value=10**6, places=2, allow_nan=False, allow_infinity=False)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(field, numbers), min_size=0, max_size=20), st.sampled_from([",", ";", "\t", "|"]),
       st.sampled_from(["\n", "\r\n"]))
def test_random_csv_round_trips_through_an_import(rows, delimiter: str, newline: str) -> None:
    # a line break inside a quoted field of a CRLF file is a mixed-endings file: refused, by rule
    assume(newline == "\n" or not any("\n" in name for name, _ in rows))
    buf = io.StringIO()
    writer = csv.writer(buf, delimiter=delimiter, lineterminator=newline)
    writer.writerow(["Name", "Amount"])
    writer.writerows([(name, str(amount)) for name, amount in rows])
    data = buf.getvalue().encode("utf-8")
    assert read_csv(data.decode("utf-8"), delimiter)[1:] == [[n, str(a)] for n, a in rows]
    clause = "" if delimiter == "," else f"delimited {delimiter} "
    if delimiter == "\t":
        return  # a tab cannot be written in a fence info string; the reader still round-trips it
    src = (f"```vmark #t from t.csv {clause}labelled Name, Amount at sha256:{hashlib.sha256(data).hexdigest()}\n"
           "total precision 2 = SUM(Amount)\nn = COUNT(Name)\n```\n\nTotal **0**<!--vmark=t.total--> over **0**<!--vmark=t.n-->.\n")
    files = MemoryFiles({"t.csv": data})
    result = check(build(src), files)
    assert result.values["t.total"] == sum((a for _, a in rows), Decimal(0))
    assert result.values["t.n"] == len(rows)
    out = fmt(src, files=files).output
    assert check(build(out), files).exit_code == 0 and files.files["t.csv"] == data and files.writes == []


def test_explain_shows_the_import(tmp_path: Path) -> None:
    (tmp_path / "benchmark.csv").write_bytes(CSV)
    path = tmp_path / "b.md"
    path.write_text(doc(f"from benchmark.csv labelled Id, Time at sha256:{'0' * 64}"), encoding="utf-8")
    run = [sys.executable, "-m", "markmcp.visimark.cli", "explain", str(path)]
    text = subprocess.run(run, capture_output=True, text=True).stdout
    assert "  import:  from benchmark.csv (delimited `,`, labelled Id, Time), stamp stale" in text
    import json

    env = json.loads(subprocess.run(run + ["--json"], capture_output=True, text=True).stdout)
    assert env["sheets"][0]["import"] == {"path": "benchmark.csv", "delimiter": ",", "labels": ["Id", "Time"],
                                          "mode": "labelled", "stamp": "sha256:" + "0" * 64, "stampStatus": "stale"}
