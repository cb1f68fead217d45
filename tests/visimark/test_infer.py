"""`visimark infer`: what it proposes, what it refuses, and that what it writes checks clean."""

from __future__ import annotations

import difflib
import json
import re
import shutil
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import shared_dir
from markmcp.visimark.check import check
from markmcp.visimark.infer import apply, infer, plan
from markmcp.visimark.infer_read import figures, generate_alias
from markmcp.visimark.infer_report import format_infer
from markmcp.visimark.model import build
from markmcp.visimark.report import format_check


def quote() -> str:
    return (shared_dir("visimark", "docs") / "example-quote-plain.md").read_text(encoding="utf-8")


def transcripts(src: str) -> list[str]:
    """The console blocks of a document's appendix, without their `$` lines."""
    blocks = re.findall(r"```console\n(.*?)```", src, re.S)
    return ["\n".join(line for line in b.rstrip("\n").split("\n") if not line.startswith("$")) for b in blocks]


def written(src: str) -> str:
    return apply(src, plan(infer(src)))


def problems(src: str) -> list[str]:
    return [f"{f.code} {f.ident}" for f in check(build(src)).findings if f.is_problem]


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "markmcp.visimark.cli", *args], capture_output=True, text=True,
                          encoding="utf-8", timeout=60)


# --- the worked example (EXPECTED.md: example-quote-plain.md) -------------------------------


def test_quote_report_is_the_appendix_transcript() -> None:
    src = quote()
    assert format_infer("docs/example-quote-plain.md", infer(src)) == transcripts(src)[0]


def test_quote_written_has_two_minted_sheets_and_checks_clean() -> None:
    src = quote()
    assert problems(src) == ["COVERAGE ."]
    out = written(src)
    assert list(build(out).sheets) == ["unnamed1", "unnamed2"]
    assert check(build(out)).findings == []
    # insertions only: no byte of the original is changed or removed
    ops = {op for op, *_ in difflib.SequenceMatcher(None, src, out, autojunk=False).get_opcodes()}
    assert ops == {"equal", "insert"}


def test_quote_one_changed_seat_count_breaks_both_tables() -> None:
    out = written(quote())
    edited = out.replace("|    24 | 450.00 |", "|    26 | 450.00 |", 1)
    assert edited != out
    sheets = {f.sheet for f in check(build(edited)).findings if f.is_problem}
    assert {"unnamed1", "unnamed2"} <= sheets


def test_quote_transposed_digits_give_the_near_miss_excerpt() -> None:
    src = quote()
    broken = src.replace("5832.00 |", "5823.00 |", 1)
    assert broken != src
    report = format_infer("quote.md", infer(broken))
    assert transcripts(src)[1] in report
    # the near-miss is never written, and the rest still is (and checks clean)
    out = written(broken)
    assert "Delivered" not in out.split("```vmark #unnamed1", 1)[1].split("```", 1)[0]
    assert problems(out) == []


def test_quote_cli_write_equals_the_engine_and_is_idempotent(tmp_path: Path) -> None:
    doc = tmp_path / "quote.md"
    shutil.copyfile(shared_dir("visimark", "docs") / "example-quote-plain.md", doc)
    p = run("infer", str(doc), "--write")
    assert p.returncode == 0, p.stderr
    assert p.stdout.endswith(f"4 rules, 0 aliases, 6 scalars, 6 anchors.\n{doc}: wrote 2 blocks, 6 anchors\n")
    assert doc.read_text(encoding="utf-8") == written(quote())
    again = run("infer", str(doc), "--write", "--json")
    entry = json.loads(again.stdout)["files"][0]
    assert entry["proposals"] == [] and "already has `vmark` blocks" in entry["leftAlone"]
    assert entry["written"] == {"blocks": 0, "anchors": 0, "marker": False}
    assert run("check", str(doc)).returncode == 0


def test_quote_json_envelope() -> None:
    src_path = shared_dir("visimark", "docs") / "example-quote-plain.md"
    p = run("infer", str(src_path), "--json")
    assert p.returncode == 0
    env = json.loads(p.stdout)
    assert list(env)[:3] == ["command", "visimark", "status"] and env["status"] == "ok"
    assert env["summary"] == {"files": 1, "rules": 4, "scalars": 6, "anchors": 6}
    proposals = env["files"][0]["proposals"]
    assert "written" not in env["files"][0]
    revenue = proposals[0]
    assert revenue == {"kind": "column", "sheet": "unnamed1", "name": "Revenue", "rule": "Revenue = Seats * Fee",
                       "fits": 4, "rows": 4, "weak": False}
    materials = next(p for p in proposals if p["name"] == "Materials")
    assert materials["rule"] == "Materials precision 2 = Revenue * 0.08"
    fee = next(p for p in proposals if p["name"] == "fee_avg")
    assert fee["figure"] == {"text": "530.00", "line": 20, "anchored": True}
    assert {p["kind"] for p in proposals} == {"column", "constant", "scalar", "alternative"}


# --- the infer design's own acceptance: the invoice with its rules stripped -----------------


def strip_rules(src: str) -> str:
    src = re.sub(r"\n```vmark[^\n]*\n.*?\n```\n", "\n", src, flags=re.S)
    return re.sub(r"<!--vmark=[^>]*-->", "", src)


def test_stripped_invoice_recovers_its_rules_and_totals() -> None:
    src = strip_rules((shared_dir("visimark", "docs") / "example-invoice.md").read_text(encoding="utf-8"))
    inference = infer(src)
    rules = {(p.sheet, p.kind, p.rule) for p in inference.proposals if p.kind in ("column", "scalar")}
    assert rules == {
        ("unnamed1", "column", "Net = Qty * Rate"), ("unnamed1", "column", "VAT precision 2 = Net * 0.23"),
        ("unnamed1", "column", "Gross = Net + VAT"), ("unnamed1", "scalar", "net_total = SUM(Net)"),
        ("unnamed1", "scalar", "vat_total = SUM(VAT)"), ("unnamed1", "scalar", "gross_total = SUM(Gross)"),
        ("unnamed2", "column", "Amount precision 2 = Share * unnamed1.gross_total"),
        ("unnamed2", "scalar", "amount_total = SUM(Amount)"),
    }
    # the constant is detected, never named; the figures at the end match two totals: not anchored
    constant = next(p for p in inference.proposals if p.kind == "constant")
    assert (constant.name, constant.echo.text if constant.echo else None) == ("0.23", "23%")
    loose = [p for p in inference.proposals if p.table == -1]
    assert [len(p.alternatives or []) for p in loose] == [2, 2]
    assert check(build(written(src))).findings == []


def test_stripped_drift_reports_the_wrong_row() -> None:
    src = strip_rules((shared_dir("visimark", "docs") / "example-invoice-drift.md").read_text(encoding="utf-8"))
    net = next(p for p in infer(src).proposals if p.kind == "near-miss" and p.name == "Net")
    assert (net.fits, net.rows) == (3, 4)
    d = net.disagreement
    assert d is not None and (d.row_index, d.row_label, d.stored, d.computed) == (3, "On-call support", "3120.00", "5200.00")
    assert "      cell 3120.00, rule gives 5200.00        differs by 2080.00" in format_infer("d.md", infer(src))
    assert problems(written(src)) == []


# --- the quoted-header alias fixture ----------------------------------------------------------


def test_quoted_header_gets_no_alias_and_is_an_input() -> None:
    """A header holding `"` can be named by no quoted form or alias (the alias spec, §5 and
    §6): it is listed as an input and no alias is proposed."""
    src = (shared_dir("visimark", "fixtures") / "column-alias-quoted-string-header.md").read_text(encoding="utf-8")
    inference = infer(src)
    assert [p for p in inference.proposals if p.kind == "alias"] == []
    report = format_infer("x.md", inference)
    assert '  no rule found — treating as inputs\n    GPUs, Length ("inch")' in report
    assert report.endswith("0 rules, 0 aliases, 0 scalars, 0 anchors.")


def test_wordy_headers_get_aliases_and_rules_read_them() -> None:
    src = ("| Unit price | Qty | Net total |\n|---|---|---|\n| 2.50 | 4 | 10.00 |\n| 3.00 | 2 | 6.00 |\n"
           "| 1.25 | 8 | 10.00 |\n\nAll lines come to **26.00**.\n")
    inference = infer(src)
    assert [(p.name, p.rule) for p in inference.proposals if p.kind == "alias"] == [
        ("up", '"Unit price" is up'), ("nt", '"Net total" is nt')]
    assert [p.rule for p in inference.proposals if p.kind == "column"] == ["nt = up * Qty"]
    assert check(build(written(src))).findings == []
    assert generate_alias("Bandwidth per Unit (TB/s, full-duplex)") == "butsfd"
    assert generate_alias("2nd pass") == "_2p"


def test_an_alias_name_that_is_taken_is_ambiguous_not_proposed() -> None:
    src = "| s | Sum of | Qty |\n|---|---|---|\n| 1 | 2 | 3 |\n| 2 | 4 | 6 |\n| 3 | 6 | 9 |\n"
    inference = infer(src)
    clash = [p for p in inference.proposals if p.kind == "ambiguous" and p.name == "s"]
    assert clash and clash[0].alternatives == ['"Sum of" is s']
    assert not any(p.kind == "alias" for p in inference.proposals)


# --- selection, evidence, refusals ------------------------------------------------------------


TABLE = "| Item | Qty | Rate | Net | VAT | Gross |\n|---|--:|--:|--:|--:|--:|\n"


def rows(*lines: str) -> str:
    return TABLE + "".join(f"| {line} |\n" for line in lines)


def test_a_set_not_a_list_no_cycle_and_the_constructive_form_wins() -> None:
    src = rows("a | 2 | 10.00 | 20.00 | 4.60 | 24.60", "b | 3 | 5.00 | 15.00 | 3.45 | 18.45",
               "c | 1 | 7.00 | 7.00 | 1.61 | 8.61", "d | 4 | 2.50 | 10.00 | 2.30 | 12.30")
    rules = [p.rule for p in infer(src).proposals if p.kind == "column"]
    # Net * 0.23 derives four decimals; the cells show two, so the rule says so
    assert rules == ["Net = Qty * Rate", "VAT precision 2 = Net * 0.23", "Gross = Net + VAT"]
    assert problems(written(src)) == []


def test_a_constant_operand_makes_the_rule_ambiguous() -> None:
    src = ("| Item | Qty | Rate | Net |\n|---|--:|--:|--:|\n| a | 1 | 10.00 | 10.00 |\n| b | 1 | 5.00 | 5.00 |\n"
           "| c | 1 | 7.00 | 7.00 |\n")
    ps = infer(src).proposals
    amb = [p for p in ps if p.kind == "ambiguous" and p.name == "Net"]
    assert amb and set(amb[0].alternatives or []) == {"Net = Qty * Rate", "Net = Rate"}
    assert not any(p.kind == "column" and p.name == "Net" for p in ps)


def test_evidence_floors() -> None:
    one = rows("a | 2 | 10.00 | 20.00 | 4.60 | 24.60")
    assert [p for p in infer(one).proposals if p.kind == "column"] == []
    two = rows("a | 2 | 10.00 | 20.00 | 4.60 | 24.60", "b | 3 | 5.00 | 15.00 | 3.45 | 18.45")
    weak = [p for p in infer(two).proposals if p.kind == "column"]
    assert weak and all(p.weak for p in weak)
    assert "2 rows — weak, not written" in format_infer("w.md", infer(two))
    assert plan(infer(two)) == []  # weak proposals are never written (and they are something: no marker)


def test_a_constant_that_fits_only_its_own_row_is_not_proposed() -> None:
    src = ("| A | B |\n|--:|--:|\n| 2.00 | 3.00 |\n| 4.00 | 9.00 |\n| 5.00 | 1.00 |\n")
    assert [p for p in infer(src).proposals if p.kind in ("column", "near-miss")] == []


def test_nothing_to_derive_writes_the_marker_and_a_near_miss_never_does() -> None:
    plain = "| Name | City |\n|---|---|\n| Ann | Oslo |\n| Bo | Rome |\n"
    out = written(plain)
    assert out == plain + "\n<!--vmark:no-formulas-->\n"
    assert problems(out) == []
    near = rows("a | 2 | 10.00 | 20.00 | 4.60 | 24.60", "b | 3 | 5.00 | 15.00 | 3.45 | 18.45",
                "c | 1 | 7.00 | 7.50 | 1.72 | 9.22", "d | 4 | 2.50 | 10.00 | 2.30 | 12.30")
    assert "<!--vmark:no-formulas-->" not in written(near)


def test_a_document_with_rules_or_the_marker_is_left_alone() -> None:
    src = (shared_dir("visimark", "docs") / "example-invoice.md").read_text(encoding="utf-8")
    inference = infer(src)
    assert inference.proposals == [] and inference.left_alone and "already has `vmark` blocks" in inference.left_alone
    assert plan(inference) == []
    assert format_infer("inv.md", inference).startswith("inv.md: infer leaves this document alone — ")
    marked = "| A |\n|---|\n| 1 |\n\n<!--vmark:no-formulas-->\n"
    assert infer(marked).left_alone and plan(infer(marked)) == []


# --- which prose figures state a value ------------------------------------------------------------


def test_figures_only_where_fmt_would_write_them() -> None:
    table = "| Item | Share | Price |\n|---|--:|--:|\n| a | 25% | $250.00 |\n| b | 75% | $500.00 |\n| c | 0% | $0.00 |\n\n"
    prose = ("Postal code 00-950, code `#unnamed1`, a quarter is 25% and the total is **$750.00** — "
             "or *750.00*, or `750.00`, or just 750.00\n")
    inference = infer(table + prose)
    picked = [(p.name, p.figure.text) for p in inference.proposals if p.kind == "scalar" and p.figure]
    assert ("price_total", "$750.00") in picked
    names = {name for name, _ in picked}
    assert "share_min" not in names and "share_total" not in names  # neither `00` nor `#unnamed1` nor `25%`


def test_anchor_insertion_into_each_inline_kind() -> None:
    table = "| Item | Net |\n|---|--:|\n| a | 1.00 |\n| b | 2.00 |\n| c | 4.00 |\n\n"
    for prose, anchored in [("Sum **7.00** here.", "**7.00**<!--vmark=unnamed1.net_total--> here."),
                            ("Sum *7.00* here.", "*7.00*<!--vmark=unnamed1.net_total--> here."),
                            ("Sum `7.00` here.", "`7.00`<!--vmark=unnamed1.net_total--> here."),
                            ("The sum is 7.00", "The sum is 7.00<!--vmark=unnamed1.net_total-->")]:
        out = written(table + prose + "\n")
        assert anchored in out, out
        assert problems(out) == []


def test_figure_scanner_skips_code_comments_tables_and_glued_digits() -> None:
    src = ("Invoice TQ-2026-0417 dated 2026-09-04 at 10:30, item v1.2, 3rd row, 12 items <!-- 99 -->\n\n"
           "```\n42\n```\n\n| A |\n|---|\n| 7 |\n\nA `x = 5` span and 8% here, not 9%.\n")
    assert [f.text for f in figures(src)] == ["12", "8%"]


# --- what infer writes always checks: a property over generated tables --------------------------------


@st.composite
def arithmetic_tables(draw) -> str:
    n = draw(st.integers(min_value=1, max_value=5))
    qty = [draw(st.integers(min_value=0, max_value=40)) for _ in range(n)]
    rate = [Decimal(draw(st.integers(min_value=0, max_value=99999))).scaleb(-2) for _ in range(n)]
    k = Decimal(draw(st.sampled_from(["0.23", "0.08", "1.5", "2", "0.125"])))
    net = [q * r for q, r in zip(qty, rate)]
    tax = [(x * k).quantize(Decimal("0.01")) for x in net]
    gross = [a + b for a, b in zip(net, tax)]
    if draw(st.booleans()) and n >= 3:  # a hand-typed wrong number somewhere
        i = draw(st.integers(min_value=0, max_value=n - 1))
        gross[i] += Decimal(draw(st.sampled_from(["0.01", "1.00", "9.00"])))
    lines = ["| Item | Qty | Rate | Net | Tax | Gross |", "|---|--:|--:|--:|--:|--:|"]
    for i in range(n):
        lines.append(f"| r{i} | {qty[i]} | {rate[i]:.2f} | {net[i]:.2f} | {tax[i]:.2f} | {gross[i]:.2f} |")
    total = sum(gross, Decimal(0))
    prose = draw(st.sampled_from(["", f"\nGross comes to **{total:.2f}**.\n", f"\nNet is {sum(net, Decimal(0)):.2f}\n"]))
    return "\n".join(lines) + "\n" + prose


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(arithmetic_tables())
def test_whatever_infer_writes_checks_without_problems(src: str) -> None:
    inference = infer(src)
    inserts = plan(inference)
    out = apply(src, inserts)
    expected = [] if inserts else problems(src)  # nothing written: the document stays as it was
    assert problems(out) == expected, (src, format_infer("x.md", inference), format_check("x.md", check(build(out)).findings))
    for p in inference.proposals:
        if p.kind == "column" and not p.weak:
            assert p.fits == p.rows >= 3


# --- a wrong number is never absorbed by a rounded quotient -------------------------------------------


def line_items(qty: list[int], cents: list[int], total: list[Decimal]) -> str:
    lines = ["| Item | Qty | Price | Total |", "|---|--:|--:|--:|"]
    for i, (q, c, t) in enumerate(zip(qty, cents, total)):
        lines.append(f"| r{i} | {q} | {Decimal(c).scaleb(-2):.2f} | {t:.2f} |")
    return "\n".join(lines) + "\n"


def assert_near_miss_on(src: str, label: str, stored: str, computed: str) -> None:
    inference = infer(src)
    report = format_infer("x.md", inference)
    near = [p for p in inference.proposals if p.kind == "near-miss" and p.name == "Total"]
    assert [p.rule for p in near] == ["Total = Qty * Price"], report
    d = near[0].disagreement
    assert d is not None and (d.row_label, d.stored, d.computed) == (label, stored, computed), report
    # no rule for any of the three columns is written: none of them may pass the wrong Total
    assert not [p.rule for p in inference.proposals if p.kind == "column"], report


def test_a_wrong_total_is_a_near_miss_not_a_rounded_quantity() -> None:
    """2 x 38.00 stored as 67.00: `Qty precision 0 = Total / Price` fits every row (67 / 38 =
    1.76 rounds to 2) only because rounding hides the error; the product's near-miss stands."""
    src = line_items([10, 5, 2, 3], [120, 450, 3800, 210], [Decimal("12.00"), Decimal("22.50"),
                                                            Decimal("67.00"), Decimal("6.30")])
    assert_near_miss_on(src, "r2", "67.00", "76.00")


def test_a_wrong_total_is_a_near_miss_not_a_rounded_price() -> None:
    """12 x 38.00 stored as 456.01: 456.01 / 12 = 38.0008 rounds to the Price, as above."""
    src = line_items([10, 5, 12, 3], [120, 450, 3800, 210], [Decimal("12.00"), Decimal("22.50"),
                                                             Decimal("456.01"), Decimal("6.30")])
    assert_near_miss_on(src, "r2", "456.01", "456.00")


@st.composite
def one_wrong_total(draw) -> tuple[str, str, str, str]:
    n = draw(st.integers(min_value=4, max_value=6))
    qty = draw(st.lists(st.integers(min_value=1, max_value=40), min_size=n, max_size=n, unique=True))
    cents = draw(st.lists(st.integers(min_value=100, max_value=99999), min_size=n, max_size=n, unique=True))
    total = [q * Decimal(c).scaleb(-2) for q, c in zip(qty, cents)]
    i = draw(st.integers(min_value=0, max_value=n - 1))
    right = total[i]
    # mostly errors smaller than half a unit of Price or of Qty, which a rounded quotient absorbs
    off = draw(st.one_of(st.integers(min_value=1, max_value=max(1, qty[i] // 2)),
                         st.integers(min_value=1, max_value=max(1, cents[i] // 2)),
                         st.integers(min_value=1, max_value=10**6)))
    wrong = right + Decimal(off * draw(st.sampled_from([1, -1]))).scaleb(-2)
    if wrong < 0:
        wrong = right + Decimal(off).scaleb(-2)
    total[i] = wrong
    return line_items(qty, cents, total), f"r{i}", f"{wrong:.2f}", f"{right:.2f}"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(one_wrong_total())
def test_one_wrong_total_is_always_a_near_miss(case: tuple[str, str, str, str]) -> None:
    src, label, stored, computed = case
    assert_near_miss_on(src, label, stored, computed)



def test_an_alias_is_proposed_whether_or_not_a_rule_reads_it() -> None:
    """Upstream's column-alias spec §5: every header that is not an identifier, has no rule and
    no alias is a candidate 'independent of whether the column is numeric'; an alias that
    nothing reads is then check's WARN (§3), advice that costs nothing."""
    src = ("| Line item | Qty | Unit price | Total |\n|---|--:|--:|--:|\n| Pens | 10 | 1.20 | 12.00 |\n"
           "| Paper | 5 | 4.50 | 22.50 |\n| Toner | 2 | 38.00 | 76.00 |\n")
    inference = infer(src)
    assert [p.rule for p in inference.proposals if p.kind == "alias"] == ['"Line item" is li', '"Unit price" is up']
    assert [p.rule for p in inference.proposals if p.kind == "column"] == ["Total = Qty * up"]
    findings = check(build(written(src))).findings
    assert [(f.code, f.name) for f in findings] == [("WARN", "li")]
