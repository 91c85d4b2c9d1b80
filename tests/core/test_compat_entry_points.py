"""``compat=`` / ``strict=`` on every entry point: ``rv.evaluate``, ``rv.Evaluator`` and
``rv.evaluate_blocks`` resolve a preset in one place (:func:`receval.compat.resolve`) and give
the same values, names and provenance."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import receval as rv
from receval.errors import MetricError, ParameterError

NAMES = ["map@3", "ndcg@3", "hit@3", "precision@2"]


def _data(seed: int = 0, n_users: int = 20):
    rng = np.random.default_rng(seed)
    run, truth = [], []
    for u in range(n_users):
        items = rng.choice(12, size=int(rng.integers(1, 8)), replace=False)
        run += [(u, int(i), float(s)) for i, s in zip(items, rng.random(len(items)), strict=True)]
        held = rng.choice(12, size=int(rng.integers(1, 4)), replace=False)
        truth += [(u, int(i), int(rng.integers(0, 3))) for i in held]
    truth += [(n_users, 0, 1)]  # a truth user without a list
    return (pd.DataFrame(run, columns=["user", "item", "score"]),
            pd.DataFrame(truth, columns=["user", "item", "relevance"]))


def _same(a, b, names=tuple(NAMES)) -> None:
    assert a.metrics == b.metrics
    assert a.user_ids.tolist() == b.user_ids.tolist()
    np.testing.assert_array_equal(a.values, b.values)  # NaN where NaN, bit for bit
    assert a.summary == b.summary
    assert a.stats == b.stats
    assert a.counts == b.counts
    assert a.policies == b.policies
    assert a.info == b.info
    for name in names:
        assert a[name] == b[name]


@pytest.mark.parametrize(("preset", "names"), [
    ("recbole", NAMES),
    ("trec_eval", ["p@3", "ndcg_cut@3", "success@3", "map_cut@3"]),
    ("rectools", ["ndcg@3", "map@3", "hitrate@3", "precision@2"]),
    ("elliot", ["precision@2", "ndcg@3", "recall@3", "mar@3"]),
])
def test_evaluator_with_compat_equals_evaluate(preset, names):
    run, truth = _data()
    expected = rv.evaluate(run, truth, names, compat=preset)
    got = rv.Evaluator(truth, names, compat=preset).evaluate(run)
    assert got.info["compat"]["preset"] == preset
    assert got.info["compat"]["names"] == expected.info["compat"]["names"]
    _same(got, expected, names)


def test_evaluate_blocks_with_compat_equals_evaluate():
    run, truth = _data(1)
    expected = rv.evaluate(run, truth, NAMES, compat="recbole")
    blocks = [run[run.user < 7], run[(run.user >= 7) & (run.user < 13)], run[run.user >= 13]]
    got = rv.evaluate_blocks(blocks, truth, NAMES, compat="recbole")
    assert got.provenance["streamed"] is True and got.provenance["blocks"] == 4
    _same(got, expected)
    ev = rv.Evaluator(truth, NAMES, compat="recbole")
    _same(ev.evaluate_blocks(iter(blocks)), expected)


def test_evaluate_blocks_from_a_file_with_compat(tmp_path):
    run, truth = _data(2)
    path = tmp_path / "run.csv"
    run.sort_values("user").to_csv(path, index=False)
    expected = rv.evaluate(run, truth, NAMES, compat="recbole")
    got = rv.evaluate_blocks(str(path), truth, NAMES, compat="recbole", block_rows=10)
    _same(got, expected)


def test_explicit_policies_override_the_preset_on_every_entry_point():
    run, truth = _data(3)
    # recbole: users="truth", empty_truth="skip"; explicitly empty_truth="zero"
    expected = rv.evaluate(run, truth, NAMES, compat="recbole", empty_truth="zero")
    assert expected.policies["empty_truth"] == "zero" and expected.policies["users"] == "truth"
    ev = rv.Evaluator(truth, NAMES, compat="recbole", empty_truth="zero")
    assert ev.policies.empty_truth == "zero"
    _same(ev.evaluate(run), expected)
    _same(rv.evaluate_blocks([run], truth, NAMES, compat="recbole", empty_truth="zero"),
          expected)
    # without compat, a policy not given is receval's default
    assert rv.Evaluator(truth, ["ndcg@3"]).policies == rv.policies.Policies()
    assert rv.Evaluator(truth, ["ndcg@3"], compat="trec_eval").policies.ties == "trec_eval"


def test_strict_on_every_entry_point():
    run, truth = _data(4)
    for call in (lambda: rv.Evaluator(truth, ["mark@3"], compat="recmetrics", strict=True),
                 lambda: rv.evaluate_blocks([run], truth, ["mark@3"], compat="recmetrics",
                                            strict=True),
                 lambda: rv.evaluate(run, truth, ["mark@3"], compat="recmetrics", strict=True)):
        with pytest.raises(MetricError, match="known bug"):
            call()
    ok = rv.Evaluator(truth, ["mark@3"], compat="recmetrics").evaluate(run)
    assert ok["mark@3"] == rv.evaluate(run, truth, ["map@3"], users="truth",
                                       empty_truth="zero")["map@3"]


def _declared(kind: str) -> list[tuple[str, str]]:
    """``(preset, library name)`` of every entry with a known bug or a declared difference."""
    from receval.compat import PRESETS

    return [(p, n) for p, preset in PRESETS.items() for n, e in preset.names.items()
            if getattr(e, kind) and not e.refused]


@pytest.mark.parametrize(("preset", "lib_name"), _declared("differs"))
def test_strict_refuses_every_name_that_differs_on_some_inputs(preset, lib_name):
    # the preset's note on the inputs where receval's value is not the library's is the
    # message; without strict the name evaluates
    from receval.compat import PRESETS, resolve

    p = PRESETS[preset]
    note = p.note(p.names[lib_name].differs)
    with pytest.raises(MetricError, match="strict=True") as caught:
        resolve(preset, [lib_name], strict=True)
    assert note in str(caught.value)
    specs, _, _ = resolve(preset, [lib_name])
    assert len(specs) == 1


@pytest.mark.parametrize(("preset", "lib_name"), _declared("bug"))
def test_strict_refuses_every_known_bug(preset, lib_name):
    from receval.compat import PRESETS, resolve

    with pytest.raises(MetricError, match="known bug") as caught:
        resolve(preset, [lib_name], strict=True)
    assert PRESETS[preset].names[lib_name].bug in str(caught.value)


def test_evaluator_refuses_bad_compat_values():
    _, truth = _data(5)
    with pytest.raises(rv.errors.PolicyError, match="not a known library preset"):
        rv.Evaluator(truth, ["ndcg@3"], compat="recbol")
    with pytest.raises(ParameterError):
        rv.Evaluator(truth, ["ndcg@3"], compat=3)
    with pytest.raises(ParameterError):
        rv.Evaluator(truth, ["ndcg@3"], compat="recbole", strict="yes")
