"""Our own VisiMark documentation, shipped inside the package.

``SKILL.md`` is the authoring discipline for an agent writing VisiMark, ``cli-reference.md``
the command reference, ``function-reference.md`` the builtin functions (generated from the
registry by :func:`markmcp.visimark.reference.function_reference`; a test fails when the
shipped file drifts from it), and ``example-invoice.md`` / ``example-invoice-drift.md`` a
worked example and its broken twin, whose appendix holds the exact ``check`` report.
"""

from __future__ import annotations

from importlib import resources

SKILL = "SKILL.md"
CLI_REFERENCE = "cli-reference.md"
FUNCTION_REFERENCE = "function-reference.md"
EXAMPLE = "example-invoice.md"
EXAMPLE_DRIFT = "example-invoice-drift.md"


class DocsError(Exception):
    """A name that is not one of the shipped documentation files."""


def doc_names() -> list[str]:
    """The Markdown files shipped here, sorted."""
    return sorted(item.name for item in resources.files(__name__).iterdir() if item.name.endswith(".md"))


def doc_text(name: str) -> str:
    """The text of one shipped documentation file."""
    if name not in doc_names():
        raise DocsError(f"no VisiMark documentation file {name!r}; there are {', '.join(doc_names())}")
    return resources.files(__name__).joinpath(name).read_text(encoding="utf-8")
