"""Property tests for sidecar writes: random sidecars in the layouts real tools write
(ruamel.yaml, PyYAML's defaults with long scalars folded at 80 columns and ``- `` items at
column 0, PyYAML with sorted keys, literal and folded block scalars, JSON indented and
compact), with YAML comment lines, end-of-line comments and unicode, under random batches
of edits (add, update, resolve, delete a field, delete a comment, re-anchoring moves).

Every written text must read back (with ruamel.yaml, independently of the reader under
test) as exactly the intended data, keep every YAML comment line, and keep the lines of
every comment the batch did not touch byte for byte.  The fast reader must agree with
ruamel.yaml on every generated sidecar, and must not decline the common layouts.
"""

from __future__ import annotations

import io
import json
import re

import pytest
import yaml as pyyaml
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from markmcp.mrsf import yamlscan
from markmcp.mrsf.sidecar import dump, parse_sidecar, same_value
from markmcp.mrsf.sidecar import render as render_sidecar
from markmcp.mrsf.sidecar.yaml_read import _parse_yaml_rt

STYLES = ["ruamel", "ruamel-wide", "pyyaml", "pyyaml-sorted", "pyyaml-blocks", "json", "json-compact"]

words = st.sampled_from(["review", "the", "déjà", "vu", "naïve", "東京", "emoji😀", "a:b", "x #y", "'q'", '"dq"',
                         "-dash", "1.5", "yes", "null", "tab\there", "line\nbreak", "  lead", "trail  ", "€", "—"])
sentences = st.lists(words, min_size=0, max_size=30).map(" ".join)
short = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00\ufeff\x85\u2028\u2029"), max_size=12)
texts = st.one_of(sentences, short)


@st.composite
def comment(draw, n):
    c = {"id": f"c{n:03d}-{draw(st.integers(0, 99999))}", "author": draw(st.sampled_from(["Ann (ann)", "bob", "Zoë"])),
         "timestamp": "2026-03-02T18:22:59.713Z", "text": draw(texts)}
    if draw(st.booleans()):
        c["type"] = draw(st.sampled_from(["suggestion", "issue", "question"]))
    c["resolved"] = draw(st.booleans())
    if draw(st.booleans()):
        c["line"] = draw(st.integers(1, 5000))
        if draw(st.booleans()):
            c["end_line"] = c["line"] + draw(st.integers(0, 5))
        c["selected_text"] = draw(texts)
    if draw(st.integers(0, 5)) == 0:
        c["x_ext"] = {"k": draw(texts), "n": [1, 2]}
    return c


@st.composite
def sidecars(draw):
    count = draw(st.integers(0, 8))
    return {"mrsf_version": "1.0", "document": "docs/a.md", "comments": [draw(comment(n)) for n in range(count)]}


class _Blocks(pyyaml.SafeDumper):
    pass


def _str_blocks(dumper, value):
    if "\n" in value.strip("\n") and not value.endswith("\n\n") and value.strip() == value.strip(" "):
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|")
    if len(value) > 60 and "\n" not in value and value == value.strip():
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=">")
    return dumper.represent_scalar("tag:yaml.org,2002:str", value)


_Blocks.add_representer(str, _str_blocks)


def render(data: dict, style: str) -> str:
    if style.startswith("ruamel"):
        y = YAML()
        y.indent(mapping=2, sequence=4, offset=2)
        if style == "ruamel-wide":
            y.width = 1 << 30
        buf = io.StringIO()
        y.dump(data, buf)
        return buf.getvalue()
    if style == "pyyaml":
        return pyyaml.safe_dump(data, allow_unicode=True, sort_keys=False)
    if style == "pyyaml-sorted":
        return pyyaml.safe_dump(data, allow_unicode=True)
    if style == "pyyaml-blocks":
        return pyyaml.dump(data, Dumper=_Blocks, allow_unicode=True, sort_keys=False)
    if style == "json":
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    return json.dumps(data, ensure_ascii=True)


def decorate(text: str, seed: int) -> str:
    """YAML comment lines between items and end-of-line comments on some value lines."""
    out = []
    for n, line in enumerate(text.split("\n")):
        stripped = line.lstrip(" ")
        if stripped.startswith("- ") and (seed + n) % 3 == 0:
            out.append(line[:len(line) - len(stripped)] + f"# note {n} ünïcode")
        if re.fullmatch(r" +(resolved|line|type): [a-z0-9]+", line) and (seed + n) % 4 == 0:
            line += f"  # eol {n}"
        out.append(line)
    if seed % 2:
        out.insert(0, "# a sidecar")
    return "\n".join(out)


def truth(text: str, fmt: str):
    """The data of ``text`` read by ruamel.yaml (or json), not by the reader under test."""
    if fmt == "json":
        return json.loads(text)
    return _parse_yaml_rt(text, "t").data


def item_blocks(text: str, fmt: str) -> dict[str, str]:
    """id -> the text of each comment as it stands in ``text`` (YAML: its lines from the
    dash to its last non-blank, non-comment line)."""
    data = truth(text, fmt)
    out: dict[str, str] = {}
    if fmt == "json":
        decoder = json.JSONDecoder()
        start = text.index("[", text.index('"comments"'))
        pos = start + 1
        for item in data["comments"]:
            while text[pos] in " \n\t,":
                pos += 1
            _, end = decoder.raw_decode(text, pos)
            out[item["id"]] = text[pos:end]
            pos = end
        return out
    y = YAML()
    loaded = y.load(text)
    seq = loaded["comments"]
    lines = text.split("\n")
    starts = [seq.lc.item(i)[0] for i in range(len(seq))]
    keys = list(loaded)
    after = keys.index("comments") + 1
    stop = loaded.lc.key(keys[after])[0] if after < len(keys) else len(lines)
    for i, item in enumerate(data["comments"]):
        end = starts[i + 1] if i + 1 < len(starts) else stop
        block = lines[starts[i]:end]
        while block and (not block[-1].strip() or block[-1].lstrip().startswith("#")):
            block.pop()
        out[item["id"]] = "\n".join(block)
    return out


def comment_lines(text: str) -> list[str]:
    """The comment lines :func:`decorate` wrote. Not every line that starts with ``#``: a
    quoted scalar folded over lines may continue on one (``"... x\n    #y"``), and that
    line leaves with its comment."""
    return sorted(line.strip() for line in text.split("\n")
                  if re.fullmatch(r"# (note \d+ ünïcode|a sidecar)", line.strip()))


edit = st.one_of(
    st.tuples(st.just("add"), st.integers(0, 10**6), texts),
    st.tuples(st.just("update"), st.integers(0, 99), st.sampled_from(["text", "selected_text", "type", "author"]), texts),
    st.tuples(st.just("resolve"), st.integers(0, 99)),
    st.tuples(st.just("drop"), st.integers(0, 99), st.sampled_from(["type", "end_line", "selected_text", "x_ext"])),
    st.tuples(st.just("delete"), st.integers(0, 99)),
    st.tuples(st.just("move"), st.integers(0, 99), st.integers(1, 9000), st.booleans(), texts),
)


def apply(sc, model: dict, steps, touched: set[str]) -> None:
    for step in steps:
        comments = model["comments"]
        kind = step[0]
        if kind == "add":
            item = {"id": f"new-{step[1]}-{len(comments)}", "author": "adder", "text": step[2], "resolved": False}
            if any(c["id"] == item["id"] for c in comments):
                continue
            sc.append_comment(item)
            comments.append(dict(item))
            continue
        if not comments:
            continue
        i = step[1] % len(comments)
        target, node = comments[i], sc.comments[i]
        if kind == "update":
            sc.set_field(node, step[2], step[3])
            target[step[2]] = step[3]
        elif kind == "resolve":
            sc.set_field(node, "resolved", not target.get("resolved", False))
            target["resolved"] = not target.get("resolved", False)
        elif kind == "drop":
            sc.delete_field(node, step[2])
            target.pop(step[2], None)
        elif kind == "delete":
            sc.remove_comment(i)
            comments.pop(i)
        else:
            fields = {"line": step[2], "x_reanchor_status": "fuzzy" if step[3] else "anchored",
                      "x_reanchor_score": 0.8571 if step[3] else 1.0}
            if "end_line" in target:
                fields["end_line"] = step[2] + 1
            if step[3]:
                fields["anchored_text"] = step[4]
            for key, value in fields.items():
                sc.set_field(node, key, value)
                target[key] = value
        touched.add(target["id"])


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=sidecars(), style=st.sampled_from(STYLES), seed=st.integers(0, 11),
       steps=st.lists(edit, max_size=8), more=st.lists(edit, max_size=4))
def test_random_edits_write_exactly_the_intended_data(data, style, seed, steps, more):
    fmt = "json" if style.startswith("json") else "yaml"
    text = render(data, style)
    if fmt == "yaml":
        text = decorate(text, seed)
    # (the writers themselves do not always round-trip: ruamel folds some tabs away)
    assume(truth(text, fmt) == data)
    sc = parse_sidecar(text, fmt=fmt)
    assert sc.plain() == data and dump(sc) == text
    model = json.loads(json.dumps(data))
    touched: set[str] = set()
    apply(sc, model, steps, touched)
    rendered = render_sidecar(sc)
    out = rendered.text
    assert truth(out, fmt) == model
    before, after = item_blocks(text, fmt), item_blocks(out, fmt)
    for cid, block in before.items():
        if cid not in touched:
            assert after[cid] == block, (cid, style)
    if fmt == "yaml":
        assert comment_lines(out) == comment_lines(text)
    # the model handed on after the write is the model of the written text
    adopted = rendered.adopt()
    fresh = parse_sidecar(out, fmt=fmt)
    assert same_value(adopted.data, fresh.data)
    apply(adopted, json.loads(json.dumps(model)), more, set())
    apply(fresh, json.loads(json.dumps(model)), more, set())
    assert render_sidecar(adopted).text == render_sidecar(fresh).text


@settings(max_examples=150, deadline=None)
@given(data=sidecars(), style=st.sampled_from([s for s in STYLES if not s.startswith("json")]),
       seed=st.integers(0, 11))
def test_fast_reader_agrees_with_ruamel(data, style, seed):
    text = decorate(render(data, style), seed)
    assume(truth(text, "yaml") == data)
    read = yamlscan.read_document(text)  # these layouts must not be declined
    assert same_value(read.data, truth(text, "yaml"))
    assert len(read.items or []) == len(data["comments"])


yaml_snippets = st.sampled_from([
    "a: plain\n", "a: 'single ''quoted'''\n", 'a: "dq \\t \\u00e9 \\x41"\n', "a: |\n  lit\n  two\n",
    "a: >\n  folded\n  text\n\n  para\n", "a: |-\n  strip\n", "a: |2\n    indented\n", "a: [x, 'y', \"z\"]\n",
    "a: {k: v}\n", "a:\n  - 1\n  - two\n", "a:\n- 1\n- 2\n", "a: 2026-01-01\n", "a: 0o17\n", "a: .inf\n",
    "a: ~\n", "a: plain\n  continued\n\n  para\n", "a: 'sq\n  folded'\n", 'a: "dq \\\n  joined"\n',
    "a: &x 1\nb: *x\n", "a: !tag x\n", "? a\n: b\n", "a: b: c\n", "a: |+\n  keep\n\n", "a:\tb\n",
    "a: x # c\n", "a: x#y\n", "a: -1\n", "a: - 1\n", "a: [1, 2,]\n", "a: 'unterminated\n", "a: 1\na: 2\n",
    "a: >-\n  x\n   more\n  y\n", "a: |\n\n  after blank\n", "a: \"\\N\\_\\L\"\n", "a:\n  b:\n    c: [d]\n",
])


@pytest.mark.filterwarnings("ignore::Warning")
@settings(max_examples=400, deadline=None)
@given(parts=st.lists(yaml_snippets, min_size=1, max_size=4))
def test_fast_reader_reads_what_ruamel_reads_or_declines(parts):
    text = "".join(p.replace("a", f"k{n}", 1) if p.startswith("a") else p for n, p in enumerate(parts))
    try:
        expected = _parse_yaml_rt(text, "t").data
    except Exception:
        expected = None
    try:
        got = yamlscan.read_document(text, list_key="none").data
    except yamlscan.Unsupported:
        return
    assert expected is not None, text
    assert same_value(got, expected), text


@pytest.mark.parametrize("style", [s for s in STYLES if not s.startswith("json")])
def test_adding_one_comment_reads_back_only_the_new_lines(style, monkeypatch):
    data = {"mrsf_version": "1.0", "document": "a.md",
            "comments": [{"id": f"c{n}", "author": "a", "text": "word " * 30, "resolved": False} for n in range(20)]}
    sc = parse_sidecar(render(data, style))
    sc.append_comment({"id": "n1", "author": "z", "text": "new", "resolved": False})
    calls = []
    original = yamlscan.read_items
    monkeypatch.setattr(yamlscan, "read_items", lambda text, *a, **k: calls.append(text) or original(text, *a, **k))
    monkeypatch.setattr(yamlscan, "read_document", lambda *a, **k: pytest.fail("the whole text was read again"))
    rendered = render_sidecar(sc)
    assert len(calls) == 1 and calls[0].lstrip().startswith("- id: n1\n") and calls[0] in rendered.text
    assert truth(rendered.text, "yaml")["comments"][-1]["id"] == "n1"


def test_a_splice_that_would_not_read_back_is_refused(monkeypatch):
    sc = parse_sidecar(render({"mrsf_version": "1.0", "document": "a.md", "comments": [{"id": "c1", "text": "t"}]},
                              "pyyaml"))
    sc.append_comment({"id": "n1", "text": "x"})
    monkeypatch.setattr(yamlscan, "read_items", lambda *a, **k: yamlscan.Read(data=[{"id": "other"}]))
    with pytest.raises(Exception) as info:
        render_sidecar(sc)
    assert getattr(info.value, "code", None) == "internal-error"


@given(data=sidecars(), steps=st.lists(edit, min_size=1, max_size=6))
@settings(max_examples=60, deadline=None)
def test_unusual_text_is_written_through_the_full_parser(data, steps):
    """A sidecar the fast reader declines (a tab in a comment line, an anchor) is still
    edited in place and verified by the full parser."""
    text = render(data, "ruamel-wide") + "# a\ttab\nx_anchor: &a [1]\nx_alias: *a\n"
    with pytest.raises(yamlscan.Unsupported):
        yamlscan.read_document(text)
    sc = parse_sidecar(text)
    model = json.loads(json.dumps(sc.plain()))
    touched: set[str] = set()
    apply(sc, model, steps, touched)
    out = render_sidecar(sc).text
    assert truth(out, "yaml") == model
    assume(data["comments"])
    assert "x_anchor: &a [1]" in out


def anchored(text: str) -> str:
    """``text`` with the first ``author`` value anchored and every later equal one an alias of it."""
    out, value = [], None
    for line in text.split("\n"):
        m = re.fullmatch(r"( +)author: (.+)", line)
        if m and value is None:
            value = m.group(2)
            line = f"{m.group(1)}author: &who {value}"
        elif m and m.group(2) == value:
            line = f"{m.group(1)}author: *who"
        out.append(line)
    return "\n".join(out)


@given(data=sidecars(), seed=st.integers(0, 11), steps=st.lists(edit, min_size=1, max_size=8))
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_edits_around_anchors_and_aliases_keep_every_value_and_comment(data, seed, steps):
    """An anchored value changed, dropped or moved, or its comment deleted: the aliases
    elsewhere still read what they read (the anchor moves to the first one left)."""
    text = decorate(anchored(render(data, "ruamel")), seed)
    assume("*who" in text and truth(text, "yaml") == data)
    sc = parse_sidecar(text)
    model = json.loads(json.dumps(data))
    apply(sc, model, steps, set())
    out = render_sidecar(sc).text
    assert truth(out, "yaml") == model
    assert comment_lines(out) == comment_lines(text)
