"""Artifacts through the tools, corpus-wide: every conformance document that draws is
built by ``figdown_build`` (written beside its source), read back by ``figdown_read`` to
the same model with its sidecar matching; every ``.svg`` upstream FigDown ships reads
back too (``FIGDOWN_UPSTREAM`` = a FigDown checkout; skipped, visibly, without one).

The tools are called in-process with a :class:`CallContext`, as the server calls them.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from conftest import shared_dir
from markmcp.figdown import model_json, parse, server
from markmcp.figdown.render import ENGINE_VERSION, build
from markmcp.mcpcore import CallContext


def context(root: Path) -> CallContext:
    return CallContext(roots=(root.resolve(),), cwd=root.resolve(), allow_write=True, options={})


def conformance_documents() -> list[Path]:
    return [fd for corpus in ("cases", "experimental")
            for fd in sorted(shared_dir("figdown", "conformance", corpus).glob("*.fd"))]


def test_every_conformance_document_that_draws_builds_and_reads_back(tmp_path: Path) -> None:
    ctx = context(tmp_path)
    built = refused = geometry = 0
    for fd in conformance_documents():
        source = fd.read_bytes().decode("utf-8")
        shutil.copyfile(fd, tmp_path / fd.name)
        result = server.build_tool({"path": fd.name, "write": True}, ctx)
        svg_path = tmp_path / (fd.name[:-3] + ".svg")
        if not result["ok"]:
            refused += 1
            assert not svg_path.exists() and result["stage"] in ("parse", "geometry"), fd.name
            assert result["svg"] is None and result["written"] is None and result["diagnostics"], fd.name
            geometry += result["stage"] == "geometry"
            continue
        built += 1
        assert svg_path.read_text(encoding="utf-8") == build(source).svg, fd.name
        read = server.read({"path": svg_path.name}, ctx)
        assert read["ok"] is True, fd.name
        assert read["model"] == json.loads(model_json(parse(source))), fd.name
        assert read["artifact"]["sidecar"]["status"] == "matches", fd.name
        assert read["artifact"]["engineSkew"] is False and read["artifact"]["sha256Matches"] is True
        assert server.read({"source": svg_path.read_text(encoding="utf-8")}, ctx)["model"] == read["model"]
    # the corpus holds both kinds (122 draw, 166 are refused, 3 of them on geometry alone):
    # the counts keep the loop honest
    assert built > 100 and refused > 100 and geometry == 3


def upstream_root() -> Path:
    value = os.environ.get("FIGDOWN_UPSTREAM", "")
    root = Path(value)
    if not value or not (root / "examples").is_dir():
        pytest.skip("set FIGDOWN_UPSTREAM to an upstream FigDown checkout to read the SVGs it ships")
    return root


def test_every_svg_upstream_ships_reads_back() -> None:
    root = upstream_root()
    ctx = CallContext(roots=(root.resolve(),), cwd=root.resolve(), allow_write=False, options={})
    svgs = sorted(p for p in root.rglob("*.svg") if "node_modules" not in p.parts and "archive" not in p.parts)
    assert len(svgs) >= 58
    for svg in svgs:
        rel = svg.relative_to(root).as_posix()
        read = server.read({"path": rel}, ctx)
        assert read["ok"] is True, rel
        artifact = read["artifact"]
        assert artifact["sha256Matches"] is True, rel
        assert artifact["engineSkew"] is True and artifact["engineVersion"] != ENGINE_VERSION, rel
        assert any(note.startswith("engine skew: ") for note in read["notes"]), rel
        fd = svg.with_suffix(".fd")
        if fd.exists():
            assert artifact["sidecar"]["status"] == "matches", (rel, artifact["sidecar"])
            assert read["model"] == json.loads(model_json(parse(fd.read_bytes().decode("utf-8")))), rel


def test_the_edges_never_import_each_other() -> None:
    """``cli`` and ``server`` share what both need through the package (``artifacts``,
    ``report``, ``sources``), never through each other: a fresh interpreter importing one
    loads no trace of the other."""
    import subprocess
    import sys

    for edge, other in (("server", "cli"), ("cli", "server")):
        code = (f"import sys, markmcp.figdown.{edge}; "
                f"print('markmcp.figdown.{other}' in sys.modules)")
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
        assert done.stdout.strip() == "False", (edge, done.stdout, done.stderr)
