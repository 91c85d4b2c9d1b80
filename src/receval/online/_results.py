"""The result object shared by every online analysis (shaped like :class:`receval.EvalResult`).

``table`` holds one row per metric / estimator / pair (the headline numbers), ``per_unit`` one row
per unit of analysis (user, experiment) where one exists, ``counts`` every unit used, dropped or
skipped, ``diagnostics`` warnings and checks (SRM, overlap), ``provenance`` the options used.
JSON round-trips through :meth:`OnlineResult.to_json` / :meth:`OnlineResult.from_json`
(NaN and infinities are written as ``null``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .._version import __version__
from ..errors import plain
from ..results import jsonio

FORMAT = "receval.OnlineResult/1"


def clean(v: Any) -> Any:
    """JSON-safe copy: numpy scalars to Python, NaN / inf to ``None``, containers recursively."""
    if isinstance(v, dict):
        return {str(k): clean(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [clean(x) for x in v]
    if isinstance(v, np.ndarray):
        return [clean(x) for x in v.tolist()]
    if isinstance(v, (np.bool_, bool)):
        return bool(v)
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        f = float(v)
        return f if math.isfinite(f) else None
    if isinstance(v, pd.Timestamp):
        return v.isoformat()
    return v


def _frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    df = pd.DataFrame(rows)
    for c in df.columns:
        if df[c].dtype == object and df[c].map(lambda x: x is None or isinstance(x, float)).all():
            df[c] = df[c].astype(np.float64)
    return df


@dataclass
class OnlineResult:
    """Result of an online analysis: ``kind`` is ``"ab"``, ``"ope"``, ``"overlap"``,
    ``"interleave"``, ``"agreement"``, ``"srm"`` or ``"msprt"``.

    ``rows``: list of dicts, one per metric / estimator / comparison (``table`` as a frame);
    ``summary``: headline value per row key; ``units``: per-unit columns (``per_unit`` frame);
    ``counts``: units used and dropped; ``diagnostics``: checks and warnings;
    ``provenance``: every option, the receval version.
    """

    kind: str
    rows: list[dict[str, Any]]
    summary: dict[str, float] = field(default_factory=dict)
    counts: dict[str, Any] = field(default_factory=dict)
    diagnostics: dict[str, Any] = field(default_factory=dict)
    provenance: dict[str, Any] = field(default_factory=dict)
    units: dict[str, Any] = field(default_factory=dict)
    title: str | None = None

    def __post_init__(self) -> None:
        self.provenance.setdefault("receval", __version__)

    @property
    def table(self) -> pd.DataFrame:
        """One row per metric / estimator / comparison."""
        return _frame(self.rows)

    @property
    def per_unit(self) -> pd.DataFrame:
        """One row per unit of analysis (empty when the analysis has none)."""
        return pd.DataFrame({k: np.asarray(v) for k, v in self.units.items()})

    @property
    def warnings(self) -> list[str]:
        return list(self.diagnostics.get("warnings", []))

    def row(self, key: str) -> dict[str, Any]:
        """The row whose first column (``metric`` / ``estimator`` / ``pair``) equals ``key``."""
        for r in self.rows:
            if next(iter(r.values())) == key:
                return dict(r)
        raise KeyError(f"no row {plain(key)}; rows are {[next(iter(r.values())) for r in self.rows]}.")

    def __getitem__(self, key: str) -> float:
        return self.summary[key]

    def __repr__(self) -> str:
        head = ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                         for k, v in list(self.summary.items())[:6])
        return f"OnlineResult(kind={plain(self.kind)}, {head})"

    def to_dict(self) -> dict[str, Any]:
        return clean({"format": FORMAT, "kind": self.kind, "title": self.title,
                      "rows": self.rows, "summary": self.summary, "counts": self.counts,
                      "diagnostics": self.diagnostics, "provenance": self.provenance,
                      "units": self.units})

    def to_json(self, path: str | None = None, **kwargs: Any) -> str:
        """JSON text (NaN as ``null``); also written to ``path`` when given."""
        return jsonio.dump(self.to_dict(), path, allow_nan=False, **kwargs)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> OnlineResult:
        if data.get("format") != FORMAT:
            from ..errors import InputError

            raise InputError(f"not an online result: format={plain(data.get('format'))}, "
                             f"expected {plain(FORMAT)}.")

        def nan(v: Any) -> Any:
            return float("nan") if v is None else v

        rows = [{k: nan(v) for k, v in r.items()} for r in data["rows"]]
        summary = {k: nan(v) for k, v in data["summary"].items()}
        units = {k: np.array([nan(x) for x in v]) for k, v in data.get("units", {}).items()}
        return cls(kind=data["kind"], rows=rows, summary=summary, counts=data["counts"],
                   diagnostics=data["diagnostics"], provenance=data["provenance"],
                   units=units, title=data.get("title"))

    @classmethod
    def from_json(cls, text_or_path: str) -> OnlineResult:
        return cls.from_dict(jsonio.load(text_or_path))
