"""The Spark engine's driver side: validate, project, group users, merge.

``Evaluator(truth_sdf, metrics)`` checks and projects the truth on the driver and computes the
global facts in one small aggregation. By default (the ``lists`` strategy) it collects each
truth user's rows into one list; ``Evaluator.evaluate(run_sdf)`` does the same for the run
(Spark's partial aggregation builds the lists before the shuffle), joins the two on the user
(full outer join) and hands record batches of whole users to ``mapInArrow``. The bucketed
strategies tag every row with its bucket ``pmod(xxhash64(user), N)`` and run
``run.groupBy(b).cogroup(truth.groupBy(b)).applyInArrow(...)`` (Spark 4), or tag the rows of
both sides, ``repartition(N, b).sortWithinPartitions(b, side, user)`` and ``mapInArrow``
(Spark 3.3 and later). Every task calls :func:`receval.spark._bucket.run_bucket`, the local
engine on a set of whole users. The
partial states come back to the driver and are merged with the local engine's aggregator
(:class:`~receval.engines.aggregate.MetricState`, exact and order-independent), so summaries
and counts are the bits ``rv.evaluate`` gives on the same data.
"""

from __future__ import annotations

import math
import pickle
import re
import time
from typing import Any

import numpy as np
import pandas as pd

from ..compat import annotate
from ..compat import get as get_preset
from ..engines.plugins import Context
from ..engines.setup import COMMON_KEYWORDS, evaluation_setup
from ..engines.totals import Totals, build_result, relevance_info
from ..errors import InputError, MetricError, PolicyError, RecevalError, plain
from ..io.frames import ITEM_NAMES, RANK_NAMES, REL_NAMES, SCORE_NAMES, USER_NAMES, _find
from ..io.groups import read_groups
from ..results import EvalResult
from . import _bucket as B
from .mllib import PRESET as MLLIB_PRESET
from .mllib import mllib_names

PER_USER = ("pandas", "spark", None)
STRATEGIES = ("auto", "lists", "cogroup", "mapInArrow")
ROWS_PER_BUCKET = 250_000  # truth rows per bucket by default (about 2.5M run rows at 10:1)


def is_spark_frame(obj: Any) -> bool:
    """A Spark DataFrame (classic or Spark Connect), without importing pyspark."""
    mod = type(obj).__module__
    return mod.startswith("pyspark.sql") and type(obj).__name__ == "DataFrame"


def _types():
    try:
        from pyspark.sql import functions as F
        from pyspark.sql import types as T
    except ImportError:  # pragma: no cover - the extra is missing
        from ..errors import MissingDependencyError

        raise MissingDependencyError(
            "the Spark engine needs pyspark 3.3 or later: pip install 'receval[spark]' (and "
            "Java 17+)."
        ) from None
    return F, T


def _kind(dtype: Any, T: Any, role: str, col: str, allow_float: bool) -> str:
    """'int' or 'str' for an id column's Spark type; anything else is refused."""
    if isinstance(dtype, (T.LongType, T.IntegerType, T.ShortType, T.ByteType)):
        return "int"
    if isinstance(dtype, T.StringType):
        return "str"
    if isinstance(dtype, (T.DoubleType, T.FloatType, T.DecimalType)):
        if allow_float:
            return "float"
        raise InputError(
            f"{role}: id column {col!r} is {dtype.simpleString()}; floating-point ids are refused "
            "because 1 and 1.0 would be the same id but order differently, and ids above 2**53 "
            "collide. Cast it to bigint or string, or pass allow_float_ids=True."
        )
    raise InputError(
        f"{role}: id column {col!r} has type {dtype.simpleString()}; ids must be integers or "
        "strings."
    )


def _numeric(dtype: Any, T: Any, role: str, col: str) -> None:
    if not isinstance(dtype, T.NumericType) and not isinstance(dtype, T.BooleanType):
        raise InputError(
            f"{role}: column {col!r} must be numeric, got {dtype.simpleString()}; cast it, e.g. "
            f"F.col({col!r}).cast('double')."
        )


def refusal(spec: Any, catalog: Any) -> str | None:
    """Why a bucket of users cannot compute ``spec`` before running anything (else None).

    A plugin metric with a ``catalog`` parameter (confusion-matrix counts) needs the catalogue
    size, which a bucket cannot know, unless it is given as a number.
    """
    sized = isinstance(catalog, (int, np.integer)) and not isinstance(catalog, bool)
    pnames = {p.name for p in spec.definition.params}
    if spec.definition.kernel is None and "catalog" in pnames and not sized \
            and spec.get("catalog") is None and ("candidates" not in pnames
                                                 or spec.get("candidates") == "catalog"):
        return (f"{spec.key}: its value depends on the catalogue size, which a bucket of users "
                "cannot know; pass catalog=<number of items> to evaluate, or give the metric "
                "its catalog=N parameter.")
    return None


def _required(names: list[str], given: str | None, candidates: tuple[str, ...], what: str,
              role: str, flag: str) -> str:
    """A column that must exist (the local reader's detection and messages)."""
    return str(_find(names, given, candidates, what, role, flag))


def _raise_from_spark(exc: Exception) -> None:
    """Re-raise a receval error that a Python worker raised, with its own class and message."""
    text = str(exc)
    found = re.findall(r"receval\.errors\.(\w+): (.+?)(?:\n\s*\n|\n(?=\S)|\Z)", text, re.S)
    if not found:
        found = re.findall(r"\b(InputError|PolicyError|MetricError|UnknownMetricError): "
                           r"(.+?)(?:\n\s*\n|\n(?=\S)|\Z)", text, re.S)
    if found:
        name, msg = found[-1]
        cls = {"InputError": InputError, "PolicyError": PolicyError,
               "MetricError": MetricError}.get(name, RecevalError)
        raise cls(msg.strip() + " (raised in a Spark task)") from exc
    raise exc


class Evaluator:
    """Validate, project, bucket and cache a Spark truth once; evaluate many Spark runs.

    Parameters
    ----------
    truth : Spark DataFrame of held-out (user, item[, relevance]) rows.
    metrics : metric keys, as for :func:`receval.evaluate` (with ``compat="spark_mllib"``:
        ``RankingEvaluator`` names such as ``"ndcgAtK@10"``, ``"meanAveragePrecision"``).
    user_col, item_col, rel_col : truth column names (detected when omitted, as locally).
    buckets : number of user buckets of the ``cogroup`` and ``mapInArrow`` strategies (default:
        ``max(2 * defaultParallelism, truth rows / 250000)``); each bucket is one Python call
        holding its users' rows. Given with ``strategy="auto"``, it selects a bucketed
        strategy; the ``lists`` strategy has no buckets and refuses it.
    allow_float_ids : accept float/double id columns (refused by default).
    compat, strict : a library preset and its bug check, as locally
        (:func:`receval.engines.setup.evaluation_setup`); a preset whose policies lay out
        lists locally only (``ranks="position"``, ``unretrieved="bottom"``) is refused.
        ``"spark_mllib"`` (or its alias ``"spark"``) reproduces
        ``pyspark.ml.evaluation.RankingEvaluator`` and also reads its metric names
        (``"ndcgAtK@10"``; see :mod:`receval.spark.mllib`). The relevance column is read as
        without ``compat`` (and as the local engine's ``compat="spark_mllib"`` reads it): rows
        with relevance >= 1 are the labels, a row with relevance 0 is a judged non-relevant
        item; a truth without a relevance column makes every row a label.
    cache : persist the projected truth, as per-user lists under the ``lists`` strategy and as
        bucketed rows otherwise (default True; :meth:`close` releases it).
    strategy : how a task receives its users: ``"lists"`` (each user's run rows and truth
        rows collected into two lists by Spark, the run's partly before the shuffle, joined on
        the user; tasks read whole users from the record batches; Spark 3.3 and later),
        ``"cogroup"`` (users hashed into buckets, ``groupBy(b).cogroup(...).applyInArrow``,
        Spark 4), ``"mapInArrow"`` (both sides tagged with their bucket and unioned,
        ``repartition(N, b).sortWithinPartitions(b, side, user)``, whole buckets cut from each
        partition's record batches; Spark 3.3 and later) or ``"auto"`` (default:
        ``"lists"``; with ``buckets`` given, ``"cogroup"`` where Spark has ``applyInArrow``,
        else ``"mapInArrow"``). All give the same result.
    ties, users, empty_truth, duplicates, nan_scores, negative_rel, nan_rel, unjudged : policies,
        as locally (defaults ``"id"``, ``"truth"``, ``"skip"``, ``"error"``, ``"error"``,
        ``"error"``, ``"error"``, ``"keep"``; with ``compat``, the preset's policies replace the
        defaults, never a policy given). ``ties="input"``, ``ranks="position"`` and
        ``unretrieved="bottom"`` are local only.
    train, item_features, catalog : optional inputs of beyond-accuracy metrics (local objects,
        shipped to every task).
    """

    def __init__(self, truth: Any, metrics: Any, *, user_col: str | None = None,
                 item_col: str | None = None, rel_col: str | None = None,
                 buckets: int | None = None, allow_float_ids: bool = False,
                 compat: str | Any = None, strict: bool = False, cache: bool = True,
                 strategy: str = "auto",
                 ties: str | None = None, users: str | None = None,
                 empty_truth: str | None = None, duplicates: str | None = None,
                 nan_scores: str | None = None, negative_rel: str | None = None,
                 nan_rel: str | None = None, unjudged: str | None = None, train: Any = None,
                 item_features: Any = None, catalog: Any = None, **options: Any) -> None:
        groups, group_col = options.pop("groups", None), options.pop("group_col", None)
        if group_col is not None and groups is None:
            raise InputError("group_col= names the group column(s) of groups=; give groups= "
                             "too.")
        item_groups = options.pop("item_groups", None)
        if item_groups is not None:  # for the metrics per item group (context.options)
            options["item_groups"] = read_groups(item_groups, what="item")
        if options.get("rankings") is not None:  # sampled rankings: read once, shipped read
            from ..beyond.rankings import as_rankings

            given = options["rankings"]
            options["rankings"] = as_rankings(given.toPandas() if is_spark_frame(given)
                                              else given)
        for key in ("per_item", "weights", "weight_col", "slices"):
            if options.get(key) not in (None, False):
                raise PolicyError(
                    f"{key}= is evaluated by the local engine only (rv.evaluate on pandas / "
                    "polars / pyarrow data, rv.evaluate_blocks for runs larger than memory).")
            options.pop(key, None)
        #: the user groups (groups=): a Membership read on the driver, shipped to the tasks
        self.groups = None if groups is None else read_groups(
            groups.toPandas() if type(groups).__name__ == "DataFrame"
            and type(groups).__module__.startswith("pyspark") else groups,
            group_col=group_col)
        if strategy not in STRATEGIES:
            raise PolicyError(f"strategy={strategy!r}: use one of {list(STRATEGIES)}.")
        if strategy == "lists" and buckets is not None:
            raise PolicyError(
                f"buckets={buckets!r}: the 'lists' strategy has no buckets (Spark groups each "
                "user's rows into lists, and each task reads whole users in batches); use "
                "strategy='cogroup' or 'mapInArrow' to bucket users, or leave buckets out.")
        if strategy == "auto" and buckets is None:
            strategy = "lists"
        self.strategy = strategy
        given = {"ties": ties, "users": users, "empty_truth": empty_truth,
                 "duplicates": duplicates, "nan_scores": nan_scores,
                 "negative_rel": negative_rel, "nan_rel": nan_rel, "unjudged": unjudged,
                 "ranks": options.pop("ranks", None),
                 "unretrieved": options.pop("unretrieved", None)}
        preset = get_preset(compat) if isinstance(compat, str) else compat
        texts: dict[str, str] = {}  # name as given -> the preset's name
        if preset is not None and preset.name == MLLIB_PRESET:  # RankingEvaluator's names
            texts = mllib_names(metrics)
            metrics = list(dict.fromkeys(texts.values()))
        setup = evaluation_setup(
            metrics, policies=given, compat=preset, strict=strict, train=train,
            item_features=item_features, catalog=catalog, options=options,
            keywords=(*COMMON_KEYWORDS, "buckets", "allow_float_ids", "cache", "strategy",
                      "per_user"))
        self.compat = None if setup.compat is None else setup.compat[0].name
        #: {name as given: canonical key} under ``compat``
        self.names: dict[str, str] = {}
        if setup.compat is not None:
            written = setup.compat[1]
            self.names = {name: written[text] for name, text in texts.items()} if texts \
                else dict(written)
        self.metrics = setup.specs
        self.policies = setup.policies
        for name, default in (("ranks", "order"), ("unretrieved", "absent")):
            value = getattr(self.policies, name)
            if value != default:  # list shapes laid out locally only
                origin = f" (the {self.compat!r} preset's)" if given[name] is None else ""
                raise PolicyError(
                    f"{name}={value!r}{origin} is not available on the Spark engine (it lays "
                    f"out each list before the kernel reads it); use {name}={default!r}, or "
                    "evaluate locally with receval.evaluate.")
        F, T = _types()
        if not is_spark_frame(truth):
            raise InputError(
                f"truth: the Spark engine needs a Spark DataFrame, got {type(truth).__name__}; "
                "use receval.evaluate for local data."
            )
        if self.policies.ties == "input":
            raise PolicyError("ties='input' orders tied scores by input row, and a Spark "
                              "DataFrame has no row order: use ties='id' (default) or "
                              "'trec_eval', or evaluate locally with rv.evaluate.")
        negative_rel = self.policies.negative_rel
        self.plan = setup.plan  # validates policy x metric choices
        self.context = setup.context
        for spec in self.metrics:
            reason = refusal(spec, catalog)
            if reason:
                raise InputError(reason)
        for name, value in (("train", train), ("item_features", item_features),
                            ("catalog", catalog)):
            if is_spark_frame(value):
                raise InputError(
                    f"{name}: the Spark engine ships {name} to every task as a local object; "
                    f"collect it first (e.g. {name}.toPandas()) if it fits in memory."
                )
        self.allow_float_ids = allow_float_ids
        self.spark = truth.sparkSession
        names = list(truth.columns)
        ucol = _required(names, user_col, USER_NAMES, "user", "truth", "user_col")
        icol = _required(names, item_col, ITEM_NAMES, "item", "truth", "item_col")
        # read as locally, compat included: a relevance-0 row is a judged non-relevant item
        rcol = _find(names, rel_col, REL_NAMES, "relevance", "truth", "rel_col", required=False)
        schema = truth.schema
        self.user_kind = _kind(schema[ucol].dataType, T, "truth", ucol, allow_float_ids)
        self.item_kind = _kind(schema[icol].dataType, T, "truth", icol, allow_float_ids)
        self.item_type = schema[icol].dataType
        cols = [self._user(F, ucol, self.user_kind), F.col(icol).alias(B.ITEM)]
        if rcol is not None:
            _numeric(schema[rcol].dataType, T, "truth", rcol)
            cols.append(F.col(rcol).cast("double").alias(B.REL))
        self.columns = {"user": ucol, "item": icol, **({"relevance": rcol} if rcol else {})}
        projected = truth.select(*cols)
        # global facts: the truth-wide largest relevance (ERR's default max_grade) as the
        # local engine computes it (after the nan_rel and negative_rel policies, before
        # deduplication; Spark's max ranks NaN above every number, so NaN never reaches it)
        if rcol is None:
            facts = projected.agg(F.count(F.lit(1)).alias("n")).collect()[0]
            max_rel = 1.0 if facts["n"] else 0.0
        else:
            rel = F.col(B.REL)
            # NaN relevance: an error is raised where the buckets are packed, as locally
            rel = F.when(~F.isnan(rel), rel).otherwise(
                F.lit(0.0) if self.policies.nan_rel == "zero" else F.lit(None))
            if negative_rel == "zero":
                rel = F.greatest(rel, F.lit(0.0))
            elif negative_rel == "drop":
                rel = F.when(rel >= 0, rel)
            missing = F.isnan(F.col(B.REL)) | F.col(B.REL).isNull()
            facts = projected.agg(F.count(F.lit(1)).alias("n"), F.max(rel).alias("max"),
                                  F.sum(F.when(missing, 1).otherwise(0)).alias("nan")) \
                .collect()[0]
            max_rel = float(facts["max"]) if facts["max"] is not None else 0.0
            if self.policies.nan_rel == "error" and facts["nan"]:
                # refused here, naming a row by its ids: a task sees only its bucket's rows,
                # whose positions say nothing about the user's table (which has no row order)
                user, item = projected.filter(missing).select(B.USER, B.ITEM).first()
                raise InputError(
                    f"truth: column {rcol!r} has {int(facts['nan'])} NaN (missing) relevance "
                    f"value(s) (e.g. user {plain(user)}, item {plain(item)}). Pass "
                    "nan_rel='zero' to treat them as judged non-relevant (LensKit's gain 0), "
                    "nan_rel='drop' to remove those rows (unjudged), or fill them.")
        self.truth_rows = int(facts["n"])
        if not self.truth_rows:  # as the local engine refuses an empty truth
            raise InputError(
                "truth: the table has no rows; evaluation needs held-out (user, item[, "
                "relevance]) rows for at least one user.")
        self.max_rel = max_rel
        try:
            parallelism = self.spark.sparkContext.defaultParallelism
        except Exception:  # Spark Connect has no SparkContext
            parallelism = int(self.spark.conf.get("spark.sql.shuffle.partitions") or 2)
        self.buckets = int(buckets) if buckets is not None else max(
            2 * parallelism, math.ceil(self.truth_rows / ROWS_PER_BUCKET))
        if self.buckets < 1:
            raise InputError(f"buckets={buckets!r}: the number of buckets must be positive.")
        self.truth = projected.withColumn(B.BUCKET, self._bucket(F))
        self.truth_lists: Any = None  # the lists strategy's truth
        if strategy == "lists":  # one row per user: its items[, relevances], its row count
            cols = [B.ITEM] + ([B.REL] if rcol is not None else [])
            self.truth_lists = _user_lists(F, projected, "truth", cols, B.TRUTH_COUNT)
            if cache:
                self.truth_lists = self.truth_lists.persist()
        elif cache:
            self.truth = self.truth.persist()
        self.cached = cache

    # ---- helpers ------------------------------------------------------------------------
    def _user(self, F: Any, col: str, kind: str) -> Any:
        # one Spark type per id kind on both sides, so that run and truth hash alike
        cast = {"int": "bigint", "str": "string", "float": "double"}[kind]
        return F.col(col).cast(cast).alias(B.USER)

    def _bucket(self, F: Any) -> Any:
        return F.pmod(F.xxhash64(F.col(B.USER)), F.lit(self.buckets)).cast("int")

    def close(self) -> None:
        """Release the cached truth."""
        if self.cached:
            (self.truth_lists if self.truth_lists is not None else self.truth).unpersist()
            self.cached = False

    def _project_run(self, run: Any, user_col: str | None, item_col: str | None,
                     score_col: str | None, rank_col: str | None) -> tuple[Any, str]:
        F, T = _types()
        if not is_spark_frame(run):
            raise InputError(
                f"run: the Spark engine needs a Spark DataFrame, got {type(run).__name__}; "
                "create one with spark.createDataFrame(...) or evaluate locally."
            )
        names = list(run.columns)
        ucol = _required(names, user_col, USER_NAMES, "user", "run", "user_col")
        icol = _required(names, item_col, ITEM_NAMES, "item", "run", "item_col")
        scol = None if rank_col is not None else _find(
            names, score_col, SCORE_NAMES, "score", "run", "score_col", required=False)
        rcol = None if scol is not None else _find(
            names, rank_col, RANK_NAMES, "rank", "run", "rank_col", required=False)
        if scol is None and rcol is None:
            raise InputError(
                f"run: no score or rank column found among {names}; name one 'score' (higher is "
                "better) or 'rank' (1 = best), or pass score_col=... / rank_col=..."
            )
        schema = run.schema
        ukind = _kind(schema[ucol].dataType, T, "run", ucol, self.allow_float_ids)
        ikind = _kind(schema[icol].dataType, T, "run", icol, self.allow_float_ids)
        if ukind != self.user_kind:
            raise InputError(
                f"run user ids are {ukind} ({schema[ucol].dataType.simpleString()}) but truth user "
                f"ids are {self.user_kind}; cast one of them, e.g. F.col({ucol!r}).cast('string')."
            )
        if ikind != self.item_kind:
            raise InputError(
                f"run item ids are {ikind} ({schema[icol].dataType.simpleString()}) but truth "
                f"item ids are {self.item_kind}; cast one of them so that they can match."
            )
        vcol = str(scol or rcol)
        _numeric(schema[vcol].dataType, T, "run", vcol)
        kind = "score" if scol else "rank"
        out = run.select(self._user(F, ucol, ukind), F.col(icol).alias(B.ITEM),
                         F.col(vcol).cast("double").alias(B.SCORE if scol else B.RANK))
        return out.withColumn(B.BUCKET, self._bucket(F)), kind

    def _out_schema(self, pa: Any) -> Any:
        user = {"int": pa.int64(), "str": pa.string(), "float": pa.float64()}[self.user_kind]
        fields = [pa.field(B.KIND, pa.int8()), pa.field(B.USER, user)]
        fields += [pa.field(B.metric_column(j), pa.float64()) for j in range(len(self.metrics))]
        fields.append(pa.field(B.STATE, pa.binary()))
        return pa.schema(fields)

    def _strategy(self, runp: Any) -> str:
        """``"lists"``, ``"cogroup"`` or ``"mapInArrow"``: the explicit choice, or what this
        Spark has."""
        if self.strategy in ("lists", "mapInArrow"):
            return self.strategy
        grouped = runp.groupBy(B.BUCKET).cogroup(self.truth.groupBy(B.BUCKET))
        if hasattr(grouped, "applyInArrow"):
            return "cogroup"
        if self.strategy == "cogroup":
            raise PolicyError(
                f"strategy='cogroup' needs cogroup(...).applyInArrow (Spark 4); this is Spark "
                f"{self.spark.version}: use strategy='mapInArrow' or 'auto'.")
        return "mapInArrow"

    def _lists(self, runp: Any, kind: str) -> Any:
        """One row per user of the run or the truth (the ``lists`` input): the truth's lists
        and row count, the run's lists and row count (a side without the user holds nulls).
        The run's lists are built with Spark's partial aggregation, so a run clustered by user
        crosses the shuffle as about one row per user and task; the join reuses both sides'
        partitioning by user. A list's order is Spark's: the packing orders each list itself
        (score, then raw id), and rows equal in both are interchangeable."""
        from pyspark.sql import functions as F

        value = B.SCORE if kind == "score" else B.RANK
        run = _user_lists(F, runp, "run", [B.ITEM, value], B.RUN_COUNT)
        return self.truth_lists.join(run, on=B.USER, how="full")

    def _tagged(self, runp: Any, kind: str) -> Any:
        """Run and truth rows in one frame, tagged with their side, partitioned by bucket and
        sorted by (bucket, side, user) within each partition (the ``mapInArrow`` input)."""
        from pyspark.sql import functions as F

        value = B.SCORE if kind == "score" else B.RANK
        item = {"int": "bigint", "str": "string", "float": "double"}[self.item_kind]
        has_rel = "relevance" in self.columns
        run_cols = [F.col(B.BUCKET), F.lit(B.RUN_SIDE).cast("tinyint").alias(B.SIDE),
                    F.col(B.USER), F.col(B.ITEM).cast(item).alias(B.ITEM), F.col(value)]
        truth_cols = [F.col(B.BUCKET), F.lit(B.TRUTH_SIDE).cast("tinyint").alias(B.SIDE),
                      F.col(B.USER), F.col(B.ITEM).cast(item).alias(B.ITEM),
                      F.lit(None).cast("double").alias(value)]
        if has_rel:
            run_cols.append(F.lit(None).cast("double").alias(B.REL))
            truth_cols.append(F.col(B.REL))
        both = runp.select(*run_cols).unionByName(self.truth.select(*truth_cols))
        return both.repartition(self.buckets, B.BUCKET).sortWithinPartitions(
            B.BUCKET, B.SIDE, B.USER)

    # ---- evaluation ---------------------------------------------------------------------
    def evaluate(self, run: Any, *, name: str | None = None, user_col: str | None = None,
                 item_col: str | None = None, score_col: str | None = None,
                 rank_col: str | None = None, per_user: str | None = "pandas") -> EvalResult:
        """Evaluate one Spark run; the result equals ``rv.evaluate`` on the same rows.

        ``per_user``: ``"pandas"`` collects the per-user rows into the result (sorted by user
        id); ``"spark"`` leaves them in a Spark DataFrame ``result.per_user_spark`` (columns
        ``user`` and one per metric key) and the result's own per-user arrays empty; ``None``
        keeps only the summary, counts and stats.
        """
        if per_user not in PER_USER:
            raise PolicyError(f"per_user={per_user!r}: use 'pandas', 'spark' or None.")
        import pyarrow as pa
        from pyspark.sql import functions as F

        t0 = time.perf_counter()
        runp, kind = self._project_run(run, user_col, item_col, score_col, rank_col)
        schema = self._out_schema(pa)
        from pyspark.sql.pandas.types import from_arrow_schema

        cfg = B.BucketConfig(
            metrics=[s.key for s in self.metrics], policies=self.policies.to_dict(),
            value_kind=kind, has_rel="relevance" in self.columns, max_rel=self.max_rel,
            user_kind="str" if self.user_kind == "str" else "int",
            item_kind="str" if self.item_kind == "str" else "int", out_schema=schema,
            emit_users=per_user is not None, train=self.context.train,
            item_features=self.context.item_features, catalog=self.context.catalog,
            options=dict(self.context.options), groups=self.groups)

        strategy = self._strategy(runp)
        if strategy == "lists":
            def batches(parts: Any) -> Any:
                return B.run_lists(cfg, parts)

            out = self._lists(runp, kind).mapInArrow(batches, schema=from_arrow_schema(schema))
        elif strategy == "cogroup":
            def task(left: Any, right: Any) -> Any:
                return B.run_bucket(cfg, left, right)

            out = runp.groupBy(B.BUCKET).cogroup(self.truth.groupBy(B.BUCKET)).applyInArrow(
                task, schema=from_arrow_schema(schema))
        else:
            def part(batches: Any) -> Any:
                return B.run_partition(cfg, batches)

            out = self._tagged(runp, kind).mapInArrow(part, schema=from_arrow_schema(schema))
        per_user_sdf = None
        try:
            if per_user == "pandas":
                table = _to_arrow(out, schema)
                kinds = table.column(B.KIND).to_numpy()
                users = table.filter(pa.array(kinds == B.USER_ROW))
                blobs = table.column(B.STATE).filter(pa.array(kinds == B.STATE_ROW)).to_pylist()
            elif per_user == "spark":
                out = out.persist()
                blobs = [r[0] for r in out.filter(F.col(B.KIND) == B.STATE_ROW)
                         .select(B.STATE).collect()]
                per_user_sdf = out.filter(F.col(B.KIND) == B.USER_ROW).select(
                    F.col(B.USER).alias("user"),
                    *[F.col(B.metric_column(j)).alias(s.key)
                      for j, s in enumerate(self.metrics)])
                users = None
            else:
                blobs = [r[0] for r in out.select(B.STATE).where(F.col(B.KIND) == B.STATE_ROW)
                         .collect()]
                users = None
        except RecevalError:
            raise
        except Exception as exc:  # a receval error raised inside a task
            _raise_from_spark(exc)
            raise  # pragma: no cover
        partials = [pickle.loads(b) for b in blobs]
        if users is not None:
            user_ids = _ids(users.column(B.USER))
            values = np.column_stack(
                [users.column(B.metric_column(j)).to_numpy(zero_copy_only=False)
                 for j in range(len(self.metrics))]) if len(self.metrics) else \
                np.zeros((len(user_ids), 0))
            order = np.argsort(user_ids, kind="stable")
            user_ids, values = user_ids[order], np.ascontiguousarray(values[order])
        else:
            user_ids = np.zeros(0, dtype=np.int64 if self.user_kind == "int" else object)
            values = np.zeros((0, len(self.metrics)))
        provenance: dict[str, Any] = {"engine": "spark", "spark": self.spark.version,
                                      "buckets": None if strategy == "lists" else self.buckets,
                                      "strategy": strategy,
                                      "per_user": per_user}
        if self.names:
            provenance["spark_mllib_names"] = dict(self.names)
        res = self._result(partials, user_ids, values, name, t0, provenance)
        if self.compat is not None:  # result["ndcgAtK@10"] reads the preset's value
            annotate(res, self.compat, self.names)
        res.per_user_spark = per_user_sdf  # type: ignore[attr-defined]
        return res

    def _result(self, partials: list[B.Partial], user_ids: np.ndarray, values: np.ndarray,
                name: str | None, t0: float, provenance: dict[str, Any]) -> EvalResult:
        """Merge the buckets' partial states, then the local engine's result builder."""
        specs = self.plan.specs
        bad = sorted({specs[j].key for p in partials for j in p.totals.overrides
                      if j not in p.totals.global_only})
        if bad:
            raise InputError(
                f"{bad}: these metrics' summary is not the mean of per-user values (a weighted "
                "or pooled value over the whole run), which buckets cannot merge; evaluate them "
                "with the local engine."
            )
        totals = Totals()
        for p in partials:
            totals = totals.merge(p.totals)
        global_only = sorted(totals.global_only)
        totals.overrides = {}
        if global_only:
            for j, (value, extra) in _catalogue(specs, global_only, partials, self).items():
                totals.overrides[j] = value
                if extra:
                    totals.info[specs[j].key] = extra
                else:
                    totals.info.pop(specs[j].key, None)
        columns = {"user": self.columns["user"], "item": self.columns["item"],
                   "relevance": self.columns.get("relevance")}
        res = build_result(self.plan, self.policies, totals, user_ids, values,
                           relevance=relevance_info(columns, self.max_rel, self.plan),
                           name=name, t0=t0, provenance=provenance)
        if self.groups is not None:
            _add_groups(res, partials, self.plan, user_ids, self,
                        collected=len(user_ids) == res.counts["evaluated"]
                        + res.counts["skipped_no_relevant"])
        return res


def _add_groups(res: EvalResult, partials: list[B.Partial], plan: Any, user_ids: np.ndarray,
                ev: Evaluator, collected: bool) -> None:
    """The buckets' group totals merged into the result's ``group_stats`` (the local engine's
    rows), each group's catalogue values from its merged catalogue partials (the whole
    evaluation's catalogue, as locally), with ``group_of`` and ``info["groups"]`` when the
    per-user rows were collected. A value that no partial can merge is refused."""
    from ..engines.groups import group_labels

    parts = [p.groups for p in partials]
    merged = parts[0].copy()
    for part in parts[1:]:
        merged.merge(part)
    global_only = sorted({j for t in merged.totals for j in t.global_only})
    bad = sorted({plan.specs[j].key for t in merged.totals for j in t.overrides
                  if j not in global_only})
    if bad:
        raise InputError(
            f"{bad}: with groups=, these metrics' value per group is not a mean of per-user "
            "values (a weighted or pooled value), which the Spark engine's buckets cannot "
            "merge; evaluate them by group with the local engine.")
    for g, totals in enumerate(merged.totals):
        totals.overrides = {}
        if not global_only:
            continue
        cats = [B.Partial(Totals(), p.group_catalogue[g]) for p in partials
                if p.group_catalogue is not None]
        for j, (value, _) in _catalogue(plan.specs, global_only, cats, ev).items():
            totals.overrides[j] = value
    res.group_stats = merged.rows(plan)
    if collected:
        res.group_of = group_labels(merged, user_ids)
        res.info["groups"] = merged.info(user_ids)
    else:
        res.info["groups"] = {**merged.membership.describe(),
                              "sizes": {label: int(t.n_users) for label, t in
                                        zip(merged.membership.labels, merged.totals,
                                            strict=True)}}


def _user_lists(F: Any, frame: Any, side: str, cols: list[str], count: str) -> Any:
    """``frame``'s rows grouped by user: one list per column of ``cols`` (collected in one
    aggregation, so in the same order; a null value, which ``collect_list`` leaves out, is
    collected as NaN except in the item column, where the row count tells it) and the number
    of rows."""
    lists = [F.collect_list(F.col(c) if c == B.ITEM else
                            F.coalesce(F.col(c), F.lit(float("nan")))).alias(B.list_column(side, c))
             for c in cols]
    return frame.groupBy(B.USER).agg(*lists, F.count(F.lit(1)).alias(count))


def _to_arrow(frame: Any, schema: Any) -> Any:
    """A Spark DataFrame collected as one Arrow table of ``schema`` (``toArrow`` on Spark 4;
    the Arrow collection behind ``toPandas`` before it, without a pandas round trip, which
    would turn the nullable integer user column into floats)."""
    import pyarrow as pa

    if hasattr(frame, "toArrow"):
        return frame.toArrow()
    batches = frame._collect_as_arrow()  # pragma: no cover - Spark 3.3 to 3.5
    return pa.Table.from_batches(batches).cast(schema) if batches \
        else schema.empty_table()  # pragma: no cover


def _ids(col: Any) -> np.ndarray:
    arr = col.to_numpy(zero_copy_only=False)
    if arr.dtype.kind in "iu":
        return arr.astype(np.int64, copy=False)
    return arr.astype(object) if arr.dtype.kind != "f" else arr


def _union(parts: list[np.ndarray]) -> np.ndarray:
    parts = [np.asarray(p) for p in parts if len(p)]
    if not parts:
        return np.zeros(0, dtype=np.int64)
    cat = np.concatenate(parts)
    return np.asarray(pd.unique(pd.Series(cat, dtype=object if cat.dtype == object
                                          else cat.dtype)))


def _catalogue(specs: list[Any], columns: list[int], partials: list[B.Partial],
               ev: Evaluator) -> dict[int, tuple[float, dict[str, Any]]]:
    """Catalogue-wide values from the buckets' raw-id-keyed partials (merged on the driver).

    Exposure-based metrics (coverage, dist_coverage, entropy, gini, tail_share) run their own
    compute function on a driver-side block whose lists reproduce the merged exposure counts
    (one list per exposure); personalization is finished from the merged per-length counts.
    """
    from ..beyond.personalization import PersonalizationState
    from ..pack import Packed

    cats = [p.catalogue for p in partials if p.catalogue is not None]
    run_items = _union([c["run_items"] for c in cats])
    truth_items = _union([c["truth_items"] for c in cats])
    vocab = pd.Index(run_items)
    context = Context(train=ev.context.train, item_features=ev.context.item_features,
                      catalog=ev.context.catalog, options=dict(ev.context.options))
    out: dict[int, tuple[float, dict[str, Any]]] = {}
    for j in columns:
        spec = specs[j]
        k = spec.k or 0
        if spec.name == "personalization":
            ids = _union([ids for c in cats for ids, _, _ in c["lengths"][k].values()])
            index = pd.Index(ids)
            state = PersonalizationState()
            for c in cats:
                for length, (raw, cnt, n_lists) in c["lengths"][k].items():
                    codes = index.get_indexer(pd.Index(raw))
                    part = PersonalizationState(
                        {length: n_lists},
                        {length: np.bincount(codes, weights=cnt, minlength=len(ids))
                         .astype(np.int64)})
                    state = state.merge(part)
            out[j] = (state.value(), {"lists": sum(state.lists.values())})
            continue
        raw = [c["exposure"][k][0] for c in cats]
        cnt = [c["exposure"][k][1] for c in cats]
        codes = vocab.get_indexer(pd.Index(np.concatenate(raw))) if raw else \
            np.zeros(0, dtype=np.int64)
        counts = np.bincount(codes, weights=np.concatenate(cnt) if cnt else None,
                             minlength=len(vocab)).astype(np.int64)
        items = np.repeat(np.arange(len(vocab), dtype=np.int64), counts)
        n = len(items)
        packed = Packed(
            user_ids=np.arange(n, dtype=np.int64), indptr=np.arange(n + 1, dtype=np.int64),
            rel=np.zeros(n), judged=np.zeros(n, dtype=np.int8), _items=items,
            scores=np.zeros(n), list_len=np.ones(n, dtype=np.int64),
            grp_end=np.zeros(0, dtype=np.int64), t_indptr=np.zeros(n + 1, dtype=np.int64),
            t_rel_desc=np.zeros(0), t_rel=np.zeros(0), _item_vocab=run_items,
            in_truth=np.ones(n, bool), in_run=np.ones(n, bool), counts={}, max_rel=ev.max_rel,
            _t_items=np.zeros(0, dtype=np.int64), _truth_item_vocab=truth_items)
        mv = spec.definition.compute(spec, packed, context)
        out[j] = (float(mv.value), dict(mv.info))
    return out
