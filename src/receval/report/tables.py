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


def _json_value(v: Any) -> Any:
    if hasattr(v, "item"):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def render(headers: list[str], rows: list[list[Any]], fmt: str, *, digits: int = 4,
           footer: str | None = None, caption: str | None = None) -> str:
    """Render a table as plain text, Markdown, CSV, JSON (list of records) or LaTeX."""
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
            w.writerow([repr(v) if isinstance(v, float) else _json_value(v) for v in row])
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

    def line(vals: list[str]) -> str:
        return "  ".join(v.rjust(w) if numeric[j] else v.ljust(w)
                         for j, (v, w) in enumerate(zip(vals, widths, strict=True))).rstrip()

    out = ([caption] if caption else []) + [line(headers), line(["-" * w for w in widths])]
    out += [line(r) for r in cells]
    if footer:
        out.append(footer)
    return "\n".join(out)
