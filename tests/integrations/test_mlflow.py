"""rv.integrations.mlflow.log: results logged to a fresh local MLflow store read back exactly
(metrics bit for bit, params, tags, artifacts), names mapped reversibly, collisions refused."""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pandas as pd
import pytest

pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning"),
              pytest.mark.filterwarnings("ignore::FutureWarning"),
              pytest.mark.filterwarnings("ignore::UserWarning:mlflow.*"),
              pytest.mark.filterwarnings("ignore::ResourceWarning")]

mlflow = pytest.importorskip("mlflow", reason="mlflow is not installed")
import receval as rv  # noqa: E402
from receval.errors import ParameterError  # noqa: E402
from receval.integrations import mlflow as rv_mlflow  # noqa: E402

KEYS = ["ndcg@10", "recall@5", "precision@5(rel=2)", "rbp(p=0.95)", "coverage@10"]


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    import importlib.util

    path = tmp_path_factory.mktemp("mlflow")
    old = mlflow.get_tracking_uri()
    # a sqlite store where MLflow's SQL backend is installed; the file store with
    # mlflow-skinny (the tracking client alone, no SQLAlchemy)
    sql = importlib.util.find_spec("sqlalchemy") is not None
    mp = pytest.MonkeyPatch()
    if not sql:  # MLflow 3 keeps the file store behind an opt-in
        mp.setenv("MLFLOW_ALLOW_FILE_STORE", "true")
    mlflow.set_tracking_uri(f"sqlite:///{path}/mlflow.db" if sql else path.as_uri())
    # artifacts beside the store, not in the working directory (sqlite's default ./mlruns);
    # a file store starts without experiment 0
    mlflow.tracking.MlflowClient().create_experiment(
        "receval-tests", artifact_location=(path / "artifacts").as_uri())
    mlflow.set_experiment("receval-tests")
    yield mlflow.tracking.MlflowClient()
    mlflow.set_tracking_uri(old)
    mp.undo()


def _truth():
    rng = np.random.default_rng(0)
    return pd.DataFrame({"user": np.repeat(np.arange(30), 3), "item": rng.integers(0, 50, 90),
                         "rel": rng.integers(1, 3, 90)}).drop_duplicates(["user", "item"])


def _run(seed):
    r = np.random.default_rng(seed)
    return pd.DataFrame({"user": np.repeat(np.arange(30), 10), "item": r.integers(0, 50, 300),
                         "score": r.random(300)}).drop_duplicates(["user", "item"])


def _result(groups=None):
    return rv.evaluate(_run(1), _truth(), KEYS, groups=groups)


def _artifact(client, run_id, path, tmp_path):
    return client.download_artifacts(run_id, path, str(tmp_path))


@pytest.mark.parametrize(("key", "name"), [
    ("ndcg@10", "ndcg_at_10"), ("precision@5(rel=2)", "precision_at_5.rel-2"),
    ("rbp(p=0.95)", "rbp.p-0.95"), ("ndcg@10(gain=exp)", "ndcg_at_10.gain-exp"),
    ("map", "map"), ("hit_rate@10", "hit_rate_at_10"), ("x@3(a=-1,b=0.5)", "x_at_3.a--1.b-0.5"),
    ("iprec(recall=0.5)", "iprec.recall-0.5")])
def test_names_map_both_ways(key, name):
    assert rv_mlflow.metric_name(key) == name
    assert rv_mlflow.metric_key(name) == key


@pytest.mark.parametrize("key", ["foo_at_5", "ndcg@10(dcg='exp-log2')", "a:b", "", "x(p=a.b-c)"])
def test_name_without_a_reversible_form_is_refused(key):
    with pytest.raises(ParameterError, match="key"):
        rv_mlflow.metric_name(key)


def test_eval_result_reads_back_exactly(store, tmp_path):
    res = _result(groups={u: ("a" if u % 2 else "b") for u in range(30)})
    run_id = rv_mlflow.log(res, run_name="offline")
    run = store.get_run(run_id)
    assert run.info.status == "FINISHED" and mlflow.active_run() is None
    m, p, t = run.data.metrics, run.data.params, run.data.tags
    for key, value in res.summary.items():
        name = rv_mlflow.metric_name(key)
        assert repr(m[name]) == repr(value) and rv_mlflow.metric_key(name) == key
    for row in res.group_stats:
        assert m[f"group/{row['group']}/{rv_mlflow.metric_name(row['metric'])}"] == row["mean"]
    assert len(m) == len(res.summary) + len(res.group_stats)
    assert {k: p[f"counts/{k}"] for k in res.counts} == {k: str(v) for k, v in res.counts.items()}
    assert {k: p[f"policies/{k}"] for k in res.policies} == res.policies
    assert json.loads(t["info/coverage_at_10"]) == res.info["coverage@10"]
    assert json.loads(t["info/relevance"]) == res.info["relevance"]
    assert t["receval/kind"] == "EvalResult"
    files = {a.path for a in store.list_artifacts(run_id)}
    assert files == {"names.json", "per_user.csv", "report.html", "result.json"}
    names = json.loads(open(_artifact(store, run_id, "names.json", tmp_path)).read())
    assert names["metrics"]["precision_at_5.rel-2"] == "precision@5(rel=2)"
    back = rv.EvalResult.from_json(_artifact(store, run_id, "result.json", tmp_path))
    assert back.summary == res.summary
    table = pd.read_csv(_artifact(store, run_id, "per_user.csv", tmp_path), index_col="user")
    expect = res.per_user_frame()
    np.testing.assert_array_equal(table[KEYS].to_numpy(), expect[KEYS].to_numpy())
    assert "<html" in open(_artifact(store, run_id, "report.html", tmp_path)).read().lower()


def test_active_run_is_used_and_left_open(store):
    res = _result()
    with mlflow.start_run() as active:
        assert rv_mlflow.log(res, artifacts=False) == active.info.run_id
        assert mlflow.active_run().info.run_id == active.info.run_id
        # a second result into the same run: refused, unless under its own prefix
        with pytest.raises(ParameterError, match="already holds"):
            rv_mlflow.log(res, artifacts=False)
        rv_mlflow.log(res, artifacts=False, prefix="again/")
    m = store.get_run(active.info.run_id).data.metrics
    assert m["again/ndcg_at_10"] == m["ndcg_at_10"] == res["ndcg@10"]
    run_id = store.create_run(store.get_experiment_by_name("receval-tests").experiment_id).info.run_id
    assert rv_mlflow.log(res, run_id=run_id, artifacts=False, step=3) == run_id
    hist = store.get_metric_history(run_id, "recall_at_5")
    assert [(h.value, h.step) for h in hist] == [(res["recall@5"], 3)]


def test_steps_make_a_history_and_keep_their_artifacts(store):
    rescored = _run(1).assign(score=np.random.default_rng(7).random(len(_run(1))))
    res, other = _result(), rv.evaluate(rescored, _truth(), KEYS)  # another epoch's scores
    assert other.counts == res.counts and other["ndcg@10"] != res["ndcg@10"]
    run_id = rv_mlflow.log(res, step=1)
    rv_mlflow.log(other, run_id=run_id, step=2)
    hist = store.get_metric_history(run_id, "ndcg_at_10")
    assert sorted((h.step, h.value) for h in hist) == [(1, res["ndcg@10"]), (2, other["ndcg@10"])]
    assert {a.path for a in store.list_artifacts(run_id)} == {"step_1", "step_2"}
    with pytest.raises(ParameterError, match="already holds"):  # step 2 again
        rv_mlflow.log(other, run_id=run_id, step=2, artifacts=False)
    with pytest.raises(ParameterError, match="names.json"):  # metrics as new, artifacts not
        rv_mlflow.log(other, run_id=run_id, step=2,
                      names={k: "x" + rv_mlflow.metric_name(k) for k in KEYS})


def test_collisions_are_refused_not_overwritten(store):
    res = _result()
    with pytest.raises(ParameterError, match="would both be logged"):
        rv_mlflow.log(res, names={"ndcg@10": "recall_at_5"}, artifacts=False)
    clash = _result(groups={u: ("a/b" if u % 2 else "a_b") for u in range(30)})
    with pytest.raises(ParameterError, match="would both be logged"):
        rv_mlflow.log(clash, artifacts=False)
    run_id = rv_mlflow.log(res, names={"ndcg@10": "nDCG10"}, artifacts=False)
    assert store.get_run(run_id).data.metrics["nDCG10"] == res["ndcg@10"]


def test_nan_is_stored_as_nan(store, tmp_path):
    res = _result()
    stats = [dict(s) for s in res.stats]
    stats[0]["mean"] = float("nan")
    nan_res = dataclasses.replace(res, stats=stats)
    run_id = rv_mlflow.log(nan_res, table="parquet")
    m = store.get_run(run_id).data.metrics
    assert math.isnan(m["ndcg_at_10"]) and m["recall_at_5"] == res["recall@5"]
    assert "per_user.parquet" in {a.path for a in store.list_artifacts(run_id)}
    frame = pd.read_parquet(_artifact(store, run_id, "per_user.parquet", tmp_path))
    np.testing.assert_array_equal(frame[KEYS].to_numpy(), res.per_user_frame()[KEYS].to_numpy())


def test_slices_are_logged(store):
    train = pd.DataFrame({"user": np.repeat(np.arange(30), 5),
                          "item": np.random.default_rng(9).integers(0, 50, 150)})
    res = rv.evaluate(_run(1), _truth(), ["ndcg@10"], train=train, slices=True)
    m = store.get_run(rv_mlflow.log(res, artifacts=False)).data.metrics
    for part, sub in res.slices.items():
        assert repr(m[f"slice/{part}/ndcg_at_10"]) == repr(sub["ndcg@10"])


def test_comparison(store):
    results = {s: rv.evaluate(_run(i), _truth(), ["ndcg@10", "recall@5"], name=s)
               for i, s in enumerate(["A", "B", "C"], start=1)}
    cmp = rv.compare(results)
    run_id = rv_mlflow.log(cmp)
    data = store.get_run(run_id).data
    for s, means in cmp.summary.items():
        for key, value in means.items():
            assert repr(data.metrics[f"{s}/{rv_mlflow.metric_name(key)}"]) == repr(value)
    for row in cmp.pairs:
        base = f"pair/{row['a']}_vs_{row['b']}/{rv_mlflow.metric_name(row['metric'])}"
        for col in ("diff", "p_value", "p_adjusted"):
            assert repr(data.metrics[f"{base}/{col}"]) == repr(row[col])
        assert data.metrics[f"{base}/significant"] == float(row["significant"])
    assert data.params["test"] == cmp.test and data.params["correction"] == cmp.correction
    assert data.params["systems"] == "A,B,C"
    assert {a.path for a in store.list_artifacts(run_id)} >= {"pairs.csv", "report.html"}


def test_online_result(store):
    rng = np.random.default_rng(5)
    units = pd.DataFrame({"user_id": np.arange(400),
                          "variant": np.where(np.arange(400) % 2, "A", "B"),
                          "clicks": rng.poisson(2, 400), "impr": rng.poisson(10, 400) + 1})
    on = rv.online
    res = on.ab.analyze(units, control="A",
                        metrics=[on.ab.ratio("clicks", "impr"), on.ab.mean("clicks")])
    run_id = rv_mlflow.log(res, prefix="ab/")
    data = store.get_run(run_id).data
    for key, value in res.summary.items():
        assert repr(data.metrics["ab/" + rv_mlflow.label_name(key)]) == repr(value)
    row = res.row("clicks/impr")
    for col in ("effect", "se", "ci_low", "ci_high", "p_value", "p_adjusted"):
        assert repr(data.metrics[f"ab/row/clicks_impr/{col}"]) == repr(row[col])
    assert math.isinf(row["df"]) and "ab/row/clicks_impr/df" not in data.metrics
    assert data.tags["ab/row/clicks_impr/df"] == "inf"
    assert data.params["ab/kind"] == "ab" and data.params["ab/counts/units"] == "400"
    assert {a.path for a in store.list_artifacts(run_id)} == {"ab"}


@pytest.mark.parametrize(("kwargs", "param"), [
    ({"prefix": "a:b"}, "prefix"), ({"prefix": "../x"}, "prefix"), ({"prefix": 3}, "prefix"),
    ({"table": "xls"}, "table"), ({"step": -1}, "step"), ({"step": True}, "step"),
    ({"names": {"ndcg@10": ""}}, "names"), ({"names": {"ndcg@10": "a@b"}}, "names"),
    ({"run_name": 5}, "run_name")])
def test_bad_arguments_name_the_keyword(kwargs, param):
    with pytest.raises(ParameterError, match=param) as err:
        rv_mlflow.log(_result(), **kwargs)
    assert err.value.param == param


def test_not_a_result():
    with pytest.raises(ParameterError, match="obj"):
        rv_mlflow.log({"ndcg@10": 0.5})
