"""The parsed form of a ``vmark`` line: expression nodes, statement records, the fault.

:class:`Statement` is the base of every line's record; the records of bindings,
params, assertions, aliases and unit definitions are here, those of ``chart``
and ``report`` lines beside their grammar in :mod:`.statements`.  Both parsers
(:mod:`.lang` and :mod:`.statements`) raise :class:`LangError`.  Offsets are
absolute in the document.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal

from .domain import Clause, Domain
from .units import UnitMap


class LangError(Exception):
    """A statement that does not parse; ``code`` is the finding code to report it under."""

    def __init__(self, message: str, offset: int, code: str = "TYPE") -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset
        self.code = code


# ---------------------------------------------------------------------------
# AST


@dataclass
class Node:
    start: int
    end: int


@dataclass
class Num(Node):
    value: Decimal
    places: int
    percent: bool = False
    unit: UnitMap | None = None
    unit_span: tuple[int, int] | None = None


@dataclass
class DateLit(Node):
    value: date


@dataclass
class Str(Node):
    value: str


@dataclass
class Ref(Node):
    name: str
    qualifier: str | None = None

    @property
    def text(self) -> str:
        return f"{self.qualifier}.{self.name}" if self.qualifier else self.name


@dataclass
class Unary(Node):
    op: str
    operand: Node


@dataclass
class Binary(Node):
    op: str
    left: Node
    right: Node


@dataclass
class Call(Node):
    name: str
    args: list[Node]
    glyph: str | None = None
    implicit_step: bool = False


@dataclass
class Statement:
    """Base of every parsed block line; ``start``/``end`` span the line's content."""

    start: int
    end: int
    source: str


@dataclass
class Binding(Statement):
    name: str
    name_span: tuple[int, int]
    expr: Node
    quoted: bool = False
    precision: int | None = None
    unit: UnitMap | None = None
    unit_text: str | None = None
    unit_span: tuple[int, int] | None = None
    param: "Param | None" = None


@dataclass
class Param:
    """A param's default as written, its preset words and domain (see ``domain.py``)."""

    default_text: str
    clause: Clause = field(default_factory=Clause)
    percent: bool = False

    @property
    def presets(self) -> list[str]:
        return self.clause.presets

    @property
    def domain(self) -> Domain | None:
        return self.clause.domain


@dataclass
class Assert(Statement):
    expr: Node


@dataclass
class Alias(Statement):
    header: str
    symbol: str
    symbol_span: tuple[int, int]


@dataclass
class UnitDef(Statement):
    atom: str
    unit: UnitMap
    atom_span: tuple[int, int]
