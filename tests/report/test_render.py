from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

import receval as rv
from receval.errors import PolicyError, UnknownMetricError
from receval.report import load, report
from receval.stats import Comparison, compare

NOTE = ("Superscripts name the systems a value is significantly better than (a = pop, b = knn); "
        "paired t-test, Holm over each metric family, alpha = 0.05; 4 users.")


def _row(metric, a, b, mean_a, mean_b, p, significant):
    return {"metric": metric, "a": a, "b": b, "n": 4, "mean_a": mean_a, "mean_b": mean_b,
            "diff": mean_a - mean_b, "ci_low": mean_a - mean_b - 0.05,
            "ci_high": mean_a - mean_b + 0.05, "cohens_d": 0.5, "wins": 1, "ties": 2,
            "losses": 1, "statistic": 1.5, "p_value": p, "p_adjusted": p,
            "significant": significant}


@pytest.fixture
def cmp() -> Comparison:
    summary = {"pop": {"ndcg@10": 0.25, "recall@5": 0.5},
               "knn": {"ndcg@10": 0.3125, "recall@5": 0.4375}}
    pairs = [_row("ndcg@10", "pop", "knn", 0.25, 0.3125, 0.01, True),
             _row("recall@5", "pop", "knn", 0.5, 0.4375, 0.5, False)]
    return Comparison(["pop", "knn"], ["ndcg@10", "recall@5"], summary, pairs, None, "t", "holm",
                      0.05, 1000, 0, {"users_compared": 4}, {"family": "metric"}, {})


def test_plain_golden(cmp):
    expected = "\n".join([
        "system     ndcg@10  recall@5",
        "-------  ---------  --------",
        "(a) pop     0.2500   0.5000*",
        "(b) knn  0.3125^a*    0.4375",
        NOTE,
        "* = best value.",
    ]) + "\n"
    assert report(cmp, "plain") == expected


def test_markdown_golden(cmp):
    expected = "\n".join([
        "| system | `ndcg@10` | `recall@5` |",
        "| --- | ---: | ---: |",
        "| (a) pop | 0.2500 | **0.5000** |",
        "| (b) knn | **0.3125**<sup>a</sup> | 0.4375 |",
        "",
        NOTE,
    ]) + "\n"
    assert report(cmp, "markdown") == expected


def test_latex_golden(cmp):
    expected = "\n".join([
        r"% requires \usepackage{booktabs}",
        r"\begin{table}[t]",
        r"\centering",
        r"\caption{" + NOTE + "}",
        r"\begin{tabular}{lrr}",
        r"\toprule",
        r"System & ndcg@10 & recall@5 \\",
        r"\midrule",
        r"(a) pop & 0.2500 & \textbf{0.5000} \\",
        r"(b) knn & \textbf{0.3125}$^{\mathrm{a}}$ & 0.4375 \\",
        r"\bottomrule",
        r"\end{tabular}",
        r"\end{table}",
    ]) + "\n"
    assert report(cmp, "latex") == expected


def test_latex_escapes_names():
    from receval.report.text import latex_escape

    assert latex_escape("a_b & 50%") == r"a\_b \& 50\%"


def test_csv_full_precision(cmp):
    lines = report(cmp, "csv").splitlines()
    assert lines[0] == ("metric,a,b,n,mean_a,mean_b,diff,ci_low,ci_high,cohens_d,wins,ties,"
                        "losses,statistic,p_value,p_adjusted,significant")
    assert lines[1].startswith("ndcg@10,pop,knn,4,0.25,0.3125,-0.0625,")
    assert lines[1].endswith(",0.01,0.01,True")
    assert len(lines) == 3


def test_text_rich_has_marks(cmp):
    pytest.importorskip("rich", reason="the box-drawn table needs the rich extra")
    text = report(cmp, "text")
    assert "0.3125 a" in text and "(b) knn" in text and "┃" in text


def test_metrics_subset_and_errors(cmp):
    text = report(cmp, "markdown", metrics=["recall@5"])
    assert "ndcg@10" not in text.splitlines()[0]
    with pytest.raises(UnknownMetricError, match="recall@5"):
        report(cmp, "markdown", metrics=["recall@50"])
    with pytest.raises(PolicyError, match="markdown"):
        report(cmp, "markdwn")


def test_json_loads_back(cmp, tmp_path):
    path = tmp_path / "c.json"
    text = report(cmp, "json", path=str(path))
    back = load(str(path))
    assert isinstance(back, Comparison) and back.pairs == cmp.pairs
    assert json.loads(text)["format"] == "receval.Comparison/1"


def _evalresults():
    rng = np.random.default_rng(0)
    truth = pd.DataFrame({"user": np.repeat(np.arange(60), 3),
                          "item": np.concatenate([rng.choice(30, 3, replace=False)
                                                  for _ in range(60)])})
    out = {}
    for name, skill in [("random", 0.0), ("better", 0.6)]:
        users = np.repeat(np.arange(60), 30)
        items = np.tile(np.arange(30), 60)
        hit = pd.MultiIndex.from_arrays([users, items]).isin(
            pd.MultiIndex.from_frame(truth))
        run = pd.DataFrame({"user": users, "item": items,
                            "score": rng.random(users.size) + skill * hit})
        out[name] = rv.evaluate(run, truth, ["ndcg@5", "ndcg@10", "recall@10", "mrr"], name=name)
    return out


def test_single_result_renders():
    res = _evalresults()["random"]
    md = report(res, "markdown")
    assert md.splitlines()[0] == "| metric | mean | std | se | n | skipped |"
    assert f"| ndcg@5 | {res['ndcg@5']:.4f} |" in md
    assert load(report(res, "json")).values.tobytes() == res.values.tobytes()
    assert report(res, "csv").splitlines()[1].startswith(f"ndcg@5,{res['ndcg@5']!r},")


def test_html_self_contained():
    pytest.importorskip("matplotlib", reason="the report's plots need the plot extra")
    results = _evalresults()
    cmp = compare(results, test="permutation", n_resamples=300)
    html = report(cmp, "html")
    assert html.startswith("<!DOCTYPE html>")
    assert 'id="metrics-table"' in html and 'id="pairs-table"' in html
    assert html.count('data-kind="at-k"') == 1  # ndcg@5 and ndcg@10
    assert html.count('data-kind="distribution"') == 4
    assert html.count("<svg") == 5
    assert 'id="def-ndcg@10"' in html and "DCG" in html  # formula shown
    assert "<script" not in html.lower() and "<link" not in html.lower()
    assert not re.search(r"(src|href)\s*=\s*[\"']?(https?:)?//", html)
    for m in ["ndcg@5", "ndcg@10", "recall@10", "mrr"]:
        assert f'id="def-{m}"' in html


def test_dict_of_results_json_and_notebook_html():
    results = _evalresults()
    back = load(report(results, "json"))
    assert list(back) == ["random", "better"]
    assert back["better"].values.tobytes() == results["better"].values.tobytes()
    md = report(results, "markdown")
    assert "No significance tests" in md
    cmp = compare(results, test="t")
    snippet = cmp._repr_html_()
    assert 'id="metrics-table"' in snippet and 'id="pairs-table"' in snippet


def test_evalresult_displays_as_an_html_table_in_jupyter():
    import receval as rv

    res = rv.evaluate({"u": {"a": 2.0, "b": 1.0}}, {"u": {"b": 1}}, ["mrr", "ndcg@2"], name="x<y>")
    snippet = res._repr_html_()
    assert snippet.startswith("<table>") and "<td>mrr</td><td>0.5000</td>" in snippet
    assert "x&lt;y&gt;" in snippet and "users: 1 evaluated" in snippet
