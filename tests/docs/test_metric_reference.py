"""The generated metric reference and ``receval metrics --verbose`` show the same text."""

from __future__ import annotations

import re

from receval.cli.main import main
from receval.metrics import list_metrics
from receval.metrics.describe import describe, reference_markdown


def test_every_metric_is_in_the_reference_with_the_cli_text(capsys) -> None:
    page = reference_markdown()
    assert main(["metrics", "--verbose"]) == 0
    blocks = capsys.readouterr().out.strip().split("\n\n")
    defs = list_metrics()
    assert len(blocks) == len(defs) >= 40
    for defn, block in zip(defs, blocks, strict=True):
        assert block == describe(defn)
        assert f"### {defn.name}\n\n```text\n{block}\n```" in page
        assert f"](#{defn.name})" in page
    assert f"{len(defs)} metrics." in page


def test_describe_lists_every_parameter_with_its_default() -> None:
    for defn in list_metrics():
        text = describe(defn)
        assert text.startswith(f"{defn.name} - {defn.title}\n")
        for p in defn.params:
            assert re.search(rf"^  {re.escape(p.name)} = {re.escape(str(p.default))}", text,
                             re.MULTILINE)
