"""Scene directives: the node/edge world of block, topology, flowchart and
statechart, plus the genre-free ``title``, ``class``, ``flow``, ``rank``,
``pin`` and ``layout``.

Each rule takes the context, the line number and the split line, records at
most one element, and reports at most one diagnostic (the first problem
found): a rejected line declares nothing.
"""

from __future__ import annotations

import re

from .. import messages as M
from ..connector import parse_connector
from ..context import Context
from ..lexer import LexError, is_bare_id, split_list, tokenize, trim
from ..model import BAND_DEFAULT_FILL
from ..numbers import DECIMAL_RE, to_number
from ..options import (
    STYLES,
    Split,
    below_option_version,
    directive_options,
    id_error,
    is_color,
    join_list_form,
    parse_class_list,
    split_options,
)
from ..vocabulary import ROLE_SHAPE
from . import sequence

SHAPES = ("box", "rounded", "circle", "ellipse", "diamond", "cylinder")
FLOWS = ("right", "down", "left", "up")
EXTENDS = ("up", "down", "left", "right")
RETIRED_SHAPES = {"cloud": M.RETIRED_SHAPE_CLOUD}

PERCENT_RE = re.compile(r"([0-9]+(?:\.[0-9]+)?)%\Z")
BAND_RANGE_RE = re.compile(r"(?:([0-9]+(?:\.[0-9]+)?)%|([0-9]+(?:\.[0-9]+)?)\.\.([0-9]+(?:\.[0-9]+)?)%)\Z")
BAND_HYPHEN_RE = re.compile(r"[0-9]+(?:\.[0-9]+)?-[0-9]+(?:\.[0-9]+)?%\Z")
BARE_PAIR_RE = re.compile(r"-?[0-9]+(?:\.[0-9]+)?,-?[0-9]+(?:\.[0-9]+)?\Z")
PAREN_POINT_RE = re.compile(r"\((-?[0-9]+(?:\.[0-9]+)?),(-?[0-9]+(?:\.[0-9]+)?)\)\Z")

PIN_USAGE = "pin needs <id> and at=(<x>,<y>) and/or width=<px> and/or height=<px>"


def _bare_label_error(kw: str, ident: str, sp: Split) -> str | None:
    """A label position holding a bare token: it must be quoted."""
    if sp.arg(2) is not None and not sp.argq(2):
        return M.must_quote(f"{kw} label", f'{kw} {ident} "{sp.arg(2)}"')
    return None


def directive_title(ctx: Context, n: int, sp: Split) -> None:
    if ctx.saw_title:
        return ctx.err(n, "duplicate title line")
    if sp.arg(1) is None or not sp.argq(1):
        return ctx.err(n, 'title needs a quoted string: title "<text>" (MIGRATIONS 0.1)')
    if len(sp.pos) > 2:
        return ctx.err(n, f'unexpected argument "{sp.pos[2]}"')
    ctx.doc.title = sp.pos[1]
    ctx.saw_title = True
    if "note" in sp.opts:
        ctx.doc.note = sp.get("note")


def directive_class(ctx: Context, n: int, sp: Split) -> None:
    ident = sp.arg(1)
    e = id_error(ident, sp.argq(1), "class needs an id")
    if e:
        return ctx.err(n, e)
    if ident in ctx.class_ids:
        return ctx.err(n, f'duplicate class "{ident}"')
    if sp.arg(2) is None:
        return ctx.err(n, f'class needs a meaning: class {ident} "<meaning>" (write "" to declare '
                          "no meaning: the class then groups attributes only and draws no legend entry)")
    if not sp.argq(2):
        return ctx.err(n, M.must_quote("class meaning", f'class {ident} "{sp.pos[2]}"'))
    if len(sp.pos) > 3:
        return ctx.err(n, f'unexpected argument "{sp.pos[3]}"')
    ctx.class_ids.add(ident)
    ctx.doc.classes.append({"id": ident, "meaning": sp.pos[2], "fill": sp.get("fill"),
                            "stroke": sp.get("stroke"), "style": sp.get("style"), "line": n})


def directive_node(ctx: Context, n: int, sp: Split, kw: str) -> None:
    """node / state / process / decision / terminator."""
    role = None if kw in ("node", "state") else kw
    ident = sp.arg(1)
    e = id_error(ident, sp.argq(1), f"{kw} needs an id")
    if e:
        return ctx.err(n, e)
    if ctx.taken(ident):
        return ctx.err(n, f'duplicate id "{ident}"')
    if "width" in sp.opts or "height" in sp.opts:
        return ctx.err(n, f"{kw} does not take width=/height= — use a pin line")
    shape = sp.get("shape") or (ROLE_SHAPE[role] if role else ("rounded" if kw == "state" else "box"))
    if shape in RETIRED_SHAPES:
        return ctx.err(n, RETIRED_SHAPES[shape])
    if shape not in SHAPES:
        return ctx.err(n, f'unknown shape "{shape}" ({"|".join(SHAPES)})')
    e = _bare_label_error(kw, ident, sp)
    if e:
        return ctx.err(n, e)
    ctx.node_ids.add(ident)  # declared even when the line has a stray argument
    if len(sp.pos) > 3:
        return ctx.err(n, f'unexpected argument "{sp.pos[3]}"')
    classes, _ = parse_class_list(sp.opts.get("class"))
    ctx.doc.nodes.append({
        "id": ident, "label": sp.arg(2), "role": role, "shape": shape,
        "group": sp.get("in") or None, "plane": "base", "fill": sp.get("fill"),
        "stroke": sp.get("stroke"), "style": sp.get("style"), "class": classes,
        "note": sp.get("note"), "line": n,
    })


def directive_group(ctx: Context, n: int, sp: Split) -> None:
    ident = sp.arg(1)
    e = id_error(ident, sp.argq(1), "group needs an id")
    if e:
        return ctx.err(n, e)
    if ctx.taken(ident):
        return ctx.err(n, f'duplicate id "{ident}"')
    e = _bare_label_error("group", ident, sp)
    if e:
        return ctx.err(n, e)
    if len(sp.pos) > 3:
        return ctx.err(n, f'unexpected argument "{sp.pos[3]}"')
    ctx.group_ids.add(ident)
    gap = None
    if "gap" in sp.opts:
        if not DECIMAL_RE.match(sp.get("gap") or "") or float(sp.get("gap")) == float("inf"):
            return ctx.err(n, "gap must be a non-negative number")
        gap = to_number(sp.get("gap"))
    classes, _ = parse_class_list(sp.opts.get("class"))
    ctx.doc.groups.append({
        "id": ident, "label": sp.arg(2), "gap": gap, "plane": None, "fill": sp.get("fill"),
        "stroke": sp.get("stroke"), "style": sp.get("style"), "class": classes,
        "note": sp.get("note"), "line": n,
    })


def directive_external(ctx: Context, n: int, sp: Split) -> None:
    ident = sp.arg(1)
    e = id_error(ident, sp.argq(1), "external needs an id")
    if e:
        return ctx.err(n, e)
    if ctx.taken(ident):
        return ctx.err(n, f'duplicate id "{ident}"')
    e = _bare_label_error("external", ident, sp)
    if e:
        return ctx.err(n, e)
    if len(sp.pos) > 3:
        return ctx.err(n, f'unexpected argument "{sp.pos[3]}"')
    ctx.external_ids.add(ident)
    ctx.doc.externals.append({"id": ident, "label": sp.arg(2), "line": n})


def directive_flow(ctx: Context, n: int, sp: Split) -> None:
    if ctx.saw_flow:
        return ctx.err(n, "duplicate flow directive")
    if sp.argq(1):
        return ctx.err(n, M.enum_bare(f"flow {sp.pos[1]}"))
    if sp.arg(1) not in FLOWS:
        return ctx.err(n, "flow needs right|down|left|up")
    if len(sp.pos) > 2:
        return ctx.err(n, f'unexpected argument "{sp.pos[2]}"')
    ctx.doc.flow = sp.pos[1]
    ctx.saw_flow = True


def directive_rank(ctx: Context, n: int, sp: Split) -> None:
    if len(sp.pos) > 2:
        return ctx.err(n, f"rank takes ONE comma-delimited token: write rank "
                          f"{join_list_form(sp.pos[1:])} — the space form is retired (MIGRATIONS 0.1)")
    items = split_list(sp.post[1]) if len(sp.post) > 1 else []
    for item in items:
        e = id_error(item.v, item.h, "rank ids must not be empty (write rank a,b,c)")
        if e:
            return ctx.err(n, e)
    if len(items) < 2:
        return ctx.err(n, "rank needs two or more node ids")
    ctx.doc.ranks.append({"ids": [i.v for i in items], "line": n})


def directive_bundle(ctx: Context, n: int, sp: Split) -> None:
    ident = sp.arg(1)
    e = id_error(ident, sp.argq(1), "bundle needs an id")
    if e:
        return ctx.err(n, e)
    if ident in ctx.bundle_ids:
        return ctx.err(n, f'duplicate bundle id "{ident}"')
    label, rest = None, sp.post[2:]
    if sp.argq(2):
        label, rest = sp.pos[2], sp.post[3:]
    if len(rest) > 1:
        shown = "" if label is None else f' "{label}"'
        return ctx.err(n, f"bundle members take ONE comma-delimited token: write bundle {ident}{shown} "
                          f"{join_list_form([t.v for t in rest])} — the space form is retired (MIGRATIONS 0.1)")
    members: list[dict] = []
    for tok in rest:
        for item in split_list(tok):
            member = trim(item.v)
            if not member:
                continue
            if item.h:
                return ctx.err(n, M.ID_RULE)
            if "--" not in member:
                if below_option_version("id", ctx.version):
                    return ctx.err(n, f'bad member "{member}" (expected A--B)')
                if not is_bare_id(member):
                    return ctx.err(n, f'bad member "{member}" (expected A--B or a connector id)')
                members.append({"id": member})
                continue
            parts = member.split("--")
            if len(parts) != 2 or not is_bare_id(parts[0]) or not is_bare_id(parts[1]):
                return ctx.err(n, f'bad member "{member}" (expected A--B)')
            members.append({"a": parts[0], "b": parts[1]})
    if not members:
        return ctx.err(n, "bundle needs at least one member link A--B")
    ctx.bundle_ids.add(ident)
    ctx.doc.bundles.append({
        "id": ident, "label": label,
        "members": [m["id"] if "id" in m else f'{m["a"]}--{m["b"]}' for m in members],
        "stroke": sp.get("stroke"), "style": sp.get("style"), "line": n, "_members": members,
    })


def directive_threshold(ctx: Context, n: int, sp: Split) -> None:
    if not sp.argq(1):
        return ctx.err(n, 'threshold needs a quoted "<label>" first')
    if len(sp.pos) > 2:
        return ctx.err(n, f'unexpected argument "{sp.pos[2]}"')
    if not sp.get("in"):
        return ctx.err(n, "threshold needs in=<node-or-group-id>")
    if "at" in sp.opts:
        return ctx.err(n, "threshold at= has been renamed: use offset=<0..100>% (at= is the pin POINT "
                          'in canvas px; SVG spells a position along an extent "offset") (MIGRATIONS 0.1)')
    m = PERCENT_RE.match(sp.get("offset") or "")
    if not m or float(m.group(1)) > 100:
        return ctx.err(n, "threshold needs offset=<0..100>% (with the % sign)")
    ctx.doc.thresholds.append({"label": sp.pos[1], "in": sp.get("in"), "offset": to_number(m.group(1)),
                               "stroke": sp.get("stroke"), "style": sp.get("style"), "line": n})


def directive_band(ctx: Context, n: int, sp: Split) -> None:
    if "from" in sp.opts or "to" in sp.opts:
        return ctx.err(n, 'from=/to= retired — write the range positionally: band "<label>" 15% or '
                          'band "<label>" 15..35%')
    if not sp.argq(1):
        return ctx.err(n, M.BAND_NEEDS_LABEL)
    label = sp.pos[1]
    if not sp.get("in"):
        return ctx.err(n, "band needs in=<node-or-group-id>")
    spelled = sp.arg(2) or ""
    if BAND_HYPHEN_RE.match(spelled):
        fixed = spelled.replace("-", "..", 1)
        return ctx.err(n, f'the hyphen range "{spelled}" is no longer the spelling: write band "{label}" '
                          f'{fixed} in=… — FigDown has ONE range grammar, "..", and a hyphen between two '
                          "numbers reads as subtraction (MIGRATIONS 0.1)")
    m = BAND_RANGE_RE.match(spelled)
    if not m:
        return ctx.err(n, 'band needs a range with the % sign: band "<label>" <pct>% or '
                          'band "<label>" <a>..<b>%')
    if len(sp.pos) > 3:
        return ctx.err(n, f'unexpected argument "{sp.pos[3]}"')
    if m.group(1) is not None:
        lo, hi = 0, to_number(m.group(1))
    else:
        lo, hi = to_number(m.group(2)), to_number(m.group(3))
    if lo < 0 or hi > 100 or lo >= hi:
        return ctx.err(n, "band range needs 0 <= from < to <= 100")
    extend = sp.get("extend") or "up"
    if extend not in EXTENDS:
        return ctx.err(n, "extend must be up|down|left|right")
    ctx.doc.bands.append({"label": label, "in": sp.get("in"), "from": lo, "to": hi, "extend": extend,
                          "fill": sp.get("fill") or BAND_DEFAULT_FILL, "stroke": sp.get("stroke"),
                          "style": sp.get("style"), "line": n})


def _extent(ctx: Context, n: int, key: str, value: str | None) -> tuple[bool, float | int | None]:
    """width=/height= on a pin: positive px.  Returns (ok, value)."""
    if value is None:
        return True, None
    if value.endswith("%"):
        ctx.err(n, "percentage sizes are not in v0.1 — use px")
        return False, None
    if value == "auto":
        ctx.err(n, f"{key}=auto says nothing — drop {key}= altogether; without width=/height= a node "
                   "is sized to fit its content anyway")
        return False, None
    if not DECIMAL_RE.match(value) or float(value) <= 0 or float(value) == float("inf"):
        ctx.err(n, f"{key} must be a positive number (px)")
        return False, None
    return True, to_number(value)


def _pin_point(at: str | None) -> tuple[tuple[str, str] | None, str | None]:
    """The (x, y) texts of a pin's ``at=``, or the error for a malformed one."""
    if at is None:
        return None, None
    paren = PAREN_POINT_RE.match(at)
    if paren:
        return (paren.group(1), paren.group(2)), None
    if BARE_PAIR_RE.match(at):
        return None, (f"pin at= now takes a paren point: at=({at}) — a bare comma pair is a list "
                      "of two numbers, not a point (MIGRATIONS 0.1)")
    return None, "pin at= needs a paren point: at=(<x>,<y>)"


def directive_pin(ctx: Context, n: int, sp: Split) -> None:
    """``pin <id> [at=(x,y)] [width=] [height=]``: fixed geometry for one element."""
    if len(sp.pos) > 2:
        return ctx.err(n, f'unexpected argument "{sp.pos[2]}"')
    target = sp.arg(1)
    problem = id_error(target, sp.argq(1), None) or (None if target else PIN_USAGE)
    if problem is None:
        point, problem = _pin_point(sp.get("at"))
    if problem is not None:
        return ctx.err(n, problem)
    sizes = [_extent(ctx, n, key, sp.get(key)) for key in ("width", "height")]
    if not all(ok for ok, _ in sizes):
        return None
    (_, width), (_, height) = sizes
    if point is None and width is None and height is None:
        return ctx.err(n, PIN_USAGE)
    if target in ctx.doc.pins:
        return ctx.err(n, f'duplicate pin for "{target}"')
    x, y = (to_number(point[0]), to_number(point[1])) if point else (None, None)
    ctx.doc.pins[target] = {"x": x, "y": y, "width": width, "height": height, "line": n}


def directive_layout(ctx: Context, n: int, sp: Split) -> None:
    if ctx.saw_layout:
        return ctx.err(n, "duplicate layout line")
    if len(sp.pos) > 1:
        return ctx.err(n, "layout takes no arguments")
    ctx.saw_layout = True


# --- connectors ---------------------------------------------------------------


def connector_line(ctx: Context, n: int, line: str, kw: str, indent: int = 0) -> None:
    """edge / flowline / transition / message — the whole (trimmed) line;
    ``indent`` is where it started in the raw line (for error columns)."""
    try:
        c = parse_connector(line, kw)
    except LexError as exc:
        return ctx.err(n, exc.message, indent + exc.col + 1)
    try:
        tokens = tokenize(c.rest)
    except LexError as exc:
        return ctx.err(n, exc.message, indent + len(line) - len(c.rest) + exc.col + 1)
    sp = split_options(tokens)
    genre, version = ctx.genre, ctx.version
    if sp.duplicate:
        return ctx.err(n, f'duplicate option "{sp.duplicate}=" on one line')
    if sp.unknown:
        key = sp.unknown[0]
        if genre and (genre, key) in M.GENRE_REFUSED_OPTION:
            return ctx.err(n, M.refused_option(key, genre))
        return ctx.err(n, f'unknown option "{key}="')
    trailing_label = None
    if kw == "message":
        if len(sp.pos) > 1:
            return ctx.err(n, f'unexpected argument "{sp.pos[1]}"')
        if sp.pos:
            if not sp.posq[0]:
                return ctx.err(n, M.must_quote("message label", f'message {c.a} {c.op} {c.b} "{sp.pos[0]}"'))
            if c.mid is not None:
                return ctx.err(n, f"message carries a label twice, inline as -[{c.mid}]-> and again as "
                                  f'"{sp.pos[0]}" at the end — keep just one of them')
            trailing_label = sp.pos[0]
    elif sp.pos:
        return ctx.err(n, f'unexpected argument "{sp.pos[0]}"')
    for key, text in M.RETIRED_OPTION_KEYS.items():
        if key in sp.opts:
            return ctx.err(n, text)
    allowed = directive_options(kw, genre) or ()
    for key in sp.opts:
        if key not in allowed:
            return ctx.err(n, f"{kw} does not take {key}=")
    for key in ("label", "taillabel", "headlabel"):
        if key in sp.opts:
            return ctx.err(n, f"{key}= is retired — write the label inline: {kw} A [tail] -[mid]-> "
                              "[head] B (MIGRATIONS 0.1)")
    if "fill" in sp.opts:
        return ctx.err(n, M.fill_no_interior(kw))
    for key in ("fill", "stroke"):
        if key in sp.opts and not is_color(sp.get(key)):
            return ctx.err(n, f'unknown color "{sp.get(key)}" (#hex or CSS color name)')
    if "note" in sp.opts:
        if below_option_version("note", version):
            return ctx.err(n, M.note_version(version or ""))
        if not sp.opts["note"].quoted:
            return ctx.err(n, M.must_quote("note=", f'note="{sp.get("note")}"'))
    eid = None
    if "id" in sp.opts:
        if below_option_version("id", version):
            return ctx.err(n, M.id_version(version or ""))
        e = id_error(sp.get("id"), sp.opts["id"].has_quote, f"id= needs an id: {kw} {c.a} {c.op} {c.b} id=<id>")
        if e:
            return ctx.err(n, e)
        if ctx.taken(sp.get("id")):
            return ctx.err(n, f'duplicate id "{sp.get("id")}"')
        eid = sp.get("id")
    if "style" in sp.opts and sp.opts["style"].has_quote:
        return ctx.err(n, M.enum_bare(f"style={sp.get('style')}"))
    if "style" in sp.opts and sp.get("style") not in STYLES:
        return ctx.err(n, "style must be solid|dashed|dotted")
    classes, e = parse_class_list(sp.opts.get("class"))
    if e:
        return ctx.err(n, e)
    if kw == "message":
        return sequence.message(ctx, n, sp, c, eid, classes, trailing_label)
    if eid is not None:
        ctx.edge_ids.add(eid)
    ctx.doc.edges.append({
        "id": eid, "a": c.a, "op": c.op, "b": c.b, "tail": c.tail, "mid": c.mid, "head": c.head,
        "plane": "base", "stroke": sp.get("stroke"), "style": sp.get("style"), "class": classes,
        "note": sp.get("note"), "line": n,
    })
