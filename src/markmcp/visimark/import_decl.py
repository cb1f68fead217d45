"""The import declaration in a sheet block's fence info (the file itself is read by
:mod:`.imports` when the document is checked):

    vmark #id from PATH [delimited C] [labelled A, B, … | unlabelled A, B, …] [at sha256:DIGEST]

:func:`parse_import` reads it while the model is built; a clause that is out of order,
repeated, incomplete or unknown raises :class:`ImportSyntaxError` with the span to report.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

CLAUSE_WORDS = ("delimited", "labelled", "unlabelled", "at")
BAD_DELIMITERS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789\".-")


class ImportSyntaxError(Exception):
    def __init__(self, message: str, span: tuple[int, int]) -> None:
        super().__init__(message)
        self.message = message
        self.span = span


@dataclass
class ImportDecl:
    path: str
    path_span: tuple[int, int]
    decl_span: tuple[int, int]
    delimiter: str = ","
    labels: list[str] | None = None
    labels_span: tuple[int, int] | None = None
    mode: str | None = None  # labelled | unlabelled | None
    stamp_prefix: str | None = None
    stamp_digest: str | None = None
    stamp_span: tuple[int, int] | None = None  # `at …`
    digest_span: tuple[int, int] | None = None  # the digest alone
    # filled in by resolve_imports
    state: str = "error"  # ok | stale | unstamped | error | skipped
    digest: str | None = None


def parse_import(info: str, base: int) -> ImportDecl | None:
    """The import clause of a fence info tail (``info`` starts after ``#id``, at
    offset ``base``); None when the tail does not open with ``from``."""
    words = [(m.group(0), base + m.start(), base + m.end()) for m in re.finditer(r"\S+", info)]
    if not words or words[0][0] != "from":
        return None
    if len(words) < 2:
        raise ImportSyntaxError("`from` needs a path", (words[0][1], words[0][2]))
    path, p0, p1 = words[1]
    decl = ImportDecl(path, (p0, p1), (words[0][1], words[-1][2]))
    stage, i = 0, 2
    while i < len(words):
        word, w0, w1 = words[i]
        if word == "delimited":
            if stage >= 1:
                raise ImportSyntaxError("`delimited` is out of order or repeated", (w0, w1))
            stage = 1
            if i + 1 >= len(words):
                raise ImportSyntaxError("`delimited` needs a character", (w0, w1))
            char, c0, c1 = words[i + 1]
            if len(char) != 1:
                raise ImportSyntaxError(f"`delimited` takes exactly one character, got `{char}`", (c0, c1))
            if char in BAD_DELIMITERS:
                raise ImportSyntaxError(f"`delimited {char}` is not allowed — a delimiter may not be a letter, "
                                        "digit, quote, `.`, `-`, or whitespace", (c0, c1))
            decl.delimiter = char
            i += 2
            continue
        if word in ("labelled", "unlabelled"):
            if stage >= 2:
                raise ImportSyntaxError(f"`{word}` is out of order or repeated", (w0, w1))
            stage = 2
            j = i + 1
            while j < len(words) and words[j][0] not in CLAUSE_WORDS:
                j += 1
            listed = info[w1 - base:(words[j][1] - base) if j < len(words) else len(info)]
            names = [n.strip() for n in listed.split(",") if n.strip()]
            if not names:
                raise ImportSyntaxError(f"`{word}` needs at least one column name", (w0, w1))
            decl.labels, decl.mode = names, word
            decl.labels_span = (w0, words[j - 1][2])
            i = j
            continue
        if word == "at":
            if stage >= 3:
                raise ImportSyntaxError("`at` is out of order or repeated", (w0, w1))
            stage = 3
            if i + 1 >= len(words):
                raise ImportSyntaxError("`at` needs a stamp", (w0, w1))
            stamp, s0, s1 = words[i + 1]
            prefix, colon, digest = stamp.partition(":")
            decl.stamp_prefix = prefix
            decl.stamp_digest = digest if colon else None
            decl.stamp_span = (w0, s1)
            decl.digest_span = (s0 + len(prefix) + 1, s1) if colon else None
            i += 2
            continue
        raise ImportSyntaxError(f"unrecognised token `{word}` in import declaration", (w0, w1))
    return decl
