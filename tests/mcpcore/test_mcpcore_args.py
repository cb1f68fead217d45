"""Strict argument checking (markmcp.mcpcore.args): no coercion, named arguments, unknown keys refused."""

from __future__ import annotations

import pytest

from markmcp.mcpcore.args import check_arguments, check_value, strict_schema, unsupported_keywords

SCHEMA = strict_schema({
    "type": "object",
    "properties": {
        "line": {"type": "integer", "minimum": 1},
        "text": {"type": "string", "minLength": 1},
        "ratio": {"type": "number"},
        "flag": {"type": "boolean"},
        "mode": {"enum": ["fast", "slow"]},
        "anchor": {
            "type": "object",
            "properties": {"line": {"type": "integer"}},
            "required": ["line"],
        },
        "lines": {"type": "array", "items": {"type": "integer"}, "maxItems": 3},
        "maybe": {"type": ["string", "null"]},
        "extra": {"type": "object"},
    },
    "required": ["line"],
})


def test_valid_arguments_pass() -> None:
    args = {"line": 3, "text": "x", "ratio": 2, "flag": False, "mode": "fast",
            "anchor": {"line": 1}, "lines": [1, 2], "maybe": None, "extra": {"anything": [1]}}
    assert check_arguments(SCHEMA, args) == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"line": "3"}, "argument 'line': expected integer, got string"),
        ({"line": 3.0}, "argument 'line': expected integer, got number"),
        ({"line": True}, "argument 'line': expected integer, got boolean"),
        ({"line": 3, "flag": 1}, "argument 'flag': expected boolean, got integer"),
        ({"line": 3, "ratio": "0.5"}, "argument 'ratio': expected number, got string"),
        ({}, "missing required argument 'line'"),
        ({"line": 3, "colour": "red"}, "unknown argument 'colour'"),
        ({"line": 0}, "argument 'line': must be >= 1, got 0"),
        ({"line": 3, "mode": "medium"}, "argument 'mode': must be one of 'fast', 'slow', got 'medium'"),
        ({"line": 3, "anchor": {}}, "argument 'anchor': missing required key 'line'"),
        ({"line": 3, "anchor": {"line": 1, "col": 2}}, "argument 'anchor': unknown key 'col'"),
        ({"line": 3, "anchor": {"line": "1"}}, "argument 'anchor.line': expected integer, got string"),
        ({"line": 3, "lines": [1, "2"]}, "argument 'lines[1]': expected integer, got string"),
        ({"line": 3, "lines": [1, 2, 3, 4]}, "argument 'lines': must have at most 3 items"),
        ({"line": 3, "maybe": 5}, "argument 'maybe': expected string or null, got integer"),
        ({"line": 3, "text": ""}, "argument 'text': must be at least 1 characters long"),
    ],
)
def test_each_violation_is_named(args: dict, message: str) -> None:
    assert check_arguments(SCHEMA, args) == [message]


def test_all_problems_are_reported() -> None:
    problems = check_arguments(SCHEMA, {"line": "x", "colour": 1})
    assert problems == ["argument 'line': expected integer, got string", "unknown argument 'colour'"]


def test_strict_schema_keeps_explicit_additional_properties() -> None:
    open_schema = strict_schema({"type": "object", "properties": {"a": {}}, "additionalProperties": True})
    assert check_arguments(open_schema, {"a": 1, "b": 2}) == []
    typed = strict_schema({"type": "object", "properties": {}, "additionalProperties": {"type": "integer"}})
    assert check_arguments(typed, {"b": "x"}) == ["argument 'b': expected integer, got string"]


def test_strict_schema_does_not_modify_its_input() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "object", "properties": {}}}}
    strict = strict_schema(schema)
    assert "additionalProperties" not in schema
    assert strict["additionalProperties"] is False
    assert strict["properties"]["a"]["additionalProperties"] is False


def test_refs_any_of_and_one_of() -> None:
    schema = strict_schema({
        "type": "object",
        "$defs": {"pos": {"type": "integer", "minimum": 0}},
        "properties": {
            "at": {"$ref": "#/$defs/pos"},
            "either": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
            "exactly": {"oneOf": [{"type": "integer"}, {"type": "number"}]},
        },
    })
    assert check_arguments(schema, {"at": 2, "either": "x", "exactly": 1.5}) == []
    assert check_arguments(schema, {"at": -1}) == ["argument 'at': must be >= 0, got -1"]
    assert check_arguments(schema, {"either": None}) == ["argument 'either': does not match any allowed form"]
    assert check_arguments(schema, {"exactly": 2}) == ["argument 'exactly': matches more than one allowed form"]


def test_const_and_enum_distinguish_booleans_from_numbers() -> None:
    schema = {"type": "object", "properties": {"v": {"const": 1}, "w": {"enum": [True]}}}
    assert check_arguments(schema, {"v": True}) == ["argument 'v': must be 1"]
    assert check_arguments(schema, {"w": 1}) == ["argument 'w': must be one of true, got 1"]


def test_check_value_names_paths_of_results() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    assert check_value(schema, {"n": 1}) == []
    assert check_value(schema, {"n": "1"}) == ["argument 'n': expected integer, got string"]


def test_unsupported_keywords_are_listed() -> None:
    assert unsupported_keywords(SCHEMA) == []
    schema = {"type": "object", "properties": {"a": {"type": "strnig", "if": {}}}, "patternProperties": {}}
    assert unsupported_keywords(schema) == ["if", "patternProperties", "type 'strnig'"]
