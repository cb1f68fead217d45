"""Reading YAML sidecars: the fast reader (:mod:`markmcp.mrsf.yamlscan`) when it can,
else the full round-trip reader, which also words every syntax error; and the file's
layout (indentation, a leading ``---``, where its entries and items stand)."""

from __future__ import annotations

import re
from typing import Any

from .. import yamlscan
from ..errors import MrsfError
from ..yamledit import Layout
from ..yamlscan import Entry, Span, Unsupported
from .model import Sidecar
from .values import _MAX_PLAIN_NODES, MAX_DEPTH, _depth_over, _expands_over, to_plain
from .yaml12 import _depth_limited, _yaml, put_back, yaml12_text

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
