"""Terminal (rich), plain text, Markdown, LaTeX (booktabs) and CSV renderers."""

from __future__ import annotations

import csv
import io
from typing import Any

from .model import TableModel, build
from .tables import csv_cell, fit_columns, text_rows


def _marks(model: TableModel, system: str, metric: str) -> str:
    cell = model.cells[(system, metric)]
    return "".join(cell.beats)


def _single_rows(model: TableModel, digits: int) -> tuple[list[str], list[list[str]]]:
    res = model.single
    header = ["metric", "mean", "std", "se", "n", "skipped"]
    rows = [[r["metric"], model.fmt(r["mean"], digits), model.fmt(r["std"], digits),
             model.fmt(r["se"], digits), str(r["n"]), str(r["skipped"])] for r in res.stats
            if r["metric"] in model.metrics]
    return header, rows


def _cell_text(model: TableModel, s: str, m: str, digits: int, sup: str) -> str:
    cell = model.cells[(s, m)]
    text = model.fmt(cell.value, digits)
    marks = _marks(model, s, m)
    if marks:
        text += sup.format(marks)
    return text


# ---- per-group tables ---------------------------------------------------------------------
_TEXT_COLUMNS = ("system", "group", "metric", "A", "B")


def group_tables(model: TableModel, digits: int) -> list[tuple[str, list[str], list[list[str]]]]:
    """The per-group tables of a report, as ``(caption, header, rows)`` of text cells: each
    system's mean per group with its interval, n, skipped and missing users (results evaluated
    with ``groups=``); for a comparison with ``by=``, its tests within groups and its
    interaction tests."""
    out: list[tuple[str, list[str], list[list[str]]]] = []
    rows = model.group_table()
    fmt = model.fmt
    if rows:
        multi = len({r["system"] for r in rows}) > 1
        header = (["system"] if multi else []) + [
            "group", "metric", "mean", f"{model.group_level:.0%} CI", "n", "skipped", "missing"]
        cells = [([r["system"]] if multi else []) + [
            str(r["group"]), str(r["metric"]), fmt(r["mean"], digits),
            f"[{fmt(r['ci_low'], digits)}, {fmt(r['ci_high'], digits)}]", str(r["n"]),
            str(r["skipped"]), str(r["missing_from_run"])] for r in rows]
        out.append(("Per group (mean with Student-t interval; missing = missing from the run)",
                    header, cells))
    cmp = model.comparison
    shown = set(model.metrics)
    tests = [r for r in getattr(cmp, "group_pairs", []) if r["metric"] in shown]
    if tests:
        header = ["group", "metric", "A", "B", "n", "mean A − B", f"{1 - cmp.alpha:.0%} CI",
                  "p", "p (adjusted)", "significant"]
        cells = [[str(r["group"]), str(r["metric"]), str(r["a"]), str(r["b"]), str(r["n"]),
                  fmt(r["diff"], digits),
                  f"[{fmt(r['ci_low'], digits)}, {fmt(r['ci_high'], digits)}]",
                  fmt(r["p_value"], digits), fmt(r["p_adjusted"], digits),
                  "yes" if r["significant"] else "no"] for r in tests]
        out.append((f"Tests within groups ({cmp.correction} over every group x metric x pair)",
                    header, cells))
    inter = [r for r in getattr(cmp, "interaction_rows", []) if r["metric"] in shown]
    if inter:
        header = ["metric", "A", "B", "groups", "n", "F", "df", "p", "p (adjusted)",
                  "significant"]
        cells = [[str(r["metric"]), str(r["a"]), str(r["b"]), str(r["groups"]), str(r["n"]),
                  fmt(r["statistic"], digits), f"{r['df_between']}, {r['df_within']}",
                  fmt(r["p_value"], digits), fmt(r["p_adjusted"], digits),
                  "yes" if r["significant"] else "no"] for r in inter]
        method = "permutation F" if inter[0]["method"] == "permutation" else "one-way ANOVA F"
        out.append((f"Does A − B differ between groups? ({method} test of the per-user "
                    "differences by group)", header, cells))
    return out


def _group_lines(model: TableModel, digits: int, width: int | None) -> list[str]:
    lines: list[str] = []
    for caption, header, cells in group_tables(model, digits):
        widths = [max(len(header[j]), *(len(r[j]) for r in cells)) for j in range(len(header))]
        left = [h in _TEXT_COLUMNS for h in header]
        lines += ["", caption]
        for n, group in enumerate(fit_columns(widths, width)):
            lines += [""] if n else []
            lines += text_rows([header, ["-" * w for w in widths], *cells], widths, left, group)
    if lines:
        lines += model.group_notes
    return lines


# ---- plain text and rich ------------------------------------------------------------------
def plain_table(obj: Any, digits: int = 4, *, width: int | None = None) -> str:
    """A plain-text table (no colour); marks as ``^ab``; ``*`` = best. ``width``: wrap the
    metric columns into groups that fit (the terminal's width; None = no limit)."""
    model = obj if isinstance(obj, TableModel) else build(obj)
    if model.single is not None:
        header, rows = _single_rows(model, digits)
    else:
        header = ["system"] + model.metrics
        rows = []
        for s in model.systems:
            row = [f"({model.letters[s]}) {s}"]
            for m in model.metrics:
                cell = model.cells[(s, m)]
                row.append(_cell_text(model, s, m, digits, "^{}") + ("*" if cell.best else ""))
            rows.append(row)
    widths = [max(len(header[j]), *(len(r[j]) for r in rows)) for j in range(len(header))]
    left = [j == 0 for j in range(len(header))]
    lines: list[str] = []
    for n, group in enumerate(fit_columns(widths, width)):
        lines += [""] if n else []
        lines += text_rows([header, ["-" * w for w in widths], *rows], widths, left, group)
    lines += model.notes
    if model.single is None and len(model.systems) > 1:
        lines.append("* = best value.")
    lines += _group_lines(model, digits, width)
    return "\n".join(lines)


def rich_table(obj: Any, digits: int = 4, *, width: int | None = None,
               color: bool = False) -> str:
    """Render with rich to a string (box-drawn table; colours when ``color``). Without rich
    installed, the plain-text table (:func:`plain_table`). ``width``: the terminal's width
    (None: wide enough for every column)."""
    try:
        from rich.console import Console
        from rich.markup import escape
        from rich.table import Table
    except ImportError:
        return plain_table(obj, digits, width=width) + "\n"
    model = obj if isinstance(obj, TableModel) else build(obj)
    table = Table(title=model.title, show_lines=False)
    legend = None
    if model.single is not None:
        header, rows = _single_rows(model, digits)
        for j, h in enumerate(header):
            table.add_column(h, justify="left" if j == 0 else "right")
        for r in rows:
            table.add_row(*r)
    else:
        table.add_column("system", justify="left")
        for m in model.metrics:
            table.add_column(m, justify="right")
        for s in model.systems:
            row = [f"({model.letters[s]}) {s}"]
            for m in model.metrics:
                cell = model.cells[(s, m)]
                text = escape(_cell_text(model, s, m, digits, " {}"))
                if cell.best:  # bold is only visible in colour: else a star, as plain text
                    text = f"[bold]{text}[/bold]" if color else text + "*"
                if cell.vs_baseline == "+":
                    text = f"[green]{text} ▲[/green]"
                elif cell.vs_baseline == "-":
                    text = f"[red]{text} ▼[/red]"
                row.append(text)
            table.add_row(escape(row[0]), *row[1:])
        if len(model.systems) > 1:
            legend = (("Bold" if color else "*") + " = best value; letters = significantly "
                      "better than those systems"
                      + ("; ▲/▼ = significantly better/worse than the baseline."
                         if model.baseline else "."))
    buf = io.StringIO()
    extras = group_tables(model, digits)
    wide = max([sum(max(len(h), *(len(r[j]) for r in cells)) + 3 for j, h in enumerate(header))
                + 1 for _, header, cells in extras], default=0)
    console = Console(file=buf, width=width or max(100, 14 * (len(model.metrics) + 2), wide),
                      force_terminal=color, color_system="standard" if color else None,
                      no_color=not color, highlight=False)
    console.print(table)
    for note in model.notes:
        console.print(note, markup=False, highlight=False)
    if legend:
        console.print(legend, markup=False, highlight=False)
    for caption, header, cells in extras:
        extra = Table(title=caption, show_lines=False)
        for h in header:
            extra.add_column(h, justify="left" if h in _TEXT_COLUMNS else "right")
        for r in cells:
            extra.add_row(*(escape(c) for c in r))
        console.print(extra)
    if extras:
        for note in model.group_notes:
            console.print(note, markup=False, highlight=False)
    return buf.getvalue()


# ---- Markdown -----------------------------------------------------------------------------
def markdown(obj: Any, digits: int = 4) -> str:
    """GitHub-flavoured Markdown table; best in bold, marks as ``<sup>ab</sup>``."""
    model = obj if isinstance(obj, TableModel) else build(obj)
    if model.single is not None:
        header, rows = _single_rows(model, digits)
        align = ["---"] + ["---:"] * (len(header) - 1)
    else:
        header = ["system"] + [f"`{m}`" for m in model.metrics]
        align = ["---"] + ["---:"] * len(model.metrics)
        rows = []
        for s in model.systems:
            row = [f"({model.letters[s]}) {_md_escape(s)}"]
            for m in model.metrics:
                cell = model.cells[(s, m)]
                value = model.fmt(cell.value, digits)
                if cell.best:
                    value = f"**{value}**"
                marks = _marks(model, s, m)
                row.append(value + (f"<sup>{marks}</sup>" if marks else ""))
            rows.append(row)
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(align) + " |"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    if model.notes:
        lines.append("")
        lines += model.notes
    for caption, header, cells in group_tables(model, digits):
        lines += ["", f"**{caption}**", "", "| " + " | ".join(header) + " |",
                  "| " + " | ".join("---" if h in _TEXT_COLUMNS else "---:" for h in header)
                  + " |"]
        lines += ["| " + " | ".join(_md_escape(c) for c in r) + " |" for r in cells]
    if model.group_notes and group_tables(model, digits):
        lines.append("")
        lines += model.group_notes
    return "\n".join(lines) + "\n"


def _md_escape(text: str) -> str:
    return text.replace("|", "\\|")


# ---- LaTeX --------------------------------------------------------------------------------
_LATEX_SPECIAL = {"&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
                  "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
                  "\\": r"\textbackslash{}"}


def latex_escape(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in str(text))


def latex(obj: Any, digits: int = 4, *, caption: str | None = None,
          label: str | None = None) -> str:
    """A booktabs ``table``: best value bold, superscripts name the systems a value beats."""
    model = obj if isinstance(obj, TableModel) else build(obj)
    lines = [r"% requires \usepackage{booktabs}", r"\begin{table}[t]", r"\centering"]
    if caption or model.comparison is not None:
        text = caption or " ".join(model.notes[:1])
        lines.append(r"\caption{" + latex_escape(text) + "}")
    if label:
        lines.append(r"\label{" + label + "}")
    if model.single is not None:
        header, rows = _single_rows(model, digits)
        lines.append(r"\begin{tabular}{l" + "r" * (len(header) - 1) + "}")
        lines.append(r"\toprule")
        lines.append(" & ".join(latex_escape(h) for h in header) + r" \\")
        lines.append(r"\midrule")
        for r in rows:
            lines.append(" & ".join(latex_escape(c) for c in r) + r" \\")
    else:
        lines.append(r"\begin{tabular}{l" + "r" * len(model.metrics) + "}")
        lines.append(r"\toprule")
        lines.append("System & " + " & ".join(latex_escape(m) for m in model.metrics) + r" \\")
        lines.append(r"\midrule")
        for s in model.systems:
            row = [f"({model.letters[s]}) {latex_escape(s)}"]
            for m in model.metrics:
                cell = model.cells[(s, m)]
                value = model.fmt(cell.value, digits)
                value = "--" if value == "–" else value
                if cell.best:
                    value = r"\textbf{" + value + "}"
                marks = _marks(model, s, m)
                if marks:
                    value += r"$^{\mathrm{" + marks + "}}$"
                row.append(value)
            lines.append(" & ".join(row) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines) + "\n"


# ---- CSV ----------------------------------------------------------------------------------
def to_csv(obj: Any) -> str:
    """Full-precision CSV: the pairwise rows of a Comparison, or one row per metric of a result,
    or systems x metrics for a dict of results."""
    from ..results import PAIR_COLUMNS, Comparison, EvalResult

    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    if isinstance(obj, Comparison):
        writer.writerow(PAIR_COLUMNS)
        for row in obj.pairs:
            writer.writerow([_csv_value(row[c]) for c in PAIR_COLUMNS])
    elif isinstance(obj, EvalResult):
        writer.writerow(["metric", "mean", "std", "se", "n", "skipped"])
        for r in obj.stats:
            writer.writerow([r["metric"]] + [_csv_value(r[c]) for c in
                                             ("mean", "std", "se", "n", "skipped")])
    else:
        model = build(obj)
        writer.writerow(["system"] + model.metrics)
        for s in model.systems:
            writer.writerow([s] + [_csv_value(model.cells[(s, m)].value) for m in model.metrics])
    return buf.getvalue()


def _csv_value(v: Any) -> Any:
    return csv_cell(v)
