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


def option_key(tok: Token) -> str | None:
    """option = key '=' value — the key when ``tok`` is spelled as an option.

    A token written wholly as a string literal is never an option, and the
    key is everything before the first ``=``, so it must be a bare id shape."""
    if "=" not in tok.v or tok.q:
        return None
    key, equals, _ = tok.v.partition("=")
    return key if equals and ID_RE.match(key) else None


def split_options(tokens: list[Token], lane_mode: bool = False) -> Split:
    """Registered ``key=value`` tokens become options; the rest stay positional.

    In ``lane_mode`` (a timing ``signal`` line) an unregistered ``key=`` is
    kept positional, because lane characters include ``=``."""
    line = Split()
    for tok in tokens:
        key = option_key(tok)
        if key in OPTION_KEYS:
            if key in line.opts and line.duplicate is None:
                line.duplicate = key
            line.opts[key] = OptionValue(tok.v[len(key) + 1:], tok, len(key) + 1)
        elif key is not None and not lane_mode:
            line.unknown.append(key)
        else:
            line.pos.append(tok.v)
            line.posq.append(tok.q)
            line.post.append(tok)
    return line


def join_list_form(values: list[str]) -> str:
    """Rebuild the one-token spelling of a retired space-separated list."""
    return ",".join(v for v in (s.rstrip(",") for s in values) if v)


# --- class= lists ------------------------------------------------------------


def parse_class_list(opt: OptionValue | None) -> tuple[list[str] | None, str | None]:
    """class-list = class-id (',' class-id)* — returns (ids, error), both None
    when there is no class= at all."""
    if opt is None:
        return None, None
    if not opt.value:
        return None, "class= must not be empty"
    members = opt.items()
    if not all(member.v for member in members):
        return None, "class= must not contain empty members"
    problems = (id_error(m.v, m.h, f'bad class id "{m.v}"') for m in members)
    first = next((p for p in problems if p), None)
    if first:
        return None, first
    return [m.v for m in members], None


# --- the generic per-line option checks ---------------------------------------


@dataclass
class OptionLine:
    """What the per-line checks look at: the directive, its options and the
    registry row that says which keys it may carry."""

    keyword: str
    opts: dict[str, OptionValue]
    unknown: list[str]
    duplicate: str | None
    allowed: tuple[str, ...]
    genre: str | None
    version: str | None

    def offers(self, key: str) -> bool:
        """The line carries ``key=`` and the directive may carry it."""
        return key in self.opts and key in self.allowed

    def withdrawn(self) -> list[str]:
        """Allowed keys on this line that the genre has withdrawn, in line order."""
        return [k for k in self.opts if self.genre and (self.genre, k) in M.OPTION_WITHDRAWN_IN_GENRE
                and k in self.allowed]

    def quoted_closed_set(self) -> list[str]:
        """Closed-set keys whose value was (partly) quoted."""
        return [k for k in CLOSED_SET_KEYS if self.offers(k) and self.opts[k].has_quote]


def _duplicate_key(line: OptionLine) -> list[str]:
    return [f'duplicate option "{line.duplicate}=" on one line'] if line.duplicate else []


def _unknown_keys(line: OptionLine) -> list[str]:
    return [M.refused_option(k, line.genre) if line.genre and (line.genre, k) in M.OPTION_REFUSED_IN_GENRE
            else f'unknown option "{k}="' for k in line.unknown]


def _withdrawn_keys(line: OptionLine) -> list[str]:
    return [M.withdrawn_option(k, line.genre or "") for k in line.withdrawn()]


def _paint_on_wrong_shape(line: OptionLine) -> list[str]:
    found = []
    if "fill" in line.opts and line.keyword in LINE_ONLY_DIRECTIVES:
        found.append(M.fill_no_interior(line.keyword))
    if "style" in line.opts and line.keyword in STYLELESS_CHILDREN:
        found.append(M.style_not_on_item(line.keyword))
    return found


def _retired_keys(line: OptionLine) -> list[str]:
    return [text for key, text in M.OPTION_KEY_MIGRATIONS.items() if key in line.opts]


def _note_key(line: OptionLine) -> list[str]:
    if not line.offers("note"):
        return []
    if line.keyword == "field":
        return [M.FIELD_TAKES_DESCRIPTION_NOT_NOTE]
    if below_option_version("note", line.version):
        return [M.note_version(line.version or "")]
    return []


def _closed_set_quoted(line: OptionLine) -> list[str]:
    return [M.enum_bare(f"{k}={line.opts[k].value}") for k in line.quoted_closed_set()]


def _keys_not_taken(line: OptionLine) -> list[str]:
    found = []
    for key in line.opts:
        excused = (key in M.OPTION_KEY_MIGRATIONS or key in line.allowed
                   or (key == "style" and line.keyword in STYLELESS_CHILDREN))
        if excused:
            continue
        if line.keyword == "group" and key == "in":
            found.append("group does not take in= — nesting is one level (node in=group) in v0.1")
        else:
            found.append(f"{line.keyword} does not take {key}=")
    return found


def _paint_values(line: OptionLine) -> list[str]:
    found = [f'unknown color "{line.opts[k].value}" (#hex or CSS color name)'
             for k in ("fill", "stroke") if line.offers(k) and not is_color(line.opts[k].value)]
    if (line.offers("style") and "style" not in line.quoted_closed_set()
            and line.opts["style"].value not in STYLES):
        found.append("style must be solid|dashed|dotted")
    return found


def _class_value(line: OptionLine) -> list[str]:
    if not line.offers("class"):
        return []
    _, problem = parse_class_list(line.opts["class"])
    return [problem] if problem else []


def _prose_unquoted(line: OptionLine) -> list[str]:
    return [M.must_quote(f"{k}=", f'{k}="{line.opts[k].value}"')
            for k in TEXT_VALUED_KEYS if line.offers(k) and not line.opts[k].quoted]


def _reference_values(line: OptionLine) -> list[str]:
    withdrawn = line.withdrawn()
    found = []
    for key in ("in", "plane"):
        if line.offers(key) and key not in withdrawn:
            problem = id_error(line.opts[key].value, line.opts[key].has_quote, None)
            if problem:
                found.append(problem)
    return found


#: The generic checks, in the order their messages are reported.
OPTION_CHECKS = (
    _duplicate_key, _unknown_keys, _withdrawn_keys, _paint_on_wrong_shape, _retired_keys,
    _note_key, _closed_set_quoted, _keys_not_taken, _paint_values, _class_value,
    _prose_unquoted, _reference_values,
)


def check_options(keyword: str, sp: Split, genre: str | None, version: str | None) -> list[str]:
    """Every generic problem with the options on one line, in reporting order.

    Returns an empty list when the line's options are acceptable.  A keyword
    with no registry row (an unknown or retired directive) is not checked
    here: its own diagnostic says more."""
    if not sp.opts and not sp.unknown and sp.duplicate is None:
        return []   # every check below looks at the line's options and finds none
    allowed = directive_options(keyword, genre)
    if allowed is None:
        return []
    line = OptionLine(keyword, sp.opts, sp.unknown, sp.duplicate, allowed, genre, version)
    return [message for check in OPTION_CHECKS for message in check(line)]
