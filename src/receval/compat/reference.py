"""The library presets as one Markdown page (the documentation's preset reference).

Generated from :data:`receval.compat.PRESETS` at documentation build time, so that every name,
parameter and refusal of every preset is listed as the code resolves it.
"""

from __future__ import annotations

from ..metrics import metric
from .presets import PRESET_ALIASES, PRESETS, Name, Preset

__all__ = ["reference_markdown"]


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _options(entry: Name) -> str:
    parts = []
    for option, target in entry.options:
        if target == "@k":
            parts.append(f"`{option}`: the cutoff (`@k`)")
        elif isinstance(target, str):
            parts.append(f"`{option}` -> `{target}`")
        else:
            values = "; ".join(
                f"`{value}`: " + (", ".join(f"`{k}={v}`" for k, v in meant.items())
                                  or "the default")
                for value, meant in sorted(target.items()))
            parts.append(f"`{option}`: {values}")
    return "<br>".join(parts)


def _row(preset: Preset, lib_name: str, entry: Name) -> str:
    if entry.refused:
        return (f"| `{_cell(lib_name)}` | not reproduced | {_cell(entry.meaning)}. "
                f"**Refused:** {_cell(entry.refused)} | |")
    params, policies = entry.split()
    key = metric(entry.family, entry.k, **params).key
    meaning = _cell(entry.meaning)
    if policies:
        meaning += " Policies: " + ", ".join(f"`{a}={b}`" for a, b in policies.items()) + "."
    if entry.uncut and entry.k is None:
        uncut = metric(entry.family, None, **entry.split({**params, **dict(entry.uncut)})[0])
        meaning += f" Without a cutoff: `{uncut.key}`."
    if entry.bug:
        meaning += f" **Known bug reproduced** (`strict=True` refuses it): {_cell(entry.bug)}"
    if entry.differs:
        meaning += (" **Differs on some inputs** (`strict=True` refuses it): "
                    f"{_cell(preset.note(entry.differs))}")
    return f"| `{_cell(lib_name)}` | `{_cell(key)}` | {meaning} | {_options(entry)} |"


def _section(p: Preset) -> list[str]:
    aliases = sorted(a for a, target in PRESET_ALIASES.items() if target == p.name)
    written = ", ".join(f'`compat="{a}"`' for a in aliases)
    also = f" (also {written})" if aliases else ""
    lines = [f"## `{p.name}`: {p.library}", "",
             f"`compat=\"{p.name}\"`{also}. Checked against {p.version}; sources: "
             f"{_cell(p.source)}.", "",
             "Policies: " + ", ".join(f"`{k}={v}`" for k, v in p.policies) + ".", "",
             "| name | receval metric | meaning | library parameters |",
             "|---|---|---|---|"]
    lines += [_row(p, n, e) for n, e in p.names.items()]
    if p.notes:
        lines += ["", "Not reproduced, or to know:", ""] + [f"- {_cell(n)}" for n in p.notes]
    return lines + [""]


def reference_markdown() -> str:
    """Every preset: its names (as the library writes them, case folded), the receval metric
    each means with the library's parameters, the names refused and why, and its notes."""
    n_names = sum(len(p.names) for p in PRESETS.values())
    n_refused = sum(e.refused != "" for p in PRESETS.values() for e in p.names.values())
    lines = ["# Library presets", "",
             f"{len(PRESETS)} presets, {n_names} metric names ({n_refused} refused with the "
             "reason). Under `compat=\"<library>\"` a metric is written as the library writes "
             "it, with the library's own parameters in parentheses "
             "(`ndcg@10(divide_by_achievable=True)`); the policies follow the library. "
             "`receval metrics --compat LIBRARY` prints the same table; "
             "[Why does my number differ?](../conventions.md) explains the conventions.", ""]
    for p in PRESETS.values():
        lines += _section(p)
    return "\n".join(lines)
