"""Plugin metrics that declare ``item_lookup=True`` read the recommended items only through
``Packed.items_in`` (a vocabulary of their own): when every plugin metric of an evaluation
does, lists joined on text or categorical ids keep each position's run row and the run's item
column is not factorized. Every such key of the registry, with every parameter choice, on
every id form the join reads in place, gives the values, counts and errors it gives from the
run's item codes; and ``Packed.items`` / ``item_vocab`` made from the rows on first use are
the codes the factorized column gives."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from cases import metric_cases

import receval as rv
from receval.engines import plan as plan_module
from receval.errors import RecevalError
from receval.metrics import REGISTRY, parse_metric
from receval.pack import packed as packed_module
from receval.trec import diversity

try:  # Arrow-held text ids where pyarrow is installed
    import pyarrow as pa
except ImportError:  # pragma: no cover - the bare install
    pa = None

LOOKUP_KEYS = [k for k in metric_cases(plugins=True)
               if REGISTRY[parse_metric(k).name].item_lookup]
INTENTS = [("a", "s1", 1, 1), ("a", "s2", 1, 1), ("a", "s2", 5, 2), ("a", "s1", 3, 1),
           ("b", "s1", 7, 1), ("b", "s2", 8, 1), ("b", "s2", 2, 0), ("c", "s1", 2, 1),
           ("c", "s3", 3, 2), ("e", "s1", 8, 1), ("e", "s2", 10, 1), ("e", "s3", 12, 1)]
RUN = [("a", 1, 0.9), ("a", 2, 0.8), ("a", 3, 0.8), ("a", 4, 0.6), ("a", 5, 0.1),
       ("b", 6, 0.5), ("b", 7, 0.4), ("b", 2, 0.4), ("b", 8, 0.3), ("d", 1, 0.3),
       ("e", 3, 1.0), ("e", 8, 0.5), ("e", 10, 0.25), ("e", 11, 0.2)]
CATS = {i: [f"c{i % 3}"] + ([f"c{i % 4}"] if i % 2 else []) for i in range(1, 13)}


def _form(values: pd.Series, form: str):
    """One item column in ``form``: text as Python ``str`` objects, Arrow strings (one and
    several chunks), a categorical (its own categories), or integers of two widths."""
    text = values.map("i{}".format)
    if form == "object":
        return text.astype(object)
    if form == "arrow":
        return text.astype(pd.ArrowDtype(pa.string()))
    if form == "large_arrow":
        return text.astype(pd.ArrowDtype(pa.large_string()))
    if form == "category":
        return text.astype("category")
    if form == "int32":
        return values.astype(np.int32)
    return values.astype(np.int64)


def _inputs(form: str):
    run = pd.DataFrame(RUN, columns=["user", "item", "score"])
    intents = pd.DataFrame(INTENTS, columns=["query", "subtopic", "doc", "relevance"])
    run["item"] = _form(run["item"], form)
    text = form not in ("int32", "int64")
    intents["doc"] = intents["doc"].map("i{}".format) if text else intents["doc"]
    truth = intents.groupby(["query", "doc"], as_index=False)["relevance"].max() \
        .rename(columns={"query": "user", "doc": "item"})
    cats = {(f"i{i}" if text else i): c for i, c in CATS.items()}
    return run, truth, {"intents": intents, "item_categories": cats}


def _outcome(key: str, form: str, **policies):
    run, truth, context = _inputs(form)
    try:
        res = rv.evaluate(run, truth, [key], **context, **policies)
    except RecevalError as exc:
        return str(exc)
    return res.per_user, res.counts, str(res.stats)


def _item_rows(monkeypatch, value: bool) -> None:
    post_init = plan_module.Plan.__post_init__

    def patched(self):
        post_init(self)
        self.keep_item_rows = self.keep_lists and value

    monkeypatch.setattr(plan_module.Plan, "__post_init__", patched)


def _places(monkeypatch, value: bool) -> None:
    """``value=False``: no vocabulary named before packing (the lists keep run rows)."""
    if not value:
        monkeypatch.setattr(plan_module.Plan, "item_vocab", lambda self, context: None)


FORMS = ["object", "category", "int32", "int64"] + (["arrow", "large_arrow"] if pa else [])
TEXT = ["object", "category"] + (["arrow"] if pa else [])


def test_the_declaration_is_made():
    assert {parse_metric(k).name for k in LOOKUP_KEYS} >= {"alpha_ndcg", "err_ia", "nrbp",
                                                           "p_ia", "strec", "ap_ia"}


@pytest.mark.parametrize("policies", [{}, {"users": "union", "ties": "trec_eval"},
                                      {"duplicates": "keep"}])
@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("key", LOOKUP_KEYS)
def test_looked_up_items_give_the_values_of_the_item_codes(monkeypatch, key, form, policies):
    """Places written by the join (the default for intents), run rows, and item codes."""
    places = _outcome(key, form, **policies)
    _places(monkeypatch, False)
    rows = _outcome(key, form, **policies)
    _item_rows(monkeypatch, False)
    codes = _outcome(key, form, **policies)
    for other in (places, rows):
        if isinstance(other, str) or isinstance(codes, str):
            assert other == codes
            continue
        assert other[1:] == codes[1:]
        pd.testing.assert_frame_equal(other[0], codes[0])


@pytest.mark.parametrize("form", TEXT)
def test_text_ids_are_not_factorized_and_the_codes_come_on_first_use(monkeypatch, form):
    """The check above can fail: the rows are what the lists keep (the run's item column is
    never factorized), and the items and vocabulary made from them are the codes' ones."""
    seen = []
    run_gains = diversity.run_gains

    def watched(intents, topic, packed, *args, **kw):
        seen.append(packed)
        return run_gains(intents, topic, packed, *args, **kw)

    monkeypatch.setattr(diversity, "run_gains", watched)
    factorized = []
    fact = packed_module.RunCodes._factorize_items

    def counted(self):
        if self._item_codes is None:
            factorized.append(True)
        fact(self)

    monkeypatch.setattr(packed_module.RunCodes, "_factorize_items", counted)
    _places(monkeypatch, False)
    run, truth, context = _inputs(form)
    rv.evaluate(run, truth, ["alpha_ndcg@3", "ap_ia"], **context)
    assert not factorized and seen[0].item_rows is not None
    by_rows = seen[0]
    docs = pd.Index(["i1", "i3", "i8", "i12", "absent"])
    looked_up = by_rows.items_in(docs)
    items, vocab = by_rows.items, by_rows.item_vocab  # made from the rows now
    assert factorized
    _item_rows(monkeypatch, False)
    seen.clear()
    rv.evaluate(run, truth, ["alpha_ndcg@3", "ap_ia"], **context)
    by_codes = seen[0]
    assert by_codes.item_rows is None
    assert np.array_equal(items, by_codes.items)
    assert list(vocab) == list(by_codes.item_vocab)
    assert np.array_equal(looked_up, by_codes.items_in(docs))
    assert looked_up.min() == -1 and looked_up.max() == 2  # (i12 is not recommended)
    # ids of another kind match nothing; an empty vocabulary neither
    assert (by_rows.items_in(np.array([1, 3], dtype=np.int64)) == -1).all()
    assert (by_rows.items_in(pd.Index([], dtype=object)) == -1).all()


@pytest.mark.parametrize("form", TEXT)
def test_blocks_and_groups_equal_in_memory_on_item_rows(form):
    run, truth, context = _inputs(form)
    keys = ["alpha_ndcg@3", "nerr_ia@5", "ap_ia", "strec@2"]
    ev = rv.Evaluator(truth, keys, **context)
    whole = ev.evaluate(run).per_user
    users = run["user"].unique()
    parts = ev.evaluate_blocks([run[run["user"].isin(users[:2])],
                                run[run["user"].isin(users[2:])]]).per_user
    pd.testing.assert_frame_equal(parts.sort_index(), whole.sort_index())
    groups = pd.DataFrame({"user": ["a", "b", "c", "d", "e"], "group": list("xyxyx")})
    by_group = rv.evaluate(run, truth, keys, groups=groups, **context)
    plain = rv.evaluate(run, truth, keys, **context)
    pd.testing.assert_frame_equal(by_group.per_user, plain.per_user)


@pytest.mark.parametrize("form", [f for f in FORMS if f in ("object", "arrow", "large_arrow")])
def test_the_join_writes_each_place_in_the_intents(monkeypatch, form):
    """With every metric looking the items up in the documents of ``intents=`` (two
    thresholds: two readings of the intents, equal documents), the join writes each
    position's place in them: no position is looked up after the join, the column is not
    factorized, and the lists answer that lookup only. (Categorical ids are looked up
    once per category after the join.)"""
    seen = []
    run_gains = diversity.run_gains

    def watched(intents, topic, packed, *args, **kw):
        seen.append((intents, packed))
        return run_gains(intents, topic, packed, *args, **kw)

    def refused(*args, **kw):
        raise AssertionError("a position looked up after the join")

    monkeypatch.setattr(diversity, "run_gains", watched)
    monkeypatch.setattr(packed_module, "lookup_at", refused)
    run, truth, context = _inputs(form)
    keys = ["alpha_ndcg@3", "ap_ia(rel=2)"]
    placed = rv.evaluate(run, truth, keys, **context).per_user
    intents, packed = seen[0]
    assert packed.item_rows is not None and packed.item_rows.vocab is not None
    assert seen[1][0] is not intents  # (rel=2: another reading, the same documents)
    listed = run[run["user"].isin(truth["user"])]["item"]  # (every evaluated row)
    expected = pd.Index(intents.docs).get_indexer(pd.Index(np.asarray(listed, dtype=object)))
    assert sorted(packed.items_in(intents.docs).tolist()) == sorted(expected.tolist())
    with pytest.raises(RuntimeError, match="other ids"):
        packed.items_in(pd.Index(["i1", "i3"]))
    with pytest.raises(RuntimeError, match="not their run rows"):
        packed.items  # noqa: B018
    monkeypatch.undo()
    _places(monkeypatch, False)
    pd.testing.assert_frame_equal(placed, rv.evaluate(run, truth, keys, **context).per_user)


def test_places_are_not_written_for_other_vocabularies(monkeypatch):
    """Metrics that look the items up in different ids (intents and item categories), or a
    vocabulary that is not text, leave the lists with their run rows."""
    run, truth, context = _inputs("object")
    plans = []
    vocab = plan_module.Plan.item_vocab

    def watched(self, ctx):
        plans.append(vocab(self, ctx))
        return plans[-1]

    monkeypatch.setattr(plan_module.Plan, "item_vocab", watched)
    rv.evaluate(run, truth, ["alpha_ndcg@3", "alpha_ndcg@3(aspects=categories)"], **context)
    assert plans == [None]
    plans.clear()
    rv.evaluate(run, truth, ["alpha_ndcg@3"], **context)
    assert plans[0] is not None
    # documents that are not text: named, not placed (the rows looked up: nothing matches)
    numbered = context["intents"].assign(doc=np.arange(len(context["intents"])))
    found = []
    lookup_ids = packed_module._lookup_ids
    monkeypatch.setattr(packed_module, "_lookup_ids",
                        lambda *a: found.append(lookup_ids(*a)) or found[-1])
    plans.clear()
    res = rv.evaluate(run, truth, ["alpha_ndcg@3"], **{**context, "intents": numbered})
    assert plans[0] is not None and found == [None]
    assert (res.per_user["alpha_ndcg@3"].dropna() == 0).all()
