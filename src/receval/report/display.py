"""The display hook: how result objects render themselves (``repr``, Jupyter, ``.plot()``).

Result and curve objects live below the reports and must not depend on them; their display
methods call this module lazily, at display time only. It is the one place where a lower layer
reaches the reports (the import contract whitelists exactly this module).
"""

from __future__ import annotations

from typing import Any


def text(obj: Any) -> str:
    """Plain-text table of an EvalResult or Comparison (``repr``)."""
    from .text import plain_table

    return plain_table(obj)


def html(obj: Any) -> str:
    """HTML table of an EvalResult, or the tables of a Comparison (Jupyter's ``_repr_html_``)."""
    from html import escape

    from ..results import EvalResult
    from ..results.result import users_summary
    from .html import comparison_tables_html

    if not isinstance(obj, EvalResult):
        return comparison_tables_html(obj)
    head = "".join(f"<th>{h}</th>" for h in ("metric", "mean", "std", "se", "n", "skipped"))
    rows = "".join(
        "<tr>" + f"<td>{escape(str(r['metric']))}</td>" + "".join(
            f"<td>{r[c]:.4f}</td>" if r[c] == r[c] else "<td>nan</td>"
            for c in ("mean", "std", "se")) + f"<td>{r['n']}</td><td>{r['skipped']}</td></tr>"
        for r in obj.stats)
    caption = escape(f"{obj.name + ': ' if obj.name else ''}users: {users_summary(obj.counts)}")
    return (f"<table><caption>{caption}</caption><thead><tr>{head}</tr></thead>"
            f"<tbody>{rows}</tbody></table>")


def render(obj: Any, format: str = "text", path: str | None = None, **kwargs: Any) -> str:
    """:func:`receval.report.report` of ``obj``."""
    from . import report

    return report(obj, format=format, path=path, **kwargs)


def plot_curves(*args: Any, **kwargs: Any) -> Any:
    """Draw curves (see :func:`receval.report.plots.plot_curves`)."""
    from .plots import plot_curves as draw

    return draw(*args, **kwargs)


def save_curves(*args: Any, **kwargs: Any) -> Any:
    """Save curves to an image file (see :func:`receval.report.plots.save_curves`)."""
    from .plots import save_curves as save

    return save(*args, **kwargs)


def render_curves(*args: Any, **kwargs: Any) -> Any:
    """Curves as image bytes (see :func:`receval.report.plots.render_curves`)."""
    from .plots import render_curves as draw

    return draw(*args, **kwargs)


def plot_reliability(*args: Any, **kwargs: Any) -> Any:
    """Draw reliability diagrams (see :func:`receval.report.plots.plot_reliability`)."""
    from .plots import plot_reliability as draw

    return draw(*args, **kwargs)
