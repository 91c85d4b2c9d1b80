"""Knowledge-graph link prediction: rank each test triple against its corruptions.

For a test triple ``(h, r, t)`` the tail query scores ``(h, r, e)`` for every entity ``e`` (or
for ``n_negatives`` sampled ones) and ranks ``t`` among them; the head query does the same with
``(e, r, t)``. In the *filtered* setting (default, Bordes et al. 2013) every other known true
triple -- e.g. ``(h, r, t')`` with ``t' != t`` from train, validation or test -- is removed
from the candidates, so a model is not penalised for ranking another true answer first.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

import numpy as np
import scipy.sparse as sp

from ..errors import InputError
from ..validation import POSITIVE_INT, SEED, Boolean, Options, validate_params
from ._ranks import TIES, adjusted_rank_metrics, rank_metrics, ranks_from_counts
from ._samplers import sample_negatives

_SIDES = ("both", "head", "tail")


class LinkRanks(NamedTuple):
    """Ranks per test triple for head and tail corruption (``None`` for a side not asked), and
    the number of candidates each rank was taken among (the true entity included)."""

    head: np.ndarray | None
    tail: np.ndarray | None
    head_candidates: np.ndarray | None = None
    tail_candidates: np.ndarray | None = None

    @property
    def all(self) -> np.ndarray:
        """Head ranks then tail ranks, the population the usual "both sides" metrics average."""
        return np.concatenate([x for x in (self.head, self.tail) if x is not None])

    @property
    def candidates(self) -> np.ndarray:
        """Candidate counts aligned with :attr:`all`."""
        parts = [c for r, c in ((self.head, self.head_candidates),
                                (self.tail, self.tail_candidates)) if r is not None]
        if any(c is None for c in parts):
            raise InputError("these ranks carry no candidate counts; build them with "
                             "link_prediction_ranks (or pass n_candidates yourself).")
        return np.concatenate(parts)

    def metrics(self, *, ks: Iterable[int] = (1, 3, 10),
                adjusted: bool = False) -> dict[str, float]:
        """Hits@k, MRR and mean rank over both sides; with ``head_``/``tail_`` prefixed copies
        per side when both were computed. ``adjusted=True`` adds PyKEEN's rank-adjusted
        metrics (expected values under random ranking, AMR, AMRI, adjusted indices and
        z-scores; see :func:`receval.sampling.adjusted_rank_metrics`)."""
        def one(ranks: np.ndarray, cands: np.ndarray | None) -> dict[str, float]:
            if adjusted:
                return adjusted_rank_metrics(ranks, cands, ks=ks)
            return rank_metrics(ranks, ks=ks)

        out = one(self.all, self.candidates if adjusted else None)
        if self.head is not None and self.tail is not None:
            for side in ("head", "tail"):
                cands = getattr(self, f"{side}_candidates") if adjusted else None
                for key, v in one(getattr(self, side), cands).items():
                    out[f"{side}_{key}"] = v
        return out


def _triples(x: Any, name: str) -> np.ndarray:
    a = np.asarray(x)
    if a.ndim != 2 or a.shape[1] != 3 or (a.size and a.dtype.kind not in "iu"):
        raise InputError(
            f"{name} must be an integer array of shape (m, 3) with columns (head, relation, "
            f"tail); got shape {a.shape} and dtype {a.dtype}. Encode entity and relation ids as "
            "integers first."
        )
    if a.size and a.min() < 0:
        raise InputError(f"{name} contains negative ids.")
    return a.astype(np.int64)


def _filter_lists(
    known: np.ndarray, queries: np.ndarray, side: str, n_rel: int
) -> tuple[np.ndarray, np.ndarray]:
    """For each query triple, the known answers of the same (h, r) (tail side) or (r, t) (head
    side): returns (query row, entity) pairs."""
    if side == "tail":
        fixed_k, ans_k = known[:, 0] * n_rel + known[:, 1], known[:, 2]
        fixed_q = queries[:, 0] * n_rel + queries[:, 1]
    else:
        fixed_k, ans_k = known[:, 2] * n_rel + known[:, 1], known[:, 0]
        fixed_q = queries[:, 2] * n_rel + queries[:, 1]
    order = np.lexsort((ans_k, fixed_k))
    fk, ak = fixed_k[order], ans_k[order]
    lo = np.searchsorted(fk, fixed_q, side="left")
    hi = np.searchsorted(fk, fixed_q, side="right")
    lengths = hi - lo
    rows = np.repeat(np.arange(queries.shape[0]), lengths)
    starts = np.repeat(lo - np.concatenate(([0], np.cumsum(lengths)[:-1])), lengths)
    ents = ak[starts + np.arange(rows.size)]
    return rows, ents


@validate_params({
    "n_entities": POSITIVE_INT,
    "side": [Options(_SIDES)],
    "filtered": [Boolean()],
    "ties": [Options(TIES)],
    "n_negatives": [None, *POSITIVE_INT],
    "seed": SEED,
    "batch_size": POSITIVE_INT,
})
def link_prediction_ranks(
    triples: Any,
    score_fn: Callable[[np.ndarray, np.ndarray, np.ndarray], Any],
    *,
    n_entities: int,
    known: Any = None,
    side: str = "both",
    filtered: bool = True,
    ties: str = "realistic",
    n_negatives: int | None = None,
    seed: int = 0,
    batch_size: int = 256,
) -> LinkRanks:
    """Rank every test triple's true head and/or tail against corrupted triples.

    Parameters
    ----------
    triples
        Integer array ``(m, 3)`` of test triples ``(head, relation, tail)``.
    score_fn
        ``score_fn(h, r, t)`` on integer arrays of one shape ``(b, c)``, returning scores of
        that shape (higher = more plausible).
    n_entities
        Entities are ``0 .. n_entities - 1``; all are candidates unless ``n_negatives`` is set.
    known
        Integer array ``(K, 3)`` of every true triple (train + validation + test) used for
        filtering; defaults to ``triples``.
    side
        ``"both"`` (default), ``"head"`` or ``"tail"``.
    filtered
        ``True`` (default): other known true triples are removed from the candidates.
        ``False``: the "raw" setting.
    ties
        ``"realistic"`` (default), ``"optimistic"`` or ``"pessimistic"``.
    n_negatives
        ``None`` (default): rank against every entity. An integer: rank against that many
        corruptions drawn uniformly without replacement from the allowed entities (seeded).
    """
    tri = _triples(triples, "triples")
    kn = tri if known is None else _triples(known, "known")
    n_entities = int(n_entities)
    for name, a in (("triples", tri), ("known", kn)):
        if a.size and max(a[:, 0].max(), a[:, 2].max()) >= n_entities:
            raise InputError(f"{name} refers to an entity id >= n_entities={n_entities}.")
    n_rel = int(max(tri[:, 1].max(initial=0), kn[:, 1].max(initial=0))) + 1
    sides = ("head", "tail") if side == "both" else (side,)
    out: dict[str, np.ndarray | None] = {"head": None, "tail": None}
    n_cand: dict[str, np.ndarray | None] = {"head": None, "tail": None}
    bs = max(1, int(batch_size))
    for s in sides:
        col = 0 if s == "head" else 2
        ranks = np.empty(tri.shape[0], dtype=np.float64)
        counts = np.empty(tri.shape[0], dtype=np.float64)
        for a in range(0, tri.shape[0], bs):
            q = tri[a : a + bs]
            b = q.shape[0]
            true_e = q[:, col]
            if filtered:
                rows, ents = _filter_lists(kn, q, s, n_rel)
                other = ents != true_e[rows]
                rows, ents = rows[other], ents[other]
            else:
                rows = ents = np.empty(0, dtype=np.int64)
            if n_negatives is None:
                cand = np.broadcast_to(np.arange(n_entities), (b, n_entities))
                drop = np.zeros((b, n_entities), dtype=bool)
                drop[rows, ents] = True
                drop[np.arange(b), true_e] = True
            else:
                excl = sp.csr_matrix(
                    (np.ones(rows.size + b), (np.r_[rows, np.arange(b)], np.r_[ents, true_e])),
                    shape=(b, n_entities),
                )
                try:
                    cand = sample_negatives(
                        np.arange(b), int(n_negatives), n_items=n_entities, known=excl,
                        seed=np.random.SeedSequence([int(seed), a, col]).generate_state(1)[0],
                    )
                except InputError as exc:
                    raise InputError(
                        f"a {s} query of the test triples has fewer than n_negatives="
                        f"{n_negatives} allowed corruptions ({exc}). Lower n_negatives or use "
                        "n_negatives=None to rank against every entity."
                    ) from exc
                drop = np.zeros(cand.shape, dtype=bool)
            full = np.hstack([true_e[:, None], cand])
            h = np.broadcast_to(q[:, :1], full.shape) if s == "tail" else full
            t = np.broadcast_to(q[:, 2:], full.shape) if s == "head" else full
            r = np.broadcast_to(q[:, 1:2], full.shape)
            sc = score_fn(h, r, t)
            if hasattr(sc, "detach"):
                sc = sc.detach().cpu().numpy()
            sc = np.asarray(sc, dtype=np.float64)
            if sc.shape != full.shape:
                raise InputError(f"score_fn returned shape {sc.shape}; expected {full.shape}.")
            if np.isnan(sc).any():
                raise InputError("score_fn returned NaN scores; ranks are undefined.")
            pos = sc[:, :1]
            keep = ~drop
            greater = ((sc[:, 1:] > pos) & keep).sum(axis=1)
            equal = ((sc[:, 1:] == pos) & keep).sum(axis=1)
            ranks[a : a + b] = ranks_from_counts(greater, equal, ties)
            counts[a : a + b] = 1 + keep.sum(axis=1)  # the true entity and its candidates
        out[s] = ranks
        n_cand[s] = counts
    return LinkRanks(out["head"], out["tail"], n_cand["head"], n_cand["tail"])
