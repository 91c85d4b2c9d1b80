"""Adapters to the tools users already run: experiment trackers (MLflow), IR toolkits
(ir_measures / PyTerrier) and dataset catalogues (ir_datasets). Each is an optional extra
(``pip install 'receval[mlflow]'``, ...); importing an adapter without its library raises
:class:`receval.errors.MissingDependencyError` naming the extra."""

import importlib as _importlib
from typing import Any as _Any

#: the adapters, each a module of this package imported on first use
ADAPTERS = ("mlflow", "ir_measures")


def __getattr__(name: str) -> _Any:
    if name in ADAPTERS:
        return _importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'receval.integrations' has no attribute {name!r}; the "
                         f"adapters are {list(ADAPTERS)}")
