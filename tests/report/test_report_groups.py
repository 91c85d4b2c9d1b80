"""Reports of results evaluated with groups: a per-group table (mean with its interval, n,
skipped, missing) in every text format and the HTML page, a plot of the group means with their
intervals in the HTML page, a comparison's tests within groups; nothing of it without groups."""

from __future__ import annotations

import re

import pytest

import receval as rv
from receval.report import report
from receval.report.model import build

pytest.importorskip("matplotlib")

TRUTH = {u: {"t": 1} for u in range(1, 9)}
GROUPS = {1: "light", 2: "light", 3: "light", 4: "heavy", 5: "heavy", 6: "heavy", 7: "solo"}
RANKS = {"pop": [1, 2, 1, 3, 1, 2, 1, 3], "knn": [2, 2, 3, 1, 1, 1, 2, 1]}
METRICS = ["mrr", "hit_rate@1"]


def _list(rank: int) -> dict[str, float]:
    others = iter(["x", "y"])
    return {("t" if r == rank else next(others)): float(4 - r) for r in (1, 2, 3)}


def _results(groups=GROUPS):
    return {s: rv.evaluate({u: _list(r) for u, r in zip(range(1, 9), ranks, strict=True)},
                           TRUTH, METRICS, groups=groups, name=s)
            for s, ranks in RANKS.items()}


def _table(html: str, table_id: str) -> str:
    m = re.search(rf'<table id="{table_id}".*?</table>', html, flags=re.S)
    assert m, table_id
    return m.group(0)


def test_html_of_a_result_with_groups_has_the_table_and_one_plot_per_metric():
    res = _results()["pop"]
    html = report(res, "html")
    table = _table(html, "groups-table")
    frame = res.by_group
    assert table.count("<tr>") == 1 + len(frame)  # header + one row per group and metric
    for row in frame.itertuples():  # every cell read from by_group, as rendered
        ci = (f"[{row.ci_low:.4f}, {row.ci_high:.4f}]" if row.ci_low == row.ci_low
              else "[–, –]")
        cells = (f"<td>{row.group}</td><td><code>{row.metric}</code></td>"
                 f"<td>{row.mean:.4f}</td><td>{ci}</td><td>{row.n}</td><td>{row.skipped}</td>"
                 f"<td>{row.missing_from_run}</td>")
        assert cells in table
    assert html.count('data-kind="group-means"') == len(METRICS)
    section = html[html.index('<section id="groups">'):]
    assert "1 evaluated user(s) without a group" in section  # user 8, counted


def test_no_group_section_without_groups():
    res = rv.evaluate({u: _list(1) for u in range(1, 9)}, TRUTH, METRICS)
    html = report(res, "html")
    assert 'id="groups"' not in html and "group-means" not in html
    assert "Per group" not in report(res, "plain")
    assert "Per group" not in report(res, "markdown")
    plain_cmp = rv.compare({s: rv.evaluate({u: _list(r) for u, r in
                                            zip(range(1, 9), ranks, strict=True)}, TRUTH, METRICS)
                            for s, ranks in RANKS.items()})
    assert 'id="groups"' not in report(plain_cmp, "html")


def test_plain_and_markdown_tables_of_a_result_with_groups():
    res = _results()["pop"]
    text = report(res, "plain")
    assert "Per group (mean with Student-t interval" in text
    light = res.by_group.query("group == 'light' and metric == 'mrr'").iloc[0]
    line = next(ln for ln in text.splitlines() if ln.startswith("light  mrr"))
    assert f"{light['mean']:.4f}" in line
    assert f"[{light.ci_low:.4f}, {light.ci_high:.4f}]" in line
    md = report(res, "markdown")
    assert (f"| light | mrr | {light['mean']:.4f} | [{light.ci_low:.4f}, {light.ci_high:.4f}] "
            f"| 3 | 0 | 0 |") in md
    rich = report(res, "text")
    assert "Per group" in rich and "light" in rich


def test_several_systems_get_a_system_column_and_metrics_restrict_the_rows():
    results = _results()
    html = report(results, "html", metrics=["mrr"])
    table = _table(html, "groups-table")
    assert "<th>system</th>" in table
    assert table.count("<tr>") == 1 + 2 * 3  # systems x groups, mrr only
    assert "hit_rate@1" not in table
    assert html.count('data-kind="group-means"') == 1
    model = build(results, metrics=["mrr"])
    assert {r["system"] for r in model.group_table()} == {"pop", "knn"}


def test_comparison_by_group_renders_its_tests_and_the_interaction():
    cmp = rv.compare(_results(), by=True)
    html = report(cmp, "html")
    tests = _table(html, "group-tests-table")
    assert tests.count("<tr>") == 1 + len(cmp.by_group)
    solo = cmp.by_group.query("group == 'solo'").iloc[0]
    assert "at least 2 users" in solo.note and solo.note in tests
    inter = _table(html, "interaction-table")
    row = cmp.interaction.iloc[0]
    assert f"<td>{row.statistic:.4f}</td>" in inter
    assert "95% CI" in _table(html, "groups-table")  # intervals at 1 - alpha
    text = report(cmp, "plain")
    assert "Tests within groups (holm over every group x metric x pair)" in text
    assert "Does A − B differ between groups?" in text
    assert "Tests within groups: 1 compared user(s) without a group" in text


def test_comparison_by_given_groups_without_result_groups_has_tests_only():
    plain = {s: rv.evaluate({u: _list(r) for u, r in zip(range(1, 9), ranks, strict=True)},
                            TRUTH, METRICS) for s, ranks in RANKS.items()}
    cmp = rv.compare(plain, by=GROUPS, alpha=0.1)
    html = report(cmp, "html")
    assert 'id="groups-table"' not in html and "group-means" not in html
    assert 'id="group-tests-table"' in html and "90% CI" in html


def test_users_missing_from_the_run_are_shown_per_group():
    run = {u: _list(1) for u in range(1, 9) if u != 3}  # user 3 (light) has no list
    res = rv.evaluate(run, TRUTH, ["mrr"], groups=GROUPS)
    light = res.by_group.query("group == 'light'").iloc[0]
    assert light.missing_from_run == 1  # scored 0 by the default policy
    table = _table(report(res, "html"), "groups-table")
    assert (f"<td>light</td><td><code>mrr</code></td><td>{light['mean']:.4f}</td>"
            in table)
    assert re.search(r"<td>light</td>.*?<td>3</td><td>0</td><td>1</td></tr>", table)
