"""``eval``'s numbers are positional decimal strings, however large or small: the spec's
"document quantities are decimal strings" leaves no room for ``2.5e+31`` or ``1e-8``, which a
document cell would not even accept.  Widths follow upstream: a value is its own decimal
string, trailing zeros dropped (upstream's ``values["lines.gross_total"] === "28659"`` for a
document that prints ``28659.00``)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from markmcp.visimark.envelopes import eval_envelope
from markmcp.visimark.values import canonical

F = "```"
BIG = (f"| Posten | Betrag [EUR] |\n|---|--:|\n| a | 99999999999999999999999999999999.99 |\n| b | 1 |\n\n"
       f"{F}vmark #k\nsumme [EUR] = SUM(Betrag)\nparam rate precision 2 = default 0.50\n"
       f"x [EUR] precision 2 = summe * rate\nsmall precision 9 = 1 / 100000000\n{F}\n")


def test_large_and_small_values_are_positional() -> None:
    body, _ = eval_envelope("<content>", BIG, None, scenario=("<content>", '{"k.rate": "0.25"}'))
    assert body["values"]["k.summe"] == "100000000000000000000000000000000.99"
    assert body["values"]["k.x"] == "25000000000000000000000000000000.25"
    assert body["values"]["k.small"] == "0.00000001"


@pytest.mark.parametrize("value,text", [
    ("1E+21", "1000000000000000000000"), ("-2.5E+30", "-2500000000000000000000000000000"),
    ("1E-7", "0.0000001"), ("-0.000000012300", "-0.0000000123"), ("28659.00", "28659"), ("0.00", "0"),
])
def test_canonical_never_uses_an_exponent(value: str, text: str) -> None:
    assert canonical(Decimal(value)) == text


def test_values_drop_trailing_zeros_as_upstream_does() -> None:
    src = f"| A | B |\n|--:|--:|\n| 54000.00 | 162000.00 |\n\n{F}vmark #q3\nB = A * 3\ntotal = SUM(B)\n{F}\n"
    body, _ = eval_envelope("<content>", src, None)
    assert body["values"] == {"q3.total": "162000", "q3.B": ["162000"]}
