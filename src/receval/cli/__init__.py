"""The ``receval`` command line: ``receval evaluate | trec | metrics | explain | ...``.

Sub-commands live in ``receval.cli.<name>_cmd`` modules exposing ``register(subparsers)`` and
``run(args) -> int``. Heavy imports happen inside ``run`` so that start-up stays fast.

``main`` is bound here from :mod:`receval.cli.main` (which imports only the standard library),
so that importing the submodule ``receval.cli.main`` later cannot replace the function
``receval.cli.main`` with the module of the same name.
"""

from __future__ import annotations

from .main import main

__all__ = ["main"]
