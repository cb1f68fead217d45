"""Format-preserving model of one MRSF sidecar (YAML or JSON text in, text out).

This module is pure: it turns sidecar *text* into a :class:`Sidecar` and back, and offers
the few editing primitives the operations need (set or delete a field of a comment, append
or remove a comment).  It never touches the filesystem.

YAML is loaded with ruamel.yaml in round-trip mode.  The indentation style of the file
(where the ``-`` of the ``comments`` items sits, how far the keys are indented) is detected
from the parsed positions, quotes are preserved, the line width is unlimited, CRLF line
ends, a byte-order mark, a leading ``---`` and a missing final newline are restored on
dump.  For every sidecar written by the common tools (all upstream examples) loading and
dumping with no change is byte-identical; ``Sidecar.faithful`` says whether that holds
for a given text.  Comments appended to a ``comments`` list that ends the file are
written without serialising the rest again (:meth:`Sidecar.fast_append`), and a model can
catch up with items another process appended by parsing only those
(:meth:`Sidecar.extend`).

Editing keeps YAML comments with the entries they belong to: ruamel attaches the comment
lines that follow an entry to that entry, so when a field or a comment that carries such
lines is removed, or a field is appended after it, those lines are moved to the entry that
now precedes them instead of being lost or ending up in the wrong place
(:mod:`markmcp.mrsf.yamledit`).

JSON sidecars keep their key order, indentation (spaces or a tab, or compact), whether
non-ASCII is escaped, and the presence of a final newline.

Every item is kept exactly as found, even an invalid one (a comment without ``id``, a
string where a number belongs): validation is a separate step (``validate.py``).

Positions reported to users are 1-based lines and 1-based columns in the sidecar text.
"""

from __future__ import annotations

import datetime as _dt
import io
import json
import re
from dataclasses import dataclass, field
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedBase, CommentedMap, CommentedSeq
from ruamel.yaml.constructor import RoundTripConstructor
from ruamel.yaml.representer import RoundTripRepresenter
from ruamel.yaml.scanner import RoundTripScanner, Scanner, ScannerError
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.scalarstring import (
    DoubleQuotedScalarString,
    FoldedScalarString,
    LiteralScalarString,
    ScalarString,
)

from .errors import MrsfError
from .yamledit import delete_map_key, remove_item, set_new_key

SIDECAR_SUFFIX_YAML = ".review.yaml"
SIDECAR_SUFFIX_JSON = ".review.json"

#: Keys of a comment in the order a new comment is written (unknown keys follow).
COMMENT_KEY_ORDER = (
    "id", "author", "timestamp", "text", "type", "severity", "resolved", "reply_to",
    "line", "end_line", "start_column", "end_column", "selected_text",
    "selected_text_hash", "anchored_text", "commit",
)

#: A string may be written as a plain YAML scalar only if it looks like this and is not
#: a word some YAML reader would take for a boolean or null.
_PLAIN_SAFE = re.compile(r"[A-Za-z_][A-Za-z0-9 _./()@+\-]*")
_YAML_WORDS = {
    "true", "false", "yes", "no", "on", "off", "y", "n", "null", "nan", "inf",
}
#: Deepest nesting of lists/mappings accepted in a sidecar (guards recursion limits).
MAX_DEPTH = 64
#: Upper bound on nodes produced when converting to plain data (guards alias bombs).
_MAX_PLAIN_NODES = 2_000_000


# ---------------------------------------------------------------------------
# The model
# ---------------------------------------------------------------------------


@dataclass
class YamlStyle:
    """How a YAML sidecar is laid out, so a dump reproduces it."""

    mapping: int = 2
    sequence: int = 4
    offset: int = 2
    explicit_start: bool = False


@dataclass
class Sidecar:
    """One parsed sidecar: the round-trip data plus what is needed to write it back.

    ``data`` is a ruamel ``CommentedMap`` for YAML and a plain ``dict`` for JSON.
    """

    fmt: str                       # "yaml" or "json"
    data: Any
    original: str = ""             # the text this was parsed from ("" for a new sidecar)
    newline: str = "\n"
    final_newline: bool = True
    bom: bool = False
    yaml_style: YamlStyle = field(default_factory=YamlStyle)
    json_indent: int | str | None = 2
    json_ascii: bool = False
    _source: str | None = None     # original text, BOM removed, LF line ends
    _baseline: str | None = None   # serialisation of the unchanged data
    _prepared: bool = False
    _faithful: bool = True
    _appended: list = field(default_factory=list)  # comments appended since the text was read
    _replaced: dict = field(default_factory=dict)  # (id(mapping), key) -> (mapping, key, old value)
    _other_edit: bool = False      # any edit other than the two above

    @property
    def faithful(self) -> bool:
        """True when dumping the unchanged data reproduces the original text exactly."""
        self._prepare()
        return self._faithful

    def assume_faithful(self) -> None:
        """Declare that dumping the unchanged data reproduces the original text (true for
        text this serialiser just produced), sparing the first edit a serialisation."""
        if not self._prepared and self._source is not None:
            self._prepared, self._baseline, self._faithful = True, self._source, True

    def _prepare(self) -> None:
        """Serialise the unchanged data once, before the first edit (lazily: reads that
        never write do not pay for it).  Edit only through the methods below."""
        if self._prepared:
            return
        self._prepared = True
        if self._source is None:
            return
        try:
            self._baseline = self._serialise()
            self._faithful = self._finish(self._baseline) == self.original
        except Exception:  # pragma: no cover - defensive: dump problems surface on write
            self._baseline, self._faithful = None, False

    # -- reading ----------------------------------------------------------

    @property
    def comments(self) -> list | None:
        """The ``comments`` list, or None when missing or not a list."""
        value = self.data.get("comments") if isinstance(self.data, dict) else None
        return value if isinstance(value, list) else None

    def require_comments(self) -> list:
        """The ``comments`` list, created when absent; an error when it is not a list."""
        if not isinstance(self.data, dict):
            raise MrsfError("invalid-sidecar", "the sidecar is not a mapping")
        if "comments" not in self.data or self.data["comments"] is None:
            self.set_top("comments", [])
        value = self.data["comments"]
        if not isinstance(value, list):
            raise MrsfError(
                "invalid-sidecar",
                "the sidecar's `comments` is not a list; run repair first",
                **_pos_fields(self.position(key="comments")),
            )
        return value

    def index_of(self, comment_id: str) -> int | None:
        """Index of the first comment whose ``id`` equals ``comment_id``."""
        for i, item in enumerate(self.comments or ()):
            if isinstance(item, dict) and item.get("id") == comment_id:
                return i
        return None

    def get(self, comment_id: str) -> dict:
        """The comment mapping with this id, or MrsfError ``comment-not-found``."""
        index = self.index_of(comment_id)
        if index is None:
            raise MrsfError("comment-not-found", f"no comment with id {comment_id!r}", id=comment_id)
        return self.comments[index]

    def plain(self) -> Any:
        """The whole sidecar as plain JSON-able Python data."""
        return to_plain(self.data)

    def position(self, *, index: int | None = None, key: str | None = None) -> tuple[int, int] | None:
        """1-based (line, column) of a top-level key, a comment, or a key in a comment."""
        if self.fmt != "yaml":
            return None
        try:
            if index is None:
                line, col = self.data.lc.key(key)
                return line + 1, col + 1
            seq = self.data["comments"]
            if key is None:
                line, col = seq.lc.item(index)
                return line + 1, col + 1
            item = seq[index]
            if isinstance(item, CommentedMap) and key in item:
                line, col = item.lc.key(key)
                return line + 1, col + 1
            line, col = seq.lc.item(index)
            return line + 1, col + 1
        except Exception:  # nodes created in memory carry no position
            return None

    # -- editing ----------------------------------------------------------

    def set_top(self, key: str, value: Any) -> None:
        """Set a top-level field (keeping its position and quoting when it exists)."""
        self._prepare()
        self._other_edit = True
        _set_entry(self.data, key, value, self.fmt)

    def set_field(self, comment: dict, key: str, value: Any) -> bool:
        """Set ``comment[key]``; returns False (and changes nothing) if already equal."""
        self._prepare()
        if key in comment and _same(comment[key], value):
            return False
        if (self.fmt == "yaml" and key in comment and isinstance(comment, CommentedMap)
                and _is_scalar(comment[key]) and _is_scalar(value)):
            self._replaced.setdefault((id(comment), key), (comment, key, comment[key]))
        else:
            self._other_edit = True
        _set_entry(comment, key, value, self.fmt)
        return True

    def delete_field(self, comment: dict, key: str) -> bool:
        """Remove ``comment[key]`` keeping the YAML comment lines it carried."""
        self._prepare()
        if key not in comment:
            return False
        self._other_edit = True
        if self.fmt == "yaml" and isinstance(comment, CommentedMap):
            delete_map_key(comment, key, indent=self._item_indent())
        else:
            del comment[key]
        return True

    def append_comment(self, comment: dict) -> dict:
        """Append a new comment (a plain dict, written in its key order)."""
        self._prepare()
        seq = self.require_comments()
        node = to_node(comment, self.fmt)
        if self.fmt == "yaml":
            if isinstance(seq, CommentedSeq) and len(seq) and not seq.fa.flow_style():
                self._appended.append(node)
            else:
                self._other_edit = True
            if isinstance(seq, CommentedSeq):
                seq.fa.set_block_style()
            else:  # a plain list cannot hold comments; replace it in place
                seq = self._commented_comments()
        seq.append(node)
        return node

    def remove_comment(self, index: int) -> None:
        """Remove the comment at ``index``; YAML comment lines after it move up."""
        self._prepare()
        self._other_edit = True
        seq = self.require_comments()
        if self.fmt == "yaml" and isinstance(seq, CommentedSeq):
            remove_item(self.data, seq, index, self._dash_indent())
        else:
            del seq[index]

    # -- writing ----------------------------------------------------------

    def dump(self, *, fast: bool = True) -> str:
        """Serialise back to text in the file's own style.

        When the serialiser cannot reproduce the original text exactly (unusual spacing,
        mixed indentation...), only the lines that really changed are carried over into
        the original text (see :func:`_transfer`), so untouched lines stay as they were.

        When the only change is comments appended to a ``comments`` list that ends the
        file (see :meth:`fast_append`), the text is the original plus the new items,
        without serialising the rest again; ``fast=False`` always serialises everything
        (the two give the same text: tests compare them).
        """
        if fast:
            shortcut = self.fast_append() or self.fast_replace()
            if shortcut is not None:
                return shortcut.text
        self._prepare()
        text = self._serialise()
        if not self._faithful and self._baseline is not None and self._source is not None:
            carried = _transfer(self._source, self._baseline, text)
            if carried is not None and carried != self._source:
                try:
                    same = to_plain(_reparse(carried, self.fmt)) == to_plain(_reparse(text, self.fmt))
                except MrsfError:
                    same = False
                if same:
                    text = carried
            elif carried == self._source:
                text = carried
        return self._finish(text)

    def _serialise(self) -> str:
        if self.fmt == "json":
            return json.dumps(self.data, indent=self.json_indent, ensure_ascii=self.json_ascii)
        return _yaml_dump(self.data, self.yaml_style)

    def _finish(self, text: str) -> str:
        if not self.final_newline:
            text = text.rstrip("\n")
        elif not text.endswith("\n"):
            text += "\n"
        if self.newline != "\n":
            text = text.replace("\n", self.newline)
        if self.bom:
            text = "\ufeff" + text
        return text

    # -- appending without serialising the whole file ------------------------

    def fast_append(self) -> "Append | None":
        """The new text as the original text plus the appended comments, or None when
        that shortcut does not apply.

        It applies to a YAML sidecar whose only change is comments appended to its
        block ``comments`` list, when that list is the last entry of the file (nothing
        but comment lines and blank lines after it), the serialiser is known to
        reproduce the original text exactly, and the list's items sit where the
        serialiser puts them.  The serialiser writes a block list item by item, each
        one the same wherever it stands, so the whole file dumped again would be the
        original text followed by exactly these lines.
        """
        if self.fmt != "yaml" or not self._appended or self._other_edit or self._replaced:
            return None
        if not (self._prepared and self._faithful) or self._source is None:
            return None
        seq = self._tail_seq(len(self._appended))
        if seq is None:
            return None
        fresh = CommentedMap()
        fresh["comments"] = CommentedSeq(self._appended)
        style = YamlStyle(self.yaml_style.mapping, self.yaml_style.sequence, self.yaml_style.offset)
        head, _, fragment = _yaml_dump(fresh, style).partition("\n")
        if head != "comments:" or not fragment.startswith(" " * style.offset + "-"):
            return None
        prefix = self._source if self._source.endswith("\n") else self._source + "\n"
        return Append(prefix, fragment, list(self._appended), self._finish(prefix + fragment))

    def _tail_seq(self, appended: int) -> CommentedSeq | None:
        """The ``comments`` list when it ends the file, holds ``appended`` new items
        after at least one read from the text, and those sit at the serialiser's column."""
        data = self.data
        if not isinstance(data, CommentedMap) or not len(data) or next(reversed(data)) != "comments":
            return None
        seq = data["comments"]
        if not isinstance(seq, CommentedSeq) or seq.fa.flow_style() or len(seq) <= appended:
            return None
        tail = list(seq)[len(seq) - appended:]
        if len(tail) != len(self._appended[len(self._appended) - appended:]) or any(
                a is not b for a, b in zip(tail, self._appended[len(self._appended) - appended:])):
            return None  # the new nodes must be exactly the last items
        try:
            if data.lc.key("comments")[1] != 0:
                return None
            line, column = seq.lc.item(0)
        except Exception:
            return None
        text = self._source or ""
        start = _line_start(text, line)
        if start is None or text[start:start + column].strip() != "-" or \
                text[start:start + column].index("-") != self.yaml_style.offset:
            return None
        if _DOC_END.search(text):
            return None
        if not self.final_newline and _ends_in_block_scalar(seq[len(seq) - appended - 1]):
            return None  # the added line break would become part of that scalar
        return seq

    def commit_append(self, append: "Append", items: CommentedSeq) -> None:
        """After ``append.text`` was written: make this the model of that text, the
        appended nodes replaced by ``items`` (the fragment as parsed back, with their
        line numbers moved to where the fragment sits in the file)."""
        style = YamlStyle(self.yaml_style.mapping, self.yaml_style.sequence, self.yaml_style.offset)
        fresh = CommentedMap()
        fresh["comments"] = items
        stable = _yaml_dump(fresh, style) == "comments:\n" + append.fragment
        seq = self.data["comments"]
        first = len(seq) - len(append.nodes)
        delta = append.prefix.count("\n") - 1  # the fragment was parsed after one line
        for k, item in enumerate(items):
            _shift_lines(item, delta)
            seq[first + k] = item
            seq.lc.add_idx_line_col(first + k, [items.lc.item(k)[0] + delta, items.lc.item(k)[1]])
        source = append.prefix + append.fragment
        if not self.final_newline:
            source = source.rstrip("\n")
        self._synced(source, append.text, faithful=stable)

    def extend(self, text: str) -> bool:
        """Bring this model up to ``text`` when ``text`` is the original text followed by
        more items of the ``comments`` list (another process appended them): only the
        new part is parsed.  False, and nothing changed, when that does not hold (the
        caller then parses ``text`` in full)."""
        if self.fmt != "yaml" or self._appended or self._replaced or self._other_edit or self._source is None:
            return False
        if not (self._prepared and self._faithful) or not self.final_newline:
            return False
        if not text.startswith(self.original) or len(text) == len(self.original):
            return False
        rest = text[len(self.original):]
        if self.newline == "\r\n":
            if not rest.count("\r\n") == rest.count("\n") == rest.count("\r"):
                return False
            rest = rest.replace("\r\n", "\n")
        elif "\r" in rest:
            return False
        if not rest.endswith("\n") or not rest.startswith(" " * self.yaml_style.offset + "- "):
            return False
        if self._tail_seq(0) is None or _DOC_END.search(rest):
            return False
        style = YamlStyle(self.yaml_style.mapping, self.yaml_style.sequence, self.yaml_style.offset)
        try:
            items = parse_fragment(rest, style)
        except MrsfError:
            return False
        if _has_yaml_comments(items):
            return False
        fresh = CommentedMap()
        fresh["comments"] = items
        if _yaml_dump(fresh, style) != "comments:\n" + rest:
            return False  # not in the serialiser's own layout: faithfulness unknown
        seq = self.data["comments"]
        first = len(seq)
        delta = self._source.count("\n") - 1
        for k, item in enumerate(items):
            _shift_lines(item, delta)
            seq.append(item)
            seq.lc.add_idx_line_col(first + k, [items.lc.item(k)[0] + delta, items.lc.item(k)[1]])
        self._synced(self._source + rest, text)
        return True

    def fast_replace(self) -> "Replace | None":
        """The new text as the original text with only the lines of changed scalar values
        rewritten, or None when that shortcut does not apply.

        It applies to a YAML sidecar whose only changes are existing keys given new
        single-line scalar values (``resolved``, ``text``...), when the serialiser is
        known to reproduce the original text exactly and each old value is written as
        ``key: value`` alone on its line (no end-of-line comment, not a block or
        multi-line scalar, not inside a flow collection).  A single-line scalar is
        written the same wherever it stands, so the whole file dumped again would differ
        from the original in exactly these lines.
        """
        if self.fmt != "yaml" or not self._replaced or self._appended or self._other_edit:
            return None
        if not (self._prepared and self._faithful) or self._source is None:
            return None
        lines = self._source.split("\n")
        edits: list[tuple[int, str, CommentedMap, str, str]] = []
        done: set[int] = set()
        style = YamlStyle(self.yaml_style.mapping, self.yaml_style.sequence, self.yaml_style.offset)
        for mapping, key, old in self._replaced.values():
            try:
                key_line, key_col, value_line, _ = mapping.lc.data[key]
            except Exception:  # a node made in memory: no position
                return None
            slot = mapping.ca.items.get(key)
            if slot and len(slot) > 2 and slot[2] is not None and _token_head(slot[2]).strip():
                return None  # an end-of-line comment: its column could move
            if key_line != value_line or key_line in done or not 0 <= key_line < len(lines):
                return None
            if _anchored(old):
                return None  # an alias elsewhere would now carry the anchor
            old_line = _entry_line(key, old, style)
            new_line = _entry_line(key, mapping[key], style)
            if old_line is None or new_line is None or lines[key_line][key_col:] != old_line:
                return None
            done.add(key_line)
            edits.append((key_line, lines[key_line][:key_col] + new_line, mapping, key, new_line))
        for line, text, *_ in edits:
            lines[line] = text
        source = "\n".join(lines)
        return Replace(source, edits, self._finish(source))

    def commit_replace(self, replace: "Replace", values: list[Any]) -> None:
        """After ``replace.text`` was written: make this the model of that text, each
        changed value replaced by the value parsed back from its new line."""
        style = YamlStyle(self.yaml_style.mapping, self.yaml_style.sequence, self.yaml_style.offset)
        stable = True
        for (_, _, mapping, key, line), value in zip(replace.edits, values):
            mapping[key] = value
            stable = stable and _entry_line(key, value, style) == line
        self._synced(replace.source, replace.text, faithful=stable)

    def _synced(self, source: str, text: str, *, faithful: bool = True) -> None:
        """The model now is the parse of ``text`` (``source``: normalised).  ``faithful``:
        the serialiser is known to reproduce it exactly (the new parts re-serialise to
        themselves; a few values, such as some floats, do not), else that is worked out
        again before the next edit."""
        self.original, self._source = text, source
        self._prepared, self._baseline, self._faithful = faithful, source if faithful else None, faithful
        self._appended, self._replaced, self._other_edit = [], {}, False

    # -- helpers ------------------------------------------------------------

    def _item_indent(self) -> int:
        return self.yaml_style.sequence

    def _dash_indent(self) -> int:
        return self.yaml_style.offset

    def _commented_comments(self) -> CommentedSeq:
        seq = CommentedSeq(self.data["comments"])
        self.data["comments"] = seq
        return seq


@dataclass
class Append:
    """A write that appends comments to the end of a sidecar's text (see
    :meth:`Sidecar.fast_append`): ``text`` is the whole new text, ``prefix`` the
    normalised original text ending in a line break, ``fragment`` the new items' lines."""

    prefix: str
    fragment: str
    nodes: list
    text: str


@dataclass
class Replace:
    """A write that rewrites only the lines of changed scalar values (see
    :meth:`Sidecar.fast_replace`): ``text`` is the whole new text, ``source`` the same
    normalised, ``edits`` (line index, new line, mapping, key, ``key: value`` text)."""

    source: str
    edits: list
    text: str


def _is_scalar(value: Any) -> bool:
    return not isinstance(value, (dict, list, tuple, set))


def _anchored(value: Any) -> bool:
    anchor = getattr(value, "yaml_anchor", None)
    try:
        return callable(anchor) and anchor() is not None
    except Exception:
        return True


def _token_head(token: Any) -> str:
    """The end-of-line part of a comment token (before its first line break)."""
    value = getattr(token, "value", "")
    return value.partition("\n")[0] if isinstance(value, str) else ""


def _entry_line(key: str, value: Any, style: YamlStyle) -> str | None:
    """How the serialiser writes ``key: value`` in a block mapping, when that is one line."""
    mapping = CommentedMap()
    mapping[key] = value
    out = _yaml_dump(mapping, style)
    if out.count("\n") != 1 or not out.endswith("\n"):
        return None
    return out[:-1]


def parse_entry_line(line: str, key: str) -> Any:
    """The value of a one-line ``key: value`` entry; MrsfError unless it is exactly that."""
    data = _parse_yaml(line + "\n", "entry").data
    if not isinstance(data, CommentedMap) or list(data) != [key]:
        raise MrsfError("invalid-sidecar", f"entry: not a single {key!r} entry")
    return data[key]


#: A YAML document end marker line (after it the comments list no longer ends the file).
_DOC_END = re.compile(r"(?m)^\.\.\.(?:[ \t]|$)")


def _line_start(text: str, line: int) -> int | None:
    """Offset in ``text`` of the start of 0-based line ``line``."""
    pos = 0
    for _ in range(line):
        pos = text.find("\n", pos) + 1
        if pos == 0:
            return None
    return pos


def _ends_in_block_scalar(node: Any) -> bool:
    """True when the last value written inside ``node`` is a literal/folded scalar."""
    while isinstance(node, (CommentedMap, CommentedSeq)) and len(node):
        node = node[next(reversed(node))] if isinstance(node, CommentedMap) else node[-1]
    return isinstance(node, (LiteralScalarString, FoldedScalarString))


def _shift_lines(node: Any, delta: int) -> None:
    """Move the recorded line numbers of ``node`` and everything in it by ``delta``."""
    stack = [node]
    seen: set[int] = set()
    while stack:
        n = stack.pop()
        if not isinstance(n, (CommentedMap, CommentedSeq)) or id(n) in seen:
            continue  # an aliased node is shifted once
        seen.add(id(n))
        if n.lc.line is not None:
            n.lc.line += delta
        for pos in (n.lc.data or {}).values():
            pos[0] += delta
            if len(pos) > 2:
                pos[2] += delta
        stack.extend(n.values() if isinstance(n, CommentedMap) else n)


def _has_yaml_comments(node: Any) -> bool:
    """True when a comment or blank line is attached anywhere in ``node``."""
    stack = [node]
    while stack:
        n = stack.pop()
        if not isinstance(n, (CommentedMap, CommentedSeq)):
            continue
        if n.ca.items or (n.ca.comment and any(n.ca.comment)) or n.ca.end:
            return True
        stack.extend(n.values() if isinstance(n, CommentedMap) else n)
    return False


def parse_fragment(fragment: str, style: YamlStyle) -> CommentedSeq:
    """Parse the lines of ``comments`` list items (as written after ``comments:`` at the
    top level of a sidecar, in ``style``); MrsfError unless they are exactly that: one
    or more block list items starting in the style's dash column, nothing else."""
    text = "comments:\n" + fragment
    data = _parse_yaml(text, "fragment").data
    items = data.get("comments") if isinstance(data, CommentedMap) else None
    if (not isinstance(items, CommentedSeq) or list(data) != ["comments"] or not len(items)
            or items.fa.flow_style()):
        raise MrsfError("invalid-sidecar", "fragment: not a block list of comments")
    if not fragment.startswith(" " * style.offset + "-"):
        raise MrsfError("invalid-sidecar", "fragment: items not in the list's column")
    if _depth_over(items, MAX_DEPTH - 1):
        raise MrsfError("invalid-sidecar", f"fragment: values are nested more than {MAX_DEPTH} levels deep")
    return items


# ---------------------------------------------------------------------------
# Parsing
# ---------------------------------------------------------------------------


def detect_format(name: str | None, text: str) -> str:
    """``json`` for ``*.review.json`` or text starting with ``{``, else ``yaml``."""
    if name and str(name).endswith(SIDECAR_SUFFIX_JSON):
        return "json"
    if name and str(name).endswith(SIDECAR_SUFFIX_YAML):
        return "yaml"
    return "json" if text.lstrip("\ufeff \t\r\n").startswith("{") else "yaml"


def parse_sidecar(text: str, *, fmt: str | None = None, name: str | None = None) -> Sidecar:
    """Parse sidecar text; MrsfError (``malformed-yaml``/``malformed-json``/``invalid-sidecar``)."""
    fmt = fmt or detect_format(name, text)
    label = name or "sidecar"
    bom = text.startswith("\ufeff")
    body = text[1:] if bom else text
    newline = "\r\n" if "\r\n" in body else "\n"
    normalized = body.replace("\r\n", "\n")
    final_newline = normalized.endswith("\n") or normalized == ""
    if not normalized.strip():
        raise MrsfError("invalid-sidecar", f"{label}: the file is empty")
    if fmt == "json":
        sc = _parse_json(normalized, label)
    else:
        sc = _parse_yaml(normalized, label)
    sc.original, sc.bom, sc.newline, sc.final_newline = text, bom, newline, final_newline
    sc._source = normalized
    if _depth_over(sc.data, MAX_DEPTH):
        raise MrsfError("invalid-sidecar", f"{label}: values are nested more than {MAX_DEPTH} levels deep")
    if fmt != "json" and "*" in normalized and _expands_over(sc.data, _MAX_PLAIN_NODES):
        raise MrsfError(
            "invalid-sidecar",
            f"{label}: its YAML aliases expand to more than {_MAX_PLAIN_NODES} values (an alias bomb?); "
            "it is not read",
        )
    if not isinstance(sc.data, dict):
        raise MrsfError(
            "invalid-sidecar",
            f"{label}: an MRSF sidecar must be a mapping with mrsf_version, document and comments, "
            f"found {type_name(sc.data)}",
            line=1,
            column=1,
        )
    return sc


def _reparse(text: str, fmt: str) -> Any:
    return (_parse_json(text, "sidecar") if fmt == "json" else _parse_yaml(text, "sidecar")).data


def _lines(text: str) -> list[str]:
    return text.split("\n")


def _transfer(source: str, baseline: str, changed: str) -> str | None:
    """Apply the line changes baseline -> changed to ``source``.

    ``baseline`` is the serialiser's rendering of the unchanged data, which differs from
    ``source`` on a few reformatted lines.  Lines of ``baseline`` are matched to lines of
    ``source`` (equal lines, and same-size blocks of reformatted lines one to one); each
    changed region is widened until both its ends are matched, then spliced into
    ``source``.  None when that is impossible.
    """
    import difflib

    src, base, new = _lines(source), _lines(baseline), _lines(changed)
    to_src: dict[int, int] = {}
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, base, src, autojunk=False).get_opcodes():
        if tag == "equal" or (tag == "replace" and i2 - i1 == j2 - j1):
            for k in range(i2 - i1):
                to_src[i1 + k] = j1 + k
    hunks: list[list[int]] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, base, new, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        while i1 > 0 and (i1 - 1) not in to_src:
            i1, j1 = i1 - 1, j1 - 1
        while i2 < len(base) and i2 not in to_src:
            i2, j2 = i2 + 1, j2 + 1
        if hunks and i1 <= hunks[-1][1]:
            hunks[-1][1], hunks[-1][3] = max(hunks[-1][1], i2), max(hunks[-1][3], j2)
        else:
            hunks.append([i1, i2, j1, j2])
    out: list[str] = []
    pos = 0
    for i1, i2, j1, j2 in hunks:
        start = 0 if i1 == 0 else to_src[i1 - 1] + 1
        end = len(src) if i2 == len(base) else to_src[i2]
        if start < pos or end < start:
            return None
        out.extend(src[pos:start])
        out.extend(new[j1:j2])
        pos = end
    out.extend(src[pos:])
    return "\n".join(out)


def _depth_over(data: Any, limit: int) -> bool:
    """True when lists/mappings nest deeper than ``limit`` (iterative: no recursion)."""
    stack = [(data, 0)]
    seen: set[int] = set()
    while stack:
        node, depth = stack.pop()
        if isinstance(node, (dict, list)):
            if depth >= limit:
                return True
            if id(node) in seen:  # a YAML alias: already measured
                continue
            seen.add(id(node))
            children = node.values() if isinstance(node, dict) else node
            stack.extend((child, depth + 1) for child in children)
    return False


def _expands_over(data: Any, limit: int) -> bool:
    """True when ``data`` with every alias expanded has more than ``limit`` values (lists
    and mappings counted once per place they appear, each shared one measured once)."""
    sizes: dict[int, int] = {}
    stack: list[tuple[Any, bool]] = [(data, False)]
    while stack:
        node, done = stack.pop()
        if not isinstance(node, (dict, list)) or (not done and id(node) in sizes):
            continue
        children = list(node.values() if isinstance(node, dict) else node)
        if not done:
            sizes[id(node)] = 0  # in progress (a recursive alias counts as one value)
            stack.append((node, True))
            stack.extend((child, False) for child in children)
            continue
        total = 1 + sum(sizes.get(id(child), 1) if isinstance(child, (dict, list)) else 1 for child in children)
        if total > limit:
            return True
        sizes[id(node)] = total
    return False


def new_sidecar(document: str, fmt: str = "yaml") -> Sidecar:
    """A fresh, empty sidecar for ``document`` (a repository-relative path)."""
    if fmt == "json":
        data = {"mrsf_version": "1.0", "document": document, "comments": []}
        return Sidecar(fmt="json", data=data, json_indent=2)
    data = CommentedMap()
    data["mrsf_version"] = DoubleQuotedScalarString("1.0")
    data["document"] = to_node(document, "yaml")
    data["comments"] = CommentedSeq()
    return Sidecar(fmt="yaml", data=data)


class BinaryScalar(bytes):
    """A ``!!binary`` value as loaded: the decoded bytes, plus the scalar text and style it
    was written in, so that a value nobody changed is written back exactly as it was."""

    text: str
    style: str | None


def _construct_binary(constructor: RoundTripConstructor, node: Any) -> BinaryScalar:
    value = BinaryScalar(constructor.construct_yaml_binary(node))  # checks the base64
    value.text, value.style = node.value, node.style
    return value


def _represent_binary(representer: RoundTripRepresenter, data: bytes) -> Any:
    if isinstance(data, BinaryScalar):
        return representer.represent_scalar("tag:yaml.org,2002:binary", data.text, style=data.style)
    return representer.represent_binary(data)


class _Constructor(RoundTripConstructor):
    pass


class _TooDeep(ScannerError):
    """Raised by the scanner at the ``MAX_DEPTH``-th nested collection."""


class _DepthLimit:
    """A YAML scanner that stops at the ``MAX_DEPTH``-th nested collection when it meets
    it, before any deeper one is parsed: ruamel's scanner works ahead over every open
    ``[``/``{`` (its cost grows with the square of the depth: 1,000 levels take seconds,
    100,000 hours), and deep block nesting would only end in a recursion error."""

    def _too_deep(self) -> ScannerError:
        return _TooDeep(None, None, f"values are nested more than {MAX_DEPTH} levels deep",
                            self.reader.get_mark())  # type: ignore[attr-defined]

    def fetch_flow_collection_start(self, *args: Any, **kwargs: Any) -> None:
        if self.flow_level >= MAX_DEPTH:  # type: ignore[attr-defined]
            raise self._too_deep()
        super().fetch_flow_collection_start(*args, **kwargs)  # type: ignore[misc]

    def add_indent(self, column: int) -> bool:
        if len(self.indents) > MAX_DEPTH:  # type: ignore[attr-defined]
            raise self._too_deep()
        return super().add_indent(column)  # type: ignore[misc]


class _Scanner(_DepthLimit, RoundTripScanner):
    pass


class _SafeScanner(_DepthLimit, Scanner):
    pass


def safe_yaml() -> YAML:
    """A pure-Python safe YAML loader with the same nesting limit (for small config files)."""
    y = YAML(typ="safe", pure=True)
    y.Scanner = _SafeScanner
    return y


class _Representer(RoundTripRepresenter):
    pass


_Constructor.add_constructor("tag:yaml.org,2002:binary", _construct_binary)
_Representer.add_representer(BinaryScalar, _represent_binary)


def _yaml() -> YAML:
    y = YAML(typ="rt")
    y.Scanner, y.Constructor, y.Representer = _Scanner, _Constructor, _Representer
    y.preserve_quotes = True
    y.width = 1 << 30
    return y


def _parse_yaml(text: str, label: str) -> Sidecar:
    y = _yaml()
    try:
        data = y.load(text)
    except _TooDeep as exc:
        mark = exc.problem_mark
        raise MrsfError("invalid-sidecar", f"{label}: values are nested more than {MAX_DEPTH} levels deep "
                        f"(line {mark.line + 1}, column {mark.column + 1})", line=mark.line + 1,
                        column=mark.column + 1) from None
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or "invalid YAML"
        line = mark.line + 1 if mark is not None else None
        column = mark.column + 1 if mark is not None else None
        where = f" at line {line}, column {column}" if line else ""
        raise MrsfError("malformed-yaml", f"{label}: malformed YAML{where}: {problem}", line=line, column=column) from None
    except (YAMLError, RecursionError, ValueError, TypeError) as exc:
        raise MrsfError("malformed-yaml", f"{label}: malformed YAML: {exc}") from None
    if data is None:
        raise MrsfError("invalid-sidecar", f"{label}: the file holds no YAML document")
    style = _detect_yaml_style(text, data)
    return Sidecar(fmt="yaml", data=data, yaml_style=style)


def _parse_json(text: str, label: str) -> Sidecar:
    def pairs(items: list[tuple[str, Any]]) -> dict:
        out: dict = {}
        for key, value in items:
            if key in out:
                raise ValueError(f"duplicate key {key!r}")
            out[key] = value
        return out

    def bad_constant(name: str) -> Any:
        raise ValueError(f"{name} is not valid JSON")

    try:
        data = json.loads(text, object_pairs_hook=pairs, parse_constant=bad_constant)
    except json.JSONDecodeError as exc:
        raise MrsfError(
            "malformed-json",
            f"{label}: malformed JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}",
            line=exc.lineno,
            column=exc.colno,
        ) from None
    except (ValueError, RecursionError) as exc:
        raise MrsfError("malformed-json", f"{label}: malformed JSON: {exc}") from None
    indent: int | str | None = None
    lines = text.split("\n")
    if len(lines) > 1:
        for line in lines[1:]:
            stripped = line.lstrip(" \t")
            if stripped:
                lead = line[: len(line) - len(stripped)]
                indent = "\t" if lead.startswith("\t") else len(lead)
                break
    ascii_escaped = bool(re.search(r"\\u(?:00[89a-fA-F]|0[1-9a-fA-F]|[1-9a-fA-F])", text))
    return Sidecar(fmt="json", data=data, json_indent=indent, json_ascii=ascii_escaped)


def _detect_yaml_style(text: str, data: Any) -> YamlStyle:
    """Infer ruamel's indent(mapping, sequence, offset) from where things sit in ``text``."""
    style = YamlStyle()
    lines = text.split("\n")
    for line in lines:
        stripped = line.strip()
        if not stripped or stripped.startswith("#") or stripped.startswith("%"):
            continue
        style.explicit_start = stripped == "---" or stripped.startswith("--- ")
        break
    if not isinstance(data, CommentedMap):
        return style
    seq = _first_block_seq(data)
    if seq is not None:
        parent_col, seq_node = seq
        try:
            line_no, content_col = seq_node.lc.item(0)
            line = lines[line_no]
            dash_col = line.rfind("-", 0, content_col)
            if dash_col >= 0 and line[:dash_col].strip() == "":
                style.offset = max(dash_col - parent_col, 0)
                style.sequence = max(content_col - parent_col, style.offset + 2)
        except Exception:
            pass
    mapping = _nested_map_indent(data)
    if mapping:
        style.mapping = mapping
    if style.sequence < style.offset + 2:  # ruamel needs room for "- "
        style.sequence = style.offset + 2
    return style


def _first_block_seq(data: CommentedMap) -> tuple[int, CommentedSeq] | None:
    preferred = ["comments"] + [k for k in data if k != "comments"]
    for key in preferred:
        value = data.get(key)
        if isinstance(value, CommentedSeq) and len(value) and not value.fa.flow_style():
            if isinstance(value[0], (CommentedMap, CommentedSeq, str, int, float, bool)) or value[0] is None:
                try:
                    return data.lc.key(key)[1], value
                except Exception:
                    return None
    return None


def _nested_map_indent(root: Any) -> int | None:
    """Indentation of a block mapping nested under a mapping key, if the file has one
    (iterative, each node visited once: shared alias nodes cost nothing extra)."""
    stack = [root]
    seen: set[int] = set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, CommentedMap):
            for key, value in node.items():
                if isinstance(value, CommentedMap) and len(value) and not value.fa.flow_style():
                    try:
                        parent_col = node.lc.key(key)[1]
                        child_col = value.lc.key(next(iter(value)))[1]
                        if child_col > parent_col:
                            return child_col - parent_col
                    except Exception:
                        pass
            stack.extend(reversed(list(node.values())))
        elif isinstance(node, CommentedSeq):
            stack.extend(reversed(list(node)))
    return None


def _yaml_dump(data: Any, style: YamlStyle) -> str:
    y = _yaml()
    y.indent(mapping=style.mapping, sequence=style.sequence, offset=style.offset)
    y.explicit_start = style.explicit_start
    buf = io.StringIO()
    y.dump(data, buf)
    return buf.getvalue()


# ---------------------------------------------------------------------------
# Values
# ---------------------------------------------------------------------------


def type_name(value: Any) -> str:
    """JSON-ish name of a value's type, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (_dt.date, _dt.datetime)):
        return "timestamp"
    if isinstance(value, dict):
        return "mapping"
    if isinstance(value, list):
        return "list"
    return type(value).__name__


def to_plain(value: Any) -> Any:
    """Convert round-trip data to plain JSON-able Python (str, int, float, bool, None, list, dict).

    YAML timestamps become ISO-8601 strings; aliases are expanded within a node budget
    (MrsfError ``invalid-sidecar`` beyond it).
    """
    budget = [_MAX_PLAIN_NODES]

    def conv(v: Any) -> Any:
        budget[0] -= 1
        if budget[0] < 0:
            raise MrsfError("invalid-sidecar", "the sidecar expands to too many nodes (YAML aliases?)")
        if isinstance(v, dict):
            return {str(k) if not isinstance(k, str) else str(k): conv(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [conv(x) for x in v]
        if isinstance(v, bool) or v is None:
            return v
        if isinstance(v, str):
            return str(v)
        if isinstance(v, int):
            return int(v)
        if isinstance(v, float):
            return float(v)
        if isinstance(v, _dt.datetime):
            return v.isoformat()
        if isinstance(v, _dt.date):
            return v.isoformat()
        return str(v)

    try:
        return conv(value)
    except RecursionError:
        raise MrsfError("invalid-sidecar", "the sidecar nests values too deeply (YAML aliases?)") from None


def yaml_string(value: str) -> str:
    """A new YAML string scalar: plain when unambiguous, double-quoted otherwise."""
    if (
        _PLAIN_SAFE.fullmatch(value)
        and value.lower() not in _YAML_WORDS
        and not value.endswith(" ")
        and " #" not in value
    ):
        return value
    return DoubleQuotedScalarString(value)


def to_node(value: Any, fmt: str) -> Any:
    """Plain data -> data to insert (ruamel nodes for YAML, plain for JSON)."""
    if fmt == "json":
        return to_plain(value)
    if isinstance(value, CommentedBase):
        return value
    if isinstance(value, dict):
        node = CommentedMap()
        for key, item in value.items():
            node[str(key)] = to_node(item, fmt)
        return node
    if isinstance(value, (list, tuple)):
        seq = CommentedSeq(to_node(item, fmt) for item in value)
        return seq
    if isinstance(value, ScalarString):
        return value
    if isinstance(value, str):
        return yaml_string(value)
    return value


def _same(old: Any, new: Any) -> bool:
    try:
        return type(to_plain(old)) is type(to_plain(new)) and to_plain(old) == to_plain(new)
    except MrsfError:
        return False


def _styled_like(old: Any, value: Any) -> Any:
    """Give a new string value the scalar style of the value it replaces."""
    if not isinstance(value, str) or isinstance(value, ScalarString):
        return to_node(value, "yaml")
    if isinstance(old, (FoldedScalarString, LiteralScalarString)):
        return LiteralScalarString(value) if "\n" in value.rstrip("\n") else type(old)(value)
    if isinstance(old, ScalarString):
        if isinstance(old, DoubleQuotedScalarString) or "\n" in value:
            return DoubleQuotedScalarString(value)
        return type(old)(value)
    return yaml_string(value)


def _set_entry(mapping: dict, key: str, value: Any, fmt: str) -> None:
    if fmt != "yaml" or not isinstance(mapping, CommentedMap):
        mapping[key] = to_node(value, "json" if fmt == "json" else "yaml")
        return
    if key in mapping:
        mapping[key] = _styled_like(mapping[key], value)
        return
    set_new_key(mapping, key, to_node(value, "yaml"), 0)


def _pos_fields(pos: tuple[int, int] | None) -> dict:
    return {"line": pos[0], "column": pos[1]} if pos else {}
