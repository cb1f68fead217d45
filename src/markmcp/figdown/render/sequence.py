"""``sequence`` (experimental): the ladder.

Both axes are declaration order: lifelines left to right in the order they
are declared, and time top to bottom in the joint order of the ``message``
and ``state`` lines.  A ``fragment`` (or ``operand``) has no time of its own —
its frame spans the rows of its members, and the columns they touch.  Nothing
is inferred: no activation bars, no reordering.

Look (FigDown's conventions): head boxes 32 px high with the lifeline dashed
below; a 34 px row per message (a self-message is taller and loops 40 px to
the right); the label 8 px above its arrow; a state is a pill on its lifeline;
a fragment is a frame with its operator in a tab and its label in brackets,
operands after the first divided by a dashed rule with their guard.
Columns widen until every label and frame caption fits.

The ladders are bounded: past :data:`MAX_ROWS` rows (messages and states) in
one document, the row that went past is refused, instead of drawing for a minute.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import Counter

from .block import Block, Budget
from .notes import leader_svg, note_svg, origin_svg
from .scene.squares import SquareIndex
from .style import class_table, display_label, paint
from .svg import dash, esc, num, tag, text
from .text import CH, END_FS, INK_DARK, label_ink, note_size, one_line, widest

HEAD_H, HEAD_PADX, HEAD_MINW = 32, 13, 76
HEAD_LINE = 13 * 1.3   # a lifeline head grows by this for each extra line of its name
ROW_H, SELF_W, SELF_EXTRA, STATE_H = 34, 40, 26, 22
LBL_FS, LBL_LIFT = 11, 8
FRAG_TOP, FRAG_BOT, OPERAND_TOP, FRAG_PADX, FRAG_INSET, ENC_PAD = 26, 12, 20, 22, 9, 6
ARROW_LEN, ARROW_HALF = 10.08, 5.6
#: A message's end labels (``message a [tail] -> [head] b``) stand under its line, END_IN
#: in from the lifeline at their end (past an arrowhead there) and END_DROP below the
#: line (its baseline: the letters 3.5 px under the line, nearer it than the next row's
#: label), END_APART from one another at the least; a self-message's tail stands over
#: its loop's top and its head under its bottom.
END_IN, END_DROP, END_APART = 12.0, 11.0, 12.0
END_INK = "#555"
MAX_ROWS = 16_384
"""The most rows (messages and states) the ladders of one document (every section) draw:
about 7 MB of SVG in 2 s.  A row costs about 0.12 ms and 430 bytes, so the 10 MiB a source
may hold (420,000 messages) drew for about a minute.  The longest ladder of the conformance
corpus and the examples has 25 (dhcp-lease)."""


def _rows(model: dict) -> list[tuple[str, dict]]:
    """The ladder's rows, messages and states in the order of their lines."""
    return sorted([("message", m) for m in model.get("messages", ())]
                  + [("state", s) for s in model.get("states", ())], key=lambda r: r[1].get("line", 0))


def diagnostics(model: dict, budget: Budget | None = None) -> list[tuple[int, str]]:
    """What :func:`render` reports for ``model``, without drawing: the refusal of a ladder
    that takes the document past :data:`MAX_ROWS` rows (the ladders of its earlier sections
    count, ``budget.rows``), on the line of the first row past it.  Within the bound, the
    rows are added to ``budget``."""
    budget = Budget() if budget is None else budget
    rows = _rows(model)
    if budget.rows + len(rows) <= MAX_ROWS:
        budget.rows += len(rows)
        return []
    kind, el = rows[MAX_ROWS - budget.rows]
    return [(el.get("line", 1), f"this {kind} is row {MAX_ROWS + 1} of this document's ladders, more rows than "
                                f"one document draws (at most {MAX_ROWS} messages and states); the figure is not "
                                "drawn rather than cut short.")]


def _label_px(s: str | None) -> float:
    return widest(s) * 6.5 * LBL_FS / 11 + 8 if s else 0.0


def _end_px(s: str | None) -> float:
    """An end label's width (one line, at :data:`~.text.END_FS`)."""
    return widest(one_line(s)) * 6.5 * END_FS / 11 + 2 if s else 0.0


def _pill_w(name: str) -> float:
    return max(46.0, widest(name) * 6.6 + 18)


def _arrow(tip, back, colour):
    dx, dy = tip[0] - back[0], tip[1] - back[1]
    length = (dx * dx + dy * dy) ** 0.5 or 1.0
    ux, uy = dx / length, dy / length
    bx, by = tip[0] - ux * ARROW_LEN, tip[1] - uy * ARROW_LEN
    d = (f"M{num(tip[0])} {num(tip[1])} L{num(bx - uy * ARROW_HALF)} {num(by + ux * ARROW_HALF)} "
         f"L{num(bx + uy * ARROW_HALF)} {num(by - ux * ARROW_HALF)} z")
    return tag("path", [("d", d), ("fill", colour), ("stroke", "none")])


def _titled(desc, shape: str) -> str:
    return shape if desc is None else tag("g", (), tag("title", (), esc(desc)) + shape)


def render(model: dict, classes: dict, y0: float, budget: Budget | None = None) -> Block:
    refused = diagnostics(model, budget)
    if refused:
        return Block("", y0, 0.0, None, refused)
    wants: list[tuple[int, float, float, bool]] = []
    block = _laid(model, classes, y0, {}, wants)
    # (laid again only where that can help: past ROOM_WANTS_MOST notes the room shared
    # among them is a few pixels each, and a second laying would double the time)
    room = _room(wants) if len(wants) <= ROOM_WANTS_MOST else {}
    if not room:
        return block
    again: list[tuple[int, float, float, bool]] = []
    widened = _laid(model, classes, y0, room, again)
    # a gap widened for notes none of which then stood in it (something drawn above or
    # below was in the way) is given back: it stood wide and empty
    asked = Counter(gap for gap, _need, _has, leave in wants if not leave)
    still = Counter(gap for gap, _need, _has, leave in again if not leave)
    idle = {gap for gap in room if asked[gap] and still[gap] >= asked[gap]}
    if not idle:
        return widened
    room = {gap: need for gap, need in room.items() if gap not in idle}
    return _laid(model, classes, y0, room, None) if room else block


def _room(wants: list[tuple[int, float, float, bool]]) -> dict[int, float]:
    """The gaps to widen so that notes which found no room beside their rows short of
    another lifeline do (``wants``: (gap, width it needs, width it has, whether it asks
    only for its leader's way out past a self-message's label)), the cheapest first,
    while the figure widens by no more than :data:`NOTE_ROOM_MOST` in all (what a column
    of notes costs): a reply's note stood past the next lifeline, its leader going on
    from the reply's tail, and read as that lifeline's.  The asks for a leader's way out
    come after the asks for a note's room, in what is left."""
    room, spent = {}, 0.0
    for leave in (False, True):
        need: dict[int, tuple[float, float]] = {}
        for gap, wanted, has, only_leave in wants:
            if only_leave == leave and wanted > has and gap not in room:
                need[gap] = (max(wanted, need.get(gap, (0.0, has))[0]), has)
        for gap, (wanted, has) in sorted(need.items(), key=lambda g: (g[1][0] - g[1][1], g[0])):
            if spent + wanted - has > NOTE_ROOM_MOST:
                break
            room[gap] = wanted
            spent += wanted - has
    return room


NOTE_ROOM_MOST = 280.0   # the most a figure widens in all to hold notes beside their rows
ROOM_WANTS_MOST = 64     # the most notes wanting room for which a figure is laid again


def _laid(model: dict, classes: dict, y0: float, room: dict[int, float], wants: list | None) -> Block:
    """The ladder drawn, gap ``g`` between lifelines ``g`` and ``g + 1`` at least
    ``room[g]`` wide; ``wants`` (a list, or None) is told where notes wanted room."""
    lifelines = model.get("lifelines", [])
    col = {lf["id"]: i for i, lf in enumerate(lifelines)}
    rows = _rows(model)
    containers = {c["id"]: ("fragment", c) for c in model.get("fragments", ())}
    containers.update({c["id"]: ("operand", c) for c in model.get("operands", ())})

    def parent(cid):
        return containers[cid][1].get("in")

    def chain(cid):
        out = []
        while cid is not None and cid in containers and cid not in out:
            out.append(cid)
            cid = parent(cid)
        return out

    depth = {cid: len(chain(cid)) - 1 for cid in containers}
    owned: dict[str, list[int]] = {cid: [] for cid in containers}
    for k, (_, el) in enumerate(rows):
        for cid in chain(el.get("in")):
            owned[cid].append(k)
    extent = {cid: (min(ks), max(ks)) for cid, ks in owned.items() if ks}

    def cols_of(el, kind):
        if kind == "message":
            return [col[e] for e in (el["a"], el["b"]) if e in col]
        return [col[el["lifeline"]]] if el.get("lifeline") in col else []
    span: dict[str, tuple[int, int]] = {}
    for cid, ks in owned.items():
        cs = [c for k in ks for c in cols_of(rows[k][1], rows[k][0])]
        if cs:
            span[cid] = (min(cs), max(cs))
    head_w = [max(HEAD_MINW, widest(display_label(lf)) * CH + 2 * HEAD_PADX) for lf in lifelines]
    n = len(lifelines)

    def tab_w(cid):
        return widest(containers[cid][1].get("type") or "") * 6.6 + 16

    def cap_w(cid):
        kind, el = containers[cid]
        lab = "" if el.get("label") is None else f"[{one_line(el['label'])}]"
        return (tab_w(cid) + 14 if kind == "fragment" else 8) + widest(lab) * 6.6 + 10

    def pad_of(cid):
        return max(6, FRAG_PADX - depth[cid] * FRAG_INSET)
    cd = [head_w[k] / 2 + head_w[k + 1] / 2 + 26 for k in range(n - 1)]
    right_pad = 0.0

    def widen(i, j, need):
        if j <= i:
            return
        have = sum(cd[i:j])
        if have < need:
            add = (need - have) / (j - i)
            for k in range(i, j):
                cd[k] += add
    for kind, el in rows:
        if kind != "message" or el["a"] not in col or el["b"] not in col:
            continue
        ci, cj = col[el["a"]], col[el["b"]]
        ends = _end_px(el.get("tail")), _end_px(el.get("head"))
        if ci == cj:
            need = max(SELF_W + _label_px(el.get("label")), 6 + ends[0], 14 + ends[1]) + 16
            if ci + 1 < n:
                widen(ci, ci + 1, need)
            else:
                right_pad = max(right_pad, need)
        else:
            widen(min(ci, cj), max(ci, cj), _label_px(el.get("label")) + 26)
            if any(ends):
                widen(min(ci, cj), max(ci, cj), sum(ends) + 2 * END_IN + END_APART)
    for cid, (lo, hi) in span.items():
        if lo == hi:
            right_pad = max(right_pad, cap_w(cid) - pad_of(cid) - head_w[hi] / 2)
        else:
            widen(lo, hi, cap_w(cid) - 2 * pad_of(cid))
    for gap, need in room.items():
        widen(gap, gap + 1, need)
    left_pad = 0.0
    for kind, el in rows:
        if kind == "state" and col.get(el.get("lifeline")) == 0:
            left_pad = max(left_pad, _pill_w(el["name"]) / 2 + ENC_PAD - head_w[0] / 2)
    for cid, (lo, _) in span.items():
        if lo == 0:
            left_pad = max(left_pad, pad_of(cid) + ENC_PAD + 6 - head_w[0] / 2)
    xs = [head_w[0] / 2 + max(0.0, left_pad)] if n else []
    for k in range(1, n):
        xs.append(xs[-1] + cd[k - 1])
    opens: dict[int, list[str]] = {}
    closes: dict[int, list[str]] = {}
    for cid, (lo, hi) in extent.items():
        opens.setdefault(lo, []).append(cid)
        closes.setdefault(hi, []).append(cid)
    head_h = _head_h(lifelines)
    # a lifeline's note stands over its head where there is room: the heads move down
    over_heads, band = _notes_above(lifelines, xs, y0)
    y0 += band
    # the other lifelines' notes' leaders run level under the heads, STEM_RUN_STEP apart:
    # more of them than the gap above the first row holds push the rows down
    stems = sum(1 for lf in lifelines[:-1] if lf.get("note") and lf["id"] not in over_heads)
    y = y0 + head_h + 22 + max(0.0, (stems - 1) * STEM_RUN_STEP - STEM_RUN_ROOM)
    top, bottom_of, mids = {}, {}, []
    for k, (kind, el) in enumerate(rows):
        for cid in sorted(opens.get(k, ()), key=lambda c: (depth[c], c)):
            if depth[cid] == 0 and containers[cid][0] == "fragment":
                y += 8
            top[cid] = y
            y += FRAG_TOP if containers[cid][0] == "fragment" else OPERAND_TOP
        h = ROW_H
        above = 0.0   # room a message's extra label lines take above its line
        if kind == "state":
            h += el["name"].count("\n") * LBL_FS * 1.3
        if kind == "message":
            if el["a"] == el["b"]:
                h += SELF_EXTRA
            extra = (el.get("label") or "").count("\n") * LBL_FS * 1.3
            h += extra
            if el["a"] != el["b"]:   # the label stands above the line: its extra lines go up
                above = extra / 2
        mids.append(y + h / 2 + above)
        y += h
        for cid in sorted(closes.get(k, ()), key=lambda c: (depth[c], c), reverse=True):
            if containers[cid][0] == "fragment":
                y += FRAG_BOT
            bottom_of[cid] = y
        if closes.get(k) and k + 1 < len(rows):
            y += 10
    bottom = y + 10
    boxes = {}
    for cid in extent:
        lo, hi = span.get(cid, (0, n - 1))
        pad = pad_of(cid)
        x0 = xs[lo] - pad
        boxes[cid] = [x0, max(xs[hi] + pad, x0 + cap_w(cid)), top[cid], bottom_of[cid]]
    for cid, ks in owned.items():
        if cid not in boxes:
            continue
        for k in ks:
            kind, el = rows[k]
            if kind == "state":
                if el.get("lifeline") not in col:
                    continue
                w = _pill_w(el["name"])
                lo_x, hi_x = xs[col[el["lifeline"]]] - w / 2, xs[col[el["lifeline"]]] + w / 2
            else:
                if el["a"] not in col or el["b"] not in col:
                    continue
                a, b = col[el["a"]], col[el["b"]]
                lo_x = min(xs[a], xs[b])
                hi_x = xs[a] + SELF_W + 8 + _label_px(el.get("label")) if a == b else max(xs[a], xs[b])
            boxes[cid][0] = min(boxes[cid][0], lo_x - ENC_PAD)
            boxes[cid][1] = max(boxes[cid][1], hi_x + ENC_PAD)
    for cid in sorted(boxes, key=lambda c: -depth[c]):
        kind, el = containers[cid]
        up = el.get("in")
        if kind == "operand" and up in boxes:
            boxes[up][3] = max(boxes[up][3], boxes[cid][3])
            boxes[up][0] = min(boxes[up][0], boxes[cid][0] - 6)
            boxes[up][1] = max(boxes[up][1], boxes[cid][1] + 6)
    for cid in boxes:
        kind, el = containers[cid]
        if kind == "operand" and el.get("in") in boxes:
            up = boxes[el["in"]]
            boxes[cid][0], boxes[cid][1] = up[0], up[1]
    return _draw(model, classes, lifelines, rows, containers, depth, boxes, xs, head_w, mids, y0,
                 bottom, right_pad, head_h, over_heads, wants)


def _ends(el: dict, places) -> list[str]:
    """A message's tail and head labels, each at its place ``(x, baseline, anchor)``: the
    model keeps them, so the drawing shows them (upstream draws neither)."""
    return [text(x, y, END_FS, one_line(el[key]), anchor=anchor, fill=END_INK, halo=True)
            for key, (x, y, anchor) in zip(("tail", "head"), places) if el.get(key)]


def _head_h(lifelines) -> float:
    """The lifelines' heads' height: one line's, and a line more for each extra line of
    the tallest name (a three-line name ran out of a one-line head, top and bottom)."""
    lines = max([1] + [display_label(lf).count("\n") + 1 for lf in lifelines])
    return HEAD_H + (lines - 1) * HEAD_LINE


def _draw(model, classes, lifelines, rows, containers, depth, boxes, xs, head_w, mids, y0, bottom,
          right_pad, head_h, above, wants=None) -> Block:
    col = {lf["id"]: i for i, lf in enumerate(lifelines)}
    bg, mid, ink = [], [], []
    taken: list[tuple[float, float, float, float]] = []   # what a note beside its row must not cover
    extent = [xs[-1] + head_w[-1] / 2] if xs else [0.0]
    for i, lf in enumerate(lifelines):
        w, hx = head_w[i], xs[i] - head_w[i] / 2
        taken.append((hx, y0 + 8, hx + w, y0 + 8 + head_h))
        ink_ = paint(lf, classes)
        fill, stroke = ink_["fill"] or "#eef2ff", ink_["stroke"] or "#4f46e5"
        bg.append(tag("line", [("x1", xs[i]), ("y1", y0 + head_h + 8), ("x2", xs[i]), ("y2", bottom),
                               ("stroke", "#94a3b8"), ("stroke-width", 1), ("stroke-dasharray", "4 4")]))
        body = "" if lf.get("description") is None else tag("title", (), esc(lf["description"]))
        body += tag("rect", [("x", hx), ("y", y0 + 8), ("width", w), ("height", head_h), ("rx", 4),
                             ("fill", fill), ("stroke", stroke), ("stroke-dasharray", dash(ink_["style"]))])
        body += text(xs[i], y0 + 8 + head_h / 2 + 4.5, 13, display_label(lf), anchor="middle",
                     fill=label_ink(fill, INK_DARK))
        bg.append(tag("g", [("data-node", lf["id"]), ("data-x", hx), ("data-y", y0 + 8)], body))
    operands_of: dict[str, list[str]] = {}
    for o in model.get("operands", ()):
        operands_of.setdefault(o.get("in"), []).append(o["id"])
    for cid in sorted(boxes, key=lambda c: (depth[c], c)):
        x0, x1, t, b = boxes[cid]
        kind, el = containers[cid]
        ink_ = paint(el, classes, ("stroke", "style"))
        stroke = ink_["stroke"] or ("#64748b" if kind == "fragment" else "#94a3b8")
        if kind == "fragment":
            mid.append(_titled(el.get("description"), tag("rect", [
                ("x", x0), ("y", t), ("width", x1 - x0), ("height", b - t), ("fill", "none"),
                ("stroke", stroke), ("stroke-width", 1), ("stroke-dasharray", dash(ink_["style"]))])))
            tw0 = widest(el.get("type") or "") * 6.6 + 16
            taken.extend(_frame_sides(x0, x1, t, b))
            taken.append((x0, t, x0 + tw0 + 6 + (_label_px(f"[{one_line(el['label'])}]") + 8
                                                 if el.get("label") is not None else 0.0), t + 15))
            mid.append(tag("path", [("d", f"M{num(x0)} {num(t)} h{num(tw0)} l6,9 v6 h{num(-tw0 - 6)} z"),
                                    ("fill", "#f8fafc"), ("stroke", stroke), ("stroke-width", 1)]))
            mid.append(text(x0 + 7, t + 11, 10.5, el.get("type") or "", anchor="start", fill="#334155"))
            if el.get("label") is not None:
                mid.append(text(x0 + tw0 + 14, t + 11, 10.5, f"[{one_line(el['label'])}]", anchor="start",
                                fill="#475569", halo=True))
        else:
            siblings = operands_of.get(el.get("in"), [])
            parts = ""
            if siblings and siblings[0] != cid:
                taken.append((x0, t + 3, x1, t + 5))
                parts += tag("line", [("x1", x0), ("y1", t + 4), ("x2", x1), ("y2", t + 4), ("stroke", stroke),
                                      ("stroke-width", 1), ("stroke-dasharray", "5 4")])
            if el.get("label") is not None:
                taken.append((x0 + 8, t + 4, x0 + 8 + _label_px(f"[{one_line(el['label'])}]"), t + 16))
                parts += text(x0 + 8, t + 13, 10.5, f"[{one_line(el['label'])}]", anchor="start", fill="#475569",
                              halo=True)
            if parts:
                mid.append(_titled(el.get("description"), parts))
        extent.append(x1)
    for k, (kind, el) in enumerate(rows):
        ym = mids[k]
        if kind == "state":
            if el.get("lifeline") not in col:
                continue
            xi = xs[col[el["lifeline"]]]
            ink_ = paint(el, classes)
            fill, stroke = ink_["fill"] or "#fff7ed", ink_["stroke"] or "#c2410c"
            w = _pill_w(el["name"])
            ph = STATE_H + el["name"].count("\n") * LBL_FS * 1.3   # a line more for each extra line
            taken.append((xi - w / 2, ym - ph / 2, xi + w / 2, ym + ph / 2))
            mid.append(_titled(el.get("description"), tag("rect", [
                ("x", xi - w / 2), ("y", ym - ph / 2), ("width", w), ("height", ph), ("rx", 9),
                ("fill", fill), ("stroke", stroke), ("stroke-width", 1), ("stroke-dasharray", dash(ink_["style"]))])))
            ink.append(text(xi, ym + 4, LBL_FS, el["name"], anchor="middle", fill=label_ink(fill, "#7c2d12")))
            extent.append(xi + w / 2)
            continue
        if el["a"] not in col or el["b"] not in col:
            continue
        ci, cj = col[el["a"]], col[el["b"]]
        ink_ = paint(el, classes, ("stroke", "style"))
        stroke = ink_["stroke"] or "#334155"
        d = dash(ink_["style"])
        label = el.get("label")
        if ci == cj:
            sx = xs[ci]
            t, b, ex = ym - 11, ym + 11, sx + SELF_W
            path = f"M{num(sx)} {num(t)} L{num(ex)} {num(t)} L{num(ex)} {num(b)} L{num(sx + 11)} {num(b)}"
            mid.append(_titled(el.get("description"), tag("path", [
                ("d", path), ("fill", "none"), ("stroke", stroke), ("stroke-width", 1.6), ("stroke-dasharray", d)])))
            ink.append(_arrow((sx + 2, b), (sx + 12, b), stroke))
            taken.append((sx, t - 16, ex + 8 + _label_px(label) + _end_px(el.get("tail")), b + 14))
            ink.extend(_ends(el, ((sx + 6, t - 4, "start"), (sx + 14, b + 12, "start"))))
            if label:
                ink.append(text(ex + 8, ym + 4, LBL_FS, label, anchor="start", fill=INK_DARK, halo=True))
                extent.append(ex + 8 + _label_px(label))
            continue
        forward = el.get("op") != "<-"
        sx, tx = (xs[ci], xs[cj]) if forward else (xs[cj], xs[ci])
        sign = 1 if tx > sx else -1
        sx += sign * 1.5
        ex = tx - sign * 1.5
        mid.append(_titled(el.get("description"), tag("line", [
            ("x1", sx), ("y1", ym), ("x2", ex), ("y2", ym), ("stroke", stroke), ("stroke-width", 1.6),
            ("stroke-dasharray", d)])))
        ink.append(_arrow((ex, ym), (ex - sign * 10, ym), stroke))
        lifted = (label.count("\n") + 1) * LBL_FS * 1.3 + LBL_LIFT if label else ARROW_HALF
        half = _label_px(label) / 2
        taken.append((min(min(sx, ex), (sx + ex) / 2 - half), ym - lifted, max(max(sx, ex), (sx + ex) / 2 + half),
                      ym + (END_DROP + 3 if el.get("tail") or el.get("head") else ARROW_HALF)))
        if el.get("op") == "<->":
            ink.append(_arrow((sx, ym), (sx + sign * 10, ym), stroke))
        inward = 1 if xs[cj] > xs[ci] else -1
        ink.extend(_ends(el, ((xs[ci] + inward * END_IN, ym + END_DROP, "start" if inward > 0 else "end"),
                              (xs[cj] - inward * END_IN, ym + END_DROP, "end" if inward > 0 else "start"))))
        if label:
            lines = label.count("\n") + 1
            ink.append(text((sx + ex) / 2, ym - LBL_LIFT - (lines - 1) * LBL_FS * 1.3 / 2, LBL_FS, label,
                            anchor="middle", fill=INK_DARK, halo=True))
    notes, bottom = _notes(model, lifelines, rows, containers, boxes, xs, head_w, mids, y0, bottom, max(extent),
                           head_h, above, taken, wants)
    for lid, (i, x, ny, w, h, wrapped) in above.items():   # over their heads
        notes.append((x + w, leader_svg((xs[i], ny + h), (xs[i], y0 + 8)) + note_svg(x, ny, w, h, wrapped,
                                                                                      "lifeline", lid)))
    if notes:
        extent.append(max(x for x, _svg in notes))
    # right_pad is the room wanted right of the last lifeline's axis; what is drawn there
    # (a self-message's label, a fragment's caption) is in the extent already
    width = max(max(extent), (xs[-1] if xs else 0.0) + right_pad) + 4
    return Block("".join(bg + mid + ink + [svg for _x, svg in notes]), bottom, width,
                 {"x0": 0, "x1": width, "y0": y0, "y1": bottom})


NOTE_COLUMN_GAP = 24.0   # from the diagram's right edge to its notes
NOTE_LEAVE = 22.0        # room past a self-message's label for its note's leader to leave by (it left from the next lifeline)
NOTE_GAP = 8.0           # between two notes in the column
STEM_RUN_TOP = 4.0    # a lifeline note's level leader below the heads (the first; then...)
STEM_RUN_STEP = 4.0   # ...this much lower for each next lifeline to the right)
STEM_RUN_ROOM = 7.0   # how far apart the first and last runs may be before the rows move down
STEM_TURN_STEP = 6.0  # between two runs' turns toward their notes
LEADER_OFF = 3.0      # a message's note leader starts this far past its right-hand end
NOTE_ROW_OFF = 6.0    # a note beside its row may stand with its top (or bottom) this far past it


def _notes_above(lifelines, xs, y0):
    """The lifelines' notes that stand over their heads: left to right, each centred on its
    lifeline, moved right past the one before (:data:`NOTE_GAP`) or in from the page's
    edge, and kept only while it still stands over its own lifeline (:data:`ABOVE_COVER`
    each side); bottoms level, :data:`ABOVE_GAP` over the heads.  ``({id: (column, x, y,
    w, h, wrapped lines)}, the height the heads move down)``.  In the column right of
    the diagram, a note on a lifeline in the middle stood beside the last one's head,
    its leader run under the heads like a rule."""
    found, right = {}, -NOTE_GAP
    for i, lf in enumerate(lifelines):
        if not lf.get("note"):
            continue
        w, h, wrapped = note_size(lf["note"], display_label(lf) + ":")
        x = max(0.0, xs[i] - w / 2, right + NOTE_GAP)
        if x > xs[i] - ABOVE_COVER or x + w < xs[i] + ABOVE_COVER:
            continue   # (it would stand over another's head: the column holds it)
        found[lf["id"]] = (i, x, w, h, wrapped)
        right = x + w
    if not found:
        return {}, 0.0
    tallest = max(h for _i, _x, _w, h, _wr in found.values())
    placed = {lid: (i, x, y0 + 8 + tallest - h, w, h, wrapped) for lid, (i, x, w, h, wrapped) in found.items()}
    return placed, tallest + ABOVE_GAP


ABOVE_GAP = 14.0      # between a note over a lifeline's head and the head
ABOVE_COVER = 12.0    # how far each side of its lifeline a note over its head reaches at the least


def _frame_sides(x0: float, x1: float, t: float, b: float) -> list[tuple[float, float, float, float]]:
    """A frame's four sides as thin rectangles (a note may stand inside a frame, not across it)."""
    return [(x0, t, x1, t + 1), (x0, b - 1, x1, b), (x0, t, x0 + 1, b), (x1 - 1, t, x1, b)]


class _Rows:
    """What a note beside its row asks about, kept by the band of heights its rectangle
    reaches (a square index with every x at 0): a note asks only what stands in its own
    rows (asking every one, 2,000 notes took 0.9 s where the ladder took 0.2)."""

    def __init__(self, rects) -> None:
        self.index = SquareIndex(ROW_BAND, ROW_BANDS_MOST)
        for r in rects:
            self.add(r, r)

    def add(self, r, thing) -> None:
        self.index.add(thing, (0.0, r[1], 0.0, r[3]))

    def near(self, top: float, bottom: float) -> list:
        return self.index.near(0.0, top, 0.0, bottom)


ROW_BAND, ROW_BANDS_MOST = 64.0, 4096


def _free(r, taken, margin: float = 3.0) -> bool:
    """Whether rectangle ``r`` keeps ``margin`` from every one of ``taken``."""
    return not any(r[0] - margin < q[2] and q[0] < r[2] + margin and r[1] - margin < q[3] and q[1] < r[3] + margin
                   for q in taken)


INLINE_GAP = 16.0   # from what a note beside its row is about to the note
INLINE_TRIES = 12   # the places along its row a note looks at (then it goes to the column)
LIFELINE_CLEAR = 8.0   # between a note beside its row and a lifeline either side of it
ATTACH_NEAR = 24.0     # no note beside its row stands this near past another message's end (past its own)...
ATTACH_BAND = 14.0     # ...level with the note or this near above or below it
NOTE_CLEAR = 6.0       # what a note beside its row keeps from what is drawn above and below it, where it can


def _origin(kind: str, at: tuple[float, float]) -> str:
    """A dot where a message's or a state's note leader leaves it (a lifeline's leaves its
    stem or head, a frame's its side: nothing there to read it as going on)."""
    return origin_svg(at) if kind in ("edge", "state") else ""


def _levels(y: float, h: float, near, clear: float) -> list[float]:
    """The tops a note ``h`` tall beside a row at ``y`` may take, the most level with
    the row first (then hanging below it before standing above): centred, or with its
    leader :data:`NOTE_ROW_OFF` from its top or bottom, or ``clear`` (and a half) from
    one of ``near`` (what is drawn beside it) where that still meets its leader (an
    operand's note 50 px tall missed a 60 px gap by half a pixel, centred, and went to
    the column)."""
    top, low = y - h + NOTE_ROW_OFF, y - NOTE_ROW_OFF
    tops = {y - h / 2, top, low} | {q[3] + clear + 0.5 for q in near} | {q[1] - clear - 0.5 - h for q in near}
    return sorted((t for t in tops if top <= t <= low), key=lambda t: (abs(t + h / 2 - y), -t))


def _between_lifelines(x: float, w: float, xs: list[float]) -> bool:
    """Whether a note from ``x``, ``w`` wide, covers no lifeline (:data:`LIFELINE_CLEAR`
    from each)."""
    i = bisect_right(xs, x - LIFELINE_CLEAR)   # (the lifelines stand left to right)
    return i == len(xs) or xs[i] >= x + w + LIFELINE_CLEAR


def _between(xs: list[float], lo: float, hi: float) -> int:
    """How many lifelines stand strictly between ``lo`` and ``hi``."""
    return max(0, bisect_left(xs, hi) - bisect_right(xs, lo))


def _notes(model, lifelines, rows, containers, boxes, xs, head_w, mids, y0, bottom, right, head_h, above, taken,
           wants=None):
    """The notes (``note=``) of lifelines, messages, states, fragments and operands: in a
    column right of the diagram, each level with what it is about (pushed down below the
    one above it when they would meet) and joined to it by a leader; ``([(right end,
    markup)], new bottom)``.  A message's, a state's or a frame's note stands beside it
    instead where nothing drawn is in the way (``taken``), and a lifeline's stands over
    its head where :func:`_notes_above` found room (``above``, drawn by the caller)."""
    col = {lf["id"]: i for i, lf in enumerate(lifelines)}
    wanted = []   # (y, order, text, prefix, kind, ref, anchor point)
    backs = {}    # order -> where a message's or a state's leader leaves it for a note on its left
    selfs = set()  # the orders of self-messages' notes
    stems = [i for i, lf in enumerate(lifelines[:-1]) if lf.get("note") and lf["id"] not in above]
    for k, i in enumerate(stems):
        # other heads stand between this head and the column: the leader leaves the stem just
        # under the heads and runs level, above every row's label, to the gap before the
        # column (the leftmost highest, so no run crosses another's stem or turn)
        y = y0 + 8 + head_h + STEM_RUN_TOP + k * STEM_RUN_STEP
        wanted.append((y, len(wanted), lifelines[i]["note"], display_label(lifelines[i]), "lifeline",
                       lifelines[i]["id"], (xs[i], y)))
    if lifelines and lifelines[-1].get("note") and lifelines[-1]["id"] not in above:
        # (nothing between its head and the column)
        last = lifelines[-1]
        wanted.append((y0 + 8, len(wanted), last["note"], display_label(last), "lifeline", last["id"],
                       (xs[-1] + head_w[-1] / 2, y0 + 8 + head_h / 2)))
    for cid, (kind, el) in containers.items():
        if el.get("note") and cid in boxes:
            x0, x1, t, b = boxes[cid]
            wanted.append((t, len(wanted), el["note"], el.get("label") or el.get("type") or cid, kind, cid, (x1, t + 8)))
    for k, (kind, el) in enumerate(rows):
        if not el.get("note"):
            continue
        ym = mids[k]
        if kind == "state":
            if el.get("lifeline") not in col:
                continue
            at = (xs[col[el["lifeline"]]] + _pill_w(el["name"]) / 2, ym)
            backs[len(wanted)] = (xs[col[el["lifeline"]]] - _pill_w(el["name"]) / 2, ym)
            wanted.append((ym, len(wanted), el["note"], el["name"], "state", el.get("id") or str(el.get("line")), at))
            continue
        if el["a"] not in col or el["b"] not in col:
            continue
        ci, cj = col[el["a"]], col[el["b"]]
        # from the message's right-hand end: from its middle the leader ran along the line
        # and through the arrowhead at that end
        if ci == cj:   # past its label, written right of the loop (from the loop, through it)
            selfs.add(len(wanted))
            label = el.get("label")
            at = (xs[ci] + SELF_W + (8 + _label_px(label) if label else 0.0) + LEADER_OFF, ym)
        else:
            at = (max(xs[ci], xs[cj]) + LEADER_OFF, ym)
        backs[len(wanted)] = (min(xs[ci], xs[cj]) - LEADER_OFF, ym)   # (a self-message's loop is on its right)
        wanted.append((ym, len(wanted), el["note"], None, "edge", el.get("id") or str(el.get("line", "")), at))
    out = []
    ink = _Rows(taken)   # what is drawn, by height, so a ladder of many notes asks only its own rows
    # every message's two ends, by row (the rows stand top to bottom): a note standing
    # just past one reads as its
    end_ys, end_xs = [], []
    for k, (kind, el) in enumerate(rows):
        if kind != "state" and el["a"] in col and el["b"] in col and el["a"] != el["b"]:
            end_ys.append(mids[k])
            end_xs.append((xs[col[el["a"]]], xs[col[el["b"]]]))
    leaders = _Rows([])  # where every note's leader may run, level with its row
    beside: set[int] = set()   # the notes placed beside their rows
    for entry in wanted:
        leaders.add((entry[6][0], entry[6][1], entry[6][0], entry[6][1]), entry)
    for entry in sorted(wanted):
        # a message's, a state's or a frame's note stands beside it in its row where
        # nothing is drawn there: its leader ran from a message between the first two
        # lifelines across every other to the column
        _y, _order, body, prefix, kind, ref, at = entry
        if kind == "lifeline":
            continue
        y = at[1]   # (a frame's note is level with its top row, where its leader starts)
        # no bold guard before a frame's note beside its corner, a few pixels from the
        # frame's label (a loop's note began with its three-line guard again); a state's
        # note keeps its state's name (it may stand a lifeline or two away), and in the
        # column, far from what it is about, every note's name says what that is
        w, h, wrapped = note_size(body, prefix + ":" if prefix and kind == "state" else None)
        # beside it in its row, on its right between two lifelines or past the last, or on
        # its left (a message's or a state's), its leader crossing as few lifelines as it
        # can (past a reply's end, one read as the reply's coming from further on), the
        # right side first, then the nearer place.  In the column its leader crossed every
        # lifeline to its right anyway, and ran 1,200 px over five where a gap two
        # lifelines on held the note.  Never over a message (beside one it read as that
        # one's) or a lifeline (it hid it).
        tried = []   # (lifelines crossed, side (0 right, 1 left), distance, x, where its leader leaves)
        starts = {at[0] + INLINE_GAP} | {q[2] + INLINE_GAP for q in ink.near(y - h, y + h) if q[2] - q[0] <= 1.0
                                         and q[2] > at[0] and q[1] < y + h and y - h < q[3]}
        starts |= {lx + gap for lx in xs if lx > at[0] for gap in (LIFELINE_CLEAR, ATTACH_NEAR)}
        for x in sorted(starts)[:INLINE_TRIES]:
            if _between_lifelines(x, w, xs):
                tried.append((_between(xs, at[0], x), 0, x - at[0], x, at))
        back = backs.get(_order)
        if back is not None:
            ends_at = {back[0] - INLINE_GAP} | {q[0] - INLINE_GAP for q in ink.near(y - h, y + h)
                                                 if q[2] - q[0] <= 1.0 and q[0] < back[0] and q[1] < y + h and y - h < q[3]}
            ends_at |= {lx - gap for lx in xs if lx < back[0] for gap in (LIFELINE_CLEAR, ATTACH_NEAR)}
            for edge in sorted(ends_at, reverse=True)[:INLINE_TRIES]:
                if edge - w >= 0 and _between_lifelines(edge - w, w, xs):
                    tried.append((_between(xs, edge, back[0]), 1, back[0] - edge, edge - w, back))
        crossed_at = side_at = None   # (the lifelines the leader of the place taken crosses, its side)
        # what every place tried may meet, asked once (each lies within a height of the row)
        reach = max(NOTE_CLEAR, ATTACH_BAND)
        around = ink.near(y - h - reach, y + h + reach)
        ends_around = [(ex, end_ys[k]) for k in range(bisect_left(end_ys, y - h - reach),
                                                      bisect_right(end_ys, y + h + reach)) for ex in end_xs[k]]
        leaders_around = leaders.near(y - h - reach, y + h + reach)
        for crossed, side, _far, x, start in sorted(tried, key=lambda t: t[:3]):
            placed_here = False
            beside_it = [q for q in around if q[0] < x + w + NOTE_CLEAR and x - NOTE_CLEAR < q[2]]
            # (NOTE_CLEAR from what is drawn where it can, 3 px where it cannot: 3.5 px from
            # a frame's side read as touching it)
            for clear, ny in [(c, t) for c in (NOTE_CLEAR, 3.0) for t in _levels(y, h, beside_it, c)]:
                r = (x, ny, x + w, ny + h)
                near = x if side == 0 else x + w   # (the note's side its leader meets)
                # (below the heads and the stems' runs under them, clear of another
                # message's end just before it, and off the level way any other note's
                # leader may take from its row to the column)
                if ny > y0 + 8 + head_h + STEM_RUN_TOP + len(stems) * STEM_RUN_STEP + 3 and ny + h < bottom \
                        and _free(r, beside_it, clear) \
                        and not any((max(start[0], x - ATTACH_NEAR) < ex < x if side == 0 else
                                     near < ex < min(start[0], near + ATTACH_NEAR))
                                    and ny - ATTACH_BAND <= ey <= ny + h + ATTACH_BAND
                                    for ex, ey in ends_around) \
                        and not any(other is not entry and id(other) not in beside and other[6][0] < x + w
                                    and ny - 3 <= other[6][1] <= ny + h + 3
                                    for other in leaders_around):
                    ink.add(r, r)
                    out.append((x + w, leader_svg(start, (near, y)) + _origin(kind, start)
                                + note_svg(x, ny, w, h, wrapped, kind, ref)))
                    beside.add(id(entry))
                    placed_here = True
                    break
            if placed_here:
                crossed_at, side_at = crossed, side
                break
        gap = bisect_right(xs, at[0]) - 1
        if wants is not None and kind in ("edge", "state") and 0 <= gap < len(xs) - 1:
            if crossed_at != 0:
                # no room short of another lifeline: how wide the gap past its right-hand
                # end would have to be to hold it there
                wants.append((gap, at[0] - xs[gap] + INLINE_GAP + w + LIFELINE_CLEAR, xs[gap + 1] - xs[gap], False))
            if _order in selfs and side_at != 1 and crossed_at != 0:
                # a self-message's label filling its gap, its note past the next lifeline:
                # its leader left from that lifeline, and read as coming from it
                wants.append((gap, at[0] - xs[gap] + NOTE_LEAVE, xs[gap + 1] - xs[gap], True))
    wanted = [entry for entry in wanted if id(entry) not in beside]
    if not wanted:
        return out, bottom
    runs = {lifelines[i]["id"] for i in stems}
    placed, below = [], y0 - NOTE_GAP   # no note above the diagram's top (nor the notes over it)
    for y, _order, body, prefix, kind, ref, at in sorted(wanted):
        w, h, wrapped = note_size(body, prefix + ":" if prefix else None)
        ny = max(y - h / 2, below + NOTE_GAP)
        below = ny + h
        level = ny + 4 <= at[1] <= ny + h - 4
        placed.append((ny, w, h, wrapped, kind, ref, at, level,
                       (kind == "lifeline" and ref in runs) or not level))
    # A leader that cannot run level to its note (a lifeline's from its stem, or one whose
    # note was pushed down the column) runs level to the gap before the column and turns
    # there toward its note's middle, each lower one STEM_TURN_STEP nearer the diagram, the
    # gap widening to hold them: slanting straight there, a leader crossed the rows below it
    # (a later message's label), and legs turning at one x ran 1 px apart.
    turning = sum(1 for *_rest, turns in placed if turns)
    right = max([right] + [edge for edge, _markup in out])   # (past the notes beside their rows)
    x = right + NOTE_COLUMN_GAP + max(0, turning - 1) * STEM_TURN_STEP
    k = 0
    for ny, w, h, wrapped, kind, ref, at, level, turns in placed:
        if turns:
            turn = right + NOTE_COLUMN_GAP / 2 + (turning - 1 - k) * STEM_TURN_STEP
            k += 1
            path = [(x, at[1] if level else ny + h / 2), (turn, at[1]), at]
        else:
            path = [(x, min(max(at[1], ny + 4), ny + h - 4)), at]
        markup = leader_svg(*path) + _origin(kind, at) + note_svg(x, ny, w, h, wrapped, kind, ref)
        out.append((x + w, markup))
        bottom = max(bottom, ny + h + 8)
    return out, bottom


__all__ = ["render", "class_table"]
