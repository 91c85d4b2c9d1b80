"""Renderers for results and comparisons: text (rich), Markdown, LaTeX, CSV, JSON, HTML.

Reports round for display only and never compute statistics: the Markdown table shows 4
decimals, the CSV every digit.

>>> import receval as rv
>>> truth = {"u1": {"b": 1}, "u2": {"c": 1}}
>>> res = rv.evaluate({"u1": {"a": 2, "b": 1}, "u2": {"c": 2, "a": 1}}, truth, ["mrr", "hit_rate@1"])
>>> print(rv.report(res, format="markdown"), end="")
| metric | mean | std | se | n | skipped |
| --- | ---: | ---: | ---: | ---: | ---: |
| mrr | 0.7500 | 0.3536 | 0.2500 | 2 | 0 |
| hit_rate@1 | 0.5000 | 0.7071 | 0.5000 | 2 | 0 |
<BLANKLINE>
users: 2 evaluated, 0 missing from the run (scored 0), 0 in the run but not the truth (ignored), 0 with no relevant item (skipped).
>>> print(rv.report(res, format="csv"), end="")
metric,mean,std,se,n,skipped
mrr,0.75,0.3535533905932738,0.25,2,0
hit_rate@1,0.5,0.7071067811865476,0.5,2,0

A comparison renders the same way; ``rv.report(cmp, format="html", path="report.html",
train=train, runs=runs)`` writes a self-contained page with plots.
"""

from __future__ import annotations

import json
from typing import Any

from ..errors import InputError, PolicyError, plain, suggest
from ..validation import Boolean, Integral, Interval, validate_params

# renderers load on first use (``import receval`` does not pay for them)
_RENDERERS = {"render_html": "html", "build": "model", "definitions": "model", "latex": "text",
              "markdown": "text", "plain_table": "text", "rich_table": "text", "to_csv": "text"}


def __getattr__(name: str) -> Any:
    module = _RENDERERS.get(name)
    if module is None:
        raise AttributeError(f"module 'receval.report' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"{__name__}.{module}"), name)

FORMATS = ("text", "plain", "markdown", "latex", "csv", "json", "html")
_ALIASES = {"md": "markdown", "tex": "latex", "rich": "text", "txt": "plain", "htm": "html"}


@validate_params({"digits": [Interval(Integral, 0, 17)], "color": [Boolean()]})
def report(obj: Any, format: str = "text", path: str | None = None, *, digits: int = 4,
           title: str | None = None, metrics: list[str] | None = None, color: bool = False,
           width: int | None = None, **html_options: Any) -> str:
    """Render an EvalResult, a Comparison or a dict of EvalResults (an online result, a
    meta-evaluation: their own pages); write it to ``path``.

    ``format``: ``text`` (rich box table; the ``plain`` table when rich is not installed),
    ``plain`` (plain text), ``markdown``, ``latex``
    (booktabs; best value bold, superscripts name the systems a value significantly beats),
    ``csv`` (full precision), ``json`` (loads back with :func:`load`), ``html`` (self-contained
    page with plots and metric definitions; ``html_options`` go to
    :func:`receval.report.render_html`: ``train``, ``runs``, ``curves``, ``longtail_k``).
    ``color`` adds terminal colours to ``text`` (bold best, green/red against the baseline).
    ``width`` fits the ``text`` and ``plain`` tables in that many characters (a terminal's
    width; default: as wide as the table).
    ``metrics`` restricts the columns of the text, Markdown, LaTeX and HTML tables.
    Returns the text.
    """
    fmt = _ALIASES.get(str(format).lower(), str(format).lower())
    if type(obj).__name__ == "OnlineResult":  # A/B, OPE, interleaving, agreement
        from .online import render_online

        return render_online(obj, fmt, path=path, digits=digits, title=title)
    if type(obj).__name__ == "MetaEvaluation":  # receval.stats.meta: runs x judgment sets
        if fmt != "html":
            raise InputError(
                f"a MetaEvaluation is rendered as format='html' (its tables are frames: "
                f".means(), .agreement(...), .discriminative_power(...)); got {plain(format)}.")
        from .meta import render_meta_html

        text = render_meta_html(obj, title=title or "Meta-evaluation", digits=digits,
                                **html_options)
        if path is not None:
            from ..io.output import write_text

            write_text(path, text)
        return text
    if fmt not in FORMATS:
        raise PolicyError(f"format={plain(format)} is not valid; choose one of {list(FORMATS)}."
                          + suggest(str(format), FORMATS))
    if html_options and fmt != "html":
        raise PolicyError(f"options {sorted(html_options)} apply to format='html' only.")
    from .html import render_html
    from .model import build
    from .text import latex, markdown, plain_table, rich_table, to_csv

    if fmt == "text":
        text = rich_table(build(obj, title=title, metrics=metrics), digits, color=color,
                          width=width)
    elif fmt == "plain":
        text = plain_table(build(obj, title=title, metrics=metrics), digits, width=width) + "\n"
    elif fmt == "markdown":
        text = markdown(build(obj, title=title, metrics=metrics), digits)
    elif fmt == "latex":
        text = latex(build(obj, title=title, metrics=metrics), digits)
    elif fmt == "csv":
        text = to_csv(obj)
    elif fmt == "json":
        if not hasattr(obj, "to_json"):
            if isinstance(obj, dict):
                text = json.dumps({"format": "receval.Results/1",
                                   "results": {k: v.to_dict() for k, v in obj.items()}})
            else:
                raise InputError(f"cannot serialize a {type(obj).__name__} to JSON.")
        else:
            text = obj.to_json()
    else:
        text = render_html(obj, title=title, digits=digits, metrics=metrics, **html_options)
    if path is not None:
        from ..io.output import write_text

        write_text(path, text)
    return text


def load(text_or_path: str) -> Any:
    """Load a JSON report back: an EvalResult, a Comparison or a dict of EvalResults."""
    from ..results import Comparison, EvalResult

    text = text_or_path
    if not text_or_path.lstrip().startswith("{"):
        with open(text_or_path, encoding="utf-8") as fh:
            text = fh.read()
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise InputError(f"not a receval JSON document: {exc}.") from exc
    kind = data.get("format", "") if isinstance(data, dict) else ""
    if not isinstance(kind, str):
        kind = repr(kind)
    if kind.startswith("receval.Comparison"):
        if "by_group" in data:  # compare(..., by=): with its tests within groups
            from ..stats.groups import GroupComparison

            return GroupComparison.from_dict(data)
        return Comparison.from_dict(data)
    if kind.startswith("receval.EvalResult"):
        return EvalResult.from_dict(data)
    if kind.startswith("receval.Results"):
        from ..results.result import malformed, require_fields

        require_fields(data, ("results",), "Results document")
        with malformed("Results document"):
            return {k: EvalResult.from_dict(v) for k, v in data["results"].items()}
    raise InputError(f"not a receval JSON document (format={plain(kind)}).")


__all__ = ["FORMATS", "build", "definitions", "latex", "load", "markdown", "plain_table",
           "render_html", "report", "rich_table", "to_csv"]
