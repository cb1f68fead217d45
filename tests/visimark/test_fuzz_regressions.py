"""Inputs the fuzzer (``make fuzz``) found crashing ``visimark check``, reduced to their cause.

Each was an uncaught ``decimal.InvalidOperation``; each is now a finding on the document.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from markmcp.visimark.check import check
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
