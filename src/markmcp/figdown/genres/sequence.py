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

from .. import messages as M
from ..connector import Connector
from ..context import Context
from ..options import Split, id_error, parse_class_list

OPERATORS = ("alt", "opt", "loop", "par", "strict", "seq", "critical", "neg", "assert",
             "ignore", "consider", "break")
UML_CLAUSE = "UML 2.5.1 §17.12.15.3"
IN_ACCEPTORS = "message, operand, lifeline, state and fragment"


def _classes(sp: Split) -> list[str] | None:
    return parse_class_list(sp.opts.get("class"))[0]


def _container_taken(ctx: Context, ident: str) -> bool:
    return ctx.taken(ident) or ident in ctx.sequence_ids


def directive(ctx: Context, kw: str, n: int, sp: Split) -> None:
    """lifeline / state / fragment / operand under ``sequence``."""
    if kw == "lifeline":
        ident = sp.arg(1)
        e = id_error(ident, sp.argq(1), 'lifeline needs <id> ["label"]')
        if e:
            return ctx.err(n, e)
        if ctx.taken(ident):
            return ctx.err(n, f'duplicate id "{ident}"')
        if sp.arg(2) is not None and not sp.argq(2):
            return ctx.err(n, M.must_quote("lifeline label", f'lifeline {ident} "{sp.pos[2]}"'))
        if len(sp.pos) > 3:
            return ctx.err(n, f'unexpected argument "{sp.pos[3]}"')
        ctx.node_ids.add(ident)
        ctx.doc.lifelines.append({
            "id": ident, "label": sp.arg(2), "in": sp.get("in") or None, "fill": sp.get("fill"),
            "stroke": sp.get("stroke"), "style": sp.get("style"), "class": _classes(sp),
            "note": sp.get("note"), "description": sp.get("description"), "line": n})
        return None
    if kw == "state":
        ref = sp.arg(1)
        e = id_error(ref, sp.argq(1), 'state needs <lifeline-id> "<state name>"')
        if e:
            return ctx.err(n, e)
        if sp.arg(2) is None:
            return ctx.err(n, f'state needs a quoted state name: state {ref} "LISTEN" — under sequence a '
                              "state occurrence names the lifeline it is ON and the state it is IN, and a "
                              "state with no name asserts nothing")
        if not sp.argq(2):
            return ctx.err(n, M.must_quote("state name", f'state {ref} "{sp.pos[2]}"'))
        if len(sp.pos) > 3:
            return ctx.err(n, f'unexpected argument "{sp.pos[3]}"')
        ctx.doc.states.append({
            "lifeline": ref, "name": sp.pos[2], "in": sp.get("in") or None, "fill": sp.get("fill"),
            "stroke": sp.get("stroke"), "style": sp.get("style"), "class": _classes(sp),
            "note": sp.get("note"), "description": sp.get("description"), "line": n})
        return None
    if kw == "fragment":
        ident = sp.arg(1)
        e = id_error(ident, sp.argq(1), 'fragment needs <id> ["label"] type=<operator>')
        if e:
            return ctx.err(n, e)
        if _container_taken(ctx, ident):
            return ctx.err(n, f'duplicate id "{ident}"')
        if sp.arg(2) is not None and not sp.argq(2):
            return ctx.err(n, M.must_quote("fragment label", f'fragment {ident} "{sp.pos[2]}"'))
        if len(sp.pos) > 3:
            return ctx.err(n, f'unexpected argument "{sp.pos[3]}"')
        kind = sp.get("type")
        if kind is None:
            return ctx.err(n, "fragment needs type=<operator> — a fragment with no interaction operator "
                              f"asserts nothing ({'|'.join(OPERATORS)}, {UML_CLAUSE}). UML defaults the "
                              "attribute to seq and FigDown does not: a default would draw a frame that "
                              "looks like an assertion and is not one")
        if kind not in OPERATORS:
            return ctx.err(n, f'unknown interaction operator "{kind}" — write one of {"|".join(OPERATORS)} '
                              f"({UML_CLAUSE} InteractionOperatorKind, taken whole)")
        ctx.sequence_ids.add(ident)
        ctx.doc.fragments.append({
            "id": ident, "label": sp.arg(2), "type": kind, "in": sp.get("in") or None,
            "stroke": sp.get("stroke"), "style": sp.get("style"), "class": _classes(sp),
            "note": sp.get("note"), "description": sp.get("description"), "line": n,
            "_kind": "fragment"})
        return None
    # operand
    ident = sp.arg(1)
    e = id_error(ident, sp.argq(1), 'operand needs <id> ["guard"] in=<fragment-id>')
    if e:
        return ctx.err(n, e)
    if _container_taken(ctx, ident):
        return ctx.err(n, f'duplicate id "{ident}"')
    if sp.arg(2) is not None and not sp.argq(2):
        return ctx.err(n, M.must_quote("operand label", f'operand {ident} "{sp.pos[2]}"'))
    if len(sp.pos) > 3:
        return ctx.err(n, f'unexpected argument "{sp.pos[3]}"')
    if "in" not in sp.opts:
        return ctx.err(n, "operand needs in=<fragment-id> — an operand is a compartment OF a fragment "
                          "and has no meaning apart from one (UML 2.5.1 §17.12.14)")
    ctx.sequence_ids.add(ident)
    ctx.doc.operands.append({
        "id": ident, "label": sp.arg(2), "in": sp.get("in"), "stroke": sp.get("stroke"),
        "style": sp.get("style"), "class": _classes(sp), "note": sp.get("note"),
        "description": sp.get("description"), "line": n, "_kind": "operand"})
    return None


def message(ctx: Context, n: int, sp: Split, c: Connector, eid: str | None,
            classes: list[str] | None, trailing_label: str | None) -> None:
    """The sequence-only half of a ``message`` line (the scan is shared with edges)."""
    if c.op not in ("->", "<-", "<->"):
        return ctx.err(n, M.SEQ_NO_DIRECTION)
    if "in" in sp.opts:
        e = id_error(sp.get("in"), sp.opts["in"].has_quote, None)
        if e:
            return ctx.err(n, e)
    if "description" in sp.opts and not sp.opts["description"].quoted:
        return ctx.err(n, M.must_quote("description=", f'description="{sp.get("description")}"'))
    if eid is not None:
        ctx.edge_ids.add(eid)
    ctx.doc.messages.append({
        "id": eid, "a": c.a, "op": c.op, "b": c.b,
        "label": trailing_label if trailing_label is not None else c.mid,
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
            f"{what} occurs inside{told}. Under sequence in= is accepted on {IN_ACCEPTORS} — five "
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
            ctx.err(s["line"], f'unknown lifeline "{s["lifeline"]}" — state slot 1 REFERENCES a lifeline '
                               "(it does not declare one: nothing in this genre refers to a state "
                               "occurrence, so it takes no id of its own)")
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


def _check_restatement(ctx: Context) -> None:
    doc = ctx.doc
    owner: dict[str, str] = {}
    for o in doc.operands:
        owner[o["id"]] = o["in"] or ""
    for f in doc.fragments:
        owner[f["id"]] = f["in"] or ""

    def scope_chain(ident: str | None) -> list[str]:
        out, seen, cur = [], set(), ident or ""
        while cur and cur not in seen:
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


def _check_containment(ctx: Context) -> None:
    doc = ctx.doc
    rows = sorted(doc.messages + doc.states, key=lambda r: r["line"])
    kinds = {id(m): "message" for m in doc.messages}
    cont: dict[str, dict] = {}
    for f in doc.fragments:
        cont[f["id"]] = f
    for o in doc.operands:
        cont[o["id"]] = o

    def chain(ident: str | None) -> list[str]:
        out, seen, cur = [], set(), ident
        while cur and cur in cont and cur not in seen:
            seen.add(cur)
            out.append(cur)
            cur = cont[cur]["in"]
        return out

    cycles = []
    for ident, el in cont.items():
        seen, cur = set(), el["in"]
        while cur and cur in cont and cur not in seen:
            if cur == ident:
                cycles.append(ident)
                break
            seen.add(cur)
            cur = cont[cur]["in"]
    owned: dict[str, list[int]] = {ident: [] for ident in cont}
    for slot, row in enumerate(rows):
        for ident in chain(row.get("in")):
            owned[ident].append(slot)
    for ident in cycles:
        el = cont[ident]
        ctx.err(el["line"], f'{el["_kind"]} "{ident}" is inside itself — in= containment is a tree, and a '
                            "cycle denotes nothing at all")
    if cycles:
        return
    for f in doc.fragments:
        ancestors = [i for i in chain(f["in"]) if cont[i]["_kind"] == "fragment"]
        if len(ancestors) > 1:
            ctx.err(f["line"], f'fragment "{f["id"]}" nests {len(ancestors)} levels deep (inside '
                               f'"{ancestors[0]}", inside "{ancestors[-1]}") — fragment nesting is capped at '
                               "ONE level in v1: a fragment may sit in an operand of one enclosing fragment "
                               "and no deeper. This is the v0.1 `group` precedent, where one level is the "
                               "whole of the language's containment, and it is a scope decision rather than "
                               "a principle — a second level lands on measured need (draft §33.7). Write "
                               "the inner interaction as a sibling fragment, or state it in description=")
    split: dict[int, str] = {}
    for ident, el in cont.items():
        slots = owned[ident]
        kind = el["_kind"]
        if not slots:
            article = "an" if kind == "operand" else "a"
            ctx.err(el["line"], f'{kind} "{ident}" has no members — {article} {kind}\'s extent is the span '
                                f"of the lines carrying in={ident}, and a container with no extent asserts "
                                "nothing")
            continue
        lo = slots[0]
        gap = next((lo + i for i, s in enumerate(slots) if s != lo + i), None)
        if gap is None:
            continue
        prev = split.get(gap)
        if prev is None or len(chain(ident)) > len(chain(prev)):
            split[gap] = ident
    for slot in sorted(split):
        ident = split[slot]
        row, slots = rows[slot], owned[ident]
        what = kinds.get(id(row), "state")
        ctx.err(row["line"], f'this {what} line splits {cont[ident]["_kind"]} "{ident}" (lines '
                             f'{rows[slots[0]]["line"]}–{rows[slots[-1]]["line"]}) — members must be '
                             "CONTIGUOUS in declaration order. An operand denotes the ordered run of the "
                             "occurrences it contains, so an occurrence that is not in it cannot happen "
                             "between two that are (UML 2.5.1 §17.6; draft §28.1). Write "
                             f"in={ident} on it, or move it outside the run")
