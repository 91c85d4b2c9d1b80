"""A bare ``pip install receval`` (numpy, pandas, scipy only) runs every command; an optional
library that is missing gives receval's MissingDependencyError naming the extra, or a plain
fallback (text tables without rich, a report without plots and a note saying so).

The optional libraries are hidden from a subprocess by an import hook, so these tests run in
any environment (the "no extras" CI job also runs the whole suite where they are absent)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

import receval as rv

OPTIONAL = ("pyarrow", "polars", "matplotlib", "rich", "torch", "sklearn", "numba")
_HOOK = """
import importlib.abc, sys
class _Hide(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {hidden!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None
sys.meta_path.insert(0, _Hide())
"""


def run_without(code: str, hidden=OPTIONAL, cwd=None):
    """Run ``code`` in a fresh interpreter where the ``hidden`` packages cannot be imported."""
    script = _HOOK.format(hidden=set(hidden)) + textwrap.dedent(code)
    env = dict(os.environ, PYTHONWARNINGS="error", COLUMNS="200")
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=300, cwd=cwd, env=env)


def cli_without(args, hidden=OPTIONAL, cwd=None):
    return run_without(f"import sys\nfrom receval.cli import main\nsys.exit(main({args!r}))",
                       hidden, cwd)


def test_namespace_has_only_public_names():
    names = dir(rv)
    for private in ("Any", "annotations", "importlib", "_LAZY", "_importlib"):
        assert private not in names
    assert not [n for n in names if n.startswith("_") and n != "__version__"]
    assert set(rv.__all__) <= set(names)
    for name in rv.__all__:
        assert getattr(rv, name) is not None, name
    assert not hasattr(rv, "Any") and not hasattr(rv, "annotations")


def test_import_and_evaluate_without_any_extra():
    out = run_without("""
        import receval as rv
        res = rv.evaluate({"u": {"a": 1.0, "b": 0.5}}, {"u": {"b": 1}}, ["mrr", "ndcg@2"])
        print(res.summary["mrr"])
        print(rv.report(res, "text"))
        rv.report(res, "html")
    """)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("0.5\n")
    assert "mrr" in out.stdout


def test_text_report_falls_back_to_plain_text_without_rich():
    out = run_without("""
        import receval as rv
        a = rv.evaluate({"u": {"a": 1.0}, "v": {"b": 1.0}}, {"u": {"a": 1}, "v": {"c": 1}},
                        ["mrr"], name="a")
        b = rv.evaluate({"u": {"b": 1.0}, "v": {"c": 1.0}}, {"u": {"a": 1}, "v": {"c": 1}},
                        ["mrr"], name="b")
        print(rv.report(rv.compare({"a": a, "b": b}, test="t"), "text"))
    """, hidden=("rich",))
    assert out.returncode == 0, out.stderr
    assert "(a) a" in out.stdout and "* = best value." in out.stdout
    assert "rich" not in out.stdout + out.stderr


def test_polars_frame_without_polars_names_the_extra():
    out = run_without("""
        import receval as rv
        res = rv.evaluate({"u": {"a": 1.0}}, {"u": {"a": 1}}, ["mrr"])
        try:
            res.per_user_frame("polars")
        except rv.MissingDependencyError as exc:
            print("OK", exc)
    """, hidden=("polars",))
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("OK") and "receval[polars]" in out.stdout


def test_html_report_without_matplotlib_says_plots_were_left_out(tmp_path):
    out = run_without(f"""
        import receval as rv
        a = rv.evaluate({{"u": {{"a": 1.0}}}}, {{"u": {{"a": 1}}}}, ["mrr"], name="a")
        b = rv.evaluate({{"u": {{"b": 1.0}}}}, {{"u": {{"a": 1}}}}, ["mrr"], name="b")
        rv.report(rv.compare({{"a": a, "b": b}}, test="t"), "html", path={str(tmp_path / "r.html")!r})
    """, hidden=("matplotlib",))
    assert out.returncode == 0, out.stderr
    page = (tmp_path / "r.html").read_text()
    assert "Plots left out" in page and "receval[plot]" in page


@pytest.fixture
def data(tmp_path):
    run = tmp_path / "run.csv"
    run.write_text("user,item,score\nalice,a,3\nalice,b,2\nbob,c,1\nbob,a,0.5\n")
    run2 = tmp_path / "run2.csv"
    run2.write_text("user,item,score\nalice,b,3\nalice,a,2\nbob,a,1\nbob,c,0.5\n")
    truth = tmp_path / "truth.csv"
    truth.write_text("user,item\nalice,b\nbob,c\n")
    trec_run = tmp_path / "r.run"
    trec_run.write_text("1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n")
    qrels = tmp_path / "q.qrels"
    qrels.write_text("1 0 b 1\n")
    units = tmp_path / "units.csv"
    units.write_text("user_id,variant,rev\n" + "".join(
        f"{i},{'AB'[i % 2]},{(i * 7) % 5}\n" for i in range(40)))
    return tmp_path


def test_every_command_runs_without_extras(data):
    d = str(data)
    commands = [
        ["evaluate", "--run", f"{d}/run.csv", "--truth", f"{d}/truth.csv", "-m", "ndcg@2,mrr"],
        ["evaluate", "--run", f"{d}/run.csv", "--truth", f"{d}/truth.csv", "-m", "mrr",
         "--stream", "--block-rows", "1"],
        ["evaluate", "--run", f"{d}/r.run", "--truth", f"{d}/q.qrels", "-m", "mrr", "--stream"],
        ["trec", f"{d}/q.qrels", f"{d}/r.run", "-m", "map"],
        ["compare", f"{d}/run.csv", f"{d}/run2.csv", "--truth", f"{d}/truth.csv", "-m", "mrr",
         "--test", "t"],
        ["compare", f"{d}/run.csv", f"{d}/run2.csv", "--truth", f"{d}/truth.csv", "-m", "mrr",
         "--test", "t", "--format", "html", "-o", f"{d}/cmp.html"],
        ["metrics"],
        ["explain", "mrr", "--run", f"{d}/run.csv", "--truth", f"{d}/truth.csv", "--user",
         "alice"],
        ["split", f"{d}/units.csv", "-o", f"{d}/split", "--user-col", "user_id", "--item-col",
         "variant"],
        ["ab", f"{d}/units.csv", "--control", "A", "--mean", "rev"],
    ]
    out = run_without(f"""
        import sys
        from receval.cli import main
        for args in {commands!r}:
            code = main(args)
            print("EXIT", code, args, file=sys.stderr)
    """)
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr
    exits = [line for line in out.stderr.splitlines() if line.startswith("EXIT")]
    assert len(exits) == len(commands) and all(e.startswith("EXIT 0 ") for e in exits), \
        out.stderr
    assert "plots left out" in out.stderr.lower() and "receval[plot]" in out.stderr


def test_parquet_without_pyarrow_names_the_extra(data):
    import pandas as pd

    pytest.importorskip("pyarrow")
    pd.DataFrame({"user": ["alice"], "item": ["a"], "score": [1.0]}).to_parquet(
        data / "run.parquet")
    for extra in ([], ["--stream"]):
        out = cli_without(["evaluate", "--run", str(data / "run.parquet"), "--truth",
                           str(data / "truth.csv"), "-m", "mrr", *extra],
                          hidden=("pyarrow", "fastparquet"))
        assert out.returncode == 1, out.stderr
        assert "receval[arrow]" in out.stderr and "Traceback" not in out.stderr


def test_demo_without_extras_says_what_was_left_out(tmp_path):
    out = cli_without(["demo", "--users", "150", "--items", "80", "--resamples", "50",
                       "-o", str(tmp_path / "demo.html")], cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "Plots left out" in out.stderr and "receval[plot]" in out.stderr
    assert "ease" in out.stdout


def test_base_dependencies_are_minimal():
    from pathlib import Path

    tomllib = pytest.importorskip("tomllib")  # Python 3.11+

    root = Path(__file__).resolve().parents[2]
    meta = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    base = {d.split(">")[0].split("=")[0].split("<")[0].strip() for d in meta["dependencies"]}
    assert base == {"numpy", "pandas", "scipy"}
    extras = meta["optional-dependencies"]
    for name in ("pyarrow", "polars", "matplotlib", "rich"):
        assert any(d.startswith(name) for d in extras["all"]), name
    json.dumps(extras)  # plain data
