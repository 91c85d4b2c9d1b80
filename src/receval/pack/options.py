"""The policies as the compiled kernels read them: one options record, made in one place.

:func:`kernel_options` turns a :class:`~receval.policies.Policies` into the integers and flags
that the packers (:func:`receval.kernels.pack_lists`, :func:`receval.kernels.join_lists`), the
list layout (:mod:`receval.pack.positions`) and the kernel's column pass
(:func:`receval.kernels.kernel_columns`) take. Nothing after it compares a policy string: a
policy's meaning for the kernels is written here, once.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from ..policies import Policies

#: duplicates policy -> the run packers' ``dedupe`` code: 0 keeps every row, each with the
#: item's relevance, and counts the repeats (``"count"``; ``"error"`` refuses them after the
#: join); 1 keeps, of the rows of one (user, item), the best-ranked one: highest score, then
#: tie key (``"first"`` and ``"max"`` alike, independent of row order); 2 keeps every row at
#: its position, the later occurrences as items without a truth row (``"keep"``)
RUN_DEDUPE = {"error": 0, "count": 0, "max": 1, "first": 1, "keep": 2}
#: duplicates policy -> the truth grouping's code: 1 keeps the highest relevance of a (user,
#: item) (``"first"``, ``"max"``); 0 counts them, and they are refused: a truth pair has one
#: relevance and no position, so ``"keep"`` and ``"count"`` refuse repeated truth rows as
#: ``"error"`` does
TRUTH_DEDUPE = {"error": 0, "count": 0, "keep": 0, "max": 1, "first": 1}
#: nan_scores policy -> the packers' ``nan_mode``: 0 keep (the caller refuses them), 1 drop
#: (counted), 2 rank last
NAN_MODE = {"error": 0, "drop": 1, "last": 2}


@dataclass(frozen=True)
class KernelOptions:
    """What the compiled code is told, per policy.

    ``ties``: ``as_float32`` and ``desc_ids`` (``"trec_eval"``: scores compared as 32-bit
    floats, tied items by id text descending), ``by_row`` (``"input"``: tied items in row
    order), ``tie_groups`` (``"average"``: the kernel averages over each tie group).
    ``duplicates``: ``dedupe`` / ``truth_dedupe`` (:data:`RUN_DEDUPE`, :data:`TRUTH_DEDUPE`),
    ``refuse_duplicates`` (``"error"``). ``nan_scores``: ``nan_mode`` (:data:`NAN_MODE`).
    ``unjudged="remove"``: ``condense``. ``ranks="position"``: ``absolute_ranks`` (for a rank
    run). ``unretrieved="bottom"``: ``append_unretrieved``. ``empty_truth``: ``empty_zero``,
    ``empty_skip``, ``empty_error``. Integers are ``int`` (the compiled signatures' ``int``).
    """

    dedupe: int
    truth_dedupe: int
    refuse_duplicates: bool
    nan_mode: int
    as_float32: int
    desc_ids: int
    by_row: int
    tie_groups: bool
    condense: bool
    absolute_ranks: bool
    append_unretrieved: bool
    empty_zero: int
    empty_skip: int
    empty_error: bool


@lru_cache(maxsize=64)
def kernel_options(policies: Policies) -> KernelOptions:
    """The :class:`KernelOptions` of ``policies`` (made once per distinct policies)."""
    trec = int(policies.ties == "trec_eval")
    return KernelOptions(
        dedupe=RUN_DEDUPE[policies.duplicates],
        truth_dedupe=TRUTH_DEDUPE[policies.duplicates],
        refuse_duplicates=policies.duplicates == "error",
        nan_mode=NAN_MODE[policies.nan_scores],
        as_float32=trec, desc_ids=trec,
        by_row=int(policies.ties == "input"),
        tie_groups=policies.ties == "average",
        condense=policies.unjudged == "remove",
        absolute_ranks=policies.ranks == "position",
        append_unretrieved=policies.unretrieved == "bottom",
        empty_zero=int(policies.empty_truth == "zero"),
        empty_skip=int(policies.empty_truth == "skip"),
        empty_error=policies.empty_truth == "error",
    )


#: the options of the default policies
DEFAULT_OPTIONS = kernel_options(Policies())
