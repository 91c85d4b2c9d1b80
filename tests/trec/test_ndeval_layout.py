"""``receval trec --ndeval`` / :func:`receval.trec.ndeval.ndeval`: ndeval 4.5's numbers and CSV.

Worked examples are exact fractions from the definitions (Clarke et al. 2008; Chapelle et al.
2009; ndeval's ideal-ideal normalisation); the layout rules are ndeval's own (``ndeval.c``
``outputMeasures``: every run topic, 6 decimals, ``amean`` over the topics of both or, with
``-c``, over the qrels topics). ``benchmarks/peers/check_ndeval_cli.py`` compares the whole
output with the compiled ndeval.
"""

from __future__ import annotations

import math

import pandas as pd
import pytest

from receval.cli.main import main
from receval.errors import InputError, RecevalError
from receval.trec.ndeval import COLUMNS, ndeval

# topic 1: subtopics 1, 2; d1 relevant to 1, d2 to 1 and 2, d3 judged non-relevant
QRELS = "1 1 d1 1\n1 1 d2 1\n1 2 d2 1\n1 2 d3 0\n2 1 e1 0\n3 1 f1 1\n"
# topic 1 ranks d1, d2 (rank column) although d2 scores higher; topic 2 has no relevant
# document (nNRBP 0/0); topic 9 has no judgments; topic 3 is judged, not retrieved
RUN = ("1 Q0 d1 1 1.0 sys\n1 Q0 d2 2 5.0 sys\n2 Q0 e1 1 1.0 sys\n"
       "9 Q0 x 1 1.0 sys\n10 Q0 d1 1 1.0 sys\n")


def _run() -> pd.DataFrame:
    rows = [line.split() for line in RUN.splitlines()]
    return pd.DataFrame({"qid": [r[0] for r in rows], "q0": "Q0", "docno": [r[2] for r in rows],
                         "rank": [int(r[3]) for r in rows],
                         "score": [float(r[4]) for r in rows], "tag": "sys"})


@pytest.fixture
def qrels(tmp_path):
    path = tmp_path / "qrels.txt"
    path.write_text(QRELS)
    return path


def _err_ia(gains: list[float], k: int, a: int = 2, alpha: float = 0.5) -> float:
    """ERR-IA@k, ideal-ideal normalised: sum G_r / r over A sum (1 - alpha)^(r-1) / r."""
    num = sum(g / (r + 1) for r, g in enumerate(gains[:k]))
    return num / (a * sum((1 - alpha) ** r / (r + 1) for r in range(k)))


def test_values_are_the_definitions(qrels):
    res = ndeval(qrels, _run())
    assert res.topics == ["1", "2", "9", "10"]  # ndeval's numeric topic order
    at = res.topics.index("1")
    # rank order: d1 (gain 1: subtopic 1 new), d2 (0.5 for subtopic 1 seen once, 1 for 2)
    assert res.values["ERR-IA@5"][at] == pytest.approx(_err_ia([1.0, 1.5], 5), abs=1e-15)
    # the greedy ideal is d2 (gain 2), then d1 (0.5): nERR-IA@5 = (1 + 1.5/2) / (2 + 0.5/2)
    assert res.values["nERR-IA@5"][at] == pytest.approx(1.75 / 2.25, abs=1e-15)
    # strec@k: subtopics covered; P-IA@5 = mean over subtopics of relevant in top 5 / 5
    assert res.values["strec@5"][at] == 1.0
    assert res.values["P-IA@5"][at] == pytest.approx((2 / 5 + 1 / 5) / 2, abs=1e-15)
    # a run topic without judgments: 0 everywhere; a topic without a relevant document:
    # nNRBP = 0/0 (printed -nan), the rest 0
    nine, two = res.topics.index("9"), res.topics.index("2")
    assert all(res.values[c][nine] == 0.0 for c, _ in COLUMNS)
    assert math.isnan(res.values["nNRBP"][two])
    assert res.values["NRBP"][two] == 0.0


def test_layout_and_means(qrels):
    res = ndeval(qrels, _run())
    lines = res.lines()
    assert lines[0] == "runid,topic," + ",".join(c for c, _ in COLUMNS)
    assert [line.split(",")[1] for line in lines[1:]] == ["1", "2", "9", "10", "amean"]
    assert lines[3] == "sys,9," + ",".join(["0.000000"] * len(COLUMNS))
    assert lines[2].split(",")[2 + [c for c, _ in COLUMNS].index("nNRBP")] == "-nan"
    # amean: the sum over every row / the topics of both run and qrels (1 and 2)
    strec = [c for c, _ in COLUMNS].index("strec@5")
    assert lines[-1].split(",")[2 + strec] == f"{(1.0 + 0.0) / 2:.6f}"
    # -c: divided by the 3 qrels topics (topic 3 has no run: 0)
    full = ndeval(qrels, _run(), complete=True)
    assert full.means["strec@5"] == pytest.approx(1.0 / 3, abs=1e-15)
    assert math.isnan(full.means["nNRBP"])  # ndeval's sum meets topic 2's 0/0


def test_traditional_orders_by_score_then_docno_descending(qrels):
    # by score, d2 (5.0) comes first: ERR-IA's first gain is 2, then 0.5
    res = ndeval(qrels, _run(), traditional=True)
    at = res.topics.index("1")
    assert res.values["ERR-IA@5"][at] == pytest.approx(_err_ia([2.0, 0.5], 5), abs=1e-15)
    tied = _run().assign(score=1.0)  # all tied: docno descending puts d2 before d1
    res = ndeval(qrels, tied, traditional=True)
    assert res.values["ERR-IA@5"][res.topics.index("1")] == pytest.approx(
        _err_ia([2.0, 0.5], 5), abs=1e-15)


def test_depth_keeps_the_first_rows(qrels):
    res = ndeval(qrels, _run(), depth=1)  # topic 1 keeps d1 only
    assert res.values["ERR-IA@5"][res.topics.index("1")] == pytest.approx(
        _err_ia([1.0], 5), abs=1e-15)


def test_bad_inputs_are_refused_naming_them(qrels):
    run = _run()
    with pytest.raises(InputError, match="two rows at rank 1"):
        ndeval(qrels, pd.concat([run, run.iloc[[0]].assign(docno="d9")]))
    with pytest.raises(InputError, match="docno 'd1' twice"):
        ndeval(qrels, pd.concat([run, run.iloc[[0]].assign(rank=7)]))
    with pytest.raises(InputError, match="natural number"):
        ndeval(qrels, run.assign(rank=1.5))
    with pytest.raises(InputError, match="columns"):
        ndeval(qrels, run.drop(columns="rank"))
    for kw in ({"alpha": 1.5}, {"beta": -0.1}, {"depth": 0}, {"traditional": "yes"}):
        with pytest.raises(RecevalError, match=next(iter(kw))):
            ndeval(qrels, run, **kw)


def test_cli_prints_ndeval_layout(qrels, tmp_path, capsys):
    run = tmp_path / "run.txt"
    run.write_text(RUN)
    assert main(["trec", "--ndeval", "-c", str(qrels), str(run)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == ndeval(qrels, _run(), complete=True).lines()
    for extra in (["-m", "map"], ["-q"]):
        assert main(["trec", "--ndeval", *extra, str(qrels), str(run)]) != 0
        assert "--ndeval" in capsys.readouterr().err
    assert main(["trec", "--alpha", "0.3", str(qrels), str(run)]) != 0
    assert "add --ndeval" in capsys.readouterr().err
