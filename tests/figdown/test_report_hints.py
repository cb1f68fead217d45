"""Hints beside the engine's diagnostics: a name reported unknown because the line that
declares it failed points back at that line (the diagnostics stay word for word)."""

from __future__ import annotations

import subprocess
import sys

from markmcp.figdown import parse
from markmcp.figdown.report import check_report, diagnostics, hints


def hints_of(text: str) -> list[str]:
    return hints(text, diagnostics(parse(text)))


def test_a_failed_declaration_is_named_where_its_element_is_used() -> None:
    text = 'figdown 0.1 block\nnode r1 "Router" shape=router\nnode s1 "Switch"\nedge r1 -- s1\n'
    assert hints_of(text) == ['line 4 names "r1", which line 2 declares, but line 2 has a diagnostic '
                              "of its own and declared nothing: fix line 2 first"]


def test_no_hint_for_a_name_never_declared_or_declared_on_a_clean_line() -> None:
    assert hints_of('figdown 0.1 block\nnode a "A"\nedge a -> b\n') == []
    # line 3 fails for another reason; "a" is declared on line 2, which is clean
    assert hints_of('figdown 0.1 block\nnode a "A"\nedge a => zz\n') == []
    assert hints("", []) == []


def test_other_unknown_kinds_get_the_hint_too() -> None:
    text = ('figdown 0.4 sequence\nlifeline a "A"\nlifeline b "B"\nfragment f "retry"\n'
            'operand o "again" in=f\nmessage a -> b "x" in=o\n')
    found = hints_of(text)
    assert len(found) == 1 and found[0].startswith('line 5 names "f", which line 4 declares')


def test_check_report_carries_hints_only_when_there_are_some() -> None:
    report = check_report("x.fd", 'figdown 0.1 block\nnode a "A\nnode b "B"\nedge a -> b\n')
    assert report["hints"] and report["stage"] == "parse"
    assert "hints" not in check_report("y.fd", 'figdown 0.1 block\nnode a "A"\n')


def test_the_command_line_prints_the_hint_after_the_diagnostics(tmp_path) -> None:
    (tmp_path / "x.fd").write_text('figdown 0.1 block\nnode a "A\nnode b "B"\nedge a -> b\n', encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "markmcp.figdown.cli", "check", "x.fd"],
                         cwd=tmp_path, capture_output=True, text=True)
    lines = run.stdout.split("\n")
    assert run.returncode == 1
    assert lines[1:4] == ["Line 2: unterminated string", 'Line 4: unknown endpoint "a"',
                          'hint: line 4 names "a", which line 2 declares, but line 2 has a diagnostic of its '
                          "own and declared nothing: fix line 2 first"]
