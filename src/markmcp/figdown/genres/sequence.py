"""The ``sequence`` genre (genres/experimental/sequence.md, figdown 0.4+).

::

    lifeline <id> ["label"] [in=<container>]
    message <a> -> <b> ["label"] [in=<container>]      also <- and <->, never --
    state <lifeline> "<state name>" [in=<container>]
    fragment <id> ["label"] type=<operator> [in=<operand>]
    operand <id> ["guard"] in=<fragment>

Containment rules checked after the section is read (:func:`check`):
``in=`` names a fragment or operand; an operand's ``in=`` names a fragment;
containment is a tree; fragments nest at most one level; every container
has members and its members are contiguous in declaration order; a
lifeline's state is never restated on a path where it cannot have changed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from .. import messages as M
from ..connector import Connector
from ..context import Context
from ..options import Split, id_error, parse_class_list

#: UML's InteractionOperatorKind, in the order the spec lists it.
OPERATORS = ("alt", "opt", "loop", "par", "strict", "seq", "critical", "neg", "assert",
             "ignore", "consider", "break")
UML_CLAUSE = "UML 2.5.1 §17.12.15.3"
#: The lines that may carry in= under sequence, as the in= error names them.
IN_HOLDERS = "message, operand, lifeline, state and fragment"
MESSAGE_ARROWS = ("->", "<-", "<->")


def _classes(sp: Split) -> list[str] | None:
    return parse_class_list(sp.opts.get("class"))[0]


def _decorations(sp: Split) -> dict:
    """The stroke/style/class/prose every sequence element carries."""
    return {"stroke": sp.get("stroke"), "style": sp.get("style"), "class": _classes(sp),
            "note": sp.get("note"), "description": sp.get("description")}


def _container_taken(ctx: Context, ident: str) -> bool:
    return ctx.taken(ident) or ident in ctx.sequence_ids


def _operator_problem(sp: Split) -> str | None:
    kind = sp.get("type")
    if kind is None:
        return ("fragment needs type=<operator> — a fragment with no interaction operator asserts "
                f"nothing ({'|'.join(OPERATORS)}, {UML_CLAUSE}). UML defaults the attribute to seq and "
                "FigDown does not: a default would draw a frame that looks like an assertion and is not one")
    if kind in OPERATORS:
        return None
    return (f'unknown interaction operator "{kind}" — write one of {"|".join(OPERATORS)} '
            f"({UML_CLAUSE} InteractionOperatorKind, taken whole)")


def _operand_parent_problem(sp: Split) -> str | None:
    if "in" in sp.opts:
        return None
    return ("operand needs in=<fragment-id> — an operand is a compartment OF a fragment and has no "
            "meaning apart from one (UML 2.5.1 §17.12.14)")


def _add_lifeline(ctx: Context, sp: Split, n: int) -> None:
    ctx.node_ids.add(sp.pos[1])
    ctx.doc.lifelines.append({"id": sp.pos[1], "label": sp.arg(2), "in": sp.get("in") or None,
                              "fill": sp.get("fill"), **_decorations(sp), "line": n})


def _add_state(ctx: Context, sp: Split, n: int) -> None:
    ctx.doc.states.append({"lifeline": sp.pos[1], "name": sp.pos[2], "in": sp.get("in") or None,
                           "fill": sp.get("fill"), **_decorations(sp), "line": n})


def _add_fragment(ctx: Context, sp: Split, n: int) -> None:
    ctx.sequence_ids.add(sp.pos[1])
    ctx.doc.fragments.append({"id": sp.pos[1], "label": sp.arg(2), "type": sp.get("type"),
                              "in": sp.get("in") or None, **_decorations(sp), "line": n,
                              "_kind": "fragment"})


def _add_operand(ctx: Context, sp: Split, n: int) -> None:
    ctx.sequence_ids.add(sp.pos[1])
    ctx.doc.operands.append({"id": sp.pos[1], "label": sp.arg(2), "in": sp.get("in"),
                             **_decorations(sp), "line": n, "_kind": "operand"})


@dataclass(frozen=True)
class LineForm:
    """How one sequence keyword's line is written and what it records.

    ``<keyword> <slot1> ["slot2"] …``: slot 1 is an id (``declares`` says in
    which id space it must be fresh, or ``None`` when it refers to a lifeline);
    slot 2 is quoted text named ``slot2``; ``missing_slot2`` is the error when
    slot 2 is required and absent; ``then`` are the keyword's own checks."""

    usage: str
    declares: Callable[[Context, str], bool] | None
    slot2: str
    missing_slot2: Callable[[str], str] | None
    then: tuple[Callable[[Split], str | None], ...]
    record: Callable[[Context, Split, int], None]


LINE_FORMS: dict[str, LineForm] = {
    "lifeline": LineForm('lifeline is written: lifeline <id> ["label"]',
                         lambda ctx, ident: ctx.taken(ident), "lifeline label", None, (), _add_lifeline),
    "state": LineForm('state is written: state <lifeline-id> "<state name>"', None, "state name",
                      lambda ref: (f'state has no state name — write it quoted after the lifeline, e.g. '
                                   f'state {ref} "LISTEN"; in a sequence figure the name is the whole '
                                   "content of a state mark"),
                      (), _add_state),
    "fragment": LineForm('fragment is written: fragment <id> ["label"] type=<operator>', _container_taken,
                         "fragment label", None, (_operator_problem,), _add_fragment),
    "operand": LineForm('operand is written: operand <id> ["guard"] in=<fragment-id>', _container_taken,
                        "operand label", None, (_operand_parent_problem,), _add_operand),
}


def _line_problem(ctx: Context, kw: str, form: LineForm, sp: Split) -> str | None:
    first = sp.arg(1)
    problem = id_error(first, sp.argq(1), form.usage)
    if problem:
        return problem
    if form.declares is not None and form.declares(ctx, first):
        return f'duplicate id "{first}"'
    second = sp.arg(2)
    if second is None and form.missing_slot2 is not None:
        return form.missing_slot2(first)
    if second is not None and not sp.argq(2):
        return M.must_quote(form.slot2, f'{kw} {first} "{second}"')
    if len(sp.pos) > 3:
        return f'unexpected argument "{sp.pos[3]}"'
    for check in form.then:
        problem = check(sp)
        if problem:
            return problem
    return None


def directive(ctx: Context, kw: str, n: int, sp: Split) -> None:
    """lifeline / state / fragment / operand under ``sequence``."""
    form = LINE_FORMS[kw]
    problem = _line_problem(ctx, kw, form, sp)
    if problem:
        ctx.err(n, problem)
    else:
        form.record(ctx, sp, n)


def _message_problem(sp: Split, c: Connector) -> str | None:
    if c.op not in MESSAGE_ARROWS:
        return M.MESSAGE_NEEDS_DIRECTION
    if "in" in sp.opts:
        problem = id_error(sp.get("in"), sp.opts["in"].has_quote, None)
        if problem:
            return problem
    if "description" in sp.opts and not sp.opts["description"].quoted:
        return M.must_quote("description=", f'description="{sp.get("description")}"')
    return None


def message(ctx: Context, n: int, sp: Split, c: Connector, eid: str | None,
            classes: list[str] | None, trailing_label: str | None) -> None:
    """The sequence-only half of a ``message`` line (the scan is shared with edges)."""
    problem = _message_problem(sp, c)
    if problem:
        return ctx.err(n, problem)
    if eid is not None:
        ctx.edge_ids.add(eid)
    ctx.doc.messages.append({
        "id": eid, "a": c.a, "op": c.op, "b": c.b,
        "label": c.mid if trailing_label is None else trailing_label,
        "tail": c.tail, "head": c.head, "in": sp.get("in") or None, "stroke": sp.get("stroke"),
        "style": sp.get("style"), "class": classes, "note": sp.get("note"),
        "description": sp.get("description"), "line": n})
    return None


# --- the containment post-pass ---------------------------------------------------


def _in_error(val: str, what: str, lifeline: bool) -> str:
    told = (f', and "{val}" is a LIFELINE. A message already names its lifelines through its two '
            "endpoints; a state names its lifeline in slot 1. in= is containment, not participation"
            if lifeline else "")
    return (f'unknown fragment or operand "{val}" — in= on a {what} names the fragment or operand this '
            f"{what} occurs inside{told}. Under sequence in= is accepted on {IN_HOLDERS} — five "
            "acceptors, all sense 1 (UML 2.5.1 §17.12.13: a StateInvariant and a CombinedFragment are "
            "both InteractionFragments, so an InteractionOperand contains them both) — and its value is "
            "always a fragment or an operand id (draft §33.7)")


@dataclass
class _Declared:
    """The ids a sequence section declared, by what they are."""

    lifelines: set[str]
    fragments: set[str]
    operands: set[str]
    containers: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.containers = self.fragments | self.operands


def _container_ref_problem(declared: _Declared, el: dict, what: str) -> str | None:
    """in= on a lifeline, message, state or fragment names a fragment or operand."""
    target = el.get("in")
    if target and target not in declared.containers:
        return _in_error(target, what, target in declared.lifelines)
    return None


def _operand_parent_ref_problem(declared: _Declared, target: str) -> str | None:
    """An operand's in= names a fragment — not an operand, not a lifeline."""
    if target in declared.fragments:
        return None
    if target in declared.operands:
        why = (", not another operand: an operand is a compartment of a fragment, and a "
               "compartment has no compartments of its own (UML 2.5.1 §17.12.3: a "
               "CombinedFragment owns its operands)")
    elif target in declared.lifelines:
        why = (", not a lifeline: an operand is a compartment of a fragment, and a fragment "
               "spans lifelines rather than belonging to one")
    else:
        why = ""
    return f'unknown fragment "{target}" — operand in= names a FRAGMENT{why}'


def _reference_problems(ctx: Context, declared: _Declared):
    """(line, message) for every unresolved id, in reporting order."""
    doc = ctx.doc
    for lifeline in doc.lifelines:
        yield lifeline["line"], _container_ref_problem(declared, lifeline, "lifeline")
    for msg in doc.messages:
        for end in (msg["a"], msg["b"]):
            if end not in declared.lifelines:
                yield msg["line"], f'unknown lifeline "{end}"'
        yield msg["line"], _container_ref_problem(declared, msg, "message")
    for state in doc.states:
        if state["lifeline"] not in declared.lifelines:
            yield state["line"], (f'unknown lifeline "{state["lifeline"]}" — the first word after state must '
                                  "be the id of a declared lifeline; a state mark never introduces an id of "
                                  "its own")
        yield state["line"], _container_ref_problem(declared, state, "state")
    for fragment in doc.fragments:
        yield fragment["line"], _container_ref_problem(declared, fragment, "fragment")
    for operand in doc.operands:
        yield operand["line"], _operand_parent_ref_problem(declared, operand["in"])


def check(ctx: Context) -> None:
    """The sequence post-pass: references, restated states, then containment."""
    doc = ctx.doc
    declared = _Declared({x["id"] for x in doc.lifelines}, {x["id"] for x in doc.fragments},
                         {x["id"] for x in doc.operands})
    for line, problem in _reference_problems(ctx, declared):
        if problem:
            ctx.err(line, problem)
    _check_restatement(ctx)
    _check_containment(ctx)


#: How many enclosing scopes the restatement check looks through.  Legal
#: containment is at most four deep (operand, fragment, operand, fragment);
#: deeper chains are already refused by the one-level nesting rule, and the cap
#: keeps the check linear on adversarial input.
MAX_SCOPE_WALK = 64
#: The scope of a state written with no in=: the whole interaction.
TOP_SCOPE = ""


def _enclosing_scopes(parent_of: dict[str, str], start: str | None) -> list[str]:
    """``start`` and the containers around it, innermost first, ending with
    the top scope (at most :data:`MAX_SCOPE_WALK` containers; a loop stops it)."""
    scopes: list[str] = []
    here = start or TOP_SCOPE
    while here != TOP_SCOPE and here not in scopes and len(scopes) < MAX_SCOPE_WALK:
        scopes.append(here)
        here = parent_of.get(here) or TOP_SCOPE
    return scopes + [TOP_SCOPE]


def _check_restatement(ctx: Context) -> None:
    """A state may not repeat the state its lifeline is already visibly in.

    Each lifeline keeps, per scope, the state last written there.  The state
    "already in force" for a new mark is the latest of those records among
    the scopes that enclose the mark — a sibling operand's record is not
    visible, because operands are alternatives."""
    doc = ctx.doc
    parent_of = {o["id"]: o["in"] or TOP_SCOPE for o in doc.operands}
    parent_of.update((f["id"], f["in"] or TOP_SCOPE) for f in doc.fragments)
    tail = (". Occurrences in DIFFERENT operands of one fragment are exclusive and do not restate each "
            "other; this pair is not that") if doc.operands else ""
    written: dict[str, dict[str, tuple[str, int]]] = {}  # lifeline -> scope -> (state, line)
    for state in sorted(doc.states, key=lambda s: s["line"]):
        scopes = _enclosing_scopes(parent_of, state["in"])
        by_scope = written.setdefault(state["lifeline"], {})
        visible = [by_scope[scope] for scope in scopes if scope in by_scope]
        in_force = max(visible, key=lambda record: record[1], default=None)
        if in_force is not None and in_force[0] == state["name"]:
            ctx.err(state["line"], f'lifeline "{state["lifeline"]}" is already in state "{state["name"]}" — '
                                   "a state that has not changed is never restated, and a transition is "
                                   "derived from the adjacent pair, so a restatement would assert a "
                                   f"transition that did not happen (draft §23.2){tail}")
        by_scope[scopes[0]] = (state["name"], state["line"])


def _cycle_members(cont: dict[str, dict]) -> list[str]:
    """Containers that lie on an in= cycle (each has at most one parent)."""
    state: dict[str, int] = {}  # 1 = on the current walk, 2 = finished
    on_cycle: set[str] = set()
    for start in cont:
        if start in state:
            continue
        path, cur = [], start
        while cur in cont and cur not in state:
            state[cur] = 1
            path.append(cur)
            cur = cont[cur]["in"]
        if cur in cont and state.get(cur) == 1:
            on_cycle.update(path[path.index(cur):])
        for ident in path:
            state[ident] = 2
    return [ident for ident in cont if ident in on_cycle]


@dataclass
class _Nesting:
    """The container forest (no loops by now), measured.

    ``depth``: 1 for a top-level container.  ``fragment_chain``: how many
    fragments enclose-or-are the container, the nearest and the outermost.
    ``span``: the container's first and last number in a preorder walk, so a
    container lies inside X exactly when its number falls in X's span."""

    depth: dict[str, int]
    fragment_chain: dict[str, tuple[int, str | None, str | None]]
    preorder: list[str]
    span: dict[str, tuple[int, int]]


NO_FRAGMENTS: tuple[int, str | None, str | None] = (0, None, None)


def _measure_nesting(cont: dict[str, dict]) -> _Nesting:
    depth: dict[str, int] = {}
    chain: dict[str, tuple[int, str | None, str | None]] = {}
    for ident in cont:
        pending, here = [], ident
        while here in cont and here not in depth:
            pending.append(here)
            here = cont[here]["in"]
        level, around = (depth[here], chain[here]) if here in cont else (0, NO_FRAGMENTS)
        for inner in reversed(pending):
            level += 1
            if cont[inner]["_kind"] == "fragment":
                around = (around[0] + 1, inner, around[2] or inner)
            depth[inner], chain[inner] = level, around
    children: dict[str, list[str]] = {ident: [] for ident in cont}
    for ident, el in cont.items():
        if el["in"] in cont:
            children[el["in"]].append(ident)
    preorder: list[str] = []
    todo = [ident for ident in reversed(list(cont)) if cont[ident]["in"] not in cont]
    while todo:
        ident = todo.pop()
        preorder.append(ident)
        todo.extend(reversed(children[ident]))
    size = {ident: 1 for ident in cont}
    for ident in reversed(preorder):
        if cont[ident]["in"] in cont:
            size[cont[ident]["in"]] += size[ident]
    span = {ident: (at, at + size[ident] - 1) for at, ident in enumerate(preorder)}
    return _Nesting(depth, chain, preorder, span)


#: Rows per summary block of :class:`_RowKeys`.
ROW_BLOCK = 64


class _RowKeys:
    """Each row's container number (-1: none), with per-block minimum and
    maximum so a run of rows that all lie inside a span is skipped whole."""

    def __init__(self, keys: list[int]) -> None:
        self.keys = keys
        blocks = [keys[i:i + ROW_BLOCK] for i in range(0, len(keys), ROW_BLOCK)]
        self.low = [min(block) for block in blocks]
        self.high = [max(block) for block in blocks]

    def first_outside(self, lo: int, hi: int, span: tuple[int, int]) -> int | None:
        """The first row in ``lo..hi`` whose number is not inside ``span``."""
        first, last = span
        slot = lo
        while slot <= hi:
            block = slot // ROW_BLOCK
            if (slot % ROW_BLOCK == 0 and slot + ROW_BLOCK - 1 <= hi
                    and self.low[block] >= first and self.high[block] <= last):
                slot += ROW_BLOCK
                continue
            if not first <= self.keys[slot] <= last:
                return slot
            slot += 1
        return None


def _nesting_problem(fragment: dict, count: int, near: str | None, far: str | None) -> str:
    return (f'fragment "{fragment["id"]}" nests {count} levels deep (inside '
            f'"{near}", inside "{far}") — fragment nesting is capped at '
            "ONE level in v1: a fragment may sit in an operand of one enclosing fragment "
            "and no deeper. This is the v0.1 `group` precedent, where one level is the "
            "whole of the language's containment, and it is a scope decision rather than "
            "a principle — a second level lands on measured need (draft §33.7). Write "
            "the inner interaction as a sibling fragment, or state it in description=")


def _extents(cont: dict[str, dict], nesting: _Nesting, rows: list[dict]) -> dict[str, tuple[int, int, int]]:
    """Container -> (first row, last row, how many rows) over its whole subtree;
    containers with no rows are left out."""
    extent: dict[str, tuple[int, int, int]] = {}
    for slot, row in enumerate(rows):
        ident = row.get("in")
        if ident in cont:
            lo, _, count = extent.get(ident, (slot, slot, 0))
            extent[ident] = (lo, slot, count + 1)
    for ident in reversed(nesting.preorder):  # children before their parent
        parent = cont[ident]["in"]
        if parent in cont and ident in extent:
            lo, hi, count = extent[ident]
            if parent in extent:
                plo, phi, pcount = extent[parent]
                lo, hi, count = min(lo, plo), max(hi, phi), count + pcount
            extent[parent] = (lo, hi, count)
    return extent


def _check_containment(ctx: Context) -> None:
    """Containers nest without loops, fragments at most one level; every
    container has rows, and its rows form one unbroken run."""
    doc = ctx.doc
    rows = sorted(doc.messages + doc.states, key=lambda r: r["line"])
    message_rows = {id(m) for m in doc.messages}
    cont: dict[str, dict] = {f["id"]: f for f in doc.fragments}
    cont.update((o["id"], o) for o in doc.operands)
    looped = _cycle_members(cont)
    for ident in looped:
        ctx.err(cont[ident]["line"], f'{cont[ident]["_kind"]} "{ident}" ends up containing itself through in= '
                                     "— containers must nest without loops")
    if looped:
        return
    nesting = _measure_nesting(cont)
    for fragment in doc.fragments:
        count, near, far = nesting.fragment_chain.get(fragment["in"], NO_FRAGMENTS)
        if count > 1:
            ctx.err(fragment["line"], _nesting_problem(fragment, count, near, far))
    extent = _extents(cont, nesting, rows)
    row_keys = _RowKeys([nesting.span[r["in"]][0] if r.get("in") in cont else -1 for r in rows])
    splitter: dict[int, str] = {}  # row slot -> the deepest container it splits
    for ident, el in cont.items():
        if ident not in extent:
            kind = el["_kind"]
            article = "an" if kind == "operand" else "a"
            ctx.err(el["line"], f'{kind} "{ident}" has no members — {article} {kind}\'s extent is the span '
                                f"of the lines carrying in={ident}, and a container with no extent asserts "
                                "nothing")
            continue
        lo, hi, count = extent[ident]
        if hi - lo + 1 == count:
            continue
        slot = row_keys.first_outside(lo, hi, nesting.span[ident])
        if slot is None:  # pragma: no cover - a short count always leaves a gap
            continue
        if slot not in splitter or nesting.depth[ident] > nesting.depth[splitter[slot]]:
            splitter[slot] = ident
    for slot in sorted(splitter):
        ident, row = splitter[slot], rows[slot]
        lo, hi, _ = extent[ident]
        what = "message" if id(row) in message_rows else "state"
        ctx.err(row["line"], f'this {what} line splits {cont[ident]["_kind"]} "{ident}" (lines '
                             f'{rows[lo]["line"]}–{rows[hi]["line"]}) — members must be '
                             "CONTIGUOUS in declaration order. An operand denotes the ordered run of the "
                             "occurrences it contains, so an occurrence that is not in it cannot happen "
                             "between two that are (UML 2.5.1 §17.6; draft §28.1). Write "
                             f"in={ident} on it, or move it outside the run")
