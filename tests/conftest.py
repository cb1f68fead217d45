"""Shared test fixtures.

The conformance corpora live in ``../shared`` beside the checkout (override with
``MARKMCP_SHARED``).  In CI (``CI=true``) a missing corpus is a failure; elsewhere the
tests that need it are skipped, visibly.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

# In CI the property tests run a fixed, reproducible sample (a submission must not
# fail on a new random draw); on developers' machines they explore afresh each run.
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
    settings.load_profile("ci")

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("MARKMCP_SHARED", ROOT.parent / "shared"))


def shared_dir(*parts: str) -> Path:
    """Return a folder of the shared corpus, failing in CI and skipping elsewhere."""
    path = SHARED.joinpath(*parts)
    if not path.is_dir():
        message = f"shared corpus not found: {path}"
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(message)
        pytest.skip(message)
    return path
