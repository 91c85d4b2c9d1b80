"""A self-contained HTML report: one file, inline CSS and SVG, no script, no network access."""

from __future__ import annotations

import datetime as _dt
import html
import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from .model import TableModel, build, definitions

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:2rem auto;
max-width:1100px;padding:0 1rem;color:#222;line-height:1.45}
h1{font-size:1.6rem;margin-bottom:.2rem}h2{font-size:1.25rem;margin-top:2.2rem;
border-bottom:1px solid #ddd;padding-bottom:.2rem}
table{border-collapse:collapse;margin:.8rem 0;font-size:.92rem}
th,td{padding:.3rem .6rem;border-bottom:1px solid #e4e4e4;text-align:right;white-space:nowrap}
.scroll{overflow-x:auto}
details summary{cursor:pointer;font-weight:600;margin:.6rem 0}
th:first-child,td:first-child{text-align:left}
thead th{border-bottom:2px solid #444}
td.best{font-weight:700}td.up{background:#e8f6e8}td.down{background:#fbe9e9}
sup{color:#555;font-size:.7em}
.note{color:#555;font-size:.88rem}
.plots{display:flex;flex-wrap:wrap;gap:1rem}
figure.plot{margin:0;border:1px solid #eee;padding:.3rem}
figure.plot svg{max-width:100%;height:auto}
figcaption{font-size:.85rem;color:#555}
dl.defs dt{font-weight:700;margin-top:.8rem}dl.defs dd{margin-left:1.2rem}
code{background:#f5f5f5;padding:0 .2rem}
.formula{font-family:ui-monospace,Menlo,Consolas,monospace;background:#f7f7f7;padding:.2rem .4rem;
display:inline-block}
"""


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _fmt(v: Any, digits: int = 4) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    if isinstance(v, float):
        if v != 0 and (abs(v) < 10 ** -digits):
            return f"{v:.2e}"
        return f"{v:.{digits}f}"
    return _e(v)


def metrics_table_html(model: TableModel, digits: int = 4) -> str:
    if model.single is not None:
        res = model.single
        head = "".join(f"<th>{h}</th>" for h in ("metric", "mean", "std", "se", "n", "skipped"))
        rows = "".join(
            f"<tr><td><code>{_e(r['metric'])}</code></td><td>{_fmt(r['mean'], digits)}</td>"
            f"<td>{_fmt(r['std'], digits)}</td><td>{_fmt(r['se'], digits)}</td>"
            f"<td>{r['n']}</td><td>{r['skipped']}</td></tr>" for r in res.stats)
        return (f'<table id="metrics-table" class="metrics"><thead><tr>{head}</tr></thead>'
                f"<tbody>{rows}</tbody></table>")
    head = "<th>system</th>" + "".join(f"<th><code>{_e(m)}</code></th>" for m in model.metrics)
    body = []
    for s in model.systems:
        cells = [f"<td>({model.letters[s]}) {_e(s)}</td>"]
        for m in model.metrics:
            c = model.cells[(s, m)]
            cls = " ".join(x for x in ("best" if c.best else "",
                                       {"+": "up", "-": "down"}.get(c.vs_baseline, "")) if x)
            marks = "".join(c.beats)
            sup = f"<sup>{_e(marks)}</sup>" if marks else ""
            arrow = {"+": " ▲", "-": " ▼"}.get(c.vs_baseline, "")
            cells.append(f'<td class="{cls}">{_fmt(c.value, digits)}{sup}{arrow}</td>'
                         if cls else f"<td>{_fmt(c.value, digits)}{sup}{arrow}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return (f'<table id="metrics-table" class="metrics"><thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(body)}</tbody></table>")


def pairs_table_html(cmp: Any, digits: int = 4) -> str:
    cols = [("metric", "metric"), ("a", "A"), ("b", "B"), ("diff", "mean A − B"),
            ("ci", f"{1 - cmp.alpha:.0%} CI"), ("cohens_d", "Cohen's d"),
            ("wtl", "win / tie / loss"), ("p_value", "p"), ("p_adjusted", "p (adjusted)"),
            ("significant", "significant")]
    head = "".join(f"<th>{_e(t)}</th>" for _, t in cols)
    body = []
    for r in cmp.pairs:
        cells = []
        for c, _ in cols:
            if c == "ci":
                cells.append(f"[{_fmt(r['ci_low'], digits)}, {_fmt(r['ci_high'], digits)}]")
            elif c == "wtl":
                cells.append(f"{r['wins']} / {r['ties']} / {r['losses']}")
            elif c == "metric":
                cells.append(f"<code>{_e(r['metric'])}</code>")
            elif c == "significant":
                cells.append("yes" if r["significant"] else "no")
            else:
                cells.append(_fmt(r[c], digits))
        body.append("<tr>" + "".join(f"<td>{x}</td>" for x in cells) + "</tr>")
    return (f'<table id="pairs-table" class="pairs"><thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(body)}</tbody></table>")


def comparison_tables_html(cmp: Any, digits: int = 4) -> str:
    """The metrics table and the pairwise table (for notebooks)."""
    model = build(cmp)
    notes = "".join(f'<p class="note">{_e(n)}</p>' for n in model.notes)
    return metrics_table_html(model, digits) + notes + pairs_table_html(cmp, digits)


def _definitions_html(metrics: list[str]) -> str:
    items = []
    for d in definitions(metrics):
        params = ""
        if d["params"]:
            params = "<br>Parameters: " + "; ".join(
                f"<code>{_e(p['name'])}={_e(p['value'])}</code>"
                + (" (default)" if p["value"] == p["default"] else f" (default {_e(p['default'])})")
                + f" — {_e(p['doc'])}" for p in d["params"])
        cutoff = (f"cutoff k = {d['k']}" if d.get("k") is not None else "whole list")
        extra = []
        if "higher_is_better" in d:
            extra.append("higher is better" if d["higher_is_better"] else "lower is better")
        if d.get("aggregate") == "micro":
            extra.append("summary: micro average (sum of numerators / sum of denominators)")
        elif d.get("aggregate") == "pooled":
            extra.append("summary: one value over every user's pairs pooled (not a mean)")
        elif "aggregate" in d:
            extra.append("summary: mean over evaluated users")
        ref = f"<br>Reference: {_e(d['reference'])}" if d.get("reference") else ""
        items.append(
            f'<dt id="def-{_e(d["key"])}"><code>{_e(d["key"])}</code> — {_e(d["title"])}</dt>'
            f'<dd><span class="formula">{_e(d["formula"])}</span><br>{_e(d["doc"])}'
            f"<br>{_e(cutoff)}; {_e('; '.join(extra))}{params}{ref}</dd>")
    return '<dl class="defs">' + "".join(items) + "</dl>"


def _figure_html(kind: str, svg: str, caption: str) -> str:
    return (f'<figure class="plot" data-kind="{_e(kind)}">{svg}'
            f"<figcaption>{_e(caption)}</figcaption></figure>")


def render_html(obj: Any, *, title: str | None = None, digits: int = 4, train: Any = None,
                runs: Mapping[str, Any] | None = None, curves: Any = None,
                longtail_k: int | None = None, max_distributions: int = 12,
                description: str | None = None, metrics: list[str] | None = None) -> str:
    """The whole report as one HTML document.

    ``obj``: a Comparison, an EvalResult or a dict of EvalResults. ``train`` and ``runs``
    (``{system: run rows}``) add the long-tail exposure plot (cut at ``longtail_k``); ``curves``
    (a list of curve objects, or ``{title: [curves]}``, e.g. ROC and precision-recall curves
    from :mod:`receval.classification`) adds curve plots. Sections whose data is absent are
    left out.
    """
    from ..results import Comparison, EvalResult

    model = build(obj, title=title, metrics=metrics)
    title = model.title
    if isinstance(obj, Comparison):
        results = obj.results
        summary = obj.summary
    elif isinstance(obj, EvalResult):
        results = {obj.name or "system": obj}
        summary = {obj.name or "system": obj.summary}
    else:
        results = dict(obj)
        summary = {s: r.summary for s, r in results.items()}
    systems = model.systems
    parts = [f"<h1>{_e(title)}</h1>"]
    stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    from .._version import __version__

    parts.append(f'<p class="note">Generated by receval {_e(__version__)} on {_e(stamp)}.</p>')
    if description:
        parts.append(f"<p>{_e(description)}</p>")
    # ---- table
    parts.append('<section id="summary"><h2>Metrics</h2>')
    parts.append('<div class="scroll">' + metrics_table_html(model, digits) + "</div>")
    parts += [f'<p class="note">{_e(n)}</p>' for n in model.notes]
    if isinstance(obj, Comparison):
        is_open = " open" if len(obj.pairs) <= 30 else ""
        parts.append(f'<details id="pairs"{is_open}><summary>Pairwise tests ({len(obj.pairs)} rows: '
                     "difference, confidence interval, effect size, win/tie/loss, p-values)"
                     '</summary><div class="scroll">')
        parts.append(pairs_table_html(obj, digits))
        parts.append("</div></details>")
        users = obj.counts.get("users_compared")
        dropped = {m: v for m, v in obj.counts.get("nan_dropped", {}).items() if v and v != users}
        untested = [m for m, v in obj.counts.get("nan_dropped", {}).items() if v and v == users]
        if untested:
            parts.append('<p class="note">Not tested (no per-user values, e.g. catalogue metrics): '
                         + _e(", ".join(untested)) + "</p>")
        if dropped:
            parts.append('<p class="note">Users without a value (skipped) left out of the tests: '
                         + _e(", ".join(f"{m}: {v}" for m, v in dropped.items())) + "</p>")
    parts.append("</section>")
    figures_ok = _have_matplotlib()
    parts += _groups_html(model, digits, figures_ok, max_distributions)
    # ---- metric@k
    if figures_ok:
        from . import figures

        groups = figures.at_k_groups(model.metrics)
        if groups:
            parts.append('<section id="at-k"><h2>Metrics by cutoff</h2><div class="plots">')
            for label, keys in groups.items():
                parts.append(_figure_html("at-k", figures.at_k_figure(label, keys, summary,
                                                                      systems),
                                          f"{label} at each cutoff k, per system."))
            parts.append("</div></section>")
        # ---- curves (ROC / PR)
        curve_groups = _curve_groups(curves)
        if curve_groups:
            parts.append('<section id="curves"><h2>Curves</h2><div class="plots">')
            for ctitle, cs in curve_groups.items():
                parts.append(_figure_html("curve", figures.curves_figure(ctitle, cs), ctitle))
            parts.append("</div></section>")
        # ---- reliability diagrams (pooled ECE keeps its bins in result.info)
        diagrams = _reliability(results, model.metrics)
        if diagrams:
            parts.append('<section id="calibration"><h2>Calibration</h2><div class="plots">')
            for key, per_system in diagrams.items():
                parts.append(_figure_html(
                    "reliability", figures.reliability_figure(key, per_system),
                    f"Reliability diagram of {key}: per bin, the mean predicted probability "
                    "against the observed rate of positives (the diagonal is calibrated)."))
            parts.append("</div></section>")
        # ---- per-user distributions
        per_user = [m for m in model.metrics
                    if any(m in r.metrics and (r.user_values(m) == r.user_values(m)).any()
                           for r in results.values())][:max_distributions]
        if per_user:
            parts.append('<section id="distributions"><h2>Per-user distributions</h2>'
                         '<div class="plots">')
            for m in per_user:
                vals = {s: results[s].user_values(m) for s in systems
                        if s in results and m in results[s].metrics}
                parts.append(_figure_html("distribution",
                                          figures.distribution_figure(m, vals, list(vals)),
                                          f"Distribution of {m} over users."))
            parts.append("</div></section>")
        # ---- long tail
        if train is not None and runs:
            frames = _longtail_frames(train, runs, longtail_k)
            if frames:
                parts.append('<section id="long-tail"><h2>Long-tail exposure</h2>'
                             '<div class="plots">')
                parts.append(_figure_html("long-tail", figures.longtail_figure(frames, systems),
                                          "How recommendations spread over items ordered by "
                                          "training popularity" + (f" (top {longtail_k})"
                                                                   if longtail_k else "") + "."))
                parts.append("</div></section>")
    else:
        parts.append(f'<p class="note">{_e(PLOTS_LEFT_OUT)}</p>')
    # ---- definitions and settings
    parts.append('<section id="definitions"><h2>How each metric was computed</h2>')
    parts.append(_definitions_html(model.metrics))
    parts.append(_settings_html(obj, results))
    parts.append("</section>")
    body = "\n".join(parts)
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{_e(title)}</title><style>{_CSS}</style></head>\n<body>\n{body}\n"
            "</body></html>\n")


def group_table_html(model: TableModel, digits: int = 4) -> str:
    """The per-group table: each system's mean per group with its interval, n, skipped and
    missing users (empty text when the results have no groups)."""
    rows = model.group_table()
    if not rows:
        return ""
    multi = len({r["system"] for r in rows}) > 1
    head = "".join(f"<th>{_e(h)}</th>" for h in (["system"] if multi else []) + [
        "group", "metric", "mean", f"{model.group_level:.0%} CI", "n", "skipped",
        "missing from run"])
    body = "".join(
        "<tr>" + (f"<td>{_e(r['system'])}</td>" if multi else "")
        + f"<td>{_e(r['group'])}</td><td><code>{_e(r['metric'])}</code></td>"
        f"<td>{_fmt(r['mean'], digits)}</td>"
        f"<td>[{_fmt(r['ci_low'], digits)}, {_fmt(r['ci_high'], digits)}]</td>"
        f"<td>{_e(r['n'])}</td><td>{_e(r['skipped'])}</td>"
        f"<td>{_e(r['missing_from_run'])}</td></tr>" for r in rows)
    return (f'<table id="groups-table" class="groups"><thead><tr>{head}</tr></thead>'
            f"<tbody>{body}</tbody></table>")


def group_tests_html(cmp: Any, metrics: list[str], digits: int = 4) -> str:
    """The tests within groups and the interaction tests of a comparison with ``by=``."""
    shown = set(metrics)
    tests = [r for r in getattr(cmp, "group_pairs", []) if r["metric"] in shown]
    inter = [r for r in getattr(cmp, "interaction_rows", []) if r["metric"] in shown]
    out = []
    if tests:
        head = "".join(f"<th>{_e(h)}</th>" for h in (
            "group", "metric", "A", "B", "n", "mean A − B", f"{1 - cmp.alpha:.0%} CI",
            "win / tie / loss", "p", "p (adjusted)", "significant", "note"))
        body = "".join(
            f"<tr><td>{_e(r['group'])}</td><td><code>{_e(r['metric'])}</code></td>"
            f"<td>{_e(r['a'])}</td><td>{_e(r['b'])}</td><td>{_e(r['n'])}</td>"
            f"<td>{_fmt(r['diff'], digits)}</td>"
            f"<td>[{_fmt(r['ci_low'], digits)}, {_fmt(r['ci_high'], digits)}]</td>"
            f"<td>{r['wins']} / {r['ties']} / {r['losses']}</td>"
            f"<td>{_fmt(r['p_value'], digits)}</td><td>{_fmt(r['p_adjusted'], digits)}</td>"
            f"<td>{'yes' if r['significant'] else 'no'}</td><td>{_e(r['note'])}</td></tr>"
            for r in tests)
        is_open = " open" if len(tests) <= 30 else ""
        out.append(f'<details id="group-tests"{is_open}><summary>Tests within groups '
                   f"({len(tests)} rows; {_e(cmp.correction)} over every group x metric x "
                   'pair)</summary><div class="scroll">'
                   f'<table id="group-tests-table"><thead><tr>{head}</tr></thead>'
                   f"<tbody>{body}</tbody></table></div></details>")
    if inter:
        head = "".join(f"<th>{_e(h)}</th>" for h in (
            "metric", "A", "B", "groups", "n", "F", "df", "p", "p (adjusted)", "significant",
            "note"))
        body = "".join(
            f"<tr><td><code>{_e(r['metric'])}</code></td><td>{_e(r['a'])}</td>"
            f"<td>{_e(r['b'])}</td><td>{_e(r['groups'])}</td><td>{_e(r['n'])}</td>"
            f"<td>{_fmt(r['statistic'], digits)}</td>"
            f"<td>{_e(r['df_between'])}, {_e(r['df_within'])}</td>"
            f"<td>{_fmt(r['p_value'], digits)}</td><td>{_fmt(r['p_adjusted'], digits)}</td>"
            f"<td>{'yes' if r['significant'] else 'no'}</td><td>{_e(r['note'])}</td></tr>"
            for r in inter)
        method = ("permutation F test" if inter[0]["method"] == "permutation"
                  else "one-way ANOVA F test")
        out.append("<h3>Does the difference between systems differ between groups?</h3>"
                   f'<p class="note">{_e(method)} of the per-user differences A − B by group '
                   f"(H0: equal group means); {_e(cmp.correction)} over every metric x pair.</p>"
                   f'<div class="scroll"><table id="interaction-table"><thead><tr>{head}</tr>'
                   f"</thead><tbody>{body}</tbody></table></div>")
    return "".join(out)


def _groups_html(model: TableModel, digits: int, figures_ok: bool,
                 max_plots: int) -> list[str]:
    """The "By group" section: the per-group table, a plot of the group means with their
    intervals per metric, and a comparison's tests within groups; nothing without groups."""
    table = group_table_html(model, digits)
    tests = group_tests_html(model.comparison, model.metrics, digits) \
        if model.comparison is not None else ""
    if not table and not tests:
        return []
    parts = ['<section id="groups"><h2>By group</h2>']
    if table:
        parts.append('<div class="scroll">' + table + "</div>")
    parts += [f'<p class="note">{_e(n)}</p>' for n in model.group_notes]
    rows = model.group_table()
    if rows and figures_ok:
        from . import figures

        systems = [s for s in model.systems if any(r["system"] == s for r in rows)] or \
            list(dict.fromkeys(r["system"] for r in rows))
        shown = [m for m in model.metrics if any(r["metric"] == m for r in rows)][:max_plots]
        parts.append('<div class="plots">')
        for m in shown:
            parts.append(_figure_html(
                "group-means",
                figures.group_means_figure(m, [r for r in rows if r["metric"] == m], systems,
                                           model.group_level),
                f"Mean of {m} per group with its {model.group_level:.0%} Student-t interval."))
        parts.append("</div>")
    parts.append(tests)
    parts.append("</section>")
    return parts


PLOTS_LEFT_OUT = ("Plots left out: matplotlib is not installed; install it with "
                  "pip install 'receval[plot]' to get them.")


def plots_left_out() -> str | None:
    """The note saying that an HTML report has no plots and how to get them; None when
    matplotlib is installed."""
    return None if _have_matplotlib() else PLOTS_LEFT_OUT


def _have_matplotlib() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:  # pragma: no cover - depends on the environment
        return False
    return True


def _curve_groups(curves: Any) -> dict[str, list[Any]]:
    if not curves:
        return {}
    if isinstance(curves, Mapping):
        return {str(k): list(v) for k, v in curves.items() if v}
    groups: dict[str, list[Any]] = {}
    names = {"roc": "ROC curve", "pr": "Precision-recall curve",
             "interpolated_pr": "Interpolated precision-recall"}
    for c in curves:
        kind = getattr(c, "kind", "curve")
        groups.setdefault(names.get(kind, kind), []).append(c)
    return groups


def _longtail_frames(train: Any, runs: Mapping[str, Any], k: int | None) -> dict[str, Any]:
    try:
        from ..beyond.popularity import popularity_curve
    except ImportError:
        return {}
    return {s: popularity_curve(train, run, k=k) for s, run in runs.items()}


def _settings_html(obj: Any, results: Mapping[str, Any]) -> str:
    from ..stats import TEST_TITLES, Comparison

    rows = []
    if isinstance(obj, Comparison):
        rows += [("test", TEST_TITLES.get(obj.test, obj.test)),
                 ("correction", obj.correction), ("alpha", obj.alpha),
                 ("baseline", obj.baseline or "none (all pairs)"),
                 ("resamples (permutation, bootstrap)", obj.n_resamples),
                 ("seed", obj.seed), ("users compared", obj.counts.get("users_compared"))]
        rows += [(k, v) for k, v in obj.options.items()]
    first = next(iter(results.values()), None)
    if first is not None:
        rows += [(f"policy: {k}", v) for k, v in first.policies.items()]
        rows += [(f"users: {k}", v) for k, v in first.counts.items()]
    body = "".join(f"<tr><td>{_e(k)}</td><td>{_e(v)}</td></tr>" for k, v in rows)
    return ('<h3>Settings</h3><table id="settings-table"><tbody>' + body + "</tbody></table>")


def _reliability(results: dict[str, Any], metrics: list[str]) -> dict[str, dict[str, Any]]:
    """``{metric: {system: Reliability}}`` of the metrics whose result info holds a
    reliability diagram (pooled equal-width ECE)."""
    from ..classification.calibration import Reliability

    out: dict[str, dict[str, Any]] = {}
    for m in metrics:
        for system, res in results.items():
            data = getattr(res, "info", {}).get(m, {})
            r = data.get("reliability") if isinstance(data, dict) else None
            if not r:
                continue
            arr = {k: np.asarray(r[k], dtype=np.float64) for k in
                   ("lo", "hi", "weight", "mean_predicted", "observed_rate")}
            out.setdefault(m, {})[system] = Reliability(
                "width", int(r["bins"]), arr["lo"], arr["hi"],
                np.asarray(r["count"], dtype=np.int64), arr["weight"], arr["mean_predicted"],
                arr["observed_rate"], float(res[m]), str(system))
    return out
