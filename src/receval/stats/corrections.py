"""Multiple-comparison corrections of p-values.

With ``m`` p-values sorted ascending ``p_(1) <= ... <= p_(m)``:

- ``bonferroni``: ``q_i = min(1, m p_i)`` (controls the family-wise error rate).
- ``holm``: ``q_(i) = max_{j<=i} min(1, (m - j + 1) p_(j))`` (step-down; FWER, uniformly more
  powerful than Bonferroni). Holm (1979).
- ``hochberg``: ``q_(i) = min_{j>=i} min(1, (m - j + 1) p_(j))`` (step-up; FWER under
  independence or positive dependence, more powerful than Holm). Hochberg (1988).
- ``sidak``: ``q_i = 1 - (1 - p_i)^m`` (single-step; FWER under independence, slightly more
  powerful than Bonferroni). Šidák (1967).
- ``holm-sidak``: ``q_(i) = max_{j<=i} 1 - (1 - p_(j))^(m - j + 1)`` (Šidák step-down, Holm's
  procedure with Šidák's per-step levels). Holm (1979).
- ``bh``: ``q_(i) = min_{j>=i} min(1, m p_(j) / j)`` (Benjamini-Hochberg step-up; controls the
  false discovery rate under independence or positive dependence). Benjamini & Hochberg (1995).
- ``by``: ``bh`` times ``c(m) = sum_{j=1}^m 1/j`` (Benjamini-Yekutieli; FDR under any dependence).
- ``none``: unchanged.

These are the adjusted p-values of statsmodels' ``multipletests`` (methods ``bonferroni``,
``holm``, ``simes-hochberg``, ``sidak``, ``holm-sidak``, ``fdr_bh``, ``fdr_by``; Šidák forms
computed as ``-expm1(k log1p(-p))``, as there). NaN p-values are left out of the family and stay
NaN.

Example: ``adjust([0.01, 0.04, 0.03], "holm")`` gives ``[0.03, 0.06, 0.06]``.
"""

from __future__ import annotations

import numpy as np

from ..errors import PolicyError, suggest

CORRECTIONS = ("none", "bonferroni", "holm", "hochberg", "sidak", "holm-sidak", "bh", "by")
_ALIASES = {"fdr_bh": "bh", "benjamini-hochberg": "bh", "fdr_by": "by", None: "none",
            "simes-hochberg": "hochberg", "sh": "hochberg", "sidak-ss": "sidak",
            "sidak-sd": "holm-sidak", "sidak_stepdown": "holm-sidak", "holm_sidak": "holm-sidak"}


def check_correction(method: str | None) -> str:
    name = _ALIASES.get(method, method)
    if name not in CORRECTIONS:
        raise PolicyError(
            f"correction={method!r} is not valid; choose one of {list(CORRECTIONS)}."
            + suggest(str(method), CORRECTIONS)
        )
    return str(name)


def adjust(pvalues: np.ndarray | list[float], method: str | None = "holm") -> np.ndarray:
    """Adjusted p-values for one family of tests (see the module docstring for formulas)."""
    name = check_correction(method)
    p = np.asarray(pvalues, dtype=np.float64).copy()
    if p.ndim != 1:
        raise PolicyError(f"adjust() needs a 1-d array of p-values, got shape {p.shape}.")
    ok = ~np.isnan(p)
    out = p.copy()
    q = p[ok]
    m = q.size
    if m == 0 or name == "none":
        return out
    if name == "bonferroni":
        out[ok] = np.minimum(1.0, q * m)
        return out
    if name == "sidak":
        out[ok] = _sidak(q, m)
        return out
    order = np.argsort(q, kind="stable")
    sorted_p = q[order]
    ranks = np.arange(1, m + 1, dtype=np.float64)
    if name == "holm":
        adj = np.maximum.accumulate(np.minimum(1.0, (m - ranks + 1) * sorted_p))
    elif name == "holm-sidak":
        adj = np.maximum.accumulate(_sidak(sorted_p, m - ranks + 1))
    elif name == "hochberg":
        adj = np.minimum(1.0, np.minimum.accumulate(((m - ranks + 1) * sorted_p)[::-1])[::-1])
    else:
        factor = m / ranks
        if name == "by":
            factor = factor * np.sum(1.0 / ranks)
        adj = np.minimum.accumulate((factor * sorted_p)[::-1])[::-1]
        adj = np.minimum(1.0, adj)
    res = np.empty(m)
    res[order] = adj
    out[ok] = res
    return out


def _sidak(p: np.ndarray, k: np.ndarray | int) -> np.ndarray:
    """``1 - (1 - p)^k`` without cancellation for small p (1 where p = 1)."""
    with np.errstate(divide="ignore"):
        return -np.expm1(k * np.log1p(-p))
