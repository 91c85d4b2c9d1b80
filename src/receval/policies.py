"""Evaluation policies: every convention on which libraries disagree, as one named value.

Each policy is declared once, in :data:`POLICY_TABLE` (name, default, choices, the words that
say what it governs, one line of command-line help, the text of each choice). The
:class:`Policies` type, the declared parameters of the public functions
(:data:`POLICY_PARAMS`, :data:`OPTIONAL_POLICY_PARAMS`), the command-line flags, the words of
:func:`receval.diff` and :func:`receval.explain`, and the table below are read from it; the
packing step turns the chosen values into the kernels' options (:mod:`receval.pack.options`).
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any

from .errors import PolicyError, plain, suggest
from .validation import Options


@dataclass(frozen=True)
class Choice:
    """One value of a policy: ``doc`` says what it does (the module table), ``explain`` the
    order or step :func:`receval.explain` prints under it (where it prints one)."""

    value: str
    doc: str = ""
    explain: str = ""


@dataclass(frozen=True)
class PolicyDef:
    """The declaration of one policy; everything else about it is read from here."""

    name: str
    default: str
    choices: tuple[Choice, ...]
    governs: str  # what it decides, in a few words (rv.diff names a changed policy by them)
    help: str  # one line of command-line help
    note: str = ""  # after the choices in the module table

    @property
    def values(self) -> tuple[str, ...]:
        """The choices' values, in declaration order."""
        return tuple(c.value for c in self.choices)

    @property
    def explain(self) -> dict[str, str]:
        """Choice -> the text :func:`receval.explain` prints under it."""
        return {c.value: c.explain for c in self.choices if c.explain}

    @property
    def flag(self) -> str:
        """The command-line flag (``--empty-truth``)."""
        return "--" + self.name.replace("_", "-")

    @property
    def cli_help(self) -> str:
        """:attr:`help` with the default named."""
        return f"{self.help}; default {self.default}"

    def check(self, value: Any) -> str:
        """``value`` as a plain ``str`` (``np.str_`` serializes plainly), or
        :class:`PolicyError` naming the policy, the value and the choices."""
        if value not in self.values:
            raise PolicyError(
                f"{self.name}={plain(value)} is not a valid policy; choose one of "
                f"{list(self.values)}." + suggest(str(value), self.values))
        return str(value)


def _policy(name: str, governs: str, help: str, *choices: Choice | str,
            note: str = "") -> PolicyDef:
    cs = tuple(c if isinstance(c, Choice) else Choice(c) for c in choices)
    return PolicyDef(name, cs[0].value, cs, governs, help, note)


#: Every policy, in the order of :class:`Policies`' fields; the first choice is the default.
POLICY_TABLE: Mapping[str, PolicyDef] = {p.name: p for p in (
    _policy(
        "ties", "the order of tied scores",
        "order of tied scores: id = item id ascending, average = expected value over tie "
        "orders, trec_eval = score as float32 then item id descending, input = input row "
        "order (ranx)",
        Choice("id", "score descending, then raw item id ascending (deterministic, "
                     "input-order free)",
               "score descending, then item id ascending"),
        Choice("average", "expected value over all orders of tied items (McSherry & Najork "
                          "2008)",
               "score descending, then item id ascending (values under ties='average' are "
               "expectations over tie orders, so they may differ where scores tie)"),
        Choice("trec_eval", "score as 32-bit float descending, then item id descending "
                            "(trec_eval 9.x)",
               "score as a 32-bit float descending, then item id descending"),
        Choice("input", "score descending, then the order of the input rows (first "
                        "appearance first: a stable sort; ranx ``Run`` lists of up to 15 "
                        "items). Only the scores and the row order matter; the Spark engine "
                        "refuses it (no row order there)",
               "score descending, then the order of the input rows")),
    _policy(
        "users", "which users are averaged",
        "users evaluated: truth (a user without a list scores 0), run, union, intersection",
        Choice("truth", "every user with truth rows; a user with no list scores 0, never "
               "more than with a list (the rates an empty list would win, accuracy, "
               "specificity and fpr, have no value for it)"),
        Choice("run", "every user with run rows"),
        Choice("union", "both"),
        Choice("intersection", "the users with truth rows and run rows")),
    _policy(
        "empty_truth", "users without a relevant item",
        "a user with no relevant truth item: skip (counted), zero, nan, error",
        Choice("skip", "left out of the mean, counted"), Choice("zero", "the user's value is 0"),
        Choice("nan", "the user's value is NaN, and so is the mean"), Choice("error", "refused")),
    _policy(
        "duplicates", "repeated rows",
        "repeated (user, item) rows: error, first, max, keep (in place, repeats "
        "non-relevant), count (in place, every repeat counts)",
        Choice("error", "refused"),
        Choice("first", "keep the best-ranked occurrence: in a run the row with the highest "
                        "score, ties broken by the ``ties`` key; in a truth the row with the "
                        "highest relevance, which ranks first in the ideal list"),
        Choice("max", "keep the highest score / relevance. Neither depends on the order of "
                      "the rows, so ``\"first\"`` and ``\"max\"`` give the same values "
                      "(before 0.2 ``\"first\"`` kept the first row in input order, which "
                      "made results depend on row order)"),
        Choice("keep", "a run's repeated rows keep their positions (they fill the list and "
                       "its length), the best-ranked occurrence counts and the later ones are "
                       "items without a truth row: relevance 0, not judged (ml_metrics / "
                       "recmetrics ``apk``, ``_ark``: ``p not in predicted[:i]``)"),
        Choice("count", "every occurrence keeps its position and counts with the item's "
                        "relevance (LensKit's ``ItemList.isin``: precision and recall count "
                        "each repeat, recall can exceed 1)"),
        note="The ideal list comes from the truth alone; ``\"keep\"`` and ``\"count\"`` "
             "refuse repeated truth rows (a pair has one relevance and no position), and "
             "``ties=\"average\"`` refuses ``\"keep\"``."),
    _policy(
        "nan_scores", "NaN scores", "NaN/inf scores: error, drop, last",
        "error", Choice("drop", "remove those rows, counted"),
        Choice("last", "rank them after every finite score"),
        note="Applies to NaN and infinite scores."),
    _policy(
        "negative_rel", "negative relevance",
        "relevance below 0: error, zero (judged non-relevant), drop (unjudged)",
        "error", Choice("zero", "judged non-relevant"),
        Choice("drop", "remove those truth rows: the items count as unjudged, as in "
                       "trec_eval's bpref")),
    _policy(
        "nan_rel", "NaN relevance",
        "NaN (missing) relevance in the truth: error, zero (judged non-relevant), drop "
        "(unjudged)",
        "error",
        Choice("zero", "judged non-relevant, gain 0: LensKit drops NaN gains from the DCG "
                       "and its ideal"),
        Choice("drop", "remove those truth rows: the items count as unjudged; a user whose "
                       "rows all go stays a truth user without a relevant item"),
        note="Infinite relevance is always an error."),
    _policy(
        "unjudged", "recommended items without a truth row",
        "recommended items without a truth row: keep (non-relevant), remove (condensed "
        "lists: ir_measures judged_only, trec_eval -J)",
        Choice("keep", "they count as non-relevant"),
        Choice("remove", "drop them from every list before scoring: Sakai's condensed lists, "
                         "ir_measures ``judged_only``, trec_eval ``-J``")),
    _policy(
        "ranks", "how the rank column is read (order or absolute position)",
        "a rank column: order (rows ordered by rank, positions 1..n), position (each rank "
        "is the row's absolute position, as RecTools reads it)",
        Choice("order", "the rows are ordered by rank and take positions 1..n"),
        Choice("position", "each rank is the row's absolute position, as in RecTools: a row "
                           "with rank 9 is outside the top 3 even when the user has 2 rows; "
                           "ranks without a row hold a non-relevant, unjudged placeholder, "
                           "and every discount, reciprocal rank and precision@i reads the "
                           "rank; ranks must be integers >= 1. Rows of a user sharing a rank "
                           "each sit at that rank: at cutoff k every row with rank <= k is in "
                           "the top k (precision may exceed 1, MAP counts a rank once); "
                           "metrics that need a strict order of the rows (bpref, infAP, "
                           "iprec, pauc, pap, percentile_rank, the C/W/L models) refuse "
                           "them"),
        note="A score run has no rank to read: its rows take positions 1..n in score order, "
             "as under ``\"order\"``."),
    _policy(
        "unretrieved", "the truth items a list misses (absent or tied at the bottom)",
        "truth items missing from a list: absent, bottom (appended below every retrieved "
        "item, tied: scikit-learn ndcg_score on union arrays)",
        Choice("absent", "not in the list; they count in R and the ideal list only"),
        Choice("bottom", "appended after the whole list, below every retrieved item, ordered "
                         "by the ``ties`` rule: one tie group sharing its mean gain under "
                         "``\"average\"``, as scikit-learn's ``ndcg_score`` on arrays over "
                         "the union of recommended and truth items"),
        note="Metrics on the recommended items never see them."),
)}

#: policy -> its choices (the first is the default).
POLICY_CHOICES: dict[str, tuple[str, ...]] = {n: p.values for n, p in POLICY_TABLE.items()}
#: policy -> its default.
POLICY_DEFAULTS: dict[str, str] = {n: p.default for n, p in POLICY_TABLE.items()}
#: the policies as declared parameters (:func:`receval.validation.validate_params`).
POLICY_PARAMS: dict[str, list[Any]] = {n: [Options(c)] for n, c in POLICY_CHOICES.items()}
#: the same where ``None`` stands for a policy not given (a preset's, or the default).
OPTIONAL_POLICY_PARAMS: dict[str, list[Any]] = {
    n: [None, Options(c)] for n, c in POLICY_CHOICES.items()}


def _choice_text(c: Choice) -> str:
    return f'``"{c.value}"``' + (f": {c.doc}" if c.doc else "")


def policy_table_rst(width: int = 51) -> str:
    """The reStructuredText table of :data:`POLICY_TABLE`: per policy its default, what it
    governs, each choice's text and the policy's note (the module docstring shows it)."""
    rule = "=" * 17 + "  " + "=" * 26 + "  " + "=" * width
    lines = [rule, f"{'policy':17}  {'default':26}  choices", rule]
    for p in POLICY_TABLE.values():
        paragraphs = [p.governs[0].upper() + p.governs[1:] + "."]
        paragraphs += [_choice_text(c) + "." for c in p.choices] + ([p.note] if p.note else [])
        cells = [line for text in paragraphs for line in textwrap.wrap(
            text, width, break_long_words=False, break_on_hyphens=False)]
        left = [f"``{p.name}``", f'``"{p.default}"``']
        for i, cell in enumerate(cells):
            lines.append((f"{left[0]:17}  {left[1]:26}  " if i == 0 else " " * 47) + cell)
    lines.append(rule)
    return "\n".join(lines) + "\n"


if __doc__ is not None:  # (python -OO drops docstrings)
    __doc__ += "\n" + policy_table_rst()


@dataclass(frozen=True)
class Policies:
    """The conventions of one evaluation; see the module docstring for every choice.

    The fields are the names of :data:`POLICY_TABLE` in its order, with its defaults (a test
    holds them to it); every value is checked against the table's choices."""

    ties: str = POLICY_DEFAULTS["ties"]
    users: str = POLICY_DEFAULTS["users"]
    empty_truth: str = POLICY_DEFAULTS["empty_truth"]
    duplicates: str = POLICY_DEFAULTS["duplicates"]
    nan_scores: str = POLICY_DEFAULTS["nan_scores"]
    negative_rel: str = POLICY_DEFAULTS["negative_rel"]
    nan_rel: str = POLICY_DEFAULTS["nan_rel"]
    unjudged: str = POLICY_DEFAULTS["unjudged"]
    ranks: str = POLICY_DEFAULTS["ranks"]
    unretrieved: str = POLICY_DEFAULTS["unretrieved"]

    def __post_init__(self) -> None:
        for name, p in POLICY_TABLE.items():
            object.__setattr__(self, name, p.check(getattr(self, name)))
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
        unknown = set(kwargs) - set(POLICY_TABLE)
        if unknown:
            name = sorted(unknown)[0]
            raise PolicyError(
                f"unknown policy {plain(name)}; valid policies are {sorted(POLICY_TABLE)}."
                + suggest(name, POLICY_TABLE)
            )
        return cls(**kwargs)  # type: ignore[arg-type]


if [f.name for f in fields(Policies)] != list(POLICY_TABLE):  # pragma: no cover
    raise ImportError("receval.policies: Policies' fields differ from POLICY_TABLE")
