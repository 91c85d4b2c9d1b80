"""The plan of an evaluation: what to pack and which kernel requests to run, from specs + policies.

One module turns a list of :class:`~receval.metrics.MetricSpec` and the
:class:`~receval.policies.Policies` into

- what packing must keep: the depth (deepest cutoff; 0 = the whole list), the item and score at
  each position (plugin metrics, ``ties="average"``), the cutoffs where ties are counted;
- the kernel requests: one per kernel spec, plus the auxiliary columns every executor needs to
  summarise (relevant-item counts per threshold for the empty-truth policy, numerator and
  denominator of micro-averaged specs).

Everything metric-specific comes from the spec's :class:`~receval.metrics.spec.Kernel` binding;
this module names no metric.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import InputError, PolicyError
from ..kernels import DISCOUNTS, GAINS, IDEALS, VARIANTS, Request
from ..kernels._ranking import SHARED_RANK_REFUSED
from ..metrics import MetricSpec
from ..metrics.ranking import POSITIVE
from ..pack.options import KernelOptions, kernel_options
from ..pack.packed import same_ids
from ..policies import Policies


def binary_threshold(spec: MetricSpec) -> float | None:
    """The ``rel=`` threshold a spec turns graded relevance into binary with, or None when it
    has none (graded families use relevance > 0 as it is; families without ``rel``)."""
    binding = spec.definition.kernel
    if (binding is not None and binding.graded) or not any(
            p.name == "rel" for p in spec.definition.params):
        return None
    return float(spec.get("rel"))


def threshold(spec: MetricSpec) -> float:
    """Relevance threshold of a kernel spec: its ``rel`` parameter; any positive relevance for
    graded families and families without a ``rel`` parameter (``num_ret``)."""
    binding = spec.definition.kernel
    if (binding is not None and binding.graded) or not any(
            p.name == "rel" for p in spec.definition.params):
        return POSITIVE
    return float(spec.get("rel"))


@dataclass(frozen=True)
class KernelRequest:
    """One kernel request: code, cutoff (0 = whole list), threshold, numeric parameter, options."""

    code: int
    k: int = 0
    thr: float = POSITIVE
    par: float = 0.0
    par2: float = 0.0
    variant: int = 0
    gain: int = 0
    ideal: int = 0
    discount: int = 0


@dataclass
class Plan:
    """What to pack and what to ask the kernel, for one list of specs under one set of policies.

    Attributes
    ----------
    specs : every requested spec, in request order.
    kernel_specs, plugin_specs : the specs computed by the compiled kernel / by plugin functions.
    depth : deepest position any kernel spec reads (0 = the whole list); the depth lists are
        packed at (whole lists under ``ranks="position"``: a row's rank, not its index, puts it
        in the top k, and any number of rows may share a rank within a cutoff).
    rank_depth : under ``ranks="position"``, the ranks the lists are laid out up to (the
        deepest cutoff; 0 = every rank), :func:`receval.pack.positions.kernel_lists`' depth.
    strict_order : the keys of the kernel specs that need a strict order of the rows and
        refuse shared absolute ranks (:data:`receval.kernels._ranking.SHARED_RANK_REFUSED`).
    keep_lists : pack the item and score at each position (plugin metrics need them).
    keep_scores : pack the score at each position too: a plugin metric reads it
        (:attr:`receval.metrics.spec.MetricDef.reads_scores`).
    keep_rel : keep the relevance and judged flag at each kept position: a plugin metric
        reads them (:attr:`receval.metrics.spec.MetricDef.reads_relevance`; the kernel's
        metrics are measured as the lists are joined and need no kept copy).
    keep_item_rows : the kept lists hold each position's run row, not the item's code: every
        plugin metric looks the items up in its own vocabulary
        (:attr:`receval.metrics.spec.MetricDef.item_lookup`).
    cutoffs : ranks at which ties are counted (``counts["users_tied_at_cutoff"]``).
    options : the policies as the kernels read them (:func:`receval.pack.kernel_options`).
    """

    specs: list[MetricSpec]
    policies: Policies
    options: KernelOptions = field(init=False)
    kernel_specs: list[MetricSpec] = field(init=False)
    plugin_specs: list[MetricSpec] = field(init=False)
    depth: int = field(init=False)
    rank_depth: int = field(init=False)
    strict_order: tuple[str, ...] = field(init=False)
    keep_lists: bool = field(init=False)
    keep_scores: bool = field(init=False)
    keep_rel: bool = field(init=False)
    keep_item_rows: bool = field(init=False)
    cutoffs: tuple[int, ...] = field(init=False)
    thresholds: list[float] = field(init=False)
    # the kernel requests made so far, per truth's largest relevance (see requests())
    _requests: dict[Any, Requests] = field(init=False, default_factory=dict, repr=False,
                                           compare=False)

    def __post_init__(self) -> None:
        self.options = opts = kernel_options(self.policies)
        self.kernel_specs = [s for s in self.specs if s.definition.kernel is not None]
        self.plugin_specs = [s for s in self.specs if s.definition.kernel is None]
        if opts.tie_groups:
            bad = [s.key for s in self.kernel_specs
                   if not s.definition.kernel.exact_under_average(s)]
            if bad:
                raise PolicyError(
                    f"ties='average' (expected value over tie orders) is not available for {bad};"
                    " use ties='id' or ties='trec_eval' for them, or evaluate them separately."
                )
        if opts.absolute_ranks and opts.condense:
            raise PolicyError(
                "ranks='position' keeps every item at its given rank, while unjudged='remove' "
                "moves the judged items up (condensed lists); choose one of them."
            )
        self.depth = self.rank_depth = self._depth()
        if opts.absolute_ranks:
            self.depth = 0
        self.strict_order = tuple(dict.fromkeys(
            s.key for s in self.kernel_specs
            if int(s.definition.kernel.request) in SHARED_RANK_REFUSED))
        self.keep_lists = bool(self.plugin_specs)
        self.keep_scores = any(s.definition.reads_scores for s in self.plugin_specs)
        self.keep_rel = any(s.definition.reads_relevance for s in self.plugin_specs)
        self.keep_item_rows = self.keep_lists and all(s.definition.item_lookup
                                                      for s in self.plugin_specs)
        self.cutoffs = tuple(sorted({s.k for s in self.specs if s.k}))
        self.thresholds = sorted({threshold(s) for s in self.kernel_specs} | {POSITIVE})

    def item_vocab(self, context: Any) -> Any:
        """The distinct ids every plugin metric looks the recommended items up in, when the
        lists keep run rows and each metric names them before packing
        (:attr:`receval.metrics.spec.MetricDef.item_vocab`) and they are one set of ids
        (the same object, or equal ids in the same order); else ``None``. A metric that
        cannot name them yet (an input missing) gives ``None`` here: it raises when it is
        computed, as it would have."""
        if not self.keep_item_rows:
            return None
        found: Any = None
        for s in self.plugin_specs:
            name = s.definition.item_vocab
            try:
                vocab = name(s, context) if name is not None else None
            except InputError:
                return None
            if vocab is None:
                return None
            if found is None:
                found = vocab
            elif vocab is not found and not same_ids(found, vocab):
                return None
        return found

    def relevance(self) -> dict[str, float | str]:
        """How each requested metric reads relevance: its ``rel=`` threshold (relevance >= rel
        is relevant), ``"graded"`` (the relevance value itself; > 0 is relevant), for
        ``result.info["relevance"]``. Metrics that read no relevance are left out."""
        out: dict[str, float | str] = {}
        for s in self.specs:
            thr = binary_threshold(s)
            if thr is not None:
                out[s.key] = thr
            elif s.definition.kernel is not None and s.definition.kernel.graded:
                out[s.key] = "graded"
        return out

    def unreachable(self, max_rel: float) -> list[tuple[MetricSpec, float]]:
        """Specs whose ``rel=`` threshold no truth row reaches although some truth relevance is
        positive (largest relevance ``max_rel`` in (0, rel)): they are undefined for every
        user, while graded metrics are not. A truth without any positive relevance leaves
        every metric without a relevant item; the skipped counts say so."""
        out = []
        if not max_rel > 0:
            return out
        for s in self.specs:
            thr = binary_threshold(s)
            if thr is not None and max_rel < thr:
                out.append((s, thr))
        return out

    def _depth(self) -> int:
        if self.options.tie_groups or self.options.condense:
            return 0  # whole lists: tie groups / the judged items past any cutoff
        depth = 0
        for s in self.kernel_specs:
            binding = s.definition.kernel
            if not binding.ranked:
                continue
            if binding.needs_whole_list(s):
                return 0
            depth = max(depth, s.k)
        for s in self.plugin_specs:  # plugin metrics read the packed lists up to their k
            whole = s.definition.whole_list
            if s.k is None or (whole is not None and whole(s)):
                return 0
            depth = max(depth, s.k)
        return depth

    def requests(self, max_rel: float) -> Requests:
        """The kernel requests (``max_rel``: the truth's largest relevance, for ERR's default);
        made once per ``max_rel`` (a run packed in blocks asks once per block)."""
        key = float(max_rel) if max_rel == max_rel else "nan"
        if key not in self._requests:
            self._requests[key] = self._make_requests(max_rel)
        return self._requests[key]

    def _make_requests(self, max_rel: float) -> Requests:
        reqs: list[KernelRequest] = [_request(s, max_rel) for s in self.kernel_specs]
        nrel = {}
        for t in self.thresholds:
            nrel[t] = len(reqs)
            reqs.append(KernelRequest(Request.NREL, 0, t))
        micro = {}
        self_column = self.kernel_specs.index
        for s in self.kernel_specs:
            pair = s.definition.kernel.micro_requests(s)
            if pair is not None:
                own = reqs[self_column(s)]
                micro[s] = len(reqs)
                reqs += [KernelRequest(pair[0], s.k or 0, threshold(s), own.par, own.par2),
                         KernelRequest(pair[1], s.k or 0, threshold(s), own.par, own.par2)]
        catalogue = {}
        for s in self.kernel_specs:  # what each user occupies in a catalogue of size par
            if s.definition.kernel.catalogue is not None:
                catalogue[s] = len(reqs)
                reqs += [KernelRequest(Request.NRET, s.k or 0, threshold(s)),
                         KernelRequest(Request.HITS, s.k or 0, threshold(s))]
        return Requests(reqs, {s: i for i, s in enumerate(self.kernel_specs)}, nrel, micro,
                        catalogue)


@dataclass
class Requests:
    """Kernel requests with the column of each spec and of each auxiliary value."""

    items: list[KernelRequest]
    column: dict[MetricSpec, int]      # kernel spec -> output column
    nrel_column: dict[float, int]      # threshold -> column of the user's relevant-item count
    micro_column: dict[MetricSpec, int]  # micro spec -> numerator column (denominator: + 1)
    #: spec with a catalogue size -> column of its positions read (hits among them: + 1)
    catalogue_column: dict[MetricSpec, int] = field(default_factory=dict)
    _arrays: dict[str, np.ndarray] | None = field(default=None, repr=False, compare=False)

    def arrays(self) -> dict[str, np.ndarray]:
        """The request arrays :func:`receval.kernels.compute_metrics` takes (made once)."""
        if self._arrays is None:
            self._arrays = self._make_arrays()
        return self._arrays

    def _make_arrays(self) -> dict[str, np.ndarray]:
        def col(name: str, dtype: type) -> np.ndarray:
            return np.array([getattr(r, name) for r in self.items], dtype=dtype)

        return {"codes": col("code", np.int32), "ks": col("k", np.int64),
                "thrs": col("thr", np.float64), "pars": col("par", np.float64),
                "opts": col("variant", np.int32), "gains": col("gain", np.int32),
                "ideals": col("ideal", np.int32), "discounts": col("discount", np.int32),
                "pars2": col("par2", np.float64)}


def _index(spec: MetricSpec, name: str, choices: tuple[str, ...]) -> int:
    if not any(p.name == name for p in spec.definition.params):
        return 0
    return choices.index(spec.get(name))


def _request(spec: MetricSpec, max_rel: float) -> KernelRequest:
    binding = spec.definition.kernel
    variant = 0
    if binding.variant is not None:
        variant = VARIANTS[binding.request].index(spec.get(binding.variant))
    return KernelRequest(
        code=binding.request, k=spec.k or 0, thr=threshold(spec),
        par=binding.par(spec, max_rel) if binding.par is not None else 0.0,
        par2=binding.par2(spec, max_rel) if binding.par2 is not None else 0.0,
        variant=variant, gain=_index(spec, "gain", GAINS), ideal=_index(spec, "ideal", IDEALS),
        discount=_index(spec, "discount", DISCOUNTS),
    )
