"""The opening line every typed block shares: ``<genre> <id> ["label"]``.

bitfield and table open the same way; this module checks that shape once so
each genre only adds the options that are its own.
"""

from __future__ import annotations

from .. import messages as M
from ..context import Context
from ..options import Split, id_error


def claim_block(ctx: Context, n: int, sp: Split, genre: str) -> str | None:
    """Check ``<genre> <id> ["label"]`` and claim the id; ``None`` after an error.

    The checks run outermost first: the id itself, its uniqueness, the label's
    quoting, then anything left over."""
    ident = sp.arg(1)
    problem = id_error(ident, sp.argq(1), f"{genre} needs an id")
    if problem is None and ctx.taken(ident):
        problem = f'duplicate id "{ident}"'
    if problem is None:
        label = sp.arg(2)
        if label is not None and not sp.argq(2):
            problem = M.must_quote(f"{genre} label", f'{genre} {ident} "{label}"')
        elif len(sp.pos) > 3:
            problem = f'unexpected argument "{sp.pos[3]}"'
    if problem is not None:
        ctx.err(n, problem)
        return None
    ctx.block_ids.add(ident)
    return ident
