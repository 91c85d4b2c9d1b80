"""Metric names in the styles people already type, mapped to receval's canonical keys.

=================  ==============================  ========================================
style              examples                        canonical key
=================  ==============================  ========================================
trec_eval          ``ndcg_cut.10``, ``P.5``,       ``ndcg@10``, ``precision@5``,
                   ``recall_100``, ``map``,        ``recall@100``, ``map``, ``mrr``,
                   ``recip_rank``, ``Rprec``,      ``r_precision``, ``hit_rate@10``,
                   ``success.10``, ``map_cut.10``  ``map@10``
ir_measures        ``nDCG@10``, ``P@5``, ``AP``,   ``ndcg@10``, ``precision@5``, ``map``,
                   ``RR@10``, ``R@100``,           ``mrr@10``, ``recall@100``,
                   ``P(rel=2)@5``,                 ``precision@5(rel=2)``,
                   ``nDCG(dcg='exp-log2')@10``     ``ndcg@10(gain=exp)``
ranx               ``ndcg@10``, ``map@100``,       ``ndcg@10``, ``map@100``, ``mrr``,
                   ``mrr``, ``r-precision``,       ``r_precision``, ``ndcg@10(gain=exp)``
                   ``ndcg_burges@10``
receval            ``ndcg@10(gain=exp)``           itself
=================  ==============================  ========================================

Note the conventions behind a name can differ between tools even when the name maps: ranx and
ir_measures cut AP at k with denominator R (receval's default), as trec_eval's ``map_cut`` does.
"""

from __future__ import annotations

import re

from ..errors import MetricError

# trec_eval base name -> (receval name, fixed parameters)
_TREC: dict[str, tuple[str, dict[str, str]]] = {
    "P": ("precision", {}), "recall": ("recall", {}), "map": ("map", {}),
    "map_cut": ("map", {}), "ndcg": ("ndcg", {}), "ndcg_cut": ("ndcg", {}),
    "success": ("hit_rate", {}), "relative_P": ("precision", {"denominator": "min_k_rel"}),
    "recip_rank": ("mrr", {}), "Rprec": ("r_precision", {}), "bpref": ("bpref", {}),
    "num_ret": ("num_ret", {}), "num_rel": ("num_rel", {}), "num_rel_ret": ("hits", {}),
}
_TREC_RE = re.compile(r"^(P|recall|map_cut|ndcg_cut|success|relative_P)[._](\d+)$")

# ir_measures name (lower case) -> receval name
_IRM = {
    "ndcg": "ndcg", "p": "precision", "r": "recall", "ap": "map", "rr": "mrr",
    "rprec": "r_precision", "success": "hit_rate", "bpref": "bpref", "err": "err", "rbp": "rbp",
    "numret": "num_ret", "numrel": "num_rel", "numrelret": "hits", "judged": None,
}
_IRM_RE = re.compile(r"^([A-Za-z_]+)\((.*)\)(?:@(\d+))?$")

# ranx names that differ from receval's
_RANX = {
    "r-precision": "r_precision", "ndcg_burges": "ndcg(gain=exp)",
    "dcg_burges": "dcg(gain=exp)", "hit_rate": "hit_rate", "hits": "hits",
}


def _key(name: str, k: int | None, params: dict[str, str]) -> str:
    from ..metrics import metric

    return metric(name, k, **params).key


def canonical_key(text: str) -> str:
    """The canonical receval key of a metric name in trec_eval, ir_measures, ranx or receval
    style. Raises :class:`~receval.errors.MetricError` for an unknown name.

    >>> canonical_key("ndcg_cut.10"), canonical_key("nDCG@10"), canonical_key("RR@10")
    ('ndcg@10', 'ndcg@10', 'mrr@10')
    """
    from ..metrics import parse_metric

    s = text.strip()
    m = _TREC_RE.match(s)
    if m:
        name, params = _TREC[m.group(1)]
        return _key(name, int(m.group(2)), params)
    if s in _TREC and s not in ("ndcg", "map", "bpref", "num_ret", "num_rel"):
        name, params = _TREC[s]
        return _key(name, None, params)
    base, at, rest = s.partition("@")
    if base.lower() in _RANX:
        target = _RANX[base.lower()]
        name, _, ptxt = target.partition("(")
        key = name + (at + rest if at else "") + (("(" + ptxt) if ptxt else "")
        return parse_metric(key).key
    try:
        return parse_metric(s).key
    except (KeyError, ValueError) as exc:
        m = _IRM_RE.match(s)
        if m and m.group(1).lower() in _IRM:
            try:
                return _irm(s, m.group(1), m.group(2), m.group(3))
            except (KeyError, ValueError):
                pass
        raise exc from None


def _irm(text: str, name: str, ptext: str, k: str | None) -> str:
    target = _IRM[name.lower()]
    if target is None:
        raise MetricError(f"{text!r}: ir_measures' {name} has no receval equivalent yet.")
    params: dict[str, str] = {}
    for part in [p for p in ptext.split(",") if p.strip()]:
        pname, eq, value = part.partition("=")
        pname, value = pname.strip(), value.strip().strip("'\"")
        if not eq:
            raise MetricError(f"{text!r}: parameter {part!r} must be written name=value.")
        if pname == "rel":
            params["rel"] = value
        elif pname == "dcg" and target in ("ndcg",):
            if value not in ("log2", "exp-log2"):
                raise MetricError(
                    f"{text!r}: dcg={value!r} is not supported; use 'log2' or 'exp-log2'."
                )
            if value == "exp-log2":
                params["gain"] = "exp"
        elif pname == "p" and target == "rbp":
            params["p"] = value
        else:
            raise MetricError(f"{text!r}: ir_measures parameter {pname!r} is not supported.")
    return _key(target, int(k) if k else None, params)


def canonical_keys(texts: list[str]) -> list[str]:
    """Canonical keys of several names; each item may be a comma-separated list."""
    from ..metrics.spec import _split_keys

    out: list[str] = []
    for t in texts:
        for part in _split_keys(t):
            try:
                key = canonical_key(part)
            except (KeyError, ValueError) as exc:
                msg = str(exc) if isinstance(exc, ValueError) or not exc.args else str(exc.args[0])
                if part.strip() not in msg:
                    msg = f"metric {part.strip()!r}: {msg}"
                raise type(exc)(msg) from None
            if key not in out:
                out.append(key)
    if not out:
        raise MetricError("no metric was requested; pass e.g. -m ndcg@10 -m map.")
    return out
