"""The roots policy: which folders a tool call may read and write, per transport.

The operator grants folders on the command line: the working directory (``--cwd``,
readable) and ``--root DIR`` (readable, and writable with ``--allow-write``).  An MCP
client may declare roots too; what they are worth depends on who the client can be:

* **stdio**: the client is the host that started the server, with the operator's own
  rights; its roots are added to the granted folders (``--root`` plus client roots).
* **HTTP and SSE**: any local process can connect, so a client's roots only *narrow*
  the granted folders, never widen them.  Each client root is intersected with each
  granted folder: a client root inside a granted folder narrows to the client root; a
  client root containing a granted folder leaves that folder; unrelated folders give
  nothing.  A client that declares no ``file://`` roots narrows nothing.  Starting the
  server with ``--trust-client-roots`` restores the stdio behaviour on HTTP/SSE, for
  setups where every process that can reach the port is trusted.

Readable folders are the intersection of the client roots with ``--cwd`` and the
``--root`` folders; writable roots (``CallContext.roots``, which the write gate uses)
the intersection with the ``--root`` folders alone.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from markmcp.mcpcore.spec import CallContext, Settings

READABLE = (
    "the server's working directory (--cwd, by default where it was started), each --root DIR and the "
    "client's MCP roots (over HTTP/SSE a client's roots only narrow the others, unless --trust-client-roots)"
)
"""The folders a tool may read, as every server's instructions tell a client (the policy below)."""

HINT = "start the server with --root DIR (or let the client declare the folder as an MCP root) to allow it"
NARROWING_HINT = (
    "over {transport} the client's MCP roots can only narrow the server's folders (--cwd, --root); "
    "start the server with --root DIR to allow another folder"
)


def intersect(client: Iterable[Path], granted: Iterable[Path]) -> tuple[Path, ...]:
    """The folders both sides allow: for each pair, the deeper one when one holds the other."""
    granted = tuple(granted)
    found: list[Path] = []
    for asked in client:
        for folder in granted:
            if asked == folder or asked.is_relative_to(folder):
                kept = asked
            elif folder.is_relative_to(asked):
                kept = folder
            else:
                continue
            if kept not in found:
                found.append(kept)
    return tuple(found)


def _unique(paths: Iterable[Path]) -> tuple[Path, ...]:
    seen: list[Path] = []
    for path in paths:
        if path not in seen:
            seen.append(path)
    return tuple(seen)


@dataclass(frozen=True)
class RootsPolicy:
    """How one server combines its granted folders with a client's roots."""

    cwd: Path
    roots: tuple[Path, ...]
    allow_write: bool
    options: object
    trust_client: bool
    transport: str
    read_only: bool = False

    @classmethod
    def of(cls, settings: Settings) -> RootsPolicy:
        return cls(
            cwd=settings.cwd,
            roots=settings.roots,
            allow_write=settings.allow_write,
            options=settings.options,
            trust_client=settings.transport == "stdio" or settings.trust_client_roots,
            transport=settings.transport,
            read_only=settings.read_only,
        )

    def context(self, client_roots: Sequence[Path]) -> CallContext:
        """The :class:`CallContext` of a call whose client declared ``client_roots`` (resolved)."""
        if self.trust_client:
            roots = _unique((*self.roots, *client_roots))
            return CallContext(
                roots=roots, cwd=self.cwd, allow_write=self.allow_write, options=self.options,  # type: ignore[arg-type]
                readable=_unique((self.cwd, *roots)), hint=HINT, read_only=self.read_only,
            )
        hint = NARROWING_HINT.format(transport="HTTP" if self.transport == "http" else self.transport.upper())
        if not client_roots:
            return CallContext(
                roots=self.roots, cwd=self.cwd, allow_write=self.allow_write, options=self.options,  # type: ignore[arg-type]
                readable=_unique((self.cwd, *self.roots)), hint=hint, read_only=self.read_only,
            )
        return CallContext(
            roots=intersect(client_roots, self.roots),
            cwd=self.cwd,
            allow_write=self.allow_write,
            options=self.options,  # type: ignore[arg-type]
            readable=intersect(client_roots, (self.cwd, *self.roots)),
            hint=hint,
            read_only=self.read_only,
        )
