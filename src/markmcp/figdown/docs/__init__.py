"""Our own FigDown documentation, shipped inside the package, and the lookups over it.

``SKILL.md`` is the authoring guide.  Below the marker line ``<!-- figdown-router -->``
it holds the router table: for each genre, the reference files to load and the
files to add for its experimental constructs.  That table is the one place the
genre list is written down; :func:`router` parses it at call time, so a genre
without a router row, or a row naming a file that is not here, shows up in the
docs tests instead of as an agent silently receiving nothing.

Three task files serve a purpose instead of a genre (:data:`TASKS`), and ``skill``
names ``SKILL.md`` itself.  ``figdown reference`` and the ``figdown_reference``
MCP tool both answer through :func:`lookup`; :func:`render` is the text form and
:func:`as_dict` the structured one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

SKILL = "SKILL.md"
ROUTER_MARKER = "<!-- figdown-router -->"
#: Task name -> (file, what it is for).
TASKS: dict[str, tuple[str, str]] = {
    "reading": ("reading.md", "which conclusions a figure supports and which it does not"),
    "transcribe": ("transcribe.md", "turning an existing drawing into FigDown"),
    "build": ("building.md", "drawing the SVG, keeping it beside its source, and reading it back"),
}
SKILL_NAME = "skill"

_TICKED = re.compile(r"`([^`]+)`")
_GENRE_WORD = re.compile(r"[a-z]+")
_SEPARATOR_CELL = re.compile(r":?-+:?")


class DocsError(Exception):
    """An unknown reference name, or a documentation file the router names but the package lacks."""


@dataclass(frozen=True)
class Route:
    """One router row: a genre, what it draws, its files, its experimental add-ons."""

    genre: str
    draws: str
    load: tuple[str, ...]
    experimental: tuple[str, ...]


@dataclass
class Answer:
    """What a reference lookup returns."""

    kind: str  # "index", "genre", "task" or "skill"
    name: str | None
    experimental: bool
    files: list[tuple[str, str]] = field(default_factory=list)  # (file name, text)
    held_back: tuple[str, ...] = ()  # experimental files of the genre not loaded
    note: str = ""
    routes: list[Route] = field(default_factory=list)  # the index only


# --- files -------------------------------------------------------------------------


def doc_text(name: str) -> str:
    """The text of one of our documentation files (``DocsError`` when it is missing)."""
    if "/" in name or "\\" in name or name.startswith("."):
        raise DocsError(f"not a documentation file name: {name!r}")
    try:
        return resources.files(__name__).joinpath(name).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DocsError(f"reference file missing: {name} (the router in {SKILL} names it)") from None


def doc_names() -> list[str]:
    """The Markdown files shipped here, sorted."""
    return sorted(item.name for item in resources.files(__name__).iterdir() if item.name.endswith(".md"))


def text_lines(text: str) -> list[str]:
    """Lines of a Markdown file: split on LF, a CR before it dropped."""
    return [line[:-1] if line.endswith("\r") else line for line in text.split("\n")]


# --- the router ----------------------------------------------------------------------


def _cells(line: str) -> list[str]:
    body = line.strip()
    body = body[1:] if body.startswith("|") else body
    body = body[:-1] if body.endswith("|") else body
    return [cell.strip() for cell in body.split("|")]


def _files(cell: str) -> tuple[str, ...]:
    return tuple(token.strip() for token in _TICKED.findall(cell) if token.strip().endswith(".md"))


def parse_router(text: str) -> dict[str, Route]:
    """The router table below :data:`ROUTER_MARKER` in ``text``, genre -> :class:`Route`.

    Columns: genre (backticked), what it draws, files to load, files to add for
    experimental constructs.  Raises :class:`DocsError` when the marker or the rows
    are missing, or a row is malformed.
    """
    lines = text_lines(text)
    try:
        start = next(i for i, line in enumerate(lines) if line.strip() == ROUTER_MARKER)
    except StopIteration:
        raise DocsError(f"{SKILL} has no router table (marker {ROUTER_MARKER} not found)") from None
    routes: dict[str, Route] = {}
    in_table = False
    for number, line in enumerate(lines[start + 1:], start + 2):
        if not line.strip().startswith("|"):
            if in_table:
                break
            continue
        in_table = True
        cells = _cells(line)
        if all(_SEPARATOR_CELL.fullmatch(cell) for cell in cells):
            continue
        genres = [token for token in _TICKED.findall(cells[0]) if _GENRE_WORD.fullmatch(token)]
        if not genres:
            continue  # the header row
        if len(cells) != 4 or len(genres) != 1:
            raise DocsError(f"{SKILL} line {number}: a router row has four cells and names one genre")
        genre = genres[0]
        if genre in routes:
            raise DocsError(f"{SKILL} line {number}: genre {genre!r} has two router rows")
        routes[genre] = Route(genre, cells[1], _files(cells[2]), _files(cells[3]))
    if not routes:
        raise DocsError(f"{SKILL}: the router table below {ROUTER_MARKER} has no rows")
    return routes


def router() -> dict[str, Route]:
    """The router of the shipped ``SKILL.md``, read now."""
    return parse_router(doc_text(SKILL))


# --- lookups --------------------------------------------------------------------------


def lookup(name: str | None, *, experimental: bool = False) -> Answer:
    """Resolve a reference request: no name = the index; a genre, a task or ``skill``."""
    key = (name or "").strip().lower()
    if not key:
        return Answer("index", None, experimental, routes=list(router().values()))
    if key == SKILL_NAME:
        return Answer("skill", key, experimental, files=[(SKILL, doc_text(SKILL))])
    if key in TASKS:
        file = TASKS[key][0]
        return Answer("task", key, experimental, files=[(file, doc_text(file))])
    routes = router()
    route = routes.get(key)
    if route is None:
        raise DocsError(
            f"unknown reference {name!r}: genres are {', '.join(routes)}; "
            f"tasks are {', '.join(TASKS)}; or {SKILL_NAME}"
        )
    names = route.load + (route.experimental if experimental else ())
    files = [(file, doc_text(file)) for file in names]
    held_back = () if experimental else route.experimental
    if not names:
        note = (f"Everything genre {key!r} can say is experimental, so nothing loads by default: "
                f"ask again with experimental on to get {', '.join(route.experimental)}.")
    elif held_back:
        note = (f"Genre {key!r} also has experimental constructs, in {', '.join(held_back)}; "
                "ask with experimental on to add them.")
    else:
        note = ""
    return Answer("genre", key, experimental, files=files, held_back=held_back, note=note)


def render(answer: Answer) -> str:
    """The text form of an answer (what ``figdown reference`` prints)."""
    if answer.kind == "index":
        return index_text(answer.routes)
    head = {
        "skill": "FigDown skill: the authoring discipline and the language every genre shares.",
        "task": f"FigDown reference for the task {answer.name!r}.",
        "genre": f"FigDown reference for genre {answer.name!r}"
                 + (" (with its experimental files)." if answer.experimental else "."),
    }[answer.kind]
    parts = [head]
    if answer.note:
        parts.append(answer.note)
    for file, text in answer.files:
        parts.append(f"===== {file} =====\n\n{text.rstrip()}")
    return "\n\n".join(parts) + "\n"


def index_text(routes: list[Route]) -> str:
    """The index: every genre with its files, the tasks, and how to ask."""
    lines = ["FigDown reference index. Ask again with a name.", "",
             "Genres (the word after the version on line 1 of a .fd):"]
    for route in routes:
        load = ", ".join(route.load) or "(nothing by default)"
        extra = f"   [experimental: {', '.join(route.experimental)}]" if route.experimental else ""
        lines.append(f"  {route.genre:<11} {route.draws} -> {load}{extra}")
    lines += ["", "Tasks:"]
    for task, (file, purpose) in TASKS.items():
        lines.append(f"  {task:<11} {purpose} -> {file}")
    lines.append(f"  {SKILL_NAME:<11} the authoring discipline and the shared language -> {SKILL}")
    lines += ["", "Ask with --experimental (figdown reference) or experimental: true (figdown_reference)",
              "to add a genre's experimental files. The parser accepts experimental constructs",
              "without a warning, so this index is where their status shows."]
    return "\n".join(lines) + "\n"


def as_dict(answer: Answer) -> dict[str, Any]:
    """The structured form of an answer (the ``figdown_reference`` tool's result)."""
    result: dict[str, Any] = {
        "kind": answer.kind,
        "name": answer.name,
        "experimental": answer.experimental,
        "files": [{"file": file, "text": text} for file, text in answer.files],
        "heldBack": list(answer.held_back),
        "note": answer.note,
    }
    if answer.kind == "index":
        result["genres"] = [
            {"name": r.genre, "draws": r.draws, "load": list(r.load), "experimental": list(r.experimental)}
            for r in answer.routes
        ]
        result["tasks"] = [{"name": task, "file": file, "purpose": purpose}
                           for task, (file, purpose) in TASKS.items()]
    return result
