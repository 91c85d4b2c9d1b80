"""Generic tables (headers + rows) as plain text, Markdown, CSV, JSON records or LaTeX.

The one writer of tabular text for the CLI commands and :mod:`receval.explain`; the report
renderers (:mod:`receval.report.text`) write comparison tables with the same cell formatting.
"""

from __future__ import annotations

import json
import math
from typing import Any


def fmt_value(v: Any, digits: int) -> str:
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if v == int(v) and abs(v) < 1e15 and digits == 0:
            return str(int(v))
        return f"{v:.{digits}f}"
    if hasattr(v, "item"):
        return fmt_value(v.item(), digits)
    return str(v)


def plain(v: Any) -> Any:
    """A numpy scalar as the Python number it holds (``np.float64(0.5)`` -> ``0.5``); other
    values unchanged. Every writer calls it, so no file shows ``np.float64(...)``."""
    return v.item() if hasattr(v, "item") and getattr(v, "ndim", 0) == 0 else v


def csv_cell(v: Any) -> Any:
    """A CSV cell: floats at full precision (``repr`` of the plain float), others as is."""
    v = plain(v)
    return repr(v) if isinstance(v, float) else v


def _json_value(v: Any) -> Any:
    v = plain(v)
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def text_rows(rows: list[list[str]], widths: list[int], left: list[bool],
              columns: list[int]) -> list[str]:
    """Lines of a plain-text table: the cells of ``columns``, padded to ``widths``, left- or
    right-aligned, two spaces apart."""
    return ["  ".join(row[j].ljust(widths[j]) if left[j] else row[j].rjust(widths[j])
                      for j in columns).rstrip() for row in rows]


def fit_columns(widths: list[int], width: int | None, sep: int = 2) -> list[list[int]]:
    """Column groups that each fit in ``width`` characters, the first column repeated in every
    group (a table too wide for the terminal is shown as several narrower tables, as pandas
    does); one group with every column when ``width`` is None or the table fits."""
    columns = list(range(1, len(widths)))
    if width is None or sum(widths) + sep * (len(widths) - 1) <= width or not columns:
        return [[0, *columns]]
    groups: list[list[int]] = []
    group = [0]
    used = widths[0]
    for j in columns:
        if len(group) > 1 and used + sep + widths[j] > width:
            groups.append(group)
            group, used = [0], widths[0]
        group.append(j)
        used += sep + widths[j]
    groups.append(group)
    return groups


def render(headers: list[str], rows: list[list[Any]], fmt: str, *, digits: int = 4,
           footer: str | None = None, caption: str | None = None,
           width: int | None = None) -> str:
    """Render a table as plain text, Markdown, CSV, JSON (list of records) or LaTeX.

    ``width``: the plain-text table is wrapped into column groups of at most this many
    characters (the terminal's width; None = no limit)."""
    if fmt == "json":
        records = [{h: _json_value(v) for h, v in zip(headers, row, strict=True)} for row in rows]
        return json.dumps(records, indent=2)
    if fmt == "csv":
        import csv
        import io

        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(headers)
        for row in rows:
            w.writerow([csv_cell(v) for v in row])
        return buf.getvalue().rstrip("\n")
    cells = [[fmt_value(v, digits) for v in row] for row in rows]
    numeric = [all(isinstance(r[j], (int, float)) or hasattr(r[j], "item") for r in rows)
               for j in range(len(headers))]
    if fmt == "markdown":
        lines = ["| " + " | ".join(headers) + " |",
                 "|" + "|".join("---:" if numeric[j] else ":---" for j in range(len(headers)))
                 + "|"]
        lines += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in cells]
        return "\n".join(lines)
    if fmt == "latex":
        def esc(s: str) -> str:
            for a, b in (("\\", "\\textbackslash{}"), ("&", "\\&"), ("%", "\\%"), ("_", "\\_"),
                         ("#", "\\#"), ("$", "\\$"), ("{", "\\{"), ("}", "\\}")):
                s = s.replace(a, b) if a != "\\" else s.replace(a, "\x00")
            return s.replace("\x00", "\\textbackslash{}")

        spec = "".join("r" if numeric[j] else "l" for j in range(len(headers)))
        lines = ["\\begin{tabular}{" + spec + "}", "\\toprule",
                 " & ".join(esc(h) for h in headers) + " \\\\", "\\midrule"]
        lines += [" & ".join(esc(c) for c in row) + " \\\\" for row in cells]
        lines += ["\\bottomrule", "\\end{tabular}"]
        return "\n".join(lines)
    widths = [max([len(h)] + [len(r[j]) for r in cells]) for j, h in enumerate(headers)]
    out = [caption] if caption else []
    left = [not numeric[j] for j in range(len(headers))]
    for n, group in enumerate(fit_columns(widths, width)):
        rows_ = [headers, ["-" * w for w in widths], *cells]
        ws = widths
        over = sum(widths[j] for j in group) + 2 * (len(group) - 1) - (width or 0)
        if width is not None and over > 0 and widths[group[-1]] - over >= 8:
            # one column alone is too wide (a long formula): cut its cells to fit
            last, keep = group[-1], widths[group[-1]] - over
            ws = [keep if j == last else w for j, w in enumerate(widths)]
            rows_ = [[c if j != last or len(c) <= keep else c[:keep - 1] + "…"
                      for j, c in enumerate(r)] for r in rows_]
            rows_[1][last] = "-" * keep
        out += [""] if n else []
        out += text_rows(rows_, ws, left, group)
    if footer:
        if width is not None:
            import textwrap

            footer = "\n".join(textwrap.wrap(footer, width))
        out.append(footer)
    return "\n".join(out)
