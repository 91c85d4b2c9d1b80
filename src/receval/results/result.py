"""EvalResult: the one return type of an evaluation.

Holds per-user values (users x canonical metric keys), the summary statistics per metric
(mean, std, se, n, skipped), the counts of users evaluated / skipped / missing, the policies used
and provenance. Never rounds; serializes to JSON and back without loss.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..errors import InputError
from .jsonio import FORMAT_EVALRESULT, decode_ids, encode_ids, number, unnumber


@dataclass
class EvalResult:
    """Result of :func:`receval.evaluate`.

    Attributes
    ----------
    metrics : list of canonical metric keys, in request order.
    user_ids : raw ids of the evaluated users (row order of ``values``).
    values : float64 array (users x metrics); NaN where a user was skipped for a metric.
    stats : one dict per metric: ``metric, mean, std, se, n, skipped``.
    counts : users in truth / run, evaluated, skipped, missing from run / truth, rows, ...
    policies : the policies used (see :mod:`receval.policies`).
    info : per-metric facts (e.g. the catalogue size a coverage metric used).
    name : an optional label (the system's name in comparisons and reports).
    """

    metrics: list[str]
    user_ids: np.ndarray
    values: np.ndarray
    stats: list[dict[str, Any]]
    counts: dict[str, int]
    policies: dict[str, str]
    info: dict[str, Any] = field(default_factory=dict)
    name: str | None = None
    provenance: dict[str, Any] = field(default_factory=dict)

    # ---- access -------------------------------------------------------------------------
    @property
    def summary(self) -> dict[str, float]:
        """Metric key -> summary value (mean over evaluated users, or the micro ratio)."""
        return {row["metric"]: row["mean"] for row in self.stats}

    def _key(self, key: str) -> str:
        from ..metrics import resolve_key

        return resolve_key(key, self.metrics, "this result")

    def __getitem__(self, key: str) -> float:
        return self.summary[self._key(key)]

    def user_values(self, key: str) -> np.ndarray:
        """Per-user values of one metric (row order of ``user_ids``)."""
        return self.values[:, self.metrics.index(self._key(key))]

    def per_user_frame(self, backend: str = "pandas") -> Any:
        """One row per evaluated user, one column per metric key (``backend``: pandas|polars)."""
        data = {"user": self.user_ids}
        data.update({m: self.values[:, j] for j, m in enumerate(self.metrics)})
        if backend == "polars":
            from ..errors import require

            return require("polars", "polars").DataFrame(data)
        return pd.DataFrame(data).set_index("user")

    @property
    def per_user(self) -> pd.DataFrame:
        """pandas frame indexed by user; use :meth:`per_user_frame` for polars."""
        return self.per_user_frame("pandas")

    @property
    def stats_frame(self) -> pd.DataFrame:
        return pd.DataFrame(self.stats).set_index("metric")

    # ---- display ------------------------------------------------------------------------
    def table(self, digits: int = 4) -> str:
        """Plain-text table of the summary (rounded for display only)."""
        width = max([len(m) for m in self.metrics] + [6])
        lines = [f"{'metric':<{width}}  {'mean':>10}  {'std':>8}  {'n':>8}  {'skipped':>7}"]
        for row in self.stats:
            lines.append(
                f"{row['metric']:<{width}}  {_fmt(row['mean'], digits):>10}  "
                f"{_fmt(row['std'], digits):>8}  {row['n']:>8}  {row['skipped']:>7}"
            )
        c = self.counts
        lines.append(
            f"users: {c.get('evaluated', 0)} evaluated, {c.get('missing_from_run', 0)} missing "
            f"from the run (scored 0), {c.get('missing_from_truth', 0)} in the run but not the "
            f"truth (ignored), {c.get('skipped_no_relevant', 0)} with no relevant item (skipped)"
        )
        return "\n".join(lines)

    def __repr__(self) -> str:
        label = f" {self.name!r}" if self.name else ""
        return f"<EvalResult{label}: {len(self.user_ids)} users>\n{self.table()}"

    def _repr_html_(self) -> str:
        """The summary as an HTML table (Jupyter); rendered by the reports' display hook."""
        from ..report import display

        return display.html(self)

    # ---- serialization ------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The JSON document (see :mod:`receval.results.jsonio` for NaN and id encoding)."""
        return {
            "format": FORMAT_EVALRESULT,
            "name": self.name,
            "metrics": list(self.metrics),
            "summary": {k: number(v) for k, v in self.summary.items()},
            "user_ids": encode_ids(np.asarray(self.user_ids)),
            "values": [[number(v) for v in row] for row in self.values.tolist()],
            "stats": [{k: number(v) for k, v in r.items()} for r in self.stats],
            "counts": {k: number(v) for k, v in self.counts.items()},
            "policies": dict(self.policies),
            "info": self.info,
            "provenance": self.provenance,
        }

    def to_json(self, path: str | None = None, **kwargs: Any) -> str:
        """The JSON text of :meth:`to_dict` (also written to ``path`` when given)."""
        from .jsonio import dump

        return dump(self.to_dict(), path, **kwargs)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> EvalResult:
        if not isinstance(data, dict) or data.get("format") != FORMAT_EVALRESULT:
            fmt = data.get("format") if isinstance(data, dict) else type(data).__name__
            raise InputError(f"not a receval EvalResult document (format={fmt!r}).")
        missing = [k for k in ("metrics", "user_ids", "values", "stats", "counts", "policies")
                   if k not in data]
        if missing:
            raise InputError(f"incomplete EvalResult document: it has no {missing}.")
        user_ids = decode_ids(data["user_ids"])
        values = np.array([[unnumber(v) for v in row] for row in data["values"]],
                          dtype=np.float64).reshape(len(user_ids), len(data["metrics"]))
        stats = [{k: unnumber(v) if k in ("mean", "std", "se") else v for k, v in r.items()}
                 for r in data["stats"]]
        return cls(list(data["metrics"]), user_ids, values, stats, dict(data["counts"]),
                   dict(data["policies"]), data.get("info", {}), data.get("name"),
                   data.get("provenance", {}))

    @classmethod
    def from_json(cls, text_or_path: str) -> EvalResult:
        from .jsonio import load

        return cls.from_dict(load(text_or_path))


def _fmt(value: float, digits: int) -> str:
    return "nan" if value is None or (isinstance(value, float) and math.isnan(value)) \
        else f"{value:.{digits}f}"
