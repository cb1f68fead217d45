"""The README's table of server options says what each server's ``--help`` says.

The table under "Server options" lists, per row, options (first column, each ``--name``)
and the servers taking them (second column: ``all`` or the commands).  For every MCP
server command in pyproject.toml, the options the table gives it must be exactly those its
``--help`` usage line offers: an option the table claims but the server lacks is a false
promise, an option the server has but the table leaves out is undocumented.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import re
import tomllib

import pytest

from conftest import ROOT

SCRIPTS = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
SERVERS = sorted(name for name in SCRIPTS if name.endswith("-mcp"))
HEADING = "### Server options"
OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")


def table() -> list[tuple[set[str], str]]:
    """The rows of the README's options table: (options, servers cell)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert HEADING in text, f"README.md has no '{HEADING}' section"
    section = text.split(HEADING, 1)[1]
    rows = []
    for line in section.split("\n")[1:]:
        if rows and not line.startswith("|"):
            break
        if not line.startswith("|") or line.startswith("|---") or line.startswith("| Option"):
            continue
        cells = [cell.strip() for cell in re.split(r"(?<!\\)\|", line)[1:-1]]
        assert len(cells) == 3, f"a row of the options table does not have 3 cells: {line}"
        rows.append((set(OPTION.findall(cells[0])), cells[1]))
    assert rows, f"README.md's '{HEADING}' section has no table"
    return rows


def names_in(cell: str) -> set[str]:
    return set(re.findall(r"`([a-z-]+)`", cell))


def documented(server: str, rows: list[tuple[set[str], str]]) -> set[str]:
    """The options the table gives ``server``: rows for all servers and rows naming it."""
    found: set[str] = set()
    for options, servers in rows:
        if servers == "all" or server in names_in(servers):
            found |= options
    return found


def offered(server: str) -> set[str]:
    """The options ``server --help`` shows in its usage line (``--help`` itself included)."""
    module, function = SCRIPTS[server].split(":")
    main = getattr(importlib.import_module(module), function)
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        assert main(["--help"]) == 0
    usage = out.getvalue().split("\n\n", 1)[0]
    assert usage.startswith(f"usage: {server}"), usage
    return set(OPTION.findall(usage)) | {"--help"}


def test_the_table_names_only_servers_that_exist() -> None:
    named = set().union(*(names_in(servers) for _, servers in table()))
    assert sorted(named - set(SERVERS)) == [], "the options table names commands pyproject.toml does not have"


@pytest.mark.parametrize("server", SERVERS)
def test_the_table_gives_each_server_exactly_its_options(server: str) -> None:
    rows = table()
    has = offered(server)
    said = documented(server, rows)
    if not any(server in names_in(servers) for _, servers in rows) and has - said:
        pytest.fail(f"{server} is missing from README.md's options table: add it to the Servers cell of the "
                    f"rows for {', '.join(sorted(has - said))}")
    assert sorted(said - has) == [], f"README.md's options table lists options {server} --help does not offer"
    assert sorted(has - said) == [], f"{server} --help offers options README.md's options table does not list for it"


def test_the_comparison_catches_a_wrong_row() -> None:
    """Not vacuous: a table giving a server an option it lacks, or leaving one out, differs."""
    rows = table()
    server = SERVERS[0]
    assert documented(server, [*rows, ({"--no-such-option"}, f"`{server}`")]) - offered(server) == {"--no-such-option"}
    dropped = [(options - {"--cwd"}, servers) for options, servers in rows]
    assert offered(server) - documented(server, dropped) == {"--cwd"}
