"""Text from a repository made safe to print on a terminal (every CLI's human output).

Whoever wrote a repository wrote its documents, sidecars and file names.  Printed raw,
an ``ESC [`` sequence recolours the screen, moves the cursor or sets the window title,
a carriage return or newline forges a line that looks like ours, and a bidirectional
override shows text in another order than it is stored.  :func:`escape_controls`
writes each such character as a visible escape (``\\x1b``, ``\\n``, ``\\u202e``) and
leaves everything else, non-ASCII letters and emoji included, as it is.  Machine
output (``--json``) is never passed through it: its encoder keeps values exact, and
:func:`inert_json` writes the few unsafe characters a JSON encoder leaves raw (DEL,
the C1 controls, the bidirectional controls, U+2028/U+2029) as ``\\uXXXX`` escapes,
which decode to the same values.

A string may also hold what no UTF-8 output can carry at all: a lone surrogate (a
file-name byte that is not UTF-8, kept as ``\\udcff``; a ``\\ud800`` escape decoded from
JSON or YAML).  :func:`lone_surrogate` says where one is in a JSON value, and
:func:`escape_surrogates` writes each as its escape.

Standard library only and cheap to import.
"""

from __future__ import annotations

import re
from typing import Any, Callable, TextIO

UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
                    "\ud800-\udfff]")
"""C0 controls (tab and newline included), DEL, the C1 controls, the bidirectional
marks, embeddings, overrides and isolates, the Unicode line and paragraph separators, and
lone surrogates (no UTF-8 output can carry one: a file name's byte that is not UTF-8 is
shown as ``\xff``, in JSON as the ``\udcff`` escape Python reads back as that name)."""

_UNSAFE_IN_JSON = re.compile(UNSAFE.pattern.replace("\x00-\x1f", "", 1))
"""What :data:`UNSAFE` matches apart from the C0 controls, which a JSON encoder escapes
inside strings itself (a raw one in its output is the layout's newline)."""

LONE_SURROGATE = re.compile("[\ud800-\udfff]")
"""A surrogate code point on its own in a Python string: not a character, and no UTF-8
(so no MCP message) can carry it.  (A character beyond U+FFFF is one code point in
Python, so a properly paired ``\\ud83d\\ude00`` escape never matches.)"""

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(char: str) -> str:
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:
        code -= 0xDC00  # a byte of a file name that is not UTF-8, as surrogateescape keeps it
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escape_controls(text: str, keep: str = "") -> str:
    """``text`` with every unsafe character escaped, except those listed in ``keep``
    (``"\\n"`` where a newline is the output's own line break).  Escapes are printable,
    so escaping twice changes nothing more."""
    if UNSAFE.search(text) is None:
        return text
    return UNSAFE.sub(lambda match: match.group() if match.group() in keep else _escape(match.group()), text)


def not_read(label: str, why: str) -> str:
    """The report of a file a run over a folder found but did not read, and why: one
    wording for every tool (FigDown's checks, the MRSF sweeps), control characters escaped."""
    return f"NOT READ — {escape_controls(label)}\n{escape_controls(why)}"


def inert_json(text: str) -> str:
    """JSON text (as ``json.dumps`` writes it, any indent) with every unsafe character
    written as a ``\\uXXXX`` escape: the values it encodes are the same, and nothing in
    it acts on a terminal.  (The encoder escapes the C0 controls inside strings itself,
    so a raw one can only be the layout's own newline, which stays.)"""
    if _UNSAFE_IN_JSON.search(text) is None:
        return text
    return _UNSAFE_IN_JSON.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def for_terminal(value: object) -> str:
    """``str(value)`` with every unsafe character escaped."""
    return escape_controls(value if isinstance(value, str) else str(value))


def tolerant(*streams: TextIO) -> None:
    """Let each stream escape what its encoding cannot carry (``backslashreplace``) instead
    of raising, so an odd file name never turns into a traceback."""
    for stream in streams:
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None and getattr(stream, "errors", None) == "strict":
            reconfigure(errors="backslashreplace")


def lone_surrogate(value: Any, where: str = "") -> tuple[str, str] | None:
    """Where the first lone surrogate in a JSON value is (in a string or a key), as a path
    such as ``result.content[0].text`` below ``where``, and the surrogate; None when there is none."""
    stack: list[tuple[str, Any]] = [(where, value)]
    while stack:
        path, item = stack.pop()
        if isinstance(item, str):
            match = LONE_SURROGATE.search(item)
            if match is not None:
                return path or "the value", match.group()
        elif isinstance(item, dict):
            entries = []
            for name, member in item.items():
                name = str(name)
                match = LONE_SURROGATE.search(name)
                shown_name = escape_surrogates(name) if match else name
                here = f"{path}.{shown_name}" if path else shown_name
                if match is not None:
                    return f"the key {here}", match.group()
                entries.append((here, member))
            stack.extend(reversed(entries))
        elif isinstance(item, (list, tuple)):
            stack.extend(reversed([(f"{path}[{index}]", member) for index, member in enumerate(item)]))
    return None


def rewrite_surrogates(value: Any, rewrite: Callable[[str], str]) -> Any:
    """``value`` (a JSON value) with each string or key that holds a lone surrogate
    replaced by ``rewrite(string)``; everything else unchanged."""
    if isinstance(value, str):
        return rewrite(value) if LONE_SURROGATE.search(value) else value
    if isinstance(value, dict):
        return {rewrite_surrogates(key, rewrite): rewrite_surrogates(member, rewrite)
                for key, member in value.items()}
    if isinstance(value, (list, tuple)):
        return [rewrite_surrogates(member, rewrite) for member in value]
    return value


def escape_surrogates(value: Any) -> Any:
    """``value`` (a JSON value) with every lone surrogate in its strings and keys written as
    its escape (``\\udcff``, six characters of text); everything else unchanged."""
    return rewrite_surrogates(value, lambda text: text.encode("utf-8", "backslashreplace").decode("utf-8"))


def surrogate_name(char: str) -> str:
    """How messages name a lone surrogate: ``a lone surrogate \\ud800``."""
    return f"a lone surrogate \\u{ord(char):04x}"


_ESCAPE = re.compile(r"\\(?:u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})|.)", re.DOTALL)
SURROGATE_ESCAPE = re.compile(r"\\(?:u|U0000)[dD][89a-fA-F]")
"""A cheap first look: text without a match holds no escape of a surrogate."""


def lone_surrogate_escapes(text: str) -> list[tuple[int, int]]:
    """(offset, code point) of each escape in ``text`` (JSON's ``\\uXXXX``, YAML's
    ``\\UXXXXXXXX`` too) that stands for a lone surrogate: a ``\\ud800``-``\\udbff`` escape
    not followed at once by a ``\\udc00``-``\\udfff`` one, or a low one not after a high one.
    Escapes are read left to right, so ``\\\\ud800`` (an escaped backslash) is not one."""
    found: list[tuple[int, int]] = []
    pending: tuple[int, int, int] | None = None  # (offset, code point, end) of a high surrogate
    for match in _ESCAPE.finditer(text):
        short, long = match.group(1), match.group(2)
        code = int(short or long, 16) if (short or long) else None
        if pending is not None:
            offset, high, end = pending
            pending = None
            if short and match.start() == end and 0xDC00 <= code <= 0xDFFF:
                continue  # a pair: one character
            found.append((offset, high))
        if code is None or not 0xD800 <= code <= 0xDFFF:
            continue
        if short and code <= 0xDBFF:
            pending = (match.start(), code, match.end())
        else:
            found.append((match.start(), code))
    if pending is not None:
        found.append((pending[0], pending[1]))
    return found


def join_surrogate_pairs(value: Any) -> Any:
    """``value`` (a JSON value) with each high surrogate followed by a low one in its
    strings joined into the character the pair encodes (a YAML reader keeps the escapes
    ``\\ud83d\\ude00`` as two code points; JSON readers and JavaScript join them)."""
    if isinstance(value, str):
        if LONE_SURROGATE.search(value) is None:
            return value
        return value.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
    if isinstance(value, dict):
        return {join_surrogate_pairs(key): join_surrogate_pairs(member) for key, member in value.items()}
    if isinstance(value, list):
        return [join_surrogate_pairs(member) for member in value]
    return value
