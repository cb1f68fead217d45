"""Errors of the MRSF engine.

Every failure a user can cause (bad YAML, a huge file, an unknown comment id, a path
that escapes the workspace, a stale ``expected_version`` ...) is raised as an
:class:`MrsfError` carrying a stable machine-readable ``code``, a human message and
optional details (``line``/``column`` in the offending file, the ``path``, ...).
Nothing is written when one of these is raised.

Codes used by the engine:

``malformed-yaml``, ``malformed-json``  the sidecar text does not parse (line/column given)
``invalid-sidecar``                     parses, but is not an MRSF mapping (empty, a list...)
``encoding-error``                      the file is not UTF-8
``file-too-large``                      the file is over the read limit
``not-found``                           sidecar or document does not exist
``sidecar-exists``                      init/rename would overwrite an existing sidecar
``comment-not-found``                   no comment with the given id
``duplicate-id``                        add/update would create a second comment with an id
``invalid-argument``                    a bad parameter (negative line, unknown filter...)
``path-escape``                         a path leaves the workspace root or the allowed folders
                                        (``..``, a symlink, a ``sidecar_root`` above them)
``not-regular``                         a FIFO, device or socket where a file belongs (never read)
``symlink``                             a symlink planted where a lock or backup file goes
``invalid-config``                      ``.mrsf.yaml`` is malformed or its sidecar_root unsafe
``unsupported-version``                 the sidecar's ``mrsf_version`` major is not 1
``version-mismatch``                    ``expected_version`` differs (see :class:`MrsfConflict`)
``io-error``                            the operating system refused a read or write
``internal-error``                      a write was refused because it would not round-trip
"""

from __future__ import annotations

from typing import Any

from markmcp.mcpcore.files import shown


class MrsfError(Exception):
    """A user-facing failure with a stable ``code``; nothing was written."""

    def __init__(self, code: str, message: str, **details: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = {k: v for k, v in details.items() if v is not None}

    def to_dict(self) -> dict[str, Any]:
        """The error as a plain JSON-able dict: ``{"status": "error", "code", "message", ...}``."""
        return {"status": "error", "code": self.code, "message": self.message, **self.details}

    def __str__(self) -> str:  # pragma: no cover - trivial
        return self.message


def os_error_message(error: OSError) -> str:
    """What the operating system refused, for a user: ``<file>: <reason>`` (the file when known)."""
    name = f"{shown(error.filename)}: " if error.filename is not None else ""
    return f"{name}{error.strerror or type(error).__name__}"


class MrsfConflict(MrsfError):
    """The sidecar changed since the caller read it (``expected_version`` mismatch).

    :meth:`to_dict` gives exactly
    ``{"status": "conflict", "code": "version-mismatch", "currentVersion": ..., "expectedVersion": ...}``.
    """

    def __init__(self, current_version: str | None, expected_version: str, path: str | None = None) -> None:
        super().__init__(
            "version-mismatch",
            f"sidecar {path or ''} changed since it was read: expected version {expected_version}, "
            f"current version is {current_version}".replace("sidecar  ", "sidecar "),
        )
        self.current_version = current_version
        self.expected_version = expected_version

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": "conflict",
            "code": "version-mismatch",
            "currentVersion": self.current_version,
            "expectedVersion": self.expected_version,
        }
