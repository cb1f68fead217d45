"""The ``bitfield`` typed block (genres/bitfield.md).

::

    bitfield <id> ["label"] numbering=lsb0|msb0 [word=<n>]
    field "<name>" <width>|* [present="…"] [index=<first>..<last>] …   classic form
    field <name>:<width>,<name>:<width>,…                              compact form
    break

A compact item must fit one row; only one ``*`` field per block; ``break``
needs a field before it in the current row.
"""

from __future__ import annotations

import re

from .. import messages as M
from ..context import Context
from ..lexer import NOT_EOL, WS, split_list, trim
from ..model import js_number
from ..numbers import DIGITS_RE, MAX_SAFE_INTEGER, to_number
from ..options import Split, id_error, parse_class_list

COMPACT_ITEM_RE = re.compile(rf"({NOT_EOL}+):([0-9]+|\*)\Z")
STEP_RE = re.compile(f"(?:^|{WS})step(?:{WS}|$)")
STAR_TWICE = "only one * field is allowed per bitfield (* fills the remainder of the row)"


def open_block(ctx: Context, n: int, sp: Split) -> None:
    ident = sp.arg(1)
    e = id_error(ident, sp.argq(1), "bitfield needs an id")
    if e:
        return ctx.err(n, e)
    if ctx.taken(ident):
        return ctx.err(n, f'duplicate id "{ident}"')
    if sp.arg(2) is not None and not sp.argq(2):
        return ctx.err(n, M.must_quote("bitfield label", f'bitfield {ident} "{sp.pos[2]}"'))
    if len(sp.pos) > 3:
        return ctx.err(n, f'unexpected argument "{sp.pos[3]}"')
    ctx.block_ids.add(ident)
    word = 32
    raw_word = sp.get("word")
    if raw_word is not None:
        if DIGITS_RE.match(raw_word) and int(raw_word) >= 1:
            word = to_number(raw_word)
        else:
            ctx.err(n, "word must be a positive integer")  # keep 32 so the fields still check
    numbering = sp.get("numbering")
    classes, _ = parse_class_list(sp.opts.get("class"))
    block = {"genre": "bitfield", "id": ident, "label": sp.arg(2), "word": word,
             "numbering": numbering or "lsb0", "fill": sp.get("fill"), "stroke": sp.get("stroke"),
             "class": classes, "fields": [], "line": n, "_stars": 0, "_row_has_field": False}
    if numbering is None:
        ctx.err(n, "bitfield requires numbering= (lsb0 or msb0)")
    elif numbering not in ("lsb0", "msb0"):
        ctx.err(n, "numbering must be lsb0 or msb0")
    ctx.doc.regions.append(block)
    ctx.current = block


def _range_ends(value: str) -> tuple[str, str] | None:
    """The two trimmed ends of ``<first>..<last>``; ``None`` unless there is exactly one
    ``..`` (and no ``...``) with text on both sides."""
    if "..." in value or value.count("..") != 1:
        return None
    first, _, last = value.partition("..")
    first, last = trim(first), trim(last)
    return (first, last) if first and last else None


def _beyond_exact(which: str, text: str, extra: str = "") -> str | None:
    """The error for an index literal too large for a double to hold exactly, or ``None``."""
    if int(text) <= MAX_SAFE_INTEGER:
        return None
    return (f'index= {which} index "{text}" is above {MAX_SAFE_INTEGER}, the largest integer a FigDown '
            "number carries exactly (core §12.5 binds a number to an ECMAScript double) — a reader "
            f"would get {js_number(float(text))} back, not what you wrote{extra}")


def parse_index(value: str | None) -> tuple[dict | None, str | None]:
    """index= range: ``<digits>..<last>`` (last may be prose), or "" (unstated).

    Returns (range, None) or (None, error)."""
    if value is None:
        return None, None
    if value == "":
        return {}, None
    ends = _range_ends(value)
    if ends is None:
        return None, M.IDX_SHAPE
    first, last = ends
    if not DIGITS_RE.match(first):
        return None, (f'index= needs a LITERAL first index, and "{first}" is not one: a FigDown number '
                      "is a run of DIGITS — no sign, no decimal point, no separators. Only the LAST "
                      "index may be prose — the first is machine-readable by construction, which is "
                      "what lets a reader place the run without resolving any name. Write "
                      f'index=<digits>..<last>: index=0..7, or index="0..{first}" if the run really '
                      f'starts at 0 and ends where "{first}" says')
    problem = _beyond_exact("first", first)
    if problem is None and DIGITS_RE.match(last):
        problem = _beyond_exact("last", last, ", and the element count with it")
        if problem is None and int(first) == int(last):
            problem = (f"index={first}..{last} is a range of ONE element, which is not repetition — "
                       "drop index= (an absent key claims nothing), or write the range the run "
                       "really covers")
        return (None, problem) if problem else ({"first": int(first), "last": int(last)}, None)
    if problem is None and STEP_RE.search(last):
        problem = M.IDX_STEP
    return (None, problem) if problem else ({"first": int(first), "last": last}, None)


def field_line(ctx: Context, n: int, sp: Split) -> None:
    block = ctx.current
    assert block is not None
    name, width = sp.arg(1), sp.arg(2)
    classic = name is not None and width is not None and (
        (DIGITS_RE.match(width) and int(width) >= 1) or width == "*")
    if classic:
        return _classic_field(ctx, n, sp, block, name, width)
    items = sp.pos[1:]
    if not items or not any(":" in t for t in items):
        return ctx.err(n, "field needs <name> <width-in-bits>, or a name:width list")
    if "index" in sp.opts:
        return ctx.err(n, M.IDX_COMPACT)
    if len(items) > 1:
        return ctx.err(n, f'field: the item list is ONE comma-delimited token — unexpected argument '
                          f'"{items[1]}" (write field a:1,b:2 with no space after the comma; quote a name '
                          'that contains whitespace: "Long Name":16) (MIGRATIONS 0.1)')
    classes, _ = parse_class_list(sp.opts.get("class"))
    problem = None
    parsed: list[tuple[str, int | float | str]] = []
    for item in split_list(sp.post[1]):
        text = item.v
        if not text:
            continue
        m = COMPACT_ITEM_RE.match(text)
        if not m or (m.group(2) != "*" and int(m.group(2)) < 1):
            if ":" in text:
                problem = f'bad item "{text}" (expected name:width)'
            else:
                problem = (f'bad item "{text}" (expected name:width; quote a name that contains '
                           'spaces: "Long Name":16)')
            break
        item_name, item_width = m.group(1), m.group(2)
        if item_width != "*" and int(item_width) > block["word"]:
            problem = (f'"{item_name}:{item_width}" is wider than word={block["word"]} — a compact '
                       "item must fit one row; write it in the classic form to span rows: "
                       f'field "{item_name}" {item_width}')
            break
        if item_width == "*":
            if block["_stars"]:
                problem = STAR_TWICE
                break
            block["_stars"] = 1
        parsed.append((item_name, "*" if item_width == "*" else to_number(item_width)))
    # items before a bad one are still recorded (the line reports the bad one)
    for item_name, item_width in parsed:
        block["fields"].append({"name": item_name, "width": item_width, "present": sp.get("present"),
                                "index": None, "fill": sp.get("fill"), "stroke": sp.get("stroke"),
                                "class": classes, "description": sp.get("description"), "line": n})
    if parsed:
        block["_row_has_field"] = True
    if problem:
        ctx.err(n, problem)


def _classic_field(ctx: Context, n: int, sp: Split, block: dict, name: str, width: str) -> None:
    if not sp.argq(1):
        return ctx.err(n, M.must_quote("field name", f'field "{name}" {width}')
                       .replace(" must be quoted:", " must be quoted (classic field form):", 1))
    extra = sp.arg(3)
    if extra == "optional":
        return ctx.err(n, M.RETIRED_FIELD_OPTIONAL)
    if extra == "conditional":
        return ctx.err(n, M.RETIRED_FIELD_CONDITIONAL)
    if extra is not None:
        return ctx.err(n, f'unexpected argument "{extra}"')
    if width == "*" and "index" in sp.opts:
        return ctx.err(n, M.IDX_STAR)
    index, e = parse_index(sp.get("index"))
    if e:
        return ctx.err(n, e)
    if width == "*":
        if block["_stars"]:
            return ctx.err(n, STAR_TWICE)
        block["_stars"] = 1
    classes, _ = parse_class_list(sp.opts.get("class"))
    block["fields"].append({"name": name, "width": "*" if width == "*" else to_number(width),
                            "present": sp.get("present"), "index": index, "fill": sp.get("fill"),
                            "stroke": sp.get("stroke"), "class": classes,
                            "description": sp.get("description"), "line": n})
    block["_row_has_field"] = True


def break_line(ctx: Context, n: int, sp: Split) -> None:
    block = ctx.current
    assert block is not None
    if len(sp.pos) > 1:
        return ctx.err(n, f'unexpected argument "{sp.pos[1]}"')
    if not block["_row_has_field"]:
        return ctx.err(n, "break has no preceding field in the current row")
    block["fields"].append({"break": True, "line": n})
    block["_row_has_field"] = False
