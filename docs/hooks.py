"""MkDocs hook: the metric and preset reference pages are generated from the registry and the
preset table at build time."""

from __future__ import annotations

from mkdocs.structure.files import File, Files


def on_files(files: Files, config) -> Files:
    from receval.compat.reference import reference_markdown as presets_markdown
    from receval.metrics.describe import reference_markdown

    files.append(File.generated(config, "reference/metrics.md", content=reference_markdown()))
    files.append(File.generated(config, "reference/presets.md", content=presets_markdown()))
    return files
