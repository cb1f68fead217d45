"""``eval --scenario``: replace declared params' defaults with a scenario's values.

A scenario is a flat JSON object; every key names a declared param (``sheet.name``, or a
bare name when unambiguous) and every value is a JSON string holding a number literal
that fits the param's width, its percent-ness and its domain.  Any fault is a
ScenarioError (exit 2, JSON code ``SCENARIO``) and nothing is evaluated.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal

from . import lang
from .domain import domain_fault
from .model import Model, Node
from .values import canonical

LITERAL_RE = re.compile(r"-?\d+(?:\.\d+)?%?")


class ScenarioError(Exception):
    """A scenario that cannot be applied; the message is the stderr line."""


def params_of(model: Model) -> list[Node]:
    return [n for n in model.nodes if n.kind == "scalar" and n.binding.param is not None]


def _value(node: Node) -> Decimal:
    e = node.expr
    if isinstance(e, lang.Unary):
        return -e.operand.value  # type: ignore[attr-defined]
    return e.value  # type: ignore[attr-defined]


def apply_scenario(model: Model, text: str, file: str) -> dict:
    """Validate and apply a scenario; returns {"file", "params": {id: (value, default, source)}}."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise ScenarioError(f"visimark: scenario {file} is not JSON ({e.msg} at line {e.lineno})") from None
    if not isinstance(data, dict):
        raise ScenarioError(f"visimark: scenario {file} must be a JSON object of param names to strings")
    params = params_of(model)
    by_id = {p.id: p for p in params}
    supplied: dict[str, Decimal] = {}
    for key, raw in data.items():
        node = by_id.get(key)
        if node is None:
            hits = [p for p in params if p.name == key]
            node = hits[0] if len(hits) == 1 else None
        if node is None:
            from .suggest import closest

            guess = closest(key, list(by_id))
            raise ScenarioError(f"visimark: scenario key {key} names no declared param"
                                + (f" — did you mean `{guess}`?" if guess else ""))
        if not isinstance(raw, str):
            raise ScenarioError(f"visimark: scenario value for {key} must be a string holding a number, such as \"12.5%\"")
        lit = raw.strip()
        if not LITERAL_RE.fullmatch(lit):
            raise ScenarioError(f"visimark: scenario value {raw!r} for {key} is not a number literal")
        b = node.binding
        assert b.param is not None and b.precision is not None
        percent = lit.endswith("%")
        if b.param.percent and not percent:
            raise ScenarioError(f"visimark: {key} is a percent param; write its value as a percent, such as \"{lit}%\"")
        if percent and not b.param.percent:
            raise ScenarioError(f"visimark: {key} is not a percent param; write {lit[:-1]} as a plain number")
        digits = lit.rstrip("%").lstrip("-")
        places = (len(digits.split(".")[1]) if "." in digits else 0) + (2 if percent else 0)
        if places > b.precision:
            raise ScenarioError(f"visimark: scenario value {lit} for {key} is wider than its precision {b.precision}")
        value = Decimal(lit.rstrip("%")) / (100 if percent else 1)
        fault = domain_fault(b.param.clause, value)
        if fault:
            raise ScenarioError(f"visimark: scenario value for {key} {fault}: {lit}")
        supplied[node.id] = value
    out: dict[str, tuple[str, str, str]] = {}
    for p in params:
        default = canonical(_value(p))
        if p.id in supplied:
            v = supplied[p.id]
            p.binding.expr = lang.Num(p.expr.start, p.expr.end, v, p.binding.precision or 0)
            out[p.id] = (canonical(v), default, "scenario")
        else:
            out[p.id] = (default, default, "default")
    return {"file": file, "params": out}
