"""A ledger of past experiments: per experiment, the offline effect of the treatment model over
the control model on each offline metric and the online effect measured by its A/B test or
interleaving, each with a standard error. One long table (``experiment, side, metric, delta, se,
p_value``) that saves to CSV, Parquet or JSON and loads back (experiment ids and metric names
stay text: ``"000"`` is not ``0``). Each (experiment, side, metric) appears once; ``delta`` is a
number (NaN: not measured, counted as skipped by :func:`~receval.online.agreement`), ``se`` is
>= 0 or NaN, ``p_value`` in [0, 1] or NaN.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from ..errors import InputError, plain
from ..validation import InstanceOf, validate_params
from ._frames import need, numeric, to_pandas, unique_rows

COLUMNS = ("experiment", "side", "metric", "delta", "se", "p_value")
_TEXT = COLUMNS[:3]


def _se_from_ci(lo: float, hi: float, alpha: float) -> float:
    z = float(stats.norm.ppf(1 - alpha / 2))
    return (hi - lo) / (2 * z) if np.isfinite(lo) and np.isfinite(hi) else math.nan


def _offline_rows(offline: Any, treatment: str | None, control: str | None) -> list[tuple]:
    if hasattr(offline, "pair") and hasattr(offline, "metrics"):  # a receval Comparison
        if treatment is None or control is None:
            raise InputError("give treatment= and control= (system names of the Comparison) to "
                             "take the offline deltas from it.")
        out = []
        for m in offline.metrics:
            r = offline.pair(m, treatment, control)
            out.append((m, float(r["diff"]), _se_from_ci(r["ci_low"], r["ci_high"],
                                                         offline.alpha), float(r["p_value"])))
        return out
    return _mapping_rows(offline, "offline")


def _online_rows(online: Any, arm: str | None) -> list[tuple]:
    if hasattr(online, "kind") and hasattr(online, "rows"):  # an OnlineResult
        out = []
        for r in online.rows:
            if online.kind == "ab":
                if arm is not None and r["arm"] != str(arm):
                    continue
                out.append((r["metric"], r["effect"], r["se"], r["p_value"]))
            elif online.kind == "interleave":
                out.append((f"interleave:{r['pair']}", r["delta"],
                            _se_from_ci(r["ci_low"], r["ci_high"], 0.05), r["p_sign"]))
            elif online.kind in ("ope", "ope_compare"):
                key = r.get("estimator") or r.get("pair")
                out.append((f"ope:{key}", r.get("value", r.get("diff")), r["se"],
                            r.get("p_value", math.nan)))
        return out
    return _mapping_rows(online, "online")


def _mapping_rows(d: Any, side: str) -> list[tuple]:
    if not isinstance(d, Mapping):
        raise InputError(f"{side} must be a Comparison / OnlineResult or a dict "
                         "{metric: (delta, se[, p_value])}; got " + type(d).__name__ + ".")
    out = []
    for m, v in d.items():
        try:
            if isinstance(v, Mapping):
                extra = set(v) - {"delta", "se", "p_value"}
                if extra or "delta" not in v:
                    raise ValueError(f"keys {sorted(map(str, v))}")
                t = (v["delta"], v.get("se", math.nan), v.get("p_value", math.nan))
            else:
                t = tuple(v) if isinstance(v, (tuple, list)) else (v,)
                if not 1 <= len(t) <= 3:
                    raise ValueError(f"{len(t)} values")
                t = t + (math.nan,) * (3 - len(t))
            vals = tuple(math.nan if x is None else float(x) for x in t)
            if any(isinstance(x, (bool, str)) for x in t):
                raise ValueError("text or bool")
        except (TypeError, ValueError, KeyError) as exc:
            raise InputError(f"{side} effect of metric {plain(m)} is not valid ({exc}): give "
                             "(delta, se[, p_value]) numbers or {'delta': ..., 'se': ..., "
                             f"'p_value': ...}}; got {plain(v)}.") from None
        out.append((m, *vals))
    return out


@dataclass
class Ledger:
    """Past experiments, offline and online side by side (see the module docstring)."""

    rows: list[dict[str, Any]] = field(default_factory=list)

    @validate_params({"experiment": [InstanceOf(str)], "treatment": [None, InstanceOf(str)],
                      "control": [None, InstanceOf(str)], "arm": [None, InstanceOf(str)]})
    def add(self, experiment: str, *, offline: Any, online: Any, treatment: str | None = None,
            control: str | None = None, arm: str | None = None) -> Ledger:
        """Record one experiment; ``offline``: a :class:`receval.Comparison` (with
        ``treatment`` / ``control`` system names) or ``{metric: (delta, se[, p])}``;
        ``online``: an A/B or interleaving result (``arm`` picks a treatment arm) or a dict."""
        if any(r["experiment"] == experiment for r in self.rows):
            raise InputError(f"experiment {plain(experiment)} is already in the ledger.")
        new = [{"experiment": experiment, "side": side, "metric": str(m), "delta": d, "se": se,
                "p_value": p}
               for side, rows in (("offline", _offline_rows(offline, treatment, control)),
                                  ("online", _online_rows(online, arm)))
               for m, d, se, p in rows]
        Ledger.from_frame(pd.DataFrame(new, columns=list(COLUMNS)))  # the checks of a loaded ledger
        self.rows.extend(new)
        return self

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame(self.rows, columns=list(COLUMNS))

    @property
    def experiments(self) -> list[str]:
        return list(dict.fromkeys(r["experiment"] for r in self.rows))

    def metrics(self, side: str) -> list[str]:
        return list(dict.fromkeys(r["metric"] for r in self.rows if r["side"] == side))

    def wide(self, side: str, metric: str) -> pd.DataFrame:
        """delta, se, p_value per experiment for one metric of one side."""
        df = self.to_frame()
        df = df[(df["side"] == side) & (df["metric"] == metric)]
        return df.set_index("experiment")[["delta", "se", "p_value"]]

    @classmethod
    def from_frame(cls, table: Any) -> Ledger:
        """A ledger from a long table (see the module docstring for the checks)."""
        df = to_pandas(table, "ledger")
        need(df, list(COLUMNS[:4]), "ledger")
        for c in _TEXT:
            if df[c].isna().any():
                raise InputError(f"ledger column {plain(c)} has {int(df[c].isna().sum())} "
                                 "missing value(s); every row names its experiment, side and "
                                 "metric.")
        bad = ~df["side"].isin(["offline", "online"])
        if bad.any():
            raise InputError(f"ledger column 'side' must be 'offline' or 'online'; found "
                             f"{plain(df.loc[bad, 'side'].iloc[0])}.")
        df = df.assign(**{c: df[c].astype(str) for c in _TEXT})
        unique_rows(df, list(_TEXT), "ledger")
        for c in ("se", "p_value"):
            if c not in df.columns:
                df = df.assign(**{c: math.nan})
        vals = {c: numeric(df, c, "ledger", finite=False) for c in COLUMNS[3:]}
        for c, ok in (("se", lambda x: x >= 0), ("p_value", lambda x: (x >= 0) & (x <= 1))):
            bad = ~(ok(vals[c]) | np.isnan(vals[c]))
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                rule = ">= 0 (a standard error)" if c == "se" else "in [0, 1]"
                raise InputError(f"ledger column {plain(c)} must be {rule} or empty; "
                                 f"experiment {plain(df['experiment'].iloc[i])}, metric "
                                 f"{plain(df['metric'].iloc[i])} has {plain(vals[c][i])}.")
        if np.isinf(vals["delta"]).any():
            raise InputError("ledger column 'delta' holds an infinity; give finite effects (or "
                             "leave one empty when it was not measured).")
        df = df.assign(**vals)
        return cls(rows=df[list(COLUMNS)].to_dict("records"))

    @validate_params({"path": [InstanceOf(str)]})
    def save(self, path: str) -> None:
        """Write as ``.csv``, ``.parquet`` or ``.json`` (by extension)."""
        from ..io.output import atomic_path

        df = self.to_frame()
        with atomic_path(path) as tmp:
            if path.endswith(".parquet"):
                df.to_parquet(tmp, index=False)
            elif path.endswith(".json"):  # full precision, NaN as null
                import json

                rows = [{k: (None if isinstance(v, float) and math.isnan(v) else v)
                         for k, v in r.items()} for r in df.to_dict("records")]
                with open(tmp, "w", encoding="utf-8") as fh:
                    json.dump(rows, fh)
            else:
                df.to_csv(tmp, index=False)

    @classmethod
    def load(cls, path: str) -> Ledger:
        """Read a ledger written by :meth:`save` (by extension; ids and names read as text)."""
        if not isinstance(path, str):
            raise InputError(f"Ledger.load: path must be a file name; got {type(path).__name__}.")
        text = {c: str for c in _TEXT}
        try:
            if path.endswith(".parquet"):
                df = pd.read_parquet(path)
            elif path.endswith(".json"):
                df = pd.read_json(path, orient="records", dtype=text, precise_float=True)
            else:
                df = pd.read_csv(path, dtype=text, keep_default_na=False,
                                 na_values={c: [""] for c in COLUMNS[3:]})
        except (ValueError, pd.errors.ParserError) as exc:
            raise InputError(f"{path}: not a readable ledger ({exc}).") from None
        return cls.from_frame(df)
