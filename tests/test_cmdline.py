"""The command-line plumbing every markmcp command shares (``markmcp.cmdline``)."""

from __future__ import annotations

import argparse
import io
import os
import sys

import pytest

from markmcp.cmdline import USAGE, CommandParser, arguments, leave_stdout, parse


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tool", allow_abbrev=False)
    parser.add_argument("--version", action="version", version="tool 1.2")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=CommandParser)
    run = commands.add_parser("run")
    run.add_argument("file")
    return parser


def test_parse_returns_the_namespace_or_the_exit_code_argparse_chose(capsys) -> None:
    parser = _parser()
    options = parse(parser.parse_args, ["run", "a.md"])
    assert isinstance(options, argparse.Namespace) and (options.command, options.file) == ("run", "a.md")
    assert parse(parser.parse_args, ["--version"]) == 0
    assert capsys.readouterr().out == "tool 1.2\n"
    assert parse(parser.parse_args, ["--help"]) == 0
    assert capsys.readouterr().out.startswith("usage: tool ")
    assert parse(parser.parse_args, ["walk"]) == USAGE == 2
    assert "tool: error: argument command: invalid choice: 'walk'" in capsys.readouterr().err


def test_parse_reads_the_process_arguments_when_given_none(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "argv", ["tool", "run", "b.md"])
    assert arguments(None) == ["run", "b.md"]
    assert arguments(("x",)) == ["x"]
    seen = []
    assert parse(lambda words: seen.append(words) or "parsed", None) == "parsed"
    assert seen == [["run", "b.md"]]


def test_a_subcommand_reports_an_extra_argument_with_its_own_usage(capsys) -> None:
    assert parse(_parser().parse_args, ["run", "a.md", "b.md"]) == 2
    shown = capsys.readouterr().err
    assert shown.startswith("usage: tool run [-h] file\n")
    assert shown.endswith("tool run: error: unrecognized arguments: b.md\n")


def test_leave_stdout_sends_what_is_still_written_to_devnull(monkeypatch: pytest.MonkeyPatch) -> None:
    reader, writer = os.pipe()
    stdout = os.fdopen(writer, "w")
    monkeypatch.setattr(sys, "stdout", stdout)
    leave_stdout()
    os.write(writer, b"left over")  # now /dev/null: nothing reaches the pipe
    stdout.close()
    with os.fdopen(reader, "rb") as pipe:
        assert pipe.read() == b""


def test_leave_stdout_without_a_file_descriptor_does_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    leave_stdout()
