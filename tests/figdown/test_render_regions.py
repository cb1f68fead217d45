"""Typed regions and the sequence ladder, asserted on what they draw."""

from __future__ import annotations

import itertools
import re

from markmcp.figdown.render import build

from .test_render_external_names import text_rect


def svg_of(source: str) -> str:
    out = build(source)
    assert out.svg is not None, out.error_lines()
    return out.svg


def texts(svg: str) -> list[str]:
    return re.findall(r"<text [^>]*>([^<]*)</text>", svg)


def test_bitfield_ruler_fields_and_spanning() -> None:
    svg = svg_of('figdown 0.1 bitfield\nbitfield h "Header" word=16 numbering=msb0\n'
                 'field "A" 4\nfield "Wide" 20\nfield "B" 8\n')
    words = texts(svg)
    assert words[:2] == ["Header", "0"] and "15" in words
    assert words.count("Wide") == 1            # one field, one name
    assert "(cont.)" not in words              # its pieces share columns: one box


def test_bitfield_corner_touching_pieces_get_the_continuation_mark() -> None:
    svg = svg_of('figdown 0.1 bitfield\nbitfield h "H" word=32 numbering=msb0\n'
                 'field "pad" 16\nfield "Sender" 32\nfield "tail" 16\n')
    assert texts(svg).count("Sender") == 1 and texts(svg).count("(cont.)") == 1
    assert 'font-style="italic"' in svg


def _field_names(svg: str) -> dict[str, tuple[float, bool]]:
    """Each drawn field name: its size and whether it stands upright."""
    drawn = svg[:svg.index("<metadata")]
    return {m.group(4): (float(m.group(1)), "rotate(-90" in m.group(3))
            for m in re.finditer(r'<text x="[\d.]+" y="[\d.]+" font-size="([\d.]+)"( text-anchor="middle")?'
                                 r'([^>]*)>([^<]+)<', drawn)}


def test_one_bit_names_that_stand_larger_upright_all_turn() -> None:
    """In a 64-bit register "MPRV" stood upright at 10.6 px beside "TSR" and "TW" across
    at 7 px, the short names reading as the lesser: each stands the larger way."""
    svg = svg_of('figdown 0.1 bitfield\nbitfield m "mstatus" word=64 numbering=lsb0\nfield "WPRI" 41\n'
                 'field "TSR" 1\nfield "TW" 1\nfield "TVM" 1\nfield "MXR" 1\nfield "SUM" 1\nfield "MPRV" 1\n'
                 'field "XS" 2\nfield "FS" 2\nfield "MPP" 2\nfield "VS" 2\nfield "SPP" 1\nfield "MPIE" 1\n'
                 'field "UBE" 1\nfield "SPIE" 1\nfield "SIE" 1\nfield "MIE" 1\nfield "R" 2\n')
    names = _field_names(svg)
    flags = ("TSR", "TW", "TVM", "MXR", "SUM", "MPRV", "SPP", "MPIE", "UBE", "SPIE", "SIE", "MIE")
    assert all(names[f][1] for f in flags), {f: names[f] for f in flags}
    assert min(names[f][0] for f in flags) >= 8.0   # ("MPRV", the widest, 8.4)
    assert not names["WPRI"][1] and names["WPRI"][0] == 11.0   # room across: across
    assert not names["R"][1]                                  # as large across as upright


def test_a_name_turns_upright_only_for_a_clear_gain_and_is_cut_the_roomier_way() -> None:
    """"SRR" turned upright beside "IDE" across for 9 % more: a name that fits across turns
    only for a fifth more.  "ACK slot" and "ACK delim." in one-bit cells both read "AC…"
    across them; cut short up the cell they read "ACK sl…" and "ACK d…"."""
    svg = svg_of('figdown 0.1 bitfield\nbitfield f "Frame" word=32 numbering=msb0\nfield "SOF" 1\n'
                 'field "Base identifier ID28–ID18" 11\nfield "IDE" 1\nfield "Identifier extension" 18\n'
                 'field "r0" 1\nfield "CRC delim." 1\nfield "ACK slot" 1\nfield "ACK delim." 1\nfield "EOF" 28\n')
    names = _field_names(svg)
    assert not names["IDE"][1] and names["IDE"][0] >= 10.0
    cut = {t: v for t, v in names.items() if t.endswith("…")}
    assert len(cut) == 3 and all(up for _size, up in cut.values())
    assert {"ACK sl…", "ACK d…"} <= set(cut)
    assert "<title>ACK slot</title>" in svg and "<title>ACK delim.</title>" in svg
    # and written whole under the bitfield, each once (a tooltip alone had shown them)
    said = " ".join(re.findall(r'<text x="0" y="[\d.]+" font-size="10" fill="[^"]+">(in full: [^<]*)<', svg))
    assert said == "in full: CRC d… = CRC delim.; ACK sl… = ACK slot; ACK d… = ACK delim.", said


def test_a_name_that_fits_its_cell_by_its_letters_is_whole() -> None:
    """"ICI/IT[1:0]" in a two-bit cell read "ICI/IT[1:…": narrow letters (I, /, [, 1, :)
    were measured as average ones.  In the widest common face it fits, whole."""
    svg = svg_of('figdown 0.1 bitfield\nbitfield x "xPSR" word=32 numbering=lsb0\nfield "ISR" 9\nfield "R" 1\n'
                 'field "GE[3:0]" 4\nfield "R2" 4\nfield "T" 1\nfield "ICI/IT[1:0]" 2\nfield "Q" 1\n'
                 'field "V" 1\nfield "C" 1\nfield "Z" 1\nfield "N" 1\n')
    assert "ICI/IT[1:0]" in _field_names(svg) and "<title>ICI/IT[1:0]</title>" not in svg


def test_bitfield_presence_and_repetition() -> None:
    svg = svg_of('figdown 0.2 bitfield\nbitfield h "H" word=32 numbering=msb0\n'
                 'field "Opt" 32 present="the O flag is set"\nfield "Seg" 32 index=0..7\n')
    assert "Opt — present: the O flag is set" in texts(svg)
    assert 'stroke-dasharray="5 3"' in svg           # the conditional field's boundary
    assert "Seg [0]" in texts(svg) and "Seg [7]" in texts(svg) and "…" in texts(svg)


def test_table_cells_are_addressable_and_merges_draw_once() -> None:
    svg = svg_of('figdown 0.1 table\ntable t "T"\n| A | B | C |\n|---|:-:|--:|\n| 1 | 2 | 3 |\n'
                 "| 4 || 6 |\n")
    assert 'data-cell="t:0:1"' in svg and 'data-cell="t:2:3"' in svg
    assert 'data-cell="t:2:2"' not in svg           # merged into its left neighbour
    assert re.search(r'<rect x="0" y="[\d.]+" width="[\d.]+" height="26" fill="#eeede6"', svg)


def test_a_value_merged_across_columns_is_centred_on_them() -> None:
    """"15" (tWR) merged across six right-aligned speed-bin columns stood at the last one's
    right edge, and read as that column's alone; it is centred on the six.  An unmerged
    cell keeps its column's alignment."""
    svg = svg_of('figdown 0.1 table\ntable t "Timings"\n| Param | 1600 | 1866 | 2133 |\n|---|--:|--:|--:|\n'
                 '| tRCD | 11 | 13 | 15 |\n| tWR | 15 |||\n')
    drawn = svg[:svg.index("<metadata")]
    rects = {cell: (float(x), float(w)) for x, w, cell in re.findall(
        r'<rect x="([\d.]+)" y="[\d.]+" width="([\d.]+)" height="[\d.]+" fill="[^"]+" stroke="none" '
        r'data-cell="([^"]+)"', drawn)}
    x, w = rects["t:2:2"]
    (tx,) = [float(v) for v in re.findall(r'<text x="([\d.]+)" y="[\d.]+" font-size="[\d.]+" text-anchor="middle"'
                                          r'[^>]*>15<', drawn)]
    assert abs(tx - (x + w / 2)) < 0.01 and w > 3 * rects["t:1:4"][1] - 1
    assert re.search(r'text-anchor="end"[^>]*>13<', drawn)


def test_a_charts_values_below_zero_are_named_in_lines_as_wide_as_the_figure() -> None:
    """Seven losses left out of a bar chart were named four to a line 988 px long beside a
    528 px figure ("… and 3 more"): each is named, in lines of at most 480 px."""
    from markmcp.figdown.render.text import units
    rows = [("Mon", 184.5, -62.0, 310.2), ("Tue", 96.3, 22.7, -128.9), ("Wed", 402.8, 141.3, 515.6),
            ("Thu", -75.1, -210.6, 88.0), ("Fri", 133.9, -44.2, -301.7), ("Sat", -5.0, 1.0, 2.0)]
    svg = svg_of("figdown 0.1 table\ntable p \"P&L\"\n| Day | FX | EM | Rates |\n|---|--:|--:|--:|\n"
                 + "".join(f"| {d} | {a} | {b} | {c} |\n" for d, a, b, c in rows) + "chart p\n")
    drawn = svg[:svg.index("<metadata")]
    lines = re.findall(r'<text x="0" y="[\d.]+" font-size="10" text-anchor="start" fill="[^"]+">([^<]*)<', drawn)
    said = " ".join(lines)
    assert said.startswith("not drawn, below 0: ") and "more" not in said
    for day, *values in rows:
        for name, v in zip(("FX", "EM", "Rates"), values):
            assert (f"{day} · {name} = {v}" in said) == (v < 0), (day, name)
    assert len(lines) >= 2 and all(units(line) * 6.5 * 10 / 11 <= 480 for line in lines)


def test_timing_lanes() -> None:
    svg = svg_of('figdown 0.1 timing\ntiming w "Bus"\nsignal clk pppp\nsignal d x==.0 data=a,b\n')
    assert 'font-family="monospace">clk</text>' in svg
    assert 'fill="url(#hatch)"' in svg
    assert ">a</text>" in svg and ">b</text>" in svg


def test_chart_draws_bars_from_its_table() -> None:
    svg = svg_of('figdown 0.1 table\ntable t "Load"\n| Port | Q0 | Q1 |\n|---|---|---|\n| P0 | 3 | 5 |\n'
                 "| P1 | 0 | 2 |\nchart t\n")
    assert ">Load — bar3d</text>" in svg
    assert svg.count("<polygon") == 1 + 3 * 3      # the floor and three faces per non-zero bar


def test_an_unknown_value_carried_on_is_one_hatched_box() -> None:
    """``x..`` is one unknown value over three cycles (``.`` carries it on), as ``=..`` is one
    data box; ``xx`` is two unknown values."""
    svg = svg_of('figdown 0.1 timing\ntiming w "Bus"\nsignal d x..=..xx data=a\n')
    hatched = re.findall(r'<rect x="([\d.]+)" y="[\d.]+" width="([\d.]+)"[^>]*fill="url\(#hatch\)"', svg)
    assert [float(w) for _, w in hatched] == [78, 26, 26]          # 3 cycles of 26 px, then one and one
    assert float(hatched[1][0]) - float(hatched[0][0]) == 6 * 26   # after the data box's three cycles


def test_a_chart_names_the_values_it_cannot_draw() -> None:
    """A bar cannot stand below the floor; the values below 0 are named under the chart
    instead of vanishing, and the ruler rounds a half up (45 / 2 reads 23), as FigDown's engine."""
    svg = svg_of('figdown 0.1 table\ntable t "T"\n| a | b | c |\n|---|---|---|\n| x | -5 | 2 |\n'
                 "| y | 10 | -1.5 |\nchart t\n")
    assert svg.count("<polygon") == 1 + 3 * 2                      # the floor and the two bars above 0
    assert texts(svg)[-1] == "not drawn, below 0: x · b = -5; y · c = -1.5"
    many = svg_of('figdown 0.1 table\ntable t "T"\n| a | b | c | d |\n|---|---|---|---|\n| x | -1 | -2 | -3 |\n'
                  "| y | -4 | -5 | 45 |\n| z | -6 | -7 | -8 |\n| w | -9 | -10 | -11 |\n| v | -12 | -13 | 1 |\n"
                  "chart t\n")
    said = " ".join(texts(many)[-3:])
    assert said.endswith("v · b = -12; and 1 more") and "v · c" not in said   # twelve named, then a count
    ruler = texts(many)[texts(many).index("45") + 1:]   # after the table's own cell
    assert [t for t in ruler if t in ("0", "22", "23", "45")] == ["0", "23", "45"]
    assert "not drawn" not in svg_of('figdown 0.1 table\ntable t "T"\n| a | b |\n|---|---|\n| x | 0 |\n'
                                     "chart t\n")


def test_region_marks_are_drawn_over_their_region() -> None:
    svg = svg_of('figdown 0.3 block\nnode n "N"\ntable t "T"\n| A |\n|---|\n| 1 |\n| 2 |\n'
                 'threshold "limit" in=t offset=50%\nband "low" 0..20% in=t\n')
    assert ">limit</text>" in svg and 'stroke="#ef4444"' in svg
    assert ">low</text>" in svg and 'opacity="0.35"' in svg


def test_sequence_rows_follow_declaration_order() -> None:
    svg = svg_of('figdown 0.4 sequence\nlifeline c "Client"\nlifeline s "Server"\n'
                 'message c -> s "first"\nstate c "WAITING"\nmessage c <- s "second"\n'
                 'fragment f "retry" type=loop\noperand o "until done" in=f\nmessage c -> s "third" in=o\n')
    order = [t for t in texts(svg) if t in ("first", "WAITING", "second", "third")]
    assert order == ["first", "first", "WAITING", "second", "second", "third", "third"]  # halo twins
    assert ">loop</text>" in svg and "[retry]" in svg and "[until done]" in svg
    assert 'data-node="c"' in svg and 'data-node="s"' in svg


# --- the bitfield's bound: the language allows any word= and field width; a drawing does not


def refusal(source: str) -> list[str]:
    out = build(source)
    assert out.svg is None
    return out.error_lines()


def test_a_bitfield_row_wider_than_a_drawing_holds_is_refused_on_its_line() -> None:
    # found by `make fuzz`: this word took minutes and gigabytes before it was bounded
    lines = refusal('figdown 0.1 bitfield\nbitfield gre "GRE Header" word=214748364832 numbering=lsb0\n'
                    'field "Reserved" 9\nfield "Ver" 3\n')
    assert lines == ['Line 2: bitfield "gre" has word=214748364832: a row of that many bits is more than one '
                     'bitfield drawing holds (at most 65536 bit cells); the figure is not drawn rather than '
                     'cut short.']


def test_a_field_that_runs_past_the_bound_is_refused_on_the_field_line() -> None:
    lines = refusal('figdown 0.1 bitfield\nbitfield b "B" word=32 numbering=lsb0\n'
                    'field "Head" 8\nfield "Big" 900000000000\nfield "Tail" 3\n')
    assert len(lines) == 1 and lines[0].startswith('Line 4: field "Big" takes bitfield "b" to 28125000001 rows of 32 bits')


def test_the_bound_is_on_bit_cells_drawn_word_times_rows() -> None:
    head = 'figdown 0.1 bitfield\nbitfield b "B" word=32 numbering=lsb0\n'
    assert build(head + 'field "All" 65536\n').svg is not None        # 2,048 rows of 32: drawn
    assert refusal(head + 'field "All" 65536\nfield "One" 1\n')[0].startswith('Line 4: field "One" takes bitfield "b" '
                                                                              'to 2049 rows of 32 bits')
    assert build('figdown 0.1 bitfield\nbitfield b "B" word=65536 numbering=lsb0\nfield "Row" *\n').svg is not None


def test_an_index_range_counts_both_of_its_drawn_elements() -> None:
    head = 'figdown 0.2 bitfield\nbitfield b "B" word=32 numbering=lsb0\n'
    # 2,000 rows for the first element fit; the last element drawn after the elision does not
    lines = refusal(head + 'field "Seg" 64000 index=0..7\n')
    assert lines[0].startswith('Line 3: field "Seg" takes bitfield "b" to 4000 rows of 32 bits')
    # an index range of any length draws two elements and an elision: bounded, drawn
    assert build(head + 'field "Seg" 32 index=0..99999999999\n').svg is not None


def test_a_refused_bitfield_in_a_later_section_names_its_document_line() -> None:
    lines = refusal('figdown 0.1 block\nnode a "A"\n\nfigdown 0.1 bitfield\n'
                    'bitfield hdr numbering=msb0 word=70000\nfield "Payload" *\n')
    assert len(lines) == 1 and lines[0].startswith('Line 5: bitfield "hdr" has word=70000')


def test_line_breaks_read_as_spaces_where_there_is_one_line_of_room() -> None:
    """A bitfield row is 30 px high, a present= caption and a legend entry have one line:
    an author's \\n there reads as a space (stacked, the lines ran into the ruler, the next
    caption and the next legend entry, and off the canvas)."""
    source = ('figdown 0.1 bitfield\nclass a "Read-only:\\nset by hardware" fill=#dbeafe\n'
              'class b "Write one\\nto clear" fill=#fee2e2\n'
              'bitfield b "Control" word=16 numbering=msb0\nfield "Mode" 4 class=a\n'
              'field "Watchdog\\ntimeout" 8 class=b present="only when\\nMode > 4"\nfield "Opt" 4\n')
    svg = build(source).svg
    drawn = svg[:svg.index("<metadata")]
    assert "<tspan" not in drawn
    for joined in ("Watchdog timeout", "Watchdog timeout — present: only when Mode &gt; 4",
                   "Read-only: set by hardware", "Write one to clear"):
        assert f">{joined}<" in drawn, joined


def test_a_chart_of_many_rows_keeps_its_value_axis_on_the_canvas() -> None:
    """Ten rows reach far to the left of the chart's front corner; the canvas was sized
    from there, and the value axis at the back-right corner fell off it with its ticks."""
    rows = "".join(f"| r{i} | {v} |\n" for i, v in enumerate((120, 980, 4, 310, 45, 640, 1500, 2200, 75, 8640)))
    source = ("figdown 0.1 table\ntable ep \"Requests\"\n| Endpoint | Requests |\n|---|---:|\n" + rows
              + "chart ep\n")
    svg = build(source).svg
    width = float(re.search(r'viewBox="0 0 ([\d.]+) ', svg).group(1))
    ticks = re.findall(r'<text x="([\d.]+)" y="[\d.]+" font-size="9.5"[^>]*>(\d+)<', svg)
    assert [t for _, t in ticks] == ["0", "4320", "8640"]
    assert all(float(x) + len(t) * 9.5 * 0.7 <= width for x, t in ticks)
    axis = re.search(r'<line x1="([\d.]+)" y1="[\d.]+" x2="\1"', svg)
    assert axis is not None and float(axis.group(1)) < width


def test_notes_in_a_sequence_are_drawn_beside_it() -> None:
    """A lifeline's, a message's and a state's note= were accepted and never drawn; they
    stand in a column right of the diagram, level with what they are about, each with
    a leader, and the canvas holds them."""
    source = ('figdown 0.4 sequence\nlifeline c "Client" note="Chrome 120"\nlifeline s "Server"\n'
              'message c -> s "GET / (early data)" note="must be idempotent: replayable"\n'
              'state s "RESUMED" note="no certificate exchange"\n')
    out = build(source)
    assert out.diagnostics == []
    svg = out.svg
    width = float(re.search(r'viewBox="0 0 ([\d.]+) ', svg).group(1))
    notes = re.findall(r'<g class="fd-note" data-note-on="(\w+)" data-note-for="([^"]+)"><path d="M([\d.]+) ([\d.]+) H([\d.]+)', svg)
    assert sorted((on, ref) for on, ref, *_ in notes) == [("edge", "4"), ("lifeline", "c"), ("state", "5")]
    assert all(float(r) <= width for *_, r in notes)
    assert svg.count('stroke-dasharray="4 3"') >= 3   # the leaders
    for words in ("Chrome 120", "must be idempotent: replayable", "no certificate exchange"):
        assert words in svg[:svg.index("<metadata")]


def test_a_messages_end_labels_are_drawn_at_their_ends_under_its_line() -> None:
    """``message c [0-RTT] -> [TLS 1.3] s`` kept its end labels in the model and drew
    neither; each stands under the line by the lifeline at its end, clear of the other,
    of the label over the line and of the arrowhead, and a self-message's too."""
    from markmcp.figdown.render.text import label_px
    source = ('figdown 0.4 sequence\nlifeline c "Client"\nlifeline s "Server"\n'
              'message c [0-RTT resumption ticket] -> [TLS 1.3 terminator] s "GET /cart"\n'
              'message s [retry] <- [backoff] c "ping"\nmessage s [tick] -> [tock] s "timer"\n')
    out = build(source)
    assert out.diagnostics == []
    svg = out.svg[:out.svg.index("<metadata")]
    lifelines = [float(x) for x in re.findall(r'<line x1="([\d.]+)" y1="[\d.]+" x2="\1" y2="[\d.]+" '
                                              r'stroke="#94a3b8" stroke-width="1" stroke-dasharray="4 4"', svg)]
    assert len(lifelines) == 2
    c, s = sorted(lifelines)
    found = {}
    for m in re.finditer(r'<text x="([\d.]+)" y="([\d.]+)" font-size="(\d+)"( text-anchor="(\w+)")?[^>]*'
                         r' fill="#555">([^<]*)</text>', svg):
        x, y, size, anchor, words = float(m.group(1)), float(m.group(2)), m.group(3), m.group(5), m.group(6)
        w = label_px(words, float(size))
        left = x - w if anchor == "end" else (x - w / 2 if anchor == "middle" else x)
        found[words] = (left, left + w, y)
    assert set(found) == {"0-RTT resumption ticket", "TLS 1.3 terminator", "retry", "backoff", "tick", "tock"}
    lines = {float(y): (float(a), float(b)) for a, y, b in
             re.findall(r'<line x1="([\d.]+)" y1="([\d.]+)" x2="([\d.]+)" y2="\2"', svg)}
    first, second = sorted(lines)[:2]
    tail, head = found["0-RTT resumption ticket"], found["TLS 1.3 terminator"]
    assert c + 10 < tail[0] < c + 14 and s - 14 < head[1] < s - 10   # by their own lifelines, past a head
    assert tail[1] + 8 <= head[0]                                          # apart
    assert first + 10 <= tail[2] <= first + 12 and tail[2] == head[2]      # just under the line
    # ``s [retry] <- [backoff] c``: the tail is the s end's, the head the c end's
    assert found["retry"][1] < s and found["retry"][0] > c + 20
    assert found["backoff"][0] > c and found["backoff"][0] - c < 14 and found["backoff"][2] > second
    assert found["tick"][2] < found["tock"][2] and found["tick"][0] > s and found["tock"][0] > s


def test_a_timing_value_wider_than_its_box_shrinks_or_is_cut_short_with_its_whole_text_kept() -> None:
    """One-cycle values of twelve characters ran over their neighbours, the signal's name
    and the canvas edge; they shrink (to 7 px at least) and then end in "…", the whole
    value in the label's <title>."""
    from markmcp.figdown.render.text import face_width
    svg = build("figdown 0.1 timing\ntiming d \"Pipeline\"\nsignal clk pppp\n"
                "signal IF ==== data=fetch_0x0000,fetch_0x0004,fetch_0x0008,fetch_0x000C\n"
                "signal EX 0.== data=WB,ADDR\n").svg
    drawn = svg[:svg.index("<metadata")]
    for value in ("fetch_0x0000", "fetch_0x000C"):
        assert f"<title>{value}</title>" in drawn
    labels = re.findall(r'<text x="([\d.]+)" y="[\d.]+" font-size="([\d.]+)" text-anchor="middle"[^>]*>([^<]+)<', drawn)
    values = [(float(x), float(size), t) for x, size, t in labels if t.startswith(("fet", "WB", "ADDR"))]
    assert len(values) == 6
    # (measured letter by letter in the widest common face, 2 px in from each side)
    assert all(face_width(t, size) <= 26 - 4 + 0.01 and size >= 7 for _x, size, t in values)
    assert ("WB" in [t for *_r, t in values]) and ("ADDR" in [t for *_r, t in values])   # short ones whole


def test_timing_values_cut_short_are_written_whole_under_the_block() -> None:
    """One-cycle TAP states read "Run…", "Sele…", "Capt…" with the whole name only in a
    tooltip, which nothing printed shows: under the block each is written whole, once,
    beside what its box shows, in lines as wide as the block (at least 320 px, at most
    960)."""
    from markmcp.figdown.render.text import face_width
    svg = build('figdown 0.1 timing\ntiming j "TAP"\nsignal state ====.=.= '
                'data=Run-Test/Idle,Select-DR-Scan,Capture-DR,Shift-DR,Exit1-DR,Run-Test/Idle\n').svg
    drawn = svg[:svg.index("<metadata")]
    lines = re.findall(r'<text x="0" y="[\d.]+" font-size="10" text-anchor="start" fill="[^"]+">([^<]*)<', drawn)
    said = " ".join(lines)
    assert said.startswith("in full: ")
    for whole in ("Run-Test/Idle", "Select-DR-Scan", "Capture-DR"):
        assert said.count(f"= {whole}") == 1, whole
        assert f"<title>{whole}</title>" in drawn
    assert "= Shift-DR" not in said and "= Exit1-DR" not in said          # whole in their boxes
    width = float(re.search(r'viewBox="0 0 ([\d.]+) ', svg).group(1))
    assert all(face_width(line, 10) <= max(width, 320) for line in lines)
    # a lane of 300 cycles is 7,800 px wide: its lines stop at 960 px
    many = build("figdown 0.1 timing\ntiming t \"T\"\nsignal s " + "=" * 300 + " data="
                 + ",".join(f"value-{i}" for i in range(300)) + "\n").svg
    lines = re.findall(r'<text x="0" y="[\d.]+" font-size="10" text-anchor="start" fill="[^"]+">([^<]*)<', many)
    assert len(lines) > 20 and all(face_width(line, 10) <= 960 for line in lines)
    assert all(f"= value-{i};" in " ".join(lines) for i in (0, 150, 298))


def _values(svg: str) -> dict[str, tuple[float, float, bool]]:
    """Each drawn timing value: its centre x, its size, and whether it has a halo."""
    drawn = svg[:svg.index("<metadata")]
    out = {}
    for m in re.finditer(r'<text x="([\d.]+)" y="[\d.]+" font-size="([\d.]+)" text-anchor="middle"([^>]*)>([^<]+)<',
                         drawn):
        halo = 'stroke="#fff"' in m.group(3)
        x, size, words = float(m.group(1)), float(m.group(2)), m.group(4)
        prev = out.get(words)
        out[words] = (x, size, halo or (prev is not None and prev[2]))
    return out


def test_a_timing_value_runs_on_whole_over_the_unknown_cells_beside_its_box() -> None:
    """"row 0x1A3F" in one cycle's box, beside four cycles of don't-care, read "row…":
    it is written whole, at full size on a halo, over the hatched cells, from its box;
    beside another value's box it has no such room and is cut short."""
    from markmcp.figdown.render.text import face_width
    svg = build('figdown 0.1 timing\ntiming d "DDR"\nsignal CK pppppppp\n'
                'signal ADDR =x...=x. data="row 0x1A3F","col 0x080"\n'
                'signal CMD ==== data="ACTIVATE","NOP","READ","NOP"\n').svg
    values = _values(svg)
    x, size, halo = values["row 0x1A3F"]
    left = x - face_width("row 0x1A3F", size) / 2
    name_w = float(re.search(r'<rect x="([\d.]+)" y="[\d.]+" width="26"', svg).group(1))
    assert size == 10.5 and halo
    assert name_w < left < name_w + 4                      # starts in its own box
    assert left + face_width("row 0x1A3F", size) > name_w + 26   # and runs on past it
    assert values["col 0x080"][1] == 10.5
    assert "ACTIVATE" not in values and "<title>ACTIVATE</title>" in svg   # no room beside


def test_a_short_timing_value_fits_its_box_at_full_size() -> None:
    """"idle" was shrunk to 8.5 px in a one-cycle box (measured by a table that takes every
    letter for an average one); in a browser's widest common face it fits at 10.5 px."""
    values = _values(build('figdown 0.1 timing\ntiming d "CAN"\nsignal f ==== data=idle,SOF,RTR,IDE\n').svg)
    assert {v: size for v, (_x, size, _h) in values.items()} == {"idle": 10.5, "SOF": 10.5, "RTR": 10.5, "IDE": 10.5}


def test_a_gaps_mark_leaves_the_edge_after_it_in_sight() -> None:
    """``gap 7`` fell where WVALID rose for cycle 8: the mark's white band over the boundary
    wiped the edge out.  The mark stands short of the boundary; the edge is drawn beside it."""
    svg = build('figdown 0.1 timing\ntiming w "W"\nsignal clk pppppppppp\nsignal WVALID 0000000111\n'
                'signal WDATA x.x....=.. data=0xFF\ngap 7\n').svg
    drawn = svg[:svg.index("<metadata")]
    name_w = float(re.search(r'<rect x="([\d.]+)" y="[\d.]+" width="52" height="22" fill="url\(#hatch\)"',
                             drawn).group(1))   # WDATA's first box, from cycle 1
    boundary = name_w + 7 * 26
    band = [float(x) for x in re.findall(r'<path d="M([\d.]+),[\d.]+ q4,[^"]*" fill="none" stroke="#fff"', drawn)]
    assert len(band) == 1 and boundary - 12 < band[0] - 3 and band[0] + 3 + 2 < boundary
    # WVALID's rise at the start of cycle 8 is a vertical stroke at the boundary
    assert re.search(rf'M{re.escape(_num(boundary))},[\d.]+ L{re.escape(_num(boundary))},', drawn)
    # the value after the break does not run back across it
    from markmcp.figdown.render.text import face_width
    x, size, _halo = _values(svg)["0xFF"]
    assert x - face_width("0xFF", size) / 2 > boundary


def test_a_value_across_a_gap_is_written_clear_of_its_mark() -> None:
    """A value box the gap's mark crosses had its value centred on the box, the mark through
    its hyphen ("Shift-DR"); a one-cycle "2" just before the mark touched it.  Each is
    written in the widest stretch of its box the mark leaves, 6 px from the mark."""
    from markmcp.figdown.render.text import face_width
    svg = build('figdown 0.1 timing\ntiming j "JTAG"\nsignal st ==...... data=Capture-DR,Shift-DR\n'
                'signal bit x==x.... data=1,2\ngap 3\n').svg
    drawn = svg[:svg.index("<metadata")]
    (mark,) = [float(x) for x in re.findall(r'<path d="M([\d.]+),[\d.]+ q4,[^"]*" fill="none" stroke="#999"', drawn)]
    for value in ("Shift-DR", "2"):
        x, size, _halo = _values(svg)[value]
        half = face_width(value, size) / 2
        assert x + half < mark - 6 + 0.01 or x - half > mark + 6 - 0.01, (value, x, half, mark)


def test_a_clock_next_to_a_level_edges_only_where_the_level_changes() -> None:
    """SCL ``11ppp11``: the first period starts high, as the line was, and drew a stroke
    down and back (a glitch) at its start; the last ends low and ``1`` went on with no
    rise.  The vertical strokes are exactly the changes of level."""
    svg = build('figdown 0.1 timing\ntiming i "I2C"\nsignal SCL 11ppp11\n').svg
    drawn = svg[:svg.index("<metadata")]
    d = re.search(r'<path d="(M[^"]*)" fill="none" stroke="#1d4ed8"', drawn).group(1)
    verticals = sorted({round(float(x0), 2) for x0, y0, x1, y1 in
                        re.findall(r'M([\d.]+),([\d.]+) L([\d.]+),([\d.]+)(?= M|$)', d) if x0 == x1 and y0 != y1}
                       | {round(float(x), 2) for x in re.findall(r'L([\d.]+),[\d.]+ L\1,', d)})
    start = float(re.match(r'M([\d.]+),', d).group(1))
    # falls at each period's middle, rises at the 2nd and 3rd periods' starts and into ``1``
    expected = [start + c * 26 + 13 for c in (2, 3, 4)] + [start + c * 26 for c in (3, 4, 5)]
    assert verticals == sorted(round(v, 2) for v in expected), (verticals, d)


def _num(v: float) -> str:
    from markmcp.figdown.render.svg import num
    return str(num(v))


def test_a_self_message_on_the_last_lifeline_does_not_double_the_margin() -> None:
    """The room for a self-message's label right of the last lifeline was counted twice
    (once as drawn, once as padding): hundreds of pixels of empty canvas on the right."""
    from markmcp.figdown.render.text import label_px
    label = "self call with a rather long label that is drawn to the right"
    svg = build(f'figdown 0.4 sequence\nlifeline a "A"\nlifeline b "B"\nmessage a -> b "call"\n'
                f'message b -> b "{label}"\n').svg
    width = float(re.search(r'viewBox="0 0 ([\d.]+) ', svg).group(1))
    x, size = re.search(r'<text x="([\d.]+)" y="[\d.]+" font-size="([\d.]+)" text-anchor="start"[^>]*>'
                        + re.escape(label) + "<", svg).groups()
    end = float(x) + label_px(label, float(size))
    assert end < width <= end + 60   # the page's own padding; the room counted twice was 450 px more


def test_a_timing_gap_breaks_the_lanes_but_not_a_value_across_it() -> None:
    """The gap's wavy mark was painted over everything: it cut "PAYLOAD_BLOCK" in half and
    left the lanes running through.  The lanes now stop on either side (a white band
    under the mark), and a value across the gap is drawn over it, with a white edge."""
    svg = build("figdown 0.1 timing\ntiming t \"Burst\"\nsignal clk pppppppppppp\n"
                "signal data x=.........x data=PAYLOAD_BLOCK\ngap 6\n").svg
    drawn = svg[:svg.index("<metadata")]
    band = drawn.index('stroke="#fff" stroke-width="6"')
    mark = drawn.index('stroke="#999" stroke-width="2"')
    value = drawn.index(">PAYLOAD_BLOCK<")
    assert band < mark < value
    assert drawn.count(">PAYLOAD_BLOCK<") == 2   # the halo under the ink


def test_a_chart_of_several_series_keys_each_name_to_its_colour() -> None:
    """Revenue and Cost were drawn blue and green with nothing saying which is which;
    each series name now follows a swatch of its bars' top colour (one series: no key)."""
    table = "figdown 0.1 table\ntable q \"Quarterly\"\n| Quarter | Revenue | Cost |\n|---|---:|---:|\n" \
            "| Q1 | 120 | 98 |\n| Q2 | 131 | 140 |\nchart q\n"
    svg = build(table).svg
    drawn = svg[:svg.index("<metadata")]
    swatches = re.findall(r'<rect x="[\d.]+" y="[\d.]+" width="8" height="8" fill="(#[0-9a-f]{6})"/>', drawn)
    tops = re.findall(r'<polygon points="[^"]+" fill="(#[0-9a-f]{6})"/>', drawn)
    assert len(swatches) == 2 and swatches[0] != swatches[1]
    assert set(swatches) <= set(tops)
    single = "figdown 0.1 table\ntable q \"Q\"\n| Quarter | Revenue |\n|---|---:|\n| Q1 | 120 |\nchart q\n"
    assert 'width="8" height="8"' not in build(single).svg


def test_a_lifeline_head_grows_with_its_name() -> None:
    """A three-line lifeline name ran out of a one-line head, top and bottom, and into the
    first message's label; the heads grow a line at a time."""
    svg = build('figdown 0.4 sequence\nlifeline c "Checkout\\nservice\\n(zone a)"\nlifeline s "Stock"\n'
                'message c -> s "CheckRequest"\n').svg
    head = re.search(r'<g data-node="c"[^>]*>.*?<rect x="[\d.]+" y="([\d.]+)" width="[\d.]+" height="([\d.]+)"',
                     svg, re.S)
    top, height = float(head.group(1)), float(head.group(2))
    lines = re.search(r'<g data-node="c"[^>]*>.*?<text x="[\d.]+" y="([\d.]+)"[^>]*>(.*?)</text>', svg, re.S)
    first = float(lines.group(1))
    count = lines.group(2).count("<tspan")
    assert count == 3
    last = first + (count - 1) * 13 * 1.3
    assert top < first - 9 and last + 3 < top + height   # every line inside the head
    message = float(re.search(r'<line x1="[\d.]+" y1="([\d.]+)" x2="[\d.]+" y2="\1" stroke="#334155"', svg).group(1))
    assert message > top + height + 8


def test_a_region_title_with_a_line_break_is_one_line_and_the_canvas_holds_it() -> None:
    """A table's title is drawn on one line (an author's \\n reads as a space), and the
    canvas was sized for its widest part only: the table's and its chart's titles ran off
    the right edge."""
    from markmcp.figdown.render.text import CH, units
    svg = build("figdown 0.1 table\ntable t \"Table title\\nsecond line\"\n| A | B |\n|---|--:|\n"
                "| x | 1 |\n| y | 2 |\nchart t\n").svg
    width = float(re.search(r'viewBox="0 0 ([\d.]+) ', svg).group(1))
    drawn = svg[:svg.index("<metadata")]
    for title in ("Table title second line", "Table title second line — bar3d"):
        assert f">{title}<" in drawn
        assert units(title) * CH * 1.08 <= width


def test_a_chart_of_fractions_ticks_its_half() -> None:
    """Error rates of 0.2 to 0.5 were read against ticks of 0 and 1 alone (a half tick
    rounded to 1 and dropped); an axis of 2 or less ticks 0, its half and its top."""
    svg = build("figdown 0.1 table\ntable r \"Error rate (%)\"\n| Service | Rate |\n|---|---:|\n"
                "| auth | 0.2 |\n| search | 0.35 |\n| pay | 0.5 |\nchart r\n").svg
    assert re.findall(r'font-size="9.5"[^>]*>([^<]+)<', svg) == ["0", "0.5", "1"]
    whole = build("figdown 0.1 table\ntable r \"Requests\"\n| Service | N |\n|---|---:|\n"
                  "| auth | 45 |\n| pay | 90 |\nchart r\n").svg
    assert re.findall(r'font-size="9.5"[^>]*>([^<]+)<', whole) == ["0", "45", "90"]


def _crosses(seg, rect) -> bool:
    """Whether segment ``((x1, y1), (x2, y2))`` passes through the inside of ``(x, y, w, h)``
    (sampled finely; a leader ending on a rectangle's edge does not count)."""
    (x1, y1), (x2, y2) = seg
    x, y, w, h = rect
    for k in range(1, 400):
        t = k / 400
        px, py = x1 + (x2 - x1) * t, y1 + (y2 - y1) * t
        if x + 0.5 < px < x + w - 0.5 and y + 0.5 < py < y + h - 0.5:
            return True
    return False


def _leaders(svg: str) -> list[list[tuple[float, float]]]:
    """Every dashed note leader as its points: a line's two ends, a path's corners."""
    out = []
    for x1, y1, x2, y2 in re.findall(r'<line x1="([\d.]+)" y1="([\d.]+)" x2="([\d.]+)" y2="([\d.]+)" '
                                     r'stroke="[^"]+" stroke-width="1" stroke-dasharray="4 3"', svg):
        out.append([(float(x1), float(y1)), (float(x2), float(y2))])
    for d in re.findall(r'<path d="(M[^"]+)" fill="none" stroke="[^"]+" stroke-width="1" stroke-dasharray="4 3"', svg):
        out.append([tuple(map(float, pair.split())) for pair in d[1:].split(" L")])
    return out


def _leaders_clear(svg: str, heads: int, labels: int, leaders: int) -> list:
    """The note leaders of a sequence (as many as said), having checked that none crosses
    a head, a message's label (as many as said) or another leader."""
    from markmcp.figdown.render.text import label_px
    boxes = [tuple(map(float, m)) for m in re.findall(
        r'<g data-node="\w+"[^>]*><rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)"', svg)]
    words = [(float(x) - label_px(t, 11) / 2, float(y) - 9, label_px(t, 11), 11.0) for x, y, t in re.findall(
        r'<text x="([\d.]+)" y="([\d.]+)" font-size="11" text-anchor="middle" fill="#1d1d1b">([^<]+)<', svg)]
    assert (len(boxes), len(words)) == (heads, labels)
    found = _leaders(svg)
    assert len(found) == leaders
    segments = [(p, q) for pts in found for p, q in zip(pts, pts[1:])]
    for seg in segments:
        assert not any(_crosses(seg, r) for r in boxes + words), seg
    _no_two_cross(segments)
    return found


def _no_two_cross(segments) -> None:
    """No two of the leaders' segments cross (one leader's own corner does not count)."""
    for (p, q), (u, v) in itertools.combinations(segments, 2):
        if {p, q} & {u, v}:
            continue
        d1 = (q[0] - p[0]) * (u[1] - p[1]) - (q[1] - p[1]) * (u[0] - p[0])
        d2 = (q[0] - p[0]) * (v[1] - p[1]) - (q[1] - p[1]) * (v[0] - p[0])
        d3 = (v[0] - u[0]) * (p[1] - u[1]) - (v[1] - u[1]) * (p[0] - u[0])
        d4 = (v[0] - u[0]) * (q[1] - u[1]) - (v[1] - u[1]) * (q[0] - u[0])
        assert not (d1 * d2 < -1e-6 and d3 * d4 < -1e-6), ((p, q), (u, v))


def test_notes_stand_over_their_lifelines_heads_and_beside_their_rows() -> None:
    """Every note stood in a column right of the diagram: a middle lifeline's beside the last
    head, its leader a rule under the heads, a first message's leader crossing every lifeline
    after it.  A lifeline's note stands over its head, a message's and a state's beside it in
    its row where nothing is drawn there (a lifeline's dashes may pass behind), each with a
    short leader; one with no room there keeps the column."""
    svg = svg_of('figdown 0.4 sequence\nlifeline c "Client"\nlifeline p "Proxy" note="envoy 1.29"\n'
                 'lifeline s "Server"\nlifeline d "Database"\n'
                 'message c -> p "GET /cart?session=4f2a&view=full" note="replayable: no body"\n'
                 'message p -> s "GET /cart?session=4f2a&view=full"\n'
                 'state c "WAITING" note="spinner shown"\nmessage s -> d "SELECT * FROM cart WHERE id = 42"\n'
                 'message d -> s "rows"\nmessage s -> c "200 OK"\n')
    drawn = svg[:svg.index("<metadata")]
    heads = {nid: (float(x), float(y)) for nid, x, y in re.findall(r'<g data-node="(\w+)" data-x="([\d.]+)" '
                                                                     r'data-y="([\d.]+)"', drawn)}
    notes = {ref: (float(x), float(y), float(r)) for on, ref, x, y, r in re.findall(
        r'<g class="fd-note" data-note-on="(\w+)" data-note-for="([^"]+)"><path d="M([\d.]+) ([\d.]+) H([\d.]+)',
        drawn)}
    assert set(notes) == {"p", "6", "8"}
    x, y, r = notes["p"]
    assert y < heads["p"][1] and x < heads["s"][0]          # over its head, left of the next
    lifelines = [float(x) for x in re.findall(r'<line x1="([\d.]+)" y1="[\d.]+" x2="\1" y2="[\d.]+" '
                                              r'stroke="#94a3b8" stroke-width="1" stroke-dasharray="4 4"', drawn)]
    assert len(lifelines) == 4
    lines = [tuple(map(float, m)) for m in re.findall(
        r'<line x1="([\d.]+)" y1="([\d.]+)" x2="([\d.]+)" y2="([\d.]+)" stroke="#9c968a"', drawn)]
    assert len(lines) == 3                                   # straight leaders, no turns to a column
    for ref in ("6", "8"):                                   # level with their rows, short
        x, y, r = notes[ref]
        (leader,) = [ln for ln in lines if abs(ln[2] - x) < 0.01]
        assert leader[1] == leader[3] and y < leader[1] < y + 40 and abs(leader[2] - leader[0]) < 20
        # covering no lifeline, its leader crossing one at most
        assert not any(x - 8 < lx < r + 8 for lx in lifelines), (ref, x, r, lifelines)
        assert sum(1 for lx in lifelines if leader[0] < lx < x) <= 1
    # lifelines too close for either note between them: they went to the column past the
    # last, their leaders crossing the lifelines between; the gap past each message's end
    # widens to hold its note there (by no more in all than a column of notes costs)
    source = ('figdown 0.4 sequence\nlifeline c "Client"\nlifeline p "Proxy"\nlifeline s "Server"\n'
              'message c -> p "GET" note="replayable: no body"\nmessage p -> s "GET"\n'
              'state c "WAITING" note="spinner shown"\n')
    lifelines, notes, leaders, _dots = _notes_and_leaders(svg_of(source))
    assert len(notes) == 2 and len(leaders) == 2
    for x, _y, r in notes.values():
        assert not any(x - 8 < lx < r + 8 for lx in lifelines)              # over no lifeline
        assert any(lx < x for lx in lifelines) and any(r < lx for lx in lifelines)   # between two
    for x0, _y0, x1, _y1 in leaders:
        assert not any(min(x0, x1) < lx < max(x0, x1) for lx in lifelines)  # crossing none
    from markmcp.figdown.render.sequence import NOTE_ROOM_MOST
    plain = svg_of(source.replace(' note="replayable: no body"', "").replace(' note="spinner shown"', ""))
    width = lambda svg: float(re.search(r'viewBox="0 0 ([\d.]+)', svg).group(1))  # noqa: E731
    assert width(svg_of(source)) <= width(plain) + NOTE_ROOM_MOST


def test_a_note_with_no_room_in_the_next_gap_stands_in_a_wider_one_before_the_column() -> None:
    """A message's note whose next gap was too narrow went to the column right of the
    diagram, its leader crossing every lifeline after the message (1,200 px over five in a
    Kubernetes figure) where a gap two lifelines on held it.  It stands in the nearest gap
    that holds it while its leader crosses fewer lifelines than the column's would; where
    only the column would do, the column keeps it."""
    def placed(last_label: str) -> tuple[list[float], tuple[float, float], list[tuple[float, ...]]]:
        svg = svg_of('figdown 0.4 sequence\n' + "".join(f'lifeline {n} "{n.upper()}"\n' for n in "abcde")
                     + 'message a -> b "go" note="the note this test places, long enough to need room"\n'
                       'message b -> c "on"\nmessage c -> d "on"\n' + f'message d -> e "{last_label}"\n')
        drawn = svg[:svg.index("<metadata")]
        lifelines = [float(x) for x in re.findall(r'<line x1="([\d.]+)" y1="[\d.]+" x2="\1" y2="[\d.]+" '
                                                  r'stroke="#94a3b8" stroke-width="1" stroke-dasharray="4 4"', drawn)]
        (note,) = [(float(x), float(r)) for x, r in re.findall(
            r'<g class="fd-note" data-note-on="edge" data-note-for="\d+"><path d="M([\d.]+) [\d.]+ H([\d.]+)', drawn)]
        leaders = [tuple(map(float, m)) for m in re.findall(
            r'<line x1="([\d.]+)" y1="([\d.]+)" x2="([\d.]+)" y2="([\d.]+)" stroke="#9c968a"', drawn)]
        return lifelines, note, leaders
    lifelines, (x, r), leaders = placed("a long label that opens a wide gap between d and e")
    assert len(lifelines) == 5 and lifelines[3] + 8 <= x and r + 8 <= lifelines[4]   # between d and e
    (leader,) = leaders                                             # one level line, no turn
    assert leader[1] == leader[3] and leader[2] == x
    assert sum(1 for lx in lifelines if leader[0] < lx < x) == 2     # c and d; the column's crossed e too
    # every gap narrow: past e, still level with its row (the column's leader crossed as many)
    lifelines, (x, r), leaders = placed("on")
    (leader,) = leaders
    assert x > lifelines[4] and leader[1] == leader[3] and leader[2] == x


def _notes_and_leaders(svg: str):
    drawn = svg[:svg.index("<metadata")]
    lifelines = [float(x) for x in re.findall(r'<line x1="([\d.]+)" y1="[\d.]+" x2="\1" y2="[\d.]+" '
                                              r'stroke="#94a3b8" stroke-width="1" stroke-dasharray="4 4"', drawn)]
    notes = {ref: tuple(map(float, m)) for ref, *m in re.findall(    # (left, top, right)
        r'<g class="fd-note" data-note-on="\w+" data-note-for="([^"]+)"><path d="M([\d.]+) ([\d.]+) H[\d.]+ '
        r'L([\d.]+) ', drawn)}
    leaders = [tuple(map(float, m)) for m in re.findall(
        r'<line x1="([\d.]+)" y1="([\d.]+)" x2="([\d.]+)" y2="([\d.]+)" stroke="#9c968a"', drawn)]
    dots = [tuple(map(float, m)) for m in re.findall(r'<circle cx="([\d.]+)" cy="([\d.]+)" r="2" fill="#9c968a"',
                                                     drawn)]
    return lifelines, notes, leaders, dots


def test_a_note_stands_left_of_its_message_where_the_right_would_cross_a_lifeline() -> None:
    """A reply's note stood past the next lifeline, its leader going on from the reply's
    tail as the reply's own dashes, so the reply seemed to come from that lifeline; a
    self-message's leader left from the next lifeline and its note read as that one's.
    Where the gap left of a message (or of a self-message's lifeline) holds the note and
    the right side would cross a lifeline, the note stands on the left, its leader level
    with the row; every message's note leader leaves it from a dot."""
    head = ('figdown 0.4 sequence\nlifeline x "Browser"\nlifeline a "Gateway"\nlifeline b "Orders"\n'
            'lifeline c "Stock"\nmessage x -> a "POST /orders with a body long enough to open this gap"\n')
    for tail in ('message b -> a "409 conflict" note="the gateway retries once with a new key"\n',
                 'message a -> a "validate the request body against its schema" '
                 'note="the gateway retries once with a new key"\n'):
        lifelines, notes, leaders, dots = _notes_and_leaders(svg_of(head + 'message a -> b "create"\n'
                                                                    'message b -> c "reserve"\n' + tail))
        ((x, y, r),) = notes.values()
        assert lifelines[0] + 8 <= x and r + 8 <= lifelines[1], (tail, x, r, lifelines)   # between x and a
        (leader,) = leaders
        assert leader[1] == leader[3] and leader[2] == r and leader[0] == lifelines[1] - 3   # from a, leftwards
        assert dots == [(leader[0], leader[1])]
    # no room on the left (the message starts at the first lifeline): on its right, as before
    lifelines, notes, leaders, dots = _notes_and_leaders(svg_of(
        head + 'message a -> x "201" note="the gateway retries once with a new key"\n'))
    ((x, y, r),) = notes.values()
    assert x > lifelines[1] and dots == [(leaders[0][0], leaders[0][1])]


def test_a_frames_note_beside_its_corner_does_not_repeat_its_guard() -> None:
    """A frame's note opened with the frame's guard in bold, three lines of it beside the
    frame's label that already says it; beside its corner it says only its own words (in
    the column, far from its frame, the guard still names what it is about)."""
    guard = "periodSeconds=10 until failureThreshold=3 consecutive failures"
    def note_of(third: str) -> str:
        svg = svg_of('figdown 0.4 sequence\nlifeline k "Kubelet"\nlifeline c "Container"\n' + third
                     + f'fragment f "{guard}" type=loop note="probes stop while the pod terminates"\n'
                     'message k -> c "GET /healthz" in=f\nmessage c -> k "503" in=f\n')
        (group,) = re.findall(r'<g class="fd-note" data-note-on="fragment" data-note-for="f">.*?</g>', svg)
        return group
    beside = note_of('lifeline a "API server"\nmessage k -> a "PATCH status with a label long enough to open room"\n')
    assert "periodSeconds" not in beside and 'font-weight="600"' not in beside
    assert "probes stop" in beside


def test_a_frames_note_stands_beside_its_top_corner_where_there_is_room() -> None:
    """A fragment's note went to the column past the last lifeline, its leader crossing the
    lifelines between; with room between the frame and the next lifeline it stands there,
    level with the frame's top row, its leader a short level line."""
    svg = svg_of('figdown 0.4 sequence\nlifeline a "Uploader"\nlifeline b "Object storage"\n'
                 'lifeline c "Catalogue database"\nfragment f "each part" type=loop note="at most 8 in flight"\n'
                 'message a -> b "PUT ?partNumber=n (64 MiB, Content-MD5)" in=f\nmessage b -> a "200 ETag" in=f\n'
                 'message b -> c "INSERT snapshot(key, size, etag, parts=68) into the catalogue"\n')
    drawn = svg[:svg.index("<metadata")]
    (frame,) = [tuple(map(float, m)) for m in re.findall(
        r'<rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)" fill="none"', drawn)]
    (note,) = [tuple(map(float, m)) for m in re.findall(
        r'<g class="fd-note" data-note-on="fragment" data-note-for="f"><path d="M([\d.]+) ([\d.]+) H([\d.]+)', drawn)]
    (leader,) = [tuple(map(float, m)) for m in re.findall(
        r'<line x1="([\d.]+)" y1="([\d.]+)" x2="([\d.]+)" y2="([\d.]+)" stroke="#9c968a"', drawn)]
    lifelines = sorted(float(x) for x in re.findall(r'<line x1="([\d.]+)" y1="[\d.]+" x2="\1" y2="[\d.]+" '
                                                     r'stroke="#94a3b8"', drawn))
    right = frame[0] + frame[2]
    assert leader[0] == right and leader[1] == leader[3] and leader[2] == note[0] and note[0] - right < 20
    assert lifelines[1] < note[0] and note[2] < lifelines[2]     # between b's and c's lifelines
    assert note[1] < leader[1] < note[1] + 30


def test_a_note_beside_its_row_asks_only_what_is_drawn_near_its_rows(monkeypatch) -> None:
    """Each note looked at every thing drawn in the ladder: 2,000 notes took 0.9 s where the
    ladder took 0.2, 8,000 would take a minute.  A note asks only what stands in its own
    rows, however long the ladder."""
    from markmcp.figdown.render import sequence
    asked = []
    real = sequence._free

    def spy(r, taken, margin=3.0):
        asked.append(len(taken))
        return real(r, taken, margin)

    monkeypatch.setattr(sequence, "_free", spy)
    source = ('figdown 0.4 sequence\nlifeline a "A"\nlifeline b "B"\nlifeline c "C"\n'
              + "".join(f'message a -> b "call {i}" note="note {i}"\n' for i in range(400))
              + 'message b -> c "a long label to widen this gap enough for notes"\n')
    assert build(source).svg
    assert asked and max(asked) <= 40, max(asked)


def test_a_notes_last_line_is_never_one_short_word_alone() -> None:
    """"…so the last part is 13" over "MiB" alone, "…no round trip to the" over "KDC",
    "…a lock that another worker" over "now holds.": the last line takes words from the
    line above while it is under a third of the corridor and the line above stays the
    longer; an author's line break is kept, and a last line that is one long word is left
    as it is."""
    from markmcp.figdown.render.text import run_width, wrap_note

    def lines(text, prefix=None):
        return ["".join(t for t, _bold in line).strip() for line in wrap_note(text, prefix)]

    for text, prefix, last in (
            ("4.2 GiB / 64 MiB = 67.2, so the last part is 13 MiB", "68 parts, at most 8 in flight:", "13 MiB"),
            ("validates the PAC signature locally; no round trip to the KDC", "SESSION FOR alice:", "the KDC"),
            ("Compare-and-delete in one Lua script, so a worker whose lease already expired can never delete "
             "a lock that another worker now holds.", None, "now holds.")):
        got = lines(text, prefix)
        assert got[-1].endswith(last) and got[-1] != last, got
        assert run_width((got[-1], False)) < run_width((got[-2], False))
    assert lines("first paragraph of the note that runs long enough to wrap once\nKDC")[-1] == "KDC"
    last = lines("a note whose last word is unusually long: supercalifragilistic")
    assert len(last[-1].split()) >= 1 and "supercalifragilistic" in last[-1]


def test_a_lifeline_notes_leader_passes_under_the_heads_right_of_it() -> None:
    """A lifeline note's leader ran from its head's right edge straight through every head
    between it and the note column; it leaves its stem just under the heads and runs level
    to the gap before the column, the leftmost highest, so no leader crosses a head, a
    message's label or another leader."""
    # (notes too wide to stand side by side over the heads: a's, c's and e's do, b's, d's
    # and f's take the column)
    notes = ["Chrome 120 on a managed laptop, behind the corporate proxy",
             "envoy 1.29 with the ext_authz filter and a 2 s timeout", "Go service, three replicas behind the proxy",
             "Postgres 16 with one streaming replica in another zone", "Redis 7 as a write-through cache for carts",
             "Kafka topic audit.events, 7 days of retention"]
    names = ["Browser", "Edge proxy", "API", "Database", "Cache", "Audit bus"]
    source = ("figdown 0.4 sequence\n" + "".join(f'lifeline {chr(97 + i)} "{n}" note="{t}"\n'
                                                for i, (n, t) in enumerate(zip(names, notes)))
              + 'lifeline g "Archive"\nmessage b -> d "a long first message label here"\nmessage b -> c "forward"\n'
              'message c -> d "SELECT"\nmessage d -> e "cache"\nmessage e -> f "publish"\nmessage f -> g "archive"\n')
    svg = svg_of(source)
    over = re.findall(r'<g class="fd-note" data-note-on="lifeline" data-note-for="(\w)"><path d="M[\d.]+ 8 ', svg)
    assert sorted(over) == ["a", "c", "e"]
    leaders = _leaders_clear(svg, heads=7, labels=6, leaders=6)
    # the slanted legs from the turns to the notes fan out (turning at one x, they ran 1 px apart)
    legs = [pts[:2] for pts in leaders if len(pts) == 3 and pts[0][1] != pts[1][1]]
    assert len(legs) >= 2
    for (p, q), (u, v) in itertools.combinations(legs, 2):
        assert min(_point_to_segment(a, b, c) for a, (b, c) in ((p, (u, v)), (q, (u, v)),
                                                                (u, (p, q)), (v, (p, q)))) >= 4.0


def _point_to_segment(p, a, b) -> float:
    dx, dy = b[0] - a[0], b[1] - a[1]
    t = 0.0 if dx == dy == 0 else max(0.0, min(1.0, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / (dx * dx + dy * dy)))
    return ((p[0] - a[0] - t * dx) ** 2 + (p[1] - a[1] - t * dy) ** 2) ** 0.5


def test_a_charts_long_row_names_lean_clear_of_each_other_in_row_order() -> None:
    """Placed from the back row forward, a long name left the row in front of it no way
    past (rows stand 10 px apart): "Dependency outage…" was printed over "Configuration
    change…".  From the front row back, each leans past the one in front of it, every
    name is clear (no halo) and they read top to bottom in row order."""
    names = ["Configuration change pushed without canary", "Expired TLS certificate on internal load balancer",
             "Dependency outage (third-party identity provider)", "Capacity exhaustion during seasonal peak traffic",
             "Human error during manual database failover procedure", "Other"]
    rows = "".join(f"| {n} | {v} |\n" for n, v in zip(names, (14, 3, 7, 9, 2, 5)))
    svg = svg_of("figdown 0.1 table\ntable inc \"Incidents\"\n| Root cause | Incidents |\n|---|---:|\n"
                 + rows + "chart inc type=bar3d\n")
    chart = svg[svg.index("— bar3d"):svg.index("<metadata")]
    drawn = re.findall(r'<text x="([\d.]+)" y="([\d.]+)" font-size="10" text-anchor="end"([^>]*)>([^<]+)<', chart)
    assert [t for *_, t in drawn] == names                   # each once, in row order
    assert all('stroke="#fff"' not in attrs for *_, attrs, _t in drawn)
    ys = [float(y) for _x, y, *_ in drawn]
    assert ys == sorted(ys)
    from markmcp.figdown.render.text import units
    boxes = [(float(x) - units(t) * 6.5 * 10 / 11, float(y) - 8, float(x), float(y) + 2.5) for x, y, _a, t in drawn]
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            assert not (a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]), (a, b)


def test_a_messages_note_leader_starts_past_its_right_hand_end() -> None:
    """A message's note leader left from the middle of the message, ran along it and
    through the arrowhead at its right-hand end; it starts just past that end, whichever
    way the message points."""
    svg = svg_of('figdown 0.4 sequence\nlifeline a "Browser"\nlifeline b "CDN"\nlifeline c "Origin"\n'
                 'message a -> b "GET /index.html" note="cold cache"\nmessage a <- b "200" note="from edge"\n'
                 'message b -> c "fetch"\n')
    stems = sorted(float(x) for x in re.findall(r'<line x1="([\d.]+)" y1="[\d.]+" x2="\1" y2="[\d.]+" '
                                                 r'stroke="#94a3b8"', svg))
    assert len(stems) == 3
    leaders = _leaders(svg)
    assert len(leaders) == 2
    for pts in leaders:
        assert min(x for x, _y in pts) > stems[1], pts      # right of CDN's stem: off both messages


def test_a_self_messages_note_leader_starts_past_its_label() -> None:
    """A self-message's label stands right of its loop, and the note leader ran level from
    the loop through it; it starts past the label."""
    from markmcp.figdown.render.text import label_px
    svg = svg_of('figdown 0.4 sequence\nlifeline s "Scheduler"\nlifeline r "Runner"\n'
                 'message s -> s "compute due jobs" note="every minute"\nmessage s -> r "run"\n')
    (x, _y, text), = [(float(x), float(y), t) for x, y, t in re.findall(
        r'<text x="([\d.]+)" y="([\d.]+)" font-size="11" text-anchor="start" fill="#1d1d1b">([^<]+)<', svg)]
    assert text == "compute due jobs"
    (leader,) = _leaders(svg)
    assert min(px for px, _py in leader) >= x + label_px(text, 11)


def test_a_note_pushed_down_the_column_turns_in_the_gap_not_across_the_rows() -> None:
    """Long lifeline notes pushed the messages' notes far down the column, and the leader
    from "click save" slanted across the rows below it, through "PUT /doc" and its
    arrowhead; a leader whose note is not level with it runs level to the gap before the
    column and turns there, so no leader crosses a message's label, a head or another."""
    source = ('figdown 0.4 sequence\nlifeline u "User" note="a person at a browser who may close the tab at any moment"\n'
              'lifeline f "Frontend" note="single page app served from a CDN with long cache lifetimes"\n'
              'lifeline b "Backend" note="three replicas behind a round robin balancer"\n'
              'message u -> f "click save" note="debounced by 300 ms so double clicks only send one request"\n'
              'message f -> b "PUT /doc" note="carries an If-Match header with the last seen ETag"\n'
              'message f <- b "412" note="someone else saved first; the client must merge and retry"\n'
              'message u <- f "conflict dialog"\n')
    _leaders_clear(svg_of(source), heads=3, labels=4, leaders=6)


def _threshold_labels(svg: str, words: tuple[str, ...]) -> dict[str, float]:
    """Each threshold label's baseline (its ink, not its halo), by its text."""
    found = re.findall(r'<text x="[^"]+" y="([^"]+)" font-size="11" text-anchor="start" fill="#ef4444">([^<]*)</text>', svg)
    return {t: float(y) for y, t in found if t in words}


def test_threshold_labels_close_together_take_rows_of_their_own() -> None:
    # 95 %, 90 % and 85 % of a group a box tall lie 4 px apart: their labels overprinted
    words = ("full 0.95", "backfill 0.90", "nearfull 0.85")
    svg = svg_of("figdown 0.1 block\ngroup pool \"Pool\"\nnode used \"Used\" in=pool\n"
                 + "".join(f'threshold "{w}" in=pool offset={w[-2:]}%\n' for w in words)
                 + "node mon \"Monitor\"\nedge mon -> used\n")
    rows = _threshold_labels(svg, words)
    lines = [float(y) for y in re.findall(r'<line x1="[^"]+" y1="([^"]+)" x2="[^"]+" y2="[^"]+" '
                                          r'stroke="#ef4444" stroke-width="2"', svg)]
    assert len(rows) == 3 and len(lines) == 3
    baselines = [rows[w] for w in words]
    # in the lines' order (the highest line's label on top), a row apart, and the run of
    # them centred on the lines
    assert baselines == sorted(baselines) and lines == sorted(lines)
    assert all(b - a >= 13.99 for a, b in zip(baselines, baselines[1:]))
    assert abs(sum(baselines) / 3 - (sum(lines) / 3 + 4)) < 0.01
    # each label off its line has a tick from the line's end to it
    ticks = re.findall(r'<line x1="([^"]+)" y1="([^"]+)" x2="([^"]+)" y2="([^"]+)" stroke="#ef4444" '
                       r'stroke-width="1"/>', svg)
    assert sorted((round(float(y1), 2), round(float(y2) + 4, 2)) for _x1, y1, _x2, y2 in ticks) == \
        sorted((round(line, 2), round(b, 2)) for line, b in zip(lines, baselines) if abs(b - 4 - line) >= 2)


def test_threshold_labels_far_apart_stay_level_with_their_lines() -> None:
    words = ("high 0.90", "low 0.10")
    svg = svg_of("figdown 0.1 block\nnode tank \"Tank\\nlevel\\nsensor\\narray\"\n"
                 + "".join(f'threshold "{w}" in=tank offset={w[-2:]}%\n' for w in words))
    rows = _threshold_labels(svg, words)
    lines = [float(y) for y in re.findall(r'<line x1="[^"]+" y1="([^"]+)" x2="[^"]+" y2="[^"]+" '
                                          r'stroke="#ef4444" stroke-width="2"', svg)]
    assert [rows[w] for w in words] == [lines[0] + 4, lines[1] + 4]
    assert 'stroke-width="1"/>' not in svg


def test_threshold_labels_over_a_region_take_rows_of_their_own_too() -> None:
    words = ("Max", "High", "Higher")
    svg = svg_of("figdown 0.3 block\nnode a \"A\"\ntable q \"Queue depth\"\n| Slot | Depth |\n|------|-------|\n"
                 "| s0 | 12 |\n| s1 | 30 |\n"
                 + "".join(f'threshold "{w}" in=q offset={50 + 5 * k}%\n' for k, w in enumerate(words)))
    rows = _threshold_labels(svg, words)
    assert len(rows) == 3
    # the higher a line, the higher its label, each on its own row
    assert rows["Higher"] + 13.99 <= rows["High"] and rows["High"] + 13.99 <= rows["Max"]


def _box_rects(svg: str) -> dict[str, tuple[float, float, float, float]]:
    import xml.etree.ElementTree as ET
    ns = "{http://www.w3.org/2000/svg}"
    out = {}
    for g in ET.fromstring(svg).iter(ns + "g"):
        if g.get("data-node"):
            r = next(iter(g))
            x, y = float(r.get("x")), float(r.get("y"))
            out[g.get("data-node")] = (x, y, x + float(r.get("width")), y + float(r.get("height")))
    return out


def _overlaps(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def test_a_boxs_threshold_labels_have_room_beside_it() -> None:
    # the labels are written right of the box: flowing right they ran over the next box,
    # flowing down over the box beside it
    words = ("Credit limit 100% = hard block", "80% = warn desk")
    marks = "".join(f'threshold "{w}" in=credit offset={90 - 20 * k}%\n' for k, w in enumerate(words))
    for flow, extra in (("right", ""), ("down", "node side \"Side check\"\nedge qty -> side\nrank credit,side\n")):
        src = (f"figdown 0.1 block\nflow {flow}\nnode qty \"Max order qty\"\nnode credit \"Credit usage\"\n"
               f"node restricted \"Restricted list\"\nedge qty -> credit\nedge credit -> restricted\n{extra}{marks}")
        svg = svg_of(src)
        boxes = _box_rects(svg)
        for w in words:
            label = text_rect(svg, w, 11)
            assert not any(_overlaps(label, r) for nid, r in boxes.items()), (flow, w)


def test_a_connector_label_keeps_off_a_threshold_label() -> None:
    # the clearwell's low-level label, right of it, and the level signal's label on the
    # line leaving that side were written over each other
    src = ("figdown 0.1 block\nnode cl \"Chlorine contact\"\nnode well \"Clearwell\" shape=cylinder\n"
           "node plc \"Plant PLC\"\nedge cl -> well\nedge well -[level 4-20 mA]-> plc style=dotted\n"
           "threshold \"High-high level 5.8 m: trip inflow\" in=well offset=92%\n"
           "threshold \"Low level 1.2 m: stop high-service pumps\" in=well offset=20%\n")
    svg = svg_of(src)
    signal = text_rect(svg, "level 4-20 mA", 11)
    for w in ("High-high level 5.8 m: trip inflow", "Low level 1.2 m: stop high-service pumps"):
        assert not _overlaps(signal, text_rect(svg, w, 11)), w


def test_a_note_beside_its_row_takes_the_height_that_clears_what_is_above_and_below() -> None:
    """A note tried three heights only (centred on its row, or hanging from it, or standing
    on it): in an operand 60 px tall a note 50 px tall missed by half a pixel and went to
    the column.  The heights it tries include those just clear of each thing drawn beside
    it, while its leader still meets its side, the most level with the row first."""
    from markmcp.figdown.render.sequence import NOTE_ROW_OFF, _levels
    y, h = 373.0, 50.0
    divider, floor = (31.0, 334.0, 901.0, 336.0), (31.0, 396.0, 901.0, 397.0)
    tops = _levels(y, h, [divider, floor], 3.0)
    assert any(divider[3] + 3 < t and t + h + 3 < floor[1] for t in tops)     # one fits between the two
    # asked for more room than there is, none fits between them
    assert not any(divider[3] + 6 < t and t + h + 6 < floor[1] for t in _levels(y, h, [divider, floor], 6.0))
    assert tops[0] == y - h / 2                                              # centred first
    assert all(t + NOTE_ROW_OFF <= y <= t + h - NOTE_ROW_OFF for t in tops)  # its leader meets its side
    offsets = [abs(t + h / 2 - y) for t in tops]
    assert offsets == sorted(offsets)


def test_no_line_breaks_between_a_number_and_its_unit() -> None:
    """A transition's label was set as "still under 3.0" over "V after 30 min", and a
    note's greedy wrap could leave "13" at a line's end and "MiB" on the next: a number
    and the short word after it stay on one line, in labels and in notes."""
    from markmcp.figdown.render.scene.labels import wrap_label
    from markmcp.figdown.render.text import wrap_note

    assert wrap_label("still under 3.0 V after 30 min", 11) == "still under 3.0 V\nafter 30 min"
    for width_words in range(4, 40):
        text = " ".join(["word"] * width_words) + " 13 MiB and then 2.5 GHz at 45 °C."
        lines = ["".join(t for t, _b in line).strip() for line in wrap_note(text)]
        for a, b in zip(lines, lines[1:]):
            assert not (a.split()[-1][-1].isdigit() and len(b.split()[0].rstrip(".")) <= 4), (a, b)
        assert " ".join(lines) == text


def test_a_self_messages_note_leader_leaves_clear_of_the_next_lifeline() -> None:
    """A self-message's label filled the gap to the next lifeline, so its note's leader
    left from that lifeline and read as coming from it; a self-message with a note is
    given room for its leader to leave past the label, clear of the next lifeline."""
    src = ('figdown 0.4 sequence\nlifeline w "Worker"\nlifeline r "Redis"\nlifeline p "Postgres"\n'
           'message w -> r "SET lock"\nmessage r -> p "x"\n'
           'message w -> w "requeue job with 200 ms backoff plus random jitter" '
           'note="jitter keeps a burst of workers from retrying in lockstep"\n')
    lifelines, notes, leaders, dots = _notes_and_leaders(svg_of(src))
    ((dx, dy),) = dots
    assert lifelines[0] < dx <= lifelines[1] - 16
    (leader,) = leaders
    assert (leader[0], leader[1]) == (dx, dy)


def test_the_gaps_widened_for_notes_are_the_cheapest_within_what_a_column_costs() -> None:
    """Each note that found no room short of another lifeline asks its gap to be as wide
    as it needs; a gap takes the widest ask, the cheapest gaps are widened first, and the
    figure widens by no more than NOTE_ROOM_MOST in all.  A self-message's ask for its
    leader's way out past its label comes after the notes' asks, in what is left."""
    from markmcp.figdown.render.sequence import NOTE_ROOM_MOST, _room
    assert _room([]) == {}
    assert _room([(0, 100.0, 150.0, False)]) == {}                                 # it has the room already
    assert _room([(1, 300.0, 200.0, False), (1, 260.0, 200.0, False)]) == {1: 300.0}   # the widest ask
    got = _room([(0, 200.0 + NOTE_ROOM_MOST, 200.0, False), (2, 260.0, 120.0, False), (3, 250.0, 200.0, False)])
    assert got == {3: 250.0, 2: 260.0}                                              # cheapest first, in the cap
    # a way out asked where a note's room was granted is covered by it; elsewhere it is
    # granted from what is left, and not where nothing is
    assert _room([(1, 300.0, 200.0, False), (1, 222.0, 200.0, True), (4, 222.0, 200.0, True)]) == \
        {1: 300.0, 4: 222.0}
    full = [(0, 200.0 + NOTE_ROOM_MOST, 200.0 + 10.0, False)]
    assert _room(full + [(4, 222.0, 200.0, True)]) == {0: 200.0 + NOTE_ROOM_MOST}


def test_a_ladder_is_laid_again_for_its_notes_only_where_few_want_room(monkeypatch) -> None:
    """Widening gaps for notes lays the ladder twice; past ROOM_WANTS_MOST notes wanting
    room (the 280 px shared among them is a few pixels each) it is laid once, so a ladder
    of thousands of notes costs no more than it did."""
    from markmcp.figdown.render import sequence
    calls = []
    real = sequence._laid
    monkeypatch.setattr(sequence, "_laid", lambda *a: calls.append(1) or real(*a))
    few = ('figdown 0.4 sequence\nlifeline c "Client"\nlifeline p "Proxy"\nlifeline s "Server"\n'
           'message c -> p "GET" note="replayable: no body"\nmessage p -> s "GET"\n')
    svg_of(few)
    assert len(calls) == 2
    calls.clear()
    many = ('figdown 0.4 sequence\nlifeline c "Client"\nlifeline p "Proxy"\nlifeline s "Server"\n'
            + "".join(f'message c -> p "GET {k}" note="replayable: no body, request {k}"\nmessage p -> s "GET"\n'
                      for k in range(sequence.ROOM_WANTS_MOST + 10)))
    svg_of(many)
    assert len(calls) == 1
    calls.clear()
    monkeypatch.setattr(sequence, "ROOM_WANTS_MOST", 10_000)   # (so many do want room)
    svg_of(many)
    assert len(calls) == 2


def test_a_gap_widened_for_a_note_that_still_cannot_stand_in_it_is_given_back(monkeypatch) -> None:
    """A gap was widened for a note that then could not stand in it either (messages
    across that gap just above and below its row), and stood wide and empty while the
    note went on past it; such a gap is given back."""
    from markmcp.figdown.render import sequence
    src = ('figdown 0.4 sequence\nlifeline a "Alpha"\nlifeline b "Beta"\nlifeline c "Gamma"\nlifeline d "Delta"\n'
           'message b -> c "sync"\n'
           'message a -> b "go" note="a note long enough to want a wide gap here, and more words to wrap it"\n'
           'message b -> c "sync"\n')
    from markmcp.figdown import parse
    from markmcp.figdown.render.style import class_table
    (model,) = parse(src).models
    wants: list = []
    sequence._laid(model, class_table(model), 0.0, {}, wants)
    room = sequence._room(wants)
    assert room and all(need - has > 100 for gap, need, has, _leave in wants if gap in room)   # granted, and much
    lifelines, notes, leaders, _dots = _notes_and_leaders(svg_of(src))
    monkeypatch.setattr(sequence, "NOTE_ROOM_MOST", 0.0)      # no room at all: the same lifelines
    assert _notes_and_leaders(svg_of(src))[0] == lifelines
