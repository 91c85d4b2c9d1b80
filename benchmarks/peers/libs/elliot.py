"""Elliot: the ``compat="elliot"`` preset against the library itself."""

from __future__ import annotations

import importlib

from common import NotInstalled, Report, check


@check("elliot", "Elliot")
def check_elliot(report: Report) -> None:
    try:
        importlib.import_module("elliot.evaluation.metrics")
    except Exception as exc:  # noqa: BLE001
        raise NotInstalled(
            f"import elliot.evaluation.metrics: {type(exc).__name__}: {exc}; Elliot is not on "
            "PyPI (pip install elliot: no matching distribution); it installs from its "
            "repository with TensorFlow and pinned numpy/pandas") from exc
    raise NotInstalled("elliot imports, but no check is written for it")
