"""recmetrics: the ``compat="recmetrics"`` preset against the library itself."""

from __future__ import annotations

import importlib
import importlib.util

from common import CUTS, NotInstalled, Report, check, make_data, ours, ranked, version


@check("recmetrics", "recmetrics")
def check_recmetrics(report: Report) -> None:
    spec = importlib.util.find_spec("recmetrics")
    if spec is None or not spec.submodule_search_locations:
        raise NotInstalled("import recmetrics: ModuleNotFoundError")
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
    label = f"recmetrics {version('recmetrics')}{how}"
    run, truth = make_data(401, ties=True)
    # users='truth', empty_truth='zero': every truth user, an empty actual list scores 0
    users = sorted(truth)
    actual = [[i for i, r in truth[u].items() if r > 0] for u in users]
    predicted = [ranked(run.get(u, {})) for u in users]
    for k in CUTS:
        got = ours(run, truth, [f"mark@{k}"], "recmetrics")[f"mark@{k}"]
        report.add("recmetrics", label, f"mark@{k}", got, rm.mark(actual, predicted, k=k))
