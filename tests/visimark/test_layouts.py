"""Output layouts checked against upstream's pinned transcripts: `explain` text and JSON
with units, `ref` (tie rule, structured precision), and the `fmt --json` keys."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from markmcp.visimark.builtins import REGISTRY

INVOICE_LIKE = """```vmark
[J] = [N⋅m]
fx_eur [PLN/EUR] = 4.2650
work [J] = 1
```

| Qty | Rate [PLN] | Net |
|---:|---:|---:|
| 2 | 10.00 | 20.00 |

```vmark #lines
Net = Qty * Rate
total [PLN] = SUM(Net)
eur precision 2 = total / fx_eur
```
"""

ORDER = """| Item | Qty | Price | Net |
|---|---:|---:|---:|
| a | 2 | 1.50 | 3.00 |

```vmark #order
Net = Qty * Price
net_total = SUM(Net)
line_count = COUNT(Item)
avg_line precision 2 = net_total / line_count
```

Average **3.00**<!--vmark=order.avg_line-->.
"""


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "markmcp.visimark.cli", *args], capture_output=True,
                          text=True, encoding="utf-8")


def doc(tmp_path: Path, text: str) -> str:
    path = tmp_path / "doc.md"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_explain_text_aligns_precision_and_unit_columns(tmp_path: Path) -> None:
    p = run("explain", doc(tmp_path, INVOICE_LIKE))
    assert p.returncode == 0
    for line in ["  fx_eur = 4.2650   [PLN/EUR] (declared)",
                 "  units:\n    [J] = [N⋅m]",
                 "  inputs:  Qty, Rate [PLN]",
                 "    Net = Qty * Rate   precision 2 (derived)   [PLN] (derived)",
                 "    total = SUM(Net)       precision 2 (derived)    [PLN] (declared)",
                 "    eur = total / fx_eur   precision 2 (declared)   [EUR] (derived)"]:
        assert line in p.stdout


def test_explain_text_without_units(tmp_path: Path) -> None:
    p = run("explain", doc(tmp_path, ORDER))
    assert p.stdout.split("\n") == [
        "#order",
        "  inputs:  Item, Qty, Price",
        "  rules:",
        "    Net = Qty * Price   precision 2 (derived)",
        "  scalars:",
        "    net_total = SUM(Net)                precision 2 (derived)",
        "    line_count = COUNT(Item)            precision 0 (derived)",
        "    avg_line = net_total / line_count   precision 2 (declared)",
        "  order:   Net → net_total → line_count → avg_line",
        "",
    ]


def test_explain_json_carries_units(tmp_path: Path) -> None:
    body = json.loads(run("explain", doc(tmp_path, INVOICE_LIKE), "--json").stdout)
    fx = next(b for b in body["documentScope"] if b["name"] == "fx_eur")
    assert fx["unit"] == {"map": {"EUR": -1, "PLN": 1}, "source": "declared"}
    assert body["unitDefinitions"] == [{"atom": "J", "unit": "N⋅m"}]
    sheet = body["sheets"][0]
    assert sheet["inputUnits"] == {"Rate": {"PLN": 1}}
    assert sheet["rules"][0]["unit"] == {"map": {"PLN": 1}, "source": "derived"}
    eur = next(b for b in sheet["scalars"] if b["name"] == "eur")
    assert eur["unit"] == {"map": {"EUR": 1}, "source": "derived"}


def test_ref_round_states_its_tie_rule() -> None:
    p = run("ref", "ROUND")
    assert "  precision  the value of `places`" in p.stdout
    assert "  rounding   a tie rounds away from zero (half-up)" in p.stdout
    assert p.stdout.startswith("ROUND(x, places) — map, 2 arguments\n\n  Rounds `x` to `places` decimal places, halves going up.\n")
    assert "rounding" not in run("ref", "AVG").stdout
    assert "  precision  must be declared" in run("ref", "AVG").stdout


@pytest.mark.parametrize("name,rule", [
    ("FLOOR", {"from": "argument-scale", "param": "s"}),
    ("SUM", {"from": "argument-scale", "param": "col"}),
    ("ROUND", {"from": "argument-value", "param": "places"}),
    ("MOD", {"from": "widest-argument", "params": ["x", "y"]}),
    ("COUNT", {"from": "constant", "places": 0}),
    ("AVG", {"from": "declared"}),
    ("EOMONTH", {"from": "none"}),
])
def test_ref_json_structures_the_precision_rule(name: str, rule: dict) -> None:
    body = json.loads(run("ref", name, "--json").stdout)
    assert body["function"]["precision"] == rule | {"text": REGISTRY[name].precision.replace("**", "")}


def test_fmt_json_keys(tmp_path: Path) -> None:
    path = doc(tmp_path, ORDER)
    plain = json.loads(run("fmt", path, "--json").stdout)
    keys = ["path", "changed", "cellsUpdated", "anchorsUpdated", "datesFixed", "artifacts", "artifactsSkipped",
            "findings"]
    assert list(plain["files"][0]) == keys
    assert list(plain["summary"]) == ["files", "filesChanged", "cellsUpdated", "anchorsUpdated", "datesFixed",
                                      "artifacts", "artifactsSkipped", "problems", "stale", "errors"]
    units = json.loads(run("fmt", path, "--json", "--fix-units").stdout)
    assert units["files"][0]["unitsFixed"] == 0 and units["summary"]["unitsFixed"] == 0


def test_explain_names_each_alias_with_its_header() -> None:
    from conftest import shared_dir

    path = shared_dir("visimark", "docs") / "example-bandwidth.md"
    out = run("explain", str(path)).stdout
    assert ('  aliases:\n    bpu → "Bandwidth per Unit (TB/s, full-duplex)"\n'
            '    gpu_bw → "GPU-to-GPU Bandwidth (GB/s, full-duplex)"\n') in out
    assert "GPU-to-GPU Bandwidth (GB/s, full-duplex) (alias gpu_bw) = ROUND(bpu / GPUs * 1000, 0)" in out


LEVERS = """```vmark #levers
param extra_hours  precision 0 integer in [0, 80] = default 40
param prepay_share precision 2 in { 30%, 40%, 45%, 50% } = default 30%

max_extra_hours = 80
max_prepay      = 40%

assert levers.extra_hours  <= max_extra_hours
assert levers.prepay_share <= max_prepay
```
"""


def test_explain_lists_params_with_width_default_and_domain(tmp_path: Path) -> None:
    assert run("explain", doc(tmp_path, LEVERS)).stdout.split("\n") == [
        "#levers  (no table)",
        "  scalars:",
        "    max_extra_hours = 80   precision 0 (derived)",
        "    max_prepay = 40%       precision 2 (derived)",
        "  params:",
        "    extra_hours    precision 0   default 40   domain integer in [0, 80]",
        "    prepay_share   precision 2   default 30%   domain { 30%, 40%, 45%, 50% }",
        "  order:   extra_hours → prepay_share → max_extra_hours → max_prepay",
        "  assertions:",
        "    levers.extra_hours  <= max_extra_hours",
        "    levers.prepay_share <= max_prepay",
        "",
    ]


def scenario(tmp_path: Path, text: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "markmcp.visimark.cli", "eval", "--scenario", "-",
                           doc(tmp_path, LEVERS)], input=text, capture_output=True, text=True, encoding="utf-8")


@pytest.mark.parametrize("text,message", [
    ('{ "extra_hours": "100" }', "visimark: scenario value for extra_hours is not in [0, 80]: 100"),
    ('{ "extra_hour": "1" }', "visimark: scenario key extra_hour names no param; did you mean extra_hours?"),
    ('{ "extra_hours": 4 }', 'visimark: scenario value for extra_hours must be a string: write "4"'),
    ('{ "prepay_share": "0.3" }', 'visimark: prepay_share is a percent; write "0.3%"'),
    ('{ "prepay_share": "40.5%" }', "visimark: scenario value for prepay_share has 3 decimals; prepay_share declares 2"),
    ('{ "max_prepay": "1" }', "visimark: scenario key max_prepay is a rule, not a param"),
    ('{ "extra_hours": "2,000" }', 'visimark: scenario value for extra_hours is not a number: "2,000"'),
])
def test_scenario_faults_are_one_line_and_exit_2(tmp_path: Path, text: str, message: str) -> None:
    p = scenario(tmp_path, text)
    assert (p.returncode, p.stdout, p.stderr) == (2, "", message + "\n")


def test_scenario_block_and_assert_verdict(tmp_path: Path) -> None:
    p = scenario(tmp_path, '{ "prepay_share": "50%" }')
    assert p.returncode == 1
    assert p.stdout.split("\n")[-7:] == [
        "scenario: -",
        "  levers.extra_hours   40   default",
        "  levers.prepay_share  0.5  scenario  (default 0.3)",
        "params:",
        "  levers.extra_hours   integer in [0, 80]",
        "  levers.prepay_share  { 30%, 40%, 45%, 50% }",
        "",
    ]
    assert p.stderr.split("\n")[:2] == [
        "  ASSERT  #levers   levers.prepay_share <= max_prepay",
        "          0.50 <= 0.40   is false under scenario (holds on defaults)",
    ]


def test_ref_entry_layout() -> None:
    p = run("ref", "FLOOR")
    assert p.stdout.split("\n")[:12] == [
        "FLOOR(x, s) — map, 2 arguments",
        "",
        "  Rounds `x` down (towards −∞) to a whole number of steps `s`.",
        "",
        "  x        number   the number being rounded down",
        "  s        number   the step, greater than zero",
        "",
        "  returns    number",
        "  precision  the width of `s`",
        "  units      FLOOR(x: U, s: U) → U",
        "",
        "  errors",
    ]
    assert "  see also  CEILING, ROUND\n" in p.stdout


def test_ref_listing_and_unknown_names() -> None:
    lines = run("ref").stdout.split("\n")
    assert lines[0] == "SUM(col)              reduce, 1 argument"
    assert "PMT(rate, nper, pv)   map, 3 arguments" in lines
    assert len([x for x in lines if x]) == len(REGISTRY) == 16
    p = run("ref", "FLORR")
    assert (p.returncode, p.stderr) == (2, "visimark: unknown function `FLORR` — did you mean `FLOOR`?\n")
    p = run("ref", "floor")
    assert (p.returncode, p.stderr) == (2, "visimark: unknown function `floor` — did you mean `FLOOR`?\n")


def test_ref_json_entry_shape() -> None:
    f = json.loads(run("ref", "FLOOR", "--json").stdout)["function"]
    assert list(f) == ["name", "kind", "arity", "signature", "summary", "params", "returns", "precision", "units",
                       "errors", "examples", "see"]
    assert f["params"][0] == {"name": "x", "type": "number", "note": "the number being rounded down"}
    assert f["examples"][1] == {"expr": "FLOOR(-7, 3)", "is": "-9"}
    assert f["errors"] == [{"when": "a non-positive `s`", "code": "TYPE"}]


def test_eval_params_and_explain_json_domain_shape(tmp_path: Path) -> None:
    path = doc(tmp_path, LEVERS.replace("= default 40", "lattice 20 = default 40"))
    env = json.loads(run("eval", path, "--json").stdout)
    hours = env["params"]["levers.extra_hours"]
    assert hours["domain"]["clauses"] == ["integer", "[0, 80]"]
    assert hours["domain"]["fold"] == [str(i) for i in range(81)]
    assert hours["lattice"] == {"step": "20"} and (hours["value"], hours["source"]) == ("40", "default")
    share = env["params"]["levers.prepay_share"]
    assert share["domain"] == {"clauses": ["{ 30%, 40%, 45%, 50% }"], "fold": ["0.30", "0.40", "0.45", "0.50"]}
    assert "lattice" not in share
    explain = json.loads(run("explain", path, "--json").stdout)
    params = {p["name"]: p for p in explain["sheets"][0]["params"]}
    assert params["extra_hours"]["domain"] == hours["domain"] and params["extra_hours"]["lattice"] == {"step": "20"}
    plain = json.loads(run("eval", doc(tmp_path, "```vmark #s\nx = 1\n```\n"), "--json").stdout)
    assert "params" not in plain


def test_ref_json_unit_signature_is_data() -> None:
    env = json.loads(run("ref", "SQRT", "--json").stdout)
    assert env["function"]["units"] == {"params": {"x": "U²"}, "result": "U", "text": "SQRT(x: U²) → U"}
    for b in REGISTRY.values():
        units = json.loads(run("ref", b.name, "--json").stdout)["function"]["units"]
        assert list(units["params"]) == [p.name for p in b.params]
