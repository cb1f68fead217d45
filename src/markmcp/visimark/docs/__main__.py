"""Regenerate the served skill: ``python -m markmcp.visimark.docs`` (writes skill-mcp.md)."""

from __future__ import annotations

from pathlib import Path

from markmcp.visimark.docs import SERVED_SKILL, served_skill

if __name__ == "__main__":
    target = Path(__file__).resolve().parent / SERVED_SKILL
    target.write_text(served_skill(), encoding="utf-8")
    print(f"wrote {target}")
