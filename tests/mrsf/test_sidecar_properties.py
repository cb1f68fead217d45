"""Property tests: any sequence of edits on any example sidecar dumps to text that reads
back as exactly the edited data, keeps every full-line YAML comment, and never touches
lines of comments that were not edited."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import shared_dir
from markmcp.mrsf.sidecar import parse_sidecar

EXAMPLES = ["api-reference", "architecture", "contributing", "data-model", "deployment-guide", "security-policy"]

text_values = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00\ufeff"),
    max_size=40,
)
scalars = st.one_of(text_values, st.integers(-5, 10**6), st.booleans(), st.none(),
                    st.floats(allow_nan=False, allow_infinity=False, width=32))
keys = st.sampled_from(["text", "resolved", "line", "end_line", "type", "severity", "anchored_text",
                        "x_reanchor_status", "x_reanchor_score", "x_new", "commit", "selected_text"])
ops = st.lists(st.one_of(
    st.tuples(st.just("append"), st.dictionaries(st.sampled_from(["text", "author", "x_a", "line"]), scalars, max_size=4)),
    st.tuples(st.just("set"), st.integers(0, 40), keys, scalars),
    st.tuples(st.just("del"), st.integers(0, 40), keys),
    st.tuples(st.just("remove"), st.integers(0, 40)),
), max_size=8)


def full_line_comments(text: str) -> list[str]:
    return sorted(line.strip() for line in text.split("\n") if line.strip().startswith("#"))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(EXAMPLES), fmt=st.sampled_from(["yaml", "json"]), steps=ops)
def test_random_edits_read_back_exactly(name, fmt, steps):
    text = (shared_dir("mrsf", "examples") / f"{name}.md.review.yaml").read_text(encoding="utf-8")
    if fmt == "json":
        text = json.dumps(parse_sidecar(text).plain(), indent=2, ensure_ascii=False) + "\n"
    sc = parse_sidecar(text, fmt=fmt)
    assert sc.dump() == text
    model = sc.plain()
    touched: set[str] = set()
    counter = 0
    for step in steps:
        comments = model["comments"]
        if step[0] == "append":
            counter += 1
            item = {"id": f"new-{counter}", **step[1]}
            sc.append_comment(item)
            comments.append(item)
        elif not comments:
            continue
        elif step[0] == "set":
            i = step[1] % len(comments)
            sc.set_field(sc.comments[i], step[2], step[3])
            comments[i][step[2]] = step[3]
            touched.add(comments[i]["id"])
        elif step[0] == "del":
            i = step[1] % len(comments)
            sc.delete_field(sc.comments[i], step[2])
            comments[i].pop(step[2], None)
            touched.add(comments[i]["id"])
        else:
            i = step[1] % len(comments)
            sc.remove_comment(i)
            touched.add(comments.pop(i)["id"])
    out = sc.dump()
    again = parse_sidecar(out, fmt=fmt)
    assert again.plain() == model
    if fmt == "json":
        return
    assert full_line_comments(out) == full_line_comments(text)
    # comments nobody touched keep their exact lines
    original = parse_sidecar(text)
    for index, item in enumerate(original.comments):
        if item["id"] in touched:
            continue
        start = original.comments.lc.item(index)[0]
        first = text.split("\n")[start]
        assert first in out.split("\n")
