"""Our shipped FigDown docs: every example parses clean, the router covers every genre with
files that exist, and every shipped file is reachable."""

from __future__ import annotations

from pathlib import Path

import pytest

from markmcp.figdown import GENRES, VERSIONS, docs, parse
TASK_FILES = {"layout.md", "reading.md", "transcribe.md", "building.md"}
DOCS_DIR = Path(docs.__file__).parent


def fd_examples(fence: str = "```fd") -> list[tuple[str, int, str]]:
    """(file, first line, source) of every block opened by ``fence`` in our docs."""
    found = []
    for name in docs.doc_names():
        lines = docs.text_lines(docs.doc_text(name))
        index = 0
        while index < len(lines):
            if lines[index].strip() == fence:
                end = index + 1
                while end < len(lines) and lines[end].strip() != "```":
                    end += 1
                assert end < len(lines), f"{name}:{index + 1}: unclosed fd block"
                found.append((name, index + 2, "\n".join(lines[index + 1:end]) + "\n"))
                index = end
            index += 1
    return found


EXAMPLES = fd_examples()
REFUSED = fd_examples("```fd-error")


def test_there_are_examples_in_every_genre_file() -> None:
    files_with_examples = {name for name, _, _ in EXAMPLES}
    for genre in GENRES:
        assert f"{genre}.md" in files_with_examples
    assert len(EXAMPLES) >= 15


@pytest.mark.parametrize(("name", "line", "source"), EXAMPLES, ids=[f"{n}:{ln}" for n, ln, _ in EXAMPLES])
def test_every_fd_example_parses_clean(name: str, line: int, source: str) -> None:
    result = parse(source)
    assert result.error_lines() == [], f"{name} line {line}"
    assert result.models


def test_there_are_refused_examples() -> None:
    assert len(REFUSED) >= 4


@pytest.mark.parametrize(("name", "line", "source"), REFUSED, ids=[f"{n}:{ln}" for n, ln, _ in REFUSED])
def test_every_fd_error_example_fails_exactly_on_its_marked_lines(name: str, line: int, source: str) -> None:
    """In an ```fd-error block, the lines whose comment says "error" are refused, and only those."""
    marked = {number for number, text in enumerate(source.split("\n"), 1) if "# error" in text}
    assert marked, f"{name} line {line}: no line is marked"
    refused = {diagnostic_line for diagnostic_line, _ in parse(source).diagnostics}
    assert refused == marked, f"{name} line {line}: {parse(source).error_lines()}"


def test_each_genre_file_shows_its_own_genre() -> None:
    headers = {(name, source.split("\n")[0]) for name, _, source in EXAMPLES if source.startswith("figdown ")}
    for genre in GENRES:
        assert any(name == f"{genre}.md" and header.endswith(f" {genre}") for name, header in headers), genre


def test_the_router_has_exactly_the_genres_the_engine_accepts() -> None:
    routes = list(docs.router())
    assert len(routes) == len(set(routes))
    assert set(routes) == set(GENRES)


@pytest.mark.parametrize("genre", GENRES)
def test_every_genre_resolves_to_files_that_exist(genre: str) -> None:
    route = docs.router()[genre]
    assert route.load or route.experimental, "a genre with no file at all"
    full = docs.lookup(genre, experimental=True)
    names = [file for file, _ in full.files]
    assert names == list(route.load + route.experimental)
    assert f"{genre}.md" in names, "each genre has its own reference file"
    for file, text in full.files:
        assert (DOCS_DIR / file).is_file()
        assert text.strip()
    plain = docs.lookup(genre)
    assert [file for file, _ in plain.files] == list(route.load)
    assert plain.held_back == route.experimental


@pytest.mark.parametrize("genre", GENRES)
def test_every_router_genre_is_a_genre_the_engine_accepts(genre: str) -> None:
    header = parse(f"figdown {VERSIONS[-1]} {genre}\n")
    assert not any("unknown genre" in message for _, message in header.diagnostics), genre


def test_tasks_and_skill_resolve() -> None:
    assert docs.lookup("reading").files[0][0] == "reading.md"
    assert docs.lookup("transcribe").files[0][0] == "transcribe.md"
    assert docs.lookup("build").files[0][0] == "building.md"
    skill = docs.lookup("skill")
    assert skill.kind == "skill" and skill.files[0][0] == "SKILL.md"
    assert docs.ROUTER_MARKER in skill.files[0][1]


def test_no_shipped_file_is_an_orphan() -> None:
    reachable = {docs.SKILL} | {file for file, _ in docs.TASKS.values()}
    for route in docs.router().values():
        reachable.update(route.load, route.experimental)
    assert set(docs.doc_names()) == reachable
    assert TASK_FILES <= reachable


def test_unknown_names_are_refused_with_the_choices() -> None:
    with pytest.raises(docs.DocsError, match="genres are block, bitfield"):
        docs.lookup("pie")
    with pytest.raises(docs.DocsError):
        docs.doc_text("../server.py")


def test_names_are_case_and_space_insensitive() -> None:
    assert docs.lookup("  Table ").name == "table"
    assert docs.lookup(None).kind == docs.lookup("").kind == "index"


# --- the router parser on its own ------------------------------------------------------------

ROUTER = f"""# Skill
Some prose.

{docs.ROUTER_MARKER}
| Genre | Draws | Load | Experimental |
|---|---|---|---|
| `block` | things | `block.md`, `layout.md` | `experimental.md` |
| `timing` | waves | — | `timing.md` |

After the table.
| `ignored` | not | `a.md` | — |
"""


def test_parse_router_reads_rows_until_the_table_ends() -> None:
    routes = docs.parse_router(ROUTER)
    assert list(routes) == ["block", "timing"]
    assert routes["block"] == docs.Route("block", "things", ("block.md", "layout.md"), ("experimental.md",))
    assert routes["timing"].load == () and routes["timing"].experimental == ("timing.md",)


def test_parse_router_accepts_crlf() -> None:
    assert list(docs.parse_router(ROUTER.replace("\n", "\r\n"))) == ["block", "timing"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("no marker here\n| `block` | x | `a.md` | — |\n", "marker"),
        (f"{docs.ROUTER_MARKER}\n\nprose only\n", "no rows"),
        (f"{docs.ROUTER_MARKER}\n| `block` | x | `a.md` | — |\n| `block` | y | `b.md` | — |\n", "two router rows"),
        (f"{docs.ROUTER_MARKER}\n| `block` | x | `a.md` |\n", "four cells"),
    ],
)
def test_parse_router_refuses_broken_tables(text: str, message: str) -> None:
    with pytest.raises(docs.DocsError, match=message):
        docs.parse_router(text)


@pytest.mark.parametrize(("name", "line", "source"), EXAMPLES, ids=[f"{n}:{ln}" for n, ln, _ in EXAMPLES])
def test_every_fd_example_draws(name: str, line: int, source: str) -> None:
    """What the pages show as clean also builds: no geometry refusal, and the SVG reads back."""
    from markmcp.figdown.render import build, read_artifact

    built = build(source)
    assert built.svg is not None, f"{name} line {line}: {built.diagnostics}"
    assert read_artifact(built.svg).source == source


def test_the_build_page_names_every_option_and_argument() -> None:
    """building.md documents each ``figdown build`` option and each ``figdown_build`` argument
    the code defines (a new one cannot land undocumented)."""
    from markmcp.figdown import cli, server

    page = docs.doc_text("building.md")
    build_parser = next(action for action in cli.build_parser()._subparsers._group_actions)  # noqa: SLF001
    options = {flag for action in build_parser.choices["build"]._actions  # noqa: SLF001
               for flag in action.option_strings if flag.startswith("--") and flag != "--help"}
    assert options == {"--out", "--with-title", "--check"}
    for flag in options:
        assert f"figdown build {flag}" in page, flag
    tool = next(t for t in server.TOOLS if t.name == "figdown_build")
    for argument in tool.input_schema["properties"]:
        assert f"`{argument}`" in page, argument
    for tool in ("figdown_build", "figdown_check", "figdown_read"):
        assert f"| `{tool}` |" in page, tool
