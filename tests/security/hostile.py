"""A hostile repository, built piece by piece: what an attacker can plant at any path a
tool reads or derives (a sidecar, a backup, a lock, a temporary file, an artifact).

Every engine's attack suite builds its repository with these helpers, so "planted
symlink", "FIFO" or "huge file" mean the same thing everywhere.  A :class:`Hostile`
holds the repository (``root``, what the server or CLI may use) and a folder outside it
(``outside``) whose files must never be read, changed or created by a tool.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path

SECRET = "TOP-SECRET-OUTSIDE-THE-ROOT\n"
"""The content of the victim file outside the repository; it must never show up in output."""


@dataclass
class Hostile:
    root: Path
    outside: Path
    planted: list[Path] = field(default_factory=list)

    @classmethod
    def create(cls, base: Path) -> Hostile:
        root = base / "repo"
        outside = base / "outside"
        root.mkdir(parents=True)
        outside.mkdir(parents=True)
        (outside / "victim.txt").write_text(SECRET)
        return cls(root, outside)

    # --- what lies outside --------------------------------------------------------------

    @property
    def victim(self) -> Path:
        return self.outside / "victim.txt"

    def outside_snapshot(self) -> dict[str, str]:
        """Name -> SHA-256 of everything in ``outside`` (links as their target text)."""
        state: dict[str, str] = {}
        for path in sorted(self.outside.rglob("*")):
            rel = path.relative_to(self.outside).as_posix()
            if path.is_symlink():
                state[rel] = "link:" + os.readlink(path)
            elif path.is_file():
                state[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
            else:
                state[rel] = "dir"
        return state

    # --- plants ------------------------------------------------------------------------

    def _at(self, rel: str) -> Path:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        self.planted.append(path)
        return path

    def write(self, rel: str, text: str | bytes) -> Path:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text)
        return path

    def link_to_victim(self, rel: str) -> Path:
        """A symlink at ``rel`` pointing at the victim file outside."""
        path = self._at(rel)
        path.symlink_to(self.victim)
        return path

    def dangling_link(self, rel: str, name: str = "created-by-a-tool") -> Path:
        """A symlink at ``rel`` pointing at a file outside that does not exist (yet)."""
        path = self._at(rel)
        path.symlink_to(self.outside / name)
        return path

    def link_to_folder_outside(self, rel: str) -> Path:
        path = self._at(rel)
        path.symlink_to(self.outside, target_is_directory=True)
        return path

    def fifo(self, rel: str) -> Path:
        path = self._at(rel)
        os.mkfifo(path)
        return path

    def device_link(self, rel: str, device: str = "/dev/zero") -> Path:
        path = self._at(rel)
        path.symlink_to(device)
        return path

    def huge(self, rel: str, size: int, fill: bytes = b"a") -> Path:
        """A sparse-free file of ``size`` bytes (written in chunks)."""
        path = self._at(rel)
        chunk = fill * (1024 * 1024 // len(fill))
        with open(path, "wb") as out:
            left = size
            while left > 0:
                out.write(chunk[: min(left, len(chunk))])
                left -= len(chunk)
        return path

    def created_outside(self) -> list[str]:
        """Files in ``outside`` other than the victim (a tool created them: a failure)."""
        return sorted(p.name for p in self.outside.iterdir() if p.name != "victim.txt")

    def assert_untouched(self) -> None:
        assert self.victim.read_text() == SECRET, "the victim file outside the root was changed"
        assert self.created_outside() == [], f"files were created outside the root: {self.created_outside()}"


BILLION_LAUGHS = """\
mrsf_version: "1.0"
document: a.md
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
comments: []
"""
"""A YAML alias bomb: nine levels of nine-fold references (~387 million leaves when expanded)."""


def deep_nesting(depth: int = 100_000) -> str:
    """A document of ``depth`` nested flow sequences (``[[[[...]]]]``)."""
    return "[" * depth + "]" * depth
