"""``figdown reference``: print our FigDown reference (its index, a genre's or a task's files).

Loads no engine: the reference is text shipped with the package.
"""

from __future__ import annotations

import argparse
from typing import BinaryIO, TextIO

from markmcp.figdown import docs

REFUSED = (docs.DocsError,)


def run(options: argparse.Namespace, out: TextIO, err: TextIO, stdin: BinaryIO) -> int:
    answer = docs.lookup(options.name, experimental=options.experimental)
    out.write(docs.render(answer))
    return 0
