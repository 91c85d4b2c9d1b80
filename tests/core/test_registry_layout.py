"""Where the registry's knowledge lives: every plugin metric is registered by a module of
``PLUGIN_MODULES`` beside its array code, each of them registers at least one, a fresh
interpreter that loads the plugins gets every metric and only through those modules, and
``list_metrics`` is the registry sorted by name."""

from __future__ import annotations

import subprocess
import sys

from receval.metrics import ALIASES, REGISTRY, list_metrics
from receval.metrics.spec import PLUGIN_MODULES


def test_list_metrics_is_the_registry_sorted():
    defs = list_metrics()
    assert [d.name for d in defs] == sorted(REGISTRY)
    assert all(REGISTRY[d.name] is d for d in defs)
    assert set(ALIASES.values()) <= set(REGISTRY)


def test_every_plugin_is_registered_by_a_declared_family_module():
    list_metrics()
    by_module: dict[str, list[str]] = {}
    for name, defn in REGISTRY.items():
        if defn.kernel is None:
            assert defn.compute is not None, name
            by_module.setdefault(defn.compute.__module__, []).append(name)
        else:
            assert defn.compute is None and defn.kernel.request >= 0, name
    assert set(by_module) == set(PLUGIN_MODULES), set(by_module) ^ set(PLUGIN_MODULES)


def test_a_fresh_interpreter_registers_each_family_on_its_module_import():
    code = (
        "import receval.metrics.spec as spec\n"
        "before = set(spec.REGISTRY)\n"
        "import receval.classification.probability\n"
        "assert 'log_loss' in spec.REGISTRY and 'gauc' in spec.REGISTRY, sorted(spec.REGISTRY)\n"
        "assert not any(spec.REGISTRY[n].family == 'beyond' for n in spec.REGISTRY)\n"
        "import receval\n"
        "receval.list_metrics()\n"
        "print(len(spec.REGISTRY), len(before))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True).stdout.split()
    assert int(out[0]) == len(list_metrics()) > int(out[1]) > 0
