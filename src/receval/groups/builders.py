"""Built-in user groups: activity, cold vs warm, popularity taste, a split's cold-start sets.

Every builder returns a :class:`receval.io.groups.Membership` that ``rv.evaluate(...,
groups=...)`` takes as it is::

    rv.evaluate(run, truth, ["ndcg@10"], groups=rv.groups.activity(train, users=truth))

Training interactions (``train=``) are (user, item[, ...]) rows in any table form
:func:`receval.io.frames.read_columns` reads (pandas, polars, pyarrow, a dict of columns), or a
``scipy.sparse`` (users x items) matrix whose non-zero cells are interactions (row and column
numbers are the ids; every row is a user, an empty row a user without interactions). Ids follow
the id policy of :mod:`receval.pack.vocab` (integers and strings never match).

``users=`` names the users to group (for instance the truth's users): a list / array / pandas
Index or Series of ids, a dict (its keys: a truth ``{user: {item: rel}}`` works), or a table with
a user column. Every listed user gets a group: a user without training interactions is put in
its own ``cold`` group, counted and never dropped. Without ``users=`` the users of ``train`` are
grouped. ``user_col=`` / ``item_col=`` name train's columns (and ``user_col=`` the user
column of a ``users=`` table) when they are not found by their usual names. Users that the
evaluation holds but the membership does not list are counted by
``rv.evaluate`` in ``info["groups"]["ungrouped"]``.

Quantile cut points
-------------------
:func:`activity` and :func:`popularity_taste` cut a per-user value ``x_u`` at quantiles of its
distribution over the grouped users that have training interactions (``N`` of them, values
sorted ``x_(1) <= ... <= x_(N)``). The cut point at level ``q`` is the inverse of the empirical
distribution function (Hyndman & Fan 1996, definition 1)::

    c(q) = x_(r),   r = ceil(q * N)      (computed exactly on the decimal value of q)

the smallest observed value with at least a share ``q`` of the users at or below it. With
levels ``q_1 < ... < q_m`` and ``c_0 = -inf``, ``c_{m+1} = +inf``, bin ``j`` (j = 1..m+1) holds
the users with ``c_{j-1} < x_u <= c_j``. A user's bin depends only on its value: users tied at a
cut point all go to the lower bin (so the lower bin may hold more than its nominal share, never
a random part of the tie). Cut points that coincide leave an empty bin; empty bins are not
listed, so a heavily tied distribution gives fewer groups than levels asked for.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from fractions import Fraction
from numbers import Real
from typing import Any, NamedTuple

import numpy as np
import scipy.sparse as sp

from .._lazy import pandas
from ..errors import InputError, ParameterError, plain
from ..io.frames import USER_NAMES, _column_names, _find, _id_column, _to_frame, read_columns
from ..io.groups import JOIN, Membership
from ..pack.vocab import factorize
from ..validation import Boolean, Integral, Interval, Options, validate_params

__all__ = ["activity", "cold_warm", "from_split", "popularity_taste"]

#: label of the users in ``users=`` without training interactions (activity, popularity taste)
COLD = "cold"


class _Train(NamedTuple):
    """Training rows as codes: ``u[r]``, ``i[r]`` index ``users`` and ``items``."""

    users: np.ndarray
    items: np.ndarray
    u: np.ndarray
    i: np.ndarray


def _read_train(train: Any, user_col: str | None, item_col: str | None) -> _Train:
    if train is None:
        raise InputError("train=None: give the training interactions (a table of (user, item) "
                         "rows or a scipy.sparse users x items matrix).")
    if sp.issparse(train):
        if user_col is not None or item_col is not None:
            raise InputError("train: a scipy.sparse matrix has no columns to name; drop "
                             "user_col= / item_col= (row numbers are users, columns items).")
        coo = sp.coo_matrix(train)
        nz = coo.data != 0
        return _Train(np.arange(coo.shape[0], dtype=np.int64),
                      np.arange(coo.shape[1], dtype=np.int64),
                      coo.row[nz].astype(np.int64), coo.col[nz].astype(np.int64))
    c = read_columns(train, role="train", user_col=user_col, item_col=item_col)
    u, users = factorize(c.user, what="train user column")
    i, items = factorize(c.item, what="train item column")
    return _Train(users, items, u.astype(np.int64), i.astype(np.int64))


def _read_users(users: Any, user_col: str | None) -> np.ndarray:
    """Distinct raw ids of ``users=`` (first-seen order), read by the id policy."""
    pd = pandas()
    table = hasattr(users, "columns") or hasattr(users, "column_names") or (
        isinstance(users, Mapping) and any(
            k in USER_NAMES for k in users) and all(
            isinstance(v, (list, np.ndarray, pd.Series)) for v in users.values()))
    if table:
        frame, kind = _to_frame(users, "users")
        names = _column_names(frame, kind)
        ucol = _find(names, user_col, USER_NAMES, "user", "users", "user_col")
        col: Any = _id_column(frame, kind, ucol, "users")  # type: ignore[arg-type]
    elif isinstance(users, Mapping):
        col = list(users.keys())
    elif isinstance(users, (pd.Series, pd.Index, np.ndarray, list, tuple)) or \
            type(users).__module__.split(".")[0] in ("pyarrow", "polars"):  # a column
        col = users
    elif isinstance(users, (set, frozenset)):
        col = list(users)
    else:
        raise InputError(f"users={plain(users)}: give the users to group as a list or array of "
                         "ids, a dict keyed by user (a truth), or a table with a user column.")
    if isinstance(col, (list, tuple)):
        arr = np.empty(len(col), dtype=object)
        arr[:] = list(col)
        col = arr
    if len(col) == 0:
        return np.zeros(0, dtype=np.int64)
    _, ids = factorize(col, what="users")
    return np.asarray(ids)


def _match(train_users: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """Train code of each id (-1: not in train); ids of another kind than train's refused."""
    if len(ids) == 0 or len(train_users) == 0:
        return np.full(len(ids), -1, dtype=np.int64)
    t_int, u_int = train_users.dtype.kind in "iu", ids.dtype.kind in "iu"
    if t_int != u_int:
        kinds = {True: "integers", False: "strings"}
        raise InputError(
            f"users= ids are {kinds[u_int]} (e.g. {plain(ids[0])}) but the train user ids are "
            f"{kinds[t_int]} (e.g. {plain(train_users[0])}); integers and strings never match. "
            "Convert one side, e.g. [str(u) for u in users] or train['user'].astype(int).")
    pd = pandas()
    return pd.Index(train_users).get_indexer(pd.Index(ids)).astype(np.int64)


def _population(tr: _Train, users: Any, user_col: str | None) -> tuple[np.ndarray, np.ndarray]:
    """(raw ids of the users to group, their train code or -1)."""
    if users is None:
        if len(tr.users) == 0:
            raise InputError("train has no rows and users= is not given: there is no user to "
                             "group. Pass users= (e.g. the truth) to label them all cold.")
        return tr.users, np.arange(len(tr.users), dtype=np.int64)
    ids = _read_users(users, user_col)
    if len(ids) == 0:
        raise InputError("users= is empty; give the users to group (e.g. the truth's users).")
    return ids, _match(tr.users, ids)


def _levels(q: Any, n_groups: Any, where: str, default: tuple[float, ...]) -> tuple[float, ...]:
    """The quantile levels from ``q=`` or ``n_groups=`` (not both)."""
    if q is not None and n_groups is not None:
        raise ParameterError(f"{where}: give q= or n_groups=, not both (n_groups=k means "
                             "q=(1/k, ..., (k-1)/k)).", function=where, param="n_groups",
                             value=n_groups, expected="None when q= is given")
    if n_groups is not None:
        k = int(n_groups)
        return tuple(j / k for j in range(1, k))
    if q is None:
        return default
    if isinstance(q, Real) and not isinstance(q, bool):
        q = (q,)
    bad = ParameterError(
        f"{where}: q={plain(q)} is not valid; q must be one level or an increasing sequence of "
        "levels strictly between 0 and 1, e.g. q=(0.2, 0.8).",
        function=where, param="q", value=q, expected="increasing levels in (0, 1)")
    if isinstance(q, (str, bytes, Mapping)) or not isinstance(q, (Sequence, np.ndarray)):
        raise bad
    vals = list(q)
    if not vals or not all(isinstance(v, Real) and not isinstance(v, (bool, np.bool_))
                           for v in vals):
        raise bad
    fl = [float(v) for v in vals]
    if not all(0.0 < v < 1.0 for v in fl) or any(fl[k + 1] <= fl[k] for k in range(len(fl) - 1)):
        raise bad
    return tuple(fl)


def _names(names: Any, n_bins: int, default: tuple[str, ...], where: str) -> tuple[str, ...]:
    if names is None:
        if len(default) == n_bins:
            return default
        return tuple(f"Q{j}" for j in range(1, n_bins + 1))
    if isinstance(names, str) or not isinstance(names, Sequence) or len(names) != n_bins \
            or not all(isinstance(n, str) and n for n in names) or len(set(names)) != n_bins \
            or COLD in names:
        raise ParameterError(
            f"{where}: names={plain(names)} is not valid; give {n_bins} distinct non-empty "
            f"strings (one per bin: the number of levels + 1), none of them {COLD!r}.",
            function=where, param="names", value=names, expected=f"{n_bins} distinct strings")
    return tuple(names)


def _rank(q: float, n: int) -> int:
    """``ceil(q * n)`` on the decimal value of ``q`` (0.7 * 10 is 7, not 7.000000000000001)."""
    return max(1, math.ceil(Fraction(repr(q)) * n))


def cut_points(values: np.ndarray, levels: Sequence[float]) -> np.ndarray:
    """``c(q) = x_(ceil(q N))`` for each level (module docstring); ``values`` non-empty."""
    xs = np.sort(np.asarray(values))
    return np.array([xs[_rank(q, len(xs)) - 1] for q in levels], dtype=xs.dtype)


def _bins(values: np.ndarray, cuts: np.ndarray) -> np.ndarray:
    """Bin j (0-based) of each value: the number of cut points strictly below it."""
    return np.searchsorted(cuts, values, side="left").astype(np.int64)


def _assemble(ids: np.ndarray, bin_of: np.ndarray, labels: list[str],
              column: tuple[str, ...]) -> Membership:
    """A Membership listing the bins in order (empty ones left out); ``bin_of`` -1: cold, the
    last label."""
    order = list(range(len(labels) - 1)) + [-1]
    present = [b for b in order if np.any(bin_of == b)]
    code_of = {b: k for k, b in enumerate(present)}
    lut = np.full(len(labels), -1, dtype=np.int64)
    for b, k in code_of.items():
        lut[b] = k
    codes = lut[bin_of]  # -1 indexes the last slot (cold)
    return Membership(ids, codes.astype(np.int64),
                      tuple(labels[b] for b in present), column)


def _int_range(lo: float, hi: float) -> str:
    """Integers in (lo, hi]: ``4-20``, ``3``, ``21+``."""
    a = 1 if lo == -math.inf else int(lo) + 1
    if hi == math.inf:
        return f"{a}+"
    b = int(hi)
    return f"{a}" if a == b else f"{a}-{b}"


def _share(x: float) -> str:
    return f"{x:.4g}"


def _share_range(lo: float, hi: float) -> str:
    if lo == -math.inf:
        return "share 0" if hi == 0 else f"share <= {_share(hi)}"
    if hi == math.inf:
        return f"share > {_share(lo)}"
    return f"{_share(lo)} < share <= {_share(hi)}"


@validate_params({"n_groups": [None, Interval(Integral, 2, None)],
                  "count": [Options(("rows", "items"))]})
def activity(train: Any, *, q: float | Sequence[float] | None = None,
             n_groups: int | None = None, users: Any = None, count: str = "rows",
             names: Sequence[str] | None = None, user_col: str | None = None,
             item_col: str | None = None) -> Membership:
    """Users grouped by how much they interacted in training (activity quantiles).

    Activity ``n_u``: the number of training rows of user ``u`` (``count="rows"``; repeated
    (user, item) rows count each time; a sparse matrix: its non-zero cells in row u) or of
    distinct items (``count="items"``). Levels ``q`` (default ``(0.2, 0.8)``: the lightest 20%,
    the middle, the heaviest 20%) or ``n_groups=k`` (levels ``j/k``, equal-frequency bins) cut
    ``n_u`` over the grouped users with ``n_u >= 1`` as the module docstring defines: bin j
    holds ``c_{j-1} < n_u <= c_j``, ties at a cut point in the lower bin. Users of ``users=``
    with ``n_u = 0`` form the group ``"cold (0)"``, after the bins.

    Labels give each bin's name and its integer range: ``"light (1-3)"``, ``"medium (4-20)"``,
    ``"heavy (21+)"`` (names default to light / heavy for two bins, light / medium / heavy for
    three, ``Q1`` ... ``Qk`` otherwise; ``names=`` sets them, one per bin). The first bin's range
    starts at 1, the last is open.

    Example: activities 1, 1, 2, 3, 5, 8, 9, 9, 12, 40 (N = 10), q = (0.2, 0.8): ranks
    ceil(2) = 2 and ceil(8) = 8, cuts x_(2) = 1 and x_(8) = 9: ``light (1)`` (2 users),
    ``medium (2-9)`` (6 users), ``heavy (10+)`` (2 users).

    Activity groups of this kind are the usual way of reporting accuracy for light and heavy
    users (Ekstrand, Carterette & Diaz, "Distributionally-informed recommender system
    evaluation", ACM TORS 2024, on distributional and per-group evaluation).
    """
    where = "activity"
    levels = _levels(q, n_groups, where, (0.2, 0.8))
    labels_by_bin = _names(names, len(levels) + 1, _DEFAULT_NAMES.get(len(levels) + 1, ()),
                           where)
    tr = _read_train(train, user_col, item_col)
    ids, code = _population(tr, users, user_col)
    n_u = _counts(tr, count)
    act = np.where(code >= 0, n_u[np.maximum(code, 0)] if len(n_u) else 0, 0)
    warm = act > 0
    bin_of = np.full(len(ids), -1, dtype=np.int64)
    bounds = [-math.inf, math.inf]
    if warm.any():
        cuts = cut_points(act[warm], levels)
        bin_of[warm] = _bins(act[warm], cuts)
        bounds = [-math.inf, *cuts.tolist(), math.inf]
    labels = [f"{labels_by_bin[j]} ({_int_range(bounds[j], bounds[j + 1])})"
              if j + 1 < len(bounds) else labels_by_bin[j] for j in range(len(levels) + 1)]
    return _assemble(ids, bin_of, [*labels, f"{COLD} (0)"], ("activity",))


_DEFAULT_NAMES = {2: ("light", "heavy"), 3: ("light", "medium", "heavy")}


def _counts(tr: _Train, count: str) -> np.ndarray:
    """Per train user code: rows (``"rows"``) or distinct items (``"items"``)."""
    n = len(tr.users)
    if count == "rows":
        return np.bincount(tr.u, minlength=n).astype(np.int64)
    pu, _ = _pairs(tr)
    return np.bincount(pu, minlength=n).astype(np.int64)


def _pairs(tr: _Train) -> tuple[np.ndarray, np.ndarray]:
    """The distinct (user code, item code) pairs of train (a sort: faster than a hash here)."""
    width = max(len(tr.items), 1)
    keys = np.sort(tr.u * width + tr.i)
    if len(keys):
        keys = keys[np.concatenate(([True], keys[1:] != keys[:-1]))]
    return keys // width, keys % width


@validate_params({"min_interactions": [Interval(Integral, 1, None)]})
def cold_warm(train: Any, users: Any, *, min_interactions: int = 1,
              user_col: str | None = None, item_col: str | None = None) -> Membership:
    """Users of ``users=`` grouped as ``"cold"`` (no training history) or ``"warm"``.

    A user is warm when it has at least ``min_interactions`` training rows (default 1: any
    history; a sparse matrix: non-zero cells in its row), cold otherwise, including users
    absent from ``train``. With ``min_interactions=m > 1`` the labels carry the threshold:
    ``"cold (0-{m-1})"`` and ``"warm ({m}+)"``. Every listed user is in one of the two groups;
    ``users=`` is required (train users alone are all warm).

    Cold-start users are the classic hard case of collaborative filtering (Schein, Popescul,
    Ungar & Pennock, "Methods and metrics for cold-start recommendations", SIGIR 2002).
    """
    if users is None:
        raise InputError("cold_warm: users= is required (every user of train is warm); give "
                         "the users to evaluate, e.g. users=truth.")
    tr = _read_train(train, user_col, item_col)
    ids, code = _population(tr, users, user_col)
    n_u = _counts(tr, "rows")
    act = np.where(code >= 0, n_u[np.maximum(code, 0)] if len(n_u) else 0, 0)
    m = int(min_interactions)
    cold, hot = ("cold", "warm") if m == 1 else (f"cold (0-{m - 1})", f"warm ({m}+)")
    bin_of = np.where(act >= m, 0, -1).astype(np.int64)
    return _assemble(ids, bin_of, [hot, cold], ("cold_warm",))


@validate_params({"top": [Interval(Real, 0, 1, closed="right")],
                  "pop": [Options(("rows", "users"))]})
def popularity_taste(train: Any, *, top: float = 0.2,
                     q: float | Sequence[float] | None = (0.2, 0.8), users: Any = None,
                     pop: str = "rows", names: Sequence[str] | None = None,
                     user_col: str | None = None, item_col: str | None = None) -> Membership:
    """Users grouped by the share of popular items in their training profile.

    Following Abdollahpouri, Mansoury, Burke & Mobasher, "The unfairness of popularity bias in
    recommendation" (RMSE workshop at RecSys 2019, arXiv:1907.13286), who split users by their
    interest in popular items into Niche, Diverse and Blockbuster-focused groups, taking the
    top 20% of items by number of ratings as the popular items and the 20% of users with the
    smallest (largest) share of popular items in their profile as niche (blockbuster-focused);
    the same groups underlie their group average popularity gap (ΔGAP). Here exactly:

    - popularity ``phi(i)``: training rows of item i (``pop="rows"``, the number of ratings)
      or distinct training users of i (``pop="users"``), over the ``M`` items with at least one
      training interaction;
    - popular items ``H = {i : phi(i) >= phi_(r)}`` with ``phi_(r)`` the r-th largest
      popularity, ``r = ceil(top * M)``: items tied with the r-th are all popular, so ``|H|``
      may exceed ``r``;
    - profile ``P_u``: the distinct items of user u in train; share
      ``s_u = |P_u ∩ H| / |P_u|``;
    - ``s_u`` is cut at the levels ``q`` (default ``(0.2, 0.8)``) over the grouped users with a
      profile, as the module docstring defines (bin j: ``c_{j-1} < s_u <= c_j``; ties at a cut
      point in the lower bin). With two levels the bins are ``niche``, ``diverse``,
      ``blockbuster``; ``names=`` renames them (one name per bin, required for other numbers of
      levels unless ``Q1`` ... ``Qk`` will do).

    Labels carry the cut points: ``"niche (share <= 0.25)"``, ``"diverse (0.25 < share <=
    0.6)"``, ``"blockbuster (share > 0.6)"`` (4 significant digits; ``share 0`` when the cut is
    0). Users of ``users=`` without a profile form ``"cold (no profile)"``. Shares are compared
    as float64 quotients, exact for profiles under 2**26 items.

    Example: profiles u1 {a}, u2 {a, b}, u3 {c, d}, u4 {a, c}, u5 {e} (one row each):
    phi = a 3, c 2, b d e 1; M = 5, top = 0.2: r = 1, H = {a}; shares 1, 0.5, 0, 0.5, 0;
    q = (0.2, 0.8) on the sorted shares 0, 0, 0.5, 0.5, 1: cuts x_(1) = 0 and x_(4) = 0.5:
    ``niche (share 0)`` = {u3, u5}, ``diverse (0 < share <= 0.5)`` = {u2, u4},
    ``blockbuster (share > 0.5)`` = {u1}.
    """
    where = "popularity_taste"
    levels = _levels(q, None, where, (0.2, 0.8))
    labels_by_bin = _names(names, len(levels) + 1,
                           ("niche", "diverse", "blockbuster") if len(levels) == 2 else (), where)
    tr = _read_train(train, user_col, item_col)
    ids, code = _population(tr, users, user_col)
    pu, pi = _pairs(tr)
    phi = np.bincount(tr.i if pop == "rows" else pi, minlength=len(tr.items))
    seen = phi > 0
    popular = np.zeros(len(tr.items), dtype=bool)
    if seen.any():
        ranked = np.sort(phi[seen])[::-1]
        popular = seen & (phi >= ranked[_rank(float(top), len(ranked)) - 1])
    size = np.bincount(pu, minlength=len(tr.users))
    hits = np.bincount(pu, weights=popular[pi].astype(np.float64), minlength=len(tr.users))
    with np.errstate(invalid="ignore", divide="ignore"):
        share_t = hits / size
    has = (code >= 0) & (size[np.maximum(code, 0)] > 0 if len(size) else False)
    share = np.where(has, share_t[np.maximum(code, 0)] if len(size) else 0.0, 0.0)
    bin_of = np.full(len(ids), -1, dtype=np.int64)
    bounds = [-math.inf, math.inf]
    if has.any():
        cuts = cut_points(share[has], levels)
        bin_of[has] = _bins(share[has], cuts)
        bounds = [-math.inf, *cuts.tolist(), math.inf]
    labels = [f"{labels_by_bin[j]} ({_share_range(bounds[j], bounds[j + 1])})"
              if j + 1 < len(bounds) else labels_by_bin[j] for j in range(len(levels) + 1)]
    return _assemble(ids, bin_of, [*labels, f"{COLD} (no profile)"], ("popularity_taste",))


@validate_params({"items": [Boolean()]})
def from_split(split: Any, test: Any = None, *, items: bool = False,
               user_col: str | None = None, item_col: str | None = None) -> Membership:
    """The test users of a train/test split grouped by the split's cold-start sets.

    ``split``: a :class:`receval.split.Split` (as every splitter returns, e.g.
    :func:`receval.split.cold_start_split`) or ``(train, test)`` tables. The sets are those
    :func:`receval.split.check_leakage` counts: a test user absent from train is a *cold user*
    (``test_only_users``), a test item absent from train a *cold item* (``test_only_items``).
    Each distinct test user is labelled ``"cold user"`` or ``"warm user"``; with
    ``items=True`` also ``"cold items"`` (at least one of its test rows holds a cold item) or
    ``"warm items"`` (none does), as the intersection ``"warm user & cold items"``. The number
    of users labelled cold equals ``check_leakage(split).test_only_users``.
    """
    if test is None:
        if isinstance(split, tuple) and len(split) == 2:
            train, test = split
        else:
            raise InputError("from_split needs a Split (or a (train, test) pair), or train and "
                             "test: from_split(train, test).")
    else:
        train = split
    tr = read_columns(train, role="train", user_col=user_col, item_col=item_col)
    te = read_columns(test, role="test", user_col=user_col, item_col=item_col)
    tu_codes, t_users = factorize(te.user, what="test user column")
    ti_codes, t_items = factorize(te.item, what="test item column")
    _, r_users = factorize(tr.user, what="train user column") if len(tr.user) else \
        (None, np.zeros(0, dtype=t_users.dtype))
    _, r_items = factorize(tr.item, what="train item column") if len(tr.item) else \
        (None, np.zeros(0, dtype=t_items.dtype))
    if len(t_users) == 0:
        raise InputError("from_split: the test table has no rows; there is no user to group.")
    cold_user = _match(r_users, np.asarray(t_users)) < 0
    if not items:
        bin_of = np.where(cold_user, 0, 1).astype(np.int64)
        lab = ["cold user", "warm user"]
        return _regroup(np.asarray(t_users), bin_of, lab, ("split_user",))
    cold_item = _match_items(r_items, np.asarray(t_items)) < 0
    has_cold = np.bincount(tu_codes.astype(np.int64), weights=cold_item[ti_codes],
                           minlength=len(t_users)) > 0
    bin_of = (np.where(cold_user, 0, 2) + np.where(has_cold, 0, 1)).astype(np.int64)
    lab = [f"{a}{JOIN}{b}" for a in ("cold user", "warm user")
           for b in ("cold items", "warm items")]
    return _regroup(np.asarray(t_users), bin_of, lab, ("split_user", "split_items"))


def _match_items(train_items: np.ndarray, ids: np.ndarray) -> np.ndarray:
    try:
        return _match(train_items, ids)
    except InputError as exc:
        raise InputError(str(exc).replace("users= ids", "test item ids").replace(
            "train user ids", "train item ids")) from None


def _regroup(ids: np.ndarray, bin_of: np.ndarray, labels: list[str],
             column: tuple[str, ...]) -> Membership:
    present = [b for b in range(len(labels)) if np.any(bin_of == b)]
    lut = np.full(len(labels), -1, dtype=np.int64)
    lut[present] = np.arange(len(present))
    return Membership(ids, lut[bin_of], tuple(labels[b] for b in present), column)
