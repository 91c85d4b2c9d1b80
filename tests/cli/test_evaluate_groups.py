"""``receval evaluate --groups FILE --group-col COL``: the summary, then one row per group and
metric, each group's row as if its users were evaluated alone."""

from __future__ import annotations

import csv
import io
import json
import math

import pytest

import receval as rv
from receval.cli import main

# Five truth users; the run ranks each one's single relevant item at rank 1, 2, 3, nowhere,
# and u5 is not in the run (scored 0 under the default users="truth").
RUN = ("user,item,score\n"
       "u1,a,3\nu1,b,2\nu1,c,1\n"
       "u2,b,3\nu2,a,2\nu2,c,1\n"
       "u3,b,3\nu3,c,2\nu3,a,1\n"
       "u4,b,3\nu4,c,2\nu4,d,1\n")
TRUTH = "user,item\nu1,a\nu2,a\nu3,a\nu4,a\nu5,a\n"
# u5 has no group; u9 is listed but not evaluated
GROUPS = ("user,activity,device\n"
          "u1,heavy,mobile\nu3,heavy,desktop\nu2,light,mobile\nu4,light,mobile\n"
          "u9,light,desktop\n")
RR = {"u1": 1.0, "u2": 0.5, "u3": 1 / 3, "u4": 0.0, "u5": 0.0}
T_975_DF1 = 12.706204736174698  # Student t quantile 0.975 with 1 degree of freedom


@pytest.fixture
def gfiles(tmp_path):
    paths = {}
    for name, text in (("run", RUN), ("truth", TRUTH), ("groups", GROUPS)):
        paths[name] = tmp_path / f"{name}.csv"
        paths[name].write_text(text)
    return paths


def _cli(gfiles, *extra, capsys):
    code = main(["evaluate", "--run", str(gfiles["run"]), "--truth", str(gfiles["truth"]),
                 *map(str, extra)])
    out = capsys.readouterr()
    return code, out.out, out.err


def _csv_rows(text):
    return list(csv.DictReader(io.StringIO(text)))


def _stats(values):
    n = len(values)
    mean = sum(values) / n
    std = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    return mean, std, std / math.sqrt(n)


def test_csv_rows_are_the_hand_computed_group_summaries(gfiles, capsys):
    code, out, err = _cli(gfiles, "-m", "mrr", "--groups", gfiles["groups"], "--group-col",
                          "activity", "--format", "csv", capsys=capsys)
    assert code == 0, err
    rows = _csv_rows(out)
    assert [r["group"] for r in rows] == ["", "heavy", "light"]
    whole, heavy, light = rows
    # all five users, u5 (ungrouped, missing from the run) included in the summary
    assert float(whole["mean"]) == pytest.approx(sum(RR.values()) / 5, abs=1e-15)
    assert (int(whole["n"]), int(whole["users"]), int(whole["missing_from_run"])) == (5, 5, 1)
    for row, users in ((heavy, ["u1", "u3"]), (light, ["u2", "u4"])):
        mean, std, se = _stats([RR[u] for u in users])
        assert float(row["mean"]) == pytest.approx(mean, abs=1e-15)
        assert float(row["std"]) == pytest.approx(std, abs=1e-15)
        assert float(row["se"]) == pytest.approx(se, abs=1e-15)
        assert float(row["ci_low"]) == pytest.approx(mean - T_975_DF1 * se, abs=1e-12)
        assert float(row["ci_high"]) == pytest.approx(mean + T_975_DF1 * se, abs=1e-12)
        assert (int(row["n"]), int(row["users"]), int(row["skipped"]),
                int(row["missing_from_run"])) == (2, 2, 0, 0)
    assert "1 evaluated user(s) are in no group" in err


def test_each_group_row_equals_evaluating_its_users_alone(gfiles, tmp_path, capsys):
    code, out, _ = _cli(gfiles, "-m", "mrr,ndcg@3,P@2", "--groups", gfiles["groups"],
                        "--group-col", "activity", "--format", "csv", capsys=capsys)
    assert code == 0
    rows = [r for r in _csv_rows(out) if r["group"]]
    members = {"heavy": {"u1", "u3"}, "light": {"u2", "u4"}}
    for group, users in members.items():
        alone = {}
        for name, text in (("run", RUN), ("truth", TRUTH)):
            lines = text.splitlines()
            keep = [lines[0]] + [ln for ln in lines[1:] if ln.split(",")[0] in users]
            alone[name] = tmp_path / f"{group}_{name}.csv"
            alone[name].write_text("\n".join(keep) + "\n")
        code, out_alone, _ = _cli(alone, "-m", "mrr,ndcg@3,P@2", "--format", "csv",
                                  capsys=capsys)
        assert code == 0
        want = {r["metric"]: r for r in _csv_rows(out_alone)}
        got = [r for r in rows if r["group"] == group]
        assert [r["metric"] for r in got] == ["mrr", "ndcg@3", "precision@2"]
        for r in got:  # the same text: the same bits
            for col in ("mean", "std", "se", "n", "skipped"):
                assert r[col] == want[r["metric"]][col], (group, r["metric"], col)


def test_json_is_the_result_document_with_groups(gfiles, capsys):
    code, out, _ = _cli(gfiles, "-m", "mrr", "--groups", gfiles["groups"], "--group-col",
                        "activity", "--format", "json", capsys=capsys)
    assert code == 0
    doc = json.loads(out)
    info = doc["info"]["groups"]
    assert info["columns"] == ["activity"]
    assert info["sizes"] == {"heavy": 2, "light": 2}
    assert (info["ungrouped"], info["listed_not_evaluated"], info["users_listed"]) == (1, 1, 5)
    res = rv.EvalResult.from_json(out)
    py = rv.evaluate({u: {i: s for uu, i, s in _triples(RUN) if uu == u}
                      for u in ("u1", "u2", "u3", "u4")},
                     {u: {"a": 1} for u in RR}, ["mrr"],
                     groups={"u1": "heavy", "u3": "heavy", "u2": "light", "u4": "light",
                             "u9": "light"})
    assert res.group_stats == py.group_stats
    assert dict(zip(res.user_ids.tolist(), res.group_of.tolist(), strict=True)) == \
        {"u1": "heavy", "u2": "light", "u3": "heavy", "u4": "light", "u5": None}


def _triples(text):
    return [(u, i, float(s)) for u, i, s in (ln.split(",") for ln in text.splitlines()[1:])]


def test_two_group_columns_give_intersections_repeated_or_comma(gfiles, capsys):
    outs = []
    for flags in (["--group-col", "activity", "--group-col", "device"],
                  ["--group-col", "activity,device"]):
        code, out, _ = _cli(gfiles, "-m", "mrr", "--groups", gfiles["groups"], *flags,
                            "--format", "csv", capsys=capsys)
        assert code == 0
        outs.append(out)
    assert outs[0] == outs[1]
    rows = {r["group"]: r for r in _csv_rows(outs[0]) if r["group"]}
    # labels in first-seen order of the file; "light & desktop" only holds u9 (not evaluated)
    assert list(rows) == ["heavy & mobile", "heavy & desktop", "light & mobile",
                          "light & desktop"]
    assert float(rows["light & mobile"]["mean"]) == pytest.approx(0.25, abs=1e-15)
    assert float(rows["heavy & desktop"]["mean"]) == pytest.approx(1 / 3, abs=1e-15)
    assert int(rows["light & desktop"]["users"]) == 0
    assert rows["light & desktop"]["mean"] in ("", "nan", "NaN")


def test_table_output_has_the_summary_then_the_groups_and_counts(gfiles, capsys):
    code, out, _ = _cli(gfiles, "-m", "mrr", "--groups", gfiles["groups"], "--group-col",
                        "activity", "--format", "table", "--digits", "4", capsys=capsys)
    assert code == 0
    summary, groups = out.split("\n\n", 1)
    assert summary.splitlines()[0].split() == ["metric", "mean", "std", "se", "n", "skipped"]
    head = groups.splitlines()[0].split()
    assert head == ["group", "metric", "mean", "ci_low", "ci_high", "n", "skipped", "users",
                    "missing_from_run"]
    heavy = next(ln.split() for ln in groups.splitlines() if ln.startswith("heavy"))
    assert heavy[2] == f"{2 / 3:.4f}"
    assert "groups: 2 group(s) of activity, 4 users grouped, 1 evaluated without a group, " \
        "1 listed not evaluated" in groups


def test_per_user_rows_carry_the_group(gfiles, capsys):
    code, out, _ = _cli(gfiles, "-m", "mrr", "--groups", gfiles["groups"], "--group-col",
                        "activity", "--per-user", "--format", "csv", capsys=capsys)
    assert code == 0
    rows = {r["user"]: r for r in _csv_rows(out)}
    assert {u: r["group"] for u, r in rows.items()} == \
        {"u1": "heavy", "u2": "light", "u3": "heavy", "u4": "light", "u5": ""}
    assert float(rows["u3"]["mrr"]) == pytest.approx(1 / 3, abs=1e-15)


def test_streamed_run_gives_the_same_group_rows(gfiles, capsys):
    args = ["-m", "mrr,ndcg@3", "--groups", gfiles["groups"], "--group-col", "activity",
            "--format", "csv"]
    code, whole, _ = _cli(gfiles, *args, "--no-stream", capsys=capsys)
    assert code == 0
    code, streamed, _ = _cli(gfiles, *args, "--stream", "--block-rows", "4", capsys=capsys)
    assert code == 0
    assert streamed == whole


def test_group_user_col_names_another_user_column(gfiles, tmp_path, capsys):
    other = tmp_path / "who.tsv"
    other.write_text("who\tband\n" + "".join(
        f"{u}\t{g}\n" for u, g in (("u1", "x"), ("u2", "x"), ("u3", "y"))))
    code, out, _ = _cli(gfiles, "-m", "mrr", "--groups", other, "--group-user-col", "who",
                        "--format", "csv", capsys=capsys)  # the one other column: no --group-col
    assert code == 0
    rows = {r["group"]: r for r in _csv_rows(out) if r["group"]}
    assert float(rows["x"]["mean"]) == pytest.approx(0.75, abs=1e-15)
    assert float(rows["y"]["mean"]) == pytest.approx(1 / 3, abs=1e-15)


def test_numeric_ids_against_text_ids_are_ungrouped_with_a_note(gfiles, tmp_path, capsys):
    pytest.importorskip("pyarrow")
    import pandas as pd

    path = tmp_path / "groups.parquet"
    pd.DataFrame({"user": [1, 2, 3], "g": ["a", "a", "b"]}).to_parquet(path)
    code, out, err = _cli(gfiles, "-m", "mrr", "--groups", path, "--group-col", "g",
                          "--format", "csv", capsys=capsys)
    assert code == 0
    assert "none of the 3 users of --groups" in err and "text against numbers" in err
    assert all(int(r["users"]) == 0 for r in _csv_rows(out) if r["group"])


# ---- errors: one line naming the flag -----------------------------------------------------
@pytest.mark.parametrize("extra, code, needles", [
    (["--groups", "{tmp}/nope.csv", "--group-col", "activity"], 1,
     ["--groups", "nope.csv", "does not exist"]),
    (["--groups", "{groups}", "--group-col", "country"], 1,
     ["--group-col 'country'", "no such column", "'activity'", "'device'"]),
    (["--groups", "{groups}"], 1, ["--groups", "--group-col", "['user', 'activity', 'device']"]),
    (["--groups", "{groups}", "--group-col", "activity", "--group-user-col", "uid"], 1,
     ["'uid'", "--group-user-col"]),
    (["--group-col", "activity"], 2, ["--group-col describes the --groups file"]),
    (["--group-user-col", "u", "--group-col", "a"], 2, ["--group-col, --group-user-col"]),
    (["--groups", "{groups}", "--group-col", "activity", "--engine", "spark"], 2,
     ["--groups is evaluated by the local engine only", "--engine spark"]),
    (["--groups", "{groups}", "--group-col", "activity", "-o", "{groups}"], 2,
     ["refusing to overwrite"]),
])
def test_errors_name_the_flag(gfiles, tmp_path, capsys, extra, code, needles):
    extra = [e.format(tmp=tmp_path, groups=gfiles["groups"]) for e in extra]
    got, out, err = _cli(gfiles, "-m", "mrr", *extra, capsys=capsys)
    assert got == code
    assert out == ""
    assert len(err.strip().splitlines()) == 1, err
    for needle in needles:
        assert needle in err, (needle, err)
    assert GROUPS == gfiles["groups"].read_text()  # never written over


@pytest.mark.parametrize("text, needles", [
    ("user,activity\nu1,heavy\nu1,light\n", ["'u1'", "listed in two groups", "'heavy'"]),
    ("user,activity\nu1,\nu2,light\n", ["'activity'", "missing label"]),
    ("user,activity\n", ["no rows"]),
    ("", ["empty"]),
])
def test_bad_groups_files_are_refused_naming_the_file(gfiles, tmp_path, capsys, text, needles):
    path = tmp_path / "bad.csv"
    path.write_text(text)
    code, out, err = _cli(gfiles, "-m", "mrr", "--groups", path, "--group-col", "activity",
                          capsys=capsys)
    assert (code, out) == (1, "")
    assert "bad.csv" in err
    for needle in needles:
        assert needle in err, (needle, err)


def test_a_trec_groups_file_is_refused(gfiles, tmp_path, capsys):
    path = tmp_path / "groups.txt"
    path.write_text(GROUPS)
    code, _, err = _cli(gfiles, "-m", "mrr", "--groups", path, "--group-col", "activity",
                        capsys=capsys)
    assert code == 2
    assert "not a TREC file" in err and "--groups-format" in err
    code, out, err = _cli(gfiles, "-m", "mrr", "--groups", path, "--group-col", "activity",
                          "--groups-format", "csv", "--format", "csv", capsys=capsys)
    assert code == 0, err
    assert [r["group"] for r in _csv_rows(out)] == ["", "heavy", "light"]
