"""What runs inside a Spark task: the local engine on one bucket of whole users.

This module imports receval, numpy and pyarrow only (never pyspark): it is what the Python
workers execute. :func:`run_bucket` builds a local :class:`~receval.Evaluator` over the bucket's
truth rows, injects the global facts a bucket cannot know alone (the truth-wide largest
relevance, used by ERR's default ``max_grade``), packs the bucket's run rows with the same
policies and runs :func:`~receval.engines.local.evaluate_packed`, the per-block step every
executor shares. It returns one Arrow table: one row per evaluated user (raw id, one float per
metric) and one row holding the bucket's mergeable partial state (a pickled
:class:`Partial`: the bucket's :class:`~receval.engines.totals.Totals`, and for catalogue-wide
metrics the exposure counts keyed by *raw* item id, since item codes are bucket-local).

Three ways hand a task its users, chosen on the driver. ``lists`` (the default): Spark
collects each user's run rows and truth rows into two lists (partly before the shuffle) and
joins them on the user, and :func:`run_lists` turns record batches of such rows (whole users)
back into run and truth tables. ``cogroup(...).applyInArrow`` calls :func:`run_bucket` with
one bucket's run and truth tables (Spark 4); ``mapInArrow`` streams a partition whose rows are
sorted by (bucket, side, user), and :func:`run_partition` cuts the record batches into whole
buckets, carrying a bucket's rows over batch boundaries, so that one bucket at a time is held
(Spark 3.3 and later). All three run the same :func:`run_bucket`.
"""

from __future__ import annotations

import pickle
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from ..engines.memory import reusing_memory
from ..engines.totals import Totals

# column names of the engine's own tables (unlikely to clash with a user's)
BUCKET = "_rv_bucket"
SIDE = "_rv_side"                    # mapInArrow strategy: which table a row comes from
# lists strategy: per user, the list of each column and the number of rows (side, column)
RUN_COUNT, TRUTH_COUNT = "_rv_run_n", "_rv_truth_n"


def list_column(side: str, col: str) -> str:
    """The lists strategy's column holding a user's ``col`` values of ``side``."""
    return f"_rv_{side}_{col}"
KIND = "_rv_kind"
STATE = "_rv_state"
USER, ITEM, SCORE, RANK, REL = "user", "item", "score", "rank", "relevance"
USER_ROW, STATE_ROW = 0, 1
RUN_SIDE, TRUTH_SIDE = 0, 1


def metric_column(j: int) -> str:
    return f"m{j}"


@dataclass
class BucketConfig:
    """Everything a task needs, shipped with the function (pickled once per stage)."""

    metrics: list[str]
    policies: dict[str, str]
    value_kind: str                  # "score" or "rank"
    has_rel: bool
    max_rel: float                   # truth-wide largest relevance (a global fact)
    user_kind: str                   # "int" or "str": dtype of an empty bucket's user ids
    item_kind: str
    out_schema: Any                  # pyarrow.Schema of the returned table
    emit_users: bool = True
    train: Any = None
    item_features: Any = None
    catalog: Any = None
    options: dict[str, Any] = field(default_factory=dict)
    groups: Any = None               # a receval.io.groups.Membership (groups=), or None


def _evaluator(cfg: BucketConfig, truth: Any) -> Any:
    from ..engines.evaluator import Evaluator
    from ..pack import TruthPack
    from ..pack.vocab import empty_ids

    kw: dict[str, Any] = dict(cfg.policies)
    kw.update(cfg.options)
    empty = truth.num_rows == 0
    # an empty bucket side still needs an Evaluator (plan, context): build it on a placeholder
    # row and swap in a truth without users
    src = {USER: np.zeros(1, dtype=np.int64), ITEM: np.zeros(1, dtype=np.int64)} if empty \
        else truth
    ev = Evaluator(src, cfg.metrics, user_col=USER, item_col=ITEM,
                   rel_col=REL if cfg.has_rel and not empty else None, train=cfg.train,
                   item_features=cfg.item_features, catalog=cfg.catalog, **kw)
    if empty:
        ev.truth = TruthPack(
            users=empty_ids(cfg.user_kind), indptr=np.zeros(1, dtype=np.int64),
            rel=np.zeros(0), rel_desc=np.zeros(0), n_rows=0, max_rel=cfg.max_rel,
            counts={"truth_duplicates": 0}, vocab=empty_ids(cfg.item_kind),
            codes=np.zeros(0, dtype=np.int64))
    ev.truth.max_rel = cfg.max_rel  # the global fact, never the bucket's own maximum
    return ev


class Partial(NamedTuple):
    """What a task sends back to the driver: the bucket's :class:`Totals` and, for
    catalogue-wide metrics, their mergeable inputs keyed by raw item id
    (:func:`catalogue_partial`; None without such metrics)."""

    totals: Totals
    catalogue: dict[str, Any] | None
    groups: Any = None  # the bucket's receval.engines.groups.GroupTotals (groups=)
    group_catalogue: Any = None  # per group, its catalogue partial (catalogue metrics)


@reusing_memory
def evaluate_bucket(cfg: BucketConfig, run: Any, truth: Any) -> tuple[Any, Any, Partial]:
    """``(packed, block_values, partial)`` of one bucket (pyarrow tables ``run``, ``truth``;
    large arrays on the blocks the worker's previous buckets freed:
    :mod:`receval.engines.memory`)."""
    from ..engines.local import evaluate_packed
    from ..pack import RunCodes

    ev = _evaluator(cfg, truth)
    lists = ev.plan.keep_lists
    if run.num_rows:
        packed = ev.pack(run, user_col=USER, item_col=ITEM,
                         score_col=SCORE if cfg.value_kind == "score" else None,
                         rank_col=RANK if cfg.value_kind == "rank" else None, lists=lists)
    else:
        packed = ev.pack(RunCodes.empty(ev.truth), lists=lists)
    block = evaluate_packed(packed, ev.plan, ev.context)
    totals = Totals()
    totals.add_truth(ev.truth)
    totals.add(packed, block)
    totals.run_only = int(len(packed.run_only))
    catalogue = catalogue_partial(ev, packed, sorted(block.global_only)) \
        if block.global_only else None
    groups = group_catalogue = None
    if cfg.groups is not None:
        from ..engines.groups import GroupTotals

        groups = GroupTotals(cfg.groups, ev.truth.users)
        groups.add(packed, block, ev.plan, ev.context, True)
        if block.global_only:  # each group's lists, for its catalogue values on the driver
            from ..pack.subsets import take_users

            codes = groups.codes_of(packed.user_ids, packed.truth_index)
            group_catalogue = [
                catalogue_partial(ev, take_users(packed, np.flatnonzero(codes == g),
                                                 block.kernel_out), sorted(block.global_only))
                for g in range(cfg.groups.n_groups)]
    partial = Partial(totals, catalogue, groups, group_catalogue)
    return packed, block, partial


def catalogue_partial(ev: Any, packed: Any, columns: list[int]) -> dict[str, Any]:
    """Mergeable inputs of catalogue-wide metrics, keyed by raw item id.

    ``exposure[k]``: (raw ids, number of evaluated lists holding each in their top k);
    ``lengths[k]``: per list length L (after the cut), (raw ids, lists of length L holding
    each) and the number of such lists (personalization); ``run_items`` / ``truth_items``: the
    bucket's item vocabularies (the default catalogue is train + truth + run items).
    """
    ks = sorted({ev.plan.specs[j].k or 0 for j in columns})
    lens = np.diff(packed.indptr)
    exposure, lengths = {}, {}
    for k in ks:
        cut = lens if k == 0 else np.minimum(lens, k)
        starts = packed.indptr[:-1]
        total = int(cut.sum())
        offsets = np.repeat(starts - np.concatenate([[0], np.cumsum(cut)[:-1]]), cut) \
            if total else np.zeros(0, dtype=np.int64)
        pos = np.arange(total, dtype=np.int64) + offsets
        codes = packed.items[pos]  # packed lists never repeat an item
        uniq, cnt = np.unique(codes, return_counts=True)
        exposure[k] = (packed.item_vocab[uniq], cnt.astype(np.int64))
        per_len = {}
        list_len = np.repeat(cut, cut)
        for length in np.unique(cut[cut > 0]):
            sel = list_len == length
            u, c = np.unique(codes[sel], return_counts=True)
            per_len[int(length)] = (packed.item_vocab[u], c.astype(np.int64),
                                    int((cut == length).sum()))
        lengths[k] = per_len
    return {"exposure": exposure, "lengths": lengths, "run_items": packed.item_vocab,
            "truth_items": ev.truth.items}


def run_bucket(cfg: BucketConfig, run: Any, truth: Any) -> Any:
    """The function a cogroup task calls: per-user rows plus one partial-state row."""
    import pyarrow as pa

    run = run.drop_columns([BUCKET]) if BUCKET in run.column_names else run
    truth = truth.drop_columns([BUCKET]) if BUCKET in truth.column_names else truth
    packed, block, partial = evaluate_bucket(cfg, run, truth)
    schema = cfg.out_schema
    n = len(packed.user_ids) if cfg.emit_users else 0
    user_type = schema.field(USER).type
    data: dict[str, Any] = {
        KIND: pa.array(np.r_[np.full(n, USER_ROW, dtype=np.int8), [STATE_ROW]].astype(np.int8)),
        USER: pa.array(list(packed.user_ids[:n]) + [None], type=user_type)
        if user_type == pa.string() else
        pa.array(np.r_[packed.user_ids[:n].astype(user_type.to_pandas_dtype()), [0]],
                 mask=np.r_[np.zeros(n, dtype=bool), [True]], type=user_type),
    }
    for j in range(len(cfg.metrics)):
        data[metric_column(j)] = pa.array(np.r_[block.values[:n, j], [np.nan]],
                                          type=pa.float64())
    blob = pickle.dumps(partial, protocol=pickle.HIGHEST_PROTOCOL)
    data[STATE] = pa.array([None] * n + [blob], type=pa.binary())
    return pa.table(data).cast(schema)


def _split_sides(cfg: BucketConfig, table: Any) -> tuple[Any, Any]:
    """The run and truth tables of one bucket's tagged rows (``mapInArrow`` strategy)."""
    import pyarrow as pa

    side = table.column(SIDE).to_numpy(zero_copy_only=False)
    value = SCORE if cfg.value_kind == "score" else RANK
    run = table.filter(pa.array(side == RUN_SIDE)).select([USER, ITEM, value])
    truth_cols = [USER, ITEM, REL] if cfg.has_rel else [USER, ITEM]
    truth = table.filter(pa.array(side == TRUTH_SIDE)).select(truth_cols)
    return run, truth


def run_partition(cfg: BucketConfig, batches: Any) -> Any:
    """The function a ``mapInArrow`` task calls: whole buckets out of a sorted partition.

    ``batches``: the partition's Arrow record batches, rows sorted by bucket (then side and
    user). A bucket's rows may span several batches: they are collected until the next bucket
    starts (or the partition ends), then that bucket is evaluated by :func:`run_bucket` and its
    rows are emitted, so memory holds one bucket plus one batch. Yields record batches of
    ``cfg.out_schema``.
    """
    import pyarrow as pa

    pending: list[Any] = []
    current: int | None = None

    def finish() -> Any:
        table = pa.Table.from_batches(pending)
        out = run_bucket(cfg, *_split_sides(cfg, table))
        return out.to_batches()

    for batch in batches:
        n = batch.num_rows
        if n == 0:
            continue
        keys = batch.column(BUCKET).to_numpy(zero_copy_only=False)
        cuts = np.flatnonzero(keys[1:] != keys[:-1]) + 1
        for start, stop in zip(np.r_[0, cuts], np.r_[cuts, n], strict=True):
            key = int(keys[start])
            if current is not None and key != current:
                if key < current:
                    raise RuntimeError(f"rows of bucket {key} follow bucket {current}: the "
                                       "partition is not sorted by bucket")
                yield from finish()
                pending = []
            current = key
            pending.append(batch.slice(int(start), int(stop - start)))
    if pending:
        yield from finish()


LIST_ROWS = 1 << 21  # lists strategy: run rows gathered before one call of the local engine


def _unnest(table: Any, side: str, cols: list[str], count: str) -> Any:
    """The ``side`` rows of users given as lists (one list column per column of ``cols``, all
    in the same order, and the number of rows in ``count``) as a flat table: the user of each
    row, then ``cols``. Spark's ``collect_list`` leaves out null values, which only item ids
    can be here (a null score or relevance is collected as NaN, as the local reader reads
    it): when a user has fewer items than rows, the table holds only that many rows with a
    null item, which the local engine refuses with its own message."""
    import pyarrow as pa
    import pyarrow.compute as pc

    lists = {c: table.column(list_column(side, c)).combine_chunks() for c in cols}
    first = lists[cols[0]]
    short = pc.subtract(pc.fill_null(table.column(count), 0),
                        pc.list_value_length(first).fill_null(0)).to_numpy(zero_copy_only=False)
    if short.any():  # the lists cannot be aligned: only the missing items, to be refused
        users = table.column(USER).take(pa.array(np.repeat(np.arange(len(short)), short)))
        return pa.table({USER: users, **{c: pa.nulls(len(users), lists[c].type.value_type)
                                         for c in cols}})
    return pa.table({USER: table.column(USER).take(pc.list_parent_indices(first)),
                     **{c: pc.list_flatten(lists[c]) for c in cols}})


def run_lists(cfg: BucketConfig, batches: Any, rows_per_call: int = LIST_ROWS) -> Any:
    """The function a ``lists`` task calls: whole users, each a row (user, the truth's lists
    and row count, the run's lists and row count; a side without the user holds nulls),
    evaluated by :func:`run_bucket` a few record batches at a time.

    Batches are gathered until they hold ``rows_per_call`` run rows (or the partition ends), so
    that memory holds a bounded number of users and the local engine is called on large blocks.
    Yields record batches of ``cfg.out_schema``.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    value = SCORE if cfg.value_kind == "score" else RANK
    truth_cols = [ITEM, REL] if cfg.has_rel else [ITEM]
    pending: list[Any] = []
    rows = 0

    def finish() -> Any:
        table = pa.Table.from_batches(pending)
        run = _unnest(table, "run", [ITEM, value], RUN_COUNT)
        truth = _unnest(table, "truth", truth_cols, TRUTH_COUNT)
        return run_bucket(cfg, run, truth).to_batches()

    for batch in batches:
        if batch.num_rows == 0:
            continue
        pending.append(batch)
        rows += int(pc.sum(batch.column(RUN_COUNT)).as_py() or 0)
        if rows >= rows_per_call:
            yield from finish()
            pending, rows = [], 0
    if pending:
        yield from finish()
