"""Built-in group builders (``rv.groups``): worked examples from their docstrings, a slow oracle
written from each definition against the fast path, every train form alike, adversarial inputs,
and ``rv.evaluate(..., groups=builder(...))`` end to end."""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import receval as rv
from receval.errors import InputError, ParameterError
from receval.groups import Membership, activity, cold_warm, from_split, popularity_taste
from receval.split import Split, check_leakage, cold_start_split


def _groups(m: Membership) -> dict[str, set]:
    """label -> set of raw user ids."""
    out: dict[str, set] = {lab: set() for lab in m.labels}
    for u, c in zip(m.users.tolist(), m.codes.tolist(), strict=True):
        out[m.labels[c]].add(u)
    return out


def _frame(profiles: dict) -> pd.DataFrame:
    return pd.DataFrame([(u, i) for u, its in profiles.items() for i in its],
                        columns=["user", "item"])


# ---- worked examples ------------------------------------------------------------------------
def test_activity_docstring_example():
    acts = [1, 1, 2, 3, 5, 8, 9, 9, 12, 40]
    train = pd.DataFrame([(k, j) for k, a in enumerate(acts) for j in range(a)],
                         columns=["user", "item"])
    m = activity(train)
    assert _groups(m) == {"light (1)": {0, 1}, "medium (2-9)": {2, 3, 4, 5, 6, 7},
                          "heavy (10+)": {8, 9}}
    assert m.columns == ("activity",)
    # the cuts depend only on the users grouped: users=[0, 9, 77] has N = 2 warm users
    m = activity(train, users=[0, 9, 77])
    assert _groups(m) == {"light (1)": {0}, "medium (2-40)": {9}, "cold (0)": {77}}


def test_activity_ties_at_a_cut_go_to_the_lower_bin():
    train = _frame({"a": "x", "b": "y", "c": "z", "d": "w", "e": "xy"})  # 1, 1, 1, 1, 2
    # q = 0.5: r = ceil(2.5) = 3, cut x_(3) = 1: all four 1s are light
    assert _groups(activity(train, q=0.5)) == {"light (1)": {"a", "b", "c", "d"},
                                               "heavy (2+)": {"e"}}
    assert _groups(activity(train, n_groups=2)) == _groups(activity(train, q=[0.5]))
    # every user tied: one group, nothing dropped
    same = _frame({"a": "xy", "b": "yz", "c": "xz"})
    assert _groups(activity(same)) == {"light (1-2)": {"a", "b", "c"}}
    # 0.7 * 10 is 7 exactly (not 7.000000000000001, which would make the rank 8)
    ten = pd.DataFrame([(k, j) for k in range(10) for j in range(k + 1)],
                       columns=["user", "item"])
    assert _groups(activity(ten, q=0.7))["light (1-7)"] == set(range(7))


def test_activity_counts_rows_or_distinct_items():
    train = pd.DataFrame({"user": [1, 1, 1, 2, 2, 3], "item": [5, 5, 5, 6, 7, 8]})
    rows = activity(train, q=0.5)  # rows 3, 2, 1 -> cut x_(2) = 2
    assert _groups(rows) == {"light (1-2)": {2, 3}, "heavy (3+)": {1}}
    items = activity(train, q=0.5, count="items")  # items 1, 2, 1 -> cut x_(2) = 1
    assert _groups(items) == {"light (1)": {1, 3}, "heavy (2+)": {2}}


def test_activity_names_and_more_bins():
    acts = list(range(1, 9))
    train = pd.DataFrame([(k, j) for k, a in enumerate(acts) for j in range(a)],
                         columns=["user", "item"])
    m = activity(train, n_groups=4)  # cuts x_(2)=2, x_(4)=4, x_(6)=6
    assert m.labels == ("Q1 (1-2)", "Q2 (3-4)", "Q3 (5-6)", "Q4 (7+)")
    m = activity(train, n_groups=4, names=["a", "b", "c", "d"])
    assert m.labels == ("a (1-2)", "b (3-4)", "c (5-6)", "d (7+)")


def test_cold_warm_example():
    train = pd.DataFrame({"user": ["a", "a", "b"], "item": [1, 2, 1]})
    m = cold_warm(train, ["a", "b", "c", "a"])
    assert _groups(m) == {"warm": {"a", "b"}, "cold": {"c"}}
    assert len(m.users) == 3  # a listed twice is one user
    m = cold_warm(train, {"a": {1: 1}, "b": {1: 1}, "c": {2: 1}}, min_interactions=2)
    assert _groups(m) == {"warm (2+)": {"a"}, "cold (0-1)": {"b", "c"}}


def test_popularity_taste_docstring_example():
    train = _frame({"u1": "a", "u2": "ab", "u3": "cd", "u4": "ac", "u5": "e"})
    m = popularity_taste(train)
    assert _groups(m) == {"niche (share 0)": {"u3", "u5"},
                          "diverse (0 < share <= 0.5)": {"u2", "u4"},
                          "blockbuster (share > 0.5)": {"u1"}}


def test_popularity_taste_ties_and_pop_kinds():
    # items tied with the r-th most popular are all popular: a and b both have 2 rows
    train = _frame({"u1": "ab", "u2": "ab", "u3": "c", "u4": "d", "u5": "e"})
    m = popularity_taste(train, top=0.2, q=0.5)  # r = 1, H = {a, b}: shares 1 1 0 0 0
    assert _groups(m) == {"Q1 (share 0)": {"u3", "u4", "u5"}, "Q2 (share > 0)": {"u1", "u2"}}
    # repeated rows: pop="rows" counts them, pop="users" does not
    rep = pd.DataFrame({"user": ["u1"] * 3 + ["u2", "u3", "u3"], "item": ["z"] * 3 +
                        ["y", "y", "x"]})
    rows = popularity_taste(rep, top=0.3, q=0.5)  # r = 1: z (3 rows) popular
    users = popularity_taste(rep, top=0.3, q=0.5, pop="users")  # y (2 users) popular
    assert _groups(rows) == {"Q1 (share 0)": {"u2", "u3"}, "Q2 (share > 0)": {"u1"}}
    # shares u1 0, u2 1, u3 1/2: cut x_(ceil(1.5)) = x_(2) = 0.5
    assert _groups(users) == {"Q1 (share <= 0.5)": {"u1", "u3"}, "Q2 (share > 0.5)": {"u2"}}
    m = popularity_taste(train, users=["u1", "zz"], names=["low", "mid", "high"])
    assert _groups(m) == {"low (share <= 1)": {"u1"}, "cold (no profile)": {"zz"}}


def test_from_split_matches_check_leakage():
    rng = np.random.default_rng(3)
    data = pd.DataFrame({"user": rng.integers(0, 40, 300), "item": rng.integers(0, 60, 300)})
    split = cold_start_split(data, test_users=0.25, seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = check_leakage(split, warn=False)
    m = from_split(split)
    g = _groups(m)
    assert len(g["cold user"]) == report.test_only_users
    assert set(m.users.tolist()) == set(split.test["user"].tolist())
    # (train, test) pair and two arguments read alike
    assert _groups(from_split(split.train, split.test)) == g
    assert _groups(from_split((split.train, split.test))) == g


def test_from_split_items_example():
    train = pd.DataFrame({"user": ["a", "b"], "item": ["x", "y"]})
    test = pd.DataFrame({"user": ["a", "a", "b", "c", "d"], "item": ["x", "new", "y", "x", "q"]})
    m = from_split(Split(train, test), items=True)
    assert _groups(m) == {"warm user & cold items": {"a"}, "warm user & warm items": {"b"},
                          "cold user & warm items": {"c"}, "cold user & cold items": {"d"}}
    assert m.columns == ("split_user", "split_items")


# ---- slow oracles ---------------------------------------------------------------------------
def _cut(values: list, q: float):
    xs = sorted(values)
    return xs[max(1, math.ceil(Fraction(repr(q)) * len(xs))) - 1]


def _bin(x, cuts) -> int:
    j = 0
    for c in cuts:
        if x > c:
            j += 1
    return j


def _oracle_activity(rows, users, levels, count):
    n: dict = {}
    for u, i in rows:
        n.setdefault(u, []).append(i)
    act = {u: (len(v) if count == "rows" else len(set(v))) for u, v in n.items()}
    pop = list(dict.fromkeys(users)) if users is not None else list(act)
    warm = [act[u] for u in pop if act.get(u, 0) > 0]
    cuts = [_cut(warm, q) for q in levels] if warm else []
    names = {2: ["light", "heavy"], 3: ["light", "medium", "heavy"]}.get(
        len(levels) + 1, [f"Q{j}" for j in range(1, len(levels) + 2)])
    out = {}
    for u in pop:
        a = act.get(u, 0)
        if a == 0:
            out[u] = "cold (0)"
            continue
        j = _bin(a, cuts)
        lo = 1 if j == 0 else cuts[j - 1] + 1
        rng = f"{lo}+" if j == len(cuts) else (f"{lo}" if lo == cuts[j] else f"{lo}-{cuts[j]}")
        out[u] = f"{names[j]} ({rng})"
    return out


def _oracle_taste(rows, users, top, levels, pop):
    items = sorted({i for _, i in rows})
    phi = {i: 0 for i in items}
    seen_pairs = set()
    for u, i in rows:
        if pop == "rows" or (u, i) not in seen_pairs:
            phi[i] += 1
        seen_pairs.add((u, i))
    popular = set()
    if items:
        ranked = sorted(phi.values(), reverse=True)
        r = max(1, math.ceil(Fraction(repr(top)) * len(items)))
        popular = {i for i in items if phi[i] >= ranked[r - 1]}
    profile: dict = {}
    for u, i in rows:
        profile.setdefault(u, set()).add(i)
    everyone = list(dict.fromkeys(users)) if users is not None else list(profile)
    share = {u: len(profile[u] & popular) / len(profile[u]) for u in everyone if u in profile}
    cuts = [_cut(list(share.values()), q) for q in levels] if share else []
    names = ["niche", "diverse", "blockbuster"] if len(levels) == 2 else \
        [f"Q{j}" for j in range(1, len(levels) + 2)]
    out = {}
    for u in everyone:
        if u not in share:
            out[u] = "cold (no profile)"
            continue
        j = _bin(share[u], cuts)
        if j == 0:
            txt = "share 0" if cuts[0] == 0 else f"share <= {cuts[0]:.4g}"
        elif j == len(cuts):
            txt = f"share > {cuts[-1]:.4g}"
        else:
            txt = f"{cuts[j - 1]:.4g} < share <= {cuts[j]:.4g}"
        out[u] = f"{names[j]} ({txt})"
    return out


def _as_dict(m: Membership) -> dict:
    return {u: m.labels[c] for u, c in zip(m.users.tolist(), m.codes.tolist(), strict=True)}


_levels = st.lists(st.sampled_from([0.1, 0.2, 0.25, 0.3, 0.5, 0.7, 0.75, 0.8, 0.9]),
                   min_size=1, max_size=4, unique=True).map(sorted)
_rows = st.lists(st.tuples(st.integers(0, 12), st.integers(0, 9)), min_size=0, max_size=60)
_users = st.none() | st.lists(st.integers(0, 16), min_size=1, max_size=14)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=_rows, users=_users, levels=_levels, count=st.sampled_from(["rows", "items"]))
def test_activity_equals_its_oracle(rows, users, levels, count):
    if not rows and users is None:
        return
    train = pd.DataFrame(rows, columns=["user", "item"], dtype="int64")
    m = activity(train, q=levels, users=users, count=count)
    assert _as_dict(m) == _oracle_activity(rows, users, levels, count)
    assert len(m.users) == len(set(users) if users is not None else {u for u, _ in rows})


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=_rows, users=_users, levels=_levels,
       top=st.sampled_from([0.05, 0.1, 0.2, 0.5, 0.7, 1.0]), pop=st.sampled_from(["rows", "users"]))
def test_popularity_taste_equals_its_oracle(rows, users, levels, top, pop):
    if not rows and users is None:
        return
    train = pd.DataFrame(rows, columns=["user", "item"], dtype="int64")
    m = popularity_taste(train, top=top, q=levels, users=users, pop=pop)
    assert _as_dict(m) == _oracle_taste(rows, users, top, levels, pop)


@settings(max_examples=80, deadline=None)
@given(rows=_rows, users=st.lists(st.integers(0, 16), min_size=1, max_size=14),
       m=st.integers(1, 4))
def test_cold_warm_equals_its_oracle(rows, users, m):
    train = pd.DataFrame(rows, columns=["user", "item"], dtype="int64")
    n: dict = {}
    for u, _ in rows:
        n[u] = n.get(u, 0) + 1
    hot, cold = ("warm", "cold") if m == 1 else (f"warm ({m}+)", f"cold (0-{m - 1})")
    expect = {u: hot if n.get(u, 0) >= m else cold for u in users}
    assert _as_dict(cold_warm(train, users, min_interactions=m)) == expect


@settings(max_examples=60, deadline=None)
@given(train=st.lists(st.tuples(st.integers(0, 8), st.integers(0, 6)), max_size=30),
       test=st.lists(st.tuples(st.integers(0, 10), st.integers(0, 8)), min_size=1, max_size=20))
def test_from_split_equals_its_oracle(train, test):
    tr = pd.DataFrame(train, columns=["user", "item"], dtype="int64")
    te = pd.DataFrame(test, columns=["user", "item"], dtype="int64")
    tu, ti = {u for u, _ in train}, {i for _, i in train}
    expect = {}
    for u, _ in test:
        items = [i for v, i in test if v == u]
        who = "warm user" if u in tu else "cold user"
        what = "cold items" if any(i not in ti for i in items) else "warm items"
        expect[u] = f"{who} & {what}"
    assert _as_dict(from_split(tr, te, items=True)) == expect
    assert _as_dict(from_split(tr, te)) == {u: v.split(" & ")[0] for u, v in expect.items()}


# ---- every train and users form reads alike ---------------------------------------------------
def _forms(rows):
    df = pd.DataFrame(rows, columns=["user", "item"])
    yield df
    yield {"user": df["user"].to_numpy(), "item": df["item"].to_numpy()}
    pa = pytest.importorskip("pyarrow")
    yield pa.Table.from_pandas(df, preserve_index=False)
    pl = pytest.importorskip("polars")
    yield pl.from_pandas(df)


def test_train_forms_read_alike():
    rows = [(0, 1), (0, 2), (1, 2), (2, 0), (2, 1), (2, 2), (3, 3), (0, 3)]
    want = [_as_dict(f(pd.DataFrame(rows, columns=["user", "item"])))
            for f in (activity, popularity_taste)]
    for form in _forms(rows):
        assert [_as_dict(f(form)) for f in (activity, popularity_taste)] == want
    dense = np.zeros((5, 4))
    for u, i in rows:
        dense[u, i] = 1
    m = activity(sp.csr_matrix(dense))
    # row 4 of the matrix is a user without interactions: cold, not dropped
    assert _as_dict(m) == {**want[0], 4: "cold (0)"}
    assert _as_dict(popularity_taste(sp.csr_matrix(dense))) == \
        {**want[1], 4: "cold (no profile)"}


def test_string_and_categorical_ids_and_users_forms():
    rows = [("a", "x"), ("a", "y"), ("b", "y"), ("c", "z"), ("c", "x"), ("c", "y")]
    df = pd.DataFrame(rows, columns=["user", "item"])
    cat = df.astype("category")
    want = _as_dict(activity(df, users=["a", "b", "c", "d"]))
    assert _as_dict(activity(cat, users=["a", "b", "c", "d"])) == want
    assert want["d"] == "cold (0)"
    truth = pd.DataFrame({"user": ["a", "d", "d", "b", "c"], "item": [1, 2, 3, 4, 5]})
    for users in (truth, {"a": {1: 1}, "b": {}, "c": {}, "d": {}},
                  pd.Index(["a", "b", "c", "d"]), np.array(["a", "b", "c", "d"], dtype=object),
                  {"d", "c", "b", "a"}, {"user": ["a", "b", "c", "d"], "item": [1, 2, 3, 4]}):
        assert _as_dict(activity(df, users=users)) == want
    pa = pytest.importorskip("pyarrow")
    for users in (pa.Table.from_pandas(truth), pa.chunked_array([["a", "b"], ["c", "d"]]),
                  pa.array(["a", "b", "c", "d"])):
        assert _as_dict(activity(df, users=users)) == want
    pl = pytest.importorskip("polars")
    assert _as_dict(activity(pl.from_pandas(cat), users=pl.Series(["a", "b", "c", "d"]))) == want
    assert _as_dict(activity(df, users=pl.from_pandas(truth))) == want
    # integer ids, int and numpy int users alike
    ints = pd.DataFrame({"user": [10, 10, 11], "item": [1, 2, 1]})
    assert _as_dict(cold_warm(ints, np.array([10, 12]))) == {10: "warm", 12: "cold"}


# ---- adversarial ------------------------------------------------------------------------------
def test_empty_train():
    empty = pd.DataFrame({"user": pd.Series([], dtype="int64"),
                          "item": pd.Series([], dtype="int64")})
    with pytest.raises(InputError, match="users="):
        activity(empty)
    with pytest.raises(InputError, match="users="):
        popularity_taste(empty)
    assert _as_dict(activity(empty, users=[1, 2])) == {1: "cold (0)", 2: "cold (0)"}
    assert _as_dict(popularity_taste(empty, users=[1])) == {1: "cold (no profile)"}
    assert _as_dict(cold_warm(empty, [3])) == {3: "cold"}
    with pytest.raises(InputError, match="no rows"):
        from_split(empty, empty)


def test_users_of_another_id_kind_are_refused():
    train = pd.DataFrame({"user": [1, 2], "item": [1, 1]})
    with pytest.raises(InputError, match="integers and strings never match"):
        activity(train, users=["1", "2"])
    with pytest.raises(InputError, match="users= is empty"):
        cold_warm(train, [])
    with pytest.raises(InputError, match="users= is required"):
        cold_warm(train, None)
    with pytest.raises(InputError, match="users="):
        activity(train, users=5)


@pytest.mark.parametrize("q", [0, 1, 0.0, 1.0, -0.1, 1.5, (0.8, 0.2), (0.5, 0.5), (), "0.5",
                               float("nan"), (0.2, float("nan")), (True,), {0.2: 1}])
def test_bad_levels_name_the_keyword(q):
    train = pd.DataFrame({"user": [1, 2], "item": [1, 1]})
    for f in (activity, popularity_taste):
        with pytest.raises(ParameterError, match=r"q=.*increasing sequence of levels"):
            f(train, q=q)


def test_bad_parameters_name_the_keyword():
    train = pd.DataFrame({"user": [1, 2], "item": [1, 1]})
    cases = [(activity, {"n_groups": 1}, "n_groups"), (activity, {"n_groups": 2.0}, "n_groups"),
             (activity, {"n_groups": 3, "q": 0.5}, "not both"),
             (activity, {"count": "row"}, "count"), (activity, {"names": ["a"]}, "names"),
             (activity, {"names": ["a", "a", "b"]}, "names"),
             (activity, {"names": ["cold", "b", "c"]}, "names"),
             (popularity_taste, {"top": 0}, "top"), (popularity_taste, {"top": 1.5}, "top"),
             (popularity_taste, {"top": float("nan")}, "top"),
             (popularity_taste, {"pop": "items"}, "pop"),
             (popularity_taste, {"q": 0.5, "names": ["a", "b", "c"]}, "names")]
    for f, kw, word in cases:
        with pytest.raises(ParameterError, match=word):
            f(train, **kw)
    with pytest.raises(ParameterError, match="min_interactions"):
        cold_warm(train, [1], min_interactions=0)
    with pytest.raises(ParameterError, match="items"):
        from_split(train, train, items="yes")
    with pytest.raises(InputError, match="train"):
        activity(None)
    with pytest.raises(InputError, match="user_col"):
        activity(sp.csr_matrix(np.eye(2)), user_col="u")


def test_named_columns():
    train = pd.DataFrame({"who": [1, 1, 2], "what": [1, 2, 3]})
    m = activity(train, q=0.5, user_col="who", item_col="what")
    assert _as_dict(m) == {1: "heavy (2+)", 2: "light (1)"}


# ---- end to end ------------------------------------------------------------------------------
@pytest.mark.parametrize("builder", ["activity", "cold_warm", "popularity_taste", "from_split"])
def test_evaluate_by_group_sizes_are_the_builders_groups(builder):
    rng = np.random.default_rng(7)
    train = pd.DataFrame({"user": rng.integers(0, 40, 300), "item": rng.integers(0, 50, 300)})
    truth_df = pd.DataFrame({"user": rng.integers(20, 60, 120), "item": rng.integers(0, 50, 120)})
    truth = {u: {int(i): 1 for i in g["item"]} for u, g in truth_df.groupby("user")}
    run = {u: {int(i): float(rng.random()) for i in rng.choice(50, 10, replace=False)}
           for u in truth}
    m = {"activity": lambda: rv.groups.activity(train, users=truth),
         "cold_warm": lambda: rv.groups.cold_warm(train, truth),
         "popularity_taste": lambda: rv.groups.popularity_taste(train, users=truth_df),
         "from_split": lambda: rv.groups.from_split(train, truth_df)}[builder]()
    res = rv.evaluate(run, truth, ["ndcg@5", "recall@10"], groups=m)
    sizes = {lab: int(n) for lab, n in zip(m.labels, np.bincount(m.codes), strict=True)}
    assert res.info["groups"]["sizes"] == sizes
    assert res.info["groups"]["ungrouped"] == 0
    by = res.by_group
    for lab, n in sizes.items():
        assert set(by.loc[by["group"] == lab, "users"]) == {n}
    assert sum(sizes.values()) == len(truth)
