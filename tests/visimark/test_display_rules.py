"""Display rules and anchor targets: the `|nbsp`, `|percent`, `|unit` refusal fixtures,
the `|nbsp` drift and round trip, and type-aware placeholder acceptance (#298)."""

from __future__ import annotations

import pytest

from conftest import shared_dir
from markmcp.visimark.check import check
from markmcp.visimark.display import TYPE_MESSAGE, nbsp_refusal, nbsp_render
from markmcp.visimark.model import build
from markmcp.visimark.report import format_check
from markmcp.visimark.write import fmt

CODE_SPAN = "display rule `nbsp` cannot render inside a code span — wrap the seed in **…** or *…* instead"
MALFORMED = "malformed anchor comment — expected `<!--vmark=sheet.name-->` or `<!--vmark=sheet.name|rule-->`"
BARE = "a display rule needs a delimited seed — wrap a placeholder instead, such as **_**"
ROUND_TRIP = "display rule `nbsp` cannot write this value inside **…** and read it back unchanged"


def read(name: str) -> str:
    return (shared_dir("visimark", "fixtures") / name).read_bytes().decode("utf-8")


def triples(src: str) -> list[tuple[str, str, str]]:
    return [(f.code, f.ident, f.message or "") for f in check(build(src)).findings]


def test_nbsp_fixture_is_clean_and_fmt_stable() -> None:
    src = read("display-rule-nbsp.md")
    result = check(build(src))
    assert result.findings == []
    assert result.values["s.status"] == "past due"
    assert fmt(src).output == src


def test_nbsp_drift_matches_the_spec_transcript() -> None:
    src = read("display-rule-nbsp.md").replace('status = "past due"', 'status = "paid in full"')
    result = check(build(src))
    assert result.exit_code == 1
    text = format_check("d.md", result.findings)
    assert text.split("\n")[2:] == [
        "  STALE   s.status                            past&nbsp;due ≠ paid&nbsp;in&nbsp;full",
        "  STALE   s.status                            past&nbsp;due ≠ paid&nbsp;in&nbsp;full",
        "  STALE   3 prose anchors bound to the values above",
        "",
        "  5 problems (5 stale, 0 errors)",
    ]
    out = fmt(src)
    assert out.anchors_updated == 2
    assert ("**Status:** **paid&nbsp;in&nbsp;full**<!--vmark=s.status|nbsp--> &nbsp;&nbsp; "
            "**Also:** *paid&nbsp;in&nbsp;full*<!--vmark=s.status|nbsp-->") in out.output
    assert "A plain anchor is still unchecked: **past due**<!--vmark=s.status-->." in out.output
    assert fmt(out.output).output == out.output
    assert check(build(out.output)).exit_code == 0


@pytest.mark.parametrize("typed", ["past&#160;due", "past due", "past\u00a0due"])
def test_nbsp_hand_typed_variants_are_stale_and_restored(typed: str) -> None:
    src = read("display-rule-nbsp.md")
    drifted = src.replace("**past&nbsp;due**<!--vmark=s.status|nbsp--> &nbsp;",
                          f"**{typed}**<!--vmark=s.status|nbsp--> &nbsp;", 1)
    assert drifted != src
    stale = [f for f in check(build(drifted)).findings if f.code == "STALE" and not f.anchor_group]
    assert [(f.stored, f.computed) for f in stale] == [(typed, "past&nbsp;due")]
    assert fmt(drifted).output == src


def test_nbsp_errors_fixture_gives_the_nine_spec_lines() -> None:
    src = read("display-rule-nbsp-errors.md")
    assert triples(src) == [
        ("TYPE", "s.n", TYPE_MESSAGE),
        ("ANCHOR", ".", MALFORMED),
        ("ANCHOR", "s.bare", BARE),
        ("ANCHOR", "s.code", CODE_SPAN),
        ("ANCHOR", "s.n", CODE_SPAN),
        ("ANCHOR", "s.star", ROUND_TRIP + " — it contains Markdown syntax: *"),
        ("ANCHOR", "s.tick", ROUND_TRIP + " — it contains Markdown syntax: `"),
        ("ANCHOR", "s.joined", ROUND_TRIP + " — it contains Markdown syntax: &"),
        ("ANCHOR", "s.empty", "display rule `nbsp` cannot write an empty value inside **…**"),
    ]
    result = check(build(src))
    assert format_check("e.md", result.findings).endswith("9 problems (0 stale, 9 errors)")
    assert fmt(src).output == src


def test_display_rule_errors_fixture() -> None:
    assert sorted(triples(read("display-rule-errors.md"))) == sorted([
        ("ANCHOR", "s.margin", BARE),
        ("ANCHOR", "s.margin", "unknown display rule `nope`"),
        ("TYPE", "s.status", TYPE_MESSAGE),
        ("ANCHOR", ".", MALFORMED),
    ])


def test_display_rule_unit_errors_fixture() -> None:
    src = read("display-rule-unit-errors.md")
    assert set(triples(src)) == {
        ("TYPE", "s.bare", TYPE_MESSAGE),
        ("TYPE", "s.n", "|percent cannot render a value with a unit (PLN)"),
        ("TYPE", "s.ratio", TYPE_MESSAGE),
        ("TYPE", "s.word", TYPE_MESSAGE),
        ("ANCHOR", ".", MALFORMED),
        ("ANCHOR", "s.n", BARE),
    }
    assert format_check("u.md", check(build(src)).findings).endswith("6 problems (0 stale, 6 errors)")
    assert fmt(src).output == src


def test_type_message_is_built_from_the_registry() -> None:
    assert TYPE_MESSAGE == ("a display rule is only legal on a value it accepts "
                            "(percent: numeric only; nbsp: string only; unit: numeric with a unit)")


@pytest.mark.parametrize("stored,rendered", [
    ("past due", "past&nbsp;due"),
    ("  past   due ", "past&nbsp;due"),
    ("past\u00a0due", "past&nbsp;due"),
    ("settled", "settled"),
    ("", ""),
])
def test_nbsp_render(stored: str, rendered: str) -> None:
    assert nbsp_render(stored) == rendered


def test_nbsp_round_trip_cases() -> None:
    plain = "display rule `nbsp` cannot write this value inside **…** and read it back unchanged"
    assert nbsp_refusal("www.example.com", "**", "**", " ", "<") == plain
    assert nbsp_refusal("(a)", "**", "**", "x", "<") == plain
    assert nbsp_refusal("(a)", "**", "**", " ", "<") is None
    assert nbsp_refusal("user_id", "**", "**", " ", "<") is None
    assert nbsp_refusal("user_id", "_", "_", " ", "<") is None
    assert nbsp_refusal("a *b*", "__", "__", " ", "<").startswith(
        "display rule `nbsp` cannot write this value inside __…__")
    assert nbsp_refusal("   ", "_", "_", " ", "<") == "display rule `nbsp` cannot write an empty value inside _…_"
    assert nbsp_refusal("a & c", "**", "**", " ", "<") is None  # a lone `&` is no entity
    assert nbsp_refusal("a [b] c", "**", "**", " ", "<").endswith("syntax: [ ]")  # could be a link
    assert nbsp_refusal("<b> ok", "**", "**", " ", "<").endswith("syntax: <")


def test_nbsp_in_context_flanking_is_refused_through_check() -> None:
    src = '```vmark #s\nv = "(a)"\n```\n\nx**_**<!--vmark=s.v|nbsp-->y\n'
    assert triples(src) == [("ANCHOR", "s.v", ROUND_TRIP)]


def test_anchor_placeholder_acceptance_spec_section_6() -> None:
    src = read("anchor-placeholder-acceptance.md")
    result = check(build(src))
    assert result.exit_code == 1
    assert [(f.code, f.ident, f.message) for f in result.findings if f.code == "ANCHOR"] == [
        ("ANCHOR", "s.bad", "no number to rewrite in front of this anchor — wrap a placeholder instead, "
                            "such as **0** or **_**"),
        ("ANCHOR", "s.due_bad", "no date to rewrite in front of this anchor — wrap a placeholder instead, "
                                "such as **2026-01-01** or **_**"),
        ("ANCHOR", "s.status_bad", "a string anchor cannot rewrite bare prose — wrap a placeholder instead, "
                                   "such as **_**"),
        ("ANCHOR", "s.embed", "no value to rewrite in front of this anchor"),
    ]
    stale = [f for f in result.findings if f.code == "STALE" and not f.anchor_group]
    assert [(f.ident, f.stored, f.computed) for f in stale] == [("s.seed", "_", "7.00")]
    assert format_check("a.md", result.findings).endswith("6 problems (2 stale, 4 errors)")
    out = fmt(src).output
    assert out == src.replace("Seed: **_**<!--", "Seed: **7.00**<!--")
    assert fmt(out).output == out


def test_nothing_in_front_of_an_anchor_is_refused() -> None:
    src = "```vmark #s\nb precision 2 = 0.25\n```\n\n<!--vmark=s.b--> PLN.\n"
    assert triples(src) == [("ANCHOR", "s.b", "no value to rewrite in front of this anchor")]
    assert fmt(src).output == src


def test_unit_rule_follows_a_changed_declaration() -> None:
    src = read("display-rule-unit.md")
    drifted = src.replace("total [PLN] precision 2 = 23300 [PLN]", "total [EUR] precision 2 = 23300 [EUR]")
    stale = [f for f in check(build(drifted)).findings if f.code == "STALE" and not f.anchor_group]
    assert [(f.stored, f.computed) for f in stale] == [("23300.00 PLN", "23300.00 EUR")]
    out = fmt(drifted)
    assert out.anchors_updated == 1
    assert out.output == drifted.replace("**23300.00 PLN**", "**23300.00 EUR**")


def test_unit_rule_and_plain_sibling_keep_their_spellings() -> None:
    src = read("display-rule-unit.md").replace("area [m²] precision 0 = 5 [m²]", "area [m²] precision 0 = 6 [m²]")
    stale = [f for f in check(build(src)).findings if f.code == "STALE" and not f.anchor_group]
    assert [(f.stored, f.computed) for f in stale] == [("5 m²", "6 m²"), ("5 m^2", "6 m^2")]
    out = fmt(src).output
    assert "`6 m²`<!--vmark=s.area|unit-->" in out and "**6 m^2**<!--vmark=s.area-->" in out


@pytest.mark.parametrize("typed", ["23300", "23300.00", "23300.00  PLN", "$23300.00", "[PLN] 23300.00",
                                   "23300.00 EUR", "23300.00 pln", "_", "0"])
def test_unit_rule_hand_typed_variants(typed: str) -> None:
    src = read("display-rule-unit.md")
    drifted = src.replace("**23300.00 PLN**", f"**{typed}**")
    result = check(build(drifted))
    assert [f.code for f in result.findings if f.is_problem] == ["STALE", "STALE"]  # the line and the roll-up
    assert fmt(drifted).output == src


def test_plain_numeric_anchor_compares_numbers_not_spellings() -> None:
    src = ("```vmark #s\nm precision 4 = 0.4026\nz precision 2 = -0.001\n```\n\n"
           "A **40.26%**<!--vmark=s.m--> B **0.4026**<!--vmark=s.m--> C **0%**<!--vmark=s.z|percent-->"
           " D **0.00**<!--vmark=s.z-->\n")
    assert check(build(src)).findings == []
    drifted = src.replace("**40.26%**", "**41.55%**")
    stale = [f for f in check(build(drifted)).findings if f.code == "STALE" and not f.anchor_group]
    assert [(f.stored, f.computed) for f in stale] == [("41.55%", "0.4026")]
