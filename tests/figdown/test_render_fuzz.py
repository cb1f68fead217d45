"""Fuzz: random and mutated documents never make the renderer raise.

Every generated document that parses clean is built; the build either refuses
with geometry diagnostics (each a ``(line, message)`` pointing into the
document) or returns an artifact that is well-formed XML, stays inside the Safe
SVG profile and reads back to its source.  Sizes are CI-sized: a few dozen
boxes at most, a bounded number of examples.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import SHARED
from fuzz_targets import run_figdown_render

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

LABEL = st.text(alphabet=st.sampled_from(list('abcXYZ 0129<>&"]\\—→界😀\n')), max_size=14)
COLOURS = ["#fff", "#1e3a8a", "red", "transparent", "#0d9488"]


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


@st.composite
def scene_documents(draw) -> str:
    genre = draw(st.sampled_from(["block", "topology", "flowchart", "statechart"]))
    version = "0.5"
    n = draw(st.integers(1, 12))
    ids = [f"n{i}" for i in range(n)]
    lines = [f"figdown {version} {genre}"]
    if draw(st.booleans()):
        lines.append(f'title {_quote(draw(LABEL))} note={_quote(draw(LABEL))}')
    lines.append(f"flow {draw(st.sampled_from(['right', 'down', 'left', 'up']))}")
    lines.append(f'class c1 {_quote(draw(LABEL))} fill={draw(st.sampled_from(COLOURS))}')
    n_groups = draw(st.integers(0, 3)) if genre in ("block", "topology") else 0
    groups = [f"g{i}" for i in range(n_groups)]
    for g in groups:
        lines.append(f"group {g} {_quote(draw(LABEL))}" + (" gap=0" if draw(st.booleans()) else ""))
    shapes = ["box", "rounded", "ellipse", "circle", "diamond", "cylinder"]
    for i in ids:
        opts = [f"shape={draw(st.sampled_from(shapes))}"]
        if groups and draw(st.booleans()):
            opts.append(f"in={draw(st.sampled_from(groups))}")
        if draw(st.integers(0, 4)) == 0:
            opts.append("class=c1")
        if draw(st.integers(0, 5)) == 0:
            opts.append(f"note={_quote(draw(LABEL))}")
        if draw(st.integers(0, 4)) == 0:
            opts.append(f"fill={draw(st.sampled_from(COLOURS))}")
        label = "" if draw(st.integers(0, 6)) == 0 else " " + _quote(draw(LABEL))
        keyword = "state" if genre == "statechart" else "node"
        lines.append(f"{keyword} {i}{label} " + " ".join(opts))
    externals = [f"x{i}" for i in range(draw(st.integers(0, 2)))]
    for x in externals:
        lines.append(f"external {x} {_quote(draw(LABEL))}")
    ends = ids + externals
    for k in range(draw(st.integers(0, 20))):
        a, b = draw(st.sampled_from(ends)), draw(st.sampled_from(ends))
        if a in externals and b in externals:
            continue
        op = draw(st.sampled_from(["->", "<-", "<->", "--"]))
        word = {"flowchart": "flowline", "statechart": "transition"}.get(genre, "edge")
        mid = draw(st.one_of(st.none(), LABEL.filter(lambda t: t and "]" not in t and "\n" not in t
                                                     and "[" not in t and not t.startswith(" ")
                                                     and not t.endswith(" ") and "-" not in t
                                                     and ">" not in t and "<" not in t)))
        tail = f" [p{k}]" if genre == "topology" and draw(st.booleans()) else ""
        if mid and op in ("->", "--"):
            arrow = f"-[{mid}]-" + (">" if op == "->" else "")
        else:
            arrow = op
        lines.append(f"{word} {a}{tail} {arrow} {b}" + (" style=dashed" if draw(st.booleans()) else ""))
    if n >= 2 and draw(st.booleans()):
        picked = draw(st.lists(st.sampled_from(ids), min_size=2, max_size=min(4, n), unique=True))
        lines.append("rank " + ",".join(picked))
    if n >= 2 and genre == "topology" and draw(st.booleans()):
        a, b, c = draw(st.sampled_from(ids)), draw(st.sampled_from(ids)), draw(st.sampled_from(ids))
        lines.append(f"bundle bn {_quote(draw(LABEL))} {a}--{b},{b}--{c}")
    if groups and genre == "block" and draw(st.booleans()):
        lines.append(f'threshold "t" in={groups[0]} offset={draw(st.integers(0, 100))}%')
        lines.append(f'band "b" 10..{draw(st.integers(11, 100))}% in={ids[0]}')
    if draw(st.booleans()):
        lines.append("layout")
        for target in draw(st.lists(st.sampled_from(ids + groups + externals), max_size=6, unique=True)):
            at = f"at=({draw(st.integers(-200, 900))},{draw(st.integers(-200, 700))})"
            size = "" if target not in ids or draw(st.booleans()) else \
                f" width={draw(st.integers(1, 400))} height={draw(st.integers(1, 300))}"
            lines.append(f"pin {target} {at}{size}")
    return "\n".join(lines) + "\n"


@SETTINGS
@given(scene_documents())
def test_random_scenes_never_raise(source: str) -> None:
    run_figdown_render(source)


@st.composite
def region_documents(draw) -> str:
    kind = draw(st.sampled_from(["bitfield", "table", "timing", "sequence"]))
    if kind == "bitfield":
        word = draw(st.sampled_from([8, 16, 32, 64]))
        lines = ["figdown 0.5 bitfield", f'bitfield b {_quote(draw(LABEL))} word={word} '
                 f'numbering={draw(st.sampled_from(["lsb0", "msb0"]))}']
        star = False
        for i in range(draw(st.integers(1, 12))):
            width = draw(st.one_of(st.integers(1, 96), st.just("*")))
            if width == "*":
                if star:
                    width = 4
                star = True
            extra = draw(st.sampled_from(["", ' present="C"', ' present=""', " index=0..3", " index=0..1",
                                          ' index=1..n', " fill=#1e3a8a", ' description="d"']))
            if width == "*" and "index" in extra:
                extra = ""
            lines.append(f'field {_quote("f" + str(i))} {width}{extra}')
            if draw(st.integers(0, 5)) == 0:
                lines.append("break")
    elif kind == "table":
        cols = draw(st.integers(1, 5))
        lines = ["figdown 0.5 table", f'table t {_quote(draw(LABEL))}',
                 "| " + " | ".join(f"H{c}" for c in range(cols)) + " |",
                 "|" + "|".join(draw(st.sampled_from(["---", ":-:", "--:", ":--"])) for _ in range(cols)) + "|"]
        for r in range(draw(st.integers(1, 6))):
            numeric = draw(st.booleans())
            choices = ["1", "12", "0", "7.5"] if numeric else ["a", "12", "x<br>y", "&lt;", "", "^^" if r else "b"]
            cells = [draw(st.sampled_from(choices + (["<"] if c and not numeric else [])))
                     for c in range(cols)]
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("chart t")
    elif kind == "timing":
        lines = ["figdown 0.5 timing", f'timing w {_quote(draw(LABEL))}']
        for i in range(draw(st.integers(1, 5))):
            lane = draw(st.text(alphabet="01pnx.", min_size=1, max_size=20))
            lines.append(f"signal s{i} {lane}")
        lines.append(f"gap {draw(st.integers(0, 20))}")
    else:
        n = draw(st.integers(1, 4))
        lines = ["figdown 0.5 sequence"] + [f'lifeline l{i} {_quote(draw(LABEL))}' for i in range(n)]
        lines.append('fragment f "F" type=alt')
        lines.append('operand o1 "one" in=f')
        lines.append('operand o2 "two" in=f')
        lines.append('message l0 -> l0 "first" in=o1')
        middle = []
        for k in range(draw(st.integers(1, 10))):
            a, b = draw(st.integers(0, n - 1)), draw(st.integers(0, n - 1))
            if draw(st.integers(0, 3)) == 0:
                middle.append(f'state l{a} {_quote("S" + str(k))} in=o2')
            else:
                middle.append(f'message l{a} {draw(st.sampled_from(["->", "<-", "<->"]))} l{b} '
                              f'{_quote(draw(LABEL))} in=o2')
        lines += middle
        lines.append(f'message l0 -> l{n - 1} "after"')
    return "\n".join(lines) + "\n"


@SETTINGS
@given(region_documents())
def test_random_regions_and_ladders_never_raise(source: str) -> None:
    run_figdown_render(source)


def _corpus() -> list[str]:
    folder = SHARED / "figdown" / "conformance"
    return [p.read_bytes().decode("utf-8") for p in sorted(folder.rglob("*.fd"))] if folder.is_dir() else []


CORPUS = _corpus()


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_mutated_corpus_documents_never_raise(data) -> None:
    if not CORPUS:
        return
    source = data.draw(st.sampled_from(CORPUS))
    lines = source.split("\n")
    for _ in range(data.draw(st.integers(1, 4))):
        if len(lines) < 2:
            break
        op = data.draw(st.sampled_from(["drop", "dup", "swap", "pin"]))
        i = data.draw(st.integers(1, len(lines) - 1))
        if op == "drop":
            del lines[i]
        elif op == "dup":
            lines.insert(i, lines[i])
        elif op == "swap":
            j = data.draw(st.integers(1, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        else:
            ident = data.draw(st.sampled_from(["a", "b", "c", "g", "n1", "s1", "x"]))
            lines.insert(i, f"pin {ident} at=({data.draw(st.integers(-50, 400))},"
                            f"{data.draw(st.integers(-50, 300))})")
    run_figdown_render("\n".join(lines))


def _refused_on_line_6(source: str) -> str:
    from markmcp.figdown.render import build
    out = build(source)
    assert out.svg is None
    (line,) = out.error_lines()
    assert line.startswith("Line 6: ") and "the figure is not drawn rather than cut short" in line, line
    return line


def test_a_column_width_of_hundreds_of_digits_is_refused_not_a_crash() -> None:
    """`width auto,1212…` (600 digits, an infinite number) made a column of infinite width,
    and drawing the page raised OverflowError (found by bench/fuzz.py, seed 1210); it is
    refused on its line, and a wide but drawable one still draws."""
    from markmcp.figdown.render import build
    table = 'figdown 0.1 table\ntable t "T"\n| A | B |\n|---|---|\n| 1 | 2 |\n'
    assert "too large a number to draw" in _refused_on_line_6(table + "width auto," + "12" * 300 + "\n")
    assert build(table + "width auto,5000%\n").svg is not None
    assert build(table + "width auto,300\n").svg is not None


def test_a_pin_of_hundreds_of_digits_is_refused_not_a_crash() -> None:
    """A pin at x = 999… (400 digits) drew a canvas of infinite width and raised; a pin's
    coordinate or size past 10^15 px is refused on its line (a size of 10^12 px is still
    drawn: test_render_free; an infinite size is already a parse error)."""
    from markmcp.figdown.render import build
    head = 'figdown 0.1 block\nnode a "A"\nnode b "B"\nedge a -> b\nlayout\n'
    for pin in ("pin a at=(" + "9" * 400 + ",10)", "pin a at=(10," + "9" * 30 + ")"):
        assert "too large a number to draw" in _refused_on_line_6(head + pin + "\n")
    assert build(head + "pin a at=(100000,10)\n").svg is not None


def test_a_bitfield_or_chart_number_of_hundreds_of_digits_is_refused_not_a_crash() -> None:
    """A field width, a word= or a chart value of 400 digits is an infinite number: int()
    or the axis's rounding raised OverflowError.  Each is refused on its line."""
    from markmcp.figdown.render import build
    big = "9" * 400
    bits = 'figdown 0.1 bitfield\nbitfield h "H" word={} numbering=msb0\nfield "A" {}\n'
    for source, line in ((bits.format(32, big), "Line 3: "), (bits.format(big, 8), "Line 2: ")):
        out = build(source)
        assert out.svg is None and out.error_lines()[0].startswith(line), out.error_lines()
        assert "too large a number to draw" in out.error_lines()[0]
    chart = f'figdown 0.1 table\ntable t "T"\n| A | B |\n|---|---:|\n| x | {big} |\n| y | 3 |\nchart t\n'
    out = build(chart)
    assert out.svg is None and out.error_lines() == [
        'Line 5: chart of table "t": a value in this row is too large a number to draw; the figure is not drawn '
        'rather than cut short.']
