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

Standard library only and cheap to import.
"""

from __future__ import annotations

import re
from typing import TextIO

UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
"""C0 controls (tab and newline included), DEL, the C1 controls, the bidirectional
marks, embeddings, overrides and isolates, and the Unicode line and paragraph separators."""

_UNSAFE_IN_JSON = re.compile(UNSAFE.pattern.replace("\x00-\x1f", "", 1))
"""What :data:`UNSAFE` matches apart from the C0 controls, which a JSON encoder escapes
inside strings itself (a raw one in its output is the layout's newline)."""

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(char: str) -> str:
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
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
