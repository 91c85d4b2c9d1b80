"""Figures for the HTML report, drawn with matplotlib and returned as inline SVG text.

Figures use :class:`matplotlib.figure.Figure` directly (no pyplot, no global backend), with
text kept as text and a fixed hash salt, so the SVG is small and reproducible.
"""

from __future__ import annotations

import io
import re
from collections.abc import Mapping
from typing import Any

import numpy as np

from .plots import literal, new_figure

_COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
           "#7f7f7f", "#bcbd22", "#17becf"]


def color(i: int) -> str:
    return _COLORS[i % len(_COLORS)]


def _figure(width: float = 5.0, height: float = 3.4) -> Any:
    return new_figure((width, height))


def to_svg(fig: Any) -> str:
    """The figure as an ``<svg>`` element (no XML prolog, no DOCTYPE)."""
    import matplotlib

    buf = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "receval"}):
        fig.savefig(buf, format="svg", metadata={"Date": None})
    text = buf.getvalue()
    start = text.find("<svg")
    return re.sub(r"\s*<!--.*?-->", "", text[start:], flags=re.S)


def at_k_groups(metrics: list[str]) -> dict[str, list[tuple[int, str]]]:
    """Metric keys that differ only by the cutoff: ``{'ndcg': [(5, 'ndcg@5'), (10, ...)]}``."""
    from ..metrics import parse_metric

    groups: dict[str, list[tuple[int, str]]] = {}
    for key in metrics:
        try:
            spec = parse_metric(key)
        except (KeyError, ValueError):
            continue
        if spec.k is None:
            continue
        label = spec.name + ("(" + ",".join(f"{k}={v}" for k, v in spec.params) + ")"
                             if spec.params else "")
        groups.setdefault(label, []).append((spec.k, key))
    return {g: sorted(v) for g, v in groups.items() if len(v) >= 2}


def at_k_figure(label: str, keys: list[tuple[int, str]], summary: Mapping[str, Mapping[str, float]],
                systems: list[str]) -> str:
    fig = _figure()
    ax = fig.add_subplot(1, 1, 1)
    ks = [k for k, _ in keys]
    for i, s in enumerate(systems):
        ax.plot(ks, [summary[s][key] for _, key in keys], marker="o", color=color(i),
                label=literal(s))
    ax.set_xlabel("k (cutoff)")
    ax.set_ylabel(literal(f"{label}@k"))
    ax.set_title(literal(f"{label}@k"))
    ax.set_xticks(ks)
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small")
    return to_svg(fig)


def distribution_figure(metric: str, values: Mapping[str, np.ndarray], systems: list[str]) -> str:
    """Per-user distribution: box (quartiles, whiskers at 1.5 IQR, no outlier dots) plus the
    mean (diamond) and the share of users at exactly 0."""
    fig = _figure(5.0, 0.9 + 0.32 * len(systems) + 0.5)
    ax = fig.add_subplot(1, 1, 1)
    data = [np.asarray(values[s], dtype=np.float64) for s in systems]
    data = [v[np.isfinite(v)] for v in data]
    pos = np.arange(len(systems))[::-1] + 1
    ok = [len(v) > 0 for v in data]
    if any(ok):
        box = ax.boxplot([v for v, o in zip(data, ok, strict=True) if o],
                         positions=[p for p, o in zip(pos, ok, strict=True) if o],
                         orientation="horizontal", showfliers=False, widths=0.55,
                         patch_artist=True, medianprops={"color": "black"})
        for i, patch in enumerate(box["boxes"]):
            patch.set_facecolor(color(i))
            patch.set_alpha(0.35)
    for i, (v, p) in enumerate(zip(data, pos, strict=True)):
        if len(v):
            ax.plot([v.mean()], [p], marker="D", color=color(i), markersize=6)
    ax.set_yticks(pos)
    ax.set_yticklabels([literal(f"{s}  ({(v == 0).mean():.0%} at 0)" if len(v) else s)
                        for s, v in zip(systems, data, strict=True)], fontsize="small")
    ax.set_xlabel(literal(f"{metric} per user (diamond = mean)"))
    ax.grid(axis="x", alpha=0.3)
    return to_svg(fig)


def curves_figure(title: str, curves: list[Any]) -> str:
    """ROC / precision-recall / other curve objects with a ``plot(ax=...)`` method."""
    fig = _figure(5.0, 3.8)
    ax = fig.add_subplot(1, 1, 1)
    ax.set_prop_cycle(color=[color(i) for i in range(len(curves))])
    curves = [thin(c) for c in curves]
    try:
        from .plots import plot_curves

        plot_curves(list(curves), ax=ax, title=title)
    except ImportError:  # pragma: no cover - the plots module is part of the package
        for i, c in enumerate(curves):
            ax.plot(c.x, c.y, color=color(i), label=literal(getattr(c, "label", "")))
        ax.set_title(literal(title))
        ax.legend(fontsize="small")
    return to_svg(fig)


def reliability_figure(title: str, diagrams: Mapping[str, Any] | list[Any]) -> str:
    """Reliability diagrams (:func:`receval.classification.reliability_diagram`), one per
    system (a mapping gives each its label), as SVG text."""
    import dataclasses

    from .plots import plot_reliability

    items = list(diagrams.items()) if isinstance(diagrams, Mapping) else \
        [(d.label, d) for d in diagrams]
    fig = _figure(5.0, 4.2)
    ax = fig.add_subplot(1, 1, 1)
    ax.set_prop_cycle(color=[color(i) for i in range(max(len(items), 1))])
    plot_reliability([dataclasses.replace(d, label=str(name)) for name, d in items], ax=ax,
                     title=title)
    return to_svg(fig)


def thin(curve: Any, max_points: int = 400) -> Any:
    """A copy of a curve with at most ``max_points`` points (display only; area unchanged)."""
    import dataclasses

    n = len(getattr(curve, "x", ()))
    if n <= max_points or not dataclasses.is_dataclass(curve):
        return curve
    idx = np.unique(np.linspace(0, n - 1, max_points).round().astype(np.int64))
    changes = {"x": np.asarray(curve.x)[idx], "y": np.asarray(curve.y)[idx]}
    if getattr(curve, "thresholds", None) is not None:
        changes["thresholds"] = np.asarray(curve.thresholds)[idx]
    return dataclasses.replace(curve, **changes)


def longtail_figure(frames: Mapping[str, Any], systems: list[str]) -> str:
    """Cumulative share of recommendations (exposure) against items ranked by training
    popularity, per system, with the training popularity itself for reference."""
    fig = _figure(5.0, 3.8)
    ax = fig.add_subplot(1, 1, 1)
    first = None
    for i, s in enumerate(systems):
        if s not in frames:
            continue
        f = frames[s]
        x = f["rank"].to_numpy() / max(len(f), 1)
        ax.plot(x, f["cum_exposure_share"].to_numpy(), color=color(i), label=literal(s))
        first = f if first is None else first
    if first is not None:
        x = first["rank"].to_numpy() / max(len(first), 1)
        ax.plot(x, first["cum_popularity_share"].to_numpy(), color="black", linestyle="--",
                label="training interactions")
        if "tail" in first:
            tail = first["tail"].to_numpy().astype(bool)
            if tail.any() and (~tail).any():
                ax.axvline(x[np.argmax(tail)], color="grey", linestyle=":", label="long-tail start")
    ax.set_xlabel("items ranked by training popularity (share of items)")
    ax.set_ylabel("cumulative share of recommendations")
    ax.set_title("Long-tail exposure")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small")
    return to_svg(fig)


def group_means_figure(metric: str, rows: list[Mapping[str, Any]], systems: list[str],
                       level: float = 0.95) -> str:
    """Each group's mean of ``metric`` (a dot per system) with its interval (a bar; none where
    the interval is undefined), groups top to bottom in the order given. ``rows``: the
    report's per-group rows (``system, group, mean, ci_low, ci_high, n``) of this metric."""
    groups = list(dict.fromkeys(str(r["group"]) for r in rows))
    fig = _figure(5.0, 0.9 + 0.38 * len(groups) * max(1.0, 0.5 * len(systems)) + 0.5)
    ax = fig.add_subplot(1, 1, 1)
    pos = {g: float(len(groups) - i) for i, g in enumerate(groups)}
    width = 0.6 / max(len(systems), 1)
    for i, s in enumerate(systems):
        mine = [r for r in rows if r["system"] == s]
        if not mine:
            continue
        shift = (i - (len(systems) - 1) / 2.0) * width
        y = np.array([pos[str(r["group"])] - shift for r in mine])
        mean = np.array([float(r["mean"]) for r in mine])
        lo = np.array([float(r["ci_low"]) for r in mine])
        hi = np.array([float(r["ci_high"]) for r in mine])
        ok = np.isfinite(lo) & np.isfinite(hi) & np.isfinite(mean)
        if ok.any():
            ax.errorbar(mean[ok], y[ok], xerr=np.vstack([mean[ok] - lo[ok], hi[ok] - mean[ok]]),
                        fmt="none", ecolor=color(i), elinewidth=1.5, capsize=3)
        ax.plot(mean, y, linestyle="none", marker="o", color=color(i), label=literal(s))
    ax.set_yticks([pos[g] for g in groups])
    ax.set_yticklabels([literal(g) for g in groups], fontsize="small")
    ax.set_ylim(0.4, len(groups) + 0.6)
    ax.set_xlabel(literal(f"{metric}: mean per group ({level:.0%} interval)"))
    ax.grid(axis="x", alpha=0.3)
    if len(systems) > 1:
        ax.legend(fontsize="small")
    return to_svg(fig)
