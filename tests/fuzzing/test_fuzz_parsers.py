"""Fuzzing each parser, CI-sized (Hypothesis; derandomized in CI by tests/conftest.py).

Edited corpus documents and random text go into each engine's entry point (see
``tests/fuzz_targets.py``); any exception other than the engine's documented error type
is a crash and fails the test, with the shrunk input.  ``make fuzz`` runs the same
targets for a million inputs each (``bench/fuzz.py``).
"""

from __future__ import annotations

import random
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fuzz_targets
from conftest import shared_dir
from fuzz_targets import TARGETS, mutate_data, parsed_seed_data

from .strategies import documents

FUZZ = settings(
    max_examples=250,
    deadline=timedelta(seconds=10),  # a hang or a blow-up, not a slow machine
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@pytest.fixture(scope="module")
def shared() -> Path:
    return shared_dir()


def _seeds(name: str, shared: Path) -> list[str]:
    seeds = TARGETS[name].seeds(shared)
    assert len(seeds) >= 5, f"too few {name} corpus documents under {shared}"
    return seeds


@pytest.fixture(scope="module")
def figdown_seeds(shared: Path) -> list[str]:
    return _seeds("figdown", shared)


@pytest.fixture(scope="module")
def visimark_seeds(shared: Path) -> list[str]:
    return _seeds("visimark", shared)


@pytest.fixture(scope="module")
def mrsf_seeds(shared: Path) -> list[str]:
    return _seeds("mrsf", shared)


@pytest.fixture(scope="module")
def mrsf_documents(shared: Path) -> list[str]:
    return TARGETS["mrsf"].contexts(shared)


@pytest.fixture(scope="module")
def mrsf_data(mrsf_seeds: list[str]) -> list[Any]:
    return parsed_seed_data(mrsf_seeds)


@settings(FUZZ, max_examples=150)
@given(data=st.data())
def test_figdown_parse_never_crashes(figdown_seeds: list[str], data: Any) -> None:
    fuzz_targets.run_figdown(data.draw(documents(figdown_seeds, fuzz_targets.ALPHABETS["figdown"])))


@settings(FUZZ, max_examples=80)
@given(data=st.data())
def test_figdown_render_never_crashes(figdown_seeds: list[str], data: Any) -> None:
    fuzz_targets.run_figdown_render(data.draw(documents(figdown_seeds, fuzz_targets.ALPHABETS["figdown"])))


@settings(FUZZ, max_examples=120)
@given(data=st.data())
def test_visimark_check_never_crashes(visimark_seeds: list[str], data: Any) -> None:
    fuzz_targets.run_visimark(data.draw(documents(visimark_seeds, fuzz_targets.ALPHABETS["visimark"])))


@settings(FUZZ, max_examples=120)
@given(data=st.data())
def test_mrsf_parse_and_validate_never_crash(mrsf_seeds: list[str], mrsf_documents: list[str], data: Any) -> None:
    text = data.draw(documents(mrsf_seeds, fuzz_targets.ALPHABETS["mrsf"]))
    fuzz_targets.run_mrsf(text, data.draw(st.sampled_from([None, *mrsf_documents])))


@FUZZ
@given(data=st.data())
def test_mrsf_validator_never_crashes_on_odd_data(mrsf_data: list[Any], mrsf_documents: list[str], data: Any) -> None:
    seed = data.draw(st.sampled_from(mrsf_data))
    mutated = mutate_data(seed, random.Random(data.draw(st.integers(0, 1 << 32))), data.draw(st.integers(1, 6)))
    fuzz_targets.run_mrsf_validate(mutated, data.draw(st.sampled_from([None, *mrsf_documents])))
