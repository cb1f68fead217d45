"""The FigDown artifact: deterministic, well-formed, inside the Safe SVG profile,
self-carrying (its source reads back byte for byte), and hostile text stays data.

Corpus: every clean document of the conformance corpus, both render modes, plus the
examples in our shipped docs."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from markmcp.figdown import parse
from markmcp.figdown.render import (ENGINE_VERSION, NotAnArtifact, build, check_sidecar,
                                    read_artifact, sha256)
from conftest import SHARED, shared_dir
from figdown.svgprofile import safe_profile_problems
from figdown.test_docs_figdown import EXAMPLES

def corpus_sources() -> list[tuple[str, str]]:
    out = []
    for corpus in ("cases", "experimental"):
        folder = SHARED / "figdown" / "conformance" / corpus
        for fd in sorted(folder.glob("*.fd")) if folder.is_dir() else ():
            out.append((f"{corpus}/{fd.stem}", fd.read_bytes().decode("utf-8")))
    return out


def doc_sources() -> list[tuple[str, str]]:
    return [(f"{name}:{line}", source) for name, line, source in EXAMPLES]


def clean(sources):
    return [(n, s) for n, s in sources if parse(s).ok]


def markup_regions(svg: str) -> str:
    """The bytes of the document that are markup (tags), with text and CDATA removed."""
    out, i = [], 0
    while i < len(svg):
        if svg.startswith("<![CDATA[", i):
            i = svg.index("]]>", i) + 3
        elif svg[i] == "<":
            j = svg.index(">", i)
            out.append(svg[i:j + 1])
            i = j + 1
        else:
            i += 1
    return "".join(out)


@pytest.fixture(scope="module")
def built():
    shared_dir("figdown", "conformance", "cases")
    sources = clean(corpus_sources()) + clean(doc_sources())
    assert len(sources) > 120
    return [(name, src, build(src), build(src, with_title=True)) for name, src in sources]


def test_every_clean_document_builds_without_diagnostics(built) -> None:
    refused = {"cases/369-pin-complete-cover-refused", "experimental/958-bundle-lasso-encloses-pinned",
               "experimental/959-bundle-lasso-encloses-auto"}
    for name, _src, plain, titled in built:
        if name in refused:
            assert plain.svg is None and plain.diagnostics, name
        else:
            assert plain.svg is not None and not plain.diagnostics, (name, plain.error_lines())
            assert titled.svg is not None, name


def test_two_builds_are_byte_identical(built) -> None:
    for name, src, plain, titled in built:
        assert build(src).svg == plain.svg, name
        assert build(src, with_title=True).svg == titled.svg, name


def test_every_artifact_stays_inside_the_safe_svg_profile(built) -> None:
    for name, _src, plain, titled in built:
        for out in (plain, titled):
            if out.svg is not None:
                assert safe_profile_problems(out.svg) == [], name


def test_the_only_absolute_uri_in_markup_is_the_svg_namespace(built) -> None:
    for name, _src, plain, _titled in built:
        if plain.svg is not None:
            uris = re.findall(r"[a-zA-Z][a-zA-Z0-9+.-]*://[^\"'\s<>]*", markup_regions(plain.svg))
            assert set(uris) <= {"http://www.w3.org/2000/svg"}, name


def test_every_artifact_reads_back_to_its_source_and_model(built) -> None:
    for name, src, plain, titled in built:
        for out, title in ((plain, False), (titled, True)):
            if out.svg is None:
                continue
            art = read_artifact(out.svg)
            assert art.source == src, name
            assert art.sha256_ok and art.recorded_sha256 == sha256(src)
            assert art.engine_version == ENGINE_VERSION and not art.engine_skew
            assert art.with_title is title
            assert parse(art.source).models == out.result.models


def test_metadata_sits_just_before_the_closing_tag(built) -> None:
    for name, src, plain, titled in built:
        if plain.svg is None:
            continue
        assert plain.svg.endswith("]]></metadata></svg>"), name
        assert markup_regions(plain.svg).count('<metadata id="figdown-source"') == 1
        assert 'data-render-options="with-title"' in titled.svg
        assert "data-render-options" not in plain.svg


HOSTILE = [
    "<script>alert(1)</script>",
    '" onclick="alert(1)',
    "javascript:alert(1)",
    "]]>",
    "]]]]><![CDATA[>",
    "</metadata>",
    "<foreignObject>",
    "@import url(https://example.invalid/x.css);",
    "&amp; &lt; <!-- -->",
]


@pytest.mark.parametrize("payload", HOSTILE)
def test_hostile_text_is_inert_and_reads_back_exactly(payload: str) -> None:
    quoted = payload.replace("\\", "\\\\").replace('"', '\\"')
    source = (f'figdown 0.3 block\ntitle "{quoted}" note="{quoted}"\n'
              f'class c "{quoted}" fill=#eee\n'
              f'group g "{quoted}" note="{quoted}"\n'
              f'node a "{quoted}" in=g class=c note="{quoted}"\nnode b "B"\n'
              f'edge a -["{quoted}"]-> b note="{quoted}"\n# comment {payload}\n')
    assert parse(source).ok, parse(source).error_lines()
    for with_title in (False, True):
        out = build(source, with_title=with_title)
        assert out.svg is not None, out.error_lines()
        assert safe_profile_problems(out.svg) == []
        markup = markup_regions(out.svg)
        for token in ("<script", "onclick", "javascript:", "foreignObject", "@import"):
            assert token not in markup.lower()
        art = read_artifact(out.svg)
        assert art.source == source and art.sha256_ok
        texts = "".join(ET.fromstring(out.svg).itertext())
        assert payload in texts  # drawn as text, not stripped


def test_an_svg_without_metadata_is_not_an_artifact() -> None:
    with pytest.raises(NotAnArtifact, match="Never OCR the picture"):
        read_artifact('<svg xmlns="http://www.w3.org/2000/svg"><rect x="0"/></svg>')
    fake = '<svg><metadata id="other"><![CDATA[figdown 0.1 block]]></metadata></svg>'
    with pytest.raises(NotAnArtifact):
        read_artifact(fake)


# Found by a security review: str.isdigit() let "²" and Arabic-Indic digits through to int(),
# 5,000 digits hit Python's int limit, and &#xD800; made a source sha256() could not encode:
# each a traceback in figdown build/read, markmcp check and the MCP tools.
DIGITS = "a character reference is &# and ASCII digits, or &#x and hex digits"
MALFORMED = {
    "superscript two": ("x&#\u00b2;", "&#\u00b2;", DIGITS),
    "Arabic-Indic digit": ("x&#\u0661\u0662;", "&#\u0661\u0662;", DIGITS),
    "fullwidth hex digit": ("x&#x\uff11;", "&#x\uff11;", DIGITS),
    "no digits": ("x&#;", "&#;", DIGITS),
    "5,000 digits": ("x&#" + "9" * 5000 + ";", "&#" + "9" * 22 + "…", "more than 16 digits"),
    "a surrogate": ("x&#xD800;", "&#xD800;", "U+D800 is not a character a document may hold"),
    "a decimal surrogate": ("x&#57343;", "&#57343;", "U+DFFF is not a character a document may hold"),
    "a noncharacter": ("x&#xFFFE;", "&#xFFFE;", "U+FFFE is not a character a document may hold"),
    "a plane's noncharacter": ("x&#x10FFFF;", "&#x10FFFF;", "U+10FFFF is not a character a document may hold"),
    "NUL": ("x&#0;", "&#0;", "U+0000 is not a character a document may hold"),
    "past the last code point": ("x&#1114112;", "&#1114112;", "past U+10FFFF, the last code point"),
}


@pytest.mark.parametrize(("body", "shown", "why"), MALFORMED.values(), ids=MALFORMED.keys())
def test_a_malformed_character_reference_is_not_an_artifact(body: str, shown: str, why: str) -> None:
    head = '<svg xmlns="http://www.w3.org/2000/svg"><metadata id="figdown-source" data-sha256="00">'
    with pytest.raises(NotAnArtifact) as caught:
        read_artifact(head + body + "</metadata></svg>")
    assert str(caught.value) == (f'is not a FigDown artifact: its <metadata id="figdown-source"> block holds a '
                                 f'malformed character reference "{shown}" at character offset {len(head) + 1} '
                                 f"({why}), so there is no source to read")
    # in an attribute too, at its own offset
    tag = '<svg><metadata id="figdown-source" data-x="'
    with pytest.raises(NotAnArtifact, match=f"at character offset {len(tag)} "):
        read_artifact(tag + body[1:] + '">a</metadata></svg>')


def test_well_formed_character_references_still_read() -> None:
    art = read_artifact('<svg><metadata id="figdown-source" data-sha256="&#x61;b&#0000000000000099;">\n'
                        "figdown 0.1 block&#10;node a &#x22;&#X41;&#x1F600;&#34; &amp;&unknown; &#9;\n"
                        "</metadata></svg>")
    assert art.recorded_sha256 == "abc"
    assert art.source == 'figdown 0.1 block\nnode a "A\U0001F600" &&unknown; \t'


def test_a_source_holding_a_lone_surrogate_is_not_an_artifact() -> None:
    # only a string made in memory (an MCP argument) can hold one; sha256() could not encode it
    with pytest.raises(NotAnArtifact, match="holds a lone surrogate U\\+D800 at character offset 17 of the source"):
        read_artifact('<svg><metadata id="figdown-source"><![CDATA[\nfigdown 0.1 block\ud800\n]]></metadata></svg>')


def test_read_back_is_cdata_aware() -> None:
    source = 'figdown 0.1 block\n# </metadata> ]]> <metadata id="figdown-source">\nnode a "]]>"\n'
    svg = build(source).svg
    assert read_artifact(svg).source == source
    # a comment or CDATA section mentioning the tag before the real one is stepped over
    decoy = svg.replace("<svg ", '<!-- <metadata id="figdown-source"><![CDATA[x]]></metadata> --><svg ', 1)
    assert read_artifact(decoy).source == source


def test_engine_skew_and_sidecar_checks() -> None:
    source = "figdown 0.1 block\nnode a\nnode b\nedge a -> b\n"
    svg = build(source).svg
    other = svg.replace(f'data-engine-version="{ENGINE_VERSION}"', 'data-engine-version="0.5.0"')
    art = read_artifact(other)
    assert art.engine_skew and art.engine_version == "0.5.0"
    assert check_sidecar(read_artifact(svg), source).status == "matches"
    stale = check_sidecar(read_artifact(svg), source + "node c\n")
    assert stale.status == "stale" and "STALE ARTIFACT" in stale.describe("x.fd")
    refused = check_sidecar(read_artifact(svg), source + "node a\n")
    assert refused.status == "refused" and refused.diagnostics
    assert "SIDECAR REFUSED" in refused.describe("x.fd")


def test_a_parse_error_draws_nothing() -> None:
    out = build("figdown 0.1 block\nnode a\nbogus line\n")
    assert out.svg is None and out.diagnostics


def test_multi_section_documents_stack_with_prefixed_ids() -> None:
    source = "figdown 0.1 block\nnode a\n\nfigdown 0.1 block\nnode b\n"
    svg = build(source).svg
    ids = re.findall(r'\bid="([^"]+)"', svg)
    assert "s0_arr" in ids and "s1_arr" in ids and "figdown-source" in ids
    assert len(ids) == len(set(ids))
    assert svg.count('data-node="a"') == 1 and svg.count('data-node="b"') == 1


def test_upstream_shipped_artifacts_read_back(tmp_path: Path) -> None:
    """Upstream's own artifacts: recorded hash matches, engine skew is reported."""
    mirror = Path(__import__("os").environ.get("FIGDOWN_UPSTREAM", ""))
    svgs = sorted((mirror / "examples").rglob("*.svg")) if mirror.name else []
    if not svgs:
        pytest.skip("set FIGDOWN_UPSTREAM to an upstream FigDown checkout to read its artifacts")
    for svg in svgs:
        art = read_artifact(svg.read_text(encoding="utf-8"))
        assert art.sha256_ok, svg
        assert art.engine_skew
        fd = svg.with_suffix(".fd")
        if fd.exists():
            assert art.source == fd.read_text(encoding="utf-8"), svg
