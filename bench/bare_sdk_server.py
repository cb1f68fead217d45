"""The yardstick for start-up: a minimal MCP server written directly on the SDK.

One tool on the SDK's high-level ``MCPServer``, served over stdio, as the SDK's
documentation shows it.  ``bench/mcp_latency.py --servers`` starts it the same way as the
markmcp servers and prints its start -> ``initialize`` figure beside theirs.
"""

from mcp.server import MCPServer

server = MCPServer("bare-sdk-server")


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


if __name__ == "__main__":
    server.run()
