"""The finding record shared by the model, the checker and the reporters."""

from __future__ import annotations

from dataclasses import dataclass, field

ERROR_CODES = frozenset(
    {
        "DATE", "UNIT", "UNDEF", "DUP", "VECTOR", "CYCLE", "TYPE", "SHEET", "ANCHOR",
        "PRECISION", "DOMAIN", "ASSERT", "ARTIFACT", "IMPORT", "COVERAGE",
    }
)
ADVICE_CODES = frozenset({"WARN", "NOTE"})


@dataclass
class Finding:
    """One reported problem or piece of advice, located by sheet, name and row."""

    code: str
    sheet: str | None = None
    name: str | None = None
    message: str | None = None
    row_label: str | None = None
    row_index: int | None = None
    stored: str | None = None
    computed: str | None = None
    formula: str | None = None
    raw: str | None = None
    suggestion: str | None = None
    hint: str | None = None  # replaces the did-you-mean line when a better hint is known
    iso_fix: str | None = None
    alt_a: str | None = None
    alt_b: str | None = None
    days_apart: int | None = None
    cycle_path: list[str] = field(default_factory=list)
    source: str | None = None
    substituted: str | None = None
    suppressed_count: int | None = None
    anchor_group: bool = False
    assertion_scoped: bool = False
    is_cell: bool = False
    span: tuple[int, int] | None = None
    det: int = 0
    binding_order: int = 0  # a stale scalar's place among its sheet's bindings
    artifact: str | None = None  # a STALE file: a chart's path, or an import's CSV
    bindings: list[str] = field(default_factory=list)  # an anchor roll-up: the values its anchors show

    @property
    def is_problem(self) -> bool:
        return self.code == "STALE" or self.code in ERROR_CODES

    @property
    def ident(self) -> str:
        return f"{self.sheet or ''}.{self.name or ''}"


def count(findings: list[Finding]) -> tuple[int, int]:
    """(stale, errors) with the footer's counting: an anchor roll-up counts its anchors."""
    stale = errors = 0
    for f in findings:
        if f.code == "STALE":
            stale += (f.suppressed_count or 0) if f.anchor_group else 1
        elif f.code in ERROR_CODES:
            errors += 1
    return stale, errors
