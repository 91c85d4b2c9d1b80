"""A ledger of past experiments: per experiment, the offline effect of the treatment model over
the control model on each offline metric and the online effect measured by its A/B test or
interleaving, each with a standard error. One long table (``experiment, side, metric, delta, se,
p_value``) that saves to CSV, Parquet or JSON and loads back.
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
from ._frames import need, to_pandas

COLUMNS = ("experiment", "side", "metric", "delta", "se", "p_value")


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
        if isinstance(v, Mapping):
            out.append((m, float(v["delta"]), float(v.get("se", math.nan)),
                        float(v.get("p_value", math.nan))))
        else:
            t = tuple(v) if isinstance(v, (tuple, list)) else (v,)
            t = t + (math.nan,) * (3 - len(t))
            out.append((m, float(t[0]), float(t[1]), float(t[2])))
    return out


@dataclass
class Ledger:
    """Past experiments, offline and online side by side (see the module docstring)."""

    rows: list[dict[str, Any]] = field(default_factory=list)

    def add(self, experiment: str, *, offline: Any, online: Any, treatment: str | None = None,
            control: str | None = None, arm: str | None = None) -> Ledger:
        """Record one experiment; ``offline``: a :class:`receval.Comparison` (with
        ``treatment`` / ``control`` system names) or ``{metric: (delta, se[, p])}``;
        ``online``: an A/B or interleaving result (``arm`` picks a treatment arm) or a dict."""
        if any(r["experiment"] == experiment for r in self.rows):
            raise InputError(f"experiment {plain(experiment)} is already in the ledger.")
        for side, rows in (("offline", _offline_rows(offline, treatment, control)),
                           ("online", _online_rows(online, arm))):
            for m, d, se, p in rows:
                self.rows.append({"experiment": experiment, "side": side, "metric": str(m),
                                  "delta": d, "se": se, "p_value": p})
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
        df = to_pandas(table, "ledger")
        need(df, list(COLUMNS[:4]), "ledger")
        bad = ~df["side"].isin(["offline", "online"])
        if bad.any():
            raise InputError(f"ledger column 'side' must be 'offline' or 'online'; found "
                             f"{plain(df.loc[bad, 'side'].iloc[0])}.")
        for c in ("se", "p_value"):
            if c not in df.columns:
                df = df.assign(**{c: math.nan})
        df = df.astype({"delta": float, "se": float, "p_value": float})
        return cls(rows=df[list(COLUMNS)].to_dict("records"))

    def save(self, path: str) -> None:
        """Write as ``.csv``, ``.parquet`` or ``.json`` (by extension)."""
        from ..io.output import atomic_path

        df = self.to_frame()
        with atomic_path(path) as tmp:
            if path.endswith(".parquet"):
                df.to_parquet(tmp, index=False)
            elif path.endswith(".json"):
                df.to_json(tmp, orient="records")
            else:
                df.to_csv(tmp, index=False)

    @classmethod
    def load(cls, path: str) -> Ledger:
        if path.endswith(".parquet"):
            df = pd.read_parquet(path)
        elif path.endswith(".json"):
            df = pd.read_json(path, orient="records")
        else:
            df = pd.read_csv(path)
        return cls.from_frame(df)
