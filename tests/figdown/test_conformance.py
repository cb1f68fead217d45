"""The FigDown conformance corpus, judged the way upstream's runner judges it.

For every ``<corpus>/NNN-name.fd``:

* if parsing reports diagnostics: the sorted ``Line N: message`` lines, each
  followed by LF, must equal ``NNN-name.errors.txt`` byte for byte (and no
  ``.model.json`` may exist);
* otherwise the canonical §12 model (``{"sections": [...]}`` for several
  sections; indent 2, non-ASCII unescaped, one trailing LF) must equal
  ``NNN-name.model.json`` byte for byte (and no ``.errors.txt`` may exist).

A clean case that also has ``NNN-name.geometry.txt`` pins diagnostics that
only the RENDERER produces (geometry-time checks; upstream compares them after
the model): rendering it must give exactly those ``Line N: message`` lines.
Every other clean case must render with no diagnostic at all — a geometry
refusal the corpus does not pin is a false positive.

``cases/`` is the normative corpus, ``experimental/`` the experimental one;
the tally line at the end of the run reports each separately, with the cases
that wait for the renderer counted on their own.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from markmcp.figdown import model_json, parse
from markmcp.figdown.render import render
from conftest import SHARED, print_after_summary, shared_dir

CORPORA = ("cases", "experimental")

#: corpus -> [passed, run, of which geometry cases]
TALLY: dict[str, list[int]] = {"cases": [0, 0, 0], "experimental": [0, 0, 0]}


def _case_ids(corpus: str) -> list[str]:
    folder = SHARED / "figdown" / "conformance" / corpus
    if not folder.is_dir():
        return [f"{corpus}/<corpus missing>"]
    return [f"{corpus}/{p.stem}" for p in sorted(folder.glob("*.fd"))]


ALL_CASES = [c for corpus in CORPORA for c in _case_ids(corpus)]


def judge(fd: Path) -> tuple[bool, str]:
    """Upstream's verdict on one case: (passed, explanation)."""
    src = fd.read_bytes().decode("utf-8")
    errors_path = fd.with_suffix(".errors.txt")
    model_path = fd.with_suffix(".model.json")
    result = parse(src)
    if result.diagnostics:
        actual = "\n".join(result.error_lines()) + "\n"
        if model_path.exists():
            return False, f"case errors but {model_path.name} exists:\n{actual}"
        if not errors_path.exists():
            return False, f"missing golden {errors_path.name}; actual errors:\n{actual}"
        expected = errors_path.read_text(encoding="utf-8")
        return expected == actual, f"--- expected\n{expected}--- actual\n{actual}"
    actual = model_json(result)
    if errors_path.exists():
        return False, f"case parses clean but {errors_path.name} exists"
    if not model_path.exists():
        return False, f"missing golden {model_path.name}"
    expected = model_path.read_text(encoding="utf-8")
    if expected != actual:
        return False, f"--- expected\n{expected}--- actual\n{actual}"
    return judge_geometry(fd, result)


def judge_geometry(fd: Path, result) -> tuple[bool, str]:
    """The renderer's verdict: the pinned geometry diagnostics, or none at all."""
    picture = render(result)
    actual = "".join(line + "\n" for line in picture.error_lines())
    geometry_path = fd.with_suffix(".geometry.txt")
    expected = geometry_path.read_text(encoding="utf-8") if geometry_path.exists() else ""
    if expected != actual:
        return False, f"--- expected geometry\n{expected}--- actual geometry\n{actual}"
    if not expected and picture.svg is None:
        return False, "a clean case drew nothing"
    return True, ""


@pytest.mark.parametrize("case", ALL_CASES)
def test_case(case: str) -> None:
    corpus, name = case.split("/", 1)
    folder = shared_dir("figdown", "conformance", corpus)
    fd = folder / f"{name}.fd"
    assert fd.exists(), f"no such case {fd}"
    TALLY[corpus][1] += 1
    passed, why = judge(fd)
    assert passed, why
    if fd.with_suffix(".geometry.txt").exists():
        TALLY[corpus][2] += 1
    TALLY[corpus][0] += 1


def test_the_geometry_cases_are_the_three_refusals() -> None:
    """The geometry goldens are exactly the three renderer refusals, each parsing clean."""
    waiting = []
    for corpus in CORPORA:
        for geometry in sorted(shared_dir("figdown", "conformance", corpus).glob("*.geometry.txt")):
            fd = geometry.with_name(geometry.name.replace(".geometry.txt", ".fd"))
            assert parse(fd.read_bytes().decode("utf-8")).ok, fd.name
            waiting.append(f"{corpus}/{fd.stem}")
    assert waiting == [
        "cases/369-pin-complete-cover-refused",
        "experimental/958-bundle-lasso-encloses-pinned",
        "experimental/959-bundle-lasso-encloses-auto",
    ]


def test_corpus_is_complete() -> None:
    """The corpus has the size the targets are stated against."""
    for corpus, size in (("cases", 204), ("experimental", 84)):
        folder = shared_dir("figdown", "conformance", corpus)
        assert len(list(folder.glob("*.fd"))) == size


def tally_line() -> str:
    """``normative P/N, experimental P/N`` over the cases run (geometry cases among them)."""
    parts = []
    for corpus, name in (("cases", "normative"), ("experimental", "experimental")):
        passed, run, geometry = TALLY[corpus]
        part = f"{name} {passed}/{run}"
        if geometry:
            part += f" ({geometry} judged on geometry)"
        parts.append(part)
    return "FigDown conformance: " + ", ".join(parts)


@pytest.fixture(scope="module", autouse=True)
def _report_tally(request):
    """Print the tally line once the run is over (counted in one process: make test hands
    out whole files to its pytest-xdist workers)."""
    yield
    print_after_summary(request.config, "figdown-conformance", tally_line())
