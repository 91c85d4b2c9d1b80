"""Curve objects: to_dict, PNG / SVG rendering without a display, metric@k curves."""

from __future__ import annotations

import importlib.util
import json
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import receval as rv
from receval.classification import (
    Curves,
    interpolated_precision,
    metric_at_k,
    pr_curve,
    recall_iou_curve,
    roc_curve,
)
from receval.errors import InputError, MissingDependencyError

HAVE_MPL = importlib.util.find_spec("matplotlib") is not None

RUN = {"a": {"x": 0.9, "y": 0.8, "z": 0.7, "w": 0.6},
       "b": {"x": 0.5, "y": 0.4, "u": 0.3}}
TRUTH = {"a": {"x": 1, "z": 1, "v": 1}, "b": {"u": 1}}
Y, S = [1, 0, 1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6, 0.6, 0.1]


def _check_saves(obj, tmp_path, stem):
    """PNG and SVG files when matplotlib is installed; else the error naming the extra."""
    if not HAVE_MPL:
        with pytest.raises(MissingDependencyError, match=r"receval\[plot\]"):
            obj.save(tmp_path / f"{stem}.png")
        return
    _check_png(obj.save(tmp_path / f"{stem}.png"))
    _check_svg(obj.save(tmp_path / f"{stem}.svg"))


def _check_png(path):
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 1000


def _check_svg(path):
    root = ET.parse(path).getroot()
    assert root.tag.endswith("svg")
    assert len(path.read_bytes()) > 1000


@pytest.mark.parametrize("make", [
    lambda: roc_curve(Y, S, label="model"),
    lambda: pr_curve(Y, S),
    lambda: interpolated_precision(Y, S),
    lambda: recall_iou_curve([0.9, 0.6, 0.3]),
])
def test_curve_renders_png_and_svg(tmp_path, make):
    c = make()
    _check_saves(c, tmp_path, "c")
    if HAVE_MPL:
        assert c.render("svg").lstrip().startswith(b"<?xml")
        assert c.render("png")[:4] == b"\x89PNG"
    d = c.to_dict()
    assert json.loads(json.dumps(d)) == d
    assert d["x"] == [float(v) for v in c.x] and d["kind"] == c.kind


def test_roc_to_dict_infinite_threshold_is_null():
    d = roc_curve(Y, S).to_dict()
    assert d["thresholds"][0] is None and d["area"] == roc_curve(Y, S).area


def test_plot_on_given_axes_and_bad_format(tmp_path):
    pytest.importorskip("matplotlib", reason="plots need the plot extra")
    from matplotlib.figure import Figure

    fig = Figure()
    ax = fig.add_subplot(1, 1, 1)
    out = Curves([roc_curve(Y, S, label="a"), roc_curve(Y, S[::-1], label="b")]).plot(ax=ax)
    assert out is ax and len(ax.get_lines()) == 3  # two curves and the chance diagonal
    with pytest.raises(InputError, match="png"):
        roc_curve(Y, S).save(tmp_path / "c.bmp")


def test_metric_at_k_matches_evaluate(tmp_path):
    curves = metric_at_k(RUN, TRUTH, ["precision", "recall", "ndcg(gain=exp)"], ks=range(1, 5),
                         title="at k")
    assert [c.label for c in curves] == ["precision", "recall", "ndcg(gain=exp)"]
    res = rv.evaluate(RUN, TRUTH, [f"precision@{k}" for k in range(1, 5)]
                      + [f"ndcg@{k}(gain=exp)" for k in range(1, 5)])
    np.testing.assert_array_equal(curves["precision"].y,
                                  [res[f"precision@{k}"] for k in range(1, 5)])
    np.testing.assert_array_equal(curves["ndcg(gain=exp)"].y,
                                  [res[f"ndcg@{k}(gain=exp)"] for k in range(1, 5)])
    # recall@1: a finds x (1 of 3), b finds nothing -> (1/3 + 0) / 2
    assert curves["recall"].y[0] == (1 / 3 + 0) / 2
    assert curves["recall"].x.tolist() == [1, 2, 3, 4]
    _check_saves(curves, tmp_path, "k")
    d = curves.to_dict()
    assert d["title"] == "at k" and len(d["curves"]) == 3
    json.dumps(d)
    with pytest.raises(InputError, match="without a cutoff"):
        metric_at_k(RUN, TRUTH, ["precision@5"])
    with pytest.raises(InputError, match="positive integers"):
        metric_at_k(RUN, TRUTH, ["precision"], ks=[0, 1])
