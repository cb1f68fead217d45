"""``figdown check``: parse each document and lay out its figure; report diagnostics.

Loads the parser and the renderer (the geometry check draws the figure).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, BinaryIO, TextIO

from markmcp.figdown.commands import STDIN, STDIN_LABEL
from markmcp.figdown.report import check_report, failing_blocks, tally, tally_line, unread_report
from markmcp.figdown.sources import cwd_label, documents_below, read_named, read_stream, shown
from markmcp.mcpcore import files
from markmcp.mcpcore.files import FileAccessError

REFUSED = (FileAccessError,)


def collect(arguments: Sequence[str], stdin: BinaryIO) -> list[dict[str, Any]]:
    """The report of every document named by ``arguments`` (files, directories, ``-``), in
    order.  A file or ``-`` that cannot be read stops the run (nothing is printed then); a
    document found in a directory that cannot be read is reported, and the walk goes on.
    Each document is checked as it is read, so only the reports are held."""
    reports: list[dict[str, Any]] = []
    for argument in arguments:
        if argument == STDIN:
            reports.append(check_report(STDIN_LABEL, read_stream(stdin, STDIN_LABEL)))
        elif files.kind_of(argument) == "dir":
            for source in documents_below(Path(argument), label=cwd_label):
                if source.problem is not None:
                    reports.append(unread_report(source.label, source.problem))
                else:
                    reports.append(check_report(source.label, source.text or ""))
        else:
            label = shown(argument)
            reports.append(check_report(label, read_named(argument, label=label)))
    return reports


def run(options: argparse.Namespace, out: TextIO, err: TextIO, stdin: BinaryIO) -> int:
    summary = tally(collect(options.paths, stdin))
    if options.json:
        out.write(json.dumps(summary, ensure_ascii=False, indent=2) + "\n")
    else:
        for block in failing_blocks(summary):
            out.write(block + "\n\n")
        line = tally_line(summary)
        if summary["checked"] == 0:
            line += " (no .fd file found)"   # a mistyped folder must not look like a clean one
        out.write(line + "\n")
    return 0 if summary["ok"] else 1



