"""trec_eval 9.0.8's own test runs: receval trec must print byte-identical output."""

from __future__ import annotations

import json
import shlex

import pytest

from receval.cli import main
from receval.io.files import read_trec_qrels, read_trec_run
from receval.trec.evaluate import trec_eval


def _runs(shared_dir):
    data = json.loads((shared_dir / "trec_eval_suite" / "expected.json").read_text())
    return data["tolerance"], data["runs"]


def _measures(args: list[str]) -> list[str]:
    out, i = [], 0
    while i < len(args):
        if args[i] == "-m":
            out.append(args[i + 1])
            i += 2
        elif args[i].startswith("-m"):
            out.append(args[i][2:])
            i += 1
        else:
            i += 1
    return out


@pytest.mark.parametrize("index", range(7))
def test_values_match_expected_json(shared_dir, index):
    tol, runs = _runs(shared_dir)
    run = runs[index]
    folder = shared_dir / "trec_eval_suite" / "v9.0.8"
    res = trec_eval(read_trec_qrels(folder / run["qrels"]), read_trec_run(folder / run["results"]),
                    _measures(run["args"]), level=run["rel_level"], complete=run["complete"],
                    max_docs=run["max_docs"])
    checked = 0
    for qid, values in run["values"].items():
        for name, expected in values.items():
            got = res.summary[name] if qid == "all" else res.values[name][res.qids.index(qid)]
            if isinstance(expected, str):
                assert str(got).strip("'") == expected.strip("'"), (qid, name)
            else:
                assert abs(float(got) - expected) <= tol, (qid, name, got, expected)
            checked += 1
    assert checked == sum(len(v) for v in run["values"].values())
    # every printed column is in trec_eval's output (no extra measure)
    printed = {line.split("\t")[0].strip() for line in res.lines(per_query=run["per_query"])}
    expected_names = {n for v in run["values"].values() for n in v}
    assert printed == expected_names


@pytest.mark.parametrize("index", range(7))
def test_output_is_byte_identical(shared_dir, index, capsys):
    _, runs = _runs(shared_dir)
    run = runs[index]
    folder = shared_dir / "trec_eval_suite" / "v9.0.8"
    args = ["trec", *run["args"], str(folder / run["qrels"]), str(folder / run["results"])]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert out == (folder / run["output"]).read_text(), shlex.join(args)
