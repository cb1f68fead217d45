"""What a second reviewer, driving visimark-mcp as an agent would, could not act on: an
UNDEF did-you-mean that proposed the rule's own name (or a row label it cannot name), check
findings that said where only by sheet and name, never by line, and an infer_apply that left
proposals of the plan unwritten without saying which or why."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

from conftest import shared_dir

from markmcp.mcpcore import CallContext
from markmcp.visimark.check import check
from markmcp.visimark.cli import main
from markmcp.visimark.envelopes import fmt_plan
from markmcp.visimark.model import build
from markmcp.visimark.report import findings_json, format_check
from markmcp.visimark.server import check_tool

F = "```"

TEAM = ("# Q3\n\n"
        "| Item   | Cost [EUR] |\n"
        "|--------|-----------:|\n"
        "| Cloud  |        100 |\n"
        "| Office |        200 |\n\n")


def undef(src: str) -> list:
    return [f for f in check(build(src)).findings if f.code == "UNDEF"]


# --- 15: did-you-mean ---------------------------------------------------------------------------


def test_a_scalar_is_never_offered_its_own_name() -> None:
    [f] = undef(TEAM + f"{F}vmark #q3\ntotal = SUM(Cost)\noffice_x = Offce + 1\n{F}\n")
    assert f.raw == "Offce" and f.suggestion != "office_x"


def test_a_qualified_read_of_the_own_sheet_is_never_offered_its_own_name() -> None:
    [f] = undef(TEAM + f"{F}vmark #q3\noffice_x = q3.Offce + 1\n{F}\n")
    assert f.suggestion != "office_x"


def test_a_document_scope_binding_is_never_offered_its_own_name() -> None:
    [f] = undef(f"{F}vmark\nrate_x = rate_y * 2\n{F}\n")
    assert f.suggestion is None


def test_a_column_rule_is_never_offered_its_own_column_or_alias() -> None:
    src = ("| Item | Qty | Net |\n|---|--:|--:|\n| a | 2 | 4 |\n| b | 3 | 6 |\n\n"
           f"{F}vmark #s\n\"Net\" is nett\nnett = Qty * Nte\n{F}\n")
    [f] = undef(src)
    assert f.raw == "Nte" and f.suggestion not in ("Net", "nett")


def test_another_binding_close_to_the_name_is_still_offered() -> None:
    [f] = undef(TEAM + f"{F}vmark #q3\nbase_x = 5\noffice_x = base_y + 1\n{F}\n")
    assert f.suggestion == "base_x"


def test_a_row_label_read_as_a_name_says_rows_cannot_be_named() -> None:
    src = TEAM + f"{F}vmark #q3\ncloud_q [EUR] = SUM(Cloud)\n{F}\n"
    [f] = undef(src)
    assert f.suggestion is None
    assert f.hint == "`Cloud` is a row label: a rule cannot name a row, only a column or a scalar"
    report = format_check("d.md", check(build(src)).findings)
    assert "unknown name `Cloud`\n          `Cloud` is a row label" in report
    assert "did you mean" not in report
    [j] = findings_json([f], "d.md", src)
    assert j["details"] == {"message": "unknown name `Cloud`", "hint": f.hint}


def test_a_name_that_is_no_row_label_keeps_its_did_you_mean() -> None:
    [f] = undef(TEAM + f"{F}vmark #q3\ncloud_q [EUR] = SUM(Cots)\n{F}\n")
    assert f.hint is None and f.suggestion == "Cost"


# --- 16: lines ----------------------------------------------------------------------------------


def lines_of(src: str) -> dict[tuple, int | None]:
    out = {}
    for j in findings_json(check(build(src)).findings, "d.md", src):
        loc = j["location"]
        out[(j["code"], loc.get("name"), loc.get("row"))] = loc.get("line")
    return out


def test_each_finding_carries_the_line_of_the_cell_rule_or_anchor_at_fault() -> None:
    src = ("# Costs\n"                                       # 1
           "\n"                                              # 2
           "| Item | Qty | Net |\n"                          # 3
           "|---|--:|--:|\n"                                 # 4
           "| a | 2 | 4 |\n"                                 # 5
           "| b | 3 | 7 |\n"                                 # 6
           "\n"                                              # 7
           f"{F}vmark #s\n"                                  # 8
           "Net = Qty * 2\n"                                 # 9
           "total = SUM(Net)\n"                              # 10
           "oops = nope + 1\n"                               # 11
           f"{F}\n"                                          # 12
           "\n"                                              # 13
           "In all **11**<!--vmark=s.total-->.\n"            # 14
           "A share **3**<!--vmark=s.Net-->.\n")             # 15
    got = lines_of(src)
    assert got[("STALE", "Net", "b")] == 6      # the cell, not the rule
    assert got[("STALE", "total", None)] == 14  # the anchor in the prose
    assert got[("UNDEF", "oops", None)] == 11   # the rule
    assert got[("ANCHOR", "Net", None)] == 15   # the anchor naming a column


def test_crlf_and_lone_cr_lines_are_counted_as_lines() -> None:
    body = ["| Item | Qty | Net |", "|---|--:|--:|", "| a | 2 | 4 |", "| b | 3 | 7 |", "",
            f"{F}vmark #s", "Net = Qty * 2", f"{F}", ""]
    for eol in ("\r\n", "\r"):
        src = eol.join(body)
        assert lines_of(src)[("STALE", "Net", "b")] == 4


def test_the_roll_ups_have_no_line() -> None:
    src = ("| Item | Qty |\n|---|--:|\n| a | 4 |\n| b | 6 |\n\n"
           f"{F}vmark #s\ntotal = SUM(Qty)\n{F}\n\n"
           "Total **12**<!--vmark=s.total-->, again **11**<!--vmark=s.total-->.\n")
    [group] = [j for j in findings_json(check(build(src)).findings, "d.md", src)
               if "suppressedCount" in j["details"]]
    assert "line" not in group["location"]


def test_the_text_report_keeps_upstreams_layout() -> None:
    src = TEAM + f"{F}vmark #q3\ntotal = SUM(Cost)\noffice_x = nope + 1\n{F}\n"
    report = format_check("d.md", check(build(src)).findings)
    assert report.split("\n")[2] == "  UNDEF   q3.office_x       unknown name `nope`"


def test_visimark_check_over_mcp_gives_the_line(tmp_path: Path) -> None:
    doc = tmp_path / "d.md"
    doc.write_text(TEAM + f"{F}vmark #q3\ntotal = SUM(Cost)\n{F}\n\nAll of it: **301**<!--vmark=q3.total-->.\n",
                   encoding="utf-8")
    ctx = CallContext(roots=(tmp_path,), cwd=tmp_path, allow_write=False, options={})
    body = check_tool({"path": str(doc)}, ctx)
    scalar, roll_up = body["files"][0]["findings"]
    assert scalar["location"]["line"] == 12 and "line" not in roll_up["location"]


def test_fmt_gives_the_lines_check_gives_though_its_repairs_move_offsets(tmp_path: Path) -> None:
    # a repaired cell one character longer moves every offset after it (here the CYCLE's
    # rule, whose offset then points at the line break before it): lines must not move
    src = (shared_dir("visimark", "docs") / "example-invoice-drift.md").read_text(encoding="utf-8")
    before = {(j["code"], j["location"].get("name"), j["location"].get("row")): j["location"].get("line")
              for j in findings_json(check(build(src)).findings, "d.md", src)}
    planned = fmt_plan("d.md", src, None).body["findings"]
    doc = tmp_path / "d.md"
    doc.write_text(src, encoding="utf-8")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(["fmt", "--json", str(doc)])
    written = json.loads(out.getvalue())["files"][0]["findings"]
    for found in (planned, written):
        lines = {(j["code"], j["location"].get("name"), j["location"].get("row")): j["location"].get("line")
                 for j in found}
        assert lines[("CYCLE", "base", None)] == 74
        assert lines and all(before[k] == v for k, v in lines.items())


# --- 14: what infer_apply did not write ---------------------------------------------------------


def apply_plan(tmp_path: Path, text: str, edit=None) -> dict:
    from markmcp.visimark.server import infer_apply_tool, infer_tool

    (tmp_path / "d.md").write_text(text, encoding="utf-8")
    ctx = CallContext(roots=(tmp_path,), cwd=tmp_path, allow_write=True, options={})
    plan = infer_tool({"path": "d.md"}, ctx)
    if edit is not None:
        plan = edit(plan)
    return infer_apply_tool({"path": "d.md", "plan": plan}, ctx)


ORDER = ("| Item | Qty | Price | Net |\n|---|--:|--:|--:|\n"
         "| a | 2 | 10.00 | 20.00 |\n| b | 3 | 5.00 | 15.00 |\n| c | 1 | 7.50 | 7.50 |\n\n")


def test_infer_apply_names_a_scalar_it_could_not_anchor(tmp_path: Path) -> None:
    # 42.50 sits mid-sentence: no inline node an anchor can follow, and no rule reads net_total
    done = apply_plan(tmp_path, ORDER + "The order comes to 42.50 EUR in all, paid in May.\n")
    assert done["written"] == {"blocks": 1, "anchors": 0, "marker": False}
    assert {"kind": "scalar", "sheet": "unnamed1", "name": "net_total", "rule": "net_total = SUM(Net)",
            "reason": "no anchorable inline node holds this figure, and no rule written reads it"} \
        in done["notWritten"]
    assert "Net = Qty * Price" in (tmp_path / "d.md").read_text(encoding="utf-8")


def test_infer_apply_names_what_a_total_row_holds_back(tmp_path: Path) -> None:
    text = (TEAM.replace("| Office |        200 |\n", "| Office |        200 |\n| Rent   |        300 |\n"
                         "| Total  |        600 |\n") + "In all we spend **600 EUR**.\n")
    done = apply_plan(tmp_path, text)
    assert done["changed"] is False and done["written"] == {"blocks": 0, "anchors": 0, "marker": False}
    [total] = [p for p in done["notWritten"] if p["kind"] == "scalar"]
    assert total["rule"] == "cost_total = SUM(Cost)"
    assert total["reason"].startswith("not written: the table's last row, `Total`, totals the rows above it")


def test_infer_apply_names_the_proposals_a_plan_only_reports(tmp_path: Path) -> None:
    wrong = ORDER.replace("| c | 1 | 7.50 | 7.50 |", "| c | 1 | 7.50 | 8.50 |\n| d | 2 | 1.00 | 2.00 |")
    done = apply_plan(tmp_path, wrong)
    near = [p for p in done["notWritten"] if p["kind"] == "near-miss"]
    assert near and near[0]["reason"].startswith("fits every row but one")


def test_infer_apply_of_everything_it_writes_has_an_empty_list(tmp_path: Path) -> None:
    def only_written(plan: dict) -> dict:
        ps = plan["files"][0]["proposals"]
        return {**plan, "files": [{**plan["files"][0], "proposals": [
            p for p in ps if p["kind"] in ("column", "alias", "scalar") and not p.get("reason")]}]}

    done = apply_plan(tmp_path, ORDER + "The order comes to **42.50**.\n", only_written)
    assert done["written"] == {"blocks": 1, "anchors": 1, "marker": False} and done["notWritten"] == []


def test_the_cli_infer_write_json_names_what_it_did_not_write(tmp_path: Path, monkeypatch) -> None:
    """`visimark infer --write --json` says what the MCP infer_apply says: each proposal left
    unwritten, with the reason, and the document gets what the tool would write."""
    doc = tmp_path / "d.md"
    doc.write_text(ORDER + "The order comes to 42.50 EUR in all, paid in May.\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["infer", "--write", "--json", "d.md"])
    assert code == 0
    [entry] = json.loads(out.getvalue())["files"]
    assert entry["written"] == {"blocks": 1, "anchors": 0, "marker": False}
    assert entry["notWritten"] == [{"kind": "scalar", "sheet": "unnamed1", "name": "net_total",
                                    "rule": "net_total = SUM(Net)",
                                    "reason": "no anchorable inline node holds this figure, and no rule "
                                              "written reads it"}]
    assert "Net = Qty * Price" in doc.read_text(encoding="utf-8")
