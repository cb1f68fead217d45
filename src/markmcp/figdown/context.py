"""Per-section parsing state shared by the directive rules."""

from __future__ import annotations

from dataclasses import dataclass, field

from .model import Doc


class Diagnostic(tuple):
    """``(line, message)`` — with the 1-based column as ``.col`` when the
    problem has a precise position (lexical errors), else ``None``."""

    def __new__(cls, line: int, message: str, col: int | None = None) -> "Diagnostic":
        self = super().__new__(cls, (line, message))
        self.col = col
        return self

    @property
    def line(self) -> int:
        return self[0]

    @property
    def message(self) -> str:
        return self[1]

    def moved(self, offset: int) -> "Diagnostic":
        return Diagnostic(self[0] + offset, self[1], self.col)


@dataclass
class Context:
    """What the line loop knows while it reads one section.

    ``diags`` collects :class:`Diagnostic` with section-local line numbers;
    the id sets are the section's namespaces (one id space for nodes,
    groups, externals, typed blocks and connector ids; classes and bundles
    have their own)."""

    doc: Doc = field(default_factory=Doc)
    diags: list[Diagnostic] = field(default_factory=list)
    node_ids: set[str] = field(default_factory=set)
    group_ids: set[str] = field(default_factory=set)
    class_ids: set[str] = field(default_factory=set)
    bundle_ids: set[str] = field(default_factory=set)
    external_ids: set[str] = field(default_factory=set)
    block_ids: set[str] = field(default_factory=set)
    edge_ids: set[str] = field(default_factory=set)
    sequence_ids: set[str] = field(default_factory=set)  # fragments and operands
    current: dict | None = None  # the open typed block
    saw_header: bool = False
    first_content: bool = True
    saw_layout: bool = False
    saw_title: bool = False
    saw_flow: bool = False

    def err(self, line: int, message: str, col: int | None = None) -> None:
        """The one error helper: report ``message`` at ``line`` (and 1-based ``col``)."""
        self.diags.append(Diagnostic(line, message, col))

    def taken(self, ident: str) -> bool:
        """Is ``ident`` already declared in the section's shared id space?"""
        return (ident in self.node_ids or ident in self.group_ids or ident in self.external_ids
                or ident in self.block_ids or ident in self.edge_ids)

    @property
    def genre(self) -> str | None:
        return self.doc.genre

    @property
    def version(self) -> str | None:
        return self.doc.version
