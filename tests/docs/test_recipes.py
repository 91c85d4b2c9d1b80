"""The recipes of the documentation run and print what the documentation shows.

Each ``docs/recipes/NAME.py`` is run as a script; its output must match ``NAME.out`` (text
exactly, numbers to 5e-4, so a last-digit rounding difference between platforms passes).
Refresh an expected output after a deliberate change with
``python docs/recipes/NAME.py > docs/recipes/NAME.out``.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

RECIPES = Path(__file__).resolve().parents[2] / "docs" / "recipes"
SCRIPTS = sorted(RECIPES.glob("*.py"))
NUMBER = re.compile(r"[-+]?\d[\d,]*\.\d+|[-+]?\d+")


def _split(text: str) -> tuple[list[str], list[float]]:
    words = NUMBER.split(text)
    numbers = [float(n.replace(",", "")) for n in NUMBER.findall(text)]
    return words, numbers


def test_every_recipe_has_an_expected_output_and_a_page() -> None:
    assert len(SCRIPTS) >= 5
    for script in SCRIPTS:
        assert script.with_suffix(".out").is_file(), script.name
        page = (RECIPES / script.with_suffix(".md").name).read_text()
        assert f"docs/recipes/{script.name}" in page and f"docs/recipes/{script.stem}.out" in page


@pytest.mark.parametrize("script", SCRIPTS, ids=[s.stem for s in SCRIPTS])
def test_recipe_output(script: Path, tmp_path: Path) -> None:
    for extra in re.findall(r"^\s*(?:import|from) (pyarrow|polars|matplotlib|rich)\b",
                            script.read_text(), flags=re.M):
        pytest.importorskip(extra, reason=f"the recipe uses {extra} (an optional extra)")
    proc = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    got_words, got_numbers = _split(proc.stdout.strip())
    want_words, want_numbers = _split(script.with_suffix(".out").read_text().strip())
    assert got_words == want_words, proc.stdout
    assert got_numbers == pytest.approx(want_numbers, abs=5e-4, rel=0), proc.stdout
