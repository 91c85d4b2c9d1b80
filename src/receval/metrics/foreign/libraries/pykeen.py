"""PyKEEN (rank-based metrics)'s metric names and conventions (``compat="pykeen"``).

Every class of ``pykeen.metrics.ranking`` that ``rank_based_metric_resolver`` resolves, under
each spelling it accepts: the metric's key (``arithmetic_mean_rank``, the class name in snake
case), the resolver's normalised class name (``arithmeticmeanrank``) and the synonyms the class
declares (``mean_rank``, ``mr``, ...), lower case. Hits@k is written with its cutoff:
``hits@10``, ``h@10``, ``hits_at_k@10``.

One ranking task a user, its one true item ranked against every scored candidate: the rank r
of the true item is receval's ``first_hit_rank`` (no cutoff). The rank-based metrics that are a
mean of a function of r are reproduced (Hits@k = mean [r <= k], MRR = mean 1/r, MR = mean r);
the others are functions of the whole list of ranks (a median, a spread, a geometric mean, the
reciprocal of a mean) or need the number of candidates of every task (adjusted and z-scored
metrics), and are refused.
"""

from __future__ import annotations

from ..records import Name, Preset, refuse
from ..records import name as _n

_SUMMARY = ("a function of the whole list of ranks, not a mean of one value per ranking task "
            "(receval summarises per-user values by their mean)")
_CANDIDATES = ("needs the number of candidates of every ranking task (the expected value "
               "under uniformly random ranks): not a receval metric")

#: (names, entry): every spelling of one PyKEEN class
_GROUPS: tuple[tuple[tuple[str, ...], Name], ...] = (
    (("hits_at_k", "hitsatk", "hits", "h"),
     _n("hit_rate", "Hits@k: mean of [r <= k], r the rank of the true item (hits@k, or "
        "hits(k=5); without a cutoff HitsAtK's default, k = 10)", default_k=10,
        options={"k": "@k"}, differs="tied scores: PyKEEN")),
    (("inverse_harmonic_mean_rank", "inverseharmonicmeanrank", "mean_reciprocal_rank",
      "meanreciprocalrank", "mrr"),
     _n("mrr", "MRR, the inverse harmonic mean rank: mean of 1 / r over the whole "
        "ranking", differs="tied scores: PyKEEN")),
    (("arithmetic_mean_rank", "arithmeticmeanrank", "mean_rank", "meanrank", "mr"),
     _n("first_hit_rank", "MR, the arithmetic mean rank: mean of r over the whole ranking "
        "(lower is better)", differs="tied scores: PyKEEN")),
    (("inverse_arithmetic_mean_rank", "inversearithmeticmeanrank", "iamr"),
     refuse("IAMR: 1 / mean of r", _SUMMARY + ": take 1 / first_hit_rank's mean")),
    (("harmonic_mean_rank", "harmonicmeanrank", "hmr"),
     refuse("HMR: 1 / mean of 1 / r", _SUMMARY + ": take 1 / mrr")),
    (("geometric_mean_rank", "geometricmeanrank", "gmr"),
     refuse("GMR: exp of the mean of log r", _SUMMARY)),
    (("inverse_geometric_mean_rank", "inversegeometricmeanrank", "igmr"),
     refuse("IGMR: 1 / GMR", _SUMMARY)),
    (("median_rank", "medianrank"), refuse("median of r", _SUMMARY)),
    (("inverse_median_rank", "inversemedianrank"), refuse("1 / median of r", _SUMMARY)),
    (("standard_deviation", "standarddeviation", "rank_std", "rankstd", "std"),
     refuse("population standard deviation of r", _SUMMARY
            + ": read the per-user values of first_hit_rank")),
    (("variance", "rank_var", "rankvar", "var"),
     refuse("population variance of r", _SUMMARY
            + ": read the per-user values of first_hit_rank")),
    (("median_absolute_deviation", "medianabsolutedeviation", "rank_mad", "rankmad", "mad"),
     refuse("median absolute deviation of r (scale='normal')", _SUMMARY
            + ": read the per-user values of first_hit_rank")),
    (("count", "rank_count", "rankcount"),
     refuse("the number of ranking tasks",
            "a count of ranking tasks, not a metric: the result counts the users evaluated")),
    (("adjusted_arithmetic_mean_rank", "adjustedarithmeticmeanrank", "adjusted_mean_rank",
      "adjustedmeanrank", "amr", "aamr"),
     refuse("AAMR: MR / its expected value", _CANDIDATES)),
    (("adjusted_arithmetic_mean_rank_index", "adjustedarithmeticmeanrankindex",
      "adjusted_mean_rank_index", "adjustedmeanrankindex", "amri", "aamri"),
     refuse("AMRI: 1 - (MR - 1) / (E[MR] - 1)", _CANDIDATES)),
    (("adjusted_geometric_mean_rank_index", "adjustedgeometricmeanrankindex", "gmri",
      "agmri"),
     refuse("AGMRI: GMR re-indexed by its expected value", _CANDIDATES)),
    (("adjusted_inverse_harmonic_mean_rank", "adjustedinverseharmonicmeanrank",
      "adjusted_mean_reciprocal_rank", "adjustedmeanreciprocalrank", "adjusted_mrr",
      "adjustedmrr", "amrr", "aihmr"),
     refuse("adjusted MRR: (MRR - E[MRR]) / (1 - E[MRR])", _CANDIDATES)),
    (("adjusted_hits_at_k", "adjustedhitsatk", "ahk"),
     refuse("adjusted Hits@k: (Hits@k - E) / (1 - E)", _CANDIDATES)),
    (("z_arithmetic_mean_rank", "zarithmeticmeanrank", "zamr", "zmr"),
     refuse("zMR: (MR - E[MR]) / sqrt(V[MR])", _CANDIDATES)),
    (("z_geometric_mean_rank", "zgeometricmeanrank", "zgmr"),
     refuse("zGMR: GMR z-scored", _CANDIDATES)),
    (("z_inverse_harmonic_mean_rank", "zinverseharmonicmeanrank", "zmrr", "zihmr"),
     refuse("zMRR: MRR z-scored", _CANDIDATES)),
    (("z_hits_at_k", "zhitsatk", "zahk"),
     refuse("z-Hits@k: Hits@k z-scored", _CANDIDATES)),
)

NAMES: dict[str, Name] = {spelling: entry for spellings, entry in _GROUPS
                          for spelling in spellings}

PRESET = Preset(
    "pykeen", "PyKEEN (rank-based metrics)", "pykeen 1.11.1",
    "pykeen/pykeen src/pykeen/metrics/ranking.py (HitsAtK, InverseHarmonicMeanRank, "
    "ArithmeticMeanRank and every other class rank_based_metric_resolver resolves, their "
    "synonyms), src/pykeen/evaluation/ranks.py (optimistic, pessimistic, realistic ranks); "
    "read from the installed 1.11.1; checked by benchmarks/peers/libs/pykeen.py and "
    "tests/crosscheck/test_preset_pykeen.py",
    (("users", "truth"), ("empty_truth", "skip")),
    NAMES,
    ("one ranking task per user with one true item (leave-one-out), every candidate scored; "
     "with several true items PyKEEN ranks each one against the non-true candidates (filtered "
     "setting) and averages over (user, item) pairs: not reproduced",
     "tied scores: PyKEEN's rank types are optimistic (1 + candidates scored higher), "
     "pessimistic (candidates scored at least as high) and realistic (their mean, the default); "
     "the metric is taken of the realistic rank, not averaged over tie orders as receval's "
     "ties='average' does: with tied scores none of the three is reproduced (with distinct "
     "scores they coincide with every receval tie policy)",
     "Hits@k takes its cutoff as hits@5 or hits(k=5), and without one is Hits@10 (HitsAtK's "
     "default); PyKEEN's result keys hits_at_10 and prefixed keys (both.realistic."
     "hits_at_10, tail.mean_rank) are not names here",
     "PyKEEN averages head and tail predictions ('both'); evaluate each side as its own run"),
)
