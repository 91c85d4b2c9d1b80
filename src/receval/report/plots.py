"""Matplotlib rendering of curve objects (ROC, precision-recall, metric@k, recall-IoU) and of
reliability diagrams (:func:`receval.classification.reliability_diagram`).

matplotlib is an optional extra (``pip install 'receval[plot]'``), imported only when a curve
is drawn. Figures are built with :class:`matplotlib.figure.Figure` directly (no pyplot, no
display, no global state), so rendering works headless and in threads.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from ..errors import InputError, plain, require

FORMATS = ("png", "svg", "pdf")


def literal(text: Any) -> str:
    """``text`` drawn as written: every ``$`` escaped, so matplotlib never reads a name such as
    ``run $x$`` as mathtext (an escaped ``\\$`` is drawn as ``$``)."""
    return str(text).replace("$", r"\$")


def new_figure(figsize: tuple[float, float] = (5.0, 4.0)) -> Any:
    """A matplotlib Figure with constrained layout (the one figure factory of the reports)."""
    require("matplotlib", "plot")
    from matplotlib.figure import Figure

    return Figure(figsize=figsize, layout="constrained")


def plot_curves(curves: list, ax: Any = None, *, title: str = "", diagonal: bool | None = None,
                legend: bool | None = None, **style: Any) -> Any:
    """Draw curves on ``ax`` (a new Figure's axes when ``None``) and return the axes.

    ROC curves get the chance diagonal (``diagonal``), precision-recall curves are drawn as
    the step function whose area is the average precision, metric@k curves with markers.
    The legend shows each curve's label and area when known.
    """
    if not curves:
        raise InputError("plot_curves needs at least one curve.")
    if ax is None:
        ax = new_figure().add_subplot(1, 1, 1)
    kinds = {c.kind for c in curves}
    for c in curves:
        text = literal(c.label or c.kind)
        if c.area is not None and c.kind in ("roc", "pr", "interpolated_pr", "recall_iou"):
            name = {"roc": "AUC", "pr": "AP", "interpolated_pr": "AP", "recall_iou": "AR"}[c.kind]
            text = f"{text} ({name} = {c.area:.4f})" if c.label else f"{name} = {c.area:.4f}"
        if c.kind == "pr":
            x = [0.0, *c.x.tolist()]
            y = [float(c.y[0]), *c.y.tolist()]
            ax.plot(x, y, drawstyle="steps-pre", label=text, **style)
        elif c.kind in ("at_k", "interpolated_pr"):
            ax.plot(c.x, c.y, marker="o", markersize=3, label=text, **style)
        elif c.kind == "recall_iou":
            ax.plot(c.x, c.y, drawstyle="steps-pre", label=text, **style)
        else:
            ax.plot(c.x, c.y, label=text, **style)
    first = curves[0]
    ax.set_xlabel(literal(first.xlabel))
    ax.set_ylabel(literal(first.ylabel if len(kinds) == 1 and first.kind != "at_k" else
                          (first.ylabel if len(curves) == 1 else "value")))
    if kinds <= {"roc", "pr", "interpolated_pr", "recall_iou"}:
        ax.set_xlim(0.0 if "recall_iou" not in kinds else float(min(c.x.min() for c in curves)),
                    1.0)
        ax.set_ylim(0.0, 1.02)
    if (diagonal is None and kinds == {"roc"}) or diagonal:
        ax.plot([0, 1], [0, 1], linestyle="--", color="0.6", linewidth=1)
    if title:
        ax.set_title(literal(title))
    if legend or (legend is None and any(c.label or c.area is not None for c in curves)):
        ax.legend(loc="best", fontsize="small")
    ax.grid(True, alpha=0.3)
    return ax


def save_curves(curves: list, path: str | Path, *, format: str | None = None,
                figsize: tuple[float, float] = (5.0, 4.0), dpi: int = 120, **style: Any) -> Path:
    """Render curves to ``path`` (``png``, ``svg`` or ``pdf``; from the suffix when ``format`` is
    ``None``) without a display. Returns the path."""
    path = Path(path)
    fmt = (format or path.suffix.lstrip(".")).lower()
    if fmt not in FORMATS:
        raise InputError(
            f"cannot save a plot as {plain(fmt or 'a file without suffix')}; use one of {list(FORMATS)} "
            "(give the path a suffix or pass format=...)."
        )
    fig = new_figure(figsize)
    plot_curves(curves, fig.add_subplot(1, 1, 1), **style)
    from ..io.output import atomic_path

    with atomic_path(path) as tmp:
        fig.savefig(tmp, format=fmt, dpi=dpi)
    return path


def render_curves(curves: list, *, format: str = "svg", figsize: tuple[float, float] = (5.0, 4.0),
                  dpi: int = 120, **style: Any) -> bytes:
    """The rendered figure as bytes (``svg``, ``png`` or ``pdf``), e.g. to embed in HTML."""
    fmt = format.lower()
    if fmt not in FORMATS:
        raise InputError(f"cannot render a plot as {plain(format)}; use one of {list(FORMATS)}.")
    fig = new_figure(figsize)
    plot_curves(curves, fig.add_subplot(1, 1, 1), **style)
    buf = io.BytesIO()
    fig.savefig(buf, format=fmt, dpi=dpi)
    return buf.getvalue()


def plot_reliability(diagrams: list, ax: Any = None, *, title: str = "", **style: Any) -> Any:
    """Draw reliability diagrams on ``ax`` (a new Figure's axes when ``None``): each non-empty
    bin's mean prediction (x) against its observed positive rate (y), marker area growing with
    the bin's weight, the diagonal of perfect calibration, and each diagram's ECE in the
    legend. ``diagrams``: :class:`receval.classification.Reliability` objects (one, or a list).
    """
    if not isinstance(diagrams, (list, tuple)):
        diagrams = [diagrams]
    if not diagrams:
        raise InputError("plot_reliability needs at least one reliability diagram.")
    if ax is None:
        ax = new_figure().add_subplot(1, 1, 1)
    ax.plot([0, 1], [0, 1], linestyle="--", color="0.6", linewidth=1,
            label="perfectly calibrated")
    for d in diagrams:
        share = d.weight / d.weight.sum() if len(d.weight) and d.weight.sum() > 0 else d.weight
        text = f"{literal(d.label)} (ECE = {d.ece:.4f})" if d.label else f"ECE = {d.ece:.4f}"
        line = ax.plot(d.mean_predicted, d.observed_rate, label=text, **style)[0]
        ax.scatter(d.mean_predicted, d.observed_rate, s=12 + 200 * share,
                   color=line.get_color(), alpha=0.7, zorder=3)
    ax.set_xlabel(f"mean predicted probability ({diagrams[0].bins} {diagrams[0].binning} bins)")
    ax.set_ylabel("observed positive rate")
    ax.set_xlim(0.0, 1.0)
    ax.set_ylim(0.0, 1.02)
    if title:
        ax.set_title(literal(title))
    ax.legend(loc="best", fontsize="small")
    ax.grid(True, alpha=0.3)
    return ax
