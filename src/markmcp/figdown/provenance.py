"""The self-carrying artifact: writing its metadata, and reading it back.

Just before ``</svg>`` an artifact carries::

    <metadata id="figdown-source" data-sha256="…" data-engine-version="…"
              [data-render-options="with-title"]><![CDATA[
    …the source, byte for byte…
    ]]></metadata>

The hash is of the SOURCE (UTF-8), never of the picture.  Each ``]]>`` in the
source is written ``]]]]><![CDATA[>`` — the section is split inside its own
terminator and the two halves concatenate back to the original, so the source
can never close its container.

Reading is CDATA-aware (core §15.4): the document is scanned as markup, CDATA
sections and comments are stepped over whole, so a ``</metadata>`` or ``]]>``
written inside the source cannot end the extraction early.  Nothing is read
from the picture itself.  A numeric character reference outside the CDATA must
be ASCII digits naming a character XML allows (no surrogate, no noncharacter, at
most 16 digits), or the file is not an artifact: :class:`NotAnArtifact` names
the reference and its offset (an artifact we write holds no reference at all).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from .. import __version__

#: The version string every artifact we write records (``data-engine-version``).
ENGINE_VERSION = f"markmcp-figdown {__version__}"

NO_METADATA = ('is an SVG with no <metadata id="figdown-source"> block — it was not produced '
               "by FigDown, so there is no source to read. Never OCR the picture.")


def sha256(source: str) -> str:
    return hashlib.sha256(source.encode("utf-8")).hexdigest()


def metadata(source: str, *, with_title: bool = False) -> str:
    options = ' data-render-options="with-title"' if with_title else ""
    body = source.replace("]]>", "]]]]><![CDATA[>")
    return (f'<metadata id="figdown-source" data-sha256="{sha256(source)}" '
            f'data-engine-version="{ENGINE_VERSION}"{options}><![CDATA[\n{body}\n]]></metadata>')


def embed(svg: str, source: str, *, with_title: bool = False) -> str:
    """The picture with its source metadata inserted just before the closing ``</svg>``."""
    assert svg.endswith("</svg>")
    return svg[:-len("</svg>")] + metadata(source, with_title=with_title) + "</svg>"


class NotAnArtifact(ValueError):
    """The SVG carries no FigDown source metadata, or a malformed one (the message says which)."""


@dataclass(frozen=True)
class Artifact:
    source: str                  # the embedded source, byte for byte
    recorded_sha256: str | None  # as written in data-sha256
    engine_version: str | None   # as written in data-engine-version
    render_options: str | None   # as written in data-render-options

    @property
    def sha256_ok(self) -> bool:
        """Does the recorded hash match the embedded source?"""
        return self.recorded_sha256 == sha256(self.source)

    @property
    def engine_skew(self) -> bool:
        """Was it drawn by another engine (or version) than this one?"""
        return self.engine_version != ENGINE_VERSION

    @property
    def with_title(self) -> bool:
        return "with-title" in (self.render_options or "").split()


_ENTITIES = {"lt": "<", "gt": ">", "amp": "&", "quot": '"', "apos": "'"}
DECIMAL, HEX = frozenset("0123456789"), frozenset("0123456789abcdefABCDEF")
MAX_REFERENCE_DIGITS = 16
"""The most digits a character reference may have (U+10FFFF is 7 decimal digits, 6 hex;
the rest is room for leading zeros): a longer one is refused, not handed to ``int()``."""
REFERENCE_SHOWN = 24   # characters of a refused reference quoted in the message


def _is_xml_char(code: int) -> bool:
    """Is ``code`` a character XML 1.0 allows (``Char``), and not a noncharacter?  A
    surrogate cannot stand alone in a string that is written out as UTF-8."""
    if not (code in (0x9, 0xA, 0xD) or 0x20 <= code <= 0xD7FF or 0xE000 <= code <= 0xFFFD
            or 0x10000 <= code <= 0x10FFFF):
        return False
    return not (0xFDD0 <= code <= 0xFDEF or code & 0xFFFE == 0xFFFE)


def malformed(reference: str, at: int, why: str) -> NotAnArtifact:
    """The refusal of a malformed character reference at character offset ``at`` (from 0)
    of the SVG."""
    shown = reference if len(reference) <= REFERENCE_SHOWN else reference[:REFERENCE_SHOWN] + "…"
    return NotAnArtifact(f'is not a FigDown artifact: its <metadata id="figdown-source"> block holds a malformed '
                         f'character reference "{shown}" at character offset {at} ({why}), so there is no source '
                         "to read")


def _character(name: str, at: int) -> str:
    """The character a numeric reference ``&{name};`` (``name`` begins ``#``) names: ASCII
    decimal digits, or ``x`` and ASCII hex digits, naming a character XML allows."""
    hexadecimal = name[1:2] in ("x", "X")
    digits = name[2:] if hexadecimal else name[1:]
    allowed = HEX if hexadecimal else DECIMAL
    reference = f"&{name};"
    if not digits or not all(c in allowed for c in digits):
        raise malformed(reference, at, "a character reference is &# and ASCII digits, or &#x and hex digits")
    if len(digits) > MAX_REFERENCE_DIGITS:
        raise malformed(reference, at, f"more than {MAX_REFERENCE_DIGITS} digits")
    code = int(digits, 16 if hexadecimal else 10)
    if not _is_xml_char(code):
        raise malformed(reference, at, f"U+{code:04X} is not a character a document may hold"
                                       if code <= 0x10FFFF else "past U+10FFFF, the last code point")
    return chr(code)


def _unescape(text: str, base: int) -> str:
    """``text`` (at character ``base`` of the SVG) with its references replaced; a numeric
    reference that does not name an allowed character raises :class:`NotAnArtifact`."""
    if "&" not in text:
        return text
    out, i = [], 0
    while True:
        j = text.find("&", i)
        if j < 0:
            out.append(text[i:])
            return "".join(out)
        k = text.find(";", j)
        if k < 0:
            out.append(text[i:])
            return "".join(out)
        out.append(text[i:j])
        name = text[j + 1:k]
        ch = _character(name, base + j) if name.startswith("#") else _ENTITIES.get(name)
        out.append(text[j:k + 1] if ch is None else ch)
        i = k + 1


def _tag_end(svg: str, i: int) -> int:
    """Index just past the ``>`` closing the tag that opens at ``i`` (quotes honoured).

    Found with ``str.find``, not a walk over every character: the first ``>`` ends
    the tag unless a quote opens before it, and then the search goes on past the
    closing quote (a quote is looked for only up to that ``>``, so a tag costs its
    own length whatever follows it)."""
    n = len(svg)
    while True:
        gt = svg.find(">", i)
        stop = n if gt < 0 else gt
        dq, sq = svg.find('"', i, stop), svg.find("'", i, stop)
        q = dq if sq < 0 or 0 <= dq < sq else sq
        if q < 0:
            return n if gt < 0 else gt + 1
        close = svg.find(svg[q], q + 1)
        if close < 0:
            return n
        i = close + 1


def _attributes(tag_text: str, base: int) -> dict[str, str]:
    """The attributes of a tag whose text (after its name) is ``tag_text``, at character
    ``base`` of the SVG."""
    out: dict[str, str] = {}
    i, n = 0, len(tag_text)
    while i < n:
        while i < n and tag_text[i] in " \t\r\n/":
            i += 1
        j = i
        while j < n and tag_text[j] not in " \t\r\n=/>":
            j += 1
        name = tag_text[i:j]
        if not name:
            break
        i = j
        while i < n and tag_text[i] in " \t\r\n":
            i += 1
        if i < n and tag_text[i] == "=":
            i += 1
            while i < n and tag_text[i] in " \t\r\n":
                i += 1
            if i < n and tag_text[i] in "\"'":
                q = tag_text[i]
                k = tag_text.find(q, i + 1)
                k = n if k < 0 else k
                out.setdefault(name, _unescape(tag_text[i + 1:k], base + i + 1))
                i = k + 1
            else:
                k = i
                while k < n and tag_text[k] not in " \t\r\n>":
                    k += 1
                out.setdefault(name, _unescape(tag_text[i:k], base + i))
                i = k
        else:
            out.setdefault(name, "")
    return out


def _skip(svg: str, i: int) -> int | None:
    """Past a CDATA section, comment, processing instruction or declaration at ``i``."""
    for opener, closer in (("<![CDATA[", "]]>"), ("<!--", "-->"), ("<?", "?>")):
        if svg.startswith(opener, i):
            j = svg.find(closer, i + len(opener))
            return len(svg) if j < 0 else j + len(closer)
    if svg.startswith("<!", i):
        return _tag_end(svg, i)
    return None


def read_artifact(svg: str) -> Artifact:
    """The source embedded in a FigDown artifact (raises :class:`NotAnArtifact`)."""
    i, n = 0, len(svg)
    while i < n:
        lt = svg.find("<", i)
        if lt < 0:
            break
        skipped = _skip(svg, lt)
        if skipped is not None:
            i = skipped
            continue
        end = _tag_end(svg, lt)
        raw = svg[lt + 1:end - 1]
        name = raw.split(None, 1)[0].rstrip("/") if raw.strip() else ""
        i = end
        if name != "metadata" or raw.endswith("/"):
            continue
        attrs = _attributes(raw[len("metadata"):], lt + 1 + len("metadata"))
        if attrs.get("id") != "figdown-source":
            continue
        return _read_body(svg, i, attrs)
    raise NotAnArtifact(NO_METADATA)


def _read_body(svg: str, i: int, attrs: dict[str, str]) -> Artifact:
    chunks: list[str] = []
    n = len(svg)
    while i < n:
        lt = svg.find("<", i)
        if lt < 0:
            raise NotAnArtifact(NO_METADATA)
        chunks.append(_unescape(svg[i:lt], i))
        if svg.startswith("<![CDATA[", lt):
            j = svg.find("]]>", lt + 9)
            if j < 0:
                raise NotAnArtifact(NO_METADATA)
            chunks.append(svg[lt + 9:j])
            i = j + 3
            continue
        skipped = _skip(svg, lt)
        if skipped is not None:
            i = skipped
            continue
        if svg.startswith("</metadata", lt):
            break
        i = _tag_end(svg, lt)  # an element inside the metadata: its text is not source
    else:
        raise NotAnArtifact(NO_METADATA)
    source = "".join(chunks)
    if source.startswith("\n"):
        source = source[1:]
    if source.endswith("\n"):
        source = source[:-1]
    try:
        source.encode("utf-8")
    except UnicodeEncodeError as error:   # only a string made in memory can hold one
        raise NotAnArtifact(f'is not a FigDown artifact: the source in its <metadata id="figdown-source"> block '
                            f"holds a lone surrogate U+{ord(source[error.start]):04X} at character offset "
                            f"{error.start} of the source, which is not a character, so there is no source to "
                            "read") from None
    return Artifact(source, attrs.get("data-sha256"), attrs.get("data-engine-version"),
                    attrs.get("data-render-options"))
