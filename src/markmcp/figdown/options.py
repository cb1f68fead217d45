"""The closed option registry (core §5, §10) and the generic option checks.

Two questions are asked of every ``key=value`` token, in this order.  Is the
key one the language knows at all?  If not, it is an ``unknown option``.  If
it is, may this directive carry it?  :data:`DIRECTIVE_OPTIONS` answers that
(``node does not take numbering=``).

Keys the language has retired are still known, so a line that uses one gets
its migration message (:data:`messages.OPTION_KEY_MIGRATIONS`) instead of the
generic unknown-option error.  Options may appear anywhere on a line;
positional arguments are read as if the options were not there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from . import messages as M
from .lexer import ID_RE, ListItem, Token, split_list

# --- the registry ----------------------------------------------------------

#: Every option key the language knows, retired ones included (a set: order is irrelevant).
OPTION_KEYS = frozenset(
    "at class color data description dir dst extend fill from gap h headlabel headport "
    "height id in index kind label labels layer level note numbering offset plane points "
    "present routing shape src stroke style taillabel tailport text to type unit via w width "
    "word z z-index ".split()
)

_NODE_OPTS = ("shape", "fill", "stroke", "style", "class", "in", "width", "height", "note")
_CONNECTOR_OPTS = ("style", "class", "fill", "stroke", "label", "taillabel", "headlabel", "note", "id")

#: Which registered keys each directive accepts.
DIRECTIVE_OPTIONS: dict[str, tuple[str, ...]] = {
    "figdown": (),
    "title": ("note",),
    "node": _NODE_OPTS,
    "process": _NODE_OPTS,
    "decision": _NODE_OPTS,
    "terminator": _NODE_OPTS,
    "state": _NODE_OPTS,
    "group": ("fill", "stroke", "style", "gap", "class", "note"),
    "external": (),
    "edge": _CONNECTOR_OPTS,
    "flowline": _CONNECTOR_OPTS,
    "transition": _CONNECTOR_OPTS,
    "message": _CONNECTOR_OPTS + ("in", "description"),
    "lifeline": ("class", "fill", "stroke", "style", "in", "note", "description"),
    "fragment": ("type", "class", "stroke", "style", "in", "note", "description"),
    "operand": ("in", "class", "stroke", "style", "note", "description"),
    "flow": (),
    "rank": (),
    "bundle": ("fill", "stroke", "style"),
    "threshold": ("in", "at", "offset", "fill", "stroke", "style"),
    "band": ("in", "extend", "fill", "stroke", "style", "from", "to"),
    "pin": ("at", "width", "height"),
    "layout": (),
    "class": ("fill", "stroke", "style"),
    "bitfield": ("word", "numbering", "fill", "stroke"),
    "table": ("fill", "stroke"),
    "timing": ("fill", "stroke"),
    "chart": ("type",),
    "field": ("fill", "stroke", "class", "description", "present", "index", "note"),
    "break": (),
    "cell": ("fill", "stroke", "class"),
    "width": (),
    "signal": ("data", "fill", "stroke"),
    "gap": (),
}

#: Per-genre overrides: under ``sequence`` a ``state`` is an occurrence on a lifeline.
GENRE_DIRECTIVE_OPTIONS: dict[tuple[str, str], tuple[str, ...]] = {
    ("sequence", "state"): ("class", "fill", "stroke", "style", "in", "note", "description"),
}

#: The version an option key first became legal in.
OPTION_MIN_VERSION = {"note": "0.3", "id": "0.5"}

STYLES = ("solid", "dashed", "dotted")
#: Keys whose values come from a closed set and so must be written bare.
CLOSED_SET_KEYS = ("shape", "style", "numbering", "extend", "type")
#: Directives without an interior: fill= would be a second spelling of stroke=.
LINE_ONLY_DIRECTIVES = frozenset({"edge", "flowline", "transition", "threshold", "bundle"})
#: Typed-block items that lost style=.
STYLELESS_CHILDREN = frozenset({"field", "cell", "signal"})
#: Values that must be quoted prose.
TEXT_VALUED_KEYS = ("description", "present", "note")

CSS_COLOR_NAMES = frozenset("""
aliceblue antiquewhite aqua aquamarine azure beige bisque black blanchedalmond blue
blueviolet brown burlywood cadetblue chartreuse chocolate coral cornflowerblue cornsilk
crimson cyan darkblue darkcyan darkgoldenrod darkgray darkgreen darkgrey darkkhaki
darkmagenta darkolivegreen darkorange darkorchid darkred darksalmon darkseagreen
darkslateblue darkslategray darkslategrey darkturquoise darkviolet deeppink deepskyblue
dimgray dimgrey dodgerblue firebrick floralwhite forestgreen fuchsia gainsboro ghostwhite
gold goldenrod gray green greenyellow grey honeydew hotpink indianred indigo ivory khaki
lavender lavenderblush lawngreen lemonchiffon lightblue lightcoral lightcyan
lightgoldenrodyellow lightgray lightgreen lightgrey lightpink lightsalmon lightseagreen
lightskyblue lightslategray lightslategrey lightsteelblue lightyellow lime limegreen
linen magenta maroon mediumaquamarine mediumblue mediumorchid mediumpurple mediumseagreen
mediumslateblue mediumspringgreen mediumturquoise mediumvioletred midnightblue mintcream
mistyrose moccasin navajowhite navy oldlace olive olivedrab orange orangered orchid
palegoldenrod palegreen paleturquoise palevioletred papayawhip peachpuff peru pink plum
powderblue purple red rosybrown royalblue saddlebrown salmon sandybrown seagreen seashell
sienna silver skyblue slateblue slategray slategrey snow springgreen steelblue tan teal
thistle tomato turquoise violet wheat white whitesmoke yellow yellowgreen transparent
""".split())

HEX_COLOR_RE = re.compile(r"#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})\Z")
OPTION_TOKEN_RE = re.compile(r"([A-Za-z_][A-Za-z0-9_\-]*)=(.*)\Z", re.S)

LANG_VERSIONS = ("0.1", "0.2", "0.3", "0.4", "0.5")


def directive_options(keyword: str | None, genre: str | None) -> tuple[str, ...] | None:
    if genre and (genre, keyword) in GENRE_DIRECTIVE_OPTIONS:
        return GENRE_DIRECTIVE_OPTIONS[(genre, keyword)]  # type: ignore[index]
    return DIRECTIVE_OPTIONS.get(keyword) if keyword is not None else None


def is_color(value: str) -> bool:
    return bool(HEX_COLOR_RE.match(value)) or value in CSS_COLOR_NAMES


def below_option_version(key: str, version: str | None) -> bool:
    """True when the declared version predates the key (no version: never)."""
    need = OPTION_MIN_VERSION.get(key)
    if not need or not version or version not in LANG_VERSIONS:
        return False
    return LANG_VERSIONS.index(version) < LANG_VERSIONS.index(need)


def id_error(value: str | None, quoted: bool, missing: str | None) -> str | None:
    """The diagnostic for a bad id position, or None when ``value`` is a bare id."""
    if value is None or value == "":
        return M.ID_SPELLING if quoted else missing
    if quoted:
        return M.ID_SPELLING
    if ID_RE.match(value) and "--" in value:
        return M.ID_HAS_LINK_OPERATOR
    if not ID_RE.match(value):
        return M.ID_SPELLING
    return None


# --- splitting a token list into positionals and options -------------------


@dataclass
class OptionValue:
    """An option's value plus the token it came from (for quotedness)."""

    value: str
    token: Token
    offset: int

    @property
    def has_quote(self) -> bool:
        return self.token.slice_has_quote(self.offset, len(self.token.v))

    @property
    def quoted(self) -> bool:
        return self.token.slice_quoted(self.offset, len(self.token.v))

    def items(self) -> list[ListItem]:
        return split_list(self.token, self.offset)


@dataclass
class Split:
    """A directive line split into positional arguments and options."""

    pos: list[str] = field(default_factory=list)
    posq: list[bool] = field(default_factory=list)
    post: list[Token] = field(default_factory=list)
    opts: dict[str, OptionValue] = field(default_factory=dict)
    unknown: list[str] = field(default_factory=list)
    duplicate: str | None = None

    def get(self, key: str) -> str | None:
        o = self.opts.get(key)
        return None if o is None else o.value

    def arg(self, i: int) -> str | None:
        return self.pos[i] if i < len(self.pos) else None

    def argq(self, i: int) -> bool:
        return self.posq[i] if i < len(self.posq) else False


def split_options(tokens: list[Token], lane_mode: bool = False) -> Split:
    """Registered ``key=value`` tokens become options; the rest stay positional.

    In ``lane_mode`` (a timing ``signal`` line) an unregistered ``key=`` is
    kept positional, because lane characters include ``=``."""
    out = Split()
    for tok in tokens:
        m = None if tok.q else OPTION_TOKEN_RE.match(tok.v)
        if m and m.group(1) in OPTION_KEYS:
            key = m.group(1)
            if key in out.opts and out.duplicate is None:
                out.duplicate = key
            out.opts[key] = OptionValue(m.group(2), tok, len(key) + 1)
        elif m and not lane_mode:
            out.unknown.append(m.group(1))
        else:
            out.pos.append(tok.v)
            out.posq.append(tok.q)
            out.post.append(tok)
    return out


def join_list_form(values: list[str]) -> str:
    """Rebuild the one-token spelling of a retired space-separated list."""
    return ",".join(v for v in (s.rstrip(",") for s in values) if v)


# --- class= lists ------------------------------------------------------------


def parse_class_list(opt: OptionValue | None) -> tuple[list[str] | None, str | None]:
    """class= is a comma list of bare class ids.  Returns (ids, error)."""
    if opt is None:
        return None, None
    if opt.value == "":
        return None, "class= must not be empty"
    items = opt.items()
    if any(i.v == "" for i in items):
        return None, "class= must not contain empty members"
    for item in items:
        e = id_error(item.v, item.h, f'bad class id "{item.v}"')
        if e:
            return None, e
    return [i.v for i in items], None


# --- the generic per-line option checks ---------------------------------------


def check_options(keyword: str, sp: Split, genre: str | None, version: str | None) -> list[str]:
    """Every generic problem with the options on one line, in reporting order.

    Returns an empty list when the line's options are acceptable.  A keyword
    with no registry row (an unknown or retired directive) is not checked
    here: its own diagnostic says more."""
    allowed = directive_options(keyword, genre)
    if allowed is None:
        return []
    errs: list[str] = []
    opts = sp.opts
    if sp.duplicate:
        errs.append(f'duplicate option "{sp.duplicate}=" on one line')
    for key in sp.unknown:
        if genre and (genre, key) in M.OPTION_REFUSED_IN_GENRE:
            errs.append(M.refused_option(key, genre))
        else:
            errs.append(f'unknown option "{key}="')
    withdrawn_hit = set()
    for key in opts:
        if genre and (genre, key) in M.OPTION_WITHDRAWN_IN_GENRE and key in allowed:
            errs.append(M.withdrawn_option(key, genre))
            withdrawn_hit.add(key)
    if "fill" in opts and keyword in LINE_ONLY_DIRECTIVES:
        errs.append(M.fill_no_interior(keyword))
    if "style" in opts and keyword in STYLELESS_CHILDREN:
        errs.append(M.style_not_on_item(keyword))
    for key, text in M.OPTION_KEY_MIGRATIONS.items():
        if key in opts:
            errs.append(text)
    if "note" in opts and "note" in allowed:
        if keyword == "field":
            errs.append(M.FIELD_TAKES_DESCRIPTION_NOT_NOTE)
        elif below_option_version("note", version):
            errs.append(M.note_version(version or ""))
    enum_quoted = set()
    for key in CLOSED_SET_KEYS:
        if key in opts and key in allowed and opts[key].has_quote:
            errs.append(M.enum_bare(f"{key}={opts[key].value}"))
            enum_quoted.add(key)
    for key in opts:
        if key in M.OPTION_KEY_MIGRATIONS:
            continue
        if key == "style" and keyword in STYLELESS_CHILDREN:
            continue
        if key in allowed:
            continue
        if keyword == "group" and key == "in":
            errs.append("group does not take in= — nesting is one level (node in=group) in v0.1")
        else:
            errs.append(f"{keyword} does not take {key}=")
    for key in ("fill", "stroke"):
        if key in opts and key in allowed and not is_color(opts[key].value):
            errs.append(f'unknown color "{opts[key].value}" (#hex or CSS color name)')
    if ("style" in opts and "style" in allowed and "style" not in enum_quoted
            and opts["style"].value not in STYLES):
        errs.append("style must be solid|dashed|dotted")
    if "class" in opts and "class" in allowed:
        _, e = parse_class_list(opts["class"])
        if e:
            errs.append(e)
    for key in TEXT_VALUED_KEYS:
        if key in opts and key in allowed and not opts[key].quoted:
            errs.append(M.must_quote(f"{key}=", f'{key}="{opts[key].value}"'))
    for key in ("in", "plane"):
        if key in opts and key in allowed and key not in withdrawn_hit:
            e = id_error(opts[key].value, opts[key].has_quote, None)
            if e:
                errs.append(e)
    return errs
