"""validate.py agrees with the published JSON schema (mrsf.schema.json) on every document:
it reports a schema-level error exactly when the schema rejects the sidecar.

(The schema's ``date-time`` format is not checked by jsonschema without an optional
package, so generated timestamps are either valid or of the wrong type.)"""

from __future__ import annotations

import json

import jsonschema
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import shared_dir
from markmcp.mrsf.sidecar import parse_sidecar
from markmcp.mrsf.validate import validate

SCHEMA_CODES = {
    "missing-field", "invalid-type", "invalid-version", "unsupported-version", "invalid-enum",
    "below-minimum", "text-too-long", "selected-text-too-long", "anchored-text-too-long", "invalid-hash",
}


def schema_validator():
    path = shared_dir("mrsf", "schemas") / "mrsf.schema.json"
    return jsonschema.Draft202012Validator(json.loads(path.read_text(encoding="utf-8")))


def schema_errors(result) -> bool:
    return any(d["code"] in SCHEMA_CODES for d in result["errors"])


def test_examples_are_schema_valid_and_clean():
    checker = schema_validator()
    for path in sorted(shared_dir("mrsf", "examples").glob("*.review.yaml")):
        sc = parse_sidecar(path.read_text(encoding="utf-8"))
        assert checker.is_valid(sc.plain())
        assert not schema_errors(validate(sc))


values = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 5), st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(["", "x", "low", "urgent", "1.0", "2.0", "1.10", "1.0.0", "a" * 64, "A" * 64, "x" * 4097]),
    st.lists(st.integers(), max_size=2), st.dictionaries(st.sampled_from(["k"]), st.integers(), max_size=1),
)
fields = ["id", "author", "timestamp", "text", "resolved", "commit", "type", "severity", "reply_to", "line",
          "end_line", "start_column", "end_column", "selected_text", "anchored_text", "selected_text_hash"]
base_comment = {"id": "c", "author": "a", "timestamp": "2026-01-01T00:00:00Z", "text": "t", "resolved": False}
good_values = {
    "commit": "abc", "type": "issue", "severity": "low", "reply_to": "c", "line": 2, "end_line": 3,
    "start_column": 0, "end_column": 4, "selected_text": "x", "anchored_text": "y",
    "selected_text_hash": "a" * 64,
}
comment = st.builds(
    lambda extra, drop, changes: {
        **{k: v for k, v in base_comment.items() if k not in drop},
        **{k: good_values[k] for k in extra}, **changes,
    },
    st.sets(st.sampled_from(sorted(good_values)), max_size=4),
    st.sets(st.sampled_from(sorted(base_comment)), max_size=1),
    st.dictionaries(st.sampled_from([f for f in fields if f != "timestamp"]), values, max_size=1),
)
valid_top = st.builds(
    lambda comments: {"mrsf_version": "1.0", "document": "a.md", "comments": comments},
    st.lists(comment, max_size=3),
)
mutated_top = st.builds(
    lambda doc, key, value: {**doc, key: value} if key else {k: v for k, v in doc.items() if k != "document"},
    valid_top, st.sampled_from(["mrsf_version", "document", "comments", None]), values,
)
top = st.one_of(valid_top, mutated_top)


@settings(max_examples=400, deadline=None)
@given(data=top)
def test_schema_errors_iff_schema_rejects(data):
    checker = schema_validator()
    result = validate(data)
    assert schema_errors(result) == (not checker.is_valid(data)), (data, result["errors"])
