"""Peer libraries' modules loaded for cross-checks, skipping the test when they cannot load."""

from __future__ import annotations

import importlib.util
from types import ModuleType

import pytest


def recmetrics_metrics() -> ModuleType:
    """``recmetrics/metrics.py`` on its own: the package's ``__init__`` imports plotting
    libraries the metric functions do not need. Skips when recmetrics is not installed or its
    metrics module does not import."""
    spec = importlib.util.find_spec("recmetrics")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("recmetrics is not installed")
    path = f"{list(spec.submodule_search_locations)[0]}/metrics.py"
    loader = importlib.util.spec_from_file_location("_recmetrics_metrics", path)
    module = importlib.util.module_from_spec(loader)
    try:
        loader.loader.exec_module(module)
    except ImportError as exc:  # its metrics module's own imports
        pytest.skip(f"recmetrics.metrics does not import: {exc}")
    return module
