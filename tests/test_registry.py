"""The MCP registry entries (registry/<command>/server.json) describe servers this package really has.

Each entry follows the registry's server.json format (schema 2025-12-11): the structure is
checked against the rules of that schema written out below (required keys, the name
pattern, the 100-character description, a PyPI package with an exact version and a stdio
transport, arguments shaped as positional or named), with no network.  Beyond the schema:
the versions are the package version, and the command a registry client composes from the
entry (runtime, runtime arguments, ``identifier==version``, package arguments) runs one of
this distribution's MCP servers, ``uvx --from markmcp==<version> <command>``.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
from jsonschema import Draft7Validator

from conftest import ROOT

SCHEMA_URL = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
ENTRIES = sorted((ROOT / "registry").glob("*/server.json"))

_INPUT = {
    "type": "object",
    "properties": {
        "description": {"type": "string"},
        "isRequired": {"type": "boolean"},
        "format": {"enum": ["string", "number", "boolean", "filepath"]},
        "value": {"type": "string"},
        "isSecret": {"type": "boolean"},
        "default": {"type": "string"},
        "placeholder": {"type": "string"},
        "choices": {"type": "array", "items": {"type": "string"}},
        "isRepeated": {"type": "boolean"},
        "valueHint": {"type": "string"},
        "name": {"type": "string"},
        "type": {"enum": ["positional", "named"]},
    },
}
_ARGUMENT = {
    "allOf": [_INPUT],
    "anyOf": [
        {"properties": {"type": {"const": "positional"}}, "required": ["type"],
         "anyOf": [{"required": ["value"]}, {"required": ["valueHint"]}]},
        {"properties": {"type": {"const": "named"}}, "required": ["type", "name"]},
    ],
}
# The parts of the registry's server.json schema (2025-12-11) that a PyPI, stdio entry uses.
SERVER_JSON = {
    "type": "object",
    "required": ["name", "description", "version"],
    "properties": {
        "$schema": {"type": "string"},
        "name": {"type": "string", "pattern": r"^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$", "minLength": 3, "maxLength": 200},
        "title": {"type": "string", "minLength": 1, "maxLength": 100},
        "description": {"type": "string", "minLength": 1, "maxLength": 100},
        "version": {"type": "string", "maxLength": 255},
        "websiteUrl": {"type": "string"},
        "repository": {"type": "object", "required": ["url", "source"]},
        "packages": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["registryType", "identifier", "version", "transport"],
                "properties": {
                    "registryType": {"enum": ["npm", "pypi", "nuget", "oci", "mcpb"]},
                    "registryBaseUrl": {"type": "string"},
                    "identifier": {"type": "string", "minLength": 1},
                    "version": {"type": "string", "minLength": 1, "not": {"const": "latest"}},
                    "runtimeHint": {"type": "string"},
                    "transport": {"type": "object", "required": ["type"],
                                  "properties": {"type": {"enum": ["stdio", "streamable-http", "sse"]}}},
                    "runtimeArguments": {"type": "array", "items": _ARGUMENT},
                    "packageArguments": {"type": "array", "items": _ARGUMENT},
                    "environmentVariables": {"type": "array",
                                             "items": {"type": "object", "required": ["name"]}},
                },
                "additionalProperties": False,
            },
        },
    },
}


def _entry(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _command_line(package: dict) -> list[str]:
    """The command a registry client runs for ``package``: the runtime, its arguments, the
    pinned package, then the package arguments (each positional ``value``; named ones as
    ``name value``)."""
    def words(arguments: list[dict]) -> list[str]:
        out: list[str] = []
        for argument in arguments:
            if argument["type"] == "named":
                out.append(argument["name"])
            if "value" in argument:
                out.append(argument["value"])
        return out

    return [package["runtimeHint"], *words(package.get("runtimeArguments", [])),
            f"{package['identifier']}=={package['version']}", *words(package.get("packageArguments", []))]


def test_there_is_an_entry_for_every_server_command() -> None:
    servers = sorted(name for name in PROJECT["scripts"] if name.endswith("-mcp"))
    assert servers, "no MCP server console script in pyproject.toml"
    assert [path.parent.name for path in ENTRIES] == servers


@pytest.mark.parametrize("path", ENTRIES, ids=lambda path: path.parent.name)
def test_entry_follows_the_registry_format(path: Path) -> None:
    entry = _entry(path)
    errors = sorted(Draft7Validator(SERVER_JSON).iter_errors(entry), key=str)
    assert not errors, "\n".join(f"{list(error.absolute_path)}: {error.message}" for error in errors)
    assert entry["$schema"] == SCHEMA_URL


def test_the_format_rules_catch_what_the_registry_refuses() -> None:
    """The rules above are not vacuous: entries the registry rejects fail them."""
    good = _entry(ENTRIES[0])
    validator = Draft7Validator(SERVER_JSON)
    assert validator.is_valid(good)
    for broken in (
        {**good, "name": "no-slash"},
        {**good, "description": "x" * 101},
        {k: v for k, v in good.items() if k != "version"},
        {**good, "packages": [{**good["packages"][0], "version": "latest"}]},
        {**good, "packages": [{k: v for k, v in good["packages"][0].items() if k != "transport"}]},
        {**good, "packages": [{**good["packages"][0], "runtimeArguments": [{"type": "positional"}]}]},
        {**good, "packages": [{**good["packages"][0], "packageArguments": [{"type": "named", "value": "x"}]}]},
        {**good, "packages": [{**good["packages"][0], "registry_type": "pypi"}]},
    ):
        assert not validator.is_valid(broken), broken


@pytest.mark.parametrize("path", ENTRIES, ids=lambda path: path.parent.name)
def test_entry_runs_its_server_from_this_package_at_this_version(path: Path) -> None:
    entry = _entry(path)
    command = path.parent.name
    assert entry["version"] == PROJECT["version"]
    namespace = {_entry(other)["name"].split("/")[0] for other in ENTRIES}
    assert len(namespace) == 1, f"entries under several namespaces: {sorted(namespace)}"
    [package] = entry["packages"]
    assert package["registryType"] == "pypi"
    assert package["identifier"] == PROJECT["name"]
    assert package["version"] == PROJECT["version"]
    assert package["transport"] == {"type": "stdio"}
    # registryBaseUrl is left to its default: some clients pass it to uvx as --index-url,
    # where the PyPI home page (the only value the registry accepts) is no index
    assert "registryBaseUrl" not in package
    assert _command_line(package) == ["uvx", "--from", f"{PROJECT['name']}=={PROJECT['version']}", command]
    assert command.endswith("-mcp") and command in PROJECT["scripts"]
