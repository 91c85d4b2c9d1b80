"""Seeded synthetic data shared by the benchmark scripts, with an on-disk Parquet cache."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd

#: id shapes: ``str`` (pandas' default string dtype, ``u00000000``), ``int`` (int64), ``object``
#: (Python str), ``int32`` (int32 ids, float32 scores, int8 relevance, as Parquet writers and
#: scipy.sparse give them), ``category`` (pandas categoricals of the str ids, one dictionary per
#: frame), ``category_shared`` (one dictionary per id column for run and truth, as a pipeline
#: that encodes its ids once holds them), ``hex`` (32 hex characters, as hashed ids), ``uuid``
#: (36 characters)
ID_TYPES = ("str", "int", "object", "int32", "category", "category_shared", "hex", "uuid")
#: the cached column each id type is read from (Parquet: int64 or strings)
STORED = {"int": "int", "int32": "int", "hex": "int", "uuid": "int"}
CACHE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), ".cache")
_VERSION = 2  # bump when the generator changes, so stale cache files are not reused


def _distinct_per_row(r: np.ndarray, n_items: int, rng: np.random.Generator) -> None:
    """Replace, in place, every repeat of an item within a row by a uniform random item.

    The first occurrence (leftmost column) of an item is kept. Rows are sorted with the column
    packed into the low bits of each key, so one plain sort finds the repeats and their columns;
    the loop ends when no row holds a repeat (two or three rounds: the fillers are uniform over
    the catalogue, which rarely collides with a row's k items).
    """
    k = r.shape[1]
    bits = max(1, (k - 1).bit_length())
    cols = np.arange(k, dtype=np.int64)
    rows = np.arange(r.shape[0])
    while rows.size:
        keys = np.sort((r[rows] << bits) | cols, axis=1)
        dup = np.zeros(keys.shape, dtype=bool)
        dup[:, 1:] = (keys[:, 1:] >> bits) == (keys[:, :-1] >> bits)
        has = dup.any(axis=1)
        rows, keys, dup = rows[has], keys[has], dup[has]
        if not rows.size:
            break
        ri, ci = np.nonzero(dup)
        r[rows[ri], keys[ri, ci] & (2**bits - 1)] = rng.integers(0, n_items, ri.size)


def _codes(n_users: int, k: int, n_truth: int, n_items: int, seed: int):
    """Integer user / item codes: run (n_users x k), truth (deduplicated), scores, relevance."""
    rng = np.random.default_rng(seed)
    cdf = np.cumsum(1.0 / np.arange(1, n_items + 1) ** 1.1)
    cdf /= cdf[-1]

    n_guide = 4 * n_items
    guide = np.searchsorted(cdf, np.arange(n_guide) / n_guide)  # first item of each bucket

    def zipf(size):  # popularity-weighted draws: inverse CDF through a guide table
        u = rng.random(size)
        idx = guide[(u * n_guide).astype(np.int64)].astype(np.int64)
        todo = np.flatnonzero(cdf[idx] < u)  # few: a bucket rarely spans two items
        while todo.size:
            idx.flat[todo] += 1
            todo = todo[cdf[idx.flat[todo]] < u.flat[todo]]
        return np.minimum(idx, n_items - 1)

    t_counts = np.maximum(1, rng.poisson(n_truth, n_users))
    t_user = np.repeat(np.arange(n_users, dtype=np.int64), t_counts)
    t_item = zipf(t_user.size)
    keep = ~pd.Index(t_user * n_items + t_item).duplicated()
    rel = rng.integers(1, 4, t_user.size).astype(np.float64)

    r_item = zipf((n_users, k))
    # plant up to three of the user's own truth items at random positions
    first = np.concatenate([[0], np.cumsum(t_counts)[:-1]])
    for _ in range(3):
        plant = np.flatnonzero(rng.random(n_users) < 0.3)
        src = t_item[first[plant] + rng.integers(0, t_counts[plant])]
        r_item[plant, rng.integers(0, k, plant.size)] = src
    _distinct_per_row(r_item, n_items, rng)
    # strictly descending scores in (0, 1): one minus a normalised cumulative sum
    inc = rng.random((n_users, k + 1)) + 1e-12
    np.cumsum(inc, axis=1, out=inc)
    scores = 1.0 - inc[:, :k] / inc[:, k:]
    return r_item.ravel(), scores.ravel(), t_user[keep], t_item[keep], rel[keep]


def _str_column(codes: np.ndarray, prefix: str, width: int, n: int) -> pd.Series:
    """Pandas' default string dtype, built by decoding a dictionary array (no Python loop per row)."""
    import pyarrow as pa

    names = pa.array([f"{prefix}{j:0{width}d}" for j in range(n)], type=pa.large_string())
    arr = pa.DictionaryArray.from_arrays(pa.array(codes.astype(np.int32)), names)
    return pd.Series(pd.array(arr.cast(pa.large_string()), dtype=pd.StringDtype("pyarrow", na_value=np.nan)))


def make_data(n_users: int, *, k: int = 100, n_truth: int = 10, n_items: int | None = None,
              seed: int = 0, ids: str = "str") -> tuple[pd.DataFrame, pd.DataFrame]:
    """A run (n_users x k rows) and truth (~n_truth rows per user), ids of the type ``ids``.

    ``ids``: ``"str"`` (pandas' default string dtype, ``u00000000`` / ``i0000000``), ``"int"``
    (int64) or ``"object"`` (object dtype holding Python str), for the user and item columns
    of both frames. Item popularity is Zipf-like (exponent 1.1); each user's truth is a
    popularity-weighted sample without repeats, the run holds k distinct items per user mixing
    popular items with up to three of the user's truth items; scores descend within a user.
    """
    if ids not in ID_TYPES:
        raise ValueError(f"ids must be one of {ID_TYPES}, not {ids!r}")
    n_items = n_items or max(1000, n_users // 2)
    r_item, score, t_user, t_item, rel = _codes(n_users, k, n_truth, n_items, seed)
    r_user = np.repeat(np.arange(n_users, dtype=np.int64), k)
    if ids == "int":
        cols = r_user, r_item, t_user, t_item
    else:
        cols = (_str_column(r_user, "u", 8, n_users), _str_column(r_item, "i", 7, n_items),
                _str_column(t_user, "u", 8, n_users), _str_column(t_item, "i", 7, n_items))
        if ids == "object":
            cols = tuple(c.astype(object) for c in cols)
    run = pd.DataFrame({"user": cols[0], "item": cols[1], "score": score}, copy=False)
    truth = pd.DataFrame({"user": cols[2], "item": cols[3], "relevance": rel}, copy=False)
    return run, truth


def cache_paths(n_users: int, *, k: int = 100, n_truth: int = 10, n_items: int | None = None,
                seed: int = 0, ids: str = "str", cache_dir: str | None = None) -> tuple[str, str]:
    """Parquet paths (run, truth) of the cached data for these parameters.

    ``object`` ids share the ``str`` files (Parquet has no object dtype); `load_data` converts.
    """
    n_items = n_items or max(1000, n_users // 2)
    stored = STORED.get(ids, "str")
    key = f"v{_VERSION}_u{n_users}_k{k}_t{n_truth}_i{n_items}_s{seed}_{stored}"
    base = os.path.join(cache_dir or CACHE_DIR, key)
    return f"{base}_run.parquet", f"{base}_truth.parquet"


def read_cached(run_path: str, truth_path: str, ids: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Read cached frames back, with the user / item columns as ``ids``."""
    run, truth = pd.read_parquet(run_path), pd.read_parquet(truth_path)
    if ids == "object":
        run = run.astype({"user": object, "item": object})
        truth = truth.astype({"user": object, "item": object})
    elif ids == "int32":
        run = run.astype({"user": np.int32, "item": np.int32, "score": np.float32})
        truth = truth.astype({"user": np.int32, "item": np.int32, "relevance": np.int8})
    elif ids == "category":
        run = run.astype({"user": "category", "item": "category"})
        truth = truth.astype({"user": "category", "item": "category"})
    elif ids == "category_shared":
        for c in ("user", "item"):
            r, t = run[c].astype("category"), truth[c].astype("category")
            # the sorted union of the column's ids (codes remapped, not the values hashed)
            cats = r.cat.categories.union(t.cat.categories)
            run[c], truth[c] = r.cat.set_categories(cats), t.cat.set_categories(cats)
    elif ids in ("hex", "uuid"):
        run, truth = _hashed(run, truth, ids)
    return run, truth


def _hashed(run: pd.DataFrame, truth: pd.DataFrame, ids: str
            ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Integer ids replaced by hashed text ids (an md5 digest: 32 hex characters, or the same
    as a UUID), each built once per distinct id and decoded through a dictionary array."""
    import hashlib
    import uuid

    import pyarrow as pa

    def names(prefix: str, n: int) -> pa.Array:
        digests = [hashlib.md5(f"{prefix}{j}".encode()).hexdigest() for j in range(n)]
        if ids == "uuid":
            digests = [str(uuid.UUID(d)) for d in digests]
        return pa.array(digests, type=pa.large_string())

    def column(codes: np.ndarray, vocab: pa.Array) -> pd.Series:
        arr = pa.DictionaryArray.from_arrays(pa.array(codes.astype(np.int32)), vocab)
        return pd.Series(pd.array(arr.cast(pa.large_string()),
                                  dtype=pd.StringDtype("pyarrow", na_value=np.nan)))

    n_users = int(max(run["user"].max(), truth["user"].max())) + 1
    n_items = int(max(run["item"].max(), truth["item"].max())) + 1
    users, items = names("u", n_users), names("i", n_items)
    run = pd.DataFrame({"user": column(run["user"].to_numpy(), users),
                        "item": column(run["item"].to_numpy(), items), "score": run["score"]})
    truth = pd.DataFrame({"user": column(truth["user"].to_numpy(), users),
                          "item": column(truth["item"].to_numpy(), items),
                          "relevance": truth["relevance"]})
    return run, truth


def load_data(n_users: int, *, k: int = 100, n_truth: int = 10, n_items: int | None = None,
              seed: int = 0, ids: str = "str", cache_dir: str | None = None,
              ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """`make_data`, read from the Parquet cache when present (written there otherwise)."""
    if ids not in ID_TYPES:
        raise ValueError(f"ids must be one of {ID_TYPES}, not {ids!r}")
    run_path, truth_path = ensure_cached(n_users, k=k, n_truth=n_truth, n_items=n_items,
                                         seed=seed, ids=ids, cache_dir=cache_dir)
    return read_cached(run_path, truth_path, ids)


def ensure_cached(n_users: int, *, k: int = 100, n_truth: int = 10, n_items: int | None = None,
                  seed: int = 0, ids: str = "str", cache_dir: str | None = None,
                  ) -> tuple[str, str]:
    """Generate and write the Parquet files for these parameters unless they exist; their paths."""
    run_path, truth_path = cache_paths(n_users, k=k, n_truth=n_truth, n_items=n_items,
                                       seed=seed, ids=ids, cache_dir=cache_dir)
    if not (os.path.exists(run_path) and os.path.exists(truth_path)):
        os.makedirs(os.path.dirname(run_path), exist_ok=True)
        stored = STORED.get(ids, "str")
        run, truth = make_data(n_users, k=k, n_truth=n_truth, n_items=n_items, seed=seed,
                               ids=stored)
        for frame, path in ((truth, truth_path), (run, run_path)):
            tmp = f"{path}.{os.getpid()}.tmp"
            frame.to_parquet(tmp, index=False)
            os.replace(tmp, path)  # atomic: a half-written file is never taken for a cache hit
    return run_path, truth_path


def status_mb(field: str) -> float:
    """A memory field of ``/proc/self/status`` (``VmRSS``, ``VmHWM``) in MiB; NaN if absent."""
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field):
                return int(line.split()[1]) / 1024
    return float("nan")
