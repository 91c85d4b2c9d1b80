"""Shared test setup: the oracle module on the import path, hypothesis profile, shared data."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import settings

TESTS = Path(__file__).resolve().parent
if str(TESTS / "core") not in sys.path:
    sys.path.insert(0, str(TESTS / "core"))

settings.register_profile("receval", deadline=None, max_examples=50, derandomize=True)
settings.load_profile("receval")


def pytest_configure(config: pytest.Config) -> None:
    # hypothesis' failure report touches mypy_extensions.TypedDict, whose DeprecationWarning
    # (an error under filterwarnings=error) would hide the falsifying example
    config.addinivalue_line(
        "filterwarnings", "ignore:mypy_extensions.TypedDict is deprecated:DeprecationWarning")


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The project's shared folder (``X/shared`` beside the ``X/main`` checkout), or skip."""
    path = TESTS.parent.parent / "shared"
    if not path.is_dir():
        pytest.skip(f"shared data folder not found at {path}")
    return path
