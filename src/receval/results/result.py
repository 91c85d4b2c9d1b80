"""EvalResult: the one return type of an evaluation.

Holds per-user values (users x canonical metric keys), the summary statistics per metric
(mean, std, se, n, skipped), the counts of users evaluated / skipped / missing, the policies used
and provenance. Never rounds; serializes to JSON and back without loss.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from .._lazy import pandas
from ..errors import InputError, MetricError, PolicyError, RecevalError, plain, suggest
from .jsonio import FORMAT_EVALRESULT, decode_ids, encode_ids, number, numbers, unnumber

if TYPE_CHECKING:
    import pandas as pd


def users_summary(counts: dict[str, int]) -> str:
    """Where the users of a result went, in words (every footer's one sentence): evaluated,
    scored 0 without a list, left out by the ``users`` policy, skipped. The counts add up as
    :mod:`receval.engines.totals` writes."""
    c = counts
    only_run = int(c.get("missing_from_truth", 0))
    ignored = int(c.get("run_users_left_out", only_run))
    fate = "ignored" if ignored == only_run else "evaluated" if not ignored \
        else f"{ignored} ignored"
    left_out = int(c.get("truth_users_left_out", 0))
    return (f"{c.get('evaluated', 0)} evaluated, {c.get('missing_from_run', 0)} missing from "
            "the run (scored 0), "
            + (f"{left_out} in the truth without a list (left out), " if left_out else "")
            + f"{only_run} in the run but not the truth ({fate}), "
            f"{c.get('skipped_no_relevant', 0)} with no relevant item (skipped)")


@dataclass
class EvalResult:
    """Result of :func:`receval.evaluate`.

    Attributes
    ----------
    metrics : list of canonical metric keys, in request order.
    user_ids : raw ids of the evaluated users (row order of ``values``).
    values : float64 array (users x metrics); NaN where a user was skipped for a metric.
    stats : one dict per metric: ``metric, mean, std, se, n, skipped``.
    counts : users in truth / run, evaluated, skipped, missing from run / truth, left out by
        the ``users`` policy, rows, ...; the users add up as :mod:`receval.engines.totals`
        writes (``truth_users = run_users - missing_from_truth + missing_from_run +
        truth_users_left_out``, ...).
    policies : the policies used (see :mod:`receval.policies`).
    info : per-metric facts (e.g. the catalogue size a coverage metric used).
    name : an optional label (the system's name in comparisons and reports).
    group_stats : with ``groups=``, one row per group and metric: ``group, metric, mean, std,
        se, n, skipped, users, missing_from_run`` (:attr:`by_group` adds intervals).
    group_of : with ``groups=``, each user's group label (None: no group), row order of
        ``user_ids``.
    slices : with ``slices=``, the result of each slice of the truth (``"repeat"``,
        ``"explore"``; :mod:`receval.engines.slices`).
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
    group_stats: list[dict[str, Any]] = field(default_factory=list)
    group_of: np.ndarray | None = None
    item_table: Any = None
    item_group_table: Any = None
    slices: dict[str, EvalResult] = field(default_factory=dict)

    # ---- access -------------------------------------------------------------------------
    @property
    def summary(self) -> dict[str, float]:
        """Metric key -> summary value (mean over evaluated users, or the micro ratio)."""
        return {row["metric"]: row["mean"] for row in self.stats}

    def _key(self, key: str) -> str:
        """The column of ``key``: a key of the result, or under a library preset any name the
        preset resolves to one (the names asked for, and the library's other spellings:
        ``NDCG@10`` and ``ndcg@10`` under ``compat="recbole"``), else receval's resolution."""
        from ..metrics import resolve_key

        compat = self.info.get("compat", {})
        names = compat.get("names", {})
        if key in names:
            return names[key]
        if key not in self.metrics and compat.get("preset"):
            from ..compat import resolve

            try:
                _, _, resolved = resolve(compat["preset"], [key])
            except RecevalError:  # not a name of the preset: receval's message below
                resolved = {}
            if resolved.get(key) in self.metrics:
                return resolved[key]
        return resolve_key(key, self.metrics, "this result")

    def __getitem__(self, key: str) -> float:
        if not isinstance(key, str):
            raise TypeError(f"a result is indexed by a metric key such as 'ndcg@10', not by "
                            f"{type(key).__name__} {key!r}; its keys are {self.metrics}.")
        return self.summary[self._key(key)]

    def __iter__(self) -> Iterator[str]:
        """The metric keys, in request order (``dict(result)``: each key's mean)."""
        return iter(self.metrics)

    def __len__(self) -> int:
        return len(self.metrics)

    def keys(self) -> list[str]:
        """The metric keys, in request order."""
        return list(self.metrics)

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
        return pandas().DataFrame(data).set_index("user")

    @property
    def per_user(self) -> pd.DataFrame:
        """pandas frame indexed by user; use :meth:`per_user_frame` for polars."""
        return self.per_user_frame("pandas")

    @property
    def stats_frame(self) -> pd.DataFrame:
        """The summary of each metric (``mean, std, se, n, skipped``), indexed by metric; the
        distribution of the per-user values is :meth:`distributions`."""
        return pandas().DataFrame(self.stats).set_index("metric")

    def confidence_intervals(self, level: float = 0.95, method: str = "t", *,
                             n_resamples: int = 10000, rng: int | None = 0) -> pd.DataFrame:
        """Confidence interval of each metric's mean over users, one row per metric.

        ``method``: ``"t"`` (Student t from the exact mean and standard error of the summary:
        ``mean +- t_{(1+level)/2, n-1} se``), ``"percentile"`` (alias ``"bootstrap"``) or
        ``"bca"`` (bootstrap over the users with a value, ``n_resamples`` resamples drawn from
        the seed ``rng`` and the number of users only, so the same seed gives the same
        interval). Formulas: :mod:`receval.results.intervals`.

        Columns: ``metric, mean, ci_low, ci_high, level, method, n, note``. The interval is NaN,
        with the reason in ``note``, where the summary is not a mean over users (catalogue-wide
        values such as coverage, micro averages), or with fewer than 2 users.

        Example: per-user values ``[0, 1, 1, 1]`` (mean 3/4, se 1/4): the 95% t interval is
        ``3/4 +- t_{0.975, 3} / 4``.
        """
        from ..metrics import parse_metric
        from .intervals import CI_METHODS, bootstrap_interval, check_level, t_bounds

        level = check_level(level)
        name = {"bootstrap": "percentile"}.get(method, method)
        if name not in CI_METHODS:
            raise PolicyError(f"method={method!r} is not valid; choose one of "
                              f"{list(CI_METHODS) + ['bootstrap']}."
                              + suggest(str(method), CI_METHODS))
        seed = None if rng is None else int(rng)
        rows = []
        for j, st in enumerate(self.stats):
            key = st["metric"]
            x = self.values[:, j]
            x = x[np.isfinite(x)]
            mean = st["mean"]
            lo = hi = math.nan
            note = ""
            try:
                spec = parse_metric(key)
                kernel = spec.definition.kernel
                micro = (kernel is not None and kernel.micro_requests(spec) is not None) or \
                    spec.definition.aggregate == "micro"
                pooled = spec.definition.aggregate == "pooled"
            except MetricError:  # e.g. a key from a newer version
                micro = pooled = False
            if pooled:
                note = "pooled over every user's pairs (not a mean over users)"
            elif micro:
                note = "micro average (a ratio of sums, not a mean over users)"
            elif not len(x):
                note = "catalogue-wide value (no per-user values)"
            elif mean != mean or abs(float(np.mean(x)) - mean) > 1e-9 * max(1.0, abs(mean)):
                note = "the summary is not the mean of the per-user values"
            elif len(x) < 2:
                note = "fewer than 2 users"
            elif name == "t":
                lo, hi = (float(v) for v in t_bounds(mean, st["se"], int(st["n"]), level=level))
            else:
                lo, hi = bootstrap_interval(x, level=level, method=name,
                                            n_resamples=n_resamples, seed=seed)
            rows.append({"metric": key, "mean": mean, "ci_low": lo, "ci_high": hi,
                         "level": level, "method": name, "n": int(len(x)), "note": note})
        return pandas().DataFrame(rows, columns=["metric", "mean", "ci_low", "ci_high", "level",
                                           "method", "n", "note"])

    # ---- items --------------------------------------------------------------------------
    @property
    def per_item(self) -> pd.DataFrame:
        """One row per item recommended or held (``per_item=`` of the evaluation):
        ``recommended, exposure, hits, holders, recall, truth_share``
        (:mod:`receval.engines.items`)."""
        if self.item_table is None:
            raise InputError("this result has no per-item table: evaluate with per_item=True "
                             "(or per_item=k).")
        return self.item_table

    @property
    def by_item_group(self) -> pd.DataFrame:
        """The per-item table summed per item group (``item_groups=`` of the evaluation)."""
        if self.item_group_table is None:
            raise InputError("this result has no item groups: evaluate with item_groups="
                             "{item: group} (and per_item=...).")
        return self.item_group_table

    # ---- groups -------------------------------------------------------------------------
    @property
    def by_group(self) -> pd.DataFrame:
        """One row per group and metric: ``group, metric, mean, std, se, ci_low, ci_high, n,
        skipped, users, missing_from_run`` (95% Student-t intervals;
        :mod:`receval.results.groups`)."""
        from .groups import by_group_frame

        return by_group_frame(self)

    def gap(self, metric: str, how: str = "max-min", *, level: float = 0.95,
            n_resamples: int = 2000, rng: int | None = 0) -> dict[str, Any]:
        """The gap between the groups' means of ``metric`` (``how``: ``"max-min"``,
        ``"ratio"``, ``"worst"``, ``"cv"``) with a stratified bootstrap interval
        (:func:`receval.results.groups.gap`)."""
        from .groups import gap

        return gap(self, metric, how, level=level, n_resamples=n_resamples, rng=rng)

    def distribution(self, metric: str,
                     quantiles: tuple[float, ...] = (0.1, 0.25, 0.5, 0.75, 0.9)
                     ) -> dict[str, Any]:
        """Quantiles, share at 0 and Gini coefficient of ``metric``'s per-user values, overall
        and per group (:func:`receval.results.groups.distribution`)."""
        from .groups import distribution

        return distribution(self, metric, quantiles)

    def distributions(self, quantiles: tuple[float, ...] = (0.1, 0.25, 0.5, 0.75, 0.9)
                      ) -> pd.DataFrame:
        """:meth:`distribution` of every metric as a frame, one row per metric: ``n``, each
        quantile (``q0.5``, ...), ``share_zero`` and ``gini`` of the per-user values (NaN for a
        catalogue-wide metric, which has none)."""
        from .groups import distribution

        rows = []
        for key in self.metrics:
            d = distribution(self, key, quantiles)
            rows.append({"metric": key, "n": d["n"],
                         **{f"q{q:g}": v for q, v in d["quantiles"].items()},
                         "share_zero": d["share_zero"], "gini": d["gini"]})
        return pandas().DataFrame(rows).set_index("metric")

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
        if "missing_from_a" in c:  # rv.run_overlap: two runs compared, no truth
            lines.append(
                f"users: {c.get('users', 0)} compared, {c.get('missing_from_a', 0)} without a "
                f"list in run a, {c.get('missing_from_b', 0)} without a list in run b"
            )
            return "\n".join(lines)
        lines.append(f"users: {users_summary(c)}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        label = f" {plain(self.name)}" if self.name else ""
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
            "values": numbers(self.values),
            "stats": [{k: number(v) for k, v in r.items()} for r in self.stats],
            "counts": {k: number(v) for k, v in self.counts.items()},
            "policies": dict(self.policies),
            "info": self.info,
            "provenance": self.provenance,
            **({"group_stats": [{k: number(v) if isinstance(v, float) else v
                                 for k, v in r.items()} for r in self.group_stats],
                "group_of": [None if g is None else str(g)
                             for g in (self.group_of if self.group_of is not None else [])]}
               if self.group_stats else {}),
            **({"per_item": _frame_doc(self.item_table)} if self.item_table is not None
               else {}),
            **({"by_item_group": _frame_doc(self.item_group_table)}
               if self.item_group_table is not None else {}),
            **({"slices": {n: r.to_dict() for n, r in self.slices.items()}}
               if self.slices else {}),
        }

    def to_json(self, path: str | None = None, **kwargs: Any) -> str:
        """The JSON text of :meth:`to_dict` (also written to ``path`` when given)."""
        from .jsonio import dump

        return dump(self.to_dict(), path, **kwargs)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> EvalResult:
        if not isinstance(data, dict) or data.get("format") != FORMAT_EVALRESULT:
            fmt = data.get("format") if isinstance(data, dict) else type(data).__name__
            raise InputError(f"not a receval EvalResult document (format={plain(fmt)}).")
        require_fields(data, ("metrics", "user_ids", "values", "stats", "counts", "policies"),
                       "EvalResult document")
        with malformed("EvalResult document"):
            metrics = list(data["metrics"])
            user_ids = decode_ids(data["user_ids"])
            values = np.array([[unnumber(v) for v in row] for row in data["values"]],
                              dtype=np.float64)
            if values.size == 0:
                values = values.reshape(len(user_ids), len(metrics))
            if values.shape != (len(user_ids), len(metrics)):
                raise InputError(
                    f"malformed EvalResult document: 'values' is {values.shape[0]} x "
                    f"{values.shape[1] if values.ndim == 2 else '?'} but there are "
                    f"{len(user_ids)} users and {len(metrics)} metrics."
                )
            if len(data["stats"]) != len(metrics):
                raise InputError(f"malformed EvalResult document: 'stats' has "
                                 f"{len(data['stats'])} rows for {len(metrics)} metrics.")
            for i, row in enumerate(data["stats"]):
                require_fields(row, STAT_FIELDS, f"EvalResult document: 'stats' row {i}")
            stats = [{k: unnumber(v) if k in ("mean", "std", "se") else v for k, v in r.items()}
                     for r in data["stats"]]
            group_stats = [{k: unnumber(v) if k in ("mean", "std", "se") else v
                            for k, v in r.items()} for r in data.get("group_stats", [])]
            group_of = None
            if group_stats:
                group_of = np.empty(len(user_ids), dtype=object)
                group_of[:] = list(data["group_of"])
            items = _frame_of(data["per_item"]) if "per_item" in data else None
            item_groups = _frame_of(data["by_item_group"]) if "by_item_group" in data \
                else None
            slices = {str(n): cls.from_dict(d) for n, d in data.get("slices", {}).items()}
            return cls(metrics, user_ids, values, stats, dict(data["counts"]),
                       dict(data["policies"]), data.get("info", {}), data.get("name"),
                       data.get("provenance", {}), group_stats, group_of, items, item_groups,
                       slices)

    @classmethod
    def from_json(cls, text_or_path: str) -> EvalResult:
        from .jsonio import load

        with malformed("EvalResult JSON"):
            data = load(text_or_path)
        return cls.from_dict(data)


def _frame_doc(frame: Any) -> dict[str, Any]:
    """A per-item (or per item group) frame as JSON: its index ids, columns and values."""
    return {"index": encode_ids(np.asarray(frame.index.to_numpy())),
            "index_name": frame.index.name, "attrs": dict(frame.attrs),
            "columns": {c: numbers(frame[c].to_numpy(dtype=np.float64)) for c in frame.columns}}


def _frame_of(doc: dict[str, Any]) -> Any:
    """The frame of :func:`_frame_doc` (count columns back to integers)."""
    pd = pandas()
    cols = {c: np.array([unnumber(v) for v in vals], dtype=np.float64)
            for c, vals in doc["columns"].items()}
    for c in ("recommended", "hits", "holders", "items"):
        if c in cols:
            cols[c] = cols[c].astype(np.int64)
    frame = pd.DataFrame(cols, index=pd.Index(decode_ids(doc["index"]), name=doc["index_name"]))
    frame.attrs.update(doc.get("attrs", {}))
    return frame


def _fmt(value: float, digits: int) -> str:
    return "nan" if value is None or (isinstance(value, float) and math.isnan(value)) \
        else f"{value:.{digits}f}"


#: The fields of every ``stats`` row (see :class:`receval.engines.aggregate.MetricState`).
STAT_FIELDS = ("metric", "mean", "std", "se", "n", "skipped")


def require_fields(data: Any, fields: Iterable[str], what: str) -> None:
    """Raise :class:`InputError` naming every field of ``fields`` that ``data`` lacks."""
    if not isinstance(data, dict):
        raise InputError(f"malformed {what}: expected a JSON object, got {type(data).__name__}.")
    missing = [k for k in fields if k not in data]
    if missing:
        raise InputError(f"incomplete {what}: it has no {', '.join(map(repr, missing))} "
                         f"field{'s' if len(missing) > 1 else ''}.")


@contextmanager
def malformed(what: str) -> Iterator[None]:
    """Turn a raw error while decoding a JSON document into an :class:`InputError`."""
    try:
        yield
    except RecevalError:
        raise
    except KeyError as exc:
        raise InputError(f"incomplete {what}: a field {plain(exc.args[0])} is missing.") from exc
    except (TypeError, ValueError, AttributeError, IndexError) as exc:
        raise InputError(f"malformed {what}: {exc}.") from exc
