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
from ..numbers import DIGITS_RE, MAX_SAFE_INTEGER, number_text, to_number
from ..options import Split, parse_class_list
from .blockhead import claim_block

# compact-item = name ':' ( digits | '*' )   — the name is anything up to the last colon
COMPACT_ITEM_RE = re.compile(rf"({NOT_EOL}+):([0-9]+|\*)\Z")
# the reserved word inside the last end of an index= range
RANGE_STEP_WORD_RE = re.compile(f"(?:^|{WS})step(?:{WS}|$)")
REMAINDER = "*"
SECOND_REMAINDER = "only one * field is allowed per bitfield (* fills the remainder of the row)"
DEFAULT_WORD = 32
NUMBERINGS = ("lsb0", "msb0")


def _word_size(ctx: Context, n: int, raw: str | None) -> int:
    """word= as a row width in bits; a bad value is reported and the default kept,
    so the fields below can still be checked."""
    if raw is None:
        return DEFAULT_WORD
    if DIGITS_RE.match(raw) and int(raw) > 0:
        return to_number(raw)
    ctx.err(n, "word must be a positive integer")
    return DEFAULT_WORD


def _numbering_problem(numbering: str | None) -> str | None:
    if numbering is None:
        return "bitfield requires numbering= (lsb0 or msb0)"
    if numbering in NUMBERINGS:
        return None
    return "numbering must be lsb0 or msb0"


def open_block(ctx: Context, n: int, sp: Split) -> None:
    """``bitfield <id> ["label"] numbering=… [word=<n>]`` opens a block of fields."""
    ident = claim_block(ctx, n, sp, "bitfield")
    if ident is None:
        return
    word = _word_size(ctx, n, sp.get("word"))
    numbering = sp.get("numbering")
    block = {"genre": "bitfield", "id": ident, "label": sp.arg(2), "word": word,
             "numbering": numbering if numbering is not None else NUMBERINGS[0],
             "fill": sp.get("fill"), "stroke": sp.get("stroke"),
             "class": parse_class_list(sp.opts.get("class"))[0], "fields": [], "line": n,
             "_stars": 0, "_row_has_field": False}
    bad_numbering = _numbering_problem(numbering)
    if bad_numbering:
        ctx.err(n, bad_numbering)
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
            f"would get {number_text(float(text))} back, not what you wrote{extra}")


def parse_index(value: str | None) -> tuple[dict | None, str | None]:
    """index= range: ``<digits>..<last>`` (last may be prose), or "" (unstated).

    Returns (range, None) or (None, error)."""
    if value is None:
        return None, None
    if value == "":
        return {}, None
    ends = _range_ends(value)
    if ends is None:
        return None, M.INDEX_RANGE_SHAPE
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
    if problem is None and RANGE_STEP_WORD_RE.search(last):
        problem = M.INDEX_STEP_RESERVED
    return (None, problem) if problem else ({"first": int(first), "last": last}, None)


def _field(sp: Split, n: int, name: str, width: int | float | str, index: dict | None) -> dict:
    """One field record; the line's paint, prose and classes apply to it."""
    return {"name": name, "width": width, "present": sp.get("present"), "index": index,
            "fill": sp.get("fill"), "stroke": sp.get("stroke"),
            "class": parse_class_list(sp.opts.get("class"))[0],
            "description": sp.get("description"), "line": n}


def _bit_width(text: str) -> int | float | str:
    return REMAINDER if text == REMAINDER else to_number(text)


def _take_remainder(block: dict) -> bool:
    """Claim the block's single ``*`` field; ``False`` when it is already taken."""
    if block["_stars"]:
        return False
    block["_stars"] = 1
    return True


def _add_fields(block: dict, records: list[dict]) -> None:
    block["fields"].extend(records)
    if records:
        block["_row_has_field"] = True


def _is_classic_width(text: str | None) -> bool:
    return text is not None and (text == REMAINDER or (DIGITS_RE.match(text) is not None and int(text) > 0))


def field_line(ctx: Context, n: int, sp: Split) -> None:
    """``field`` in either form: ``"name" <width>`` (classic) or ``a:1,b:2`` (compact)."""
    block = ctx.current
    assert block is not None
    if sp.arg(1) is not None and _is_classic_width(sp.arg(2)):
        return _classic_field(ctx, n, sp, block)
    return _compact_fields(ctx, n, sp, block)


def _compact_shape_problem(sp: Split) -> str | None:
    """What keeps the line from being a compact item list at all, if anything."""
    items = sp.pos[1:]
    if not any(":" in item for item in items):
        return "field needs <name> <width-in-bits>, or a name:width list"
    if "index" in sp.opts:
        return M.INDEX_ON_COMPACT_FORM
    if len(items) == 1:
        return None
    return (f'field: the item list is ONE comma-delimited token — unexpected argument "{items[1]}" '
            "(write field a:1,b:2 with no space after the comma; quote a name that contains "
            'whitespace: "Long Name":16) (MIGRATIONS 0.1)')


def compact_item(text: str, word: int | float) -> tuple[str, str] | str:
    """compact-item = name ':' width — ``(name, width)`` or the problem with it."""
    m = COMPACT_ITEM_RE.match(text)
    if m is None or (m.group(2) != REMAINDER and int(m.group(2)) == 0):
        hint = "" if ":" in text else '; quote a name that contains spaces: "Long Name":16'
        return f'bad item "{text}" (expected name:width{hint})'
    name, width = m.groups()
    if width != REMAINDER and to_number(width) > word:
        return (f'"{name}:{width}" is wider than word={number_text(word)} — a compact item must fit one '
                f'row; write it in the classic form to span rows: field "{name}" {width}')
    return name, width


def _compact_fields(ctx: Context, n: int, sp: Split, block: dict) -> None:
    problem = _compact_shape_problem(sp)
    if problem:
        return ctx.err(n, problem)
    records: list[dict] = []
    for item in split_list(sp.post[1]):
        if not item.v:
            continue
        parsed = compact_item(item.v, block["word"])
        if isinstance(parsed, str):
            problem = parsed
            break
        name, width = parsed
        if width == REMAINDER and not _take_remainder(block):
            problem = SECOND_REMAINDER
            break
        records.append(_field(sp, n, name, _bit_width(width), None))
    _add_fields(block, records)  # the items before a bad one still count
    if problem:
        ctx.err(n, problem)
    return None


def _classic_problem(sp: Split) -> str | None:
    """Checks on a classic field line that come before its index= range."""
    name, width, extra = sp.arg(1), sp.arg(2), sp.arg(3)
    if not sp.argq(1):
        return M.must_quote("field name", f'field "{name}" {width}').replace(
            " must be quoted:", " must be quoted (classic field form):", 1)
    retired_flag = {"optional": M.OPTIONAL_FLAG_GONE,
                    "conditional": M.CONDITIONAL_FLAG_GONE}.get(extra or "")
    if retired_flag:
        return retired_flag
    if extra is not None:
        return f'unexpected argument "{extra}"'
    if width == REMAINDER and "index" in sp.opts:
        return M.INDEX_ON_REMAINDER
    return None


def _classic_field(ctx: Context, n: int, sp: Split, block: dict) -> None:
    problem = _classic_problem(sp)
    index = None
    if problem is None:
        index, problem = parse_index(sp.get("index"))
    if problem is None and sp.arg(2) == REMAINDER and not _take_remainder(block):
        problem = SECOND_REMAINDER
    if problem:
        return ctx.err(n, problem)
    _add_fields(block, [_field(sp, n, sp.pos[1], _bit_width(sp.pos[2]), index)])
    return None


def break_line(ctx: Context, n: int, sp: Split) -> None:
    """``break`` ends the current row; it needs a field in that row to end."""
    block = ctx.current
    assert block is not None
    if len(sp.pos) > 1:
        problem = f'unexpected argument "{sp.pos[1]}"'
    elif not block["_row_has_field"]:
        problem = "break has no preceding field in the current row"
    else:
        block["fields"].append({"break": True, "line": n})
        block["_row_has_field"] = False
        return
    ctx.err(n, problem)
