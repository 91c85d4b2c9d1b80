"""The evaluation context as the registered beyond-accuracy metrics read it.

Helpers shared by the families' ``compute(spec, packed, context)`` functions: the training
data, per-run caches aligned with the run's item vocabulary, the catalogue, the top-k cut of
the packed lists, and the parameters several families share.

Catalogue-level metrics (coverage, dist_coverage, entropy, gini, tail_share, personalization)
have one value for the whole run (no per-user column); they are built from mergeable partial
states over blocks of ``BLOCK_USERS`` users. Per-user metrics are NaN where undefined (e.g. ILD
of a list with fewer than two items, novelty of an empty list) and left out of the mean;
``info`` says how many. Only the lists of evaluated users count (see the ``users`` policy).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..engines.plugins import Context
from ..errors import InputError, plain
from ..metrics.spec import MetricDef, MetricSpec, Param, metric
from ..pack.packed import Packed
from ..pack.vocab import kind_of
from ._lists import cut
from .inputs import Catalog, TrainData, as_train, resolve_catalog

BLOCK_USERS = 1 << 18  # users per partial state of catalogue metrics


REL = Param("rel", 1.0, "relevance threshold: truth items with relevance >= rel are relevant",
            kind=float, low=0.0, low_open=True)


POP = Param("pop", "rows",
            "training popularity phi(i): rows = interactions of i (p = phi / rows) | users = "
            "distinct users of i (p = phi / users)", ("rows", "users"))


def context_cache(context: Context) -> dict:
    return context.__dict__.setdefault("_beyond_cache", {})


def top_k(packed: Packed, k: int | None) -> tuple[np.ndarray, np.ndarray]:
    """(indptr, positions into the packed arrays) of the first k items of every list; kept
    with the block for its other metrics at the same cutoff (read-only arrays)."""
    cache = packed.__dict__.setdefault("_top_k", {})
    if k not in cache:
        # under ranks="position" the rows are those with rank <= k already (rank_view)
        indptr, pos = cut(packed.indptr, None if packed.absolute_ranks else k)
        indptr.setflags(write=False)
        pos.setflags(write=False)
        cache[k] = (indptr, pos)
    return cache[k]


def list_places(packed: Packed, indptr: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """0-based place of each position of the cut lists (``indptr``, ``pos``: :func:`top_k`):
    the rank the attention-weighted metrics read (exposure, AWRF, expected exposure,
    rank-biased entropy, rank-weighted miscalibration, EPC / EFD / EPD / EILD).

    Under ``ranks="position"`` the rank column is each row's absolute position; a list whose
    ranks are not its places 1..n (a gap, or two rows at one rank) has no place to read, so it
    is refused rather than weighted by place."""
    lens = np.diff(indptr)
    n = len(lens)
    if n and len(pos) == n * int(lens[0]) and bool((lens == lens[0]).all()):
        place = np.tile(np.arange(int(lens[0]), dtype=np.int64), n)  # lists of one length
    else:  # steps of 1, back to 0 at each list's start: one prefix sum, in place
        place = np.ones(len(pos), dtype=np.int64)
        if len(pos):
            filled = lens > 0
            starts, sizes = indptr[:-1][filled], lens[filled]
            place[starts[0]] = 0
            place[starts[1:]] = 1 - sizes[:-1]
            np.cumsum(place, out=place)
    if packed.absolute_ranks and len(pos):
        given = np.rint(-np.asarray(packed.scores)[pos]).astype(np.int64) - 1
        bad = given != place
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            u = int(np.searchsorted(indptr, i, side="right") - 1)
            raise InputError(
                f"ranks='position': user {plain(packed.user_ids[u])!r} has a row at rank "
                f"{int(given[i]) + 1} in place {int(place[i]) + 1} of its list (a gap or a "
                "shared rank); the attention-weighted metrics (exposure, awrf, ee_*, "
                "rank_biased_entropy, miscalibration with rank weights, epc / efd / epd / "
                "eild) weight places 1..n. Give each list the ranks 1..n, or use "
                "ranks='order'.")
    return place


def train_of(context: Context, key: str) -> TrainData:
    train = context.require("train", key)
    return context.memo("train", (train,), lambda: as_train(train))


def train_users(tr: TrainData, packed: Packed, key: str) -> np.ndarray:
    """The row of each evaluated user in ``train=`` (-1: a user without training rows). When
    no user is found and the two hold ids of different kinds (``1`` against ``"1"``), the
    ids are refused rather than every user left without a profile: a block of new users
    alone is no error (the same users are new in memory too)."""
    n = len(packed.user_ids)
    if not len(tr.users) or not n:
        return np.full(n, -1, dtype=np.int64)
    code = pd.Index(tr.users).get_indexer(pd.Index(packed.user_ids)).astype(np.int64)
    if (code < 0).all() and \
            kind_of(np.asarray(packed.user_ids)) != kind_of(np.asarray(tr.users)):
        raise InputError(
            f"{key}: no evaluated user occurs in train (user ids look like "
            f"{packed.user_ids[:2].tolist()}, train user ids like {tr.users[:2].tolist()}); "
            "use the same id type in both, e.g. .astype(str).")
    return code


def per_vocab(context: Context, packed: Packed, name: str, make) -> Any:
    """Per-run cached array aligned with ``packed.item_vocab``."""
    return context.memo(("per_vocab", name), (packed.item_vocab,), make)


def train_index(context: Context, packed: Packed, key: str) -> np.ndarray:
    tr = train_of(context, key)

    def make() -> np.ndarray:
        if not len(packed.item_vocab):
            return np.zeros(0, dtype=np.int64)
        idx = pd.Index(tr.items).get_indexer(pd.Index(packed.item_vocab)).astype(np.int64)
        if len(tr.items) and (idx < 0).all():
            raise InputError(
                f"{key}: no recommended item occurs in train (run item ids look like "
                f"{packed.item_vocab[:2].tolist()}, train item ids like {tr.items[:2].tolist()}); "
                "use the same id type in both, e.g. .astype(str)."
            )
        return idx

    return per_vocab(context, packed, "train_index", make)


def popularity_of(context: Context, packed: Packed, key: str, pop: str) -> np.ndarray:
    """Training popularity of each run-vocabulary item (0 when unseen in training)."""
    tr = train_of(context, key)
    idx = train_index(context, packed, key)
    counts = tr.popularity(pop)
    return np.where(idx >= 0, counts[np.maximum(idx, 0)] if len(counts) else 0, 0)


def catalog_of(context: Context, packed: Packed, counts: np.ndarray,
               outside: str = "error", key: str = "") -> Catalog:
    """The catalogue of ``evaluate(catalog=...)`` as the metric ``key`` reads it."""
    train_items = None
    if context.train is not None:
        train_items = train_of(context, "catalog").items
    recommended = packed.item_vocab[np.flatnonzero(counts > 0)]
    return resolve_catalog(context.catalog, run_items=packed.item_vocab,
                           truth_items=packed.truth_item_vocab, train_items=train_items,
                           recommended=recommended, outside=outside, key=key)


def key_with(spec: MetricSpec, **params: Any) -> str:
    """Key of ``spec`` with some parameters changed."""
    return metric(spec.name, spec.k, **{**dict(spec.params), **params}).key


def undefined_info(values: np.ndarray) -> dict:
    return {"undefined_users": int(np.isnan(values).sum())}


def beyond_metric(name: str, title: str, formula: str, doc: str, compute, params=(), **kw) -> MetricDef:
    return MetricDef(name, title, formula, doc, tuple(params), family="beyond", compute=compute,
                     **kw)
