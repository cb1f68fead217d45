"""A :class:`~.model.Sidecar`'s new text, and the proof that it reads back as the data.

:func:`dump` gives the text as edited; :func:`render` gives it with its proof: the
comments that were spliced in are read back one by one when that decides the whole file
(the rest of the text is the original, byte for byte), else the whole new text is parsed
again, and either must give exactly the intended data or nothing is written.
"""

from __future__ import annotations

from .. import yamlscan
from ..errors import MrsfError
from ..yamlscan import Unsupported
from .json_write import render_json
from .model import Rendered, Sidecar, _Plan
from .parse import parse_sidecar
from .values import same_value
from .yaml_write import render_yaml


def dump(sidecar: Sidecar) -> str:
    """The text of the sidecar as edited (not verified; see :func:`render`)."""
    return _plan(sidecar).text


def render(sidecar: Sidecar) -> Rendered:
    """The new text, proved to read back as exactly the data.  MrsfError
    ``internal-error`` (nothing to write) when the proof fails."""
    plan = _plan(sidecar)
    if plan.text == sidecar.original:
        return Rendered(plan.text, lambda: sidecar)
    if plan.fragments is not None:
        _verify_fragments(sidecar, plan)
        return Rendered(plan.text, lambda: sidecar.adopt(plan))
    try:
        again = parse_sidecar(plan.text, fmt=sidecar.fmt)
    except MrsfError as exc:
        raise MrsfError("internal-error",
                        f"refusing to write: the new sidecar would not parse ({exc.message})") from None
    if not same_value(again.data, sidecar.data):
        raise MrsfError("internal-error", "refusing to write: the new sidecar would not read back as written")
    return Rendered(plan.text, lambda: again)


def _plan(sidecar: Sidecar) -> _Plan:
    return render_json(sidecar) if sidecar.fmt == "json" else render_yaml(sidecar)


def _verify_fragments(sidecar: Sidecar, plan: _Plan) -> None:
    """Each spliced comment, read on its own, is exactly the comment intended."""
    for text, node in plan.fragments or ():
        try:
            read = yamlscan.read_items(text, sidecar.yaml_style.offset)
        except (Unsupported, RecursionError) as exc:
            raise MrsfError("internal-error",
                            f"refusing to write: a changed comment would not parse ({exc})") from None
        if len(read.data) != 1 or not same_value(read.data[0], node):
            raise MrsfError("internal-error",
                            "refusing to write: a changed comment would not read back as written")
