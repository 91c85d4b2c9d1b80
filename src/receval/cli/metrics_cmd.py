"""``receval metrics [--verbose]``: every metric with its parameters, defaults and formula."""

from __future__ import annotations

import argparse

from .common import Formatter, add_debug_flags, add_format_flag, emit, example_epilog, render

EXAMPLES = [
    "receval metrics                      # one line per metric",
    "receval metrics --verbose            # parameters, formulas, references, examples",
    "receval metrics ndcg map --verbose   # only these (aliases accepted: AP, P@5, recip_rank)",
    "receval metrics --format json",
]


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "metrics", help="list every metric with its parameters, defaults and formula",
        description="List the registered metrics: name, cutoff, parameters with their "
                    "defaults, aliases and a one-line formula. Keys are written "
                    "name[@k][(param=value,...)], e.g. ndcg@10(gain=exp).",
        epilog=example_epilog(EXAMPLES), formatter_class=Formatter,
    )
    p.add_argument("names", nargs="*", metavar="METRIC", help="show only these metrics")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="parameters with their choices, formula, description, reference, example")
    add_format_flag(p, ("table", "markdown", "json"))
    p.add_argument("--compat", metavar="LIBRARY", nargs="?", const="",
                   help="what each metric name means in LIBRARY (rectools, recbole, trec_eval, "
                        "...) and the version checked; without LIBRARY, the list of presets")
    add_debug_flags(p, quiet=False)
    p.set_defaults(func=run)


def _params(defn) -> str:
    return ", ".join(f"{p.name}={p.default}" for p in defn.params) or "-"


def _defs(names: list[str]):
    from ..errors import UnknownMetricError, suggest
    from ..metrics import ALIASES, REGISTRY, canonical_key, list_metrics

    if not names:
        return list_metrics()
    out = []
    for n in names:
        base = n.lower()
        if base in REGISTRY or base in ALIASES:
            name = ALIASES.get(base, base)
        else:
            try:
                name = canonical_key(n).split("@")[0].split("(")[0]
            except (KeyError, ValueError):
                raise UnknownMetricError(
                    f"unknown metric {n!r}." + suggest(base, sorted(REGISTRY) + sorted(ALIASES))
                ) from None
        if REGISTRY[name] not in out:
            out.append(REGISTRY[name])
    return out


def run(args: argparse.Namespace) -> int:
    from ..metrics import ALIASES

    if args.compat is not None:
        from ..compat import describe as describe_preset

        emit(describe_preset(args.compat or None), None)
        return 0

    defs = _defs(args.names)
    aliases: dict[str, list[str]] = {}
    for alias, name in sorted(ALIASES.items()):
        aliases.setdefault(name, []).append(alias)
    if args.format == "json":
        import json

        data = [{
            "name": d.name, "title": d.title, "family": d.family, "formula": d.formula,
            "cutoff": d.cutoff, "aggregate": d.aggregate,
            "higher_is_better": d.higher_is_better,
            "params": [{"name": p.name, "default": p.default, "doc": p.doc,
                        "choices": list(p.choices) if p.choices else None} for p in d.params],
            "aliases": aliases.get(d.name, []), "doc": d.doc, "reference": d.reference,
            "example": d.example,
        } for d in defs]
        emit(json.dumps(data, indent=2), None)
        return 0
    if not args.verbose:
        headers = ["metric", "@k", "parameters (defaults)", "formula"]
        rows = [[d.name, "yes" if d.cutoff != "none" else "no", _params(d), d.formula]
                for d in defs]
        from .common import terminal_width

        emit(render(headers, rows, "markdown" if args.format == "markdown" else "table",
                    width=terminal_width()), None)
        return 0
    from ..metrics.describe import describe

    blocks = [describe(d, aliases.get(d.name, [])) for d in defs]
    emit("\n\n".join(blocks), None)
    return 0
