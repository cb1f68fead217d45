"""Which keywords each genre declares (core §3 ``GENRE-VOCABULARY-OBLIGATION``).

Subject vocabulary is per genre: a spelling several genres accept is several
independent declarations.  The genre-free core (``figdown``, ``title``,
``layout``, ``pin``) is legal everywhere.
"""

from __future__ import annotations

from . import messages as M

LANG_VERSIONS = ("0.1", "0.2", "0.3", "0.4", "0.5")

_BASE_GENRES = ("block", "topology", "flowchart", "bitfield", "table", "timing")
GENRES_BY_VERSION: dict[str, tuple[str, ...]] = {
    "0.1": _BASE_GENRES,
    "0.2": _BASE_GENRES + ("statechart",),
    "0.3": _BASE_GENRES + ("statechart",),
    "0.4": _BASE_GENRES + ("statechart", "sequence"),
    "0.5": _BASE_GENRES + ("statechart", "sequence"),
}

CORE_WORDS = ("figdown", "title", "layout", "pin")
SCENE_SHARED_WORDS = CORE_WORDS + ("class", "flow", "rank", "bitfield", "table", "timing", "chart")

GENRE_KEYWORDS: dict[str, frozenset[str]] = {
    "block": frozenset(SCENE_SHARED_WORDS + ("group", "external", "threshold", "band", "node", "edge")),
    "topology": frozenset(SCENE_SHARED_WORDS + ("group", "external", "bundle", "node", "edge")),
    "flowchart": frozenset(SCENE_SHARED_WORDS + ("external", "node", "flowline",
                                         "process", "decision", "terminator")),
    "statechart": frozenset(SCENE_SHARED_WORDS + ("state", "transition")),
    "bitfield": frozenset(CORE_WORDS + ("class", "bitfield")),
    "table": frozenset(CORE_WORDS + ("class", "table", "chart")),
    "timing": frozenset(CORE_WORDS + ("class", "timing")),
    "sequence": frozenset(CORE_WORDS + ("class", "state", "fragment", "operand",
                                        "lifeline", "message")),
}

#: Typed-block children: legal only under an open bitfield/table/timing block.
CHILD_KEYWORDS = frozenset({"field", "break", "cell", "width", "signal", "gap"})

#: The shape a node keyword draws when the line gives no shape=.
KEYWORD_SHAPE = {"node": "box", "state": "rounded", "process": "box", "decision": "diamond",
                 "terminator": "rounded"}

GENRE_NODE_WORD = {"block": "node", "topology": "node", "flowchart": "node",
                   "statechart": "state", "sequence": "lifeline"}
GENRE_CONNECTOR_WORD = {"block": "edge", "topology": "edge", "flowchart": "flowline",
                        "statechart": "transition", "sequence": "message"}
#: Under figdown 0.1 every scene genre spelled its connector `edge`.
CONNECTOR_WORD_0_1 = {"block": "edge", "topology": "edge", "flowchart": "edge"}
CONNECTOR_MIN_VERSION = {"flowline": "0.2", "transition": "0.2"}
NODE_SPELLINGS = frozenset({"node", "state", "lifeline"})
CONNECTOR_SPELLINGS = ("edge", "flowline", "transition", "message")

KEYWORD_MIGRATIONS = {
    "colw": M.COLW_NOW_WIDTH,
    "line": M.LINE_NOW_THRESHOLD,
    "fill": M.FILL_KEYWORD_NOW_BAND,
    "route": M.ROUTE_WITHDRAWN,
    "path": M.PATH_WITHDRAWN,
    "routing": M.ROUTING_WITHDRAWN,
    "render": M.RENDER_NOW_LAYOUT,
    "wrap": M.WRAP_NOW_BREAK,
    "boundary": M.BOUNDARY_NOW_EXTERNAL,
    "layer": M.LAYER_WITHDRAWN,
    "plane": M.PLANE_WITHDRAWN,
    "guide": M.GUIDE_NOW_THRESHOLD,
    "wave": M.WAVE_NOW_TIMING,
    "size": M.SIZE_MOVED_TO_PIN,
    "plot": M.PLOT_NOW_CHART,
}
DYNAMIC_PROFILE_WORDS = frozenset({"page", "set", "pulse"})


def connector_word(genre: str, version: str | None) -> str | None:
    if version == "0.1":
        return CONNECTOR_WORD_0_1.get(genre)
    return GENRE_CONNECTOR_WORD.get(genre)


def connector_word_error(surface: str, genre: str, version: str | None) -> str | None:
    """Why ``surface`` is the wrong connector keyword for this genre, or None."""
    want = connector_word(genre, version)
    if want is None:
        return f'"{surface}" is not allowed in genre {genre}'
    if surface == want:
        return None
    need = CONNECTOR_MIN_VERSION.get(surface)
    if need and version and need > version and GENRE_CONNECTOR_WORD.get(genre) == surface:
        return M.wrong_version_word(surface, want, genre, need, version)
    return M.wrong_word(surface, want, genre)


def keyword_error(keyword: str, genre: str) -> str | None:
    """Why a (non-child) keyword is not in this genre's vocabulary, or None."""
    if keyword in GENRE_KEYWORDS[genre]:
        return None
    if keyword in NODE_SPELLINGS and genre in GENRE_NODE_WORD:
        return M.wrong_word(keyword, GENRE_NODE_WORD[genre], genre)
    if (genre, keyword) in M.KEYWORD_WITHDRAWN_IN_GENRE:
        return M.withdrawn_from_genre(keyword, genre)
    if (genre, keyword) in M.KEYWORD_REFUSED_IN_GENRE:
        return M.refused_in_genre(keyword, genre)
    return f'"{keyword}" is not allowed in genre {genre}'
