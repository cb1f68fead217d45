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

from dataclasses import dataclass
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


def check(ctx: Context) -> None:
    doc = ctx.doc
    lifelines = {x["id"] for x in doc.lifelines}
    fragments = {x["id"] for x in doc.fragments}
    operands = {x["id"] for x in doc.operands}
    containers = fragments | operands

    def in_check(el: dict, what: str) -> None:
        val = el.get("in")
        if val and val not in containers:
            ctx.err(el["line"], _in_error(val, what, val in lifelines))

    for x in doc.lifelines:
        in_check(x, "lifeline")
    for m in doc.messages:
        for end in (m["a"], m["b"]):
            if end not in lifelines:
                ctx.err(m["line"], f'unknown lifeline "{end}"')
        in_check(m, "message")
    for s in doc.states:
        if s["lifeline"] not in lifelines:
            ctx.err(s["line"], f'unknown lifeline "{s["lifeline"]}" — the first word after state must be the '
                               "id of a declared lifeline; a state mark never introduces an id of its own")
        in_check(s, "state")
    for f in doc.fragments:
        in_check(f, "fragment")
    for o in doc.operands:
        if o["in"] not in fragments:
            if o["in"] in operands:
                why = (", not another operand: an operand is a compartment of a fragment, and a "
                       "compartment has no compartments of its own (UML 2.5.1 §17.12.3: a "
                       "CombinedFragment owns its operands)")
            elif o["in"] in lifelines:
                why = (", not a lifeline: an operand is a compartment of a fragment, and a fragment "
                       "spans lifelines rather than belonging to one")
            else:
                why = ""
            ctx.err(o["line"], f'unknown fragment "{o["in"]}" — operand in= names a FRAGMENT{why}')
    _check_restatement(ctx)
    _check_containment(ctx)


#: How many enclosing scopes the restatement check looks through.  Legal
#: containment is at most four deep (operand, fragment, operand, fragment);
#: deeper chains are already refused by the one-level nesting rule, and the cap
#: keeps the check linear on adversarial input.
MAX_SCOPE_WALK = 64


def _check_restatement(ctx: Context) -> None:
    doc = ctx.doc
    owner: dict[str, str] = {}
    for o in doc.operands:
        owner[o["id"]] = o["in"] or ""
    for f in doc.fragments:
        owner[f["id"]] = f["in"] or ""

    def scope_chain(ident: str | None) -> list[str]:
        out, seen, cur = [], set(), ident or ""
        while cur and cur not in seen and len(out) < MAX_SCOPE_WALK:
            seen.add(cur)
            out.append(cur)
            cur = owner.get(cur) or ""
        out.append("")
        return out

    last: dict[str, dict[str, tuple[str, int]]] = {}
    tail = (". Occurrences in DIFFERENT operands of one fragment are exclusive and do not restate each "
            "other; this pair is not that") if doc.operands else ""
    for st in sorted(doc.states, key=lambda s: s["line"]):
        chain = scope_chain(st["in"])
        seen = last.setdefault(st["lifeline"], {})
        prev = None
        for scope in chain:
            rec = seen.get(scope)
            if rec and (prev is None or rec[1] > prev[1]):
                prev = rec
        if prev and prev[0] == st["name"]:
            ctx.err(st["line"], f'lifeline "{st["lifeline"]}" is already in state "{st["name"]}" — a state '
                                "that has not changed is never restated, and a transition is derived from "
                                "the adjacent pair, so a restatement would assert a transition that did not "
                                f"happen (draft §23.2){tail}")
        seen[chain[0]] = (st["name"], st["line"])


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


class _Ancestry:
    """Per container (containment is a forest here): depth, fragments on the
    chain to the root (nearest and outermost), and an Euler-tour interval."""

    def __init__(self, cont: dict[str, dict]) -> None:
        self.depth: dict[str, int] = {}
        self.fragments: dict[str, tuple[int, str | None, str | None]] = {}
        children: dict[str, list[str]] = {ident: [] for ident in cont}
        roots = []
        for ident, el in cont.items():
            parent = el["in"]
            if parent in cont:
                children[parent].append(ident)
            else:
                roots.append(ident)
        self.tin: dict[str, int] = {}
        self.tout: dict[str, int] = {}
        clock = 0
        for root in roots:
            stack = [(root, False)]
            while stack:
                ident, done = stack.pop()
                if done:
                    self.tout[ident] = clock - 1
                    continue
                el, parent = cont[ident], cont[ident]["in"]
                is_fragment = el["_kind"] == "fragment"
                if parent in cont:
                    self.depth[ident] = self.depth[parent] + 1
                    count, near, far = self.fragments[parent]
                else:
                    self.depth[ident] = 1
                    count, near, far = 0, None, None
                if is_fragment:
                    count, near, far = count + 1, ident, far or ident
                self.fragments[ident] = (count, near, far)
                self.tin[ident] = clock
                clock += 1
                stack.append((ident, True))
                stack.extend((child, False) for child in reversed(children[ident]))


class _FirstOutside:
    """Segment tree over row slots holding each row's container tin (-1: none);
    answers "first slot in [lo, hi] whose key lies outside [a, b]"."""

    def __init__(self, keys: list[int]) -> None:
        size = 1
        while size < max(1, len(keys)):
            size *= 2
        self.size = size
        self.lo = [10**18] * (2 * size)
        self.hi = [-(10**18)] * (2 * size)
        for i, k in enumerate(keys):
            self.lo[size + i] = self.hi[size + i] = k
        for i in range(size - 1, 0, -1):
            self.lo[i] = min(self.lo[2 * i], self.lo[2 * i + 1])
            self.hi[i] = max(self.hi[2 * i], self.hi[2 * i + 1])

    def first(self, lo: int, hi: int, a: int, b: int) -> int | None:
        stack = [(1, 0, self.size - 1)]
        while stack:
            node, left, right = stack.pop()
            if right < lo or left > hi or (self.lo[node] >= a and self.hi[node] <= b):
                continue
            if left == right:
                return left
            mid = (left + right) // 2
            stack.append((2 * node + 1, mid + 1, right))
            stack.append((2 * node, left, mid))
        return None


def _check_containment(ctx: Context) -> None:
    doc = ctx.doc
    rows = sorted(doc.messages + doc.states, key=lambda r: r["line"])
    kinds = {id(m): "message" for m in doc.messages}
    cont: dict[str, dict] = {}
    for f in doc.fragments:
        cont[f["id"]] = f
    for o in doc.operands:
        cont[o["id"]] = o
    cycles = _cycle_members(cont)
    for ident in cycles:
        el = cont[ident]
        ctx.err(el["line"], f'{el["_kind"]} "{ident}" ends up containing itself through in= — containers '
                            "must nest without loops")
    if cycles:
        return
    tree = _Ancestry(cont)
    for f in doc.fragments:
        parent = f["in"]
        count, near, far = tree.fragments[parent] if parent in cont else (0, None, None)
        if count > 1:
            ctx.err(f["line"], f'fragment "{f["id"]}" nests {count} levels deep (inside '
                               f'"{near}", inside "{far}") — fragment nesting is capped at '
                               "ONE level in v1: a fragment may sit in an operand of one enclosing fragment "
                               "and no deeper. This is the v0.1 `group` precedent, where one level is the "
                               "whole of the language's containment, and it is a scope decision rather than "
                               "a principle — a second level lands on measured need (draft §33.7). Write "
                               "the inner interaction as a sibling fragment, or state it in description=")
    # the extent of each container: first/last/count of the rows inside it (its subtree)
    keys = [tree.tin[r["in"]] if r.get("in") in cont else -1 for r in rows]
    first: dict[str, int] = {}
    last: dict[str, int] = {}
    count: dict[str, int] = {ident: 0 for ident in cont}
    for slot, row in enumerate(rows):
        ident = row.get("in")
        if ident in cont:
            first.setdefault(ident, slot)
            last[ident] = slot
            count[ident] += 1
    for ident in sorted(cont, key=lambda i: -tree.depth[i]):
        parent = cont[ident]["in"]
        if parent in cont and count[ident]:
            count[parent] += count[ident]
            first[parent] = min(first.get(parent, first[ident]), first[ident])
            last[parent] = max(last.get(parent, last[ident]), last[ident])
    finder = _FirstOutside(keys)
    split: dict[int, str] = {}
    for ident, el in cont.items():
        kind = el["_kind"]
        if not count[ident]:
            article = "an" if kind == "operand" else "a"
            ctx.err(el["line"], f'{kind} "{ident}" has no members — {article} {kind}\'s extent is the span '
                                f"of the lines carrying in={ident}, and a container with no extent asserts "
                                "nothing")
            continue
        lo, hi = first[ident], last[ident]
        if hi - lo + 1 == count[ident]:
            continue
        gap = finder.first(lo, hi, tree.tin[ident], tree.tout[ident])
        if gap is None:  # pragma: no cover - a short count always leaves a gap
            continue
        prev = split.get(gap)
        if prev is None or tree.depth[ident] > tree.depth[prev]:
            split[gap] = ident
    for slot in sorted(split):
        ident = split[slot]
        row = rows[slot]
        what = kinds.get(id(row), "state")
        ctx.err(row["line"], f'this {what} line splits {cont[ident]["_kind"]} "{ident}" (lines '
                             f'{rows[first[ident]]["line"]}–{rows[last[ident]]["line"]}) — members must be '
                             "CONTIGUOUS in declaration order. An operand denotes the ordered run of the "
                             "occurrences it contains, so an occurrence that is not in it cannot happen "
                             "between two that are (UML 2.5.1 §17.6; draft §28.1). Write "
                             f"in={ident} on it, or move it outside the run")
