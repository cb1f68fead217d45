"""Inputs the fuzzer (``make fuzz``) found crashing ``visimark check``, reduced to their cause.

Two were uncaught ``decimal.InvalidOperation`` (now findings on the document); a lattice of
billions of points made ``check`` list them all (now counted by arithmetic).
"""

from __future__ import annotations

import subprocess
import sys
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from markmcp.visimark import lattice
from markmcp.visimark.check import check
from markmcp.visimark.domain import parse_clause
from markmcp.visimark.model import build
from markmcp.visimark.port import MemoryFiles
from markmcp.visimark.values import quantum


def problems(src: str) -> list[tuple[str, str | None, str]]:
    result = check(build(src), MemoryFiles())
    return [(f.code, f.ident, f.message) for f in result.findings if f.is_problem]


@pytest.mark.parametrize("places", ["45", "21474836480"])
def test_round_to_more_places_than_the_working_digits_is_a_type_finding_per_row(places: str) -> None:
    """45 places are past the working digits, 21474836480 past Decimal's exponent range too: both
    the same finding on each row (the second crashed before any row was evaluated)."""
    src = f"| a | b |\n|--:|--:|\n| 1 | 2 |\n| 3 | 6 |\n\n```vmark #s\nb = ROUND(a * 2, {places})\n```\n"
    assert problems(src) == [("TYPE", "s.b", "result is not a finite decimal")] * 2


def test_quantum_is_exact_for_any_width() -> None:
    assert quantum(2) == Decimal("0.01") and quantum(-3) == Decimal("1E+3")
    assert quantum(21474836480).as_tuple() == (0, (1,), -21474836480)


@pytest.mark.parametrize("engine", ["pie", "bar", "line"])
def test_a_chart_of_a_value_too_long_to_write_is_an_artifact_finding(engine: str) -> None:
    huge = "318" * 50  # 150 digits: a finite float, but no label within the working digits
    src = (f"| Segment | Headcount |\n|---|--:|\n| a | 1240 |\n| b | {huge} |\n\n"
           f"```vmark #audience\nchart mix as {engine} of Headcount labelled Segment\n```\n\n"
           "![audience](charts/mix.svg)<!--vmark=audience.mix-->\n")
    found = problems(src)
    assert ("ARTIFACT", "audience.mix", "`Headcount` has a value too large to draw") in [
        (code, ident, message) for code, ident, message in found], found


# --- a lattice of billions of points (check enumerated them all: minutes and gigabytes) ----------------

BIG_LATTICE = "```vmark #s\nparam hours precision 0 integer in [0, {hi}] lattice 10 = default 10\n```\n"


def test_a_lattice_of_billions_of_points_is_checked_without_visiting_them() -> None:
    """Run in a child process held to 1 GiB of address space: before the fix it ran out."""
    program = (
        "import resource, sys\n"
        "resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))\n"
        "from markmcp.visimark.check import check\n"
        "from markmcp.visimark.model import build\n"
        "from markmcp.visimark.port import MemoryFiles\n"
        "for hi in ('221474836480', '221474836481'):\n"
        f"    result = check(build({BIG_LATTICE!r}.format(hi=hi)), MemoryFiles())\n"
        "    print([(f.code, f.message) for f in result.findings if f.is_problem])\n"
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    fits, misses = done.stdout.splitlines()
    assert fits == "[]"
    assert misses == ("[('TYPE', 'lattice step 10 does not reach the end of [0, 221474836481]: "
                      "221474836481 is not a multiple of 10 above 0')]")


ENDS = st.sampled_from(["[", "("]), st.sampled_from(["]", ")"])


@settings(max_examples=300, deadline=None)
@given(lo=st.integers(-30, 30), width=st.integers(-3, 40), opening=ENDS[0], closing=ENDS[1],
       step=st.sampled_from(["1", "2", "3", "5", "10", "0.5", "2.5"]), tenths=st.booleans(),
       preset=st.sampled_from(["", "integer ", "natural ", "positive ", "positive integer "]))
def test_the_counted_lattice_is_the_enumerated_one(lo: int, width: int, opening: str, closing: str, step: str,
                                                   tenths: bool, preset: str) -> None:
    """count() decides by arithmetic what points() enumerates: the same number or the same fault."""
    low = Decimal(lo) / 10 if tenths else Decimal(lo)
    high = low + (Decimal(width) / 10 if tenths else Decimal(width))
    clause = parse_clause(f"{preset}in {opening}{low}, {high}{closing} lattice {step}")
    outcome = []
    for decide in (lattice.count, lambda *args: len(lattice.points(*args))):
        try:
            outcome.append(decide("p", clause, step, False, 1))
        except lattice.LatticeFault as fault:
            outcome.append((fault.code, fault.message))
    assert outcome[0] == outcome[1], (clause.shown, step, outcome)
    if isinstance(outcome[1], int):
        points = lattice.points("p", clause, step, False, 1)
        assert points == sorted(points) and all(low <= p <= high for p in points)


def test_a_column_too_wide_for_the_whole_column_pass_is_evaluated_row_by_row() -> None:
    """A cell of hundreds of digits sends a computed column from the whole-column pass back to
    row-by-row evaluation, which crashed (AttributeError) instead of reporting the row."""
    huge = "3" * 300 + ".00"
    src = (f"| m | r | c | p |\n|---|--:|--:|--:|\n| a | 10.00 | 4.00 | 6.00 |\n| b | 9.00 | {huge} | 1.00 |\n\n"
           "```vmark #s\np = r - c\n```\n")
    found = problems(src)
    assert found and all(ident == "s.p" for _, ident, _ in found)
    assert ("PRECISION", "s.p") in {(code, ident) for code, ident, _ in found}
