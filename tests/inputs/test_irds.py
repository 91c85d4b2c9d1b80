"""``"irds:<id>"`` names: an ir_datasets dataset's qrels and scored documents, read from its
local files only (a dataset registered here over temporary TREC files, and one whose files
would have to be downloaded)."""

from __future__ import annotations

import uuid

import pytest

import receval as rv

ir_datasets = pytest.importorskip("ir_datasets")
from ir_datasets.datasets.base import Dataset  # noqa: E402
from ir_datasets.formats import TrecQrels, TrecScoredDocs  # noqa: E402
from ir_datasets.util import Download, LocalDownload, RequestsDownload  # noqa: E402

QRELS = "1 0 a 1\n1 0 b 0\n1 0 c 2\n2 0 c 2\n3 0 e 1\n"
RUN = ("1 Q0 b 1 3.0 sys\n1 Q0 a 2 2.0 sys\n1 Q0 c 3 1.0 sys\n"
       "2 Q0 d 1 1.0 sys\n2 Q0 c 2 0.5 sys\n")
METRICS = ["ndcg@10", "precision@2", "map", "mrr"]


@pytest.fixture
def local_id(tmp_path):
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text(QRELS)
    run.write_text(RUN)
    name = f"receval-test/{uuid.uuid4().hex}"
    ir_datasets.registry.register(name, Dataset(TrecQrels(LocalDownload(qrels), {}),
                                                TrecScoredDocs(LocalDownload(run))))
    return name


def _frames():
    import pandas as pd

    truth = pd.DataFrame([line.split() for line in QRELS.splitlines()],
                         columns=["query_id", "iteration", "doc_id", "relevance"])
    truth["relevance"] = truth["relevance"].astype(int)
    rows = [line.split() for line in RUN.splitlines()]
    run = pd.DataFrame({"query_id": [r[0] for r in rows], "doc_id": [r[2] for r in rows],
                        "score": [float(r[4]) for r in rows]})
    return run, truth


def test_irds_names_read_the_local_dataset(local_id):
    run, truth = _frames()
    want = rv.evaluate(run, truth, METRICS)
    assert rv.evaluate(run, f"irds:{local_id}", METRICS).summary == want.summary
    assert rv.evaluate(f"irds:{local_id}", f"irds:{local_id}", METRICS).summary == want.summary
    ds = ir_datasets.load(local_id)  # the dataset object and its iterators read the same
    assert rv.evaluate(ds, ds.qrels_iter(), METRICS).summary == want.summary


def test_a_dataset_that_needs_a_download_is_refused_not_fetched(tmp_path):
    name = f"receval-test/{uuid.uuid4().hex}"
    remote = Download([RequestsDownload("http://example.invalid/qrels.txt")],
                      cache_path=str(tmp_path / "never" / "qrels.txt"))
    ir_datasets.registry.register(name, Dataset(TrecQrels(remote, {})))
    with pytest.raises(rv.InputError, match="receval never downloads"):
        rv.evaluate({"1": {"a": 1.0}}, f"irds:{name}", METRICS)
    assert not (tmp_path / "never" / "qrels.txt").exists()


def test_bad_irds_names_are_refused_naming_them(local_id):
    with pytest.raises(rv.InputError, match="no dataset 'no/such/dataset'"):
        rv.evaluate({"1": {"a": 1.0}}, "irds:no/such/dataset", METRICS)
    with pytest.raises(rv.InputError, match="names no dataset"):
        rv.evaluate({"1": {"a": 1.0}}, "irds:", METRICS)
    name = f"receval-test/{uuid.uuid4().hex}"
    ir_datasets.registry.register(name, Dataset(TrecScoredDocs(LocalDownload("/nonexistent"))))
    with pytest.raises(rv.InputError, match="has no qrels"):
        rv.evaluate({"1": {"a": 1.0}}, f"irds:{name}", METRICS)
