"""The Safe SVG profile (FigDown core §15.2) as a check over an artifact's text.

Shared by the artifact tests, the renderer's Hypothesis fuzz tests and the ``figdown-render``
target of ``make fuzz`` (``tests/fuzz_targets.py``), so it imports nothing of the test
harness.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from markmcp.figdown.render.svg import ATTRIBUTES, ELEMENTS, STYLE_VALUES

SVG = "{http://www.w3.org/2000/svg}"


def safe_profile_problems(svg: str) -> list[str]:
    """Walk every element and attribute of an artifact against core §15.2."""
    problems = []
    root = ET.fromstring(svg)
    for el in root.iter():
        if not el.tag.startswith(SVG):
            problems.append(f"element outside the SVG namespace: {el.tag}")
            continue
        name = el.tag[len(SVG):]
        if name not in ELEMENTS:
            problems.append(f"element {name}")
        for key, value in el.attrib.items():
            if key not in ATTRIBUTES:
                problems.append(f"attribute {key} on {name}")
            if key.lower().startswith("on") or "href" in key.lower() or key.lower() == "src":
                problems.append(f"forbidden attribute {key}")
            for ref in re.findall(r"url\(([^)]*)\)", value):
                if not ref.startswith("#"):
                    problems.append(f"external url({ref})")
            if "@import" in value:
                problems.append("@import")
            if key == "style" and value not in STYLE_VALUES:
                problems.append(f"style={value!r}")
    return problems
