"""``figdown build`` and ``figdown read`` of an artifact: where artifacts go, what is
never replaced, ``--check``, standard input, and exit codes.

Most runs call ``main`` in-process (the edge is the same code); a few run the real
command to see the process as a user does.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from markmcp.figdown import cli, model_json, parse
from markmcp.figdown.render import ENGINE_VERSION, build, read_artifact

CLEAN = 'figdown 0.1 block\ntitle "Pair"\nnode a "A"\nnode b "B"\nedge a -> b\n'
OTHER = 'figdown 0.1 block\nnode x "X"\n'
BROKEN = 'figdown 0.1 block\nnode a "A"\nfrobnicate\n'
#: Parses clean, but the pin puts "b" entirely over "a", which the engine placed (line 4).
COVERED = 'figdown 0.1 block\nnode a "A"\nnode b "B"\npin b at=(0,0) width=400 height=300\nedge a -> b\n'
FOREIGN = '<svg xmlns="http://www.w3.org/2000/svg"><text>drawn by hand</text></svg>\n'


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def run(args: list[str], cwd: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        stdin: bytes = b"") -> tuple[int, str, str]:
    """``figdown ARGS`` in-process from ``cwd``: (exit code, stdout, stderr)."""
    monkeypatch.chdir(cwd)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    code = cli.main(args)
    out, err = capsys.readouterr()
    return code, out, err


def listing(root: Path) -> dict[str, str]:
    """Every file below ``root`` with its content (what a --check must not change)."""
    return {p.relative_to(root).as_posix(): p.read_text(encoding="utf-8") for p in sorted(root.rglob("*"))
            if p.is_file() and not p.is_symlink()}


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    write(tmp_path / "figs" / "pair.fd", CLEAN)
    write(tmp_path / "figs" / "sub" / "one.fd", OTHER)
    write(tmp_path / "figs" / "notes.md", "not a figure\n")
    write(tmp_path / "figs" / ".git" / "hidden.fd", "garbage\n")
    write(tmp_path / "figs" / "node_modules" / "x.fd", "garbage\n")
    return tmp_path


Run = tuple[pytest.MonkeyPatch, pytest.CaptureFixture[str]]


@pytest.fixture()
def io_(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Run:
    return monkeypatch, capsys


# --- building ----------------------------------------------------------------------------------


def test_build_writes_each_artifact_beside_its_source(tree: Path, io_: Run) -> None:
    code, out, err = run(["build", "figs"], tree, *io_)
    assert (code, err) == (0, "")
    assert out == ("OK  figs/pair.svg\nOK  figs/sub/one.svg\n"
                   "built 2 artifact(s), 0 unchanged, 0 not built (of 2 document(s))\n")
    assert (tree / "figs" / "pair.svg").read_text(encoding="utf-8") == build(CLEAN).svg
    assert (tree / "figs" / "sub" / "one.svg").read_text(encoding="utf-8") == build(OTHER).svg
    assert not (tree / "figs" / ".git" / "hidden.svg").exists()
    assert not (tree / "figs" / "node_modules" / "x.svg").exists()


def test_a_second_build_leaves_identical_artifacts_untouched(tree: Path, io_: Run) -> None:
    run(["build", "figs/pair.fd"], tree, *io_)
    artifact = tree / "figs" / "pair.svg"
    os.utime(artifact, ns=(1_000_000_000, 1_000_000_000))
    code, out, _ = run(["build", "figs/pair.fd"], tree, *io_)
    assert code == 0 and out.startswith("OK  figs/pair.svg (unchanged)\n")
    assert out.endswith("built 0 artifact(s), 1 unchanged, 0 not built (of 1 document(s))\n")
    assert artifact.stat().st_mtime_ns == 1_000_000_000


def test_with_title_draws_and_records_the_title(tree: Path, io_: Run) -> None:
    run(["build", "--with-title", "figs/pair.fd"], tree, *io_)
    svg = (tree / "figs" / "pair.svg").read_text(encoding="utf-8")
    assert svg == build(CLEAN, with_title=True).svg and read_artifact(svg).with_title
    assert 'data-render-options="with-title"' in svg and ">Pair</text>" in svg


def test_documents_that_do_not_build_write_nothing(tree: Path, io_: Run) -> None:
    write(tree / "figs" / "broken.fd", BROKEN)
    write(tree / "figs" / "covered.fd", COVERED)
    code, out, err = run(["build", "figs"], tree, *io_)
    assert code == 1 and err == ""
    blocks = out.split("\n\n")
    assert blocks[0] == 'PARSE FAILED — 1 diagnostic(s) in figs/broken.fd\nLine 3: "frobnicate" is not allowed in genre block'
    assert blocks[1].startswith("FIGURE REFUSED — 1 geometry diagnostic(s) in figs/covered.fd (it parses, ")
    assert blocks[1].split("\n")[1].startswith('Line 4: pin puts "b" completely over "a"')
    assert out.endswith("built 2 artifact(s), 0 unchanged, 2 not built (of 4 document(s))\n")
    assert not (tree / "figs" / "broken.svg").exists() and not (tree / "figs" / "covered.svg").exists()


def test_an_svg_figdown_did_not_build_is_never_replaced(tree: Path, io_: Run) -> None:
    write(tree / "figs" / "pair.svg", FOREIGN)
    code, out, _ = run(["build", "figs"], tree, *io_)
    assert code == 1
    assert ("NOT WRITTEN — figs/pair.svg\nfigs/pair.svg exists and is not a FigDown artifact (it has no "
            '<metadata id="figdown-source">); it was left alone and nothing was written (move it away to build '
            "there)\n") in out
    assert (tree / "figs" / "pair.svg").read_text(encoding="utf-8") == FOREIGN
    assert (tree / "figs" / "sub" / "one.svg").exists()  # the others are still built
    # an artifact upstream's engine built is FigDown's: it is replaced
    upstream = build(CLEAN).svg.replace(f'data-engine-version="{ENGINE_VERSION}"', 'data-engine-version="0.5.0"')
    write(tree / "figs" / "pair.svg", upstream)
    assert run(["build", "figs/pair.fd"], tree, *io_)[0] == 0
    assert (tree / "figs" / "pair.svg").read_text(encoding="utf-8") == build(CLEAN).svg


def test_out_dir_keeps_a_walked_folders_subfolders(tree: Path, io_: Run) -> None:
    code, out, _ = run(["build", "--out", "site/img", "figs", "figs/pair.fd"], tree, *io_)
    assert code == 1  # figs/pair.fd and the walked figs/pair.fd both go to site/img/pair.svg
    assert "OK  site/img/pair.svg\nOK  site/img/sub/one.svg\n" in out
    assert "NOT WRITTEN — site/img/pair.svg\nit is already the artifact of figs/pair.fd in this run\n" in out
    assert (tree / "site" / "img" / "sub" / "one.svg").read_text(encoding="utf-8") == build(OTHER).svg
    assert not (tree / "figs" / "pair.svg").exists()


def test_out_file_names_one_artifact(tree: Path, io_: Run) -> None:
    code, out, _ = run(["build", "--out", "pic.svg", "figs/pair.fd"], tree, *io_)
    assert code == 0 and out.startswith("OK  pic.svg\n")
    assert (tree / "pic.svg").read_text(encoding="utf-8") == build(CLEAN).svg
    code, out, err = run(["build", "--out", "pic.svg", "figs"], tree, *io_)
    assert (code, out) == (2, "")
    assert err == ("figdown: --out pic.svg names one file, but 2 documents were given: name a folder to build "
                   "several\n")


def test_standard_input_builds_to_standard_output(tree: Path, io_: Run) -> None:
    code, out, err = run(["build", "-"], tree, *io_, stdin=CLEAN.encode())
    assert (code, out, err) == (0, build(CLEAN).svg, "")
    code, out, err = run(["build", "-", "--out", "x.svg"], tree, *io_, stdin=CLEAN.encode())
    assert code == 0 and (tree / "x.svg").read_text(encoding="utf-8") == build(CLEAN).svg
    code, out, err = run(["build", "-"], tree, *io_, stdin=BROKEN.encode())
    assert (code, out) == (1, "") and err.startswith("PARSE FAILED — 1 diagnostic(s) in <stdin>\n")
    code, out, err = run(["build", "-", "--out", "dir/"], tree, *io_, stdin=CLEAN.encode())
    assert (code, out) == (2, "") and "standard input has no name" in err
    code, out, err = run(["build", "--check", "-"], tree, *io_, stdin=CLEAN.encode())
    assert (code, out) == (2, "") and "standard input needs --out" in err


def test_a_named_path_that_cannot_be_read_builds_nothing(tree: Path, io_: Run) -> None:
    code, out, err = run(["build", "figs/pair.fd", "figs/missing.fd"], tree, *io_)
    assert (code, out) == (2, "") and err == "figdown: figs/missing.fd: no such file or directory\n"
    assert not (tree / "figs" / "pair.svg").exists()


# --- --check -------------------------------------------------------------------------------------


def test_check_reports_missing_current_and_stale_and_writes_nothing(tree: Path, io_: Run) -> None:
    before = listing(tree)
    code, out, _ = run(["build", "--check", "figs"], tree, *io_)
    assert code == 1
    assert out == ("MISSING — figs/pair.svg: no artifact has been built yet\n"
                   "MISSING — figs/sub/one.svg: no artifact has been built yet\n"
                   "checked 2 artifact(s): 0 current, 0 stale, 2 missing, 0 not built\n")
    assert listing(tree) == before
    run(["build", "figs"], tree, *io_)
    code, out, _ = run(["build", "--check", "figs"], tree, *io_)
    assert (code, out) == (0, "checked 2 artifact(s): 2 current, 0 stale, 0 missing, 0 not built\n")
    write(tree / "figs" / "pair.fd", CLEAN + 'node c "C"\n')
    built = listing(tree)
    code, out, _ = run(["build", "--check", "figs"], tree, *io_)
    assert code == 1
    assert out.startswith("STALE — figs/pair.svg: the source has changed since the artifact was built\n")
    code, out, _ = run(["build", "--check", "--with-title", "figs/sub/one.fd"], tree, *io_)
    assert code == 1 and "STALE — figs/sub/one.svg: it was built with no render options, this build uses with-title" in out
    assert listing(tree) == built


def test_check_names_another_engine_and_a_foreign_file(tree: Path, io_: Run) -> None:
    upstream = build(CLEAN).svg.replace(f'data-engine-version="{ENGINE_VERSION}"', 'data-engine-version="0.5.0"')
    write(tree / "figs" / "pair.svg", upstream)
    write(tree / "figs" / "sub" / "one.svg", FOREIGN)
    code, out, _ = run(["build", "--check", "figs"], tree, *io_)
    assert code == 1
    assert out == (f"STALE — figs/pair.svg: it was drawn by 0.5.0, this build uses {ENGINE_VERSION}\n"
                   "NOT OURS — figs/sub/one.svg: exists and is not a FigDown artifact (it has no "
                   '<metadata id="figdown-source">)\n'
                   "checked 2 artifact(s): 0 current, 1 stale, 0 missing, 1 not built\n")


# --- reading an artifact back ----------------------------------------------------------------------


def test_read_an_artifact_prints_its_sources_model(tree: Path, io_: Run) -> None:
    run(["build", "figs/pair.fd"], tree, *io_)
    code, out, err = run(["read", "figs/pair.svg"], tree, *io_)
    assert code == 0 and json.loads(out) == json.loads(model_json(parse(CLEAN)))
    assert err == ("figdown: source recovered from the artifact's <metadata id=\"figdown-source\"> block\n"
                   "figdown: sidecar pair.fd matches the artifact's recorded hash\n")
    write(tree / "figs" / "pair.fd", OTHER)
    code, out, err = run(["read", "figs/pair.svg"], tree, *io_)
    assert code == 0 and json.loads(out) == json.loads(model_json(parse(CLEAN)))
    assert err.endswith("figdown: STALE ARTIFACT: pair.fd has changed since this .svg was built. "
                        "The .fd is truth — rebuild.\n")
    code, out, err = run(["read", "-"], tree, *io_, stdin=build(OTHER).svg.encode())
    assert code == 0 and json.loads(out) == json.loads(model_json(parse(OTHER)))
    write(tree / "hand.svg", FOREIGN)
    code, out, err = run(["read", "hand.svg"], tree, *io_)
    assert (code, out) == (2, "") and err.endswith("so there is no source to read. Never OCR the picture.\n")


# planted beside figs/pair.fd: a FigDown-looking .svg whose metadata holds "&#²;" (str.isdigit() is
# true for "²": build, --check and read died with a ValueError traceback while it was there)
PLANTED = ('<svg xmlns="http://www.w3.org/2000/svg"><metadata id="figdown-source" data-sha256="00">'
           "x&#\u00b2;</metadata></svg>\n")
PLANTED_WHY = ('is not a FigDown artifact: its <metadata id="figdown-source"> block holds a malformed character '
               'reference "&#\u00b2;" at character offset 88 (a character reference is &# and ASCII digits, or &#x '
               "and hex digits), so there is no source to read")


def test_a_planted_svg_with_a_malformed_reference_is_not_ours_and_is_left_alone(tree: Path, io_: Run) -> None:
    write(tree / "figs" / "pair.svg", PLANTED)
    code, out, err = run(["build", "figs/pair.fd"], tree, *io_)
    assert (code, err) == (1, "")
    assert out.startswith(f"NOT WRITTEN — figs/pair.svg\nfigs/pair.svg exists and {PLANTED_WHY}; it was left alone "
                          "and nothing was written (move it away to build there)\n")
    code, out, err = run(["build", "--check", "figs"], tree, *io_)
    assert code == 1 and f"NOT OURS — figs/pair.svg: exists and {PLANTED_WHY}\n" in out
    code, out, err = run(["read", "figs/pair.svg"], tree, *io_)
    assert (code, out, err) == (2, "", f"figdown: figs/pair.svg {PLANTED_WHY}\n")
    assert (tree / "figs" / "pair.svg").read_text(encoding="utf-8") == PLANTED


def test_the_command_as_a_process(tree: Path) -> None:
    def figdown(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "markmcp.figdown.cli", *args], cwd=tree,
                              capture_output=True, text=True, timeout=60)

    done = figdown("build", "figs")
    assert done.returncode == 0 and done.stdout.endswith("built 2 artifact(s), 0 unchanged, 0 not built "
                                                         "(of 2 document(s))\n")
    assert figdown("build", "--check", "figs").returncode == 0
    assert figdown("build", "--help").stdout.count("--check") >= 1
    bad = figdown("build")
    assert bad.returncode == 2 and bad.stdout == "" and "Traceback" not in bad.stderr
