"""``visimark ref`` and the generated function reference, both from the builtin registry."""

from __future__ import annotations

from .builtins import REGISTRY, SAMPLE, Builtin


def precision_rule(b: Builtin) -> dict:
    """The width rule as data: where a call's result width comes from."""
    text = b.precision.replace("**", "")
    params = [p for p in b.param_names if f"`{p}`" in text]
    if text.startswith("the width of"):
        rule: dict = {"from": "argument-scale", "param": params[0]}
    elif text.startswith("the value of"):
        rule = {"from": "argument-value", "param": params[0]}
    elif text.startswith("the wider of"):
        rule = {"from": "widest-argument", "params": params}
    elif text.startswith("always"):
        rule = {"from": "constant", "places": int(text.split()[-1])}
    elif text.startswith("must be declared"):
        rule = {"from": "declared"}
    else:
        rule = {"from": "none"}
    return rule


def signature(b: Builtin) -> str:
    return f"{b.name}({', '.join(b.param_names)})"


def shape(b: Builtin) -> str:
    n = len(b.params)
    return f"{b.kind}, {n} argument{'s' if n != 1 else ''}"


def sentence(clause: str) -> str:
    return clause[:1].upper() + clause[1:] + "."


def describe(b: Builtin) -> str:
    """The text entry ``visimark ref NAME`` prints."""
    lines = [f"{signature(b)} — {shape(b)}", "", "  " + sentence(b.summary), ""]
    for p in b.params:
        lines.append(f"  {p.name.ljust(9)}{p.type.ljust(9)}{p.note}")
    lines += ["", f"  {'returns'.ljust(11)}{b.returns}", f"  {'precision'.ljust(11)}{b.precision.replace('**', '')}"]
    if b.rounding:
        lines.append(f"  {'rounding'.ljust(11)}{b.rounding}")
    lines.append(f"  {'units'.ljust(11)}{b.units}")
    if b.errors:
        width = max(len(when) for when, _ in b.errors)
        lines += ["", "  errors"] + [f"    {when.ljust(width)}   {code}" for when, code in b.errors]
    if b.examples:
        width = max(len(expr) for expr, _ in b.examples)
        lines += ["", "  examples"] + [f"    {expr.ljust(width)}  = {value}" for expr, value in b.examples]
    if b.see:
        lines += ["", f"  see also  {', '.join(b.see)}"]
    return "\n".join(lines)


def listing() -> str:
    """What bare ``visimark ref`` prints: every function's call shape."""
    width = max(len(signature(b)) for b in REGISTRY.values()) + 3
    return "\n".join(signature(b).ljust(width) + shape(b) for b in REGISTRY.values())


def entry_json(b: Builtin) -> dict:
    precision = precision_rule(b) | {"text": b.precision.replace("**", "")}
    out: dict = {
        "name": b.name, "kind": b.kind, "arity": len(b.params), "signature": signature(b), "summary": b.summary,
        "params": [{"name": p.name, "type": p.type, "note": p.note} for p in b.params],
        "returns": b.returns, "precision": precision,
    }
    if b.rounding:
        out["rounding"] = b.rounding
    out.update({
        "units": units_json(b.units),
        "errors": [{"when": when, "code": code} for when, code in b.errors],
        "examples": [{"expr": expr, "is": value} for expr, value in b.examples],
        "see": list(b.see),
    })
    return out


def units_json(text: str) -> dict:
    """A unit signature as data: ``SQRT(x: U²) → U`` is ``{"params": {"x": "U²"}, "result":
    "U", "text": …}``; ``1`` is dimensionless, ``U`` any unit, ``any`` anything at all."""
    head, _, result = text.partition(" → ")
    inner = head[head.index("(") + 1:head.rindex(")")]
    params = {}
    for part in inner.split(", "):
        name, _, unit = part.partition(": ")
        params[name] = unit
    return {"params": params, "result": result, "text": text}


def function_reference() -> str:
    """The Markdown function reference shipped in docs/ (generated; a test holds it)."""
    out = [
        "# VisiMark function reference",
        "",
        "<!-- generated from markmcp.visimark.builtins.REGISTRY; do not edit by hand -->",
        "",
        "Every function of the language, one table and then one entry each, exactly as",
        "`visimark ref NAME` prints it. The examples are evaluated by the test suite; a reduce's",
        "examples read this sample table, sheet `t`:",
        "",
        "```markdown",
        SAMPLE.split("\n\n```vmark")[0],
        "```",
        "",
        "| Function | Kind | Arity | Precision | Units | Meaning |",
        "|----------|------|------:|-----------|-------|---------|",
    ]
    for b in REGISTRY.values():
        spelled = " · ".join([f"`{signature(b)}`"] + [f"`{g}`" for g in b.glyphs]).replace("|", "\\|")
        out.append(f"| {spelled} | {b.kind} | {len(b.params)} | {b.precision} | `{b.units}` | {b.meaning} |")
    out.append("")
    for b in REGISTRY.values():
        out += [f"## {b.name}", ""]
        if b.glyphs:
            out += ["**Also written:** " + ", ".join(f"`{g}`" for g in b.glyphs), ""]
        out += ["```text", describe(b), "```", ""]
    out.append("<!--vmark:no-formulas-->")
    return "\n".join(out) + "\n"
