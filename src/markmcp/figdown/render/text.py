"""Text measure and ink: how wide a label is, and which colour it is written in.

Nothing here measures a font.  A label's width is its advance in *Latin
units* (what one ASCII character advances) times a per-size constant, so the
same text has the same width on every machine:

* :func:`units` — script-aware advance in Latin units.  Every code point below
  U+0300 weighs 1; combining marks and zero-width characters 0; East Asian
  wide and fullwidth characters 1.81; emoji 2.25 (FigDown's published
  weights, from Unicode East Asian Width classes).
* ``CH`` = 7.2 px per unit at the 13 px node font; the other sizes scale from
  their own constants (:data:`PX_PER_UNIT`).

Label ink follows WCAG 2.1 relative luminance: dark text on light fills, white
text on dark ones, the switch at the luminance where both contrast equally.
"""

from __future__ import annotations

import bisect
from functools import lru_cache

FONT = 13          # node label size, px
CH = 7.2           # px per Latin unit at FONT
PADX = 14          # node padding each side of the widest label line
NH = 36            # one-line node height
LINE_STEP = 16     # extra node height per extra label line
LABEL_FS = 11      # mid-edge label size
END_FS = 10        # endpoint (port / tail / head) label size
EDGE_LABEL_CH = 6.5  # px per unit at LABEL_FS (the edge-label advance)

INK_DARK = "#1d1d1b"
INK_LIGHT = "#ffffff"
INK_MUTED = "#6f6e69"
EDGE_INK = "#555"

# (first, last) code point ranges, sorted and disjoint
_ZERO = ((0x0300, 0x036F), (0x0483, 0x0489), (0x0591, 0x05BD), (0x0610, 0x061A),
         (0x064B, 0x065F), (0x0670, 0x0670), (0x06D6, 0x06DC), (0x0711, 0x0711),
         (0x0730, 0x074A), (0x07A6, 0x07B0), (0x0816, 0x0819), (0x093C, 0x093C),
         (0x0951, 0x0954), (0x0E31, 0x0E31), (0x0E34, 0x0E3A), (0x0E47, 0x0E4E),
         (0x1AB0, 0x1AFF), (0x1DC0, 0x1DFF), (0x200B, 0x200F), (0x2060, 0x2064),
         (0x20D0, 0x20F0), (0xFE00, 0xFE0F), (0xFE20, 0xFE2F), (0xFEFF, 0xFEFF))
_EMOJI = ((0x1F004, 0x1F0CF), (0x1F18E, 0x1F19A), (0x1F300, 0x1F5FF), (0x1F600, 0x1F64F),
          (0x1F680, 0x1F6FF), (0x1F7E0, 0x1F7EB), (0x1F900, 0x1F9FF), (0x1FA70, 0x1FAFF))
_WIDE = ((0x1100, 0x115F), (0x2E80, 0x303E), (0x3041, 0x33FF), (0x3400, 0x4DBF),
         (0x4E00, 0x9FFF), (0xA000, 0xA4CF), (0xA960, 0xA97F), (0xAC00, 0xD7A3),
         (0xF900, 0xFAFF), (0xFE10, 0xFE19), (0xFE30, 0xFE6F), (0xFF01, 0xFF60),
         (0xFFE0, 0xFFE6), (0x17000, 0x18AFF), (0x1B000, 0x1B2FF), (0x20000, 0x3FFFD))


def _table() -> tuple[list[int], list[float]]:
    """Boundaries and weights: weight of ``cp`` is ``weights[bisect_right(starts, cp) - 1]``."""
    spans = sorted([(a, b, 0.0) for a, b in _ZERO] + [(a, b, 2.25) for a, b in _EMOJI]
                   + [(a, b, 1.81) for a, b in _WIDE])
    starts, weights = [0], [1.0]
    for first, last, weight in spans:
        starts.append(first)
        weights.append(weight)
        starts.append(last + 1)
        weights.append(1.0)
    return starts, weights


_STARTS, _WEIGHTS = _table()


def weight(cp: int) -> float:
    """Advance of one code point, in Latin units."""
    if cp < 0x0300:
        return 1.0
    return _WEIGHTS[bisect.bisect_right(_STARTS, cp) - 1]


@lru_cache(maxsize=4096)
def units(text: str) -> float:
    """Advance of one line of text, in Latin units (code points, not UTF-16 units)."""
    if text.isascii():
        return float(len(text))
    total = 0.0
    for ch in text:
        total += weight(ord(ch))
    return total


def lines(text: str) -> list[str]:
    """A label's drawn lines: an author ``\\n`` (already decoded in the model) breaks one."""
    return text.split("\n")


def one_line(text: str) -> str:
    """A label set on one line: an author ``\\n`` reads as a space, where the drawing
    has one line of room for it (a bitfield row, a caption under it, a legend entry)."""
    return text.replace("\n", " ")


ELLIPSIS = "\u2026"


def shorten(text: str, fits, advance=None) -> str:
    """``text`` whole when its widest line fits (``fits`` takes a width and holds for
    every width below one it holds for); else its longest beginning that, with "…"
    after it, fits, or "…" alone.  Widths are in Latin units (:func:`weight` per code
    point) unless ``advance`` gives each character's.  One pass over the text: cutting a
    character at a time and measuring again took minutes for a value of 32,000
    characters."""
    adv = advance or (lambda ch: weight(ord(ch)))
    done = line = 0.0   # the widest finished line, and the one being measured
    for ch in text:
        if ch == "\n":
            done, line = max(done, line), 0.0
        else:
            line += adv(ch)
    if fits(max(done, line)):
        return text
    tail = adv(ELLIPSIS)
    done = line = 0.0
    kept = 0
    for i, ch in enumerate(text):
        if ch == "\n":   # a new line starts narrow again: a longer beginning may fit
            done, line = max(done, line), 0.0
            if not fits(done):
                break
        else:
            line += adv(ch)
        if fits(max(done, line + tail)):
            kept = i + 1
    return text[:kept].rstrip(" ") + ELLIPSIS   # "Payments…", not "Payments …"


#: Advances of the printable ASCII characters (space to ~) in DejaVu Sans, the widest
#: face in common use for ``system-ui`` text, in thousandths of the font size (as a
#: browser measures them): where text that runs on must be cut short, a name is cut
#: only when it is wider than its room in that face.
_REGULAR_ASCII = tuple(int(w) for w in (
    "318 401 460 838 636 950 780 275 390 390 500 838 318 361 318 337 "   # space to /
    "636 636 636 636 636 636 636 636 636 636 337 337 838 838 838 531 "   # 0 to ?
    "1000 684 686 698 770 632 575 775 752 295 295 656 557 863 748 787 "   # @ to O
    "603 787 695 635 611 732 684 989 685 611 685 390 337 390 838 500 "   # P to _
    "500 613 635 550 635 615 352 635 634 278 278 579 278 974 634 612 "   # ` to o
    "635 635 411 521 392 634 592 818 592 592 525 636 337 636 838"   # p to ~
).split())


def face_px(ch: str, size: float) -> float:
    """One character's advance at ``size`` px in the widest common face: printable
    ASCII from :data:`_REGULAR_ASCII`, the rest from the table of units."""
    k = ord(ch) - 32
    if 0 <= k < len(_REGULAR_ASCII):
        return _REGULAR_ASCII[k] * size / 1000
    return weight(ord(ch)) * EDGE_LABEL_CH * size / LABEL_FS


def face_width(text: str, size: float) -> float:
    """The widest line of ``text`` at ``size`` px in the widest common face
    (:func:`face_px`): what a browser gives it, where a fit is decided letter by letter."""
    return max(sum(face_px(ch, size) for ch in line) for line in text.split("\n"))


def item_lines(lead: str, items: list[str], room: float, measure) -> list[str]:
    """``lead`` and the ``items`` joined by "; ", broken between items into lines that
    ``measure`` (a text's width in px, the sum of its letters') keeps within ``room`` (an
    item wider than that alone on its line): a list under a drawing, as wide as the
    drawing.  Each piece is measured once, so the work grows with the text."""
    out, line, width = [], lead, measure(lead)
    for k, item in enumerate(items):
        piece = item + (";" if k < len(items) - 1 else "")
        wide = measure(piece)
        if line.strip() and line != lead and width + wide > room:
            out.append(line.rstrip())
            line, width = "", 0.0
        line += piece + " "
        width += wide + measure(" ")
    out.append(line.rstrip())
    return out


def in_full(cut: dict[str, str], width: float) -> list[str]:
    """The lines under a block (a bitfield, a timing diagram) that write whole what it cut
    short: ``cut`` maps each whole text to what its cell shows ("in full: Sele… =
    Select-DR-Scan; …"), at :data:`IN_FULL_FS` px, as wide as the block (``width``) but
    no narrower than :data:`IN_FULL_LEAST` and no wider than :data:`IN_FULL_MOST`."""
    items = [f"{shown} = {whole}" for whole, shown in cut.items()]
    room = min(max(width, IN_FULL_LEAST), IN_FULL_MOST)
    return item_lines("in full: ", items, room, lambda t: face_width(t, IN_FULL_FS))


IN_FULL_FS, IN_FULL_LEAST, IN_FULL_MOST = 10.0, 320.0, 960.0


def widest(text: str) -> float:
    """The widest line of a (possibly multi-line) label, in Latin units."""
    return max(units(line) for line in text.split("\n"))


def node_width(label: str) -> float:
    """The auto width of a node box: widest line plus padding, never under 30 px."""
    return max(30.0, widest(label) * CH + 2 * PADX)


def node_height(label: str) -> float:
    return NH + (label.count("\n")) * LINE_STEP


def label_px(text: str, size: float = LABEL_FS) -> float:
    """Width of small annotation text (edge labels and the like) at ``size`` px."""
    return widest(text) * EDGE_LABEL_CH * size / LABEL_FS


def title_width(label: str) -> float:
    """Width of a typed region's title (``FONT`` px, semibold: 8% wider than a node label),
    set on one line (:func:`one_line`)."""
    return units(one_line(label)) * CH * 1.08 + 2


# --- notes (the UML note box) -------------------------------------------------------

NOTE_FS = 10
NOTE_PAD = 6
NOTE_FOLD = 9
NOTE_MAXW = 230
NOTE_CH = CH * NOTE_FS / FONT
NOTE_BOLD = 1.06
NOTE_BOLD_END = 1.0   # px of room after a bold run, so the space after it reads as one
NOTE_LH = NOTE_FS * 1.35

#: Advances of the printable ASCII characters (space to ``~``) set bold, in thousandths of
#: the font size: those of DejaVu Sans Bold, the widest of the common system faces (a
#: browser's bold ``system-ui`` on Linux; macOS's and Windows' faces are narrower).  The
#: table of units gives every Latin letter one width, and set bold a name of capitals
#: ("WAN:") came out wider than it said, so the note's own words ran into it; measured
#: with the widest face, a bold name never runs into them, wherever the figure is shown.
_BOLD_ASCII = tuple(int(w) for w in (
    "348 456 521 838 696 1002 872 306 457 457 523 838 380 415 380 365 "   # space to /
    "696 696 696 696 696 696 696 696 696 696 400 400 838 838 838 580 "   # 0 to ?
    "1000 774 762 734 830 683 683 821 837 372 372 775 637 995 837 850 "   # @ to O
    "733 850 770 720 682 812 774 1103 771 724 725 457 365 457 838 500 "   # P to _
    "500 675 716 593 716 678 435 716 712 343 343 665 343 1042 712 687 "   # ` to o
    "716 716 493 595 478 712 652 924 645 652 582 712 365 712 838"   # p to ~
).split())


def together(left: str, right: str) -> bool:
    """Whether a line never breaks between the words ``left`` and ``right``: a number and
    the short word after it, its unit ("3.0" over "V after 30 min" read as two values;
    "13" over "MiB")."""
    return left[-1:].isdigit() and 0 < len(right.rstrip(".,;:)")) <= UNIT_MOST and not right[0].isdigit()


#: The longest word (characters, less trailing punctuation) kept on the line of the number before it.
UNIT_MOST = 4


def _joined(ws: list[str]) -> list[str]:
    """``ws`` with each number and its unit (:func:`together`) made one word."""
    out: list[str] = []
    for w in ws:
        if out and together(out[-1], w):
            out[-1] += " " + w
        else:
            out.append(w)
    return out


def wrap_note(text: str, prefix: str | None = None) -> list[list[tuple[str, bool]]]:
    """Greedy word wrap in pixels: each line is a list of (text, bold) runs.

    Author line breaks are kept; a word wider than the corridor is never
    broken (it widens the box), nor is a number parted from its unit.  ``prefix`` (a
    target's label) is set in bold ahead of the note's own words."""
    words: list[tuple[str, bool, bool]] = []  # (word, bold, forced break before)
    if prefix:
        words.extend((w, True, False) for w in _joined([w for w in prefix.split(" ") if w]))
    for i, para in enumerate(text.split("\n")):
        ws = _joined([w for w in para.split(" ") if w])
        if not ws:
            words.append(("", False, i > 0))
            continue
        words.extend((w, False, i > 0 and j == 0) for j, w in enumerate(ws))
    space = units(" ") * NOTE_CH
    out: list[list[tuple[str, bool]]] = []
    cur: list[list] = []
    width = 0.0
    broken = False   # (whether the line being set began at an author's line break)
    for word, bold, brk in words:
        ww = run_width((word, bold))
        if brk and cur:
            out.append([(t, b) for t, b in cur])
            cur, width = [], 0.0
        if cur and width + space + ww > NOTE_MAXW:
            out.append([(t, b) for t, b in cur])
            cur, width = [], 0.0
        if not cur:
            broken = brk
        gap = " " if cur else ""
        if cur and cur[-1][1] == bold:
            cur[-1][0] += gap + word
        else:
            cur.append([gap + word, bold])
        width += (space if gap else 0.0) + ww
    out.append([(t, b) for t, b in cur] or [("", False)])
    if not broken:
        _no_orphan(out)
    return out


def _last_word(text: str) -> tuple[str, str]:
    """``text`` less its last word, and that word (a number's unit taken with the number)."""
    head, _sp, moved = text.rpartition(" ")
    before, _sp, number = head.rpartition(" ")
    if number and before and together(number, moved):
        return before, number + " " + moved
    return head, moved


def _no_orphan(out: list[list[tuple[str, bool]]]) -> None:
    """A last line shorter than :data:`ORPHAN_SHARE` of the corridor takes words from the
    end of the line above, one at a time while it stays that short, so long as the line
    above keeps two words and stays the longer ("…so the last part is 13" over "MiB"
    reads as "13 MiB"; "…a lock that another worker" over "now holds." was read as a
    stray).  Not from a bold name (nor, by the caller, where the last line began at an
    author's line break)."""
    if len(out) < 2 or len(out[-1]) != 1 or out[-1][0][1]:
        return
    last = out[-1][0][0]
    prev = out[-2]
    while run_width((last, False)) < ORPHAN_SHARE * NOTE_MAXW:
        text, bold = prev[-1]
        head, moved = _last_word(text)
        if bold or not head or (len(prev) == 1 and " " not in head.strip()):
            return
        taken = moved + " " + last
        if run_width((taken, False)) >= sum(run_width(r) for r in prev[:-1]) + run_width((head, False)):
            return
        prev[-1] = (head, bold)
        out[-1] = [(taken, False)]
        last = taken


#: The share of the note's corridor under which a last line is taken for a stray.
ORPHAN_SHARE = 0.3


def run_width(run: tuple[str, bool]) -> float:
    """A run of note text's width.  A bold run (a target's name ahead of the note) is
    measured with :data:`_BOLD_ASCII` for its printable ASCII characters (the table of
    units for the rest, a little wider for the weight), and ends with
    :data:`NOTE_BOLD_END` of room."""
    text, bold = run
    if not bold:
        return units(text) * NOTE_CH
    width = NOTE_BOLD_END
    for c in text:
        k = ord(c) - 32
        width += _BOLD_ASCII[k] * NOTE_FS / 1000 if 0 <= k < len(_BOLD_ASCII) else units(c) * NOTE_CH * NOTE_BOLD
    return width


def note_size(text: str, prefix: str | None = None) -> tuple[float, float, list]:
    """(width, height, wrapped lines) of a note box."""
    wrapped = wrap_note(text, prefix)
    widest_line = max(sum(run_width(r) for r in ln) for ln in wrapped)
    w = max(28.0, widest_line + NOTE_PAD * 2 + NOTE_FOLD)
    h = len(wrapped) * NOTE_LH + NOTE_PAD * 2 - NOTE_LH * 0.15
    return round(w, 2), round(h, 2), wrapped


# --- colour -------------------------------------------------------------------------

_NAMED = (
    "aliceblue:f0f8ff antiquewhite:faebd7 aqua:00ffff aquamarine:7fffd4 azure:f0ffff "
    "beige:f5f5dc bisque:ffe4c4 black:000000 blanchedalmond:ffebcd blue:0000ff "
    "blueviolet:8a2be2 brown:a52a2a burlywood:deb887 cadetblue:5f9ea0 chartreuse:7fff00 "
    "chocolate:d2691e coral:ff7f50 cornflowerblue:6495ed cornsilk:fff8dc crimson:dc143c "
    "cyan:00ffff darkblue:00008b darkcyan:008b8b darkgoldenrod:b8860b darkgray:a9a9a9 "
    "darkgreen:006400 darkgrey:a9a9a9 darkkhaki:bdb76b darkmagenta:8b008b "
    "darkolivegreen:556b2f darkorange:ff8c00 darkorchid:9932cc darkred:8b0000 "
    "darksalmon:e9967a darkseagreen:8fbc8f darkslateblue:483d8b darkslategray:2f4f4f "
    "darkslategrey:2f4f4f darkturquoise:00ced1 darkviolet:9400d3 deeppink:ff1493 "
    "deepskyblue:00bfff dimgray:696969 dimgrey:696969 dodgerblue:1e90ff firebrick:b22222 "
    "floralwhite:fffaf0 forestgreen:228b22 fuchsia:ff00ff gainsboro:dcdcdc "
    "ghostwhite:f8f8ff gold:ffd700 goldenrod:daa520 gray:808080 green:008000 "
    "greenyellow:adff2f grey:808080 honeydew:f0fff0 hotpink:ff69b4 indianred:cd5c5c "
    "indigo:4b0082 ivory:fffff0 khaki:f0e68c lavender:e6e6fa lavenderblush:fff0f5 "
    "lawngreen:7cfc00 lemonchiffon:fffacd lightblue:add8e6 lightcoral:f08080 "
    "lightcyan:e0ffff lightgoldenrodyellow:fafad2 lightgray:d3d3d3 lightgreen:90ee90 "
    "lightgrey:d3d3d3 lightpink:ffb6c1 lightsalmon:ffa07a lightseagreen:20b2aa "
    "lightskyblue:87cefa lightslategray:778899 lightslategrey:778899 "
    "lightsteelblue:b0c4de lightyellow:ffffe0 lime:00ff00 limegreen:32cd32 linen:faf0e6 "
    "magenta:ff00ff maroon:800000 mediumaquamarine:66cdaa mediumblue:0000cd "
    "mediumorchid:ba55d3 mediumpurple:9370db mediumseagreen:3cb371 "
    "mediumslateblue:7b68ee mediumspringgreen:00fa9a mediumturquoise:48d1cc "
    "mediumvioletred:c71585 midnightblue:191970 mintcream:f5fffa mistyrose:ffe4e1 "
    "moccasin:ffe4b5 navajowhite:ffdead navy:000080 oldlace:fdf5e6 olive:808000 "
    "olivedrab:6b8e23 orange:ffa500 orangered:ff4500 orchid:da70d6 palegoldenrod:eee8aa "
    "palegreen:98fb98 paleturquoise:afeeee palevioletred:db7093 papayawhip:ffefd5 "
    "peachpuff:ffdab9 peru:cd853f pink:ffc0cb plum:dda0dd powderblue:b0e0e6 "
    "purple:800080 red:ff0000 rosybrown:bc8f8f royalblue:4169e1 saddlebrown:8b4513 "
    "salmon:fa8072 sandybrown:f4a460 seagreen:2e8b57 seashell:fff5ee sienna:a0522d "
    "silver:c0c0c0 skyblue:87ceeb slateblue:6a5acd slategray:708090 slategrey:708090 "
    "snow:fffafa springgreen:00ff7f steelblue:4682b4 tan:d2b48c teal:008080 "
    "thistle:d8bfd8 tomato:ff6347 turquoise:40e0d0 violet:ee82ee wheat:f5deb3 "
    "white:ffffff whitesmoke:f5f5f5 yellow:ffff00 yellowgreen:9acd32")
NAMED_COLOURS = {k: "#" + v for k, v in (p.split(":") for p in _NAMED.split())}


def _linear(channel: int) -> float:
    c = channel / 255
    return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4


# the 256 channel values, linearised once
_LIN = tuple(_linear(i) for i in range(256))
# the luminance at which white and black contrast equally: sqrt(0.0525) - 0.05
CONTRAST_L = 0.0525 ** 0.5 - 0.05


def hex_of(colour: str | None) -> str | None:
    """``#rrggbb`` for a hex or named colour; None for anything else (incl. transparent)."""
    if not colour:
        return None
    if colour.startswith("#"):
        body = colour[1:]
        if len(body) == 3 and all(c in "0123456789abcdefABCDEF" for c in body):
            return "#" + "".join(c * 2 for c in body)
        if len(body) == 6 and all(c in "0123456789abcdefABCDEF" for c in body):
            return colour
        return None
    return NAMED_COLOURS.get(colour)


@lru_cache(maxsize=1024)
def luminance(colour: str) -> float | None:
    h = hex_of(colour)
    if h is None:
        return None
    r, g, b = (int(h[i:i + 2], 16) for i in (1, 3, 5))
    return 0.2126 * _LIN[r] + 0.7152 * _LIN[g] + 0.0722 * _LIN[b]


def label_ink(background: str | None, dark: str) -> str:
    """The ink for text drawn on ``background``: ``dark`` unless the fill is dark."""
    lum = luminance(background) if background else None
    if lum is None:
        return dark
    return dark if lum > CONTRAST_L else INK_LIGHT


def is_dark(background: str | None) -> bool:
    lum = luminance(background) if background else None
    return lum is not None and lum <= CONTRAST_L
