"""Named-tuple records as inputs: what ir_datasets (``qrels_iter()``, ``scoreddocs_iter()``, a
dataset itself) and ir_measures (``Qrel``, ``ScoredDoc``) hand over, read as the same table."""

from __future__ import annotations

from collections import namedtuple

import pandas as pd
import pytest

import receval as rv
from receval.io.containers import records_to_frame, to_pandas

# the fields of ir_datasets' TrecQrel / GenericScoredDoc (ir_datasets/formats/)
Qrel = namedtuple("Qrel", "query_id doc_id relevance iteration")
ScoredDoc = namedtuple("ScoredDoc", "query_id doc_id score")

QRELS = [Qrel("1", "a", 1, "0"), Qrel("1", "b", 0, "0"), Qrel("1", "c", 2, "0"),
         Qrel("2", "c", 2, "0"), Qrel("3", "e", 1, "0")]
RUN = [ScoredDoc("1", "b", 3.0), ScoredDoc("1", "a", 2.0), ScoredDoc("1", "c", 1.0),
       ScoredDoc("2", "d", 1.0), ScoredDoc("2", "c", 0.5)]
METRICS = ["ndcg@10", "precision@2", "map", "mrr"]


def _frames():
    truth = pd.DataFrame(QRELS, columns=Qrel._fields)
    run = pd.DataFrame(RUN, columns=ScoredDoc._fields)
    return run, truth


class Dataset:
    """The part of an ir_datasets dataset that receval reads."""

    def has_qrels(self) -> bool:
        return True

    def qrels_iter(self):
        return iter(QRELS)

    def has_scoreddocs(self) -> bool:
        return True

    def scoreddocs_iter(self):
        return iter(RUN)


@pytest.mark.parametrize("form", ["list", "generator", "dataset"])
def test_records_equal_the_same_table(form):
    run, truth = _frames()
    want = rv.evaluate(run, truth, METRICS)
    if form == "list":
        got = rv.evaluate(RUN, QRELS, METRICS)
    elif form == "generator":
        got = rv.evaluate((r for r in RUN), (q for q in QRELS), METRICS)
    else:
        got = rv.evaluate(Dataset(), Dataset(), METRICS)
    assert got.summary == want.summary
    # user 1: b (0), a (1), c (2): ndcg@10 = (1/log2 3 + 3/2) / (3 + 1/log2 3)
    assert got.per_user.loc["1", "precision@2"] == 0.5


def test_records_under_a_preset_and_in_frames():
    got = rv.evaluate(RUN, QRELS, ["P@2", "nDCG@10"], compat="ir_measures")
    run, truth = _frames()
    assert got.summary == rv.evaluate(run, truth, ["P@2", "nDCG@10"],
                                      compat="ir_measures").summary
    frame = to_pandas(iter(QRELS), "qrels")
    assert list(frame.columns) == list(Qrel._fields) and len(frame) == len(QRELS)


def test_bad_records_are_refused_naming_the_role():
    with pytest.raises(rv.InputError, match="run: the iterator of records is empty"):
        rv.evaluate(iter([]), QRELS, METRICS)
    with pytest.raises(rv.InputError, match="named-tuple records"):
        rv.evaluate([(1, 2, 3)], QRELS, METRICS)  # plain tuples name no columns

    class NoQrels(Dataset):
        def has_qrels(self) -> bool:
            return False

    with pytest.raises(rv.InputError, match="truth: the dataset has no qrels"):
        rv.evaluate(RUN, NoQrels(), METRICS)
    assert records_to_frame("a string", "run") is None
    assert records_to_frame({"a": 1}, "run") is None


def test_ir_datasets_records_when_installed():
    formats = pytest.importorskip("ir_datasets.formats")  # GenericQrel: no iteration field
    qrels = [formats.GenericQrel(q.query_id, q.doc_id, q.relevance) for q in QRELS]
    run = [formats.GenericScoredDoc(r.query_id, r.doc_id, r.score) for r in RUN]
    assert rv.evaluate(run, qrels, METRICS).summary == rv.evaluate(RUN, QRELS, METRICS).summary
