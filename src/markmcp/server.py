"""``markmcp-mcp`` (also ``markmcp serve``): one MCP server with all three tool families.

The VisiMark, FigDown and MRSF servers' tools, resources, resource templates and prompts,
served by one process for hosts where one entry is simpler; their names are already
distinct (``visimark_*``, ``figdown_*``, ``mrsf_*``; ``visimark://``, ``mrsf://``).
``--only visimark,figdown`` serves some of the families; the options stay those of all
three, so a command line works whichever families it chooses.  The single servers
(``visimark-mcp``, ``figdown-mcp``, ``mrsf-mcp``) stay as they are: this module only
combines their specs (``markmcp.mcpcore.combine``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from markmcp import __version__ as PACKAGE_VERSION
from markmcp.cmdline import arguments
from markmcp.figdown.server import SPEC as FIGDOWN
from markmcp.mcpcore import ServerSpec, serve
from markmcp.mcpcore.combine import combine
from markmcp.mrsf.server import SPEC as MRSF
from markmcp.visimark.server import SPEC as VISIMARK

SERVER_NAME = "markmcp"
PROG = "markmcp-mcp"
DEFAULT_PORT = 3000
FAMILIES: dict[str, ServerSpec] = {"visimark": VISIMARK, "figdown": FIGDOWN, "mrsf": MRSF}
PREFACE = (
    "Tools for three kinds of documents, each family named by its prefix: visimark_* (Markdown whose numbers "
    "follow stated rules), figdown_* (FigDown text figures and their SVGs) and mrsf_* (review comments kept "
    "in MRSF / Sidemark sidecars). What each family expects follows."
)


def families(text: str) -> list[str]:
    """The families ``--only`` names (comma-separated, known, at least one), in serving order."""
    chosen = [part.strip() for part in text.split(",") if part.strip()]
    unknown = [part for part in chosen if part not in FAMILIES]
    if unknown or not chosen:
        raise argparse.ArgumentTypeError(f"choose from {', '.join(FAMILIES)} (comma-separated), not {text!r}")
    return [family for family in FAMILIES if family in chosen]


def _add_only(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--only", type=families, metavar="FAMILY[,FAMILY]",
        help=f"serve only these tool families ({', '.join(FAMILIES)}; default: all)",
    )


def chosen_families(argv: Sequence[str]) -> list[str]:
    """The families the last ``--only`` of ``argv`` names; all of them when it names none
    or names them wrongly (the full parser then reports the mistake)."""
    value = None
    for index, word in enumerate(argv):
        if word == "--":
            break
        if word == "--only" and index + 1 < len(argv):
            value = argv[index + 1]
        elif word.startswith("--only="):
            value = word.split("=", 1)[1]
    if value is None:
        return list(FAMILIES)
    try:
        return families(value)
    except argparse.ArgumentTypeError:
        return list(FAMILIES)


def spec(names: Sequence[str] = tuple(FAMILIES), prog: str = PROG) -> ServerSpec:
    """The combined server serving the families ``names``, with the options of all of them."""
    return combine(
        [FAMILIES[name] for name in names],
        name=SERVER_NAME,
        version=PACKAGE_VERSION,
        prog=prog,
        default_port=DEFAULT_PORT,
        preface=PREFACE,
        offered=list(FAMILIES.values()),
        add_arguments=_add_only,
    )


def main(argv: Sequence[str] | None = None, prog: str = PROG) -> int:
    """Entry point of ``markmcp-mcp`` (and of ``markmcp serve``, with that ``prog``)."""
    argv = arguments(argv)
    return serve(spec(chosen_families(argv), prog), argv)


if __name__ == "__main__":
    sys.exit(main())
