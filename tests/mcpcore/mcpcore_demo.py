"""A tiny markmcp server for the mcpcore tests, the conformance run and the latency bench.

Run it as a script: ``python tests/mcpcore/mcpcore_demo.py [--transport http --port 0]``.
Its tools exercise each path of the shared layer: success with integers kept as
integers, ToolError with data, a crashing handler, a slow handler (for stdin EOF
with a request in flight), the write gate, client roots and the roots policy (``roots``
shows the writable roots and readable folders of a call, ``read_text`` reads through
them), a result that breaks its own output schema, custom text content, and text no UTF-8
can carry (a lone surrogate, as a file name that is not UTF-8 gives) in each place a
handler can put it (``surrogate``; the ``demo://surrogate/{where}`` resource).
"""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import time
from collections.abc import Mapping
from typing import Any

from markmcp.mcpcore import (
    CallContext,
    ResourceTemplate,
    ServerSpec,
    Tool,
    ToolError,
    check_write_path,
    resolve_inside,
    serve,
)
from markmcp.mcpcore import files
from markmcp.mcpcore.args import json_type

OBJECT = {"type": "object"}


def add(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    return {"sum": args["a"] + args["b"]}


def echo(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    return {"arguments": args, "types": {key: json_type(value) for key, value in args.items()}}


def fail(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    raise ToolError("version conflict: the sidecar changed", data={"expected": 3, "actual": 4})


def crash(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    raise RuntimeError("boom\nsecond line of the message")


def slow(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    if args.get("announce"):  # lets a test see the handler is running (e.g. before it signals the server)
        print(f"slow: sleeping {args['ms']} ms", file=sys.stderr, flush=True)
    time.sleep(args["ms"] / 1000)
    return {"slept_ms": args["ms"]}


def write_text(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    target = check_write_path(ctx, args["path"])
    target.write_text(args["text"], encoding="utf-8")
    return {"written": str(target)}


def roots(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    return {
        "roots": [str(root) for root in ctx.roots],
        "readable": [str(folder) for folder in ctx.places().folders],
        "greeting": ctx.options.get("greeting"),
    }


def read_text(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    """A file's text, read the guarded way (confined to the folders the roots policy allows)."""
    return {"text": files.read_text(ctx.cwd / args["path"], places=ctx.places())}


def bad_output(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    return {"count": "three"}


def not_json(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    return {"value": float("nan") if args.get("nan") else object()}


def chatty(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    log = logging.getLogger("markmcp.demo")
    log.debug("debug detail")
    log.info("parsed %d comments", 3)
    log.warning("anchor drifted")
    print("stray print from a handler")
    subprocess.run([sys.executable, "-c", "print('stray output of a child process')"], check=True)
    return {"said": 3}


LONE = "b\udcff.md"
"""A file name whose byte 0xff is not UTF-8, as Python holds it (``os.fsdecode(b"b\\xff.md")``)."""


def surrogate(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    """A lone surrogate where ``args["where"]`` says: the result, the text only, a tool
    error, an exception's message, a log record."""
    where = args["where"]
    if where == "error":
        raise ToolError(f"cannot read {LONE}", data={"path": LONE})
    if where == "crash":
        raise RuntimeError(f"cannot read {LONE}")
    if where == "log":
        logging.getLogger("markmcp.demo").warning("skipping %s", LONE)
        return {"files": ["a.md"]}
    if where == "text":
        return {"files": ["a.md"], "mention": True}
    return {"files": ["a.md", LONE]}


def surrogate_resource(params: dict[str, str], ctx: CallContext) -> str:
    if params["where"] == "error":
        raise ToolError(f"cannot read {LONE}")
    return f"found {LONE}"


def read_file(params: dict[str, str], ctx: CallContext) -> str:
    return resolve_inside(ctx.cwd, params["path"]).read_text(encoding="utf-8")


def complete_path(variable: str, prefix: str, chosen: Mapping[str, str], ctx: CallContext) -> list[str]:
    """Files and folders below the working directory whose relative path starts with ``prefix``."""
    folder, _, start = prefix.rpartition("/")
    base = resolve_inside(ctx.cwd, folder or ".")
    if not base.is_dir():
        return []
    names = sorted(p.name + ("/" if p.is_dir() else "") for p in base.iterdir() if p.name.startswith(start))
    return [f"{folder}/{name}" if folder else name for name in names]


def template_data(params: dict[str, str], ctx: CallContext) -> str:
    """The conformance suite's template fixture ``test://template/{id}/data``."""
    return json.dumps({"id": params["id"], "templateTest": True, "data": f"Data for ID: {params['id']}"})


TOOLS = [
    Tool(
        name="add",
        title="Add two integers",
        description="Add two integers and return their sum.",
        input_schema={
            "type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
            "required": ["a", "b"],
        },
        output_schema={"type": "object", "properties": {"sum": {"type": "integer"}}, "required": ["sum"]},
        handler=add,
        read_only=True,
        idempotent=True,
    ),
    Tool(
        name="echo",
        title="Echo arguments",
        description="Return the arguments and the JSON type of each.",
        input_schema={
            "type": "object",
            "properties": {
                "text": {"type": "string"},
                "count": {"type": "integer", "minimum": 0},
                "ratio": {"type": "number"},
                "exact": {"type": "string", "pattern": "^-?[0-9]+(\\.[0-9]+)?$"},
                "flag": {"type": "boolean"},
                "mode": {"enum": ["fast", "slow"]},
                "anchor": {
                    "type": "object",
                    "properties": {"line": {"type": "integer"}, "text": {"type": "string"}},
                    "required": ["line"],
                },
                "lines": {"type": "array", "items": {"type": "integer"}},
            },
        },
        output_schema={
            "type": "object",
            "properties": {"arguments": OBJECT, "types": OBJECT},
            "required": ["arguments", "types"],
        },
        handler=echo,
        read_only=True,
        idempotent=True,
    ),
    Tool(
        name="fail",
        title="Fail with a ToolError",
        description="Always fails with a ToolError carrying data.",
        input_schema=OBJECT,
        output_schema=OBJECT,
        handler=fail,
        read_only=True,
    ),
    Tool(
        name="crash",
        title="Crash",
        description="Raises an unexpected exception.",
        input_schema=OBJECT,
        output_schema=OBJECT,
        handler=crash,
    ),
    Tool(
        name="slow",
        title="Sleep",
        description="Sleep for ms milliseconds, then answer (announce: say so on stderr first).",
        input_schema={
            "type": "object",
            "properties": {"ms": {"type": "integer"}, "announce": {"type": "boolean"}},
            "required": ["ms"],
        },
        output_schema={"type": "object", "properties": {"slept_ms": {"type": "integer"}}},
        handler=slow,
        read_only=True,
    ),
    Tool(
        name="write_text",
        title="Write a text file",
        description="Write text to a file inside a root (needs --allow-write).",
        input_schema={
            "type": "object",
            "properties": {"path": {"type": "string"}, "text": {"type": "string"}},
            "required": ["path", "text"],
        },
        output_schema={"type": "object", "properties": {"written": {"type": "string"}}, "required": ["written"]},
        handler=write_text,
        destructive=True,
        idempotent=True,
    ),
    Tool(
        name="roots",
        title="Show roots",
        description="Return the roots the layer resolved for this call.",
        input_schema=OBJECT,
        output_schema={
            "type": "object",
            "properties": {
                "roots": {"type": "array", "items": {"type": "string"}},
                "readable": {"type": "array", "items": {"type": "string"}},
                "greeting": {},
            },
        },
        handler=roots,
        read_only=True,
        open_world=False,
    ),
    Tool(
        name="read_text",
        title="Read a text file",
        description="Return the text of a file inside the folders the server may read.",
        input_schema={"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
        output_schema={"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
        handler=read_text,
        read_only=True,
    ),
    Tool(
        name="bad_output",
        title="Break the output schema",
        description="Returns a result that does not match its own output schema.",
        input_schema=OBJECT,
        output_schema={"type": "object", "properties": {"count": {"type": "integer"}}},
        handler=bad_output,
        read_only=True,
    ),
    Tool(
        name="not_json",
        title="Return something JSON cannot carry",
        description="Returns an object or a NaN where JSON is expected.",
        input_schema={"type": "object", "properties": {"nan": {"type": "boolean"}}},
        output_schema={"type": "object"},
        handler=not_json,
        read_only=True,
    ),
    Tool(
        name="summary",
        title="Custom text",
        description="Returns structured content with custom text blocks.",
        input_schema=OBJECT,
        output_schema={"type": "object", "properties": {"n": {"type": "integer"}}},
        handler=lambda args, ctx: {"n": 2},
        read_only=True,
        text=lambda result: [f"{result['n']} items", "done"],
    ),
    Tool(
        name="surrogate",
        title="Return a lone surrogate",
        description="Puts a file name that is not UTF-8 (a lone surrogate) in its result, text, error or log.",
        input_schema={
            "type": "object",
            "properties": {"where": {"type": "string", "enum": ["result", "text", "error", "crash", "log"]}},
            "required": ["where"],
        },
        output_schema={"type": "object"},
        handler=surrogate,
        read_only=True,
        text=lambda result: [f"{len(result['files'])} files", *([f"also {LONE}"] if result.get("mention") else [])],
    ),
    Tool(
        name="chatty",
        title="Log while working",
        description="Logs a debug, an info and a warning record, prints to stdout (also from a child), answers.",
        input_schema=OBJECT,
        output_schema={"type": "object", "properties": {"said": {"type": "integer"}}},
        handler=chatty,
        read_only=True,
    ),
]

TEMPLATES = [
    ResourceTemplate(
        uri_template="demo://file/{+path}",
        name="file",
        description="A text file below the server's working directory.",
        mime_type="text/plain",
        handler=read_file,
        complete=complete_path,
    ),
    ResourceTemplate(
        uri_template="demo://surrogate/{where}",
        name="surrogate",
        description="Text holding a lone surrogate (or, for 'error', an error naming one).",
        mime_type="text/plain",
        handler=surrogate_resource,
    ),
    ResourceTemplate(
        uri_template="test://template/{id}/data",
        name="template-data",
        description="The conformance suite's template fixture.",
        mime_type="application/json",
        handler=template_data,
    ),
]

SPEC = ServerSpec(
    name="markmcp-demo",
    version="0.0.1",
    instructions="A test server for the markmcp shared MCP layer.",
    tools=TOOLS,
    resource_templates=TEMPLATES,
    default_port=3099,
    prog="demo-mcp",
    add_arguments=lambda parser: parser.add_argument("--greeting", default="hello"),
)


def main() -> int:
    return serve(SPEC)


if __name__ == "__main__":
    sys.exit(main())
