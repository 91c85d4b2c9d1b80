"""Honest baseline recommenders on an implicit-feedback training matrix (numpy / scipy only).

Every model has ``fit(X)`` with ``X`` a ``users x items`` scipy.sparse matrix of training
interactions (any positive value counts as 1), ``score(users) -> dense (len(users), n_items)``,
and ``recommend(users, k)``: the top ``k`` items per user with the user's training items removed,
as a :class:`~receval.topk.TopK`.

- :class:`RandomRecommender`: uniform random scores (seeded), the floor any model must beat.
- :class:`MostPopular`: ``score(u, i) = number of training users of i``; the same list for all.
- :class:`ItemKNN`: item-based k-nearest neighbours with cosine similarity,
  ``sim(i, j) = <x_i, x_j> / (||x_i|| ||x_j|| + shrink)`` over item columns, each item keeping
  its ``neighbors`` most similar items; ``score(u, i) = sum_{j in I_u} sim(j, i)``.
  Sarwar et al. (2001); Deshpande & Karypis (2004).
- :class:`EASE`: ``B = I - P diagMat(1 / diag(P))`` with ``P = (X^T X + lambda I)^-1``,
  ``score = X B`` (zero diagonal). Steck (2019), "Embarrassingly Shallow Autoencoders".
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import numpy as np
import scipy.sparse as sp

from ..errors import InputError, plain


def _binary(X: Any) -> sp.csr_matrix:
    if not sp.issparse(X):
        raise InputError(f"fit() needs a scipy.sparse users x items matrix, got "
                         f"{type(X).__name__}; build one with receval.baselines.interaction_matrix.")
    X = sp.csr_matrix(X, dtype=np.float64)
    X.data = (X.data > 0).astype(np.float64)
    X.eliminate_zeros()
    return X


def interaction_matrix(rows: Any, *, user_col: str = "user", item_col: str = "item",
                       users: Any = None, items: Any = None) -> tuple[sp.csr_matrix, Any, Any]:
    """``(X, user_index, item_index)`` from (user, item) rows of a pandas frame.

    ``users`` / ``items`` fix the index (rows with other ids are dropped); default: the ids seen.
    """
    import pandas as pd

    uidx = pd.Index(pd.unique(rows[user_col]) if users is None else users)
    iidx = pd.Index(pd.unique(rows[item_col]) if items is None else items)
    u = uidx.get_indexer(rows[user_col])
    i = iidx.get_indexer(rows[item_col])
    keep = (u >= 0) & (i >= 0)
    X = sp.csr_matrix((np.ones(int(keep.sum())), (u[keep], i[keep])),
                      shape=(len(uidx), len(iidx)))
    X.sum_duplicates()
    X.data[:] = 1.0
    return X, uidx, iidx


class Recommender(ABC):
    """Base class: ``fit``, ``score`` (each subclass), ``recommend``."""

    name = "recommender"
    X: sp.csr_matrix

    def fit(self, X: Any) -> Recommender:
        self.X = _binary(X)
        self._fit()
        return self

    def _fit(self) -> None:  # noqa: B027 - optional hook: most baselines learn nothing more
        """Learn from ``self.X`` after ``fit`` stored it (nothing by default)."""

    def _check(self) -> None:
        if not hasattr(self, "X"):
            raise InputError(f"{type(self).__name__} is not fitted; call fit(X) first.")

    @abstractmethod
    def score(self, users: np.ndarray) -> np.ndarray:
        """Scores (len(users) x n_items) of every item for each user row."""

    def recommend(self, users: Any, k: int = 10, *, exclude_seen: bool = True) -> Any:
        """Top ``k`` items of each user row in ``users`` (training items removed)."""
        from ..topk import topk_from_scores

        self._check()
        users = np.asarray(users, dtype=np.int64)
        return topk_from_scores(self.score, k, users=users, n_users=self.X.shape[0],
                                exclude=self.X if exclude_seen else None)


class RandomRecommender(Recommender):
    """Uniform random scores, reproducible: the score of (user row u, item i) is a hash of
    ``seed``, u and i (SplitMix64), so it does not depend on which users are scored together."""

    name = "random"

    def __init__(self, *, seed: int = 0) -> None:
        self.seed = int(seed)

    def score(self, users: np.ndarray) -> np.ndarray:
        self._check()
        n_items = self.X.shape[1]
        cells = (np.asarray(users, dtype=np.uint64)[:, None] * np.uint64(n_items)
                 + np.arange(n_items, dtype=np.uint64)[None, :])
        return _splitmix64(cells ^ _splitmix64(np.uint64(self.seed))) / float(2**64)


def _splitmix64(x: Any) -> Any:
    """SplitMix64 finaliser: a well-mixed 64-bit hash of each value (wrapping arithmetic)."""
    with np.errstate(over="ignore"):
        x = np.atleast_1d(np.asarray(x, dtype=np.uint64)) + np.uint64(0x9E3779B97F4A7C15)
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return x ^ (x >> np.uint64(31))


class MostPopular(Recommender):
    """Items ranked by the number of training users who interacted with them."""

    name = "popular"

    def _fit(self) -> None:
        self.popularity = np.asarray(self.X.sum(axis=0)).ravel()

    def score(self, users: np.ndarray) -> np.ndarray:
        self._check()
        return np.broadcast_to(self.popularity, (len(users), self.X.shape[1])).copy()


class ItemKNN(Recommender):
    """Item-based kNN with (shrunk) cosine similarity between item columns; each item keeps its
    ``neighbors`` most similar items (ties at the cut: the lowest item indices)."""

    name = "item_knn"

    def __init__(self, *, neighbors: int = 100, shrink: float = 0.0) -> None:
        if int(neighbors) < 1:
            raise InputError(f"neighbors must be a positive integer, got {plain(neighbors)}.")
        self.neighbors = int(neighbors)
        self.shrink = float(shrink)

    def _fit(self) -> None:
        X = self.X
        norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=0)).ravel())
        co = (X.T @ X).toarray()
        denom = norms[:, None] * norms[None, :] + self.shrink
        with np.errstate(divide="ignore", invalid="ignore"):
            S = np.where(denom > 0, co / np.where(denom > 0, denom, 1.0), 0.0)
        np.fill_diagonal(S, 0.0)
        n = S.shape[0]
        if self.neighbors < n:
            # keep each item's top neighbours (per column j: the items i most similar to j);
            # similarities tied at the cut keep the lowest item indices, so the model does not
            # depend on how a partition orders equal values (it differs between numpy builds)
            kth = -np.partition(-S, self.neighbors - 1, axis=0)[self.neighbors - 1]
            above = S > kth[None, :]
            at = S == kth[None, :]
            room = self.neighbors - above.sum(axis=0)
            keep = above | (at & (np.cumsum(at, axis=0) <= room[None, :]))
            S = np.where(keep, S, 0.0)
        self.similarity = sp.csr_matrix(S)

    def score(self, users: np.ndarray) -> np.ndarray:
        self._check()
        return np.asarray((self.X[users] @ self.similarity).todense())


class EASE(Recommender):
    """Embarrassingly shallow autoencoder (closed form, L2 weight ``lam``)."""

    name = "ease"

    def __init__(self, *, lam: float = 200.0) -> None:
        if not lam > 0:
            raise InputError(f"lam must be > 0, got {plain(lam)}.")
        self.lam = float(lam)

    def _fit(self) -> None:
        G = (self.X.T @ self.X).toarray()
        G[np.diag_indices_from(G)] += self.lam
        P = np.linalg.inv(G)
        B = -P / np.diag(P)[None, :]
        np.fill_diagonal(B, 0.0)
        self.B = B

    def score(self, users: np.ndarray) -> np.ndarray:
        self._check()
        return np.asarray(self.X[users] @ self.B)


BASELINES = {"random": RandomRecommender, "popular": MostPopular, "item_knn": ItemKNN,
             "ease": EASE}

__all__ = ["BASELINES", "EASE", "ItemKNN", "MostPopular", "RandomRecommender", "Recommender",
           "interaction_matrix"]
