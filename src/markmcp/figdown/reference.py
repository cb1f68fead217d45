"""The reference post-pass: checks that need the whole section.

FigDown allows forward references (an edge may name a node declared further
down), so every reference is resolved here, after the line loop, against
what the section declared.  Each unresolved reference is reported once, on
the line that wrote it.  Also here: structural checks of the typed blocks
(a table's header and delimiter rows, merge rectangles, mark addresses), the
class paint-channel rules, and bundle member resolution.
"""

from __future__ import annotations

from . import messages as M
from .context import Context
from .genres import sequence
from .genres.table import is_numeric
from .numbers import number_text

#: Which paint channels each element kind has (core §5).
CLASS_CHANNELS: dict[str, tuple[tuple[str, ...], str]] = {
    "node": (("fill", "stroke", "style"), "a node"),
    "group": (("fill", "stroke", "style"), "a group"),
    "lifeline": (("fill", "stroke", "style"), "a lifeline"),
    "state": (("fill", "stroke", "style"), "a state"),
    "edge": (("stroke", "style"), "an edge"),
    "message": (("stroke", "style"), "a message"),
    "fragment": (("stroke", "style"), "a fragment"),
    "operand": (("stroke", "style"), "an operand"),
    "field": (("fill", "stroke"), "a field"),
    "cell": (("fill", "stroke"), "a cell"),
}

NOT_RECTANGULAR = "merge region is not rectangular (L-shaped or overlapping spans)"


def _known(ctx: Context, ident: str, *kinds: str) -> bool:
    """Was ``ident`` declared in this section as one of ``kinds``
    (``node``, ``group``, ``external``, ``block``)?"""
    tables = {"node": ctx.node_ids, "group": ctx.group_ids, "external": ctx.external_ids,
              "block": ctx.block_ids}
    return any(ident in tables[kind] for kind in kinds)


def _node_groups(ctx: Context) -> None:
    """node in=<group> names a declared group."""
    for node in ctx.doc.nodes:
        if node["group"] and not _known(ctx, node["group"], "group"):
            ctx.err(node["line"], f'unknown group "{node["group"]}"')


def _edge_endpoint_problem(ctx: Context, end: str) -> str | None:
    if not _known(ctx, end, "node", "group", "external"):
        return f'unknown endpoint "{end}"'
    if _known(ctx, end, "group"):
        return f'edge endpoint "{end}" is a group — connect to a member node (group edges are not in v0.1)'
    return None


def _edge_endpoints(ctx: Context) -> None:
    """Both ends of every connector are a node or an external endpoint."""
    for edge in ctx.doc.edges:
        for end in (edge["a"], edge["b"]):
            problem = _edge_endpoint_problem(ctx, end)
            if problem:
                ctx.err(edge["line"], problem)


def _sequence_rules(ctx: Context) -> None:
    if ctx.doc.genre == "sequence":
        sequence.check(ctx)


def _rank_members(ctx: Context) -> None:
    for rank in ctx.doc.ranks:
        for ident in rank["ids"]:
            if not _known(ctx, ident, "node"):
                ctx.err(rank["line"], f'unknown node "{ident}" in rank')


def _overlay_targets(ctx: Context) -> None:
    """threshold in= and band in= name a group, a node or a typed block."""
    for kind, items in (("threshold", ctx.doc.thresholds), ("band", ctx.doc.bands)):
        for item in items:
            if not _known(ctx, item["in"], "group", "node", "block"):
                ctx.err(item["line"], f'unknown target "{item["in"]}" for {kind}')


def _typed_blocks(ctx: Context) -> None:
    for block in ctx.doc.regions:
        BLOCK_CHECKS.get(block["genre"], _no_block_check)(ctx, block)


def resolve(ctx: Context) -> None:
    """Run every whole-section check, appending diagnostics to ``ctx``."""
    for check in SECTION_CHECKS:
        check(ctx)


def _bundles(ctx: Context) -> None:
    """Every bundle member must name exactly one connector of this section, once."""
    links = _LinkIndex(ctx.doc.edges)
    for bundle in ctx.doc.bundles:
        used: set[int] = set()
        for member in bundle["_members"]:
            edge, problem = _bundle_member(ctx, member, links)
            if problem is not None:
                ctx.err(bundle["line"], problem)
            elif id(edge) in used:
                written = member["id"] if "id" in member else f'{member["a"]}--{member["b"]}'
                ctx.err(bundle["line"], f'duplicate bundle member "{written}" — each member is stated once')
            else:
                used.add(id(edge))


class _LinkIndex:
    """The section's connectors, looked up by their unordered end pair or by their id=."""

    def __init__(self, edges: list[dict]) -> None:
        self.pairs: dict[frozenset[str], list[dict]] = {}
        self.ids: dict[str, list[dict]] = {}
        for edge in edges:
            self.pairs.setdefault(frozenset((edge["a"], edge["b"])), []).append(edge)
            if edge["id"] is not None:
                self.ids.setdefault(edge["id"], []).append(edge)


def _bundle_member(ctx: Context, member: dict, links: _LinkIndex) -> tuple[dict | None, str | None]:
    """The connector a member names, or the diagnostic saying why it names none."""
    if "id" in member:
        ident = member["id"]
        named = links.ids.get(ident, [])
        if len(named) == 1:
            return named[0], None
        kind = _kind_of(ctx, ident)
        if kind:
            return None, (f'bundle member "{ident}" is {kind}, not a connector — a bundle '
                          "collects LINKS, so write the pair A--B or give the connector you "
                          "mean an id= and name that")
        return None, (f'bundle member "{ident}" is not a declared connector in this section '
                      "(ids are unique per section, and a bare member names a connector by "
                      "its id=)")
    a, b = member["a"], member["b"]
    if not (_is_endpoint(ctx, a) and _is_endpoint(ctx, b)):
        return None, f'unknown endpoint in "{a}--{b}"'
    between = links.pairs.get(frozenset((a, b)), [])
    if len(between) == 1:
        return between[0], None
    if not between:
        return None, f'no edge between "{a}" and "{b}" for bundle member'
    return None, (f'"{a}--{b}" matches {len(between)} edges — the pair form addresses a '
                  "connector only where ONE runs between the two nodes. Give the connector "
                  "you mean an id= and write that id as the member (figdown 0.5)")


def _is_endpoint(ctx: Context, ident: str) -> bool:
    return ident in ctx.node_ids or ident in ctx.external_ids


def _kind_of(ctx: Context, ident: str) -> str | None:
    if ident in ctx.node_ids and ident not in ctx.edge_ids:
        return "a node"
    if ident in ctx.group_ids:
        return "a group"
    if ident in ctx.external_ids:
        return "an external endpoint"
    if ident in ctx.block_ids:
        return "a region"
    if ident in ctx.class_ids:
        return "a class"
    if ident in ctx.bundle_ids:
        return "a bundle"
    return None


def _pin_sizing_refusal(ctx: Context, ident: str, blocks: dict[str, dict]) -> str | None:
    """Why a pin may not give ``ident`` a width=/height= (its size is not the
    author's to set), or None."""
    if _known(ctx, ident, "group"):
        return f'pin width=/height= do not apply to group "{ident}" — groups size to their members'
    if _known(ctx, ident, "external"):
        return (f'pin width=/height= do not apply to external endpoint "{ident}" — its '
                "geometry derives from its content")
    if ident in blocks:
        return (f'pin width=/height= do not apply to the {blocks[ident]["genre"]} block '
                f'"{ident}" — its geometry derives from its content')
    return None


def _pins(ctx: Context) -> None:
    """A pin names a node, group or external endpoint, and sizes only nodes."""
    blocks: dict[str, dict] = {}
    for block in ctx.doc.regions:
        if "id" in block and block["id"] not in blocks:
            blocks[block["id"]] = block
    for ident, pin in ctx.doc.pins.items():
        sized = pin["width"] is not None or pin["height"] is not None
        refusal = _pin_sizing_refusal(ctx, ident, blocks) if sized else None
        if refusal:
            ctx.err(pin["line"], refusal)
        elif not _known(ctx, ident, "node", "group", "external"):
            ctx.err(pin["line"], f'pin of unknown id "{ident}"')


def _elements_with_classes(ctx: Context):
    doc = ctx.doc
    for kind, items in (("node", doc.nodes), ("group", doc.groups), ("edge", doc.edges),
                        ("message", doc.messages), ("lifeline", doc.lifelines), ("state", doc.states),
                        ("fragment", doc.fragments), ("operand", doc.operands)):
        for item in items:
            yield kind, item
    for block in doc.regions:
        for f in block.get("fields", ()):
            if not f.get("break"):
                yield "field", f
        for mark in block.get("marks", ()):
            yield "cell", mark


PAINT_KEYS = ("fill", "stroke", "style")


def _unreachable_paint(cid: str, painted: list[str], has: tuple[str, ...], a_kind: str) -> str | None:
    """Why class ``cid``'s paint cannot reach an element that only has the ``has`` channels.

    A class that fills but has no stroke cannot colour an element without an
    interior (0.1 rule); a class none of whose keys the element has paints
    nothing on it (0.4 rule).  ``None`` when some of the paint lands."""
    the_kind = "the " + a_kind.split(" ", 1)[1]
    if "fill" in painted and "stroke" not in painted and "fill" not in has:
        return (f'class "{cid}" sets fill= but no stroke=, and {a_kind} has no '
                f"interior — add stroke= to the class (it paints {the_kind}; fill= "
                "keeps painting members that have an interior) (MIGRATIONS 0.1)")
    if set(painted).isdisjoint(has):
        return (f'class "{cid}" declares only {" and ".join(k + "=" for k in painted)}, and {a_kind} has no '
                f'such channel — add {" or ".join(k + "=" for k in has)} to the '
                f"class (they paint {the_kind}; the key it declares keeps painting "
                "members that have that channel) (MIGRATIONS 0.4)")
    return None


def _class_channels(ctx: Context) -> None:
    """Each paint channel of an element may be set by at most one of the classes it carries."""
    by_id: dict[str, dict] = {}
    for c in ctx.doc.classes:
        by_id.setdefault(c["id"], c)
    for kind, element in _elements_with_classes(ctx):
        has, a_kind = CLASS_CHANNELS[kind]
        channel_owner: dict[str, str] = {}
        for cid in element.get("class") or ():
            declared = by_id.get(cid)
            painted = [k for k in PAINT_KEYS if declared is not None and declared.get(k) is not None]
            if not painted:
                continue  # an unknown class is reported elsewhere; a meaning-only class is fine
            problem = _unreachable_paint(cid, painted, has, a_kind)
            if problem is not None:
                ctx.err(element["line"], problem)
                continue
            for channel in (k for k in has if k in painted):
                if channel not in channel_owner:
                    channel_owner[channel] = cid
                    continue
                others = "/".join(k + "=" for k in has if k != channel)
                ctx.err(element["line"], f'classes "{channel_owner[channel]}" and "{cid}" both set {channel}= '
                                         "on this element — one channel, one class: move one class's paint to "
                                         f"a different channel ({others}), or carry only one of them")


def _class_carriers(ctx: Context):
    """(class list, line) of everything whose class= is checked against the
    section's class declarations, in reporting order."""
    doc = ctx.doc
    for items in (doc.nodes, doc.groups, doc.edges):
        for item in items:
            yield item.get("class"), item["line"]
    for block in doc.regions:
        for carrier in (*block.get("fields", ()), *block.get("marks", ()), block):
            yield carrier.get("class"), carrier["line"]


def _class_references(ctx: Context) -> None:
    """Every class= member names a declared class."""
    for classes, line in _class_carriers(ctx):
        for cid in classes or ():
            if cid not in ctx.class_ids:
                ctx.err(line, f'unknown class "{cid}"')


def _no_block_check(ctx: Context, block: dict) -> None:
    """Blocks of other genres have no whole-section structure to check."""


def _table_block(ctx: Context, block: dict) -> None:
    if not block["heads"]:
        ctx.err(block["line"], "table has no header row")
    elif not block["_sep"]:
        ctx.err(block["line"], "table has no |---| delimiter row")
    if block["heads"] or block["rows"]:
        _merges(ctx, block)
    _table_marks(ctx, block)


def _bitfield_block(ctx: Context, block: dict) -> None:
    if all(f.get("break") for f in block["fields"]):
        ctx.err(block["line"], "bitfield has no fields")


def _timing_block(ctx: Context, block: dict) -> None:
    if not block["signals"]:
        ctx.err(block["line"], "timing has no signals")
    longest = max((len(s["lane"]) for s in block["signals"]), default=0)
    for gap in block["gaps"]:
        if gap["t"] > longest:
            ctx.err(gap["line"], f'gap cycle {number_text(gap["t"])} is past the end of the timing lane '
                                 f'(length {longest})')


def _chart_block(ctx: Context, block: dict) -> None:
    """A chart names a table of this section whose data cells are numbers."""
    source = next((b for b in ctx.doc.regions if b["genre"] == "table" and b["id"] == block["table"]), None)
    if source is None:
        ctx.err(block["line"], f'chart references unknown table "{block["table"]}"')
        return
    for row in source["rows"]:
        bad = next((cell for cell in row["cells"][1:] if "merge" not in cell and not is_numeric(cell["v"])),
                   None)
        if bad is not None:
            ctx.err(block["line"], f'chart data must be numeric (row value "{bad["v"]}")')


#: A table cell as the merge check sees it: its merge marker ("left", "up" or None) and its line.
_Cell = tuple[str | None, int]
UNATTACHED_MERGE = "merge marker has no rectangle to join — the cells it merges must form a rectangular block"


def _merges(ctx: Context, block: dict) -> None:
    """Every ``^^``/empty-cell span must form a rectangle anchored on a real cell."""
    grid: list[list[_Cell]] = [[(c.get("merge"), block["line"]) for c in row] for row in block["heads"]]
    grid += [[(c.get("merge"), r["line"]) for c in r["cells"]] for r in block["rows"]]
    joined: set[tuple[int, int]] = set()
    problem = _broken_span(grid, joined)
    if problem is None:
        problem = next(((at, UNATTACHED_MERGE) for r, row in enumerate(grid)
                        for c, (merge, at) in enumerate(row) if merge and (r, c) not in joined), None)
    if problem is not None:
        ctx.err(*problem)


def _span_size(grid: list[list[_Cell]], r: int, c: int) -> tuple[int, int]:
    """(rows, columns) an anchor at (r, c) claims: the "up" markers below it, the "left" markers after it."""
    cols = 1
    while c + cols < len(grid[r]) and grid[r][c + cols][0] == "left":
        cols += 1
    rows = 1
    while r + rows < len(grid) and c < len(grid[r + rows]) and grid[r + rows][c][0] == "up":
        rows += 1
    return rows, cols


def _broken_span(grid: list[list[_Cell]], joined: set[tuple[int, int]]) -> tuple[int, str] | None:
    """The first cell (in reading order) that keeps an anchor's span from being a rectangle.

    Along the anchor's row every other cell must say "left", down its column
    "up", and inside the rectangle any merge marker will do.  The markers that do
    belong to a span are added to ``joined``."""
    last = len(grid) - 1
    for r, row in enumerate(grid):
        below = grid[r + 1] if r < last else ()
        width = len(row)
        for c, (merge, _) in enumerate(row):
            if merge:
                continue
            # a cell with no marker after it nor below it spans itself only (most cells)
            if (c + 1 >= width or row[c + 1][0] != "left") and (c >= len(below) or below[c][0] != "up"):
                continue
            rows, cols = _span_size(grid, r, c)
            for rr in range(r, r + rows):
                for cc in range(c, c + cols):
                    if (rr, cc) == (r, c):
                        continue
                    if cc >= len(grid[rr]):
                        return grid[rr][0][1], NOT_RECTANGULAR
                    marker, at = grid[rr][cc]
                    wanted = "left" if rr == r else "up" if cc == c else None
                    if not marker or (wanted is not None and marker != wanted):
                        return at, NOT_RECTANGULAR
                    joined.add((rr, cc))
    return None


def _mark_problem(block: dict, mark: dict) -> str | None:
    """Why a cell mark's address does not name a visible cell, or None."""
    header, r, c = bool(mark["header"]), mark["row"], mark["col"]
    address = f'{"h" if header else ""}{number_text(r)},{number_text(c)}'
    rows = block["heads"] if header else [row["cells"] for row in block["rows"]]
    if not 1 <= r <= len(rows) or not 1 <= c <= block["_cols"]:
        return f"cell {address} out of range"
    cells = rows[r - 1]
    if c > len(cells) or cells[c - 1].get("merge"):
        return f"cell {address} is merged away — annotate the anchor cell"
    return None


def _mark_fills(mark: dict, classes: dict[str, dict]) -> bool:
    """Does the mark paint a fill, itself or through one of its classes?"""
    if mark["fill"] is not None:
        return True
    return any(cid in classes and classes[cid].get("fill") is not None for cid in mark["class"] or ())


def _table_marks(ctx: Context, block: dict) -> None:
    """width, cell and highlight lines address the table's real shape, and a
    cell fill does not fight a row highlight."""
    width = block["width"]
    if width is not None and len(width["widths"]) != block["_cols"]:
        ctx.err(width["line"], f'width has {len(width["widths"])} values, expected {block["_cols"]}')
    for mark in block["marks"]:
        problem = _mark_problem(block, mark)
        if problem:
            ctx.err(mark["line"], problem)
    for hl in block["highlights"]:
        if not 1 <= hl["row"] <= len(block["rows"]):
            ctx.err(hl["line"], f'row {number_text(hl["row"])} out of range')
    if not (block["marks"] and block["highlights"]):
        return
    tinted = {hl["row"] for hl in block["highlights"]}
    classes: dict[str, dict] = {}
    for declared in ctx.doc.classes:
        classes.setdefault(declared["id"], declared)
    for mark in block["marks"]:
        if not mark["header"] and mark["row"] in tinted and _mark_fills(mark, classes):
            ctx.err(mark["line"], M.cell_highlight_conflict(mark["row"], mark["col"]))


#: Whole-block checks by block genre.
BLOCK_CHECKS = {"table": _table_block, "bitfield": _bitfield_block, "timing": _timing_block,
                "chart": _chart_block}

#: The whole-section checks, in the order their diagnostics are reported.
SECTION_CHECKS = (_node_groups, _edge_endpoints, _sequence_rules, _rank_members, _overlay_targets,
                  _bundles, _pins, _class_channels, _class_references, _typed_blocks)
