"""Our own MRSF documentation, shipped inside the package: ``SKILL.md``, how an agent
reviews a Markdown document through ``mrsf-mcp`` (served as ``mrsf://skill``)."""

from __future__ import annotations

from importlib import resources

SKILL = "SKILL.md"


def doc_text(name: str) -> str:
    """The text of one shipped document."""
    return resources.files(__name__).joinpath(name).read_text(encoding="utf-8")
