"""Rank- and relevance-aware novelty and diversity: EPC, EFD, EPD, EILD.

Vargas & Castells, "Rank and relevance in novelty and diversity metrics for recommender
systems", RecSys 2011. For the top-k list ``i_0, i_1, ...`` (ranks from 0) of user u, with a
rank discount ``disc(k)`` and a relevance gain ``g(u, i)``, an item novelty model ``nov`` gives::

    E[nov](u) = sum_k disc(k) g(u, i_k) nov(i_k | u) / sum_k disc(k)

(the normaliser is the discount mass alone: RankSys ``ItemNoveltyMetric``,
``RankSys-novdiv/src/main/java/es/uam/eps/ir/ranksys/novdiv/itemnovelty/metrics/
ItemNoveltyMetric.java``; Elliot
``elliot/evaluation/metrics/novelty/EPC/epc.py``). The item novelty models:

- **EPC** (expected popularity complement): ``nov(i) = 1 - |U_i| / |U|``, ``|U_i|`` the distinct
  training users of i and ``|U|`` the training users; 1 for items absent from training (RankSys
  ``PCItemNovelty``; Elliot ``EPC``);
- **EFD** (expected free discovery): ``nov(i) = -log2(|U_i| / sum_j |U_j|)``; items absent from
  training get the largest value ``-log2(min_j |U_j| / sum_j |U_j|)`` (RankSys
  ``FDItemNovelty``; Elliot ``EFD``);
- **EPD** (expected profile distance): ``nov(i | u) = mean_{j in H(u)} (1 - sim(i, j))`` over the
  user's distinct training items (RankSys ``PDItemNovelty``, which gives the profile items
  equal weight); users without training rows are NaN (RankSys scores them 0).

**EILD** (expected intra-list diversity; RankSys ``EILD``,
``RankSys-diversity/src/main/java/es/uam/eps/ir/ranksys/diversity/distance/metrics/EILD.java``)::

    EILD(u) = sum_k disc(k) g(i_k) [sum_{l != k} w_kl d(i_k, i_l) / sum_{l != k} w_kl]
              / sum_k disc(k),    w_kl = disc(max(0, l - k - 1)) g(i_l)

(the bracket is skipped where ``sum w_kl = 0``), ``d = 1 - sim``.

Rank discounts ``disc=``: ``none`` (1), ``log`` (``1 / log2(k + 2)``, RankSys
``LogarithmicDiscountModel``, Elliot's only one), ``exp`` (``base^k``, RankSys
``ExponentialDiscountModel``; Vargas & Castells use 0.85). Relevance ``relevance=``: ``none``
(g = 1: relevance-unaware, RankSys ``NoRelevanceModel``), ``binary`` (g = 1 when the truth
relevance >= ``rel``, else 0: Elliot's default, RankSys ``BinaryRelevanceModel``), ``graded``
(``g = 2^(r - rel + 1) - 1`` for r >= rel, else 0: Elliot ``ExtendedEPC`` / ``ExtendedEFD`` with
``relevance: discounted``). With relevance-aware gains a user without a relevant truth item is
left out (``skipped``, counted), as Elliot computes these metrics only for users with a
relevant item. An empty list has no value (NaN).
"""

from __future__ import annotations

import numpy as np

from ..engines.plugins import Context, MetricValues
from ..errors import InputError, plain
from ..metrics.spec import MetricSpec, Param, register
from ..pack.packed import Packed
from ._context import beyond_metric, list_places, per_vocab, top_k, train_index, train_of
from ._lists import user_of_position
from .attention import attention
from .diversity import (
    MISSING,
    SIM,
    SOURCE,
    Similarity,
    context_features,
    context_similarity,
    feature_rows,
    history_rows,
    history_similarity,
)

DISCS = ("none", "log", "exp")
RELEVANCES = ("none", "binary", "graded")


def discount(k: np.ndarray, disc: str, base: float = 0.85) -> np.ndarray:
    """Rank discount of 0-based ranks (RankSys ``RankingDiscountModel``), with RankSys's names
    for the attention models of :mod:`receval.beyond.attention` at rank ``k + 1``: ``none`` is
    uniform, ``log`` the DCG discount, ``exp`` the geometric one with patience ``base``.

    >>> discount(np.array([0, 1, 2]), "log").tolist()
    [1.0, 0.6309297535714575, 0.5]
    >>> discount(np.array([0, 1, 2]), "exp", 0.5).tolist()
    [1.0, 0.5, 0.25]
    """
    model = {"none": "uniform", "log": "log", "exp": "geometric"}.get(disc)
    if model is None:
        raise InputError(f"disc={plain(disc)}: choose one of {list(DISCS)}.")
    return attention(model, base).at(np.asarray(k, dtype=np.float64) + 1.0)


def gains(rel: np.ndarray, relevance: str, threshold: float) -> np.ndarray:
    """Relevance gain of truth relevance values (0 = not in the truth).

    >>> gains(np.array([0.0, 1.0, 3.0]), "graded", 1.0).tolist()
    [0.0, 1.0, 7.0]
    """
    rel = np.asarray(rel, dtype=np.float64)
    if relevance == "none":
        return np.ones(len(rel))
    hit = rel >= threshold
    if relevance == "binary":
        return hit.astype(np.float64)
    if relevance == "graded":
        return np.where(hit, np.power(2.0, rel - threshold + 1.0) - 1.0, 0.0)
    raise InputError(f"relevance={plain(relevance)}: choose one of {list(RELEVANCES)}.")


def expected_novelty(indptr: np.ndarray, nov: np.ndarray, disc: np.ndarray,
                     gain: np.ndarray) -> np.ndarray:
    """``sum_k disc g nov / sum_k disc`` per list (NaN for an empty list)."""
    n = len(indptr) - 1
    user = user_of_position(indptr)
    num = np.bincount(user, weights=disc * gain * nov, minlength=n)
    den = np.bincount(user, weights=disc, minlength=n)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def expected_ild(indptr: np.ndarray, rows: np.ndarray, sim: Similarity, disc_name: str,
                 base: float, gain: np.ndarray) -> np.ndarray:
    """EILD per list (RankSys formula, see the module doc), lists grouped by length."""
    n = len(indptr) - 1
    lens = np.diff(indptr)
    out = np.full(n, np.nan)
    for length in np.unique(lens[lens >= 1]):
        length = int(length)
        users = np.flatnonzero(lens == length)
        dk = discount(np.arange(length), disc_name, base)
        if length == 1:
            out[users] = 0.0  # no pair: the bracket is skipped, the sum is 0
            continue
        a, b = np.nonzero(~np.eye(length, dtype=bool))  # ordered pairs (k, l), k != l
        pair_disc = discount(np.maximum(0, b - a - 1), disc_name, base)
        chunk = max(sim.pair_block() // len(a), 1)
        for lo in range(0, len(users), chunk):
            sel = users[lo:lo + chunk]
            start = indptr[sel][:, None]
            s = sim.pairs(rows[(start + a).ravel()], rows[(start + b).ravel()])
            dist = (1.0 - s).reshape(len(sel), len(a))
            g = gain[(start + np.arange(length)).ravel()].reshape(len(sel), length)
            w = pair_disc[None, :] * g[:, b]
            full = np.zeros((len(sel), length, length))
            full[:, a, b] = w * dist
            inner_num = full.sum(axis=2)
            full[:, a, b] = w
            inner_den = full.sum(axis=2)
            with np.errstate(invalid="ignore", divide="ignore"):
                inner = np.where(inner_den > 0, inner_num / np.where(inner_den > 0, inner_den,
                                                                     1.0), 0.0)
            total = np.zeros(len(sel))
            for k in range(length):
                total += dk[k] * g[:, k] * inner[:, k]
            norm = 0.0
            for k in range(length):
                norm += dk[k]
            out[sel] = total / norm
    return out

# -------------------------------------------------------------------------------------------------
# Plugin metrics.


def _gain_and_skip(spec: MetricSpec, packed: Packed, pos: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray | None]:
    relevance, t = spec.get("relevance"), float(spec.get("rel"))
    g = gains(packed.rel[pos], relevance, t) if relevance != "none" else np.ones(len(pos))
    if relevance == "none":
        return g, None
    t_user = user_of_position(packed.t_indptr)
    has_rel = np.bincount(t_user[packed.t_rel >= t], minlength=len(packed.user_ids)) > 0
    return g, ~has_rel


def _result(values: np.ndarray, skipped: np.ndarray | None, lens: np.ndarray,
            extra: dict | None = None) -> MetricValues:
    info = {"empty_lists": int((lens == 0).sum())}
    if skipped is not None:
        values = np.where(skipped, np.nan, values)
        info["users_without_relevant"] = int(skipped.sum())
    info.update(extra or {})
    info["undefined_users"] = int(np.isnan(values).sum())
    return MetricValues(values, info=info, skipped=skipped)


def _train_novelty(spec: MetricSpec, packed: Packed, context: Context, kind: str
                   ) -> np.ndarray:
    """EPC / EFD item novelty of each run-vocabulary item."""
    tr = train_of(context, spec.key)

    def make() -> np.ndarray:
        idx = train_index(context, packed, spec.key)
        users = tr.item_users.astype(np.float64)
        if kind == "pc":
            known = 1.0 - users / max(tr.n_users, 1)
            unseen = 1.0
        else:
            total = float(users.sum())
            known = -np.log2(users / total) if total > 0 else np.zeros(len(users))
            unseen = float(-np.log2(users.min() / total)) if total > 0 else 0.0
        return np.where(idx >= 0, known[np.maximum(idx, 0)] if len(known) else unseen, unseen)

    return per_vocab(context, packed, ("expected_nov", kind, id(tr)), make)


def _epc_efd(kind: str):
    def compute(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
        nov_vocab = _train_novelty(spec, packed, context, kind)
        indptr, pos = top_k(packed, spec.k)
        g, skipped = _gain_and_skip(spec, packed, pos)
        d = discount(list_places(packed, indptr, pos), spec.get("disc"),
                     float(spec.get("base")))
        values = expected_novelty(indptr, nov_vocab[packed.items[pos]], d, g)
        return _result(values, skipped, np.diff(indptr))
    return compute


def _epd(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    feats = context_features(context, spec)
    sim = context_similarity(context, spec, feats)
    indptr, rows, pos = feature_rows(context, packed, spec, feats)
    h_indptr, h_rows = history_rows(context, packed, spec, feats)
    nov = 1.0 - history_similarity(indptr, rows, h_indptr, h_rows, sim)
    g, skipped = _gain_and_skip(spec, packed, pos)
    d = discount(list_places(packed, indptr, pos), spec.get("disc"), float(spec.get("base")))
    values = expected_novelty(indptr, np.nan_to_num(nov), d, g)
    no_profile = np.diff(h_indptr) == 0
    values = np.where(no_profile, np.nan, values)
    return _result(values, skipped, np.diff(indptr),
                   {"users_without_profile": int(no_profile.sum())})


def _eild(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    feats = context_features(context, spec)
    sim = context_similarity(context, spec, feats)
    indptr, rows, pos = feature_rows(context, packed, spec, feats)
    g, skipped = _gain_and_skip(spec, packed, pos)
    values = expected_ild(indptr, rows, sim, spec.get("disc"), float(spec.get("base")), g)
    return _result(values, skipped, np.diff(indptr))


DISC = Param("disc", "log",
             "rank discount of 0-based rank k: none = 1 | log = 1 / log2(k + 2) (RankSys "
             "LogarithmicDiscountModel, Elliot) | exp = base^k (RankSys "
             "ExponentialDiscountModel)", DISCS)
BASE = Param("base", 0.85, "base of disc=exp (Vargas & Castells 2011: 0.85; 1 is disc=none)",
             kind=float, low=0.0, high=1.0, low_open=True, high_open=True)
RELEVANCE = Param("relevance", "binary",
                  "relevance gain g: none = 1 (relevance-unaware) | binary = 1 if the truth "
                  "relevance >= rel (Elliot EPC / EFD) | graded = 2^(r - rel + 1) - 1 for r >= "
                  "rel (Elliot ExtendedEPC / ExtendedEFD, relevance: discounted)", RELEVANCES)
THRESHOLD = Param("rel", 1.0, "relevance threshold of the binary and graded gains",
                  kind=float, low=0.0, low_open=True)
_EXP_PARAMS = (DISC, BASE, RELEVANCE, THRESHOLD)
_EXP_DOC = (" E = sum_k disc(k) g(u, i_k) nov(i_k) / sum_k disc(k) over the top k (Vargas & "
            "Castells, RecSys 2011). With relevance binary / graded, users without a relevant "
            "truth item are left out (as in Elliot).")


register(beyond_metric(
    "epc", "Expected popularity complement@k",
    "sum_k disc(k) g(u, i_k) (1 - |U_i| / |U|) / sum_k disc(k)",
    "Rank- and relevance-aware popularity novelty: nov(i) = 1 - (distinct training users of "
    "i) / (training users), 1 for items absent from training (RankSys PCItemNovelty + "
    "ItemNoveltyMetric; Elliot elliot/evaluation/metrics/novelty/EPC/epc.py)." + _EXP_DOC,
    _epc_efd("pc"), _EXP_PARAMS, needs=("train",), bounds=(0.0, None),
    reference="Vargas & Castells, RecSys 2011",
    example="relevance=none, disc=none, |U| = 4, items seen by 1 and 3 users: (3/4 + 1/4)/2",
), ("expected_popularity_complement",))


register(beyond_metric(
    "efd", "Expected free discovery@k",
    "sum_k disc(k) g(u, i_k) (-log2(|U_i| / sum_j |U_j|)) / sum_k disc(k)",
    "Rank- and relevance-aware self-information: nov(i) = -log2 of i's share of the training "
    "(user, item) pairs; items absent from training get the largest value (RankSys "
    "FDItemNovelty; Elliot elliot/evaluation/metrics/novelty/EFD/efd.py)." + _EXP_DOC,
    _epc_efd("fd"), _EXP_PARAMS, needs=("train",), bounds=(0.0, None),
    reference="Vargas & Castells, RecSys 2011",
    example="relevance=none, disc=none, pair shares 1/2 and 1/4: (1 + 2) / 2",
), ("expected_free_discovery",))


register(beyond_metric(
    "epd", "Expected profile distance@k",
    "sum_k disc(k) g(u, i_k) mean_{j in H(u)} (1 - sim(i_k, j)) / sum_k disc(k)",
    "Rank- and relevance-aware distance of the recommended items to the user's training "
    "profile H(u) (RankSys PDItemNovelty + ItemNoveltyMetric). Item vectors from "
    "item_features=... (source=features) or the training co-occurrence (source=cooccurrence); "
    "users without training rows are NaN (counted)." + _EXP_DOC,
    _epd, (*_EXP_PARAMS, SIM, SOURCE, MISSING), needs=("train",), bounds=(0.0, None),
    reference="Vargas & Castells, RecSys 2011",
))


register(beyond_metric(
    "eild", "Expected intra-list diversity@k",
    "sum_k disc(k) g(i_k) [sum_{l != k} w_kl d(i_k, i_l) / sum_{l != k} w_kl] / sum_k disc(k), "
    "w_kl = disc(max(0, l - k - 1)) g(i_l)",
    "Rank- and relevance-aware intra-list diversity, d = 1 - sim (Vargas & Castells, RecSys "
    "2011; RankSys RankSys-diversity/.../distance/metrics/EILD.java with the same discount "
    "for ranks and rank gaps). A one-item list scores 0. Item vectors as for ild "
    "(item_features=... or source=cooccurrence with train=...).",
    _eild, (*_EXP_PARAMS, SIM, SOURCE, MISSING), bounds=(0.0, None),
    reference="Vargas & Castells, RecSys 2011",
    example="relevance=none, disc=none, two orthogonal items: 1",
), ("expected_intra_list_diversity",))
