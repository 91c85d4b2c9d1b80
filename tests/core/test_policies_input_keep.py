"""``ties="input"``, ``duplicates="keep"`` / ``"count"`` and ``nan_rel``: worked examples with
exact values, the plain-Python oracle (written from the policy table), and properties that
follow from the definitions (only the input order of tied rows matters; a later occurrence
under ``"keep"`` is an item without a truth row; ``nan_rel`` is a fill or a drop of the rows).
"""

from __future__ import annotations

import math
import zlib

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracle import ID_KINDS, evaluate, random_case, to_frame
from peer_modules import recmetrics_metrics
from test_oracle import ALL, AVERAGE, check

import receval as rv

pytestmark = pytest.mark.filterwarnings("ignore::receval.errors.RelevanceThresholdWarning")

L2 = math.log2
KEYS = ["mrr", "precision@3", "recall@4", "map", "ndcg@4", "hits@4", "bpref", "num_ret"]


def _run(rows):
    return pd.DataFrame(rows, columns=["user", "item", "score"])


def _truth(rows):
    return pd.DataFrame(rows, columns=["user", "item", "relevance"])


def _same(a, b):
    pd.testing.assert_frame_equal(a.per_user, b.per_user, check_exact=True)
    assert a.summary == b.summary or all(
        (math.isnan(a.summary[k]) and math.isnan(b.summary[k])) or a.summary[k] == b.summary[k]
        for k in a.summary)


# ---- ties="input": worked examples --------------------------------------------------------------

def test_ties_input_worked_example():
    # input order z, y, x (ids descending), all tied below w; y is the only relevant item
    run = _run([("u", "z", 1.0), ("w", "w", 9.0), ("u", "w", 2.0), ("u", "y", 1.0),
                ("u", "x", 1.0)])
    truth = _truth([("u", "y", 1), ("w", "w", 1)])
    by_id = rv.evaluate(run, truth, ["mrr", "ndcg@3"], ties="id")
    by_row = rv.evaluate(run, truth, ["mrr", "ndcg@3"], ties="input")
    # ids: w, x, y, z -> y at rank 3; input: w, z, y, x -> y at rank 3 as well
    assert by_id.user_values("mrr")[0] == 1 / 3 and by_row.user_values("mrr")[0] == 1 / 3
    run2 = _run([("u", "z", 1.0), ("u", "w", 2.0), ("u", "y", 1.0), ("u", "x", 1.0)])
    run2 = run2.iloc[[1, 2, 0, 3]]  # input: w, y, z, x -> y at rank 2
    got = rv.evaluate(run2, truth[truth.user == "u"], ["mrr", "ndcg@3"], ties="input")
    assert got["mrr"] == 1 / 2
    assert got["ndcg@3"] == pytest.approx(1 / L2(3), rel=1e-15)
    assert rv.evaluate(run2, truth[truth.user == "u"], ["mrr"], ties="id")["mrr"] == 1 / 3


def test_ties_input_rank_run_is_ordered_by_rank():
    # distinct ranks: the input order of the rows does not matter
    ranks = pd.DataFrame({"user": [1, 1, 1], "item": [30, 10, 20], "rank": [3, 1, 2]})
    truth = _truth([(1, 20, 1)])
    for order in ([0, 1, 2], [2, 1, 0], [1, 0, 2]):
        res = rv.evaluate(ranks.iloc[order], truth, ["mrr"], ties="input")
        assert res["mrr"] == 1 / 2
    # tied ranks: in input order
    tied = pd.DataFrame({"user": [1, 1, 1], "item": [30, 20, 10], "rank": [1, 1, 1]})
    assert rv.evaluate(tied, truth, ["mrr"], ties="input")["mrr"] == 1 / 2
    assert rv.evaluate(tied, truth, ["mrr"], ties="id")["mrr"] == 1 / 2
    assert rv.evaluate(tied.iloc[::-1], truth, ["mrr"], ties="input")["mrr"] == 1 / 2
    assert rv.evaluate(tied.iloc[[1, 0, 2]], truth, ["mrr"], ties="input")["mrr"] == 1


def test_ties_input_dict_run_keeps_insertion_order():
    run = {"q": {"d3": 0.5, "d1": 0.5, "d2": 0.5}}
    truth = {"q": {"d1": 1}}
    assert rv.evaluate(run, truth, ["mrr"], ties="input")["mrr"] == 1 / 2
    assert rv.evaluate(run, truth, ["mrr"], ties="id")["mrr"] == 1


# ---- ties="input": oracle and properties --------------------------------------------------------

@pytest.mark.parametrize("id_kind", ID_KINDS)
def test_ties_input_matches_oracle(id_kind):
    rng = np.random.default_rng(zlib.crc32(f"input-{id_kind}".encode()))
    for _ in range(4):
        run, truth = random_case(rng, tie_levels=2, id_kind=id_kind)
        rng.shuffle(run)
        check(run, truth, ALL, ties="input")
        check(run, truth, ALL, ties="input", duplicates="first", nan_scores="last")


def _regroup(frame: pd.DataFrame, perm: np.ndarray) -> pd.DataFrame:
    """``frame`` shuffled by ``perm``, then the rows of each (user, score) group put back in
    their original relative order (into the places the group occupies after the shuffle)."""
    shuffled = frame.iloc[perm].reset_index(drop=True)
    out = shuffled.copy()
    key = list(zip(shuffled["user"], shuffled["score"], strict=True))
    places: dict = {}
    for pos, k in enumerate(key):
        places.setdefault(k, []).append(pos)
    for k, pos in places.items():
        orig = frame[(frame["user"] == k[0]) & (frame["score"] == k[1])]
        out.iloc[pos] = orig.to_numpy()
    return out.astype(frame.dtypes.to_dict())


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1), ints=st.booleans())
def test_ties_input_depends_only_on_the_order_of_tied_rows(seed, ints):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 60))
    run = pd.DataFrame({"user": rng.integers(0, 5, n), "item": rng.integers(0, 25, n),
                        "score": rng.integers(0, 4, n).astype(float)})
    run = run.drop_duplicates(["user", "item"]).reset_index(drop=True)
    if not ints:
        run["item"] = run["item"].map(lambda i: f"i{i:02d}").astype(object)
    truth = pd.DataFrame({"user": rng.integers(0, 6, 40), "item": rng.integers(0, 25, 40),
                          "relevance": rng.integers(0, 3, 40).astype(float)})
    truth = truth.drop_duplicates(["user", "item"])
    if not ints:
        truth["item"] = truth["item"].map(lambda i: f"i{i:02d}").astype(object)
    base = rv.evaluate(run, truth, KEYS, ties="input")
    # rows moved anywhere, tied rows of one user kept in their relative order: no change
    moved = _regroup(run, rng.permutation(len(run)))
    _same(base, rv.evaluate(moved, truth, KEYS, ties="input"))
    # tied rows in id order: ties="input" is ties="id"
    by_id = _regroup(run.sort_values("item", kind="stable").reset_index(drop=True),
                     rng.permutation(len(run)))
    _same(rv.evaluate(by_id, truth, KEYS, ties="input"), rv.evaluate(run, truth, KEYS, ties="id"))
    # without tied scores within a user, ties="input" is ties="id" whatever the order
    distinct = run.assign(score=run["score"] + rng.permutation(len(run)) / (2 * len(run)))
    _same(rv.evaluate(distinct, truth, KEYS, ties="input"),
          rv.evaluate(distinct.iloc[::-1], truth, KEYS, ties="id"))


def test_ties_input_in_blocks_is_the_whole_run():
    rng = np.random.default_rng(11)
    n = 400
    run = pd.DataFrame({"user": np.sort(rng.integers(0, 40, n)), "item": rng.integers(0, 30, n),
                        "score": rng.integers(0, 2, n).astype(float)})
    truth = pd.DataFrame({"user": rng.integers(0, 40, 200), "item": rng.integers(0, 30, 200),
                          "relevance": 1.0}).drop_duplicates(["user", "item"])
    kw = {"ties": "input", "duplicates": "keep"}
    whole = rv.evaluate(run, truth, KEYS, **kw)
    cuts = np.flatnonzero(np.diff(run["user"].to_numpy())) + 1
    bounds = [0, *cuts[::7].tolist(), n]
    blocks = [run.iloc[a:b] for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
    parts = rv.Evaluator(truth, KEYS, **kw).evaluate_blocks(blocks)
    pd.testing.assert_frame_equal(whole.per_user, parts.per_user, check_exact=True)


# ---- duplicates="keep" / "count" ----------------------------------------------------------------

DUP_RUN = [(1, "a", 4.0), (1, "b", 3.0), (1, "a", 2.0), (1, "c", 1.0)]
DUP_TRUTH = [(1, "a", 1), (1, "c", 1)]


def test_duplicates_keep_worked_example():
    # list a, b, a, c: the second a is no hit (recmetrics' p not in predicted[:i])
    res = rv.evaluate(_run(DUP_RUN), _truth(DUP_TRUTH),
                      ["precision@4", "recall@4", "map", "hits@4", "ndcg@4", "num_ret",
                       "precision@4(denominator=list)", "mrr"], duplicates="keep")
    assert res["precision@4"] == 2 / 4
    assert res["precision@4(denominator=list)"] == 2 / 4
    assert res["recall@4"] == 1.0
    assert res["hits@4"] == 2
    assert res["num_ret"] == 4  # repeats fill the list
    assert res["map"] == (1 / 1 + 2 / 4) / 2
    assert res["mrr"] == 1.0
    assert res["ndcg@4"] == pytest.approx((1 + 1 / L2(5)) / (1 + 1 / L2(3)), rel=1e-15)
    assert res.counts["duplicates_removed"] == 0


def test_duplicates_count_worked_example():
    # every occurrence counts, as LensKit's recs.isin(test): recall can exceed 1
    res = rv.evaluate(_run(DUP_RUN), _truth(DUP_TRUTH),
                      ["precision@4", "recall@4", "map", "hits@4", "ndcg@4"],
                      duplicates="count")
    assert res["precision@4"] == 3 / 4
    assert res["recall@4"] == 3 / 2
    assert res["hits@4"] == 3
    assert res["map"] == (1 + 2 / 3 + 3 / 4) / 2
    assert res["ndcg@4"] == pytest.approx((1 + 1 / L2(4) + 1 / L2(5)) / (1 + 1 / L2(3)),
                                          rel=1e-15)


def test_duplicates_keep_later_occurrence_is_unjudged():
    # b a a: the second a is an item without a truth row: bpref and unjudged="remove" see that
    run = _run([(1, "b", 3.0), (1, "a", 2.0), (1, "a", 1.0), (1, "c", 0.5)])
    truth = _truth([(1, "a", 0), (1, "c", 1), (1, "b", 0)])
    keep = rv.evaluate(run, truth, ["bpref", "precision@3", "judged@4"], duplicates="keep")
    assert keep["bpref"] == 1 - 2 / 2  # b and a (once) judged non-relevant above c
    assert keep["judged@4"] == 3 / 4
    removed = rv.evaluate(run, truth, ["precision@3", "num_ret"], duplicates="keep",
                          unjudged="remove")
    assert removed["num_ret"] == 3 and removed["precision@3"] == 1 / 3


@pytest.mark.parametrize("duplicates", ["keep", "count"])
@pytest.mark.parametrize("ties", ["id", "input", "trec_eval"])
def test_duplicates_keep_count_match_oracle(duplicates, ties):
    rng = np.random.default_rng(zlib.crc32(f"{duplicates}-{ties}".encode()))
    for _ in range(5):
        run, truth = random_case(rng, tie_levels=3)
        run = run + [(u, i, s + float(rng.integers(-1, 2))) for u, i, s in run[::3]]
        rng.shuffle(run)
        check(run, truth, ALL, duplicates=duplicates, ties=ties)
        check(run, truth, ALL, duplicates=duplicates, ties=ties, unjudged="remove",
              nan_scores="last")


def test_duplicates_count_under_average_matches_oracle():
    rng = np.random.default_rng(zlib.crc32(b"avg-count"))
    for _ in range(4):
        run, truth = random_case(rng, tie_levels=3, max_list=5)
        run = run + [(u, i, s) for u, i, s in run[::3]]  # repeats tied with their first row
        check(run, truth, AVERAGE, duplicates="count", ties="average")


def test_duplicates_keep_under_average_is_refused():
    # two copies of d tied with x: in every order the first copy takes the first of the
    # copies' places, so the group's places are not interchangeable
    with pytest.raises(rv.PolicyError, match="duplicates='keep'"):
        rv.evaluate(_run(DUP_RUN), _truth(DUP_TRUTH), ["map"], ties="average",
                    duplicates="keep")
    run = [("u", "d", 1.0), ("u", "x", 1.0), ("u", "d", 1.0)]
    exp, _ = evaluate(run, [("u", "d", 1.0)], ["cg@2"], duplicates="keep", ties="average")
    assert exp["u"]["cg@2"] == 1.0  # d always within the top 2, not 2/3 of a share


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1))
def test_keep_is_a_fresh_unjudged_item_in_place(seed):
    # the definition: a later occurrence scores as an item without a truth row at its position
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 40))
    run = pd.DataFrame({"user": rng.integers(0, 4, n), "item": rng.integers(0, 8, n),
                        "score": rng.integers(0, 3, n).astype(float)})
    truth = pd.DataFrame({"user": rng.integers(0, 4, 20), "item": rng.integers(0, 8, 20),
                          "relevance": rng.integers(0, 3, 20).astype(float)})
    truth = truth.drop_duplicates(["user", "item"])
    order = run.assign(row=np.arange(n)).sort_values(["user", "score", "row"],
                                                     ascending=[True, False, True])
    later = order.duplicated(["user", "item"]).reindex(run.index)
    fresh = run.copy()
    fresh.loc[later, "item"] = 1000 + np.flatnonzero(later.to_numpy())
    keys = KEYS + ["judged@3", "precision@3(denominator=list)"]
    _same(rv.evaluate(run, truth, keys, ties="input", duplicates="keep"),
          rv.evaluate(fresh, truth, keys, ties="input"))


@pytest.mark.parametrize("duplicates", ["keep", "count"])
def test_repeated_truth_rows_are_refused_under_keep_and_count(duplicates):
    truth = _truth([(1, "a", 1), (1, "a", 2)])
    with pytest.raises(rv.InputError, match=f"duplicates='{duplicates}'.*truth pair"):
        rv.evaluate(_run(DUP_RUN), truth, ["ndcg"], duplicates=duplicates)


def test_run_duplicates_error_names_keep_and_count():
    with pytest.raises(rv.InputError, match="duplicates='keep'.*duplicates='count'"):
        rv.evaluate(_run(DUP_RUN), _truth(DUP_TRUTH), ["ndcg"])


def test_recmetrics_ark_with_repeated_predictions():
    rm = recmetrics_metrics()
    rng = np.random.default_rng(17)
    actual, predicted = [], []
    for _ in range(30):
        actual.append([f"i{j}" for j in rng.choice(12, int(rng.integers(1, 5)), replace=False)])
        predicted.append([f"i{j}" for j in rng.integers(0, 12, int(rng.integers(1, 10)))])
    run = _run([(u, i, -float(r)) for u, p in enumerate(predicted) for r, i in enumerate(p)])
    truth = _truth([(u, i, 1) for u, a in enumerate(actual) for i in a])
    assert run.duplicated(["user", "item"]).any()
    for k in (3, 5, 10):
        res = rv.evaluate(run, truth, [f"mark@{k}"], compat="recmetrics")
        assert res[f"mark@{k}"] == pytest.approx(rm.mark(actual, predicted, k=k), rel=1e-12)


# ---- nan_rel -------------------------------------------------------------------------------------

def test_nan_rel_worked_example():
    run = _run([(1, "a", 3.0), (1, "b", 2.0), (1, "c", 1.0)])
    truth = _truth([(1, "a", math.nan), (1, "c", 2.0)])
    zero = rv.evaluate(run, truth, ["bpref", "ndcg@3", "precision@3", "judged@3"],
                       nan_rel="zero")
    drop = rv.evaluate(run, truth, ["bpref", "ndcg@3", "precision@3", "judged@3"],
                       nan_rel="drop")
    assert zero["ndcg@3"] == drop["ndcg@3"] == 2 / L2(4) / 2  # gain 0 either way
    assert zero["precision@3"] == drop["precision@3"] == 1 / 3
    assert zero["bpref"] == 0.0  # a: judged non-relevant above c
    assert drop["bpref"] == 1.0  # a: unjudged
    assert zero["judged@3"] == 2 / 3 and drop["judged@3"] == 1 / 3


def test_nan_rel_error_names_the_column_and_the_fix():
    truth = _truth([(1, "a", 1.0), (1, "b", math.nan)]).rename(columns={"relevance": "rating"})
    with pytest.raises(rv.InputError, match="'rating'.*1 NaN.*row 1.*nan_rel='zero'"):
        rv.evaluate(_run([(1, "a", 1.0)]), truth, ["ndcg"])
    with pytest.raises(rv.InputError, match="infinite"):
        rv.evaluate(_run([(1, "a", 1.0)]), truth.assign(rating=[1.0, math.inf]), ["ndcg"],
                    nan_rel="zero")


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1))
def test_nan_rel_is_a_fill_or_a_drop(seed):
    rng = np.random.default_rng(seed)
    run, truth = random_case(rng, tie_levels=3)
    truth = [(u, i, math.nan if rng.random() < 0.3 else r) for u, i, r in truth]
    run_f, truth_f = to_frame(run, "score"), to_frame(truth, "relevance")
    nan = truth_f["relevance"].isna()
    _same(rv.evaluate(run_f, truth_f, KEYS, nan_rel="zero"),
          rv.evaluate(run_f, truth_f.fillna({"relevance": 0.0}), KEYS))
    if (~nan).any():
        # a user whose truth rows all go stays a truth user without a relevant item (skipped)
        dropped = rv.evaluate(run_f, truth_f, KEYS, nan_rel="drop")
        fewer = rv.evaluate(run_f, truth_f[~nan], KEYS)
        gone = set(truth_f["user"]) - set(truth_f["user"][~nan])
        assert set(dropped.user_ids) == set(fewer.user_ids) | gone
        keep = ~dropped.per_user.index.isin(list(gone))
        pd.testing.assert_frame_equal(dropped.per_user[keep], fewer.per_user, check_exact=True)
        assert np.isnan(dropped.per_user[~keep].to_numpy()).all()
        for key in KEYS:
            a, b = dropped.summary[key], fewer.summary[key]
            assert (math.isnan(a) and math.isnan(b)) or a == b, key
    for policy in ("zero", "drop"):
        exp_users, _ = evaluate(run, truth, ["ndcg@3", "bpref", "map"], nan_rel=policy)
        res = rv.evaluate(run_f, truth_f, ["ndcg@3", "bpref", "map"], nan_rel=policy)
        assert sorted(map(str, res.user_ids)) == sorted(map(str, exp_users))
        for key in ("ndcg@3", "bpref", "map"):
            for u, got in zip(res.user_ids, res.user_values(key), strict=True):
                exp = exp_users[u][key]
                assert (math.isnan(got) and math.isnan(exp)) or got == pytest.approx(exp), \
                    (policy, key, u)


def test_nan_rel_on_a_sparse_truth():
    sp = pytest.importorskip("scipy.sparse")
    top = np.array([[0, 1, 2]])
    truth = sp.csr_matrix(np.array([[math.nan, 0.0, 1.0]]))
    truth.eliminate_zeros()  # explicit entries: the NaN and the 1
    with pytest.raises(rv.InputError):
        rv.evaluate(top, truth, ["bpref"])
    assert rv.evaluate(top, truth, ["bpref"], nan_rel="zero")["bpref"] == 0.0
    assert rv.evaluate(top, truth, ["bpref"], nan_rel="drop")["bpref"] == 1.0


# ---- every new choice is a policy that rv.diff can attribute ----------------------------------

@pytest.mark.parametrize(("policy", "a", "b"), [("ties", "id", "input"),
                                                 ("duplicates", "keep", "count"),
                                                 ("nan_rel", "zero", "drop")])
def test_diff_attributes_the_new_policies(policy, a, b):
    run = _run([(1, "z", 1.0), (1, "a", 1.0), (1, "a", 0.5), (1, "y", 0.2)])
    truth = _truth([(1, "a", 1.0), (1, "y", math.nan), (1, "w", 1.0)])
    base = {"duplicates": "keep", "nan_rel": "zero"}
    d = rv.diff(run, truth, ["judged@4" if policy == "nan_rel" else "map"],
                {**base, policy: a}, {**base, policy: b})
    m = d.metrics[0]
    assert m.factors == [policy]
    assert m.difference != 0
    assert m.shapley[policy] == pytest.approx(m.difference, abs=1e-15)
    assert policy.replace("_", " ") in d.to_text() or policy in d.to_text()
