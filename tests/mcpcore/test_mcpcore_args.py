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


# Differential check against the reference implementation (jsonschema) ----------------------
# For schemas of the supported subset and values without integral floats (where we are
# deliberately stricter), our verdict must equal jsonschema's.

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

KEYS = st.sampled_from(["a", "b", "c"])
SCALARS = (
    st.none() | st.booleans() | st.integers(-5, 5)
    | st.floats(allow_nan=False, allow_infinity=False, width=32).filter(lambda f: not f.is_integer())
    | st.text(alphabet="ab", max_size=3)
)
VALUES = st.recursive(
    SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=3), max_leaves=8
)
TYPES = st.sampled_from(["null", "boolean", "integer", "number", "string", "array", "object"])
LEAF_SCHEMAS = st.one_of(
    st.builds(lambda t: {"type": t}, TYPES),
    st.builds(lambda ts: {"type": ts}, st.lists(TYPES, min_size=1, max_size=2, unique=True)),
    st.just({}),
    st.builds(lambda vs: {"enum": vs}, st.lists(SCALARS, min_size=1, max_size=3)),
    st.builds(lambda v: {"const": v}, SCALARS),
    st.builds(lambda n: {"minimum": n}, st.integers(-3, 3)),
    st.builds(lambda n: {"exclusiveMaximum": n}, st.integers(-3, 3)),
    st.builds(lambda n: {"maxLength": n}, st.integers(0, 2)),
    st.just({"type": "string", "pattern": "^a"}),
)


def _object_schema(props: dict, required: list, extra) -> dict:
    schema = {"type": "object", "properties": props, "required": [k for k in required if k in props]}
    if extra is not None:
        schema["additionalProperties"] = extra
    return schema


SCHEMAS = st.recursive(
    LEAF_SCHEMAS,
    lambda inner: st.one_of(
        st.builds(lambda s, n: {"type": "array", "items": s, "maxItems": n}, inner, st.integers(0, 3)),
        st.builds(lambda s: {"type": "array", "items": s, "uniqueItems": True}, inner),
        st.builds(_object_schema, st.dictionaries(KEYS, inner, max_size=2), st.lists(KEYS, max_size=2),
                  st.none() | st.booleans() | inner),
        st.builds(lambda ss: {"anyOf": ss}, st.lists(inner, min_size=1, max_size=2)),
        st.builds(lambda ss: {"oneOf": ss}, st.lists(inner, min_size=1, max_size=2)),
    ),
    max_leaves=5,
)


@settings(max_examples=400, deadline=None)
@given(SCHEMAS, VALUES)
def test_verdicts_match_jsonschema(schema: dict, value) -> None:
    from jsonschema import Draft202012Validator

    expected = Draft202012Validator(schema).is_valid(value)
    assert (check_value(schema, value) == []) == expected, (schema, value, check_value(schema, value))
