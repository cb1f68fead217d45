"""validate.py: the six examples are clean; every diagnostic code fires on a crafted sidecar."""

from __future__ import annotations

import pytest

from conftest import shared_dir
from markmcp.mrsf.errors import MrsfError
from markmcp.mrsf.sidecar import parse_sidecar
from markmcp.mrsf.validate import sha256_hex, validate

EXAMPLES = ["api-reference", "architecture", "contributing", "data-model", "deployment-guide", "security-policy"]

HEAD = 'mrsf_version: "1.0"\ndocument: docs/a.md\ncomments:\n'
GOOD = (
    "  - id: c1\n"
    "    author: A (a)\n"
    '    timestamp: "2026-01-01T00:00:00Z"\n'
    "    text: hello\n"
    "    resolved: false\n"
)


def run(text: str, **kw):
    return validate(parse_sidecar(text), **kw)


def codes(result, kind="errors"):
    return [d["code"] for d in result[kind]]


LINE_ONLY = {  # the scenarios' line-only comments: upstream warns about them too
    "architecture": ["1d3c72b0"],
    "contributing": ["00000000-0001-4000-8000-bbbbbbbbbbbb", "00000000-0004-4000-8000-bbbbbbbbbbbb"],
}


@pytest.mark.parametrize("name", EXAMPLES)
def test_examples_validate_clean(name):
    path = shared_dir("mrsf", "examples") / f"{name}.md.review.yaml"
    result = run(path.read_text(encoding="utf-8"))
    assert result["valid"] and result["errors"] == []
    assert [(w["code"], w["commentId"]) for w in result["warnings"]] == [
        ("missing-selected-text", cid) for cid in LINE_ONLY.get(name, [])]
    strict = run(path.read_text(encoding="utf-8"), strict=True)
    assert strict["valid"] is (name not in LINE_ONLY)


def test_examples_against_their_documents_report_the_scenarios():
    """The example scenarios (stale lines, deleted sections) show up as warnings, never errors."""
    folder = shared_dir("mrsf", "examples")
    found = {}
    for name in EXAMPLES:
        sc = parse_sidecar((folder / f"{name}.md.review.yaml").read_text(encoding="utf-8"))
        result = validate(sc, document_text=(folder / f"{name}.md").read_text(encoding="utf-8"))
        assert result["errors"] == [] and result["valid"]
        found[name] = sorted({(w["code"], w["commentId"]) for w in result["warnings"]})
    assert found["data-model"] == []
    assert found["architecture"] == [("missing-selected-text", "1d3c72b0")]
    # contributing: comments B, C, E point past the end of the shrunken document
    assert ("line-out-of-range", "00000000-0003-4000-8000-bbbbbbbbbbbb") in found["contributing"]
    assert {c for c, _ in found["contributing"]} == {"line-out-of-range", "stale-selected-text", "missing-selected-text"}
    # api-reference: lines were inserted above: text is elsewhere
    assert {c for c, _ in found["api-reference"]} == {"stale-selected-text"}


def test_good_minimal_sidecar():
    assert run(HEAD + GOOD, strict=True)["valid"]
    assert run(HEAD.replace("comments:\n", "comments: []\n"), strict=True)["valid"]


CASES = [
    # (code, severity, sidecar text, expected json path)
    ("missing-field", "error", 'document: a.md\ncomments: []\n', "/mrsf_version"),
    ("missing-field", "error", HEAD + GOOD.replace("    author: A (a)\n", ""), "/comments/0"),
    ("invalid-type", "error", 'mrsf_version: 1.0\ndocument: a.md\ncomments: []\n', "/mrsf_version"),
    ("invalid-type", "error", HEAD.replace("comments:\n", "comments: {}\n"), "/comments"),
    ("invalid-type", "error", HEAD + "  - just a string\n", "/comments/0"),
    ("invalid-type", "error", HEAD + GOOD.replace("resolved: false", 'resolved: "no"'), "/comments/0/resolved"),
    ("invalid-type", "error", HEAD + GOOD + '    line: "3"\n', "/comments/0/line"),
    ("invalid-type", "error", HEAD + GOOD.replace("id: c1", "id: 12"), "/comments/0/id"),
    ("invalid-version", "error", HEAD.replace('"1.0"', '"one"'), "/mrsf_version"),
    ("unsupported-version", "error", HEAD.replace('"1.0"', '"2.0"'), "/mrsf_version"),
    ("invalid-timestamp", "error", HEAD + GOOD.replace("2026-01-01T00:00:00Z", "2026-01-01T00:00:00"), "/comments/0/timestamp"),
    ("invalid-timestamp", "error", HEAD + GOOD.replace('"2026-01-01T00:00:00Z"', "2026-01-01 10:00:00"), "/comments/0/timestamp"),
    ("invalid-enum", "error", HEAD + GOOD + "    severity: urgent\n", "/comments/0/severity"),
    ("below-minimum", "error", HEAD + GOOD + "    line: 0\n", "/comments/0/line"),
    ("below-minimum", "error", HEAD + GOOD + "    line: 1\n    start_column: -1\n", "/comments/0/start_column"),
    ("text-too-long", "error", HEAD + GOOD.replace("text: hello", "text: " + "x" * 16385), "/comments/0/text"),
    ("selected-text-too-long", "error", HEAD + GOOD + "    selected_text: " + "y" * 4097 + "\n", "/comments/0/selected_text"),
    ("anchored-text-too-long", "error", HEAD + GOOD + "    anchored_text: " + "y" * 4097 + "\n", "/comments/0/anchored_text"),
    ("invalid-hash", "error", HEAD + GOOD + "    selected_text: a\n    selected_text_hash: ABC\n", "/comments/0/selected_text_hash"),
    ("duplicate-id", "error", HEAD + GOOD + GOOD, "/comments/1/id"),
    ("end-line-before-line", "error", HEAD + GOOD + "    line: 5\n    end_line: 4\n", "/comments/0/end_line"),
    ("end-column-before-start-column", "error", HEAD + GOOD + "    line: 5\n    start_column: 9\n    end_column: 3\n", "/comments/0/end_column"),
    ("hash-mismatch", "warning", HEAD + GOOD + "    selected_text: a\n    selected_text_hash: " + sha256_hex("b") + "\n", "/comments/0/selected_text_hash"),
    ("unresolved-reply-to", "warning", HEAD + GOOD + "    reply_to: nobody\n", "/comments/0/reply_to"),
    ("reply-to-self", "warning", HEAD + GOOD + "    reply_to: c1\n", "/comments/0/reply_to"),
    ("missing-selected-text", "warning", HEAD + GOOD + "    line: 2\n", "/comments/0/line"),
    ("reply-cycle", "warning", HEAD + GOOD + "    reply_to: c2\n" + GOOD.replace("c1", "c2") + "    reply_to: c1\n", "/comments/0/reply_to"),
    ("orphaned-anchor", "warning", HEAD + GOOD + "    x_reanchor_status: orphaned\n", "/comments/0/x_reanchor_status"),
    ("unsafe-document-path", "warning", HEAD.replace("docs/a.md", "../../etc/passwd") + GOOD, "/document"),
]


@pytest.mark.parametrize("code,severity,text,path", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_each_code(code, severity, text, path):
    result = run(text)
    bucket = result["errors"] if severity == "error" else result["warnings"]
    hits = [d for d in bucket if d["code"] == code]
    assert hits, (code, result)
    assert hits[0]["path"] == path
    assert hits[0]["severity"] == severity
    assert hits[0]["message"]
    assert result["valid"] is (severity == "warning" and not result["errors"])
    # strict: the warning becomes an error with the same code
    strict = run(text, strict=True)
    assert code in codes(strict) and strict["warnings"] == [] and not strict["valid"]


def test_diagnostics_carry_sidecar_line_column_and_comment_id():
    text = HEAD + GOOD + GOOD.replace("c1", "c2") + "    line: 4\n    end_line: 2\n"
    result = run(text)
    diag = next(d for d in result["errors"] if d["code"] == "end-line-before-line")
    assert diag["commentId"] == "c2" and diag["index"] == 1
    assert (diag["line"], diag["column"]) == (text.split("\n").index("    end_line: 2") + 1, 5)


def test_invalid_items_are_reported_not_dropped():
    text = HEAD + "  - author: nobody\n" + GOOD
    sc = parse_sidecar(text)
    assert len(sc.comments) == 2
    result = validate(sc)
    assert [d for d in result["errors"] if d["code"] == "missing-field" and d["index"] == 0]


DOC = "# T\n\nalpha beta gamma\nsecond line\n"


@pytest.mark.parametrize("extra,code", [
    ("    line: 9\n", "line-out-of-range"),
    ("    line: 3\n    end_line: 8\n", "line-out-of-range"),
    ("    line: 3\n    start_column: 40\n    end_column: 41\n", "column-out-of-range"),
    ("    line: 3\n    selected_text: nowhere\n", "stale-selected-text"),
    ("    line: 4\n    selected_text: alpha beta\n", "stale-selected-text"),
])
def test_document_checks(extra, code):
    result = run(HEAD + GOOD + extra, document_text=DOC)
    assert code in codes(result, "warnings")
    assert code not in codes(run(HEAD + GOOD + extra), "warnings")  # only with the document


def test_document_checks_accept_matching_anchor_and_crlf():
    extra = "    line: 3\n    start_column: 6\n    end_column: 10\n    selected_text: beta\n"
    assert run(HEAD + GOOD + extra, document_text=DOC.replace("\n", "\r\n"))["warnings"] == []


def test_json_sidecar_validates():
    text = '{"mrsf_version": "1.0", "document": "a.md", "comments": [{"id": "x", "author": "a", "timestamp": "2026-01-01T00:00:00+01:00", "text": "t", "resolved": "no"}]}'
    result = validate(parse_sidecar(text, fmt="json"))
    assert codes(result) == ["invalid-type"] and "line" not in result["errors"][0]


from hypothesis import given, strategies as st  # noqa: E402

from markmcp.mrsf.validate import extract_text, index_to_utf16, utf16_len, utf16_to_index  # noqa: E402


@given(st.text(max_size=30), st.data())
def test_utf16_columns_round_trip(text, data):
    index = data.draw(st.integers(0, len(text)))
    column = index_to_utf16(text, index)
    assert column == len(text[:index].encode("utf-16-le")) // 2
    assert utf16_to_index(text, column) == index
    assert utf16_len(text) == len(text.encode("utf-16-le")) // 2


def test_extract_text_uses_utf16_columns():
    lines = ["a😀b😀c", "x😀y"]
    assert extract_text(lines, 1, None, 3, 4) == "b"
    assert extract_text(lines, 1, 2, 3, 1) == "b😀c\nx"
    assert extract_text(lines, 1, None, 0, 99) == "a😀b😀c"


def test_extract_text_cuts_first_and_last_line_in_utf16_units_and_clamps():
    lines = ["a😀bc", "middle", "xy😀z", ""]
    assert extract_text(lines, 1, start_column=1, end_column=3) == "😀"  # the emoji is 2 units
    assert extract_text(lines, 1, 3, start_column=3, end_column=4) == "bc\nmiddle\nxy😀"
    # a start column past the end of the first line keeps nothing of it, never the next line
    assert extract_text(lines, 1, 2, start_column=40) == "\nmiddle"
    assert extract_text(lines, 2, 3, end_column=40) == "middle\nxy😀z"
    assert extract_text(lines, 4) == ""
    assert extract_text(lines, 0) is None and extract_text(lines, 2, 5) is None and extract_text(lines, 3, 2) is None


# Found by `make fuzz` (mrsf input 285010): the YAML library's integer constructor raised
# IndexError on the scalar ``+_`` (and ValueError in the safe loader the config uses).
@pytest.mark.parametrize("text", ["+_", "comments:\n  - id: +_\n", "document: x.md\ncomments:\n- id: a\n  line: -_\n"])
def test_a_scalar_the_yaml_library_cannot_construct_is_malformed_yaml(text):
    with pytest.raises(MrsfError) as caught:
        parse_sidecar(text)
    assert caught.value.code == "malformed-yaml"
    assert "cannot construct" in str(caught.value)


@pytest.mark.parametrize("text", ["+_", "sidecar_root: +_\n"])
def test_a_config_scalar_the_yaml_library_cannot_construct_is_invalid_config(text):
    from markmcp.mrsf.discovery import parse_config

    with pytest.raises(MrsfError) as caught:
        parse_config(text, ".mrsf.yaml")
    assert caught.value.code == "invalid-config"
    assert ".mrsf.yaml" in str(caught.value)


# Found by `make fuzz` (mrsf input 566618, reduced): after a NEL the YAML library's comment
# handling raised NotImplementedError ("overlap in comment").  NEL is now an ordinary
# character to it (below), and whatever else it raises on hostile text is malformed YAML.
@pytest.mark.parametrize("text", ["a:\x85 # c\n b\n\n # d\n -", "a: \x85# c\n b\n\n # d\n -"])
def test_a_nel_before_a_comment_is_malformed_yaml_not_an_internal_error(text):
    with pytest.raises(MrsfError) as caught:
        parse_sidecar(text)
    assert caught.value.code == "malformed-yaml"
    assert " at line " in str(caught.value) and "\n" not in str(caught.value)


# YAML 1.2 (what the MRSF reference tools read with) breaks lines only at LF and CR: NEL, LS
# and PS are ordinary characters, in comments and in values alike.
NEL_LS_PS = ["\x85", "\u2028", "\u2029"]


@pytest.mark.parametrize("char", NEL_LS_PS)
def test_nel_ls_and_ps_are_ordinary_characters_in_values(char):
    for value in (f"a{char}b", f'"a{char}b"', f"'a{char}b'"):
        sidecar = parse_sidecar(HEAD + GOOD.replace("text: hello", f"text: {value}"))
        assert sidecar.data["comments"][0]["text"] == f"a{char}b"


@pytest.mark.parametrize("char", NEL_LS_PS)
def test_nel_ls_and_ps_do_not_end_a_comment(char):
    # what follows the character is still the comment, not a key
    sidecar = parse_sidecar(HEAD + GOOD + f"    # note{char}line: 99\n")
    assert "line" not in sidecar.data["comments"][0]


def test_escapes_of_the_private_use_stand_ins_keep_their_meaning():
    # the reader stands private-use characters in for LS; escapes of such characters nearby
    # must come back as what they spell, and LS as LS
    text = '"\\U000F0000 \\U000F0001 \\uE000 \u2028 \U000F0002 \\L"'
    sidecar = parse_sidecar(HEAD + GOOD.replace("text: hello", f"text: {text}"))
    assert sidecar.data["comments"][0]["text"] == "\U000F0000 \U000F0001 \ue000 \u2028 \U000F0002 \u2028"


def test_line_numbers_of_errors_count_lf_only():
    # a syntax error on the sixth line is reported there, whatever LS characters come before it
    text = HEAD + "  - id: c1 # a\u2028b\u2028c\n    author: A\n   bad: [\n"
    with pytest.raises(MrsfError) as caught:
        parse_sidecar(text)
    assert caught.value.code == "malformed-yaml"
    assert caught.value.details["line"] == 6


def test_a_config_comment_holding_ls_hides_what_follows_it():
    from markmcp.mrsf.discovery import parse_config

    assert parse_config("# note\u2028sidecar_root: elsewhere\nsidecar_root: reviews\n").sidecar_root == "reviews"


# Found by `make fuzz` (mrsf inputs 336992 and 502087): comments of many LS-separated parts
# took the YAML library minutes (its comment handling grows faster than the square of their
# number: this input took longer than the fuzz run's 5 s limit at a tenth of its size).
# Long comment lines and long runs of comment lines grew with the square of their size on
# the full reader (the second test took 25 s); both are now read in linear time.
def test_thousands_of_ls_separated_comment_parts_are_one_comment():
    text = "\u2028".join(["# a comment part of some forty characters"] * 3000)
    with pytest.raises(MrsfError) as caught:
        parse_sidecar(text)
    assert caught.value.code == "invalid-sidecar" and "no YAML document" in str(caught.value)


def test_long_comment_runs_on_the_full_reader_keep_the_data():
    # a tab sends the text to the full YAML reader; the comments around the data are skipped
    comments = "      # a comment line that goes on for a while\n" * 100_000
    text = HEAD + GOOD.replace("text: hello", 'text: "hello\t"') + comments + GOOD.replace("id: c1", "id: c2") + "# " + "x" * 500_000
    sidecar = parse_sidecar(text)
    assert [c["id"] for c in sidecar.data["comments"]] == ["c1", "c2"]
    assert [c["text"] for c in sidecar.data["comments"]] == ["hello\t", "hello"]


def test_a_resolved_orphan_is_not_flagged():
    """MRSF §7.3/§10.1: an orphan is surfaced for the reviewer to resolve, retarget or delete;
    resolving it is that decision, so strict validation of a resolved orphan passes."""
    orphan = HEAD + GOOD + "    x_reanchor_status: orphaned\n"
    resolved = orphan.replace("resolved: false", "resolved: true")
    assert "orphaned-anchor" in codes(run(orphan, strict=True))
    assert run(resolved)["warnings"] == [] and run(resolved, strict=True)["valid"] is True
