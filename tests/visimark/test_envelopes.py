"""The envelope pieces the server builds: fmt plans as byte-offset edits of the original."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from markmcp.visimark.check import Edit
from markmcp.visimark.check import check as run_check
from markmcp.visimark.envelopes import byte_edits, compose, fmt_edits, skipped_of, splice
from markmcp.visimark.model import build
from markmcp.visimark.write import apply_edits, fmt


@st.composite
def passes(draw) -> tuple[str, list[list[Edit]]]:
    text = draw(st.text(alphabet="ab€ →\n", min_size=0, max_size=40))
    current = text
    out = []
    for _ in range(draw(st.integers(min_value=1, max_value=4))):
        cuts = sorted(draw(st.lists(st.integers(min_value=0, max_value=len(current)), max_size=6)))
        edits = [Edit(a, b, draw(st.text(alphabet="xy€", max_size=4)), draw(st.sampled_from(["cell", "anchor"])))
                 for a, b in zip(cuts[0::2], cuts[1::2])]
        out.append(edits)
        current = apply_edits(current, edits)
    return text, out


@settings(max_examples=300, deadline=None)
@given(passes())
def test_passes_compose_into_edits_of_the_original(case: tuple[str, list[list[Edit]]]) -> None:
    text, rounds = case
    expected = text
    for edits in rounds:
        expected = apply_edits(expected, edits)
    combined = compose(len(text), rounds)
    assert apply_edits(text, combined) == expected
    spans = [(e.start, e.end) for e in combined]
    assert spans == sorted(spans) and all(b[0] >= a[1] for a, b in zip(spans, spans[1:]))
    # and as UTF-8 byte spans of the encoded original
    assert splice(text.encode("utf-8"), byte_edits(text, combined)).decode("utf-8") == expected


def test_fmt_plan_reproduces_fmt() -> None:
    src = ("| Item | Qty | Price | Net |\n|---|--:|--:|--:|\n| Kabel € | 3 | 12.50 | 37.00 |\n\n"
           "```vmark #o\nNet = Qty * Price\ntotal = SUM(Net)\n```\n\nTotal → **1.00**<!--vmark=o.total-->.\n")
    edits, after = fmt_edits(src)
    assert [(e.kind, e.text) for e in edits] == [("cell", "37.50"), ("anchor", "37.50")]
    assert apply_edits(src, edits) == fmt(src).output
    planned = byte_edits(src, edits)
    assert planned[0].start == len(src[:edits[0].start].encode("utf-8")) != edits[0].start
    assert splice(src.encode("utf-8"), planned).decode("utf-8") == fmt(src).output
    assert after.exit_code == 0


def test_skipped_names_the_imports_and_charts_a_folderless_document_cannot_resolve() -> None:
    src = ("| A |\n|---|\n| 1 |\n\n```vmark #t from data.csv labelled A at sha256:"
           + "0" * 64 + "\nx = SUM(A)\n```\n\n| M | V |\n|---|--:|\n| a | 1 |\n| b | 2 |\n\n```vmark #c\n"
           "chart trend as line of V labelled M\n```\n\n![t](t.svg)<!--vmark=c.trend-->\n")
    model = build(src)
    assert skipped_of(model, run_check(model, None)) == {"imports": ["t"], "charts": ["c.trend"]}
    plain = build("| A |\n|---|\n| 1 |\n")
    assert skipped_of(plain, run_check(plain, None)) == {}
