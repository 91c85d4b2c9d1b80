"""trec_eval measure-name parsing and the alias table of metric names."""

from __future__ import annotations

import pytest

from receval.errors import MetricError
from receval.metrics import canonical_key, canonical_keys
from receval.trec.measures import parse_measures


def cols(names):
    return [c for m in parse_measures(names) for c in m.columns()]


def test_parameters_are_sorted_and_named_like_trec_eval():
    assert cols(["P.5,7,3"]) == ["P_3", "P_5", "P_7"]
    assert cols(["Rprec_mult.5.0,0.2,0.35"]) == [
        "Rprec_mult_0.20", "Rprec_mult_0.35", "Rprec_mult_5.00"]
    assert cols(["ndcg_cut.10,20,23.4"]) == ["ndcg_cut_10", "ndcg_cut_20", "ndcg_cut_23"]
    assert cols(["utility.2,-1,0,0"]) == ["utility_2,-1,0,0"]
    assert cols(["utility"]) == ["utility"]


def test_output_follows_trec_eval_table_order_not_command_order():
    assert [m.name for m in parse_measures(["P.5", "map", "num_q"])] == ["num_q", "map", "P"]


def test_last_parameters_win_and_sets_expand():
    names = [m.name for m in parse_measures(["official"])]
    assert names == ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
                     "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P"]
    assert cols(["all_trec", "relstring.20"]).count("relstring_20") == 1
    assert cols(["P.5", "P.10"]) == ["P_10"]


def test_unknown_measure_suggests():
    with pytest.raises(MetricError, match="Did you mean 'map'"):
        parse_measures(["mapp"])
    with pytest.raises(MetricError, match="not a number"):
        parse_measures(["P.five"])
    with pytest.raises(MetricError, match="positive"):
        parse_measures(["P.0"])
    with pytest.raises(MetricError, match="takes no parameters"):
        parse_measures(["map.5"])


@pytest.mark.parametrize("name,key", [
    # trec_eval
    ("ndcg_cut.10", "ndcg@10"), ("ndcg_cut_10", "ndcg@10"), ("P.5", "precision@5"),
    ("P_5", "precision@5"), ("recip_rank", "mrr"), ("Rprec", "r_precision"), ("map", "map"),
    ("map_cut.100", "map@100"), ("recall.100", "recall@100"), ("success.10", "hit_rate@10"),
    ("relative_P.5", "precision@5(denominator=min_k_rel)"), ("num_rel_ret", "hits"),
    ("bpref", "bpref"),
    # ir_measures
    ("nDCG@10", "ndcg@10"), ("P@5", "precision@5"), ("AP", "map"), ("AP@100", "map@100"),
    ("RR@10", "mrr@10"), ("RR", "mrr"), ("R@100", "recall@100"), ("Success@10", "hit_rate@10"),
    ("P(rel=2)@5", "precision@5(rel=2)"), ("nDCG(dcg='exp-log2')@10", "ndcg@10(gain=exp)"),
    ("RBP(p=0.5)", "rbp(p=0.5)"), ("Rprec", "r_precision"),
    # ranx
    ("ndcg@10", "ndcg@10"), ("map@100", "map@100"), ("mrr", "mrr"), ("precision@5", "precision@5"),
    ("r-precision", "r_precision"), ("ndcg_burges@10", "ndcg@10(gain=exp)"),
    ("hit_rate@10", "hit_rate@10"), ("hits@5", "hits@5"),
    # receval
    ("ndcg@10(gain=exp)", "ndcg@10(gain=exp)"), ("map@100(denominator=min_k_rel)",
                                                 "map@100(denominator=min_k_rel)"),
])
def test_alias_maps_to_canonical_key(name, key):
    assert canonical_key(name) == key


def test_canonical_keys_splits_lists_and_dedupes():
    assert canonical_keys(["ndcg@10,P.5", "nDCG@10", "map(denominator=hits),mrr"]) == [
        "ndcg@10", "precision@5", "map(denominator=hits)", "mrr"]
    with pytest.raises(MetricError):
        canonical_keys([])
    with pytest.raises(KeyError, match="Did you mean"):
        canonical_key("ndgc@10")
