"""``markmcp check``: every VisiMark, FigDown and MRSF document of a tree, checked at once.

The package is engine-neutral orchestration; each engine does its own checking through
its package-level API:

* :mod:`.tree` finds the files (the walk honours ``.gitignore``, skips ``.git`` and
  ``node_modules`` and never follows a symlink out of the tree; files named directly;
  ``--changed-since``; ``--shard``), with the pure ignore-rule matcher in :mod:`.ignore`;
* :mod:`.engines` checks one file with its engine (and repairs it with ``--fix``);
* :mod:`.run` spreads the files over a process pool;
* :mod:`.findings` is the engine-neutral record of a finding and of a checked file;
* :mod:`.report` writes the text report, the JSON envelope and the SARIF 2.1.0 log;
* :mod:`.cli` is the ``markmcp`` command (the only module that prints).

Every served file is read and written through :mod:`markmcp.mcpcore.files`.
"""
