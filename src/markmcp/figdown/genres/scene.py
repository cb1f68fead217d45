"""Scene directives: the node/edge world of block, topology, flowchart and
statechart, plus the genre-free ``title``, ``class``, ``flow``, ``rank``,
``pin`` and ``layout``.

Each rule takes the context, the line number and the split line, records at
most one element, and reports at most one diagnostic (the first problem
found): a rejected line declares nothing.  Most rules are written as an
ordered series of checks (:func:`_first_problem`); the order is the order in
which a writer is told what is wrong.
"""

from __future__ import annotations

import re
from typing import Callable, Iterable

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
from ..vocabulary import KEYWORD_SHAPE
from . import sequence

SHAPES = ("box", "rounded", "circle", "ellipse", "diamond", "cylinder")
FLOW_DIRECTIONS = ("right", "down", "left", "up")
BAND_SIDES = ("up", "down", "left", "right")
SHAPES_RETIRED = {"cloud": M.CLOUD_SHAPE_GONE}
# keywords that declare a plain node (no flowchart role)
ROLELESS_NODE_WORDS = ("node", "state")
INLINE_LABEL_KEYS = ("label", "taillabel", "headlabel")

DECIMAL = r"[0-9]+(?:\.[0-9]+)?"
SIGNED = rf"-?{DECIMAL}"
# percent = decimal '%'
PERCENT_RE = re.compile(rf"({DECIMAL})%\Z")
# band-span = decimal '..' decimal '%'   (the single-value form is a PERCENT_RE)
BAND_SPAN_RE = re.compile(rf"({DECIMAL})\.\.({DECIMAL})%\Z")
BAND_HYPHEN_SPAN_RE = re.compile(rf"{DECIMAL}-{DECIMAL}%\Z")
UNWRAPPED_POINT_RE = re.compile(rf"{SIGNED},{SIGNED}\Z")
POINT_RE = re.compile(rf"\(({SIGNED}),({SIGNED})\)\Z")

PIN_USAGE = "pin needs <id> and at=(<x>,<y>) and/or width=<px> and/or height=<px>"

Check = Callable[[], "str | None"]


def _first_problem(checks: Iterable[Check]) -> str | None:
    """Run checks in order and return the first problem one of them names."""
    for check in checks:
        problem = check()
        if problem:
            return problem
    return None


def _report(ctx: Context, n: int, problem: str | None) -> bool:
    """Report ``problem`` if there is one; ``True`` when the line is clean."""
    if problem:
        ctx.err(n, problem)
        return False
    return True


def _new_id(ctx: Context, sp: Split, kw: str) -> Check:
    """Check: position 1 is a fresh id in the shared id space."""
    def check() -> str | None:
        ident = sp.arg(1)
        return id_error(ident, sp.argq(1), f"{kw} needs an id") or (
            f'duplicate id "{ident}"' if ctx.taken(ident) else None)
    return check


def _quoted_label(sp: Split, kw: str) -> Check:
    """Check: an optional label at position 2 is written in quotes."""
    def check() -> str | None:
        label = sp.arg(2)
        if label is None or sp.argq(2):
            return None
        return M.must_quote(f"{kw} label", f'{kw} {sp.arg(1)} "{label}"')
    return check


def _at_most(sp: Split, count: int) -> Check:
    """Check: no positional beyond the first ``count`` (keyword included)."""
    def check() -> str | None:
        return f'unexpected argument "{sp.pos[count]}"' if len(sp.pos) > count else None
    return check


def _classes(sp: Split) -> list:
    return parse_class_list(sp.opts.get("class"))[0]


def _paint(sp: Split) -> dict:
    """The fill/stroke/style a scene element carries."""
    return {"fill": sp.get("fill"), "stroke": sp.get("stroke"), "style": sp.get("style")}


# ---------------------------------------------------------------- document-wide lines


def directive_title(ctx: Context, n: int, sp: Split) -> None:
    """``title "<text>" [note="…"]`` — once per section."""
    problem = _first_problem([
        lambda: "duplicate title line" if ctx.saw_title else None,
        lambda: None if sp.argq(1) else 'title needs a quoted string: title "<text>" (MIGRATIONS 0.1)',
        _at_most(sp, 2),
    ])
    if not _report(ctx, n, problem):
        return
    ctx.doc.title = sp.pos[1]
    ctx.saw_title = True
    if "note" in sp.opts:
        ctx.doc.note = sp.get("note")


def directive_flow(ctx: Context, n: int, sp: Split) -> None:
    """``flow right|down|left|up`` — the main reading direction, once."""
    problem = _first_problem([
        lambda: "duplicate flow directive" if ctx.saw_flow else None,
        lambda: M.enum_bare(f"flow {sp.pos[1]}") if sp.argq(1) else None,
        lambda: None if sp.arg(1) in FLOW_DIRECTIONS else "flow needs right|down|left|up",
        _at_most(sp, 2),
    ])
    if _report(ctx, n, problem):
        ctx.doc.flow = sp.pos[1]
        ctx.saw_flow = True


def directive_layout(ctx: Context, n: int, sp: Split) -> None:
    """``layout`` opens the geometry zone (pin lines); it takes nothing."""
    problem = _first_problem([
        lambda: "duplicate layout line" if ctx.saw_layout else None,
        lambda: "layout takes no arguments" if len(sp.pos) > 1 else None,
    ])
    if _report(ctx, n, problem):
        ctx.saw_layout = True


def directive_class(ctx: Context, n: int, sp: Split) -> None:
    """``class <id> "<meaning>" [fill=…] [stroke=…] [style=…]`` — classes have their own id space."""
    ident = sp.arg(1)

    def meaning() -> str | None:
        if sp.arg(2) is None:
            return (f'class needs a meaning: class {ident} "<meaning>" (write "" to declare no '
                    "meaning: the class then groups attributes only and draws no legend entry)")
        return None if sp.argq(2) else M.must_quote("class meaning", f'class {ident} "{sp.pos[2]}"')

    problem = _first_problem([
        lambda: id_error(ident, sp.argq(1), "class needs an id"),
        lambda: f'duplicate class "{ident}"' if ident in ctx.class_ids else None,
        meaning,
        _at_most(sp, 3),
    ])
    if not _report(ctx, n, problem):
        return
    ctx.class_ids.add(ident)
    ctx.doc.classes.append({"id": ident, "meaning": sp.pos[2], **_paint(sp), "line": n})


# ---------------------------------------------------------------- declarations


def _node_shape(kw: str, sp: Split) -> str:
    return sp.get("shape") or KEYWORD_SHAPE[kw]


def _shape_problem(shape: str) -> str | None:
    if shape in SHAPES_RETIRED:
        return SHAPES_RETIRED[shape]
    if shape in SHAPES:
        return None
    return f'unknown shape "{shape}" ({"|".join(SHAPES)})'


def directive_node(ctx: Context, n: int, sp: Split, kw: str) -> None:
    """node / state, and the flowchart roles process / decision / terminator."""
    shape = _node_shape(kw, sp)
    problem = _first_problem([
        _new_id(ctx, sp, kw),
        lambda: (f"{kw} does not take width=/height= — use a pin line"
                 if "width" in sp.opts or "height" in sp.opts else None),
        lambda: _shape_problem(shape),
        _quoted_label(sp, kw),
    ])
    if not _report(ctx, n, problem):
        return
    ident = sp.pos[1]
    ctx.node_ids.add(ident)  # the id is taken even if a stray argument follows
    if not _report(ctx, n, _at_most(sp, 3)()):
        return
    paint = _paint(sp)
    ctx.doc.nodes.append({
        "id": ident, "label": sp.arg(2), "role": None if kw in ROLELESS_NODE_WORDS else kw,
        "shape": shape, "group": sp.get("in") or None, "plane": "base",
        "fill": paint["fill"], "stroke": paint["stroke"], "style": paint["style"],
        "class": _classes(sp), "note": sp.get("note"), "line": n,
    })


def _group_gap(text: str | None) -> tuple[int | float | None, str | None]:
    """gap= on a group: a finite non-negative number, or absent."""
    if text is None:
        return None, None
    if DECIMAL_RE.match(text) and float(text) != float("inf"):
        return to_number(text), None
    return None, "gap must be a non-negative number"


def directive_group(ctx: Context, n: int, sp: Split) -> None:
    """``group <id> ["label"] [gap=<px>]`` — a container nodes join with in=."""
    problem = _first_problem([_new_id(ctx, sp, "group"), _quoted_label(sp, "group"), _at_most(sp, 3)])
    if not _report(ctx, n, problem):
        return
    ident = sp.pos[1]
    ctx.group_ids.add(ident)  # claimed before gap= is judged
    gap, problem = _group_gap(sp.get("gap") if "gap" in sp.opts else None)
    if not _report(ctx, n, problem):
        return
    paint = _paint(sp)
    ctx.doc.groups.append({
        "id": ident, "label": sp.arg(2), "gap": gap, "plane": None,
        "fill": paint["fill"], "stroke": paint["stroke"], "style": paint["style"],
        "class": _classes(sp), "note": sp.get("note"), "line": n,
    })


def directive_external(ctx: Context, n: int, sp: Split) -> None:
    """``external <id> ["label"]`` — an I/O endpoint outside the figure."""
    problem = _first_problem([_new_id(ctx, sp, "external"), _quoted_label(sp, "external"),
                              _at_most(sp, 3)])
    if _report(ctx, n, problem):
        ctx.external_ids.add(sp.pos[1])
        ctx.doc.externals.append({"id": sp.pos[1], "label": sp.arg(2), "line": n})


def directive_rank(ctx: Context, n: int, sp: Split) -> None:
    """``rank a,b,c`` — two or more ids placed on one rank."""
    if len(sp.pos) > 2:
        return ctx.err(n, f"rank takes ONE comma-delimited token: write rank "
                          f"{join_list_form(sp.pos[1:])} — the space form is retired (MIGRATIONS 0.1)")
    members = split_list(sp.post[1]) if len(sp.post) > 1 else []
    problem = _first_problem(
        [lambda m=m: id_error(m.v, m.h, "rank ids must not be empty (write rank a,b,c)") for m in members]
        + [lambda: "rank needs two or more node ids" if len(members) < 2 else None])
    if _report(ctx, n, problem):
        ctx.doc.ranks.append({"ids": [m.v for m in members], "line": n})
    return None


# ---------------------------------------------------------------- bundles


def bundle_member(text: str, quoted: bool, ids_allowed: bool) -> dict | str:
    """member = id '--' id | connector-id  → the member, or the problem with it."""
    if quoted:
        return M.ID_SPELLING
    ends = text.split("--")
    if len(ends) == 1:
        if not ids_allowed:
            return f'bad member "{text}" (expected A--B)'
        return {"id": text} if is_bare_id(text) else f'bad member "{text}" (expected A--B or a connector id)'
    if len(ends) == 2 and all(is_bare_id(end) for end in ends):
        return {"a": ends[0], "b": ends[1]}
    return f'bad member "{text}" (expected A--B)'


def _member_name(member: dict) -> str:
    return member["id"] if "id" in member else f'{member["a"]}--{member["b"]}'


def directive_bundle(ctx: Context, n: int, sp: Split) -> None:
    """``bundle <id> ["label"] a--b,c--d,<connector-id>`` — links drawn as one."""
    ident = sp.arg(1)
    problem = _first_problem([
        lambda: id_error(ident, sp.argq(1), "bundle needs an id"),
        lambda: f'duplicate bundle id "{ident}"' if ident in ctx.bundle_ids else None,
    ])
    if not _report(ctx, n, problem):
        return
    label = sp.pos[2] if sp.argq(2) else None
    lists = sp.post[3:] if label is not None else sp.post[2:]
    if len(lists) > 1:
        shown = "" if label is None else f' "{label}"'
        return ctx.err(n, f"bundle members take ONE comma-delimited token: write bundle {ident}{shown} "
                          f"{join_list_form([t.v for t in lists])} — the space form is retired (MIGRATIONS 0.1)")
    ids_allowed = not below_option_version("id", ctx.version)
    members: list[dict] = []
    for item in (item for tok in lists for item in split_list(tok)):
        text = trim(item.v)
        if not text:
            continue
        member = bundle_member(text, item.h, ids_allowed)
        if isinstance(member, str):
            return ctx.err(n, member)
        members.append(member)
    if not members:
        return ctx.err(n, "bundle needs at least one member link A--B")
    ctx.bundle_ids.add(ident)
    ctx.doc.bundles.append({
        "id": ident, "label": label, "members": [_member_name(m) for m in members],
        "stroke": sp.get("stroke"), "style": sp.get("style"), "line": n, "_members": members,
    })


# ---------------------------------------------------------------- reference marks


def _percent(text: str | None) -> int | float | None:
    """percent = decimal '%' with 0..100 — its number, or ``None``."""
    m = PERCENT_RE.match(text or "")
    if m is None or float(m.group(1)) > 100:
        return None
    return to_number(m.group(1))


def directive_threshold(ctx: Context, n: int, sp: Split) -> None:
    """``threshold "<label>" in=<id> offset=<0..100>%`` — a labelled line across a target."""
    problem = _first_problem([
        lambda: None if sp.argq(1) else 'threshold needs a quoted "<label>" first',
        _at_most(sp, 2),
        lambda: None if sp.get("in") else "threshold needs in=<node-or-group-id>",
        lambda: ("threshold at= has been renamed: use offset=<0..100>% (at= is the pin POINT in canvas "
                 'px; SVG spells a position along an extent "offset") (MIGRATIONS 0.1)'
                 if "at" in sp.opts else None),
        lambda: (None if _percent(sp.get("offset")) is not None
                 else "threshold needs offset=<0..100>% (with the % sign)"),
    ])
    if _report(ctx, n, problem):
        ctx.doc.thresholds.append({"label": sp.pos[1], "in": sp.get("in"),
                                   "offset": _percent(sp.get("offset")),
                                   "stroke": sp.get("stroke"), "style": sp.get("style"), "line": n})


def band_span(text: str) -> tuple[int | float, int | float] | None:
    """band-span = decimal '%' (from 0) | decimal '..' decimal '%'  → (from, to)."""
    m = BAND_SPAN_RE.match(text)
    if m:
        return to_number(m.group(1)), to_number(m.group(2))
    m = PERCENT_RE.match(text)
    return (0, to_number(m.group(1))) if m else None


def _band_spelling_problem(sp: Split) -> str | None:
    """Everything about a band line up to (not including) its span's values."""
    if "from" in sp.opts or "to" in sp.opts:
        return ('from=/to= retired — write the range positionally: band "<label>" 15% or '
                'band "<label>" 15..35%')
    if not sp.argq(1):
        return M.BAND_LABEL_FIRST
    if not sp.get("in"):
        return "band needs in=<node-or-group-id>"
    written = sp.arg(2) or ""
    if BAND_HYPHEN_SPAN_RE.match(written):
        return (f'the hyphen range "{written}" is no longer the spelling: write band "{sp.pos[1]}" '
                f'{written.replace("-", "..", 1)} in=… — FigDown has ONE range grammar, "..", and a '
                "hyphen between two numbers reads as subtraction (MIGRATIONS 0.1)")
    if band_span(written) is None:
        return 'band needs a range with the % sign: band "<label>" <pct>% or band "<label>" <a>..<b>%'
    return _at_most(sp, 3)()


def directive_band(ctx: Context, n: int, sp: Split) -> None:
    """``band "<label>" <a>..<b>% in=<id> [extend=…]`` — a shaded range across a target."""
    problem = _band_spelling_problem(sp)
    if problem is None:
        low, high = band_span(sp.pos[2])
        side = sp.get("extend") or BAND_SIDES[0]
        if not 0 <= low < high <= 100:
            problem = "band range needs 0 <= from < to <= 100"
        elif side not in BAND_SIDES:
            problem = "extend must be up|down|left|right"
    if not _report(ctx, n, problem):
        return
    ctx.doc.bands.append({"label": sp.pos[1], "in": sp.get("in"), "from": low, "to": high,
                          "extend": side, "fill": sp.get("fill") or BAND_DEFAULT_FILL,
                          "stroke": sp.get("stroke"), "style": sp.get("style"), "line": n})


# ---------------------------------------------------------------- pin


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
    paren = POINT_RE.match(at)
    if paren:
        return (paren.group(1), paren.group(2)), None
    if UNWRAPPED_POINT_RE.match(at):
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


# ---------------------------------------------------------------- connectors


def _connector_tokens(ctx: Context, n: int, line: str, kw: str, indent: int):
    """Cut the connector head off the line and tokenize the rest; ``None`` after a lexical error
    (reported with its column in the raw line)."""
    try:
        head = parse_connector(line, kw)
    except LexError as exc:
        ctx.err(n, exc.message, indent + exc.col + 1)
        return None
    try:
        tokens = tokenize(head.rest)
    except LexError as exc:
        ctx.err(n, exc.message, indent + len(line) - len(head.rest) + exc.col + 1)
        return None
    return head, split_options(tokens)


def _unknown_key_problem(ctx: Context, sp: Split) -> str | None:
    if sp.duplicate:
        return f'duplicate option "{sp.duplicate}=" on one line'
    if not sp.unknown:
        return None
    key = sp.unknown[0]
    if ctx.genre and (ctx.genre, key) in M.OPTION_REFUSED_IN_GENRE:
        return M.refused_option(key, ctx.genre)
    return f'unknown option "{key}="'


def _message_label(sp: Split, head) -> tuple[str | None, str | None]:
    """A message may end with one quoted label (unless it has an inline one)."""
    if len(sp.pos) > 1:
        return None, f'unexpected argument "{sp.pos[1]}"'
    if not sp.pos:
        return None, None
    text = sp.pos[0]
    if not sp.posq[0]:
        return None, M.must_quote("message label", f'message {head.a} {head.op} {head.b} "{text}"')
    if head.mid is not None:
        return None, (f"message carries a label twice, inline as -[{head.mid}]-> and again as "
                      f'"{text}" at the end — keep just one of them')
    return text, None


def _key_set_problem(kw: str, ctx: Context, sp: Split) -> str | None:
    """Which option keys a connector line may carry at all."""
    retired = next((text for key, text in M.OPTION_KEY_MIGRATIONS.items() if key in sp.opts), None)
    if retired:
        return retired
    accepted = directive_options(kw, ctx.genre) or ()
    refused = next((key for key in sp.opts if key not in accepted), None)
    if refused:
        return f"{kw} does not take {refused}="
    inline = next((key for key in INLINE_LABEL_KEYS if key in sp.opts), None)
    if inline:
        return (f"{inline}= is retired — write the label inline: {kw} A [tail] -[mid]-> [head] B "
                "(MIGRATIONS 0.1)")
    return M.fill_no_interior(kw) if "fill" in sp.opts else None


def _color_problem(sp: Split) -> str | None:
    bad = next((sp.get(key) for key in ("fill", "stroke") if key in sp.opts and not is_color(sp.get(key))),
               None)
    return None if bad is None else f'unknown color "{bad}" (#hex or CSS color name)'


def _note_problem(ctx: Context, sp: Split) -> str | None:
    if "note" not in sp.opts:
        return None
    if below_option_version("note", ctx.version):
        return M.note_version(ctx.version or "")
    return None if sp.opts["note"].quoted else M.must_quote("note=", f'note="{sp.get("note")}"')


def _connector_id_problem(ctx: Context, sp: Split, kw: str, head) -> str | None:
    if "id" not in sp.opts:
        return None
    if below_option_version("id", ctx.version):
        return M.id_version(ctx.version or "")
    ident = sp.get("id")
    return id_error(ident, sp.opts["id"].has_quote, f"id= needs an id: {kw} {head.a} {head.op} {head.b} id=<id>") or (
        f'duplicate id "{ident}"' if ctx.taken(ident) else None)


def _style_problem(sp: Split) -> str | None:
    if "style" not in sp.opts:
        return None
    if sp.opts["style"].has_quote:
        return M.enum_bare(f"style={sp.get('style')}")
    return None if sp.get("style") in STYLES else "style must be solid|dashed|dotted"


def connector_line(ctx: Context, n: int, line: str, kw: str, indent: int = 0) -> None:
    """edge / flowline / transition / message — the whole (trimmed) line;
    ``indent`` is where it started in the raw line (for error columns)."""
    cut = _connector_tokens(ctx, n, line, kw, indent)
    if cut is None:
        return None
    head, sp = cut
    trailing: list[str | None] = [None]

    def positionals() -> str | None:
        if kw == "message":
            trailing[0], problem = _message_label(sp, head)
            return problem
        return f'unexpected argument "{sp.pos[0]}"' if sp.pos else None

    problem = _first_problem([
        lambda: _unknown_key_problem(ctx, sp),
        positionals,
        lambda: _key_set_problem(kw, ctx, sp),
        lambda: _color_problem(sp),
        lambda: _note_problem(ctx, sp),
        lambda: _connector_id_problem(ctx, sp, kw, head),
        lambda: _style_problem(sp),
        lambda: parse_class_list(sp.opts.get("class"))[1],
    ])
    if not _report(ctx, n, problem):
        return None
    classes = _classes(sp)
    link_id = sp.get("id") if "id" in sp.opts else None
    if kw == "message":
        return sequence.message(ctx, n, sp, head, link_id, classes, trailing[0])
    if link_id is not None:
        ctx.edge_ids.add(link_id)
    ctx.doc.edges.append({
        "id": link_id, "a": head.a, "op": head.op, "b": head.b, "tail": head.tail, "mid": head.mid,
        "head": head.head, "plane": "base", "stroke": sp.get("stroke"), "style": sp.get("style"),
        "class": classes, "note": sp.get("note"), "line": n,
    })
    return None
