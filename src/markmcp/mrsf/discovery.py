"""Where sidecars live: MRSF §3 discovery, ``.mrsf.yaml``, and path safety.

* The workspace root is the nearest directory (from a start directory upwards) holding
  ``.mrsf.yaml`` or ``.git``; without one, the start directory itself.
* ``.mrsf.yaml`` at the root may set ``sidecar_root`` (relative, no ``..``); then the
  sidecar of ``docs/a.md`` is ``<root>/<sidecar_root>/docs/a.md.review.yaml`` and only that
  location counts.  Otherwise it is ``<root>/docs/a.md.review.yaml`` (co-located).
* A ``.review.json`` sidecar is used when it exists and the ``.review.yaml`` does not.
* ``<root>/.mrsf.yaml`` is read only when it resolves inside the root: a planted symlink
  to a file elsewhere is refused (``invalid-config``), never read, so no value of a
  file outside can show up in an error message.
* Every path handed in must stay inside the root, both as written (``..``) and after
  following symlinks; otherwise MrsfError ``path-escape``.  A path that no file system
  takes (empty, a NUL, too long, a name over 255 bytes) is ``invalid-argument``.

The path arithmetic (:func:`sidecar_rel_for`, :func:`document_rel_for`,
:func:`parse_config`) is pure; the rest reads the filesystem (existence checks, the
config file, directory walks) through :mod:`markmcp.mcpcore.files`, and never writes.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path, PurePosixPath


from markmcp.mcpcore import files
from markmcp.mcpcore.files import FileAccessError, Places

from .errors import MrsfError
from .sidecar import SIDECAR_SUFFIX_JSON, SIDECAR_SUFFIX_YAML, put_back, safe_yaml, yaml12_text

CONFIG_FILENAME = ".mrsf.yaml"
MAX_CONFIG_BYTES = 64 * 1024
SKIP_DIRS = {".git", "node_modules", ".hg", ".svn", "__pycache__", ".venv"}


@dataclass(frozen=True)
class Config:
    """The parsed ``.mrsf.yaml`` (only ``sidecar_root`` is defined by MRSF)."""

    sidecar_root: str | None = None


@dataclass(frozen=True)
class Location:
    """A document and its sidecar inside a workspace."""

    root: Path            # absolute workspace root
    document: str         # repository-relative, "/"-separated
    sidecar: str          # repository-relative, "/"-separated
    config: Config
    places: Places | None = None  # where its files may be read and written (None: the root)

    @cached_property
    def allowed(self) -> Places:
        """The folders the document, the sidecar and every file derived from them must lie in
        (the root resolved once per Location, not at every file access)."""
        return self.places if self.places is not None else Places.of([self.root])

    @property
    def document_path(self) -> Path:
        return self.root / self.document

    @property
    def sidecar_path(self) -> Path:
        return self.root / self.sidecar

    @property
    def format(self) -> str:
        return "json" if self.sidecar.endswith(SIDECAR_SUFFIX_JSON) else "yaml"


# ---------------------------------------------------------------------------
# Pure path arithmetic
# ---------------------------------------------------------------------------


def is_sidecar_name(path: str | os.PathLike) -> bool:
    """True for ``*.review.yaml`` and ``*.review.json``."""
    name = os.fspath(path)
    return name.endswith(SIDECAR_SUFFIX_YAML) or name.endswith(SIDECAR_SUFFIX_JSON)


@lru_cache(maxsize=16)
def parse_config(text: str, label: str = CONFIG_FILENAME) -> Config:
    """Parse ``.mrsf.yaml`` text; MrsfError ``invalid-config`` when malformed or unsafe.

    Unknown keys are ignored; a ``sidecar_root`` that is not a string, is absolute,
    contains ``..`` (MRSF §3.2) or control characters, or lies inside ``.git`` is refused.  The same text is parsed once (every
    operation reads the file again, and a check of many sidecars reads it for each; a
    Config cannot be changed, so the one parsed is handed out again).
    """
    if not any(line.strip() and not line.lstrip().startswith("#") for line in text.split("\n")):
        return Config()  # empty or only comments (no YAML parser needed)
    from ruamel.yaml.error import YAMLError  # imported here: most runs have no config to parse

    reader_text, back = yaml12_text(text)
    try:
        data = safe_yaml().load(reader_text)
    except YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None)
        where += f": {problem.translate(back)}" if problem else ""
        raise MrsfError("invalid-config", f"{label}: malformed YAML{where}",
                        line=mark.line + 1 if mark else None, column=mark.column + 1 if mark else None) from None
    except (RecursionError, ValueError, TypeError, IndexError, KeyError, AttributeError) as exc:
        # the YAML library's own constructors fail on some scalars (``+_`` as an integer)
        raise MrsfError("invalid-config", f"{label}: malformed YAML: a value the YAML reader cannot "
                        f"construct ({type(exc).__name__}: {exc})") from None
    if data is None:
        return Config()
    if not isinstance(data, dict):
        raise MrsfError("invalid-config", f"{label}: must be a mapping")
    # keys other than sidecar_root are ignored, as upstream tools do (MRSF defines no others)
    root = data.get("sidecar_root")
    if root is None:
        return Config()
    if not isinstance(root, str):
        raise MrsfError("invalid-config", f"{label}: sidecar_root must be a string")
    root = put_back(root, back)
    if root.startswith("/") or root.startswith("\\") or re.match(r"[A-Za-z]:", root):
        raise MrsfError("invalid-config", f"{label}: sidecar_root must be a relative path (got {root!r})")
    if ".." in root:
        raise MrsfError("invalid-config", f"{label}: sidecar_root must not contain '..' (got {root!r})")
    if any(not ch.isprintable() for ch in root):
        raise MrsfError("invalid-config", f"{label}: sidecar_root must not hold control characters "
                                          f"(got {root!r})")
    cleaned = str(PurePosixPath(root.replace("\\", "/")))
    if cleaned.split("/")[0].lower() == ".git":
        # sidecars written there would be hidden from every sweep (they skip .git) and
        # mixed into git's own files
        raise MrsfError("invalid-config", f"{label}: sidecar_root must not lie inside .git (got {root!r})")
    return Config(sidecar_root=None if cleaned in ("", ".") else cleaned)


def sidecar_rel_for(document: str, config: Config, fmt: str = "yaml") -> str:
    """Repository-relative sidecar path of a repository-relative document path."""
    suffix = SIDECAR_SUFFIX_JSON if fmt == "json" else SIDECAR_SUFFIX_YAML
    if config.sidecar_root:
        return f"{config.sidecar_root}/{document}{suffix}"
    return f"{document}{suffix}"


def document_rel_for(sidecar: str, config: Config) -> str:
    """Repository-relative document path of a repository-relative sidecar path."""
    for suffix in (SIDECAR_SUFFIX_YAML, SIDECAR_SUFFIX_JSON):
        if sidecar.endswith(suffix):
            sidecar = sidecar[: -len(suffix)]
            break
    if config.sidecar_root:
        prefix = config.sidecar_root + "/"
        if sidecar.startswith(prefix):
            return sidecar[len(prefix):]
    return sidecar


# ---------------------------------------------------------------------------
# Filesystem side
# ---------------------------------------------------------------------------


def find_workspace_root(start: str | os.PathLike) -> Path:
    """Nearest directory at or above ``start`` with ``.mrsf.yaml`` or ``.git``, else ``start``."""
    here = Path(os.path.abspath(start))
    if files.kind_of(here) not in ("dir", None):
        here = here.parent
    for candidate in (here, *here.parents):
        if has_marker(candidate):
            return candidate
    return here


def has_marker(root: Path) -> bool:
    """True when ``root`` really is a workspace root (``.mrsf.yaml`` or ``.git`` there)."""
    return files.kind_of(root / CONFIG_FILENAME) is not None or files.kind_of(root / ".git") is not None


def load_config(root: Path) -> Config:
    """Read ``<root>/.mrsf.yaml`` (a missing file is an empty config); a symlink there
    leading out of the root is refused unread (``invalid-config``)."""
    path = root / CONFIG_FILENAME
    if files.kind_of(path) is None:
        return Config()
    return load_config_file(path, places=Places.of([root]))


def config_file_path(config: str | os.PathLike, cwd: str | os.PathLike | None) -> Path:
    """Absolute path of an explicit config file given relative to ``cwd`` (or the process cwd)."""
    return Path(os.path.abspath(Path(cwd if cwd is not None else os.getcwd()) / config))


def load_config_file(path: str | os.PathLike, *, places: Places | None = None) -> Config:
    """Read a given ``.mrsf.yaml`` file (it must exist and be a regular file, inside
    ``places`` when given)."""
    path = Path(path)
    try:
        text = files.read_text(path, places=places, limit=MAX_CONFIG_BYTES, what="config file")
    except FileAccessError as error:
        code = "io-error" if error.code == "io-error" else "invalid-config"
        raise MrsfError(code, error.message, path=str(path)) from None
    return parse_config(text, str(path))


def check_path(target: object) -> str:
    """The text of a path argument; ``invalid-argument`` when it is not a string or no file
    system takes it (empty, a NUL, too long, a name over 255 bytes)."""
    if not isinstance(target, (str, os.PathLike)):
        raise MrsfError("invalid-argument", f"a path must be a string, got {type(target).__name__}")
    try:
        return files.check_argument(target)
    except FileAccessError as error:
        raise MrsfError("invalid-argument", error.message) from None


#: How to fix a refusal of a path that leaves the workspace root (the engine's own folder,
#: when no allowed folders are given).
WORKSPACE_HINT = ("MRSF files must lie inside the workspace root: the nearest folder at or above the working "
                  "directory that holds .mrsf.yaml or .git (else the working directory); work from a folder "
                  "whose workspace root holds the file")


def _refused(folders: Places, raw: str, real: Path) -> MrsfError:
    """``path-escape`` in the wording every markmcp refusal has (mcpcore's: the path, where
    it resolves to, the allowed folders and how to allow another)."""
    return MrsfError("path-escape", folders.refusal(raw, real).message, path=raw)


def inside(root: Path, target: str | os.PathLike, cwd: str | os.PathLike | None = None, *,
           real_root: Path | None = None, places: Places | None = None) -> tuple[Path, str]:
    """Absolute path of ``target`` and its root-relative POSIX form; ``path-escape`` if outside.

    Checked twice: the normalised path as written (catches ``..``) and the path with
    symlinks followed (catches links pointing out of the root).  ``real_root`` is the
    root resolved, when the caller has it already.  With ``places`` (a server's allowed
    folders) those judge where a symlink may lead, and their refusal names how to allow
    another folder; without, the workspace root does.
    """
    root_abs = Path(os.path.abspath(root))
    base = Path(os.path.abspath(cwd)) if cwd is not None else root_abs
    raw = check_path(target)
    lexical = Path(os.path.normpath(base / raw))
    try:
        rel = lexical.relative_to(root_abs)
    except ValueError:
        raise _refused(Places((root_abs,), WORKSPACE_HINT), raw, lexical) from None
    if real_root is None:
        real_root = Path(os.path.realpath(root_abs))
    real = Path(os.path.realpath(lexical))
    if places is not None:
        if not places.holds(real):
            raise _refused(places, raw, real) from None
    elif not real.is_relative_to(real_root):
        raise _refused(Places((root_abs,), WORKSPACE_HINT), raw, real) from None
    rel_posix = rel.as_posix()
    if rel_posix in ("", "."):
        raise MrsfError("invalid-argument", f"{raw}: is the workspace root, not a file")
    return lexical, rel_posix


def inside_or_root(root: Path, target: str | os.PathLike, cwd: str | os.PathLike | None = None) -> tuple[Path, str]:
    """Like :func:`inside`, but the root itself is allowed (as ``"."``)."""
    if isinstance(target, (str, os.PathLike)) and os.fspath(target):
        base = Path(os.path.abspath(cwd)) if cwd is not None else Path(os.path.abspath(root))
        if Path(os.path.normpath(base / os.fspath(target))) == Path(os.path.abspath(root)):
            return Path(os.path.abspath(root)), "."
    return inside(root, target, cwd)


def base_dirs(root: str | os.PathLike | None, cwd: str | os.PathLike | None,
              config: str | os.PathLike | None = None) -> tuple[Path, Path]:
    """(cwd, root): relative paths resolve against ``cwd`` (default: ``root`` when given,
    else the process's working directory); ``root`` defaults to the directory of an
    explicit ``config`` file, else to the workspace root found from ``cwd``."""
    if cwd is None:
        cwd = root if root is not None else os.getcwd()
    if root is None and config is not None:
        root = config_file_path(config, cwd).parent
    cwd_path = Path(os.path.abspath(cwd))
    root_path = Path(os.path.abspath(root)) if root is not None else find_workspace_root(cwd_path)
    return cwd_path, root_path


def locate(target: str | os.PathLike, *, root: str | os.PathLike | None = None,
           cwd: str | os.PathLike | None = None, config: str | os.PathLike | None = None,
           places: Places | None = None) -> Location:
    """Find the document and sidecar for ``target`` (a document or a sidecar path).

    ``config`` names a ``.mrsf.yaml`` to use instead of ``<root>/.mrsf.yaml``; ``places``
    (a server's allowed folders) judge where a symlink may lead (see :func:`inside`).
    """
    cwd_path, root_path = base_dirs(root, cwd, config)
    config = load_config_file(config_file_path(config, cwd)) if config is not None else load_config(root_path)
    real_root = Path(os.path.realpath(root_path))
    lexical, rel = inside(root_path, target, cwd_path, real_root=real_root, places=places)
    if files.kind_of(lexical) == "dir":
        raise MrsfError("invalid-argument", f"{os.fspath(target)}: is a directory, not a document or sidecar",
                        path=os.fspath(target))
    if is_sidecar_name(rel):
        sidecar = rel
        document = document_rel_for(rel, config)
    else:
        document = rel
        sidecar = sidecar_rel_for(document, config, "yaml")
        json_sidecar = sidecar_rel_for(document, config, "json")
        if files.kind_of(root_path / sidecar) is None and files.kind_of(root_path / json_sidecar) is not None:
            sidecar = json_sidecar
    for derived in (sidecar, document):
        if derived != rel:  # the target itself was checked above
            inside(root_path, derived, root_path, real_root=real_root, places=places)
    return Location(root=root_path, document=document, sidecar=sidecar, config=config)


def find_sidecars(directory: str | os.PathLike, root: Path) -> list[str]:
    """Repository-relative paths of every sidecar under ``directory`` (sorted; symlinked
    folders are not entered, a symlinked sidecar leading out of the root is left out)."""
    found, problems = sweep_sidecars(directory, root)
    # a FIFO or device named like a sidecar is listed (reading it then fails, saying why)
    return sorted([*found, *(rel for rel, problem in problems
                             if problem.code != "outside" and is_sidecar_name(rel))])


def sweep_sidecars(directory: str | os.PathLike, root: Path, places: Places | None = None
                   ) -> tuple[list[str], list[tuple[str, FileAccessError]]]:
    """The sidecars under ``directory`` a folder-wide run may read (repository-relative,
    sorted), and those it found but must not read, each with why: a symlink leading out
    of ``places`` (default: the root), a FIFO or device, a folder it cannot list.
    Symlinked folders are not entered."""
    start, _ = inside(root, directory, root) if os.fspath(directory) not in ("", ".") else (root, ".")
    kind = files.kind_of(start)
    if kind != "dir":
        return ([start.relative_to(root).as_posix()] if kind is not None and is_sidecar_name(start.name) else []), []
    found: list[str] = []
    problems: list[tuple[str, FileAccessError]] = []
    try:
        for entry in files.walk(start, accept=is_sidecar_name, places=places or Places.of([root], WORKSPACE_HINT),
                                skip_dirs=SKIP_DIRS, order=str):
            rel = entry.path.relative_to(root).as_posix()
            if entry.problem is not None:
                problems.append((rel, entry.problem))
            else:
                found.append(rel)
    except FileAccessError as error:
        raise MrsfError("io-error", error.message, path=str(start)) from None
    return sorted(found), sorted(problems, key=lambda item: item[0])
