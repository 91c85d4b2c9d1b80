"""Evaluation policies: every convention on which libraries disagree, as one named value.

=================  ==========================  ===================================================
policy             default                     choices
=================  ==========================  ===================================================
``ties``           ``"id"``                    ``"id"``: score descending, then raw item id
                                               ascending (deterministic, input-order free);
                                               ``"average"``: expected value over all orders of
                                               tied items (McSherry & Najork 2008);
                                               ``"trec_eval"``: score as 32-bit float descending,
                                               then item id descending (trec_eval 9.x);
                                               ``"input"``: score descending, then the order of
                                               the input rows (first appearance first: a
                                               stable sort; ranx ``Run`` lists of up to 15
                                               items). Only the scores and the row order
                                               matter; the Spark engine refuses it (no row
                                               order there).
``users``          ``"truth"``                 which users are evaluated: ``"truth"`` (every user
                                               with truth rows; a user with no list scores 0),
                                               ``"run"``, ``"union"``, ``"intersection"``.
``empty_truth``    ``"skip"``                  a user whose truth has no relevant item:
                                               ``"skip"`` (counted), ``"zero"``, ``"nan"``,
                                               ``"error"``.
``duplicates``     ``"error"``                 repeated (user, item) rows: ``"error"``,
                                               ``"first"`` (keep the best-ranked occurrence: in
                                               a run the row with the highest score, ties
                                               broken by the ``ties`` key; in a truth the row
                                               with the highest relevance, which ranks first in
                                               the ideal list), ``"max"`` (keep the highest
                                               score / relevance). Neither depends on the order
                                               of the rows, so ``"first"`` and ``"max"`` give
                                               the same values (before 0.2 ``"first"`` kept
                                               the first row in input order, which made results
                                               depend on row order); ``"keep"``: a run's
                                               repeated rows keep their positions (they fill
                                               the list and its length), the best-ranked
                                               occurrence counts and the later ones are items
                                               without a truth row: relevance 0, not judged
                                               (ml_metrics / recmetrics ``apk``, ``_ark``:
                                               ``p not in predicted[:i]``); ``"count"``:
                                               every occurrence keeps its position and counts
                                               with the item's relevance (LensKit's
                                               ``ItemList.isin``: precision and recall count
                                               each repeat, recall can exceed 1). The ideal
                                               list comes from the truth alone; ``"keep"`` and
                                               ``"count"`` refuse repeated truth rows (a pair
                                               has one relevance and no position), and
                                               ``ties="average"`` refuses ``"keep"``.
``nan_scores``     ``"error"``                 NaN or infinite scores: ``"error"``, ``"drop"``
                                               (remove those rows, counted), ``"last"`` (rank
                                               them after every finite score).
``negative_rel``   ``"error"``                 relevance below 0: ``"error"``, ``"zero"`` (judged
                                               non-relevant), ``"drop"`` (remove those truth
                                               rows: the items count as unjudged, as in
                                               trec_eval's bpref).
``nan_rel``        ``"error"``                 NaN (missing) relevance in the truth:
                                               ``"error"``, ``"zero"`` (judged non-relevant,
                                               gain 0: LensKit drops NaN gains from the DCG
                                               and its ideal), ``"drop"`` (remove those truth
                                               rows: the items count as unjudged; a user whose
                                               rows all go stays a truth user without a
                                               relevant item). Infinite relevance is always
                                               an error.
``unjudged``       ``"keep"``                  recommended items without a truth row: ``"keep"``
                                               (they count as non-relevant), ``"remove"``
                                               (drop them from every list before scoring:
                                               Sakai's condensed lists, ir_measures
                                               ``judged_only``, trec_eval ``-J``).
``ranks``          ``"order"``                 how a rank column is read: ``"order"`` (the rows
                                               are ordered by rank and take positions 1..n);
                                               ``"position"`` (each rank is the row's absolute
                                               position, as in RecTools: a row with rank 9 is
                                               outside the top 3 even when the user has 2
                                               rows; ranks without a row hold a non-relevant,
                                               unjudged placeholder, and every discount,
                                               reciprocal rank and precision@i reads the rank;
                                               ranks must be integers >= 1, one row per rank;
                                               a score run has no rank to read: its rows take
                                               positions 1..n in score order, as under
                                               ``"order"``).
``unretrieved``    ``"absent"``                truth items missing from a user's list:
                                               ``"absent"`` (not in the list; they count in R
                                               and the ideal list only); ``"bottom"`` (appended
                                               after the whole list, below every retrieved item,
                                               ordered by the ``ties`` rule: one tie group
                                               sharing its mean gain under ``"average"``, as
                                               scikit-learn's ``ndcg_score`` on arrays over the
                                               union of recommended and truth items). Metrics
                                               on the recommended items never see them.
=================  ==========================  ===================================================
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from .errors import PolicyError, plain, suggest

_CHOICES: dict[str, tuple[str, ...]] = {
    "ties": ("id", "average", "trec_eval", "input"),
    "users": ("truth", "run", "union", "intersection"),
    "empty_truth": ("skip", "zero", "nan", "error"),
    "duplicates": ("error", "first", "max", "keep", "count"),
    "nan_scores": ("error", "drop", "last"),
    "negative_rel": ("error", "zero", "drop"),
    "nan_rel": ("error", "zero", "drop"),
    "unjudged": ("keep", "remove"),
    "ranks": ("order", "position"),
    "unretrieved": ("absent", "bottom"),
}


@dataclass(frozen=True)
class Policies:
    """The conventions of one evaluation; see the module docstring for every choice."""

    ties: str = "id"
    users: str = "truth"
    empty_truth: str = "skip"
    duplicates: str = "error"
    nan_scores: str = "error"
    negative_rel: str = "error"
    nan_rel: str = "error"
    unjudged: str = "keep"
    ranks: str = "order"
    unretrieved: str = "absent"

    def __post_init__(self) -> None:
        for name, choices in _CHOICES.items():
            value = getattr(self, name)
            if value not in choices:
                raise PolicyError(
                    f"{name}={plain(value)} is not a valid policy; choose one of {list(choices)}."
                    + suggest(str(value), choices)
                )
            object.__setattr__(self, name, str(value))  # np.str_ -> str (serializes plainly)
        if self.ties == "average" and self.duplicates == "keep":
            raise PolicyError(
                "ties='average' with duplicates='keep' is not available: in every order of "
                "tied rows the first occurrence of a repeated item takes the first of its "
                "places, so the positions of a tie group are not interchangeable and the "
                "expected value has no exact form here. Use duplicates='count' or 'first', "
                "or ties='id' / 'input'."
            )

    def to_dict(self) -> dict[str, str]:
        return asdict(self)

    @classmethod
    def from_kwargs(cls, **kwargs: object) -> Policies:
        unknown = set(kwargs) - set(_CHOICES)
        if unknown:
            name = sorted(unknown)[0]
            raise PolicyError(
                f"unknown policy {plain(name)}; valid policies are {sorted(_CHOICES)}."
                + suggest(name, _CHOICES)
            )
        return cls(**kwargs)  # type: ignore[arg-type]


POLICY_CHOICES = _CHOICES
