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
from the picture itself.
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
    """The SVG carries no FigDown source metadata."""


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


def _unescape(text: str) -> str:
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
        if name.startswith("#x") or name.startswith("#X"):
            ch = chr(int(name[2:], 16)) if name[2:] and _is_hex(name[2:]) else None
        elif name.startswith("#"):
            ch = chr(int(name[1:])) if name[1:].isdigit() and int(name[1:]) <= 0x10FFFF else None
        else:
            ch = _ENTITIES.get(name)
        out.append(text[j:k + 1] if ch is None else ch)
        i = k + 1


def _is_hex(s: str) -> bool:
    return all(c in "0123456789abcdefABCDEF" for c in s) and int(s, 16) <= 0x10FFFF


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


def _attributes(tag_text: str) -> dict[str, str]:
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
                out.setdefault(name, _unescape(tag_text[i + 1:k]))
                i = k + 1
            else:
                k = i
                while k < n and tag_text[k] not in " \t\r\n>":
                    k += 1
                out.setdefault(name, _unescape(tag_text[i:k]))
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
        attrs = _attributes(raw[len("metadata"):])
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
        chunks.append(_unescape(svg[i:lt]))
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
    return Artifact(source, attrs.get("data-sha256"), attrs.get("data-engine-version"),
                    attrs.get("data-render-options"))
