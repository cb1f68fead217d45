"""An agent's session with ``visimark-mcp``: a real MCP client over stdio.

Run it with ``make demo`` (after the MRSF part) or ``python samples/visimark_demo.py``.  It
copies ``samples/visimark`` to a temporary folder, starts ``visimark-mcp --allow-write``
there with the MCP SDK's ``ClientSession`` (declaring that folder as its MCP root) and
works the way an agent would: check a drifted quote, plan the repair, apply it, check
again; then adopt a plain budget that has numbers and no rules (infer, review, drop a
proposal, apply, check), probe a transposed digit without touching the file, and finally
meet the write gate of a server started without ``--allow-write``.  Every call and its
result are printed.  The bundled files are never modified.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp import ClientSession, StdioServerParameters, stdio_client

HERE = Path(__file__).resolve().parent
DOCS = HERE / "visimark"
WIDTH = 96


def say(text: str) -> None:
    print()
    print(textwrap.fill(text, WIDTH))


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def findings_view(envelope: dict[str, Any]) -> list[str]:
    """One line per finding, then the counts."""
    rows = []
    for entry in envelope.get("files", []):
        for f in entry["findings"]:
            where = ".".join(x for x in (f["location"].get("sheet"), f["location"].get("name")) if x)
            row = f" · {f['location']['row']}" if "row" in f["location"] else ""
            d = f["details"]
            what = f"{d['stored']} ≠ {d['computed']}" if "stored" in d else \
                (f"{d['suppressedCount']} anchors" if "suppressedCount" in d else d.get("message", ""))
            rows.append(f"{f['code']:<9}{where}{row}  {what}")
        s = entry["summary"]
        rows.append(f"{plural(s['problems'], 'problem')} ({s['stale']} stale, {plural(s['errors'], 'error')})")
    return rows


def plan_view(plan: dict[str, Any]) -> list[str]:
    rows = [f"sha256 {plan['sha256'][:16]}…  {len(plan['edits'])} edits: {plan['cellsUpdated']} cells, "
            f"{plan['anchorsUpdated']} anchors; artifacts {plan['artifactsWouldWrite']}; applied={plan['applied']}"]
    rows += [f"  bytes {e['start']:>4}–{e['end']:<4} → {e['text']!r:<12} ({e['code']})" for e in plan["edits"]]
    return rows


def proposals_view(plan: dict[str, Any]) -> list[str]:
    rows = []
    for p in plan["files"][0]["proposals"]:
        extra = ""
        if p.get("disagreement"):
            d = p["disagreement"]
            extra = f"  row {d['rowLabel']!r}: cell {d['stored']}, rule gives {d['computed']}"
        elif p.get("figure"):
            extra = f"  anchors {p['figure']['text']} (line {p['figure']['line']})"
        elif p.get("reason"):
            extra = f"  {p['reason']}"
        rows.append(f"{p['kind']:<11} {p['sheet']:<9} {p['rule'] or p['name']:<46} {p['fits']}/{p['rows']}{extra}")
    if "summary" in plan:
        rows.append(f"summary {plan['summary']}  would write {plan.get('wouldWrite')}")
    return rows


class Agent:
    """Prints each tool call and a view of its result."""

    def __init__(self, client: ClientSession) -> None:
        self.client = client
        self.step = 0

    async def call(self, tool: str, arguments: dict[str, Any], view=None) -> dict[str, Any]:
        self.step += 1
        shown = json.dumps({k: (v if k != "plan" else "<the plan above>") for k, v in arguments.items()},
                           ensure_ascii=False)
        if len(shown) > WIDTH - 24:
            shown = shown[: WIDTH - 27] + "…}"
        print(f"\n[{self.step}] → {tool} {shown}")
        result = await self.client.call_tool(tool, arguments)
        data = result.structured_content or {}
        if result.is_error:
            print(f"    ✗ tool error {data.get('error', {}).get('code')}: {result.content[0].text}")
            return data
        print(f"    ✓ status {data.get('status')}")
        for line in (view(data) if view else json.dumps(data, indent=2).split("\n")[:20]):
            print("    " + line)
        return data


def block_of(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    return "\n".join(("    | " + line).rstrip() for line in text.rstrip("\n").split("\n"))


async def session(workdir: Path) -> None:
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "markmcp.visimark.server", "--allow-write"], cwd=str(workdir))

    async def roots(context: object) -> types.ListRootsResult:
        return types.ListRootsResult(roots=[types.Root(uri=workdir.as_uri(), name="workspace")])

    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, list_roots_callback=roots) as client:
            init = await client.initialize()
            print(f"connected to {init.server_info.name} {init.server_info.version} (stdio), root {workdir}")
            tools = (await client.list_tools()).tools
            print(f"{len(tools)} tools: " + ", ".join(
                t.name + (" [destructive]" if t.annotations.destructive_hint else "") for t in tools))
            print("resources: " + ", ".join(str(r.uri) for r in (await client.list_resources()).resources))
            print("prompts: " + ", ".join(p.name for p in (await client.list_prompts()).prompts))
            agent = Agent(client)

            say("The user says the catering quote changed. The agent checks it first.")
            await agent.call("visimark_check", {"path": "catering-quote.md"}, findings_view)
            say("Every problem is STALE: the rules are right and the written numbers are old. The agent asks "
                "fmt for a plan — nothing is written yet — and reads it.")
            plan = await agent.call("visimark_fmt", {"path": "catering-quote.md"}, plan_view)
            say("The plan touches only computed cells and anchored figures. The agent applies exactly it.")
            await agent.call("visimark_fmt_apply", {"path": "catering-quote.md", "plan": plan},
                             lambda d: [f"changed={d['changed']} cells={d['cellsUpdated']} "
                                        f"anchors={d['anchorsUpdated']} sha256 {d['sha256'][:16]}…"])
            await agent.call("visimark_check", {"path": "catering-quote.md"}, findings_view)

            say("Next, a budget typed by hand: numbers, no rules. The take-over prompt says: infer first, "
                "never hand-author rules for numbers that are already there.")
            prompt = await client.get_prompt("visimark/take-over", {"path": "workshop-budget.md"})
            for line in prompt.messages[0].content.text.split("\n")[:3]:
                print("    " + textwrap.shorten(line, WIDTH - 4))
            await agent.call("visimark_check", {"path": "workshop-budget.md"}, findings_view)
            iplan = await agent.call("visimark_infer", {"path": "workshop-budget.md"}, proposals_view)

            say("Before adopting anything, the agent probes: what would infer say if a digit had been "
                "transposed? It asks about the text, as content, without touching the file.")
            budget = (workdir / "workshop-budget.md").read_text(encoding="utf-8")
            await agent.call("visimark_infer", {"content": budget.replace(" 90.00 |", " 99.00 |", 1)},
                             lambda d: [row for row in proposals_view(d) if not row.startswith(("alias", "alt"))])
            say("Cost = Units * uc holds on three rows of four: the near-miss names the row and what the rule "
                "gives, and no total matches the prose any more. An agent reports that to the user; it never "
                "'fixes' a number it did not derive.")

            say("The alias `li` for \"Line item\" would never be read, so the agent drops that proposal from the "
                "plan and applies the rest.")
            kept = [p for p in iplan["files"][0]["proposals"] if p["name"] != "li"]
            await agent.call("visimark_infer_apply", {"path": "workshop-budget.md",
                                                      "plan": {**iplan, "files": [{**iplan["files"][0],
                                                                                   "proposals": kept}]}},
                             lambda d: [f"changed={d['changed']} written={d['written']}"])
            await agent.call("visimark_check", {"path": "workshop-budget.md"}, findings_view)
            print("\n    the budget now reads:")
            print(block_of(workdir / "workshop-budget.md"))

    say("A server started without --allow-write lists the same tools but will not write: the user drops the "
        "original, stale quote in again and the agent's apply is refused.")
    shutil.copyfile(DOCS / "catering-quote.md", workdir / "catering-quote.md")
    locked = StdioServerParameters(command=sys.executable, args=["-m", "markmcp.visimark.server"], cwd=str(workdir))
    async with stdio_client(locked) as (read, write):
        async with ClientSession(read, write, list_roots_callback=roots) as client:
            await client.initialize()
            agent = Agent(client)
            plan = await agent.call("visimark_fmt", {"path": "catering-quote.md"}, plan_view)
            await agent.call("visimark_fmt_apply", {"path": "catering-quote.md", "plan": plan})


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="visimark-demo-") as tmp:
        workdir = Path(tmp) / "docs"
        shutil.copytree(DOCS, workdir)
        print(f"working copy of {DOCS.relative_to(HERE.parent)} in {workdir}")
        anyio.run(session, workdir)
    print("\nvisimark demo finished")
    return 0


if __name__ == "__main__":
    sys.exit(main())
