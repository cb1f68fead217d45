"""Validation verdicts where the JSON schema's formats and patterns are exacting: the
``date-time`` format of ``timestamp`` (RFC 3339, as the JSON Schema test suite reads it),
the ``mrsf_version`` pattern (JavaScript's ``\\d`` is ASCII only), and the same-line rule of
``end_column`` (MRSF 7.1).  Found by comparing verdicts with the reference validator."""

from __future__ import annotations

import pytest

from markmcp.mrsf.sidecar import parse_sidecar
from markmcp.mrsf.validate import is_rfc3339, validate

HEAD = 'mrsf_version: "1.0"\ndocument: a.md\ncomments:\n'


def comment(**fields: str) -> str:
    base = {"id": '"c1"', "author": "A", "timestamp": '"2026-01-02T03:04:05Z"', "text": "t", "resolved": "false"}
    base.update(fields)
    return "".join(("  - " if n == 0 else "    ") + f"{k}: {v}\n" for n, (k, v) in enumerate(base.items()))


def verdict(text: str) -> tuple[bool, list[str]]:
    result = validate(parse_sidecar(text))
    return result["valid"], [d["code"] for d in result["errors"]]


@pytest.mark.parametrize("value", [
    "1998-12-31T23:59:60Z",             # a leap second
    "1998-12-31T15:59:60.123-08:00",    # the same UTC minute, written with an offset
    "1999-01-01T00:59:60+01:00",
    "0000-01-01T00:00:00Z",             # year zero is a four-digit year
    "0000-02-29T00:00:00Z",             # and a leap year (divisible by 400)
    "2024-02-29T00:00:00Z",
    "2026-01-02t03:04:05z",
])
def test_rfc3339_date_times_are_accepted(value):
    assert is_rfc3339(value)
    assert verdict(HEAD + comment(timestamp=f'"{value}"')) == (True, [])


@pytest.mark.parametrize("value", [
    "1998-12-31T22:59:60Z",             # second 60 outside the last minute of a UTC day
    "1998-12-31T23:58:60Z",
    "2026-06-30T23:59:60+01:00",        # 22:59 UTC
    "2026-01-02T03:04:60Z",
    "2026-01-02T03:04:61Z",
    "\uff12\uff10\uff12\uff16-01-02T03:04:05Z",   # full-width digits
    "2026-01-02T03:04:05+01:\u0660\u0660",       # Arabic-Indic digits in the offset
    "2023-02-29T00:00:00Z",
    "0100-02-29T00:00:00Z",             # divisible by 100, not by 400
    "2026-01-02T03:04:05+0100",         # RFC 3339 offsets have a colon
])
def test_non_rfc3339_date_times_are_rejected(value):
    assert not is_rfc3339(value)
    assert verdict(HEAD + comment(timestamp=f'"{value}"')) == (False, ["invalid-timestamp"])


@pytest.mark.parametrize("version", ["1.\u0663", "\uff11.0", "1.\uff10"])
def test_mrsf_version_digits_are_ascii(version):
    valid, errors = verdict(f'mrsf_version: "{version}"\ndocument: a.md\ncomments: []\n')
    assert (valid, errors) == (False, ["invalid-version"])


def test_mrsf_version_minor_of_several_digits_is_fine():
    assert verdict('mrsf_version: "1.10"\ndocument: a.md\ncomments: []\n') == (True, [])


@pytest.mark.parametrize("fields, valid", [
    ({"end_line": "1"}, False),                      # no line: one line, end before start
    ({}, False),                                     # neither line nor end_line
    ({"line": "2"}, False),
    ({"line": "2", "end_line": "2"}, False),
    ({"line": "2", "end_line": "3"}, True),          # a multi-line span: columns independent
])
def test_end_column_before_start_column_on_one_line(fields, valid):
    text = HEAD + comment(**fields, start_column="5", end_column="2")
    assert verdict(text) == (valid, [] if valid else ["end-column-before-start-column"])


# YAML 1.2 has no timestamp type: an unquoted timestamp is the string it is written as, on
# both readers (the fast one, and the full one a tab elsewhere in the item sends it to).
@pytest.mark.parametrize("tail", ["", "    x_note: a\tb\n"])
@pytest.mark.parametrize("written, valid", [
    ("2026-01-02T03:04:05Z", True),
    ("2026-01-02T03:04:05.5+01:00", True),
    ("2026-01-02 03:04:05Z", True),             # a space for the T, as RFC 3339 allows
    ("2026-01-02 03:04:05 +01:00", False),      # YAML 1.1 timestamps are not RFC 3339
    ("2001-12-14 21:59:43.10 -5", False),
    ("2026-01-02t03:04:05", False),
    ("2026-01-02", False),
])
def test_unquoted_timestamps_are_read_and_judged_as_written(written, valid, tail):
    text = HEAD + comment(timestamp=written) + tail
    assert parse_sidecar(text).data["comments"][0]["timestamp"] == written
    assert verdict(text) == (valid, [] if valid else ["invalid-timestamp"])


def test_a_merge_key_is_an_ordinary_key_as_in_yaml_1_2():
    text = HEAD + comment() + "  - <<: *base\n    id: c2\n"
    text = text.replace("  - id: \"c1\"", "  - &base\n    id: \"c1\"")
    data = parse_sidecar(text).data["comments"]
    assert data[1] == {"<<": data[0], "id": "c2"}
    valid, errors = verdict(text)
    assert not valid and errors == ["missing-field"] * 4
