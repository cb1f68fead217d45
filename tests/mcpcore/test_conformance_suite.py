"""The MCP conformance suite (``@modelcontextprotocol/conformance``) against every server, over HTTP.

The suite's server scenarios are of two kinds.  Most of them call tools, resources and
prompts that the suite expects the server under test to define for it (``test_simple_text``,
``test://static-text``, ``test_simple_prompt``, ...); those pass on the fixture server
``tests/mcpcore/conformance_fixture.py``, which defines exactly the suite's fixtures on the
shared layer, so every scenario is proven on ``markmcp.mcpcore``.  The rest test the protocol
itself (initialize, ping, logging level, listings, streams, DNS-rebinding protection) and
must pass on every product server as it ships: each ``*-mcp`` script of ``pyproject.toml``.
On a product server, a fixture scenario must fail only because the fixture is missing,
answered by the protocol's error for an unknown name.

The suite runs under Node through ``npx`` (pinned version; the first run downloads it).
It runs wherever Node is installed, CI included; without ``npx``, or when the package
cannot be fetched (no network, empty npx cache), it is skipped visibly, with the reason.  The
servers and the suite runs go in parallel, every wait has a timeout.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import tomllib
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import ROOT, print_after_summary
from mcpwire import HttpServer

SUITE = "@modelcontextprotocol/conformance@0.1.16"
NPX = ["-y", "-p", "node@22", "-p", SUITE, "--", "conformance"]
PROBE_TIMEOUT = 240.0
"""Seconds for ``conformance list`` (includes downloading Node and the suite on a first run)."""
RUN_TIMEOUT = 300.0
"""Seconds for one whole suite run against one server."""
FIXTURE = Path(__file__).resolve().parent / "conformance_fixture.py"

PROTOCOL_SCENARIOS = frozenset({
    "server-initialize",
    "ping",
    "logging-set-level",
    "tools-list",
    "resources-list",
    "prompts-list",
    "server-sse-multiple-streams",
    "dns-rebinding-protection",
})
"""Scenarios that need nothing but the protocol: every server passes them."""

FIXTURE_SCENARIOS = {
    "completion-complete": "completes argument 'arg1' of the suite's prompt 'test_prompt_with_arguments'",
    "tools-call-simple-text": "calls the suite's tool 'test_simple_text'",
    "tools-call-image": "calls the suite's tool 'test_image_content'",
    "tools-call-audio": "calls the suite's tool 'test_audio_content'",
    "tools-call-embedded-resource": "calls the suite's tool 'test_embedded_resource'",
    "tools-call-mixed-content": "calls the suite's tool 'test_multiple_content_types'",
    "tools-call-with-logging": "calls the suite's tool 'test_tool_with_logging' (three log notifications)",
    "tools-call-error": "calls the suite's tool 'test_error_handling'",
    "tools-call-with-progress": "calls the suite's tool 'test_tool_with_progress' (three progress notifications)",
    "tools-call-sampling": "calls the suite's tool 'test_sampling' (a sampling request to the client)",
    "tools-call-elicitation": "calls the suite's tool 'test_elicitation' (an elicitation request to the client)",
    "elicitation-sep1034-defaults": "calls the suite's tool 'test_elicitation_sep1034_defaults'",
    "elicitation-sep1330-enums": "calls the suite's tool 'test_elicitation_sep1330_enums'",
    "resources-read-text": "reads the suite's resource 'test://static-text'",
    "resources-read-binary": "reads the suite's resource 'test://static-binary'",
    "resources-templates-read": "reads the suite's template 'test://template/{id}/data'",
    "resources-subscribe": "subscribes to the suite's resource 'test://watched-resource'",
    "resources-unsubscribe": "unsubscribes from the suite's resource 'test://watched-resource'",
    "prompts-get-simple": "gets the suite's prompt 'test_simple_prompt'",
    "prompts-get-with-args": "gets the suite's prompt 'test_prompt_with_arguments'",
    "prompts-get-embedded-resource": "gets the suite's prompt 'test_prompt_with_embedded_resource'",
    "prompts-get-with-image": "gets the suite's prompt 'test_prompt_with_image'",
}
"""Scenarios that use the suite's own fixtures, with what each needs."""

ALL_SCENARIOS = PROTOCOL_SCENARIOS | set(FIXTURE_SCENARIOS)
"""The suite's active server scenarios (its pending ones, SSE polling and JSON Schema
2020-12 keyword preservation, are not run by default)."""

REFUSALS = re.compile(
    r"MCP error (-32602: (Unknown tool|Unknown prompt|Not a resource one can subscribe to)"
    r"|-32601: Method not found|-32002: Resource not found)"
)
"""How a product server answers a fixture it does not have (protocol errors, nothing else)."""

_TIMESTAMP = re.compile(r"-\d{4}-\d{2}-\d{2}T[\d-]+Z$")


def product_servers() -> dict[str, str]:
    """Every MCP server script of the distribution: name -> ``module:function``."""
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    return {name: target for name, target in sorted(scripts.items()) if name.endswith("-mcp")}


def server_command(target: str, *args: str) -> list[str]:
    module, _, function = target.partition(":")
    code = f"import sys; from {module} import {function}; sys.exit({function}())"
    return [sys.executable, "-c", code, *args]


def run_bounded(command: list[str], timeout: float, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run ``command`` in its own process group; on timeout kill the whole group and raise."""
    proc = subprocess.Popen(
        command, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, start_new_session=True, env={**os.environ, "npm_config_update_notifier": "false"},
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise
    return subprocess.CompletedProcess(command, proc.returncode, out, err)


@dataclass
class SuiteRun:
    """One suite run against one server: the checks of each scenario, as the suite saved them."""

    server: str
    checks: dict[str, list[dict]]
    output: str

    def statuses(self, scenario: str) -> list[str]:
        return [check["status"] for check in self.checks[scenario]]

    def failures(self, scenario: str) -> list[str]:
        return [
            f"{check['id']}: {check.get('errorMessage', '')}"
            for check in self.checks[scenario] if check["status"] == "FAILURE"
        ]

    def passed(self, scenarios: set[str] | frozenset[str]) -> int:
        return sum(self.statuses(s).count("SUCCESS") for s in scenarios)


def read_results(server: str, folder: Path, output: str) -> SuiteRun:
    checks: dict[str, list[dict]] = {}
    for result in sorted(folder.glob("server-*/checks.json")):
        scenario = _TIMESTAMP.sub("", result.parent.name.removeprefix("server-"))
        checks[scenario] = json.loads(result.read_text(encoding="utf-8"))
    return SuiteRun(server, checks, output)


@pytest.fixture(scope="module")
def suite_runs() -> Iterator[dict[str, SuiteRun]]:
    """The suite run once against the fixture server and each product server, all in parallel."""
    npx = shutil.which("npx")
    if npx is None:
        pytest.skip("npx (Node.js) not found: the MCP conformance suite cannot run")
    commands = {"conformance-fixture": [sys.executable, str(FIXTURE)]}
    commands |= {name: server_command(target) for name, target in product_servers().items()}
    with tempfile.TemporaryDirectory(prefix="markmcp-conformance-") as tmp:
        work = Path(tmp)
        servers: dict[str, HttpServer] = {}
        try:
            # The servers start while npx readies the suite (a download on a first run).
            with ThreadPoolExecutor(max_workers=len(commands) + 1) as pool:
                probe = pool.submit(run_bounded, [npx, *NPX, "list", "--server"], PROBE_TIMEOUT, work)
                starting = {
                    name: pool.submit(HttpServer, [*command, "--transport", "http", "--port", "0", "--cwd", str(work)])
                    for name, command in commands.items()
                }
                problems = []
                for name, future in starting.items():
                    try:
                        servers[name] = future.result()
                    except Exception as error:
                        problems.append(f"{name} did not start: {error}")
                assert not problems, problems
                try:
                    listed = probe.result()
                except subprocess.TimeoutExpired:
                    pytest.skip(f"{SUITE} did not start within {PROBE_TIMEOUT:.0f} s (downloading it?)")
                if listed.returncode != 0 or "server-initialize" not in listed.stdout:
                    tail = " ".join((listed.stderr or listed.stdout).split()[-30:])
                    pytest.skip(f"{SUITE} is not available (not in the npx cache and no network?): {tail}")

                def run(name: str) -> SuiteRun:
                    folder = work / name
                    url = f"http://127.0.0.1:{servers[name].port}/mcp"
                    done = run_bounded([npx, *NPX, "server", "--url", url, "-o", str(folder)], RUN_TIMEOUT, work)
                    return read_results(name, folder, done.stdout + done.stderr)

                runs = dict(zip(servers, pool.map(run, servers)))
        finally:
            for server in servers.values():
                server.stop()
        yield runs


def test_the_suite_runs_every_active_scenario(suite_runs: dict[str, SuiteRun]) -> None:
    for name, run in suite_runs.items():
        assert set(run.checks) == ALL_SCENARIOS, f"{name}: {run.output[-2000:]}"


def test_fixture_server_passes_every_scenario(suite_runs: dict[str, SuiteRun], request: pytest.FixtureRequest) -> None:
    run = suite_runs["conformance-fixture"]
    for scenario in sorted(ALL_SCENARIOS):
        statuses = run.statuses(scenario)
        assert statuses and set(statuses) == {"SUCCESS"}, (scenario, run.failures(scenario), statuses)
    summary = [f"fixture server {run.passed(ALL_SCENARIOS)} checks in {len(ALL_SCENARIOS)} scenarios"]
    for name in product_servers():
        if name in suite_runs:
            passed = suite_runs[name].passed(PROTOCOL_SCENARIOS)
            summary.append(f"{name} {passed} checks in {len(PROTOCOL_SCENARIOS)} scenarios")
    print_after_summary(
        request.config, "mcp-conformance", f"MCP conformance suite ({SUITE}), all passed: " + "; ".join(summary)
    )


@pytest.mark.parametrize("name", sorted(product_servers()))
def test_product_server_passes_every_protocol_scenario(suite_runs: dict[str, SuiteRun], name: str) -> None:
    run = suite_runs[name]
    for scenario in sorted(PROTOCOL_SCENARIOS):
        statuses = run.statuses(scenario)
        assert statuses and set(statuses) == {"SUCCESS"}, (name, scenario, run.failures(scenario), statuses)


@pytest.mark.parametrize("name", sorted(product_servers()))
def test_product_server_refuses_the_suite_fixtures_by_protocol(suite_runs: dict[str, SuiteRun], name: str) -> None:
    """Where a scenario needs a fixture, the product server answers with the protocol's error
    for a name it does not serve (not a crash, not a wrong success)."""
    run = suite_runs[name]
    for scenario in sorted(FIXTURE_SCENARIOS):
        failures = run.failures(scenario)
        assert failures, (name, scenario, "passed without the fixture?", run.checks[scenario])
        for failure in failures:
            assert REFUSALS.search(failure), (name, scenario, failure)
