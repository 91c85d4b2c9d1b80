"""Reproduce another library's numbers: ``rv.evaluate(run, truth, names, compat="recbole")``.

:func:`resolve` turns metric names as a library writes them (``"map@10"``, ``"NDCG@10"``,
``"map_at_k@10"``) into receval specs with that library's conventions, and returns the
policies that match its user set, tie order and empty-truth rule. Parameters written in a key
(``"ndcg@10(gain=exp)"``) and policies passed explicitly override the preset's. The presets
themselves are data (:mod:`receval.compat.presets`) and their names those of the one table of
foreign names (:mod:`receval.metrics.foreign`): under ``compat="trec_eval"`` every trec_eval
measure that table maps (``set_F``, ``iprec_at_recall.0.50``, ...), each summarised as
trec_eval's ``all`` line: its counts (``num_ret``, ``num_rel``, ``num_rel_ret``, ...) by their
sum (``num_ret(summary=sum)``), where receval's own keys keep the mean; ``num_q``, ``gm_map``
and ``gm_bpref`` everywhere by their family's sum or geometric mean. :func:`describe` prints one.

>>> import receval as rv
>>> from receval.compat import resolve
>>> specs, policies, names = resolve("rectools", ["ndcg@3", "map@3"])
>>> [s.key for s in specs]
['ndcg@3(gain=binary,ideal=k)', 'map@3']
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..errors import MetricError, PolicyError, suggest
from ..metrics import MetricSpec, metric, parse_metric
from ..metrics.foreign import library_entry
from ..metrics.names import split_keys
from ..policies import POLICY_PARAMS
from .presets import PRESET_ALIASES, PRESETS, Name, Preset

__all__ = ["PRESETS", "Name", "Preset", "annotate", "describe", "get", "resolve", "split_names"]

_KEY = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_\-\.]*?)\s*(?:@\s*(\d+))?\s*(?:\((.*)\))?\s*$")


def get(name: str) -> Preset:
    """The preset of a library name (``"rectools"``, ``"pytrec_eval"``, ...)."""
    key = str(name).lower()
    key = PRESET_ALIASES.get(key, key)
    if key not in PRESETS:
        valid = sorted(PRESETS) + sorted(PRESET_ALIASES)
        raise PolicyError(f"compat={name!r} is not a known library preset; choose one of "
                          f"{sorted(PRESETS)}." + suggest(key, valid))
    return PRESETS[key]


#: ir_measures writes the parameters before the cutoff: ``P(rel=2)@5``
_PARAMS_FIRST = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_\-\.]*?)\s*\((.*)\)\s*@\s*(\d+)\s*$")


def _in_order(text: str) -> str:
    """``name@k(params)`` of a name written ``name(params)@k`` (ir_measures' order)."""
    m = _PARAMS_FIRST.match(text)
    return f"{m.group(1)}@{m.group(3)}({m.group(2)})" if m else text


def _explicit(text: str) -> dict[str, str]:
    """Parameters written in a key, defaults included (``ndcg@3(ideal=truth)``); quotes
    around a value are dropped (``nDCG(dcg='exp-log2')``)."""
    m = re.search(r"\((.*)\)\s*$", text)
    out: dict[str, str] = {}
    for part in (m.group(1).split(",") if m else []):
        if part.strip():
            name, sep, value = part.partition("=")
            if not sep:
                raise MetricError(f"{text!r}: parameter {part.strip()!r} needs a value "
                                  "(name=value).")
            value = value.strip()
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
                value = value[1:-1]
            out[name.strip()] = value
    return out


def _one(preset: Preset, text: str) -> tuple[MetricSpec, Name, dict[str, Any]]:
    """The spec a name means under a preset, its entry, and the policies its library
    parameters ask for (``judged_only=True``: ``unjudged="remove"``)."""
    written, text = text, _in_order(str(text))
    m = _KEY.match(str(text))
    entry = preset.entry(m.group(1)) if m else None
    if entry is not None and m is not None:
        k = int(m.group(2)) if m.group(2) else None
        explicit: dict[str, Any] = _explicit(str(text))
    else:
        spec = parse_metric(text)
        entry = library_entry(preset.name, str(text)) or \
            _of_family(preset, spec.name, spec.k, written)
        if entry is None:
            raise MetricError(
                f"compat={preset.name!r}: {preset.library} has no metric for {written!r}; its "
                f"names are {sorted(n for n, e in preset.names.items() if not e.refused)}. "
                f"Evaluate {written!r} without compat, or name its conventions in the key."
                + suggest(str(text).lower(), preset.names)
            )
        k, explicit = spec.k, {**dict(spec.params), **_explicit(str(text))}
    if entry.refused:
        raise MetricError(
            f"compat={preset.name!r}: {preset.library}'s {written!r} ({entry.meaning}) is not "
            f"reproduced: {entry.refused}"
        )
    params = dict(entry.params)
    for key, value in explicit.items():
        try:
            meant = entry.option(key, value)
        except MetricError as exc:
            raise MetricError(f"compat={preset.name!r}, {text!r}: {exc}") from None
        if meant is None and key not in _family_params(entry.family):
            own = sorted(k for k, _ in entry.options)
            raise MetricError(
                f"compat={preset.name!r}, {written!r}: {preset.library}'s metric has no "
                f"parameter {key!r}; its parameters are {own or 'none'} (and receval's "
                f"{sorted(_family_params(entry.family))})."
            )
        meant = {key: value} if meant is None else dict(meant)
        if "@k" in meant:  # the library's cutoff parameter (top_k=10)
            cut = _cutoff(preset, text, meant.pop("@k"))
            if k is not None and k != cut:
                raise MetricError(f"compat={preset.name!r}, {text!r}: two cutoffs, @{k} and "
                                  f"{key}={cut}; give one.")
            k = cut
        params.update(meant)
    if k is None:
        k = entry.k
    if k is None:
        params = {**params, **dict(entry.uncut),
                  **{key: params[key] for key in explicit if key in params}}
    params, policies = entry.split(params)
    return metric(entry.family, k, **params), entry, policies


def _family_params(family: str) -> set[str]:
    """The parameter names of a receval family, ``summary``, and the policies a key may
    carry."""
    return {p.name for p in metric(family).definition.params} | {"summary"} | set(POLICY_PARAMS)


def _cutoff(preset: Preset, text: str, value: Any) -> int:
    try:
        cut = int(str(value))
    except ValueError:
        cut = 0
    if cut < 1:
        raise MetricError(f"compat={preset.name!r}, {text!r}: the cutoff must be a whole "
                          f"number >= 1, got {value!r}.")
    return cut


def _of_family(preset: Preset, family: str, k: int | None, written: str) -> Name | None:
    """The library's metric a receval key means under the preset (``ndcg@3-l1``, ``map@5``):
    the entry named as the family, else the library's one metric of that family, else the one
    with receval's own conventions for it (trec_eval's ``P`` for ``precision@5``, not
    ``relative_P``); refused where the library has several, none of them receval's."""
    # the entries that take the key's form (with or without a cutoff), else any of the family
    # (trec_eval's recip_rank has no cutoff: mrr@20 is receval's mrr@20 under the preset)
    same = preset.of_family(family, k) or preset.of_family(family)
    if family in same:
        return same[family]
    meanings = {_form(e, k) for e in same.values()}  # what each means in the key's form
    plain_ = [e for e in same.values() if not e.params and not e.uncut and e.k is None]
    if len(plain_) > 1:  # without a cutoff, the library's cutoff-less one (set_P, not P)
        plain_ = [e for e in plain_ if (e.cutoff == "none") == (k is None)]
    if len(meanings) > 1 and len(plain_) == 1:
        return plain_[0]
    if len(meanings) > 1:
        raise MetricError(
            f"compat={preset.name!r}: {written!r} is a receval key, and {preset.library} has "
            f"several metrics of that family ({', '.join(sorted(same))}) with other "
            "conventions; write the library's name for the one you mean."
        )
    return next(iter(same.values()), None)


def _form(entry: Name, k: int | None) -> tuple:
    """What an entry means written with cutoff ``k`` (its parameters, and without a cutoff
    its cutoff-less parameters and default cutoff)."""
    if k is not None:
        return entry.params
    return (entry.params, entry.uncut, entry.k)


def split_names(texts: Any) -> list[str]:
    """Names as written, from one string or several, each possibly a comma list
    (``"ndcg@10(gain=exp,ideal=k),map@10"``: commas inside parentheses stay;
    :func:`receval.metrics.names.split_keys`)."""
    return [x for text in ([texts] if isinstance(texts, str) else texts)
            for x in split_keys(str(text))]


def annotate(result: Any, preset: str | Preset, names: dict[str, str]) -> Any:
    """Record the preset and the expanded keys in ``result.info["compat"]``; the library's
    names then read the library's values (``result["map@10"]``)."""
    p = preset if isinstance(preset, Preset) else get(preset)
    result.info["compat"] = {"preset": p.name, "library": p.library, "version": p.version,
                             "names": dict(names)}
    return result


def resolve(preset: str | Preset, metrics: Any, *, strict: bool = False,
            policies: Mapping[str, Any] | None = None
            ) -> tuple[list[MetricSpec], dict[str, Any], dict[str, str]]:
    """Specs, policies and ``{name as written: canonical key}`` under a library's conventions.

    ``strict=True`` refuses a name whose preset reproduces a known bug of the library, or
    whose value differs from the library's on some inputs (:attr:`Name.differs`: tied
    scores, graded relevance, ...; the preset's note says which).
    ``policies``: the policies given explicitly; they override the preset's in the policies
    returned. Every entry point (``rv.evaluate``, ``rv.Evaluator``, ``rv.evaluate_blocks``,
    the command line) resolves a preset here.
    """
    p = preset if isinstance(preset, Preset) else get(preset)
    items = [metrics] if isinstance(metrics, str | MetricSpec) else list(metrics)
    items = [x for item in items
             for x in ([item] if isinstance(item, MetricSpec) else split_names(item))]
    specs: list[MetricSpec] = []
    names: dict[str, str] = {}
    asked: dict[str, tuple[str, Any]] = {}  # policy -> (the name that asks for it, value)
    given = dict(policies or {})
    for item in items:
        text = item.key if isinstance(item, MetricSpec) else str(item)
        spec, entry, wants = _one(p, text)
        if strict and entry.bug:
            raise MetricError(
                f"compat={p.name!r}, strict=True: {text!r} reproduces a known bug of "
                f"{p.library}: {entry.bug}. Without strict=True the preset reproduces the "
                f"published value; or ask for the corrected metric without compat."
            )
        if strict and entry.differs:
            raise MetricError(
                f"compat={p.name!r}, strict=True: {text!r} is not {p.library}'s value on every "
                f"input: {p.note(entry.differs).rstrip('.')}. Without strict=True receval "
                "gives this value, "
                f"equal to {p.library}'s on other inputs."
            )
        for key, value in wants.items():
            other = asked.get(key, (text, value))
            if str(other[1]) != str(value) or (key in given and str(given[key]) != str(value)):
                first = f"{other[0]!r} asks for {key}={other[1]!r}" if other[0] != text \
                    else f"{key}={given[key]!r} was given"
                raise MetricError(
                    f"compat={p.name!r}: {text!r} asks for {key}={value!r}, but {first}; a "
                    "policy holds for every metric of one evaluation: evaluate them separately."
                )
            asked[key] = (text, value)
        if spec not in specs:
            specs.append(spec)
        names[text] = spec.key
    chosen = {key: value for key, (_, value) in asked.items()}
    return specs, {**dict(p.policies), **chosen, **given}, names


def describe(name: str | None = None) -> str:
    """A plain-text table of what each metric name means in a library (or the list of presets)."""
    if name is None:
        rows = [f"{p.name:16s} {p.library} ({p.version})" for p in PRESETS.values()]
        return "Library presets (compat=...):\n" + "\n".join(rows)
    p = get(name)
    lines = [f"{p.library} -- verified against {p.version}", f"source: {p.source}",
             "policies: " + ", ".join(f"{k}={v}" for k, v in p.policies), ""]
    width = max(len(n) for n in p.names)
    for lib_name, entry in p.names.items():
        if entry.refused:
            lines.append(f"{lib_name:{width}s}  (not reproduced)")
            lines.append(f"{'':{width}s}    {entry.meaning}")
            lines.append(f"{'':{width}s}    refused: {entry.refused}")
            continue
        params, policies = entry.split()
        key = metric(entry.family, entry.k, **params).key
        lines.append(f"{lib_name:{width}s}  {key}")
        lines.append(f"{'':{width}s}    {entry.meaning}")
        if policies:
            lines.append(f"{'':{width}s}    policies: "
                         + ", ".join(f"{a}={b}" for a, b in policies.items()))
        if entry.uncut and entry.k is None:
            uncut = metric(entry.family, None, **entry.split({**params, **dict(entry.uncut)})[0])
            lines.append(f"{'':{width}s}    without a cutoff: {uncut.key}")
        for option, target in entry.options:
            meant = ("the cutoff (@k)" if target == "@k" else f"-> {target}"
                     if isinstance(target, str) else "; ".join(
                f"{v} -> " + (",".join(f"{a}={b}" for a, b in t.items()) or "(default)")
                for v, t in target.items()))
            lines.append(f"{'':{width}s}    {option}: {meant}")
        if entry.bug:
            lines.append(f"{'':{width}s}    known bug (strict=True refuses): {entry.bug}")
        if entry.differs:
            lines.append(f"{'':{width}s}    differs on some inputs (strict=True refuses): "
                         f"{p.note(entry.differs)}")
    if p.notes:
        lines += ["", "not reproduced / to know:"] + [f"- {n}" for n in p.notes]
    return "\n".join(lines)
