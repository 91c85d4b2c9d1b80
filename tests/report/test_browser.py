"""The HTML report in a real headless browser (Debian package: chromium)."""

from __future__ import annotations

import re
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest

import receval as rv
from receval.report import report
from receval.stats import compare

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")


def _browser() -> str:
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    pytest.skip("no chromium binary found (install the Debian package: apt-get install chromium)")


def _flags(tmp_path) -> list[str]:
    return ["--headless", "--disable-gpu", "--no-sandbox", "--no-first-run",
            "--disable-extensions", f"--user-data-dir={tmp_path / 'profile'}",
            "--enable-logging=stderr", "--v=0"]


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    rng = np.random.default_rng(1)
    truth = pd.DataFrame({"user": np.repeat(np.arange(50), 3),
                          "item": np.concatenate([rng.choice(25, 3, replace=False)
                                                  for _ in range(50)])})
    users, items = np.repeat(np.arange(50), 25), np.tile(np.arange(25), 50)
    hit = pd.MultiIndex.from_arrays([users, items]).isin(pd.MultiIndex.from_frame(truth))
    results = {}
    for name, skill in [("random", 0.0), ("good", 0.7)]:
        run = pd.DataFrame({"user": users, "item": items,
                            "score": rng.random(users.size) + skill * hit})
        results[name] = rv.evaluate(run, truth, ["ndcg@5", "ndcg@10", "mrr"], name=name)
    path = tmp_path_factory.mktemp("html") / "report.html"
    report(compare(results, test="t"), "html", path=str(path))
    return path


def test_page_loads_with_table_and_plots(page, tmp_path):
    pytest.importorskip("matplotlib", reason="the report's plots need the plot extra")
    browser = _browser()
    proc = subprocess.run([browser, *_flags(tmp_path), "--dump-dom", page.as_uri()],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    dom = proc.stdout
    assert "<title>receval comparison</title>" in dom
    table = re.search(r'<table id="metrics-table".*?</table>', dom, flags=re.S)
    assert table is not None
    assert table.group(0).count("<tr>") == 3  # header + 2 systems
    assert dom.count("<svg") == 1 + 3  # ndcg@k curve + 3 per-user distributions
    assert 'id="definitions"' in dom
    errors = [line for line in proc.stderr.splitlines()
              if "Uncaught" in line or ("CONSOLE" in line and "ERROR" in line)]
    assert not errors, errors


def test_screenshot(page, tmp_path):
    browser = _browser()
    shot = tmp_path / "shot.png"
    proc = subprocess.run([browser, *_flags(tmp_path), "--hide-scrollbars",
                           "--window-size=1200,1600", f"--screenshot={shot}", page.as_uri()],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000
