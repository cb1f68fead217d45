"""Strict checking of tool arguments (and tool results) against their JSON Schemas.

Why our own checker instead of ``jsonschema`` (which the SDK already depends on):
what the layer needs is *strictness* and messages an agent can act on.  Plain JSON
Schema accepts ``3.0`` as an integer (the float would then reach a handler that was
promised an ``int``) and allows unknown keys unless every object says otherwise;
``jsonschema`` phrases errors around the value (``'3' is not of type 'integer'``)
rather than naming the argument.  Here ``"3"`` and ``3.0`` are not integers,
``true`` is not a number, unknown keys are refused, and every message names the
argument: ``argument 'line': expected integer, got string``.  The subset of JSON
Schema the tools use is small, so this stays one short, fast module.

Strictness about keys comes from :func:`strict_schema`, which returns a copy of a
schema with ``"additionalProperties": false`` written into every object schema that
lists ``properties`` and does not say otherwise; that copy is what ``tools/list``
publishes, so clients see the schema that is enforced.  Apart from integers (see
above) the checker follows JSON Schema 2020-12 semantics for the keywords it knows.

Supported keywords (anything else is refused by :func:`unsupported_keywords`, so a
tool author finds out at start-up, not in production):
``type`` (name or list), ``properties``, ``required``, ``additionalProperties``
(bool or schema), ``items``, ``enum``, ``const``, ``minimum``, ``maximum``,
``exclusiveMinimum``, ``exclusiveMaximum``, ``minLength``, ``maxLength``,
``pattern``, ``minItems``, ``maxItems``, ``uniqueItems``, ``minProperties``,
``maxProperties``, ``anyOf``, ``oneOf``, ``$ref`` to ``#/$defs/NAME``, and the
annotations ``$schema``, ``$id``, ``$defs``, ``title``, ``description``,
``default``, ``examples``, ``format``, ``deprecated``, ``readOnly``,
``writeOnly``, ``$comment``.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator
from typing import Any

VALIDATING_KEYWORDS = frozenset({
    "type", "properties", "required", "additionalProperties", "items", "enum", "const",
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength",
    "pattern", "minItems", "maxItems", "uniqueItems", "minProperties", "maxProperties",
    "anyOf", "oneOf", "$ref",
})
ANNOTATION_KEYWORDS = frozenset({
    "$schema", "$id", "$defs", "title", "description", "default", "examples", "format",
    "deprecated", "readOnly", "writeOnly", "$comment",
})

_JSON_TYPES = ("null", "boolean", "integer", "number", "string", "array", "object")


def json_type(value: Any) -> str:
    """The JSON type name of a decoded JSON value (``bool`` is not an integer here)."""
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
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _has_type(value: Any, name: str) -> bool:
    actual = json_type(value)
    return actual == name or (name == "number" and actual == "integer")


def strict_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """Return a copy of ``schema`` in which objects with ``properties`` refuse unknown keys."""
    result = copy.deepcopy(schema)
    for node in _subschemas(result):
        if "properties" in node and "additionalProperties" not in node:
            node["additionalProperties"] = False
    return result


def _subschemas(schema: Any) -> Iterator[dict[str, Any]]:
    """Every schema object inside ``schema`` (itself included), depth first."""
    if not isinstance(schema, dict):
        return
    yield schema
    for key in ("properties", "$defs"):
        for sub in (schema.get(key) or {}).values():
            yield from _subschemas(sub)
    for key in ("items", "additionalProperties"):
        yield from _subschemas(schema.get(key))
    for key in ("anyOf", "oneOf"):
        for sub in schema.get(key) or ():
            yield from _subschemas(sub)


def unsupported_keywords(schema: dict[str, Any]) -> list[str]:
    """Keywords used in ``schema`` that this checker does not implement (empty when fine)."""
    found = []
    for node in _subschemas(schema):
        for key in node:
            if key not in VALIDATING_KEYWORDS and key not in ANNOTATION_KEYWORDS:
                found.append(key)
        for name in _type_names(node):
            if name not in _JSON_TYPES:
                found.append(f"type {name!r}")
        ref = node.get("$ref")
        if ref is not None and not (isinstance(ref, str) and ref.startswith("#/$defs/")):
            found.append(f"$ref {ref!r}")
    return sorted(set(found))


def _type_names(schema: dict[str, Any]) -> list[str]:
    declared = schema.get("type")
    if declared is None:
        return []
    return [declared] if isinstance(declared, str) else list(declared)


def check_arguments(schema: dict[str, Any], arguments: dict[str, Any]) -> list[str]:
    """Check tool ``arguments`` against a (strict) input schema; return one message per problem.

    Top-level keys are reported as arguments: ``unknown argument 'x'``,
    ``missing required argument 'line'``, ``argument 'line': expected integer, got
    string``; nested places are written ``argument 'anchor.line'`` or ``'items[2]'``.
    """
    return list(_check(schema, arguments, "", schema))


def check_value(schema: dict[str, Any], value: Any) -> list[str]:
    """Check any value (e.g. a tool result) against ``schema``; messages name the JSON path."""
    return list(_check(schema, value, "", schema))


def _where(path: str) -> str:
    return f"argument '{path}'" if path else "value"


def _child(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _check(schema: Any, value: Any, path: str, root: dict[str, Any]) -> Iterator[str]:
    """Yield the problems of ``value`` at ``path`` against ``schema``."""
    if schema is True or schema == {}:
        return
    if schema is False:
        yield f"{_where(path)}: not allowed"
        return
    ref = schema.get("$ref")
    if ref is not None:
        target = (root.get("$defs") or {}).get(ref.removeprefix("#/$defs/"))
        if target is None:
            yield f"{_where(path)}: schema reference {ref!r} not found"
            return
        yield from _check(target, value, path, root)

    names = _type_names(schema)
    if names and not any(_has_type(value, name) for name in names):
        yield f"{_where(path)}: expected {' or '.join(names)}, got {json_type(value)}"
        return
    if "const" in schema and not _same(value, schema["const"]):
        yield f"{_where(path)}: must be {_show(schema['const'])}"
    if "enum" in schema and not any(_same(value, option) for option in schema["enum"]):
        options = ", ".join(_show(option) for option in schema["enum"])
        yield f"{_where(path)}: must be one of {options}, got {_show(value)}"

    kind = json_type(value)
    if kind in ("integer", "number"):
        yield from _check_number(schema, value, path)
    elif kind == "string":
        yield from _check_string(schema, value, path)
    elif kind == "array":
        yield from _check_array(schema, value, path, root)
    elif kind == "object":
        yield from _check_object(schema, value, path, root)

    for key in ("anyOf", "oneOf"):
        options = schema.get(key)
        if options is None:
            continue
        matching = sum(1 for option in options if not any(_check(option, value, path, root)))
        if matching == 0:
            yield f"{_where(path)}: does not match any allowed form"
        elif key == "oneOf" and matching > 1:
            yield f"{_where(path)}: matches more than one allowed form"


def _check_number(schema: dict[str, Any], value: int | float, path: str) -> Iterator[str]:
    if "minimum" in schema and value < schema["minimum"]:
        yield f"{_where(path)}: must be >= {schema['minimum']}, got {value}"
    if "maximum" in schema and value > schema["maximum"]:
        yield f"{_where(path)}: must be <= {schema['maximum']}, got {value}"
    if "exclusiveMinimum" in schema and value <= schema["exclusiveMinimum"]:
        yield f"{_where(path)}: must be > {schema['exclusiveMinimum']}, got {value}"
    if "exclusiveMaximum" in schema and value >= schema["exclusiveMaximum"]:
        yield f"{_where(path)}: must be < {schema['exclusiveMaximum']}, got {value}"


def _check_string(schema: dict[str, Any], value: str, path: str) -> Iterator[str]:
    if "minLength" in schema and len(value) < schema["minLength"]:
        yield f"{_where(path)}: must be at least {schema['minLength']} characters long"
    if "maxLength" in schema and len(value) > schema["maxLength"]:
        yield f"{_where(path)}: must be at most {schema['maxLength']} characters long"
    if "pattern" in schema and re.search(schema["pattern"], value) is None:
        yield f"{_where(path)}: must match the pattern {schema['pattern']!r}"


def _check_array(schema: dict[str, Any], value: list[Any], path: str, root: dict[str, Any]) -> Iterator[str]:
    if "minItems" in schema and len(value) < schema["minItems"]:
        yield f"{_where(path)}: must have at least {schema['minItems']} items"
    if "maxItems" in schema and len(value) > schema["maxItems"]:
        yield f"{_where(path)}: must have at most {schema['maxItems']} items"
    if schema.get("uniqueItems"):
        for index, item in enumerate(value):
            if any(_same(item, earlier) for earlier in value[:index]):
                yield f"{_where(path)}: items must be unique (item {index} repeats an earlier one)"
                break
    items = schema.get("items")
    if items is not None:
        for index, item in enumerate(value):
            yield from _check(items, item, f"{path}[{index}]", root)


def _check_object(schema: dict[str, Any], value: dict[str, Any], path: str, root: dict[str, Any]) -> Iterator[str]:
    properties: dict[str, Any] = schema.get("properties") or {}
    for key in schema.get("required") or ():
        if key not in value:
            if path:
                yield f"argument '{path}': missing required key '{key}'"
            else:
                yield f"missing required argument '{key}'"
    if "minProperties" in schema and len(value) < schema["minProperties"]:
        yield f"{_where(path)}: must have at least {schema['minProperties']} keys"
    if "maxProperties" in schema and len(value) > schema["maxProperties"]:
        yield f"{_where(path)}: must have at most {schema['maxProperties']} keys"
    extra = schema.get("additionalProperties", True)
    for key, item in value.items():
        if key in properties:
            yield from _check(properties[key], item, _child(path, key), root)
        elif extra is False:
            if path:
                yield f"argument '{path}': unknown key '{key}'"
            else:
                yield f"unknown argument '{key}'"
        elif isinstance(extra, dict):
            yield from _check(extra, item, _child(path, key), root)


def _same(a: Any, b: Any) -> bool:
    """JSON equality: ``1 == True`` is false here, ``1 == 1.0`` is true."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return a == b


def _show(value: Any) -> str:
    """A short JSON-ish rendering of a value for messages."""
    if isinstance(value, str):
        return f"'{value}'"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
