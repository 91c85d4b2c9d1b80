"""Rank weights ("attention"): how much of a reader's attention each position of a list gets.

One object per browsing model, so that exposure, provider fairness and the rank-weighted
entropies mean the same thing by "attention" wherever they name it:

==============  =========================================  ======================================
name            weight of rank r (1-based)                  user model / source
==============  =========================================  ======================================
``geometric``   ``p^(r-1)``; ``normalize=True``:            RBP (Moffat & Zobel, TOIS 2008): the
                ``(1 - p) p^(r-1)`` (sums to 1 over an      reader goes on to the next rank with
                infinite list)                              probability p (patience); LensKit
                                                            ``GeometricRankWeight`` (p = 0.85)
``log``         ``1 / log2(r + 1)`` (DCG); ``offset=        Jarvelin & Kekalainen 2002; LensKit
                "clip"``: ``1 / log2(max(r, 2))``           ``LogRankWeight`` (clip is its default,
                                                            and TREC Fair 2022's ``discount``)
``uniform``     ``1``                                       position-blind exposure (counts)
``cascade``     ``p^(r-1) prod_{j<r} (1 - phi(g_j))``,      ERR's cascade (Chapelle et al., CIKM
                ``phi(g) = (2^g - 1) / 2^g_max``            2009) as the expected-exposure user
                                                            model of Diaz et al., CIKM 2020
==============  =========================================  ======================================

The geometric weights are the attention of RBP and of the C/W/L framework's RBP instance
(Moffat, Bailey, Scholer & Thomas, "C/W/L", ADCS 2017 / SIGIR 2018): the probability that the
reader reaches rank r is ``p^(r-1)``, and C/W/L's weight of rank r is that probability times
``1 - p``. The compiled ``rbp`` metric therefore measures relevance under exactly the attention
that ``weight=geometric`` gives exposure here (same p), and ``normalize=True`` gives C/W/L's
weights. The cascade model needs the grades of the listed items (the reader stops at a
satisfying item), so its weights are per list: :meth:`Cascade.weights` takes them.

Metric keys name the model by ``weight=`` and its parameter by ``p=``
(``exposure_gini@10(weight=geometric,p=0.85)``); :func:`attention` builds the object from them.
The cascade needs the listed items' grades, so only the metrics that read relevance offer it
(expected exposure: ``ee_loss(weight=cascade,max_grade=3)``)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import InputError, plain

#: the models a key may name with ``weight=``
MODELS = ("geometric", "log", "uniform", "cascade")


@dataclass(frozen=True)
class Geometric:
    """RBP's geometric attention: ``w_r = p^(r-1)`` (``normalize``: times ``1 - p``)."""

    p: float = 0.85
    normalize: bool = False
    name: str = "geometric"

    def __post_init__(self) -> None:
        if not 0.0 < self.p < 1.0:
            raise InputError(f"geometric attention: patience p={plain(self.p)} must lie in (0, 1).")

    def weights(self, k: int) -> np.ndarray:
        """Weights of ranks 1..k (float64), each ``p ** (r - 1)`` computed on its own."""
        return self.at(np.arange(1, k + 1))

    def at(self, ranks: np.ndarray) -> np.ndarray:
        """Weights of the 1-based ``ranks`` (any order)."""
        w = np.power(self.p, np.asarray(ranks, dtype=np.float64) - 1.0)
        return w * (1.0 - self.p) if self.normalize else w


@dataclass(frozen=True)
class LogDiscount:
    """DCG's attention: ``1 / log2(r + 1)`` (``offset="clip"``: ``1 / log2(max(r, 2))``)."""

    offset: str = "plus1"
    name: str = "log"

    def weights(self, k: int) -> np.ndarray:
        return self.at(np.arange(1, k + 1))

    def at(self, ranks: np.ndarray) -> np.ndarray:
        """Weights of the 1-based ``ranks`` (any order)."""
        r = np.asarray(ranks, dtype=np.float64)
        return 1.0 / np.log2(np.maximum(r, 2.0) if self.offset == "clip" else r + 1.0)


@dataclass(frozen=True)
class Uniform:
    """Position-blind attention: every listed position weighs 1."""

    name: str = "uniform"

    def weights(self, k: int) -> np.ndarray:
        return np.ones(k, dtype=np.float64)

    def at(self, ranks: np.ndarray) -> np.ndarray:
        """Weights of the 1-based ``ranks`` (any order)."""
        return np.ones(len(ranks), dtype=np.float64)


@dataclass(frozen=True)
class Cascade:
    """ERR's cascade: the reader stops at rank j with probability ``phi(g_j) = (2^g_j - 1) /
    2^g_max`` and otherwise goes on with probability p, so rank r gets
    ``p^(r-1) prod_{j<r} (1 - phi(g_j))`` (Chapelle, Metzler, Zhang & Grinspan, CIKM 2009;
    Diaz, Mitra, Ekstrand, Biega & Carterette, CIKM 2020, section 4). It needs the grades of
    the listed items: :meth:`weights` takes them (``g_max`` their largest possible grade)."""

    p: float = 1.0
    max_grade: float = 1.0
    name: str = "cascade"

    def weights(self, k: int, grades: np.ndarray | None = None) -> np.ndarray:
        if grades is None:
            raise InputError("cascade attention depends on the grades of the listed items; "
                             "pass grades= (one per rank).")
        g = np.asarray(grades, dtype=np.float64)[:k]
        if len(g) < k:
            g = np.concatenate([g, np.zeros(k - len(g))])
        stop = (np.power(2.0, g) - 1.0) / 2.0 ** float(self.max_grade)
        go_on = np.concatenate([[1.0], np.cumprod(1.0 - stop)[:-1]]) if k else np.zeros(0)
        return np.power(self.p, np.arange(k, dtype=np.float64)) * go_on


RankWeight = Geometric | LogDiscount | Uniform | Cascade


def attention(weight: str = "geometric", p: float = 0.85, *, normalize: bool = False,
              offset: str = "plus1") -> RankWeight:
    """The attention model a metric key names (``weight=``, ``p=``)."""
    if weight == "geometric":
        return Geometric(float(p), normalize)
    if weight == "log":
        return LogDiscount(offset)
    if weight == "uniform":
        return Uniform()
    if weight == "cascade":
        return Cascade(float(p))
    raise InputError(f"weight={plain(weight)} is not an attention model; choose one of "
                     f"{list(MODELS)}.")
