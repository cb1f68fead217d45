"""Unit algebra (#317 §3–§4): ascription, operators, builtin signatures, definitions,
suppression and asserts, each with the exact UNIT message."""

from __future__ import annotations

import pytest

from markmcp.visimark.check import check
from markmcp.visimark.model import build
from markmcp.visimark.units import format_unit


def problems(src: str) -> list[str]:
    return [f"{f.code} {f.message or ''}".strip() for f in check(build(src)).findings
            if f.code not in ("WARN", "NOTE")]


def sheet(body: str) -> str:
    return f"```vmark #q\n{body}\n```\n"


@pytest.mark.parametrize("body,expected", [
    ("fee [EUR] = 12\ntwice = fee * 2", []),
    ("energy [kJ] precision 0 = 900\nspan [min] = 30\nrate [kJ/min] precision 2 = energy / span", []),
    ("energy [kJ] precision 0 = 900\nrate [kJ/min] precision 2 = energy / 30",
     ["UNIT rate declares kJ/min but its formula derives kJ"]),
    ("a [EUR] = 3\nb [EUR] = 4\nratio [EUR] precision 2 = a / b",
     ["UNIT ratio declares EUR but its formula derives dimensionless"]),
    ("tax [EUR] = 19%", ["UNIT 19% is a ratio and cannot carry a unit"]),
    ("x [EUR] = 19% * 50", []),
    ("w [kg] = 4\nd [km] = 2\nsum = w + d", ["UNIT + needs matching units: kg and km"]),
    ("p [EUR] = 4\nsum = p + 7", ["UNIT + needs matching units: EUR and dimensionless"]),
    ("p [EUR] = 4\nsum = p + 7 [EUR]", []),
    ("p [EUR] = 4\nsum = p + 0\npick = IF(p > 0, 0, p)", []),
    ("p [EUR] = 4\nw [kg] = 1\nz = w - w\nsum = p + z", ["UNIT + needs matching units: EUR and kg"]),
    ("p [EUR] = 4\nu [USD] = 1\nsame = IF(p == u, 1, 2)", ["UNIT == needs matching units: EUR and USD"]),
    ("edge [m] = 3\nk = 2\nsq = edge ^ k", ["UNIT ^ needs a literal exponent when its base has a unit (m)"]),
    ("g = 4%\nn = 5\nf precision 4 = (1 + g) ^ n", []),
    ("a [m] = 2\nb [m] = 5\nfloor_area [m^2] = a ⋅ b", []),
    ("x [kg] = 2.5\nd [kg] = 1\ny = ROUND(x, d)", ["UNIT ROUND's places must be dimensionless, not kg"]),
    ("x [kg] = 9\ny [lb] = 2\nz = MOD(x, y)", ["UNIT MOD needs matching units: kg and lb"]),
    ("x [EUR] = 9\ny [USD] = 2\nz = IF(1 < 2, x, y)", ["UNIT IF's branches need matching units: EUR and USD"]),
    ("a [s] = 16\nr precision 0 = SQRT(a)", ["UNIT SQRT needs even exponents; s has an odd one"]),
    ("w [kg] = 2.5\nf = FLOOR(w, 1)", ["UNIT FLOOR needs matching units: kg and dimensionless"]),
    ("w [kg] = 2.5\nf = FLOOR(w, 1 [kg])", []),
    ("w [kg] = 4\nd [km] = 2\nsum = w + d\nlater = sum * 2", ["UNIT + needs matching units: kg and km"]),
    ("p [EUR] = 4\nu [USD] = 4\nassert p == u", ["UNIT == needs matching units: EUR and USD"]),
    ("v [EUR] = 0\nassert v == 0", []),
])
def test_unit_rules(body: str, expected: list[str]) -> None:
    assert problems(sheet(body)) == expected


def test_derived_maps() -> None:
    result = check(build(sheet("gross [EUR] = 100\nfx [EUR/USD] = 0.92\nwrong = gross * fx\nf = ⌊gross⌋")))
    assert format_unit(result.units["q.wrong"]) == "EUR²/USD"
    assert format_unit(result.units["q.f"]) == "EUR"


def test_definitions_expand_for_the_check() -> None:
    defined = "```vmark\n[J] = [N⋅m]\nforce [N] = 10\ndistance [m] = 3\nwork [J] = force ⋅ distance\n```\n"
    assert problems(defined) == []
    assert problems(defined.replace("[J] = [N⋅m]\n", "")) == ["UNIT work declares J but its formula derives N⋅m"]


def test_date_arithmetic_takes_any_unit_and_a_date_column_takes_none() -> None:
    ok = ("| Start | Days [day] |\n|---|---:|\n| 2026-01-01 | 3 |\n\n"
          "```vmark #t\nfirst = MIN(Start)\ngap [day] = 3\ndue = first + gap\n```\n")
    assert problems(ok) == []
    bad = "| Start [day] | Qty |\n|---|---:|\n| 2026-01-01 | 3 |\n\n```vmark #t\nn = SUM(Qty)\n```\n"
    assert problems(bad) == ["UNIT a date cannot carry a unit"]
