"""Anchor health of comments (the ``status`` operation): fresh, stale, orphaned, unknown.

Pure: plain comments and the document text in, one verdict per comment out; whether
the document changed since a commit is asked through a callback (git lives in ops).
"""

from __future__ import annotations

from typing import Any, Callable

from .edits import ANCHOR_FIELDS
from .validate import extract_text, line_count, split_lines


def inherits(comment: dict) -> bool:
    """Whether a comment takes its anchor from its parent: a reply (``reply_to``) with no
    targeting field of its own (MRSF §6.2 ``reply_to``: replies may omit them and inherit
    the parent's context; §10.1: consumers inherit the parent's anchor)."""
    return isinstance(comment.get("reply_to"), str) and not any(k in comment for k in ANCHOR_FIELDS)


def parent_of(comment: dict, by_id: dict[Any, Any]) -> dict | None:
    """The comment whose anchor ``comment`` inherits (None when it has its own, or its
    parent is missing)."""
    if not inherits(comment):
        return None
    parent = by_id.get(comment["reply_to"])
    return parent if isinstance(parent, dict) and parent is not comment else None


def orphaned_comments(comments: list) -> set[int]:
    """The comments (by ``id()``) a sidecar shows as orphaned without reading the document:
    marked so by a re-anchor, or a reply without an anchor whose parent is (the verdict
    :func:`assess_status` gives them too)."""
    by_id = {c.get("id"): c for c in comments if isinstance(c, dict)}
    found: set[int] = set()
    for c in comments:
        node, depth = c, 0
        while isinstance(node, dict) and depth < 50:
            if node.get("x_reanchor_status") == "orphaned":
                found.add(id(c))
                break
            if node.get("x_reanchor_status") is not None:
                break
            node, depth = parent_of(node, by_id), depth + 1
    return found


def assess_status(comments: list[dict], document_text: str | None, *,
                  changed_since: Callable[[str], bool | None] | None = None) -> list[dict]:
    """Anchor health of each comment: fresh, stale, orphaned or unknown.

    * orphaned: marked orphaned by a re-anchor, its line is past the end of the document,
      or its ``selected_text`` occurs nowhere and git cannot show the document changed;
    * stale also: the last re-anchor was only fuzzy or ambiguous (needs a reviewer);
    * stale: the text moved away from the recorded position, or (no text to check) the
      document changed since the comment's ``commit``, or the text is gone but the
      document changed since ``commit`` (re-anchor it).  Moved text is stale, not fresh:
      MRSF §7.1 calls line and column values stale once edits above them shift the text,
      and §7.3 asks for a re-anchor when text moves unchanged (the upstream server calls
      such a comment fresh whenever its text occurs anywhere in the document);
    * fresh: the text is at the recorded position (or, with no text, the document is
      unchanged since ``commit``); document-level comments are fresh;
    * unknown: nothing to check against (no document, or a line-only comment without a
      usable ``commit``).

    ``changed_since(commit)`` tells whether the document changed since a commit (None:
    cannot tell).  Replies without an anchor take their parent's health.
    """
    lines = split_lines(document_text) if document_text is not None else None
    normalized = "\n".join(lines) if lines is not None else None
    by_id = {c.get("id"): c for c in comments if isinstance(c, dict)}
    memo: dict[int, tuple[str, str]] = {}

    def changed(commit: Any) -> bool | None:
        if not isinstance(commit, str) or changed_since is None:
            return None
        return changed_since(commit)

    def health(c: dict, depth: int = 0) -> tuple[str, str]:
        key = id(c)
        if key in memo:
            return memo[key]
        result = _health(c, depth)
        memo[key] = result
        return result

    def _health(c: dict, depth: int) -> tuple[str, str]:
        marked = c.get("x_reanchor_status")
        if marked == "orphaned":
            return "orphaned", "marked orphaned by a previous re-anchor"
        if marked in ("fuzzy", "ambiguous"):
            return "stale", f"the last re-anchor was {marked}: a reviewer should confirm or retarget it"
        anchored = any(k in c for k in ANCHOR_FIELDS)
        if not anchored:
            parent = parent_of(c, by_id)
            if parent is not None and depth < 50:
                state, reason = health(parent, depth + 1)
                return state, f"reply: inherits its parent's anchor ({reason})"
            return "fresh", "document-level comment (no anchor)"
        if lines is None:
            return "unknown", "the document was not found"
        line = c.get("line") if isinstance(c.get("line"), int) and not isinstance(c.get("line"), bool) else None
        end_line = c.get("end_line") if isinstance(c.get("end_line"), int) else None
        count = line_count(lines)
        if line is not None and (line > count or (end_line or line) > count):
            return "orphaned", f"line {max(line, end_line or line)} is past the end of the document ({count} lines)"
        selected = c.get("selected_text")
        if isinstance(selected, str) and selected:
            wanted = selected.replace("\r\n", "\n")
            if wanted not in normalized:
                if changed(c.get("commit")):
                    return "stale", "the document changed since the comment's commit and its text is gone; run reanchor"
                return "orphaned", "selected_text no longer occurs in the document"
            if line is None:
                return "fresh", "selected_text found in the document"
            here = extract_text(lines, line, end_line,
                                c.get("start_column") if isinstance(c.get("start_column"), int) else None,
                                c.get("end_column") if isinstance(c.get("end_column"), int) else None)
            if here is not None and (here == wanted or wanted in here):
                return "fresh", "selected_text is at its recorded position"
            return "stale", (f"selected_text moved away from its recorded line {line} (it occurs at "
                             f"{_occurrences(normalized, wanted)}); run reanchor")
        verdict = changed(c.get("commit"))
        if verdict is False:
            return "fresh", "the document is unchanged since the comment's commit"
        if verdict is True:
            return "stale", "the document changed since the comment's commit (line-only anchor); run reanchor"
        return "unknown", "line-only anchor without a commit git can check"

    out = []
    for i, c in enumerate(comments):
        if not isinstance(c, dict):
            out.append({"id": None, "index": i, "health": "unknown", "reason": "not a comment mapping"})
            continue
        state, reason = health(c)
        out.append({"id": c.get("id"), "index": i, "health": state, "reason": reason})
    return out


def _occurrences(text: str, wanted: str, shown: int = 5) -> str:
    """Where ``wanted`` occurs in ``text``: "line 5", "lines 5 and 12", or the first
    ``shown`` lines and how many more (a repeated phrase is not one place)."""
    found: list[int] = []
    total = 0
    at = text.find(wanted)
    while at != -1:
        total += 1
        if len(found) < shown:
            found.append(text.count("\n", 0, at) + 1)
        at = text.find(wanted, at + 1)
    if total == 1:
        return f"line {found[0]}"
    listed = ", ".join(map(str, found[:-1])) + f" and {found[-1]}" if total <= shown else \
        ", ".join(map(str, found)) + f" and {total - shown} more"
    return f"lines {listed}"
