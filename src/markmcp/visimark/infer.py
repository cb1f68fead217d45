"""`infer`: the rules that reproduce the numbers a plain Markdown document already has.

For a document with tables and no ``vmark`` rules, :func:`infer` proposes

* **column rules**: ``C = A op B`` over two numeric columns of a table (stage 1), ``C = A *
  k`` with ``k`` solved from one row (stage 2), and ``C = A * s`` with ``s`` a scalar of
  stage 3 (stage 4);
* **scalars**: ``SUM``/``AVG``/``MIN``/``MAX``/``COUNT`` of a column whose value is already
  written in the prose after its table, exactly as ``fmt`` would write it (stage 3), with
  an anchor on that figure;
* **aliases** (``"Unit price" is up``) for headers that are not identifiers.

Nothing here is fitted.  Candidates are screened with plain decimal arithmetic, then every
survivor is verified by the real engine (:func:`check` on a document holding the table and
the rule), so a rule is proposed only when ``check`` itself says it reproduces every cell it
covers, at the column's own width (a ``precision`` clause is added where the width the rule
derives is not the one the cells show).  Selection builds an acyclic set (a rule that would
close a cycle with those already chosen is dropped), prefers a rule over materialised
columns to one with a constant, and the constructive form (``*``, ``+``) to its
rearrangement; two survivors that still rank equally are reported as ambiguous and neither
is proposed.  Two rows of evidence make a proposal *weak* (reported, never written); one
row is no evidence; a rule that fits every row but one is a *near-miss*, reported with the
row that disagrees and never written.

Finally the whole proposal is written into the document (:func:`plan`) and checked once
more; anything that does not verify there is withdrawn.  So ``infer --write`` always leaves
a document that ``check`` passes, apart from what was wrong with it before.

The module is pure: text in, proposals and insertions out.  A document that already has
``vmark`` blocks, or says ``<!--vmark:no-formulas-->``, is left alone (``left_alone`` says
why): adopting rules is for documents that have none.

Three modules share the work: :mod:`.infer_read` reads the tables' columns and the prose's
figures, :mod:`.infer_rules` searches, verifies and selects, and this one turns the selection
into proposals, settles them in the written document and plans the insertions.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import lang
from .builtins import REGISTRY
from .check import check
from .infer_read import Figure, Sheet, figures, generate_alias, read_sheets
from .infer_rules import (Candidate, Disagreement, Search, Verifier, dependency_order, echo_in_prose, scalar_picks,
                          select)
from .locate import NO_FORMULAS_MARKER, locate
from .model import build
from .values import CellNumber, parse_cell_number

NOT_ANCHORABLE = "no anchorable inline node holds this figure"
TOTAL_ROW = ("not written: the table's last row, {label}, totals the rows above it, and a rule covers every "
             "row of its table; move the total row out of the table (SUM scalars anchored in prose replace it) "
             "and run infer again")
READS_HELD = "not written: it reads `{dep}`, which is not written"
MAX_FINAL_ROUNDS = 4


@dataclass
class Proposal:
    """One thing infer says.  ``kind`` is ``column``, ``alias``, ``scalar``, ``constant``,
    ``near-miss``, ``ambiguous`` or ``alternative``; only columns, aliases and scalars are
    written (never a weak one)."""

    kind: str
    sheet: str
    name: str
    rule: str            # the statement as written into the block (a precision clause included)
    shown: str = ""      # what the report prints after `=`
    fits: int = 0
    rows: int = 0
    weak: bool = False
    reason: str | None = None
    alternatives: list[str] | None = None
    disagreement: Disagreement | None = None
    table: int = -1      # the sheet's table (-1: a figure matching several values)
    header: str | None = None      # alias: the header it names
    figure: Figure | None = None   # scalar: the figure it anchors; ambiguous figure: that figure
    echo: Figure | None = None     # constant: the same value written another way in prose
    deps: tuple[str, ...] = ()
    held: str | None = None  # why it fits and is not written (its table ends in a total row)

    @property
    def writable(self) -> bool:
        return self.kind in ("column", "alias", "scalar") and not self.weak and self.held is None

    @property
    def reasons(self) -> str | None:
        """Every reason given for it, the hold first (the JSON ``reason``)."""
        return "; ".join(r for r in (self.held, self.reason) if r) or None

    def key(self) -> tuple[str, str, str, str]:
        return (self.kind, self.sheet, self.name, self.rule)


@dataclass
class Inference:
    source: str
    sheets: list[Sheet]
    proposals: list[Proposal]
    left_alone: str | None = None

    @property
    def marker(self) -> bool:
        """Whether ``--write`` would write the no-formulas marker: the document has a table
        and infer found nothing whatsoever (a near-miss or an ambiguity is something)."""
        return (self.left_alone is None and bool(self.sheets) and not self.proposals
                and not any(s.total is not None for s in self.sheets))

    def count(self) -> dict[str, int]:
        ps = [p for p in self.proposals if p.held is None]
        return {
            "rules": sum(1 for p in ps if p.kind == "column" and not p.weak),
            "aliases": sum(1 for p in ps if p.kind == "alias"),
            "scalars": sum(1 for p in ps if p.kind == "scalar"),
            "anchors": sum(1 for p in ps if p.kind == "scalar" and p.figure is not None
                           and p.figure.anchor_at is not None),
        }


@dataclass
class Insert:
    """An insertion at ``at``; ``kind`` is ``block``, ``anchor`` or ``marker``."""

    at: int
    text: str
    kind: str
    proposals: list[Proposal] = field(default_factory=list)


# --- aliases -----------------------------------------------------------------------------------------


def _aliases(sheet: Sheet) -> tuple[list[Proposal], list[Proposal]]:
    """An ``is`` alias for each header that is not an identifier (and has no `"`, which no
    quoted form can spell); a generated name that is taken is ambiguous, not proposed."""
    taken = {c.name for c in sheet.columns} | lang.RESERVED | lang.WORD_OPERATORS | lang.BOOLEAN_WORDS
    taken |= set(REGISTRY)
    proposals: list[Proposal] = []
    collisions: list[Proposal] = []
    for col in sheet.columns:
        if col.ref is not None or '"' in col.name or not col.name:
            continue
        name = generate_alias(col.name)
        rule = f'"{col.name}" is {name}'
        if name in taken or name.upper() in REGISTRY:
            collisions.append(Proposal("ambiguous", sheet.id, name, "", table=sheet.index, header=col.name,
                                       alternatives=[rule], reason="the generated name is already taken"))
            continue
        taken.add(name)
        sheet.aliases[col.name] = name
        col.ref = name
        proposals.append(Proposal("alias", sheet.id, name, rule, shown=rule, table=sheet.index, header=col.name))
    return proposals, collisions


# --- the whole inference ---------------------------------------------------------------------------------


def infer(source: str) -> Inference:
    """Propose rules, scalars, anchors and aliases for a document with no rules."""
    located = locate(source)
    if located.no_formulas is not None:
        return Inference(source, [], [], f"it is marked `{NO_FORMULAS_MARKER}`; delete the marker to infer its rules")
    if any(f.lang == "vmark" for f in located.fences):
        return Inference(source, [], [], "it already has `vmark` blocks; `check` and `fmt` look after a document "
                                         "with rules, and infer proposes rules only for one that has none")
    model = build(source)
    sheets = read_sheets(located, set(model.sheets))
    prose = figures(source, located)
    proposals: list[Proposal] = []
    alias_proposals: dict[int, tuple[list[Proposal], list[Proposal]]] = {s.index: _aliases(s) for s in sheets}
    verifier = Verifier(sheets)
    picks, loose = scalar_picks(sheets, verifier, prose)
    for cand, _ in picks:
        verifier.scalar_lines[f"{cand.sheet.id}.{cand.name}"] = f"{cand.name} = {cand.rhs}"
    search = Search(sheets, verifier)
    scalar_refs = [(c.sheet.id, c.name, c.value) for c, _ in picks]
    for sheet in sheets:
        search.columns(sheet)
        search.cross(sheet, scalar_refs)
    seed = {f"{c.sheet.id}.{c.name}": (f"{c.sheet.id}.{c.column.name}",) for c, _ in picks}
    chosen = select(search.out, seed, {s.id: s.index for s in sheets})

    for sheet in sheets:
        def here(c: Candidate) -> bool:
            return c.sheet is sheet

        proposals += alias_proposals[sheet.index][0]
        for c in dependency_order([c for c in chosen.accepted if here(c)], chosen.graph):
            weak = c.rows == 2
            proposals.append(Proposal("column", sheet.id, c.target.name, c.statement, shown=c.rhs, fits=c.fits,
                                      rows=c.rows, weak=weak, table=sheet.index, deps=c.deps))
            echo = echo_in_prose(prose, c.constant) if c.constant is not None else None
            if echo is not None:
                assert c.constant is not None
                proposals.append(Proposal("constant", sheet.id, c.constant, c.rule, shown=c.rhs, fits=c.fits,
                                          rows=c.rows, table=sheet.index, echo=echo,
                                          reason=f'also appears as "{echo.text}" in prose, line {echo.line}'))
        for cand, fig in picks:
            if cand.sheet is sheet:
                proposals.append(Proposal("scalar", sheet.id, cand.name, f"{cand.name} = {cand.rhs}",
                                          shown=cand.rhs, fits=sheet.rows, rows=sheet.rows, table=sheet.index,
                                          figure=fig, reason=None if fig.anchor_at is not None else NOT_ANCHORABLE,
                                          deps=(f"{sheet.id}.{cand.column.name}",)))
        for c in chosen.near_misses:
            if here(c):
                proposals.append(Proposal("near-miss", sheet.id, c.target.name, c.rule, shown=c.rhs, fits=c.fits,
                                          rows=c.rows, table=sheet.index, disagreement=c.misses[0]))
        proposals += alias_proposals[sheet.index][1]
        for c, rules in chosen.ambiguous:
            if here(c):
                proposals.append(Proposal("ambiguous", sheet.id, c.target.name, "", rows=sheet.rows,
                                          table=sheet.index, alternatives=rules))
        for c, reason in chosen.also_fits:
            if here(c):
                proposals.append(Proposal("alternative", sheet.id, c.target.name, c.rule, shown=c.rhs, fits=c.fits,
                                          rows=c.rows, table=sheet.index, reason=reason))
    for fig, rules in loose:
        proposals.append(Proposal("ambiguous", "", fig.text, "", figure=fig, alternatives=rules))
    inference = Inference(source, sheets, proposals)
    _hold_total_rows(inference)
    _settle(inference)
    return inference


def _hold_total_rows(inference: Inference) -> None:
    """Hold back what a table ending in a total row would get written: its rules and scalars
    fit the rows above the total, but ``check`` applies a rule to every row, the total
    included; and a block holding only its aliases would stop infer from running again once
    the total row is moved out.  A rule of another table reading a held value is held too."""
    totals = {s.id: s.total for s in inference.sheets if s.total is not None}
    held: set[str] = set()

    def hold(p: Proposal, reason: str) -> None:
        p.held = reason
        held.add(f"{p.sheet}.{p.name}")

    for p in inference.proposals:
        total = totals.get(p.sheet)
        if total is not None and p.writable:
            hold(p, TOTAL_ROW.format(label=f"`{total.label}`" if total.label else "unlabelled"))
    changed = True
    while changed:
        changed = False
        for p in inference.proposals:
            dep = next((d for d in p.deps if d in held), None) if p.writable else None
            if dep is not None:
                hold(p, READS_HELD.format(dep=dep))
                changed = True


def _settle(inference: Inference) -> None:
    """Write the proposal into the document and check it: give each anchored scalar the
    width its figure shows, and withdraw whatever still does not verify."""
    for _ in range(MAX_FINAL_ROUNDS):
        written = apply(inference.source, plan(inference))
        result = check(build(written))
        changed = False
        for p in inference.proposals:
            if p.kind != "scalar" or not p.writable or p.figure is None or p.figure.anchor_at is None:
                continue  # only a scalar written with its anchor is checked against its figure
            places = _figure_places(p.figure.text)
            if result.precision.get(f"{p.sheet}.{p.name}") != places and places is not None:
                statement = f"{p.name} precision {places} = {p.shown}"
                if statement != p.rule:
                    p.rule = statement
                    changed = True
        if changed:
            continue
        broken = {(f.sheet, f.name) for f in result.findings if f.is_problem}
        if not broken:
            return
        withdrawn = [p for p in inference.proposals if p.writable and (p.sheet, p.name) in broken]
        if not withdrawn:
            return
        for p in withdrawn:
            p.kind, p.alternatives, p.reason = "ambiguous", [p.rule], "does not verify in the written document"
            p.rule = ""


def _figure_places(text: str) -> int | None:
    num = parse_cell_number(text.strip())
    if not isinstance(num, CellNumber) or num.percent:
        return None
    digits = num.digits.lstrip("-")
    return len(digits.split(".")[1]) if "." in digits else 0


# --- writing ------------------------------------------------------------------------------------------


def plan(inference: Inference, only: list[Proposal] | None = None, *, marker: bool = True) -> list[Insert]:
    """The insertions that write ``only`` (default: every writable proposal): a ``vmark``
    block after each table, an anchor after each matched figure — or, when infer found
    nothing whatsoever and ``marker`` allows it, the no-formulas marker at the end."""
    source = inference.source
    if inference.left_alone is not None:
        return []
    chosen = [p for p in (inference.proposals if only is None else only) if p.writable]
    # a scalar with no figure to anchor is written only when a written rule reads it
    read = {dep for p in chosen if p.kind == "column" for dep in p.deps}
    chosen = [p for p in chosen if p.kind != "scalar" or (p.figure is not None and p.figure.anchor_at is not None)
              or f"{p.sheet}.{p.name}" in read]
    if only is None and marker and inference.marker:
        lead = "" if source.endswith(("\n\n", "\r\n\r\n")) else "\n" if source.endswith("\n") else "\n\n"
        return [Insert(len(source), f"{lead}{NO_FORMULAS_MARKER}\n", "marker")]
    inserts: list[Insert] = []
    for sheet in inference.sheets:
        mine = [p for p in chosen if p.table == sheet.index]
        if not mine:
            continue
        eol = "\r\n" if source[sheet.table.end:sheet.table.end + 2] == "\r\n" else "\n"
        groups = [
            [p.rule for p in mine if p.kind == "alias"],
            _aligned([p for p in mine if p.kind == "column"]),
            _aligned([p for p in mine if p.kind == "scalar"]),
        ]
        body = (eol + eol).join(eol.join(g) for g in groups if g)
        text = f"{eol}{eol}```vmark #{sheet.id}{eol}{body}{eol}```"
        inserts.append(Insert(sheet.table.end, text, "block", mine))
    for p in chosen:
        if p.kind == "scalar" and p.figure is not None and p.figure.anchor_at is not None:
            inserts.append(Insert(p.figure.anchor_at, f"<!--vmark={p.sheet}.{p.name}-->", "anchor", [p]))
    return sorted(inserts, key=lambda i: i.at)


def _aligned(group: list[Proposal]) -> list[str]:
    """Statements with their `=` signs in one column, the way a person writes a block."""
    heads = [p.rule.split(" = ", 1)[0] for p in group]
    width = max((len(h) for h in heads), default=0)
    return [f"{h.ljust(width)} = {p.rule.split(' = ', 1)[1]}" for h, p in zip(heads, group)]


def apply(source: str, inserts: list[Insert]) -> str:
    """``source`` with every insertion made (each at an offset of the original text)."""
    out = []
    last = 0
    for ins in sorted(inserts, key=lambda i: i.at):
        out.append(source[last:ins.at])
        out.append(ins.text)
        last = ins.at
    out.append(source[last:])
    return "".join(out)


def select_plan(inference: Inference, keys: list[tuple[str, str, str, str]]
                ) -> tuple[list[Proposal], list[Proposal], list[tuple]]:
    """The writable proposals named by ``keys`` (kind, sheet, name, rule), the other
    proposals they name (made, and never written: weak, held, a near-miss...), and the keys
    that name no proposal of this inference."""
    by_key = {p.key(): p for p in inference.proposals}
    found = [by_key[k] for k in keys if k in by_key and by_key[k].writable]
    kept = [by_key[k] for k in keys if k in by_key and not by_key[k].writable]
    missing = [k for k in keys if k not in by_key]
    return found, kept, missing


def why_not_written(p: Proposal) -> str:
    """Why a proposal of the plan was not written, in the words the plan already has."""
    if p.held is not None:
        return p.reasons or p.held
    if p.weak:
        return "two rows of evidence: reported, never written"
    if p.kind == "scalar":
        # written only with its anchor, or when a written rule reads it
        return f"{p.reason or NOT_ANCHORABLE}, and no rule written reads it"
    if p.kind == "near-miss":
        return "fits every row but one (`disagreement` names it): reported, never written"
    if p.kind == "ambiguous":
        return (p.reason + ": " if p.reason else "") + "rules that rank equally are reported, neither is written"
    if p.kind == "alternative":
        return f"also fits, not proposed: {p.reason}" if p.reason else "also fits, not proposed"
    if p.kind == "constant":
        return "advice: the constant is written inline in its column rule; naming it is left to you"
    return p.reasons or "not written"


def not_written(inference: Inference, inserts: list, among: list[Proposal] | None = None) -> list[dict[str, str]]:
    """Each proposal of ``among`` (every proposal, by default) that none of ``inserts``
    writes, in the order infer made them: kind, sheet, name, rule and why."""
    done = {id(p) for i in inserts for p in i.proposals}
    order = {p.key(): n for n, p in enumerate(inference.proposals)}
    left = [p for p in (inference.proposals if among is None else among) if id(p) not in done]
    return [{"kind": p.kind, "sheet": p.sheet, "name": p.name, "rule": p.rule, "reason": why_not_written(p)}
            for p in sorted(left, key=lambda p: order[p.key()])]
