"""Every docstring example of the package runs and shows what it prints.

Each module of ``receval`` (found on disk, so a module that fails to import is a failure, not
a gap) runs its examples as ``pytest --doctest-modules --pyargs receval`` does: the module's
namespace, pytest's default option flags. A module, or an example, that needs an optional
dependency that is not installed is skipped with the dependency's name.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil
import re
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import receval
from receval.errors import MissingDependencyError

FLAGS = doctest.ELLIPSIS  # pytest's default ``doctest_optionflags``: both runs agree
PROMPT = re.compile(r"^\s*>>> ", re.MULTILINE)


def _module_names(path: list[str], prefix: str) -> list[str]:
    """Dotted names of every module and package under ``path``, without importing them."""
    names = []
    for info in pkgutil.iter_modules(path, prefix):
        names.append(info.name)
        if info.ispkg:
            folder = Path(info.module_finder.path, info.name.rpartition(".")[2])
            names += _module_names([str(folder)], info.name + ".")
    return names


MODULES = ["receval"] + _module_names(list(receval.__path__), "receval.")


def _missing_dependency(exc: BaseException) -> str | None:
    """The optional dependency whose absence raised ``exc``, or None for any other error."""
    if isinstance(exc, MissingDependencyError):
        return str(exc)
    if isinstance(exc, ModuleNotFoundError) and exc.name and exc.name.partition(".")[0] != "receval":
        return f"{exc.name} is not installed"
    return None


class _Runner(doctest.DocTestRunner):
    """A doctest runner that tells an example needing a missing optional dependency apart."""

    def __init__(self) -> None:
        super().__init__(optionflags=FLAGS)
        self.missing: list[str] = []

    def report_unexpected_exception(self, out: Any, test: doctest.DocTest,
                                    example: doctest.Example, exc_info: Any) -> None:
        reason = _missing_dependency(exc_info[1])
        if reason is not None:
            self.missing.append(f"{test.name}: {reason}")
        super().report_unexpected_exception(out, test, example, exc_info)


def _import(name: str) -> ModuleType:
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        reason = _missing_dependency(exc)
        if reason is None:
            raise
        pytest.skip(f"{name} needs an optional dependency: {reason}")


def test_every_module_was_found() -> None:
    root = Path(receval.__path__[0])
    files = {".".join(("receval",) + p.relative_to(root).with_suffix("").parts).removesuffix(".__init__")
             for p in root.rglob("*.py")}
    assert files <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = _import(name)
    tests = doctest.DocTestFinder().find(module, name)
    path = Path(module.__file__ or "")
    source = path.read_text() if path.suffix == ".py" else ""  # compiled kernels: no examples
    # every example written in the module's source is one the finder reaches (none is hidden,
    # for example behind a decorator that loses the function's module)
    assert sum(len(t.examples) for t in tests) == len(PROMPT.findall(source))
    runner = _Runner()
    report: list[str] = []
    for test in sorted(tests, key=lambda t: t.name):
        runner.run(test, out=report.append, clear_globs=True)
    if runner.missing:  # the examples after the first missing import fail for that reason
        pytest.skip("; ".join(runner.missing))
    assert not runner.failures, "".join(report)


def test_only_a_missing_optional_dependency_skips() -> None:
    assert _missing_dependency(ModuleNotFoundError("no pyspark", name="pyspark.sql")) == (
        "pyspark.sql is not installed")
    assert _missing_dependency(MissingDependencyError("pip install 'receval[spark]'")) == (
        "pip install 'receval[spark]'")
    assert _missing_dependency(ModuleNotFoundError("moved", name="receval.gone")) is None
    assert _missing_dependency(ImportError("cannot import name 'x'")) is None
