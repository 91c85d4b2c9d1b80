"""HTML for meta-evaluation (:mod:`receval.stats.meta`): one ``<section>`` with the system means
per condition and each table given (ranking agreement with its intervals, discriminative power,
swap rates, repro_eval's measures), or a whole self-contained page. Display rounding only."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from ..errors import InputError
from .html import _CSS, _e, _fmt

#: the tables a section shows, in order, with their headings and what each measures
TABLES = {
    "agreement": ("System-ranking agreement",
                  "Kendall's tau-b, tau_AP (first condition the reference) and RBO of the "
                  "system rankings, each with a bootstrap percentile interval over topics."),
    "power": ("Discriminative power",
              "Share of system pairs whose paired test over topics is significant after the "
              "correction (Sakai 2006)."),
    "swaps": ("Swap rate",
              "Share of trials where two topic samples order a pair of systems differently "
              "(Voorhees & Buckley 2002; Sakai 2006)."),
    "order": ("Document order (repro_eval)",
              "Mean Kendall's tau union and RBO between the original and reproduced lists."),
    "effectiveness": ("Effectiveness (repro_eval)", "RMSE and nRMSE of the per-topic scores."),
    "effects": ("Overall effects (repro_eval)", "Effect ratio and delta relative improvement."),
}


def _table(frame: Any, digits: int) -> str:
    cols = [str(c) for c in frame.columns]
    head = "".join(f"<th>{_e(c)}</th>" for c in cols)
    rows = []
    for rec in frame.itertuples(index=False):
        cells = []
        for v in rec:
            if isinstance(v, (bool, np.bool_)):
                cells.append(f"<td>{'yes' if v else 'no'}</td>")
            elif isinstance(v, (float, np.floating)):
                cells.append(f"<td>{_fmt(float(v), digits)}</td>")
            else:
                cells.append(f"<td>{_e(v)}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return (f'<div class="scroll"><table><thead><tr>{head}</tr></thead><tbody>'
            + "".join(rows) + "</tbody></table></div>")


def _means(meta: Any, digits: int) -> str:
    means = meta.means()
    head = "<th>system</th>" + "".join(f"<th>{_e(j)}<br><code>{_e(m)}</code></th>"
                                       for j, m in means.columns)
    rows = "".join(
        f"<tr><td>{_e(s)}</td>" + "".join(f"<td>{_fmt(float(v), digits)}</td>" for v in row)
        + "</tr>" for s, row in zip(means.index, means.to_numpy(), strict=True))
    return (f'<div class="scroll"><table><thead><tr>{head}</tr></thead><tbody>{rows}'
            "</tbody></table></div>")


def meta_section_html(meta: Any = None, *, digits: int = 4, **tables: Any) -> str:
    """One ``<section id="meta">``: the system means of ``meta`` (a
    :class:`~receval.stats.meta.MetaEvaluation`, optional) and each table passed by name:
    ``agreement``, ``power``, ``swaps`` (frames from the object's methods), ``reproduction``
    (a :class:`~receval.stats.meta.Reproduction`: its order, effectiveness and effects)."""
    unknown = [k for k in tables if k not in TABLES and k != "reproduction"]
    if unknown:
        raise InputError(f"meta_section_html() takes the tables {list(TABLES)[:3]} and "
                         f"reproduction=, not {unknown}.")
    rep = tables.pop("reproduction", None)
    if rep is not None:
        tables.update(order=rep.order_summary, effectiveness=rep.effectiveness,
                      effects=rep.effects)
    parts = ['<section id="meta"><h2>Meta-evaluation</h2>']
    if meta is not None:
        parts.append(f'<p class="note">{len(meta.systems)} systems, judgment sets '
                     f"{_e(', '.join(meta.judgments))}; metrics {_e(', '.join(meta.metrics))}. "
                     "Means over the topics where every system has a value.</p>")
        parts.append(_means(meta, digits))
    for key, (heading, note) in TABLES.items():
        frame = tables.get(key)
        if frame is None or len(frame) == 0:
            continue
        parts.append(f"<h3>{_e(heading)}</h3><p class=\"note\">{_e(note)}</p>")
        parts.append(_table(frame, digits))
        if any(isinstance(v, float) and math.isnan(v) for v in frame.to_numpy().ravel()):
            parts.append('<p class="note">– : undefined (see the warning for the reason).</p>')
    if rep is not None and rep.notes:
        parts += [f'<p class="note">{_e(n)}</p>' for n in rep.notes]
    parts.append("</section>")
    return "\n".join(parts)


def render_meta_html(meta: Any = None, *, title: str = "Meta-evaluation", digits: int = 4,
                     **tables: Mapping[str, Any]) -> str:
    """A self-contained HTML page holding :func:`meta_section_html`."""
    body = f"<h1>{_e(title)}</h1>\n" + meta_section_html(meta, digits=digits, **tables)
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{_e(title)}</title><style>{_CSS}</style></head>\n<body>\n{body}\n"
            "</body></html>\n")
