"""The distribution's metadata agrees with the package."""

import tomllib
from importlib import metadata

import markmcp
from conftest import ROOT


def test_version_matches_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert markmcp.__version__ == project["version"]
    assert metadata.version("markmcp") == project["version"]
