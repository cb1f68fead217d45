"""``figdown`` and ``figdown-mcp`` against a hostile repository (issue 8).

One repository (built with :mod:`hostile`) holds what an attacker can plant where a
FigDown tool looks: ``*.fd`` symlinks to a victim file outside, to
``/proc/self/environ``, to ``/dev/zero`` and to a folder outside; a FIFO; a dangling
link; a file over the size limit; a file that is not UTF-8; deep folders and deeply
nested text; file names and document text carrying terminal control sequences.

Every tool of ``figdown-mcp`` (called in-process with a :class:`CallContext`, plus a
few real stdio round trips) and every ``figdown`` command (``main`` in-process, plus
a few real processes) is run against it.  Each run must: finish (a call that takes
longer than :data:`HANG` seconds fails as a hang), print no traceback, leave the
outside untouched, and never show the victim's content or the environment in any
output.  The first section holds one regression test per finding (3, 6, 7, 10, 12),
each failing on the code before the fix.
"""

from __future__ import annotations

import io
import json
import os
import resource
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcpwire import StdioClient, module_command

from markmcp.figdown import cli, server
from markmcp.mcpcore import CallContext, FileAccessError, ToolError
from markmcp.mcpcore.files import MAX_FILE_BYTES

from .hostile import SECRET, Hostile, deep_nesting

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="needs symlinks, FIFOs and /proc")

LIMIT = MAX_FILE_BYTES
HANG = 30.0
CANARY_NAME = "MARKMCP_ATTACK_CANARY"
CANARY_VALUE = "canary-5e1f-never-print-me"
MEMORY_CAP = 2 * 1024 ** 3  # address space of a CLI process under attack (the old code grew past it)

CLEAN = 'figdown 0.1 block\nnode a "A"\nnode b "B"\nedge a -> b\n'
BROKEN = 'figdown 0.1 block\nnode a "A"\nfrobnicate\n'
ESC_NAME = "\x1b]0;pwned\x07\x1b[31m.fd"
FORGED = "checked 9 document(s), 9 clean, 0 with diagnostics"
FORGE_NAME = f"forge\n{FORGED}\n.fd"
ESC_TEXT = 'figdown 0.1 block\nnode a "A"\nfrob\x1b[2J\x9b31m\u202e\n'
RAW_CONTROLS = ("\x1b", "\x07", "\x9b", "\u202e", "\r")


def environment_names() -> list[str]:
    """``NAME=`` of each variable in this process's /proc/self/environ (what a leak would show)."""
    entries = Path("/proc/self/environ").read_bytes().split(b"\0")
    names = {entry.split(b"=", 1)[0].decode("utf-8", "replace") for entry in entries if b"=" in entry}
    return sorted(f"{name}=" for name in names if len(name) >= 3)


ENVIRONMENT = environment_names()


def leaks(text: str) -> list[str]:
    """The secrets found in ``text``: the victim's content or any environment entry."""
    found = [secret for secret in (SECRET.strip(), CANARY_NAME, CANARY_VALUE) if secret in text]
    return found + [name for name in ENVIRONMENT if name in text]


def within(function: Callable[[], Any], seconds: float = HANG) -> Any:
    """``function()`` in a worker thread; a hang (still running after ``seconds``) fails."""
    outcome: list[Any] = []

    def run() -> None:
        try:
            outcome.append(("value", function()))
        except BaseException as error:  # noqa: BLE001 - handed back to the test
            outcome.append(("error", error))

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), f"the call hung (still running after {seconds} s)"
    kind, value = outcome[0]
    if kind == "error":
        raise value
    return value


# --- the hostile repository -----------------------------------------------------------------


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Hostile:
    base = tmp_path_factory.mktemp("attack-figdown")
    h = Hostile.create(base)
    elsewhere = base / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "trap.fd").write_text(SECRET)  # a folder outside: entering it would show the secret
    h.write("in-repo.fd", CLEAN)
    h.write("figs/good.fd", CLEAN)
    h.write("figs/broken.fd", BROKEN)
    h.link_to_victim("figs/leak.fd")
    h.device_link("figs/env.fd", "/proc/self/environ")
    h.device_link("figs/zero.fd", "/dev/zero")
    h.fifo("figs/pipe.fd")
    h.dangling_link("figs/dangling.fd")
    h.link_to_folder_outside("figs/outdir.fd")
    (h.root / "figs" / "away").symlink_to(elsewhere, target_is_directory=True)
    (h.root / "figs" / "loop").symlink_to(h.root, target_is_directory=True)
    h.huge("figs/huge.fd", LIMIT + 1)
    h.write("figs/latin.fd", b'figdown 0.1 block\nnode a "caf\xe9"\n')
    h.write("figs/nested.fd", "figdown 0.1 block\n" + deep_nesting(5_000))
    h.write("figs/deep/" + "d/" * 150 + "bottom.fd", BROKEN)
    h.write(f"figs/{ESC_NAME}", BROKEN)
    h.write(f"figs/{FORGE_NAME}", BROKEN)
    h.write("figs/esc-text.fd", ESC_TEXT)
    (h.root / "figs" / "inside.fd").symlink_to("good.fd")
    (h.root / "figs" / "up.fd").symlink_to("../in-repo.fd")
    h.write("figs/\U0001f600.fd", CLEAN)   # UTF-16: D83D DE00, sorts before U+FF21
    h.write("figs/\uff21.fd", CLEAN)
    return h


#: What a check of ``figs`` reports for each planted entry (None: read and checked).
SERVER_PROBLEMS = {
    "leak.fd": "outside", "env.fd": "outside", "zero.fd": "outside", "dangling.fd": "outside",
    "outdir.fd": "outside", "pipe.fd": "not-regular", "huge.fd": "too-large", "latin.fd": "not-utf8",
}
CLI_PROBLEMS = {**SERVER_PROBLEMS, "up.fd": "outside"}  # the CLI stays inside the folder it walks


def utf16(name: str) -> bytes:
    return name.encode("utf-16-be", "surrogatepass")


def expected_walk(folder: Path) -> list[str]:
    """The ``*.fd`` below ``folder`` in the reference order, as paths relative to it."""
    order: list[str] = []
    for entry in sorted(os.scandir(folder), key=lambda e: utf16(e.name)):
        if entry.is_dir(follow_symlinks=False):
            order += [f"{entry.name}/{rest}" for rest in expected_walk(Path(entry.path))]
        elif entry.name.endswith(".fd"):
            order.append(entry.name)
    return order


def context(root: Path, *roots: Path) -> CallContext:
    return CallContext(roots=tuple(roots), cwd=root, allow_write=False, options={})


def call(handler: Callable[[dict[str, Any], CallContext], dict[str, Any]], args: dict[str, Any],
         ctx: CallContext) -> tuple[str, Any]:
    """A tool handler in-process: ("result", dict) or ("refused", message) as the client sees it."""
    try:
        return "result", within(lambda: handler(args, ctx))
    except (ToolError, FileAccessError) as error:
        return "refused", error.message


def text_of(tool: str, result: dict[str, Any]) -> str:
    render = {"figdown_check": server.check_text, "figdown_read": server.read_text,
              "figdown_reference": server.reference_text}[tool]
    rendered = render(result)
    return "\n".join([rendered] if isinstance(rendered, str) else rendered)


def run_cli(args: list[str], cwd: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
            stdin: bytes = b"") -> tuple[int, str, str]:
    """``figdown`` in-process: (exit code, stdout, stderr)."""
    monkeypatch.chdir(cwd)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    code = within(lambda: cli.main(args))
    out, err = capsys.readouterr()
    return code, out, err


def cli_process(args: list[str], cwd: Path, stdin: Any = subprocess.DEVNULL) -> subprocess.CompletedProcess[bytes]:
    """``figdown`` as a real process, its address space capped and a canary in its environment."""
    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))

    env = {**os.environ, CANARY_NAME: CANARY_VALUE}
    return subprocess.run([sys.executable, "-m", "markmcp.figdown.cli", *args], cwd=cwd, stdin=stdin,
                          capture_output=True, timeout=HANG, env=env, preexec_fn=cap)


def labels_and_codes(result: dict[str, Any]) -> dict[str, str | None]:
    return {doc["label"]: doc["problem"]["code"] if "problem" in doc else None for doc in result["documents"]}


def assert_safe_text(text: str) -> None:
    assert not leaks(text), f"secret in output: {leaks(text)}"
    for char in RAW_CONTROLS:
        assert char not in text, f"raw control character {char!r} in human output"
    assert FORGED not in text.split("\n"), "a file name forged a line of the report"
    assert "Traceback" not in text


# --- regressions: one per finding, each on a repository holding only its plant ----------------------
#
# (Each fails on the code before the fix.)


@pytest.fixture()
def small(tmp_path: Path) -> Hostile:
    h = Hostile.create(tmp_path)
    h.write("figs/good.fd", CLEAN)
    h.write("figs/broken.fd", BROKEN)
    return h


def test_finding_3_a_folder_check_never_reads_a_symlink_leading_out(small: Hostile) -> None:
    small.link_to_victim("figs/leak.fd")
    small.device_link("figs/env.fd", "/proc/self/environ")
    kind, result = call(server.check, {"path": "figs"}, context(small.root))
    assert kind == "result"
    assert not leaks(json.dumps(result)) and not leaks(text_of("figdown_check", result))
    assert labels_and_codes(result) == {"figs/broken.fd": None, "figs/env.fd": "outside", "figs/good.fd": None,
                                        "figs/leak.fd": "outside"}
    assert (result["checked"], result["clean"], result["withDiagnostics"], result["unreadable"]) == (4, 1, 1, 2)
    assert text_of("figdown_check", result).split("\n")[-1] == \
        "checked 4 document(s), 1 clean, 1 with diagnostics, 2 not read"
    small.assert_untouched()


def test_finding_3_the_cli_walk_stays_inside_the_walked_folder(small: Hostile, monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    small.link_to_victim("figs/leak.fd")
    small.device_link("figs/env.fd", "/proc/self/environ")
    small.write("in-repo.fd", "SECRET-OF-THE-PARENT\n")
    (small.root / "figs" / "up.fd").symlink_to("../in-repo.fd")
    code, out, err = run_cli(["check", "figs"], small.root, monkeypatch, capsys)
    assert code == 1 and err == ""
    assert not leaks(out) and "SECRET-OF-THE-PARENT" not in out
    assert out.count("NOT READ — ") == 3
    assert "NOT READ — figs/up.fd\npath 'figs/up.fd' resolves to " in out
    code, out, err = run_cli(["check", "--json", "figs"], small.root, monkeypatch, capsys)
    assert labels_and_codes(json.loads(out)) == {"figs/broken.fd": None, "figs/env.fd": "outside",
                                                  "figs/good.fd": None, "figs/leak.fd": "outside",
                                                  "figs/up.fd": "outside"}


def test_finding_6_no_document_over_the_limit_is_read(small: Hostile, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    small.huge("figs/huge.fd", LIMIT + 1, fill=b"#")
    ctx = context(small.root)
    for handler in (server.check, server.read):
        kind, message = call(handler, {"path": "figs/huge.fd"}, ctx)
        assert kind == "refused" and message == (
            f"figs/huge.fd: the document is {LIMIT + 1} bytes, over the {LIMIT}-byte limit; it was not read")
        kind, message = call(handler, {"source": "#" * (LIMIT + 1)}, ctx)
        assert kind == "refused" and message == (
            f"<source>: the document is {LIMIT + 1} bytes, over the {LIMIT}-byte limit; it was not parsed")
        kind, message = call(handler, {"source": "é" * (LIMIT // 2 + 1)}, ctx)  # counted in UTF-8 bytes
        assert kind == "refused" and f"is {LIMIT + 2} bytes" in message
    assert call(server.check, {"source": "#" * LIMIT}, ctx)[0] == "result"  # the limit itself is allowed
    kind, result = call(server.check, {"path": "figs"}, ctx)
    assert labels_and_codes(result)["figs/huge.fd"] == "too-large"
    for command in ("check", "read"):
        code, out, err = run_cli([command, "figs/huge.fd"], small.root, monkeypatch, capsys)
        assert (code, out) == (2, "") and f"over the {LIMIT}-byte limit" in err
        code, out, err = run_cli([command, "-"], small.root, monkeypatch, capsys, stdin=b"#" * (LIMIT + 1))
        assert (code, out) == (2, "")
        assert err == f"figdown: <stdin>: the document is over the {LIMIT}-byte limit; the rest was not read\n"
    code, out, err = run_cli(["check", "-"], small.root, monkeypatch, capsys, stdin=b"#" * LIMIT)
    assert code == 0


def test_finding_7_special_files_on_the_command_line(small: Hostile) -> None:
    small.fifo("figs/pipe.fd")
    small.device_link("figs/zero.fd", "/dev/zero")
    for command, target in (("check", "/dev/zero"), ("check", "figs/pipe.fd"), ("read", "figs/zero.fd"),
                            ("read", "figs/pipe.fd")):
        run = cli_process([command, target], small.root)
        assert run.returncode == 2 and run.stdout == b""
        assert b"not a regular file; it is never read" in run.stderr, run.stderr
    with open("/dev/zero", "rb") as zero:
        run = cli_process(["check", "-"], small.root, stdin=zero)
    assert run.returncode == 2 and run.stdout == b""
    assert run.stderr == f"figdown: <stdin>: the document is over the {LIMIT}-byte limit; the rest was not read\n".encode()


def test_finding_10_a_folder_check_goes_on_past_a_document_that_is_not_utf8(
    small: Hostile, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    small.write("figs/latin.fd", b'figdown 0.1 block\nnode a "caf\xe9"\n')
    kind, result = call(server.check, {"path": "figs"}, context(small.root))
    assert kind == "result"
    assert result["documents"][2] == {"label": "figs/latin.fd", "ok": False, "diagnostics": [], "problem": {
        "code": "not-utf8",
        "message": "figs/latin.fd: the document is not UTF-8 text (byte 0xe9 at offset 29, line 2)"}}
    assert (result["ok"], result["checked"], result["clean"], result["withDiagnostics"], result["unreadable"]) \
        == (False, 3, 1, 1, 1)
    code, out, err = run_cli(["check", "figs"], small.root, monkeypatch, capsys)
    assert code == 1 and err == ""
    assert out.split("\n\n") == [
        "PARSE FAILED — 1 diagnostic(s) in figs/broken.fd\n" + parse_failed_lines(BROKEN),
        "NOT READ — figs/latin.fd\nfigs/latin.fd: the document is not UTF-8 text (byte 0xe9 at offset 29, line 2)",
        "checked 3 document(s), 1 clean, 1 with diagnostics, 1 not read\n",
    ]


def parse_failed_lines(text: str) -> str:
    from markmcp.figdown import parse

    return "\n".join(f"Line {d.line}: {d.message}" for d in parse(text).diagnostics)


def test_finding_12_control_characters_are_escaped_in_human_output(
    small: Hostile, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    small.write(f"figs/{ESC_NAME}", BROKEN)
    small.write(f"figs/{FORGE_NAME}", BROKEN)
    small.write("figs/esc-text.fd", ESC_TEXT)
    code, out, err = run_cli(["check", "figs"], small.root, monkeypatch, capsys)
    assert_safe_text(out + err)
    assert "PARSE FAILED — 1 diagnostic(s) in figs/\\x1b]0;pwned\\x07\\x1b[31m.fd\n" in out
    assert '"frob\\x1b[2J\\x9b31m\\u202e" is not allowed in genre block' in out
    assert f"figs/forge\\n{FORGED}\\n.fd" in out
    # JSON keeps every value exact
    code, out, err = run_cli(["check", "--json", "figs"], small.root, monkeypatch, capsys)
    documents = {doc["label"]: doc for doc in json.loads(out)["documents"]}
    assert f"figs/{ESC_NAME}" in documents and f"figs/{FORGE_NAME}" in documents
    assert any("frob\x1b[2J\x9b31m\u202e" in d["message"] for d in documents["figs/esc-text.fd"]["diagnostics"])
    code, out, err = run_cli(["read", f"figs/{ESC_NAME}"], small.root, monkeypatch, capsys)
    assert code == 1 and err.startswith("PARSE FAILED — 1 diagnostic(s) in figs/\\x1b]0;pwned")
    assert_safe_text(err)
    # the server's text blocks too; its structuredContent stays exact
    kind, result = call(server.check, {"path": "figs"}, context(small.root))
    assert_safe_text(text_of("figdown_check", result))
    assert f"figs/{ESC_NAME}" in labels_and_codes(result)
    kind, result = call(server.read, {"source": ESC_TEXT}, context(small.root))
    assert_safe_text(text_of("figdown_read", result))
    assert any("\x1b[2J" in d["message"] for d in result["diagnostics"])
    kind, result = call(server.read, {"path": f"figs/{ESC_NAME}"}, context(small.root))
    assert result["label"] == f"figs/{ESC_NAME}"
    assert_safe_text(text_of("figdown_read", result))


# --- every tool, every planted path --------------------------------------------------------------

#: Paths a client or user may name directly; each must be refused (none is a document we may read).
REFUSED_PATHS = [
    "figs/leak.fd", "figs/env.fd", "figs/zero.fd", "figs/pipe.fd", "figs/dangling.fd", "figs/outdir.fd",
    "figs/huge.fd", "figs/latin.fd", "figs/away/trap.fd", "figs/loop/figs/leak.fd", "../outside/victim.txt",
    "/proc/self/environ", "/dev/zero", "/proc/self/fd/0", "figs/nope.fd", "", "a\x00b", "x" * 6000,
]


def test_the_hostile_walk_reports_every_plant_in_the_reference_order(repo: Hostile) -> None:
    kind, result = call(server.check, {"path": "figs"}, context(repo.root))
    assert kind == "result"
    codes = labels_and_codes(result)
    assert {name: codes[f"figs/{name}"] for name in SERVER_PROBLEMS} == SERVER_PROBLEMS
    assert codes["figs/up.fd"] is None and codes["figs/inside.fd"] is None  # inside the server's folder: read
    assert result["unreadable"] == len(SERVER_PROBLEMS)
    assert result["checked"] == result["clean"] + result["withDiagnostics"] + result["unreadable"]
    labels = [doc["label"] for doc in result["documents"]]
    assert labels == ["figs/" + name for name in expected_walk(repo.root / "figs")]
    assert labels.index("figs/\U0001f600.fd") < labels.index("figs/\uff21.fd")  # UTF-16, not code points
    assert labels.index("figs/dangling.fd") < labels.index("figs/deep/" + "d/" * 150 + "bottom.fd") \
        < labels.index("figs/env.fd")  # a subfolder where its name falls
    assert not leaks(json.dumps(result)) and not leaks(text_of("figdown_check", result))
    assert_safe_text(text_of("figdown_check", result))
    repo.assert_untouched()


def test_the_cli_walk_reports_every_plant(repo: Hostile, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(["check", "--json", "figs"], repo.root, monkeypatch, capsys)
    assert code == 1 and err == ""
    codes = labels_and_codes(json.loads(out))
    assert {name: codes[f"figs/{name}"] for name in CLI_PROBLEMS} == CLI_PROBLEMS
    assert not leaks(out)


@pytest.mark.parametrize("tool", ["figdown_check", "figdown_read"])
def test_every_planted_path_is_refused_by_the_server(repo: Hostile, tool: str) -> None:
    handler = {"figdown_check": server.check, "figdown_read": server.read}[tool]
    before = repo.outside_snapshot()
    for path in [*REFUSED_PATHS, str(repo.victim)]:
        kind, answer = call(handler, {"path": path}, context(repo.root))
        assert kind == "refused", (path, answer)
        assert not leaks(answer), (path, answer)
        assert len(answer) < 1000
    assert repo.outside_snapshot() == before
    repo.assert_untouched()


def test_the_server_reads_what_lies_inside(repo: Hostile) -> None:
    ctx = context(repo.root)
    for path in ("figs/inside.fd", "figs/up.fd", "figs/nested.fd", "figs/loop/in-repo.fd"):
        kind, result = call(server.read, {"path": path}, ctx)
        assert kind == "result" and not leaks(json.dumps(result)), path
    kind, result = call(server.check, {"path": "."}, ctx)
    assert kind == "result" and not leaks(json.dumps(result)) and not leaks(text_of("figdown_check", result))
    assert "figs/away/trap.fd" not in labels_and_codes(result)  # a symlinked folder is not entered
    # a root widens the server's folders: the victim becomes readable, and only then
    kind, result = call(server.read, {"path": str(repo.victim)}, context(repo.root, repo.outside))
    assert kind == "result" and result["ok"] is False


HOSTILE_NAMES = ["../../etc/passwd", "/proc/self/environ", "reading/../../SKILL", "..", "skill\x00",
                 "\x1b[2J", "block.md", "x" * 5000]


def test_reference_refuses_hostile_names(repo: Hostile, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    for name in HOSTILE_NAMES:
        kind, message = call(server.reference, {"name": name}, context(repo.root))
        assert kind == "refused" and message.startswith("unknown reference"), (name, message)
        assert not leaks(message) and "root:" not in message
        code, out, err = run_cli(["reference", name], repo.root, monkeypatch, capsys)
        assert (code, out) == (2, "")
        assert_safe_text(err)
    assert call(server.reference, {}, context(repo.root))[0] == "result"


#: Paths ``figdown`` refuses even when they are named on its command line.  (A file named
#: there is otherwise read wherever a symlink leads, as ``cat`` would: the user chose it;
#: only what a walk finds is confined, to the walked folder.)
CLI_REFUSED = ["figs/zero.fd", "figs/pipe.fd", "figs/dangling.fd", "figs/huge.fd", "figs/latin.fd",
               "/dev/zero", "figs/nope.fd", "", "a\x00b", "x" * 6000]


@pytest.mark.parametrize("args", [
    ["check", "figs"], ["check", "--json", "figs"], ["check", "."], ["check", "figs", "in-repo.fd"],
    ["check", "figs/loop"], ["check", "figs/outdir.fd"],
    *[["check", path] for path in CLI_REFUSED], *[["read", path] for path in CLI_REFUSED],
    ["read", "figs/nested.fd"], ["check", "-"], ["read", "-"], ["reference"], ["reference", "skill"],
], ids=lambda args: " ".join(args).encode("unicode_escape").decode()[:40])
def test_every_cli_command_on_the_hostile_repository(repo: Hostile, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str], args: list[str]) -> None:
    before = repo.outside_snapshot()
    code, out, err = run_cli(args, repo.root, monkeypatch, capsys, stdin=ESC_TEXT.encode())
    assert code in (0, 1, 2)
    assert not leaks(out + err), leaks(out + err)
    assert "Traceback" not in err
    if "--json" not in args and args[0] != "read":
        assert_safe_text(out + err)
    if args[0] != "reference" and args[-1] in CLI_REFUSED:
        assert code == 2
    if code == 2:
        assert out == "" and err.startswith("figdown: ") and err.count("\n") == 1
    assert repo.outside_snapshot() == before
    repo.assert_untouched()


# --- real processes -----------------------------------------------------------------------------


def test_the_cli_as_a_process(repo: Hostile) -> None:
    run = cli_process(["check", "figs"], repo.root)
    assert run.returncode == 1
    text = (run.stdout + run.stderr).decode("utf-8")
    assert_safe_text(text)
    assert text.endswith(f", {len(CLI_PROBLEMS)} not read\n")


@pytest.mark.parametrize("module", ["markmcp.figdown.server", "markmcp.server"])  # figdown-mcp, markmcp-mcp
def test_stdio_round_trips(repo: Hostile, monkeypatch: pytest.MonkeyPatch, module: str) -> None:
    monkeypatch.setenv(CANARY_NAME, CANARY_VALUE)  # the server inherits it: /proc/self/environ would show it
    with StdioClient(module_command(module), cwd=repo.root, timeout=HANG) as stdio:
        assert "result" in stdio.initialize(client="attack")

        def tool(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
            answer = stdio.call("tools/call", {"name": name, "arguments": arguments})
            assert not leaks(json.dumps(answer, ensure_ascii=False)), leaks(json.dumps(answer))
            return answer["result"]

        result = tool("figdown_check", {"path": "figs"})
        assert result["isError"] is False
        assert labels_and_codes(result["structuredContent"])["figs/env.fd"] == "outside"
        for block in result["content"]:
            assert_safe_text(block["text"])
        for path in ("figs/leak.fd", "figs/env.fd", "figs/pipe.fd", "figs/zero.fd", "/proc/self/environ"):
            assert tool("figdown_read", {"path": path})["isError"] is True
        big = tool("figdown_check", {"source": "#" * (LIMIT + 1)})
        assert big["isError"] is True and "over the" in big["content"][0]["text"]
        assert tool("figdown_reference", {"name": "../../etc/passwd"})["isError"] is True
        assert tool("figdown_check", {"source": CLEAN})["structuredContent"]["ok"] is True  # still serving
        code, stderr = stdio.finish()
    assert code == 0 and "Traceback" not in stderr and not leaks(stderr)
    repo.assert_untouched()


def test_a_label_is_made_of_any_name_without_failing() -> None:
    from markmcp.figdown.sources import shown

    assert shown(os.fsdecode(b"caf\xe9.fd")) == "caf\\xe9.fd"  # name bytes that are not UTF-8
    assert shown("figs/\ud800.fd") == "figs/\\ud800.fd"  # a lone surrogate (only an argument can hold one)
    assert shown(f"figs/{ESC_NAME}") == f"figs/{ESC_NAME}"  # exact: human output escapes it when printing
