"""How a name resolves under ``compat=``, for every preset (derived from the preset table):
the library's own name wins, a receval key means the library's one metric of its family, or
the one with receval's conventions (and is refused, naming them, where the library has several
with other conventions and none of them receval's), ir_measures'
``Name(params)@k`` order and quoted values read as written, and an unknown parameter is
refused with the library's parameters."""

from __future__ import annotations

import pytest

import receval as rv
from receval.compat import PRESETS, resolve
from receval.metrics import metric


def _families():
    for p, preset in PRESETS.items():
        fams = {e.family for e in preset.names.values() if not e.refused}
        for family in sorted(fams):
            yield p, family


@pytest.mark.parametrize(("preset", "family"), list(_families()))
@pytest.mark.parametrize("k", [None, 5])
def test_a_receval_key_means_the_one_metric_of_its_family_or_is_refused(preset, family, k):
    p = PRESETS[preset]
    same = p.of_family(family, k) or p.of_family(family)
    key = metric(family, k).key if metric(family).definition.cutoff != "none" or k is None \
        else None
    if key is None or not same:
        return
    if family in p.names and p.names[family].refused:  # the library's own name, refused
        with pytest.raises(rv.MetricError, match="is not reproduced"):
            resolve(preset, [key])
        return
    distinct = {e.params if k is not None else (e.params, e.uncut, e.k)
                for e in same.values()}
    plain = [n for n, e in same.items() if not e.params and not e.uncut and e.k is None]
    if len(plain) > 1:
        plain = [n for n in plain if (same[n].cutoff == "none") == (k is None)]
    if family in same or len(distinct) == 1 or len(plain) == 1:
        lib_name = family if family in same else plain[0] if len(distinct) > 1 \
            else next(iter(same))
        specs, policies, _ = resolve(preset, [key])
        assert (specs, policies) == resolve(preset, [lib_name + ("" if k is None else f"@{k}")])[:2]
    else:
        with pytest.raises(rv.MetricError, match="several metrics of that family") as info:
            resolve(preset, [key])
        for lib_name in same:
            assert lib_name in str(info.value)


def test_ir_measures_order_and_quotes_read_as_written():
    a, _, _ = resolve("ir_measures", ["P(rel=2)@5"])
    b, _, _ = resolve("ir_measures", ["P@5(rel=2)"])
    assert a == b
    c, _, _ = resolve("ir_measures", ["nDCG(dcg='exp-log2')@10"])
    d, _, _ = resolve("ir_measures", ['nDCG(dcg="exp-log2")@10'])
    assert c == d and c[0].get("gain") == "exp"


def test_an_unknown_parameter_names_the_librarys_own():
    with pytest.raises(rv.MetricError, match="no parameter 'beta'"):
        resolve("ir_measures", ["P(beta=2)@5"])
    with pytest.raises(rv.MetricError, match="top_k"):
        resolve("torchmetrics", ["retrievalmap(topk=5)"])


def test_the_names_as_written_map_to_their_keys():
    specs, _, names = resolve("ir_measures", ["P(rel=2)@5", "AP"])
    assert names == {"P(rel=2)@5": specs[0].key, "AP": specs[1].key}
