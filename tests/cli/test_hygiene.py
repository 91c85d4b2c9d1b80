"""Command-line hygiene, for every sub-command: help on every option, --debug everywhere, one
set of output-format names, usage errors exit 2, errors name the CLI flags, and no error prints
a traceback without --debug."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

import pytest

from receval.cli import main
from receval.cli.common import OUTPUT_FORMATS, cli_message, flag_names
from receval.cli.main import build_parser, subparser


def _subcommands():
    parser = build_parser()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    raise AssertionError("no sub-commands")


SUBCOMMANDS = _subcommands()


def test_every_command_is_registered():
    assert {"evaluate", "trec", "compare", "metrics", "explain", "split", "demo", "ab",
            "interleave", "ope", "agreement"} <= set(SUBCOMMANDS)


@pytest.mark.parametrize("name", sorted(SUBCOMMANDS))
def test_every_option_has_help(name):
    missing = [a.option_strings or [a.dest] for a in SUBCOMMANDS[name]._actions
               if not a.help or a.help == argparse.SUPPRESS]
    assert not missing, f"receval {name}: options without help: {missing}"


@pytest.mark.parametrize("name", sorted(SUBCOMMANDS))
def test_every_command_has_debug(name):
    assert any("--debug" in a.option_strings for a in SUBCOMMANDS[name]._actions)


@pytest.mark.parametrize("name", sorted(SUBCOMMANDS))
def test_output_format_names_are_shared(name):
    for a in SUBCOMMANDS[name]._actions:
        if "--format" not in a.option_strings:
            continue
        if name == "split":  # file formats of the written tables, as --run-format's
            assert set(a.choices) <= {"csv", "tsv", "parquet", "jsonl"}
            continue
        choices = a.metavar.strip("{}").split(",")
        assert set(choices) <= set(OUTPUT_FORMATS), (name, choices)
        assert a.default in choices


@pytest.mark.parametrize("name", ["evaluate", "compare", "explain", "ab", "ope"])
def test_digits_must_be_a_count_of_decimals(name, capsys):
    args = {"evaluate": ["--run", "r", "--truth", "t", "-m", "mrr"],
            "compare": ["a", "b", "--truth", "t", "-m", "mrr"],
            "explain": ["mrr", "--run", "r", "--truth", "t", "--user", "u"],
            "ab": ["d.csv", "--control", "A"], "ope": ["l.csv", "--run", "r"]}[name]
    assert main([name, *args, "--digits", "-1"]) == 2
    err = capsys.readouterr().err
    assert "--digits" in err and "Traceback" not in err


def test_format_aliases_accepted(files, capsys):
    run, truth = files
    assert main(["evaluate", "--run", str(run), "--truth", str(truth), "-m", "mrr",
                 "--format", "md"]) == 0
    assert capsys.readouterr().out.startswith("| metric")
    assert main(["evaluate", "--run", str(run), "--truth", str(truth), "-m", "mrr",
                 "--format", "html"]) == 2
    assert "invalid choice" in capsys.readouterr().err


@pytest.mark.parametrize("extra, flag", [
    (["--method", "random", "--quantile", "0.8"], "--quantile"),
    (["--method", "temporal", "--at", "5", "--test-size", "0.3"], "--test-size"),
    (["--method", "kfold", "--last-n", "2"], "--last-n"),
    (["--method", "leave-one-out", "--folds", "3"], "--folds"),
    (["--method", "cold-start", "--per-user"], "--per-user"),
])
def test_split_options_of_another_method_are_usage_errors(tmp_path, capsys, extra, flag):
    data = tmp_path / "d.csv"
    data.write_text("user,item,timestamp\n1,a,1\n1,b,2\n2,a,3\n2,c,4\n")
    assert main(["split", str(data), "-o", str(tmp_path / "out"), *extra]) == 2
    err = capsys.readouterr().err
    assert flag in err and "does not apply" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()


def test_messages_name_flags_not_python_arguments():
    flags = flag_names(subparser(build_parser(), "split"))
    msg = cli_message("at='x' cannot be read as a date; n_resamples=0 and ndcg@10(k=1)", flags)
    assert msg.startswith("--at 'x' cannot")
    assert "--resamples 0" in msg and "ndcg@10(k=1)" in msg


def test_temporal_error_names_the_flag(tmp_path, capsys):
    data = tmp_path / "d.csv"
    data.write_text("user,item,timestamp\n1,a,2020-01-01\n1,b,2020-02-01\n2,a,2020-03-01\n")
    code = main(["split", str(data), "-o", str(tmp_path / "o"), "--method", "temporal",
                 "--at", "not-a-date"])
    err = capsys.readouterr().err
    assert code == 1 and "--at 'not-a-date'" in err and "at=" not in err


def _bad_invocations(tmp_path, files):
    run, truth = (str(p) for p in files)
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b\n1,2\n")
    garbage = tmp_path / "garbage.parquet"
    garbage.write_bytes(b"not parquet at all")
    qrels = tmp_path / "q.qrels"
    qrels.write_text("1 0 a x\n")
    trec_run = tmp_path / "r.run"
    trec_run.write_text("1 Q0 a 1 nan-ish t\n")
    missing = str(tmp_path / "missing.csv")
    return {
        "evaluate": [
            ["evaluate", "--run", missing, "--truth", truth, "-m", "mrr"],
            ["evaluate", "--run", run, "--truth", truth, "-m", "nosuchmetric@10"],
            ["evaluate", "--run", str(bad), "--truth", truth, "-m", "mrr"],
            ["evaluate", "--run", str(garbage), "--truth", truth, "-m", "mrr"],
            ["evaluate", "--run", run, "--truth", truth, "-m", "ndcg@x"],
            ["evaluate", "--run", run, "--truth", truth, "-m", "mrr", "--stream",
             "--user-col", "nope"],
        ],
        "trec": [["trec", str(qrels), str(trec_run)], ["trec", missing, missing],
                 ["trec", str(qrels), str(trec_run), "-m", "nosuch"]],
        "compare": [["compare", run, "--truth", truth, "-m", "mrr"],
                    ["compare", run, run, "--truth", truth, "-m", "mrr", "--baseline", "zz"],
                    ["compare", run, missing, "--truth", truth, "-m", "mrr"]],
        "metrics": [["metrics", "nosuchmetric"]],
        "diff": [["diff", "--run", run, "--truth", truth, "-m", "mrr", "--a", "nosuchlibrary"],
                 ["diff", "--run", missing, "--truth", truth, "-m", "mrr"],
                 ["diff", "--run", run, "--truth", truth, "-m", "mrr", "-o", run]],
        "explain": [["explain", "mrr", "--run", run, "--truth", truth, "--user", "nobody"],
                    ["explain", "nosuch", "--run", run, "--truth", truth, "--user", "alice"]],
        "split": [["split", str(bad), "-o", str(tmp_path / "o1"), "--method", "temporal",
                   "--quantile", "0.5"],
                  ["split", missing, "-o", str(tmp_path / "o2")],
                  ["split", str(tmp_path / "x.xyz"), "-o", str(tmp_path / "o3")]],
        "demo": [["demo", "--users", "0"]],
        "ab": [["ab", str(bad), "--control", "A", "--mean", "rev"], ["ab", missing,
                                                                       "--control", "A"]],
        "interleave": [["interleave", str(bad)]],
        "ope": [["ope", str(bad), "--run", run]],
        "agreement": [["agreement", str(bad)]],
    }


def test_no_traceback_without_debug(tmp_path, files, capsys):
    cases = _bad_invocations(tmp_path, files)
    assert set(cases) >= set(SUBCOMMANDS)
    for invocations in cases.values():
        for argv in invocations:
            code = main(argv)
            err = capsys.readouterr().err
            assert code in (1, 2), (argv, code, err)
            assert "Traceback" not in err, (argv, err)
            assert err.strip(), argv
            if code == 1:
                assert len(err.strip().splitlines()) == 1, (argv, err)
                assert err.startswith("receval: error: "), (argv, err)


def test_unexpected_exceptions_are_one_line_too(monkeypatch, files, capsys):
    from receval.cli import evaluate_cmd

    def boom(args):
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(evaluate_cmd, "evaluate_files", boom)
    run, truth = files
    argv = ["evaluate", "--run", str(run), "--truth", str(truth), "-m", "mrr"]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "ZeroDivisionError" in err and "--debug" in err and "Traceback" not in err
    with pytest.raises(ZeroDivisionError):
        main([*argv, "--debug"])


def test_subprocess_errors_have_no_traceback(tmp_path, files):
    run, truth = files
    env = dict(os.environ, PYTHONWARNINGS="error")
    for argv in (["evaluate", "--run", str(run), "--truth", str(truth), "-m", "ndcg@inf"],
                 ["evaluate", "--run", str(run), "--truth", str(truth), "-m", "mrr",
                  "--digits", "-1"],
                 ["trec", str(truth), str(run), "-l", "1e400"],
                 ["split", str(run), "-o", str(tmp_path), "--method", "random",
                  "--quantile", "0.8"]):
        out = subprocess.run([sys.executable, "-m", "receval", *argv], capture_output=True,
                             text=True, env=env, timeout=120)
        assert out.returncode in (1, 2), (argv, out.stderr)
        assert "Traceback" not in out.stderr, (argv, out.stderr)


def test_wide_tables_fit_the_terminal(files, capsys, monkeypatch):
    run, truth = files
    monkeypatch.setenv("COLUMNS", "50")
    metrics = ["-m", "ndcg@3,mrr,precision@3,recall@3,map@3,hit_rate@3"]
    assert main(["evaluate", "--run", str(run), "--truth", str(truth), *metrics,
                 "--per-user"]) == 0
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= 50
    assert out.count("user") >= 2  # the user column is repeated in every column group
    monkeypatch.delenv("COLUMNS")
    assert main(["evaluate", "--run", str(run), "--truth", str(truth), *metrics,
                 "--per-user", "-o", str(run.parent / "wide.txt")]) == 0
    wide = (run.parent / "wide.txt").read_text()
    assert wide.count("user") == 1  # a file is never wrapped
