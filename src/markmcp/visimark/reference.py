"""``visimark ref`` and the generated function reference, both from the builtin registry."""

from __future__ import annotations

from .builtins import REGISTRY, Builtin


def signature(b: Builtin) -> str:
    return f"{b.name}({', '.join(b.params)})"


def describe(b: Builtin) -> str:
    """The text entry for one function."""
    lines = [
        signature(b),
        f"  kind       {b.kind}",
        f"  arity      {len(b.params)}",
        f"  precision  {b.precision.replace('**', '')}",
        f"  units      {b.units}",
    ]
    if b.glyphs:
        lines.append(f"  spelling   {' · '.join(b.glyphs)}")
    lines.append(f"  meaning    {b.meaning}")
    if b.example:
        lines.append(f"  example    {b.example}")
    return "\n".join(lines)


def entry_json(b: Builtin) -> dict:
    return {"name": b.name, "kind": b.kind, "arity": len(b.params), "params": list(b.params),
            "precision": b.precision.replace("**", ""), "units": b.units, "spellings": list(b.glyphs),
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
