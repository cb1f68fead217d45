"""Sidecar values as plain Python: their type names for messages, the plain copy every
reader and edit makes, equality as the writers' proofs need it, and the limits on
nesting and on what YAML aliases may expand to."""

from __future__ import annotations

import datetime as _dt
import math
from typing import Any

from ..errors import MrsfError
from ..yamlscan import Binary

#: Deepest nesting of lists/mappings accepted in a sidecar (guards recursion limits).
MAX_DEPTH = 64
#: Upper bound on nodes produced when converting to plain data (guards alias bombs).
_MAX_PLAIN_NODES = 2_000_000


def type_name(value: Any) -> str:
    """JSON-ish name of a value's type, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (_dt.date, _dt.datetime)):
        return "timestamp"
    if isinstance(value, dict):
        return "mapping"
    if isinstance(value, list):
        return "list"
    return type(value).__name__


def to_plain(value: Any) -> Any:
    """Convert data to plain JSON-able Python (str, int, float, bool, None, list, dict),
    always a fresh copy.

    Dates and times (which the readers here no longer construct) become ISO-8601
    strings, ``!!binary`` values :class:`Binary` (their base64 text, a string of its own
    type); aliases are expanded within a node budget (MrsfError ``invalid-sidecar``
    beyond it).
    """
    budget = [_MAX_PLAIN_NODES]

    def conv(v: Any) -> Any:
        budget[0] -= 1
        if budget[0] < 0:
            raise MrsfError("invalid-sidecar", "the sidecar expands to too many nodes (YAML aliases?)")
        if isinstance(v, dict):
            return {str(k): conv(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [conv(x) for x in v]
        if isinstance(v, bool) or v is None:
            return v
        if isinstance(v, Binary):
            return Binary(v)
        if isinstance(v, (bytes, bytearray)):  # a YAML !!binary value
            return Binary.of(bytes(v))
        if isinstance(v, str):
            return str(v)
        if isinstance(v, int):
            return int(v)
        if isinstance(v, float):
            return float(v)
        if isinstance(v, _dt.datetime):
            return v.isoformat()
        if isinstance(v, _dt.date):
            return v.isoformat()
        return str(v)

    try:
        return conv(value)
    except RecursionError:
        raise MrsfError("invalid-sidecar", "the sidecar nests values too deeply (YAML aliases?)") from None


def same_value(a: Any, b: Any) -> bool:
    """Plain values equal in type and value (``1``, ``1.0`` and ``True`` differ; NaN
    equals NaN)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        if len(a) != len(b) or list(a) != list(b):
            return False
        return all(same_value(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return a == b


def _depth_over(data: Any, limit: int) -> bool:
    """True when lists/mappings nest deeper than ``limit`` (iterative: no recursion)."""
    stack = [(data, 0)]
    seen: set[int] = set()
    while stack:
        node, depth = stack.pop()
        if isinstance(node, (dict, list)):
            if depth >= limit:
                return True
            if id(node) in seen:  # a YAML alias: already measured
                continue
            seen.add(id(node))
            children = node.values() if isinstance(node, dict) else node
            stack.extend((child, depth + 1) for child in children)
    return False


def _expands_over(data: Any, limit: int) -> bool:
    """True when ``data`` with every alias expanded has more than ``limit`` values (lists
    and mappings counted once per place they appear, each shared one measured once)."""
    sizes: dict[int, int] = {}
    stack: list[tuple[Any, bool]] = [(data, False)]
    while stack:
        node, done = stack.pop()
        if not isinstance(node, (dict, list)) or (not done and id(node) in sizes):
            continue
        children = list(node.values() if isinstance(node, dict) else node)
        if not done:
            sizes[id(node)] = 0  # in progress (a recursive alias counts as one value)
            stack.append((node, True))
            stack.extend((child, False) for child in children)
            continue
        total = 1 + sum(sizes.get(id(child), 1) if isinstance(child, (dict, list)) else 1 for child in children)
        if total > limit:
            return True
        sizes[id(node)] = total
    return False
