"""The packing step: truth and run to contiguous per-user arrays (the kernels' contract).

``TruthPack`` is built once per truth (an :class:`~receval.Evaluator` reuses it). ``pack_run``
orders each user's list (score descending, deterministic tie key on raw ids), looks up each
recommended item's relevance, cuts at the deepest cutoff needed and returns a :class:`Packed`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from ..errors import InputError, PolicyError
from ..io.frames import Columns, checked_str_ids
from ..kernels import (
    MetricSetup,
    NotStrIds,
    group_rows,
    group_truth,
    group_truth_raw,
    join_lists,
    nonfinite,
    pack_lists,
)
from ..policies import Policies
from .options import DEFAULT_OPTIONS, KernelOptions, kernel_options
from .positions import check_rank_run, group_ends
from .rawids import (
    INT,
    NARROW,
    Grouped,
    RawIds,
    category_ids,
    dictionary_truth,
    grouped_column,
    lookup_at,
    raw_ids,
    sorted_codes,
    take_ids,
    truth_raw,
)
from .vocab import (
    CODE,
    concat_ids,
    describe_kind,
    empty_ids,
    factorize,
    factorize_grouped,
    kind_of,
    lookup,
    order_keys,
    text_to_ints,
)


@dataclass
class TruthPack:
    """Per-user truth, CSR by user: items in ascending id order, relevances, and sorted-desc
    relevances.

    A truth whose item ids can be read in place (:mod:`receval.pack.rawids`) is grouped on
    those raw ids, without a global item vocabulary: ``raw`` then holds the id at each packed
    position, which is all the join on raw ids needs. The vocabulary (``items``) and the codes
    (``item_codes``) are built on first use, with codes in ascending id order, so that each
    user's items stay in ascending code order.
    """

    users: np.ndarray          # raw user ids (code -> id)
    indptr: np.ndarray         # (n_users + 1,)
    rel: np.ndarray            # aligned with the items
    rel_desc: np.ndarray       # per user, descending (for the ideal list)
    n_rows: int
    max_rel: float
    counts: dict[str, int] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)  # role -> column, for messages
    text_ids: frozenset[str] = frozenset()  # "user" / "item": ids read from a text file
    raw: dict[str, RawIds | None] = field(default_factory=dict, repr=False, compare=False)
    # the item id at each packed position, per id family, built on first use (join_raw)
    vocab: np.ndarray | None = None   # raw item ids (code -> id); None: not built yet
    codes: np.ndarray | None = None   # item code at each packed position (int64)
    positions: np.ndarray | None = None  # a categorical item column: the position in its
    #                                      sorted ``categories`` at each packed position;
    categories: Any = None  # (numpy, or an Arrow string array) the vocabulary is those in
    #                         use, ``codes`` made from the positions, both on first use
    user_groups: Grouped | None = None  # the users' text ids as read (``users`` made from
    #                                     them), for a run of the same ids to share

    @property
    def n_users(self) -> int:
        return len(self.users)

    @property
    def items(self) -> np.ndarray:
        """The truth's unique raw item ids (code -> id)."""
        self._build_vocab()
        assert self.vocab is not None
        return self.vocab

    @property
    def item_codes(self) -> np.ndarray:
        """Item code at each packed position, ascending within each user."""
        if self.codes is None and self.positions is not None:
            self.codes = (np.cumsum(self._in_use(), dtype=np.int64) - 1)[self.positions]
        elif self.codes is None:
            self._build_vocab()
        assert self.codes is not None
        return self.codes

    @property
    def item_kind(self) -> str:
        """``"int"``, ``"str"`` or ``"empty"``, without building the vocabulary."""
        if self.vocab is None:
            if not len(self.rel):
                return "empty"
            if self.categories is not None:
                return kind_of(self.categories) if isinstance(self.categories, np.ndarray) \
                    else "str"
            return self._grouped_on().id_kind
        return kind_of(self.vocab)

    @property
    def has_items(self) -> bool:
        """The vocabulary is not empty (known without building it)."""
        return bool(len(self.rel)) if self.vocab is None else bool(len(self.vocab))

    def _grouped_on(self) -> RawIds:
        raw = next((r for r in self.raw.values() if r is not None), None)
        assert raw is not None, "a truth without a vocabulary is grouped on raw ids"
        return raw

    def _in_use(self) -> np.ndarray:
        """A categorical truth's categories that some packed position holds."""
        assert self.positions is not None and self.categories is not None
        present = np.zeros(len(self.categories), dtype=bool)
        present[self.positions] = True
        return present

    def _build_vocab(self) -> None:
        if self.vocab is None and self.categories is not None:
            used = self.categories[self._in_use()] \
                if isinstance(self.categories, np.ndarray) \
                else self.categories.filter(self._in_use()).to_numpy(zero_copy_only=False)
            self.vocab = np.asarray(used, dtype=None if used.dtype.kind in "iu" else object)
        elif self.vocab is None:
            self.codes, self.vocab = sorted_codes(
                self._grouped_on(), what=_what("truth", "item", self.names))


@dataclass(frozen=True)
class ItemRows:
    """The run row of each kept position, for metrics that look the recommended items up in
    a vocabulary of their own (:meth:`Packed.items_in`): no vocabulary of the run is made
    unless a metric reads the run's item codes (``codes()``: code per run row, vocabulary).

    With ``vocab`` (the ids every metric of the evaluation looks the items up in, known
    before the join: :meth:`receval.engines.plan.Plan.item_vocab`), ``rows`` holds each
    position's place in ``vocab`` instead (-1 when absent), found by the join: the lists
    then answer that lookup only."""

    rows: np.ndarray          # int64 run row at each position (with vocab: int32 place)
    raw: RawIds                                        # the run's item ids, read in place
    codes: Callable[[], tuple[np.ndarray, np.ndarray]]
    vocab: Any = None


def _id_values(vocab: Any) -> np.ndarray:
    """Raw ids as numpy: integers as they are, anything else as objects."""
    if isinstance(vocab, np.ndarray):
        return vocab
    integers = getattr(getattr(vocab, "dtype", None), "kind", "O") in "iu"
    return vocab.to_numpy() if integers else np.asarray(vocab, dtype=object)


def _lookup_ids(vocab: Any, run_ids: RawIds) -> RawIds | None:
    """``vocab`` (distinct raw ids) in the form of the run's text ids, for the join to find
    each position's place in it; ``None`` for integer or categorical run ids (looked up
    after the join), for a vocabulary that is not all ``str`` and for one of more ids than
    int32 places hold."""
    if run_ids.family not in ("utf8", "pystr") or run_ids.categories is not None:
        return None
    values = _id_values(vocab)
    if not len(values) or len(values) > np.iinfo(np.int32).max:
        return None
    return truth_raw(values, np.arange(len(values), dtype=np.int64), run_ids.family)


def same_ids(a: Any, b: Any) -> bool:
    """Whether two sequences of raw ids (arrays or ``pandas.Index``) are one: the same
    object, or the same ids in the same order (objects of the same type, equal)."""
    if a is b:
        return True
    va, vb = _id_values(a), _id_values(b)
    if len(va) != len(vb) or (va.dtype.kind == "O") != (vb.dtype.kind == "O"):
        return False
    if va.dtype.kind != "O":
        return bool(np.array_equal(va, vb))
    return all(type(x) is type(y) and x == y for x, y in zip(va, vb, strict=True))


@dataclass
class Packed:
    """Everything the kernels need for one run, users in a fixed order (``user_ids``)."""

    user_ids: np.ndarray       # raw ids of the evaluated users, row order of every array
    indptr: np.ndarray         # positions of user u: indptr[u]:indptr[u+1] (cut at depth)
    rel: np.ndarray            # truth relevance at each position (0 = not relevant / unjudged)
    judged: np.ndarray         # int8: item is in the user's truth
    scores: np.ndarray         # score at each position, -rank for rank inputs (empty if not kept)
    list_len: np.ndarray       # full list length per user (before the depth cut)
    grp_end: np.ndarray        # tie-group end per position (ties="average"), else empty
    t_indptr: np.ndarray       # truth CSR aligned with user_ids
    t_rel_desc: np.ndarray
    t_rel: np.ndarray
    in_truth: np.ndarray       # bool per user: has truth rows
    in_run: np.ndarray         # bool per user: has run rows
    counts: dict[str, int]
    max_rel: float
    truth_index: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    # per user: its row in the truth (-1: a run-only user)
    run_only: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    # raw ids of the run's users that have no truth rows (evaluated or not)
    block_rows: tuple[int, int] = (0, 0)
    # (first evaluated row of this block, evaluated rows of the whole packed run): the blocks of
    # one run can fill one table of per-user values in place
    options: KernelOptions = DEFAULT_OPTIONS  # the policies as the kernels read them
    depth: int = 0  # the depth the lists were cut at (0: whole lists)
    absolute_ranks: bool = False  # ranks="position" on a rank run: scores are -rank, read as
    # positions (options and flags applied where the lists are read: receval.pack.positions)
    truth_codes: Callable[[], tuple[np.ndarray, np.ndarray]] | None = field(
        default=None, repr=False, compare=False)
    # (t_items, truth_item_vocab) on first use, when not given (a truth grouped on raw ids
    # builds its item vocabulary only when a metric reads it)
    _t_items: np.ndarray | None = field(default=None, repr=False)
    _truth_item_vocab: np.ndarray | None = field(default=None, repr=False)
    kernel_out: np.ndarray | None = None
    # the (users x requests) output of the metric kernel, when each list was measured as it
    # was joined (pack_run_blocks(kernel=...)); the lists are then not kept (rel, judged and
    # scores empty)
    _items: np.ndarray | None = field(default=None, repr=False)
    _item_vocab: np.ndarray | None = field(default=None, repr=False)
    # (items, item_vocab) as given, or made from item_rows on first use
    item_rows: ItemRows | None = field(default=None, repr=False)

    @property
    def items(self) -> np.ndarray:
        """Run-vocabulary item code at each position (empty when the lists keep no items)."""
        self._run_vocab()
        assert self._items is not None
        return self._items

    @property
    def item_vocab(self) -> np.ndarray:
        """Run-vocabulary code -> raw item id."""
        self._run_vocab()
        assert self._item_vocab is not None
        return self._item_vocab

    def _run_vocab(self) -> None:
        if self._items is None:
            assert self.item_rows is not None, "a Packed holds its items or their rows"
            if self.item_rows.vocab is not None:
                raise RuntimeError("these lists hold their items' places in the ids the plan "
                                   "named, not their run rows")
            codes, self._item_vocab = self.item_rows.codes()
            self._items = codes[self.item_rows.rows]

    def items_at(self, pos: Any) -> dict[str, Any]:
        """The fields holding the items of positions ``pos`` (an index array or a slice), for
        :func:`dataclasses.replace`: the kept rows there, or the item codes there."""
        if self._items is None and self.item_rows is not None:
            return {"item_rows": dataclasses.replace(self.item_rows,
                                                     rows=self.item_rows.rows[pos])}
        items = self.items
        return {"_items": items[pos] if len(items) else items}

    def items_in(self, vocab: Any) -> np.ndarray:
        """The position in ``vocab`` (distinct raw ids: an array or ``pandas.Index``) of the
        item at each position, -1 when absent (int32 or int64). Lists that keep their run rows
        (:class:`ItemRows`) look each id up in place, with no vocabulary of the run made."""
        if self._items is None and self.item_rows is not None and \
                self.item_rows.vocab is not None:
            if not same_ids(self.item_rows.vocab, vocab):
                raise RuntimeError("these lists hold their items' places in other ids than "
                                   "those looked up (the plan names one vocabulary)")
            return self.item_rows.rows
        values = _id_values(vocab)
        if self._items is None and self.item_rows is not None:
            found = lookup_at(self.item_rows.raw, self.item_rows.rows, values)
            if found is not None:
                return found
        items = self.items
        if not len(items):
            return np.zeros(0, dtype=np.int64)
        at = lookup(self.item_vocab, values) if len(self.item_vocab) else \
            np.zeros(0, dtype=np.int64)
        return at[items]

    @property
    def append_unretrieved(self) -> bool:
        """``unretrieved="bottom"``: the item at each position is kept to find the missing."""
        return self.options.append_unretrieved

    @property
    def t_items(self) -> np.ndarray:
        """Truth item codes (truth vocabulary), ascending per user, aligned with ``t_rel``."""
        self._truth_vocab()
        assert self._t_items is not None
        return self._t_items

    @property
    def truth_item_vocab(self) -> np.ndarray:
        """Truth item code -> raw item id."""
        self._truth_vocab()
        assert self._truth_item_vocab is not None
        return self._truth_item_vocab

    def _truth_vocab(self) -> None:
        if self._t_items is None:
            assert self.truth_codes is not None
            self._t_items, self._truth_item_vocab = self.truth_codes()


def _rel_policy(mask: np.ndarray, keep: np.ndarray | None, policy: str, rel: np.ndarray,
                error: Any) -> tuple[np.ndarray | None, np.ndarray]:
    """``(keep, rel)`` after a relevance policy for the rows in ``mask`` (NaN or negative
    grades) among the rows kept so far (``keep``; ``None``: all): ``"error"`` raises
    ``error(first row)``, ``"drop"`` removes them (their items become unjudged), ``"zero"``
    makes them judged non-relevant."""
    if keep is not None:
        mask = mask & keep
    if not mask.any():
        return keep, rel
    if policy == "error":
        raise error(int(np.flatnonzero(mask)[0]))
    if policy == "drop":
        return (~mask if keep is None else keep & ~mask), rel
    return keep, np.where(mask, 0.0, rel)


def pack_truth(cols: Columns, policies: Policies) -> TruthPack:
    """Validate and group the truth: on raw item ids when they can be read in place (no item
    vocabulary is built), else on factorized item codes."""
    if cols.n_rows == 0:
        raise InputError(
            "truth: the table has no rows; evaluation needs held-out (user, item[, relevance]) "
            "rows for at least one user."
        )
    grouped = grouped_column(cols.user, checked="user" not in cols.unchecked)
    if grouped is not None:
        starts, users = grouped.starts, grouped.users
        u_codes = None
    else:
        u_codes, users = factorize_grouped(cols.user, what=_what("truth", "user", cols.names))
    # a categorical item column is grouped on its codes (positions in its sorted categories)
    item_raw = raw_ids(cols.item) or category_ids(cols.item, checked="item" not in cols.unchecked)
    factorized = None if item_raw is not None else \
        factorize(cols.item, what=_what("truth", "item", cols.names))  # its errors first
    n = cols.n_rows
    rel = np.ones(n, dtype=np.float64) if cols.value is None else cols.value
    keep, rel = _checked_rel(rel, cols.names.get("relevance", "relevance"), policies)
    if item_raw is not None and keep is None:
        if u_codes is None:
            start, rows = starts, np.zeros(0, dtype=np.int64)
        else:
            start, rows = group_rows(u_codes, len(users))
        packed = _group_truth_raw(item_raw, start, rows, rel, users, policies)
    else:
        i_codes, items = factorized or factorize(cols.item,
                                                 what=_what("truth", "item", cols.names))
        if u_codes is None:
            u_codes = np.repeat(np.arange(len(users), dtype=CODE), np.diff(starts))
        if keep is not None:
            u_codes, i_codes, rel = u_codes[keep], i_codes[keep], rel[keep]
        packed = _group_truth(u_codes, i_codes, rel, users, items, policies)
    packed.names, packed.text_ids = dict(cols.names), cols.text_ids
    if grouped is not None and (grouped.categories is not None or grouped.raw is not None) \
            and packed.users is users:
        packed.user_groups = grouped
    return packed


def _checked_rel(rel: np.ndarray, relname: str,
                 policies: Policies) -> tuple[np.ndarray | None, np.ndarray]:
    """``(keep, rel)``: the rows kept (``None``: all) and their relevances after the NaN and
    negative relevance policies; infinite relevances are refused."""
    rel = np.ascontiguousarray(rel, dtype=np.float64)
    if nonfinite(rel, 0.0)[0] == 0:  # every grade finite and >= 0: one pass, no temporary
        return None, rel
    keep = None
    nan = np.isnan(rel)
    keep, rel = _rel_policy(
        nan, keep, policies.nan_rel, rel, lambda i: InputError(
            f"truth: column {relname!r} has {int(nan.sum())} NaN (missing) relevance "
            f"value(s) (first at row {i}). Pass nan_rel='zero' to treat them as judged "
            "non-relevant (LensKit's gain 0), nan_rel='drop' to remove those rows "
            "(unjudged), or fill them."))
    bad = ~np.isfinite(rel) & (True if keep is None else keep)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputError(
            f"truth: column {relname!r} has {int(bad.sum())} infinite value(s) (first at row "
            f"{i}: {rel[i]!r}); relevance grades are finite: fix or drop them."
        )
    neg = rel < 0
    keep, rel = _rel_policy(
        neg, keep, policies.negative_rel, rel, lambda i: PolicyError(
            f"truth: column {relname!r} has {int(neg.sum())} negative relevance value(s) "
            f"(first at row {i}: {rel[i]!r}). Pass negative_rel='zero' to treat them as judged "
            "non-relevant, negative_rel='drop' to remove them (unjudged), or fix the data."))
    return keep, rel


def _group_truth_raw(raw: RawIds, start: np.ndarray, rows: np.ndarray, rel: np.ndarray,
                     users: np.ndarray, policies: Policies) -> TruthPack:
    """Group validated truth rows (user ``g``: ``rows[start[g]:start[g + 1]]``) on raw item
    ids, duplicates per the policy, as :func:`_group_truth` does on codes."""
    mode = kernel_options(policies).truth_dedupe
    rel = np.ascontiguousarray(rel, dtype=np.float64)
    indptr, first, rel_sorted, rel_desc, ndup = group_truth_raw(
        raw.kind, raw.a, raw.b, start, rows, rel, mode)
    n_dup = _check_truth_duplicates(ndup, mode, users, policies)
    if raw.categories is not None:  # positions in sorted categories: the vocabulary is the
        return TruthPack(  # (the vocabulary: the categories in use, in order)
            users=users, indptr=indptr, rel=rel_sorted, rel_desc=rel_desc, n_rows=len(rel),
            max_rel=float(rel.max()) if len(rel) else 0.0, counts={"truth_duplicates": n_dup},
            positions=first, categories=raw.categories)
    return TruthPack(
        users=users, indptr=indptr, rel=rel_sorted, rel_desc=rel_desc, n_rows=len(rel),
        max_rel=float(rel.max()) if len(rel) else 0.0, counts={"truth_duplicates": n_dup},
        # int64 ids come out of the grouping; others are taken at the kept rows
        raw={raw.family: RawIds(INT, first, unsigned=raw.unsigned)
             if raw.kind in (INT, NARROW)
             else take_ids(raw, first)},
    )


def _group_truth(u_codes: np.ndarray, i_codes: np.ndarray, rel: np.ndarray, users: np.ndarray,
                 items: np.ndarray, policies: Policies) -> TruthPack:
    """Group validated truth rows by user (items ascending), duplicates per the policy.

    Shared by every truth container (tables, dicts, scipy.sparse matrices, lists of item
    arrays), so that the duplicates policy and its messages are the same everywhere.
    """
    n = len(rel)
    mode = kernel_options(policies).truth_dedupe
    indptr, item_sorted, rel_sorted, rel_desc, ndup = group_truth(
        np.ascontiguousarray(u_codes, dtype=CODE), len(users),
        np.ascontiguousarray(i_codes, dtype=CODE), np.ascontiguousarray(rel, dtype=np.float64),
        mode)
    n_dup = _check_truth_duplicates(ndup, mode, users, policies)
    return TruthPack(
        users=users, indptr=indptr, rel=rel_sorted, rel_desc=rel_desc, n_rows=n,
        max_rel=float(rel.max()) if n else 0.0, counts={"truth_duplicates": n_dup},
        vocab=items, codes=item_sorted,
    )


def _check_truth_duplicates(ndup: np.ndarray, mode: int, users: np.ndarray,
                            policies: Policies) -> int:
    """The number of repeated truth (user, item) rows; an error unless the policy keeps one."""
    n_dup = int(ndup.sum())
    if n_dup and mode == 0:
        u = int(np.flatnonzero(ndup)[0])
        kept = (f" duplicates={policies.duplicates!r} keeps a run's repeated rows at their "
                "positions; a truth pair has one relevance, so repeated truth rows are refused "
                "under it too." if policies.duplicates != "error" else "")
        raise InputError(
            f"truth: {n_dup} duplicate (user, item) row(s), e.g. for user {_plain(users[u])!r}."
            f"{kept} Pass duplicates='max' (keep the highest relevance) or duplicates='first' "
            "(the same: the best-ranked row), or drop them."
        )
    return n_dup


def _plain(value: Any) -> Any:
    """A numpy scalar as the Python value (messages print ``0``, not ``np.int64(0)``)."""
    return value.item() if isinstance(value, np.generic) else value


@dataclass
class RunCodes:
    """A run reduced to codes: per row a user code (run vocab), an item code and a score.

    The item codes are computed on first use of :attr:`item_codes` / :attr:`items`: a run whose
    item ids can be read in place (``item_raw``, :mod:`receval.pack.rawids`) is joined with the
    truth on raw ids, and factorized only when a metric reads the recommended items.
    """

    _user_codes: np.ndarray | None
    users: np.ndarray
    _item_codes: np.ndarray | None
    _items: np.ndarray | None
    score: np.ndarray
    kind: str  # "score" or "rank"
    score_name: str
    ordered: bool = False  # rows already in rank order within each user (matrix input)
    names: dict[str, str] = field(default_factory=dict)  # role -> column, for messages
    text_ids: frozenset[str] = frozenset()  # "user" / "item": ids read from a text file
    item_raw: RawIds | None = None  # the item ids in place (None: factorized)
    item_column: Any = None  # the item column, factorized on first use of the codes
    user_starts: np.ndarray | None = None  # grouped rows: user c has rows starts[c]:starts[c+1]
    # rows in rank order, scores implicit (a top-k matrix, :mod:`receval.pack.matrix`): user
    # c has rows row_bounds[2c]:row_bounds[2c + 1], scored -1, -2, ...
    row_bounds: np.ndarray | None = None

    @property
    def user_codes(self) -> np.ndarray:
        """User code of each row (run vocabulary, first-appearance order)."""
        if self._user_codes is None:
            assert self.user_starts is not None
            self._user_codes = np.repeat(np.arange(len(self.users), dtype=CODE),
                                         np.diff(self.user_starts))
        return self._user_codes

    @property
    def n_rows(self) -> int:
        return len(self.score)

    @property
    def item_codes(self) -> np.ndarray:
        """Item code of each row (run vocabulary, first-appearance order)."""
        self._factorize_items()
        assert self._item_codes is not None
        return self._item_codes

    @property
    def items(self) -> np.ndarray:
        """The run's unique raw item ids (code -> id)."""
        self._factorize_items()
        assert self._items is not None
        return self._items

    @property
    def item_kind(self) -> str:
        """``"int"``, ``"str"`` or ``"empty"``, without factorizing the items (an unchecked
        object column counts as ``"str"``: the join that reads it checks every value)."""
        if self._items is None and self.item_raw is not None:
            return self.item_raw.id_kind if self.n_rows else "empty"
        return kind_of(self.items)

    def check_items(self, for_kind: bool = False) -> None:
        """Check an object item column (or a categorical one's codes) whose check was left to
        the join now; :class:`receval.kernels.NotStrIds` when it is not all ``str`` (or holds
        a missing code; the run is then read
        again with the check first, so that what follows, errors included, is what a checked
        read gives). ``for_kind``: only what :attr:`item_kind` needs (an object column)."""
        if self.item_raw is not None and not self.item_raw.checked:
            if self.item_raw.kind in (INT, NARROW):  # a categorical's codes, -1 if missing
                if for_kind:  # (their kind is the categories': known without a pass)
                    return
                if len(self.item_raw.a) and int(self.item_raw.a.min()) < 0:
                    raise NotStrIds("a categorical item column holds a missing value")
                self.item_raw = dataclasses.replace(self.item_raw, checked=True)
                return
            strs = checked_str_ids(self.item_column)
            if strs is None:
                raise NotStrIds("an object item column holds a value that is not a str")
            self.item_column = strs
            self.item_raw = raw_ids(strs)

    def _factorize_items(self) -> None:
        if self._item_codes is None:
            self.check_items()
            self._item_codes, self._items = factorize(
                self.item_column, what=_what("run", "item", self.names))

    @classmethod
    def empty(cls, truth: TruthPack) -> RunCodes:
        """A run without rows (truth users evaluated with it have empty lists)."""
        none = np.zeros(0, dtype=CODE)
        return cls(none, truth.users[:0], none, empty_ids(truth.item_kind),
                   np.zeros(0, dtype=np.float64),
                   "score", "score")


def run_codes(cols: Columns, truth: TruthPack | None = None) -> RunCodes:
    """Factorize a run's ids; ranks become scores (-rank) so that higher is better.
    ``truth``: the truth it is evaluated against, whose user ids it shares where it holds
    the same text ids (:func:`receval.pack.rawids.grouped_column`)."""
    like = truth.user_groups if truth is not None and truth.user_groups is not None and \
        truth.user_groups.users is truth.users else None
    grouped = grouped_column(cols.user, like, checked="user" not in cols.unchecked)
    if grouped is not None:
        u_codes, starts, users = None, grouped.starts, grouped.users
    else:
        starts = None
        u_codes, users = factorize_grouped(cols.user, what=_what("run", "user", cols.names))
    assert cols.values is not None
    # a float32 score column stays float32: the join reads it where it lies
    score = cols.values if cols.value_kind != "rank" else -np.asarray(cols.value)
    run = RunCodes(u_codes, users, None, None, score, cols.value_kind,
                   cols.names.get(cols.value_kind, cols.value_kind), names=dict(cols.names),
                   text_ids=cols.text_ids,
                   item_raw=raw_ids(cols.item) or category_ids(
                       cols.item, checked="item" not in cols.unchecked, defer=True),
                   item_column=cols.item,
                   user_starts=starts)
    if run.item_raw is None:
        run._factorize_items()  # the id policy's conversions and errors, right away
    return run


def _what(role: str, what: str, names: dict[str, str]) -> str:
    """``"run item column 'docno'"``: an id column, named for error messages."""
    return f"{role} {what} column {names[what]!r}" if what in names else f"{role} {what} column"


def align_id_kinds(run: RunCodes, truth: TruthPack) -> RunCodes:
    """Check that a run's and a truth's user ids, and item ids, are of the same kind.

    Integers never equal strings (:mod:`receval.pack.vocab`), so such a pair would match no
    user (or no item) and every metric would silently be 0: it is an error, naming both kinds,
    both columns and the fix. Checked for users and items on every run, whatever the overlap.

    One exception: when the string side was read from a text file (TREC, CSV, TSV; see
    :func:`receval.io.frames.mark_text_columns`), integers are compared with it by their
    decimal text, which is exact. The run's ids are converted to the truth's kind (the truth
    is never changed, so every result carries the truth's ids): integers become their decimal
    text, or text becomes integers, where a text id that is not an integer written canonically
    (``"01"``, ``"+1"``, ``"a"``) is an error.
    """
    for what in ("user", "item"):
        if what == "user":
            rk, tk = kind_of(run.users), kind_of(truth.users)
        else:
            tk = truth.item_kind
            if tk not in ("str", "empty"):  # an unchecked object column counts as str ids:
                run.check_items(for_kind=True)  # against other truth ids: checked first
            rk = run.item_kind
        if rk == tk or "empty" in (rk, tk):
            continue
        r_ids, t_ids = (run.users, truth.users) if what == "user" else (run.items, truth.items)
        rcol, tcol = run.names.get(what, what), truth.names.get(what, what)
        if rk == "int" and tk == "str" and what in truth.text_ids and not run.ordered:
            run = _with_ids(run, what, r_ids.astype(str).astype(object))
            continue
        if rk == "str" and tk == "int" and what in run.text_ids:
            ints = text_to_ints(r_ids, what=f"run {what} column {rcol!r}",
                                other=f"the truth's {what} ids (column {tcol!r})", like=t_ids)
            run = _with_ids(run, what, ints)
            continue
        if rk == "int":
            fix = f"run[{rcol!r}] = run[{rcol!r}].astype(str)"
        else:
            fix = f"truth[{tcol!r}] = truth[{tcol!r}].astype(str)"
        raise InputError(
            f"run {what} ids (column {rcol!r}) are {describe_kind(rk)} but truth {what} ids "
            f"(column {tcol!r}) are {describe_kind(tk)}; an integer never equals a string (1 "
            f"and '1' or '01' are different ids), so no {what} would match and every metric "
            f"would be 0. Give both the same kind, e.g. {fix} (or convert the string side "
            "with .astype('int64') if every id is a number written without leading zeros); "
            "for files, write both with the same id type."
        )
    return run


def _with_ids(run: RunCodes, what: str, ids: np.ndarray) -> RunCodes:
    if what == "user":
        return dataclasses.replace(run, users=ids)
    return dataclasses.replace(run, _item_codes=run.item_codes, _items=ids, item_raw=None)


def pack_run(run: RunCodes, truth: TruthPack, policies: Policies, *, depth: int,
             keep_items: bool = True, keep_scores: bool = True,
             cutoffs: tuple[int, ...] = (), only_truth: np.ndarray | None = None) -> Packed:
    """Order, deduplicate, cut and join one run with the packed truth.

    ``keep_items`` / ``keep_scores``: also return the item code / score at each position
    (needed by catalogue and curve metrics, and by ``ties="average"``).
    ``cutoffs``: ranks at which tied scores are counted (``counts["users_tied_at_cutoff"]``:
    users whose value at one of these cutoffs depends on the tie policy).
    ``only_truth``: evaluate exactly these truth users (row numbers in the truth), whatever the
    ``users`` policy (block executors use it for truth users that no block holds).
    ``ranks="position"`` keeps the score (-rank) at each position and ``unretrieved="bottom"``
    the item (so that run goes through the factorized route); the lists are laid out where
    the kernel reads them (:mod:`receval.pack.positions`), the flags on the result say how.
    """
    return next(pack_run_blocks(run, truth, policies, depth=depth, keep_items=keep_items,
                                keep_scores=keep_scores, cutoffs=cutoffs,
                                only_truth=only_truth))


class Lists(NamedTuple):
    """One block's lists as a packer returns them (:func:`receval.kernels.join_lists`,
    :func:`receval.kernels.pack_lists`): the CSR of positions and, per position, score,
    relevance and judged flag; per user the full list length, repeated rows and tied
    cutoffs; the rows with a non-finite score; ``measured``: the (users x requests) metric
    values when each list was measured as it was joined (the per-position arrays are then
    empty); ``rows``: each position's run row (or the code there), when the join was asked
    for them."""

    indptr: np.ndarray
    scores: np.ndarray
    rel: np.ndarray
    judged: np.ndarray
    list_len: np.ndarray
    n_dup: np.ndarray
    n_dropped: int
    tied: np.ndarray
    measured: np.ndarray | None = None
    rows: np.ndarray | None = None


#: positions per block when a run is packed block by block (8 MiB of relevances)
BLOCK_POSITIONS = 1 << 20
#: how many times more positions a block holds when its lists are measured as they are
#: joined: no per-position array is kept then, only the users' values (a block of 16M
#: positions, ~160k users of 100 positions, holds 8 MB of them at six requests), and fewer
#: blocks spend less time between blocks (docs/performance.md)
MEASURED_BLOCK_SCALE = 16


def pack_run_blocks(run: RunCodes, truth: TruthPack, policies: Policies, *, depth: int,
                    keep_items: bool = True, keep_scores: bool = True,
                    cutoffs: tuple[int, ...] = (), only_truth: np.ndarray | None = None,
                    block_positions: int = 0,
                    kernel: dict[str, np.ndarray] | None = None,
                    keep_rel: bool = True, item_rows: bool = False,
                    item_vocab: Any = None) -> Iterator[Packed]:
    """:func:`pack_run` in consecutive blocks of evaluated users.

    ``kernel``: the metric kernel's request arrays
    (:meth:`receval.engines.plan.Requests.arrays`). When the run is joined on raw ids and its
    lists need no later step (no averaged ties, no condensed lists, no absolute ranks), each
    list is measured as soon as it is joined, while it is in cache, and the blocks carry the
    kernel's output (``Packed.kernel_out``): instead of the lists, or beside them when the
    items are kept (kept scores alone, which only those steps read here, are not kept).

    ``keep_items``: the item at each position is kept (the join on raw ids writes the run's
    item code at each position's row; a top-k matrix and ``unretrieved="bottom"`` take the
    factorized route), in one block: metrics on the recommended items see every user at once.
    ``keep_rel=False``: lists joined on raw ids that need no later step keep no relevance
    and no judged flag beside their items (``rel`` and ``judged`` empty): no metric on the
    recommended items reads them. ``item_rows``: lists joined on raw ids keep each position's run row
    instead of the item's code (:class:`ItemRows`): the metrics look the items up in
    vocabularies of their own (:meth:`Packed.items_in`), and the run's item column is
    factorized only if one reads the codes. ``item_vocab`` (with ``item_rows``): the one
    vocabulary they all look the items up in; a join on text ids then keeps each position's
    place in it instead of its row (:class:`ItemRows` ``vocab``).

    With ``block_positions > 0`` and a run joined on raw ids, each block holds about that many
    list positions (:data:`MEASURED_BLOCK_SCALE` times as many when they are measured as they
    are joined), and its per-position arrays are views into buffers reused from block to
    block (valid until the next block is produced): the working set stays small and fresh
    memory is touched once. Otherwise there is one block. Concatenated, the blocks are exactly
    :func:`pack_run`'s result: users in the same order, the same arrays; counts that describe
    the whole run (``run_rows`` ...) are given with the first block, per-user counts with each
    block.
    """
    run = align_id_kinds(run, truth)
    opts = kernel_options(policies)
    # ranks="position": a rank column read as absolute positions (a score run has no rank to
    # read: its rows take positions 1..n in score order, as under ranks="order")
    absolute = opts.absolute_ranks and run.kind == "rank"
    if absolute:
        check_rank_run(run.score, run.score_name, opts)
    # unretrieved="bottom": the item at each position tells what was retrieved
    keep_items = keep_items or opts.append_unretrieved
    users = _evaluated_users(lookup(run.users, truth.users), truth, policies, only_truth)
    in_run_t, run_only, t_sel, extra, run_row = \
        users.in_run_t, users.run_only, users.t_sel, users.extra, users.run_row
    n_eval = len(t_sel) + len(extra)

    def refuse_nonfinite() -> None:
        n_bad, first_bad = _nonfinite(score)  # compiled passes, no temporary of the column
        if n_bad:
            raise InputError(
                f"run: column {run.score_name!r} has {n_bad} NaN/infinite value(s) (first at row "
                f"{first_bad}: {float(score[first_bad])!r}). Pass nan_scores='drop' (remove them, "
                "counted) or nan_scores='last' (rank them after every finite score), or fix the "
                "data."
            )

    nan_mode = opts.nan_mode
    every_row_joined = bool((run_row >= 0).all())
    if not every_row_joined or keep_items:  # rows the join does not read: checked first
        run.check_items()
    # the recommended items kept: the join on raw ids writes the run's item code at each
    # position (a top-k matrix and appended unretrieved items take the factorized route)
    t_raw = None if (keep_items and (opts.append_unretrieved or run.row_bounds is not None)) \
        or (absolute and run.row_bounds is not None) else _truth_raw_for(run, truth, opts)
    # a top-k matrix joined on raw ids: its scores are implicit (no column is made)
    rank_rows = t_raw is not None and run.row_bounds is not None
    # float32 scores are read where they lie by the join on raw ids (widened for the others)
    score = np.zeros(0) if rank_rows else run.score \
        if run.score.dtype == np.float32 and run.score.flags.c_contiguous \
        else np.ascontiguousarray(run.score, dtype=np.float64)
    # the join on raw ids reads every row of every evaluated user and counts the non-finite
    # scores it meets: when every run user is evaluated, that count replaces a pass of its own
    if nan_mode == 0 and (t_raw is None or not every_row_joined):
        refuse_nonfinite()

    t_counts, t_start, in_truth, in_run, truth_index = \
        users.t_counts, users.t_start, users.in_truth, users.in_run, users.truth_index
    cut_arr = np.array(sorted({int(c) for c in cutoffs if c and c > 0}), dtype=np.int64)
    want_scores = int(keep_scores or opts.tie_groups or absolute)

    def user_ids_of(lo: int, hi: int) -> np.ndarray:
        a, b = min(lo, len(t_sel)), min(hi, len(t_sel))
        head = truth.users[a:b] if users.identity else truth.users[t_sel[a:b]]
        if hi <= len(t_sel):
            return head
        return concat_ids(head, run.users[extra[max(lo, len(t_sel)) - len(t_sel):
                                                hi - len(t_sel)]])

    def truth_slices(lo: int, hi: int) -> tuple[Any, ...]:
        """The block's truth CSR (run-only users have empty truth): ``(t_indptr, index,
        t_rel, t_rel_desc)``, ``index`` the block's positions in the truth (a slice or rows)."""
        if users.identity:  # the block's users are truth users lo .. hi - 1: one slice
            a, b = int(truth.indptr[lo]), int(truth.indptr[hi])
            return (truth.indptr[lo:hi + 1] - a, slice(a, b), truth.rel[a:b],
                    truth.rel_desc[a:b])
        t_indptr = np.zeros(hi - lo + 1, dtype=np.int64)
        np.cumsum(t_counts[lo:hi], out=t_indptr[1:])
        hi_t = max(lo, min(hi, len(t_sel)))  # run-only users (after the truth users): no truth
        starts, lens = t_start[lo:hi_t], t_counts[lo:hi_t]
        if t_indptr[-1] == 0:
            idx: Any = slice(0, 0)
        elif np.all(starts[1:] == starts[:-1] + lens[:-1]):
            idx = slice(int(starts[0]), int(starts[0] + t_indptr[-1]))  # contiguous: views
        else:
            idx = _ranges(starts, lens)
        return t_indptr, idx, truth.rel[idx], truth.rel_desc[idx]

    def block(lo: int, hi: int, lists: Lists, items: np.ndarray | ItemRows,
              item_vocab: np.ndarray | None, first: bool, dup_total: int = 0) -> Packed:
        """The block's ``Packed``; ``dup_total``: the run's repeated rows in every block (for
        the message refusing them; else the block's own)."""
        n_dup = int(lists.n_dup.sum())
        if n_dup and opts.refuse_duplicates:
            u = int(np.flatnonzero(lists.n_dup)[0])
            raise InputError(
                f"run: {max(n_dup, dup_total)} duplicate (user, item) row(s), e.g. for user "
                f"{_plain(user_ids_of(lo + u, lo + u + 1)[0])!r}. Pass duplicates='max' (keep "
                "the highest score) or duplicates='first' (the best-ranked row, the same), "
                "duplicates='keep' (keep them in place, the repeats non-relevant) or "
                "duplicates='count' (every repeat counts), or drop them."
            )
        grp_end = group_ends(lists.indptr, lists.scores) if opts.tie_groups \
            else np.zeros(0, dtype=np.int64)
        t_indptr, t_idx, t_rel, t_rel_desc = truth_slices(lo, hi)
        sel_hi = min(hi, len(t_sel))
        counts = {
            "truth_users": int(truth.n_users),
            "run_users": int(len(run.users)),
            "missing_from_run": int((~in_run_t[t_sel[min(lo, sel_hi):sel_hi]]).sum())
            if policies.users != "run" and not users.identity else 0,
            "missing_from_truth": int(len(run_only)),
            "truth_rows": int(truth.n_rows),
            "run_rows": run.n_rows if first else 0,
            "dropped_nan_scores": int(lists.n_dropped) if nan_mode == 1 else 0,
            "duplicates_removed": n_dup if opts.dedupe == 1 else 0,
            "users_tied_at_cutoff": int(lists.tied.sum()),
        }
        return Packed(
            user_ids=user_ids_of(lo, hi), indptr=lists.indptr, rel=lists.rel,
            judged=lists.judged, scores=lists.scores, list_len=lists.list_len,
            grp_end=grp_end, t_indptr=t_indptr, t_rel_desc=t_rel_desc, t_rel=t_rel,
            _items=None if isinstance(items, ItemRows) else items, _item_vocab=item_vocab,
            item_rows=items if isinstance(items, ItemRows) else None,
            truth_codes=lambda: (truth.item_codes[t_idx], truth.items),
            in_truth=in_truth[lo:hi], in_run=in_run[lo:hi],
            counts=counts, max_rel=truth.max_rel, truth_index=truth_index[lo:hi],
            run_only=run.users[run_only] if first else run.users[:0],
            options=opts, depth=depth, absolute_ranks=absolute, block_rows=(lo, n_eval),
            kernel_out=lists.measured,
        )

    if t_raw is None:
        score = np.ascontiguousarray(score, dtype=np.float64)
        if run.ordered:
            item_key = np.arange(len(run.items), dtype=np.int64)
            item_to_truth = np.where(run.items < len(truth.items), run.items, -1)
        else:
            item_key = order_keys(run.items, what="run item column",
                                  as_text=bool(opts.desc_ids))
            item_to_truth = lookup(run.items, truth.items)
        if opts.desc_ids:
            item_key = -item_key
        t_indptr, t_idx, t_rel, _ = truth_slices(0, n_eval)
        t_items = truth.item_codes[t_idx]
        indptr, items, pos_scores, rel, judged, list_len, n_dup, n_dropped, tied, _ = \
            pack_lists(run.user_codes, run_row, n_eval, score, run.item_codes, item_key,
                       item_to_truth, t_indptr, t_items, t_rel, depth, opts.dedupe, nan_mode,
                       opts.as_float32, int(keep_items), want_scores, cut_arr,
                       by_row=opts.by_row)
        yield block(0, n_eval, Lists(indptr, pos_scores, rel, judged, list_len, n_dup,
                                     n_dropped, tied), items, run.items, True)
        return

    assert run.item_raw is not None
    r = run.item_raw
    run_of = users.run_of()
    if rank_rows:  # user c's rows: rstart[2c]:rstart[2c + 1] (the padding left out)
        assert run.row_bounds is not None
        rstart, rows = run.row_bounds, np.zeros(0, dtype=np.int64)
        run_of = 2 * run_of
        np.maximum(run_of, -1, out=run_of)
    elif run.user_starts is not None:
        rstart, rows = run.user_starts, np.zeros(0, dtype=np.int64)
    else:
        rstart, rows = group_rows(run.user_codes, len(run.users))
    no_items = np.zeros(0, dtype=np.int64)
    # measured as joined: lists that need no later step; kept items (and the scores some
    # metrics on them read) are written beside, each list measured from its kept positions
    measure = kernel is not None and not opts.tie_groups and not absolute and \
        not opts.condense and n_eval > 0 and (keep_items or not want_scores)
    if keep_items:  # metrics on the recommended items see every evaluated user at once
        block_positions = 0
    elif measure:
        block_positions *= MEASURED_BLOCK_SCALE
    if n_eval and (measure or block_positions > 0):  # each evaluated list's positions
        lens = rstart[1::2] - rstart[0::2] if users.identity and rank_rows else \
            np.diff(rstart) if users.identity else \
            np.where(run_of >= 0, rstart[run_of + 1] - rstart[np.maximum(run_of, 0)], 0)
        if depth > 0:
            np.minimum(lens, depth, out=lens)
    if block_positions > 0 and n_eval:
        ends = np.cumsum(lens)
        bounds = np.searchsorted(ends, np.arange(block_positions, int(ends[-1]),
                                                 block_positions), side="left") + 1
        bounds = np.unique(np.concatenate([[0], bounds, [n_eval]]))
        scratch: dict[str, np.ndarray] | None = {}
    else:
        bounds, scratch = np.array([0, n_eval]), None
    setup = None
    if measure:
        assert kernel is not None
        setup = MetricSetup(**kernel, maxlen=int(lens.max()), maxtruth=int(t_counts.max()))

    # the recommended items kept: each position's item code, written by the join
    # (or, with item_rows and text or categorical ids, each position's run row: the column
    # is not factorized; integer ids are factorized faster than they are looked up by hash)
    rows_kept = item_rows and (r.family != "int" or r.categories is not None)
    item_codes = np.ascontiguousarray(run.item_codes, dtype=np.int32) \
        if keep_items and not rows_kept else None
    # relevance and judged flags kept: a metric reads them, or a later step of the lists
    # (averaged ties, absolute ranks, condensed lists) does
    rel_kept = keep_rel or opts.tie_groups or absolute or opts.condense
    # (with a vocabulary every metric looks the items up in: each position's place in it)
    places = _lookup_ids(item_vocab, r) if rows_kept and item_vocab is not None else None
    look = (places.kind, places.a, places.b) if places is not None else (-1, None, None)

    def run_item_codes() -> tuple[np.ndarray, np.ndarray]:
        return np.ascontiguousarray(run.item_codes, dtype=np.int32), run.items

    def join(lo: int, hi: int) -> Lists:
        """The lists of evaluated users ``lo .. hi - 1``, joined on raw ids (the one call
        of :func:`receval.kernels.join_lists`, its flags from the options)."""
        out = join_lists(
            r.kind, r.a, r.b, score, rows, rstart, run_of[lo:hi], t_raw.kind, t_raw.a,
            t_raw.b, t_start[lo:hi], t_counts[lo:hi], truth.rel, depth, opts.dedupe, nan_mode,
            opts.as_float32, opts.desc_ids, want_scores, cut_arr, scratch, opts.by_row, setup,
            truth.rel_desc if measure else None, int(not r.checked), int(rank_rows),
            int(keep_items), item_codes, int(rel_kept), *look)
        if keep_items:  # (the last value: the run's item code at each position)
            return Lists._make([*out[:8], out[8] if len(out) == 10 else None, out[-1]])
        return Lists(*out)

    def refused_in_later_blocks(b: int, n_dup: int) -> int:
        """The run's repeated rows, counted on in the blocks after ``b`` once block ``b``
        has one, so that the error names the run's count; a non-finite score met there is
        refused first, as a pass before the join would have."""
        for c in range(b + 1, len(bounds) - 1):
            later = join(int(bounds[c]), int(bounds[c + 1]))
            if nan_mode == 0 and later.n_dropped:
                refuse_nonfinite()
            n_dup += int(later.n_dup.sum())
        return n_dup

    for b in range(len(bounds) - 1):
        lo, hi = int(bounds[b]), int(bounds[b + 1])
        if hi <= lo and b:
            continue
        lists = join(lo, hi)
        if nan_mode == 0 and lists.n_dropped:
            refuse_nonfinite()
        dup_total = refused_in_later_blocks(b, int(lists.n_dup.sum())) \
            if opts.refuse_duplicates and lists.n_dup.any() else 0
        if keep_items and item_codes is None:  # each position's run row
            assert lists.rows is not None and run.item_raw is not None
            yield block(lo, hi, lists, ItemRows(lists.rows, run.item_raw, run_item_codes,
                                                None if places is None else item_vocab),
                        None, b == 0, dup_total)
        elif keep_items:  # the run's item code at each position (the item column factorized)
            assert lists.rows is not None
            yield block(lo, hi, lists, lists.rows, run.items, b == 0, dup_total)
        else:
            yield block(lo, hi, lists, no_items, empty_ids(r.id_kind), b == 0, dup_total)


@dataclass
class _Users:
    """Who is evaluated, in which row, and where their truth lies (:func:`_evaluated_users`).

    Evaluated rows are the truth users ``t_sel`` (truth row numbers), then the run-only users
    ``extra`` (run user codes); ``run_row``: the evaluated row of each run user (-1: left out);
    ``in_run_t``: whether each truth user has run rows; ``run_only``: the run users absent from
    the truth; per evaluated row ``t_counts`` / ``t_start`` (its truth rows), ``in_truth``,
    ``in_run`` and ``truth_index`` (its truth row number, -1 for none). ``identity``: the run
    and the truth hold the same users in the same order (evaluated row = run user = truth
    user), the usual case, built without an index pass."""

    t_sel: np.ndarray
    extra: np.ndarray
    run_row: np.ndarray
    in_run_t: np.ndarray
    run_only: np.ndarray
    t_counts: np.ndarray
    t_start: np.ndarray
    in_truth: np.ndarray
    in_run: np.ndarray
    truth_index: np.ndarray
    identity: bool = False

    def run_of(self) -> np.ndarray:
        """The run user code of each evaluated row (-1: the user has no run rows)."""
        if self.identity:
            return self.run_row
        run_of = np.full(len(self.t_sel) + len(self.extra), -1, dtype=np.int64)
        has = self.run_row >= 0
        run_of[self.run_row[has]] = np.flatnonzero(has)
        return run_of


def _evaluated_users(run_to_truth_user: np.ndarray, truth: TruthPack, policies: Policies,
                     only_truth: np.ndarray | None) -> _Users:
    """The evaluated users of a run whose user ``u`` is truth user ``run_to_truth_user[u]``
    (-1: not in the truth), chosen by the ``users`` policy or given as ``only_truth``."""
    n_truth = truth.n_users
    none = np.zeros(0, dtype=np.int64)
    if only_truth is None and len(run_to_truth_user) == n_truth and \
            np.array_equal(run_to_truth_user, np.arange(n_truth)):
        every = np.ones(n_truth, dtype=bool)
        return _Users(
            t_sel=run_to_truth_user, extra=none, run_row=run_to_truth_user, in_run_t=every,
            run_only=none, t_counts=np.diff(truth.indptr), t_start=truth.indptr[:-1],
            in_truth=every, in_run=every, truth_index=run_to_truth_user, identity=True)
    in_run_t = np.zeros(n_truth, dtype=bool)
    in_run_t[run_to_truth_user[run_to_truth_user >= 0]] = True
    run_only = np.flatnonzero(run_to_truth_user < 0)
    # evaluated users: truth users (some maybe without run rows) + run-only users per policy
    if only_truth is not None:
        t_sel, extra = np.asarray(only_truth, dtype=np.int64), none
    elif policies.users == "truth":
        t_sel, extra = np.arange(n_truth), none
    elif policies.users == "intersection":
        t_sel, extra = np.flatnonzero(in_run_t), none
    elif policies.users == "run":
        t_sel, extra = np.flatnonzero(in_run_t), run_only
    else:  # union
        t_sel, extra = np.arange(n_truth), run_only
    # run user code -> evaluated row
    t_row = np.full(n_truth, -1, dtype=np.int64)
    t_row[t_sel] = np.arange(len(t_sel))
    run_row = np.where(run_to_truth_user >= 0, t_row[np.maximum(run_to_truth_user, 0)], -1) \
        if n_truth else np.full(len(run_to_truth_user), -1, dtype=np.int64)
    run_row[extra] = len(t_sel) + np.arange(len(extra))
    n_eval = len(t_sel) + len(extra)
    t_counts = np.zeros(n_eval, dtype=np.int64)
    t_counts[: len(t_sel)] = np.diff(truth.indptr)[t_sel]
    t_start = np.zeros(n_eval, dtype=np.int64)
    t_start[: len(t_sel)] = truth.indptr[t_sel]
    return _Users(
        t_sel=t_sel, extra=extra, run_row=run_row, in_run_t=in_run_t, run_only=run_only,
        t_counts=t_counts, t_start=t_start,
        in_truth=np.concatenate([np.ones(len(t_sel), bool), np.zeros(len(extra), bool)]),
        in_run=np.concatenate([in_run_t[t_sel], np.ones(len(extra), bool)]),
        truth_index=np.concatenate([t_sel, np.full(len(extra), -1, dtype=np.int64)]))


def _truth_raw_for(run: RunCodes, truth: TruthPack, opts: KernelOptions) -> RawIds | None:
    """The truth's item ids in the form of the run's raw item ids, when the run can be joined
    with the truth on raw ids (else ``None``: the run's items are factorized and looked up).

    Needs the run's item ids in place (:mod:`receval.pack.rawids`), ids of the truth's kind,
    and, with ``ties="trec_eval"`` (which orders ids by their text), string ids.
    """
    raw = run.item_raw
    if raw is None or (run.ordered and run.row_bounds is None) or run._items is not None \
            or not truth.has_items:
        return None
    if raw.id_kind != truth.item_kind:
        return None
    # (a top-k matrix has no tied scores: the order of tied ids never matters)
    if opts.desc_ids and run.row_bounds is None and \
            (raw.id_kind == "int" or raw.categories is not None):
        return None
    if raw.categories is not None:  # ranks into a categorical column's categories
        if truth.codes is None and truth.positions is not None:  # no truth codes made
            return dictionary_truth(raw, truth.categories, truth.positions)
        return dictionary_truth(raw, truth.items, truth.item_codes)
    if raw.family not in truth.raw:
        truth.raw[raw.family] = truth_raw(truth.items, truth.item_codes, raw.family)
    return truth.raw[raw.family]


#: rows per slice when float32 scores are checked for non-finite values (a float64 slice of
#: 8 MiB at a time, never the whole column)
NONFINITE_SLICE = 1 << 20


def _nonfinite(score: np.ndarray) -> tuple[int, int]:
    """:func:`receval.kernels.nonfinite` of float64 scores, or of float32 ones slice by slice
    (each widened exactly), without a float64 copy of the column."""
    if score.dtype == np.float64:
        return nonfinite(score)
    count, first = 0, -1
    for lo in range(0, len(score), NONFINITE_SLICE):
        c, f = nonfinite(np.ascontiguousarray(score[lo:lo + NONFINITE_SLICE], dtype=np.float64))
        if c and first < 0:
            first = lo + f
        count += c
    return count, first


def _ranges(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Concatenate arange(s, s + n) for each (s, n), vectorized."""
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    offsets = np.repeat(starts - np.concatenate([[0], np.cumsum(lengths)[:-1]]), lengths)
    return np.arange(total, dtype=np.int64) + offsets
