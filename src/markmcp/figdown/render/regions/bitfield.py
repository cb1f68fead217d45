"""``bitfield``: a packet header or register, one row per ``word`` bits.

The look is FigDown's: a bit ruler (``lsb0`` counts down from the left,
``msb0`` up), 30 px rows, a cell width of 760/word clamped to 18…28 px.  A
field wider than the rest of its row continues on the next; one field is ONE
box (an L or a rectangle whose internal boundary is left open), named once —
a later box of the same field that shares no edge with the first carries the
engine's *(cont.)*.  ``break`` starts a new row; ``*`` fills the rest of one.
``present=`` dashes the field's boundary and adds a caption line;
``index=first..last`` draws the first and the last element with an elision
strip between them when elements are left out.

The drawing is bounded: a bitfield whose rows would hold more than
:data:`MAX_CELLS` bit cells (a huge ``word=`` or field width, which the
language allows) is refused with a diagnostic on the line that went past it,
instead of drawing for ever.
"""

from __future__ import annotations

from ..block import DRAWABLE, Block
from ..style import paint
from ..svg import esc, num, tag, text
from ..text import (IN_FULL_FS, INK_LIGHT, INK_MUTED, face_px, face_width, in_full, is_dark, one_line, shorten,
                    title_width, units)
from . import grid

RH, RULER, ELISION = 30, 16, 16
CONT = "(cont.)"
MAX_CELLS = 65_536
"""The most bit cells (``word`` × rows) one bitfield draws: 2,048 rows of 32 bits, 8 KiB."""


def _refused(line: int, message: str) -> Block:
    return Block("", 0.0, 0.0, diags=[(line, f"{message}; the figure is not drawn rather than cut short.")])


def _name(block: dict) -> str:
    return f'bitfield "{block.get("id", "")}"'


def _row_too_wide(block: dict, word: int) -> Block | None:
    """The refusal of a ``word=`` wider than the bound, or None."""
    if word <= MAX_CELLS:
        return None
    return _refused(block.get("line", 1), f"{_name(block)} has word={word}: a row of that many bits is more than "
                                          f"one bitfield drawing holds (at most {MAX_CELLS} bit cells)")


def _field_past_bound(block: dict, f: dict, end: int, word: int) -> Block | None:
    """The refusal of field ``f`` when the bits drawn up to ``end`` pass the bound, or None."""
    rows = -(-end // word)
    if rows * word <= MAX_CELLS:
        return None
    return _refused(f.get("line", 1), f'field "{f.get("name", "")}" takes {_name(block)} to {rows} rows of {word} '
                                      f"bits, more than one bitfield drawing holds (at most {MAX_CELLS} bit cells)")


def _outline(box: list[dict]) -> str:
    """The outline of a box made of row segments: bands down the right, back up the left."""
    bands = []
    for s in box:
        t = bands[-1] if bands else None
        if t and t["x"] == s["x"] and t["w"] == s["w"]:
            t["y1"] = s["y"] + RH
        else:
            bands.append({"x": s["x"], "w": s["w"], "y0": s["y"], "y1": s["y"] + RH})
    pts: list[tuple[float, float]] = []

    def add(px, py):
        if not pts or pts[-1] != (px, py):
            pts.append((px, py))
    add(bands[0]["x"] + bands[0]["w"], bands[0]["y0"])
    for j, band in enumerate(bands):
        add(band["x"] + band["w"], band["y1"])
        if j + 1 < len(bands):
            add(bands[j + 1]["x"] + bands[j + 1]["w"], band["y1"])
    add(bands[-1]["x"], bands[-1]["y1"])
    for j in range(len(bands) - 1, -1, -1):
        add(bands[j]["x"], bands[j]["y0"])
        if j > 0:
            add(bands[j - 1]["x"], bands[j]["y0"])
    return "M" + " L".join(f"{num(x)} {num(y)}" for x, y in pts) + " Z"


def _ends(block: dict, word: int):
    """Each element :func:`render` draws, as (field, the bit position it ends at): the
    fields' bit positions walked as :func:`render` walks them (breaks, ``*``, the two
    elements of an index range)."""
    pos = 0
    for f in block.get("fields", ()):
        if f.get("break"):
            pos = -(-max(pos, 1) // word) * word
            continue
        width = f.get("width")
        w0 = word - pos % word if width == "*" else int(width)
        if w0 <= 0:
            continue
        index = f.get("index")
        stated = index is not None and "first" in index
        for element in range(2 if stated else 1):
            yield f, pos + w0
            # the last element starts in the same column, on the row below the first's rows
            pos += -(-(pos % word + w0) // word) * word if element == 0 and stated else w0


def _undrawable(block: dict) -> Block | None:
    """The refusal of a ``word=`` or a field width too large a number to draw (400 digits
    are an infinite number, no count of bits: found by bench/fuzz.py), or None."""
    if not abs(block.get("word") or 32) <= DRAWABLE:
        return _refused(block.get("line", 1), f"{_name(block)} has a word= too large a number to draw")
    for f in block.get("fields", ()):
        width = f.get("width")
        if isinstance(width, (int, float)) and not abs(width) <= DRAWABLE:
            return _refused(f.get("line", 1), f'field "{f.get("name", "")}" has a width too large a number to draw')
    return None


def _refusal(block: dict) -> Block | None:
    """What :func:`render` refuses ``block`` with, found without drawing: the first element
    that goes past :data:`MAX_CELLS`."""
    refused = _undrawable(block)
    if refused is not None:
        return refused
    word = int(block.get("word") or 32)
    refused = _row_too_wide(block, word)
    if refused is not None:
        return refused
    for f, end in _ends(block, word):
        refused = _field_past_bound(block, f, end, word)
        if refused is not None:
            return refused
    return None


def cells(block: dict) -> int:
    """The bit cells :func:`render` draws for ``block`` (its rows × ``word``, at least one
    row: the ruler's), for a block :func:`diagnostics` does not refuse."""
    word = int(block.get("word") or 32)
    end = 0
    for _, e in _ends(block, word):
        end = max(end, e)
    return max(1, -(-end // word)) * word


def diagnostics(block: dict) -> list[tuple[int, str]]:
    """The diagnostics :func:`render` reports for ``block``, without drawing it."""
    refused = _refusal(block)
    return [] if refused is None else refused.diags


def render(block: dict, classes: dict, y0: float) -> Block:
    refused = _undrawable(block)
    if refused is not None:
        return refused
    word = int(block.get("word") or 32)
    refused = _row_too_wide(block, word)
    if refused is not None:
        return refused
    cell = max(18, min(28, 760 // word))
    label = block.get("label")
    label = block.get("id", "") if label is None else label
    out: list[str] = []
    cut_names: dict[str, str] = {}   # the names cut short, whole, by what the cell shows
    y = y0 + 18
    out.append(tag("text", [("x", 0), ("y", y - 4), ("font-size", 13), ("font-weight", "600")], esc(one_line(label))))
    msb0 = block.get("numbering") == "msb0"
    for i in range(word):
        bit = i if msb0 else word - 1 - i
        out.append(text(i * cell + cell / 2, y + 11, 8.5, str(bit), anchor="middle", fill=INK_MUTED))
    y += RULER
    owners: dict[tuple[int, int], grid.Owner] = {}
    elisions: list[dict] = []
    block_ink = paint(block, classes)

    def shift(row: int) -> float:
        return len({e["row"] for e in elisions if e["row"] < row}) * ELISION

    pos = 0
    for f in block.get("fields", ()):
        if f.get("break"):
            pos = -(-max(pos, 1) // word) * word
            continue
        width = f.get("width")
        w0 = word - pos % word if width == "*" else int(width)
        if w0 <= 0:
            continue
        ink = paint(f, classes)
        fill = ink["fill"] or block_ink["fill"] or "#fff"
        owner_colour = ink["stroke"]
        dashed = f.get("present") is not None

        def cut():
            nonlocal pos
            segs, rem = [], w0
            while rem > 0:
                row, col = divmod(pos, word)
                span = min(rem, word - col)
                segs.append({"row": row, "col": col, "n": span, "x": col * cell, "w": span * cell,
                             "y": y + row * RH + shift(row)})
                pos += span
                rem -= span
            return segs

        def occurrence(segs, suffix):
            boxes = [[segs[0]]]
            for p, q in zip(segs, segs[1:]):
                if q["y"] == p["y"] + RH and min(p["x"] + p["w"], q["x"] + q["w"]) > max(p["x"], q["x"]):
                    boxes[-1].append(q)
                else:
                    boxes.append([q])
            owner = grid.Owner(owner_colour, dashed)
            for bi, box in enumerate(boxes):
                for s in box:
                    for k in range(s["n"]):
                        owners[(s["row"], s["col"] + k)] = owner
                flat = all(s["x"] == box[0]["x"] and s["w"] == box[0]["w"] for s in box)
                desc = f.get("description")
                child = tag("title", (), esc(desc)) if desc is not None and bi == 0 else None
                if flat:
                    out.append(tag("rect", [("x", box[0]["x"]), ("y", box[0]["y"]), ("width", box[0]["w"]),
                                            ("height", len(box) * RH), ("fill", fill), ("stroke", "none")],
                                   child))
                else:
                    out.append(tag("path", [("d", _outline(box)), ("fill", fill), ("stroke", "none")], child))
                caption = (one_line(str(f.get("name", ""))) + suffix) if bi == 0 else CONT
                lead = max(box, key=lambda s: s["w"])
                ly = box[0]["y"] + len(box) * RH / 2 if flat else lead["y"] + RH / 2
                height = len(box) * RH if flat else RH
                markup, shown = _field_name(lead["x"] + lead["w"] / 2, ly, lead["w"] - 6, height - 6, caption,
                                            INK_LIGHT if is_dark(fill) else None,
                                            (("font-style", "italic"),) if bi else ())
                out.append(markup)
                if shown != caption:
                    cut_names.setdefault(caption, shown)

        index = f.get("index")
        stated = index is not None and "first" in index
        refused = _field_past_bound(block, f, pos + w0, word)
        if refused is not None:
            return refused
        first = cut()
        occurrence(first, f" [{index['first']}]" if stated else "")
        if index is not None:
            last = index.get("last")
            undrawn = abs(last - index["first"]) - 1 if stated and isinstance(last, (int, float)) \
                and not isinstance(last, bool) else None
            if undrawn != 0:
                ls = first[-1]
                elisions.append({"row": ls["row"], "x": ls["x"], "w": ls["w"], "y": ls["y"] + RH})
            if stated:
                pos += len(first) * word - w0
                refused = _field_past_bound(block, f, pos + w0, word)
                if refused is not None:
                    return refused
                occurrence(cut(), f" [{last}]")
    max_row = max((r for r, _ in owners), default=-1)

    row_y: dict[int, float] = {}   # the elisions are all known now: each row's y once

    def yrow(r: int) -> float:
        at_y = row_y.get(r)
        if at_y is None:
            at_y = row_y[r] = y + r * RH + shift(r)
        return at_y

    def at(r, c):
        if r < 0 or r > max_row or c < 0 or c >= word:
            return None
        return owners.get((r, c))
    all_runs = []
    rows = list(range(max_row + 1))
    for c in range(word + 1):
        all_runs += grid.runs(True, c * cell, [(yrow(i), yrow(i) + RH) for i in rows],
                              [(at(i, c - 1), at(i, c)) for i in rows])
    cols = list(range(word))
    for r in rows:
        above = r - 1 if r > 0 and yrow(r - 1) + RH == yrow(r) else None
        all_runs += grid.runs(False, yrow(r), [(i * cell, (i + 1) * cell) for i in cols],
                              [(None if above is None else at(above, i), at(r, i)) for i in cols])
        if r == max_row or yrow(r + 1) != yrow(r) + RH:
            all_runs += grid.runs(False, yrow(r) + RH, [(i * cell, (i + 1) * cell) for i in cols],
                                  [(at(r, i), None) for i in cols])
    stroke = block_ink["stroke"] or "#555"
    out.append(grid.draw(all_runs, stroke))
    for e in elisions:
        for x in (e["x"], e["x"] + e["w"]):
            out.append(tag("line", [("x1", x), ("y1", e["y"]), ("x2", x), ("y2", e["y"] + ELISION),
                                    ("stroke", stroke), ("stroke-dasharray", "2 3")]))
        size, need = 10.5, units("…") * 6.2
        if need > e["w"] - 6:
            size = max(7.0, 10.5 * (e["w"] - 6) / need)
        out.append(text(e["x"] + e["w"] / 2, e["y"] + ELISION / 2 + size * 0.35, round(size, 3), "…",
                        anchor="middle", fill=INK_MUTED))
    rows_drawn = max(1, -(-pos // word))
    yb = y + rows_drawn * RH + len({e["row"] for e in elisions}) * ELISION + 6
    wb = word * cell + 2
    conditions = [f for f in block.get("fields", ()) if f.get("present")]
    if conditions:
        yb += 4
        for f in conditions:
            line = one_line(f"{f.get('name', '')} — present: {f['present']}")
            out.append(text(0, yb + 9, 10.5, line, fill=INK_MUTED))
            wb = max(wb, units(line) * 6.3 + 2)
            yb += 14
        yb += 2
    if cut_names:
        # a name cut short in its cell is written whole under the bitfield: its tooltip
        # alone had shown it ("CRC d…", "ACK sl…")
        for line in in_full(cut_names, wb):
            out.append(text(0, yb + 9, IN_FULL_FS, line, fill=INK_MUTED))
            wb = max(wb, face_width(line, IN_FULL_FS) + 2)
            yb += 14
        yb += 2
    return Block("".join(out), yb, max(wb, title_width(label)), {"x0": 0, "x1": wb, "y0": y0 + 18, "y1": yb})


NAME_FS, NAME_FS_MIN = 11.0, 7.0   # a field name's size, and its least


def _field_name(cx: float, cy: float, room: float, tall: float, caption: str, fill, extra) -> tuple[str, str]:
    """A field's name centred in its cell, measured letter by letter in the widest common
    face (:func:`~..text.face_width`): at 11 px, smaller where the cell is narrow (down
    to 7 px); turned upright where that stands larger (a one-bit flag such as "RXNEIE",
    or "TSR" beside "MPRV": read across at 7 px beside upright names at 10.6, the small
    ones read as the lesser) and the cell's height holds it; else cut short with "…",
    the whole name in the label's ``<title>`` (across, the names of narrow fields ran
    over each other and off the canvas).  ``(markup, what it shows)``."""
    need = face_width(caption, NAME_FS)
    if need <= 0:
        return text(cx, cy + NAME_FS * 0.35, NAME_FS, caption, anchor="middle", fill=fill, extra=extra), caption
    size = min(NAME_FS, max(NAME_FS_MIN, NAME_FS * room / need))
    across = need * size / NAME_FS <= room + 0.01   # (at the size that fills it, a rounding over)
    upright = min(NAME_FS, NAME_FS * tall / need)
    turn = (("transform", f"rotate(-90 {num(cx)} {num(cy)})"),)
    # (upright, the letters' height lies across the cell)
    if upright >= NAME_FS_MIN and upright + 2 <= room + 6 \
            and (not across or upright >= size * UPRIGHT_GAIN and size < NAME_FS):
        return text(cx, cy + upright * 0.35, round(upright, 3), caption, anchor="middle", fill=fill,
                    extra=tuple(extra) + turn), caption
    if across:
        return text(cx, cy + size * 0.35, round(size, 3), caption, anchor="middle", fill=fill, extra=extra), caption
    # cut short, the way that keeps more of it: up a one-bit cell ("ACK slot" and "ACK
    # delim." both read "AC…" across it, "ACK s…" and "ACK d…" up it)
    up = NAME_FS_MIN + 2 <= room + 6 and tall > room
    at = NAME_FS_MIN if up else size
    # (up the cell, to 2 px from its ends: "ACK s…" where 3 px more had left "ACK…")
    shown = shorten(caption, lambda px: px <= (tall + 4 if up else room), lambda ch: face_px(ch, at))
    drawn = text(cx, cy + at * 0.35, round(at, 3), shown, anchor="middle", fill=fill,
                 extra=tuple(extra) + (turn if up else ()))
    return tag("g", (), tag("title", (), esc(caption)) + drawn), shown


#: How much larger (a ratio) a name that fits across must stand upright to be turned: a
#: name turned for 3 % more ("SD" at 10.6 px) read sideways for nothing.
UPRIGHT_GAIN = 1.2
