"""A tool call that runs out of memory gets an answer (``isError``), and the server goes on.

Found by a security review: a figdown_build that exhausted the server's memory left its
request unanswered for ever ("Exception in thread AnyIO worker thread ... MemoryError"),
because the MemoryError's traceback kept alive the frames that held what filled the memory,
so reporting the failure ran out of memory too.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import anyio
import pytest
from mcpwire import StdioClient

from markmcp.mcpcore.handlers import in_worker

HERE = Path(__file__).resolve().parent

# The demo server with one more tool, under an address-space limit: ``hog`` fills the
# memory in ever smaller pieces until not even the smallest object can be had.
HOG_SERVER = textwrap.dedent("""
    import resource, sys
    sys.path.insert(0, {demo!r})
    import mcpcore_demo
    from markmcp.mcpcore import Tool

    def hog(args, ctx):
        held, size = [], 1 << 24
        while size >= 64:
            try:
                held.append(bytearray(size))
            except MemoryError:
                size //= 2
        chain = None
        while True:             # and then the small objects' pools: a chain of tuples
            chain = (chain,)

    mcpcore_demo.TOOLS.append(Tool(name="hog", title="Hog", description="Fills the memory.",
                                   input_schema={{"type": "object"}}, output_schema={{"type": "object"}},
                                   handler=hog, read_only=True))
    resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))
    sys.exit(mcpcore_demo.main())
""")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS is honoured on Linux")
def test_a_tool_that_runs_out_of_memory_is_answered_and_the_server_goes_on(tmp_path: Path) -> None:
    script = tmp_path / "hog_server.py"
    script.write_text(HOG_SERVER.format(demo=str(HERE), limit=1_500_000_000), encoding="utf-8")
    client = StdioClient([sys.executable, str(script)], timeout=60)
    try:
        client.initialize()
        result = client.call_tool("hog", {})
        assert result["isError"] is True
        assert result["content"][0]["text"].startswith("tool 'hog' failed: MemoryError: ")
        assert client.call_tool("add", {"a": 2, "b": 3})["isError"] is False     # the server goes on
    finally:
        client.proc.kill()
        client.proc.wait()


def test_the_frames_that_filled_the_memory_are_let_go_before_the_error_is_reported() -> None:
    def hog() -> None:
        held = [bytearray(1 << 20)]   # noqa: F841 - what the traceback would keep alive
        raise MemoryError

    async def call() -> BaseException:
        try:
            await in_worker(hog)
        except MemoryError as error:
            return error
        raise AssertionError("no MemoryError")

    error = anyio.run(call)
    frames = []
    tb = error.__traceback__
    while tb is not None:
        frames.append(tb.tb_frame.f_code.co_name)
        tb = tb.tb_next
    assert "hog" not in frames
    assert error.__context__ is None and error.__cause__ is None
