"""MkDocs hook: the metric reference page is generated from the registry at build time."""

from __future__ import annotations

from mkdocs.structure.files import File, Files


def on_files(files: Files, config) -> Files:
    from receval.metrics.describe import reference_markdown

    files.append(File.generated(config, "reference/metrics.md", content=reference_markdown()))
    return files
