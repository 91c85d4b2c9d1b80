"""Human-readable descriptions of registered metrics.

One formatting function, :func:`describe`, gives the text that ``receval metrics --verbose``
prints and that the documentation's metric reference shows, so the two never differ.
:func:`reference_markdown` builds the whole reference page from the registry.

>>> from receval.metrics import REGISTRY
>>> print(describe(REGISTRY["mrr"]).splitlines()[0])
mrr - Reciprocal rank (mean: MRR)
"""

from __future__ import annotations

from collections.abc import Iterable

from .spec import ALIASES, REGISTRY, MetricDef, load_plugins


def aliases_by_metric() -> dict[str, list[str]]:
    """Every alias, grouped by the canonical metric name it stands for (sorted)."""
    out: dict[str, list[str]] = {}
    for alias, name in sorted(ALIASES.items()):
        out.setdefault(name, []).append(alias)
    return out


def key_pattern(defn: MetricDef) -> str:
    """How a key of this metric is written, e.g. ``ndcg[@k][(gain=...,ideal=...)]``."""
    out = defn.name + ("[@k]" if defn.cutoff != "none" else "")
    if defn.params:
        out += "[(" + ",".join(f"{p.name}=..." for p in defn.params) + ")]"
    return out


def params_summary(defn: MetricDef) -> str:
    """``name=default`` for each parameter, or ``-``."""
    return ", ".join(f"{p.name}={p.default}" for p in defn.params) or "-"


def describe(defn: MetricDef, aliases: Iterable[str] | None = None) -> str:
    """The full description of one metric: formula, key, aliases, parameters, summary rule,
    documentation, reference and example (plain text, two-space indented after the title).

    ``aliases`` defaults to the registered aliases of the metric.
    """
    names = list(aliases_by_metric().get(defn.name, []) if aliases is None else aliases)
    lines = [f"{defn.name} - {defn.title}", f"  formula:   {defn.formula}",
             f"  key:       {key_pattern(defn)}"]
    if names:
        lines.append(f"  aliases:   {', '.join(names)}")
    for p in defn.params:
        choice = f" [{' | '.join(map(str, p.choices))}]" if p.choices else ""
        lines.append(f"  {p.name} = {p.default}{choice}: {p.doc}")
    summary = {"mean": "mean over users", "pooled": "one value over every user's pairs pooled"
               }.get(defn.aggregate, defn.aggregate)
    better = (f"best at {defn.best:g}" if defn.best is not None
              else f"{'higher' if defn.higher_is_better else 'lower'} is better")
    lines.append(f"  summary:   {summary}, {better}")
    lines.append(f"  {defn.doc}")
    if defn.reference:
        lines.append(f"  reference: {defn.reference}")
    if defn.example:
        lines.append(f"  example:   {defn.example}")
    return "\n".join(lines)


FAMILY_TITLES = {
    "ranking": "Ranking metrics",
    "classification": "Classification, AUC and rating metrics",
    "beyond": "Beyond-accuracy metrics",
}


def _md_cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def reference_markdown() -> str:
    """The metric reference page (Markdown), built from the registry with plugins loaded.

    Each metric gets a heading, a one-line summary and exactly the text of :func:`describe`.
    """
    load_plugins()
    defs = [REGISTRY[n] for n in sorted(REGISTRY)]
    families = sorted({d.family for d in defs},
                      key=lambda f: (list(FAMILY_TITLES).index(f) if f in FAMILY_TITLES else 99, f))
    out = [
        "# Metric reference",
        "",
        "Generated from the metric registry (`receval.metrics.REGISTRY`) when the documentation "
        "is built; each block is the text `receval metrics NAME --verbose` prints. "
        f"{len(defs)} metrics.",
        "",
        "Keys are written `name[@k][(param=value,...)]`, e.g. `ndcg@10(gain=exp)`; only "
        "parameters that differ from their defaults appear in a canonical key.",
        "",
    ]
    for fam in families:
        members = [d for d in defs if d.family == fam]
        out += [f"## {FAMILY_TITLES.get(fam, fam.title())}", "",
                "| key | metric | parameters (defaults) |", "|---|---|---|"]
        out += [f"| [`{d.name}`](#{d.name}) | {_md_cell(d.title)} | "
                f"{_md_cell(params_summary(d))} |" for d in members]
        out.append("")
        for d in members:
            out += [f"### {d.name}", "", "```text", describe(d), "```", ""]
    return "\n".join(out)


__all__ = ["aliases_by_metric", "describe", "key_pattern", "params_summary",
           "reference_markdown"]
