"""Git's ignore rules (``.gitignore``), as a pure matcher: rules text in, verdicts out.

The rules follow gitignore(5):

* a blank line matches nothing; ``#`` starts a comment (``\\#`` is a literal ``#``);
  trailing blanks are dropped unless escaped with a backslash;
* ``!`` negates a pattern (a file ignored by an earlier rule is included again;
  ``\\!`` is a literal ``!``); a later rule beats an earlier one, and a rule of a deeper
  ``.gitignore`` beats one of a shallower file;
* a trailing ``/`` makes a pattern match folders only;
* a pattern with a ``/`` at its start or in its middle is anchored to the folder of its
  ``.gitignore``; without one it matches a name at any depth below that folder;
* ``*`` matches anything but ``/``, ``?`` one character but ``/``, ``[...]`` a class
  (``[!...]`` negated); ``**/`` at the start matches any leading folders, ``/**`` at
  the end everything inside, ``/**/`` zero or more folders; other ``**`` are ``*``.

A file inside an ignored folder cannot be included again by a negation (git does not
look inside an ignored folder); :class:`Ignorer` users honour that by not entering an
ignored folder at all.

No file is read here: the caller hands in each ``.gitignore``'s text and the folder it
lies in (paths are POSIX, relative to one top folder).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Rule:
    """One pattern of one ``.gitignore``: ``base`` is its folder ('' for the top)."""

    base: str
    regex: re.Pattern[str]
    negated: bool
    folders_only: bool


def _class(pattern: str, i: int) -> tuple[str, int] | None:
    """The regex of the bracket expression opening at ``pattern[i]`` (``[``) and the index
    after it; None when it never closes (the ``[`` is then literal)."""
    j = i + 1
    negate = j < len(pattern) and pattern[j] in "!^"
    if negate:
        j += 1
    chars: list[str] = []
    while j < len(pattern):
        ch = pattern[j]
        if ch == "]" and chars:
            break
        if ch == "\\" and j + 1 < len(pattern):
            j += 1
            ch = pattern[j]
        chars.append(ch)
        j += 1
    else:
        return None
    members: list[str] = []
    k = 0
    while k < len(chars):
        if k + 2 < len(chars) and chars[k + 1] == "-":
            members.append(f"{re.escape(chars[k])}-{re.escape(chars[k + 2])}")
            k += 3
        else:
            members.append(re.escape(chars[k]))
            k += 1
    body = "".join(members)
    return (f"[^/{body}]" if negate else f"(?!/)[{body}]"), j + 1


def _glob(pattern: str) -> str:
    """The regex body of a glob (``**`` already split off by the caller)."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\" and i + 1 < len(pattern):
            out.append(re.escape(pattern[i + 1]))
            i += 2
        elif ch == "*":
            while i < len(pattern) and pattern[i] == "*":
                i += 1
            out.append("[^/]*")
        elif ch == "?":
            out.append("[^/]")
            i += 1
        elif ch == "[":
            found = _class(pattern, i)
            if found is None:
                out.append(re.escape(ch))
                i += 1
            else:
                out.append(found[0])
                i = found[1]
        else:
            out.append(re.escape(ch))
            i += 1
    return "".join(out)


def _trim(line: str) -> str:
    """The line without its trailing blanks (a backslash-escaped blank stays)."""
    end = len(line)
    while end > 0 and line[end - 1] in " \t":
        backslashes = 0
        k = end - 2
        while k >= 0 and line[k] == "\\":
            backslashes += 1
            k -= 1
        if backslashes % 2 == 1:
            break
        end -= 1
    return line[:end]


def compile_rule(line: str, base: str = "") -> Rule | None:
    """The rule of one ``.gitignore`` line in folder ``base``; None for blanks and comments."""
    text = _trim(line.rstrip("\r"))
    if not text or text.startswith("#"):
        return None
    negated = text.startswith("!")
    if negated:
        text = text[1:]
    elif text.startswith("\\!") or text.startswith("\\#"):
        text = text[1:]
    folders_only = text.endswith("/") and not text.endswith("\\/")
    if folders_only:
        text = text.rstrip("/")
    if not text:
        return None
    anchored = "/" in text
    if text.startswith("/"):
        text = text[1:]
    parts = text.split("/")
    pieces: list[str] = []
    for k, part in enumerate(parts):
        last = k == len(parts) - 1
        if part == "**":
            pieces.append(".*" if last else "(?:[^/]+/)*")
        else:
            pieces.append(_glob(part) + ("" if last else "/"))
    body = "".join(pieces)
    prefix = "" if anchored else "(?:[^/]+/)*"
    return Rule(base, re.compile(f"{prefix}{body}", re.DOTALL), negated, folders_only)


def parse(text: str, base: str = "") -> list[Rule]:
    """Every rule of a ``.gitignore`` whose folder is ``base`` (lines end at LF)."""
    rules = []
    for line in text.split("\n"):
        rule = compile_rule(line, base)
        if rule is not None:
            rules.append(rule)
    return rules


@dataclass
class Ignorer:
    """The rules of every ``.gitignore`` met so far, by folder (POSIX, relative to the top)."""

    rules: dict[str, list[Rule]] = field(default_factory=dict)

    def add(self, base: str, text: str) -> None:
        """Take the ``.gitignore`` of folder ``base`` ('' for the top)."""
        found = parse(text, base)
        if found:
            self.rules[base] = found

    def ignored(self, path: str, is_folder: bool) -> bool:
        """Whether ``path`` (POSIX, relative to the top, no leading ``./``) is ignored by the
        rules of its own folder and the folders above it, the deepest last."""
        verdict = False
        # the folders above ``path`` that have rules, shallowest first: found among the
        # folders with rules (few), not by making every prefix of a deep path (cubic in
        # the depth over a whole walk)
        bases = sorted((base for base in self.rules if not base or path.startswith(base + "/")), key=len)
        for base in bases:
            rules = self.rules[base]
            rel = path[len(base) + 1:] if base else path
            for rule in rules:
                if rule.folders_only and not is_folder:
                    continue
                if rule.regex.fullmatch(rel):
                    verdict = not rule.negated
        return verdict
