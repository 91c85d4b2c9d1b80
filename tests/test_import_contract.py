"""The layering of receval holds for every import: module-level, function-level and dynamic.

import-linter (``lint-imports``, the contract in pyproject.toml) sees the ``import``
statements. The imports made by name (``importlib.import_module``) are pinned here: every
call site in the package must be declared in :data:`DYNAMIC_SITES`, which reads the targets
from the table the code itself uses, and the targets join the graph on which the layers
contract and the cycle check run again. No cycle is exempt that passes through the package
root; the one display hook (results -> report, at display time) is the only upward edge.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import tomllib

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "receval"
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
(LAYERS_CONTRACT,) = [c for c in CONFIG["contracts"] if c["type"] == "layers"]
HOOKS = {tuple(x.split(" -> ")) for x in LAYERS_CONTRACT.get("ignore_imports", [])}


def _lazy_targets() -> set[str]:
    import receval

    return {t if isinstance(t, str) else t[0] for t in receval._LAZY.values()}


def _plugin_targets() -> set[str]:
    from receval.metrics import spec

    return set(spec.PLUGIN_MODULES)


def _report_targets() -> set[str]:
    import importlib

    report = importlib.import_module("receval.report")  # the package, not rv.report
    return {f"receval.report.{m}" for m in report._RENDERERS.values()}


def _cli_targets() -> set[str]:
    import importlib

    main = importlib.import_module("receval.cli.main")
    return {f"receval.cli.{name}_cmd" for name in main.COMMANDS}


def _adapter_targets() -> set[str]:
    import importlib

    package = importlib.import_module("receval.integrations")
    return {f"receval.integrations.{m}" for m in package.ADAPTERS}


def _third_party_only() -> set[str]:
    return set()  # errors.require imports optional third-party libraries, never receval


#: module that imports by name -> the receval modules it may import (read from its own table)
DYNAMIC_SITES: dict[str, Callable[[], set[str]]] = {
    "receval": lambda: _lazy_targets() | _plugin_targets(),
    "receval.report": _report_targets,
    "receval.cli.main": _cli_targets,
    "receval.errors": _third_party_only,
    "receval.integrations": _adapter_targets,
}


def _module_name(path: Path) -> str:
    rel = path.relative_to(SRC.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _dynamic_import_sites() -> dict[str, int]:
    """Every module of the package that calls ``import_module`` / ``__import__`` (count of
    calls), found in the source."""
    sites: dict[str, int] = {}
    for path in SRC.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Call):
                f = node.func
                name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
                if name in ("import_module", "__import__"):
                    mod = _module_name(path)
                    sites[mod] = sites.get(mod, 0) + 1
    return sites


def _graph(extra: tuple[tuple[str, str], ...] = ()):
    """The import graph of receval with the dynamic edges (and ``extra`` edges) added and the
    display hook left out."""
    grimp = pytest.importorskip("grimp")
    graph = grimp.build_graph("receval")
    for site, targets in DYNAMIC_SITES.items():
        for target in targets():
            graph.add_import(importer=site, imported=target)
    for importer, imported in extra:
        graph.add_import(importer=importer, imported=imported)
    for importer, imported in HOOKS:
        if graph.direct_import_exists(importer=importer, imported=imported):
            graph.remove_import(importer=importer, imported=imported)
    return graph


def _layers() -> list:
    grimp = pytest.importorskip("grimp")
    return [grimp.Layer(*[p.strip() for p in layer.split("|")], independent=True)
            for layer in LAYERS_CONTRACT["layers"]]


def _upward_edges(graph) -> list[str]:
    illegal = graph.find_illegal_dependencies_for_layers(
        layers=_layers(), containers=set(LAYERS_CONTRACT["containers"]))
    return sorted(f"{d.importer} -> {d.imported}: "
                  + "; ".join(" -> ".join(r.full_chain()) if hasattr(r, "full_chain") else
                              str(r) for r in d.routes)
                  for d in illegal)


def _cycles(graph) -> list[list[str]]:
    """Strongly connected components of two or more modules (Tarjan), but for a sub-package
    whose ``__init__`` re-exports its own modules; a component holding the package root is
    always a cycle."""
    modules = sorted(graph.modules)
    edges = {m: sorted(graph.find_modules_directly_imported_by(m)) for m in modules}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = [0]
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10 * len(modules) + 100))

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
                found.append(sorted(comp))

    for m in modules:
        if m not in index:
            visit(m)
    return [c for c in found if not _subpackage_reexport(c)]


def _subpackage_reexport(component: list[str]) -> bool:
    """A component made only of a sub-package and modules inside it (its ``__init__``
    re-exporting them); never the package root."""
    roots = {m for m in component if all(o == m or o.startswith(m + ".") for o in component)}
    return bool(roots) and "receval" not in roots


def _lint_command() -> list[str]:
    exe = shutil.which("lint-imports")
    if exe is not None:
        return [exe]
    pytest.importorskip("importlinter")
    return [sys.executable, "-c", "import sys; from importlinter.cli import lint_imports_command;"
            " sys.exit(lint_imports_command())"]


def test_import_linter_contracts_hold():
    proc = subprocess.run(_lint_command(), cwd=ROOT, capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    report = proc.stdout + proc.stderr
    assert proc.returncode == 0, report
    assert "BROKEN" not in report
    assert "KEPT" in report


def test_every_dynamic_import_is_declared():
    """A new ``import_module`` call site fails here until its targets are declared (and so
    checked by the layers and the cycle tests); a declared site that no longer imports by name
    is stale."""
    sites = _dynamic_import_sites()
    assert set(sites) == set(DYNAMIC_SITES), (
        f"undeclared: {sorted(set(sites) - set(DYNAMIC_SITES))}; "
        f"stale: {sorted(set(DYNAMIC_SITES) - set(sites))}")
    for site, targets in DYNAMIC_SITES.items():
        for target in targets():
            assert target.startswith("receval"), (site, target)
            assert (SRC.parent / target.replace(".", "/")).with_suffix(".py").exists() or \
                (SRC.parent / target.replace(".", "/") / "__init__.py").exists(), (site, target)


def test_no_upward_edge_dynamic_imports_included():
    assert not _upward_edges(_graph())


def test_no_import_cycles():
    assert not _cycles(_graph())


@pytest.mark.parametrize("planted", [
    ("receval.kernels", "receval"),            # a kernel importing the package root
    ("receval.metrics.spec", "receval"),
    ("receval.engines.evaluator", "receval.evaluate"),
])
def test_a_planted_cycle_is_found(planted):
    """The checks can fail: a cycle planted through the package root (or an upward edge into
    the entry layer) is reported."""
    graph = _graph(extra=(planted,))
    assert _cycles(graph), planted
    assert _upward_edges(graph) or planted[1] == "receval", planted


def test_a_planted_upward_dynamic_edge_is_found():
    graph = _graph(extra=(("receval.pack.packed", "receval.engines.local"),))
    assert any("receval.pack" in e for e in _upward_edges(graph))
