"""Sidecar text in, a :class:`~.model.Sidecar` out: the format, its reader, and the
checks every sidecar passes (not empty, not nested too deep, a mapping)."""

from __future__ import annotations

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
