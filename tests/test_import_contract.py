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


def test_no_import_cycles():
    """No module imports itself through others (module-level and function-level imports), but
    for the whitelisted display hook."""
    grimp = pytest.importorskip("grimp")
    graph = grimp.build_graph("receval")
    modules = sorted(graph.modules)
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    hooks = {tuple(x.split(" -> ")) for c in config["contracts"]
             for x in c.get("ignore_imports", [])}  # the display hook, imported at display time
    edges = {m: sorted(d for d in graph.find_modules_directly_imported_by(m)
                       if (m, d) not in hooks) for m in modules}
    # Tarjan's strongly connected components; a component of two or more modules is a cycle
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                cycles.append(sorted(comp))

    for m in modules:
        if m not in index:
            visit(m)
    # a package's __init__ re-exporting its own submodules is not a cycle between layers
    cycles = [c for c in cycles if not _package_reexport(c)]
    assert not cycles, cycles


def _package_reexport(component: list[str]) -> bool:
    """A component made only of a package and modules inside it that import the package's
    own names (``from . import x``) is the package's ``__init__`` re-exporting them."""
    roots = {m for m in component if all(o == m or o.startswith(m + ".") for o in component)}
    return bool(roots)
