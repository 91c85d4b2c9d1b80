"""Rendering of online results (A/B tests, off-policy estimates, interleaving, agreement):
plain text, Markdown, CSV, JSON and a self-contained HTML page (inline SVG scatter of offline vs
online effects with both error bars for an agreement result). Display rounding only."""

from __future__ import annotations

import html
import io
import math
from typing import Any

from ..errors import PolicyError, plain

COLUMNS = {
    "ab": ["metric", "arm", "control_value", "treatment_value", "effect", "ci_low", "ci_high",
           "relative", "rel_ci_low", "rel_ci_high", "p_value", "p_adjusted",
           "variance_reduction"],
    "ope": ["estimator", "value", "se", "ci_low", "ci_high", "relative"],
    "ope_compare": ["pair", "value_a", "value_baseline", "diff", "ci_low", "ci_high", "p_value",
                    "p_adjusted"],
    "overlap": ["weights", "rows", "mean_weight", "ess", "ess_share", "max_weight",
                "min_propensity", "share_deterministic_logging", "share_zero_weight"],
    "interleave": ["pair", "delta", "ci_low", "ci_high", "wins", "losses", "ties", "p_sign"],
    "agreement": ["rank", "metric", "experiments", "sign_agreement", "kendall_tau",
                  "tau_ci_low", "tau_ci_high", "spearman_rho", "slope", "slope_ci_low",
                  "slope_ci_high", "auc_online_win", "tau_diff_p_adjusted"],
}
FORMATS = ("text", "plain", "markdown", "csv", "json", "html")


def _fmt(v: Any, digits: int) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        if v != 0 and abs(v) < 10 ** -digits:
            return f"{v:.2e}"
        return f"{v:.{digits}f}"
    return str(v)


def _cols(res: Any) -> list[str]:
    cols = COLUMNS.get(res.kind)
    keys = list(res.rows[0]) if res.rows else []
    return [c for c in cols if c in keys] if cols else keys


def _cells(res: Any, digits: int) -> tuple[list[str], list[list[str]]]:
    cols = _cols(res)
    return cols, [[_fmt(r.get(c), digits) for c in cols] for r in res.rows]


def _plain(res: Any, digits: int, title: str | None) -> str:
    cols, body = _cells(res, digits)
    widths = [max(len(c), *(len(b[i]) for b in body)) if body else len(c)
              for i, c in enumerate(cols)]
    out = [title or res.title or res.kind]
    out.append("  ".join(c.rjust(w) for c, w in zip(cols, widths, strict=True)))
    out.extend("  ".join(x.rjust(w) for x, w in zip(b, widths, strict=True)) for b in body)
    out.append("counts: " + ", ".join(f"{k}={v}" for k, v in res.counts.items()))
    out.extend(f"warning: {w}" for w in res.warnings)
    return "\n".join(out) + "\n"


def _markdown(res: Any, digits: int, title: str | None) -> str:
    cols, body = _cells(res, digits)
    out = [f"### {title or res.title or res.kind}", "", "| " + " | ".join(cols) + " |",
           "|" + "|".join("---" for _ in cols) + "|"]
    out.extend("| " + " | ".join(b) + " |" for b in body)
    out.extend(["", *[f"> warning: {w}" for w in res.warnings]])
    return "\n".join(out) + "\n"


def _csv(res: Any) -> str:
    buf = io.StringIO()
    res.table.to_csv(buf, index=False)
    return buf.getvalue()


def scatter_svg(points: dict[str, list], *, width: int = 420, height: int = 320,
                xlabel: str = "offline effect", ylabel: str = "online effect") -> str:
    """Offline vs online effects with +-1.96 SE bars on both axes, and the zero lines."""
    xs, ys = points["x"], points["y"]
    sx = [0.0 if s is None or (isinstance(s, float) and math.isnan(s)) else s for s in points["sx"]]
    sy = [0.0 if s is None or (isinstance(s, float) and math.isnan(s)) else s for s in points["sy"]]
    if not xs:
        return "<svg></svg>"
    z = 1.96
    x0 = min(min(x - z * s for x, s in zip(xs, sx, strict=True)), 0.0)
    x1 = max(max(x + z * s for x, s in zip(xs, sx, strict=True)), 0.0)
    y0 = min(min(y - z * s for y, s in zip(ys, sy, strict=True)), 0.0)
    y1 = max(max(y + z * s for y, s in zip(ys, sy, strict=True)), 0.0)
    pad = 40

    def X(v: float) -> float:
        return pad + (v - x0) / ((x1 - x0) or 1) * (width - 2 * pad)

    def Y(v: float) -> float:
        return height - pad - (v - y0) / ((y1 - y0) or 1) * (height - 2 * pad)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" role="img">',
             f'<line x1="{X(0):.1f}" y1="{pad}" x2="{X(0):.1f}" y2="{height - pad}" stroke="#999"/>',
             f'<line x1="{pad}" y1="{Y(0):.1f}" x2="{width - pad}" y2="{Y(0):.1f}" stroke="#999"/>']
    for e, x, y, a, b in zip(points["experiment"], xs, ys, sx, sy, strict=True):
        col = "#2a7" if (x > 0) == (y > 0) else "#c33"
        parts.append(f'<line x1="{X(x - z * a):.1f}" y1="{Y(y):.1f}" x2="{X(x + z * a):.1f}" '
                     f'y2="{Y(y):.1f}" stroke="{col}" stroke-opacity=".5"/>')
        parts.append(f'<line x1="{X(x):.1f}" y1="{Y(y - z * b):.1f}" x2="{X(x):.1f}" '
                     f'y2="{Y(y + z * b):.1f}" stroke="{col}" stroke-opacity=".5"/>')
        parts.append(f'<circle cx="{X(x):.1f}" cy="{Y(y):.1f}" r="3.5" fill="{col}">'
                     f"<title>{html.escape(str(e))}: {x:.4g}, {y:.4g}</title></circle>")
    parts.append(f'<text x="{width / 2}" y="{height - 8}" text-anchor="middle" '
                 f'font-size="12">{html.escape(xlabel)}</text>')
    parts.append(f'<text x="12" y="{height / 2}" transform="rotate(-90 12 {height / 2})" '
                 f'text-anchor="middle" font-size="12">{html.escape(ylabel)}</text></svg>')
    return "".join(parts)


_CSS = ("body{font-family:system-ui,sans-serif;margin:2rem auto;max-width:1100px;padding:0 1rem;"
        "color:#222}table{border-collapse:collapse;font-size:.9rem}th,td{padding:.3rem .6rem;"
        "border-bottom:1px solid #e4e4e4;text-align:right}th:first-child,td:first-child"
        "{text-align:left}.warn{color:#a00}.plots{display:flex;flex-wrap:wrap;gap:1rem}"
        "figcaption{font-size:.85rem;color:#555}")


def _html(res: Any, digits: int, title: str | None) -> str:
    t = html.escape(title or res.title or res.kind)
    cols, body = _cells(res, digits)
    table = ("<table><thead><tr>" + "".join(f"<th>{html.escape(c)}</th>" for c in cols)
             + "</tr></thead><tbody>"
             + "".join("<tr>" + "".join(f"<td>{html.escape(x)}</td>" for x in b) + "</tr>"
                       for b in body) + "</tbody></table>")
    warn = "".join(f'<p class="warn">warning: {html.escape(w)}</p>' for w in res.warnings)
    counts = html.escape(", ".join(f"{k}={v}" for k, v in res.counts.items()))
    plots = ""
    if res.kind == "agreement":
        online = res.provenance.get("online_metric", "online")
        figs = [f"<figure>{scatter_svg(p, xlabel=f'offline effect ({m})', ylabel=f'online effect ({online})')}"
                f"<figcaption>{html.escape(m)}: green = same sign, red = opposite; bars "
                "= 95% intervals</figcaption></figure>"
                for m, p in res.diagnostics.get("points", {}).items()]
        plots = '<h2>Offline vs online effects</h2><div class="plots">' + "".join(figs) + "</div>"
    prov = html.escape(", ".join(f"{k}={v}" for k, v in res.provenance.items()))
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{t}</title>"
            f"<style>{_CSS}</style></head><body><h1>{t}</h1>{warn}{table}"
            f"<p>counts: {counts}</p>{plots}<p><small>{prov}</small></p></body></html>\n")


def render_online(res: Any, fmt: str, *, path: str | None = None, digits: int = 4,
                  title: str | None = None) -> str:
    """Render an :class:`receval.online.OnlineResult` in ``fmt`` and write it to ``path``."""
    fmt = {"md": "markdown", "txt": "plain", "table": "plain", "htm": "html"}.get(fmt, fmt)
    if fmt not in FORMATS:
        raise PolicyError(f"format={plain(fmt)} is not available for online results; choose one of "
                          f"{list(FORMATS)}.")
    if fmt in ("text", "plain"):
        text = _plain(res, digits, title)
    elif fmt == "markdown":
        text = _markdown(res, digits, title)
    elif fmt == "csv":
        text = _csv(res)
    elif fmt == "json":
        text = res.to_json()
    else:
        text = _html(res, digits, title)
    if path is not None:
        from ..io.output import write_text

        write_text(path, text)
    return text
