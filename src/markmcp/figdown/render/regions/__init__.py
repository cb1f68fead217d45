"""Typed regions: bitfield, table, timing and the experimental chart."""

from __future__ import annotations

from ..page import Block


def render(region: dict, model: dict, classes: dict, y0: float, prefix: str = "") -> Block:
    return Block("", y0, 0.0)
