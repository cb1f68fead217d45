"""The YAML library (ruamel.yaml) set up to read YAML 1.2 as the MRSF reference tools do.

Its scanners stop at the nesting limit and take tabs where YAML 1.2 allows them; NEL,
LS and PS are ordinary characters (given to the library as stand-ins and put back);
an unquoted timestamp stays the string it is written as; ``<<`` is an ordinary key.
Everything is built on first use: importing this module does not import ruamel.yaml."""

from __future__ import annotations

from typing import Any

from ..errors import MrsfError
from ..yamlscan import Binary
from .values import MAX_DEPTH, to_plain

_LIMITED: tuple[type, type, type] | None = None
#: Line breaks as the YAML library's reader sees them.
_BREAKS = "\r\n\x85\u2028\u2029"


def _depth_limited() -> tuple[type, type, type]:
    """(round-trip scanner, safe scanner, the error both raise): YAML scanners that stop
    at the ``MAX_DEPTH``-th nested collection when they meet it, before any deeper one is
    parsed: ruamel's scanner works ahead over every open ``[``/``{`` (its cost grows with
    the square of the depth: 1,000 levels take seconds, 100,000 hours), and deep block
    nesting would only end in a recursion error.  Built on first use: importing this
    module does not import ruamel.yaml."""
    global _LIMITED
    if _LIMITED is None:
        from ruamel.yaml.scanner import RoundTripScanner, Scanner, ScannerError

        class TooDeep(ScannerError):
            pass

        class DepthLimit:
            def _too_deep(self) -> ScannerError:
                return TooDeep(None, None, f"values are nested more than {MAX_DEPTH} levels deep",
                               self.reader.get_mark())  # type: ignore[attr-defined]

            def fetch_flow_collection_start(self, *args: Any, **kwargs: Any) -> None:
                if self.flow_level >= MAX_DEPTH:  # type: ignore[attr-defined]
                    raise self._too_deep()
                super().fetch_flow_collection_start(*args, **kwargs)  # type: ignore[misc]

            def add_indent(self, column: int) -> bool:
                if len(self.indents) > MAX_DEPTH:  # type: ignore[attr-defined]
                    raise self._too_deep()
                return super().add_indent(column)  # type: ignore[misc]

        class Tabs:
            """YAML 1.2 tabs: white space anywhere on a line but in its indentation.  The
            YAML library refuses a tab in block context outside quotes and block scalars
            (``text: a<TAB>b``, ``key:<TAB>value``, ``value<TAB># note``), which the
            reference tools write and read; here such a tab separates tokens, or is part
            of the plain scalar it stands inside."""

            def _after_content(self) -> bool:
                # True when something other than spaces precedes the reader on its line
                buffer, i = self.reader.buffer, self.reader.pointer - 1  # type: ignore[attr-defined]
                while i >= 0 and buffer[i] in " \t":
                    i -= 1
                return i >= 0 and buffer[i] not in _BREAKS

            def scan_to_next_token(self) -> Any:
                # The data read here keeps no comments (writes splice the file's own lines),
                # so comments are skipped as the plain scanner skips them, in linear time:
                # the round-trip scanner gathers them character by character and joins runs
                # of them, which grows with the square of their size (make fuzz hangs).
                peek, forward = self.reader.peek, self.reader.forward  # type: ignore[attr-defined]
                if self.reader.index == 0 and peek() == "\ufeff":  # type: ignore[attr-defined]
                    forward()
                while True:
                    while peek() == " " or (peek() == "\t" and (self.flow_level or self._after_content())):  # type: ignore[attr-defined]
                        forward()
                    if peek() == "#":
                        while peek() not in _BREAKS + "\0":
                            forward()
                    if self.scan_line_break():  # type: ignore[attr-defined]
                        if not self.flow_level:  # type: ignore[attr-defined]
                            self.allow_simple_key = True
                    else:
                        return None

            def scan_plain_spaces(self, indent: Any, start_mark: Any) -> Any:
                # white space holding a tab between two parts of a plain scalar's line is
                # part of the scalar
                reader = self.reader  # type: ignore[attr-defined]
                peek, forward = reader.peek, reader.forward
                n = 0
                while peek(n) in " \t":
                    n += 1
                if peek(n) not in _BREAKS:
                    if "\t" in reader.prefix(n):
                        white = reader.prefix(n)
                        forward(n)
                        return [white]
                    return super().scan_plain_spaces(indent, start_mark)  # type: ignore[misc]
                # the scalar goes on after a line break: white space before the break is not
                # part of it; on the next lines the indentation is spaces, and white space
                # after it (tabs too: YAML 1.2 s-flow-line-prefix, s-separate-in-line) only
                # separates.  The library stops at such a tab ("cannot start any token").
                forward(n)
                line_break = self.scan_line_break()  # type: ignore[attr-defined]
                self.allow_simple_key = True
                breaks = []
                while True:
                    if reader.prefix(3) in ("---", "...") and peek(3) in "\0 \t" + _BREAKS:
                        return None           # a document marker ends the scalar
                    while peek() == " ":
                        forward()
                    if peek() == "\t" and (self.flow_level or reader.column >= indent):  # type: ignore[attr-defined]
                        while peek() in " \t":
                            forward()
                    if peek() in _BREAKS:
                        breaks.append(self.scan_line_break())  # type: ignore[attr-defined]
                        continue
                    break
                chunks = []
                if line_break != "\n":
                    chunks.append(line_break)
                elif not breaks:
                    chunks.append(" ")
                chunks.extend(breaks)
                return chunks

        class RoundTrip(Tabs, DepthLimit, RoundTripScanner):
            pass

        class Safe(Tabs, DepthLimit, Scanner):
            pass

        _LIMITED = (RoundTrip, Safe, TooDeep)
    return _LIMITED


# YAML 1.2, which the MRSF reference tools read with, treats NEL, LS and PS as ordinary
# characters; the YAML library here still breaks lines at them (so its line numbers and its
# comments disagree with the file's), and its comment handling turns super-linear on many of
# them (``make fuzz`` hangs, mrsf inputs 336992 and 502087: 80 kB of comment took minutes).
# It is therefore given the text with each replaced by a private-use stand-in that occurs
# nowhere in the text, not even as an escape, and every string it returns gets them back.
_UNUSUAL_BREAKS = "\x85\u2028\u2029"
_STAND_IN_FIRST = 0xF0000


def yaml12_text(text: str) -> tuple[str, dict[int, str]]:
    """``text`` as the YAML library should read it, and the table that undoes the stand-ins
    (empty when the text holds no NEL, LS or PS)."""
    if not any(ch in text for ch in _UNUSUAL_BREAKS):
        return text, {}
    lowered = text.lower()
    stand_ins: list[str] = []
    code = _STAND_IN_FIRST
    while len(stand_ins) < len(_UNUSUAL_BREAKS):
        if code > 0x10FFFD:
            raise MrsfError("malformed-yaml", "the text leaves no private-use character free to read its "
                            "NEL, LS and PS characters with")
        ch = chr(code)
        if ch not in text and f"{code:x}" not in lowered:
            stand_ins.append(ch)
        code += 1
    forward = {ord(b): s for b, s in zip(_UNUSUAL_BREAKS, stand_ins)}
    return text.translate(forward), {ord(s): b for b, s in zip(_UNUSUAL_BREAKS, stand_ins)}


def put_back(value: Any, table: dict[int, str]) -> Any:
    """Plain data (from :func:`to_plain`) with the stand-ins of :func:`yaml12_text` undone."""
    if not table:
        return value
    if isinstance(value, dict):
        return {put_back(k, table): put_back(v, table) for k, v in value.items()}
    if isinstance(value, list):
        return [put_back(v, table) for v in value]
    if isinstance(value, str) and not isinstance(value, Binary):
        return value.translate(table)
    return value


def safe_yaml() -> Any:
    """A pure-Python safe YAML loader with the same nesting limit (for small config files)."""
    from ruamel.yaml import YAML

    y = YAML(typ="safe", pure=True)
    y.Scanner = _depth_limited()[1]
    return y


_CONSTRUCTOR: list[type] = []      # the constructor, then the resolver (built on first use)


def _constructor() -> type:
    """The round-trip constructor with YAML 1.2's schema for timestamps: there is no
    timestamp type, an unquoted ``2026-01-02 03:04:05 +1`` is the string it is written as
    (the library would make a date of it, and the validator then judge a rewritten one)."""
    if not _CONSTRUCTOR:
        from ruamel.yaml.constructor import RoundTripConstructor

        class TextTimestamps(RoundTripConstructor):
            pass

        TextTimestamps.add_constructor(
            "tag:yaml.org,2002:timestamp", lambda self, node: self.construct_scalar(node))
        _CONSTRUCTOR.append(TextTimestamps)
    return _CONSTRUCTOR[0]


def _resolver() -> type:
    """The resolver of YAML 1.2's core schema: ``<<`` is a key like any other (merge keys
    are YAML 1.1; the library applies them in 1.2 too, the reference tools do not)."""
    if len(_CONSTRUCTOR) < 2:
        _constructor()
        from ruamel.yaml.resolver import VersionedResolver

        class NoMerge(VersionedResolver):
            def add_version_implicit_resolver(self, version: Any, tag: Any, regexp: Any, first: Any) -> None:
                if tag != "tag:yaml.org,2002:merge":
                    super().add_version_implicit_resolver(version, tag, regexp, first)

        _CONSTRUCTOR.append(NoMerge)
    return _CONSTRUCTOR[1]


def _yaml() -> Any:
    from ruamel.yaml import YAML

    y = YAML(typ="rt")
    y.Scanner = _depth_limited()[0]
    y.Constructor = _constructor()
    y.Resolver = _resolver()
    y.preserve_quotes = True
    y.width = 1 << 30
    return y


def _rt_plain(text: str) -> Any:
    """``text`` read by the full reader as plain data (stand-ins undone); None when it
    cannot be read."""
    reader_text, back = yaml12_text(text)
    try:
        return put_back(to_plain(_yaml().load(reader_text)), back)
    except Exception:  # noqa: BLE001 - any failure means: do not use this edit
        return None
