"""Every entry of every ``compat=`` preset, in every form, on one small data set.

The lists are derived from the registry (:data:`receval.compat.PRESETS`), not chosen:

- each name the preset maps evaluates, written as the library writes it, with and without a
  cutoff: a number (or NaN, undefined), or a receval error that says what is missing; never
  another exception;
- each name the preset refuses is refused with its reason, whatever ``strict``;
- a user who received no list at all is never rewarded: under every preset, with the users
  policy that keeps it (``users="truth"``) and either ``unretrieved`` rule, its value is
  undefined (NaN) or no better than with the worst list it could have received (three items,
  none relevant to it).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import receval as rv
from receval.compat import PRESETS, resolve
from receval.errors import MetricError, RecevalError
from receval.metrics import REGISTRY, load_plugins, metric, parse_metric

RUN = {"a": {1: 0.9, 2: 0.8, 3: 0.7, 4: 0.6}, "b": {6: 0.5, 7: 0.4}, "d": {1: 0.3, 5: 0.2}}
TRUTH = {"a": {1: 1, 5: 1, 9: 0}, "b": {7: 2, 8: 1}, "c": {2: 1, 3: 2}}
ITEMS = range(1, 12)
CONTEXT = {
    "train": {"a": {4: 1, 8: 1}, "b": {1: 1, 2: 1, 3: 1}, "c": {1: 1, 6: 1}, "d": {2: 1}},
    "item_features": {i: np.array([math.cos(i), math.sin(i), 0.5]) for i in ITEMS},
    "catalog": list(ITEMS),
    "item_categories": {i: [f"c{i % 3}"] for i in ITEMS},
    "baseline_run": {"a": {2: 1.0, 9: 0.5}, "b": {6: 1.0}, "d": {5: 1.0}},
    "propensities": {i: 0.5 + i / 40 for i in ITEMS},
    "item_groups": {i: f"g{i % 2}" for i in ITEMS},
    # subtopic judgments (query, subtopic, doc, relevance) for the intent-aware measures
    "intents": [("a", "s1", 1, 1), ("a", "s2", 1, 1), ("a", "s2", 5, 2), ("b", "s1", 7, 1),
                ("b", "s2", 8, 1), ("c", "s1", 2, 1), ("c", "s3", 3, 2)],
}

ENTRIES = [(p, n) for p, preset in PRESETS.items() for n, e in preset.names.items()
           if not e.refused]
REFUSED = [(p, n) for p, preset in PRESETS.items() for n, e in preset.names.items()
           if e.refused]


def _evaluate(preset: str, name: str, **policies):
    return rv.evaluate(RUN, TRUTH, [name], compat=preset, **CONTEXT, **policies)


def test_every_preset_has_entries():
    assert len(PRESETS) == 17  # the 16 libraries, trec_eval and ir_measures apart
    assert all(p.names for p in PRESETS.values())


@pytest.mark.parametrize(("preset", "name"), ENTRIES)
def test_each_name_evaluates_with_and_without_a_cutoff(preset, name):
    values, errors = [], []
    entry = PRESETS[preset].names[name]
    forms = [name, f"{name}@3"]
    params = {p.name for p in metric(entry.family).definition.params}
    if "missing" in params:
        # rating metrics refuse truth ratings without a prediction unless told to skip them
        forms += [f"{name}(missing=skip)", f"{name}@3(missing=skip)"]
    if "group" in params:  # a metric of one item group names it (bias_disparity)
        forms += [f"{name}(group=g0)", f"{name}@3(group=g0)"]
    if "unseen" in params:  # items never seen in training: refused unless told otherwise
        forms += [f"{name}(unseen=one)", f"{name}@3(unseen=one)"]
    if "n_items" in params:  # a catalogue size given in the key (RecTools MCC)
        forms += [f"{name}@3(n_items={len(ITEMS)})"]
    for form in forms:
        try:
            result = _evaluate(preset, form)
        except RecevalError as exc:  # a receval error names what is missing
            assert str(exc), form
            errors.append((form, exc))
            continue
        value = result[form]
        assert isinstance(value, float), (form, value)
        values.append(value)
    assert values, f"{preset}: {name!r} evaluates in no form: {errors}"


@pytest.mark.parametrize(("preset", "name"), REFUSED)
@pytest.mark.parametrize("strict", [False, True])
def test_each_refused_name_is_refused_with_its_reason(preset, name, strict):
    entry = PRESETS[preset].names[name]
    assert len(entry.refused) > 15, "a refusal gives a reason a user understands"
    with pytest.raises(MetricError) as info:
        rv.evaluate(RUN, TRUTH, [name], compat=preset, strict=strict)
    assert entry.refused in str(info.value)
    assert name in str(info.value).lower()


#: the worst list user c could receive: three items, none relevant to it (4 unjudged)
WORST = {**RUN, "c": {10: 0.9, 11: 0.8, 4: 0.7}}


def _value_of_c(result, key: str) -> float | None:
    users = list(result.user_ids)
    if "c" not in users or key not in result.metrics:
        return None  # a catalogue metric, or a metric without per-user values
    return float(result.values[users.index("c"), result.metrics.index(key)])


@pytest.mark.parametrize("unretrieved", ["absent", "bottom"])
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_a_user_without_a_list_is_never_rewarded(preset, unretrieved):
    checked = 0
    for name, entry in PRESETS[preset].names.items():
        if entry.refused:
            continue
        for form in (name, f"{name}@3"):
            policies = {"users": "truth", "unretrieved": unretrieved}
            try:
                specs, _, _ = resolve(preset, [form])
                result = _evaluate(preset, form, **policies)
                worst = rv.evaluate(WORST, TRUTH, [form], compat=preset, **CONTEXT, **policies)
            except RecevalError:
                continue
            key = specs[0].key
            value, bound = _value_of_c(result, key), _value_of_c(worst, key)
            if value is None or bound is None:
                continue
            better = value > bound if parse_metric(key).definition.higher_is_better \
                else value < bound
            assert math.isnan(value) or not better, (preset, form, unretrieved, value, bound)
            checked += 1
    assert checked, f"{preset}: no per-user metric was checked"


#: where an empty list is a value of its own: the counts of what a list holds (an empty list
#: has no false positive, and every negative is a true negative, as a fact; the rates built
#: on them have no value for such a user) and TREC filtering's linear utility, where
#: retrieving nothing is a legitimate answer worth 0 (trec_eval m_utility.c)
EMPTY_IS_AN_ANSWER = {"tp", "fp", "fn", "tn", "utility"}


def _families() -> list[str]:
    load_plugins()
    return sorted(set(REGISTRY) - EMPTY_IS_AN_ANSWER)


@pytest.mark.parametrize("unretrieved", ["absent", "bottom"])
def test_no_registered_metric_rewards_a_user_without_a_list(unretrieved):
    """The same rule for every registered family (defaults, with and without a cutoff)."""
    checked, rewarded = 0, []
    for family in _families():
        for k in (None, 3):
            try:
                key = metric(family, k).key
                policies = {"users": "truth", "unretrieved": unretrieved}
                result = rv.evaluate(RUN, TRUTH, [key], **CONTEXT, **policies)
                worst = rv.evaluate(WORST, TRUTH, [key], **CONTEXT, **policies)
            except RecevalError:
                continue
            value, bound = _value_of_c(result, key), _value_of_c(worst, key)
            if value is None or bound is None or math.isnan(value):
                continue
            better = value > bound if REGISTRY[family].higher_is_better else value < bound
            if better:
                rewarded.append((key, value, bound))
            checked += 1
    assert checked > 80
    assert not rewarded, rewarded
