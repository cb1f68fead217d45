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

from . import syntax
from .domain import domain_fault
from .model import Model, Node
from .values import canonical

LITERAL_RE = re.compile(r"-?\d+(?:\.\d+)?%?")


class ScenarioError(Exception):
    """A scenario that cannot be applied; the message is the stderr line."""


class _Pairs(list):
    """A JSON object kept as its (key, value) pairs in written order."""


def params_of(model: Model) -> list[Node]:
    return [n for n in model.nodes if n.kind == "scalar" and n.binding.param is not None]


def default_of(node: Node) -> Decimal:
    """A param's default, as declared (a scenario may since have replaced its expression)."""
    assert node.binding.param is not None
    return Decimal(node.binding.param.default_text.rstrip("%")).scaleb(-2 if node.binding.param.percent else 0)


def _value(node: Node) -> Decimal:
    e = node.expr
    if isinstance(e, syntax.Unary):
        return -e.operand.value  # type: ignore[attr-defined]
    return e.value  # type: ignore[attr-defined]


def _unknown_key(model: Model, key: str, params: list[Node]) -> str:
    """Say why a scenario key names no param: a rule, a column, or a likely misspelling."""
    for n in model.nodes:
        if key in (n.id, n.name) and n.kind in ("scalar", "column"):
            return f"visimark: scenario key {key} is a rule, not a param"
    for sheet in model.sheets.values():
        if key in sheet.columns or (key.count(".") == 1 and key.split(".")[0] == sheet.id
                                    and key.split(".")[1] in sheet.columns):
            return f"visimark: scenario key {key} is a column, not a param"
    from .suggest import closest

    names = [p.name for p in params] if "." not in key else [p.id for p in params]
    guess = closest(key, names)
    return f"visimark: scenario key {key} names no param" + (f"; did you mean {guess}?" if guess else "")


def apply_scenario(model: Model, text: str, file: str) -> dict:
    """Validate and apply a scenario; returns {"file", "params": {id: (value, default, source)}}."""
    try:
        # pairs, not a dict: a key written twice must be seen, not silently overwritten
        data = json.loads(text, object_pairs_hook=_Pairs)
    except json.JSONDecodeError as e:
        raise ScenarioError(f"visimark: scenario {file} is not JSON ({e.msg} at line {e.lineno})") from None
    except RecursionError:
        raise ScenarioError(f"visimark: scenario {file} nests too deeply to read") from None
    if not isinstance(data, _Pairs):
        raise ScenarioError(f"visimark: scenario {file} must be a JSON object of param names to strings")
    params = params_of(model)
    by_id = {p.id: p for p in params}
    supplied: dict[str, Decimal] = {}
    seen: set[str] = set()
    for key, raw in data:
        if key in seen:
            raise ScenarioError(f"visimark: scenario key {key} is given twice")
        seen.add(key)
        node = by_id.get(key)
        if node is None and "." not in key:
            hits = [p for p in params if p.name == key]
            if len(hits) > 1:
                raise ScenarioError(f"visimark: scenario key {key} is ambiguous: {', '.join(p.id for p in hits)}")
            node = hits[0] if hits else None
        if node is None:
            raise ScenarioError(_unknown_key(model, key, params))
        if node.id in supplied:
            raise ScenarioError(f"visimark: scenario key {node.name} is given twice")
        if not isinstance(raw, str):
            shown = json.dumps(raw) if not isinstance(raw, (int, float)) or isinstance(raw, bool) else str(raw)
            raise ScenarioError(f"visimark: scenario value for {key} must be a string: write \"{shown.strip(chr(34))}\"")
        lit = raw.strip()
        if not LITERAL_RE.fullmatch(lit):
            raise ScenarioError(f"visimark: scenario value for {key} is not a number: \"{raw}\"")
        b = node.binding
        assert b.param is not None and b.precision is not None
        percent = lit.endswith("%")
        if b.param.percent and not percent:
            raise ScenarioError(f"visimark: {key} is a percent; write \"{lit}%\"")
        # a percent is a way of writing a ratio: `12.5%` is 0.125 wherever a value fits
        value = Decimal(lit.rstrip("%")).scaleb(-2 if percent else 0)
        # trailing zeros are not decimals: "44.0" fits a whole-number param
        places = max(0, -value.normalize().as_tuple().exponent) if value else 0
        if places > b.precision:
            raise ScenarioError(f"visimark: scenario value for {key} has {places} decimal{'s' if places != 1 else ''}; "
                                f"{node.name} declares {b.precision}")
        fault = domain_fault(b.param.clause, value)
        if fault:
            raise ScenarioError(f"visimark: scenario value for {key} {fault}: {lit}")
        supplied[node.id] = value
    out: dict[str, tuple[str, str, str]] = {}
    for p in params:
        default = canonical(_value(p))
        if p.id in supplied:
            v = supplied[p.id]
            p.binding.expr = syntax.Num(p.expr.start, p.expr.end, v, p.binding.precision or 0)
            out[p.id] = (canonical(v), default, "scenario")
        else:
            out[p.id] = (default, default, "default")
    return {"file": file, "params": out}
