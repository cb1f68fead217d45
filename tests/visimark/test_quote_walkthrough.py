"""A consulting quote built step by step (alias, param, ROUND on money, a schedule sheet, a
table-less reconciliation with an absolute-value tolerance) — the numbers and the report
layout of upstream's tutorial capstone, with our own labels."""

from __future__ import annotations

from pathlib import Path

from markmcp.visimark.check import check
from markmcp.visimark.envelopes import eval_values
from markmcp.visimark.model import build
from markmcp.visimark.report import format_check
from markmcp.visimark.write import fmt

SEED = """| Phase            | Effort (man-days)    |    Rate |   Net |   VAT | Gross |
|------------------|---------------------:|--------:|------:|------:|------:|
| Audit            |                    6 |  900.00 |  0.00 |  0.00 |  0.00 |
| Data modelling   |                   14 |  850.00 |  0.00 |  0.00 |  0.00 |
| Load trials      |                    9 |  850.00 |  0.00 |  0.00 |  0.00 |
| Go-live support  |                    4 | 1100.00 |  0.00 |  0.00 |  0.00 |

```vmark #lines
"Effort (man-days)" is days

param vat_rate precision 2 = default 23%

Net   = days * Rate
VAT   = ROUND(Net * vat_rate, 2)
Gross = Net + VAT

effort_total = SUM(days)
net_total    = SUM(Net)
vat_total    = SUM(VAT)
gross_total  = SUM(Gross)
day_rate_avg precision 2 = net_total / effort_total
```

The work is **0**<!--vmark=lines.effort_total--> man-days at **0.00**<!--vmark=lines.day_rate_avg--> a day:
**0.00**<!--vmark=lines.net_total--> net, VAT at **0**<!--vmark=lines.vat_rate|percent--> adds
**0.00**<!--vmark=lines.vat_total-->, **0.00**<!--vmark=lines.gross_total--> gross.

| Instalment       | Share | Amount | Due        |
|------------------|------:|-------:|------------|
| Kick-off         |   25% |   0.00 | 2026-10-01 |
| Model approved   |   45% |   0.00 | 2026-11-16 |
| Live             |   30% |   0.00 | 2027-01-15 |

```vmark #schedule
Amount = ROUND(Share * lines.gross_total, 2)

covered  = SUM(Amount)
share_sum precision 2 = SUM(Share)

assert share_sum == 1
```

```vmark #recon
invoiced  = lines.gross_total
scheduled = schedule.covered
variance  = scheduled - invoiced

assert |variance| <= 0.05
```

Scheduled **0.00**<!--vmark=recon.scheduled--> of **0.00**<!--vmark=recon.invoiced-->, off by
**0.00**<!--vmark=recon.variance-->; instalments cover **0.00**<!--vmark=schedule.covered-->.
"""


def filled() -> str:
    out = fmt(SEED)
    assert (out.cells_updated, out.anchors_updated) == (15, 10)
    return out.output


def test_fmt_fills_every_value_and_the_quote_checks_clean() -> None:
    doc = filled()
    result = check(build(doc))
    assert result.findings == []
    assert "VAT at **23%**<!--vmark=lines.vat_rate|percent-->" in doc
    assert eval_values(result)["lines.gross_total"] == "36100.5"


def test_one_input_moves_twenty_two_numbers_in_declaration_order() -> None:
    doc = filled().replace("|                   14 |  850.00", "|                   16 |  850.00")
    text = format_check("q.md", check(build(doc)).findings)
    assert text.split("\n")[2:] == [
        "  STALE   lines.Net       · Data modelling         11900.00 ≠ 13600.00   days * Rate",
        "  STALE   lines.VAT       · Data modelling          2737.00 ≠ 3128.00    ROUND(Net * vat_rate, 2)",
        "  STALE   lines.Gross     · Data modelling         14637.00 ≠ 16728.00   Net + VAT",
        "  STALE   lines.effort_total                             33 ≠ 35         SUM(days)",
        "  STALE   lines.net_total                          29350.00 ≠ 31050.00   SUM(Net)",
        "  STALE   lines.vat_total                           6750.50 ≠ 7141.50    SUM(VAT)",
        "  STALE   lines.gross_total                        36100.50 ≠ 38191.50   SUM(Gross)",
        "  STALE   lines.day_rate_avg                         889.39 ≠ 887.14",
        "  STALE   schedule.Amount · Kick-off                9025.13 ≠ 9547.88    ROUND(Share * lines.gross_total, 2)",
        "  STALE   schedule.Amount · Model approved         16245.23 ≠ 17186.18   ROUND(Share * lines.gross_total, 2)",
        "  STALE   schedule.Amount · Live                   10830.15 ≠ 11457.45   ROUND(Share * lines.gross_total, 2)",
        "  STALE   schedule.covered                         36100.51 ≠ 38191.51   SUM(Amount)",
        "  STALE   recon.invoiced                           36100.50 ≠ 38191.50",
        "  STALE   recon.scheduled                          36100.51 ≠ 38191.51",
        "  STALE   8 prose anchors bound to the values above",
        "",
        "  22 problems (22 stale, 0 errors)",
    ]


def test_assertions_catch_what_fmt_would_make_consistent() -> None:
    doc = filled().replace("| Live             |   30% |", "| Live             |   35% |")
    text = format_check("q.md", check(build(doc)).findings)
    assert text.split("\n")[2:] == [
        "  STALE   schedule.Amount · Live                   10830.15 ≠ 12635.18   ROUND(Share * lines.gross_total, 2)",
        "  STALE   schedule.covered                         36100.51 ≠ 37905.54   SUM(Amount)",
        "  STALE   recon.scheduled                          36100.51 ≠ 37905.54",
        "  STALE   recon.variance                               0.01 ≠ 1805.04",
        "  STALE   3 prose anchors bound to the values above",
        "",
        "  ASSERT  #schedule       share_sum == 1",
        "          1.05 == 1   is false",
        "",
        "  ASSERT  #recon          |variance| <= 0.05",
        "          |1805.04| <= 0.05   is false",
        "",
        "  9 problems (7 stale, 2 errors)",
    ]
    repaired = fmt(doc).output
    assert sorted(f.code for f in check(build(repaired)).findings) == ["ASSERT", "ASSERT"]


def test_a_what_if_without_an_edit(tmp_path: Path) -> None:
    import subprocess
    import sys

    path = tmp_path / "quote.md"
    path.write_text(filled(), encoding="utf-8")
    before = path.read_bytes()
    p = subprocess.run([sys.executable, "-m", "markmcp.visimark.cli", "eval", "--scenario", "-", str(path)],
                       input='{ "vat_rate": "0%" }', capture_output=True, text=True, encoding="utf-8")
    assert p.returncode == 0
    assert p.stdout.split("\n") == [
        "lines.vat_rate      0",
        "lines.effort_total  33",
        "lines.net_total     29350",
        "lines.vat_total     0",
        "lines.gross_total   29350",
        "lines.day_rate_avg  889.39",
        "schedule.covered    29350",
        "schedule.share_sum  1",
        "recon.invoiced      29350",
        "recon.scheduled     29350",
        "recon.variance      0",
        "lines.Net           5400, 11900, 7650, 4400",
        "lines.VAT           0, 0, 0, 0",
        "lines.Gross         5400, 11900, 7650, 4400",
        "schedule.Amount     7337.5, 13207.5, 8805",
        "scenario: -",
        "  lines.vat_rate  0  scenario  (default 0.23)",
        "",
    ]
    assert path.read_bytes() == before
