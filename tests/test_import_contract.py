"""The layering contracts in pyproject.toml hold (kernels import nothing else from receval,
results never compute metrics): checked with import-linter's ``lint-imports``."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _command() -> list[str]:
    exe = shutil.which("lint-imports")
    if exe is not None:
        return [exe]
    pytest.importorskip("importlinter")
    return [sys.executable, "-c", "import sys; from importlinter.cli import lint_imports_command;"
            " sys.exit(lint_imports_command())"]


def test_import_contracts_hold():
    proc = subprocess.run(_command(), cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    report = proc.stdout + proc.stderr
    assert proc.returncode == 0, report
    assert "BROKEN" not in report
    assert "KEPT" in report
