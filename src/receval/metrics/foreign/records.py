"""The records of the foreign-name table: a library's name and the receval metric it means."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from ...errors import MetricError, plain
from ..spec import MAX_CUTOFF, REGISTRY, MetricSpec, load_plugins, metric


@dataclass(frozen=True)
class Name:
    """One metric name of a library: the receval family and parameters that reproduce it.

    ``bug``: the library's value is a known bug that the mapping reproduces (``compat=...,
    strict=True`` refuses the name). ``differs``: the start of the preset's note on inputs
    where receval's value is not the library's (tied scores, graded relevance, ...): equal
    elsewhere, and ``strict=True`` refuses the name with that note. ``refused``: receval cannot reproduce the library's value
    (the reason; the name is refused whatever ``strict``, and ``family`` is empty).
    ``options``: the library's own parameters, as written in a key under the preset
    (``ndcg@10(divide_by_achievable=True)``): each library parameter maps to a receval
    parameter or policy name (its value passed through) or to ``{value: {receval parameters
    and policies}}`` (values compared as lower-case text); a value not in the map is refused
    with the accepted ones. ``uncut``: parameters that replace ``params`` when the name is
    written without a cutoff (LensKit's ``Recall()`` divides by R, its ``Recall(k)`` by
    min(k, R); receval's ``min_k_rel`` without a cutoff is min(L, R), L the list's length).
    ``k``: the library's cutoff when the name is written without one (PyKEEN's ``HitsAtK()``
    is Hits@10). An option mapped to ``"@k"`` gives the cutoff (torchmetrics' ``top_k=``).
    ``cutoff``: ``"none"`` where the library's metric has no cutoff (Spark's
    ``meanAveragePrecision``), ``"required"`` where it always has one (``meanAveragePrecisionAt``),
    else ``"optional"``: a receval key under the preset (``map@5``) means the entries that
    take its form.
    """

    family: str
    params: tuple[tuple[str, Any], ...] = ()
    meaning: str = ""
    bug: str = ""
    refused: str = ""
    options: tuple[tuple[str, Any], ...] = ()
    uncut: tuple[tuple[str, Any], ...] = ()
    k: int | None = None
    cutoff: str = "optional"
    differs: str = ""

    def split(self, params: dict[str, Any] | None = None
              ) -> tuple[dict[str, Any], dict[str, Any]]:
        """``(metric parameters, policies)`` of ``params`` (default: the entry's own): a name
        may carry a policy (``ties="average"``) that holds for the whole evaluation."""
        from ...policies import POLICY_PARAMS

        given = dict(self.params) if params is None else dict(params)
        policies = {key: given.pop(key) for key in list(given) if key in POLICY_PARAMS}
        return given, policies

    def option(self, key: str, value: Any) -> dict[str, Any] | None:
        """The receval parameters and policies a library parameter means, or None when the
        entry does not know ``key`` (then it is a receval parameter)."""
        for lib_key, target in self.options:
            if lib_key.lower() != key.lower():
                continue
            if isinstance(target, str):
                return {target: value}
            text = str(value).strip().lower()
            if text not in target:
                raise MetricError(
                    f"{key}={plain(value)}: accepted values are "
                    f"{', '.join(sorted(target))}."
                )
            return dict(target[text])
        return None


def name(family: str, meaning: str, bug: str = "", *,
         options: dict[str, Any] | None = None, uncut: dict[str, Any] | None = None,
         default_k: int | None = None, cutoff: str = "optional", differs: str = "",
         **params: Any) -> Name:
    """A :class:`Name` with its parameters as keywords (``name("ndcg", "...", gain="exp")``);
    ``options``: the library's parameters (:attr:`Name.options`); ``uncut``: the parameters
    without a cutoff (:attr:`Name.uncut`); ``default_k``: the library's cutoff when none is
    written (:attr:`Name.k`); ``cutoff``: whether the library's metric takes one
    (:attr:`Name.cutoff`); ``differs``: the start of the note on inputs where the values
    differ (:attr:`Name.differs`)."""
    if cutoff not in ("optional", "none", "required"):
        raise ValueError(f"cutoff={cutoff!r}: optional, none or required")
    return Name(family, tuple(sorted(params.items())), meaning, bug,
                options=tuple(sorted((options or {}).items())),
                uncut=tuple(sorted((uncut or {}).items())), k=default_k, cutoff=cutoff,
                differs=differs)


def refuse(meaning: str, reason: str) -> Name:
    """A library name receval does not reproduce: ``meaning`` in the library's terms and the
    ``reason`` (the message that refuses it)."""
    return Name("", (), meaning, refused=reason)


@dataclass(frozen=True)
class Preset:
    """Every convention of one library: names, policies, version and sources checked.

    ``names``: the library's metric names, lower case, with their receval metrics (or the
    reason they are refused). ``policies``: the evaluation policies matching the library's user
    set, tie order and empty-truth rule. ``notes``: the conventions receval does not reproduce.
    """

    name: str
    library: str
    version: str
    source: str
    policies: tuple[tuple[str, str], ...]
    names: dict[str, Name] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for lib_name, entry in self.names.items():
            if entry.differs:
                self.note(entry.differs, lib_name)

    def note(self, start: str, lib_name: str = "") -> str:
        """The one note that starts with ``start`` (a name's :attr:`Name.differs`)."""
        found = [text for text in self.notes if text.startswith(start)]
        if len(found) != 1:
            raise ValueError(f"preset {self.name!r}, {lib_name!r}: {len(found)} notes start "
                             f"with {start!r}; differs= names the start of exactly one")
        return found[0]

    def entry(self, name: str) -> Name | None:
        return self.names.get(name.lower())

    def by_family(self, family: str) -> Name | None:
        """The first entry of a receval family, or None."""
        return next(iter(self.of_family(family).values()), None)

    def of_family(self, family: str, k: int | None = None) -> dict[str, Name]:
        """The entries (not refused) of a receval family, by library name, that take the form
        of a key with cutoff ``k`` (:attr:`Name.cutoff`): a receval key under the preset
        (``map@5``) means the library's one metric of that family, and is ambiguous where
        the library has several with other conventions."""
        form = "none" if k is not None else "required"
        return {n: e for n, e in self.names.items()
                if e.family == family and not e.refused and e.cutoff != form}


@dataclass(frozen=True)
class TrecMeasure:
    """One trec_eval 9.0.8 measure: how trec_eval parses and summarises it, and its receval metric.

    ``kind``: ``"cut_long"`` (integer cutoffs ``P.5,10``), ``"cut_double"`` (numbers
    ``iprec_at_recall.0.5``), ``"params"`` (text ``utility.1,-1,0,0``), ``"single"`` (no
    parameter), ``"count"`` (a count), ``"string"`` (text). ``default``: the parameters trec_eval
    prints when none are given. ``summary``: how the ``all`` line is formed (``"mean"``,
    ``"sum"``, ``"geometric"``: exp of the mean of the per-query logarithms, ``"count"`` of
    queries, ``"none"``, ``"runid"``); under ``compat="trec_eval"`` a ``"sum"`` measure's
    receval metric is summarised by its sum (:attr:`compat_params`), the others by their
    family's own summary (``gm_map``'s is geometric, ``num_q``'s the sum of ones).

    ``family`` / ``params``: the receval metric with the same per-query value (``None``: none
    has it; the trec_eval emulator computes it alone). ``arg``: where one parameter of the
    measure goes, ``"k"`` (the cutoff) or a receval parameter name (``"recall"``); for a
    ``params`` measure, the receval parameters its comma-separated values go to
    (``"a,b,c,d"``), or ``None``: it maps only without parameters. Families with a ``rel`` threshold take trec_eval's
    ``-l`` level as ``rel``. ``values_of``: the measure whose per-query values a summary-only
    measure summarises (``gm_map``: ``map``). ``plugin``: the family is one of the plugin
    families of :mod:`receval.trec.registered`; the measure maps once they are registered
    (:data:`receval.metrics.spec.PLUGIN_MODULES`).
    """

    name: str
    kind: str
    doc: str
    family: str | None = None
    params: tuple[tuple[str, Any], ...] = ()
    arg: str | None = None
    default: tuple = ()
    summary: str = "mean"
    per_query: bool = True
    values_of: str | None = None
    plugin: bool = False

    def parse(self, text: str | None) -> tuple:
        """Parameter values from trec_eval's text (``"5,10"``), sorted and deduplicated for
        cutoffs; the defaults for ``None`` or ``""``. Cutoffs are truncated as trec_eval's
        ``atol`` does (``23.4`` -> 23)."""
        if not text:
            if self.kind == "cut_long":
                return tuple(int(c) for c in self.default)
            if self.kind == "cut_double":
                return tuple(float(c) for c in self.default)
            return self.default
        parts = [p for p in text.split(",") if p != ""]
        if self.kind == "params":
            return tuple(parts)
        if self.kind not in ("cut_long", "cut_double"):
            raise MetricError(
                f"trec measure {self.name} takes no parameters, got {self.name}.{text}.")
        values: list[Any] = []
        for p in parts:
            try:
                v = float(p)
            except ValueError:
                v = None
            if v is None or not math.isfinite(v):  # five, nan, inf, 1e400
                raise MetricError(
                    f"trec measure {self.name}.{text}: parameter {plain(p)} is not a "
                    f"{'number' if v is None else 'finite number'}; write e.g. {self.name}.5,10."
                )
            if self.kind == "cut_long":
                if not 1 <= int(v) <= MAX_CUTOFF:
                    raise MetricError(
                        f"trec measure {self.name}.{text}: cutoffs must be positive integers up "
                        f"to {MAX_CUTOFF}, got {plain(p)}."
                    )
                values.append(int(v))
            else:
                values.append(v)
        return tuple(sorted(set(values)))

    @property
    def compat_params(self) -> tuple[tuple[str, Any], ...]:
        """The receval parameters of the measure under ``compat="trec_eval"``: its
        ``params``, and ``summary="sum"`` where trec_eval's ``all`` line is a sum (a plain
        receval key such as ``num_ret`` keeps receval's mean)."""
        return self.params + ((("summary", "sum"),) if self.summary == "sum" else ())

    def maps(self, text: str | None) -> bool:
        """Whether a receval metric computes this measure with these parameters."""
        if self.family is None or (self.plugin and not _registered(self.family)):
            return False
        return self.kind != "params" or not text or self.arg is not None

    def target(self, value: Any = None, level: float | None = None) -> MetricSpec:
        """The receval spec of one parameter value (``None``: the measure without one; for a
        cutoff, the whole list; for a ``params`` measure, all its values) at relevance level
        ``level`` (``None``: receval's default)."""
        if self.family is None:
            raise MetricError(f"trec_eval's {self.name} has no receval metric.")
        params = dict(self.params)
        family = REGISTRY.get(self.family) or metric(self.family).definition  # a plugin's
        if level is not None and any(p.name == "rel" for p in family.params):
            params["rel"] = level
        k = None
        if self.kind == "params":
            if value is not None and self.arg is not None:
                names = self.arg.split(",")
                if len(value) != len(names):
                    raise MetricError(
                        f"trec measure {self.name}.{','.join(value)}: needs {len(names)} "
                        f"numbers {self.arg}, e.g. {self.name}.{','.join(self.default)}.")
                params.update(zip(names, value, strict=True))
        elif value is not None and self.arg == "k":
            k = int(value)
        elif value is not None and self.arg is not None:
            params[self.arg] = value
        return metric(self.family, k, **params)


def _registered(family: str) -> bool:
    """Whether a metric family is registered (plugins loaded first)."""
    if family not in REGISTRY:
        load_plugins()
    return family in REGISTRY
