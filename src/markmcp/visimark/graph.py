"""Name resolution and the dependency graph.

A bare name resolves in its own sheet (alias, column, scalar), then in document scope;
``sheet.name`` reaches another sheet.  ``analyse`` collects a binding's dependencies and
the static problems (unknown names and functions, wrong arity, a column where a value is
needed) that stop it evaluating; ``order`` sorts the bindings dependencies first, in
document order, and sets each cycle aside with the longest path through it.
"""

from __future__ import annotations

from . import syntax
from .builtins import REGISTRY
from .findings import Finding
from .locate import plain_text
from .model import IDENT_RE, Node, Sheet
from .results import IMPORT_FAILED, Resolved
from .suggest import closest


MAX_FN_SUGGESTION = 2


class NameGraph:
    """Phase 1: what each name means, what each binding depends on, and the order
    (dependencies first) with the cycles set aside."""

    def sheet_of(self, node: Node) -> Sheet | None:
        return self.m.sheets.get(node.sheet) if node.sheet else None

    def resolve(self, sheet_id: str, ref: syntax.Ref, own: frozenset[str] = frozenset()) -> Resolved:
        """What ``ref`` names, read from sheet ``sheet_id``; for an unknown name, the closest
        known one, never one of ``own`` (the names of the binding being read: accepting
        that would make a rule refer to itself)."""
        m = self.m
        if ref.qualifier is not None:
            sheet = m.sheets.get(ref.qualifier)
            if sheet is None:
                return Resolved("unknown", suggestion=None)
            names = self._sheet_names(sheet)
            if ref.qualifier == sheet_id:
                names -= own
            return self._in_sheet(sheet, ref.name) or Resolved(
                "unknown", suggestion=closest(ref.name, names))
        if sheet_id:
            sheet = m.sheets[sheet_id]
            found = self._in_sheet(sheet, ref.name)
            if found:
                return found
        if ref.name in m.doc:
            return Resolved("scalar", node=m.doc[ref.name])
        candidates = set(m.doc)
        if sheet_id:
            candidates |= self._sheet_names(m.sheets[sheet_id])
        return Resolved("unknown", suggestion=closest(ref.name, candidates - own))

    def own_names(self, node: Node) -> frozenset[str]:
        """Every name that denotes ``node`` itself in its own scope: its name and, for a
        column rule, the aliases of its column."""
        if node.kind == "assert":
            return frozenset()
        names = {node.name}
        sheet = self.sheet_of(node)
        if sheet is not None and node.kind == "column":
            names |= {a for a, (header, _) in sheet.aliases.items() if header == node.column}
        return frozenset(names)

    def row_label_hint(self, sheet_id: str, ref: syntax.Ref) -> str | None:
        """For an unknown name that is the label of a row of the table it is read against,
        the reason it cannot be read: rows have no names, only columns do."""
        sheet = self.m.sheets.get(ref.qualifier or sheet_id)
        table = sheet.table if sheet is not None else None
        if table is None or sheet.imported:
            return None
        if any(plain_text(table.text(r, 0)) == ref.name for r in range(table.height)):
            return (f"`{ref.name}` is a row label: a rule cannot name a row, only a column "
                    "or a scalar")
        return None

    def import_failed(self, sheet_id: str, ref: syntax.Ref) -> bool:
        sheet = self.m.sheets.get(ref.qualifier or sheet_id)
        return sheet is not None and sheet.import_failed

    def chart_named(self, sheet_id: str, ref: syntax.Ref) -> bool:
        sheet = self.m.sheets.get(ref.qualifier or sheet_id)
        return sheet is not None and any(c.name == ref.name for c in sheet.charts)

    def _sheet_names(self, sheet: Sheet) -> set[str]:
        names = set(sheet.scalars) | set(sheet.aliases)
        names |= {c for c in sheet.columns if lang_ident(c)}
        return names

    def _in_sheet(self, sheet: Sheet, name: str) -> Resolved | None:
        col = sheet.column_name(name)
        if col is not None and sheet.table is not None:
            if col in sheet.rules:
                return Resolved("column", node=sheet.rules[col], sheet=sheet, column=col)
            return Resolved("input", sheet=sheet, column=col)
        if name in sheet.scalars:
            return Resolved("scalar", node=sheet.scalars[name], sheet=sheet)
        return None

    def analyse(self, node: Node) -> tuple[set[str], list[Finding]]:
        """Dependencies of a node, plus the static problems that stop it evaluating."""
        deps: set[str] = set()
        problems: list[Finding] = []
        call_errors: list[Finding] = []
        undef: list[Finding] = []
        vector: list[Finding] = []
        scoped = node.kind == "assert"
        itself = self.own_names(node)

        def base(code: str, **kw) -> Finding:
            return Finding(code, node.sheet or None, None if scoped else node.name,
                           assertion_scoped=scoped, **kw)

        def walk(e: syntax.Node, reduce_arg: bool = False) -> None:
            if isinstance(e, syntax.Ref):
                r = self.resolve(node.sheet, e, itself)
                if r.kind == "unknown" and self.import_failed(node.sheet, e):
                    deps.add(IMPORT_FAILED)  # the import's own finding says why; this value waits on it
                    return
                if r.kind == "unknown" and self.chart_named(node.sheet, e):
                    call_errors.append(base("TYPE", message="a chart is not a value", span=(e.start, e.end)))
                    return
                if r.kind == "unknown":
                    hint = self.row_label_hint(node.sheet, e)
                    undef.append(base("UNDEF", raw=e.text, suggestion=None if hint else r.suggestion,
                                      hint=hint, span=(e.start, e.end)))
                    return
                if r.kind in ("column", "input"):
                    own = r.sheet is not None and r.sheet.id == node.sheet
                    if not reduce_arg and not (own and node.kind == "column"):
                        vector.append(base("VECTOR", raw=e.text, span=(e.start, e.end)))
                        return
                if r.node is not None:
                    deps.add(r.node.id)
                return
            if isinstance(e, syntax.Call):
                spec = REGISTRY.get(e.name)
                if spec is None:
                    call_errors.append(base("TYPE", message=f"unknown function `{e.name}`",
                                            suggestion=closest(e.name, REGISTRY, MAX_FN_SUGGESTION),
                                            span=(e.start, e.end)))
                    return
                if len(e.args) != len(spec.params):
                    n = len(spec.params)
                    call_errors.append(base(
                        "TYPE",
                        message=f"{e.name}() takes {n} argument{'s' if n != 1 else ''}, got {len(e.args)}",
                        span=(e.start, e.end)))
                    return
                for i, arg in enumerate(e.args):
                    col_param = spec.kind == "reduce" and i == len(spec.params) - 1
                    if col_param:
                        if not isinstance(arg, syntax.Ref):
                            call_errors.append(base(
                                "TYPE", message=f"{e.name}() takes a column reference, not an expression",
                                span=(e.start, e.end)))
                            continue
                        r = self.resolve(node.sheet, arg)
                        if r.kind == "scalar":
                            # NPV's and IRR's specs word this one; the other reduces keep ours
                            said = (f"{e.name}() expects a column" if e.name in ("NPV", "IRR")
                                    else f"{e.name} takes a column; `{arg.text}` is a value")
                            call_errors.append(base("TYPE", message=said, span=(arg.start, arg.end)))
                            continue
                        walk(arg, reduce_arg=True)
                    else:
                        walk(arg)
                return
            for child in children(e):
                walk(child)

        walk(node.expr)
        problems = call_errors or undef or vector
        return deps, problems

    def order(self) -> tuple[list[Node], list[list[Node]], dict[str, tuple[set[str], list[Finding]]]]:
        """Topological order (document order, dependencies first) and the cycles."""
        info = {n.id: self.analyse(n) for n in self.m.nodes}
        by_id = {n.id: n for n in self.m.nodes}
        graph = {nid: sorted((d for d in deps if d in by_id), key=lambda d: by_id[d].order)
                 for nid, (deps, _) in info.items()}
        # dependencies in the order they are written in the expression
        for n in self.m.nodes:
            graph[n.id] = [d for d in self._ref_order(n) if d in info[n.id][0]]
        sccs = tarjan([n.id for n in self.m.nodes], graph)
        cyclic: set[str] = set()
        cycles: list[list[Node]] = []
        for comp in sccs:
            if len(comp) > 1 or comp[0] in graph[comp[0]]:
                cyclic.update(comp)
                cycles.append(self._cycle_path(comp, graph, by_id))
        cycles.sort(key=lambda c: c[0].order)
        order: list[Node] = []
        seen: set[str] = set(cyclic)
        for n in self.m.nodes:
            stack = [(n.id, iter(graph[n.id]))]
            if n.id in seen:
                continue
            seen.add(n.id)
            while stack:
                nid, it = stack[-1]
                for d in it:
                    if d not in seen:
                        seen.add(d)
                        stack.append((d, iter(graph[d])))
                        break
                else:
                    stack.pop()
                    order.append(by_id[nid])
        return order, cycles, info

    def _ref_order(self, node: Node) -> list[str]:
        out: list[str] = []

        def walk(e: syntax.Node) -> None:
            if isinstance(e, syntax.Ref):
                r = self.resolve(node.sheet, e)
                if r.node is not None and r.node.id not in out:
                    out.append(r.node.id)
            for c in children(e):
                walk(c)

        walk(node.expr)
        return out

    def _cycle_path(self, comp: list[str], graph: dict[str, list[str]], by_id: dict[str, Node]) -> list[Node]:
        """A cycle through the component in the direction values flow, longest found."""
        members = set(comp)
        start = min(comp, key=lambda c: by_id[c].order)
        feeds: dict[str, list[str]] = {c: [] for c in comp}
        for c in comp:
            for d in graph[c]:
                if d in members:
                    feeds[d].append(c)
        for c in feeds:
            feeds[c].sort(key=lambda x: by_id[x].order)
        best: list[str] = []
        budget = 5000
        # depth-first over simple paths from `start`, with an explicit stack (a cycle of
        # thousands of bindings must not exhaust the interpreter's recursion limit)
        path = [start]
        on_path = {start}
        stack = [iter(feeds[start])]
        while stack and budget > 0:
            nxt = next(stack[-1], None)
            if nxt is None:
                stack.pop()
                on_path.discard(path.pop())
                continue
            if nxt == start:
                if len(path) > len(best):
                    best = list(path)
            elif nxt not in on_path:
                budget -= 1
                path.append(nxt)
                on_path.add(nxt)
                stack.append(iter(feeds[nxt]))
        if not best:
            best = [start]
        return [by_id[c] for c in best] + [by_id[best[0]]]


def lang_ident(name: str) -> bool:
    return IDENT_RE.fullmatch(name) is not None


def children(e: syntax.Node) -> list[syntax.Node]:
    if isinstance(e, syntax.Unary):
        return [e.operand]
    if isinstance(e, syntax.Binary):
        return [e.left, e.right]
    if isinstance(e, syntax.Call):
        return list(e.args)
    return []


def tarjan(nodes: list[str], graph: dict[str, list[str]]) -> list[list[str]]:
    """Strongly connected components (iterative Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    counter = 0
    for root in nodes:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            v, i = work.pop()
            if i == 0:
                index[v] = low[v] = counter
                counter += 1
                stack.append(v)
                on_stack.add(v)
            recurse = False
            succ = graph.get(v, [])
            for j in range(i, len(succ)):
                w = succ[j]
                if w not in index:
                    work.append((v, j + 1))
                    work.append((w, 0))
                    recurse = True
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            if recurse:
                continue
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                out.append(comp)
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[v])
    return out
