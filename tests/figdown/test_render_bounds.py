"""Every drawing is bounded: each typed region, what a document's regions draw together,
and what its scenes lay out and its ladders draw (over all its sections).

Found by a security review: a 4 MB table (1,000 columns × 2,000 rows) drew for 80 s,
took more than 2.4 GB and ended in a MemoryError; 90 timing signals of 100,000 cycles wrote
a 727 MB SVG; ten 56-byte bitfields at their own bound drew 58 MB; 21 KB of scene took 34 s.
What goes past a bound is refused on its line, as the bitfield already was, and a check
that does not draw (``geometry``) reports exactly what the build reports.
"""

from __future__ import annotations

import pytest

from markmcp.figdown import parse
from markmcp.figdown.render import build, geometry, render, sequence
from markmcp.figdown.render.regions import bound, chart, table, timing
from markmcp.figdown.render.scene import layout
from markmcp.figdown.report import check_report


def table_source(columns: int, rows: int, tiers: int = 1, head: str = "figdown 0.1 table\n") -> str:
    pipe = lambda word: "|" + "|".join([word] * columns) + "|"  # noqa: E731
    return (head + 'table t "T"\n' + "".join(pipe("h") + "\n" for _ in range(tiers)) + pipe("---") + "\n"
            + "".join(pipe("1") + "\n" for _ in range(rows)))


def refusal(source: str) -> list[str]:
    result = parse(source)
    assert result.ok, result.error_lines()
    out = build(source)
    assert out.svg is None, "the drawing must be refused"
    assert geometry(result) == render(result).diagnostics     # a check finds it without drawing
    return out.error_lines()


# --- table -------------------------------------------------------------------------------------


def test_a_table_past_its_bound_is_refused_on_the_row_that_went_past_it() -> None:
    # 1 header tier + 127 rows of 129 columns: 16,512 cells; up to row 126, 127 × 129 = 16,383
    lines = refusal(table_source(129, 127))
    assert lines == ['Line 131: data row 127 takes table "t" to 128 rows of 129 columns, more cells than one '
                     'table drawing holds (at most 16384 cells); the figure is not drawn rather than cut short.']


def test_a_table_whose_header_tiers_alone_pass_the_bound_is_refused_on_its_line() -> None:
    lines = refusal(table_source(20_000, 0))
    assert lines == ['Line 2: table "t" has 1 header tier(s) of 20000 columns: more cells than one table drawing '
                     'holds (at most 16384 cells); the figure is not drawn rather than cut short.']


def test_the_table_bound_is_on_cells_rows_times_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(table, "MAX_CELLS", 12)
    assert build(table_source(3, 3)).svg is not None             # 4 rows of 3: drawn
    lines = refusal(table_source(3, 4))
    assert len(lines) == 1 and lines[0].startswith('Line 8: data row 4 takes table "t" to 5 rows of 3 columns')
    lines = refusal(table_source(2, 1, tiers=7))
    assert lines[0].startswith('Line 2: table "t" has 7 header tier(s) of 2 columns')


def test_a_refused_table_in_a_later_section_names_its_document_line() -> None:
    source = 'figdown 0.1 block\nnode a "A"\n\n' + table_source(200, 100)
    lines = refusal(source)
    assert len(lines) == 1 and lines[0].startswith('Line 88: data row 81 takes table "t"')


# --- timing ------------------------------------------------------------------------------------


def test_a_timing_block_past_its_bound_is_refused_on_its_line() -> None:
    source = ('figdown 0.1 timing\ntiming hs "W"\n' + "".join(f"signal s{i} {'p' * 1000}\n" for i in range(66)))
    assert refusal(source) == ['Line 2: timing "hs" has 66 signal(s) of up to 1000 cycles: 66000 cycle cells, more '
                               'than one timing drawing holds (at most 65536); the figure is not drawn rather than '
                               'cut short.']


def test_the_timing_bound_is_on_signals_times_cycles_and_gaps(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(timing, "MAX_CELLS", 20)
    head = 'figdown 0.1 timing\ntiming hs "W"\nsignal a 0101010101\nsignal b 01\n'
    assert build(head).svg is not None                            # 2 signals × 10 cycles: drawn
    assert refusal(head + "signal c 0\n")[0].startswith('Line 2: timing "hs" has 3 signal(s) of up to 10 cycles: 30')
    assert refusal(head + "gap 3\n")[0].startswith('Line 2: timing "hs" has 2 signal(s) of up to 10 cycles and 1 '
                                                   'gap(s): 21 cycle cells')


# --- chart -------------------------------------------------------------------------------------


def test_a_chart_past_its_bound_is_refused_on_its_line() -> None:
    source = table_source(34, 32) + "chart t\n"          # 32 rows of 33 values (the first column names rows)
    assert refusal(source) == ['Line 37: chart of table "t" would draw 1056 bars (32 rows of 33 values), more than '
                               'one chart holds (at most 1024 bars); the figure is not drawn rather than cut short.']
    assert chart.MAX_BARS == 1024


# --- the document ------------------------------------------------------------------------------


def test_regions_each_under_their_bound_are_refused_together_past_the_documents() -> None:
    # each bitfield is at its own bound (56 bytes of source, 5.8 MB drawn): ten drew 58 MB
    source = "figdown 0.1 bitfield\n" + "".join(f"bitfield b{i} word=65536 numbering=lsb0\nfield \"x\" *\n"
                                                  for i in range(10))
    assert refusal(source) == [
        "Line 4: bitfield \"b1\" takes what this document's typed regions draw to 131072 cells, more than one "
        "document draws (at most 65536: bit cells, table cells, timing cycles × signals, 16 per chart bar); the "
        "figure is not drawn rather than cut short."]


def test_the_document_bound_counts_every_kind_across_sections(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bound, "MAX_DOCUMENT_CELLS", 100)
    bits = 'figdown 0.1 bitfield\nbitfield b word=32 numbering=lsb0\nfield "x" 64\n'     # 64 cells
    wave = 'figdown 0.1 timing\ntiming w\nsignal a 0101010101\nsignal b 01\n'              # 20 cells
    assert build(bits + "\n" + wave + "\n" + table_source(4, 3)).svg is not None       # 64 + 20 + 16: drawn
    lines = refusal(bits + "\n" + wave + "\n" + table_source(4, 4))                      # 64 + 20 + 20
    assert lines == [
        "Line 11: table \"t\" takes what this document's typed regions draw to 104 cells, more than one document "
        "draws (at most 100: bit cells, table cells, timing cycles × signals, 16 per chart bar); the figure is not "
        "drawn rather than cut short."]
    chart_lines = refusal(bits + "\n" + table_source(3, 1) + "chart t\n")        # 64 + 6 + 16 × 2 bars
    assert chart_lines[0].startswith('Line 10: chart of table "t" takes what this document\'s typed regions draw to '
                                     '102 cells')


def test_a_region_its_own_bound_refuses_counts_nothing_against_the_document() -> None:
    source = (table_source(20_000, 0) + "\n"
              + 'figdown 0.1 bitfield\nbitfield b word=65536 numbering=lsb0\nfield "x" *\n')
    lines = refusal(source)
    assert len(lines) == 1 and lines[0].startswith('Line 2: table "t" has 1 header tier(s) of 20000 columns')


def test_the_check_report_calls_a_bound_a_geometry_refusal() -> None:
    report = check_report("t.fd", table_source(129, 127))
    assert report["ok"] is False and report["stage"] == "geometry"
    assert [d["line"] for d in report["diagnostics"]] == [131]


# --- the scene's layout ------------------------------------------------------------------------


def chain(boxes: int, long_links: int, head: str = "figdown 0.1 block\n") -> str:
    """A chain of boxes (one rank each) and connectors from its first box to its last, each
    carried through every rank between."""
    return (head + "".join(f"node n{i}\n" for i in range(boxes))
            + "".join(f"edge n{i} -> n{i + 1}\n" for i in range(boxes - 1))
            + "".join(f"edge n0 -> n{boxes - 1}\n" for _ in range(long_links)))


def test_a_layout_past_its_bound_is_refused_on_the_connector_that_went_past_it() -> None:
    # 21 KB of source: 500 boxes and 500 connectors through 498 ranks took 34 s and 282 MB
    lines = refusal(chain(500, 500))
    assert lines == ["Line 1080: the connector n0 -> n499, through 498 ranks, takes this document's layouts to 40340 "
                     "items (boxes, and connectors and groups carried through ranks), more than one document lays "
                     "out (at most 40000); the figure is not drawn rather than cut short."]


def test_the_layout_bound_counts_boxes_connector_segments_and_group_placeholders(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(layout, "MAX_LAYERED", 10)
    assert build(chain(5, 1)).svg is not None                  # 5 boxes and 3 segments: drawn
    lines = refusal(chain(5, 2))                               # and 3 more: 11
    assert lines[0].startswith("Line 12: the connector n0 -> n4, through 3 ranks, takes this document's layouts "
                               "to 11 items")
    lines = refusal(chain(11, 0))
    assert lines[0].startswith('Line 12: "n10" takes this document\'s layouts to 11 items')
    # a group's placeholders: 7 boxes, and the group held in ranks 0 and 6 only, 5 more
    grouped = chain(7, 0).replace("node n0\n", 'group g "G"\nnode n0 in=g\n').replace("node n6\n", "node n6 in=g\n")
    lines = refusal(grouped)
    assert lines[0].startswith('Line 2: group "g", across 7 ranks, takes this document\'s layouts to 12 items')


def test_the_sections_of_one_document_share_the_layout_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    # many sections, each under the bound, could otherwise lay out any number of items
    monkeypatch.setattr(layout, "MAX_LAYERED", 10)
    lines = refusal(chain(4, 0) + "\n" + chain(4, 0) + "\n" + chain(4, 0))
    assert len(lines) == 1 and lines[0].startswith('Line 22: "n2" takes this document\'s layouts to 11 items')


def test_a_refused_layout_in_a_later_section_names_its_document_line() -> None:
    lines = refusal('figdown 0.1 timing\ntiming w\nsignal a 01\n\n' + chain(500, 500))
    assert len(lines) == 1 and lines[0].startswith("Line 1084: the connector n0 -> n499, through 498 ranks")


# --- the sequence ladder -----------------------------------------------------------------------


def test_a_ladder_past_its_bound_is_refused_on_the_row_that_went_past_it(monkeypatch: pytest.MonkeyPatch) -> None:
    head = 'figdown 0.4 sequence\nlifeline a "A"\nlifeline b "B"\n'
    lines = refusal(head + "".join(f'message a -> b "m{i}"\n' for i in range(16_385)))
    assert lines == ["Line 16388: this message is row 16385 of this document's ladders, more rows than one document "
                     "draws (at most 16384 messages and states); the figure is not drawn rather than cut short."]
    monkeypatch.setattr(sequence, "MAX_ROWS", 3)
    assert build(head + 'message a -> b "1"\nstate a "S"\nmessage a <- b "2"\n').svg is not None
    lines = refusal(head + 'message a -> b "1"\nstate a "S"\nmessage a <- b "2"\nstate b "T"\n')
    assert lines[0].startswith("Line 7: this state is row 4 of this document's ladders")
    # the sections of one document share the bound: 2 rows, then 2 more past it
    two = head + 'message a -> b "1"\nmessage a <- b "2"\n'
    lines = refusal(two + "\n" + two)
    assert lines == ["Line 11: this message is row 4 of this document's ladders, more rows than one document draws "
                     "(at most 3 messages and states); the figure is not drawn rather than cut short."]


# --- text cut short with "…" -------------------------------------------------------------------

def _counting_weight(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the code points the text measure reads (``text.weight`` calls)."""
    from markmcp.figdown.render import text as text_mod
    calls = [0]
    real = text_mod.weight

    def counted(cp: int) -> float:
        calls[0] += 1
        return real(cp)
    monkeypatch.setattr(text_mod, "weight", counted)
    return calls


def test_shorten_keeps_the_longest_beginning_that_fits_with_its_ellipsis() -> None:
    from markmcp.figdown.render.text import shorten, widest
    for caption in ("abcdefgh", "日本語のテキスト", "ab\ncdefgh", "x", "ab cd ef"):
        for room in (0.0, 1.0, 2.5, 4.0, 6.0, 100.0):
            shown = shorten(caption, lambda u: u <= room)
            if widest(caption) <= room:
                assert shown == caption
                continue
            # the naive rule: cut one character at a time until it fits
            naive = caption
            while naive and widest(naive + "…") > room:
                naive = naive[:-1]
            assert shown == naive.rstrip(" ") + "…", (caption, room)


def test_a_long_timing_value_or_field_name_is_cut_short_in_one_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    """Cutting a character at a time and measuring again read the text n² / 2 times: a
    value of 32,000 characters drew for 29 s and a field name of 16,000 for 7 s."""
    calls = _counting_weight(monkeypatch)
    value = "é" * 20_000   # not ASCII, so every code point is weighed
    svg = build("figdown 0.1 timing\ntiming t \"T\"\nsignal data x=x data=" + value + "\n").svg
    assert svg is not None and f"<title>{value}</title>" in svg and "é…" in svg
    assert calls[0] < 10 * len(value)
    calls[0] = 0
    svg = build("figdown 0.1 bitfield\nbitfield h \"H\" word=32 numbering=msb0\nfield \"" + value
                + "\" 4\nfield \"rest\" 28\n").svg
    assert svg is not None and f"<title>{value}</title>" in svg
    assert calls[0] < 10 * len(value)
