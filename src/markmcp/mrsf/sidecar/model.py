"""The model of one sidecar: its plain data, what is needed to write it back in place,
and the edits (set or delete a field of a comment, append or remove a comment, set a
top-level field), which record what they changed for the writers."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable

from .. import yamlscan
from ..errors import MrsfError
from ..yamledit import CannotEmit, Layout, edit_item, emit_entry, emit_items, may_end_in_block, outside_block
from ..yamlscan import Entry, Span, Unsupported
from .declined import _rt_comment_lines, _rt_entries
from .values import MAX_DEPTH, _depth_over, same_value, to_plain
from .yaml12 import _yaml, yaml12_text
from .yaml_write import _BLOCK_HEADER, _HEADER, _edit_item_rt, _eol_after_key, _eol_after_value, _rehome_aliases

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
        from .parse import parse_sidecar  # (the readers build Sidecars: imported when used)

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
