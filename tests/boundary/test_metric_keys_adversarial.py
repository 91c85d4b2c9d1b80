"""Metric keys with adversarial numbers parse to a valid spec or raise a receval error; never an
OverflowError / ValueError traceback, never a silent change (a repeated parameter, inf, nan)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

import receval as rv
from receval.errors import MetricError, RecevalError
from receval.metrics.spec import MAX_CUTOFF, REGISTRY, load_plugins

load_plugins()

ADVERSARIAL = ["inf", "-inf", "nan", "NaN", "1e400", "-1e400", "1e30", "1e-400", "0", "-1",
               "1.5", "0.0", "True", "", "abc", "9" * 30, "2147483648", "0x10", "1e3", "10.0",
               "None", "auto", "-0", "+5"]
NUMBER = st.one_of(st.sampled_from(ADVERSARIAL), st.integers(-10, 2**40).map(str),
                   st.floats(allow_nan=True, allow_infinity=True).map(repr))


def _value(param):
    if param.choices is not None:
        return st.one_of(st.sampled_from(list(param.choices)), NUMBER)
    return NUMBER


@st.composite
def keys(draw):
    name = draw(st.sampled_from(sorted(REGISTRY)))
    defn = REGISTRY[name]
    key = name
    k = draw(st.one_of(st.none(), NUMBER))
    if k is not None:
        key += f"@{k}"
    if defn.params:
        chosen = draw(st.lists(st.sampled_from(defn.params), max_size=3))
        if chosen:
            key += "(" + ",".join(f"{p.name}={draw(_value(p))}" for p in chosen) + ")"
    return key


@given(keys())
def test_generated_keys_parse_or_raise_a_receval_error(key):
    try:
        spec = rv.parse_metric(key)
    except RecevalError:
        return
    assert spec.k is None or 1 <= spec.k <= MAX_CUTOFF
    for _, value in spec.params:
        if isinstance(value, float):
            assert math.isfinite(value)
    assert rv.parse_metric(spec.key) == spec  # the canonical key round-trips


@pytest.mark.parametrize("key", [
    "ndcg@inf", "ndcg@nan", "ndcg@1e30", "ndcg@1e400", "nDCG@1e400", "ndcg@-inf",
    "precision@5(rel=inf)", "precision@5(rel=nan)", "fbeta@5(beta=1e400)", "P.1e400",
    "P(rel=inf)@5", "rbp(p=1e400)", "ndcg@10(gain=exp,gain=linear)", "P(rel=1,rel=2)@5",
    f"ndcg@{MAX_CUTOFF + 1}", "precision@5(rel=True)",
])
def test_regression_keys_raise_metric_error(key):
    with pytest.raises(MetricError) as info:
        rv.parse_metrics([key])
    assert "np." not in str(info.value)


def test_repeated_parameter_names_both_values():
    with pytest.raises(MetricError, match=r"'gain' is given twice \(gain=exp, gain=linear\)"):
        rv.parse_metric("ndcg@10(gain=exp,gain=linear)")


@pytest.mark.parametrize("bad", [5, 5.0, None, {"ndcg@10": 1}, b"ndcg@10"])
def test_metrics_argument_must_be_keys(bad):
    with pytest.raises(MetricError, match="metrics must be"):
        rv.parse_metrics(bad)


def test_keyword_cutoff_and_parameters_are_checked():
    with pytest.raises(MetricError, match="got inf"):
        rv.metric("ndcg", float("inf"))
    with pytest.raises(MetricError, match="out of range"):
        rv.metric("precision", 5, rel=float("inf"))
    assert rv.metric("ndcg", 10.0).key == "ndcg@10"
    assert rv.parse_metric("ndcg@2147483647").k == MAX_CUTOFF


def test_trec_level_is_validated():
    import pandas as pd

    qrels = pd.DataFrame({"qid": ["q"], "docno": ["d"], "relevance": [1]})
    run = pd.DataFrame({"qid": ["q"], "docno": ["d"], "score": [1.0]})
    for level in (float("1e400"), float("nan"), 0, -1):
        with pytest.raises(RecevalError, match="level"):
            rv.trec_eval(qrels, run, ["P.5"], level=level)


@pytest.mark.parametrize("args", [
    ["trec", "-l", "1e400", "{q}", "{r}"],
    ["trec", "-m", "P.1e400", "{q}", "{r}"],
    ["evaluate", "--run", "{run}", "--truth", "{truth}", "-m", "ndcg@inf"],
    ["evaluate", "--run", "{run}", "--truth", "{truth}", "-m", "fbeta@5(beta=1e400)"],
    ["evaluate", "--run", "{run}", "--truth", "{truth}", "-m", "ndcg@10(gain=exp,gain=linear)"],
])
def test_cli_reports_bad_numbers_in_one_line(tmp_path, capsys, args):
    from receval.cli import main

    files = {"q": "q 0 d 1\n", "r": "q Q0 d 1 1.0 t\n", "run": "user,item,score\nu,d,1\n",
             "truth": "user,item\nu,d\n"}
    paths = {}
    for name, text in files.items():
        paths[name] = tmp_path / (f"{name}.csv" if name in ("run", "truth") else f"{name}.txt")
        paths[name].write_text(text)
    code = main([a.format(**paths) for a in args])
    err = capsys.readouterr().err
    assert code != 0 and "Traceback" not in err
    assert len([line for line in err.splitlines() if line.strip()]) == 1, err
