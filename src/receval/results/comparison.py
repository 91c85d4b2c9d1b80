"""Comparison: the data of a comparison of systems (summaries, paired tests) and its JSON.

:func:`receval.compare` computes it; :func:`receval.report` renders it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .._lazy import pandas
from ..errors import InputError, RecevalError, plain
from ..metrics import best_value, goodness, higher_is_better
from .jsonio import number, unnumber

if TYPE_CHECKING:
    import pandas as pd

PAIR_COLUMNS = ("metric", "a", "b", "n", "mean_a", "mean_b", "diff", "ci_low", "ci_high",
                "cohens_d", "wins", "ties", "losses", "statistic", "p_value", "p_adjusted",
                "significant")


@dataclass
class Comparison:
    """Result of :func:`compare`: per-system summaries and one row per (metric, pair).

    Attributes
    ----------
    systems : system names in the order given.
    metrics : metric keys compared.
    summary : ``{system: {metric: mean}}`` (the systems' own summary values).
    pairs : list of dicts with the columns of :data:`PAIR_COLUMNS`; ``diff = mean_a - mean_b``
        over the users both systems have a value for; ``significant`` uses ``p_adjusted``.
    baseline, test, correction, alpha, n_resamples, seed, options : the settings used.
    counts : users compared, users dropped per metric, ...
    results : the :class:`~receval.EvalResult` of every system (per-user values for plots).
    """

    systems: list[str]
    metrics: list[str]
    summary: dict[str, dict[str, float]]
    pairs: list[dict[str, Any]]
    baseline: str | None
    test: str
    correction: str
    alpha: float
    n_resamples: int
    seed: int | None
    counts: dict[str, Any] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)
    results: dict[str, Any] = field(default_factory=dict)

    # ---- access ---------------------------------------------------------------------------
    @property
    def table(self) -> pd.DataFrame:
        """The pairwise rows as a pandas frame (full precision)."""
        return pandas().DataFrame(self.pairs, columns=list(PAIR_COLUMNS))

    @property
    def summary_frame(self) -> pd.DataFrame:
        """Systems x metrics summary values."""
        return pandas().DataFrame(self.summary).T.loc[self.systems, self.metrics]

    def _metric(self, key: str) -> str:
        """The compared column of ``key``: a compared key, or a name the systems' results
        resolve to one (a library's name under a preset, :meth:`EvalResult._key`)."""
        from ..metrics import resolve_key

        if key not in self.metrics:
            for r in self.results.values():
                try:
                    resolved = r._key(key)
                except RecevalError:
                    continue
                if resolved in self.metrics:
                    return resolved
        return resolve_key(key, self.metrics, "this comparison")

    def pair(self, metric: str, a: str, b: str) -> dict[str, Any]:
        """The row comparing ``a`` and ``b`` on ``metric`` (signs flipped if stored as b, a).

        ``alternative`` says what the p-value tests about ``mean_a - mean_b`` in the order
        asked: a one-sided test stored as (b, a) with ``"greater"`` reads ``"less"`` here.
        """
        metric = self._metric(metric)
        for row in self.pairs:
            if row["metric"] != metric:
                continue
            alternative = self.options.get("alternative", "two-sided")
            if (row["a"], row["b"]) == (a, b):
                return {**row, "alternative": alternative}
            if (row["a"], row["b"]) == (b, a):
                out = dict(row)
                out["alternative"] = _MIRROR.get(alternative, alternative)
                out.update(a=a, b=b, mean_a=row["mean_b"], mean_b=row["mean_a"],
                           diff=-row["diff"], ci_low=-row["ci_high"], ci_high=-row["ci_low"],
                           cohens_d=-row["cohens_d"], wins=row["losses"], losses=row["wins"],
                           statistic=_neg_stat(row["statistic"], self.test))
                return out
        raise KeyError(f"no comparison of {plain(a)} and {plain(b)} on {plain(metric)}; systems are "
                       f"{self.systems} (baseline={plain(self.baseline)}).")

    def significant(self, metric: str, a: str, b: str) -> bool:
        """Whether ``a`` and ``b`` differ significantly on ``metric`` (after correction)."""
        return bool(self.pair(metric, a, b)["significant"])

    def beats(self, metric: str, system: str) -> list[str]:
        """Systems that ``system`` is significantly better than on ``metric``."""
        metric = self._metric(metric)
        hib = higher_is_better(metric)
        good = goodness(metric)
        target = best_value(metric) is not None
        out = []
        for row in self.pairs:
            if row["metric"] != metric or not row["significant"] or system not in (row["a"], row["b"]):
                continue
            other = row["b"] if row["a"] == system else row["a"]
            diff = row["diff"] if row["a"] == system else -row["diff"]
            if target:  # a best value inside the range: the summary closer to it wins
                if good(self.summary[system][metric]) > good(self.summary[other][metric]):
                    out.append(other)
            elif (diff > 0) == hib and diff != 0:
                out.append(other)
        return [s for s in self.systems if s in out]

    def best(self, metric: str) -> list[str]:
        """The system(s) with the best summary value on ``metric``."""
        metric = self._metric(metric)
        vals = {s: self.summary[s].get(metric, float("nan")) for s in self.systems}
        finite = [v for v in vals.values() if v == v]
        if not finite:
            return []
        good = goodness(metric)
        top = max(good(v) for v in finite)
        return [s for s, v in vals.items() if v == v and good(v) == top]

    # ---- display --------------------------------------------------------------------------
    def report(self, format: str = "text", path: str | None = None, **kwargs: Any) -> str:
        """Render with :func:`receval.report.report` (text, markdown, latex, csv, json, html)."""
        from ..report import display

        return display.render(self, format=format, path=path, **kwargs)

    def __repr__(self) -> str:
        from ..report import display

        return display.text(self)

    def _repr_html_(self) -> str:
        from ..report import display

        return display.html(self)

    # ---- serialization --------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            "format": "receval.Comparison/1",
            "systems": list(self.systems),
            "metrics": list(self.metrics),
            "summary": {s: {m: _num(v) for m, v in d.items()} for s, d in self.summary.items()},
            "pairs": [{k: _num(v) for k, v in row.items()} for row in self.pairs],
            "baseline": self.baseline,
            "test": self.test,
            "correction": self.correction,
            "alpha": self.alpha,
            "n_resamples": self.n_resamples,
            "seed": self.seed,
            "counts": self.counts,
            "options": self.options,
            "results": {name: r.to_dict() for name, r in self.results.items()},
        }

    def to_json(self, path: str | None = None, **kwargs: Any) -> str:
        from .jsonio import dump

        return dump(self.to_dict(), path, **kwargs)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Comparison:
        from .result import EvalResult, malformed, require_fields

        if not isinstance(data, dict) or data.get("format") != "receval.Comparison/1":
            data = data if isinstance(data, dict) else {"format": type(data).__name__}
            raise InputError(f"not a receval Comparison document (format={plain(data.get('format'))}).")
        what = "Comparison document"
        require_fields(data, ("systems", "metrics", "summary", "pairs", "test", "correction",
                              "alpha", "n_resamples"), what)
        with malformed(what):
            pairs = [{k: _unnum(k, v) for k, v in row.items()} for row in data["pairs"]]
            summary = {s: {m: _unnum("mean", v) for m, v in d.items()}
                       for s, d in data["summary"].items()}
            results = {name: EvalResult.from_dict(r)
                       for name, r in data.get("results", {}).items()}
            return cls(list(data["systems"]), list(data["metrics"]), summary, pairs,
                       data.get("baseline"), data["test"], data["correction"],
                       float(data["alpha"]), int(data["n_resamples"]), data.get("seed"),
                       data.get("counts", {}), data.get("options", {}), results)

    @classmethod
    def from_json(cls, text_or_path: str) -> Comparison:
        from .jsonio import load
        from .result import malformed

        with malformed("Comparison JSON"):
            data = load(text_or_path)
        return cls.from_dict(data)


_MIRROR = {"greater": "less", "less": "greater"}

_FLOAT_COLUMNS = {"mean_a", "mean_b", "diff", "ci_low", "ci_high", "cohens_d", "statistic",
                  "p_value", "p_adjusted", "mean"}


def _num(v: Any) -> Any:
    return number(v)


def _unnum(key: str, v: Any) -> Any:
    return unnumber(v) if key in _FLOAT_COLUMNS else v


def _neg_stat(stat: float, test: str) -> float:
    """The statistic of (b, a) from that of (a, b): min(W+, W-) is symmetric, others flip."""
    return stat if test == "wilcoxon" else -stat
