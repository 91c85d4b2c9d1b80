"""Metric keys derived from the registry, so that every registered family and every choice of
every parameter is tested without a hand-copied list.

:func:`metric_cases` gives, for each kernel family (plugins: ``plugins=True``), the family
without a cutoff (where allowed), at a few cutoffs, and with each non-default choice of each
parameter (one at a time), plus a non-default numeric value for each numeric parameter.
"""

from __future__ import annotations

from receval.metrics import REGISTRY, load_plugins, metric

# a value inside each numeric parameter's range other than its default
_NUMERIC = {"rel": 2.0, "beta": 2.0, "p": 0.5, "max_grade": 4.0, "recall": 0.3, "phi": 0.5,
            "T": 2.0}


# parameters without a usable default: every key of a family that has one sets it
_REQUIRED = {"n_items": 100, "group": "a"}


def metric_cases(*, cutoffs: tuple[int, ...] = (3,), plugins: bool = False,
                 exclude: tuple[str, ...] = ()) -> list[str]:
    if plugins:
        load_plugins()
    keys: list[str] = []
    for name in sorted(REGISTRY):
        defn = REGISTRY[name]
        if (defn.kernel is None) != plugins or name in exclude:
            continue
        req = {p.name: _REQUIRED[p.name] for p in defn.params if p.name in _REQUIRED}
        ks = [None] if defn.cutoff == "none" else [None, *cutoffs]
        for k in ks:
            keys.append(metric(name, k, **req).key)
        k = None if defn.cutoff == "none" else cutoffs[-1]
        for p in defn.params:
            if p.choices is not None:
                for choice in p.choices:
                    if choice != p.default:
                        keys.append(metric(name, k, **{**req, p.name: choice}).key)
            elif p.name in _NUMERIC:
                value = _NUMERIC[p.name]
                if p.high is not None and value >= p.high:  # inside a bounded range
                    value = (p.high + (p.low or 0.0)) / 2
                keys.append(metric(name, k, **{**req, p.name: value}).key)
    return list(dict.fromkeys(keys))


def exact_under_average(key: str) -> bool:
    from receval.metrics import parse_metric

    spec = parse_metric(key)
    return spec.definition.kernel is not None and spec.definition.kernel.exact_under_average(spec)
