"""Sidecar text in, a :class:`~.model.Sidecar` out: the format, its reader, and the
checks every sidecar passes (not empty, not nested too deep, only Unicode text, a mapping).

Only Unicode text: an escape of a lone surrogate (``"\\ud800"``) decodes to no
character.  YAML 1.2 allows only Unicode characters in a stream and its escapes
(§5.1, §5.7); JSON's grammar lets ``\\ud800`` through but leaves what it means undefined
(RFC 8259 §8.2), and MRSF's strings are text, which no output (UTF-8 file, terminal,
MCP reply) can carry it in.  So such a sidecar is malformed, refused with the line and
column of the escape and the field that holds it.  A pair of escapes
(``\\ud83d\\ude00``) is the one character it encodes, in YAML as in JSON.
"""

from __future__ import annotations

from typing import Any

from markmcp.textsafe import SURROGATE_ESCAPE, join_surrogate_pairs, lone_surrogate, lone_surrogate_escapes, surrogate_name

from ..errors import MrsfError
from .json_read import _parse_json
from .model import Sidecar
from .values import MAX_DEPTH, _depth_over, type_name
from .yaml_read import _parse_yaml

SIDECAR_SUFFIX_YAML = ".review.yaml"
SIDECAR_SUFFIX_JSON = ".review.json"


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
    if SURROGATE_ESCAPE.search(normalized):
        sc.data = _only_characters(sc.data, normalized, fmt, label)
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


def _only_characters(data: Any, text: str, fmt: str, label: str) -> Any:
    """``data`` with escaped surrogate pairs joined; a lone surrogate is ``malformed-yaml`` /
    ``malformed-json`` naming the field, and the line and column of its escape in ``text``."""
    data = join_surrogate_pairs(data)
    found = lone_surrogate(data)
    if found is None:
        return data
    where, char = found
    escapes = [offset for offset, code in lone_surrogate_escapes(text) if code == ord(char)]
    line = column = None
    if escapes:
        line = text.count("\n", 0, escapes[0]) + 1
        column = escapes[0] - (text.rfind("\n", 0, escapes[0]) + 1) + 1
    at = f" at line {line}, column {column}" if line else ""
    name = "YAML" if fmt == "yaml" else "JSON"
    raise MrsfError(
        f"malformed-{fmt}",
        f"{label}: malformed {name}{at}: {where}: {surrogate_name(char)} is not a character "
        "(an escape of U+D800-U+DFFF is half of a UTF-16 pair; text must be Unicode characters)",
        line=line,
        column=column,
    )
