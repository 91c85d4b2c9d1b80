"""Importing receval without its compiled kernels raises an error that says how to fix it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import receval

PROBE = """
import sys
try:
    import receval
except ImportError as exc:
    errors = sys.modules["receval.errors"]
    print("PACKAGE", errors.__file__)
    print("CLASS", type(exc).__name__, isinstance(exc, errors.RecevalError))
    print("MESSAGE", str(exc))
else:
    print("NO ERROR")
"""


def _unbuilt_copy(tmp_path: Path) -> Path:
    """The installed package's Python files, without any compiled module."""
    src = Path(receval.__file__).resolve().parent
    dst = tmp_path / "receval"
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns(
        "*.so", "*.pyd", "*.dylib", "*.c", "__pycache__"))
    return tmp_path


def test_import_without_compiled_kernels_explains_the_fix(tmp_path: Path) -> None:
    root = _unbuilt_copy(tmp_path)
    env = dict(os.environ, PYTHONPATH=str(root), PYTHONDONTWRITEBYTECODE="1")
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True,
                         text=True, check=True, cwd=tmp_path).stdout
    assert "NO ERROR" not in out
    assert f"PACKAGE {root / 'receval' / 'errors.py'}" in out  # the copy, not the installed one
    assert "CLASS MissingExtensionError True" in out
    assert "compiled kernels could not be imported" in out
    assert "no compiled files" in out
    assert "pip install receval" in out
    assert "C compiler and the Python development headers" in out
    assert "pip install -e ." in out


def test_error_class_is_public() -> None:
    assert issubclass(receval.MissingExtensionError, receval.RecevalError)
    assert issubclass(receval.MissingExtensionError, ImportError)


def test_installed_package_is_the_one_under_test() -> None:
    """In the wheel check, receval and its kernels come from the installed wheel."""
    where = os.environ.get("RECEVAL_TEST_INSTALLED")
    if not where:
        pytest.skip("only in the wheel check (RECEVAL_TEST_INSTALLED unset)")
    import receval.kernels._packing as packing

    assert Path(receval.__file__).resolve().is_relative_to(Path(where).resolve())
    assert Path(packing.__file__).resolve().is_relative_to(Path(where).resolve())


def test_cli_main_stays_the_function_after_its_module_is_imported() -> None:
    import importlib

    import receval.cli

    importlib.import_module("receval.cli.main")
    assert callable(receval.cli.main)
    assert receval.cli.main(["metrics", "mrr"]) == 0
