"""The declarative parameter table: every declared constraint refuses bad values with a receval
error (never a raw exception), and the message names the parameter and prints values plainly."""

from __future__ import annotations

import importlib
import inspect
import math

import numpy as np
import pytest

import receval as rv
from receval.errors import ParameterError, plain
from receval.validation import (
    FUNCTIONS,
    TABLE,
    Boolean,
    Callable_,
    InstanceOf,
    Integral,
    Interval,
    Options,
    Real,
    check_param,
    validate_params,
)

# importing a namespace registers the decorators of its public functions
for _module in ("receval.split", "receval.sampling", "receval.stats", "receval.online",
                "receval.trec", "receval.report", "receval.difference", "receval.stats.meta",
                "receval.trec.ndeval"):
    importlib.import_module(_module)

#: public functions that must stay declared (removing a declaration fails here)
DECLARED = {
    "receval.difference.diff": {"a", "b", "top"},
    "receval.report.report": {"digits", "color"},
    "receval.stats.compare.compare": {"alpha", "n_resamples", "users", "family", "ci", "tie_tol"},
    "receval.sampling._samplers.sample_negatives": {"n_negatives", "n_items", "seed", "alpha"},
    "receval.split._split.random_split": {"test_size", "min_train", "seed"},
    "receval.split._split.temporal_split": {"quantile"},
    "receval.split._split.kfold_split": {"n_folds", "by", "seed"},
    "receval.split._split.cold_start_split": {"test_users", "seed"},
    "receval.trec.evaluate.trec_eval": {"level", "max_docs", "num_docs"},
    "receval.trec.ndeval.ndeval": {"alpha", "beta", "traditional", "complete", "depth"},
    "receval.stats.meta.MetaEvaluation.agreement": {"p", "n_resamples", "rng", "confidence"},
    "receval.stats.meta.reproducibility": {"p", "depth", "cutoff"},
    "receval.evaluate.evaluate_blocks": {"block_rows"},
    "receval.engines.memory.set_memory_cache": {"max_bytes"},
    "receval.online.sequential.msprt": {"sigma2", "tau2", "alpha"},
    "receval.evaluate.evaluate": {"ties", "users", "empty_truth", "duplicates", "nan_scores",
                                  "negative_rel"},
    "receval.engines.evaluator.Evaluator.__init__": {"ties", "users", "empty_truth", "duplicates",
                                            "nan_scores", "negative_rel"},
}


def test_public_functions_are_declared():
    for name, params in DECLARED.items():
        assert name in TABLE, name
        assert params <= set(TABLE[name]), (name, params - set(TABLE[name]))


def _call_kwargs(func, table, param, bad):
    """Keyword arguments that reach the check of ``param`` with ``bad``: declared required
    parameters get a valid value, undeclared required ones ``None`` (never looked at: the
    check comes before the body)."""
    kwargs = {}
    for p in inspect.signature(func).parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or p.default is not p.empty:
            continue
        kwargs[p.name] = table[p.name][0].good_value() if p.name in table else None
    kwargs[param] = bad
    return kwargs


def _cases():
    for fname, table in sorted(TABLE.items()):
        if not fname.startswith("receval."):
            continue
        for param, constraints in table.items():
            seen: set[str] = set()
            for c in constraints:
                for bad in c.bad_values():
                    if any(k.ok(bad) for k in constraints):
                        continue
                    label = f"{type(bad).__name__}:{plain(bad)}"
                    if label in seen:
                        continue
                    seen.add(label)
                    yield pytest.param(fname, param, bad, id=f"{fname.rsplit('.', 1)[-1]}-"
                                                            f"{param}-{label}")


@pytest.mark.parametrize(("fname", "param", "bad"), list(_cases()))
def test_every_constraint_refuses_bad_values(fname, param, bad):
    func, table = FUNCTIONS[fname], TABLE[fname]
    with pytest.raises(ParameterError) as info:
        func(**_call_kwargs(func, table, param, bad))
    msg = str(info.value)
    assert param in msg and info.value.param == param
    assert "np." not in msg and "numpy" not in msg, msg
    assert isinstance(info.value, (ValueError, TypeError))


def test_good_values_pass_the_declaration():
    for table in TABLE.values():
        for constraints in table.values():
            for c in constraints:
                assert c.ok(c.good_value()), c


@pytest.mark.parametrize(("constraint", "value", "ok"), [
    (Interval(Integral, 1, None), 1, True),
    (Interval(Integral, 1, None), np.int64(3), True),
    (Interval(Integral, 1, None), 0, False),
    (Interval(Integral, 1, None), True, False),          # a bool is not a count
    (Interval(Integral, 1, None), 2.0, False),           # nor is a float
    (Interval(Integral, 1, None), 2**63, False),          # beyond int64
    (Interval(Real, 0, 1, closed="neither"), 0.5, True),
    (Interval(Real, 0, 1, closed="neither"), 1, False),
    (Interval(Real, 0, 1, closed="neither"), math.nan, False),
    (Interval(Real, 0, None), float("1e400"), False),     # [0, inf) holds no infinity
    (Interval(Real, 0, math.inf), math.inf, True),        # unless the bound says so
    (Interval(Real, None, None), np.float64(-2.5), True),
    (Options(("a", "b")), "a", True),
    (Options(("a", "b")), np.str_("b"), True),
    (Options(("a", "b")), "c", False),
    (Options(("a", "b")), ["a"], False),                 # unhashable: no TypeError
    (Boolean(), np.bool_(False), True),
    (Boolean(), 1, False),
    (InstanceOf(str), "x", True),
    (InstanceOf(int), True, False),                      # bool only where asked for
    (InstanceOf(int, bool), True, True),
    (Callable_(), len, True),
    (Callable_(), "len", False),
])
def test_constraints(constraint, value, ok):
    assert constraint.ok(value) is ok


def test_message_is_plain_and_names_parameter():
    with pytest.raises(ParameterError, match=r"^f: n=0 is not valid; n must be an integer in \[1, inf\)\.$"):
        check_param("f", "n", np.int64(0), [Interval(Integral, 1, None)])
    with pytest.raises(ParameterError, match=r"x=nan is not valid; x must be None or a number in \[0, 1\]\.$"):
        check_param("f", "x", np.float64("nan"), [None, Interval(Real, 0, 1)])
    with pytest.raises(ParameterError, match="Did you mean 'uniform'"):
        check_param("f", "sampler", "unifrom", [Options(("uniform", "popularity"))])


def test_decorator_checks_kwargs_and_keeps_signature():
    @validate_params({"n": [Interval(Integral, 1, None)], "opt": [Options(("x",))]})
    def f(a, *, n=1, **kw):
        return a, n, kw

    assert f(0, n=2, opt="x") == (0, 2, {"opt": "x"})
    with pytest.raises(ParameterError, match="opt='y' is not valid; choose one of 'x'"):
        f(0, opt="y")
    assert list(inspect.signature(f).parameters) == ["a", "n", "kw"]
    with pytest.raises(TypeError, match="argument"):  # a wrong call keeps Python's message
        f()


def test_parameter_error_is_caught_by_the_old_classes():
    assert issubclass(ParameterError, rv.InputError)
    assert issubclass(ParameterError, rv.PolicyError)
    assert issubclass(ParameterError, TypeError)
