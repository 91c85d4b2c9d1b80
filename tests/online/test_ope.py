"""Off-policy estimators: worked examples, properties, oracles, clustered CIs."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from receval.errors import InputError, PolicyError, RecevalWarning
from receval.online import (
    compare_policies,
    estimate,
    overlap,
    policy_from_run,
    policy_from_table,
    read_log,
)


def _single(p, r, items, users=None):
    n = len(p)
    users = list(range(n)) if users is None else users
    return read_log(pd.DataFrame({"user": users, "item": items, "p": p, "r": r}), unit="user",
                    slate=None, position=None, item="item", reward="r", propensity="p")


def _table(probs, items=(0, 1)):
    rows = [(u, a, pr) for u, row in enumerate(probs) for a, pr in zip(items, row, strict=True)]
    return pd.DataFrame(rows, columns=["user", "item", "prob"])


EX_C = dict(a=[0, 1, 0, 1], p=[0.5, 0.25, 0.5, 0.2], r=[1, 1, 0, 1],
            pe=[(1, 0), (1, 0), (0.5, 0.5), (0.2, 0.8)],
            q=[(0.6, 0.2), (0.5, 0.5), (0.4, 0.3), (0.1, 0.9)])


def _ex_c(estimators):
    log = _single(EX_C["p"], EX_C["r"], EX_C["a"])
    q = _table(EX_C["q"]).rename(columns={"prob": "q"})
    res = estimate(log, policy_from_table(_table(EX_C["pe"])), estimators=estimators, q_hat=q)
    return res


def test_single_example_vw():
    log = _single([0.3], [1.0], ["x"])
    pol = policy_from_table(pd.DataFrame({"user": [0, 0], "item": ["x", "y"], "prob": [0.6, 0.4]}))
    with pytest.warns(RecevalWarning, match="1 unit"):
        res = estimate(log, pol, estimators=["ips", "snips"])
    assert res["ips"] == pytest.approx(2.0, abs=1e-15)
    assert res["snips"] == pytest.approx(1.0, abs=1e-15)
    assert math.isnan(res.row("ips")["se"])


def test_four_round_example_all_estimators():
    res = _ex_c(["ips", "snips", "cips(cap=3)", "ncips(cap=3)", "dm", "dr", "sndr"])
    want = {"ips": 1.5, "snips": 6 / 7, "cips(cap=3)": 1.25, "ncips(cap=3)": 5 / 6,
            "dm": 0.5475, "dr": 0.7475, "sndr": 0.661785714}
    for k, v in want.items():
        assert res[k] == pytest.approx(v, abs=1e-9), k


def test_switch_dr_limits_and_dr_with_zero_model():
    res = _ex_c(["dm", "dr", "switch_dr(tau=0)", "switch_dr(tau=inf)", "switch_dr(tau=1e10)"])
    assert res["switch_dr(tau=0)"] == pytest.approx(res["dm"], abs=1e-15)
    assert res["switch_dr(tau=inf)"] == pytest.approx(res["dr"], abs=1e-15)
    assert res["switch_dr(tau=1e+10)"] == pytest.approx(res["dr"], abs=1e-15)
    log = _single(EX_C["p"], EX_C["r"], EX_C["a"])
    zero = _table([(0, 0)] * 4).rename(columns={"prob": "q"})
    z = estimate(log, policy_from_table(_table(EX_C["pe"])), estimators=["ips", "dr"], q_hat=zero)
    assert z["dr"] == pytest.approx(z["ips"], abs=1e-15)


def test_pi_single_slot_equals_ips():
    p_log, p_pred, r = [0.8, 0.25, 0.5, 0.2], [0.6, 0.4, 0.3, 0.9], [0.1, 0.2, 0, 1.0]
    log = _single(p_log, r, [0] * 4)
    pol = policy_from_table(pd.DataFrame({"user": range(4), "item": [0] * 4, "prob": p_pred}))
    res = estimate(log, pol, estimators=["ips", "pi", "sips", "rips", "iips"])
    for k in ("ips", "pi", "sips", "rips", "iips"):
        assert res[k] == pytest.approx(1.22375, abs=1e-12), k


class _Fixed:
    """A stand-in target policy with given per-row probabilities (for the slate examples)."""

    kind = "fixed"

    def __init__(self, marginal, prefix):
        self._m, self._p = np.asarray(marginal, float), np.asarray(prefix, float)

    def marginal(self, log):
        return self._m

    def prefix(self, log):
        return self._p


def _slate_log(rewards, pb_prefix, pb_marg):
    rows = []
    for s, (rr, pp, pm) in enumerate(zip(rewards, pb_prefix, pb_marg, strict=True)):
        for l_, (r, a, b) in enumerate(zip(rr, pp, pm, strict=True)):
            rows.append({"user_id": s, "slate_id": s, "position": l_ + 1, "item_id": 10 * s + l_,
                         "reward": r, "pp": a, "pm": b})
    return read_log(pd.DataFrame(rows), propensity={"prefix": "pp", "marginal": "pm"})


def test_slate_example_sips_iips_rips():
    log = _slate_log([[1, 0], [0, 1]], [[.5, .2], [.25, .1]], [[.5, .4], [.25, .5]])
    tgt = _Fixed([.6, .5, .5, .2], [.6, .3, .5, .05])
    res = estimate(log, tgt, estimators=["sips", "iips", "rips"])
    assert res["sips"] == pytest.approx(1.0, abs=1e-12)
    assert res["iips"] == pytest.approx(0.8, abs=1e-12)
    assert res["rips"] == pytest.approx(0.85, abs=1e-12)


def test_cascade_dr_with_zero_model_equals_rips():
    df = pd.DataFrame({"user_id": [0, 0, 1, 1], "slate_id": [0, 0, 1, 1], "position": [1, 2] * 2,
                       "item_id": [1, 2, 3, 4], "reward": [1, 0, 0, 1], "pp": [.5, .2, .25, .1],
                       "q": [0.0] * 4, "qt": [0.0] * 4})
    log = read_log(df, propensity={"prefix": "pp"}, extra=("q", "qt"))
    tgt = _Fixed([.6, .5, .5, .2], [.6, .3, .5, .05])
    res = estimate(log, tgt, estimators=["rips", "cascade_dr"], q_hat="q", q_hat_target="qt")
    assert res["cascade_dr"] == pytest.approx(res["rips"], abs=1e-15)


def test_pi_product_logging_example():
    df = pd.DataFrame({"user_id": [0, 0, 1, 1], "slate_id": [0, 0, 1, 1], "position": [1, 2] * 2,
                       "item_id": [1, 2, 3, 4], "reward": [1, 0, 2, 0], "pm": [.5, .5, .25, .5]})
    log = read_log(df, propensity="pm")
    res = estimate(log, _Fixed([1, 0, .5, 1], [1, 0, .5, .5]), estimators=["pi"])
    assert res["pi"] == pytest.approx(3.5, abs=1e-12)


def test_plackett_luce_probabilities():
    run = pd.DataFrame({"user": [0] * 3, "item": ["A", "B", "C"], "score": [2.0, 1.0, 0.0]})
    pl = policy_from_run(run, kind="plackett_luce", n_samples=40000, seed=3)
    log = read_log(pd.DataFrame({"user_id": [0] * 3, "slate_id": [0] * 3, "position": [1, 2, 3],
                                 "item_id": ["A", "B", "C"], "reward": [0.0] * 3,
                                 "propensity": [.5] * 3}))
    m, p = pl.marginal(log), pl.prefix(log)
    assert m[0] == pytest.approx(0.665240956, abs=1e-9)
    assert p[1] == pytest.approx(0.486330108, abs=1e-9)
    assert m[1] == pytest.approx(0.510543058, abs=1e-9)
    # exact marginal of C at position 3 by enumerating the 6 orderings
    w = np.exp([2.0, 1.0, 0.0])
    exact = 0.0
    for perm in itertools.permutations(range(3)):
        if perm[2] == 2:
            exact += w[perm[0]] / w.sum() * w[perm[1]] / (w.sum() - w[perm[0]])
    assert m[2] == pytest.approx(exact, abs=5 * math.sqrt(exact * (1 - exact) / 40000))
    assert p[2] == pytest.approx(p[1], abs=1e-12)  # the last item is forced


def test_epsilon_greedy_probabilities():
    run = pd.DataFrame({"user": [0] * 4, "item": [1, 2, 3, 4], "score": [4.0, 3, 2, 1]})
    pol = policy_from_run(run, kind="epsilon_greedy", epsilon=0.2, k=2)
    log = read_log(pd.DataFrame({"user_id": [0, 0], "slate_id": [0, 0], "position": [1, 2],
                                 "item_id": [1, 3], "reward": [0.0, 0], "propensity": [.5, .5]}))
    assert pol.marginal(log) == pytest.approx([0.8 + 0.2 / 4, 0.2 / 4])
    assert pol.prefix(log) == pytest.approx([0.8 + 0.2 / 4, 0.2 / 12])


def _random_log(rng, n_users=60, per_user=3, n_items=6, L=2):
    rows = []
    for u in range(n_users):
        for s in range(per_user):
            slate = rng.permutation(n_items)[:L]
            for l_, it in enumerate(slate):
                rows.append((u, u * per_user + s, l_ + 1, int(it), float(rng.random() < 0.3 + 0.1 * it / n_items)))
    df = pd.DataFrame(rows, columns=["user_id", "slate_id", "position", "item_id", "reward"])
    # uniform random slate without replacement: marginal 1/n, prefix 1/(n (n-1) ...)
    df["pm"] = 1.0 / n_items
    df["pp"] = [1.0 / math.prod(range(n_items, n_items - p, -1)) for p in df["position"]]
    return df


def _uniform_run(n_users, n_items):
    return pd.DataFrame({"user": np.repeat(np.arange(n_users), n_items),
                         "item": np.tile(np.arange(n_items), n_users), "score": 0.0})


def test_target_equals_logging_gives_logged_mean():
    rng = np.random.default_rng(0)
    df = _random_log(rng)
    log = read_log(df, propensity={"marginal": "pm", "prefix": "pp"})
    same = policy_from_run(_uniform_run(60, 6), kind="plackett_luce")
    res = estimate(log, same, estimators=["ips", "snips", "iips", "rips", "sips", "snrips",
                                          "snsips", "pi"])
    logged = df.groupby("slate_id")["reward"].sum().mean()
    for k, v in res.summary.items():
        assert v == pytest.approx(logged, abs=1e-12), k
    ov = overlap(log, same)
    assert ov.rows[0]["mean_weight"] == pytest.approx(1.0)
    assert ov.rows[0]["ess"] == pytest.approx(len(df))


def test_replay_equals_snips_under_uniform_logging():
    rng = np.random.default_rng(1)
    df = _random_log(rng, L=1)
    log = read_log(df, propensity="pm")
    run = pd.DataFrame({"user": np.repeat(np.arange(60), 6), "item": np.tile(np.arange(6), 60),
                        "score": rng.random(360)})
    res = estimate(log, policy_from_run(run, k=1), estimators=["replay", "snips"])
    assert res["replay"] == pytest.approx(res["snips"], abs=1e-12)


@given(st.lists(st.tuples(st.floats(0.05, 1.0), st.floats(-3, 5), st.floats(0, 1)),
                min_size=2, max_size=40))
def test_snips_within_reward_range_and_shift(rows):
    p = [r[0] for r in rows]
    rew = [r[1] for r in rows]
    pe = [r[2] for r in rows]
    log = _single(p, rew, [0] * len(rows))
    pol = policy_from_table(pd.DataFrame({"user": range(len(rows)), "item": 0, "prob": pe}))
    if sum(pe) == 0:
        return
    v = estimate(log, pol, estimators=["snips"])["snips"]
    assert min(rew) - 1e-9 <= v <= max(rew) + 1e-9
    log2 = _single(p, [x + 2.5 for x in rew], [0] * len(rows))
    assert estimate(log2, pol, estimators=["snips"])["snips"] == pytest.approx(v + 2.5, abs=1e-9)


@given(st.randoms(), st.booleans())
def test_invariant_to_row_order_and_id_type(rnd, as_str):
    rng = np.random.default_rng(rnd.randint(0, 1000))
    df = _random_log(rng, n_users=15)
    run = pd.DataFrame({"user": np.repeat(np.arange(15), 6), "item": np.tile(np.arange(6), 15),
                        "score": rng.random(90)})
    pol = policy_from_run(run, kind="plackett_luce", temperature=0.5)
    est = ["ips", "snips", "rips", "sips"]
    a = estimate(read_log(df, propensity={"marginal": "pm", "prefix": "pp"}), pol, estimators=est)
    df2 = df.sample(frac=1, random_state=rnd.randint(0, 1000))
    run2 = run.sample(frac=1, random_state=1)
    if as_str:
        for c in ("user_id", "item_id"):
            df2[c] = "x" + df2[c].astype(str)
        run2 = run2.assign(user="x" + run2["user"].astype(str), item="x" + run2["item"].astype(str))
    b = estimate(read_log(df2, propensity={"marginal": "pm", "prefix": "pp"}),
                 policy_from_run(run2, kind="plackett_luce", temperature=0.5), estimators=est)
    for k in a.summary:
        assert b[k] == pytest.approx(a[k], rel=1e-10), k
        assert b.row(k)["se"] == pytest.approx(a.row(k)["se"], rel=1e-8), k


def test_clustered_se_and_bootstrap_against_slow_oracles():
    rng = np.random.default_rng(2)
    df = _random_log(rng, n_users=30, per_user=4, L=1)
    log = read_log(df, propensity="pm")
    run = pd.DataFrame({"user": np.repeat(np.arange(30), 6), "item": np.tile(np.arange(6), 30),
                        "score": rng.random(180)})
    pol = policy_from_run(run, kind="plackett_luce")
    res = estimate(log, pol, estimators=["snips"])
    w = pol.marginal(log) / df.sort_values(["slate_id"])["pm"].to_numpy()
    r = log.reward
    u = log.slate_unit[log.slate_of_row]
    v = (w * r).sum() / w.sum()
    assert res["snips"] == pytest.approx(v, rel=1e-12)
    infl = np.array([((w * (r - v))[u == k]).sum() for k in range(30)]) / w.sum()
    assert res.row("snips")["se"] == pytest.approx(math.sqrt(30 / 29 * (infl ** 2).sum()), rel=1e-10)
    boot = estimate(log, pol, estimators=["snips"], ci="bootstrap", n_resamples=300, rng=5)
    g = np.random.default_rng(5)
    counts = g.multinomial(30, np.full(30, 1 / 30), size=300)
    vals = []
    for c in counts:  # slow: rebuild the resampled log, normaliser re-estimated
        ww = np.concatenate([np.tile(w[u == k], c[k]) for k in range(30)])
        rr = np.concatenate([np.tile(r[u == k], c[k]) for k in range(30)])
        vals.append((ww * rr).sum() / ww.sum())
    lo, hi = np.quantile(vals, [0.025, 0.975])
    assert boot.row("snips")["ci_low"] == pytest.approx(lo, rel=1e-10)
    assert boot.row("snips")["ci_high"] == pytest.approx(hi, rel=1e-10)


def test_compare_policies_paired():
    rng = np.random.default_rng(3)
    df = _random_log(rng, n_users=50, L=1)
    log = read_log(df, propensity="pm")
    mk = [pd.DataFrame({"user": np.repeat(np.arange(50), 6), "item": np.tile(np.arange(6), 50),
                        "score": rng.random(300)}) for _ in range(2)]
    pa, pb = (policy_from_run(m, kind="plackett_luce") for m in mk)
    cmp = compare_policies(log, {"a": pa, "b": pb}, baseline="b", estimator="ips")
    ea, eb = estimate(log, pa, estimators=["ips"]), estimate(log, pb, estimators=["ips"])
    assert cmp.rows[0]["diff"] == pytest.approx(ea["ips"] - eb["ips"], rel=1e-12)
    phi = ea.per_unit["ips"] - eb.per_unit["ips"]
    assert cmp.rows[0]["se"] == pytest.approx(math.sqrt(50 / 49 * (phi ** 2).sum()), rel=1e-10)


def test_errors_and_deterministic_logging():
    with pytest.raises(InputError, match="must lie in \\(0, 1\\]"):
        _single([0.0, 0.5], [1, 1], [0, 1])
    log = _single([1.0, 1.0], [1, 0], [0, 1])
    pol = policy_from_table(_table([(1, 0), (0, 1)]))
    with pytest.raises(PolicyError, match="deterministic"):
        estimate(log, pol)
    with pytest.raises(PolicyError, match="unknown estimator 'snipz'.*snips"):
        estimate(_single([.5], [1], [0]), pol, estimators=["snipz"])
    with pytest.raises(InputError, match="needs a reward model"):
        estimate(_single([.5], [1], [0]), pol, estimators=["dr"])
    with pytest.raises(InputError, match="two rows for slate"):
        read_log(pd.DataFrame({"user_id": [0, 0], "slate_id": [1, 1], "position": [1, 1],
                               "item_id": [1, 2], "reward": [0, 0], "propensity": [.5, .5]}))


def test_overlap_flags_support_violation():
    rng = np.random.default_rng(4)
    n = 400
    df = pd.DataFrame({"user": range(n), "item": rng.integers(0, 2, n), "p": 0.5,
                       "r": rng.random(n)})
    log = read_log(df, unit="user", slate=None, position=None, item="item", reward="r",
                   propensity="p")
    # the target prefers an item (2) the logger never shows
    pol = policy_from_table(pd.DataFrame({"user": np.repeat(range(n), 2), "item": [0, 2] * n,
                                          "prob": [0.3, 0.7] * n}))
    ov = overlap(log, pol)
    assert ov.rows[0]["mean_weight"] < 0.8
    assert any("support violation" in w for w in ov.warnings)


@pytest.mark.slow
def test_unbiased_and_clustered_ci_covers_while_slate_bootstrap_undercovers():
    rng = np.random.default_rng(8)
    n_users, per_user, n_items = 80, 10, 4
    true_theta = np.array([0.1, 0.2, 0.3, 0.4])
    run = pd.DataFrame({"user": np.repeat(np.arange(n_users), n_items),
                        "item": np.tile(np.arange(n_items), n_users),
                        "score": np.tile(np.arange(n_items, dtype=float), n_users)})
    pol = policy_from_run(run, kind="plackett_luce", temperature=1.0)
    w_t = np.exp(np.arange(n_items)) / np.exp(np.arange(n_items)).sum()
    sd_user = 0.25
    # population value: the user effect integrated out (Monte Carlo with many draws)
    u_pop = np.random.default_rng(99).normal(0, sd_user, 400000)
    V = float((np.clip(true_theta[None, :] + u_pop[:, None], 0, 1) @ w_t).mean())
    reps, cov_u, cov_s, est = 150, 0, 0, []
    for _ in range(reps):
        u_eff = rng.normal(0, sd_user, n_users)       # user effect: clustered rewards
        items = rng.integers(0, n_items, (n_users, per_user))
        mean = np.clip(true_theta[items] + u_eff[:, None], 0, 1)
        r = rng.random((n_users, per_user)) < mean
        df = pd.DataFrame({"user_id": np.repeat(np.arange(n_users), per_user),
                           "item_id": items.ravel(), "reward": r.ravel().astype(float),
                           "propensity": 1 / n_items})
        log = read_log(df, slate=None, position=None)
        a = estimate(log, pol, estimators=["ips"], ci="analytic")
        b = estimate(log, pol, estimators=["ips"], ci="bootstrap", cluster="slate",
                     n_resamples=300, rng=1)
        est.append(a["ips"])
        cov_u += a.row("ips")["ci_low"] <= V <= a.row("ips")["ci_high"]
        cov_s += b.row("ips")["ci_low"] <= V <= b.row("ips")["ci_high"]
    assert abs(np.mean(est) - V) < 3 * np.std(est) / math.sqrt(reps)
    assert 0.89 <= cov_u / reps <= 0.99
    assert cov_s / reps < cov_u / reps - 0.08


def _pbm_log(rng, n_users, m, K, theta, phi):
    keys = rng.random((n_users, m)).argsort(axis=1)[:, :K]       # uniform random slates
    click = rng.random((n_users, K)) < theta[None, :] * phi[keys]
    return pd.DataFrame({"user_id": np.repeat(np.arange(n_users), K),
                         "slate_id": np.repeat(np.arange(n_users), K),
                         "position": np.tile(np.arange(1, K + 1), n_users),
                         "item_id": keys.ravel(), "reward": click.ravel().astype(float),
                         "propensity": 1.0 / m})


def test_pbm_ips_weights_and_target_equal_logging():
    rng = np.random.default_rng(0)
    m, K = 5, 3
    theta = np.array([1.0, 0.6, 0.3])
    df = _pbm_log(rng, 50, m, K, theta, np.linspace(0.1, 0.9, m))
    log = read_log(df)
    uniform = policy_from_run(_uniform_run(50, m), kind="epsilon_greedy", epsilon=1.0, k=K)
    same = estimate(log, uniform, logging_policy=uniform, estimators=["pbm_ips", "iips"],
                    examination=theta)
    assert same["pbm_ips"] == pytest.approx(df.groupby("slate_id")["reward"].sum().mean())
    run = pd.DataFrame({"user": np.repeat(np.arange(50), m), "item": np.tile(np.arange(m), 50),
                        "score": np.tile(np.arange(m, 0, -1.0), 50)})
    det = policy_from_run(run, k=K)
    res = estimate(log, det, logging_policy=uniform, estimators=["pbm_ips"], examination=theta)
    # oracle: w = theta_{rank+1}[rank < K] / (sum_k theta_k / m)
    w = np.where(df["item_id"] < K, theta[np.minimum(df["item_id"], K - 1)], 0) / (theta.sum() / m)
    assert res["pbm_ips"] == pytest.approx((w * df["reward"]).sum() / 50, rel=1e-12)
    with pytest.raises(InputError, match="logging_policy"):
        estimate(log, det, estimators=["pbm_ips"], examination=theta)


@pytest.mark.slow
def test_pbm_ips_unbiased_under_position_based_clicks():
    rng = np.random.default_rng(5)
    m, K, n = 6, 3, 300
    theta = np.array([1.0, 0.5, 0.25])
    phi = np.linspace(0.1, 0.8, m)
    run = pd.DataFrame({"user": np.repeat(np.arange(n), m), "item": np.tile(np.arange(m), n),
                        "score": np.tile(phi, n)})
    det = policy_from_run(run, k=K)
    uniform = policy_from_run(_uniform_run(n, m), kind="epsilon_greedy", epsilon=1.0, k=K)
    V = float(theta @ np.sort(phi)[::-1][:K])
    est = [estimate(read_log(_pbm_log(rng, n, m, K, theta, phi)), det, logging_policy=uniform,
                    estimators=["pbm_ips"], examination=theta)["pbm_ips"] for _ in range(150)]
    assert abs(np.mean(est) - V) < 3 * np.std(est) / math.sqrt(150)
