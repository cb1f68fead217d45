"""``markmcp check --format sarif``: a SARIF 2.1.0 log that code scanning can place on lines.

The official SARIF 2.1.0 JSON schema is published by OASIS under terms that do not let
us ship it in this MIT package, so the log is checked two ways:

* always: against the rules of that schema that our logs use, written out below
  (required members, the enumerations, positive line and column numbers, the URI base
  form), with no network;
* when ``MARKMCP_SARIF_SCHEMA`` names a copy of the official schema
  (``sarif-schema-2.1.0.json``): against the whole of it (skipped, visibly, without).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pydantic_core
import pytest
from jsonschema import Draft4Validator, Draft7Validator

from markmcp import __version__
from markmcp.check import cli
from markmcp.figdown.render import build
from markmcp.mrsf import ops

from .test_check import FIGURE, PAGE, STALE_SHEET, write

_MESSAGE = {"type": "object", "required": ["text"], "properties": {"text": {"type": "string", "minLength": 1}}}
_REGION = {"type": "object", "required": ["startLine"], "additionalProperties": False,
           "properties": {"startLine": {"type": "integer", "minimum": 1},
                          "startColumn": {"type": "integer", "minimum": 1}}}
_ARTIFACT_LOCATION = {"type": "object", "required": ["uri"], "additionalProperties": False,
                      "properties": {"uri": {"type": "string", "pattern": r"^[^\s\\]+$"},
                                     "uriBaseId": {"type": "string"}}}
_RESULT = {
    "type": "object", "required": ["ruleId", "ruleIndex", "level", "message", "locations"],
    "additionalProperties": False,
    "properties": {
        "ruleId": {"type": "string", "pattern": r"^(visimark|figdown|mrsf|folder)/\S"},
        "ruleIndex": {"type": "integer", "minimum": 0},
        "level": {"enum": ["none", "note", "warning", "error"]},
        "message": _MESSAGE,
        "locations": {"type": "array", "minItems": 1, "maxItems": 1, "items": {
            "type": "object", "required": ["physicalLocation"], "additionalProperties": False,
            "properties": {"physicalLocation": {
                "type": "object", "required": ["artifactLocation"], "additionalProperties": False,
                "properties": {"artifactLocation": _ARTIFACT_LOCATION, "region": _REGION}}}}},
        "properties": {"type": "object"},
    },
}
#: The parts of the SARIF 2.1.0 schema our logs use.
SARIF_RULES = {
    "type": "object", "required": ["version", "runs"], "additionalProperties": False,
    "properties": {
        "$schema": {"type": "string", "format": "uri"},
        "version": {"enum": ["2.1.0"]},
        "runs": {"type": "array", "minItems": 1, "maxItems": 1, "items": {
            "type": "object", "required": ["tool"], "additionalProperties": False,
            "properties": {
                "tool": {"type": "object", "required": ["driver"], "properties": {"driver": {
                    "type": "object", "required": ["name"],
                    "properties": {"name": {"const": "markmcp"}, "version": {"type": "string"},
                                   "semanticVersion": {"type": "string"},
                                   "informationUri": {"type": "string", "pattern": "^https://"},
                                   "rules": {"type": "array", "items": {
                                       "type": "object", "required": ["id"],
                                       "properties": {"id": {"type": "string"},
                                                      "shortDescription": _MESSAGE}}}}}}},
                "originalUriBaseIds": {"type": "object", "additionalProperties": {
                    "type": "object", "required": ["uri"],
                    "properties": {"uri": {"type": "string", "pattern": "^file:///.*/$"}}}},
                "columnKind": {"enum": ["utf16CodeUnits", "unicodeCodePoints"]},
                "invocations": {"type": "array", "items": {
                    "type": "object", "required": ["executionSuccessful"],
                    "properties": {"executionSuccessful": {"type": "boolean"},
                                   "exitCode": {"type": "integer"},
                                   "toolExecutionNotifications": {"type": "array", "items": {
                                       "type": "object", "required": ["message"],
                                       "properties": {"level": {"enum": ["none", "note", "warning", "error"]},
                                                      "message": _MESSAGE}}}}}},
                "results": {"type": "array", "items": _RESULT},
            }}},
    },
}


def _log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "docs" / "my order.md", STALE_SHEET)
    write(tmp_path / "figs" / "bad.fd", FIGURE + "frobnicate\n")
    write(tmp_path / "figs" / "ok.fd", FIGURE)
    write(tmp_path / "figs" / "ok.svg", build(FIGURE + "# older\n").svg or "")
    write(tmp_path / "notes.md", PAGE)
    ops.add("notes.md", author="Ada", text="Why?", line=4, root=tmp_path, id="c1")
    write(tmp_path / "notes.md", "# Notes\n\nThe first line to review.\n")
    code = cli.main(["check", "--jobs", "1", "--format", "sarif"])
    out, _ = capsys.readouterr()
    assert code == 1
    return json.loads(out)


def test_the_log_follows_the_sarif_rules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    log = _log(tmp_path, monkeypatch, capsys)
    errors = sorted(Draft7Validator(SARIF_RULES).iter_errors(log), key=str)
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors)
    [run] = log["runs"]
    assert run["tool"]["driver"]["version"] == __version__
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == tmp_path.as_uri() + "/"
    rules = run["tool"]["driver"]["rules"]
    for result in run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
    placed = {(r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
               r["locations"][0]["physicalLocation"].get("region", {}).get("startLine")) for r in run["results"]}
    assert ("visimark/STALE", "docs/my%20order.md", 4) in placed  # the stale cell's line, the URI escaped
    assert ("figdown/parse", "figs/bad.fd", 5) in placed
    assert ("figdown/stale-artifact", "figs/ok.fd", 1) in placed  # on the source, whose change made it stale
    assert ("mrsf/reanchor:orphaned", "notes.md", 4) in placed
    assert run["invocations"] == [{"executionSuccessful": True, "exitCode": 1}]


@pytest.mark.parametrize("args", [["nosuch/"], ["--shard", "0/2"]])
def test_a_check_that_cannot_start_still_writes_a_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str], args: list[str]) -> None:
    """Exit 2 before anything is checked: the CI step that uploads the log gets a valid one
    saying the run did not succeed, and why (and --json an error envelope), not an empty file."""
    monkeypatch.chdir(tmp_path)
    code = cli.main(["check", "--format", "sarif", *args])
    out, err = capsys.readouterr()
    assert code == 2 and err.startswith("markmcp check: ")
    log = json.loads(out)
    assert not list(Draft7Validator(SARIF_RULES).iter_errors(log))
    [run] = log["runs"]
    [invocation] = run["invocations"]
    assert invocation["executionSuccessful"] is False and invocation["exitCode"] == 2
    [note] = invocation["toolExecutionNotifications"]
    assert note["level"] == "error" and note["message"]["text"] == err.removeprefix("markmcp check: ").rstrip("\n")
    assert run["results"] == []
    code = cli.main(["check", "--json", *args])
    out, err = capsys.readouterr()
    body = json.loads(out)
    assert code == 2 and body["status"] == "error" and body["error"]["message"] in err


def test_the_rules_are_not_vacuous() -> None:
    validator = Draft7Validator(SARIF_RULES)
    good = {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "markmcp"}}, "results": [
        {"ruleId": "visimark/STALE", "ruleIndex": 0, "level": "error", "message": {"text": "m"},
         "locations": [{"physicalLocation": {"artifactLocation": {"uri": "a.md"}, "region": {"startLine": 1}}}]}]}]}
    assert validator.is_valid(good)
    result = good["runs"][0]["results"][0]
    for broken in (
        {**good, "version": "2.0.0"},
        {**good, "runs": [{**good["runs"][0], "results": [{**result, "level": "fatal"}]}]},
        {**good, "runs": [{**good["runs"][0], "results": [{**result, "message": {}}]}]},
        {**good, "runs": [{**good["runs"][0], "results": [{**result, "locations": [{"physicalLocation": {
            "artifactLocation": {"uri": "a.md"}, "region": {"startLine": 0}}}]}]}]},
        {**good, "runs": [{**good["runs"][0], "results": [{**result, "locations": [{"physicalLocation": {
            "artifactLocation": {"uri": "my doc.md"}}}]}]}]},
    ):
        assert not validator.is_valid(broken), broken


def test_the_log_is_valid_against_the_official_schema(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    location = os.environ.get("MARKMCP_SARIF_SCHEMA")
    if not location:
        pytest.skip("set MARKMCP_SARIF_SCHEMA to a copy of the official sarif-schema-2.1.0.json")
    schema = json.loads(Path(location).read_text(encoding="utf-8"))
    log = _log(tmp_path, monkeypatch, capsys)
    errors = sorted(Draft4Validator(schema).iter_errors(log), key=str)
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors)


def test_a_file_name_that_is_not_utf8_still_gives_a_valid_log(tmp_path: Path) -> None:
    """A file name with the byte 0xff (not UTF-8, a lone surrogate to Python) once made the
    SARIF writer fail: a traceback, exit 1 and an empty log.  Its URI escapes the byte as
    the file's name has it, and every string of the log is Unicode."""
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)  # the sidecar's document is judged in a repository
    base = os.fsencode(tmp_path)
    with open(base + b"/b\xff.md", "w", encoding="utf-8") as doc:
        doc.write("# T\n\nhello\n")
    with open(base + b"/b\xff.md.review.yaml", "w", encoding="utf-8") as sidecar:
        sidecar.write('mrsf_version: "1.0"\ndocument: b.md\ncomments: []\n')
    run = subprocess.run(
        [sys.executable, "-c", "import sys; from markmcp.check.cli import main; sys.exit(main())",
         "check", "--jobs", "1", "--format", "sarif"],
        cwd=tmp_path, capture_output=True, timeout=120,
    )
    assert run.returncode == 0, run.stderr.decode(errors="replace")
    assert b"Traceback" not in run.stderr
    log = pydantic_core.from_json(run.stdout)  # strict: a lone-surrogate escape is refused
    assert not list(Draft7Validator(SARIF_RULES).iter_errors(log))
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in log["runs"][0]["results"]}
    assert uris == {"b%FF.md.review.yaml"}
    [message] = {r["message"]["text"] for r in log["runs"][0]["results"]}
    assert message == "`document` is 'b.md' but this sidecar belongs to 'b\\xff.md'"  # as files.shown names it
    assert log["runs"][0]["invocations"] == [{"executionSuccessful": True, "exitCode": 0}]
