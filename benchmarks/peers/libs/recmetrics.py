"""recmetrics: the ``compat="recmetrics"`` preset against the library itself."""

from __future__ import annotations

import importlib
import importlib.util
import os

from common import CUTS, NotInstalled, Report, check, make_data, ours, ranked, version

import receval as rv


@check("recmetrics", "recmetrics")
def check_recmetrics(report: Report) -> None:
    source = os.environ.get("RECMETRICS_SRC", "/tmp/recmetrics-src")
    spec = importlib.util.find_spec("recmetrics")
    if os.path.isfile(f"{source}/recmetrics/metrics.py"):
        # the repository's metrics.py (mapk is not in the 0.1.5 release on PyPI)
        loader = importlib.util.spec_from_file_location(
            "_recmetrics_master", f"{source}/recmetrics/metrics.py")
        rm = importlib.util.module_from_spec(loader)
        loader.loader.exec_module(rm)
        how = f", metrics.py of the repository at {source}"
    elif spec is None or not spec.submodule_search_locations:
        raise NotInstalled("import recmetrics: ModuleNotFoundError")
    else:
        rm, how = _installed(spec)
    label = f"recmetrics {version('recmetrics')}{how}"
    _drive(report, rm, label)


def _installed(spec):
    try:
        rm = importlib.import_module("recmetrics.metrics")
        how = ""
    except ImportError:
        # the package's __init__ imports its plotting module (matplotlib, plotly, seaborn);
        # metrics.py itself needs numpy, pandas, scipy and scikit-learn
        path = f"{list(spec.submodule_search_locations)[0]}/metrics.py"
        loader = importlib.util.spec_from_file_location("_recmetrics_metrics", path)
        rm = importlib.util.module_from_spec(loader)
        try:
            loader.loader.exec_module(rm)
        except ImportError as exc:
            raise NotInstalled(f"recmetrics/metrics.py: {exc}") from exc
        how = ", metrics.py loaded alone"
    return rm, how


def _drive(report: Report, rm, label: str) -> None:
    run, truth = make_data(401, ties=True)
    # users='truth', empty_truth='zero': every truth user, an empty actual list scores 0
    users = sorted(truth)
    actual = [[i for i, r in truth[u].items() if r > 0] for u in users]
    predicted = [ranked(run.get(u, {})) for u in users]
    for k in CUTS:
        got = ours(run, truth, [f"mark@{k}"], "recmetrics")[f"mark@{k}"]
        report.add("recmetrics", label, f"mark@{k}", got, rm.mark(actual, predicted, k=k))
        if hasattr(rm, "mapk"):
            for name in ("mapk", "map"):  # map: MAP@K as the README names mapk
                got = ours(run, truth, [f"{name}@{k}"], "recmetrics")[f"{name}@{k}"]
                report.add("recmetrics", label, f"{name}@{k}", got,
                           rm.mapk(actual, predicted, k=k))
    # prediction_coverage: a percentage rounded to 2 decimals; receval gives the share
    catalog = list(range(30))  # the repository's version refuses items outside it
    lists = [ranked(run[u]) for u in sorted(run)]
    for k in CUTS:
        share = rv.evaluate(run, truth, [f"prediction_coverage@{k}"], compat="recmetrics",
                            catalog=catalog, users="run")[f"prediction_coverage@{k}"]
        theirs = rm.prediction_coverage([x[:k] for x in lists], catalog)
        report.add("recmetrics", label, f"prediction_coverage@{k} (percent, 2 decimals)",
                   round(100 * share, 2), theirs)
