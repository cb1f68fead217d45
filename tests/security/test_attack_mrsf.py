"""The MRSF attack suite: a hostile repository against every tool, resource template
and ``mrsf`` command.

The repository (built with :mod:`tests.security.hostile`) plants something at every
path the MRSF tools read or derive: symlinks to a victim file outside at a sidecar, a
document, a ``.bak`` backup, a temporary file; dangling links at a sidecar and at a lock
file; FIFOs and device links as sidecars and documents; a huge sidecar; a YAML alias
bomb and a deeply nested sidecar; a folder symlinked outside.  It comes in three
variants: plain; with a ``.mrsf.yaml`` *above* the served folder whose ``sidecar_root``
points at sidecars outside it; and with a ``sidecar_root`` that is a symlink leading
out.

Every call must return within a few seconds (no hang), answer with a result or a clear
error (never an unexpected exception, which a user would see as a crash), never show
the secret text of a file outside, and leave everything outside exactly as it was.
The server is driven in-process (its tool handlers with a :class:`CallContext`), the
CLI through ``cli.main``; a few real stdio round trips check the wire and the exit.
"""

from __future__ import annotations

import contextlib
import io
import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcpwire import StdioClient, module_command

from markmcp.mcpcore import CallContext, ToolError
from markmcp.mcpcore.files import MAX_FILE_BYTES
from markmcp.mrsf import cli, server
from markmcp.mrsf.commands import COMMANDS

from .hostile import BILLION_LAUGHS, SECRET, Hostile, deep_nesting

HANG = 10.0
SECRETS = (SECRET.strip(), "SECRET-ABOVE-THE-ROOT")
DOC = "# Title\n\nFirst line.\nSecond line.\n"


def sidecar(doc: str, text: str = "hello") -> str:
    return (f'mrsf_version: "1.0"\ndocument: {doc}\ncomments:\n  - id: c1\n    author: Alice\n'
            f'    timestamp: "2026-01-01T00:00:00Z"\n    text: {text}\n    resolved: false\n    line: 3\n'
            '    selected_text: First line.\n')


#: Every document the calls name; each has one plant (see :func:`build`).
TARGETS = [
    "doc.md",            # an ordinary pair (for contrast)
    "locked.md",         # dangling symlink at .locked.md.review.yaml.lock
    "bak.md",            # unparseable sidecar; symlink to the victim at locked.md.review.yaml.bak
    "tmp.md",            # a victim link named like a stale temporary file of the sidecar
    "link.md",           # the sidecar is a symlink to the victim
    "dangling.md",       # the sidecar is a dangling symlink leading outside
    "fifo.md",           # the sidecar is a FIFO
    "dev.md",            # the sidecar is a link to /dev/zero
    "huge.md",           # the sidecar is over the size limit
    "bomb.md",           # the sidecar is a YAML alias bomb
    "deep.md",           # the sidecar nests 100,000 flow sequences
    "fifodoc.md",        # the document is a FIFO
    "devdoc.md",         # the document is a link to /dev/zero
    "victimdoc.md",      # the document is a symlink to the victim
    "away/x.md",         # a folder symlinked outside
    "link.md.review.yaml",  # a sidecar named directly
]

VARIANTS = ("plain", "config-above", "config-link")


class Repo:
    """A hostile repository: ``cwd`` is what the server serves; ``watched`` are folders
    outside it whose state must not change."""

    def __init__(self, tmp_path: Path, variant: str) -> None:
        self.hostile = Hostile.create(tmp_path)
        self.variant = variant
        self.cwd = self.hostile.root
        self.above = tmp_path / "above"
        build(self.hostile, variant, tmp_path)
        self.before = self.state()

    def state(self) -> dict[str, Any]:
        above = {p.relative_to(self.above).as_posix(): p.read_bytes() if p.is_file() and not p.is_symlink() else None
                 for p in sorted(self.above.rglob("*"))} if self.above.exists() else {}
        return {"outside": self.hostile.outside_snapshot(), "above": above}

    def check(self) -> None:
        if self.variant == "plain":
            self.hostile.assert_untouched()
        assert self.hostile.victim.read_text() == SECRET, "the victim file was changed"
        assert self.state() == self.before, "something outside the served folder changed"


def build(h: Hostile, variant: str, base: Path) -> None:
    for rel in TARGETS:
        if rel.endswith(".md") and rel not in ("fifodoc.md", "devdoc.md", "victimdoc.md", "away/x.md"):
            h.write(rel, DOC)
    for rel in ("doc.md", "locked.md", "tmp.md", "fifodoc.md", "devdoc.md", "victimdoc.md"):
        h.write(rel + ".review.yaml", sidecar(rel))
    h.dangling_link(".locked.md.review.yaml.lock", "created-through-the-lock")
    h.write("bak.md.review.yaml", "mrsf_version: [\n")
    h.link_to_victim("bak.md.review.yaml.bak")
    h.link_to_victim(".tmp.md.review.yaml.0123456789abcdef.tmp")
    h.link_to_victim("link.md.review.yaml")
    h.dangling_link("dangling.md.review.yaml", "created-through-a-sidecar")
    h.fifo("fifo.md.review.yaml")
    h.device_link("dev.md.review.yaml", "/dev/zero")
    h.huge("huge.md.review.yaml", MAX_FILE_BYTES + 1)
    h.write("bomb.md.review.yaml", BILLION_LAUGHS.replace("document: a.md", "document: bomb.md"))
    h.write("deep.md.review.yaml", 'mrsf_version: "1.0"\ndocument: deep.md\ncomments: ' + deep_nesting(100_000) + "\n")
    h.fifo("fifodoc.md")
    h.device_link("devdoc.md", "/dev/zero")
    h.link_to_victim("victimdoc.md")
    h.link_to_folder_outside("away")
    h.dangling_link("new-dangling.md.review.yaml", "created-by-rename")
    if variant == "config-above":
        # a .mrsf.yaml above the served folder: its sidecars live outside it
        (base / ".mrsf.yaml").write_text("sidecar_root: above\n")
        for rel in TARGETS:
            if rel.endswith(".md"):
                target = base / "above" / "repo" / (rel + ".review.yaml")
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(sidecar(f"repo/{rel}", "SECRET-ABOVE-THE-ROOT"))
    elif variant == "config-link":
        h.write(".mrsf.yaml", "sidecar_root: reviews\n")
        h.link_to_folder_outside("reviews")


def context(cwd: Path) -> CallContext:
    return CallContext(roots=(), cwd=cwd, allow_write=False, options={})


def in_thread(function: Callable[..., Any], *args: Any) -> tuple[str, Any]:
    outcome: list[tuple[str, Any]] = []

    def run() -> None:
        try:
            outcome.append(("ok", function(*args)))
        except Exception as error:  # noqa: BLE001 - judged by the caller
            outcome.append(("error", error))

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(HANG)
    return outcome[0] if outcome else ("hang", None)


# --- what each tool is called with ----------------------------------------------------------

COMMENT = {"text": "t", "author": "a", "line": 1}


def tool_calls(name: str) -> list[dict[str, Any]]:
    """Every argument set ``name`` is called with, over every target."""
    per_target: dict[str, Callable[[str], list[dict[str, Any]]]] = {
        "mrsf_discover": lambda t: [{"document": t}],
        "mrsf_validate": lambda t: [{"files": [t]}, {"files": [t], "strict": True}],
        "mrsf_reanchor": lambda t: [{"files": [t]}, {"files": [t], "dryRun": True, "documentText": DOC}],
        "mrsf_add": lambda t: [{"document": t, **COMMENT}, {"document": t, **COMMENT, "documentText": DOC}],
        "mrsf_add_batch": lambda t: [{"document": t, "comments": [COMMENT, {"text": "u", "author": "b"}]}],
        "mrsf_update": lambda t: [{"document": t, "id": "c1", "text": "u", "line": 2}],
        "mrsf_resolve": lambda t: [{"document": t, "id": "c1"}, {"document": t, "author": "Alice"}],
        "mrsf_list": lambda t: [{"files": [t]}, {"files": [t], "format": "compact"}, {"files": [t], "summary": True}],
        "mrsf_status": lambda t: [{"files": [t]}],
        "mrsf_rename": lambda t: [{"oldDocument": t, "newDocument": f"renamed/{t}"},
                                  {"oldDocument": "doc.md", "newDocument": t}],
        "mrsf_delete": lambda t: [{"document": t, "id": "c1"}],
        "mrsf_repair": lambda t: [{"document": t, "backup": True}, {"document": t, "strategy": "reset"}],
        "mrsf_help": lambda t: [],
    }
    calls = [args for target in TARGETS for args in per_target[name](target)]
    extra = {
        "mrsf_validate": [{}], "mrsf_reanchor": [{}], "mrsf_list": [{}], "mrsf_status": [{}],
        "mrsf_rename": [{"oldDocument": "doc.md", "newDocument": "new-dangling.md"},
                        {"oldDocument": "doc.md", "newDocument": "away/y.md"}],
        "mrsf_help": [{}, {"tool": "mrsf_repair"}],
    }
    return calls + extra.get(name, [])


TOOL_NAMES = [tool.name for tool in server.TOOLS]
RESOURCES = {
    "sidecar": (server.sidecar_resource, lambda t: {"path": t}),
    "comment": (server.comment_resource, lambda t: {"path": t, "id": "c1"}),
    "anchors": (server.anchors_resource, lambda t: {"path": t}),
}


def test_every_tool_is_attacked() -> None:
    assert len(TOOL_NAMES) == 13 and len(server.RESOURCE_TEMPLATES) == 3
    assert {template.handler for template in server.RESOURCE_TEMPLATES} == {h for h, _ in RESOURCES.values()}


def judge(label: str, kind: str, value: Any, expected: tuple[type[BaseException], ...]) -> list[str]:
    """What is wrong with one outcome (empty when it is fine)."""
    if kind == "hang":
        return [f"{label}: no answer within {HANG} s"]
    if kind == "error" and not isinstance(value, expected):
        return [f"{label}: unexpected {type(value).__name__}: {value}"]
    if kind == "ok":
        shown = json.dumps(value, ensure_ascii=False, default=str)
    else:
        shown = str(getattr(value, "message", value)) + json.dumps(getattr(value, "data", None), default=str)
    if any(secret in shown for secret in SECRETS):
        return [f"{label}: the secret text of a file outside shows in the answer"]
    if "Traceback" in shown:
        return [f"{label}: a traceback in the answer"]
    return []


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("name", TOOL_NAMES)
def test_tool_on_a_hostile_repository(tmp_path: Path, variant: str, name: str) -> None:
    repo = Repo(tmp_path, variant)
    handler = next(tool.handler for tool in server.TOOLS if tool.name == name)
    problems: list[str] = []
    for args in tool_calls(name):
        kind, value = in_thread(handler, args, context(repo.cwd))
        label = f"{name} {json.dumps(args)}"
        problems += judge(label, kind, value, (ToolError,))
        try:
            repo.check()
        except AssertionError as error:
            problems.append(f"{label}: {error}")
            break
    assert problems == []


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("template", sorted(RESOURCES))
def test_resource_on_a_hostile_repository(tmp_path: Path, variant: str, template: str) -> None:
    repo = Repo(tmp_path, variant)
    handler, params = RESOURCES[template]
    problems: list[str] = []
    for target in TARGETS:
        kind, value = in_thread(handler, params(target), context(repo.cwd))
        problems += judge(f"{template} {target}", kind, value, (ToolError, FileNotFoundError))
    repo.check()
    assert problems == []


# --- the mrsf command line --------------------------------------------------------------------


def cli_calls() -> list[list[str]]:
    per_target = [
        lambda t: ["validate", t], lambda t: ["add", t, "-a", "x", "-t", "y", "-l", "1"],
        lambda t: ["list", t], lambda t: ["list", t, "--json"], lambda t: ["resolve", t, "c1"],
        lambda t: ["reanchor", t], lambda t: ["status", t], lambda t: ["init", t, "--force"],
        lambda t: ["rename", t, f"renamed/{t}"], lambda t: ["rename", "doc.md", t],
        lambda t: ["repair", t, "--backup"], lambda t: ["repair", t, "--reset"],
        lambda t: ["watch", t, *WATCH],
    ]
    whole = [["validate"], ["list"], ["list", "--summary"], ["status"], ["reanchor", "--dry-run"],
             ["rename", "doc.md", "new-dangling.md"], ["watch", *WATCH]]
    return [make(t) for t in TARGETS for make in per_target] + whole


WATCH = ["--reanchor", "--interval", "10", "--debounce", "10"]
WATCH_FOR = 0.4   # seconds each `mrsf watch` of the attack runs


def bounded_watch(monkeypatch: pytest.MonkeyPatch, root: Path) -> None:
    """``mrsf watch`` runs until it is stopped: here it stops after :data:`WATCH_FOR`
    seconds, and once it has taken its first look, every regular file of the repository
    (never through a link) gets a new time, so each document and sidecar it watches is
    handled as changed: re-anchored, validated."""
    import os
    import stat
    import time

    from markmcp.mrsf import watch as watching

    real = watching.run

    def touch_all() -> None:
        for folder, dirs, names in os.walk(root):
            for name in names:
                path = os.path.join(folder, name)
                if stat.S_ISREG(os.lstat(path).st_mode):
                    os.utime(path, ns=(time.time_ns(), time.time_ns() + 10**9), follow_symlinks=False)

    def run(watcher: Any, handle: Any, **kwargs: Any) -> None:
        until = time.monotonic() + WATCH_FOR
        touched: list[bool] = []

        def stopped() -> bool:
            if not touched:
                touch_all()
                touched.append(True)
            return time.monotonic() > until

        real(watcher, handle, **{**kwargs, "stopped": stopped})

    monkeypatch.setattr(watching, "run", run)


def run_cli(argv: list[str]) -> tuple[str, Any, str]:
    out, err = io.StringIO(), io.StringIO()

    def run() -> int:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            return cli.main(argv)

    kind, value = in_thread(run)
    return kind, value, out.getvalue() + err.getvalue()


def test_every_cli_command_is_attacked() -> None:
    commands = {argv[0] for argv in cli_calls()}
    assert commands == set(COMMANDS)


@pytest.mark.parametrize("variant", VARIANTS)
def test_cli_on_a_hostile_repository(tmp_path: Path, variant: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """As the tools, except that a ``.mrsf.yaml`` above makes its folder the CLI's
    workspace root (MRSF §3): everything below it, the "outside" folder included, is
    then the CLI's to use, and that variant only checks for hangs and crashes."""
    repo = Repo(tmp_path, variant)
    bounded_watch(monkeypatch, repo.cwd)
    confined = variant != "config-above"
    secrets = SECRETS if confined else ()
    problems: list[str] = []
    for argv in cli_calls():
        kind, code, output = run_cli(["--cwd", str(repo.cwd), *argv])
        label = "mrsf " + " ".join(argv)
        if kind != "ok":
            problems.append(f"{label}: {'no answer within %s s' % HANG if kind == 'hang' else code}")
            continue
        if code not in (0, 1, 2):
            problems.append(f"{label}: exit code {code}")
        if "internal error" in output or "Traceback" in output:
            problems.append(f"{label}: {output.strip()}")
        if any(secret in output for secret in secrets):
            problems.append(f"{label}: the secret text of a file outside shows in the output")
        if "\x1b" in output:
            problems.append(f"{label}: an escape character reached the terminal")
        try:
            if confined:
                repo.check()
        except AssertionError as error:
            problems.append(f"{label}: {error}")
            break
    assert problems == []


# --- over the wire ------------------------------------------------------------------------------


@pytest.mark.parametrize("module", ["markmcp.mrsf.server", "markmcp.server"])  # mrsf-mcp, markmcp-mcp
def test_real_server_round_trips_on_a_hostile_repository(tmp_path: Path, module: str) -> None:
    repo = Repo(tmp_path, "plain")
    calls = [
        ("mrsf_discover", {"document": "fifo.md"}),
        ("mrsf_list", {"files": ["dev.md"]}),
        ("mrsf_add", {"document": "locked.md", **COMMENT}),
        ("mrsf_repair", {"document": "bak.md", "backup": True}),
        ("mrsf_validate", {"files": ["bomb.md"]}),
        ("mrsf_status", {}),
        ("mrsf_add", {"document": "fifodoc.md", **COMMENT}),
        ("mrsf_discover", {"document": "a" * 6000 + ".md"}),
        ("mrsf_discover", {"document": "x\u0000.md"}),
    ]
    with StdioClient(module_command(module), cwd=repo.cwd, timeout=HANG * 2) as client:
        assert "result" in client.initialize()
        for name, args in calls:
            result = client.call_tool(name, args)
            text = json.dumps(result)
            assert not any(secret in text for secret in SECRETS), name
            assert "failed:" not in result["content"][0]["text"], (name, result["content"][0]["text"])
        answer = client.call("resources/read", {"uri": "mrsf://sidecar/link.md"})
        assert "error" in answer and SECRET.strip() not in json.dumps(answer)
        code, stderr = client.finish(timeout=HANG)
    assert code == 0 and "Traceback" not in stderr
    repo.check()
