"""The version header: ``figdown <X.Y> <genre>`` (core §13, ``HEADER-GENRE-REQUIREMENT``).

::

    header  = 'figdown' ws version ws genre
    version = one of LANG_VERSIONS, bare     ; anything else reads as 0.1
    genre   = one of the version's genres, bare

The header must be the first significant line of a section (comments and
blank lines may precede it).  Version and genre are closed-set values and so
are written bare; a quoted one gets the one "write it bare" message and no
further complaint about that token.  A genre the declared version does not
have yet is named with the version that introduced it.
"""

from __future__ import annotations

from . import messages as M
from .context import Context
from .options import Split
from .vocabulary import GENRES_BY_VERSION, LANG_VERSIONS

#: The version a header falls back to when its own is missing or unusable.
FALLBACK_VERSION = LANG_VERSIONS[0]
#: The retired genre name that has its own migration message.
RETIRED_GENRES = {"wave": M.WAVE_NOW_TIMING}


def header_version(sp: Split) -> tuple[str, list[str]]:
    """version — (the version the section is read under, problems)."""
    written = sp.arg(1)
    if sp.argq(1):
        return FALLBACK_VERSION, [M.enum_bare(f"figdown {written} <genre>")]
    if written in LANG_VERSIONS:
        return written, []
    expected = " or ".join(LANG_VERSIONS)
    return FALLBACK_VERSION, [f'unsupported version "{written or ""}" (expected {expected})']


def first_version_with(genre: str, after: str) -> str | None:
    """The earliest version later than ``after`` that has ``genre``."""
    later = LANG_VERSIONS[LANG_VERSIONS.index(after) + 1:]
    return next((v for v in later if genre in GENRES_BY_VERSION[v]), None)


def header_genre(sp: Split, version: str) -> tuple[str | None, list[str]]:
    """genre — (the accepted genre or None, problems) under ``version``."""
    genre = sp.arg(2)
    genres = GENRES_BY_VERSION[version]
    listing = "(" + "|".join(genres) + ")"
    if genre is None:
        return None, [f"figdown header requires a genre {listing}"]
    if sp.argq(2):
        # Said once, by the quoting message, unless the version already was.
        return None, [] if sp.argq(1) else [M.enum_bare(f"figdown {version} {genre}")]
    if genre in RETIRED_GENRES:
        return None, [RETIRED_GENRES[genre]]
    if genre in genres:
        return genre, []
    later = first_version_with(genre, version)
    if later:
        return None, [f'genre "{genre}" requires figdown {later} (this document declares {version}) — '
                      f"write: figdown {later} {genre}"]
    return None, [f'unknown genre "{genre}" {listing}']


def directive_header(ctx: Context, n: int, sp: Split) -> None:
    """header — records genre and version on the document, or reports why not."""
    ctx.saw_header = True
    version, version_problems = header_version(sp)
    genre, genre_problems = header_genre(sp, version)
    # A quoted genre's message is a quoting message: it comes before the version's.
    quoting_first = sp.argq(2) and not sp.argq(1) and sp.arg(2) is not None
    for message in (genre_problems + version_problems if quoting_first else version_problems + genre_problems):
        ctx.err(n, message)
    if genre is not None:
        ctx.doc.genre = genre
        ctx.doc.version = version
        if genre == "flowchart":
            ctx.doc.flow = "down"
    if len(sp.pos) > 3:
        ctx.err(n, f'unexpected argument "{sp.pos[3]}"')
