"""Fuzz targets: what each parser is fed, what counts as a crash, and how inputs are mutated.

Shared by the Hypothesis fuzz tests (``tests/fuzzing/``) and ``make fuzz`` (``bench/fuzz.py``),
so both fuzz the same entry points with the same rule: a *crash* is any exception other
than the engine's documented error type (or a hang; the drivers time each input).

Targets (``TARGETS``):

* ``figdown``: ``markmcp.figdown.parse`` on text; a clean result must also give its model
  JSON.  Bad input is reported as diagnostics, never raised.
* ``figdown-render``: the same text, and a clean parse built (``markmcp.figdown.render.build``):
  either refused with geometry diagnostics whose lines lie in the document, or an artifact
  that is well-formed XML inside the Safe SVG profile and reads back its source.
* ``visimark``: what ``visimark check`` runs on a document's text (``check(build(text))``)
  and the report it prints (text and JSON).  Problems are findings, never raised.
* ``mrsf``: ``markmcp.mrsf.sidecar.parse_sidecar`` on YAML or JSON text (``MrsfError`` is
  documented), then the validator on what parsed, against the paired document.
* ``mrsf-validate``: the validator on structurally mutated sidecar data (wrong types,
  missing and extra keys, odd numbers), without the YAML layer in between.
* ``jsonrpc``: one line into the stdio session's line handler (``StdioSession.take``), in
  process: every line is answered at most once, with a well-formed JSON-RPC error, or
  delivered as exactly one message; nothing escapes.

Inputs are corpus documents (``../shared`` and the repository's samples) cut to a window of
lines and mutated (:func:`mutate`), spliced with another document, or random text drawn
from the characters each grammar cares about.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def shared_root() -> Path:
    import os

    return Path(os.environ.get("MARKMCP_SHARED", ROOT.parent / "shared"))


def _read_all(*groups: list[Path]) -> list[str]:
    """The texts of the files of each group, the groups in the order given, each group sorted:
    the order (and so input ``i`` of ``make fuzz``) does not depend on where the checkout is."""
    texts = []
    for path in (path for group in groups for path in sorted(group)):
        try:
            texts.append(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError):
            continue
    return texts


# --- corpora ----------------------------------------------------------------------------------


def figdown_seeds(shared: Path) -> list[str]:
    return _read_all(list((shared / "figdown").rglob("*.fd")))


def visimark_seeds(shared: Path) -> list[str]:
    return _read_all(list((shared / "visimark").rglob("*.md")), list((ROOT / "samples" / "docs").glob("*.md")))


def _sidecar_files(shared: Path) -> tuple[list[Path], ...]:
    return (
        list((shared / "mrsf" / "examples").glob("*.review.yaml")),
        list((ROOT / "samples" / "docs").glob("*.review.yaml")),
        list((ROOT / "tests" / "mrsf" / "golden").glob("*.review.yaml")),
    )


def mrsf_seeds(shared: Path) -> list[str]:
    """YAML sidecars, and the same data as JSON sidecars (the two formats MRSF defines)."""
    from markmcp.mrsf.errors import MrsfError
    from markmcp.mrsf.sidecar import parse_sidecar

    yaml_texts = _read_all(*_sidecar_files(shared))
    json_texts = []
    for text in yaml_texts:
        try:
            data = parse_sidecar(text, fmt="yaml").data
            json_texts.append(json.dumps(_plain(data), indent=2, ensure_ascii=False) + "\n")
        except (MrsfError, TypeError, ValueError):
            continue
    return yaml_texts + json_texts


def mrsf_documents(shared: Path) -> list[str]:
    """The Markdown documents the example sidecars review (validated against with ``document_text``)."""
    return _read_all(list((shared / "mrsf" / "examples").glob("*.md")), list((ROOT / "samples" / "docs").glob("*.md")))


def jsonrpc_seeds(shared: Path) -> list[str]:
    """Well-formed messages of every kind a client sends (one per line)."""
    messages: list[dict[str, Any]] = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {"roots": {"listChanged": True}},
            "clientInfo": {"name": "fuzz", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"cursor": "abc"}},
        {"jsonrpc": "2.0", "id": "three", "method": "tools/call", "params": {
            "name": "mrsf_add", "arguments": {"document": "docs/a.md", "text": "Looks good", "line": 3,
                                              "selected_text": "café ünïcode", "tags": ["x", "y"]},
            "_meta": {"progressToken": 7}}},
        {"jsonrpc": "2.0", "id": 4, "method": "resources/read", "params": {"uri": "mrsf://sidecar/docs/a.md"}},
        {"jsonrpc": "2.0", "id": 5, "method": "completion/complete", "params": {
            "ref": {"type": "ref/resource", "uri": "demo://file/{+path}"}, "argument": {"name": "path", "value": "do"}}},
        {"jsonrpc": "2.0", "id": 6, "method": "logging/setLevel", "params": {"level": "debug"}},
        {"jsonrpc": "2.0", "id": 7, "method": "ping"},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 3, "reason": "user"}},
        {"jsonrpc": "2.0", "id": 0, "result": {"roots": [{"uri": "file:///tmp/x", "name": "x"}]}},
        {"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "Method not found", "data": None}},
        {"jsonrpc": "2.0", "id": 8, "method": "figdown_check", "params": {"source": "figdown 0.1 block\nnode a\n"}},
    ]
    return [json.dumps(message, ensure_ascii=False) for message in messages]


def _plain(value: Any) -> Any:
    """ruamel's round-trip containers (and dates) as plain JSON-able values."""
    if isinstance(value, dict):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)


# --- runs: the entry point and its documented failure ----------------------------------------------


def run_figdown(text: str, context: Any = None) -> None:
    from markmcp.figdown import model_json, parse

    result = parse(text)
    for diagnostic in result.diagnostics:
        line, message = diagnostic[0], diagnostic[1]
        assert isinstance(line, int) and isinstance(message, str) and message, diagnostic
    if not result.diagnostics:
        json.loads(model_json(result))


def run_figdown_render(text: str, context: Any = None) -> None:
    from figdown.svgprofile import safe_profile_problems
    from markmcp.figdown import parse
    from markmcp.figdown.render import build, geometry, read_artifact

    if not parse(text).ok:
        return
    out = build(text)
    # a check finds the same diagnostics without drawing
    assert geometry(parse(text)) == out.diagnostics, (geometry(parse(text)), out.diagnostics)
    if out.svg is None:
        assert out.diagnostics, "no artifact and no diagnostic"
        lines = text.count("\n") + 1
        for line, message in out.diagnostics:
            assert 1 <= line <= lines and message, (line, message)
        return
    assert not out.diagnostics, out.diagnostics
    problems = safe_profile_problems(out.svg)  # parses it as XML first
    assert problems == [], problems
    assert read_artifact(out.svg).source == text, "the artifact does not read back its source"


def run_visimark(text: str, context: Any = None) -> None:
    from markmcp.visimark.check import check
    from markmcp.visimark.model import build
    from markmcp.visimark.report import finding_json, format_check

    result = check(build(text))
    format_check("fuzz.md", result.findings)
    for finding in result.findings:
        json.dumps(finding_json(finding, "fuzz.md"))


def run_mrsf(text: str, context: Any = None) -> None:
    from markmcp.mrsf.errors import MrsfError
    from markmcp.mrsf.sidecar import parse_sidecar
    from markmcp.mrsf.validate import validate

    try:
        sidecar = parse_sidecar(text)
    except MrsfError:
        return
    report = validate(sidecar, document_text=context if isinstance(context, str) else None)
    _check_report(report)
    _check_report(validate(sidecar, strict=True))


def run_mrsf_validate(data: Any, context: Any = None) -> None:
    from markmcp.mrsf.validate import validate

    _check_report(validate(data, document_text=context if isinstance(context, str) else None))


def _check_report(report: Any) -> None:
    assert isinstance(report, dict) and isinstance(report.get("valid"), bool), report
    json.dumps(report)


def jsonrpc_runner() -> Callable[[str, Any], None]:
    """A line handler in a live event loop: call ``run(line)`` from inside ``anyio.run``."""
    import io

    import mcp_types as types

    from markmcp.mcpcore.lines import StdioWire
    from markmcp.mcpcore.stdio import StdioSession

    session = StdioSession(StdioWire(reader=io.BytesIO(), writer=io.BytesIO()), signals=False)

    def run(line: str | bytes, context: Any = None) -> None:
        raw = line.encode("utf-8", "surrogatepass") if isinstance(line, str) else line
        session.take(raw)
        replies = []
        while not session.lines_out.empty():
            replies.append(session.lines_out.get_nowait())
        delivered = []
        while True:
            try:
                delivered.append(session.inbox.receive_nowait())
            except Exception:  # anyio.WouldBlock: nothing more
                break
        assert len(replies) + len(delivered) <= 1, (replies, delivered)
        for reply in replies:
            assert reply.endswith(b"\n") and reply.count(b"\n") == 1, reply
            message = json.loads(reply)
            assert set(message) == {"jsonrpc", "id", "error"} and message["jsonrpc"] == "2.0", message
            assert message["id"] is None or isinstance(message["id"], (str, int)), message
            error = message["error"]
            assert isinstance(error["code"], int) and isinstance(error["message"], str) and error["message"], message
            assert error["code"] != types.INTERNAL_ERROR, message  # the catch-all never fires
        for item in delivered:
            assert isinstance(item.message, (types.JSONRPCRequest, types.JSONRPCNotification,
                                             types.JSONRPCResponse, types.JSONRPCError)), item
        # keep the session's bookkeeping from growing without bound across inputs
        session.pending.inbound.clear()
        session.pending.outbound.clear()

    return run


# --- mutation ------------------------------------------------------------------------------------

#: Characters worth inserting: the grammars' punctuation, line ends of every kind
#: (splitlines() traps included), quotes, escapes, BOM, NUL, surrogates' neighbours.
COMMON = "\n\n\n\r\n\t \\\"'`#;:,.=-+*/()[]{}<>|!?&%$@^~_0123456789aZz\x00\x0b\x0c\x1c\x85\u2028\u2029\ufeff\u00e9\U0001f600"
ALPHABETS = {
    "figdown": COMMON + "->=><-..--*oxfigdown0.1234567 block sequence node edge pin layout title lane group at=",
    "visimark": COMMON + "|`~vmark#$€%e^1234567890.,Σ=:-> sum avg round if and or not pct usd eur kg ms days",
    "mrsf": COMMON + "- :'\"|>&*!?{}[]~%@`mrsf_version document comments id author timestamp text line end_line "
                     "start_column end_column selected_text resolved reply_to 1.0 2024-01-01T00:00:00Z null true",
    "jsonrpc": COMMON + '{}[]":,0123456789.eE+-truefalsenull jsonrpc 2.0 id method params result error code message',
}

MAX_WINDOW_LINES = 80


def window(text: str, rng: random.Random) -> str:
    """A run of up to MAX_WINDOW_LINES lines of ``text`` (the whole text when it is short)."""
    lines = text.split("\n")
    if len(lines) <= MAX_WINDOW_LINES or rng.random() < 0.15:
        return text
    start = rng.randrange(0, len(lines) - MAX_WINDOW_LINES + 1)
    return "\n".join(lines[start:start + rng.randint(1, MAX_WINDOW_LINES)])


NUMBERS = ("0", "-1", "1e309", "9" * 40, "0.000001", "-0", "1_000", "0x10", "NaN", "1e-400", "2147483648")
LINE_ENDS = ("\r\n", "\r", "\n\n", "\u2028", " \n", "\x0b", "\x85")
COUNTS = (1, 1, 2, 10, 50, 200)
MAX_INPUT_CHARS = 100_000
"""Edits that repeat text stop growing an input here (repeats compound otherwise)."""
EDITS = 11
"""How many kinds of edit :func:`edit` knows."""


def _line_at(text: str, pos: int) -> tuple[int, int]:
    start = text.rfind("\n", 0, pos) + 1
    end = text.find("\n", pos)
    return start, (len(text) if end < 0 else end + 1)


def edit(text: str, kind: int, pos: int, piece: str, count: int, other: str = "") -> str:
    """One deterministic edit of ``text`` (so Hypothesis can shrink a list of them):
    ``kind`` picks what (insert ``piece``, delete, replace, repeat or move a line or a
    span, splice a piece of ``other``, an odd number, other line ends, cut short);
    ``pos`` is taken modulo the length; ``count`` sizes repeats and spans."""
    n = len(text)
    pos %= n + 1
    if kind == 0 or not n:
        return text[:pos] + piece + text[pos:]
    if kind == 1:
        return text[:pos] + text[pos + count:]
    if kind == 2:
        pos = min(pos, n - 1)
        return text[:pos] + piece[:1] + text[pos + 1:]
    if kind == 3:
        start, end = _line_at(text, pos)
        return text[:end] + text[start:end] * min(count, max(1, MAX_INPUT_CHARS // max(1, end - start))) + text[end:]
    if kind == 4:
        start, end = _line_at(text, pos)
        return text[:start] + text[end:]
    if kind == 5:
        start, end = _line_at(text, pos)
        line, rest = text[start:end], text[:start] + text[end:]
        at = (pos * 7919) % (len(rest) + 1)
        return rest[:at] + line + rest[at:]
    if kind == 6:
        if not other:
            return text[:pos] + piece + text[pos:]
        start = (pos * 31) % (len(other) + 1)
        return text[:pos] + other[start:start + 8 * count] + text[pos:]
    if kind == 7:
        return text[:pos]
    if kind == 8:
        return text[:pos] + NUMBERS[count % len(NUMBERS)] + text[pos:]
    if kind == 9:
        return text.replace("\n", LINE_ENDS[(count + len(piece)) % len(LINE_ENDS)], count)
    end = min(n, pos + 1 + count % 6)
    return text[:pos] + text[pos:end] * count + text[end:]


def capped(text: str) -> str:
    """``text`` cut to :data:`MAX_INPUT_CHARS`."""
    return text[:MAX_INPUT_CHARS]


def mutate_once(text: str, rng: random.Random, alphabet: str, other: str = "") -> str:
    """One random :func:`edit` of ``text``."""
    piece = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 8)))
    return edit(text, rng.randrange(EDITS), rng.randint(0, len(text)), piece, rng.choice(COUNTS), other)


def mutate(text: str, rng: random.Random, alphabet: str, other: str = "", edits: int | None = None) -> str:
    for _ in range(edits if edits is not None else rng.choice((1, 1, 2, 3, 5, 8))):
        text = capped(mutate_once(text, rng, alphabet, other))
    return text


def random_text(rng: random.Random, alphabet: str) -> str:
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 200)))


# --- structural mutation for the validator -------------------------------------------------------

_ODD_VALUES: list[Any] = [
    None, True, False, 0, -1, 1.5, float("inf"), 10**30, "", "x", "2024-13-45T99:99:99Z", [], {}, [None],
    {"a": 1}, "\u2028", "\x00", [1, 2], -0.0, "1e309",
]


def _odd(rng: random.Random) -> Any:
    return copy.deepcopy(rng.choice(_ODD_VALUES))  # a copy: the table itself never changes


def mutate_data(data: Any, rng: random.Random, edits: int | None = None) -> Any:
    """``data`` (a parsed sidecar) with a few nodes replaced, removed or duplicated."""
    data = copy.deepcopy(data)
    for _ in range(edits if edits is not None else rng.randint(1, 6)):
        data = _mutate_node(data, rng)
    return data


def _containers(value: Any, found: list[Any]) -> list[Any]:
    if isinstance(value, (dict, list)):
        found.append(value)
        for item in value.values() if isinstance(value, dict) else value:
            _containers(item, found)
    return found


def _mutate_node(data: Any, rng: random.Random) -> Any:
    containers = _containers(data, [])
    if not containers or rng.random() < 0.03:
        return _odd(rng)
    target = rng.choice(containers)
    keys = list(target) if isinstance(target, dict) else list(range(len(target)))
    choice = rng.randrange(4)
    if not keys or choice == 0:  # add an odd entry
        if isinstance(target, dict):
            target[rng.choice(("extra", "id", "line", "end_line", "reply_to", "selected_text", "x_custom"))] = _odd(rng)
        else:
            target.append(copy.deepcopy(target[0]) if target and rng.random() < 0.3 else _odd(rng))
        return data
    key = rng.choice(keys)
    if choice == 1:  # replace a value
        target[key] = _odd(rng)
    elif choice == 2:  # remove
        del target[key]
    else:  # duplicate into a sibling slot (repeated ids, cycles of replies)
        if isinstance(target, list):
            target.append(copy.deepcopy(target[key]))
        else:
            target[f"{key}_copy"] = copy.deepcopy(target[key])
    return data


# --- the table ------------------------------------------------------------------------------------


def _plain_runner(run: Callable[..., None]) -> Callable[[], Callable[..., None]]:
    return lambda: run


@dataclass(frozen=True)
class Target:
    """One fuzzed entry point.

    ``runner()`` gives the function that takes one input (and a context: the MRSF
    validator's document); it raises only on a crash (the engine's documented error, e.g.
    ``MrsfError`` from ``parse_sidecar``, is caught inside).  ``in_event_loop``: call
    ``runner()`` and every run inside ``anyio.run``.  ``structural``: inputs are parsed
    seed data (:func:`parsed_seed_data`) mutated with :func:`mutate_data`, not text.
    """

    name: str
    runner: Callable[[], Callable[..., None]]
    seeds: Callable[[Path], list[str]]
    alphabet: str
    contexts: Callable[[Path], list[str]] = field(default=lambda shared: [])
    in_event_loop: bool = False
    structural: bool = False


TARGETS: dict[str, Target] = {
    "figdown": Target("figdown", _plain_runner(run_figdown), figdown_seeds, ALPHABETS["figdown"]),
    "figdown-render": Target("figdown-render", _plain_runner(run_figdown_render), figdown_seeds,
                             ALPHABETS["figdown"]),
    "visimark": Target("visimark", _plain_runner(run_visimark), visimark_seeds, ALPHABETS["visimark"]),
    "mrsf": Target("mrsf", _plain_runner(run_mrsf), mrsf_seeds, ALPHABETS["mrsf"], mrsf_documents),
    "mrsf-validate": Target("mrsf-validate", _plain_runner(run_mrsf_validate), mrsf_seeds, ALPHABETS["mrsf"],
                            mrsf_documents, structural=True),
    "jsonrpc": Target("jsonrpc", jsonrpc_runner, jsonrpc_seeds, ALPHABETS["jsonrpc"], in_event_loop=True),
}


def parsed_seed_data(seeds: list[str]) -> list[Any]:
    """The data of every seed sidecar that parses (inputs for ``mrsf-validate``)."""
    from markmcp.mrsf.errors import MrsfError
    from markmcp.mrsf.sidecar import parse_sidecar

    found = []
    for text in seeds:
        try:
            found.append(_plain(parse_sidecar(text).data))
        except MrsfError:
            continue
    return found
