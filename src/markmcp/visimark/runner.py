"""What each ``visimark`` subcommand does, once its arguments are checked
(:func:`markmcp.visimark.command_line.parse_args`): :class:`Runner` reads the files,
runs the engine and prints.  Imported by :mod:`.cli` only after the command line parsed.
"""

from __future__ import annotations

import sys

from markmcp import __version__
from markmcp.textsafe import escape_controls

from .builtins import REGISTRY
from .check import check
from .command_line import USAGE, Args
from .disk import DocumentFolder
from .documents import DocumentError, read_document, read_stream, write_document
from .envelopes import CommandError, eval_body, eval_units, eval_values, params_block, pick, uncomputed, uncomputed_text
from .findings import count
from .model import build
from .report import findings_json, format_check
from .suggest import closest
from .units import format_unit
from .write import fmt


class Runner:
    """Runs one command, collecting stdout and stderr lines.

    ``out`` and ``err`` take human text: control characters from a document or a file
    name are escaped there (the newline is the report's own line break, so a path is
    escaped whole with :func:`label` before it is formatted).  JSON goes to ``raw_out``
    unchanged, so every value stays exact.
    """

    def __init__(self, out, err, raw_out=None) -> None:
        self.raw_out = raw_out or out
        self.out = lambda text: out(escape_controls(text, keep="\n"))
        self.err = lambda text: err(escape_controls(text, keep="\n"))

    def emit_json(self, obj: dict) -> None:
        import json  # only --json needs it

        self.raw_out(json.dumps(obj, indent=2, ensure_ascii=False))

    def envelope(self, command: str, status: str, **body) -> dict:
        return {"command": command, "visimark": __version__, "status": status, **body}

    def error_envelope(self, command: str, code: str, message: str, **body) -> dict:
        return self.envelope(command, "error", error={"code": code, "message": message}, **body)

    def refuse(self, command: str, code: str, message: str, as_json: bool) -> int:
        """Tell ``message`` on stderr (and, with ``--json``, as an error envelope); exit 2."""
        self.err(message)
        if as_json:
            self.emit_json(self.error_envelope(command, code, message))
        return 2

    @staticmethod
    def status(exit_code: int) -> str:
        return {0: "ok", 1: "problems"}.get(exit_code, "error")

    def read(self, path: str) -> str | None:
        """The document's text, or None with ``last_read_error`` set.  Reads go through the
        guarded file access: a FIFO or device is refused without blocking, a file over the
        size limit unread."""
        try:
            return read_document(path)
        except DocumentError as e:
            self.last_read_error = e.message
            return None

    # ---------------------------------------------------------------- check

    def check(self, a: Args) -> int:
        as_json = "--json" in a.flags
        if not a.files:
            return self.usage(a.command, as_json)
        entries: list[dict] = []
        exit_code = 0
        totals = [0, 0, 0]
        for path in a.files:
            src = self.read(path)
            if src is None:
                self.err(self.last_read_error)
                entries.append({"path": path, "error": {"code": "READ", "message": self.last_read_error}})
                exit_code = 2
                totals[0] += 1  # a file that could not be read is an error of the run: count it
                totals[2] += 1
                continue
            result = check(build(src), DocumentFolder(path))
            if as_json:
                stale, errors = count(result.findings)
                entries.append({"path": path, "findings": findings_json(result.findings, path, src),
                                "summary": {"problems": stale + errors, "stale": stale, "errors": errors}})
                totals = [totals[0] + stale + errors, totals[1] + stale, totals[2] + errors]
            else:
                self.out(format_check(label(path), result.findings))
            if result.exit_code == 1 and exit_code == 0:
                exit_code = 1
        if as_json:
            self.emit_json(self.envelope("check", self.status(exit_code), files=entries,
                                         summary={"files": len(a.files), "problems": totals[0],
                                                  "stale": totals[1], "errors": totals[2]}))
        return exit_code

    def read_single(self, a: Args, as_json: bool) -> tuple[str, str] | int:
        """The one FILE of ``eval``/``explain`` and its text, or the exit code after
        reporting a missing argument (usage) or an unreadable file (READ, exit 2)."""
        if not a.files:
            return self.usage(a.command, as_json)
        path = a.files[0]
        src = self.read(path)
        if src is None:
            return self.refuse(a.command, "READ", self.last_read_error, as_json)
        return path, src

    def usage(self, command: str, as_json: bool) -> int:
        return self.refuse(command, "USAGE", USAGE[command], as_json)

    # ------------------------------------------------------------------ fmt

    def fmt(self, a: Args) -> int:
        as_json = "--json" in a.flags
        if not a.files:
            return self.usage(a.command, as_json)
        entries: list[dict] = []
        exit_code = 0
        fix_units = "--fix-units" in a.flags
        # `unitsFixed` is reported only when --fix-units was asked for, so the envelope of a
        # plain `fmt` keeps exactly the keys of the structured-output spec
        summary: dict = {"files": len(a.files), "filesChanged": 0, "cellsUpdated": 0, "anchorsUpdated": 0,
                         "datesFixed": 0, **({"unitsFixed": 0} if fix_units else {}), "artifacts": 0,
                         "artifactsSkipped": 0, "problems": 0, "stale": 0, "errors": 0}
        for path in a.files:
            src = self.read(path)
            if src is None:
                self.err(self.last_read_error)
                entries.append({"path": path, "error": {"code": "READ", "message": self.last_read_error}})
                exit_code = 2
                continue
            r = fmt(src, fix_dates="--fix-dates" in a.flags, fix_units=fix_units, files=DocumentFolder(path),
                    artifacts="--no-artifacts" not in a.flags)
            if r.write_error is not None:
                msg = f"visimark: cannot write {r.write_error[0]} ({r.write_error[1]})"
                self.err(msg)
                entries.append({"path": path, "error": {"code": "WRITE", "message": msg}})
                exit_code = 2
                continue
            if r.changed:
                try:
                    write_document(path, r.output)
                except DocumentError as e:
                    self.err(e.message)
                    entries.append({"path": path, "error": {"code": "WRITE", "message": e.message}})
                    exit_code = 2
                    continue
            problems = [f for f in r.unfixable if f.is_problem]
            if problems and exit_code == 0:
                exit_code = 1
            if as_json:
                stale, errors = count(r.unfixable)
                entry = {"path": path, "changed": r.changed, "cellsUpdated": r.cells_updated,
                         "anchorsUpdated": r.anchors_updated, "datesFixed": r.dates_fixed}
                if fix_units:
                    entry["unitsFixed"] = r.units_fixed
                entry.update(artifacts=[{"path": x} for x in r.artifacts], artifactsSkipped=r.artifacts_skipped,
                             findings=findings_json(r.unfixable, path, r.checked))
                entries.append(entry)
                summary["filesChanged"] += int(r.changed)
                summary["cellsUpdated"] += r.cells_updated
                summary["anchorsUpdated"] += r.anchors_updated
                summary["datesFixed"] += r.dates_fixed
                summary["artifacts"] += len(r.artifacts)
                summary["artifactsSkipped"] += r.artifacts_skipped
                if fix_units:
                    summary["unitsFixed"] += r.units_fixed
                summary["problems"] += stale + errors
                summary["stale"] += stale
                summary["errors"] += errors
            else:
                skipped = f"{_plural(r.artifacts_skipped, 'artifact')} skipped" if r.artifacts_skipped else ""
                if r.changed or r.artifacts:
                    bits = [_plural(r.cells_updated, "cell"), _plural(r.anchors_updated, "anchor"),
                            _plural(r.dates_fixed, "date"), _plural(r.units_fixed, "unit"),
                            _plural(r.stamps_updated, "stamp"),
                            _plural(len(r.artifacts), "artifact"), skipped]
                    self.out(f"{label(path)}: updated {', '.join(b for b in bits if b)}")
                else:
                    self.out(f"{label(path)}: unchanged" + (f", {skipped}" if skipped else ""))
                if r.unfixable:
                    self.out(format_check(label(path), r.unfixable))
        if as_json:
            self.emit_json(self.envelope("fmt", self.status(exit_code), files=entries, summary=summary))
        return exit_code

    # ---------------------------------------------------------------- infer

    def infer(self, a: Args) -> int:
        """Propose rules for each file; with ``--write``, insert exactly what was proposed.
        Advisory: exit 0 whatever it finds, 2 when a file cannot be read or written."""
        from .infer import apply as apply_inserts
        from .infer import infer as run_infer
        from .infer import not_written, plan
        from .infer_report import file_json, format_infer

        as_json = "--json" in a.flags
        write = "--write" in a.flags
        if not a.files:
            return self.usage(a.command, as_json)
        entries: list[dict] = []
        totals = {"rules": 0, "scalars": 0, "anchors": 0}
        exit_code = 0
        first = True
        for path in a.files:
            src = self.read(path)
            if src is None:
                self.err(self.last_read_error)
                entries.append({"path": path, "error": {"code": "READ", "message": self.last_read_error}})
                exit_code = 2
                continue
            inference = run_infer(src)
            counts = inference.count()
            for key in totals:
                totals[key] += counts[key]
            entry = file_json(path, inference)
            if not as_json:
                if not first:
                    self.out("")
                self.out(format_infer(label(path), inference))
            first = False
            if write:
                inserts = plan(inference)
                written = {"blocks": sum(1 for i in inserts if i.kind == "block"),
                           "anchors": sum(1 for i in inserts if i.kind == "anchor"),
                           "marker": any(i.kind == "marker" for i in inserts)}
                if inserts:
                    try:
                        write_document(path, apply_inserts(src, inserts))
                    except DocumentError as e:
                        self.err(e.message)
                        entry["error"] = {"code": "WRITE", "message": e.message}
                        entries.append(entry)
                        exit_code = 2
                        continue
                entry["written"] = written
                entry["notWritten"] = not_written(inference, inserts)
                if not as_json:
                    self.out(_written_line(label(path), written))
            entries.append(entry)
        if as_json:
            self.emit_json(self.envelope("infer", self.status(exit_code), files=entries,
                                         summary={"files": len(a.files), **totals}))
        return exit_code

    # ----------------------------------------------------------------- eval

    def eval(self, a: Args) -> int:
        as_json = "--json" in a.flags
        opened = self.read_single(a, as_json)
        if isinstance(opened, int):
            return opened
        path, src = opened
        model = build(src)
        scenario_info = None
        if "--scenario" in a.options:
            from .scenario import ScenarioError, apply_scenario

            name = a.options["--scenario"]
            try:
                if name == "-":
                    text = read_stream(sys.stdin)
                else:
                    text = read_document(name, what="scenario", code="SCENARIO")
            except DocumentError as e:
                msg = e.message.replace("cannot read ", "cannot read scenario ", 1)
                return self.refuse("eval", "SCENARIO", msg, as_json)
            try:
                scenario_info = apply_scenario(model, text, name)
            except ScenarioError as e:
                return self.refuse("eval", "SCENARIO", str(e), as_json)
        result = check(model, DocumentFolder(path))
        values = eval_values(result)
        failed = [x for x in result.assertions if x.holds is False]
        exit_code = 1 if failed else 0
        defaults_holds: list[bool | None] | None = None
        if scenario_info is not None and failed:
            base = check(build(src), DocumentFolder(path))
            defaults_holds = [x.holds for x in base.assertions]
        get = a.options.get("--get")
        if get is not None:
            try:
                key = pick(values, uncomputed(model, result), get)
            except CommandError as e:
                return self.refuse("eval", e.code, label(e.message), as_json)
            selected = {get: values[key]}
        else:
            selected = values
        if as_json:
            body = eval_body(path, model, result, scenario_info, values, selected,
                             key if get is not None else None, defaults_holds)
            self.emit_json(self.envelope("eval", self.status(exit_code), **body))
            return exit_code
        units = eval_units(result)
        if get is not None:
            v = selected[get]
            self.out(", ".join("?" if x is None else x for x in v) if isinstance(v, list) else v)
        else:
            labels = {k: k + (f" [{format_unit(units[k])}]" if k in units else "") for k in values}
            width = max((len(x) for x in labels.values()), default=0)
            for k, v in values.items():
                shown = ", ".join("?" if x is None else x for x in v) if isinstance(v, list) else v
                self.out(f"{labels[k].ljust(width)}  {shown}")
            if scenario_info is not None:
                self.out(f"scenario: {label(scenario_info['file'])}")
                rows = scenario_info["params"]
                name_w = max((len(pid) for pid in rows), default=0)
                value_w = max((len(v[0]) for v in rows.values()), default=0)
                for pid, (value, default, source) in rows.items():
                    tail = f"scenario  (default {default})" if source == "scenario" else "default"
                    self.out(f"  {pid.ljust(name_w)}  {value.ljust(value_w)}  {tail}")
            for line in params_block(model):
                self.out(line)
            for k, entry in uncomputed(model, result).items():
                self.err("visimark: " + label(uncomputed_text(k, entry)))
        for i, x in enumerate(result.assertions):
            if x.holds is not False:
                continue
            self.err(f"  ASSERT  #{x.sheet}   {x.source[len('assert'):].strip()}")
            verdict = "is false"
            if defaults_holds is not None:
                d = defaults_holds[i] if i < len(defaults_holds) else None
                verdict += " under scenario (" + {True: "holds", False: "also false"}.get(d, "unverified") + " on defaults)"
            self.err(f"          {x.substituted}   {verdict}")
        return exit_code

    # -------------------------------------------------------------- explain

    def explain(self, a: Args) -> int:
        as_json = "--json" in a.flags
        opened = self.read_single(a, as_json)
        if isinstance(opened, int):
            return opened
        path, src = opened
        model = build(src)
        for s in a.sheets:
            if s not in model.sheets:
                guess = closest(s, model.sheets)
                msg = f"visimark: no sheet #{label(s)}" + (f" — did you mean `#{guess}`?" if guess else "")
                return self.refuse("explain", "USAGE", msg, as_json)
        result = check(model, DocumentFolder(path))
        from .explain import explain_json, explain_text

        if as_json:
            self.emit_json(self.envelope("explain", "ok", file=path, **explain_json(model, result, a.sheets)))
        else:
            self.out(explain_text(model, result, a.sheets) or f"{path}: nothing to explain: no `vmark` block "
                     "and no document-scope rule (a sheet is a table with a `vmark #name` block under it)")
        return 0

    # ------------------------------------------------------------------ ref

    def ref(self, a: Args) -> int:
        as_json = "--json" in a.flags
        from .reference import describe, entry_json, listing

        if not a.files:
            if as_json:
                self.emit_json({"command": "ref", "visimark": __version__, "status": "ok",
                                "functions": [entry_json(b) for b in REGISTRY.values()]})
            else:
                self.out(listing())
            return 0
        name = a.files[0]  # names are upper case; `floor` is refused like any unknown name
        spec = REGISTRY.get(name)
        if spec is None:
            guess = name.upper() if name.upper() in REGISTRY else closest(name.upper(), REGISTRY, 3)
            msg = f"visimark: unknown function `{label(name)}`" + (f" — did you mean `{guess}`?" if guess else "")
            self.err(msg)
            if as_json:
                self.emit_json({"command": "ref", "visimark": __version__, "status": "error",
                                "error": {"code": "USAGE", "message": msg}})
            return 2
        if as_json:
            self.emit_json({"command": "ref", "visimark": __version__, "status": "ok", "function": entry_json(spec)})
        else:
            self.out(describe(spec))
        return 0


    # -------------------------------------------------------------- simulate

    def simulate(self, a: Args) -> int:
        from .simulate import run_simulate

        as_json = "--json" in a.flags
        if not a.files:
            return self.usage(a.command, as_json)
        code, body = run_simulate(a.files, self.read_for_simulate, DocumentFolder, self.out, self.err,
                                  fail_on_fault="--fail-on-fault" in a.flags, progress="--progress" in a.flags,
                                  as_json=as_json)
        if as_json:
            self.emit_json(self.envelope("simulate", self.status(code), **body))
        return code

    def read_for_simulate(self, path: str) -> str | None:
        src = self.read(path)
        if src is None:
            self.err(self.last_read_error)
        return src


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' if n != 1 else ''}" if n else ""


def _written_line(path: str, written: dict) -> str:
    if written["marker"]:
        return f"{path}: wrote the no-formulas marker (infer found nothing to derive)"
    if not written["blocks"] and not written["anchors"]:
        return f"{path}: nothing to write"
    return f"{path}: wrote {_plural(written['blocks'], 'block') or '0 blocks'}, " \
           f"{_plural(written['anchors'], 'anchor') or '0 anchors'}"


def label(path: str) -> str:
    """A file argument as human output shows it: every control character escaped (a
    newline in a file name must not start a line of the report)."""
    return escape_controls(path)
