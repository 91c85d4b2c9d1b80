"""Comparisons within groups of users, and whether a difference between systems differs
between groups (``rv.compare(results, by=groups)``).

Within each group ``g`` the paired tests of :func:`receval.stats.compare` run on the per-user
values of the group's users alone (the users of ``g`` with a value for the metric in every
system), with the comparison's test, interval, seed and alternative. The chosen correction
treats every within-group test (groups x metrics x pairs) as ONE family: with ``G`` groups,
``M`` metrics and ``P`` pairs, Holm adjusts ``G M P`` p-values together. A group with fewer
than 2 such users has no test: NaN p-value, never significant, the reason in ``note``.

**Interaction.** For a metric and a pair ``(a, b)``, let ``d_u = x_{a,u} - x_{b,u}`` be each
grouped user's paired difference, ``n_g`` the users of group ``g`` (``k`` groups with at least
one user, ``N = sum_g n_g``), ``dbar_g`` the group means and ``dbar`` the overall mean. H0: the
groups' mean differences are equal (the systems' difference does not depend on the group).
The one-way analysis of variance F statistic (Fisher 1925; e.g. Montgomery, *Design and
Analysis of Experiments*, ch. 3) is

    ``SSB = sum_g n_g (dbar_g - dbar)^2``,  ``SSW = sum_g sum_{u in g} (d_u - dbar_g)^2``,
    ``F = (SSB / (k - 1)) / (SSW / (N - k))``,

with p ``= P(F_{k-1, N-k} >= F)`` (``scipy.stats.f_oneway``). When every group's differences
are constant (``SSW = 0``): ``F = +inf`` and p = 0 if the group means differ, else ``F = 0`` and
p = 1 (no difference at all; the paired t-test's convention for constant differences). The
permutation version (``interaction="permutation"``, the default under ``test="permutation"``)
keeps the differences and shuffles the group labels among the users, ``B = n_resamples`` times
from the seed: ``p = (1 + #{F*_b >= F}) / (B + 1)`` (Good, *Permutation, Parametric and
Bootstrap Tests of Hypotheses*, 2005, 3.5; Anderson 2001). ``SST`` is the same under every
shuffle, so ``F`` grows with ``T = sum_g S_g^2 / n_g`` (``S_g`` the group sums) and ``T`` is
what is compared (relative tolerance 1e-12). No test (NaN, with the reason) with fewer than 2
groups holding users or when no group has 2 users (``N - k = 0``). The interaction tests
(metrics x pairs) form one family for the correction.

Users without a group are counted (``counts["groups"]["ungrouped"]``) and take part in the
overall comparison only; users the groups list who are not compared are counted too
(``listed_not_compared``).

>>> import receval as rv
>>> truth = {u: {"t": 1} for u in range(1, 7)}
>>> top, second = {"t": 2, "x": 1}, {"x": 2, "t": 1}
>>> a = {u: top if u % 2 else second for u in truth}    # reciprocal ranks 1, 1/2, 1, ...
>>> b = {u: second for u in truth}                       # 1/2 for everyone
>>> results = {"a": rv.evaluate(a, truth, ["mrr"]), "b": rv.evaluate(b, truth, ["mrr"])}
>>> by = {1: "cold", 2: "cold", 3: "cold", 4: "warm", 5: "warm", 6: "warm"}
>>> cmp = rv.compare(results, by=by)
>>> cmp.by_group[["group", "n", "diff", "statistic", "p_value", "p_adjusted"]]
  group  n      diff  statistic   p_value  p_adjusted
0  cold  3  0.333333        2.0  0.183503    0.367007
1  warm  3  0.166667        1.0  0.422650    0.422650

Cold users' differences are ``[1/2, 0, 1/2]`` (``t = 2``, 2 df), warm users' ``[0, 1/2, 0]``
(``t = 1``); Holm over the 2 tests. The interaction: group means 1/3 and 1/6 around 1/4,
``SSB = 6 (1/12)^2 = 1/24``, ``SSW = 1/6 + 1/6``, ``F = (1/24 / 1) / (1/3 / 4) = 0.5``:

>>> cmp.interaction[["metric", "groups", "n", "statistic", "p_value"]]
  metric  groups  n  statistic   p_value
0    mrr       2  6        0.5  0.518519
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy import stats as sps

from .._lazy import pandas
from ..errors import InputError, PolicyError, plain, suggest
from ..results.comparison import PAIR_COLUMNS, Comparison
from ..results.intervals import generator
from ..results.jsonio import number, unnumber
from .corrections import adjust

if TYPE_CHECKING:
    import pandas as pd

#: columns of :attr:`GroupComparison.by_group`
GROUP_PAIR_COLUMNS = ("group", *PAIR_COLUMNS, "note")
#: columns of :attr:`GroupComparison.interaction`
INTERACTION_COLUMNS = ("metric", "a", "b", "groups", "n", "df_between", "df_within",
                       "statistic", "p_value", "p_adjusted", "significant", "method", "note")
INTERACTIONS = ("anova", "permutation")
_OWN = ("groups", True)


@dataclass(repr=False)
class GroupComparison(Comparison):
    """A :class:`~receval.results.Comparison` with tests within each group of users.

    Attributes (beyond the comparison's)
    ------------------------------------
    group_pairs : one dict per (group, metric, pair), columns :data:`GROUP_PAIR_COLUMNS`.
    interaction_rows : one dict per (metric, pair), columns :data:`INTERACTION_COLUMNS`.
    groups : ``labels`` (in order), ``by`` (``"results"`` or ``"input"``), ``interaction``.
    """

    group_pairs: list[dict[str, Any]] = field(default_factory=list)
    interaction_rows: list[dict[str, Any]] = field(default_factory=list)
    groups: dict[str, Any] = field(default_factory=dict)

    @property
    def by_group(self) -> pd.DataFrame:
        """The paired tests within each group (full precision)."""
        return pandas().DataFrame(self.group_pairs, columns=list(GROUP_PAIR_COLUMNS))

    @property
    def interaction(self) -> pd.DataFrame:
        """The tests of whether each pair's difference differs between groups."""
        return pandas().DataFrame(self.interaction_rows, columns=list(INTERACTION_COLUMNS))

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        out["by_group"] = [{k: number(v) if isinstance(v, float) else v for k, v in r.items()}
                           for r in self.group_pairs]
        out["interaction"] = [{k: number(v) if isinstance(v, float) else v
                               for k, v in r.items()} for r in self.interaction_rows]
        out["groups"] = self.groups
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GroupComparison:
        base = super().from_dict(data)
        assert isinstance(base, GroupComparison)
        floats = {"mean_a", "mean_b", "diff", "ci_low", "ci_high", "cohens_d", "statistic",
                  "p_value", "p_adjusted"}
        base.group_pairs = [{k: unnumber(v) if k in floats else v for k, v in r.items()}
                            for r in data.get("by_group", [])]
        base.interaction_rows = [{k: unnumber(v) if k in floats else v for k, v in r.items()}
                                 for r in data.get("interaction", [])]
        base.groups = dict(data.get("groups", {}))
        return base


# ---- which group each compared user is in -------------------------------------------------
def _own_groups(named: dict[str, Any], rows: dict[str, np.ndarray]) -> tuple[np.ndarray,
                                                                            list[str]]:
    """The label (or None) of each compared user from the results' ``group_of``."""
    without = [n for n, r in named.items() if not r.group_stats or r.group_of is None]
    if without:
        raise InputError(
            f"by=True uses the groups the results were evaluated with, but {without} were "
            "evaluated without groups; evaluate every system with groups= (rv.evaluate(..., "
            "groups=...)), or pass the groups themselves: by={user: group}.")
    names = list(named)
    first = np.asarray(named[names[0]].group_of, dtype=object)[rows[names[0]]]
    for n in names[1:]:
        other = np.asarray(named[n].group_of, dtype=object)[rows[n]]
        differ = np.flatnonzero([x != y for x, y in zip(first.tolist(), other.tolist(),
                                                        strict=True)])
        if len(differ):
            raise InputError(
                f"the systems were evaluated with different groups: {len(differ)} compared "
                f"user(s) are in different groups in {plain(names[0])} and {plain(n)}; "
                "evaluate every system with the same groups=, or pass the groups: by=...")
    labels: list[str] = []
    for r in named.values():
        for row in r.group_stats:
            if row["group"] not in labels:
                labels.append(row["group"])
    return first, labels


def _input_groups(by: Any, order: np.ndarray, group_col: Any, user_col: Any
                  ) -> tuple[np.ndarray, list[str], int]:
    """The label (or None) of each compared user from a ``groups=`` input, the labels, and
    how many listed users are not compared."""
    from ..io.groups import read_groups

    if isinstance(by, str):
        raise PolicyError(f"by={plain(by)} is not valid: give by=True (or 'groups') for the "
                          "groups the results were evaluated with, or the groups themselves "
                          "({user: group}, a Series, or a table with group_col=).")
    m = read_groups(by, user_col=user_col, group_col=group_col)
    pd = pandas()
    where = pd.Index(pd.Series(m.users, dtype=object)).get_indexer(
        pd.Series(np.asarray(order), dtype=object))
    listed = where >= 0
    if not listed.any():
        raise InputError(
            f"by: none of the {len(order)} compared users is in the groups ({len(m.users)} "
            f"users listed; compared ids such as {[plain(u) for u in order[:3].tolist()]}, "
            f"listed ids such as {[plain(u) for u in m.users[:3].tolist()]}); give the groups "
            "of these users, with ids of the same type as the evaluated ones.")
    labels_arr = np.empty(len(order), dtype=object)
    labels_arr[:] = None
    codes = m.codes[where[listed]]
    labels_arr[listed] = [m.labels[c] for c in codes.tolist()]
    return labels_arr, list(m.labels), int(len(m.users) - listed.sum())


def _check_interaction(interaction: str | None, test: str) -> str:
    if interaction is None:
        return "permutation" if test == "permutation" else "anova"
    if interaction not in INTERACTIONS:
        raise PolicyError(f"interaction={plain(interaction)} is not valid; choose one of "
                          f"{list(INTERACTIONS)}." + suggest(str(interaction), INTERACTIONS))
    return interaction


# ---- compare(..., by=) ------------------------------------------------------------------
def compare_groups(cmp: Comparison, by: Any, *, order: np.ndarray, rows: dict[str, np.ndarray],
                   values: dict[str, np.ndarray], pair_list: list[tuple[str, str]],
                   settings: Any, test_rows: Callable[..., list[dict[str, Any]]],
                   group_col: Any = None, user_col: Any = None,
                   interaction: str | None = None) -> GroupComparison:
    """The tests within groups and the interaction tests of a comparison (module docstring).

    ``order``: the compared users; ``rows``: each system's row of each compared user;
    ``values``: per metric, the compared users x systems per-user values; ``settings`` and
    ``test_rows``: the comparison's test settings and its paired tests of one block of users
    (:func:`receval.stats.compare.test_rows`)."""
    method = _check_interaction(interaction, settings.test)
    named = cmp.results
    if by is True or (isinstance(by, str) and by == "groups"):
        label_of, labels = _own_groups(named, rows)
        source, not_compared = "results", None
    elif by is False:
        raise PolicyError("by=False: leave by out (None) to compare without groups, or give "
                          "by=True / the groups.")
    else:
        label_of, labels, not_compared = _input_groups(by, order, group_col, user_col)
        source = "input"
    code = np.full(len(order), -1, dtype=np.int64)
    position = {g: i for i, g in enumerate(labels)}
    for i, g in enumerate(label_of.tolist()):
        if g is not None:
            code[i] = position[g]
    names = list(cmp.systems)
    sizes = {g: int((code == i).sum()) for i, g in enumerate(labels)}
    counts: dict[str, Any] = {"labels": labels, "sizes": sizes,
                              "ungrouped": int((code < 0).sum()), "nan_dropped": {}}
    if not_compared is not None:
        counts["listed_not_compared"] = not_compared
    group_rows: list[dict[str, Any]] = []
    inter_rows: list[dict[str, Any]] = []
    idx = {n: i for i, n in enumerate(names)}
    for m in cmp.metrics:
        X = values[m]
        keep = np.isfinite(X).all(axis=1)
        counts["nan_dropped"][m] = {g: int(((code == i) & ~keep).sum())
                                    for i, g in enumerate(labels)}
        for i, g in enumerate(labels):
            Xg = X[keep & (code == i)]
            if Xg.shape[0] >= 2:
                new = test_rows(m, Xg, names, pair_list, settings)
                for r in new:
                    r.update(group=g, note="")
            else:
                new = [_empty_group_row(m, a, b, g, Xg, idx, sizes[g]) for a, b in pair_list]
            group_rows += new
        sel = keep & (code >= 0)
        D = np.column_stack([X[sel, idx[a]] - X[sel, idx[b]] for a, b in pair_list])
        tests = interaction_tests(D, code[sel], len(labels), method=method,
                                  n_resamples=settings.n_resamples, seed=settings.seed)
        for (a, b), t in zip(pair_list, tests, strict=True):
            inter_rows.append({"metric": m, "a": a, "b": b, **t})
    _correct(group_rows, cmp.correction, settings.alpha)
    _correct(inter_rows, cmp.correction, settings.alpha)
    group_rows = [{c: r[c] for c in GROUP_PAIR_COLUMNS} for r in group_rows]
    cmp.counts["groups"] = counts
    info = {"labels": labels, "by": source, "interaction": method,
            "family": "groups x metrics x pairs"}
    cmp.options = {**cmp.options, "by": source, "interaction": method}
    return GroupComparison(cmp.systems, cmp.metrics, cmp.summary, cmp.pairs, cmp.baseline,
                           cmp.test, cmp.correction, cmp.alpha, cmp.n_resamples, cmp.seed,
                           cmp.counts, cmp.options, cmp.results, group_rows, inter_rows, info)


def _empty_group_row(m: str, a: str, b: str, g: str, Xg: np.ndarray, idx: dict[str, int],
                     size: int) -> dict[str, Any]:
    nan = math.nan
    n = int(Xg.shape[0])
    mean_a = float(Xg[0, idx[a]]) if n else nan
    mean_b = float(Xg[0, idx[b]]) if n else nan
    why = ("no user of the group has a value in every system" if size and not n else
           "the group has no compared user" if not size else
           "only 1 user of the group has a value in every system")
    return {"group": g, "metric": m, "a": a, "b": b, "n": n, "mean_a": mean_a,
            "mean_b": mean_b, "diff": mean_a - mean_b, "ci_low": nan, "ci_high": nan,
            "cohens_d": nan, "wins": 0, "ties": 0, "losses": 0, "statistic": nan,
            "p_value": nan, "p_adjusted": nan, "significant": False,
            "note": f"no test: {why} (a paired test needs at least 2 users)"}


def _correct(rows: list[dict[str, Any]], correction: str, alpha: float) -> None:
    """One family: the chosen correction over every row's p-value (NaN left out)."""
    if not rows:
        return
    q = adjust(np.array([r["p_value"] for r in rows], dtype=np.float64), correction)
    for r, v in zip(rows, q, strict=True):
        r["p_adjusted"] = float(v)
        r["significant"] = bool(v == v and v <= alpha)


# ---- interaction ------------------------------------------------------------------------
def anova_f(d: np.ndarray, codes: np.ndarray, n_groups: int) -> dict[str, Any]:
    """The one-way ANOVA of ``d`` by group ``codes`` (``0 .. n_groups - 1``; module docstring):
    ``groups, n, df_between, df_within, statistic, p_value, note`` (``p_value`` NaN with the
    reason in ``note`` when there is no test)."""
    d = np.asarray(d, dtype=np.float64)
    codes = np.asarray(codes, dtype=np.int64)
    n_g = np.bincount(codes, minlength=n_groups).astype(np.float64)
    present = n_g > 0
    k = int(present.sum())
    n = int(len(d))
    out: dict[str, Any] = {"groups": k, "n": n, "df_between": k - 1, "df_within": n - k,
                           "statistic": math.nan, "p_value": math.nan, "note": ""}
    empty = int(n_groups - k)
    if k < 2:
        out["note"] = (f"no test: {k} group(s) with users (a difference between groups needs "
                       "at least 2)")
        return out
    if n - k < 1:
        out["note"] = ("no test: no group has 2 users, so there is no within-group variation "
                       "(N - k = 0)")
        return out
    sums = np.bincount(codes, weights=d, minlength=n_groups)
    means = np.divide(sums, n_g, out=np.zeros(n_groups), where=present)
    grand = float(d.mean())
    resid = d - means[codes]
    ssw = float(np.sum(resid * resid))
    ssb = float(np.sum(n_g[present] * (means[present] - grand) ** 2))
    lo = np.full(n_groups, np.inf)
    hi = np.full(n_groups, -np.inf)
    np.minimum.at(lo, codes, d)
    np.maximum.at(hi, codes, d)
    if np.all(lo[present] == hi[present]):  # every group's differences constant: SSW = 0
        same = float(np.ptp(d)) == 0.0
        out["statistic"], out["p_value"] = (0.0, 1.0) if same else (math.inf, 0.0)
    else:
        f = (ssb / (k - 1)) / (ssw / (n - k))
        out["statistic"] = float(f)
        out["p_value"] = float(sps.f.sf(f, k - 1, n - k))
    if empty:
        out["note"] = f"{empty} group(s) without a compared user left out"
    return out


def interaction_test(d: np.ndarray, codes: np.ndarray, n_groups: int, *,
                     method: str = "anova", n_resamples: int = 10000,
                     seed: int | None = 0) -> dict[str, Any]:
    """:func:`anova_f` with its F-distribution p-value (``method="anova"``) or the
    permutation p-value of the same F (``"permutation"``: group labels shuffled among the
    users ``n_resamples`` times from ``seed``; module docstring). Adds ``method``,
    ``p_adjusted`` (NaN) and ``significant`` (False)."""
    return interaction_tests(np.asarray(d, dtype=np.float64)[:, None], codes, n_groups,
                             method=method, n_resamples=n_resamples, seed=seed)[0]


def interaction_tests(D: np.ndarray, codes: np.ndarray, n_groups: int, *,
                      method: str = "anova", n_resamples: int = 10000,
                      seed: int | None = 0) -> list[dict[str, Any]]:
    """:func:`interaction_test` of each column of ``D`` (users x pairs). The permutations
    are drawn once, from ``seed`` and the labels only, and shared by the columns: a pair's
    p-value does not depend on the other pairs."""
    D = np.asarray(D, dtype=np.float64)
    codes = np.asarray(codes, dtype=np.int64)
    outs = []
    for j in range(D.shape[1]):
        out = anova_f(D[:, j], codes, n_groups)
        out.update(method=method, p_adjusted=math.nan, significant=False)
        outs.append(out)
    todo = [j for j, o in enumerate(outs) if o["p_value"] == o["p_value"]]
    if method == "anova" or not todo:
        return outs
    n = len(codes)
    n_g = np.bincount(codes, minlength=n_groups).astype(np.float64)
    inv = np.divide(1.0, n_g, out=np.zeros(n_groups), where=n_g > 0)
    cols = D[:, todo]
    t_obs = np.array([np.sum(np.bincount(codes, weights=cols[:, j], minlength=n_groups) ** 2
                             * inv) for j in range(len(todo))])
    tol = np.abs(t_obs) * 1e-12
    gen = generator(seed, 300)
    block = max(1, min(int(n_resamples), (1 << 21) // max(n, 1)))
    left = int(n_resamples)
    hits = np.zeros(len(todo), dtype=np.int64)
    while left > 0:
        b = min(block, left)
        perm = gen.permuted(np.tile(codes, (b, 1)), axis=1)
        perm += (np.arange(b, dtype=np.int64) * n_groups)[:, None]
        flat = perm.ravel()
        for j in range(len(todo)):
            sums = np.bincount(flat, weights=np.tile(cols[:, j], b),
                               minlength=b * n_groups).reshape(b, n_groups)
            hits[j] += int(np.sum((sums * sums) @ inv >= t_obs[j] - tol[j]))
        left -= b
    for j, h in zip(todo, hits.tolist(), strict=True):
        outs[j]["p_value"] = (h + 1.0) / (int(n_resamples) + 1.0)
    return outs
