"""A fast reader for the block YAML that sidecar writers produce, with line positions.

ruamel.yaml's round-trip loader is exact but pure Python and slow (about a second for a
sidecar of a thousand comments).  Sidecars are written by a handful of tools (ruamel,
PyYAML, the npm ``yaml`` and ``js-yaml`` packages, editors) in a small part of YAML: block
mappings and lists, plain, quoted, literal and folded scalars, empty ``[]``/``{}``, comment
lines.  This module reads exactly that part, line by line, and gives

* the data as plain Python (the same values ``to_plain`` gives for ruamel's round-trip
  parse: plain scalars are resolved and constructed by ruamel's own YAML 1.2 resolver and
  constructor), and
* where things are: for each entry of a block mapping the lines of its key and value, and
  for each item of a block list the lines it spans (:class:`Entry`, :class:`Span`).

Of tags, only ``!!binary`` on a scalar is read (its value is a :class:`Binary`).
Anything outside that part (anchors, aliases, other tags, directives, flow collections with
content, complex keys, tabs, a ``...`` marker, keep-chomped block scalars, duplicate keys,
every syntax error) raises :class:`Unsupported`: the caller then uses the full parser,
which also words the errors.  The reader never guesses: what it accepts it reads the way
ruamel does (tests compare the two on generated sidecars of every style).

Lines are split on ``\\n`` only; the caller has normalised CRLF and refuses other line
breaks here (a lone CR, NEL, LS, PS make the text :class:`Unsupported`).

Pure: text in, values out.
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass, field
from typing import Any


# ---------------------------------------------------------------------------
# Character sets
# ---------------------------------------------------------------------------

#: Characters this reader refuses anywhere in the text: tabs (indentation rules), line
#: breaks other than LF, and what YAML does not allow in a stream.
_REFUSED = re.compile(r"[\t\r\x85\u2028\u2029\ufeff\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\ud800-\udfff\ufffe\uffff]")
#: A simple block-mapping key (plain, no spaces) followed by ``:`` and a space or the end.
_KEY = re.compile(r"([A-Za-z0-9_][A-Za-z0-9_.\-/]*):(?: +|$)")
#: The common entry: ``key: value`` with a one-line single-quoted, double-quoted (no
#: escapes) or plain scalar (no ``:`` or ``#`` in it), perhaps an end-of-line comment.
_SIMPLE = re.compile(
    r"""([A-Za-z0-9_][A-Za-z0-9_.\-/]*): +"""
    r"""(?:'((?:[^']|'')*)'|"([^"\\]*)"|([^ '"\[\]{}#&*!|>%@`,?:\-](?:[^#:]*[^#: ])?|-[^ #:](?:[^#:]*[^#: ])?))"""
    r"""(?: +#.*)? *$"""
)
#: Characters that cannot start a plain scalar (YAML indicators).
_NOT_PLAIN_FIRST = frozenset("[]{}#&*!|>'\"%@`,")
#: Indicators that start a plain scalar only when a non-space follows.
_MAYBE_PLAIN_FIRST = frozenset("-?:")
#: First characters for which ruamel's resolver may give something other than a string.
_RESOLVABLE_FIRST = frozenset("+-.0123456789<=FNTfnt~!&*")
#: Block scalar header: style, then indentation and chomping indicators in either order.
_BLOCK_HEADER = re.compile(r"([|>])(?:([1-9])([+-])?|([+-])([1-9])?)?(?: +#.*| *)$")
#: Double-quoted escapes with a fixed meaning.
_ESCAPES = {
    "0": "\x00", "a": "\x07", "b": "\x08", "t": "\t", "\t": "\t", "n": "\n", "v": "\x0b",
    "f": "\x0c", "r": "\r", "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\",
    "N": "\x85", "_": "\xa0", "L": "\u2028", "P": "\u2029",
}
_HEX_ESCAPES = {"x": 2, "u": 4, "U": 8}
_DQ_STOP = re.compile(r'["\\]')


class Unsupported(Exception):
    """The text is outside what this reader handles (or is not valid YAML)."""


class Binary(str):
    """A ``!!binary`` value in plain data: the base64 text of its bytes (standard
    alphabet, no line breaks).  A string to JSON and to every reader of plain data, but
    a value of its own type, so it is never mistaken for (or written back as) a string."""

    @classmethod
    def of(cls, data: bytes) -> "Binary":
        return cls(base64.b64encode(data).decode("ascii"))


def decode_binary(text: str) -> Binary:
    """The :class:`Binary` of the base64 ``text`` of a ``!!binary`` scalar (whitespace
    ignored); Unsupported when it is not base64 (the full parser then words the error)."""
    try:
        return Binary.of(base64.b64decode("".join(text.split()), validate=True))
    except (binascii.Error, ValueError):
        raise Unsupported("!!binary value is not base64") from None


# ---------------------------------------------------------------------------
# Results
# ---------------------------------------------------------------------------


@dataclass
class Entry:
    """One ``key: value`` of a block mapping (0-based line indexes into the text read).

    ``style`` is the value's form: ``plain``, ``'``, ``"``, ``|``, ``>``, ``empty`` (no
    value: null), ``flow`` (``[]``/``{}``), ``map`` or ``seq`` (a block collection on the
    lines below).  ``end_col`` is where the value ends on its last line (what follows is
    spaces and perhaps an end-of-line comment); ``indent`` is the content indentation of
    a block scalar.
    """

    key: Any
    line: int
    col: int
    last: int
    style: str
    end_col: int
    indent: int = 0


@dataclass
class Span:
    """One item of a block list: its ``-`` line and its last line of content."""

    first: int
    last: int


@dataclass
class Read:
    """What :func:`read_document` / :func:`read_items` found."""

    data: Any
    entries: list[Entry] = field(default_factory=list)   # top-level mapping entries
    items: list[Span] | None = None                      # items of the block list read
    dash_col: int = -1                                   # column of those items' ``-``
    content_col: int = -1                                # column of their first key
    scalars: list[tuple[int, int]] = field(default_factory=list)  # multi-line scalar line ranges
    item_entries: list[list[Entry]] | None = None        # entries of each item (read_items)


# ---------------------------------------------------------------------------
# Plain scalar resolution (ruamel's resolver and constructor, YAML 1.2)
# ---------------------------------------------------------------------------

_PLAIN_TAGS = {
    "tag:yaml.org,2002:null", "tag:yaml.org,2002:bool", "tag:yaml.org,2002:int",
    "tag:yaml.org,2002:float",
}
#: The YAML 1.2 core words (what ruamel's resolver gives for them, without asking it).
_WORDS = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False,
          "null": None, "Null": None, "NULL": None, "~": None, "": None}
_resolved: dict[str, Any] = {}
_ruamel: list = []


def _resolver() -> tuple[Any, Any, Any, Any]:
    """(implicit resolvers by first character, constructor, ScalarNode, Tag), loaded on
    first use: most sidecars never need them, and importing ruamel.yaml takes time."""
    if not _ruamel:
        from ruamel.yaml import YAML
        from ruamel.yaml.nodes import ScalarNode
        from ruamel.yaml.tag import Tag

        rt = YAML(typ="rt")
        implicit = {key: list(value) for key, value in rt.resolver.versioned_resolver.items()}
        _ruamel.append((implicit, rt.constructor, ScalarNode, Tag))
    return _ruamel[0]


def resolve_plain(text: str) -> Any:
    """The plain value of a plain scalar, as ruamel's round-trip loader (YAML 1.2) and
    ``to_plain`` give it (``Unsupported`` for merge keys and the like)."""
    if text and text[0] not in _RESOLVABLE_FIRST:
        return text
    if text.isdigit() and text.isascii():
        return int(text)
    if text in _WORDS:
        return _WORDS[text]
    try:
        return _resolved[text]
    except KeyError:
        pass
    implicit, constructor, scalar_node, tag_type = _resolver()
    name = "tag:yaml.org,2002:str"
    for tag, pattern in implicit.get(text[0], ()):
        if pattern.match(text):
            name = tag
            break
    if name in ("tag:yaml.org,2002:str", "tag:yaml.org,2002:timestamp"):
        return text     # YAML 1.2 has no timestamp type: the text as written
    if name not in _PLAIN_TAGS:
        raise Unsupported(f"plain scalar {text!r} resolves to {name}")
    try:
        value = _plain_scalar(constructor.yaml_constructors[name](constructor, scalar_node(tag_type(suffix=name), text)))
    except Unsupported:
        raise
    except Exception:
        raise Unsupported(f"plain scalar {text!r}") from None
    if len(_resolved) < 4096:
        _resolved[text] = value
    return value


def _plain_scalar(v: Any) -> Any:
    """ruamel scalar -> plain Python (the scalar part of ``sidecar.to_plain``)."""
    import datetime as dt
    if isinstance(v, bool) or v is None:
        return v
    if isinstance(v, str):
        return str(v)
    if isinstance(v, int):
        return int(v)
    if isinstance(v, float):
        return float(v)
    if isinstance(v, (dt.datetime, dt.date)):
        return v.isoformat()
    raise Unsupported(f"scalar of type {type(v).__name__}")


def _key_value(text: str) -> Any:
    """A mapping key as ``to_plain`` gives it (always a string)."""
    if text[0] in _RESOLVABLE_FIRST:
        value = resolve_plain(text)
        return value if isinstance(value, str) else str(value)
    return text


# ---------------------------------------------------------------------------
# The reader
# ---------------------------------------------------------------------------


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


class _Reader:
    """One pass over ``lines``; every rule takes a position and returns the last line
    index it consumed together with the value read."""

    def __init__(self, lines: list[str], record_items: bool = False, list_key: str | None = None) -> None:
        self.lines = lines
        self.n = len(lines)
        self.scalars: list[tuple[int, int]] = []
        self.record_items = record_items
        self.item_entries: list[list[Entry] | None] = []
        self.list_key = list_key
        self.list_spans: list[Span] | None = None
        self.list_col = -1

    # -- helpers ----------------------------------------------------------

    def next_content(self, i: int) -> int:
        """Index of the first line from ``i`` that is neither blank nor a comment line."""
        lines, n = self.lines, self.n
        while i < n:
            s = lines[i].lstrip(" ")
            if s and s[0] != "#":
                return i
            i += 1
        return n

    @staticmethod
    def tail_ok(line: str, pos: int) -> None:
        """After a value on its line only spaces and an end-of-line comment may follow."""
        rest = line[pos:]
        if rest:
            s = rest.lstrip(" ")
            if s and not (s[0] == "#" and len(s) < len(rest)):
                raise Unsupported("unexpected text after a value")

    # -- collections ------------------------------------------------------

    def mapping(self, i: int, col: int, entries: list[Entry] | None) -> tuple[int, dict]:
        """A block mapping whose first key is at (``i``, ``col``)."""
        lines = self.lines
        n = self.n
        out: dict = {}
        simple = _SIMPLE.match
        while True:
            line = lines[i]
            m = simple(line, col)
            if m is not None:
                # the common case, a one-line scalar: settled here when the next content
                # line is not indented further (else the general rules below decide)
                j = i + 1
                while j < n:
                    s = lines[j].lstrip(" ")
                    if s and s[0] != "#":
                        break
                    j += 1
                if j < n and len(lines[j]) - len(lines[j].lstrip(" ")) > col:
                    m = None
            if m is not None:
                key = m.group(1)
                if key[0] in _RESOLVABLE_FIRST:
                    key = _key_value(key)
                if key in out:
                    raise Unsupported(f"line {i + 1}: duplicate key")
                plain = m.group(4)
                if plain is not None:
                    value = resolve_plain(plain)
                    style, end_col = "plain", m.end(4)
                elif m.group(3) is not None:
                    value, style, end_col = m.group(3), '"', m.end(3) + 1
                else:
                    value, style, end_col = m.group(2).replace("''", "'"), "'", m.end(2) + 1
                out[key] = value
                if entries is not None:
                    entries.append(Entry(key, i, col, i, style, end_col, 0))
                if j >= n:
                    return i, out
                ind = len(lines[j]) - len(lines[j].lstrip(" "))
                if ind < col:
                    return i, out
                i = j
                continue
            m = _KEY.match(line, col)
            if m is None:
                raise Unsupported(f"line {i + 1}: not a simple key")
            key = _key_value(m.group(1))
            if key in out:
                raise Unsupported(f"line {i + 1}: duplicate key")
            spans = None
            if col == 0 and key == self.list_key and self.list_spans is None:
                spans = self.list_spans = []
            last, value, style, end_col, indent = self.value_after_key(i, m.end(), col, spans)
            out[key] = value
            if entries is not None:
                entries.append(Entry(key, i, col, last, style, end_col, indent))
            j = self.next_content(last + 1)
            if j >= self.n:
                return last, out
            ind = _indent(lines[j])
            if ind < col:
                return last, out
            if ind > col:
                raise Unsupported(f"line {j + 1}: unexpected indentation")
            i = j

    def sequence(self, i: int, col: int, spans: list[Span] | None) -> tuple[int, list]:
        """A block list whose first ``-`` is at (``i``, ``col``)."""
        lines = self.lines
        out: list = []
        while True:
            line = lines[i]
            if line[col:col + 1] != "-" or line[col + 1:col + 2] not in ("", " "):
                raise Unsupported(f"line {i + 1}: not a list item")
            p = col + 1
            length = len(line)
            while p < length and line[p] == " ":
                p += 1
            entries: list[Entry] | None = [] if (spans is not None and self.record_items) else None
            if p >= length or line[p] == "#":
                j = self.next_content(i + 1)
                if j < self.n and _indent(lines[j]) > col:
                    last, value = self.block_node(j, _indent(lines[j]), entries)
                else:
                    last, value = i, None
            else:
                last, value = self.node_at(i, p, col, entries)
            out.append(value)
            if spans is not None:
                spans.append(Span(i, last))
                if entries is not None:
                    self.item_entries.append(entries if isinstance(value, dict) else None)
            j = self.next_content(last + 1)
            if j >= self.n:
                return last, out
            ind = _indent(lines[j])
            if ind < col or (ind == col and lines[j][col] != "-"):
                return last, out
            if ind > col:
                raise Unsupported(f"line {j + 1}: unexpected indentation")
            i = j

    def block_node(self, i: int, col: int, entries: list[Entry] | None) -> tuple[int, Any]:
        """A collection starting a line (a value on the lines below its key or dash)."""
        line = self.lines[i]
        if line[col] == "-" and line[col + 1:col + 2] in ("", " "):
            return self.sequence(i, col, None)
        if _KEY.match(line, col):
            return self.mapping(i, col, entries)
        raise Unsupported(f"line {i + 1}: a scalar on its own line")

    def node_at(self, i: int, p: int, col: int, entries: list[Entry] | None) -> tuple[int, Any]:
        """The node after ``- `` at (``i``, ``p``) in a list at ``col``."""
        line = self.lines[i]
        if line[p] == "-" and line[p + 1:p + 2] in ("", " "):
            return self.sequence(i, p, None)
        if _KEY.match(line, p):
            return self.mapping(i, p, entries)
        last, value, _, _, _ = self.inline_value(i, p, col)
        return last, value

    # -- values -----------------------------------------------------------

    def value_after_key(self, i: int, pos: int, col: int,
                        spans: list[Span] | None = None) -> tuple[int, Any, str, int, int]:
        """(last line, value, style, end column, block indent) of the value after a key."""
        line = self.lines[i]
        if pos >= len(line) or line[pos] == "#":
            if pos < len(line) and line[pos - 1] != " ":
                raise Unsupported(f"line {i + 1}: comment without a space")
            j = self.next_content(i + 1)
            if j < self.n:
                nxt = self.lines[j]
                ind = _indent(nxt)
                if nxt[ind] == "-" and nxt[ind + 1:ind + 2] in ("", " ") and ind >= col:
                    if spans is not None:
                        self.list_col = ind
                    last, value = self.sequence(j, ind, spans)
                    return last, value, "seq", len(self.lines[last]), 0
                if ind > col:
                    last, value = self.block_node(j, ind, None)
                    return last, value, "map", len(self.lines[last]), 0
            return i, None, "empty", pos, 0
        return self.inline_value(i, pos, col)

    def inline_value(self, i: int, pos: int, block: int) -> tuple[int, Any, str, int, int]:
        """A scalar (or empty flow collection) starting at (``i``, ``pos``); continuation
        lines must be indented more than ``block``."""
        line = self.lines[i]
        c = line[pos]
        if c == "!" and line.startswith("!!binary ", pos):
            at = pos + len("!!binary ")
            while at < len(line) and line[at] == " ":
                at += 1
            if at >= len(line) or line[at] in "#[{":
                raise Unsupported(f"line {i + 1}: tagged value")
            last, value, style, end, indent = self.inline_value(i, at, block)
            if not isinstance(value, str):
                raise Unsupported(f"line {i + 1}: !!binary on a non-string")
            return last, decode_binary(value), style, end, indent
        if c == '"':
            return self.quoted(i, pos, block, double=True)
        if c == "'":
            return self.quoted(i, pos, block, double=False)
        if c in "|>":
            return self.block_scalar(i, pos, block)
        if c in "[{":
            value, end = _flow(line, pos, i, 0)
            self.tail_ok(line, end)
            return i, value, "flow", end, 0
        if c in _NOT_PLAIN_FIRST:
            raise Unsupported(f"line {i + 1}: indicator {c!r}")
        if c in _MAYBE_PLAIN_FIRST and line[pos + 1:pos + 2] in ("", " "):
            raise Unsupported(f"line {i + 1}: indicator {c!r}")
        return self.plain(i, pos, block)

    def plain(self, i: int, pos: int, block: int) -> tuple[int, Any, str, int, int]:
        lines = self.lines
        line = lines[i]
        text, end, commented = _plain_part(line, pos, i)
        parts = [text]
        last = i
        j = i + 1
        breaks = 0
        if not commented:
            while j < self.n:
                nxt = lines[j]
                s = nxt.lstrip(" ")
                if not s:
                    breaks += 1
                    j += 1
                    continue
                if len(nxt) - len(s) <= block or s[0] == "#":
                    break
                if nxt.startswith(("---", "..."), 0) and len(nxt) - len(s) == 0:
                    raise Unsupported("document marker")
                piece, end, commented = _plain_part(nxt, len(nxt) - len(s), j)
                parts.append("\n" * breaks if breaks else " ")
                parts.append(piece)
                breaks = 0
                last = j
                j += 1
                if commented:
                    break
        if last != i:
            self.scalars.append((i, last))
            return last, resolve_plain("".join(parts)), "plain", end, 0
        return last, resolve_plain(text), "plain", end, 0

    def _continued(self, j: int, block: int) -> tuple[int, int]:
        """A quoted scalar runs on past line ``j``: (its next line with text, the blank lines
        skipped on the way).  Unsupported when the text ends first or the line is not
        indented past ``block``."""
        lines = self.lines
        breaks = 0
        j += 1
        while j < self.n and not lines[j].strip(" "):
            breaks += 1
            j += 1
        if j >= self.n:
            raise Unsupported("unterminated quoted scalar")
        if _indent(lines[j]) <= block:
            raise Unsupported(f"line {j + 1}: quoted scalar continues too far left")
        return j, breaks

    def quoted(self, i: int, pos: int, block: int, *, double: bool) -> tuple[int, Any, str, int, int]:
        lines = self.lines
        j = i
        line = lines[j]
        k = pos + 1
        chunks: list[str] = []
        quote = '"' if double else "'"
        while True:
            if double:
                m = _DQ_STOP.search(line, k)
                stop = m.start() if m else -1
            else:
                stop = line.find("'", k)
            if stop < 0:
                # the line ends inside the scalar: fold
                chunks.append(line[k:].rstrip(" "))
                j, breaks = self._continued(j, block)
                line = lines[j]
                chunks.append("\n" * breaks if breaks else " ")
                k = _indent(line)
                continue
            chunks.append(line[k:stop])
            ch = line[stop]
            if ch == quote:
                if not double and line[stop + 1:stop + 2] == "'":
                    chunks.append("'")
                    k = stop + 2
                    continue
                end = stop + 1
                self.tail_ok(line, end)
                if j != i:
                    self.scalars.append((i, j))
                return j, "".join(chunks), quote, end, 0
            # a backslash escape (double-quoted only)
            esc = line[stop + 1:stop + 2]
            if esc == "":
                # escaped line break: no folding space; blank lines still give breaks
                j, breaks = self._continued(j, block)
                line = lines[j]
                chunks.append("\n" * breaks)
                k = _indent(line)
                continue
            char, k = _escape(line, stop, j)
            chunks.append(char)

    def block_scalar(self, i: int, pos: int, block: int) -> tuple[int, Any, str, int, int]:
        lines = self.lines
        line = lines[i]
        m = _BLOCK_HEADER.match(line, pos)
        if m is None:
            raise Unsupported(f"line {i + 1}: block scalar header")
        style = m.group(1)
        digit = m.group(2) or m.group(5)
        chomp = m.group(3) or m.group(4)
        if chomp == "+":
            raise Unsupported(f"line {i + 1}: keep chomping")
        n = self.n
        # leading empty lines and the content indentation
        j = i + 1
        lead_max = 0
        if digit:
            indent = max(block, 0) + int(digit) if block >= 0 else int(digit)
        else:
            indent = 0
            while j < n:
                s = lines[j].lstrip(" ")
                ind = len(lines[j]) - len(s)
                if s:
                    indent = ind
                    break
                lead_max = max(lead_max, ind)
                j += 1
            if indent <= block or j >= n:
                # no content: an empty scalar
                indent = 0
            elif lead_max > indent:
                raise Unsupported(f"line {i + 1}: block scalar leading spaces")
        if indent <= max(block, -1) and indent != 0:
            raise Unsupported(f"line {i + 1}: block scalar indentation")
        chunks: list[str] = []
        j = i + 1
        last = i
        folded = style == ">"
        line_break = ""
        pending: list[str] = []   # breaks of empty lines seen since the last content line
        leading_non_space = False
        first = True
        if indent:
            while j < n:
                cur = lines[j]
                s = cur.lstrip(" ")
                ind = len(cur) - len(s)
                if not s and ind <= indent:
                    pending.append("\n")
                    j += 1
                    continue
                if ind < indent:
                    break
                text = cur[indent:]
                if not first:
                    if folded and line_break == "\n" and leading_non_space and text[:1] != " ":
                        if not pending:
                            chunks.append(" ")
                    else:
                        chunks.append(line_break)
                chunks.extend(pending)
                pending = []
                leading_non_space = text[:1] != " "
                chunks.append(text)
                line_break = "\n" if j < n - 1 else ""
                first = False
                last = j
                j += 1
        if not first and chomp != "-":
            chunks.append(line_break)
        if last > i:
            self.scalars.append((i + 1, last))
        value = "".join(chunks)
        if first:
            value = ""
        return last, value, style, len(lines[last]), indent


_FLOW_PLAIN = re.compile(r"[^,\[\]{}#:\"' ]+(?:(?: +|:(?=[^ ,\[\]{}]))[^,\[\]{}#: ]+)*")
_FLOW_SQ = re.compile(r"'((?:[^']|'')*)'")
_FLOW_DQ = re.compile(r'"((?:[^"\\]|\\.)*)"')


def _skip(line: str, p: int) -> int:
    n = len(line)
    while p < n and line[p] == " ":
        p += 1
    return p


def _flow(line: str, pos: int, i: int, depth: int) -> tuple[Any, int]:
    """A flow collection on one line starting at ``pos``: (value, end column)."""
    if depth > 32:
        raise Unsupported("flow nesting")
    mapping = line[pos] == "{"
    close = "}" if mapping else "]"
    out: Any = {} if mapping else []
    n = len(line)
    p = _skip(line, pos + 1)
    if p < n and line[p] == close:
        return out, p + 1
    while True:
        if p >= n:
            raise Unsupported(f"line {i + 1}: flow collection over several lines")
        value, p = _flow_node(line, p, i, depth)
        p = _skip(line, p)
        if mapping:
            if p >= n or line[p] != ":" or line[p + 1:p + 2] not in (" ", ",", "}"):
                raise Unsupported(f"line {i + 1}: flow mapping entry")
            p = _skip(line, p + 1)
            if p < n and line[p] in ",}":
                item = None
            else:
                item, p = _flow_node(line, p, i, depth)
                p = _skip(line, p)
            if not isinstance(value, str) or value in out:
                raise Unsupported(f"line {i + 1}: flow mapping key")
            out[value] = item
        else:
            if p < n and line[p] == ":":
                raise Unsupported(f"line {i + 1}: pair in a flow sequence")
            out.append(value)
        if p < n and line[p] == ",":
            p = _skip(line, p + 1)
            if p < n and line[p] == close:
                raise Unsupported(f"line {i + 1}: trailing comma")
            continue
        if p < n and line[p] == close:
            return out, p + 1
        raise Unsupported(f"line {i + 1}: flow collection")


def _flow_node(line: str, p: int, i: int, depth: int) -> tuple[Any, int]:
    c = line[p]
    if c in "[{":
        return _flow(line, p, i, depth + 1)
    if c == "'":
        m = _FLOW_SQ.match(line, p)
        if m is None:
            raise Unsupported(f"line {i + 1}: quoted scalar in a flow collection")
        return m.group(1).replace("''", "'"), m.end()
    if c == '"':
        m = _FLOW_DQ.match(line, p)
        if m is None:
            raise Unsupported(f"line {i + 1}: quoted scalar in a flow collection")
        return _unescape(m.group(1), i), m.end()
    if c in _NOT_PLAIN_FIRST or (c in _MAYBE_PLAIN_FIRST and line[p + 1:p + 2] in ("", " ", ",", "]", "}")):
        raise Unsupported(f"line {i + 1}: indicator {c!r} in a flow collection")
    m = _FLOW_PLAIN.match(line, p)
    if m is None or m.end() == p:
        raise Unsupported(f"line {i + 1}: flow scalar")
    return resolve_plain(m.group(0)), m.end()


def _unescape(body: str, i: int) -> str:
    """The value of the text between double quotes on one line."""
    if "\\" not in body:
        return body
    out = []
    k = 0
    while True:
        stop = body.find("\\", k)
        if stop < 0:
            out.append(body[k:])
            return "".join(out)
        out.append(body[k:stop])
        char, k = _escape(body, stop, i)
        out.append(char)


def _escape(text: str, stop: int, i: int) -> tuple[str, int]:
    """The character a double-quoted scalar's escape at ``text[stop]`` (a backslash) stands for,
    and the column after it; ``i`` is the 0-based line, for the error."""
    esc = text[stop + 1:stop + 2]
    if esc in _ESCAPES:
        return _ESCAPES[esc], stop + 2
    width = _HEX_ESCAPES.get(esc)
    digits = text[stop + 2:stop + 2 + width] if width else ""
    if not width or len(digits) != width or not all(d in "0123456789abcdefABCDEF" for d in digits):
        raise Unsupported(f"line {i + 1}: bad escape")
    code = int(digits, 16)
    if 0xD800 <= code <= 0xDFFF or code > 0x10FFFF:
        raise Unsupported(f"line {i + 1}: bad escape")
    return chr(code), stop + 2 + width


def _plain_part(line: str, pos: int, i: int) -> tuple[str, int, bool]:
    """(text, end column, ended by a comment) of the plain scalar part of one line."""
    end = line.find(" #", pos)
    commented = end >= 0
    text = line[pos:end] if commented else line[pos:]
    text = text.rstrip(" ")
    colon = text.find(":")
    while colon >= 0:
        if colon + 1 == len(text) or text[colon + 1] == " ":
            raise Unsupported(f"line {i + 1}: ': ' inside a plain scalar")
        colon = text.find(":", colon + 1)
    return text, pos + len(text), commented


# ---------------------------------------------------------------------------
# Entry points
# ---------------------------------------------------------------------------


def check_text(text: str) -> None:
    """Unsupported when ``text`` holds characters this reader refuses."""
    if _REFUSED.search(text):
        raise Unsupported("tab, control character or unusual line break")


def read_document(text: str, *, list_key: str = "comments") -> Read:
    """Read a whole sidecar (normalised text); the items of the block list under the
    top-level ``list_key`` get spans.  Unsupported when outside the handled part of YAML."""
    check_text(text)
    lines = text.split("\n")
    reader = _Reader(lines, list_key=list_key)
    i = reader.next_content(0)
    if i < reader.n and lines[i].startswith("%"):
        raise Unsupported("directive")
    start = i
    if i < reader.n and lines[i].startswith("---"):
        if lines[i].rstrip(" ") != "---":
            raise Unsupported("content after ---")
        i = reader.next_content(i + 1)
    if i >= reader.n:
        raise Unsupported("no content")
    if _indent(lines[i]) != 0:
        raise Unsupported("top-level mapping not at column 0")
    _no_markers(text, lines, start if i != start else -1)
    entries: list[Entry] = []
    last, data = reader.mapping(i, 0, entries)
    if reader.next_content(last + 1) != reader.n:
        raise Unsupported("text after the top-level mapping")
    out = Read(data, entries, scalars=reader.scalars)
    if reader.list_spans:
        out.items, out.dash_col = reader.list_spans, reader.list_col
        out.content_col = _content_col(lines[reader.list_spans[0].first], reader.list_col)
    return out


_MARKER = re.compile(r"(?m)^(?:---|\.\.\.)(?: |$)")


def _no_markers(text: str, lines: list[str], allowed: int) -> None:
    """Unsupported when a document marker line stands anywhere but at ``allowed``."""
    for m in _MARKER.finditer(text):
        line = text.count("\n", 0, m.start())
        if line != allowed:
            raise Unsupported("document marker")


def read_items(text: str, dash_col: int, *, entries: bool = False) -> Read:
    """Read text holding only items of a block list whose ``-`` is at ``dash_col`` (as
    they stand under a top-level key).  With ``entries``, each item that is a block
    mapping also gets its entries (``Read.item_entries``; None for other items)."""
    check_text(text)
    lines = text.split("\n")
    reader = _Reader(lines, record_items=entries)
    i = reader.next_content(0)
    if i >= reader.n:
        raise Unsupported("no items")
    if _indent(lines[i]) != dash_col:
        raise Unsupported("items not in the list's column")
    spans: list[Span] = []
    last, data = reader.sequence(i, dash_col, spans)
    if reader.next_content(last + 1) != reader.n:
        raise Unsupported("text after the items")
    _no_markers(text, lines, -1)
    out = Read(data, items=spans, dash_col=dash_col, scalars=reader.scalars)
    if entries:
        out.item_entries = reader.item_entries
    return out


def _content_col(line: str, dash_col: int) -> int:
    p = dash_col + 1
    while p < len(line) and line[p] == " ":
        p += 1
    return p
