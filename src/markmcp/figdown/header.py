"""The version header: ``figdown <X.Y> <genre>`` (core §13, ``HEADER-GENRE-REQUIREMENT``).

The header must be the first significant line of a section (comments and
blank lines may precede it).  Version and genre are closed-set values and so
are written bare.  A genre the declared version does not have yet is named
with the version that introduced it.
"""

from __future__ import annotations

from . import messages as M
from .context import Context
from .options import Split
from .vocabulary import GENRES_BY_VERSION, LANG_VERSIONS


def directive_header(ctx: Context, n: int, sp: Split) -> None:
    ctx.saw_header = True
    version_quoted, genre_quoted = sp.argq(1), sp.argq(2)
    version_raw, genre = sp.arg(1), sp.arg(2)
    version_ok = not version_quoted and version_raw in LANG_VERSIONS
    version = version_raw if version_ok else "0.1"
    if version_quoted:
        ctx.err(n, M.enum_bare(f"figdown {version_raw} <genre>"))
    elif genre_quoted:
        ctx.err(n, M.enum_bare(f"figdown {version} {genre}"))
    if not version_quoted and version_raw not in LANG_VERSIONS:
        expected = " or ".join(LANG_VERSIONS)
        ctx.err(n, f'unsupported version "{version_raw or ""}" (expected {expected})')
    genres = GENRES_BY_VERSION[version]
    listing = "(" + "|".join(genres) + ")"
    if genre is None:
        ctx.err(n, f"figdown header requires a genre {listing}")
    elif genre_quoted:
        pass  # the quoting error above is this token's one error
    elif genre == "wave":
        ctx.err(n, M.WAVE_NOW_TIMING)
    elif genre not in genres:
        later = next((v for v in LANG_VERSIONS if v > version and genre in GENRES_BY_VERSION[v]), None)
        if later:
            ctx.err(n, f'genre "{genre}" requires figdown {later} (this document declares {version}) — '
                       f"write: figdown {later} {genre}")
        else:
            ctx.err(n, f'unknown genre "{genre}" {listing}')
    else:
        ctx.doc.genre = genre
        ctx.doc.version = version
        if genre == "flowchart":
            ctx.doc.flow = "down"
    if len(sp.pos) > 3:
        ctx.err(n, f'unexpected argument "{sp.pos[3]}"')
