"""The ``receval`` command line: ``receval evaluate | trec | metrics | explain | ...``.

Sub-commands live in ``receval.cli.<name>_cmd`` modules exposing ``register(subparsers)`` and
``run(args) -> int``. Heavy imports happen inside ``run`` so that start-up stays fast.
"""

from __future__ import annotations


def main(argv: list[str] | None = None) -> int:
    """Console entry point; returns the exit code (0 ok, 1 bad input, 2 bad usage)."""
    from .main import main as _main

    return _main(argv)


__all__ = ["main"]
