"""The model of one sidecar: its plain data and what is needed to write it back in place;
the edits (set or delete a field of a comment, append or remove a comment, set a
top-level field), which record what they changed for the writers (:mod:`.write` gives
the new text and its proof; :meth:`Sidecar.adopt` brings the model up to date once it
was written); and catching up with comments another process appended
(:meth:`Sidecar.extend`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from .. import yamlscan
from ..errors import MrsfError
from ..yamledit import Layout
from ..yamlscan import Entry, Span, Unsupported
from .declined import _rt_entries
from .values import MAX_DEPTH, _depth_over, same_value, to_plain
from .yaml12 import _yaml, yaml12_text

#: Keys of a comment in the order a new comment is written (unknown keys follow).
COMMENT_KEY_ORDER = (
    "id", "author", "timestamp", "text", "type", "severity", "resolved", "reply_to",
    "line", "end_line", "start_column", "end_column", "selected_text",
    "selected_text_hash", "anchored_text", "commit",
)


@dataclass
class Sidecar:
    """One parsed sidecar: plain data plus what is needed to write it back in place.

    Edit only through the methods below (they record what changed); reading ``data``
    and ``comments`` freely is fine.
    """

    fmt: str                       # "yaml" or "json"
    data: Any
    original: str = ""             # the text this was parsed from ("" for a new sidecar)
    newline: str = "\n"
    final_newline: bool = True
    bom: bool = False
    yaml_style: Layout = field(default_factory=Layout)
    json_indent: int | str | None = 2
    json_ascii: bool = False
    _source: str | None = None     # original text, BOM removed, LF line ends
    _lines: list[str] | None = None            # yaml: _source split on "\n"
    _top: list[Entry] | None = None            # yaml: top-level entries (None: not a block mapping)
    _items: list[Span] | None = None           # yaml: comment items' lines; json: (start, end) offsets
    _exact: bool = False                       # yaml: read by yamlscan (gaps and spans exact)
    _json_top: dict | None = None              # json: key -> (key start, value start, value end)
    _orig: list | None = None                  # the comment nodes as read, parallel to _items
    _orig_list: Any = None                     # the comments list object as read
    _snap: dict = field(default_factory=dict)  # original index -> the item as read (before edits)
    _origin: dict | None = None                # id(node) -> original index
    _top_dirty: dict = field(default_factory=dict)   # top-level keys set (ordered)

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
        """The whole sidecar as plain JSON-able Python data (a copy)."""
        return to_plain(self.data)

    def position(self, *, index: int | None = None, key: str | None = None) -> tuple[int, int] | None:
        """1-based (line, column) in the text read of a top-level key, a comment, or a key
        in a comment (None for what was added since, and for JSON)."""
        if self.fmt != "yaml" or self._lines is None:
            return None
        if index is None:
            for entry in self._top or ():
                if entry.key == key:
                    return entry.line + 1, entry.col + 1
            return None
        origin = self._origin_map()
        comments = self.comments
        if comments is None or not 0 <= index < len(comments) or self._items is None:
            return None
        k = origin.get(id(comments[index]))
        if k is None:
            return None
        span = self._items[k]
        try:
            read = yamlscan.read_items(self._item_text(span), self.yaml_style.offset, entries=True)
            entries = read.item_entries[0] if read.item_entries else None
        except (Unsupported, RecursionError):
            entries = None
        if entries is None:
            entries = self._declined_entries(span)
        if entries:
            if key is not None:
                for e in entries:
                    if e.key == key:
                        return span.first + e.line + 1, e.col + 1
            return span.first + entries[0].line + 1, entries[0].col + 1
        line = self._lines[span.first]
        return span.first + 1, _content_col(line, self.yaml_style.offset) + 1

    def _declined_entries(self, span: Span) -> list[Entry] | None:
        """Entries of an item the fast reader declines (a tab, an anchor), from the full
        reader's key positions (None when it cannot read the item alone)."""
        text = self._item_text(span)
        reader_text, _ = yaml12_text(text)
        try:
            loaded = _yaml().load(reader_text)
        except Exception:  # noqa: BLE001 - an alias of an anchor elsewhere, say
            return None
        if not isinstance(loaded, list) or len(loaded) != 1:
            return None
        found = _rt_entries(text.split("\n")[:-1], loaded[0])
        return found[0] if found else None

    # -- editing ----------------------------------------------------------

    def set_top(self, key: str, value: Any) -> None:
        """Set a top-level field (keeping its position and quoting when it exists)."""
        if not isinstance(self.data, dict):
            raise MrsfError("invalid-sidecar", "the sidecar is not a mapping")
        self._top_dirty[key] = True
        self.data[key] = to_plain(value)

    def set_field(self, comment: dict, key: str, value: Any) -> bool:
        """Set ``comment[key]``; returns False (and changes nothing) if already equal."""
        value = to_plain(value)
        if key in comment and same_value(comment[key], value):
            return False
        self._touch(comment)
        comment[key] = value
        return True

    def delete_field(self, comment: dict, key: str) -> bool:
        """Remove ``comment[key]`` (YAML comment lines it carried stay in the file)."""
        if key not in comment:
            return False
        self._touch(comment)
        del comment[key]
        return True

    def append_comment(self, comment: dict) -> dict:
        """Append a new comment (a plain dict, written in its key order)."""
        seq = self.require_comments()
        node = to_plain(comment)
        seq.append(node)
        return node

    def remove_comment(self, index: int) -> None:
        """Remove the comment at ``index``; YAML comment lines inside it stay in the file."""
        seq = self.require_comments()
        del seq[index]

    def _origin_map(self) -> dict:
        if self._origin is None:
            self._origin = {id(node): k for k, node in enumerate(self._orig or ())}
        return self._origin

    def _touch(self, comment: Any) -> None:
        k = self._origin_map().get(id(comment))
        if k is not None and k not in self._snap:
            self._snap[k] = dict(comment)

    # -- after a write (the new text and its proof: :mod:`.write`) ------------

    def adopt(self, plan: "_Plan") -> "Sidecar":
        """After ``plan.text`` (spliced fragments) was written: this model now stands for it."""
        self.original = plan.text
        self._source = plan.source
        self._lines = plan.lines
        self._items = plan.items
        delta = plan.delta
        if delta:
            after = plan.after_line
            for entry in self._top or ():
                if entry.line > after:
                    entry.line += delta
                    entry.last += delta
        self._orig = list(self.comments or ())
        self._orig_list = self.comments
        self._snap, self._origin, self._top_dirty = {}, None, {}
        return self

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

    # -- YAML -------------------------------------------------------------

    def _item_text(self, span: Span) -> str:
        return "\n".join(self._lines[span.first:span.last + 1]) + "\n"

    # -- catching up with another writer ----------------------------------------

    def extend(self, text: str) -> bool:
        """Bring this model up to ``text`` when ``text`` is the original text followed by
        more items of a ``comments`` list that ends the file (another process appended
        them): only the new part is read.  False, and nothing changed, otherwise."""
        if (self.fmt != "yaml" or not self._exact or self._items is None or not self._orig
                or self._snap or self._top_dirty or not self.final_newline):
            return False
        if self.comments is not self._orig_list or len(self.comments) != len(self._orig):
            return False
        if not text.startswith(self.original) or len(text) == len(self.original):
            return False
        top = self._top
        if not top or top[-1].key != "comments":
            return False
        rest = text[len(self.original):]
        if self.newline == "\r\n":
            if not rest.count("\r\n") == rest.count("\n") == rest.count("\r"):
                return False
            rest = rest.replace("\r\n", "\n")
        elif "\r" in rest:
            return False
        dash = self.yaml_style.offset
        if not rest.endswith("\n") or not rest.startswith(" " * dash + "- "):
            return False
        # the old text must end where an item may follow: the last item's lines, then
        # only lines a new item cannot be read into
        lines = self._lines
        real = len(lines) - 1
        last = self._items[-1].last
        for j in range(last + 1, real):
            s = lines[j].lstrip(" ")
            if s and (len(lines[j]) - len(s) > dash):
                return False
        try:
            read = yamlscan.read_items(rest, dash)
        except (Unsupported, RecursionError):
            return False
        if _depth_over(read.data, MAX_DEPTH - 1):
            return False
        base = real
        for node, span in zip(read.data, read.items):
            self.comments.append(node)
            self._items.append(Span(span.first + base, span.last + base))
        self._source = self._source + rest
        self._lines = self._source.split("\n")
        self.original = text
        self._orig = list(self.comments)
        self._origin = None
        return True


@dataclass
class Rendered:
    """New text to write and a function giving the model of that text once written."""

    text: str
    adopt: Callable[[], Sidecar]


@dataclass
class _Plan:
    text: str                       # finished text (BOM, line ends)
    source: str                     # normalised text
    fragments: list | None          # (item text, intended item) read back instead of the whole
    lines: list[str] | None = None
    items: list[Span] | None = None
    delta: int = 0
    after_line: int = -1


def _content_col(line: str, dash_col: int) -> int:
    p = dash_col + 1
    while p < len(line) and line[p] == " ":
        p += 1
    return p


def new_sidecar(document: str, fmt: str = "yaml") -> Sidecar:
    """A fresh, empty sidecar for ``document`` (a repository-relative path)."""
    data = {"mrsf_version": "1.0", "document": document, "comments": []}
    if fmt == "json":
        return Sidecar(fmt="json", data=data, json_indent=2)
    sc = Sidecar(fmt="yaml", data=data)
    sc._orig_list = data["comments"]
    return sc


def _pos_fields(pos: tuple[int, int] | None) -> dict:
    return {"line": pos[0], "column": pos[1]} if pos else {}
