"""One server made of several: the union of their tools, resources and prompts.

:func:`combine` builds one :class:`ServerSpec` from the specs of single servers (e.g.
``markmcp-mcp`` from those of ``visimark-mcp``, ``figdown-mcp`` and ``mrsf-mcp``).
Nothing of the single servers is copied or wrapped: their tools, resources, templates and
prompts are served as they are, under one name.  Names must stay distinct across the
specs (a tool, prompt, resource URI or resource template present twice is refused when
the spec is built).  The options are the union of what the servers take: roots when any
of them uses roots, the write gate when any of them writes, and each one's own options;
``offered`` lets the options come from more specs than are served, so that a command line
choosing some of the servers keeps the same options.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence

from markmcp.mcpcore.spec import ServerSpec


def combine(
    specs: Sequence[ServerSpec],
    *,
    name: str,
    version: str,
    prog: str,
    default_port: int,
    preface: str = "",
    offered: Sequence[ServerSpec] | None = None,
    add_arguments: Callable[[argparse.ArgumentParser], None] | None = None,
) -> ServerSpec:
    """The spec of one server serving everything ``specs`` serve.

    ``instructions`` are ``preface`` followed by each spec's instructions (one paragraph
    each); ``offered`` (default ``specs``) are the specs whose options the command line
    takes; ``add_arguments`` adds the combined server's own options after theirs.  The
    modules loaded after the ``initialize`` reply (``preload``) are those of ``specs``.
    """
    if not specs:
        raise ValueError(f"server {name!r}: nothing to combine")
    offered = tuple(offered) if offered is not None else tuple(specs)
    templates = [template.uri_template for spec in specs for template in spec.resource_templates]
    twice = sorted({uri for uri in templates if templates.count(uri) > 1})
    if twice:
        raise ValueError(f"server {name!r}: duplicate resource templates: {', '.join(twice)}")
    own = [spec.add_arguments for spec in offered if spec.add_arguments is not None]
    if add_arguments is not None:
        own.append(add_arguments)

    def arguments(parser: argparse.ArgumentParser) -> None:
        for add in own:
            add(parser)

    instructions = "\n\n".join(part for part in (preface, *(spec.instructions for spec in specs)) if part)
    return ServerSpec(
        name=name,
        version=version,
        instructions=instructions,
        tools=[tool for spec in specs for tool in spec.tools],
        resource_templates=[template for spec in specs for template in spec.resource_templates],
        resources=[resource for spec in specs for resource in spec.resources],
        prompts=[prompt for spec in specs for prompt in spec.prompts],
        default_port=default_port,
        prog=prog,
        add_arguments=arguments if own else None,
        uses_roots=any(spec.uses_roots for spec in offered),
        write_gate=any(spec.write_gate for spec in offered),
        write_default=any(spec.write_default for spec in offered),
        preload=tuple(dict.fromkeys(name for spec in specs for name in spec.preload)),
    )
