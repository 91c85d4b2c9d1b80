"""Adversarial inputs to receval.online: every public function declared and refusing bad values,
malformed frames refused with receval errors, undefined statistics NaN with a reason, ids of two
kinds refused, nothing dropped without a count, and each example of the hardening issue."""

from __future__ import annotations

import inspect
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import receval.online as on
from receval.cli import main
from receval.errors import InputError, ParameterError, RecevalError, RecevalWarning
from receval.online import (
    Ledger,
    ab,
    agreement,
    estimate,
    interleave,
    msprt,
    policy_from_run,
    policy_from_table,
    read_log,
    simulate,
)
from receval.validation import TABLE


# --- every public function is declared --------------------------------------------------------
def _public_functions():
    """(qualified name, callable) of every public function and Ledger method of receval.online,
    derived from the modules' ``__all__``."""
    seen = {}
    for mod in (on, ab, interleave):
        for name in mod.__all__:
            obj = getattr(mod, name)
            if inspect.isfunction(obj) and obj.__module__.startswith("receval.online"):
                seen[f"{obj.__module__}.{obj.__qualname__}"] = obj
    for name in ("add", "save"):
        obj = getattr(Ledger, name)
        seen[f"{obj.__module__}.{obj.__qualname__}"] = obj
    obj = simulate.simulate_shop
    seen[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return sorted(seen.items())


PUBLIC = _public_functions()


def test_the_walk_finds_the_online_api():
    names = {n.rsplit(".", 1)[-1] for n, _ in PUBLIC}
    assert {"analyze", "srm", "estimate", "read_log", "team_draft", "agreement", "msprt",
            "sample_size", "power", "mde", "policy_from_table", "add"} <= names
    assert len(PUBLIC) >= 30


@pytest.mark.parametrize(("qualname", "func"), PUBLIC, ids=[n for n, _ in PUBLIC])
def test_every_public_function_is_declared(qualname, func):
    assert qualname in TABLE, f"{qualname} has no validate_params declaration"
    params = inspect.signature(func).parameters
    assert set(TABLE[qualname]) <= set(params)
    # every scalar keyword-only option (str / int / float / bool default, not a sequence) is
    # declared
    for p in params.values():
        if p.kind is p.KEYWORD_ONLY and isinstance(p.default, (bool, int, float, str)) \
                and "Sequence" not in str(p.annotation):
            assert p.name in TABLE[qualname], (qualname, p.name)


GARBAGE = {"object": object(), "none": None, "text": "x", "nan-array": np.array([np.nan]),
           "empty-frame": pd.DataFrame(), "empty-list": []}


@pytest.mark.parametrize("garbage", list(GARBAGE), ids=list(GARBAGE))
@pytest.mark.parametrize(("qualname", "func"), PUBLIC, ids=[n for n, _ in PUBLIC])
def test_every_public_function_meets_garbage_with_a_receval_error(qualname, func, garbage,
                                                                 tmp_path, monkeypatch):
    """Every required argument set to one garbage value: the call returns (the value may be
    valid, e.g. a column name) or raises a receval error, never a raw exception."""
    monkeypatch.chdir(tmp_path)  # Ledger.save("x") writes a file
    kwargs = {p.name: GARBAGE[garbage] for p in inspect.signature(func).parameters.values()
              if p.name != "self" and p.default is p.empty
              and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)}
    call = getattr(Ledger(), func.__name__) if ".Ledger." in qualname else func
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RecevalWarning)
        try:
            call(**kwargs)
        except RecevalError:
            pass


# --- malformed frames: receval errors, never a raw exception ------------------------------------
def _ab(df):
    return ab.analyze(df, metrics=["y"], control="A")


FRAME_FUNCS = {
    "per_unit": lambda d: ab.per_unit(d, sums={"y": "y"}),
    "from_aggregates": lambda d: ab.from_aggregates(d),
    "analyze": _ab,
    "read_log": lambda d: read_log(d),
    "policy_from_run": lambda d: policy_from_run(d),
    "policy_from_table": lambda d: policy_from_table(d),
    "interleave.analyze": lambda d: interleave.analyze(d),
    "Ledger.from_frame": lambda d: Ledger.from_frame(d),
    "rankings_from_runs": lambda d: interleave.rankings_from_runs({"a": d, "b": d}, 3),
}

_ALL_COLS = ["user_id", "variant", "y", "slate_id", "position", "item_id", "reward",
             "propensity", "user", "item", "score", "prob", "impression_id", "team", "click",
             "experiment", "side", "metric", "delta", "se", "p_value", "n", "sum:y",
             "cross:y:y"]
BAD_FRAMES = {
    "not-a-frame": object(),
    "no-columns": pd.DataFrame(),
    "text-everywhere": pd.DataFrame({c: ["x", "y"] for c in _ALL_COLS}),
    "nan-everywhere": pd.DataFrame({c: [np.nan, np.nan] for c in _ALL_COLS}),
    "ragged-dict": {"user_id": [1, 2], "variant": [1]},
}


@pytest.mark.parametrize("frame", list(BAD_FRAMES), ids=list(BAD_FRAMES))
@pytest.mark.parametrize("func", list(FRAME_FUNCS), ids=list(FRAME_FUNCS))
def test_malformed_frames_raise_receval_errors(func, frame):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RecevalWarning)
        with pytest.raises(RecevalError):
            FRAME_FUNCS[func](BAD_FRAMES[frame])


# --- A/B ------------------------------------------------------------------------------------
def _units(**arms):
    return pd.concat([pd.DataFrame({"variant": a, "y": v}) for a, v in arms.items()],
                     ignore_index=True)


def test_single_unit_arm_is_nan_not_significant():
    df = _units(A=[1.0, 2.0, 3.0, 2.5, 1.5], B=[9.0])
    with pytest.warns(RecevalWarning, match="arm 'B' has 1 unit"):
        res = ab.analyze(df, metrics=["y"], control="A")
    r = res.rows[0]
    assert r["effect"] == pytest.approx(9.0 - 2.0)
    for k in ("se", "p_value", "ci_low", "ci_high", "rel_ci_low", "p_adjusted"):
        assert math.isnan(r[k]), k
    assert r["significant"] is False and "1 unit" in r["note"]
    assert res.counts["rows_undefined"] == 1


def test_zero_variance_is_nan_with_a_reason():
    with pytest.warns(RecevalWarning, match="zero variance"):
        r = ab.analyze(_units(A=[1.0] * 4, B=[2.0] * 4), metrics=["y"], control="A").rows[0]
    assert r["effect"] == 1.0 and math.isnan(r["p_value"]) and not r["significant"]


def test_proportion_checks_every_arm():
    df = pd.DataFrame({"variant": ["A"] * 4 + ["B"] * 2, "o": [0, 1, 0, 1, 0, 2]})
    with pytest.raises(InputError, match="arm 'B' has 2"):
        ab.analyze(df, metrics=[ab.proportion("o")], control="A")
    aggs = {a: ab.Aggregates.from_frame(g, ["o"]) for a, g in df.groupby("variant")}
    with pytest.raises(InputError, match="not 0/1 in arm 'B'"):
        ab.analyze(aggs, metrics=[ab.proportion("o")], control="A")


def test_contamination_and_repeated_units_refused_in_analyze():
    df = pd.DataFrame({"user_id": [1, 2, 1, 3], "variant": ["A", "A", "B", "B"],
                       "y": [1.0, 2.0, 3.0, 4.0]})
    with pytest.raises(InputError, match="unit 1 appears in more than one arm"):
        ab.analyze(df, metrics=["y"], control="A", unit="user_id")
    with pytest.raises(InputError, match="unit 1 appears in more than one arm"):
        ab.analyze(df, metrics=["y"], control="A")  # per_unit's default unit column
    df2 = df.assign(variant=["A", "A", "A", "B"])
    with pytest.raises(InputError, match="repeated"):
        ab.analyze(df2, metrics=["y"], control="A", unit="user_id")
    # the frame of per_unit carries its unit column: analyze checks it unasked
    units = ab.per_unit(pd.DataFrame({"user_id": [1, 2, 3, 4], "variant": list("AABB")}))
    assert units.attrs["unit"] == "user_id"
    twice = pd.concat([units, units.iloc[:1]], ignore_index=True)
    twice.attrs = {"unit": "user_id"}
    with pytest.raises(InputError, match="repeated"):
        ab.analyze(twice, metrics=["events"], control="A")


def test_srm_edges():
    with pytest.raises(InputError, match=r"counts\['A'\]=-5"):
        ab.srm({"A": -5, "B": 500})
    with pytest.raises(InputError, match="every arm has 0 units"):
        ab.srm({"A": 0, "B": 0})
    with pytest.raises(InputError, match="whole number"):
        ab.srm({"A": 2.5, "B": 5})
    # an expected arm without units is a mismatch, not an arm left out
    res = ab.srm({"A": 500, "B": 500}, {"A": 1, "B": 1, "C": 1})
    assert res.counts["C"] == 0 and res.rows[0]["mismatch"]
    assert res.rows[0]["statistic"] == pytest.approx(2 * (500 - 1000 / 3) ** 2 / (1000 / 3)
                                                     + (1000 / 3))


def test_srm_expected_arm_without_units_in_analyze():
    df = _units(A=list(np.linspace(0, 1, 600)), B=list(np.linspace(0, 2, 600)))
    with pytest.warns(RecevalWarning, match="sample-ratio mismatch"):
        res = ab.analyze(df, metrics=["y"], control="A", srm_expected={"A": 1, "B": 1, "C": 1})
    assert res.diagnostics["srm"]["mismatch"]


def test_power_edges():
    with pytest.raises(ParameterError, match=r"rho2=1.5 .*\[0, 1\)"):
        ab.sample_size(0.1, 1.0, rho2=1.5)
    with pytest.raises(ParameterError, match="rho2=1 "):
        ab.power(0.1, 1.0, 100, rho2=1)
    with pytest.raises(ParameterError, match="rho2"):
        ab.mde(1.0, 100, rho2=-0.1)
    with pytest.raises(RecevalError, match="effect=0"):
        ab.sample_size(0.0, 1.0)
    n = ab.sample_size(0.1, 1.0, rho2=0.5)
    assert n == pytest.approx(0.5 * ab.sample_size(0.1, 1.0), rel=1e-14) and n > 0


def test_msprt_edges():
    with pytest.raises(InputError, match="empty"):
        msprt([], sigma2=1.0, tau2=1.0)
    with pytest.raises(InputError, match="mean has 1 NaN"):
        msprt(n=[10, 20], mean=[0.1, math.nan], sigma2=1.0, tau2=1.0)
    with pytest.raises(InputError, match="NaN"):
        msprt([0.1, math.inf], sigma2=1.0, tau2=1.0)
    with pytest.raises(InputError, match="one .n, mean. pair"):
        msprt(n=[10, 20], mean=[0.1], sigma2=1.0, tau2=1.0)


# --- off-policy ---------------------------------------------------------------------------
def _log(p, r, users=None, items=None):
    n = len(p)
    return read_log(pd.DataFrame({
        "user_id": list(range(n)) if users is None else users, "slate_id": range(n),
        "position": 1, "item_id": [0] * n if items is None else items, "reward": r,
        "propensity": p}))


def _target(n, prob=1.0, users=None):
    return policy_from_table(pd.DataFrame({"user": list(range(n)) if users is None else users,
                                           "item": 0, "prob": prob}))


def test_positions_are_whole_numbers():
    df = pd.DataFrame({"user_id": [1, 1], "slate_id": [1, 1], "position": [1, 2.7],
                       "item_id": [1, 2], "reward": [0.0, 1.0], "propensity": [0.5, 0.5]})
    with pytest.raises(InputError, match="'position' must hold whole numbers.*2.7"):
        read_log(df)
    with pytest.raises(InputError, match="at least 1"):
        read_log(df.assign(position=[0, 1]))


def test_user_ids_of_two_kinds_refused():
    log = _log([0.5, 0.5], [1.0, 0.0])
    with pytest.raises(InputError, match="integer .* string"):
        estimate(log, _target(2, users=["0", "1"]))
    with pytest.raises(InputError, match="no logged user"):
        estimate(log, _target(2, users=[7, 8]))
    with pytest.warns(RecevalWarning, match="1 of 2 log rows"):
        res = estimate(log, _target(2, users=[0, 8]))
    assert res.counts["rows_user_not_in_policy"] == 1


def test_one_unit_and_no_overlap_are_nan():
    with pytest.warns(RecevalWarning, match="1 unit"):
        r = estimate(_log([0.25], [1.0]), _target(1)).row("ips")
    assert r["value"] == 4.0 and math.isnan(r["se"]) and math.isnan(r["ci_low"])
    log = _log([0.5, 0.5, 0.5], [1.0, 0.0, 1.0], items=[1, 1, 1])
    pol = policy_from_table(pd.DataFrame({"user": [0, 1, 2], "item": 0, "prob": 1.0}))
    with pytest.warns(RecevalWarning, match="no overlap"):
        res = estimate(log, pol, estimators=["ips", "snips"])
    assert all(math.isnan(res[k]) for k in ("ips", "snips"))


@pytest.mark.parametrize("tiny", [1e-308, 1e-320])
def test_tiny_propensities_stay_finite(tiny):
    rng = np.random.default_rng(3)
    n = 40
    r = rng.random(n)
    p = np.full(n, tiny)
    res = estimate(_log(p, r), _target(n), estimators=["ips", "snips", "sips", "cips(cap=5)"])
    assert res["snips"] == pytest.approx(r.mean(), rel=1e-12)
    assert res["cips(cap=5)"] == pytest.approx(5 * r.mean(), rel=1e-12)
    assert math.isfinite(res.row("snips")["se"])
    if tiny == 1e-308:  # the value itself fits a float: IPS = mean(r) / p
        assert res["ips"] == pytest.approx(r.mean() / tiny, rel=1e-12)
        assert res["sips"] == pytest.approx(res["ips"], rel=1e-12)
        se = math.sqrt(n / (n - 1) * float(((r - r.mean()) ** 2).sum())) / n / tiny
        assert res.row("ips")["se"] == pytest.approx(se, rel=1e-9)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.floats(0.05, 0.95), st.floats(0, 1)), min_size=3, max_size=20),
       st.sampled_from([1e-250, 1e-300, 2.0 ** -1020]))
def test_snips_invariant_to_scaling_every_propensity(rows, c):
    p = np.array([x[0] for x in rows])
    r = np.array([x[1] for x in rows])
    pol = _target(len(rows))
    a = estimate(_log(p, r), pol, estimators=["snips"])["snips"]
    b = estimate(_log(p * c, r), pol, estimators=["snips"])["snips"]
    assert b == pytest.approx(a, rel=1e-9, abs=1e-12)


def test_estimator_specs_and_options():
    log, pol = _log([0.5, 0.5], [1.0, 0.0]), _target(2)
    with pytest.raises(ParameterError, match=r"estimator='cips\(cap=1..2\)'.*cap must be"):
        estimate(log, pol, estimators=["cips(cap=1..2)"])
    with pytest.raises(ParameterError, match="unknown estimator 'snipz'"):
        estimate(log, pol, estimators=["snipz"])
    with pytest.raises(ParameterError, match="n_resamples=0"):
        estimate(log, pol, ci="bootstrap", n_resamples=0)
    with pytest.raises(ParameterError, match="rng=-1"):
        estimate(log, pol, ci="bootstrap", rng=-1)


def test_policy_tables_checked():
    with pytest.raises(InputError, match=r"repeated \(user, item\).*user=0, item=0"):
        policy_from_table(pd.DataFrame({"user": [0, 0], "item": [0, 0], "prob": [0.5, 0.5]}))
    with pytest.raises(InputError, match="sum to 1.2"):
        policy_from_table(pd.DataFrame({"user": [0, 0], "item": [0, 1], "prob": [0.6, 0.6]}))
    with pytest.raises(InputError, match=r"must lie in \[0, 1\]"):
        policy_from_table(pd.DataFrame({"user": [0], "item": [0], "prob": [-0.1]}))
    # the direct method needs every item the policy may choose
    log = _log([0.5, 0.5], [1.0, 0.0])
    part = policy_from_table(pd.DataFrame({"user": [0, 1], "item": 0, "prob": [0.6, 1.0]}))
    q = pd.DataFrame({"user": [0, 1], "item": 0, "q": [0.5, 0.5]})
    with pytest.raises(InputError, match="sum to 0.6, not 1"):
        estimate(log, part, estimators=["dm"], q_hat=q)
    with pytest.raises(InputError, match="repeated"):
        policy_from_run(pd.DataFrame({"user": [0, 0], "item": [1, 1], "score": [1.0, 2.0]}))


# --- interleaving ---------------------------------------------------------------------------
A = np.array([[0, 1, 2, 3], [4, 5, 6, 7]])
B = np.array([[1, 0, 3, 2], [5, 4, 7, 6]])


def test_interleaving_builders_refuse_bad_input():
    with pytest.raises(InputError, match="exactly 2 rankings"):
        interleave.probabilistic([A, B, A], 4)
    with pytest.raises(InputError, match="exactly 2 rankings"):
        interleave.balanced([A, B, A], 4)
    with pytest.raises(ParameterError, match="k=-1"):
        interleave.team_draft([A, B], -1)
    with pytest.raises(InputError, match="twice"):
        interleave.team_draft([A, np.array([[1, 1, 3, 2], [5, 4, 7, 6]])], 4)
    items, teams = interleave.team_draft([A, B, A[:, ::-1]], 4)  # multileaving keeps all three
    assert set(np.unique(teams[teams >= 0])) <= {0, 1, 2}


def test_analyze_outcomes_options_and_undefined():
    with pytest.raises(ParameterError, match="n_resamples=0"):
        interleave.analyze_outcomes([1, 2], [1, -1], n_resamples=0)
    with pytest.raises(ParameterError, match="rng=-1"):
        interleave.analyze_outcomes([1, 2], [1, -1], rng=-1)
    r = interleave.analyze_outcomes([1], [1.0]).rows[0]
    assert math.isnan(r["ci_low"]) and "1 unit" in r["note"]
    r = interleave.analyze_outcomes([1, 2], [0.0, 0.0]).rows[0]
    assert math.isnan(r["p_sign"]) and "ties" in r["note"]


def test_one_team_impressions_are_counted():
    df = pd.DataFrame({"user_id": [1, 1, 2, 2, 3, 3, 4], "impression_id": [1, 1, 1, 1, 1, 1, 1],
                       "team": ["A", "B", "A", "B", "A", "B", "A"],
                       "click": [1, 0, 1, 0, 0, 1, 1]})
    with pytest.warns(RecevalWarning, match="1 of 4 impression"):
        res = interleave.analyze(df)
    assert res.counts["impressions_one_team"] == 1
    assert res.rows[0]["n"] == 3 and res.rows[0]["wins"] == 2


def test_rankings_from_runs_refuses_repeated_items():
    run = pd.DataFrame({"user": [0, 0, 0], "item": [1, 1, 2], "score": [3.0, 2.0, 1.0]})
    ok = run.drop_duplicates(["user", "item"])
    with pytest.raises(InputError, match="repeated"):
        interleave.rankings_from_runs({"a": run, "b": ok}, 3)
    with pytest.raises(InputError, match="integer .* string"):
        interleave.rankings_from_runs({"a": ok, "b": ok.assign(user="0")}, 3)


# --- ledger and agreement -------------------------------------------------------------------
def _ledger(n=5):
    rng = np.random.default_rng(0)
    led = Ledger()
    for e in range(n):
        d = rng.normal()
        led.add(f"{e:03d}", offline={"ndcg": (d, 0.1)}, online={"ctr": (d + rng.normal(0, .2), 0.1)})
    return led


def test_ledger_round_trip_keeps_text_ids(tmp_path):
    led = _ledger()
    for ext in ("csv", "json"):
        path = str(tmp_path / f"l.{ext}")
        led.save(path)
        back = Ledger.load(path)
        assert back.experiments == ["000", "001", "002", "003", "004"]
        assert back.to_frame().equals(led.to_frame())


def test_ledger_refuses_repeats_and_bad_values():
    df = _ledger().to_frame()
    with pytest.raises(InputError, match="repeated .experiment, side, metric."):
        Ledger.from_frame(pd.concat([df, df.iloc[:1]]))
    with pytest.raises(InputError, match="'delta' must be numeric"):
        Ledger.from_frame(df.assign(delta=["x"] + list(df["delta"][1:])))
    with pytest.raises(InputError, match="'se' must be >= 0"):
        Ledger.from_frame(df.assign(se=-0.1))
    with pytest.raises(InputError, match="metric 'ndcg' is not valid"):
        Ledger().add("e", offline={"ndcg": "abc"}, online={"ctr": (1.0, 0.1)})
    with pytest.raises(InputError, match="metric 'ndcg' is not valid"):
        Ledger().add("e", offline={"ndcg": {"se": 0.1}}, online={"ctr": (1.0, 0.1)})
    with pytest.raises(InputError, match="'se' must be >= 0"):
        Ledger().add("e", offline={"ndcg": (1.0, -0.1)}, online={"ctr": (1.0, 0.1)})


def test_agreement_counts_each_experiment_once():
    led = _ledger()
    res = agreement(led, n_resamples=50)
    assert res.counts["experiments"] == 5 and res.rows[0]["experiments"] == 5
    led.rows.append(dict(led.rows[0]))  # a repeated row slipped in by hand
    with pytest.raises(InputError, match="repeated"):
        agreement(led, n_resamples=50)
    bad = _ledger()
    bad.rows[0]["se"] = -1.0
    with pytest.raises(InputError, match="'se' must be >= 0"):
        agreement(bad, n_resamples=50)


# --- command line ---------------------------------------------------------------------------
def test_cli_messages_name_the_file_and_the_flag(tmp_path, capsys):
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    assert main(["ab", str(empty), "--control", "A", "--mean", "y"]) == 1
    assert "empty.csv" in capsys.readouterr().err
    log = tmp_path / "log.csv"
    pd.DataFrame({"user_id": [1, 2], "slate_id": [1, 2], "position": 1, "item_id": [1, 2],
                  "reward": [1.0, 0.0], "propensity": 0.5}).to_csv(log, index=False)
    run = tmp_path / "run.csv"
    pd.DataFrame({"user": [1, 2], "item": [1, 2], "score": 1.0}).to_csv(run, index=False)
    assert main(["ope", str(log), "--run", str(run), "--seed", "-1"]) == 2
    assert "--seed" in capsys.readouterr().err
    assert main(["ope", str(log), "--run", str(run), "-e", "cips(cap=1..2)"]) == 1
    err = capsys.readouterr().err
    assert "--estimator 'cips(cap=1..2)'" in err and "cap must be" in err
