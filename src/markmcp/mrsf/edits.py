"""The MRSF editing operations as pure functions: a :class:`Sidecar` and document text in,
results out (add, update, resolve, delete, list filters and summary, applying
re-anchoring placements).  Status lives in :mod:`markmcp.mrsf.health`, repair in
:mod:`markmcp.mrsf.salvage`.

These functions change the sidecar in memory (through its format-preserving editing
primitives) and return plain JSON-able results; :mod:`markmcp.mrsf.ops` wraps them with
discovery, git and the atomic store.  Invalid arguments raise MrsfError
(``invalid-argument``, ``comment-not-found``, ``duplicate-id``) before anything changes.
"""

from __future__ import annotations

import datetime as _dt
import math
import re
import uuid
from typing import Any, Callable, Iterable

from .errors import MrsfError
from .sidecar import COMMENT_KEY_ORDER, Sidecar, to_plain, type_name
from .validate import (
    SEVERITIES, extract_text, index_to_utf16, is_rfc3339, line_count, sha256_hex, split_lines, utf16_len,
    utf16_to_index,
)

ANCHOR_FIELDS = ("line", "end_line", "start_column", "end_column", "selected_text")
#: Fields a promoted reply inherits from its deleted parent when it has none of its own
#: targeting fields (MRSF §9.1 lists the first five; the hash, anchored text and commit
#: belong to the same anchor and travel with it).
INHERITED_FIELDS = ANCHOR_FIELDS + ("selected_text_hash", "anchored_text", "commit")
#: what a re-anchoring writes about how sure it was (see :func:`apply_placement`)
REANCHOR_VERDICT = ("x_reanchor_status", "x_reanchor_score")
POSITION_FIELDS = ("line", "end_line", "start_column", "end_column")
ADD_KEYS = {
    "author", "text", "line", "end_line", "start_column", "end_column", "selected_text",
    "type", "severity", "reply_to", "commit", "id", "timestamp", "extensions",
}
FILTER_KEYS = {
    "open", "resolved", "orphaned", "author", "type", "severity", "ids", "reply_to",
    "line_from", "line_to", "has_anchor",
}
REANCHOR_STATUSES = ("anchored", "shifted", "fuzzy", "ambiguous", "orphaned")
HIGH_CONFIDENCE = 0.8


def new_id() -> str:
    """A fresh collision-resistant comment id (UUID4)."""
    return str(uuid.uuid4())


def now_timestamp(now: _dt.datetime | None = None) -> str:
    """ISO-8601 UTC timestamp with milliseconds and ``Z`` (``2026-03-02T18:22:59.713Z``)."""
    now = now or _dt.datetime.now(_dt.timezone.utc)
    now = now.astimezone(_dt.timezone.utc)
    return now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z"


def _bad(message: str, **details: Any) -> MrsfError:
    return MrsfError("invalid-argument", message, **details)


def _int_arg(name: str, value: Any, minimum: int) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, str) and re.fullmatch(r"\d+", value.strip()):
            value = int(value.strip())
        else:
            raise _bad(f"`{name}` must be an integer, got {type_name(value)}")
    if value < minimum:
        raise _bad(f"`{name}` must be >= {minimum}, got {value}")
    return value


def _str_arg(name: str, value: Any, *, required: bool = False) -> str | None:
    if value is None:
        if required:
            raise _bad(f"`{name}` is required")
        return None
    if not isinstance(value, str):
        raise _bad(f"`{name}` must be a string, got {type_name(value)}")
    if required and not value.strip():
        raise _bad(f"`{name}` must not be empty")
    return value


def _json_value(value: Any, depth: int = 0) -> bool:
    if depth > 32:
        return False
    if value is None or isinstance(value, (bool, str)):
        return True
    if isinstance(value, int):
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list):
        return all(_json_value(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _json_value(v, depth + 1) for k, v in value.items())
    return False


def check_anchor(pos: dict[str, int | None], lines: list[str] | None) -> None:
    """Reject impossible anchors (end before start; beyond the document when known)."""
    line, end_line = pos.get("line"), pos.get("end_line")
    start_column, end_column = pos.get("start_column"), pos.get("end_column")
    if line is None and any(v is not None for v in (end_line, start_column, end_column)):
        raise _bad("`end_line`/`start_column`/`end_column` need `line`")
    if line is None:
        return
    last = end_line if end_line is not None else line
    if last < line:
        raise _bad(f"`end_line` ({end_line}) must be >= `line` ({line})")
    if start_column is not None and end_column is not None and last == line and end_column < start_column:
        raise _bad(f"`end_column` ({end_column}) must be >= `start_column` ({start_column}) on the same line")
    if lines is not None:
        if last > line_count(lines):
            raise _bad(f"line {last} is past the end of the document ({line_count(lines)} lines)")
        first_len, last_len = utf16_len(lines[line - 1]), utf16_len(lines[last - 1])
        if start_column is not None and start_column > first_len:
            raise _bad(f"`start_column` {start_column} is past the end of line {line} ({first_len} columns)")
        if end_column is not None and end_column > last_len:
            raise _bad(f"`end_column` {end_column} is past the end of line {last} ({last_len} columns)")


def capture(lines: list[str], pos: dict[str, int | None]) -> str | None:
    """The document text an anchor covers (line ``N`` is the N-th line, 1-based)."""
    if pos.get("line") is None:
        return None
    return extract_text(lines, pos["line"], pos.get("end_line"), pos.get("start_column"), pos.get("end_column"))


# ---------------------------------------------------------------------------
# add
# ---------------------------------------------------------------------------


def build_comment(spec: dict, *, lines: list[str] | None = None, existing_ids: Iterable[str] = (),
                  head_commit: str | None = None, now: _dt.datetime | None = None) -> dict:
    """A new comment (plain dict in MRSF key order) from ``add``'s arguments.

    With ``line`` and a document (``lines``) and no ``selected_text``, the text at the
    anchor becomes ``selected_text`` and its SHA-256 ``selected_text_hash``.
    """
    unknown = set(spec) - ADD_KEYS
    if unknown:
        raise _bad(f"unknown field(s) for a new comment: {', '.join(sorted(unknown))} (use `extensions` for x_ fields)")
    author = _str_arg("author", spec.get("author"), required=True)
    text = _str_arg("text", spec.get("text"), required=True)
    pos = {
        "line": _int_arg("line", spec.get("line"), 1),
        "end_line": _int_arg("end_line", spec.get("end_line"), 1),
        "start_column": _int_arg("start_column", spec.get("start_column"), 0),
        "end_column": _int_arg("end_column", spec.get("end_column"), 0),
    }
    check_anchor(pos, lines)
    selected = _str_arg("selected_text", spec.get("selected_text"))
    kind = _str_arg("type", spec.get("type"))
    severity = _str_arg("severity", spec.get("severity"))
    if severity is not None and severity not in SEVERITIES:
        raise _bad(f"`severity` must be low, medium or high, got {severity!r}")
    reply_to = _str_arg("reply_to", spec.get("reply_to"))
    commit = _str_arg("commit", spec.get("commit")) or head_commit
    cid = _str_arg("id", spec.get("id")) or new_id()
    if not cid.strip():
        raise _bad("`id` must not be empty")
    if cid in set(existing_ids):
        raise MrsfError("duplicate-id", f"a comment with id {cid!r} already exists", id=cid)
    timestamp = _str_arg("timestamp", spec.get("timestamp")) or now_timestamp(now)
    if not is_rfc3339(timestamp):
        raise _bad(f"`timestamp` must be an RFC 3339 date-time with a time zone, got {timestamp!r}")
    extensions = spec.get("extensions") or {}
    if not isinstance(extensions, dict):
        raise _bad("`extensions` must be a mapping of x_ keys")
    for key, value in extensions.items():
        if not isinstance(key, str) or not key.startswith("x_"):
            raise _bad(f"extension key {key!r} must start with 'x_'")
        if not _json_value(value):
            raise _bad(f"extension {key!r} must be JSON data (null, boolean, finite number, string, list, mapping)")
    if selected is None and pos["line"] is not None and lines is not None:
        selected = capture(lines, pos)
    if selected is not None and len(selected) > 4096:
        raise _bad(f"`selected_text` has {len(selected)} characters (at most 4096)")
    if len(text) > 16384:
        raise _bad(f"`text` has {len(text)} characters (at most 16384)")
    values: dict[str, Any] = {
        "id": cid, "author": author, "timestamp": timestamp, "text": text, "type": kind,
        "severity": severity, "resolved": False, "reply_to": reply_to, **pos,
        "selected_text": selected,
        "selected_text_hash": sha256_hex(selected) if selected else None,
        "commit": commit,
    }
    comment = {k: values[k] for k in COMMENT_KEY_ORDER if values.get(k) is not None}
    comment.update(extensions)
    return comment


def add_comments(sc: Sidecar, specs: list[dict], *, document_text: str | None = None,
                 head_commit: str | None = None, now: _dt.datetime | None = None) -> list[dict]:
    """Append comments built from ``specs``; all are checked before any is added."""
    if not isinstance(specs, list) or not specs:
        raise _bad("give at least one comment")
    lines = split_lines(document_text) if document_text is not None else None
    existing = {c.get("id") for c in sc.comments or () if isinstance(c, dict)}
    built = []
    for n, spec in enumerate(specs):
        if not isinstance(spec, dict):
            raise _bad(f"comment {n} must be a mapping")
        try:
            comment = build_comment(spec, lines=lines, existing_ids=existing, head_commit=head_commit, now=now)
        except MrsfError as exc:
            if len(specs) > 1:
                exc.message = f"comment {n}: {exc.message}"
                exc.args = (exc.message,)
                exc.details.setdefault("batchIndex", n)
            raise
        existing.add(comment["id"])
        built.append(comment)
    known = existing
    parents = _parents(sc)
    for comment in built:
        if "reply_to" in comment:
            if comment["reply_to"] not in known or comment["reply_to"] == comment["id"]:
                raise _bad(f"`reply_to` {comment['reply_to']!r} must name another comment in this sidecar")
            parents[comment["id"]] = comment["reply_to"]
    for comment in built:
        if "reply_to" in comment and _in_cycle(parents, comment["id"]):
            raise _bad(f"`reply_to` of {comment['id']!r} would make a reply loop")
    sc.require_comments()
    for comment in built:
        sc.append_comment(comment)
    return built


def _parents(sc: Sidecar) -> dict[str, str]:
    """id -> reply_to of the comments in a sidecar."""
    return {c["id"]: c["reply_to"] for c in sc.comments or ()
            if isinstance(c, dict) and isinstance(c.get("id"), str) and isinstance(c.get("reply_to"), str)}


def _in_cycle(parents: dict[str, str], start: str) -> bool:
    """True when following reply_to from ``start`` comes back to it."""
    seen = set()
    node = parents.get(start)
    while node is not None and node not in seen:
        if node == start:
            return True
        seen.add(node)
        node = parents.get(node)
    return False


# ---------------------------------------------------------------------------
# update
# ---------------------------------------------------------------------------

UPDATABLE_REQUIRED = {"author", "text", "timestamp", "resolved"}


def update_comment(sc: Sidecar, comment_id: str, changes: dict, *, document_text: str | None = None) -> tuple[dict, list[str]]:
    """Change fields of one comment; ``None`` removes an optional field.

    When the anchor position changes and ``selected_text`` is not given, the text at the
    new position (from the document) becomes ``selected_text`` and the hash follows.
    A new anchor (that captured text, or a ``selected_text`` given) drops the verdict an
    earlier re-anchoring left (``x_reanchor_status``/``x_reanchor_score``), unless the
    changes set it themselves.
    Returns (the comment as plain data, names of the fields that changed).
    """
    if not isinstance(changes, dict) or not changes:
        raise _bad("`changes` must be a non-empty mapping of field names to values")
    comment = sc.get(comment_id)
    if "id" in changes and changes["id"] != comment_id:
        raise _bad("the id of a comment cannot be changed")
    plain = to_plain(comment)
    new = dict(plain)
    for key, value in changes.items():
        if not isinstance(key, str) or not key:
            raise _bad("field names must be non-empty strings")
        if value is None:
            if key in UPDATABLE_REQUIRED:
                raise _bad(f"`{key}` is required and cannot be removed")
            new.pop(key, None)
            continue
        if key in POSITION_FIELDS:
            value = _int_arg(key, value, 1 if key in ("line", "end_line") else 0)
        elif key == "resolved":
            if not isinstance(value, bool):
                raise _bad("`resolved` must be true or false")
        elif key == "severity":
            if value not in SEVERITIES:
                raise _bad(f"`severity` must be low, medium or high, got {value!r}")
        elif key in ("author", "text"):
            _str_arg(key, value, required=True)
        elif key == "timestamp":
            if not is_rfc3339(value):
                raise _bad(f"`timestamp` must be an RFC 3339 date-time with a time zone, got {value!r}")
        elif key == "reply_to":
            _str_arg(key, value)
            if value == comment_id or sc.index_of(value) is None:
                raise _bad(f"`reply_to` {value!r} must name another comment in this sidecar")
            parents = _parents(sc)
            parents[comment_id] = value
            if _in_cycle(parents, comment_id):
                raise _bad(f"`reply_to` {value!r} would make a reply loop")
        elif key in ("selected_text", "anchored_text", "type", "commit", "selected_text_hash"):
            _str_arg(key, value)
        elif not _json_value(value):
            raise _bad(f"`{key}` must be JSON data")
        new[key] = value
    lines = split_lines(document_text) if document_text is not None else None
    moved = any(new.get(k) != plain.get(k) for k in POSITION_FIELDS)
    retargeted = False
    if moved:
        pos = {k: new.get(k) for k in POSITION_FIELDS}
        check_anchor(pos, lines)
        if "selected_text" not in changes and lines is not None and pos["line"] is not None:
            new["selected_text"] = capture(lines, pos)
            new.pop("anchored_text", None)
            retargeted = True
    if retargeted or "selected_text" in changes:
        # the caller has just said where the comment points: an earlier re-anchoring's
        # verdict (orphaned, fuzzy and its score) describes the old anchor, not this one
        for key in REANCHOR_VERDICT:
            if key not in changes:
                new.pop(key, None)
    if "selected_text" in new and new.get("selected_text") != plain.get("selected_text") and "selected_text_hash" not in changes:
        if new.get("selected_text"):
            new["selected_text_hash"] = sha256_hex(new["selected_text"])
        else:
            new.pop("selected_text_hash", None)
    if ("selected_text_hash" in changes and isinstance(new.get("selected_text"), str)
            and new.get("selected_text_hash") not in (None, sha256_hex(new["selected_text"]))):
        raise _bad("`selected_text_hash` must be the SHA-256 of `selected_text` (leave it out to have it computed)")
    if isinstance(new.get("selected_text"), str) and len(new["selected_text"]) > 4096:
        raise _bad("`selected_text` is over 4096 characters")
    changed = []
    for key in list(plain):
        if key not in new:
            sc.delete_field(comment, key)
            changed.append(key)
    for key, value in new.items():
        if sc.set_field(comment, key, value):
            changed.append(key)
    return to_plain(comment), changed


# ---------------------------------------------------------------------------
# resolve / unresolve
# ---------------------------------------------------------------------------


def _ids_arg(ids: Any) -> list[str] | None:
    if ids is None:
        return None
    if isinstance(ids, str):
        return [ids]
    if isinstance(ids, (list, tuple)) and all(isinstance(i, str) for i in ids):
        return list(ids)
    raise _bad("`ids` must be a string or a list of strings")


def set_resolved(sc: Sidecar, value: bool, *, ids: Any = None, filters: dict | None = None,
                 cascade: bool = False) -> tuple[list[str], list[str]]:
    """Set ``resolved`` on comments chosen by ``ids`` and/or ``filters``.

    Resolving a parent does not touch its replies unless ``cascade`` (MRSF §9).
    Returns (matched ids, ids whose value changed).
    """
    id_list = _ids_arg(ids)
    if id_list is None and not filters:
        raise _bad("give comment ids or filters")
    comments = sc.comments or []
    if id_list is not None:
        for cid in id_list:
            sc.get(cid)  # comment-not-found before any change
    chosen = []
    matcher = compile_filters(filters) if filters else None
    for c in comments:
        if not isinstance(c, dict) or not isinstance(c.get("id"), str):
            continue
        if id_list is not None and c["id"] not in id_list:
            continue
        if matcher is not None and not matcher(to_plain(c)):
            continue
        chosen.append(c)
    if cascade:
        chosen_ids = {c["id"] for c in chosen}
        chosen += [c for c in comments if isinstance(c, dict) and c.get("reply_to") in chosen_ids
                   and isinstance(c.get("id"), str) and c["id"] not in chosen_ids]
    changed = []
    for c in chosen:
        if sc.set_field(c, "resolved", bool(value)):
            changed.append(c["id"])
    return [c["id"] for c in chosen], changed


# ---------------------------------------------------------------------------
# delete (§9.1)
# ---------------------------------------------------------------------------


def delete_comments(sc: Sidecar, ids: Any, *, cascade: bool = False) -> tuple[list[str], list[str]]:
    """Delete comments by id, promoting direct replies per MRSF §9.1 (or deleting them
    too with ``cascade``).  Returns (deleted ids, promoted ids)."""
    id_list = _ids_arg(ids)
    if not id_list:
        raise _bad("give the id(s) of the comment(s) to delete")
    for cid in id_list:
        sc.get(cid)
    deleted: list[str] = []
    promoted: list[str] = []
    for cid in id_list:
        index = sc.index_of(cid)
        if index is None:  # already removed as a reply by cascade
            continue
        parent = sc.comments[index]
        parent_plain = {k: to_plain(parent[k]) for k in INHERITED_FIELDS + ("reply_to",) if k in parent}
        replies = [c for c in sc.comments if isinstance(c, dict) and c.get("reply_to") == cid and c is not parent]
        if cascade:
            for reply in replies:
                ri = next(i for i, c in enumerate(sc.comments) if c is reply)
                deleted.append(reply.get("id"))
                sc.remove_comment(ri)
        else:
            for reply in replies:
                if not any(k in reply for k in ANCHOR_FIELDS):
                    for key in INHERITED_FIELDS:
                        if key in parent_plain and key not in reply:
                            sc.set_field(reply, key, parent_plain[key])
                grand = parent_plain.get("reply_to")
                if isinstance(grand, str) and grand != reply.get("id"):
                    sc.set_field(reply, "reply_to", grand)
                else:
                    sc.delete_field(reply, "reply_to")
                promoted.append(reply.get("id"))
        index = next(i for i, c in enumerate(sc.comments) if c is parent)
        sc.remove_comment(index)
        deleted.append(cid)
    promoted = [p for p in promoted if p not in deleted]
    return deleted, promoted


# ---------------------------------------------------------------------------
# list
# ---------------------------------------------------------------------------


def compile_filters(filters: dict | None) -> Callable[[dict], bool]:
    """A predicate over plain comments from a filter dict (see ops docstring)."""
    if filters is not None and not isinstance(filters, dict):
        raise _bad("`filters` must be a mapping")
    filters = dict(filters or {})
    unknown = set(filters) - FILTER_KEYS
    if unknown:
        raise _bad(f"unknown filter(s): {', '.join(sorted(unknown))}; known: {', '.join(sorted(FILTER_KEYS))}")
    ids = _ids_arg(filters.get("ids"))
    if filters.get("severity") is not None and filters["severity"] not in SEVERITIES:
        raise _bad(f"severity filter must be low, medium or high, got {filters['severity']!r}")
    line_from = _int_arg("line_from", filters.get("line_from"), 1)
    line_to = _int_arg("line_to", filters.get("line_to"), 1)

    def match(c: dict) -> bool:
        if filters.get("open") is True and c.get("resolved") is True:
            return False
        if filters.get("open") is False and c.get("resolved") is not True:
            return False
        if filters.get("resolved") is True and c.get("resolved") is not True:
            return False
        if filters.get("resolved") is False and c.get("resolved") is True:
            return False
        orphan = c.get("x_reanchor_status") == "orphaned"
        if filters.get("orphaned") is True and not orphan:
            return False
        if filters.get("orphaned") is False and orphan:
            return False
        for key in ("author", "type", "severity", "reply_to"):
            if filters.get(key) is not None and c.get(key) != filters[key]:
                return False
        if ids is not None and c.get("id") not in ids:
            return False
        anchored = any(k in c for k in ANCHOR_FIELDS)
        if filters.get("has_anchor") is True and not anchored:
            return False
        if filters.get("has_anchor") is False and anchored:
            return False
        if line_from is not None or line_to is not None:
            line = c.get("line")
            if not isinstance(line, int) or isinstance(line, bool):
                return False
            end = c.get("end_line") if isinstance(c.get("end_line"), int) else line
            if line_from is not None and end < line_from:
                return False
            if line_to is not None and line > line_to:
                return False
        return True

    return match


def summarize(comments: list[dict], orphaned: Callable[[dict], bool] | None = None) -> dict:
    """Counts: total, open, resolved, orphaned, threads (roots), byType, bySeverity.

    ``orphaned`` tells which comments count as orphaned (default: those a re-anchor marked
    so; :func:`markmcp.mrsf.health.orphaned_comments` adds the replies that inherit it)."""
    out = {"total": 0, "open": 0, "resolved": 0, "orphaned": 0, "threads": 0, "byType": {}, "bySeverity": {}}
    for c in comments:
        out["total"] += 1
        if c.get("resolved") is True:
            out["resolved"] += 1
        else:
            out["open"] += 1
        if orphaned(c) if orphaned is not None else c.get("x_reanchor_status") == "orphaned":
            out["orphaned"] += 1
        if not c.get("reply_to"):
            out["threads"] += 1
        for key, bucket in (("type", "byType"), ("severity", "bySeverity")):
            value = c.get(key)
            if isinstance(value, str):
                out[bucket][value] = out[bucket].get(value, 0) + 1
    return out


def format_comment_line(c: dict) -> str:
    """One compact line (plus the text) for a comment."""
    state = "resolved" if c.get("resolved") is True else "open"
    loc = ""
    if isinstance(c.get("line"), int):
        loc = f":{c['line']}"
        if isinstance(c.get("end_line"), int) and c["end_line"] != c["line"]:
            loc += f"-{c['end_line']}"
    tags = "".join(f" [{c[k]}]" for k in ("severity", "type") if isinstance(c.get(k), str))
    status = c.get("x_reanchor_status")
    if isinstance(status, str) and status != "anchored":
        tags += f" <{status}>"
    reply = f" ↳{c['reply_to']}" if isinstance(c.get("reply_to"), str) else ""
    text = str(c.get("text", "")).strip().replace("\n", " ")
    if len(text) > 120:
        text = text[:117] + "..."
    return f"[{state}] {c.get('id')} {c.get('document', '')}{loc}{tags}{reply} — {c.get('author')}: {text}"


# ---------------------------------------------------------------------------
# reanchor: applying placements
# ---------------------------------------------------------------------------


def _num(value: Any) -> float:
    try:
        return round(float(value), 4)
    except (TypeError, ValueError):
        return 0.0


def columns_to_indexes(comment: dict, lines: list[str] | None) -> dict:
    """A copy of a plain comment whose columns (UTF-16 units, as stored) are converted to
    Python string indexes in ``lines`` (the document the anchor was measured in)."""
    out = dict(comment)
    line = out.get("line")
    if lines is None or not isinstance(line, int) or isinstance(line, bool) or not 1 <= line <= len(lines):
        return out
    end = out.get("end_line") if isinstance(out.get("end_line"), int) else line
    if isinstance(out.get("start_column"), int) and not isinstance(out["start_column"], bool):
        out["start_column"] = utf16_to_index(lines[line - 1], out["start_column"])
    if isinstance(out.get("end_column"), int) and not isinstance(out["end_column"], bool) and 1 <= end <= len(lines):
        out["end_column"] = utf16_to_index(lines[end - 1], out["end_column"])
    return out


def apply_placement(sc: Sidecar, comment: dict, placement: Any, *, update_text: bool = False,
                    force: bool = False, head_commit: str | None = None, lines: list[str] | None = None) -> dict:
    """Write one re-anchoring placement into a comment (MRSF §7.3/§7.4 fields).

    * anchored/shifted/fuzzy: line (and end_line, and columns the comment already uses)
      move to the placement; ``anchored_text`` records the text now there when it differs
      from ``selected_text`` (``update_text``: ``selected_text`` takes it instead and its
      hash is recomputed) and is removed when it equals ``selected_text``;
    * ambiguous/orphaned: the position is left alone;
    * every result other than ``anchored`` (shifted, fuzzy, ambiguous, orphaned) is
      recorded as ``x_reanchor_status``/``x_reanchor_score``; an anchored result (the
      exact text found, wherever it moved) removes them, so re-running is idempotent;
    * ``force`` with an anchored/shifted placement scoring >= 0.8 and a known HEAD: the
      comment is re-based (``commit`` = HEAD) and the audit fields are removed.

    Placement columns are Python string indexes in ``lines`` (the target document); they
    are stored as UTF-16 columns like every sidecar column.

    Returns a plain result: id, status, score, reason, new position, previous position,
    anchoredText, changed (field names).
    """
    status = getattr(placement, "status", None)
    if status not in REANCHOR_STATUSES:
        raise MrsfError("internal-error", f"re-anchoring returned an unknown status {status!r}")
    score = _num(getattr(placement, "score", 0.0))
    before = to_plain(comment)
    previous = {k: before.get(k) for k in POSITION_FIELDS if k in before}
    target: dict[str, Any] = {}
    text = getattr(placement, "text", None)
    if status in ("anchored", "shifted", "fuzzy") and getattr(placement, "line", None) is not None:
        line = int(placement.line)
        end_line = getattr(placement, "end_line", None)
        target["line"] = line
        if end_line is not None and ("end_line" in before or int(end_line) != line):
            target["end_line"] = int(end_line)
        elif "end_line" in before:
            target["end_line"] = line
        # a fuzzy match narrower than its line(s) gets its columns even on a line-level
        # comment: anchored_text then is the text of exactly that range (MRSF §7.3)
        narrowed = status == "fuzzy" and placement.start_column is not None and placement.end_column is not None
        for key in ("start_column", "end_column"):
            value = getattr(placement, key, None)
            if value is not None and (key in before or narrowed):
                at = line if key == "start_column" else (int(end_line) if end_line is not None else line)
                if lines is not None and 1 <= at <= len(lines):
                    value = index_to_utf16(lines[at - 1], int(value))
                target[key] = int(value)
    changed: list[str] = []

    def put(key: str, value: Any) -> None:
        if sc.set_field(comment, key, value):
            changed.append(key)

    def drop(key: str) -> None:
        if sc.delete_field(comment, key):
            changed.append(key)

    for key, value in target.items():
        put(key, value)
    selected = before.get("selected_text")
    if status in ("anchored", "shifted", "fuzzy") and isinstance(text, str):
        # an empty selected_text is no selection (a line-only comment): nothing to compare
        if isinstance(selected, str) and selected and text != selected:
            if update_text:
                put("selected_text", text)
                if "selected_text_hash" in before:
                    put("selected_text_hash", sha256_hex(text))
                drop("anchored_text")
            else:
                put("anchored_text", text)
        elif text == selected:
            drop("anchored_text")
    clean = status == "anchored"
    rebased = (force and head_commit is not None and status in ("anchored", "shifted") and score >= HIGH_CONFIDENCE)
    if rebased:
        put("commit", head_commit)
    if clean or rebased:
        drop("x_reanchor_status")
        drop("x_reanchor_score")
    else:
        put("x_reanchor_status", status)
        put("x_reanchor_score", score)
    after = to_plain(comment)
    return {
        "id": before.get("id"),
        "status": status,
        "score": score,
        "reason": str(getattr(placement, "reason", "") or ""),
        **{k: after.get(k) for k in POSITION_FIELDS},
        "anchoredText": after.get("anchored_text"),
        "previous": previous,
        "changed": changed,
        "placed": _placed_range(placement, lines),
        "foundText": text if status in ("anchored", "shifted", "fuzzy") and isinstance(text, str) else None,
        "previousSelectedText": selected if isinstance(selected, str) and (
            status == "fuzzy" or "selected_text" in changed) else None,
    }


def _placed_range(placement: Any, lines: list[str] | None) -> dict | None:
    """The range a placement found, whole lines spelled out: line, end_line and both
    columns (UTF-16, as stored in sidecars; a line-level placement runs from column 0
    to the end of its last line).  None when it found no place (or has no document)."""
    line = getattr(placement, "line", None)
    if line is None or lines is None:
        return None
    line = int(line)
    end_line = int(placement.end_line) if getattr(placement, "end_line", None) is not None else line
    if not (1 <= line <= end_line <= len(lines)):
        return None
    start = placement.start_column if placement.start_column is not None else 0
    end = placement.end_column if placement.end_column is not None else len(lines[end_line - 1])
    return {
        "line": line,
        "end_line": end_line,
        "start_column": index_to_utf16(lines[line - 1], int(start)),
        "end_column": index_to_utf16(lines[end_line - 1], int(end)),
    }
