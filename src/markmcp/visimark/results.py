"""What the evaluation phases share: the result records, the edits ``fmt`` may splice,
and the two exceptions that carry a value's absence through evaluation.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .findings import Finding
from .model import Node, Sheet
from .units import UnitMap


IMPORT_FAILED = "#import-failed"  # a dependency standing for a sheet whose CSV could not be read


BOOLEAN_BINDING = "a boolean cannot be stored; wrap it in `IF()` to produce a number or a string"


class Unevaluable(Exception):
    """A value depends on something that has already been reported; ``cause`` names the
    code of a row-level root cause (DATE, UNIT) when there is one."""

    def __init__(self, cause: str | None = None) -> None:
        super().__init__(cause)
        self.cause = cause


class UnitError(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass
class Resolved:
    kind: str  # column | input | scalar | unknown
    node: Node | None = None
    sheet: Sheet | None = None
    column: str | None = None
    suggestion: str | None = None


@dataclass
class Edit:
    """A splice ``fmt`` may apply: replace [start, end) with ``text``."""

    start: int
    end: int
    text: str
    kind: str  # cell | anchor | date | unit


@dataclass
class ChartResult:
    """One declaration's outcome; ``svg`` is present whenever it rendered."""

    sheet: str
    name: str
    engine: str
    series: list[str]
    labels: str
    path: str | None = None
    state: str = "error"  # current | stale | missing | error | skipped
    svg: bytes | None = field(default=None, repr=False)

    def json(self, with_state: bool = True) -> dict:
        out: dict = {"sheet": self.sheet, "name": self.name, "engine": self.engine, "series": list(self.series),
                     "labels": self.labels, "path": self.path}
        if with_state:
            out["state"] = self.state
        return out


@dataclass
class AssertionResult:
    sheet: str
    source: str
    holds: bool | None
    operands: dict[str, str]
    substituted: str


@dataclass
class CheckResult:
    findings: list[Finding]
    values: dict[str, object]
    cells: dict[str, list[object | None]]
    precision: dict[str, int | None]
    units: dict[str, UnitMap | None]
    input_units: dict[str, UnitMap]
    assertions: list[AssertionResult]
    edits: list[Edit]
    order: list[Node]
    unevaluable: set[str] = field(default_factory=set)
    charts: list[ChartResult] = field(default_factory=list)
    deps: dict[str, set[str]] = field(default_factory=dict)  # each binding's dependencies, by id

    @property
    def exit_code(self) -> int:
        return 1 if any(f.is_problem for f in self.findings) else 0
