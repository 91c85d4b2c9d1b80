"""No sub-command writes its output over one of its inputs (by path, ``..``, symlink or hard
link) unless ``--force``; outputs are written atomically."""

from __future__ import annotations

import os

import pandas as pd
import pytest

from receval.cli import main
from receval.io.output import atomic_path, same_file, write_text


def _refused(capsys, argv, *inputs):
    before = {p: p.read_bytes() for p in inputs}
    assert main(argv) == 2
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "--force" in lines[0] and "Traceback" not in err, err
    assert "refusing to overwrite" in lines[0]
    for p, data in before.items():
        assert p.read_bytes() == data, f"{p} was changed"


def test_evaluate_refuses_output_over_run_or_truth(files, capsys):
    run, truth = files
    base = ["evaluate", "--run", str(run), "--truth", str(truth), "-m", "mrr"]
    _refused(capsys, [*base, "-o", str(run)], run, truth)
    _refused(capsys, [*base, "-o", str(truth)], run, truth)
    other = run.parent / "sub"
    other.mkdir()
    _refused(capsys, [*base, "-o", str(other / ".." / "run.csv")], run, truth)


def test_symlinks_and_hard_links_are_the_same_file(files, capsys):
    run, truth = files
    link = run.parent / "link.csv"
    link.symlink_to(run)
    hard = run.parent / "hard.csv"
    os.link(run, hard)
    base = ["evaluate", "--run", str(run), "--truth", str(truth), "-m", "mrr"]
    _refused(capsys, [*base, "-o", str(link)], run)
    _refused(capsys, [*base, "-o", str(hard)], run)
    assert same_file(hard, run) and same_file(link, run)
    assert not same_file(run.parent / "new.csv", run)


def test_force_overwrites(files, capsys):
    run, truth = files
    assert main(["evaluate", "--run", str(run), "--truth", str(truth), "-m", "mrr",
                 "--format", "csv", "-o", str(run), "--force"]) == 0
    assert run.read_text().startswith("metric,mean")


def test_compare_refuses_output_over_a_run(files, capsys, tmp_path, monkeypatch):
    run, truth = files
    run2 = tmp_path / "run2.csv"
    run2.write_bytes(run.read_bytes())
    base = ["compare", str(run), str(run2), "--truth", str(truth), "-m", "mrr"]
    _refused(capsys, [*base, "-o", str(run2)], run, run2, truth)
    _refused(capsys, [*base, "--format", "html", "-o", str(truth)], run, run2, truth)
    monkeypatch.chdir(tmp_path)  # the html default, receval-report.html, is an input here
    (tmp_path / "receval-report.html").write_bytes(run.read_bytes())
    _refused(capsys, ["compare", "receval-report.html", str(run), "--truth", str(truth), "-m",
                      "mrr", "--format", "html"], tmp_path / "receval-report.html")


def test_split_refuses_to_write_its_input(tmp_path, capsys):
    data = tmp_path / "data"
    data.mkdir()
    train = data / "train.csv"
    pd.DataFrame({"user": [1, 1, 2, 2, 3, 3], "item": list("abcabc")}).to_csv(train, index=False)
    _refused(capsys, ["split", str(train), "-o", str(data)], train)
    # k-fold writes fold_<i>/train.csv: an input there is protected too
    (data / "fold_2").mkdir()
    fold = data / "fold_2" / "test.csv"
    fold.write_bytes(train.read_bytes())
    _refused(capsys, ["split", str(fold), "-o", str(data), "--method", "kfold", "--folds", "3"],
             fold)
    assert main(["split", str(train), "-o", str(tmp_path / "out")]) == 0
    capsys.readouterr()
    assert (tmp_path / "out" / "train.csv").exists()
    assert not [p for p in (tmp_path / "out").iterdir() if p.name.startswith(".receval-")]


def test_explain_and_online_refuse_output_over_an_input(files, capsys, tmp_path):
    run, truth = files
    _refused(capsys, ["explain", "mrr", "--run", str(run), "--truth", str(truth), "--user",
                      "alice", "-o", str(run)], run)
    units = tmp_path / "units.csv"
    units.write_text("variant,rev\nA,1\nB,2\nA,3\nB,4\n")
    _refused(capsys, ["ab", str(units), "--control", "A", "--mean", "rev", "-o", str(units)],
             units)
    _refused(capsys, ["ope", str(units), "--run", str(run), "-o", str(run)], run, units)


def test_atomic_write_keeps_the_old_file_on_error(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("old")
    with pytest.raises(RuntimeError), atomic_path(target) as tmp:
        with open(tmp, "w") as fh:
            fh.write("half")
        raise RuntimeError("crash")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]
    os.chmod(target, 0o640)
    write_text(target, "new")
    assert target.read_text() == "new"
    assert oct(os.stat(target).st_mode & 0o777) == oct(0o640)


def test_atomic_path_keeps_the_extension(tmp_path):
    with atomic_path(tmp_path / "r.csv.gz") as tmp:
        assert tmp.endswith("r.csv.gz")
        open(tmp, "w").close()


def test_report_csv_has_plain_numbers(tmp_path):
    import numpy as np

    import receval as rv
    from receval.report.tables import render

    res = rv.evaluate({"u": {"a": 1.0, "b": 0.5}, "v": {"a": 1.0}}, {"u": {"b": 1}, "v": {"a": 1}},
                      ["mrr", "precision@2"])
    path = tmp_path / "r.csv"
    text = rv.report(res, "csv", path=str(path))
    assert "np." not in text and path.read_text() == text
    assert text.splitlines()[1].startswith("mrr,0.75,")
    cmp = rv.compare({"a": res, "b": res}, test="t")
    assert "np." not in rv.report(cmp, "csv")
    assert "np." not in rv.report({"a": res, "b": res}, "csv")
    table = render(["x", "y"], [[np.float64(0.02), np.int64(3)]], "csv")
    assert table == "x,y\n0.02,3"
