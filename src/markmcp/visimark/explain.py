"""``explain``: one readable view of each sheet's inputs, rules, order and assertions."""

from __future__ import annotations

from .check import CheckResult
from .model import Model, Node
from .domain import domain_json, parse_literal
from .units import format_unit, map_to_json
from .values import canonical


def _rule(model: Model, node: Node) -> str:
    return model.source[node.expr.start:node.expr.end]


def _precision(node: Node, result: CheckResult) -> str:
    b = node.binding
    if b.precision is not None:
        return f"precision {b.precision} (declared)"
    p = result.precision.get(node.id)
    return f"precision {p} (derived)" if p is not None else ""


def _declared(model: Model, node: Node) -> bool:
    """A scalar declares its unit on its head, a column rule on its table header."""
    if node.kind == "column":
        sheet = model.sheets.get(node.sheet)
        col = sheet.columns.get(node.column or node.name) if sheet else None
        return col is not None and col.unit is not None
    return node.binding.unit is not None


def _unit(model: Model, node: Node, result: CheckResult) -> str:
    u = result.units.get(node.id)
    if not u:
        return ""
    return f"[{format_unit(u)}] ({'declared' if _declared(model, node) else 'derived'})"


def _unit_json(model: Model, node: Node, result: CheckResult) -> dict | None:
    u = result.units.get(node.id)
    if not u:
        return None
    return {"map": map_to_json(u), "source": "declared" if _declared(model, node) else "derived"}


def _binding_json(model: Model, node: Node, result: CheckResult) -> dict:
    out: dict = {"name": node.name, "rule": _rule(model, node)}
    unit = _unit_json(model, node, result)
    if unit is not None:
        out["unit"] = unit
    return out


def _aligned(rows: list[list[str]], indent: str) -> list[str]:
    """Columns separated by three spaces, each padded to its widest cell; trailing blanks cut."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    out = []
    for r in rows:
        cells = [c.ljust(w) for c, w in zip(r, widths)]
        # an empty column (no precision anywhere in the group) takes no space
        cells = [c for c, w in zip(cells, widths) if w]
        out.append((indent + "   ".join(cells)).rstrip())
    return out


def explain_json(model: Model, result: CheckResult, only: list[str]) -> dict:
    doc = [n for n in model.nodes if not n.sheet]
    body: dict = {"documentScope": [_binding_json(model, n, result) for n in doc if n.binding.param is None]}
    if model.unit_defs:
        body["unitDefinitions"] = [{"atom": d.atom, "unit": format_unit(d.unit)} for d in model.unit_defs]
    doc_params = [n for n in doc if n.binding.param is not None]
    if doc_params:
        body["documentScopeParams"] = [_param(n) for n in doc_params]
    sheets = []
    for sheet in model.sheets.values():
        if only and sheet.id not in only:
            continue
        nodes = [n for n in model.nodes if n.sheet == sheet.id]
        params = [n for n in nodes if n.kind == "scalar" and n.binding.param is not None]
        entry: dict = {
            "id": sheet.id,
            "hasTable": sheet.table is not None,
            "inputs": [c for c in sheet.columns if c not in sheet.rules],
            "aliases": [{"symbol": s, "header": h} for s, (h, _) in sheet.aliases.items()],
            "inputUnits": {c: map_to_json(col.unit) for c, col in sheet.columns.items()
                           if c not in sheet.rules and col.unit},
            "rules": [_binding_json(model, n, result) for n in nodes if n.kind == "column"],
            "scalars": [_binding_json(model, n, result) for n in nodes
                        if n.kind == "scalar" and n.binding.param is None],
            "order": [n.name for n in result.order if n.sheet == sheet.id and n.kind != "assert"],
            "assertions": [n.stmt.source[len("assert"):].strip() for n in sheet.assertions],
            "charts": [c.json() for c in result.charts if c.sheet == sheet.id],
        }
        if params:
            entry["params"] = [_param(n) for n in params]
        if sheet.import_decl is not None:
            entry["import"] = _import_json(sheet.import_decl)
        sheets.append(entry)
    body["sheets"] = sheets
    return body


STAMP_STATES = {"ok": "matching", "stale": "stale", "unstamped": "unstamped", "error": "error",
                "skipped": "not checked"}


def _import_json(decl) -> dict:
    return {"path": decl.path, "delimiter": decl.delimiter, "labels": decl.labels, "mode": decl.mode,
            "stamp": f"{decl.stamp_prefix}:{decl.stamp_digest}" if decl.stamp_prefix else None,
            "stampStatus": decl.state}  # ok, stale, unstamped, error (skipped: a `content` document)


def _param(n: Node) -> dict:
    b = n.binding
    assert b.param is not None
    out: dict = {"name": n.name, "precision": b.precision, "default": b.param.default_text}
    out.update(param_domain_json(n))
    return out


def param_domain_json(n: Node) -> dict:
    """``domain`` (clauses, and the fold when finite) and ``lattice`` (its step as a
    decimal), each present only when the param declares it."""
    b = n.binding
    assert b.param is not None
    out: dict = {}
    clause = b.param.clause
    if clause.shown:
        out["domain"] = domain_json(clause)
    if clause.lattice is not None:
        out["lattice"] = {"step": canonical(parse_literal(clause.lattice, 0)[1].value)}
    return out


def explain_text(model: Model, result: CheckResult, only: list[str]) -> str:
    lines: list[str] = []
    doc = [n for n in model.nodes if not n.sheet]
    if (doc or model.unit_defs) and not only:
        lines.append("document scope:")
        if doc:
            lines += _aligned([[f"{n.name} = {_rule(model, n)}", _unit(model, n, result)] for n in doc], "  ")
        if model.unit_defs:
            lines.append("  units:")
            lines += [f"    [{d.atom}] = [{format_unit(d.unit)}]" for d in model.unit_defs]
        lines.append("")
    for sheet in model.sheets.values():
        if only and sheet.id not in only:
            continue
        nodes = [n for n in model.nodes if n.sheet == sheet.id]
        lines.append(f"#{sheet.id}" + ("" if sheet.table is not None else "  (no table)"))
        decl = sheet.import_decl
        if decl is not None:
            labels = f", {decl.mode} {', '.join(decl.labels or [])}" if decl.mode else ""
            lines.append(f"  import:  from {decl.path} (delimited `{decl.delimiter}`{labels}), "
                         f"stamp {STAMP_STATES.get(decl.state, decl.state)}")
        inputs = []
        for name, col in sheet.columns.items():
            if name not in sheet.rules:
                inputs.append(name + (f" [{format_unit(col.unit)}]" if col.unit else ""))
        if inputs:
            lines.append("  inputs:  " + ", ".join(inputs))
        if sheet.aliases:  # upstream's layout: one `symbol → "header"` line each, after the inputs
            lines.append("  aliases:")
            lines += [f'    {s} → "{h}"' for s, (h, _) in sheet.aliases.items()]
        for title, kind in (("rules:", "column"), ("scalars:", "scalar")):
            group = [n for n in nodes if n.kind == kind and (kind == "column" or n.binding.param is None)]
            if group:
                lines.append(f"  {title}")
                rows = []
                for n in group:
                    alias = [s for s, (h, _) in sheet.aliases.items() if h == n.name]
                    head = n.name + (f" (alias {', '.join(alias)})" if alias else "")
                    rows.append([f"{head} = {_rule(model, n)}", _precision(n, result), _unit(model, n, result)])
                lines += _aligned(rows, "    ")
        params = [n for n in nodes if n.kind == "scalar" and n.binding.param is not None]
        if params:
            lines.append("  params:")
            rows = []
            for n in params:
                b = n.binding
                assert b.param is not None
                width = f"precision {b.precision}" if b.precision is not None else "precision ?"
                domain = f"domain {b.param.clause.shown}" if b.param.clause.shown else ""
                if b.param.clause.lattice is not None:
                    domain += f"   lattice {b.param.clause.lattice}"
                rows.append([n.name, width, f"default {b.param.default_text}", domain])
            name_w = max(len(r[0]) for r in rows)
            prec_w = max(len(r[1]) for r in rows)
            for r in rows:
                lines.append(("    " + r[0].ljust(name_w) + "   " + r[1].ljust(prec_w) + "   " + r[2]
                              + ("   " + r[3] if r[3] else "")).rstrip())
        order = [n.name for n in result.order if n.sheet == sheet.id and n.kind != "assert"]
        if order:
            lines.append("  order:   " + " → ".join(order))
        if sheet.assertions:
            lines.append("  assertions:")
            for n in sheet.assertions:
                lines.append("    " + n.stmt.source[len("assert"):].strip())
        charts = [c for c in result.charts if c.sheet == sheet.id]
        if charts:
            lines.append("  charts:")
            lines += _aligned([[c.name, f"{c.engine} of {', '.join(c.series)} labelled {c.labels}",
                                c.path or "(no image line)", c.state] for c in charts], "    ")
        lines.append("")
    return "\n".join(lines).rstrip("\n")
