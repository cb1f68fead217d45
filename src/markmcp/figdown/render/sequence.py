"""The sequence ladder (placeholder)."""

from __future__ import annotations

from .page import Block


def render(model: dict, classes: dict, y0: float) -> Block:
    return Block("", y0, 0.0)
