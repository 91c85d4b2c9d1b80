"""What every renderer shows, computed once: the table cells, significance marks, definitions.

Reports never compute statistics: marks come from a :class:`~receval.stats.Comparison`.
"""

from __future__ import annotations

import math
import string
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import InputError, plain


@dataclass
class Cell:
    value: float
    best: bool = False
    beats: list[str] = field(default_factory=list)  # letters of the systems it beats
    vs_baseline: str = ""  # "+" significantly better than the baseline, "-" worse, "" neither


@dataclass
class TableModel:
    """Systems (rows) x metrics (columns) with marks; or one system's stats for an EvalResult."""

    title: str
    systems: list[str]
    metrics: list[str]
    cells: dict[tuple[str, str], Cell]
    letters: dict[str, str]
    baseline: str | None = None
    notes: list[str] = field(default_factory=list)
    comparison: Any = None
    single: Any = None  # the EvalResult when reporting a single result
    #: per-group summaries of the systems evaluated with groups (:func:`group_rows`)
    groups: list[dict[str, Any]] = field(default_factory=list)
    group_notes: list[str] = field(default_factory=list)
    group_level: float = 0.95

    def group_table(self) -> list[dict[str, Any]]:
        """The per-group rows of the metrics shown."""
        shown = set(self.metrics)
        return [r for r in self.groups if r["metric"] in shown]

    def fmt(self, value: float, digits: int) -> str:
        if value is None or (isinstance(value, float) and math.isnan(value)):
            return "–"
        return f"{value:.{digits}f}"


def letters_for(systems: list[str]) -> dict[str, str]:
    pool = string.ascii_lowercase
    return {s: (pool[i] if i < 26 else f"s{i}") for i, s in enumerate(systems)}


def build(obj: Any, *, title: str | None = None, metrics: list[str] | None = None) -> TableModel:
    """A :class:`TableModel` from a Comparison, an EvalResult or a dict of EvalResults;
    ``metrics`` restricts (and orders) the columns shown."""
    model = _build(obj, title)
    if metrics is not None:
        chosen = []
        for m in metrics:
            if m not in model.metrics:
                from ..errors import UnknownMetricError, suggest

                raise UnknownMetricError(f"metric {plain(m)} is not in the report; it has "
                                         f"{model.metrics}." + suggest(m, model.metrics))
            chosen.append(m)
        model.metrics = chosen
    return model


#: columns of a per-group row (:func:`group_rows`)
GROUP_COLUMNS = ("system", "group", "metric", "mean", "ci_low", "ci_high", "n", "skipped",
                 "missing_from_run")


def group_rows(results: Mapping[str, Any], level: float = 0.95
               ) -> tuple[list[dict[str, Any]], list[str]]:
    """Per system evaluated with groups, its rows of ``by_group`` (the group's mean, its
    Student-t interval at ``level``, n, skipped, missing from the run; columns
    :data:`GROUP_COLUMNS`), and notes counting the users without a group. Reads the results'
    group summaries (:func:`receval.results.groups.by_group_frame`); computes nothing new."""
    from ..results.groups import by_group_frame

    rows: list[dict[str, Any]] = []
    said: dict[str, list[str]] = {}
    for system, res in results.items():
        if not getattr(res, "group_stats", None):
            continue
        frame = by_group_frame(res, level=level)
        for rec in frame.to_dict(orient="records"):
            rows.append({"system": str(system), **{c: rec[c] for c in GROUP_COLUMNS[1:]}})
        info = res.info.get("groups", {}) if isinstance(res.info, Mapping) else {}
        ungrouped = info.get("ungrouped")
        if ungrouped is not None:
            text = (f"{ungrouped} evaluated user(s) without a group (in the overall results "
                    f"only); {info.get('listed_not_evaluated', 0)} user(s) listed in the "
                    "groups but not evaluated.")
            said.setdefault(text, []).append(str(system))
    if len(said) == 1:  # every system alike: one note
        return rows, [f"Groups: {next(iter(said))}"]
    return rows, [f"Groups of {', '.join(systems)}: {text}" for text, systems in said.items()]


def _with_groups(model: TableModel, results: Mapping[str, Any], level: float) -> TableModel:
    model.groups, model.group_notes = group_rows(results, level)
    model.group_level = level
    return model


def _build(obj: Any, title: str | None) -> TableModel:
    from ..results import Comparison, EvalResult

    if isinstance(obj, Comparison):
        model = _with_groups(_build_table(obj, title), obj.results, 1.0 - float(obj.alpha))
        tested = obj.counts.get("groups") if getattr(obj, "group_pairs", None) else None
        if tested:
            text = (f"Tests within groups: {tested.get('ungrouped', 0)} compared user(s) "
                    "without a group (in the overall tests only)")
            if "listed_not_compared" in tested:
                text += f"; {tested['listed_not_compared']} listed user(s) not compared"
            model.group_notes.append(text + ".")
        return model
    if isinstance(obj, EvalResult):
        return _with_groups(_build_table(obj, title), {obj.name or "system": obj}, 0.95)
    model = _build_table(obj, title)
    return _with_groups(model, {str(k): v for k, v in obj.items()}, 0.95)


def _build_table(obj: Any, title: str | None) -> TableModel:
    from ..results import Comparison, EvalResult
    from ..results.result import users_summary

    if isinstance(obj, Comparison):
        return _from_comparison(obj, title)
    if isinstance(obj, EvalResult):
        name = obj.name or "system"
        cells = {(name, m): Cell(float(v)) for m, v in obj.summary.items()}
        model = TableModel(title or f"receval: {name}", [name], list(obj.metrics), cells,
                           {name: "a"}, single=obj)
        model.notes.append(f"users: {users_summary(obj.counts)}.")
        return model
    if isinstance(obj, Mapping) and obj and all(isinstance(v, EvalResult) for v in obj.values()):
        systems = [str(k) for k in obj]
        metrics = [m for m in next(iter(obj.values())).metrics
                   if all(m in r.metrics for r in obj.values())]
        cells = {(str(s), m): Cell(float(r.summary[m])) for s, r in obj.items() for m in metrics}
        model = TableModel(title or "receval: systems", systems, metrics, cells,
                           letters_for(systems))
        _mark_best(model)
        model.notes.append("No significance tests: use rv.compare(...) for marks.")
        return model
    raise InputError(
        f"report() needs an EvalResult, a Comparison or a dict of EvalResults, got "
        f"{type(obj).__name__}."
    )


def _mark_best(model: TableModel) -> None:
    from ..metrics import goodness

    for m in model.metrics:
        vals = [model.cells[(s, m)].value for s in model.systems]
        finite = [v for v in vals if v == v]
        if len(model.systems) < 2 or not finite:
            continue
        good = goodness(m)
        top = max(good(v) for v in finite)
        for s in model.systems:
            v = model.cells[(s, m)].value
            model.cells[(s, m)].best = v == v and good(v) == top


def _from_comparison(cmp: Any, title: str | None) -> TableModel:
    from ..stats import TEST_TITLES

    letters = letters_for(cmp.systems)
    cells = {(s, m): Cell(float(cmp.summary[s][m])) for s in cmp.systems for m in cmp.metrics}
    model = TableModel(title or "receval comparison", list(cmp.systems), list(cmp.metrics), cells,
                       letters, baseline=cmp.baseline, comparison=cmp)
    _mark_best(model)
    for m in cmp.metrics:
        for s in cmp.systems:
            cell = cells[(s, m)]
            cell.beats = [letters[o] for o in cmp.beats(m, s)]
            if cmp.baseline is not None and s != cmp.baseline:
                if cmp.baseline in cmp.beats(m, s):
                    cell.vs_baseline = "+"
                elif s in cmp.beats(m, cmp.baseline):
                    cell.vs_baseline = "-"
    corr = {"none": "no correction", "bonferroni": "Bonferroni", "holm": "Holm",
            "hochberg": "Hochberg", "sidak": "Šidák", "holm-sidak": "Holm-Šidák",
            "bh": "Benjamini-Hochberg", "by": "Benjamini-Yekutieli"}.get(cmp.correction,
                                                                         cmp.correction)
    alternative = cmp.options.get("alternative", "two-sided")
    if alternative != "two-sided":  # H1 for each tested pair (a, b): mean_a - mean_b > 0 / < 0
        corr += f", one-sided ({alternative}: H1 mean_a - mean_b {'>' if alternative == 'greater' else '<'} 0)"
    legend = ", ".join(f"{letters[s]} = {s}" for s in cmp.systems)
    model.notes.append(
        f"Superscripts name the systems a value is significantly better than ({legend}); "
        f"{TEST_TITLES.get(cmp.test, cmp.test)}, {corr}"
        + ("" if cmp.test == "tukey" else f" over each {cmp.options.get('family', 'metric')} family")
        + f", alpha = {cmp.alpha:g}; {cmp.counts.get('users_compared', '?')} users."
    )
    if cmp.baseline is not None:
        model.notes.append(f"Only pairs with the baseline {plain(cmp.baseline)} were tested.")
    return model


def definitions(metrics: list[str]) -> list[dict[str, Any]]:
    """Title, formula, documentation and parameter values of every metric key."""
    from ..metrics import parse_metric

    out = []
    for key in metrics:
        try:
            spec = parse_metric(key)
            d = spec.definition
        except (KeyError, ValueError):
            out.append({"key": key, "title": key, "formula": "", "doc": "(unknown metric)",
                        "params": [], "reference": "", "k": None})
            continue
        params = [{"name": p.name, "value": spec.get(p.name), "default": p.default,
                   "doc": p.doc} for p in d.params]
        out.append({"key": key, "title": d.title, "formula": d.formula, "doc": d.doc,
                    "params": params, "reference": d.reference, "k": spec.k,
                    "higher_is_better": d.higher_is_better, "aggregate": d.aggregate})
    return out
