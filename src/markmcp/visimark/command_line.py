"""The ``visimark`` command line as data: its commands, options, usage texts, and the
check of a subcommand's arguments (:func:`parse_args`), before anything is read.

Standard library only (and the did-you-mean of :mod:`.suggest`), so ``visimark --help``
and a usage error load no engine.  :mod:`.cli` runs the command through :mod:`.runner`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .suggest import closest

COMMANDS = ("check", "fmt", "infer", "eval", "explain", "ref", "simulate")
OUT_OF_SCOPE: tuple[str, ...] = ()
FLAGS = {
    "check": {"--json"},
    "fmt": {"--json", "--fix-dates", "--fix-units", "--no-artifacts"},
    "infer": {"--json", "--write"},
    "eval": {"--json"},
    "explain": {"--json"},
    "ref": {"--json"},
    "simulate": {"--json", "--fail-on-fault", "--progress"},
}
VALUED = {"eval": {"--get", "--scenario"}}
ALL_OPTIONS = {"--json": "check", "--fix-dates": "fmt", "--fix-units": "fmt", "--get": "eval",
               "--scenario": "eval", "--write": "infer", "--no-artifacts": "fmt", "--fail-on-fault": "simulate",
               "--progress": "simulate"}
USAGE = {
    "check": "usage: visimark check FILE... [--json]",
    "fmt": "usage: visimark fmt FILE... [--fix-dates] [--fix-units] [--no-artifacts] [--json]",
    "infer": "usage: visimark infer FILE... [--write] [--json]",
    "eval": "usage: visimark eval FILE [--get NAME] [--scenario FILE|-] [--json]",
    "explain": "usage: visimark explain FILE [#sheet...] [--json]",
    "ref": "usage: visimark ref [NAME] [--json]",
    "simulate": "usage: visimark simulate FILE... [--fail-on-fault] [--progress] [--json]",
}
HELP = """visimark — Markdown whose numbers are proven

usage:
  visimark check   FILE... [--json]                  recompute everything; exit 1 on any problem
  visimark fmt     FILE... [--fix-dates] [--fix-units] [--no-artifacts] [--json]
                                                     splice recomputed values back in place,
                                                     write stale chart artifacts
  visimark infer   FILE... [--write] [--json]        propose the rules a plain document's numbers follow
  visimark eval    FILE [--get NAME] [--scenario FILE|-] [--json]
                                                     print computed values
  visimark explain FILE [#sheet...] [--json]         show each sheet's inputs, rules and order
  visimark ref     [NAME] [--json]                   describe a builtin function
  visimark simulate FILE... [--fail-on-fault] [--progress] [--json]
                                                     ask every question the lattices declare; print the reports
  visimark --version | --help

exit codes: 0 nothing to fix, 1 the document has problems, 2 the command could not run"""


EXIT_CODES = "exit codes: 0 nothing to fix, 1 the document has problems, 2 the command could not run"
OPTION_HELP = {
    "--json": "print one JSON envelope instead of text",
    "--fix-dates": "also rewrite dates to the form the document's rules use",
    "--fix-units": "also rewrite unit spellings to the declared ones",
    "--no-artifacts": "leave chart artifacts (SVG files) unwritten",
    "--write": "insert what was proposed (only insertions; no byte is rewritten)",
    "--get": "print the one value NAME (sheet.name, or name when it is unique)",
    "--scenario": "evaluate with these inputs overridden (a JSON file, or - for stdin)",
    "--fail-on-fault": "exit 1 when a report finds a fault",
    "--progress": "report progress on stderr",
}


WHAT = {
    "check": "Recompute every rule, anchor and import of each FILE and report what disagrees; writes nothing.",
    "fmt": "Splice the recomputed values back into each FILE in place (cells, anchors, imported tables) and "
           "write stale chart artifacts.",
    "infer": "Propose the rules a plain document's numbers already follow; with --write, insert them.",
    "eval": "Print the computed values of FILE.",
    "explain": "Show each sheet's inputs, rules and evaluation order.",
    "ref": "Describe a builtin function, or list them all without NAME.",
    "simulate": "Ask every question the document's lattices declare and print the reports.",
}


def command_help(command: str) -> str:
    """``visimark COMMAND --help``: the command's usage, what it does, its options and the
    exit codes."""
    options = sorted(FLAGS[command] | VALUED.get(command, set()))
    return "\n".join([USAGE[command], "", WHAT[command], "", "options:",
                      *(f"  {name:<16} {OPTION_HELP[name]}" for name in options),
                      "  --help, -h       print this help", "", EXIT_CODES])


class Usage(Exception):
    """A refused invocation; the message is the stderr line."""


@dataclass
class Args:
    command: str
    files: list[str] = field(default_factory=list)
    flags: set[str] = field(default_factory=set)
    options: dict[str, str] = field(default_factory=dict)
    sheets: list[str] = field(default_factory=list)


def parse_args(command: str, argv: list[str]) -> Args:
    """Validate every argument before anything is read."""
    args = Args(command)
    allowed = FLAGS[command] | VALUED.get(command, set())
    i = 0
    while i < len(argv):
        a = argv[i]
        if a.startswith("--"):
            name, eq, value = a.partition("=")
            if name not in allowed:
                if name in ALL_OPTIONS:
                    owner = ALL_OPTIONS[name]
                    raise Usage(f"visimark: {name} is only valid with {owner}")
                guess = closest(name, sorted(allowed), 3)
                hint = f" — did you mean `{guess}`?" if guess else ""
                raise Usage(f"visimark: unknown option {name}{hint}")
            if name in VALUED.get(command, set()):
                if not eq:
                    i += 1
                    if i >= len(argv):
                        raise Usage(f"visimark: {name} needs a value")
                    value = argv[i]
                if name in args.options:
                    raise Usage(f"visimark: {name} given twice")
                args.options[name] = value
            else:
                if eq:
                    raise Usage(f"visimark: {name} takes no value")
                args.flags.add(name)
        elif a.startswith("-") and a != "-":
            raise Usage(f"visimark: unknown option {a}")
        elif command == "explain" and a.startswith("#"):
            args.sheets.append(a[1:])
        else:
            args.files.append(a)
        i += 1
    if command in ("eval", "explain") and len(args.files) > 1:
        raise Usage(f"visimark: {command} takes one FILE, not {len(args.files)}")
    if command == "ref" and len(args.files) > 1:
        raise Usage("visimark: ref takes at most one NAME")
    return args
