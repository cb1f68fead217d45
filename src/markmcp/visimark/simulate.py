"""``visimark simulate``: ask a document every question its lattices declare, and print
the readings its ``report`` statements ask for.

A *question* sets every lattice param to one of its points (the grid, walked in the
order the params are declared, the last changing fastest) and holds every other param
at its default; the *base* holds every param at its default and is always asked first.
Each question is evaluated once, in process, exactly as ``eval --scenario`` would; a
question is *faulted* when an assertion cannot be verified or a scalar a running report
names has no value, *feasible* when every assertion holds, *infeasible* otherwise.

The readings (``ledger``, ``deltas``, ``gates``, ``best``, ``forbidden``) are pure
functions of the answers; this module returns text lines, and the CLI prints them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from decimal import Decimal

from . import syntax
from .check import Checker, CheckResult, check
from .findings import Finding
from .lattice import points as lattice_points
from .model import Model, Node, build
from .port import Files, ReadOnce
from .report import text_message
from .statements import ReportStmt
from .units import format_unit
from .values import canonical, fixed

NOT_BLOCKING = {"STALE", "ASSERT", "ARTIFACT", "COVERAGE", "WARN", "NOTE"}
NO_GRID = "no grid: no param declares a lattice"


@dataclass
class Lever:
    """A lattice param as the grid sees it."""

    id: str
    label: str
    node: Node
    percent: bool
    precision: int
    points: list[Decimal]


@dataclass
class Answer:
    index: int | None  # None for the base
    values: dict[str, Decimal]  # lever id -> its value here
    scalars: dict[str, object]
    holds: list[bool | None]
    faulted: bool = False

    @property
    def feasible(self) -> bool:
        return not self.faulted and all(h is True for h in self.holds)

    @property
    def infeasible(self) -> bool:
        return not self.faulted and not self.feasible


@dataclass
class Blocked:
    sheet: str
    first: Finding
    more: int


@dataclass
class Simulation:
    levers: list[Lever] = field(default_factory=list)
    lattice_count: int = 0
    grid_built: bool = True
    sheets: list[str] = field(default_factory=list)  # sheets with a report, document order
    reports: dict[str, list[ReportStmt]] = field(default_factory=dict)
    blocked: list[Blocked] = field(default_factory=list)
    assertions: list[str] = field(default_factory=list)  # keys, document order
    answers: list[Answer] = field(default_factory=list)  # base first
    widths: dict[str, int | None] = field(default_factory=dict)
    units: dict[str, str] = field(default_factory=dict)
    refs: dict[int, list[tuple[str, str]]] = field(default_factory=dict)  # id(report) -> [(shown, id)]
    evaluations: int = 0

    @property
    def grid_size(self) -> int:
        return len(self.answers) - 1 if self.answers else 0

    @property
    def grid_size_planned(self) -> int:
        """Questions to ask, the base included (the product of the levers' point counts, plus one)."""
        n = 1
        for lv in self.levers:
            n *= len(lv.points)
        return (n if self.levers else 0) + 1


def assertion_key(source: str) -> str:
    return " ".join(source[len("assert"):].split()) if source.startswith("assert") else " ".join(source.split())


def _set(node: Node, value: Decimal) -> None:
    e = node.binding.expr
    node.binding.expr = syntax.Num(e.start, e.end, value, node.binding.precision or 0)


def simulate(src: str, files: Files | None = None,
             on_question: Callable[[int, int], None] | None = None,
             on_plan: Callable[[Simulation], None] | None = None) -> Simulation:
    model = build(src)
    sim = Simulation()
    if files is not None:
        files = ReadOnce(files, read_only=True, doing="simulate")  # every question reads the same CSV
    for sheet in model.sheets.values():
        if sheet.reports:
            sim.sheets.append(sheet.id)
            sim.reports[sheet.id] = list(sheet.reports)
    params = [n for n in model.nodes if n.kind == "scalar" and n.binding.param is not None]
    lattice_nodes = [n for n in params if n.binding.param.clause.lattice is not None]  # type: ignore[union-attr]
    sim.lattice_count = len(lattice_nodes)
    if not sim.sheets:
        return sim
    base = check(model, files)
    sim.evaluations += 1
    resolver = Checker(build(src), files)
    for sheet_id in sim.sheets:
        scalars = [n.id for n in model.sheets[sheet_id].scalars.values() if n.binding.param is None]
        for stmt in sim.reports[sheet_id]:
            if stmt.name == "deltas" and not stmt.on:
                sim.refs[id(stmt)] = [(sid, sid) for sid in scalars]
                continue
            pairs = []
            for ref in stmt.refs:
                r = resolver.resolve(sheet_id, ref)
                if r.kind == "scalar" and r.node is not None:
                    pairs.append((ref.text, r.node.id))
            sim.refs[id(stmt)] = pairs
    sim.blocked = _blocked(sim, model, base, resolver, {n.id for n in lattice_nodes})
    sim.grid_built = not any(b.first.code in ("TYPE", "PRECISION", "DOMAIN") and _lever_fault(b.first, lattice_nodes)
                             for b in sim.blocked)
    sim.assertions = [assertion_key(a.source) for a in base.assertions]
    sim.widths = dict(base.precision)
    sim.units = {k: format_unit(u) for k, u in base.units.items() if u}
    if sim.grid_built:
        sim.levers = _levers(lattice_nodes)
    if on_plan is not None:
        on_plan(sim)
    if len(sim.blocked) == len(sim.sheets):
        return sim
    blocked = {b.sheet for b in sim.blocked}
    read = {rid for s in sim.sheets if s not in blocked for stmt in sim.reports[s] for _, rid in sim.refs[id(stmt)]}
    grid = list(_grid(sim.levers))
    total = len(grid) + 1
    sim.answers.append(_answer(None, {}, base, read))
    if on_question is not None:
        on_question(1, total)
    for i, values in enumerate(grid, 1):
        m = build(src)
        by_id = {n.id: n for n in m.nodes}
        for lever_id, v in values.items():
            _set(by_id[lever_id], v)
        result = check(m, files, full=False)
        sim.evaluations += 1
        sim.answers.append(_answer(i, values, result, read))
        if on_question is not None:
            on_question(i + 1, total)
    return sim




def _lever_fault(f: Finding, nodes: list[Node]) -> bool:
    return any(f.sheet == (n.sheet or None) and f.name == n.name for n in nodes)


def _levers(nodes: list[Node]) -> list[Lever]:
    names = [n.name for n in nodes]
    out = []
    for n in nodes:
        b = n.binding
        assert b.param is not None and b.param.clause.lattice is not None
        pts = lattice_points(n.name, b.param.clause, b.param.clause.lattice, b.param.percent, b.precision or 0)
        out.append(Lever(n.id, n.id if names.count(n.name) > 1 else n.name, n, b.param.percent, b.precision or 0, pts))
    return out


def _grid(levers: list[Lever]) -> Iterable[dict[str, Decimal]]:
    if not levers:
        return
    idx = [0] * len(levers)
    while True:
        yield {lv.id: lv.points[k] for lv, k in zip(levers, idx)}
        k = len(levers) - 1
        while k >= 0 and idx[k] == len(levers[k].points) - 1:
            idx[k] = 0
            k -= 1
        if k < 0:
            return
        idx[k] += 1


def _answer(index: int | None, values: dict[str, Decimal], r: CheckResult, read: set[str]) -> Answer:
    holds = [a.holds for a in r.assertions]
    faulted = any(h is None for h in holds) or any(rid not in r.values for rid in read)
    return Answer(index, values, dict(r.values), holds, faulted)


def _blocked(sim: Simulation, model: Model, base: CheckResult, resolver: Checker, levers: set[str]) -> list[Blocked]:
    blocking = [f for f in base.findings if f.code not in NOT_BLOCKING]

    def node_id(f: Finding) -> str | None:
        if not f.name or f.assertion_scoped:
            return None
        return f"{f.sheet}.{f.name}" if f.sheet else f.name

    grid_fault = next((f for f in blocking if node_id(f) in levers), None)
    by_id = {n.id: n for n in model.nodes}
    out = []
    for sheet_id in sim.sheets:
        stmts = sim.reports[sheet_id]
        if grid_fault is not None:
            hits = [grid_fault] + [f for f in blocking if f is not grid_fault]
        else:
            reach: set[str] = set()
            todo = [rid for stmt in stmts for _, rid in sim.refs[id(stmt)]]
            while todo:
                nid = todo.pop()
                if nid in reach or nid not in by_id:
                    continue
                reach.add(nid)
                todo.extend(resolver.analyse(by_id[nid])[0])
            hits = []
            for f in blocking:
                at = f.span[0] if f.span else None
                if at is not None and f.sheet == sheet_id and _on_report_line(model.source, at):
                    hits.append(f)  # a report line that does not parse or names what it may not
                elif node_id(f) in reach:
                    hits.append(f)
        if hits:
            out.append(Blocked(sheet_id, hits[0], len(hits) - 1))
    return out


def _on_report_line(src: str, at: int) -> bool:
    start = max(src.rfind("\n", 0, at), src.rfind("\r", 0, at)) + 1
    return src[start:at + 1].lstrip().startswith("report") or src[start:].lstrip().startswith("report")


# ------------------------------------------------------------------ the readings


def _show(sim: Simulation, rid: str, v: object) -> str:
    if isinstance(v, Decimal):
        w = sim.widths.get(rid)
        return fixed(v, w) if w is not None else canonical(v)
    return canonical(v) if v is not None else "?"


def _signed(sim: Simulation, rid: str, d: Decimal) -> str:
    text = _show(sim, rid, abs(d))
    return ("+" if d > 0 else "-" if d < 0 else "") + text


def lever_value(lv: Lever, v: Decimal) -> str:
    if lv.percent:
        return fixed(v * 100, max(lv.precision - 2, 0)) + "%"
    return fixed(v, lv.precision)


def prose(sim: Simulation, a: Answer) -> str:
    if a.index is None:
        return "base"
    return " ".join(f"{lv.label}={lever_value(lv, a.values[lv.id])}" for lv in sim.levers)


def table(rows: list[list[str]], numeric: list[bool], indent: str = "  ") -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    out = []
    for r in rows:
        cells = [c.rjust(w) if num else c.ljust(w) for c, w, num in zip(r, widths, numeric)]
        out.append((indent + "  ".join(cells)).rstrip())
    return out


def reading(sim: Simulation, stmt: ReportStmt) -> list[str]:
    return {"ledger": _ledger, "deltas": _deltas, "gates": _gates, "best": _best,
            "forbidden": _forbidden}[stmt.name](sim, stmt)


def _grid_answers(sim: Simulation) -> list[Answer]:
    return sim.answers[1:]


def _population(sim: Simulation, among: str | None) -> list[Answer]:
    grid = [a for a in _grid_answers(sim) if not a.faulted]
    if among == "feasible":
        return [a for a in grid if a.feasible]
    if among == "infeasible":
        return [a for a in grid if a.infeasible]
    return grid


def _ledger(sim: Simulation, stmt: ReportStmt) -> list[str]:
    head = ["question"] + [lv.label for lv in sim.levers] + ["feasible"] + (["broken"] if stmt.broken else [])
    rows = [head]
    for a in sim.answers:
        values = [lever_value(lv, a.values[lv.id] if a.index is not None else _default(lv)) for lv in sim.levers]
        state = "faulted" if a.faulted else "yes" if a.feasible else "no"
        row = [prose_index(a)] + values + [state]
        if stmt.broken:
            row.append("; ".join(k for k, h in zip(sim.assertions, a.holds) if h is False))
        rows.append(row)
    return table(rows, [False] + [True] * len(sim.levers) + [False, False][: 1 + stmt.broken])


def prose_index(a: Answer) -> str:
    return "base" if a.index is None else str(a.index)


def _default(lv: Lever) -> Decimal:
    e = lv.node.binding.expr
    return -e.operand.value if isinstance(e, syntax.Unary) else e.value  # type: ignore[attr-defined]


def _ref_label(sim: Simulation, shown: str, rid: str) -> str:
    return shown + (f" [{sim.units[rid]}]" if rid in sim.units else "")


def _count_line(kind: str | None, k: int, n: int, lead: str) -> str:
    if kind == "feasible":
        return f"{lead} {k} feasible of {n} questions"
    if kind == "infeasible":
        return f"{lead} {k} infeasible of {n} questions"
    return f"{lead} {k} questions"


def _empty(kind: str | None) -> str:
    return {"feasible": "no feasible question", "infeasible": "no infeasible question"}.get(kind or "",
                                                                                           "no question evaluated")


def _deltas(sim: Simulation, stmt: ReportStmt) -> list[str]:
    if not sim.levers:
        return ["  " + NO_GRID]
    population = _population(sim, stmt.among)
    if not population:
        return ["  " + _empty(stmt.among)]
    base = sim.answers[0]
    out: list[str] = []
    ranking: set[int] = set()
    for shown, rid in sim.refs[id(stmt)]:
        b = base.scalars.get(rid)
        out.append(f"  {_ref_label(sim, shown, rid)}  base {_show(sim, rid, b) if isinstance(b, Decimal) else '?'}")
        ranked = [a for a in population if isinstance(a.scalars.get(rid), Decimal)]
        ranking |= {id(a) for a in ranked}
        if not ranked:
            continue
        rows = []
        for word, pick in (("low", min), ("high", max)):
            best = pick(ranked, key=lambda a: a.scalars[rid])  # first in grid order on a tie
            v = best.scalars[rid]
            delta = _signed(sim, rid, v - b) if isinstance(b, Decimal) else "?"  # type: ignore[operator]
            rows.append([word, _show(sim, rid, v), f"({delta})", prose(sim, best)])
        out += table(rows, [False, True, True, False], "    ")
    out.append("  " + _count_line(stmt.among, len(ranking), sim.grid_size, "over"))
    return out


def _gates(sim: Simulation, stmt: ReportStmt) -> list[str]:
    grid = _grid_answers(sim)
    rows = [["assert", "holds", "fails", "faulted", "base", "first failure"]]
    for i, key in enumerate(sim.assertions):
        got = [a.holds[i] for a in grid]
        first = next((a for a in grid if a.holds[i] is False), None)
        b = sim.answers[0].holds[i] if sim.answers else None
        rows.append([key, str(got.count(True)), str(got.count(False)), str(got.count(None)),
                     {True: "holds", False: "fails"}.get(b, "faulted"), prose(sim, first) if first else ""])
    return [f"  {len(grid)} questions"] + table(rows, [False, True, True, True, False, False])


def _best(sim: Simulation, stmt: ReportStmt) -> list[str]:
    if not sim.levers:
        return ["  " + NO_GRID]
    (shown, rid), = sim.refs[id(stmt)] or [("?", "")]
    ranked = [a for a in _population(sim, stmt.among) if isinstance(a.scalars.get(rid), Decimal)]
    if not ranked:
        return ["  " + _empty(stmt.among)]
    pick = max if stmt.direction == "max" else min
    win = pick(ranked, key=lambda a: a.scalars[rid])
    v = win.scalars[rid]
    b = sim.answers[0].scalars.get(rid)
    delta = _signed(sim, rid, v - b) if isinstance(b, Decimal) else "?"  # type: ignore[operator]
    out = ["  " + prose(sim, win), f"  {_ref_label(sim, shown, rid)}  {_show(sim, rid, v)}  ({delta} against base)",
           "  " + _count_line(stmt.among, len(ranked), sim.grid_size, "chosen from")]
    ties = sum(1 for a in ranked if a.scalars[rid] == v)
    if ties > 1:
        out.append(f"  {ties} questions tie; the first in grid order is shown")
    return out


def _forbidden(sim: Simulation, stmt: ReportStmt) -> list[str]:
    if not sim.levers:
        return ["  " + NO_GRID]
    grid = _grid_answers(sim)
    rows = []
    for lv in sim.levers:
        for p in lv.points:
            with_it = [a for a in grid if a.values[lv.id] == p]
            if with_it and all(not a.feasible for a in with_it):
                rows.append([f"{lv.label} = {lever_value(lv, p)}", "every question with it breaks an assertion"])
    infeasible = sum(1 for a in grid if a.infeasible)
    head = table(rows, [False, False]) if rows else ["  nothing is forbidden"]
    return head + [f"  {infeasible} of {len(grid)} questions are infeasible"]


# -------------------------------------------------------------------- the sections


def section(sim: Simulation) -> list[str]:
    """The stdout lines of one file's readings (without the ``==> FILE <==`` header)."""
    blocked = {b.sheet for b in sim.blocked}
    out: list[str] = []
    for sheet_id in sim.sheets:
        out.append(f"#{sheet_id}")
        if sheet_id in blocked:
            out.append("  (cannot start)")
            continue
        for stmt in sim.reports[sheet_id]:
            out += ["", stmt.normalized, ""] + reading(sim, stmt)
    return out


def blocked_line(path: str, b: Blocked) -> str:
    f = b.first
    where = f" {f.sheet}.{f.name}" if f.name and not f.assertion_scoped else ""
    tail = f" (and {b.more} more; run visimark check {path})" if b.more else ""
    return f"simulate: {path}: #{b.sheet} cannot start: {f.code}{where}: {text_message(f)}{tail}"


def duration(seconds: float) -> str:
    if seconds < 1:
        return f"{int(seconds * 1000)} ms"
    if seconds < 60:
        return f"{seconds:.1f} s"
    return f"{int(seconds // 60)} min {int(seconds % 60):02d} s"


def to_json(sim: Simulation, path: str) -> dict:
    blocked = {b.sheet: b for b in sim.blocked}
    return {
        "path": path,
        "questions": len(sim.answers) if sim.answers else sim.grid_size + 1,
        "latticeParams": [{"id": lv.id, "label": lv.label, "points": [lever_value(lv, p) for p in lv.points]}
                          for lv in sim.levers],
        "answers": [{"question": prose_index(a), "values": {lv.label: lever_value(lv, a.values[lv.id])
                                                            for lv in sim.levers if a.index is not None},
                     "state": "faulted" if a.faulted else "feasible" if a.feasible else "infeasible",
                     "broken": [k for k, h in zip(sim.assertions, a.holds) if h is False]}
                    for a in sim.answers],
        "sheets": [{"id": s, "ran": s not in blocked,
                    **({"blocked": {"code": blocked[s].first.code, "message": text_message(blocked[s].first)}}
                       if s in blocked else {}),
                    "reports": [] if s in blocked else [{"statement": stmt.normalized,
                                                         "lines": [x[2:] for x in reading(sim, stmt)]}
                                                        for stmt in sim.reports[s]]}
                   for s in sim.sheets],
    }


# ------------------------------------------------------------------------ command


def run_simulate(paths: list[str], read: Callable[[str], str | None], folder: Callable[[str], Files],
                 out: Callable[[str], None], err: Callable[[str], None], fail_on_fault: bool = False,
                 progress: bool = False, as_json: bool = False) -> tuple[int, dict]:
    """The ``simulate`` command over several files: (exit code, JSON body)."""
    import sys
    import time

    started = time.monotonic()
    code = 0
    any_report = False
    ran = total = 0
    sections: list[list[str]] = []
    entries: list[dict] = []
    for path in paths:
        begun = time.monotonic()
        src = read(path)
        if src is None:
            code = 2
            entries.append({"path": path, "error": {"code": "READ", "message": f"visimark: cannot read {path}"}})
            continue

        def plan(sim: Simulation, path: str = path) -> None:
            err(f"simulate: {path}: {sim.grid_size_planned} questions ({sim.lattice_count} lattice params)")

        def tick(i: int, n: int, path: str = path) -> None:
            if progress and (sys.stderr.isatty() or i == n or (10 * i) // n > (10 * (i - 1)) // n):
                err(f"simulate: {path}: question {i} of {n}")

        sim = simulate(src, folder(path), on_question=tick, on_plan=plan)
        if not sim.sheets:
            err(f"simulate: {path}: no report statement")
            entries.append({"path": path, "sheets": [], "note": "no report statement"})
            continue
        any_report = True
        for b in sim.blocked:
            err(blocked_line(path, b))
        here = len(sim.sheets) - len(sim.blocked)
        ran, total = ran + here, total + len(sim.sheets)
        err(f"simulate: {path}: {here} of {len(sim.sheets)} sheets ran in {duration(time.monotonic() - begun)}")
        if sim.blocked and fail_on_fault:
            code = max(code, 1)
        sections.append([f"==> {path} <=="] + section(sim))
        entries.append(to_json(sim, path))
    if len(paths) > 1:
        err(f"simulate: {ran} of {total} sheets ran across {len(paths)} files in {duration(time.monotonic() - started)}")
    if not any_report and code == 0:
        code = 1
    if not as_json:
        for i, lines in enumerate(sections):
            if i:
                out("")
                out("---")
                out("")
            out("\n".join(lines))
    return code, {"files": entries}
