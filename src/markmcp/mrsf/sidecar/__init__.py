"""Format-preserving model of one MRSF sidecar (YAML or JSON text in, text out).

This package is pure: it turns sidecar *text* into a :class:`Sidecar` and back, and offers
the few editing primitives the operations need (set or delete a field of a comment, append
or remove a comment, set a top-level field).  It never touches the filesystem.

The data is plain Python (``dict``/``list``/``str``/numbers/``bool``/``None``; an unquoted
timestamp is the string it is written as: YAML 1.2 has no timestamp type).  Beside it the model keeps the text and where each
``comments`` item stands in it.  An edit never serialises the file again: writing splices
new text for exactly the changed items (and within an item, for exactly the changed
entries, see :mod:`markmcp.mrsf.yamledit`) into the original text, so a change to N
comments costs the size of those N comments, and every untouched line stays byte for
byte as it was: YAML comments, key order, quoting, folding, blank lines, line ends, a
byte-order mark, a leading ``---``, a missing final newline.

YAML is read by :mod:`markmcp.mrsf.yamlscan` (fast, exact on the block YAML sidecar
writers produce); anything it does not handle is read by ruamel.yaml's round-trip loader,
which also words every syntax error.  :func:`render` gives the new text together
with its proof: the new text is read back (only the spliced items when that provably
decides the whole file, else all of it) and must give exactly the intended data, or the
write is refused.

JSON sidecars keep their key order, indentation (spaces or a tab, or compact), whether
non-ASCII is escaped, and the presence of a final newline; a changed item is written in
the file's layout, the rest of the text is kept.

Every item is kept exactly as found, even an invalid one (a comment without ``id``, a
string where a number belongs): validation is a separate step (``validate.py``).

Positions reported to users are 1-based lines and 1-based columns in the sidecar text.

The package, one stage a module: :mod:`.values` (plain values: type names, copies,
equality, limits), :mod:`.yaml12` (the YAML library set up to read YAML 1.2),
:mod:`.declined` (items the fast reader declines, measured with the full reader),
:mod:`.model` (the :class:`Sidecar`: data and edits),
:mod:`.yaml_read` and :mod:`.json_read` (text to a :class:`Sidecar`, by format),
:mod:`.parse` (which format, and the checks every sidecar passes), :mod:`.yaml_write`
and :mod:`.json_write` (the new text, spliced into the old), :mod:`.write` (that text and
its proof).
"""

from __future__ import annotations

from .model import COMMENT_KEY_ORDER, Rendered, Sidecar, new_sidecar
from .parse import SIDECAR_SUFFIX_JSON, SIDECAR_SUFFIX_YAML, detect_format, parse_sidecar
from .values import MAX_DEPTH, same_value, to_plain, type_name
from .write import dump, render
from .yaml12 import put_back, safe_yaml, yaml12_text

__all__ = [
    "COMMENT_KEY_ORDER",
    "MAX_DEPTH",
    "SIDECAR_SUFFIX_JSON",
    "SIDECAR_SUFFIX_YAML",
    "Rendered",
    "Sidecar",
    "detect_format",
    "dump",
    "new_sidecar",
    "parse_sidecar",
    "put_back",
    "render",
    "safe_yaml",
    "same_value",
    "to_plain",
    "type_name",
    "yaml12_text",
]
