"""Format-preserving model of one MRSF sidecar (YAML or JSON text in, text out).

This module is pure: it turns sidecar *text* into a :class:`Sidecar` and back, and offers
the few editing primitives the operations need (set or delete a field of a comment, append
or remove a comment, set a top-level field).  It never touches the filesystem.

The data is plain Python (``dict``/``list``/``str``/numbers/``bool``/``None``; an unquoted
timestamp is the string it is written as: YAML 1.2 has no timestamp type).  Beside it the model keeps the text and where each
``comments`` item stands in it.  An edit never serialises the file again: writing splices
new text for exactly the changed items (and within an item, for exactly the changed
entries, see :mod:`markmcp.mrsf.yamledit`) into the original text, so a change to N
comments costs the size of those N comments, and every untouched line stays byte for
byte as it was: YAML comments, key order, quoting, folding, blank lines, line ends, a
byte-order mark, a leading ``---``, a missing final newline.

YAML is read by :mod:`markmcp.mrsf.yamlscan` (fast, exact on the block YAML sidecar
writers produce); anything it does not handle is read by ruamel.yaml's round-trip loader,
which also words every syntax error.  :meth:`Sidecar.render` gives the new text together
with its proof: the new text is read back (only the spliced items when that provably
decides the whole file, else all of it) and must give exactly the intended data, or the
write is refused.

JSON sidecars keep their key order, indentation (spaces or a tab, or compact), whether
non-ASCII is escaped, and the presence of a final newline; a changed item is written in
the file's layout, the rest of the text is kept.

Every item is kept exactly as found, even an invalid one (a comment without ``id``, a
string where a number belongs): validation is a separate step (``validate.py``).

Positions reported to users are 1-based lines and 1-based columns in the sidecar text.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Callable

from .. import yamlscan
from ..errors import MrsfError
from ..yamledit import (CannotEmit, Layout, edit_item, emit_entry, emit_items, may_end_in_block, outside_block,
                        scalar_text)
from ..yamlscan import Binary, Entry, Span, Unsupported
from .declined import _rt_comment_lines, _rt_entries
from .values import _MAX_PLAIN_NODES, MAX_DEPTH, _depth_over, _expands_over, same_value, to_plain, type_name
from .yaml12 import _depth_limited, _rt_plain, _yaml, put_back, safe_yaml, yaml12_text

SIDECAR_SUFFIX_YAML = ".review.yaml"
SIDECAR_SUFFIX_JSON = ".review.json"

#: Keys of a comment in the order a new comment is written (unknown keys follow).
COMMENT_KEY_ORDER = (
    "id", "author", "timestamp", "text", "type", "severity", "resolved", "reply_to",
    "line", "end_line", "start_column", "end_column", "selected_text",
    "selected_text_hash", "anchored_text", "commit",
)


# ---------------------------------------------------------------------------
# The model
# ---------------------------------------------------------------------------


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

    # -- writing ----------------------------------------------------------

    def dump(self) -> str:
        """The text of the sidecar as edited (not verified; see :meth:`render`)."""
        return self._render().text

    def render(self) -> "Rendered":
        """The new text, proved to read back as exactly the data: only the spliced
        comments are read back when that decides the whole file, else all of it.
        MrsfError ``internal-error`` (nothing to write) when the proof fails."""
        plan = self._render()
        if plan.text == self.original:
            return Rendered(plan.text, lambda: self)
        if plan.fragments is not None:
            self._verify_fragments(plan)
            return Rendered(plan.text, lambda: self._adopt_fragments(plan))
        try:
            again = parse_sidecar(plan.text, fmt=self.fmt)
        except MrsfError as exc:
            raise MrsfError("internal-error",
                            f"refusing to write: the new sidecar would not parse ({exc.message})") from None
        if not same_value(again.data, self.data):
            raise MrsfError("internal-error", "refusing to write: the new sidecar would not read back as written")
        return Rendered(plan.text, lambda: again)

    def _verify_fragments(self, plan: "_Plan") -> None:
        for text, node in plan.fragments:
            try:
                read = yamlscan.read_items(text, self.yaml_style.offset)
            except (Unsupported, RecursionError) as exc:
                raise MrsfError("internal-error",
                                f"refusing to write: a changed comment would not parse ({exc})") from None
            if len(read.data) != 1 or not same_value(read.data[0], node):
                raise MrsfError("internal-error",
                                "refusing to write: a changed comment would not read back as written")

    def _adopt_fragments(self, plan: "_Plan") -> "Sidecar":
        """After ``plan.text`` was written: this model now stands for it."""
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

    def _render(self) -> "_Plan":
        if self.fmt == "json":
            return self._render_json()
        return self._render_yaml()

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

    def _render_yaml(self) -> "_Plan":
        if self._lines is None or self._top is None:
            return self._whole_yaml()
        try:
            plan = self._splice_yaml()
        except CannotEmit:
            return self._whole_yaml()
        if plan.fragments is None and not self._exact and "*" in plan.source:
            source = _rehome_aliases(plan.source, self.data, self.yaml_style)
            if source != plan.source:
                plan = _Plan(self._finish(source), source, None)
        return plan

    def _whole_yaml(self) -> "_Plan":
        """The whole document written anew (a new sidecar, or a layout not kept)."""
        out: list[str] = []
        if self._lines is None and self.yaml_style.explicit_start:
            out.append("---")
        try:
            for key, value in self.data.items():
                out.extend(self._emit_top(key, value))
            source = "\n".join(out) + "\n"
        except CannotEmit:  # a value the emitter does not write: ruamel.yaml writes it all
            import io

            y = _yaml()
            st = self.yaml_style
            y.indent(mapping=st.mapping, sequence=st.sequence, offset=st.offset)
            buf = io.StringIO()
            y.dump(self.data, buf)
            source = buf.getvalue()
        return _Plan(self._finish(source), source, None)

    def _emit_top(self, key: str, value: Any, style: str | None = None) -> list[str]:
        st = self.yaml_style
        if key == "comments" and isinstance(value, list) and value:
            return ["comments:"] + emit_items(value, st.offset, st.sequence, st)
        return emit_entry(key, value, 0, st, style)

    def _splice_yaml(self) -> "_Plan":
        lines = self._lines
        st = self.yaml_style
        real = len(lines) - 1 if self._source.endswith("\n") else len(lines)
        top = self._top
        top_index = {e.key: n for n, e in enumerate(top)}
        # (start, order, end, new lines, tag): lines[start:end] become the new lines
        edits: list[tuple[int, int, int, list[str], Any]] = []
        fragments: list[tuple[str, Any]] | None = []
        comments = self.data.get("comments")
        before = self._orig_list
        had_items = bool(self._orig)
        nc = top_index.get("comments")
        region_end = top[nc + 1].line if nc is not None and nc + 1 < len(top) else real
        whole = False
        kept: list[int] = []
        removed: list[int] = []
        changed: dict[int, list[str]] = {}
        appended: list[Any] = []
        if comments is before and "comments" not in self._top_dirty:
            if isinstance(comments, list):
                origin = self._origin_map()
                for node in comments:
                    k = origin.get(id(node))
                    if k is None:
                        appended.append(node)
                    elif appended or (kept and k <= kept[-1]):
                        whole = True
                        break
                    else:
                        kept.append(k)
                kept_set = set(kept)
                removed = [k for k in range(len(self._orig)) if k not in kept_set]
        elif isinstance(comments, list) and not had_items:
            appended = list(comments)
        else:
            whole = True
        removed_set = set(removed)
        if not whole:
            for k in kept:
                if k in self._snap and not same_value(self._snap[k], self._orig[k]):
                    changed[k] = []
            if self._items is None and (removed or changed or (appended and had_items)):
                whole = True
        has_items = isinstance(comments, list) and bool(comments)
        header: str | None = None
        if not whole and isinstance(comments, list) and (
                nc is None or has_items != had_items or not isinstance(before, list)):
            header = "comments:" if has_items else "comments: []"
            if nc is not None:
                e = top[nc]
                if not _HEADER.match(lines[e.line]) or (not had_items and (e.last != e.line or not self._exact)):
                    whole = True
        if whole:
            fragments = None
            new = self._emit_top("comments", comments)
            if nc is None:
                edits.append((real, 1, real, new, None))
            else:
                e = top[nc]
                edits.append((e.line, 0, e.last + 1 if self._exact else region_end, new, None))
        else:
            if not self.final_newline and kept and region_end == real and (appended or (
                    removed and removed[-1] > kept[-1]) or kept[-1] in changed):
                # the last item's last line gains (or keeps) no line break after it: a
                # block scalar there would change value, so that item is written anew
                # without block scalars
                changed[kept[-1]] = ["whole"]
            for k in list(changed):
                span = self._items[k]
                if changed[k] == ["whole"] and _BLOCK_HEADER.search(self._item_text(span)):
                    new = changed[k] = emit_items([self._orig[k]], st.offset, st.sequence, st) + \
                        self._kept_comment_lines(span)
                elif k in self._snap:
                    # comment lines after the item that a block scalar ending it could take
                    # in are handed over with it (and moved left when needed)
                    tail = self._exposed_tail(span, region_end)
                    new = changed[k] = self._edit_item(k, tail)
                    if tail:
                        edits.append((span.first, 0, span.last + 1 + len(tail), new, ("item", k, len(tail))))
                        if fragments is not None:
                            fragments.append(("\n".join(new) + "\n", self._orig[k]))
                        continue
                else:
                    del changed[k]
                    continue
                edits.append((span.first, 0, span.last + 1, new, ("item", k, 0)))
                if fragments is not None:
                    fragments.append(("\n".join(new) + "\n", self._orig[k]))
            for k in removed:
                span = self._items[k]
                kept_lines = self._kept_comment_lines(span)
                before_k = max((j for j in range(k) if j not in removed_set), default=None)
                if before_k is not None and may_end_in_block(
                        changed.get(before_k) or lines[self._items[before_k].first:self._items[before_k].last + 1]):
                    # what the item leaves behind (its comment lines, and those after it)
                    # now follows the item before, which may end in a block scalar (the
                    # whole text is read back then: that item is not a fragment)
                    fragments = None
                    tail = self._exposed_tail(span, region_end)
                    edits.append((span.first, 0, span.last + 1 + len(tail),
                                  outside_block(kept_lines + tail, st.sequence), None))
                    continue
                edits.append((span.first, 0, span.last + 1, kept_lines, None))
            if header is not None:
                fragments = None
                if nc is not None:
                    e = top[nc]
                    edits.append((e.line, 0, e.line + 1, [header + _eol_after_key(lines[e.line])], None))
            if appended or (header is not None and nc is None):
                new = []
                counts = []
                for node in appended:
                    emitted = emit_items([node], st.offset, st.sequence, st)
                    counts.append(len(emitted))
                    if fragments is not None:
                        fragments.append(("\n".join(emitted) + "\n", node))
                    new.extend(emitted)
                if nc is None:
                    edits.append((real, 1, real, [header] + new, None))
                else:
                    edits.append((region_end, 1, region_end, new, ("append", counts)))
        for key in [k for k in self.data if k in self._top_dirty]:
            if key == "comments":
                continue
            fragments = None
            value = self.data.get(key)
            if key in top_index:
                e = top[top_index[key]]
                new = emit_entry(key, value, 0, st, e.style)
                eol = _eol_after_value(lines, e)
                if eol:
                    new[0] += eol
                edits.append((e.line, 0, e.last + 1, new, None))
            else:
                edits.append((real, 2, real, emit_entry(key, value, 0, st), None))
        if fragments is not None and not self._exact:
            fragments = None
        edits.sort(key=lambda x: (x[0], x[1]))
        new_lines: list[str] = []
        pos = 0
        items = self._items
        moved: dict[int, Span] = {}
        appended_spans: list[Span] = []
        ptr = 0
        for start, _, end, repl, tag in edits:
            if start < pos:
                return self._whole_yaml()
            if fragments is not None:
                shift = len(new_lines) - pos
                while ptr < len(kept) and items[kept[ptr]].first < start:
                    k = kept[ptr]
                    if k not in changed:
                        moved[k] = Span(items[k].first + shift, items[k].last + shift)
                    ptr += 1
            new_lines.extend(lines[pos:start])
            if tag is not None and fragments is not None:
                at = len(new_lines)
                if tag[0] == "item":
                    moved[tag[1]] = Span(at, at + len(repl) - 1 - tag[2])
                else:
                    for count in tag[1]:
                        appended_spans.append(Span(at, at + count - 1))
                        at += count
            new_lines.extend(repl)
            pos = end
        if fragments is not None:
            shift = len(new_lines) - pos
            for k in kept[ptr:]:
                if k not in changed:
                    moved[k] = Span(items[k].first + shift, items[k].last + shift)
        new_lines.extend(lines[pos:])
        source = "\n".join(new_lines)
        plan = _Plan(self._finish(source), source, None)
        if fragments is not None and self._safe_fragments(edits, lines, real):
            plan.fragments = fragments
            plan.lines = new_lines
            plan.items = [moved[k] for k in kept] + appended_spans
            plan.delta = len(new_lines) - len(lines)
            plan.after_line = top[nc].line if nc is not None else -1
        return plan

    def _safe_fragments(self, edits: list, lines: list[str], real: int) -> bool:
        """True when reading back only the spliced items decides the whole new text: each
        splice sits between whole items, and what follows it cannot be read as part of it."""
        dash = self.yaml_style.offset
        for start, _, end, repl, _ in edits:
            if end >= real and not self.final_newline:
                return False
            j = end
            while j < real and not lines[j].strip(" "):
                j += 1
            if j >= real:
                continue
            following = lines[j]
            indent = len(following) - len(following.lstrip(" "))
            if indent <= dash:
                continue
            if following.lstrip(" ").startswith("#") and not _BLOCK_HEADER.search("\n".join(repl)):
                # a comment line ends plain and quoted scalars; only a block scalar could
                # take it in (the item before a removal was checked the same way)
                if end > start and not repl:
                    return False
                continue
            return False
        return True

    def _kept_comment_lines(self, span: Span) -> list[str]:
        """Full comment lines inside a removed item (they stay where it stood)."""
        text = self._item_text(span)
        if "#" not in text:
            return []
        lines = text.split("\n")[:-1]
        try:
            read = yamlscan.read_items(text, self.yaml_style.offset)
        except (Unsupported, RecursionError):
            return [lines[j] for j in _rt_comment_lines(lines)]
        out = []
        for j, line in enumerate(lines):
            s = line.lstrip(" ")
            if s.startswith("#") and not any(a <= j <= b for a, b in read.scalars):
                out.append(line)
        return out

    def _exposed_tail(self, span: Span, stop: int) -> list[str]:
        """The comment and blank lines after item ``span`` (before line ``stop``) when one
        of them would be read into a block scalar ending the item (indented past the
        items' dashes, or spaces only); else none."""
        lines = self._lines
        j = span.last + 1
        exposed = False
        while j < stop:
            s = lines[j].lstrip(" ")
            if s and s[0] != "#":
                break
            if (s and len(lines[j]) - len(s) > self.yaml_style.offset) or (not s and lines[j]):
                exposed = True
            j += 1
        return lines[span.last + 1:j] if exposed else []

    def _edit_item(self, k: int, tail: list[str] = ()) -> list[str]:
        """New lines of original item ``k`` (changed in place), followed by ``tail`` (the
        lines after it: kept, moved left of a block scalar that now ends the item)."""
        span = self._items[k]
        old, new = self._snap[k], self._orig[k]
        st = self.yaml_style
        tail = list(tail)
        if isinstance(old, dict) and isinstance(new, dict):
            text = self._item_text(span)
            try:
                read = yamlscan.read_items(text, st.offset, entries=True)
            except (Unsupported, RecursionError):
                read = None
            if read is not None and read.item_entries and read.item_entries[0]:
                lines = text.split("\n")[:-1]
                own_last = read.items[0].last
                edited = edit_item(lines[:own_last + 1], read.item_entries[0], read.scalars, old, new, st,
                                   same_value, lines[own_last + 1:] + tail)
                if edited is not None:
                    return edited
            elif read is None:
                edited = _edit_item_rt(text, old, new, st, tail)
                if edited is not None:
                    return edited
        # written anew: the comment lines inside it follow it (their places are lost,
        # not they; end-of-line comments inside it go with their lines)
        out = emit_items([new], st.offset, st.sequence, st)
        after = self._kept_comment_lines(span) + tail
        return out + (outside_block(after, st.sequence) if may_end_in_block(out) else after)

    # -- JSON -------------------------------------------------------------

    def _render_json(self) -> "_Plan":
        if self._source is None or self._json_top is None:
            return self._whole_json()
        text = self._source
        comments = self.data.get("comments")
        before = self._orig_list
        edits: list[tuple[int, int, str]] = []
        dirty = dict(self._top_dirty)
        array: list[str] | None = None     # the new elements' texts, when the list changed
        if comments is before and "comments" not in dirty:
            if isinstance(comments, list) and self._items is not None:
                origin = self._origin_map()
                texts: list[str] = []
                seen = -1
                touched = len(comments) != len(self._orig)
                for node in comments:
                    k = origin.get(id(node))
                    if k is None or k <= seen:
                        texts.append(self._json_value(node, 2))
                        touched = True
                        continue
                    seen = k
                    start, end = self._items[k]
                    if k in self._snap and not same_value(self._snap[k], node):
                        texts.append(self._json_value(node, 2))
                        touched = True
                    else:
                        texts.append(text[start:end])
                if touched:
                    array = texts
            elif isinstance(comments, list) and (len(comments) != len(self._orig) or self._snap):
                dirty["comments"] = True
        elif isinstance(comments, list) and "comments" in self._json_top and not self._orig:
            array = [self._json_value(node, 2) for node in comments]
        else:
            dirty["comments"] = True
        if array is not None:
            if "comments" not in self._json_top or text[self._json_top["comments"][1]] != "[":
                dirty["comments"] = True
            else:
                _, vstart, vend = self._json_top["comments"]
                edits.append((vstart, vend, self._json_array(text, vstart, vend, array)))
        for key in [k for k in self.data if k in dirty]:
            value = self.data.get(key)
            if key in self._json_top:
                _, vstart, vend = self._json_top[key]
                edits.append((vstart, vend, self._json_value(value, 1)))
            else:
                close = text.rstrip().rfind("}")
                if close < 0:
                    return self._whole_json()
                inner = text[:close].rstrip()
                sep = "," if not inner.endswith("{") else ""
                pad = ("\n" + self._json_pad(1)) if self.json_indent is not None else " "
                piece = f"{sep}{pad}{json.dumps(key, ensure_ascii=self.json_ascii)}: {self._json_value(value, 1)}"
                edits.append((len(inner), len(inner), piece))
        edits.sort(key=lambda e: (e[0], e[1]))
        out: list[str] = []
        pos = 0
        for start, end, new in edits:
            if start < pos:
                return self._whole_json()
            out.append(text[pos:start])
            out.append(new)
            pos = end
        out.append(text[pos:])
        source = "".join(out)
        return _Plan(self._finish(source), source, None)

    def _json_array(self, text: str, vstart: int, vend: int, elements: list[str]) -> str:
        """The text of the ``comments`` array holding ``elements``, with the separators
        of the original array (those between the elements that stay side by side)."""
        if not elements:
            return "[]"
        items = self._items or []
        if items:
            lead = text[vstart + 1:items[0][0]]
            trail = text[items[-1][1]:vend - 1]
            sep = text[items[0][1]:items[1][0]] if len(items) > 1 else "," + lead.rstrip(",")
            if "," not in sep:
                sep = "," + sep
        elif self.json_indent is None:
            lead, trail, sep = "", "", ", "
        else:
            lead = "\n" + self._json_pad(2)
            trail = "\n" + self._json_pad(1)
            sep = "," + lead
        return "[" + lead + sep.join(elements) + trail + "]"

    def _whole_json(self) -> "_Plan":
        source = json.dumps(self.data, indent=self.json_indent, ensure_ascii=self.json_ascii)
        return _Plan(self._finish(source), source, None)

    def _json_pad(self, level: int) -> str:
        indent = self.json_indent
        if indent is None:
            return ""
        return (indent if isinstance(indent, str) else " " * indent) * level

    def _json_value(self, value: Any, level: int) -> str:
        text = json.dumps(value, indent=self.json_indent, ensure_ascii=self.json_ascii)
        if self.json_indent is None or "\n" not in text:
            return text
        return text.replace("\n", "\n" + self._json_pad(level))

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


_BLOCK_HEADER = re.compile(r"(?m)(?:^|[ ])[|>][1-9+-]{0,2} *(?:#.*)?$")
#: A ``comments`` line whose value is empty, null or ``[]`` (it can be rewritten alone).
_HEADER = re.compile(r"comments:(?: *(?:\[ *\]|~|null|Null|NULL))? *(?: #.*)?$")


def _eol_after_key(line: str) -> str:
    """The end-of-line comment on a ``key:`` line (with its leading spaces), or ''."""
    colon = line.find(":")
    rest = line[colon + 1:]
    at = rest.find(" #")
    return rest[at:] if at >= 0 and rest[:at].strip() in ("", "[]") else ""


def _eol_after_value(lines: list[str], entry: Entry) -> str:
    if entry.style in ("map", "seq", "empty"):
        return _eol_after_key(lines[entry.line])
    rest = lines[entry.last][entry.end_col:]
    return rest if "#" in rest and rest.startswith(" ") else ""


def _content_col(line: str, dash_col: int) -> int:
    p = dash_col + 1
    while p < len(line) and line[p] == " ":
        p += 1
    return p


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
    if not isinstance(sc.data, dict):
        raise MrsfError(
            "invalid-sidecar",
            f"{label}: an MRSF sidecar must be a mapping with mrsf_version, document and comments, "
            f"found {type_name(sc.data)}",
            line=1,
            column=1,
        )
    comments = sc.data.get("comments")
    sc._orig_list = comments
    sc._orig = list(comments) if isinstance(comments, list) else []
    if sc._items is not None and (not isinstance(comments, list) or len(sc._items) != len(comments)):
        sc._items = None
    return sc


def _parse_yaml(text: str, label: str) -> Sidecar:
    try:
        read = yamlscan.read_document(text)
    except (Unsupported, RecursionError):
        read = None
    if read is not None:
        sc = Sidecar(fmt="yaml", data=read.data)
        sc._lines = text.split("\n")
        sc._top = read.entries
        sc._items = read.items
        sc._exact = True
        sc.yaml_style = _layout(sc._lines, read)
        sc.yaml_style.explicit_start = _explicit_start(sc._lines)
        return sc
    return _parse_yaml_rt(text, label)


def _explicit_start(lines: list[str]) -> bool:
    for line in lines:
        stripped = line.strip()
        if not stripped or stripped.startswith("#") or stripped.startswith("%"):
            continue
        return stripped == "---" or stripped.startswith("--- ")
    return False


def _layout(lines: list[str], read: yamlscan.Read) -> Layout:
    """The file's indentation: item dash and first-key columns, nested mapping indent."""
    st = Layout()
    if read.items:
        st.offset, st.sequence = read.dash_col, read.content_col
    mapping = None
    for entry in read.entries:
        if entry.style == "map":
            j = entry.line + 1
            while j < len(lines) and (not lines[j].strip() or lines[j].lstrip().startswith("#")):
                j += 1
            if j < len(lines):
                mapping = len(lines[j]) - len(lines[j].lstrip(" "))
                break
    if mapping is None and read.items:
        # a nested mapping inside the first items that have one
        for span in read.items[:50]:
            for j in range(span.first + 1, span.last + 1):
                line = lines[j]
                s = line.lstrip(" ")
                if s.endswith(":") and not s.startswith(("#", "-")) and j + 1 <= span.last:
                    nxt = lines[j + 1]
                    ind, here = len(nxt) - len(nxt.lstrip(" ")), len(line) - len(s)
                    if ind > here and not nxt.lstrip(" ").startswith(("-", "#")):
                        mapping = ind - here
                        break
            if mapping:
                break
    if mapping:
        st.mapping = mapping
    if st.sequence < st.offset + 2:
        st.sequence = st.offset + 2
    return st


def _parse_yaml_rt(text: str, label: str) -> Sidecar:
    """The full round-trip parser: every YAML the reader above declines, and the wording
    of every syntax error."""
    from ruamel.yaml.comments import CommentedMap
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    y = _yaml()
    too_deep = _depth_limited()[2]
    reader_text, back = yaml12_text(text)
    try:
        loaded = y.load(reader_text)
    except too_deep as exc:
        mark = exc.problem_mark
        raise MrsfError("invalid-sidecar", f"{label}: values are nested more than {MAX_DEPTH} levels deep "
                        f"(line {mark.line + 1}, column {mark.column + 1})", line=mark.line + 1,
                        column=mark.column + 1) from None
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = (exc.problem or exc.context or "invalid YAML").translate(back)
        line = mark.line + 1 if mark is not None else None
        column = mark.column + 1 if mark is not None else None
        where = f" at line {line}, column {column}" if line else ""
        raise MrsfError("malformed-yaml", f"{label}: malformed YAML{where}: {problem}", line=line, column=column) from None
    except (YAMLError, RecursionError, ValueError, TypeError) as exc:
        raise MrsfError("malformed-yaml", f"{label}: malformed YAML: {str(exc).translate(back)}") from None
    except (IndexError, KeyError, AttributeError) as exc:
        # the YAML library's own constructors fail on some scalars (``+_`` as an integer)
        raise MrsfError("malformed-yaml", f"{label}: malformed YAML: a value the YAML reader cannot "
                        f"construct ({type(exc).__name__}: {str(exc).translate(back)})") from None
    except Exception as exc:  # noqa: BLE001 - whatever else the YAML library raises on hostile text
        # e.g. NotImplementedError "overlap in comment" from its comment handling (found by make fuzz)
        raise MrsfError("malformed-yaml", f"{label}: malformed YAML: the YAML reader failed on it "
                        f"({type(exc).__name__}: {str(exc).translate(back)[:200]})") from None
    if loaded is None:
        raise MrsfError("invalid-sidecar", f"{label}: the file holds no YAML document")
    if _depth_over(loaded, MAX_DEPTH):
        raise MrsfError("invalid-sidecar", f"{label}: values are nested more than {MAX_DEPTH} levels deep")
    if "*" in text and _expands_over(loaded, _MAX_PLAIN_NODES):
        raise MrsfError(
            "invalid-sidecar",
            f"{label}: its YAML aliases expand to more than {_MAX_PLAIN_NODES} values (an alias bomb?); "
            "it is not read",
        )
    data = put_back(to_plain(loaded), back)
    sc = Sidecar(fmt="yaml", data=data)
    lines = text.split("\n")
    sc._lines = lines
    sc.yaml_style.explicit_start = _explicit_start(lines)
    if isinstance(loaded, CommentedMap) and not loaded.fa.flow_style():
        try:
            sc._top, sc._items, dash, content = _rt_layout(loaded, lines, text)
            if sc._items:
                sc.yaml_style.offset, sc.yaml_style.sequence = dash, max(content, dash + 2)
        except Exception:
            sc._top, sc._items = None, None
    return sc


def _rehome_aliases(source: str, data: Any, layout: Layout) -> str:
    """``source`` (a sidecar as spliced) with every alias whose anchor the edit took
    away (the anchored value was changed, removed, or written anew) made the new home
    of that anchor: its ``*name`` becomes ``&name`` and the value it stood for (its data
    is unchanged), so later aliases of the name still read the same value.  This is
    what ruamel.yaml does when the anchored node is replaced: the anchor goes with the
    node to its first place left.  An alias that cannot be given its value here (a
    mapping key, a value not found in ``data``) is left as it is: the read-back then
    refuses the write."""
    from ruamel.yaml.events import (AliasEvent, CollectionEndEvent, CollectionStartEvent,
                                    MappingStartEvent, NodeEvent)

    reader_text, _ = yaml12_text(source)
    try:
        events = list(_yaml().parse(reader_text))
    except Exception:  # noqa: BLE001 - the read-back words the error
        return source
    defined: set[str] = set()
    fixes: list[tuple[int, int, str, list[str]]] = []   # (start, end, text, lines after its line)
    # one frame per open collection: [is mapping, flow, key or index, expecting a key, key column]
    stack: list[list[Any]] = []
    for event in events:
        if not isinstance(event, (NodeEvent, CollectionEndEvent)):
            continue
        if isinstance(event, CollectionEndEvent):
            stack.pop()
            if stack:
                _advance(stack[-1])
            continue
        frame = stack[-1] if stack else None
        is_key = frame is not None and frame[0] and frame[3]
        if getattr(event, "anchor", None) and not isinstance(event, AliasEvent):
            defined.add(event.anchor)
        if isinstance(event, AliasEvent) and event.anchor not in defined:
            fix = None if is_key else _alias_fix(event, stack, data, reader_text, layout)
            if fix is None:
                return source
            fixes.append(fix)
            defined.add(event.anchor)
        if is_key:
            frame[2] = getattr(event, "value", None)
            frame[4] = event.start_mark.column
        if isinstance(event, CollectionStartEvent):
            stack.append([isinstance(event, MappingStartEvent), bool(event.flow_style), None if
                          isinstance(event, MappingStartEvent) else 0, True, 0])
        elif frame is not None:
            _advance(frame)
    if not fixes:
        return source
    out: list[str] = []
    pos = 0
    for start, end, text, after in fixes:
        out.append(source[pos:start])
        out.append(text)
        pos = end
        if after:
            stop = source.find("\n", end)
            stop = len(source) if stop < 0 else stop
            out.append(source[end:stop] + "\n" + "\n".join(after))
            pos = stop
    out.append(source[pos:])
    return "".join(out)


def _advance(frame: list[Any]) -> None:
    """One node of the collection ``frame`` read: a key, a value, or a list item."""
    if frame[0]:
        frame[3] = not frame[3]
    else:
        frame[2] += 1


def _alias_fix(event: Any, stack: list[list[Any]], data: Any, text: str,
               layout: Layout) -> tuple[int, int, str, list[str]] | None:
    """How to write the anchor and the value of a dangling alias in its place."""
    node = data
    for frame in stack:
        key = frame[2]
        if frame[0]:
            if not isinstance(node, dict) or not isinstance(key, str) or key not in node:
                return None
        elif not isinstance(node, list) or not 0 <= key < len(node):
            return None
        node = node[key]
    start, end = event.start_mark.index, event.end_mark.index
    anchor = "&" + event.anchor
    frame = stack[-1] if stack else None
    try:
        if not isinstance(node, (dict, list)):
            text_ = scalar_text(node)
            return start, end, f"{anchor} {text_}" if text_ else anchor, []
        if not node:
            return start, end, f"{anchor} {{}}" if isinstance(node, dict) else f"{anchor} []", []
        rest = text[end:text.find("\n", end) if "\n" in text[end:] else len(text)]
        if frame is not None and frame[0] and not frame[1] and re.fullmatch(r"[ \t]*(?:#.*)?", rest):
            lines = emit_entry(frame[2], node, frame[4], layout)
            return start, end, anchor, lines[1:]
        flow = json.dumps(node, ensure_ascii=False, allow_nan=False)
    except (CannotEmit, ValueError):
        return None
    if _has_binary(node):
        return None
    return start, end, f"{anchor} {flow}", []


def _has_binary(value: Any) -> bool:
    if isinstance(value, Binary):
        return True
    if isinstance(value, dict):
        return any(_has_binary(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_binary(v) for v in value)
    return False


def _edit_item_rt(text: str, old: dict, new: dict, layout: Layout, tail: list[str] = ()) -> list[str] | None:
    """The lines of one ``comments`` item (``text``) changed from ``old`` to ``new`` key by
    key, for an item the fast reader declined: entries that did not change keep their
    lines, comments and styles.  None (write the item anew) when a changed or removed
    entry is not one whose lines are known exactly, or the result does not read back as
    ``new``."""
    from ruamel.yaml.comments import CommentedSeq

    reader_text, back = yaml12_text(text)
    try:
        loaded = _yaml().load(reader_text)
    except Exception:  # noqa: BLE001
        return None
    if not isinstance(loaded, CommentedSeq) or len(loaded) != 1:
        return None
    lines = text.split("\n")[:-1]
    found = _rt_entries(lines, loaded[0])
    if found is None:
        return None
    entries, scalars = found
    if any(e.style == "?" for e in entries):
        # a value of unknown form may hold lines that look like comments but are text
        comments = set(_rt_comment_lines(lines))
        scalars = scalars + [(j, j) for j, line in enumerate(lines)
                             if line.lstrip(" \t").startswith("#") and j not in comments]
    own_last = entries[-1].last
    edited = edit_item(lines[:own_last + 1], entries, scalars, old, new, layout, same_value,
                       lines[own_last + 1:] + list(tail))
    if edited is None:
        return None
    again = _rt_plain("\n".join(edited) + "\n")
    if not isinstance(again, list) or len(again) != 1 or not same_value(again[0], new):
        return None
    return edited


def _rt_layout(loaded: Any, lines: list[str], text: str):
    """Top-level entries and item spans from ruamel's positions (each entry and item
    owns every line up to the next one: exact gaps are unknown here)."""
    from ruamel.yaml.comments import CommentedSeq

    real = len(lines) - 1 if text.endswith("\n") else len(lines)
    keys = list(loaded)
    starts = [loaded.lc.key(k)[0] for k in keys]
    if any(loaded.lc.key(k)[1] != 0 for k in keys) or starts != sorted(starts):
        raise ValueError("top-level keys not in order at column 0")
    top = []
    for n, key in enumerate(keys):
        last = (starts[n + 1] - 1) if n + 1 < len(keys) else real - 1
        top.append(Entry(str(key), starts[n], 0, last, "?", len(lines[last]) if last < len(lines) else 0))
    items = None
    dash = content = -1
    seq = loaded.get("comments")
    if isinstance(seq, CommentedSeq) and len(seq) and not seq.fa.flow_style():
        n = keys.index("comments")
        end = top[n].last
        firsts = []
        for i in range(len(seq)):
            line, col = seq.lc.item(i)
            m = re.match(r"( *)- +$", lines[line][:col])
            if m is None:
                raise ValueError("item not after a dash on its line")
            d = len(m.group(1))
            if dash < 0:
                dash, content = d, col
            elif d != dash:
                raise ValueError("items in different columns")
            firsts.append(line)
        items = [Span(firsts[i], (firsts[i + 1] - 1) if i + 1 < len(firsts) else end) for i in range(len(firsts))]
    return top, items, dash, content


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

    decoder = json.JSONDecoder(object_pairs_hook=pairs, parse_constant=bad_constant)
    try:
        data = decoder.decode(text)
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
    nl = text.find("\n")
    if nl >= 0:
        for line in text[nl + 1:].split("\n", 64):
            stripped = line.lstrip(" \t")
            if stripped:
                lead = line[: len(line) - len(stripped)]
                indent = "\t" if lead.startswith("\t") else len(lead)
                break
    ascii_escaped = bool(re.search(r"\\u(?:00[89a-fA-F]|0[1-9a-fA-F]|[1-9a-fA-F])", text))
    sc = Sidecar(fmt="json", data=data, json_indent=indent, json_ascii=ascii_escaped)
    try:
        sc._json_top, sc._items = _json_layout(text, decoder)
    except Exception:
        sc._json_top, sc._items = None, None
    return sc


_WS = re.compile(r"[ \t\n\r]*")


def _json_layout(text: str, decoder: json.JSONDecoder):
    """(top-level key -> (key start, value start, value end), comments element spans)
    found with the C scanner (each value is scanned once more; no Python-level parse)."""
    scan = decoder.scan_once
    pos = _WS.match(text, 0).end()
    if text[pos] != "{":
        return None, None
    pos = _WS.match(text, pos + 1).end()
    top: dict = {}
    items = None
    if text[pos] == "}":
        return top, None
    while True:
        key_start = pos
        key, pos = scan(text, pos)
        pos = _WS.match(text, pos).end()
        pos = _WS.match(text, pos + 1).end()       # the ':'
        value_start = pos
        if key == "comments" and text[pos] == "[":
            spans = []
            p = _WS.match(text, pos + 1).end()
            if text[p] != "]":
                while True:
                    _, e = scan(text, p)
                    spans.append((p, e))
                    p = _WS.match(text, e).end()
                    if text[p] == ",":
                        p = _WS.match(text, p + 1).end()
                        continue
                    break
            pos = p + 1
            items = spans
        else:
            _, pos = scan(text, pos)
        top[key] = (key_start, value_start, pos)
        pos = _WS.match(text, pos).end()
        if text[pos] == ",":
            pos = _WS.match(text, pos + 1).end()
            continue
        break
    return top, items


def new_sidecar(document: str, fmt: str = "yaml") -> Sidecar:
    """A fresh, empty sidecar for ``document`` (a repository-relative path)."""
    data = {"mrsf_version": "1.0", "document": document, "comments": []}
    if fmt == "json":
        return Sidecar(fmt="json", data=data, json_indent=2)
    sc = Sidecar(fmt="yaml", data=data)
    sc._orig_list = data["comments"]
    return sc


# ---------------------------------------------------------------------------
# Values
# ---------------------------------------------------------------------------


def _pos_fields(pos: tuple[int, int] | None) -> dict:
    return {"line": pos[0], "column": pos[1]} if pos else {}
