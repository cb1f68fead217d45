"""Behaviour an audit against upstream's documents found different, each test naming the
upstream text it holds: message wordings the vocabulary specs and upstream's tests quote
verbatim, and PMT's full working values, which its spec tabulates to 40 digits."""

from __future__ import annotations

from decimal import Decimal

import pytest

from markmcp.visimark.check import check
from markmcp.visimark.lang import LangError, parse_statement
from markmcp.visimark.model import build
from markmcp.visimark.write import fmt

F = "```"
NO_BOOLEANS = "VisiMark has no boolean literals; use `IF()` to produce a number or a string"


def findings(src: str) -> list[tuple[str, str | None, str | None]]:
    return [(f.code, f.name, f.message) for f in check(build(src)).findings if f.code != "WARN"]


def cash(values: list[str], rule: str) -> str:
    rows = "".join(f"| {i} | {v} |\n" for i, v in enumerate(values))
    return f"| Year | Cash |\n|---:|---:|\n{rows}\n{F}vmark #t\n{rule}\n{F}\n"


# --- booleans: upstream's booleans test pins one sentence for `true`/`false` anywhere


@pytest.mark.parametrize("src,name", [
    (f"| Item | Qty | Out |\n|---|--:|--:|\n| a | 10 | 9 |\n\n{F}vmark #s\nOut = IF(true, 1, 0)\n{F}\n", "Out"),
    (f"{F}vmark #s\ngood = 1\nflag = false\n{F}\n", "flag"),
    (f"{F}vmark\ntrue = 1\n{F}\n", "true"),
])
def test_a_boolean_literal_is_one_type_in_upstreams_words(src: str, name: str) -> None:
    assert [f for f in findings(src) if f[0] == "TYPE"] == [("TYPE", name, NO_BOOLEANS)]


# --- assert: upstream's parser test pins the message for a bare `assert`


@pytest.mark.parametrize("line", ["assert", "assert   ", "assert # nothing to test"])
def test_assert_with_no_expression(line: str) -> None:
    with pytest.raises(LangError) as caught:
        parse_statement(line)
    assert caught.value.args[0] == "assert needs an expression"


# --- IRR's spec (docs/vocab/irr-spec.md §4): the evaluation messages, in its order


@pytest.mark.parametrize("values,message", [
    (["0", "0", "0"], "IRR() of an all-zero column"),
    (["0"], "IRR() of an all-zero column"),
    (["100"], "IRR needs one sign change"),
    (["-100", "-5"], "IRR needs one sign change"),
    (["-100", "230", "-132"], "IRR has more than one sign change"),
])
def test_irr_evaluation_messages(values: list[str], message: str) -> None:
    assert findings(cash(values, "rate precision 4 = IRR(Cash)")) == [("TYPE", "rate", message)]


@pytest.mark.parametrize("call", ["IRR(k)", "NPV(0.08, k)"])
def test_a_scalar_where_the_column_goes(call: str) -> None:
    """NPV's and IRR's specs: `flows` naming a scalar binding is `NPV() expects a column`."""
    name = call.split("(")[0]
    assert findings(cash(["-100", "110"], f"k = 5\nx precision 2 = {call}")) == [
        ("TYPE", "x", f"{name}() expects a column")]


@pytest.mark.parametrize("rule,message", [
    ("x precision 2 = NPV(-1, Cash)", "NPV rate must be greater than -1"),
    ("x precision 2 = NPV(-1.5, Cash)", "NPV rate must be greater than -1"),
    ("x precision 2 = PMT(-1, 12, 1000)", "PMT rate must be greater than -1"),
    ("x precision 2 = PMT(-1.5, 12, 1000)", "PMT rate must be greater than -1"),
    ("x precision 2 = PMT(-1, 1.5, 1000)", "PMT expects a positive whole number of periods"),
])
def test_rate_of_minus_one_or_below(rule: str, message: str) -> None:
    assert findings(cash(["-100", "110"], rule)) == [("TYPE", "x", message)]


def test_npv_rate_is_checked_before_an_empty_column() -> None:
    assert findings(cash([], "x precision 2 = NPV(-1, Cash)")) == [
        ("TYPE", "x", "NPV rate must be greater than -1")]


# --- PMT's spec (docs/vocab/pmt-spec.md §3): the full working value of each case


@pytest.mark.parametrize("call,full", [
    ("PMT(0.01, 12, 10000)", "888.4878867834170733998783122788652898045"),
    ("PMT(0.005, 36, 48000)", "1460.252997674645676629785549680054151698"),
    ("PMT(0.01, 12, -10000)", "-888.4878867834170733998783122788652898045"),
    ("PMT(-0.005, 12, 1000)", "80.64988715141371165792070491691546452695"),
    ("PMT(0.1, 2, 1000)", "576.1904761904761904761904761904761904762"),
    ("PMT(0.10, 1, 1000)", "1100"),
    ("PMT(0, 12, 1200)", "100"),
    ("PMT(0, 4, 0)", "0"),
])
def test_pmt_full_working_value(call: str, full: str) -> None:
    result = check(build(f"{F}vmark #s\nraw = {call}\n{F}\n"))
    assert [f.code for f in result.findings] == ["WARN"]  # unanchored, unread: advice only
    value = result.values["s.raw"]
    assert isinstance(value, Decimal) and value == Decimal(full)  # to the last of 40 digits


def test_pmt_written_forms_still_round_half_up() -> None:
    src = ("Instalment **1460.25**<!--vmark=s.i-->.\n\n"
           f"{F}vmark #s\nmonthly precision 3 = 0.06 / 12\ni precision 2 = PMT(monthly, 36, 48000.00)\n{F}\n")
    assert findings(src) == []


def test_pmt_rate_too_small_to_move_forty_digits_is_not_finite() -> None:
    """The spec's order 4: a power or quotient with no finite decimal value."""
    tiny = "0." + "0" * 44 + "1"
    assert findings(f"{F}vmark #s\nx precision 2 = PMT({tiny}, 12, 100)\n{F}\n\nX **_**<!--vmark=s.x-->\n") == [
        ("TYPE", "x", "result is not a finite decimal")]


# --- explain: upstream's CLI test and alias plan (Task 7) show each alias as `symbol → "header"`

ALIASED = ("| GPUs | Bandwidth per Unit (TB/s, full-duplex) |\n|-----:|---:|\n|    8 |  3.2 |\n\n"
           f'{F}vmark #network\n"Bandwidth per Unit (TB/s, full-duplex)" is bpu\npeak = MAX(bpu)\n{F}\n')


def test_explain_lists_each_alias_under_its_own_heading() -> None:
    from markmcp.visimark.explain import explain_text

    lines = explain_text(build(ALIASED), check(build(ALIASED)), []).split("\n")
    at = lines.index("  aliases:")
    assert lines[at - 1].startswith("  inputs:")
    assert lines[at + 1] == '    bpu → "Bandwidth per Unit (TB/s, full-duplex)"'


def test_explain_json_lists_aliases_as_symbol_and_header() -> None:
    from markmcp.visimark.explain import explain_json

    plain = f"| A | B |\n|--:|--:|\n| 1 | 2 |\n\n{F}vmark #s\nB = A * 2\n{F}\n"
    aliased = explain_json(build(ALIASED), check(build(ALIASED)), [])["sheets"][0]
    assert aliased["aliases"] == [{"symbol": "bpu", "header": "Bandwidth per Unit (TB/s, full-duplex)"}]
    assert explain_json(build(plain), check(build(plain)), [])["sheets"][0]["aliases"] == []


# --- the command line: upstream's CLI test, "no command is a usage error"


def test_no_command_prints_the_usage_on_stderr() -> None:
    from markmcp.visimark.cli import main

    out: list[str] = []
    err: list[str] = []
    assert main([], out.append, err.append) == 2
    assert out == [] and "usage:" in "\n".join(err)
    out.clear()
    assert main(["--help"], out.append, err.append) == 0 and "usage:" in "\n".join(out)


# --- param domains (docs/design/a-param-declares-the-set-of-values-it-ac-spec.md §4.1)


@pytest.mark.parametrize("clause", ["{ }", "{}", "{   }"])
def test_an_empty_set_domain_is_printed_as_braces(clause: str) -> None:
    src = f"{F}vmark #lv\nparam x precision 0 in {clause} = default 0\ny = x + 1\n{F}\n\nY **1**<!--vmark=lv.y-->\n"
    assert [f for f in findings(src) if f[0] == "DOMAIN"] == [
        ("DOMAIN", "x", "param x declares an empty domain: {} has no legal value")]


# --- percent display: check compares numbers, fmt writes the anchor's own form (upstream's
# tutorial, "How `check` reads it", and its display-rule spec §5 keeping that leniency)


def test_an_anchor_that_holds_the_number_in_the_other_spelling_is_clean_and_fmt_respells_it() -> None:
    src = (f"{F}vmark #s\nm precision 4 = 0.3988\n{F}\n\n"
           "A **0.3988**<!--vmark=s.m|percent-->. B **39.88%**<!--vmark=s.m-->.\n")
    assert findings(src) == []
    out = fmt(src)
    assert out.anchors_updated == 2
    assert out.output.endswith("A **39.88%**<!--vmark=s.m|percent-->. B **0.3988**<!--vmark=s.m-->.\n")
    assert findings(out.output) == [] and fmt(out.output).output == out.output


@pytest.mark.parametrize("typed,rule", [("0.50", "|percent"), ("20.00%", ""), ("41.55%", "|percent"), ("0.39885", "")])
def test_a_different_number_is_still_stale(typed: str, rule: str) -> None:
    src = f"{F}vmark #s\nm precision 4 = 0.3988\n{F}\n\nA **{typed}**<!--vmark=s.m{rule}-->.\n"
    assert [f[0] for f in findings(src)] == ["STALE", "STALE"]  # the value and the roll-up


# --- the working-precision ceiling, worded as upstream's tutorial quotes it (chapter 14)

CEILING_TEXT = ("this value is too large to carry 18 decimals: 18 decimals past its integer digits exceeds "
                "the 40-significant-digit working precision")


@pytest.mark.parametrize("rule,anchor", [
    ("big precision 18 = SUM(V) / 7", "\nB **0**<!--vmark=s.big-->\n"),
    ("W precision 18 = V / 7", ""),
])
def test_the_ceiling_message(rule: str, anchor: str) -> None:
    src = f"| I | V | W |\n|---|--:|--:|\n| a | {'1' * 28} | 0 |\n\n{F}vmark #s\n{rule}\n{F}\n{anchor}"
    assert [f for f in findings(src) if f[0] == "PRECISION"] == [("PRECISION", rule.split()[0], CEILING_TEXT)]


# --- explain --json on an import: upstream's CLI import test reads `stampStatus` "ok"


def test_explain_json_import_stamp_status_is_the_state_word(tmp_path) -> None:
    import hashlib
    import json
    import subprocess
    import sys

    csv = b"Id,Time\n1,12.3\n2,10.1\n"
    (tmp_path / "b.csv").write_bytes(csv)
    doc = tmp_path / "b.md"
    stamp = hashlib.sha256(csv).hexdigest()
    doc.write_text(f"{F}vmark #b from b.csv labelled Id, Time at sha256:{stamp}\nn = COUNT(Time)\n{F}\n\n"
                   "N **2**<!--vmark=b.n-->\n", encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "markmcp.visimark.cli", "explain", str(doc), "--json"],
                         capture_output=True, text=True, encoding="utf-8", timeout=60)
    assert run.returncode == 0, run.stderr
    (sheet,) = json.loads(run.stdout)["sheets"]
    assert sheet["import"]["stampStatus"] == "ok"
    text = subprocess.run([sys.executable, "-m", "markmcp.visimark.cli", "explain", str(doc)],
                          capture_output=True, text=True, encoding="utf-8", timeout=60).stdout
    assert "stamp matching" in text  # the text report keeps its words


# --- lattices (upstream's lattice test, "a percent param prints its numbers as percents")


@pytest.mark.parametrize("clause,message", [
    ("in [0%, 10%] lattice 3%",
     "lattice step 3% does not reach the end of [0%, 10%]: 10% is not a multiple of 3% above 0%"),
    ("in [0, 10] lattice 3", "lattice step 3 does not reach the end of [0, 10]: 10 is not a multiple of 3 above 0"),
])
def test_a_lattice_that_misses_its_end(clause: str, message: str) -> None:
    default = "0%" if "%" in clause else "0"
    src = f"{F}vmark #lv\nparam x precision 2 {clause} = default {default}\ny precision 2 = x + 1\n{F}\n\nY **_**<!--vmark=lv.y-->\n"
    assert [f for f in findings(src) if f[0] == "TYPE"] == [("TYPE", "x", message)]


# --- `^`: upstream's engine raises with decimal.js's pow and refuses only a result that is not
# finite (its division-by-zero spec §3: "`0 ^ -1` (`Infinity`) and `(-2) ^ 0.5` (`NaN`)")


@pytest.mark.parametrize("expr,shown", [
    ("0 ^ 0", "1"), ("0.0 ^ 0", "1"), ("5 ^ 0", "1"), ("(-3) ^ 0", "1"),  # x^0 is 1, 0^0 included
    ("0 ^ 2", "0"), ("0 ^ 0.5", "0"),
    ("1 ^ 1000001", "1"), ("(-1) ^ 1000001", "-1"), ("(-2) ^ 3", "-8"),  # no cap on the exponent
    ("0.5 ^ 200000", "0"),  # far below the 40-digit width, so it rounds to 0
])
def test_a_power_with_a_decimal_value(expr: str, shown: str) -> None:
    src = f"{F}vmark #s\nv precision 0 = {expr}\n{F}\n\nV **{shown}**<!--vmark=s.v-->\n"
    assert findings(src) == []


@pytest.mark.parametrize("expr", ["0 ^ -1", "(-0) ^ -1", "0 ^ -0.5", "(-2) ^ 0.5", "(-8) ^ (1 / 3)"])
def test_a_power_with_no_finite_value(expr: str) -> None:
    src = f"{F}vmark #s\nv precision 2 = {expr}\n{F}\n\nV **_**<!--vmark=s.v-->\n"
    assert findings(src) == [("TYPE", "v", "result is not a finite decimal")]


def test_a_huge_finite_power_meets_the_ceiling_not_a_type_error() -> None:
    """2^200000 is a finite decimal (about 1e60205): refused by the width it cannot carry."""
    src = f"{F}vmark #s\nv precision 0 = 2 ^ 200000\n{F}\n\nV **_**<!--vmark=s.v-->\n"
    assert [f[0] for f in findings(src)] == ["PRECISION"]


def test_a_power_in_a_column_rule() -> None:
    src = ("| I | B | E | P |\n|---|--:|--:|--:|\n| a | 0 | 0 | 1 |\n| b | 0 | -1 | 0 |\n| c | 2 | 3 | 8 |\n\n"
           f"{F}vmark #s\nP precision 0 = B ^ E\n{F}\n")
    assert findings(src) == [("TYPE", "P", "result is not a finite decimal")]  # row b only


# --- a misspelt column rule that reads columns: upstream's engine, not its tutorial (chapter 8
# shows only `WARN order.Nett`). Its dependency walk files an own-sheet input column read by a
# scalar outside an aggregate as a vector reference, check reports one VECTOR per reference and
# marks the binding unevaluable, and the unread-scalar WARN skips a binding that is unevaluable
# or already carries a finding (as its design doc §6 says: "suppressed for any binding that
# already carries an error")


def test_a_scalar_multiplying_two_columns_is_vector_per_column_and_no_warn() -> None:
    src = ("| Item | Qty | Price | Net |\n|---|--:|--:|--:|\n| Widgets | 4 | 12.50 | 50.00 |\n"
           f"| Gadgets | 2 | 54.00 | 108.00 |\n\n{F}vmark #order\nNett = Qty * Price\n{F}\n")
    got = [(f.code, f.name, f.raw) for f in check(build(src)).findings]
    assert got == [("VECTOR", "Nett", "Qty"), ("VECTOR", "Nett", "Price")]


# --- a glyph without its parentheses (upstream's prose-notation spec §4): `√` lexes as the name
# SQRT, `Σ`/`∑` as SUM, so a bare one is that name, unknown (UNDEF at the glyph), and a name
# after it is left over ("unexpected ident", at the name), "parity with `Σ a`"


def _errors(expr: str) -> list[tuple[str, str | None, str | None, str]]:
    src = f"{F}vmark #s\na = 4\nx precision 2 = {expr}\n{F}\n\nX **_**<!--vmark=s.x-->\nA **4**<!--vmark=s.a-->\n"
    return [(f.code, f.message, f.raw, src[f.span[0]:f.span[1]]) for f in check(build(src)).findings
            if f.code in ("TYPE", "UNDEF")]


@pytest.mark.parametrize("expr,name,glyph", [
    ("√", "SQRT", "√"), ("Σ", "SUM", "Σ"), ("∑", "SUM", "∑"), ("a + √", "SQRT", "√"), ("√ - a", "SQRT", "√"),
])
def test_a_bare_glyph_is_its_name_unknown(expr: str, name: str, glyph: str) -> None:
    assert _errors(expr) == [("UNDEF", None, name, glyph)]


@pytest.mark.parametrize("expr,at", [("√a", "a"), ("√ a", "a"), ("Σ a", "a"), ("|a|a", "a"), ("2 a", "a")])
def test_a_name_left_over_is_unexpected_ident(expr: str, at: str) -> None:
    assert _errors(expr) == [("TYPE", "unexpected ident", None, at)]


def test_the_glyph_with_its_parentheses_is_still_the_call() -> None:
    assert _errors("√(a)") == [] and _errors("√ (a) + 1") == []


# --- IRR, as upstream's engine settles what its spec (docs/vocab/irr-spec.md) leaves contradictory;
# the choices are listed in builtins.irr's docstring


def _irr_value(values: list[str]) -> Decimal:
    result = check(build(cash(values, "raw = IRR(Cash)")))
    assert [f.code for f in result.findings] == ["WARN"]  # unanchored and unread: advice only
    value = result.values["t.raw"]
    assert isinstance(value, Decimal)
    return value


@pytest.mark.parametrize("values,exact", [
    (["-100", "110"], "0.1"), (["-100", "0", "121"], "0.1"), (["-200", "100", "100"], "0"), (["-1", "2"], "1"),
    (["-1", "0.0000000000005"], "-0.9999999999995"),  # below the old search's floor of -0.999999999999
])
def test_an_exact_root_is_that_decimal_not_a_forty_digit_neighbour(values: list[str], exact: str) -> None:
    """§3: "toString() of the stored value is 0.1, 0.1, and 0 ... not a 40-digit neighbour"."""
    value = _irr_value(values)
    assert value == Decimal(exact) and fmt_canonical(value) == exact


def fmt_canonical(value: Decimal) -> str:
    from markmcp.visimark.values import canonical
    return canonical(value)


def test_a_root_closer_to_minus_one_than_forty_digits_is_minus_one_at_any_width() -> None:
    src = cash(["-1", "0.00000000000000000000000000000000000000000001"], "rate precision 4 = IRR(Cash)")
    assert findings(src + "\nR **-1.0000**<!--vmark=t.rate-->\n") == []


def test_a_root_beyond_the_search_meets_the_ceiling() -> None:
    """One flow 67 digits larger than the other: no width can write the rate (was a TYPE of our own words)."""
    src = cash(["-1", "1" + "0" * 67], "rate precision 0 = IRR(Cash)") + "\nR **_**<!--vmark=t.rate-->\n"
    assert [(code, name) for code, name, _ in findings(src)] == [("PRECISION", "rate")]


def test_the_specs_own_bracket_settles_at_38_places_and_not_39() -> None:
    """§3's table: -1000, 600, 600 is determined at width 38 and not at 39 (widths a binding
    cannot declare here, 0 to 18 being the design's range, but the bracket is the spec's)."""
    from decimal import localcontext

    from markmcp.visimark.builtins import Bracketed, irr
    from markmcp.visimark.values import CONTEXT
    with localcontext(CONTEXT):
        rate = irr([Decimal(-1000), Decimal(600), Decimal(600)])
        assert rate.quantize(Decimal("1e-38")) == Decimal("0.13066238629180748525842627449074920102")
    assert isinstance(rate, Bracketed)
    assert rate.settled_at(18) and rate.settled_at(38) and not rate.settled_at(39)


def test_a_rate_its_bracket_does_not_settle_is_order_six(monkeypatch: pytest.MonkeyPatch) -> None:
    """§4 order 6: PRECISION, `IRR did not determine a rate at precision N`, and nothing downstream."""
    from markmcp.visimark import builtins

    def straddling(flows: list[Decimal]) -> Decimal:
        out = builtins.Bracketed("0.125")
        out.lo, out.hi = Decimal("0.12499999999999999999"), Decimal("0.12500000000000000001")
        return out

    monkeypatch.setattr(builtins, "irr", straddling)
    src = cash(["-100", "112.5"], "rate precision 2 = IRR(Cash)\nassert rate > 0") + "\nR **_**<!--vmark=t.rate-->\n"
    assert findings(src) == [("PRECISION", "rate", "IRR did not determine a rate at precision 2"),
                             ("NOTE", None, "1 assertion not verified (upstream errors)")]
    settled = cash(["-100", "112.5"], "rate precision 4 = IRR(Cash)") + "\nR **0.1250**<!--vmark=t.rate-->\n"
    assert findings(settled) == []


# --- upstream's pathological-input test: a finding, never a crash, at the same caps


def _refusal(formula: str) -> str | None:
    try:
        parse_statement(f"x = {formula}")
    except LangError as e:
        return e.args[0]
    return None


DEEP = "expression nests more than 256 levels deep"


@pytest.mark.parametrize("formula,accepted", [
    ("+".join(["1"] * 256), True), ("+".join(["1"] * 257), False), ("+".join(["1"] * 400), False),
    ("+".join(["1"] * 30000), False),  # a left-leaning spine the parser reads in a loop
    (" + ".join(f"SUM(C{i})" for i in range(300)), False),  # upstream's one knowingly refused real input
    ("(" * 255 + "1" + ")" * 255, True), ("(" * 256 + "1" + ")" * 256, False),
    ("^".join(["2"] * 256), True), ("^".join(["2"] * 257), False),
])
def test_the_depth_cap(formula: str, accepted: bool) -> None:
    assert _refusal(formula) == (None if accepted else DEEP)


def test_a_deep_chain_is_a_finding_and_the_other_bindings_are_checked() -> None:
    src = f"{F}vmark #s\nbad = {'+'.join(['1'] * 30000)}\ngood = 2 + 2\n{F}\n\nG **4**<!--vmark=s.good-->\n"
    result = check(build(src))  # a RecursionError before
    assert [(f.code, f.name, f.message) for f in result.findings] == [("TYPE", "bad", DEEP)]
    assert result.values["s.good"] == 4


# --- upstream's lexer test: a character outside the language is quoted as JSON quotes it


@pytest.mark.parametrize("glyph", ["σ", "ς", "∣", "∥", "｜", "│", "⎣", "⎦", "⎡", "⎤", "∛", "$"])
def test_an_unexpected_character(glyph: str) -> None:
    assert _refusal(f"{glyph}(a)") == f'unexpected character "{glyph}"'


def test_an_unexpected_control_character_is_escaped() -> None:
    assert _refusal("1 \x01") == 'unexpected character "\\u0001"'


# --- a width read off a literal (upstream's precision test and derivation: `^`'s exponent and
# ROUND's places count only when written as digits alone, a percent once divided by 100)


@pytest.mark.parametrize("expr,written", [
    ("two ^ 2", "1.5625"), ("two ^ 200%", "1.5625"), ("two ^ 02", "1.5625"), ("two ^ 0", "1"),
    ("ROUND(four, 2)", "2.12"), ("ROUND(four, 200%)", "2.12"),
    ("two ^ 2.0", None), ("two ^ 250%", None), ("two ^ 0.0", None),
    ("ROUND(four, 2.0)", None), ("ROUND(four, 250%)", None), ("ROUND(four, 2.5)", None),
])
def test_a_literal_width(expr: str, written: str | None) -> None:
    src = (f"{F}vmark #s\ntwo = 1.25\nfour = 2.1234\nx = {expr}\n{F}\n\n"
           "X **_**<!--vmark=s.x-->\nA **1.25**<!--vmark=s.two--> **2.1234**<!--vmark=s.four-->\n")
    got = [(f.code, f.computed, f.message) for f in check(build(src)).findings if f.name == "x"]
    if written is None:
        assert got == [("PRECISION", None, f"`{expr}` has no derivable precision")]
    else:
        assert got == [("STALE", written, None)]


# --- check compares numbers, not spellings, for every number (upstream's check.ts matchesStored:
# the written number and the value, each rounded half-up to the width, are equal; its display-rule
# spec keeps that "on purpose", and its param test reads `Tax 0.19` as the 3-place 0.190)


@pytest.mark.parametrize("typed", ["0.3988", "0.39880", "0.39884", "39.88%", "0.398800"])
def test_a_written_number_that_rounds_to_the_value_is_clean_and_fmt_writes_the_width(typed: str) -> None:
    src = f"{F}vmark #s\nm precision 4 = 0.3988\n{F}\n\nA **{typed}**<!--vmark=s.m-->.\n"
    assert findings(src) == []
    assert fmt(src).output.endswith("A **0.3988**<!--vmark=s.m-->.\n")


def test_an_anchor_on_a_param_is_judged_against_the_default() -> None:
    """Upstream's param test, verbatim in substance: precision 3, anchor text 0.19."""
    assert findings(f"{F}vmark #s\nparam tax precision 3 = default 19%\n{F}\n\nTax 0.19<!--vmark=s.tax-->.\n") == []


def test_a_cell_that_holds_the_number_is_clean_and_left_as_written() -> None:
    src = ("| Item | Qty | Price | Net |\n|---|--:|--:|--:|\n| a | 2 | 2.50 | 5 |\n| b | 1 | 4.00 | 4.000 |\n\n"
           f"{F}vmark #t\nNet = Qty * Price\n{F}\n")
    assert findings(src) == []
    assert fmt(src).output == src
    assert [f[0] for f in findings(src.replace("| 5 |", "| 5.01 |"))] == ["STALE"]


# --- params (upstream's param test and scenario-params spec §2 and §4.1)


def test_a_quoted_param_name_is_refused_under_its_own_name() -> None:
    src = (f"{F}vmark #s\nparam a precision 1 = 5\nparam \"Q\" precision 1 = default 2\n"
           f"param c precision 1 = default 2 * 3\n{F}\n")
    assert [(f.code, f.name, f.message) for f in check(build(src)).findings] == [
        ("TYPE", "a", "expected `default` after `=` in a param"),
        ("TYPE", "Q", "a param name must be an identifier, not a quoted header"),
        ("TYPE", "c", "a param default must be a number literal")]


def test_param_before_a_keyword_is_a_scalar_called_param() -> None:
    """§2: `param precision 2 = x / y` is an ordinary binding of a scalar called `param`."""
    result = check(build(f"{F}vmark #s\nparam precision 2 = 1 / 3\n{F}\n\nP **0.33**<!--vmark=s.param-->\n"))
    assert result.findings == [] and result.values["s.param"] == Decimal("0.33")


@pytest.mark.parametrize("param_first", [False, True])
def test_a_param_named_like_a_header_is_dup_whatever_the_order(param_first: bool) -> None:
    """Upstream's param test: DUP on the param, and the column keeps its data, the block before
    the table or after it."""
    table = "| Item | Price |\n|------|------:|\n| a    | 10    |\n"
    param = f"{F}vmark #s\nparam Price precision 0 = default 1\n{F}\n"
    rule = f"{F}vmark #s\nTotal = SUM(Price)\n{F}\n"
    src = (param + "\n" + table + "\n" + rule) if param_first else (table + "\n" + param + "\n" + rule)
    model = build(src)
    result = check(model)
    assert ("DUP", "Price") in [(f.code, f.name) for f in result.findings]
    assert "Price" not in model.sheets["s"].scalars and result.values["s.Total"] == 10
