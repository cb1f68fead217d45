"""Sending a tool handler's log records to the client (MCP ``logging/setLevel``).

Tool handlers log with the standard ``logging`` module under ``markmcp.*``.  While
a handler runs, :func:`collect` gathers those records for that one call (a context
variable set around the call; ``anyio.to_thread`` copies it into the worker thread,
so concurrent calls never see each other's records).  Afterwards the records at or
above the level the client chose are sent as ``notifications/message``.  Nothing is
sent until the client asks with ``logging/setLevel``; the stderr log is unchanged.
"""

from __future__ import annotations

import contextvars
import logging
from collections.abc import Iterator
from contextlib import contextmanager

MCP_LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
"""MCP's log levels (syslog severities), least severe first."""

_CALL_RECORDS: contextvars.ContextVar[list[logging.LogRecord] | None] = contextvars.ContextVar(
    "markmcp_call_records", default=None
)


class _Collector(logging.Handler):
    """Appends each record to the list of the tool call in progress, if any."""

    def emit(self, record: logging.LogRecord) -> None:
        records = _CALL_RECORDS.get()
        if records is not None:
            records.append(record)


_COLLECTOR = _Collector()


def install() -> None:
    """Attach the collector to the ``markmcp`` logger (once)."""
    package_logger = logging.getLogger("markmcp")
    if _COLLECTOR not in package_logger.handlers:
        package_logger.addHandler(_COLLECTOR)


@contextmanager
def collect() -> Iterator[list[logging.LogRecord]]:
    """Gather the ``markmcp.*`` records logged inside the ``with`` block (and threads it starts via anyio)."""
    records: list[logging.LogRecord] = []
    token = _CALL_RECORDS.set(records)
    try:
        yield records
    finally:
        _CALL_RECORDS.reset(token)


def mcp_level(record: logging.LogRecord) -> str:
    """The MCP level of a Python log record."""
    if record.levelno >= logging.CRITICAL:
        return "critical"
    if record.levelno >= logging.ERROR:
        return "error"
    if record.levelno >= logging.WARNING:
        return "warning"
    return "info" if record.levelno >= logging.INFO else "debug"


def at_or_above(records: list[logging.LogRecord], wanted: str) -> list[tuple[str, logging.LogRecord]]:
    """The records whose MCP level is ``wanted`` or more severe, with that level."""
    threshold = MCP_LOG_LEVELS.index(wanted)
    levelled = ((mcp_level(record), record) for record in records)
    return [(level, record) for level, record in levelled if MCP_LOG_LEVELS.index(level) >= threshold]
