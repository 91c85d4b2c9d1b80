"""The packed lists as the registered classification metrics read them: each position's
user and rank, the users' relevant truth items, the catalogue size, and the parameters
several families share.

Catalogue size (``tn``, ``accuracy``, ``specificity``, ``fpr``, ``lauc``,
``gauc(candidates=catalog)``), first that applies: the metric parameter ``catalog=<int>``;
``evaluate(..., catalog=...)`` (an int, a collection of item ids, or the names of item sources:
``"truth"``, ``"run"``, ``"train"``, ``"truth+run"``, ``"all"``); else the number of distinct
items known to the truth and the run. ``info[key]["catalog_source"]`` says which one was used.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..engines.plugins import Context
from ..errors import InputError, plain
from ..metrics.spec import MetricSpec, Param
from ..pack import Packed
from ..pack.vocab import lookup

REL = Param("rel", 1.0, "relevance threshold: truth items with relevance >= rel are positives",
            kind=float, low=0.0, low_open=True)


CATALOG = Param(
    "catalog", None,
    "catalogue size n (auto: evaluate(catalog=...) when given, else the distinct items of the "
    "truth and the run)", kind=int, low=1)


UNLABELLED = Param(
    "unlabelled", "negative",
    "scored items missing from the truth: negative (default) | skip (only labelled pairs "
    "count: positives have relevance >= rel, negatives a truth row below it; Microsoft "
    "Recommenders auc and logloss over the inner join of truth and predictions)",
    ("negative", "skip"))


def kept_layout(packed: Packed, keep: np.ndarray) -> np.ndarray:
    """CSR ``indptr`` of the positions that ``keep`` retains, users unchanged."""
    user = user_of_positions(packed)
    lens = np.bincount(user[keep], minlength=len(packed.user_ids))
    return np.r_[0, np.cumsum(lens)].astype(np.int64)


def user_of_positions(packed: Packed) -> np.ndarray:
    return np.repeat(np.arange(len(packed.user_ids), dtype=np.int64), np.diff(packed.indptr))


def rank_in_list(packed: Packed, user: np.ndarray) -> np.ndarray:
    return np.arange(len(user), dtype=np.int64) - packed.indptr[user]


def truth_positives(packed: Packed, rel: float) -> np.ndarray:
    n_users = len(packed.user_ids)
    t_user = np.repeat(np.arange(n_users, dtype=np.int64), np.diff(packed.t_indptr))
    return np.bincount(t_user, weights=(packed.t_rel >= rel).astype(np.float64),
                       minlength=n_users)


def _catalog_items(value: Any) -> np.ndarray:
    if hasattr(value, "columns"):  # a frame of items
        from ..io.frames import ITEM_NAMES

        cols = list(value.columns)
        name = next((c for c in ITEM_NAMES if c in cols), cols[0] if len(cols) == 1 else None)
        if name is None:
            raise InputError(
                f"catalog: a table must have an item column (one of {list(ITEM_NAMES[:4])}); "
                f"got columns {plain(list(cols))}."
            )
        value = value[name]
    if isinstance(value, (set, frozenset, dict)):
        value = list(value)
    arr = np.asarray(value)
    if arr.ndim != 1:
        raise InputError(
            f"catalog must be an int (its size) or a 1-D collection of item ids, got shape "
            f"{arr.shape}."
        )
    return np.asarray(list(dict.fromkeys(arr.tolist())), dtype=arr.dtype if arr.dtype.kind != "U"
                      else object)


def catalog_size(spec: MetricSpec, packed: Packed, context: Context, rec_mask: np.ndarray | None
             ) -> tuple[int, dict[str, Any]]:
    """Catalogue size and its provenance; checks the items used lie in a given item collection."""
    given = spec.get("catalog")
    if given is not None:
        return int(given), {"catalog_size": int(given), "catalog_source": "parameter"}
    value = context.catalog
    if value is not None and not isinstance(value, bool) and isinstance(value, (int, np.integer)):
        if value < 1:
            raise InputError(f"catalog must be a positive item count, got {plain(value)}.")
        return int(value), {"catalog_size": int(value), "catalog_source": "evaluate(catalog=int)"}
    if value is not None:
        if isinstance(value, str):
            items = np.asarray(_source_items(value, packed, context))
            source = f"evaluate(catalog={plain(value)})"
        else:
            items = _catalog_items(value)
            source = "evaluate(catalog=items)"
        outside = 0
        t_codes = lookup(packed.truth_item_vocab, items)
        used_t = np.zeros(len(packed.truth_item_vocab), dtype=bool)
        used_t[packed.t_items] = True
        outside += int((used_t & (t_codes < 0)).sum())
        if rec_mask is not None and rec_mask.any():
            r_codes = np.unique(packed.items[rec_mask])
            outside += int((lookup(packed.item_vocab[r_codes], items) < 0).sum())
        if outside:
            raise InputError(
                f"{spec.key}: {outside} truth or recommended item(s) are not in the catalog "
                "passed to evaluate(catalog=...); pass the full item collection (or its size)."
            )
        return len(items), {"catalog_size": len(items), "catalog_source": source}
    extra = int((lookup(packed.item_vocab, packed.truth_item_vocab) < 0).sum())
    n = len(packed.truth_item_vocab) + extra
    return n, {"catalog_size": n, "catalog_source": "items of truth and run"}


def size_text(n: int, info: dict[str, Any]) -> str:
    """The catalogue size as the user gave it, for messages (``catalog=5``, ...)."""
    source = info.get("catalog_source")
    if source == "parameter":
        return f"catalog={n}"
    if source == "evaluate(catalog=int)":
        return f"evaluate(catalog={n})"
    if source == "items of truth and run":
        return f"{n} (the distinct items of the truth and the run; none was given)"
    return f"{n} ({source})"


def _source_items(text: str, packed: Packed, context: Context) -> Any:
    """Distinct item ids of the named sources: 'truth', 'run', 'train', '+'-joined, or 'all'."""
    import pandas as pd

    names = ["train", "truth", "run"] if text.strip().lower() == "all" else [
        n.strip() for n in text.lower().split("+")]
    parts = []
    for name in names:
        if name == "truth":
            parts.append(pd.Index(packed.truth_item_vocab))
        elif name == "run":
            parts.append(pd.Index(packed.item_vocab))
        elif name == "train":
            if context.train is None:
                if text.strip().lower() == "all":
                    continue
                raise InputError(f"catalog={plain(text)} needs train=...; pass it to evaluate().")
            from ..io.frames import column_values, read_columns

            cols = read_columns(context.train, role="train")
            parts.append(pd.Index(pd.unique(pd.Series(column_values(cols.item)))))
        else:
            raise InputError(
                f"catalog={plain(text)}: unknown item source {plain(name)}; use 'truth', 'run', 'train', a "
                "'+'-joined subset such as 'truth+run', 'all', an item count or a list of ids."
            )
    out = parts[0]
    for part in parts[1:]:
        out = out.union(part, sort=False)
    return out
