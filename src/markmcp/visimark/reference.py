"""``visimark ref`` and the generated function reference, both from the builtin registry."""

from __future__ import annotations

from .builtins import REGISTRY, Builtin


def precision_rule(b: Builtin) -> dict:
    """The width rule as data: where a call's result width comes from."""
    text = b.precision.replace("**", "")
    params = [p for p in b.params if f"`{p}`" in text]
    if text.startswith("the width of"):
        return {"from": "argument-scale", "param": params[0]}
    if text.startswith("the value of"):
        return {"from": "argument-value", "param": params[0]}
    if text.startswith("the wider of"):
        return {"from": "widest-argument", "params": params}
    if text.startswith("always"):
        return {"from": "constant", "places": int(text.split()[-1])}
    if text.startswith("must be declared"):
        return {"from": "declared"}
    return {"from": "none"}


def signature(b: Builtin) -> str:
    return f"{b.name}({', '.join(b.params)})"


def describe(b: Builtin) -> str:
    """The text entry for one function."""
    lines = [
        signature(b),
        f"  kind       {b.kind}",
        f"  arity      {len(b.params)}",
        f"  precision  {b.precision.replace('**', '')}",
    ]
    if b.rounding:
        lines.append(f"  rounding   {b.rounding}")
    lines.append(f"  units      {b.units}")
    if b.glyphs:
        lines.append(f"  spelling   {' · '.join(b.glyphs)}")
    lines.append(f"  meaning    {b.meaning}")
    if b.example:
        lines.append(f"  example    {b.example}")
    return "\n".join(lines)


def entry_json(b: Builtin) -> dict:
    return {"name": b.name, "kind": b.kind, "arity": len(b.params), "params": list(b.params),
            "precision": b.precision.replace("**", ""), "precisionRule": precision_rule(b),
            "rounding": b.rounding or None, "units": b.units, "spellings": list(b.glyphs),
            "meaning": b.meaning, "example": b.example}


def function_reference() -> str:
    """The Markdown function reference shipped in docs/ (generated; a test holds it)."""
    out = [
        "# VisiMark function reference",
        "",
        "<!-- generated from markmcp.visimark.builtins.REGISTRY; do not edit by hand -->",
        "",
        "| Function | Kind | Arity | Precision | Units | Meaning |",
        "|----------|------|------:|-----------|-------|---------|",
    ]
    for b in REGISTRY.values():
        spelled = " · ".join([f"`{signature(b)}`"] + [f"`{g}`" for g in b.glyphs]).replace("|", "\\|")
        out.append(f"| {spelled} | {b.kind} | {len(b.params)} | {b.precision} | `{b.units}` | {b.meaning} |")
    out.append("")
    for b in REGISTRY.values():
        out += [f"## {b.name}", "", "```text", describe(b), "```", ""]
    out.append("<!--vmark:no-formulas-->")
    return "\n".join(out) + "\n"
