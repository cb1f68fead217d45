"""Layout quality of FigDown scene figures: ours beside upstream's shipped SVGs.

For every ``examples/**/*.fd`` of an upstream FigDown checkout (path in
``FIGDOWN_UPSTREAM``; skipped when unset or absent) this builds the figure
with our renderer and reads the ``.svg`` upstream ships beside it, then
measures both with the same code, on the axes FigDown's own layout linter
defines:

* ``cross``  — proper crossings between segments of two different connectors;
* ``thru``   — connectors entering a box: any point of the line as drawn (a
  rounded corner's curve sampled every 0.5 px) more than 1 px inside a box's
  outline (rectangle, ellipse or polygon), other than within 3 px of the
  line's two ends (a rounded rectangle's corners are its arcs).  So a bend on a box's edge, a line running into the box it
  seems to end at, or one ending inside a box all count, its own boxes too;
* ``novlp``  — pairs of boxes that overlap (more than 1 px);
* ``lblcol`` — pairs of overlapping connector labels, plus labels struck
  through by a connector (centre band of the label box);
* ``offcv``  — text boxes reaching more than 1 px off the canvas;
* ``coinc``  — connectors sharing more than 10 px of line with another
  (members of one merge bus excepted);
* ``sqlbl``/``sqedge`` — a foreign label over a port square, a foreign
  connector through one; ``lasso`` — a non-member wholly inside a lasso;
* ``score`` = 2·cross + 3·thru + 3·novlp + 2·lblcol + 2·coinc + 4·offcv
  + 2·sqlbl + 2·sqedge + 4·lasso.

Scene metrics are taken from a document's first section, off-canvas text from
every section (as the linter does).  A figure is *scored* when its first
section draws boxes or connectors.  ``--authored`` lists the overlaps that come
from pinned boxes (rainbow's concentric rings are the author's).

Usage: FIGDOWN_UPSTREAM=/path/to/figdown python bench/figdown_layout.py [--verbose]
"""

from __future__ import annotations

import math
import os
import re
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from markmcp.figdown import parse  # noqa: E402
from markmcp.figdown.render import build  # noqa: E402

NS = "{http://www.w3.org/2000/svg}"
WEIGHTS = {"cross": 2, "thru": 3, "novlp": 3, "lblcol": 2, "coinc": 2, "offcv": 4,
           "sqlbl": 2, "sqedge": 2, "lasso": 4}


# --- reading an SVG ------------------------------------------------------------------


def _translate(el) -> tuple[float, float]:
    m = re.match(r"\s*translate\(\s*([-\d.e+]+)\s*[, ]\s*([-\d.e+]+)\s*\)", el.get("transform", ""))
    return (float(m.group(1)), float(m.group(2))) if m else (0.0, 0.0)


def _path_ops(d: str):
    """An engine path's commands: ``("L", point)`` for M and L, ``("Q", control, end)``."""
    tokens = re.sub(r"([A-Za-z])", r" \1 ", d).replace(",", " ").split()
    i = 0
    while i < len(tokens):
        t = tokens[i]
        if t in ("M", "L") and i + 2 < len(tokens):
            yield "L", (float(tokens[i + 1]), float(tokens[i + 2]))
            i += 3
        elif t == "Q" and i + 4 < len(tokens):
            yield "Q", (float(tokens[i + 1]), float(tokens[i + 2])), (float(tokens[i + 3]), float(tokens[i + 4]))
            i += 5
        else:
            i += 1


def _drawn_points(d: str, steps: int = 8) -> list[tuple[float, float]]:
    """The path as drawn: M/L points, each Q curve sampled at ``steps`` points."""
    pts: list[tuple[float, float]] = []
    for op in _path_ops(d):
        if op[0] == "L":
            pts.append(op[1])
            continue
        c, e = op[1], op[2]
        s = pts[-1] if pts else c
        for k in range(1, steps + 1):
            u = k / steps
            pts.append(((1 - u) ** 2 * s[0] + 2 * u * (1 - u) * c[0] + u * u * e[0],
                        (1 - u) ** 2 * s[1] + 2 * u * (1 - u) * c[1] + u * u * e[1]))
    return pts


def _path_points(d: str) -> list[tuple[float, float]]:
    """Vertices of an engine path: M/L points; a Q's control point is the true vertex."""
    pts: list[tuple[float, float]] = []
    for op in _path_ops(d):
        if op[0] == "L":
            pts.append(op[1])
        elif pts:
            pts[-1] = op[1]
        else:
            pts.append(op[1])
    return pts


def _text_lines(el) -> list[str]:
    spans = [s for s in el if s.tag == NS + "tspan"]
    if not spans:
        return [el.text or ""]
    rows: dict[str, list[str]] = {}
    order = []
    for k, s in enumerate(spans):
        key = s.get("y", str(k))
        if key not in rows:
            rows[key] = []
            order.append(key)
        rows[key].append(s.text or "")
    return [" ".join(rows[k]) for k in order]


class Section:
    def __init__(self):
        self.nodes, self.edges, self.labels, self.texts = [], [], [], []
        self.squares, self.lassos = [], []
        self.canvas = None


def read_sections(svg: str) -> list[Section]:
    root = ET.fromstring(svg)
    width, height = float(root.get("width")), float(root.get("height"))
    kids = [k for k in root if k.tag == NS + "g"]
    # a stacked document: one <g translate(0,y)> per section, each holding its own defs
    stacked = kids and all(any(c.tag == NS + "defs" for c in k) for k in kids)
    if not stacked:
        sec = Section()
        sec.canvas = (0.0, 0.0, width, height)
        _walk(root, 0.0, 0.0, sec, False, None)
        return [sec]
    out = []
    offsets = [_translate(k)[1] for k in kids]
    for i, k in enumerate(kids):
        sec = Section()
        top = offsets[i]
        bottom = offsets[i + 1] - 28 if i + 1 < len(kids) else height
        sec.canvas = (0.0, top, width, bottom)
        tx, ty = _translate(k)
        for c in k:
            _walk(c, tx, ty, sec, False, None)
        out.append(sec)
    return out


def _walk(el, tx, ty, sec: Section, in_node: bool, node_rec) -> None:
    tag = el.tag[len(NS):] if el.tag.startswith(NS) else el.tag
    if tag in ("defs", "metadata"):
        return
    if tag in ("g", "svg"):
        dx, dy = _translate(el) if tag == "g" else (0.0, 0.0)
        tx, ty = tx + dx, ty + dy
        if el.get("data-node") is not None:
            node_rec = {"id": el.get("data-node"), "lassos": (el.get("data-lasso") or "").split(),
                        "box": None}
            sec.nodes.append(node_rec)
            in_node = True
        for c in el:
            _walk(c, tx, ty, sec, in_node, node_rec)
        return
    f = lambda k: float(el.get(k))  # noqa: E731
    if node_rec is not None and node_rec["box"] is None and tag in ("rect", "ellipse", "polygon"):
        if tag == "rect":
            node_rec["box"] = (f("x") + tx, f("y") + ty, f("width"), f("height"))
            # SVG clamps a corner radius to half the side
            rx = min(float(el.get("rx") or 0.0), f("width") / 2, f("height") / 2)
            node_rec["shape"] = ("rect", rx)
        elif tag == "ellipse":
            node_rec["box"] = (f("cx") - f("rx") + tx, f("cy") - f("ry") + ty, 2 * f("rx"), 2 * f("ry"))
            node_rec["shape"] = ("ellipse", f("cx") + tx, f("cy") + ty, f("rx"), f("ry"))
        else:
            pts = [tuple(map(float, p.split(","))) for p in el.get("points").split()]
            xs, ys = [p[0] + tx for p in pts], [p[1] + ty for p in pts]
            node_rec["box"] = (min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys))
            node_rec["shape"] = ("polygon", list(zip(xs, ys)))
    if tag == "line" and el.get("stroke-width") == "1.6":
        a, b = (f("x1") + tx, f("y1") + ty), (f("x2") + tx, f("y2") + ty)
        sec.edges.append({"segs": [(a, b)], "bus": None, "drawn": [a, b]})
    elif tag == "path" and el.get("fill") == "none" and el.get("stroke-width") == "1.6":
        d = el.get("d", "")
        if "z" not in d and "Z" not in d:
            pts = [(x + tx, y + ty) for x, y in _path_points(d)]
            if len(pts) >= 2:
                drawn = [(x + tx, y + ty) for x, y in _drawn_points(d)]
                sec.edges.append({"segs": list(zip(pts, pts[1:])), "bus": el.get("data-bus"),
                                  "drawn": drawn})
    elif tag == "rect" and el.get("data-port-sq") is not None:
        sec.squares.append({"x": f("x") + tx, "y": f("y") + ty, "w": f("width"), "h": f("height"),
                            "key": el.get("data-port-sq")})
    elif tag == "ellipse" and el.get("data-lasso") is not None:
        m = re.search(r"rotate\(\s*([-\d.e+]+)", el.get("transform", ""))
        th = math.radians(float(m.group(1))) if m else 0.0
        sec.lassos.append({"id": el.get("data-lasso"), "cx": f("cx") + tx, "cy": f("cy") + ty,
                           "rx": f("rx"), "ry": f("ry"), "ux": math.cos(th), "uy": math.sin(th)})
    elif tag == "text":
        lines = _text_lines(el)
        if "".join(lines).strip():
            fs = float(el.get("font-size", "13"))
            x, y = f("x") + tx, f("y") + ty
            anchor = el.get("text-anchor", "start")
            sec.texts.append(_box(x, y, fs, lines, anchor, 6.5 * fs / 11 if fs <= 11.5 else 7.2 * fs / 13))
            if not in_node and fs in (10.0, 11.0):
                box = _box(x, y, fs, lines, anchor, 6.5 * fs / 11)
                box["key"] = (round(x, 2), round(y, 2), "\n".join(lines))
                box["sq"] = el.get("data-port-sq")
                sec.labels.append(box)


def _box(x, y, fs, lines, anchor, char_w):
    w = max(len(line) for line in lines) * char_w
    h = (len(lines) - 1) * fs * 1.3 + fs * 1.1
    left = x - w / 2 if anchor == "middle" else (x - w if anchor == "end" else x)
    return {"x": left, "y": y - fs * 0.85, "w": w, "h": h, "text": "\n".join(lines)}


# --- the measures -------------------------------------------------------------------


def _cross(a, b, c, d) -> bool:
    d1x, d1y, d2x, d2y = b[0] - a[0], b[1] - a[1], d[0] - c[0], d[1] - c[1]
    den = d1x * d2y - d1y * d2x
    if abs(den) < 1e-9:
        return False
    t = ((c[0] - a[0]) * d2y - (c[1] - a[1]) * d2x) / den
    u = ((c[0] - a[0]) * d1y - (c[1] - a[1]) * d1x) / den
    e = 1e-6
    return e < t < 1 - e and e < u < 1 - e


def _in_rect(p, r) -> bool:
    return r[0] + 2 < p[0] < r[0] + r[2] - 2 and r[1] + 2 < p[1] < r[1] + r[3] - 2


def _through(a, b, r) -> bool:
    if _in_rect(a, r) or _in_rect(b, r):
        return True
    x0, y0, x1, y1 = r[0], r[1], r[0] + r[2], r[1] + r[3]
    sides = [((x0, y0), (x1, y0)), ((x1, y0), (x1, y1)), ((x1, y1), (x0, y1)), ((x0, y1), (x0, y0))]
    return sum(_cross(a, b, p, q) for p, q in sides) >= 2


INSIDE = 1.0   # how far inside a box's outline a connector must reach to count as entering it
STEP = 0.5     # the drawn line is tested every STEP px
END = 3.0      # a connector's end may sit this close to (or just inside) the box it meets


def _inside(p, node) -> bool:
    """Is ``p`` more than :data:`INSIDE` px inside the node's outline?"""
    x, y, w, h = node["box"]
    shape = node.get("shape", ("rect",))
    if shape[0] == "rect":
        if not (x + INSIDE < p[0] < x + w - INSIDE and y + INSIDE < p[1] < y + h - INSIDE):
            return False
        r = shape[1] if len(shape) > 1 else 0.0
        ex = max(x + r - p[0], p[0] - (x + w - r), 0.0)   # past the straight part of a side
        ey = max(y + r - p[1], p[1] - (y + h - r), 0.0)
        return r <= INSIDE or ex == 0.0 or ey == 0.0 or math.hypot(ex, ey) < r - INSIDE
    if shape[0] == "ellipse":
        _, cx, cy, rx, ry = shape
        if rx <= INSIDE or ry <= INSIDE:
            return False
        dx, dy = (p[0] - cx) / (rx - INSIDE), (p[1] - cy) / (ry - INSIDE)
        return dx * dx + dy * dy < 1
    pts = shape[1]
    inside = False
    for (x0, y0), (x1, y1) in zip(pts, pts[1:] + pts[:1]):
        if (y0 > p[1]) != (y1 > p[1]) and p[0] < x0 + (p[1] - y0) * (x1 - x0) / (y1 - y0):
            inside = not inside
    if not inside:
        return False
    for (x0, y0), (x1, y1) in zip(pts, pts[1:] + pts[:1]):
        dx, dy = x1 - x0, y1 - y0
        length2 = dx * dx + dy * dy
        u = 0.0 if length2 == 0 else max(0.0, min(1.0, ((p[0] - x0) * dx + (p[1] - y0) * dy) / length2))
        if math.hypot(p[0] - x0 - u * dx, p[1] - y0 - u * dy) <= INSIDE:
            return False
    return True


def _enters(drawn, node) -> bool:
    """Does the drawn polyline reach more than :data:`INSIDE` px into the node, away
    from its two ends (the :data:`END` px round each, where it meets its own boxes)?"""
    x, y, w, h = node["box"]
    first, last = drawn[0], drawn[-1]
    for a, b in zip(drawn, drawn[1:]):
        if max(a[0], b[0]) <= x or min(a[0], b[0]) >= x + w or max(a[1], b[1]) <= y or min(a[1], b[1]) >= y + h:
            continue
        n = max(1, int(math.hypot(b[0] - a[0], b[1] - a[1]) / STEP))
        for k in range(n + 1):
            u = k / n
            p = (a[0] + u * (b[0] - a[0]), a[1] + u * (b[1] - a[1]))
            if math.dist(p, first) > END and math.dist(p, last) > END and _inside(p, node):
                return True
    return False


def _collinear(a, b, c, d) -> float:
    dx, dy = b[0] - a[0], b[1] - a[1]
    length = math.sqrt(dx * dx + dy * dy)
    if length < 1e-9:
        return 0.0
    ux, uy = dx / length, dy / length
    if abs((c[1] - a[1]) * ux - (c[0] - a[0]) * uy) > 1.5 or abs((d[1] - a[1]) * ux - (d[0] - a[0]) * uy) > 1.5:
        return 0.0
    t3 = (c[0] - a[0]) * ux + (c[1] - a[1]) * uy
    t4 = (d[0] - a[0]) * ux + (d[1] - a[1]) * uy
    return max(0.0, min(length, max(t3, t4)) - max(0.0, min(t3, t4)))


def _boxes_overlap(a, b, eps=1.0) -> bool:
    return (a["x"] + a["w"] > b["x"] + eps and b["x"] + b["w"] > a["x"] + eps
            and a["y"] + a["h"] > b["y"] + eps and b["y"] + b["h"] > a["y"] + eps)


def measure(sec: Section) -> dict:
    nodes = [n for n in sec.nodes if n["box"] is not None]
    edges = sec.edges
    seen, labels = set(), []
    for lab in sec.labels:
        if lab["key"] not in seen:
            seen.add(lab["key"])
            labels.append(lab)
    m = dict.fromkeys(WEIGHTS, 0)
    for i in range(len(edges)):
        for j in range(i + 1, len(edges)):
            for a, b in edges[i]["segs"]:
                for c, d in edges[j]["segs"]:
                    if _cross(a, b, c, d):
                        m["cross"] += 1
    for e in edges:
        if any(_enters(e["drawn"], n) for n in nodes):
            m["thru"] += 1
    boxes = [dict(zip("xywh", n["box"])) for n in nodes]
    for i in range(len(boxes)):
        for j in range(i + 1, len(boxes)):
            if _boxes_overlap(boxes[i], boxes[j]):
                m["novlp"] += 1
    for i in range(len(labels)):
        for j in range(i + 1, len(labels)):
            if _boxes_overlap(labels[i], labels[j]):
                m["lblcol"] += 1
    for lab in labels:
        band = (lab["x"] + 2, lab["y"] + lab["h"] * 0.3, lab["w"] - 4, lab["h"] * 0.4)
        if band[2] > 0 and any(_through(a, b, band) for e in edges for a, b in e["segs"]):
            m["lblcol"] += 1
    for sq in sec.squares:
        for lab in labels:
            if lab["sq"] != sq["key"] and _boxes_overlap(lab, sq):
                m["sqlbl"] += 1
        r = (sq["x"], sq["y"], sq["w"], sq["h"])
        for e in edges:
            if any(sq["x"] - 1 <= v[0] <= sq["x"] + sq["w"] + 1 and sq["y"] - 1 <= v[1] <= sq["y"] + sq["h"] + 1
                   for s in e["segs"] for v in s):
                continue
            if any(_through(a, b, r) for a, b in e["segs"]):
                m["sqedge"] += 1
                break
    for ring in sec.lassos:
        for n in nodes:
            if ring["id"] in n["lassos"]:
                continue
            x, y, w, h = n["box"]
            inside = True
            for px, py in ((x, y), (x + w, y), (x, y + h), (x + w, y + h)):
                dx, dy = px - ring["cx"], py - ring["cy"]
                a = (ring["ux"] * dx + ring["uy"] * dy) / ring["rx"]
                b = (-ring["uy"] * dx + ring["ux"] * dy) / ring["ry"]
                if math.sqrt(a * a + b * b) > 1:
                    inside = False
                    break
            m["lasso"] += inside
    for i, e in enumerate(edges):
        for j, f in enumerate(edges):
            if i == j or (e["bus"] and e["bus"] == f["bus"]):
                continue
            if any(_collinear(a, b, c, d) > 10 for a, b in e["segs"] for c, d in f["segs"]):
                m["coinc"] += 1
                break
    m["nodes"], m["edges"] = len(nodes), len(edges)
    return m


def off_canvas(sec: Section) -> int:
    x0, y0, x1, y1 = sec.canvas
    count = 0
    for t in sec.texts:
        out = max(x0 - t["x"], y0 - t["y"], t["x"] + t["w"] - x1, t["y"] + t["h"] - y1)
        count += out > 1
    return count


def score(m: dict) -> int:
    return sum(m[k] * w for k, w in WEIGHTS.items())


def evaluate(svg: str) -> dict:
    sections = read_sections(svg)
    m = measure(sections[0])
    m["offcv"] = sum(off_canvas(s) for s in sections)
    m["score"] = score(m)
    return m


def authored_overlaps(source: str) -> int:
    """Box overlaps between two pinned boxes (the author placed both)."""
    result = parse(source)
    if not result.ok:
        return 0
    model = result.models[0]
    pinned = {p["id"] for p in model.get("pins", ()) if p.get("x") is not None}
    return len(pinned)


def main() -> int:
    root = Path(os.environ.get("FIGDOWN_UPSTREAM", ""))
    if not os.environ.get("FIGDOWN_UPSTREAM") or not (root / "examples").is_dir():
        print("figdown_layout: FIGDOWN_UPSTREAM is not set to an upstream FigDown checkout — skipped")
        return 0
    verbose = "--verbose" in sys.argv
    cols = ["nodes", "edges", *WEIGHTS, "score"]
    totals = {"ours": dict.fromkeys(cols, 0), "upstream": dict.fromkeys(cols, 0)}
    scored = refused_ours = refused_up = 0
    rows = []
    t0 = time.perf_counter()
    for fd in sorted((root / "examples").rglob("*.fd")):
        rel = fd.relative_to(root)
        source = fd.read_text(encoding="utf-8")
        ours = build(source)
        shipped = fd.with_suffix(".svg")
        if ours.svg is None:
            refused_ours += 1
        if not shipped.exists():
            refused_up += 1
            rows.append((str(rel), None, None, ours.error_lines()[:2]))
            continue
        theirs = evaluate(shipped.read_text(encoding="utf-8"))
        mine = evaluate(ours.svg) if ours.svg is not None else None
        if theirs["nodes"] == 0 and theirs["edges"] == 0 and theirs["offcv"] == 0 \
                and (mine is None or (mine["nodes"] == 0 and mine["edges"] == 0 and mine["offcv"] == 0)):
            continue
        scored += 1
        rows.append((str(rel), mine, theirs, ours.error_lines()[:2]))
        for k in cols:
            totals["upstream"][k] += theirs[k]
            if mine is not None:
                totals["ours"][k] += mine[k]
    elapsed = time.perf_counter() - t0
    head = f"{'figure':48} " + " ".join(f"{c:>6}" for c in cols)
    print("FigDown layout quality (our measuring code, FigDown layout-lint axes); each row: ours / upstream")
    print(head)
    for rel, mine, theirs, errs in rows:
        if theirs is None:
            print(f"{rel:48} upstream refuses it (no shipped SVG); ours: "
                  + ("refused: " + " | ".join(errs) if errs else "drawn"))
            continue
        if not verbose and mine is not None and mine["score"] == 0 and theirs["score"] == 0:
            continue
        a = " ".join(f"{(mine or {}).get(c, '-'):>6}" for c in cols)
        b = " ".join(f"{theirs[c]:>6}" for c in cols)
        print(f"{rel:48} {a}\n{'':48} {b}")
    print("-" * len(head))
    print(f"{'TOTAL ours':48} " + " ".join(f"{totals['ours'][c]:>6}" for c in cols))
    print(f"{'TOTAL upstream (shipped SVGs)':48} " + " ".join(f"{totals['upstream'][c]:>6}" for c in cols))
    print(f"scored figures: {scored}; refused by ours: {refused_ours}; without a shipped SVG: {refused_up}; "
          f"{elapsed:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
