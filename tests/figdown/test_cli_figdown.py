"""``figdown`` run as a real subprocess: exit codes, the tally, --json, walking, read, reference."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from markmcp.figdown import model_json, parse

CLEAN = 'figdown 0.1 block\nnode a "A"\nnode b "B"\nedge a -> b\n'
BROKEN = 'figdown 0.1 block\nnode a "A"\nfrobnicate\nedge a -> nowhere\n'
SEQUENCE = 'figdown 0.4 sequence\nlifeline c "Client"\nlifeline s "Server"\nmessage c -> s "hello"\n'


def figdown(*args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "markmcp.figdown.cli", *args],
        cwd=cwd, input=stdin, capture_output=True, text=True, timeout=60,
    )


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    """A directory with clean and broken documents, plus .fd files that must be skipped."""
    write(tmp_path / "docs" / "b.fd", CLEAN)
    write(tmp_path / "docs" / "a.fd", CLEAN)
    write(tmp_path / "docs" / "deep" / "er" / "broken.fd", BROKEN)
    write(tmp_path / "docs" / "notes.md", "not a figure\n")
    write(tmp_path / "docs" / ".git" / "hidden.fd", "garbage\n")
    write(tmp_path / "docs" / "node_modules" / "pkg" / "x.fd", "garbage\n")
    write(tmp_path / "docs" / "deep" / "node_modules" / "y.fd", "garbage\n")
    return tmp_path


# --- check -----------------------------------------------------------------------------


def test_check_clean_file_exits_0_with_tally(tmp_path: Path) -> None:
    write(tmp_path / "ok.fd", CLEAN)
    run = figdown("check", "ok.fd", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stdout == "checked 1 document(s), 1 clean, 0 with diagnostics\n"
    assert run.stderr == ""


def test_an_empty_document_is_clean_but_said_to_be_empty(tmp_path: Path) -> None:
    """FigDown's engine parses an empty document clean (a blank picture); the check and the
    build say so, so a file read wrong or never written is not taken for a finished figure."""
    write(tmp_path / "empty.fd", "")
    write(tmp_path / "note.fd", "# only a comment\n\n")
    write(tmp_path / "ok.fd", CLEAN)
    run = figdown("check", "empty.fd", "note.fd", "ok.fd", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    blocks = run.stdout.split("\n\n")
    assert [b.split("\n")[0] for b in blocks[:2]] == ["EMPTY — empty.fd", "EMPTY — note.fd"]
    assert "no header and nothing declared" in blocks[0]
    assert blocks[2] == "checked 3 document(s), 3 clean (2 of them empty), 0 with diagnostics\n"
    data = json.loads(figdown("check", "--json", "empty.fd", "ok.fd", cwd=tmp_path).stdout)
    assert data["empty"] == 1 and [d.get("empty") for d in data["documents"]] == [True, None]
    built = figdown("build", "empty.fd", "ok.fd", cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    assert built.stdout.split("\n")[:3] == [
        "OK  empty.svg", "    EMPTY — empty.fd: no header and nothing declared: it parses, and draws a blank "
        "picture. A figure starts with `figdown <version> <genre>`.", "OK  ok.svg"]


def test_check_broken_file_exits_1_and_prints_diagnostics_verbatim(tmp_path: Path) -> None:
    write(tmp_path / "bad.fd", BROKEN)
    run = figdown("check", "bad.fd", cwd=tmp_path)
    assert run.returncode == 1
    lines = run.stdout.split("\n")
    assert lines[0] == "PARSE FAILED — 2 diagnostic(s) in bad.fd"
    expected = [f"Line {line}: {message}" for line, message in sorted(parse(BROKEN).diagnostics)]
    assert lines[1:3] == expected
    assert lines[1].startswith("Line 3: ") and lines[2].startswith("Line 4: ")
    assert lines[-2] == "checked 1 document(s), 0 clean, 1 with diagnostics"


def test_check_walks_directories_sorted_and_skips_git_and_node_modules(tree: Path) -> None:
    run = figdown("check", "--json", "docs", cwd=tree)
    assert run.returncode == 1
    report = json.loads(run.stdout)
    labels = [doc["label"] for doc in report["documents"]]
    assert labels == ["docs/a.fd", "docs/b.fd", os.path.join("docs", "deep", "er", "broken.fd")]
    assert (report["checked"], report["clean"], report["withDiagnostics"], report["ok"]) == (3, 2, 1, False)
    broken = report["documents"][2]
    assert broken["ok"] is False
    assert [d["line"] for d in broken["diagnostics"]] == [3, 4]
    assert all(set(d) == {"line", "column", "message"} for d in broken["diagnostics"])


def test_a_subdirectory_is_walked_where_its_name_falls(tmp_path: Path) -> None:
    """The reference tools' order: one name-sorted listing, subdirectories walked in place."""
    for name in ("c.fd", "a.fd", "b/y.fd", "b/x/z.fd", "b/w.fd", "B.fd", "b.fd"):
        write(tmp_path / "d" / name, CLEAN)
    run = figdown("check", "--json", "d", cwd=tmp_path)
    labels = [doc["label"] for doc in json.loads(run.stdout)["documents"]]
    assert labels == [os.path.join("d", *name.split("/"))
                      for name in ("B.fd", "a.fd", "b/w.fd", "b/x/z.fd", "b/y.fd", "b.fd", "c.fd")]


def test_check_text_output_for_a_tree(tree: Path) -> None:
    run = figdown("check", "docs", cwd=tree)
    assert run.returncode == 1
    assert run.stdout.startswith("PARSE FAILED — 2 diagnostic(s) in docs")
    assert "garbage" not in run.stdout and "hidden" not in run.stdout
    assert run.stdout.endswith("checked 3 document(s), 2 clean, 1 with diagnostics\n")


def test_check_several_paths_and_clean_json(tree: Path) -> None:
    run = figdown("check", "--json", "docs/a.fd", "docs/b.fd", cwd=tree)
    assert run.returncode == 0
    report = json.loads(run.stdout)
    assert report["ok"] is True and report["checked"] == 2
    assert [doc["label"] for doc in report["documents"]] == ["docs/a.fd", "docs/b.fd"]


def test_a_file_named_directly_is_checked_whatever_its_extension(tmp_path: Path) -> None:
    write(tmp_path / "figure.txt", BROKEN)
    assert figdown("check", "figure.txt", cwd=tmp_path).returncode == 1


def test_empty_directory_checks_nothing_and_says_so(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    run = figdown("check", "empty", cwd=tmp_path)
    assert run.returncode == 0
    assert run.stdout == "checked 0 document(s), 0 clean, 0 with diagnostics (no .fd file found)\n"
    built = figdown("build", "empty", cwd=tmp_path)
    assert built.returncode == 0
    assert built.stdout == "built 0 artifact(s), 0 unchanged, 0 not built (of 0 document(s)) (no .fd file found)\n"


def test_check_reads_stdin(tmp_path: Path) -> None:
    run = figdown("check", "-", cwd=tmp_path, stdin=BROKEN)
    assert run.returncode == 1
    assert run.stdout.startswith("PARSE FAILED — 2 diagnostic(s) in <stdin>\n")


def test_missing_path_exits_2_and_checks_nothing(tmp_path: Path) -> None:
    write(tmp_path / "bad.fd", BROKEN)
    run = figdown("check", "bad.fd", "missing.fd", cwd=tmp_path)
    assert run.returncode == 2
    assert run.stdout == ""
    assert run.stderr == "figdown: missing.fd: no such file or directory\n"
    # with --json a script still gets JSON: the run did not start, and why
    run = figdown("check", "--json", "bad.fd", "missing.fd", cwd=tmp_path)
    assert run.returncode == 2
    assert json.loads(run.stdout) == {"ok": False, "error": {"code": "not-found",
                                                             "message": "missing.fd: no such file or directory"}}


def test_undecodable_file_exits_2_naming_it(tmp_path: Path) -> None:
    (tmp_path / "latin.fd").write_bytes(b"figdown 0.1 block\nnode a \"caf\xe9\"\n")
    run = figdown("check", "latin.fd", cwd=tmp_path)
    assert run.returncode == 2
    assert run.stderr == "figdown: latin.fd: the document is not UTF-8 text (byte 0xe9 at offset 29, line 2)\n"
    assert "Traceback" not in run.stderr


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="needs POSIX permissions, not root")
def test_unreadable_file_exits_2(tmp_path: Path) -> None:
    locked = write(tmp_path / "locked.fd", CLEAN)
    locked.chmod(0)
    try:
        run = figdown("check", "locked.fd", cwd=tmp_path)
    finally:
        locked.chmod(0o644)
    assert run.returncode == 2
    assert run.stderr.startswith("figdown: locked.fd: cannot read: ")


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="needs POSIX permissions, not root")
def test_unreadable_directory_in_a_walk_is_reported_and_the_walk_goes_on(tmp_path: Path) -> None:
    write(tmp_path / "d" / "ok.fd", CLEAN)
    locked = tmp_path / "d" / "locked"
    write(locked / "x.fd", CLEAN)
    locked.chmod(0)
    try:
        run = figdown("check", "d", cwd=tmp_path)
    finally:
        locked.chmod(0o755)
    assert run.returncode == 1
    assert run.stdout.startswith("NOT READ — d/locked\nd/locked: cannot list: ")
    assert run.stdout.endswith("checked 2 document(s), 1 clean, 0 with diagnostics, 1 not read\n")


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    assert figdown(cwd=tmp_path).returncode == 2
    assert figdown("check", cwd=tmp_path).returncode == 2
    assert figdown("frobnicate", cwd=tmp_path).returncode == 2
    assert figdown("check", "--bogus", "x.fd", cwd=tmp_path).returncode == 2
    assert figdown("--help", cwd=tmp_path).returncode == 0


# --- read ------------------------------------------------------------------------------


def test_read_prints_the_model_json(tmp_path: Path) -> None:
    write(tmp_path / "ok.fd", CLEAN)
    run = figdown("read", "ok.fd", cwd=tmp_path)
    assert run.returncode == 0
    assert run.stdout == model_json(parse(CLEAN))
    model = json.loads(run.stdout)
    assert model["header"] == {"version": "0.1", "genre": "block"}
    assert [node["line"] for node in model["nodes"]] == [2, 3]


def test_read_of_several_sections_and_stdin(tmp_path: Path) -> None:
    run = figdown("read", "-", cwd=tmp_path, stdin=CLEAN + SEQUENCE)
    assert run.returncode == 0
    sections = json.loads(run.stdout)["sections"]
    assert [s["header"]["genre"] for s in sections] == ["block", "sequence"]


def test_read_of_a_broken_document_exits_1_with_diagnostics_on_stderr(tmp_path: Path) -> None:
    write(tmp_path / "bad.fd", BROKEN)
    run = figdown("read", "bad.fd", cwd=tmp_path)
    assert run.returncode == 1
    assert run.stdout == ""
    assert run.stderr.startswith("PARSE FAILED — 2 diagnostic(s) in bad.fd\nLine 3: ")


def test_check_and_build_refuse_an_svg_named_on_its_own(tmp_path: Path) -> None:
    """An artifact read as FigDown gives only noise ("<svg" is not a keyword ...): a named
    .svg is refused, pointing at its .fd and at read; nothing is written."""
    write(tmp_path / "figure.svg", "<svg/>")
    for command in ("check", "build"):
        run = figdown(command, "figure.svg", cwd=tmp_path)
        assert run.returncode == 2 and run.stdout == ""
        assert run.stderr == ("figdown: figure.svg is an SVG, not a FigDown document: name the .fd it was built "
                              "from (read gives back an artifact's source)\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["figure.svg"]


def test_read_refuses_a_directory_and_a_missing_file(tmp_path: Path) -> None:
    run = figdown("read", ".", cwd=tmp_path)
    assert run.returncode == 2 and "is a directory" in run.stderr
    run = figdown("read", "nope.fd", cwd=tmp_path)
    assert run.returncode == 2 and run.stderr == "figdown: nope.fd: no such file or directory\n"
    write(tmp_path / "figure.svg", "<svg/>")
    run = figdown("read", "figure.svg", cwd=tmp_path)
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr == ('figdown: figure.svg is an SVG with no <metadata id="figdown-source"> block — it was '
                          "not produced by FigDown, so there is no source to read. Never OCR the picture.\n")


# --- reference -------------------------------------------------------------------------


def test_reference_index_lists_every_genre_and_task(tmp_path: Path) -> None:
    run = figdown("reference", cwd=tmp_path)
    assert run.returncode == 0
    for word in ("block", "bitfield", "table", "topology", "flowchart", "statechart", "timing",
                 "sequence", "reading", "transcribe", "build", "skill"):
        assert f"\n  {word} " in run.stdout


def test_reference_of_a_genre_prints_its_files(tmp_path: Path) -> None:
    run = figdown("reference", "bitfield", cwd=tmp_path)
    assert run.returncode == 0
    assert "===== bitfield.md =====" in run.stdout
    assert "numbering=" in run.stdout


def test_reference_experimental_flag_adds_files(tmp_path: Path) -> None:
    plain = figdown("reference", "timing", cwd=tmp_path)
    assert plain.returncode == 0 and "===== timing.md" not in plain.stdout
    assert "experimental" in plain.stdout
    full = figdown("reference", "timing", "--experimental", cwd=tmp_path)
    assert "===== timing.md =====" in full.stdout


def test_reference_unknown_name_exits_2(tmp_path: Path) -> None:
    run = figdown("reference", "pie", cwd=tmp_path)
    assert run.returncode == 2
    assert run.stderr.startswith("figdown: unknown reference 'pie': genres are block, ")


def test_main_is_importable_and_returns_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from markmcp.figdown.cli import main

    write(tmp_path / "ok.fd", CLEAN)
    assert main(["check", str(tmp_path / "ok.fd")]) == 0
    assert main(["check", str(tmp_path / "absent.fd")]) == 2
    assert "no such file or directory" in capsys.readouterr().err


@pytest.mark.skipif(os.name != "posix", reason="needs symlinks")
def test_symlinked_directories_are_not_followed(tmp_path: Path) -> None:
    write(tmp_path / "d" / "real" / "one.fd", CLEAN)
    (tmp_path / "d" / "real" / "loop").symlink_to(tmp_path / "d", target_is_directory=True)
    (tmp_path / "d" / "alias").symlink_to(tmp_path / "d" / "real", target_is_directory=True)
    run = figdown("check", "--json", "d", cwd=tmp_path)
    assert run.returncode == 0
    assert [doc["label"] for doc in json.loads(run.stdout)["documents"]] == [os.path.join("d", "real", "one.fd")]


# --- nasty inputs: a clear message or a report, never a traceback -----------------------------


def test_stdin_is_read_as_bytes_like_a_file(tmp_path: Path) -> None:
    latin = subprocess.run([sys.executable, "-m", "markmcp.figdown.cli", "check", "-"], cwd=tmp_path,
                           input=b'figdown 0.1 block\nnode a "caf\xe9"\n', capture_output=True, timeout=60)
    assert latin.returncode == 2 and latin.stdout == b""
    assert latin.stderr == b"figdown: <stdin>: the document is not UTF-8 text (byte 0xe9 at offset 29, line 2)\n"
    # a lone CR is not a line end (core §1): stdin and a file give the same diagnostics
    lone_cr = b'figdown 0.1 block\rnode a "A"\r\n'
    (tmp_path / "cr.fd").write_bytes(lone_cr)
    from_file = subprocess.run([sys.executable, "-m", "markmcp.figdown.cli", "check", "cr.fd"], cwd=tmp_path,
                               capture_output=True, timeout=60)
    from_stdin = subprocess.run([sys.executable, "-m", "markmcp.figdown.cli", "check", "-"], cwd=tmp_path,
                                input=lone_cr, capture_output=True, timeout=60)
    assert from_file.returncode == from_stdin.returncode == 1
    assert from_stdin.stdout.split(b"\n")[1:] == from_file.stdout.split(b"\n")[1:]


@pytest.mark.skipif(sys.platform != "linux", reason="needs file names that are not UTF-8")
def test_a_file_name_that_is_not_utf8_is_shown_escaped(tmp_path: Path) -> None:
    write(tmp_path / "d" / os.fsdecode(b"caf\xe9.fd"), BROKEN)
    run = subprocess.run([sys.executable, "-m", "markmcp.figdown.cli", "check", "--json", "d"], cwd=tmp_path,
                         capture_output=True, timeout=60)
    assert run.returncode == 1, run.stderr
    report = json.loads(run.stdout.decode("utf-8"))  # strict: the output is valid UTF-8
    assert report["documents"][0]["label"] == os.path.join("d", "caf\\xe9.fd")
    text = figdown("check", "d", cwd=tmp_path)
    assert text.stdout.startswith("PARSE FAILED — 2 diagnostic(s) in d/caf\\xe9.fd\n")


def test_an_output_encoding_that_cannot_carry_the_text_escapes_it(tmp_path: Path) -> None:
    write(tmp_path / "bad.fd", BROKEN)
    run = subprocess.run([sys.executable, "-m", "markmcp.figdown.cli", "check", "bad.fd"], cwd=tmp_path,
                         capture_output=True, timeout=60, env={**os.environ, "PYTHONIOENCODING": "ascii"})
    assert run.returncode == 1
    assert run.stdout.startswith(b"PARSE FAILED \\u2014 2 diagnostic(s) in bad.fd\n")
    assert b"Traceback" not in run.stderr


@pytest.mark.parametrize("data", [
    b"\x00\x01\x02figdown 0.1 block\n",
    b'figdown 0.1 block\nnode a "\xef\xbf\xbe"\n',          # U+FFFE
    b"figdown 0.1 block\nnode a \"" + b"x" * 200_000 + b"\n",
    b"\xef\xbb\xbf",                                          # a BOM and nothing else
    b"figdown 0.1 block\n" + b"[" * 50_000,
])
def test_nasty_documents_give_a_report(tmp_path: Path, data: bytes) -> None:
    (tmp_path / "x.fd").write_bytes(data)
    run = figdown("check", "x.fd", cwd=tmp_path)
    assert run.returncode in (0, 1) and run.stderr == ""
    assert run.stdout.endswith(" with diagnostics\n")
    read = figdown("read", "x.fd", cwd=tmp_path)
    assert read.returncode == run.returncode and "Traceback" not in read.stderr


def test_a_reader_that_leaves_early_ends_the_run_quietly(tmp_path: Path) -> None:
    big = "figdown 0.1 block\n" + 'node a "A"\n' * 20_000   # ~20,000 diagnostics, far more than a pipe holds
    run = subprocess.Popen([sys.executable, "-m", "markmcp.figdown.cli", "check", "-"], cwd=tmp_path,
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert run.stdin is not None and run.stdout is not None and run.stderr is not None
    run.stdin.write(big.encode("utf-8"))
    run.stdin.close()
    assert run.stdout.readline().startswith("PARSE FAILED".encode("utf-8"))
    run.stdout.close()
    assert run.wait(timeout=60) == 0
    assert run.stderr.read() == b""


def test_a_named_path_that_cannot_be_read_checks_nothing(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """Exit 2 and nothing on stdout, even when readable documents come first (works as root too)."""
    from markmcp.figdown import cli

    write(tmp_path / "a.fd", BROKEN)
    os.mkfifo(tmp_path / "b.fd")
    assert cli.main(["check", str(tmp_path / "a.fd"), str(tmp_path / "b.fd")]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == f"figdown: {tmp_path / 'b.fd'} is a FIFO (named pipe), not a regular file; it is never read\n"


def test_a_walk_reports_what_it_cannot_read_and_goes_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """Only a folder that cannot be listed at all stops the run (works as root too)."""
    from markmcp.figdown import cli

    write(tmp_path / "d" / "a.fd", BROKEN)
    write(tmp_path / "d" / "b" / "x.fd", CLEAN)
    write(tmp_path / "d" / "c.fd", CLEAN)
    real = os.scandir

    def refuse(path: object) -> object:
        if os.fspath(path).endswith("b"):  # type: ignore[call-overload]
            raise PermissionError(13, "Permission denied")
        return real(path)  # type: ignore[call-overload]

    monkeypatch.setattr(os, "scandir", refuse)
    assert cli.main(["check", "--json", str(tmp_path / "d")]) == 1
    report = json.loads(capsys.readouterr().out)
    assert [doc["label"] for doc in report["documents"]] == [str(tmp_path / "d" / name) for name in ("a.fd", "b", "c.fd")]
    assert report["documents"][1]["problem"] == {
        "code": "io-error", "message": f"{tmp_path / 'd' / 'b'}: cannot list: Permission denied"}
    assert (report["checked"], report["clean"], report["withDiagnostics"], report["unreadable"]) == (3, 1, 1, 1)

    def refuse_all(path: object) -> object:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "scandir", refuse_all)
    assert cli.main(["check", str(tmp_path / "d")]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == f"figdown: {tmp_path / 'd'}: cannot list: Permission denied\n"


def test_a_command_given_too_many_arguments_shows_its_own_usage(tmp_path: Path) -> None:
    write(tmp_path / "a.fd", CLEAN)
    write(tmp_path / "b.fd", CLEAN)
    run = figdown("read", "a.fd", "b.fd", cwd=tmp_path)
    assert run.returncode == 2
    assert run.stdout == ""
    assert run.stderr.startswith("usage: figdown read ")
    assert "figdown read: error: unrecognized arguments: b.fd" in run.stderr
    run = figdown("reference", "block", "table", cwd=tmp_path)
    assert run.returncode == 2 and run.stderr.startswith("usage: figdown reference ")
    assert "unrecognized arguments: table" in run.stderr
    run = figdown("check", "a.fd", "--bogus", cwd=tmp_path)
    assert run.returncode == 2 and run.stderr.startswith("usage: figdown check ")
