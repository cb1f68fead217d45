"""``figdown build``: draw each document as a self-carrying SVG beside it (or under
``--out``), or with ``--check`` report the artifacts that are missing or stale.

Loads the parser, the renderer and the artifact handling on disk.
"""

from __future__ import annotations

import argparse
import gc
import os
from pathlib import Path
from typing import BinaryIO, TextIO

from markmcp.figdown import artifacts
from markmcp.figdown.commands import STDIN, STDIN_LABEL, UsageError
from markmcp.figdown.render import build
from markmcp.figdown.report import EMPTY_NOTE, as_items, hints, is_empty, refusal
from markmcp.figdown.sources import cwd_label, documents_below, read_named, read_stream, shown
from markmcp.mcpcore import files
from markmcp.mcpcore.files import FileAccessError, Places
from markmcp.textsafe import escape_controls

REFUSED = (FileAccessError, UsageError)


class Job:
    """One document to build: where it came from, its text (or why it was not read),
    where its artifact goes and the folders that write must stay inside."""

    __slots__ = ("label", "text", "problem", "output", "places")

    def __init__(self, label: str, text: str | None, problem: FileAccessError | None,
                 output: Path | None, places: Places | None) -> None:
        self.label, self.text, self.problem, self.output, self.places = label, text, problem, output, places


def _out_mode(options: argparse.Namespace) -> str | None:
    """``None`` (beside each document), ``"file"`` or ``"dir"``."""
    if options.out is None:
        return None
    value = options.out
    if files.kind_of(value) == "dir" or value.endswith(("/", os.sep)):
        return "dir"
    return "file" if artifacts.is_svg_name(value) else "dir"


def build_jobs(options: argparse.Namespace, stdin: BinaryIO) -> list[Job]:
    """Every document ``build`` was given, read, with its output path (nothing is
    written yet).  A named path that cannot be read raises (exit 2)."""
    mode = _out_mode(options)
    out_dir = Path(options.out) if mode == "dir" else None
    out_places = None
    jobs: list[Job] = []
    for argument in options.paths:
        if argument == STDIN:
            text = read_stream(stdin, STDIN_LABEL)
            if mode == "dir":
                raise UsageError("standard input has no name to give its artifact in --out DIR: "
                                 "name a file (--out FIGURE.svg) or leave --out away to print the SVG")
            output = Path(options.out) if mode == "file" else None
            jobs.append(Job(STDIN_LABEL, text, None, output, None))
        elif files.kind_of(argument) == "dir":
            walked = Path(argument)
            inside = Places.of([walked])
            for source in documents_below(walked, places=inside, label=cwd_label):
                found = source.path or walked
                if out_dir is not None:
                    output = out_dir / artifacts.artifact_for(found.relative_to(walked))
                    places = out_places = out_places or _out_places(out_dir)
                else:
                    output, places = artifacts.artifact_for(found), inside
                jobs.append(Job(source.label, source.text, source.problem, output, places))
        else:
            label = shown(argument)
            text = read_named(argument, label=label)
            if out_dir is not None:
                output = out_dir / artifacts.artifact_for(Path(argument).name)
                places = out_places = out_places or _out_places(out_dir)
            elif mode == "file":
                output, places = Path(options.out), None
            else:
                output, places = artifacts.artifact_for(argument), None
            jobs.append(Job(label, text, None, output, places))
    if mode == "file" and len(jobs) != 1:
        raise UsageError(f"--out {files.shown(options.out)} names one file, but {len(jobs)} documents were "
                         "given: name a folder to build several")
    return jobs


def _out_places(out_dir: Path) -> Places:
    """The --out folder, created when missing; every write under it stays inside it."""
    return Places.of([files.make_folders(out_dir)])


def _drawn(text: str, with_title: bool):
    """``build`` with the cycle collector paused: a big figure makes millions of small
    objects that all live until it is drawn, and collecting every few hundred
    allocations read them again and again (a fifth of a 10,000-box build) to free
    next to nothing.  Whatever cycles the build leaves are collected after it."""
    running = gc.isenabled()
    gc.disable()
    try:
        return build(text, with_title=with_title)
    finally:
        if running:
            gc.enable()


def run(options: argparse.Namespace, out: TextIO, err: TextIO, stdin: BinaryIO) -> int:
    jobs = build_jobs(options, stdin)
    if options.check and any(job.output is None for job in jobs):
        raise UsageError("--check compares with an artifact on disk: standard input needs --out FIGURE.svg")
    report = err if any(job.output is None for job in jobs) else out  # stdout may carry the SVG itself
    seen: dict[str, str] = {}
    counts = {"written": 0, "unchanged": 0, "current": 0, "stale": 0, "missing": 0, "failed": 0}
    for job in jobs:
        if job.problem is not None:
            report.write(f"NOT READ — {escape_controls(job.label)}\n{escape_controls(job.problem.message)}\n\n")
            counts["failed"] += 1
            continue
        if job.output is not None:
            key = os.path.abspath(job.output)
            if key in seen:
                report.write(f"NOT WRITTEN — {files.shown(job.output)}\nit is already the artifact of "
                             f"{escape_controls(seen[key])} in this run\n\n")
                counts["failed"] += 1
                continue
            seen[key] = job.label
        built = _drawn(job.text or "", options.with_title)
        if built.svg is None:
            stage = "parse" if built.result is not None and built.result.diagnostics else "geometry"
            items = as_items(built.diagnostics)
            found = hints(job.text or "", items) if stage == "parse" else []
            report.write(refusal(job.label, stage, items, found) + "\n\n")
            counts["failed"] += 1
            continue
        if job.output is None:
            out.write(built.svg)
            counts["written"] += 1
            continue
        shown_out = cwd_label(job.output)
        try:
            if options.check:
                fresh = artifacts.freshness(artifacts.on_disk(job.output, places=job.places), built.svg,
                                            job.text or "", with_title=options.with_title)
                if fresh.status == "current":
                    counts["current"] += 1
                    continue
                word = {"stale": "STALE", "missing": "MISSING", "foreign": "NOT OURS"}[fresh.status]
                report.write(f"{word} — {escape_controls(shown_out)}: {escape_controls(fresh.reason)}\n")
                counts["stale" if fresh.status == "stale" else "missing" if fresh.status == "missing"
                       else "failed"] += 1
                continue
            if job.places is not None:  # under --out DIR: a walked folder's subfolders are made inside it
                files.make_folders(job.output.parent, places=job.places)
            done = artifacts.write_artifact(job.output, built.svg, places=job.places)
        except (artifacts.NotOurs, FileAccessError) as error:
            if options.check:
                report.write(f"UNUSABLE — {escape_controls(shown_out)}: {escape_controls(error.message)}\n")
            else:
                report.write(f"NOT WRITTEN — {escape_controls(shown_out)}\n{escape_controls(error.message)}\n\n")
            counts["failed"] += 1
            continue
        counts[done] += 1
        report.write(f"OK  {escape_controls(shown_out)}" + (" (unchanged)\n" if done == "unchanged" else "\n"))
        if built.result is not None and is_empty(built.result):
            report.write(f"    EMPTY — {escape_controls(job.label)}: {EMPTY_NOTE}\n")
    total = len(jobs)
    if options.check:
        line = (f"checked {total} artifact(s): {counts['current']} current, {counts['stale']} stale, "
                f"{counts['missing']} missing, {counts['failed']} not built")
        ok = counts["current"] == total
    else:
        line = (f"built {counts['written']} artifact(s), {counts['unchanged']} unchanged, "
                f"{counts['failed']} not built (of {total} document(s))")
        ok = counts["failed"] == 0
    if total == 0:
        line += " (no .fd file found)"
    if not (ok and report is err):  # a clean build to standard output says nothing else
        report.write(line + "\n")
    return 0 if ok else 1



