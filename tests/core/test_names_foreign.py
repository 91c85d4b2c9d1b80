"""The one table of foreign names: every trec_eval measure it maps reads the same value through
``rv.evaluate``, ``compat="trec_eval"`` and the trec_eval emulator; every other one is refused.

The names are derived from :data:`receval.metrics.foreign.TREC_EVAL`: each mapped measure bare,
and with each of its default parameters in ``-m`` form (``P.5``) and printed form (``P_5``);
``utility`` also with its four weights (``utility.1,-1,0,0``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import receval as rv
from receval.io.files import read_trec_qrels, read_trec_run
from receval.metrics.foreign import IR_MEASURE_NAMES, LIBRARY_NAMES, TREC_EVAL, trec_measure
from receval.trec.evaluate import trec_eval

TREC_POLICIES = {"ties": "trec_eval", "users": "intersection", "empty_truth": "zero",
                 "negative_rel": "zero"}
COLUMNS = {"user_col": "qid", "item_col": "docno", "rel_col": "relevance",
           "score_col": "score"}


def _forms(measure) -> list[tuple[str, str]]:
    """(name as a user writes it, the emulator's printed column) for one mapped measure."""
    if measure.kind == "params" and measure.arg is not None:  # utility.1,-1,0,0: the defaults
        return [(measure.name, measure.name),
                (f"{measure.name}.{','.join(measure.default)}", measure.name)]
    if measure.arg is None:
        return [(measure.name, measure.name)]
    out = []
    for value in measure.parse(None):
        printed = f"{value:.2f}" if measure.kind == "cut_double" else str(value)
        out += [(f"{measure.name}.{value}", f"{measure.name}_{printed}"),
                (f"{measure.name}_{printed}", f"{measure.name}_{printed}")]
    return out


MAPPED = [form for m in TREC_EVAL if m.family is not None for form in _forms(m)]
UNMAPPED = [m.name for m in TREC_EVAL if m.family is None]
# measures that map only without parameters: with them, they are the emulator's alone
PARAMETERISED = [f"{m.name}.{','.join(m.default[:2]) or '1=2'}" for m in TREC_EVAL
                 if m.kind == "params" and m.family is not None and m.arg is None]


@pytest.fixture
def trec_families():
    """The plugin families of receval.trec.registered, loaded as every plugin module is
    (:data:`receval.metrics.spec.PLUGIN_MODULES`); never removed, as the registry is the
    process's."""
    from receval.metrics.spec import load_plugins

    load_plugins()


def _fixture() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Graded qrels, tied scores, a query without a relevant document, a query only in the
    run and one only in the qrels, lists longer and shorter than R."""
    rng = np.random.default_rng(33)
    qrels, run = [], []
    for q in range(12):
        docs = rng.choice(40, size=int(rng.integers(2, 14)), replace=False)
        rels = rng.integers(0, 4, size=len(docs)) * (q != 3)
        qrels += [(f"q{q:02d}", "0", f"d{d}", int(r)) for d, r in zip(docs, rels, strict=True)]
        if q == 11:
            continue  # only in the qrels
        ret = rng.choice(40, size=int(rng.integers(1, 30)), replace=False)
        scores = rng.integers(0, 6, size=len(ret)) / 2
        run += [(f"q{q:02d}", "Q0", f"d{d}", i + 1, float(s), "tag")
                for i, (d, s) in enumerate(zip(ret, scores, strict=True))]
    run += [("q99", "Q0", "d1", 1, 1.0, "tag")]  # only in the run
    return (pd.DataFrame(qrels, columns=["qid", "iter", "docno", "relevance"]),
            pd.DataFrame(run, columns=["qid", "q0", "docno", "rank", "score", "tag"]))


def _suite(shared_dir):
    folder = shared_dir / "trec_eval_suite" / "v9.0.8"
    return read_trec_qrels(folder / "qrels.test"), read_trec_run(folder / "results.test")


def _agree(qrels: pd.DataFrame, run: pd.DataFrame) -> None:
    names = [name for name, _ in MAPPED]
    # trec_eval's -m takes a measure once, with its parameters: bare, the defaults
    trec = trec_eval(qrels, run, [m.name for m in TREC_EVAL if m.maps(None)])
    plain = rv.evaluate(run, qrels, names, **COLUMNS, **TREC_POLICIES)
    compat = rv.evaluate(run, qrels, names, **COLUMNS, compat="trec_eval")
    assert set(compat.info["compat"]["names"]) == set(names)
    order = [[str(u) for u in res.user_ids] for res in (plain, compat)]
    assert order[0] == order[1] == sorted(trec.qids, key=str.encode)
    rows = [order[0].index(q) for q in trec.qids]
    for name, column in MAPPED:
        measure, _ = trec_measure(name)
        expected = np.asarray(trec.values[column], dtype=np.float64)
        for res in (plain, compat):
            got = res.user_values(name)[rows]
            assert np.array_equal(got, expected), (name, got, expected)
        # without compat a metric is summarised as its family is (a count by its mean,
        # num_q by its sum, gm_map geometrically); compat="trec_eval" as trec_eval's 'all'
        family = summarise(expected, rv.metrics.parse_metric(name).summary)
        assert plain[name] == pytest.approx(family, rel=1e-12, abs=1e-15), name
        assert compat[name] == pytest.approx(trec.summary[column], rel=1e-12, abs=1e-15), name
        assert compat[name] == pytest.approx(summarise(expected, ALL_LINE[measure.summary]),
                                             rel=1e-12, abs=1e-15), name


def summarise(values: np.ndarray, summary: str) -> float:
    """The oracle of each summary: the mean, the sum, exp of the mean (of logarithms)."""
    return {"mean": np.mean, "sum": np.sum,
            "geometric": lambda x: np.exp(np.mean(x))}[summary](values)


#: receval's summary of each way trec_eval forms its 'all' line (of the numbers)
ALL_LINE = {"mean": "mean", "sum": "sum", "count": "sum", "geometric": "geometric"}


@pytest.mark.usefixtures("trec_families")
def test_every_mapped_trec_eval_name_agrees_on_a_fixture():
    _agree(*_fixture())


@pytest.mark.usefixtures("trec_families")
def test_every_mapped_trec_eval_name_agrees_on_trec_eval_suite(shared_dir):
    _agree(*_suite(shared_dir))


def test_the_derived_list_covers_the_measures_named_in_the_issue():
    names = {name for name, _ in MAPPED} | {m.name for m in TREC_EVAL if m.maps(None)}
    for name in ("set_F", "set_P", "11pt_avg", "iprec_at_recall.0.5", "success.1", "infAP",
                 "P.5", "ndcg_cut.10", "map_cut.100", "iprec_at_recall_0.50"):
        assert name in names


def test_preset_names_are_the_table_of_mapped_measures():
    preset = rv.compat.get("trec_eval")
    assert preset.names is LIBRARY_NAMES["trec_eval"]
    # trec_eval's mapped measures, and ir_measures' names (one preset, three spellings)
    trec = {m.name.lower() for m in TREC_EVAL if m.family is not None and not m.plugin}
    assert trec <= set(preset.names)
    assert set(preset.names) - trec <= set(IR_MEASURE_NAMES)


def test_plugin_measures_are_the_families_of_the_plugin_list(trec_families):
    from receval.metrics.spec import PLUGIN_MODULES, REGISTRY

    plugins = [m for m in TREC_EVAL if m.plugin]
    assert "receval.trec.registered" in PLUGIN_MODULES
    assert {"num_q", "gm_map", "gm_bpref"} <= {m.name for m in plugins}
    for m in plugins:
        assert m.maps(None), m.name
        assert REGISTRY[str(m.family)].compute.__module__ == "receval.trec.registered", m.name


@pytest.mark.parametrize("name", UNMAPPED + PARAMETERISED)
def test_measures_without_a_receval_metric_name_the_emulator(name):
    run, truth = {"q": {"a": 2.0, "b": 1.0}}, {"q": {"b": 1}}
    for compat in (None, "trec_eval"):
        with pytest.raises(rv.UnknownMetricError, match="receval trec"):
            rv.evaluate(run, truth, [name], compat=compat)


@pytest.mark.parametrize("name", sorted({n for n, _ in MAPPED}))
def test_misspelt_names_raise_unknown_metric_with_a_suggestion(name):
    measure, _ = trec_measure(name)
    base = measure.name  # two inner letters swapped, or a letter added to a short name
    typo = base[0] + base[2] + base[1] + base[3:] if len(base) > 3 else base + "x"
    written = typo + name[len(base):]
    with pytest.raises(rv.UnknownMetricError, match="Did you mean"):
        rv.evaluate({"q": {"a": 1.0}}, {"q": {"a": 1}}, [written])


def test_several_parameters_are_the_emulator_s_form():
    with pytest.raises(rv.MetricError, match="name one P parameter"):
        rv.evaluate({"q": {"a": 1.0}}, {"q": {"a": 1}}, ["P.5,10"])


@pytest.mark.usefixtures("trec_families")
def test_command_line_reads_the_same_names(tmp_path, capsys):
    import json

    from receval.cli import main

    qrels, run = _fixture()
    run_path, truth_path = tmp_path / "run.csv", tmp_path / "truth.csv"
    run[["qid", "docno", "score"]].to_csv(run_path, index=False)
    qrels[["qid", "docno", "relevance"]].to_csv(truth_path, index=False)
    names = [name for name, _ in MAPPED]
    lib = rv.evaluate(rv.read_run(run_path, user_col="qid", item_col="docno"),
                      rv.read_truth(truth_path, user_col="qid", item_col="docno",
                                    rel_col="relevance"), names, compat="trec_eval")
    assert main(["evaluate", "--run", str(run_path), "--truth", str(truth_path),
                 "--user-col", "qid", "--item-col", "docno", "--rel-col", "relevance",
                 "--compat", "trec_eval", "-m", ",".join(names), "--format", "json"]) == 0
    cli = rv.EvalResult.from_dict(json.loads(capsys.readouterr().out))
    assert cli.metrics == lib.metrics
    assert cli.values.tobytes() == lib.values.tobytes()
    for name in names:
        assert cli[name] == lib[name]
