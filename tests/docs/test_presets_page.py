"""The generated preset reference (``reference/presets.md``) lists every entry of every preset
as the code resolves it: the receval key of each mapped name, the reason of each refused one."""

from __future__ import annotations

import pytest

from receval.compat import PRESETS
from receval.compat.reference import reference_markdown
from receval.metrics import metric


@pytest.fixture(scope="module")
def page() -> str:
    return reference_markdown()


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_entry_is_a_row(page, preset):
    section = page.split(f"## `{preset}`: ", 1)[1].split("\n## ", 1)[0]
    for lib_name, entry in PRESETS[preset].names.items():
        rows = [line for line in section.splitlines() if line.startswith(f"| `{lib_name}` |")]
        assert len(rows) == 1, (preset, lib_name)
        if entry.refused:
            assert "not reproduced" in rows[0] and "Refused:" in rows[0]
        else:
            key = metric(entry.family, entry.k, **entry.split()[0]).key
            assert f"| `{key}` |" in rows[0], (preset, lib_name, rows[0])
    for note in PRESETS[preset].notes:
        assert note.replace("|", "\\|") in section


def test_the_page_is_in_the_site(page):
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    assert "reference/presets.md" in (root / "mkdocs.yml").read_text()
    assert "reference/presets.md" in (root / "docs" / "hooks.py").read_text()
    assert page.startswith("# Library presets")
