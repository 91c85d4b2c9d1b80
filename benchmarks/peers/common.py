"""What every preset check shares: seeded data with the edges that split conventions, the
report, and the registry of checks (:func:`check`). ``check_presets.py`` runs them."""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import math
import platform
import re
from collections.abc import Callable

import numpy as np

import receval as rv
from receval.compat import PRESETS

TOL = 1e-9
TOL_F32 = 1e-6  # float32 arithmetic: a few ulps of 1.0 (2^-23 = 1.2e-7) over a sum of terms
CUTS = (1, 3, 5, 10)

Run = dict[int, dict[int, float]]
Truth = dict[int, dict[int, int]]


# ---- data ----------------------------------------------------------------------------------------

def make_data(seed: int, *, ties: bool = True, graded: bool = True, full: bool = False,
              n_users: int = 40, n_items: int = 30, max_len: int = 15,
              edge_users: bool = True) -> tuple[Run, Truth]:
    """A seeded run and truth.

    Scores are positive multiples of 1/4 (exact in float32); ``ties=True`` draws them from
    five values, so most lists hold tied scores. Lists have 1..``max_len`` items (many shorter
    than the cutoffs) or, with ``full=True``, every item. Users ``u % 7 == 0`` have judged items
    that are all non-relevant (relevance 0), users ``u % 7 == 1`` have no truth rows at all,
    and three more users have truth but no list (``edge_users=False`` leaves both out). Graded
    relevance is 0..3, binary 0..1.
    """
    rng = np.random.default_rng(seed)
    run: Run = {}
    truth: Truth = {}
    top = 3 if graded else 1
    for u in range(n_users):
        if full:
            items = rng.permutation(n_items)
        else:
            items = rng.choice(n_items, size=int(rng.integers(1, max_len + 1)), replace=False)
        if ties:
            scores = rng.integers(1, 6, size=len(items)) * 0.25
        else:
            scores = (rng.permutation(len(items)) + 1) * 0.25
        run[u] = {int(i): float(s) for i, s in zip(items, scores, strict=True)}
        if edge_users and u % 7 == 1:
            continue
        judged = rng.choice(n_items, size=int(rng.integers(1, 9)), replace=False)
        # relevant items are drawn half from the list, so that lists have hits
        if len(items) and rng.random() < 0.8:
            judged[0] = items[int(rng.integers(0, min(len(items), 5)))]
            judged = np.unique(judged)
        rels = rng.integers(0 if edge_users else 1, top + 1, size=len(judged))
        if edge_users and u % 7 == 0:
            rels[:] = 0
        elif not rels.any():
            rels[0] = 1
        truth[u] = {int(i): int(r) for i, r in zip(judged, rels, strict=True)}
    if edge_users:
        for u in range(n_users, n_users + 3):
            judged = rng.choice(n_items, size=3, replace=False)
            truth[u] = {int(i): 1 for i in judged}
    return run, truth


def ranked(items: dict[int, float]) -> list[int]:
    """A list in receval's default tie order (ties='id'): score descending, then item id."""
    return [i for i, _ in sorted(items.items(), key=lambda kv: (-kv[1], kv[0]))]


def relevant(truth: Truth) -> dict[int, list[int]]:
    """Each user's relevant items (relevance > 0); users without one are left out."""
    out = {u: [i for i, r in t.items() if r > 0] for u, t in truth.items()}
    return {u: items for u, items in out.items() if items}


def binary(truth: Truth) -> Truth:
    return {u: {i: 1 for i in items} for u, items in relevant(truth).items()}


def strings(run: Run, truth: Truth) -> tuple[dict, dict]:
    """The run and truth with TREC-like string ids (``q007``, ``d012``)."""
    return ({f"q{u:03d}": {f"d{i:03d}": s for i, s in items.items()} for u, items in run.items()},
            {f"q{u:03d}": {f"d{i:03d}": r for i, r in items.items()}
             for u, items in truth.items()})


# ---- report ---------------------------------------------------------------------------------------

class Report:
    def __init__(self) -> None:
        self.rows: list[tuple[str, str, str, str, float, float, float]] = []
        self.notes: dict[tuple[str, str], list[str]] = {}
        self.missing: list[tuple[str, str, str]] = []
        self.errors: list[tuple[str, str]] = []
        self.checked: set[str] = set()
        self.info: list[str] = []

    def add(self, preset: str, label: str, metric: str, ours: float, theirs: float, *,
            tol: float = TOL, known: str = "") -> None:
        ours, theirs = float(ours), float(theirs)
        both_nan = math.isnan(ours) and math.isnan(theirs)
        diff = 0.0 if both_nan else abs(ours - theirs)
        ok = both_nan or diff <= tol
        if known and not ok:
            status = "KNOWN"
            self.notes.setdefault((preset, note(preset, known)), []).append(metric)
        else:
            status = "PASS" if ok else "FAIL"
        self.rows.append((status, preset, label, metric, ours, theirs, diff))
        self.checked.add(preset)

    def print(self) -> int:
        w_metric = max([len(r[3]) for r in self.rows] + [6])
        w_label = max([len(r[2]) for r in self.rows] + [7])
        print(f"receval {rv.__version__}, Python {platform.python_version()}, "
              f"numpy {np.__version__}")
        print()
        print(f"{'status':6s}  {'preset':16s}  {'library':{w_label}s}  {'metric':{w_metric}s}  "
              f"{'receval':>20s}  {'library value':>20s}  {'|diff|':>9s}")
        for status, preset, label, metric, ours, theirs, diff in self.rows:
            print(f"{status:6s}  {preset:16s}  {label:{w_label}s}  {metric:{w_metric}s}  "
                  f"{ours:20.15g}  {theirs:20.15g}  {diff:9.2e}")
        if self.notes:
            print()
            print("Known differences (documented in the preset, not counted as passes):")
            for (preset, text), metrics in self.notes.items():
                print(f"- {preset}: {', '.join(metrics)}:")
                print(f"    {text}")
        if self.info:
            print()
            for line in self.info:
                print(f"NOTE  {line}")
        for preset, error in self.errors:
            print(f"ERROR  {preset}: {error}")
        if self.missing:
            print()
            print("Libraries not installed (presets covered by worked examples in "
                  "tests/crosscheck/test_compat_presets.py):")
            for preset, library, reason in self.missing:
                print(f"NOT-INSTALLED  {preset}  {library}: {reason}")
        unchecked = self.unchecked()
        if unchecked:
            print()
            print("Preset entries without a line (each is a failure):")
            for preset, names in unchecked.items():
                print(f"UNCHECKED  {preset}: {', '.join(names)}")
        counts = {s: sum(r[0] == s for r in self.rows)
                  for s in ("PASS", "KNOWN", "FAIL", "REFUSED")}
        print()
        n_unchecked = sum(len(v) for v in unchecked.values())
        print(f"SUMMARY  {counts['PASS']} pass, {counts['KNOWN']} known, "
              f"{counts['REFUSED']} refused, {counts['FAIL']} fail, {len(self.errors)} error, "
              f"{n_unchecked} unchecked; presets checked: {len(self.checked)}, "
              f"not installed: {len(self.missing)}")
        return 1 if counts["FAIL"] or self.errors or n_unchecked else 0

    def refusals(self, preset: str) -> None:
        """One ``REFUSED`` line for each name the preset refuses, once receval is seen to refuse
        it with its reason (``FAIL`` when it evaluates it or gives another message)."""
        run, truth = {1: {1: 1.0, 2: 0.5}}, {1: {1: 1}}
        for lib_name, entry in PRESETS[preset].names.items():
            if not entry.refused:
                continue
            try:
                rv.evaluate(run, truth, [lib_name], compat=preset)
            except rv.MetricError as exc:
                ok = entry.refused in str(exc)
            else:
                ok = False
            self.rows.append(("REFUSED" if ok else "FAIL", preset, "receval", lib_name,
                              math.nan, math.nan, math.nan))
            self.checked.add(preset)

    def unchecked(self) -> dict[str, list[str]]:
        """The entries of each checked preset that no line names (a line's metric is the
        library's name, then ``@k``, ``(...)`` or a space and a label)."""
        seen: dict[str, set[str]] = {}
        for _, preset, _, metric, *_ in self.rows:
            seen.setdefault(preset, set()).add(_NAME.match(metric).group(0).lower())
        return {p: sorted(n for n in PRESETS[p].names if n not in seen.get(p, set()))
                for p in sorted(self.checked)
                if any(n not in seen.get(p, set()) for n in PRESETS[p].names)}


def version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "?"


def ours(run: Run | dict, truth: Truth | dict, names: list[str], preset: str,
         **policies: object) -> dict[str, float]:
    res = rv.evaluate(run, truth, names, compat=preset, **policies)
    return {n: float(res[n]) for n in names}


def note(preset: str, start: str) -> str:
    """The preset's own note on a known difference (a KNOWN line needs one)."""
    for text in PRESETS[preset].notes:
        if text.startswith(start):
            return text
    raise LookupError(f"preset {preset!r} documents no difference starting {start!r}")


#: the library's name at the start of a line's metric: up to ``@``, ``(`` or a space
_NAME = re.compile(r"[^@( ]+")

CHECKS: list[tuple[str, str, Callable[[Report], None]]] = []


def check(preset: str, library: str):
    def wrap(fn):
        CHECKS.append((preset, library, fn))
        return fn
    return wrap


class NotInstalled(Exception):
    pass


def need(module: str):
    try:
        return importlib.import_module(module)
    except Exception as exc:  # noqa: BLE001 - any import failure is a reason to report
        raise NotInstalled(f"import {module}: {type(exc).__name__}: "
                           f"{str(exc).splitlines()[0] if str(exc) else ''}") from exc
