"""Shared absolute ranks: two rows of a user at one rank under ``ranks="position"``.

The definition (``receval.pack.positions``): each row sits at its own rank, so at cutoff k
every row with rank <= k is in the top k (RecTools filters ``rank <= k``). With ``kk`` = k (the
user's largest rank L without a cutoff), the hits h are the relevant rows with rank <= kk,
hit j at rank r_j; ``n`` counts the slots read: the rows with rank <= kk, plus one for each
rank <= min(kk, L) that holds no row. Then precision = h / kk, MRR = 1 / min r_j, DCG = sum
g_j / log2(r_j + 1), MAP = sum over the ranks r holding a hit of (hits at ranks <= r) / r,
and so on (:func:`_oracle`). Checked by worked examples, an oracle written from that
definition (hypothesis), the refusal of the metrics that need a strict order, the unchanged
path of runs without shared ranks, and RecTools itself when it is installed.
"""

from __future__ import annotations

import importlib
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import receval as rv
from receval.kernels import Request, compute_metrics
from receval.pack.positions import fill_positions, kernel_lists, slot_ranks


def _run(users, items, ranks) -> pd.DataFrame:
    return pd.DataFrame({"user": users, "item": items, "rank": ranks})


def _truth(users, items, rel=None) -> pd.DataFrame:
    out = pd.DataFrame({"user": users, "item": items})
    if rel is not None:
        out["rel"] = rel
    return out


# ---- worked examples ------------------------------------------------------------------------

# user 1: item 1 (not relevant) and item 2 (relevant) at rank 1, items 3 and 4 (relevant) at
# rank 3, nothing at rank 2; truth {2, 3, 4, 9}: R = 4
RUN = _run([1, 1, 1, 1], [1, 2, 3, 4], [1, 1, 3, 3])
TRUTH = _truth([1, 1, 1, 1], [2, 3, 4, 9])
L2 = math.log2
WORKED = {
    "hits@1": 1.0,
    "precision@1": 1 / 1,
    "precision@3": 3 / 3,
    "precision@2": 1 / 2,
    "precision@2(denominator=list)": 1 / 3,  # slots at rank <= 2: two rows, one placeholder
    "recall@3": 3 / 4,
    "fbeta@3": 2 * 3 / (4 + 3),
    "hit_rate@1": 1.0,
    "hit_rate@3(level=recommended)": 3 / 5,  # 4 rows and 1 placeholder at rank <= 3
    "mrr@3": 1 / 1,
    "first_hit_rank@3": 1.0,
    "map@3": (1 / 1 + 3 / 3) / 4,  # rank 1: 1 hit so far; rank 3: 3 hits so far
    "map@2": (1 / 1) / 4,
    "map@3(denominator=hits)": (1 / 1 + 3 / 3) / 3,
    "map@3(denominator=k)": (1 / 1 + 3 / 3) / 3,
    "map": (1 / 1 + 3 / 3) / 4,
    "mar@3": ((3 - 1 + 1) + 2 * (3 - 3 + 1)) / (4 * 3),
    "cg@3": 3.0,
    "dcg@3": 1 / L2(2) + 2 / L2(4),
    "ndcg@3": (1 / L2(2) + 2 / L2(4)) / (1 / L2(2) + 1 / L2(3) + 1 / L2(4)),
    "ndcg@3(ideal=k)": (1 / L2(2) + 2 / L2(4)) / (1 / L2(2) + 1 / L2(3) + 1 / L2(4)),
    "r_precision": 3 / 4,  # the rows with rank <= R = 4
    "rbp": 0.2 * (1 + 2 * 0.8 ** 2),
    "err@3": 0.5 / 1 + 0.5 * 0.5 / 3 + 0.25 * 0.5 / 3,
    "num_ret@2": 3.0,
    "num_ret": 5.0,
    "judged@3": 3 / 5,
    "set_map@3": 3 * 3 / (3 * 4),
    "ncrr@3": (1 / 1 + 2 / 3) / (1 + 1 / 2 + 1 / 3 + 1 / 4),
    "mcc@3(n_items=10)": (3 * 6 - 0 * 1) / math.sqrt((3 + 0) * (3 + 1) * (6 + 0) * (6 + 1)),
}


@pytest.mark.parametrize("key", list(WORKED))
def test_worked_example(key):
    got = rv.evaluate(RUN, TRUTH, [key], ranks="position")[key]
    assert got == pytest.approx(WORKED[key], rel=1e-14, abs=0)


def test_worked_example_two_users_one_pass():
    """Every metric at once, beside a user without shared ranks (one kernel pass)."""
    run = pd.concat([RUN, _run([2, 2], [5, 6], [1, 4])])
    truth = pd.concat([TRUTH, _truth([2], [6])])
    res = rv.evaluate(run, truth, list(WORKED), ranks="position")
    for key, want in WORKED.items():
        assert res.per_user[key][1] == pytest.approx(want, rel=1e-14, abs=0), key
    assert res.per_user["mrr@3"][2] == 0.0 and res.per_user["map"][2] == 1 / 4
    assert res.per_user["precision@2(denominator=list)"][2] == 0.0
    assert res.per_user["num_ret"][2] == 4.0  # ranks 1 .. 4, two of them placeholders


def test_graded_gains_read_the_rank():
    """DCG with graded relevance: the rows at rank 2 both take the discount of rank 2."""
    run = _run([1, 1, 1], [1, 2, 3], [2, 2, 1])
    truth = _truth([1, 1, 1], [1, 2, 3], [3, 1, 0])
    res = rv.evaluate(run, truth, ["dcg@2", "ndcg@2", "cg@1"], ranks="position")
    assert res["dcg@2"] == pytest.approx(0 + (3 + 1) / L2(3), rel=1e-14)
    assert res["ndcg@2"] == pytest.approx(((3 + 1) / L2(3)) / (3 + 1 / L2(3)), rel=1e-14)
    assert res["cg@1"] == 0.0


# ---- refusals -------------------------------------------------------------------------------

@pytest.mark.parametrize("key", ["pauc@2", "pap@2", "bpref", "infap", "iprec(recall=0.5)",
                                 "iprec_avg", "percentile_rank(n_items=10)"])
def test_metrics_needing_a_strict_order_refuse_shared_ranks(key):
    with pytest.raises(rv.InputError, match=r"ranks='position': user 1 has 2 rows at rank 1 "
                                            r"\(shared rank\), and "
                                            rf"{key.split('(')[0]}\S* needs a strict order.*"
                                            r"ranks='order'"):
        rv.evaluate(RUN, TRUTH, ["precision@1", "hits@1", key, "precision@1"],
                    ranks="position")


def test_strict_order_metrics_still_read_distinct_ranks():
    """Their refusal is about shared ranks only: distinct ranks with gaps are read (item 2
    above no non-relevant item gains 2, item 3 below the placeholder at rank 2 gains 1)."""
    run = _run([1, 1], [2, 3], [1, 3])
    assert rv.evaluate(run, TRUTH, ["pauc@2"], ranks="position")["pauc@2"] == 3 / (4 * 2)


def test_the_kernel_refuses_per_slot_ranks_for_a_strict_order_request():
    args = _kernel_args(np.array([1, 1], dtype=np.int64), [1.0, 0.0])
    with pytest.raises(ValueError, match="PAUC.*strict order"):
        compute_metrics(*args, **_requests(Request.PAUC),
                        slot_rank=np.array([1, 1], dtype=np.int64))
    with pytest.raises(ValueError, match="slot_rank has 1 entries for 2 slots"):
        compute_metrics(*args, **_requests(Request.PRECISION),
                        slot_rank=np.array([1], dtype=np.int64))
    # two relevant rows read as ranks 1, 1: both in the top 1; as positions 1, 2: one
    both = _kernel_args(np.array([1, 1], dtype=np.int64), [1.0, 1.0])
    out = compute_metrics(*both, **_requests(Request.HITS, k=1),
                          slot_rank=np.array([1, 1], dtype=np.int64))
    assert out.tolist() == [[2.0]]
    assert compute_metrics(*both, **_requests(Request.HITS, k=1)).tolist() == [[1.0]]


def _kernel_args(rank: np.ndarray, rel: list[float]) -> tuple:
    n = len(rel)
    return (np.array([0, n], dtype=np.int64), np.array(rel), np.ones(n, dtype=np.int8),
            np.zeros(0, dtype=np.int64), np.array([int(rank.max())], dtype=np.int64),
            np.array([0, 1], dtype=np.int64), np.array([1.0]))


def _requests(code: int, k: int = 2) -> dict:
    return {"codes": np.array([code], np.int32), "ks": np.array([k], np.int64),
            "thrs": np.array([1.0]), "pars": np.array([0.0]), "opts": np.zeros(1, np.int32),
            "gains": np.zeros(1, np.int32), "ideals": np.zeros(1, np.int32),
            "discounts": np.zeros(1, np.int32), "pars2": np.array([0.0])}


# ---- the layout -----------------------------------------------------------------------------

def _lists(monkeypatch, run, truth, key="precision@3", **policies) -> dict:
    """The block the ranking kernel was given by ``evaluate`` (``"lists"``) and the block it
    was laid out from (``"source"``)."""
    local = importlib.import_module("receval.engines.local")
    seen: dict = {}
    real = local.kernel_lists

    def spy(packed, *args, **kwargs):
        seen["source"] = packed
        seen["lists"] = real(packed, *args, **kwargs)
        return seen["lists"]

    monkeypatch.setattr(local, "kernel_lists", spy)
    rv.evaluate(run, truth, [key], ranks="position", **policies)
    return seen


def test_layout_puts_each_row_in_a_slot_of_its_rank(monkeypatch):
    """Ranks 1, 1, 3, 3 laid out: slots 1, 1, 2 (placeholder), 3, 3."""
    lists = _lists(monkeypatch, RUN, TRUTH)["lists"]
    assert lists.indptr.tolist() == [0, 5]
    assert slot_ranks(lists).tolist() == [1, 1, 2, 3, 3]
    assert lists.rel.tolist() == [0.0, 1.0, 0.0, 1.0, 1.0]
    assert lists.judged.tolist() == [0, 1, 0, 1, 1]
    assert lists.list_len.tolist() == [3]


def test_layout_without_shared_ranks_is_read_as_positions(monkeypatch):
    """No shared rank: slot i is rank i + 1 and the kernel gets no per-slot ranks (the path
    every run without shared ranks has always taken)."""
    run = _run([1, 1, 2], [1, 2, 1], [1, 3, 2])
    lists = _lists(monkeypatch, run, _truth([1, 2], [2, 1]))["lists"]
    assert slot_ranks(lists).size == 0
    assert (-lists.scores).tolist() == [1, 2, 3, 1, 2]


def test_strict_order_none_refuses_every_shared_rank(monkeypatch):
    """The layout's default: a caller that does not read per-slot ranks gets the refusal."""
    source = _lists(monkeypatch, RUN, TRUTH)["source"]
    for call in (lambda: fill_positions(source, 0), lambda: kernel_lists(source)):
        with pytest.raises(rv.InputError, match=r"user 1 has 2 rows at rank 1 \(shared "
                                                r"rank\); the ranking metrics read one item"):
            call()


def test_unretrieved_bottom_follows_the_last_rank(monkeypatch):
    """``unretrieved="bottom"``: the truth items not in the list follow its last rank L at
    L + 1, ... (item 9 at rank 4 here)."""
    lists = _lists(monkeypatch, RUN, TRUTH, "dcg@4", unretrieved="bottom")["lists"]
    assert slot_ranks(lists).tolist() == [1, 1, 2, 3, 3, 4]
    res = rv.evaluate(RUN, TRUTH, ["dcg@4", "dcg@3"], ranks="position",
                      unretrieved="bottom")
    assert res["dcg@4"] == pytest.approx(1 + 2 / L2(4) + 1 / L2(5), rel=1e-14)
    assert res["dcg@3"] == pytest.approx(1 + 2 / L2(4), rel=1e-14)


# ---- oracle from the definition -------------------------------------------------------------

ORACLE_KEYS = [
    "hits@{k}", "precision@{k}", "precision@{k}(denominator=list)",
    "precision@{k}(denominator=min_k_rel)", "recall@{k}", "recall@{k}(denominator=min_k_rel)",
    "fbeta@{k}(beta=2)", "hit_rate@{k}", "hit_rate@{k}(level=recommended)",
    "hit_rate@{k}(level=truth)", "mrr@{k}", "mrr", "first_hit_rank@{k}", "map@{k}", "map",
    "map@{k}(denominator=min_k_rel)", "map@{k}(denominator=hits)", "map@{k}(denominator=k)",
    "mar@{k}", "cg@{k}", "dcg@{k}", "dcg", "ndcg@{k}", "ndcg", "ndcg@{k}(ideal=k)",
    "ndcg@{k}(gain=exp)", "r_precision", "r_precision@{k}", "err@{k}", "rbp", "rbp@{k}",
    "num_ret@{k}", "num_ret", "judged@{k}", "set_map@{k}", "ncrr@{k}", "mcc@{k}(n_items=40)",
]


def _case(rng: np.random.Generator):
    """Up to 5 users, each with 1 to 8 rows at ranks drawn with repeats from 1 .. 6, and a
    graded truth (relevance 0 .. 3) of 1 to 5 items with at least one relevant."""
    run, truth = [], []
    for u in range(int(rng.integers(1, 6))):
        m = int(rng.integers(1, 9))
        items = rng.choice(15, size=m, replace=False)
        ranks = rng.integers(1, 7, size=m)
        run += [(u, int(i), int(r)) for i, r in zip(items, ranks, strict=True)]
        t = rng.choice(15, size=int(rng.integers(1, 6)), replace=False)
        rel = rng.integers(0, 4, size=len(t))
        rel[0] = max(rel[0], 1)
        truth += [(u, int(i), int(g)) for i, g in zip(t, rel, strict=True)]
    return (pd.DataFrame(run, columns=["user", "item", "rank"]),
            pd.DataFrame(truth, columns=["user", "item", "rel"]))


def _oracle(key: str, rows: list[tuple[int, float, bool]], trel: list[float],
            max_rel: float) -> float:
    """One user's value from the definition: ``rows`` (rank, relevance, judged), ``trel``
    the truth relevances."""
    name, _, rest = key.partition("@")
    k = int(rest.split("(")[0]) if rest else None
    if "(" in key and name == key.split("(")[0]:
        name = key.split("(")[0]
    opt = key[key.index("(") + 1:-1] if "(" in key else ""
    big_l = max(r for r, _, _ in rows)
    big_r = sum(1 for g in trel if g >= 1)
    kk = k if k is not None else big_l
    if name == "r_precision":
        kk = big_r if k is None else min(k, big_r)
    top = sorted((r, g, j) for r, g, j in rows if r <= kk)
    held = {r for r, _, _ in top}
    n = len(top) + sum(1 for r in range(1, min(kk, big_l) + 1) if r not in held)
    hit_ranks = [r for r, g, _ in top if g >= 1]
    h = len(hit_ranks)

    def gain(g: float) -> float:
        return (2.0 ** g - 1 if opt == "gain=exp" else g) if g > 0 else 0.0

    if name == "hits":
        return h
    if name == "precision":
        return h / {"": kk, "denominator=list": n, "denominator=min_k_rel": min(kk, big_r)}[opt]
    if name == "recall":
        return h / (min(kk, big_r) if opt else big_r)
    if name == "fbeta":
        return 5 * h / (4 * big_r + kk)
    if name == "hit_rate":
        return {"": float(h > 0), "level=recommended": h / n if n else 0.0,
                "level=truth": h / big_r}[opt]
    if name == "mrr":
        return 1 / min(hit_ranks) if hit_ranks else 0.0
    if name == "first_hit_rank":
        return float(min(hit_ranks)) if hit_ranks else math.nan
    if name == "map":
        acc = sum(sum(1 for x in hit_ranks if x <= r) / r for r in sorted(set(hit_ranks)))
        den = {"": big_r, "denominator=min_k_rel": min(kk, big_r), "denominator=hits": h,
               "denominator=k": kk}[opt]
        return acc / den if den else 0.0
    if name == "mar":
        return sum(kk - r + 1 for r in hit_ranks) / (big_r * kk)
    if name in ("cg", "dcg", "ndcg"):
        dcg = sum(gain(g) / (1.0 if name == "cg" else math.log2(r + 1)) for r, g, _ in top)
        if name != "ndcg":
            return dcg
        ideal = sorted(trel, reverse=True)
        if opt == "ideal=k":
            ideal = [ideal[0]] * kk
        m = kk if k is not None else len(ideal)
        idcg = sum(gain(g) / math.log2(i + 2) for i, g in enumerate(ideal[:m]))
        return dcg / idcg if idcg > 0 else 0.0
    if name == "r_precision":
        return h / kk
    if name == "err":
        acc, p = 0.0, 1.0
        for r, g, _ in top:
            x = (2.0 ** g - 1) / 2.0 ** max_rel if g > 0 else 0.0
            acc += p * x / r
            p *= 1 - x
        return acc
    if name == "rbp":
        return 0.2 * sum(0.8 ** (r - 1) for r in hit_ranks)
    if name == "num_ret":
        return n
    if name == "judged":
        return sum(1 for _, _, j in top if j) / n if n else 0.0
    if name == "set_map":
        return h * h / (kk * big_r)
    if name == "ncrr":
        den = sum(1 / (i + 1) for i in range(min(n, big_r)))
        return sum(1 / r for r in hit_ranks) / den if den else 0.0
    if name == "mcc":
        tp, fp, fn = h, kk - h, big_r - h
        tn = 40 - kk - fn
        den = math.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
        return (tp * tn - fp * fn) / den if den > 0 else 0.0
    raise AssertionError(key)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 7))
def test_every_metric_against_the_definition(seed, k):
    run, truth = _case(np.random.default_rng(seed))
    keys = list(dict.fromkeys(t.format(k=k) for t in ORACLE_KEYS))
    res = rv.evaluate(run, truth, keys, ranks="position")
    max_rel = float(truth["rel"].max())
    for u, rows in run.groupby("user"):
        t = truth[truth.user == u]
        rel = dict(zip(t.item, t.rel, strict=True))
        user_rows = [(int(r), float(rel.get(i, 0)), i in rel)
                     for i, r in zip(rows.item, rows["rank"], strict=True)]
        for key in keys:
            want = _oracle(key, user_rows, list(t.rel.astype(float)), max_rel)
            got = res.per_user[key][u]
            if math.isnan(want):
                assert math.isnan(got), (key, u)
            else:
                assert got == pytest.approx(want, rel=1e-12, abs=1e-15), (key, u, user_rows)


# ---- blocks, packing routes, policies -------------------------------------------------------

SOME = ["precision@3", "ndcg@4", "map@5", "mrr", "num_ret@3", "hit_rate@2(level=recommended)",
        "coverage@3(kind=count)", "sufficient_reco@2(deep=true)"]


@pytest.mark.parametrize("block", [1, 4, 25])
def test_blocks_of_users_change_no_bit(monkeypatch, block):
    evaluator = importlib.import_module("receval.engines.evaluator")
    rng = np.random.default_rng(block)
    parts = [_case(rng) for _ in range(12)]
    run = pd.concat([r.assign(user=r.user + 10 * j) for j, (r, _) in enumerate(parts)])
    truth = pd.concat([t.assign(user=t.user + 10 * j) for j, (_, t) in enumerate(parts)])
    keys = SOME[:6]
    whole = rv.evaluate(run, truth, keys, ranks="position", users="union")
    monkeypatch.setattr(evaluator, "BLOCK_POSITIONS", block)
    blocks = rv.evaluate(run, truth, keys, ranks="position", users="union")
    assert blocks.provenance["blocks"] > 1
    pd.testing.assert_frame_equal(whole.per_user, blocks.per_user, check_exact=True)


@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1))
def test_raw_string_ids_and_integer_ids_give_the_same_bits(seed):
    """The raw-id join and the factorized route lay out the same slots."""
    run, truth = _case(np.random.default_rng(seed))
    a = rv.evaluate(run, truth, SOME, ranks="position", train=truth)
    run_s = run.assign(item=run.item.map(lambda i: f"i{i}"))
    truth_s = truth.assign(item=truth.item.map(lambda i: f"i{i}"))
    b = rv.evaluate(run_s, truth_s, SOME, ranks="position", train=truth_s)
    pd.testing.assert_frame_equal(a.per_user, b.per_user, check_exact=True)


def test_ties_average_leaves_shared_ranks_as_they_are():
    """Shared ranks are not ties: each row holds its rank, so ``ties="average"`` (which only
    reorders rows of equal score) changes no value."""
    keys = ["precision@1", "ndcg@3", "map@3", "mrr@3", "hit_rate@1"]
    a = rv.evaluate(RUN, TRUTH, keys, ranks="position", ties="average")
    b = rv.evaluate(RUN, TRUTH, keys, ranks="position")
    pd.testing.assert_frame_equal(a.per_user, b.per_user, check_exact=True)


def test_unretrieved_bottom_averaged_with_shared_ranks_is_refused():
    with pytest.raises(rv.PolicyError, match=r"sharing a rank.*ties='average'.*ties='id'"):
        rv.evaluate(RUN, TRUTH, ["ndcg@4"], ranks="position", unretrieved="bottom",
                    ties="average")
    run = _run([1, 1, 1], [1, 2, 3], [1, 2, 4])  # distinct ranks: read as before
    assert rv.evaluate(run, TRUTH, ["ndcg@4"], ranks="position", unretrieved="bottom",
                       ties="average")["ndcg@4"] > 0


# ---- runs without shared ranks: the path as before ------------------------------------------

@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 7))
def test_distinct_ranks_read_as_positions_bit_for_bit(seed, k):
    """Distinct ranks give the kernel no per-slot ranks (:func:`slot_ranks` is empty), so their
    values are those of the positions path, bit for bit: the same run with filler items at the
    missing ranks under ``ranks="order"``; and the per-slot path, given ranks 1..n, agrees
    with it."""
    run, truth = _case(np.random.default_rng(seed))
    run = run.sort_values(["user", "rank"]).drop_duplicates(["user", "rank"])
    keys = list(dict.fromkeys(t.format(k=k) for t in ORACLE_KEYS))
    a = rv.evaluate(run, truth, keys, ranks="position")
    filler = [(u, 1000 + r, r) for u, g in run.groupby("user")
              for r in range(1, int(g["rank"].max()) + 1) if r not in set(g["rank"])]
    full = pd.concat([run, pd.DataFrame(filler, columns=["user", "item", "rank"])])
    b = rv.evaluate(full, truth, keys)
    pd.testing.assert_frame_equal(a.per_user, b.per_user, check_exact=True)


# ---- RecTools itself ------------------------------------------------------------------------

@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 6))
def test_rectools_itself_on_shared_ranks(seed, k):
    pytest.importorskip("rectools")
    from rectools import Columns
    from rectools.metrics import MAP, MCC, MRR, NDCG, F1Beta, HitRate, Precision, Recall

    run, truth = _case(np.random.default_rng(seed))
    truth = truth[truth.rel >= 1][["user", "item"]]
    reco = run.rename(columns={"user": Columns.User, "item": Columns.Item,
                               "rank": Columns.Rank})
    inter = truth.rename(columns={"user": Columns.User, "item": Columns.Item})
    theirs = {
        f"precision@{k}": Precision(k), f"precision@{k}(r_precision=True)":
            Precision(k, r_precision=True),
        f"recall@{k}": Recall(k), f"ndcg@{k}": NDCG(k),
        f"ndcg@{k}(divide_by_achievable=True)": NDCG(k, divide_by_achievable=True),
        f"map@{k}": MAP(k), f"map@{k}(divide_by_k=True)": MAP(k, divide_by_k=True),
        f"mrr@{k}": MRR(k), f"hitrate@{k}": HitRate(k), f"f1beta@{k}": F1Beta(k),
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = rv.evaluate(run, truth, list(theirs), compat="rectools")
        keys = rv.compat.resolve("rectools", list(theirs))[2]
        mcc_name = f"mcc@{k}(n_items=15)"
        mcc = rv.evaluate(run, truth, [mcc_name], compat="rectools")
        for name, m in theirs.items():
            want = m.calc_per_user(reco, inter)
            got = res.per_user[keys[name]].reindex(want.index)
            np.testing.assert_allclose(got.to_numpy(), want.to_numpy(), rtol=1e-12,
                                       atol=1e-15, err_msg=name)
        want = MCC(k).calc_per_user(reco, inter, catalog=np.arange(15))
        got = mcc.per_user[rv.compat.resolve("rectools", [mcc_name])[2][mcc_name]]
        np.testing.assert_allclose(got.reindex(want.index).to_numpy(), want.to_numpy(),
                                   rtol=1e-12, atol=1e-15, err_msg="mcc")
