"""The policy table is the one declaration of each policy: the ``Policies`` type, the declared
parameters, the command-line flags, rv.diff's words, explain's tie text, the module table and
the kernels' options all read it, so every row of it shows up in each of them."""

from __future__ import annotations

import argparse
import ast
import dataclasses
from pathlib import Path

import pandas as pd
import pytest

import receval as rv
import receval.policies as policies_module
from receval import difference, explain
from receval.cli.common import add_policy_flags, policies_from
from receval.cli.main import build_parser
from receval.pack.options import kernel_options
from receval.policies import (
    OPTIONAL_POLICY_PARAMS,
    POLICY_CHOICES,
    POLICY_DEFAULTS,
    POLICY_PARAMS,
    POLICY_TABLE,
    Policies,
    policy_table_rst,
)
from receval.validation import check_param

RECORDS = list(POLICY_TABLE.values())
CASES = [(p.name, c) for p in RECORDS for c in p.values]


def _ids(p):
    return p.name


def test_every_record_is_well_formed():
    for p in RECORDS:
        assert p.values and len(set(p.values)) == len(p.values), p.name
        assert p.default in p.values and p.governs and p.help
        assert "\n" not in p.help, "help is one line"


def test_policies_fields_are_the_table():
    assert [f.name for f in dataclasses.fields(Policies)] == list(POLICY_TABLE)
    assert Policies().to_dict() == {p.name: p.default for p in RECORDS} == POLICY_DEFAULTS
    assert POLICY_CHOICES == {p.name: p.values for p in RECORDS}


@pytest.mark.parametrize(("name", "value"), CASES)
def test_every_choice_is_a_policy_value(name, value):
    pol = Policies(**{name: value})
    assert getattr(pol, name) == value
    assert Policies.from_kwargs(**{name: value}) == pol


@pytest.mark.parametrize("p", RECORDS, ids=_ids)
def test_invalid_value_names_policy_value_and_choices(p):
    with pytest.raises(rv.PolicyError) as err:
        Policies(**{p.name: "bogus"})
    assert str(err.value).startswith(
        f"{p.name}='bogus' is not a valid policy; choose one of {list(p.values)}.")
    close = p.values[-1][:-1]  # one letter off: the message suggests the choice
    with pytest.raises(rv.PolicyError, match=f"'{p.values[-1]}'"):
        Policies(**{p.name: close})


@pytest.mark.parametrize("p", RECORDS, ids=_ids)
def test_declared_parameters_accept_exactly_the_choices(p):
    for value in p.values:
        assert check_param("f", p.name, value, POLICY_PARAMS[p.name]) == value
        assert check_param("f", p.name, value, OPTIONAL_POLICY_PARAMS[p.name]) == value
    assert check_param("f", p.name, None, OPTIONAL_POLICY_PARAMS[p.name]) is None
    for params in (POLICY_PARAMS, OPTIONAL_POLICY_PARAMS):
        with pytest.raises(rv.ParameterError) as err:
            check_param("f", p.name, "bogus", params[p.name])
        assert f"{p.name}='bogus'" in str(err.value)
        assert all(v in str(err.value) for v in p.values)
    with pytest.raises(rv.ParameterError):
        check_param("f", p.name, None, POLICY_PARAMS[p.name])
    assert set(POLICY_PARAMS) == set(OPTIONAL_POLICY_PARAMS) == set(POLICY_TABLE)


def _policy_actions(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    return {a.dest: a for a in parser._actions if a.dest in POLICY_TABLE}


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def test_cli_flags_are_the_table():
    commands = {name: _policy_actions(p) for name, p in _subparsers(build_parser()).items()}
    with_flags = {name: acts for name, acts in commands.items() if "ties" in acts}
    assert {"evaluate", "compare", "explain"} <= set(with_flags)
    for acts in with_flags.values():
        assert list(acts) == list(POLICY_TABLE)
        for p in RECORDS:
            a = acts[p.name]
            assert a.option_strings == ["--" + p.name.replace("_", "-")]
            assert tuple(a.choices) == p.values
            assert a.default is None  # not given: the preset's policy, or the default
            assert p.help in a.help and f"default {p.default}" in a.help


@pytest.mark.parametrize("p", RECORDS, ids=_ids)
def test_cli_flags_give_the_policies(p):
    parser = argparse.ArgumentParser()
    add_policy_flags(parser)
    assert policies_from(parser.parse_args([])) == {}
    for value in p.values:
        args = parser.parse_args([p.flag, value])
        assert policies_from(args) == {p.name: value}
    with pytest.raises(SystemExit):
        parser.parse_args([p.flag, "bogus"])


def test_diff_words_are_the_table():
    for p in RECORDS:
        assert difference._describe(p.name) == p.governs
    # the words reach the explanation: the empty-truth policy moves the mean here
    run = {"u": {"a": 2.0, "b": 1.0}, "v": {"a": 1.0}}
    truth = pd.DataFrame({"user": ["u", "v"], "item": ["a", "a"], "relevance": [1, 0]})
    d = rv.diff(run, truth, ["ndcg@2"], None, {"empty_truth": "zero"})
    assert POLICY_TABLE["empty_truth"].governs in d.explanation(d["ndcg@2"])


@pytest.mark.parametrize("ties", POLICY_CHOICES["ties"])
def test_explain_prints_the_tables_tie_order(ties):
    run = {"u": {"a": 1.0, "b": 1.0, "c": 0.5}}
    truth = {"u": {"b": 1}}
    ex = explain.explain("ndcg@3", run, truth, "u", ties=ties)
    assert ex.notes[0] == f"order: {POLICY_TABLE['ties'].explain[ties]}"


def test_module_table_is_generated_from_the_records():
    doc = policies_module.__doc__
    assert doc.endswith(policy_table_rst())
    rows = policy_table_rst().split("\n")[3:-2]
    starts = [i for i, line in enumerate(rows) if not line.startswith(" ")]
    assert [rows[i].split()[0] for i in starts] == [f"``{p.name}``" for p in RECORDS]
    for i, (start, p) in enumerate(zip(starts, RECORDS, strict=True)):
        block = " ".join(line[47:] for line in rows[start:(starts + [len(rows)])[i + 1]])
        assert rows[start].split()[1] == f'``"{p.default}"``'
        assert block.startswith(p.governs[0].upper() + p.governs[1:])
        for c in p.choices:
            assert f'``"{c.value}"``' in block
            assert " ".join(c.doc.split()) in block
        assert " ".join(p.note.split()) in block


#: the options each policy sets: a policy's choices move its own options and no other
OPTIONS_OF = {
    "ties": {"as_float32", "desc_ids", "by_row", "tie_groups"},
    "users": set(),
    "empty_truth": {"empty_zero", "empty_skip", "empty_error"},
    "duplicates": {"dedupe", "truth_dedupe", "refuse_duplicates"},
    "nan_scores": {"nan_mode"},
    "negative_rel": set(),
    "nan_rel": set(),
    "unjudged": {"condense"},
    "ranks": {"absolute_ranks"},
    "unretrieved": {"append_unretrieved"},
}


def test_kernel_options_move_with_their_policy_only():
    assert set(OPTIONS_OF) == set(POLICY_TABLE)
    fields = {f.name for f in dataclasses.fields(kernel_options(Policies()))}
    assert set().union(*OPTIONS_OF.values()) == fields  # every option belongs to a policy
    base = dataclasses.asdict(kernel_options(Policies()))
    for name, value in CASES:
        opts = dataclasses.asdict(kernel_options(Policies(**{name: value})))
        moved = {k for k in opts if opts[k] != base[k]}
        assert moved <= OPTIONS_OF[name], (name, value, moved)
    for name, own in OPTIONS_OF.items():  # each option is set by some choice of its policy
        seen = {k for v in POLICY_CHOICES[name] for k, x in
                dataclasses.asdict(kernel_options(Policies(**{name: v}))).items()
                if x != base[k]}
        assert seen == own, name


def test_the_engine_reads_no_policy():
    """The per-block engine reads the lists and the plan's kernel options, never a policy."""
    src = Path(rv.__file__).parent / "engines" / "local.py"
    tree = ast.parse(src.read_text())
    assert not [n.lineno for n in ast.walk(tree)
                if isinstance(n, ast.Attribute) and n.attr == "policies"]


def test_the_conventions_page_lists_every_policy():
    """docs/conventions.md's policy table: a row per policy, in the table's order, with its
    default and every choice."""
    page = Path(__file__).resolve().parents[2] / "docs" / "conventions.md"
    if not page.exists():
        pytest.skip("the documentation sources are not here (installed package)")
    rows = [line for line in page.read_text().splitlines()
            if line.startswith("| `") and line.split("|")[1].strip().strip("`") in POLICY_TABLE]
    assert [r.split("|")[1].strip().strip("`") for r in rows] == list(POLICY_TABLE)
    for row, p in zip(rows, RECORDS, strict=True):
        assert row.split("|")[2].strip() == f'`"{p.default}"`'
        assert all(f'`"{v}"`' in row.split("|", 3)[3] for v in p.values), p.name
