"""Shared test fixtures.

The conformance corpora live in ``../shared`` beside the checkout (override with
``MARKMCP_SHARED``).  In CI (``CI=true``) a missing corpus is a failure; elsewhere the
tests that need it are skipped, visibly.

A test module may leave a line to print after the test summary (``print_after_summary``),
also when the tests run in pytest-xdist workers: a worker hands its lines to the
controller, which prints them.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from hypothesis import settings

# In CI the property tests run a fixed, reproducible sample (a submission must not
# fail on a new random draw); on developers' machines they explore afresh each run.
settings.register_profile("ci", derandomize=True, print_blob=True)
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
if IN_CI:
    settings.load_profile("ci")

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("MARKMCP_SHARED", ROOT.parent / "shared"))

#: Test files that take longest (tens of seconds each: concurrent writers, kill -9 trials,
#: the MCP conformance suite, building the wheel, the big property tests), run first: the
#: pytest-xdist workers take whole files in collection order, and a long file taken last
#: keeps one worker busy while the other has nothing left to do.
LONG_FIRST = (
    "tests/security/test_kill9_mrsf.py",
    "tests/mrsf/test_server_load.py",
    "tests/mcpcore/test_conformance_suite.py",
    "tests/mrsf/test_sidecar_properties.py",
    "tests/test_wheel.py",
    "tests/fuzzing/test_fuzz_jsonrpc.py",
    "tests/mrsf/test_server_demo.py",
    "tests/mrsf/test_server.py",
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The long files first (in LONG_FIRST's order), every other test in collection order."""
    rank = {name: index for index, name in enumerate(LONG_FIRST)}

    def key(item: pytest.Item) -> int:
        path = Path(item.path)
        return rank.get(path.relative_to(ROOT).as_posix(), len(rank)) if path.is_relative_to(ROOT) else len(rank)

    items.sort(key=key)


def shared_dir(*parts: str) -> Path:
    """Return a folder of the shared corpus, failing in CI and skipping elsewhere."""
    path = SHARED.joinpath(*parts)
    if not path.is_dir():
        missing(f"shared corpus not found: {path}")
    return path


def required_tool(name: str, *, path: str | None = None, hint: str = "") -> str:
    """The path of a command the test needs (``git``; looked up on ``path`` when given),
    failing in CI and skipping elsewhere."""
    found = shutil.which(name, path=path)
    if found is None:
        missing(f"{name} is not installed{hint}")
    return found  # type: ignore[return-value]


def missing(message: str) -> None:
    """Something a test needs is not here: a failure in CI, a visible skip elsewhere."""
    if IN_CI:
        pytest.fail(message)
    pytest.skip(message)


# --- lines printed after the test summary (also from pytest-xdist workers) -------------------

_AFTER_SUMMARY: dict[str, str] = {}


def print_after_summary(config: pytest.Config, key: str, line: str) -> None:
    """Print ``line`` once the run is over; a later line under the same ``key`` replaces it.

    In a pytest-xdist worker the line goes to the controller with the worker's output, so
    the tests that feed one ``key`` must run on one worker: keep them in one module
    (``make test`` hands out whole files, ``--dist loadfile``).
    """
    workeroutput = getattr(config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput.setdefault("after_summary", {})[key] = line
    else:
        _AFTER_SUMMARY[key] = line


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:
    """pytest-xdist, in the controller: a worker finished; keep the lines it left."""
    _AFTER_SUMMARY.update(getattr(node, "workeroutput", {}).get("after_summary", {}))


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput"):  # a pytest-xdist worker: the controller prints
        return

    def emit() -> None:
        reporter = config.pluginmanager.get_plugin("terminalreporter")
        for line in _AFTER_SUMMARY.values():
            if reporter is not None:
                reporter.write_line(line)
            else:  # pragma: no cover
                print(line)

    config.add_cleanup(emit)
