"""Library messages name keywords; the command line writes each as the flag behind it."""

from __future__ import annotations

import argparse

import pytest

from receval.cli.common import cli_message, flag_names, keywords_as
from receval.cli.main import build_parser, main
from receval.errors import IN_MEMORY, InputError


def _subparser(name: str) -> argparse.ArgumentParser:
    parser = build_parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return sub.choices[name]


@pytest.mark.parametrize("command", ["evaluate", "compare", "trec", "split", "diff"])
def test_every_switch_is_written_as_a_flag_without_a_value(command):
    flags = flag_names(_subparser(command))
    for dest in flags.switches:
        on = cli_message(f"pass {dest}=True here", flags)
        off = cli_message(f"use {dest}=False here", flags)
        assert on == f"pass {flags[dest]} here"
        assert off == f"use without {flags[dest]} here"
        assert "True" not in on and "False" not in off


def test_valued_keywords_become_flags_and_the_in_memory_advice_the_stream_flag():
    flags = flag_names(_subparser("evaluate"))
    assert cli_message("pass user_col=<the user column>.", flags) == \
        "pass --user-col <the user column>."
    assert cli_message(f"sort it (or {IN_MEMORY}).", flags) == \
        "sort it (or evaluate it without --stream)."


def test_keywords_as_renames_a_keyword_to_the_flag_that_filled_it():
    flags = flag_names(_subparser("evaluate"))
    with pytest.raises(InputError) as info, keywords_as(format="run_format"):
        raise InputError("x.bin: unknown format format='bin'; choose one of ['csv'].")
    assert cli_message(str(info.value), flags) == \
        "x.bin: unknown format --run-format 'bin'; choose one of ['csv']."


def test_strict_advice_is_a_usable_command_line(tmp_path, capsys):
    (tmp_path / "r.csv").write_text("user,item,score\n1,2,1.0\n")
    (tmp_path / "t.csv").write_text("user,item\n1,2\n")
    code = main(["evaluate", "--run", str(tmp_path / "r.csv"), "--truth", str(tmp_path / "t.csv"),
                 "--compat", "recmetrics", "-m", "mark@3", "--strict"])
    err = capsys.readouterr().err
    assert code == 1
    assert "Without --strict the preset reproduces" in err and "strict False" not in err
