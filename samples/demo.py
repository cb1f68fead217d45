"""A scripted review session: a real MCP client talking to ``mrsf-mcp`` over stdio.

Run it with ``make demo`` (or ``python samples/demo.py``).  It copies the sample
documents in ``samples/docs`` to a temporary folder, starts ``mrsf-mcp`` there as a
subprocess, and drives it with the MCP SDK's ``ClientSession`` the way an agent would:
discover and list the existing review, add comments (one on a document that has no
sidecar yet), run into a version conflict and retry, update and resolve comments, edit a
document and re-anchor, validate, read the resources, and see a path escape refused.
Every call and its result are printed.  The bundled files are never modified.
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
from mcp import ClientSession, StdioServerParameters, stdio_client

HERE = Path(__file__).resolve().parent
DOCS = HERE / "docs"
WIDTH = 96


def show_json(value: Any, limit: int = 40) -> str:
    """Pretty JSON, cut to ``limit`` lines."""
    lines = json.dumps(value, ensure_ascii=False, indent=2).split("\n")
    if len(lines) > limit:
        lines = lines[:limit] + [f"  … ({len(lines) - limit} more lines)"]
    return "\n".join("    " + line for line in lines)


class Session:
    """Prints every tool call and its result while forwarding it to the server."""

    def __init__(self, client: ClientSession) -> None:
        self.client = client
        self.step = 0

    def say(self, text: str) -> None:
        print()
        print(textwrap.fill(text, WIDTH))

    async def call(self, tool: str, arguments: dict[str, Any] | None = None, *, limit: int = 40,
                   text: bool = False, view: Any = None) -> dict[str, Any]:
        self.step += 1
        arguments = arguments or {}
        shown = json.dumps(arguments, ensure_ascii=False)
        if len(shown) > WIDTH - 20:
            shown = shown[: WIDTH - 23] + "…}"
        print(f"\n[{self.step}] → {tool} {shown}")
        result = await self.client.call_tool(tool, arguments)
        data = result.structured_content or {}
        if result.is_error:
            print(f"    ✗ isError: {result.content[0].text}")
            if data:
                print(show_json(data, limit))
        elif text:
            for line in result.content[0].text.split("\n"):
                print("    " + line)
        elif view is not None:
            print("    ✓")
            for line in view(data):
                print("    " + line)
        else:
            print("    ✓")
            print(show_json(data, limit))
        return data

    async def read(self, uri: str, limit: int = 20) -> None:
        self.step += 1
        print(f"\n[{self.step}] → resources/read {uri}")
        result = await self.client.read_resource(uri)
        print(show_json(json.loads(result.contents[0].text), limit))


def reanchor_view(data: dict[str, Any]) -> list[str]:
    """One line per comment: where it was, where it is now, and why."""
    rows = [f"totalChanged={data['totalChanged']} totalOrphaned={data['totalOrphaned']} dryRun={data['dryRun']}"]
    for entry in data["files"]:
        rows.append(f"{Path(entry['file']).name} (written: {entry.get('written')})")
        for r in entry["results"]:
            before = (r.get("previous") or {}).get("line")
            move = f"line {before} → {r.get('newLine')}" if before is not None else "no anchor"
            rows.append(f"  {r['commentId']:<20} {r['status']:<9} {move:<14} {r.get('reason', '')}")
    return rows


def status_view(data: dict[str, Any]) -> list[str]:
    """The counts, then one line per comment."""
    rows = [" ".join(f"{k}={v}" for k, v in data["counts"].items())]
    rows += [f"  {r['commentId']:<20} {r['health']:<8} {r['reason']}" for r in data["results"]]
    return rows


async def session_script(workdir: Path) -> None:
    params = StdioServerParameters(command=sys.executable, args=["-m", "markmcp.mrsf.server"], cwd=str(workdir))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as client:
            init = await client.initialize()
            print(f"connected to {init.server_info.name} {init.server_info.version} (stdio)")
            tools = await client.list_tools()
            print(f"{len(tools.tools)} tools: " + ", ".join(t.name for t in tools.tools))
            templates = await client.list_resource_templates()
            print("resource templates: " + ", ".join(t.uri_template for t in templates.resource_templates))
            s = Session(client)

            s.say("The agent asks for help on one tool; the answer is generated from the live schema.")
            await s.call("mrsf_help", {"tool": "mrsf_resolve"}, limit=60)

            s.say("It finds the review sidecar of the garden handbook and reads the open review.")
            found = await s.call("mrsf_discover", {"document": "garden-handbook.md"})
            await s.call("mrsf_list", {"files": ["garden-handbook.md"], "format": "compact"}, text=True)
            await s.call("mrsf_status", {"files": ["garden-handbook.md"]}, view=status_view)

            s.say("It reviews the incident runbook, which has no sidecar yet: the first comment creates it, "
                  "with selected_text captured from line 18.")
            added = await s.call("mrsf_add", {
                "document": "incident-runbook.md", "author": "Review Bot (bot)", "line": 18,
                "text": "Say who decides to roll back, and how to find the last deployment.",
                "type": "clarity", "severity": "medium",
            })
            batch = await s.call("mrsf_add_batch", {
                "document": "incident-runbook.md",
                "expectedVersion": added["version"],
                "comments": [
                    {"author": "Review Bot (bot)", "line": 13, "start_column": 0, "end_column": 27,
                     "text": "Link the dashboard.", "type": "suggestion", "severity": "low"},
                    {"author": "Review Bot (bot)", "line": 23, "text": "Thirty minutes is long for a major "
                     "incident; 15 is common.", "type": "question"},
                ],
            })

            s.say("A second agent still holds the version from before the batch. Its write is refused as a "
                  "conflict and nothing is written; it retries with the currentVersion it was given.")
            conflict = await s.call("mrsf_add", {
                "document": "incident-runbook.md", "author": "Second Agent", "text": "Add a glossary.",
                "expectedVersion": added["version"],
            })
            await s.call("mrsf_add", {
                "document": "incident-runbook.md", "author": "Second Agent", "text": "Add a glossary.",
                "expectedVersion": conflict["currentVersion"],
            })
            del batch

            s.say("Back on the handbook: a comment is reworded, one is resolved.")
            upd = await s.call("mrsf_update", {
                "document": "garden-handbook.md", "id": "gh-shed-key", "severity": "high",
                "text": "Say where the shed key is kept (the lockbox by the gate) and who has the code.",
                "expectedVersion": found["version"],
            })
            await s.call("mrsf_resolve", {"document": "garden-handbook.md", "id": "gh-plot-date",
                                          "expectedVersion": upd["version"]})

            s.say("Someone inserts a new section above the commented text. The agent re-anchors: first a dry "
                  "run, then for real. Comments follow their text to the new lines.")
            handbook = workdir / "garden-handbook.md"
            lines = handbook.read_text(encoding="utf-8").split("\n")
            lines[6:6] = ["## Opening hours", "", "The garden is open every day from 7 am to 9 pm.", ""]
            handbook.write_text("\n".join(lines), encoding="utf-8")
            await s.call("mrsf_reanchor", {"files": ["garden-handbook.md"], "dryRun": True}, view=reanchor_view)
            await s.call("mrsf_reanchor", {"files": ["garden-handbook.md"]}, view=reanchor_view)
            await s.call("mrsf_status", {"files": ["garden-handbook.md"]}, view=status_view)

            s.say("Everything still validates; the resources give the raw data.")
            await s.call("mrsf_validate", {}, limit=30)
            await s.read("mrsf://comment/garden-handbook.md.review.yaml/gh-shed-key")
            await s.read("mrsf://anchors/incident-runbook.md", limit=16)

            s.say("Deleting a thread's parent promotes its reply: it inherits the parent's anchor.")
            await s.call("mrsf_delete", {"document": "garden-handbook.md", "id": "gh-plot-date"})
            await s.read("mrsf://comment/garden-handbook.md.review.yaml/gh-plot-date-reply")

            s.say("Paths outside the server's working directory are refused, symlinks included.")
            await s.call("mrsf_add", {"document": "../outside.md", "author": "x", "text": "no"})

            s.say("The review at the end:")
            await s.call("mrsf_list", {"summary": True}, limit=30)


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="mrsf-demo-") as tmp:
        workdir = Path(tmp) / "review"
        shutil.copytree(DOCS, workdir)
        print(f"working copy of {DOCS.relative_to(HERE.parent)} in {workdir}")
        anyio.run(session_script, workdir)
    print("\n" + "=" * WIDTH + "\nVisiMark: an agent's session with visimark-mcp (samples/visimark_demo.py)\n" + "=" * WIDTH)
    from visimark_demo import main as visimark_demo  # beside this file

    visimark_demo()
    print("\ndemo finished")
    return 0


if __name__ == "__main__":
    sys.exit(main())
