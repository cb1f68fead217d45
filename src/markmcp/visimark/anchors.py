"""Anchors, reports and unused names: the checks that read the document around its blocks.

An anchor states a scalar's value in prose: it is rendered at the scalar's width (and
its display rule: ``|percent``, ``|nbsp``, ``|unit``) and compared with what is written;
a chart's anchor follows its image and is never rewritten.  A report's names must be
scalars.  A scalar or alias nothing reads is advice (``WARN``).
"""

from __future__ import annotations

from decimal import Decimal

from . import syntax
from .builtins import EvalError, is_reduce
from .display import (
    BARE_SEED_MESSAGE,
    MALFORMED_MESSAGE,
    NO_VALUE_MESSAGE,
    RULES,
    TYPE_MESSAGE,
    bare_token_refusal,
    code_span_message,
    nbsp_refusal,
    nbsp_render,
)
from .evaluate import cell_matches
from .findings import Finding
from .graph import children
from .locate import Anchor
from .model import Node
from .results import Edit
from .suggest import closest
from .units import format_unit
from .values import CellNumber, fixed, parse_cell_number, render


class ProseChecks:
    """Phase 5: what the prose says (anchors), what reports read, and what is
    defined and never read."""

    def check_anchors(self) -> None:
        stale_ids: set[str] = set()
        for a in self.m.located.bad_comments:
            self.emit(Finding("ANCHOR", "", "", MALFORMED_MESSAGE, span=(a.start, a.end)))
        type_reported: set[str] = set()
        for a in self.m.located.anchors:
            sheet = self.m.sheets.get(a.sheet)
            node = sheet.scalars.get(a.name) if sheet else None
            def anchor_finding(msg: str, code: str = "ANCHOR") -> None:
                self.emit(Finding(code, a.sheet, a.name, msg, span=(a.comment_start, a.comment_end)))
            chart = next((c for c in sheet.charts if c.name == a.name), None) if sheet else None
            if chart is not None:
                if a.kind != "image":
                    anchor_finding(f"a chart anchor follows its image: `![...](path)<!--vmark={a.id}-->`")
                continue  # an image anchor names the chart's file; it is never rewritten
            if node is None:
                if sheet is not None and sheet.column_name(a.name) is not None:
                    anchor_finding("an anchor names a scalar; a column is written in its table")
                else:
                    # upstream leaves such an anchor unchecked; say so as advice
                    cands = set(sheet.scalars) if sheet else set(self.m.sheets)
                    guess = closest(a.name if sheet else a.sheet, cands)
                    self.emit(Finding("WARN", a.sheet, a.name,
                                      message=f"anchor `{a.id}` names no scalar, so its value is not checked",
                                      suggestion=guess, span=(a.comment_start, a.comment_end)))
                continue
            if a.rule is not None and a.rule not in RULES:
                anchor_finding(f"unknown display rule `{a.rule}`")
                continue
            if a.kind == "image":
                anchor_finding("an image anchor must name a chart")
                continue
            if a.kind in ("bad", "empty"):
                anchor_finding(NO_VALUE_MESSAGE)
                continue
            if a.rule is not None and a.kind == "text":
                anchor_finding(BARE_SEED_MESSAGE)
                continue
            refused = False
            if a.rule is not None and a.kind == "code" and not RULES[a.rule].inline_code:
                anchor_finding(code_span_message(a.rule))
                refused = True
            if node.id in self.unevaluable or node.id not in self.values:
                continue
            value = self.values[node.id]
            if a.rule is not None:
                problem = self.rule_type_problem(node, a.rule, value)
                if problem is not None:
                    if node.id not in type_reported:
                        type_reported.add(node.id)
                        self.emit(Finding("TYPE", a.sheet, a.name, problem, span=(a.comment_start, a.comment_end)))
                    continue
            if refused:
                continue
            if a.rule == "nbsp" and a.kind in ("strong", "emphasis") and a.value_span is not None:
                assert isinstance(value, str)
                why = self.nbsp_problem(a, value)
                if why is not None:
                    anchor_finding(why)
                    continue
            stored = self.m.source[a.value_span[0]:a.value_span[1]] if a.value_span else ""
            if a.kind == "text":
                refusal = bare_token_refusal(value, stored)
                if refusal is not None:
                    anchor_finding(refusal)
                    continue
            if a.rule is None and not isinstance(value, Decimal):
                continue  # string and date anchors are targets, never compared
            if a.rule is None and node.binding.unit is not None:
                problem = self.decoration_problem(stored, node.binding.unit, "anchor", f"{node.name} declares",
                                                  "a value with a unit forbids")
                if problem is not None:
                    anchor_finding(problem, "UNIT")
                    continue
            try:
                text = self.render_anchor(node, a, value, stored)
            except EvalError as e:
                self.emit(Finding(e.code, a.sheet, a.name, e.message, span=(a.comment_start, a.comment_end)))
                continue
            if text is None or stored == text:
                continue
            if self.same_number(a, node, stored, text, value):
                # check compares numbers, not spellings (`40.26%` is 0.4026 on a plain anchor,
                # `0.4026` on a `|percent` one), and fmt still writes the anchor's own form
                assert a.value_span is not None
                self.edits.append(Edit(a.value_span[0], a.value_span[1], text, "anchor"))
                continue
            stale_ids.add(a.id)
            if not self.cross_sheet_aggregate(node):
                formula = None
                if isinstance(node.expr, syntax.Call) and is_reduce(node.expr.name):
                    formula = self.m.source[node.expr.start:node.expr.end]
                self.emit(Finding("STALE", node.sheet or None, node.name, stored=stored, computed=text,
                                  formula=formula, span=a.value_span, binding_order=node.order))
            assert a.value_span is not None
            self.edits.append(Edit(a.value_span[0], a.value_span[1], text, "anchor"))
        if stale_ids:
            # the roll-up counts every anchor bound to a stale scalar, current ones included
            bound = sum(len(self.anchors_by_id[i]) for i in stale_ids)
            order = {n.id: n.order for n in self.m.nodes}
            self.emit(Finding("STALE", anchor_group=True, suppressed_count=bound,
                              bindings=sorted(stale_ids, key=lambda i: (order.get(i, 0), i))))

    def check_reports(self) -> None:
        """A report's names must be scalars; `check` never runs a report."""
        for sheet in self.m.sheets.values():
            for stmt in sheet.reports:
                for ref in stmt.refs:
                    r = self.resolve(sheet.id, ref)
                    span = (ref.start, ref.end)
                    if r.kind == "unknown":
                        self.emit(Finding("UNDEF", sheet.id, None, raw=ref.text, suggestion=r.suggestion,
                                          assertion_scoped=True, span=span))
                    elif r.kind in ("column", "input"):
                        self.emit(Finding("TYPE", sheet.id, None, f"a report reads a scalar; {ref.text} is a column",
                                          assertion_scoped=True, span=span))
                if stmt.name == "deltas" and not stmt.on and not any(
                        n.binding.param is None for n in sheet.scalars.values()):
                    self.emit(Finding("TYPE", sheet.id, None, "`report deltas` has nothing to read: this sheet has "
                                      "no scalar that is not a param; name the values with `deltas on REF, …`",
                                      assertion_scoped=True, span=(stmt.start, stmt.end)))

    def rule_type_problem(self, node: Node, rule: str, value: object) -> str | None:
        """The TYPE message when ``rule`` cannot render this scalar's value, else None."""
        unit = self.units.get(node.id)
        is_num = isinstance(value, Decimal)
        if rule in ("percent", "nbsp") and is_num and unit:
            return f"|{rule} cannot render a value with a unit ({format_unit(unit)})"
        accepts = {
            "percent": is_num,
            "nbsp": isinstance(value, str) and not isinstance(value, bool),
            "unit": is_num and bool(unit),
        }
        return None if accepts[rule] else TYPE_MESSAGE

    def nbsp_problem(self, a: Anchor, value: str) -> str | None:
        """Refuse an ``|nbsp`` anchor whose rendering would not read back as ``value``."""
        assert a.value_span is not None
        width = 2 if a.kind == "strong" else 1
        src = self.m.source
        start, end = a.value_span
        opener = src[start - width:start]
        closer = src[end:end + width]
        before = src[start - width - 1] if start - width > 0 else ""
        if before in ("\n", "\r"):
            before = ""
        after = src[end + width] if end + width < len(src) else ""
        return nbsp_refusal(value, opener, closer, before, after)

    def same_number(self, a: Anchor, node: Node, stored: str, text: str, value: object) -> bool:
        """Whether an anchor's text, written differently from its rendering ``text``, holds the
        scalar's value: a percent-shaped number on a plain anchor, or on a `|percent` one the
        plain number as a plain anchor would write it (upstream's percent display spec)."""
        places = self.prec.get(node.id)
        if a.rule is None:
            return cell_matches(stored, text, value, places)
        if a.rule == "percent" and isinstance(value, Decimal):
            return stored == render(value, places) or cell_matches(stored, text, value, places)
        return False

    def render_anchor(self, node: Node, a: Anchor, value: object, stored: str) -> str | None:
        prec = self.prec.get(node.id)
        unit = self.units.get(node.id)
        if a.rule is None:
            text = render(value, prec)
            if isinstance(value, Decimal):
                num = parse_cell_number(stored)
                if isinstance(num, CellNumber) and num.decoration is not None:
                    text = num.decoration.apply(text)
            return text
        if a.rule == "percent":
            assert isinstance(value, Decimal)
            if prec is None or prec < 2:
                raise EvalError(f"percent display needs precision 2 or more; {node.name} has {prec if prec is not None else 'none'}", "PRECISION")
            return fixed(value * 100, prec - 2) + "%"
        if a.rule == "nbsp":
            assert isinstance(value, str)
            return nbsp_render(value)
        assert isinstance(value, Decimal) and unit
        return render(value, prec) + " " + format_unit(unit)

    def cross_sheet_aggregate(self, node: Node) -> bool:
        e = node.expr
        if not (isinstance(e, syntax.Call) and is_reduce(e.name) and e.args and isinstance(e.args[-1], syntax.Ref)):
            return False
        r = self.resolve(node.sheet, e.args[-1])
        return r.kind in ("column", "input") and r.sheet is not None and r.sheet.id != node.sheet

    def warn_unused(self) -> None:
        referenced: set[str] = set()
        used_aliases: set[tuple[str, str]] = set()
        for n in self.m.nodes:
            def walk(e: syntax.Node) -> None:
                if isinstance(e, syntax.Ref):
                    sheet_id = e.qualifier or n.sheet
                    sh = self.m.sheets.get(sheet_id)
                    if sh is not None and e.name in sh.aliases:
                        used_aliases.add((sheet_id, e.name))
                    r = self.resolve(n.sheet, e)
                    if r.node is not None:
                        referenced.add(r.node.id)
                for c in children(e):
                    walk(c)
            walk(n.expr)
            if n.kind == "column" and not n.binding.quoted and n.name != n.binding.name:
                used_aliases.add((n.sheet, n.binding.name))
        for sheet in self.m.sheets.values():  # a report's names count as reads
            for stmt in sheet.reports:
                for ref in stmt.refs:
                    r = self.resolve(sheet.id, ref)
                    if r.node is not None:
                        referenced.add(r.node.id)
        anchored = set(self.anchors_by_id)
        reported = {(f.sheet or "", f.name) for f in self.entries}
        for n in self.m.nodes:
            if n.kind != "scalar" or not n.sheet or n.id in referenced or n.id in anchored or n.id in self.unevaluable:
                continue
            if (n.sheet, n.name) in reported:
                continue
            self.emit(Finding("WARN", n.sheet or None, n.name,
                              suggestion=closest(n.name, {r.rsplit(".", 1)[-1] for r in referenced}),
                              span=(n.stmt.start, n.stmt.end)))
        for sheet in self.m.sheets.values():
            for symbol, (_, span) in sheet.aliases.items():
                if (sheet.id, symbol) not in used_aliases:
                    self.emit(Finding("WARN", sheet.id, symbol, span=span))
