"""The committed output of ``benchmarks/peers/check_presets.py`` (the presets against the
libraries themselves): no failing line, and every entry of every preset of the registry
(each metric name it maps or refuses) checked against its library: ``PASS``, a ``KNOWN``
difference its preset documents, or ``REFUSED`` with the preset's reason.

The heavy libraries (torch, Spark, ...) are not needed here: the test reads the text file.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from receval.compat import PRESETS

OUT = Path(__file__).resolve().parents[2] / "benchmarks" / "peers" / "check_presets.out"
ROW = re.compile(r"^(PASS|KNOWN|FAIL|REFUSED)\s{2,}(\S+)\s{2,}(.+?)\s{2,}([^@( ]+)")
MISSING = re.compile(r"^NOT-INSTALLED\s+(\S+)\s+(.+?):\s+(.*\S)")


@pytest.fixture(scope="module")
def lines() -> list[str]:
    if not OUT.is_file():
        pytest.fail(f"{OUT} is missing: run benchmarks/peers/check_presets.py and commit its "
                    "output")
    return OUT.read_text(encoding="utf-8").splitlines()


def test_no_failure_or_error(lines):
    bad = [line for line in lines if line.startswith(("FAIL", "ERROR"))]
    assert not bad, "\n".join(bad)
    summary = [line for line in lines if line.startswith("SUMMARY")]
    assert len(summary) == 1
    assert re.search(r"\b0 fail, 0 error\b", summary[0]), summary[0]


def test_every_preset_is_checked_or_not_installed_with_a_reason(lines):
    checked = {m.group(2) for line in lines if (m := ROW.match(line))}
    passed = {m.group(2) for line in lines if (m := ROW.match(line)) and m.group(1) == "PASS"}
    missing = {m.group(1): m.group(3) for line in lines if (m := MISSING.match(line))}
    for name in PRESETS:
        assert name in checked or name in missing, f"preset {name!r} is absent from {OUT.name}"
        if name in checked:
            assert name in passed, f"preset {name!r}: no metric passes against its library"
        else:
            reason = missing[name]
            assert len(reason) > 20 and "no check written" not in reason, (name, reason)
    assert not (checked | set(missing)) - set(PRESETS), "a name that is not a preset"


def test_known_lines_carry_a_preset_note(lines):
    # a KNOWN line is a difference the preset documents: the note printed is one of its notes
    known = {m.group(2) for line in lines if (m := ROW.match(line)) and m.group(1) == "KNOWN"}
    blocks = re.findall(r"^- (\S+): .*:\n    (.+)$", "\n".join(lines), re.MULTILINE)
    assert {name for name, _ in blocks} == known
    for name, note in blocks:
        assert note in PRESETS[name].notes, (name, note)


def test_every_preset_entry_has_a_line(lines):
    """100% of the entries: each name of each preset (derived from the registry, not listed
    here) appears in a PASS, KNOWN or REFUSED line of its preset; a refused name only as
    REFUSED, a mapped name at least once as PASS or KNOWN."""
    seen: dict[tuple[str, str], set[str]] = {}
    for line in lines:
        if m := ROW.match(line):
            seen.setdefault((m.group(2), m.group(4).lower()), set()).add(m.group(1))
    absent = []
    for preset, p in PRESETS.items():
        for lib_name, entry in p.names.items():
            status = seen.get((preset, lib_name), set())
            if entry.refused:
                ok = status == {"REFUSED"}
            else:
                ok = bool(status & {"PASS", "KNOWN"}) and "REFUSED" not in status
            if not ok:
                absent.append(f"{preset}: {lib_name} {sorted(status)}")
    assert not absent, f"entries without a PASS/KNOWN/REFUSED line in {OUT.name}:\n" + \
        "\n".join(absent)



KNOWN_ROW = re.compile(r"^KNOWN\s{2,}(\S+)\s{2,}.+?\s{2,}(\S(?:\S| (?! ))*)\s{2,}\S+\s{2,}\S+\s{2,}\S+$")


def _known_entries(lines: list[str]) -> list[tuple[str, str, object, set[str]]]:
    """``(preset, metric, entry, notes)`` of each KNOWN line: its metric (written as a user
    writes it under the preset) resolved to the entry it means, and the notes printed for it."""
    from receval.compat import _one

    blocks = re.findall(r"^- (\S+): (.*):\n    (.+)$", "\n".join(lines), re.MULTILINE)
    out = []
    for line in lines:
        if (m := KNOWN_ROW.match(line)) is None:
            assert not line.startswith("KNOWN"), f"unparsed line: {line}"
            continue
        preset, label = m.group(1), m.group(2)
        notes = {note for p, labels, note in blocks if p == preset and label in labels}
        entry = _one(PRESETS[preset], label.split(" ")[0])[1]
        out.append((preset, label, entry, notes))
    return out


def test_known_differences_are_declared_on_their_names(lines):
    # an entry whose value differs from its library's on some inputs names the note
    # (Name.differs), so that compat=..., strict=True refuses it; and every entry that
    # declares a difference shows it in the check
    known = _known_entries(lines)
    assert known, "no KNOWN line parsed"
    for preset, label, entry, notes in known:
        assert entry.differs, f"{preset}: {label!r} has a KNOWN line but no differs="
        assert PRESETS[preset].note(entry.differs) in notes, (preset, label, notes)
    shown = [(preset, entry) for preset, _, entry, _ in known]
    for name, preset in PRESETS.items():
        for lib_name, entry in preset.names.items():
            if entry.differs:
                assert (name, entry) in shown, f"{name}: {lib_name!r} declares a difference " \
                    "that no KNOWN line shows"
