"""The id policy (docs/ids.md): every example of issue 11, section 1 "Id typing", and the
column-reading cases of section 3, as regression tests. Each one used to give a silent wrong
number or a raw exception."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import receval as rv
from receval.errors import InputError, RecevalError
from receval.io.frames import read_columns
from receval.pack.vocab import factorize, lookup, order_keys
from receval.results.jsonio import decode_ids, encode_ids

try:  # optional extras: the tests that need them are skipped without them
    import pyarrow as pa
except ImportError:  # pragma: no cover - depends on the environment
    pa = None
try:
    import polars as pl
except ImportError:  # pragma: no cover
    pl = None

needs_arrow = pytest.mark.skipif(pa is None, reason="needs pyarrow")
needs_polars = pytest.mark.skipif(pl is None or pa is None, reason="needs polars and pyarrow")

RUN = pd.DataFrame({"user": [1, 1, 2], "item": [1, 2, 1], "score": [2.0, 1.0, 1.0]})


def _truth(items, users=(1,)):
    return pd.DataFrame({"user": list(users) * len(items), "item": items})


# ---- run vs truth: different kinds are an error, never 0.0 ----------------------------------
def test_int_run_items_str_truth_items_is_an_error_naming_both_sides_and_the_fix():
    truth = pd.DataFrame({"user": [1], "docno": ["1"]})
    with pytest.raises(InputError) as exc:
        rv.evaluate(RUN, truth, ["precision@1"])
    msg = str(exc.value)
    assert "run item ids (column 'item') are integers" in msg
    assert "truth item ids (column 'docno') are strings" in msg
    assert "run['item'] = run['item'].astype(str)" in msg


def test_user_kinds_are_checked_too():
    truth = pd.DataFrame({"user": ["1"], "item": [1]})
    with pytest.raises(InputError, match="run user ids .* integers but truth user ids .* strings"):
        rv.evaluate(RUN, truth, ["precision@1"])


def test_kinds_are_checked_even_when_some_ids_overlap():
    """The check does not rest on "nothing matched": a str truth beside an int run is refused
    even when some string equals an integer's text."""
    truth = pd.DataFrame({"user": [1, 1], "item": ["1", "x"]})
    with pytest.raises(InputError, match="integers"):
        rv.evaluate(RUN, truth, ["precision@1"])


def test_zero_one_string_and_int_one_never_merge():
    with pytest.raises(InputError, match="integers"):
        rv.evaluate(RUN, _truth(["01"]), ["precision@1"])
    mixed = pd.DataFrame({"user": [1, 1], "item": pd.Series(["01", 1], dtype=object),
                          "score": [2.0, 1.0]})
    with pytest.raises(InputError, match=r"ids mix str \(e.g. '01'\) and int \(e.g. 1\)"):
        rv.evaluate(mixed, _truth(["01"]), ["precision@1"])
    # as strings, "01" and "1" are two ids
    run = pd.DataFrame({"user": ["u", "u"], "item": ["01", "1"], "score": [2.0, 1.0]})
    res = rv.evaluate(run, pd.DataFrame({"user": ["u"], "item": ["1"]}), ["mrr"])
    assert res["mrr"] == 0.5


# ---- floats ---------------------------------------------------------------------------------
@pytest.mark.parametrize("bad", [2.0**63, 2.0**64, np.inf, -np.inf, 1.5, 1e20, 2.0**53 + 2])
def test_float_ids_that_are_not_exact_integers_are_refused(bad):
    run = pd.DataFrame({"user": [1, 1], "item": [bad, 3.0], "score": [2.0, 1.0]})
    with pytest.raises(InputError, match="run item column 'item': the ids are floats") as exc:
        rv.evaluate(run, pd.DataFrame({"user": [1], "item": [3]}), ["mrr"])
    assert repr(float(bad)) in str(exc.value)


def test_float_ids_at_and_beyond_2_63_do_not_collide():
    """They used to become int64 min and match each other (a false hit)."""
    run = pd.DataFrame({"user": [1, 1], "item": [2.0**63, 1.0], "score": [2.0, 1.0]})
    truth = pd.DataFrame({"user": [1], "item": [-np.inf]})
    with pytest.raises(InputError):
        rv.evaluate(run, truth, ["precision@1"])


def test_whole_float_ids_are_integers():
    run = pd.DataFrame({"user": [1.0, 1.0], "item": [7.0, 8.0], "score": [2.0, 1.0]})
    truth = pd.DataFrame({"user": [1], "item": [8]})
    res = rv.evaluate(run, truth, ["mrr"])
    assert res["mrr"] == 0.5
    assert res.user_ids.dtype == np.int64 and res.user_ids.tolist() == [1]


# ---- uint64 ---------------------------------------------------------------------------------
def test_uint64_ids_above_2_63_stay_exact_and_unsigned():
    big = np.array([2**63 + 5, 2**64 - 1, 3], dtype=np.uint64)
    run = pd.DataFrame({"user": big, "item": np.array([1, 1, 1], np.uint64), "score": 1.0})
    truth = pd.DataFrame({"user": big, "item": np.array([1, 2, 1], np.uint64)})
    res = rv.evaluate(run, truth, ["precision@1"])
    assert res.user_ids.dtype == np.uint64
    assert res.user_ids.tolist() == [2**63 + 5, 2**64 - 1, 3]
    assert res.per_user.index.tolist() == [2**63 + 5, 2**64 - 1, 3]
    assert res.user_values("precision@1").tolist() == [1.0, 0.0, 1.0]
    back = rv.EvalResult.from_json(res.to_json())
    assert back.user_ids.dtype == np.uint64 and back.user_ids.tolist() == res.user_ids.tolist()


def test_uint64_against_int64_compares_values_never_wrapped_bits():
    """-9223372036854775803 has the bits of 2**63 + 5: they must not match."""
    run = pd.DataFrame({"user": np.array([2**63 + 5, 3], np.uint64), "item": [1, 1],
                        "score": 1.0})
    truth = pd.DataFrame({"user": np.array([-(2**63) + 5, 3], np.int64), "item": [1, 1]})
    res = rv.evaluate(run, truth, ["precision@1"], users="union")
    assert sorted(map(int, res.user_ids)) == sorted([-(2**63) + 5, 3, 2**63 + 5])
    values = dict(zip(map(int, res.user_ids), res.user_values("precision@1"), strict=True))
    assert values[-(2**63) + 5] == 0.0 and values[3] == 1.0
    assert np.isnan(values[2**63 + 5])  # a run-only user: no truth, so no value
    assert lookup(np.array([2**63 + 5], np.uint64), np.array([-(2**63) + 5])).tolist() == [-1]
    assert lookup(np.array([5], np.int64), np.array([7, 5], np.uint64)).tolist() == [1]


def test_uint64_ids_order_by_value_for_ties():
    ids = np.array([2**63 + 1, 5], dtype=np.uint64)
    assert order_keys(ids, what="x").tolist() == [1, 0]


# ---- containers: categorical, dictionary, string_view, large_string, binary -----------------
def _string_run():
    return pd.DataFrame({"user": ["u", "u"], "item": ["b", "a"], "score": [1.0, 1.0]})


STRING_TRUTH = pd.DataFrame({"user": ["u"], "item": ["b"]})


def _pl(f):
    return pytest.param(f, marks=needs_polars)


def _pa(f):
    return pytest.param(f, marks=needs_arrow)


@pytest.mark.parametrize("make", [
    _pl(lambda d: pl.from_pandas(d).with_columns(pl.col("item").cast(pl.Categorical))),
    _pl(lambda d: pl.from_pandas(d).with_columns(pl.col("item").cast(pl.Enum(["b", "a"])))),
    _pl(lambda d: pl.from_pandas(d).with_columns(pl.col("user").cast(pl.Categorical))),
    _pl(lambda d: pl.from_pandas(d).with_columns(pl.col("item").cast(pl.Binary))),
    lambda d: d.assign(item=d["item"].astype(pd.CategoricalDtype(["b", "a"]))),
    _pa(lambda d: pa.table({"user": d["user"], "item": pa.array(d["item"]).dictionary_encode(),
                            "score": d["score"]})),
    _pa(lambda d: pa.table({"user": d["user"], "item": pa.array(d["item"], pa.string_view()),
                            "score": d["score"]})),
    _pa(lambda d: pa.table({"user": d["user"], "item": pa.array(d["item"], pa.large_string()),
                            "score": d["score"]})),
    _pa(lambda d: pa.table({"user": d["user"], "item": pa.array(d["item"].map(str.encode),
                                                                pa.binary()),
                            "score": d["score"]})),
    _pa(lambda d: d.assign(item=d["item"].astype(pd.ArrowDtype(pa.large_string())))),
    lambda d: d.assign(item=d["item"].astype("string[python]")),
    lambda d: d.assign(item=d["item"].map(str.encode).astype(object)),
], ids=["pl-categorical", "pl-enum", "pl-categorical-user", "pl-binary", "pd-categorical",
        "pa-dictionary", "pa-string_view", "pa-large_string", "pa-binary", "pd-arrow-large",
        "pd-string-python", "pd-bytes-object"])
def test_string_id_containers_read_as_their_values(make):
    """Ties are broken by the id's value ("a" before "b"), not by a category code."""
    res = rv.evaluate(make(_string_run()), STRING_TRUTH, ["mrr"])
    assert res["mrr"] == 0.5
    assert res.user_ids.tolist() == ["u"] and isinstance(res.user_ids[0], str)


def test_categorical_of_integers_is_integers():
    run = pd.DataFrame({"user": [1, 1], "item": pd.Categorical([20, 10]), "score": [1.0, 1.0]})
    res = rv.evaluate(run, pd.DataFrame({"user": [1], "item": [20]}), ["mrr"])
    assert res["mrr"] == 0.5


@needs_arrow
def test_binary_ids_must_be_utf8():
    run = pa.table({"user": ["u"], "item": pa.array([b"\xff"], pa.binary()), "score": [1.0]})
    with pytest.raises(InputError, match=r"binary id b'\\xff' is not valid UTF-8"):
        rv.evaluate(run, STRING_TRUTH, ["mrr"])


@pytest.mark.parametrize("col", [
    pd.Series([True, False]), pd.to_datetime(["2020-01-01", "2020-01-02"]),
    pd.Series([pd.Timedelta(1), pd.Timedelta(2)]), "arrow-bool",
    pd.Series([1 + 1j, 2 + 0j]), pd.Series([(1, 2), (3, 4)]),
], ids=["bool", "datetime", "timedelta", "arrow-bool", "complex", "tuples"])
def test_other_dtypes_are_refused_with_the_fix(col):
    if isinstance(col, str):
        col = pytest.importorskip("pyarrow").array([True, False])
    with pytest.raises(InputError, match="ids are integers or strings|ids mix"):
        factorize(col, what="run user column 'user'")


def test_python_ints_beyond_64_bits_are_refused():
    with pytest.raises(InputError, match="does not fit a 64-bit integer"):
        factorize(pd.Series([2**64, 1], dtype=object), what="x")
    with pytest.raises(InputError, match="negative ids and ids >= 2\\*\\*63"):
        factorize(pd.Series([2**63, -1], dtype=object), what="x")
    codes, uniq = factorize(pd.Series([2**63, 1], dtype=object), what="x")
    assert uniq.dtype == np.uint64 and uniq.tolist() == [2**63, 1]


# ---- JSON -----------------------------------------------------------------------------------
@pytest.mark.parametrize("ids", [
    np.array([1.5, 1.7]), np.array([2**64 - 1, 2**63], dtype=np.uint64),
    np.array(["01", "1", ""], dtype=object), np.array([1, "a", 1.5, True], dtype=object),
    np.array([-(2**63), 2**63 - 1]), np.array([np.inf, -0.0]),
])
def test_json_id_round_trip_is_exact(ids):
    back = decode_ids(json.loads(json.dumps(encode_ids(ids))))
    assert back.dtype == ids.dtype
    assert [(type(a), a) for a in back.tolist()] == [(type(b), b) for b in ids.tolist()]


def test_float_ids_survive_an_evalresult_json_round_trip():
    res = rv.evaluate(pd.DataFrame({"user": ["a", "b"], "item": [1, 1], "score": 1.0}),
                      pd.DataFrame({"user": ["a", "b"], "item": [1, 1]}), ["mrr"])
    res.user_ids = np.array([1.5, 1.7])
    assert rv.EvalResult.from_json(res.to_json()).user_ids.tolist() == [1.5, 1.7]
    # an older document with a plain list: 1.5 and 1.7 used to become 1 and 1
    assert decode_ids([1.5, 1.7]).tolist() == [1.5, 1.7]
    assert [type(v) for v in decode_ids([1, 1.5])] == [int, float]


@pytest.mark.parametrize("ids", [
    np.array([b"a"], dtype=object), np.array([b"a"]),
    np.array(["2020-01-01"], dtype="datetime64[ns]"),
    np.array([pd.Timestamp("2020-01-01")], dtype=object),
])
def test_to_json_with_bytes_or_datetime_ids_is_a_receval_error(ids):
    res = rv.evaluate(pd.DataFrame({"user": ["a"], "item": [1], "score": 1.0}),
                      pd.DataFrame({"user": ["a"], "item": [1]}), ["mrr"])
    res.user_ids = ids
    with pytest.raises(InputError, match="cannot be written to JSON"):
        res.to_json()


@pytest.mark.parametrize("doc", [
    {"dtype": "int64", "values": [1.5]}, {"dtype": "int8", "values": [300]},
    {"dtype": "nope", "values": []}, {"values": []}, 5,
    {"dtype": "object", "values": [["int", "1"]]}, {"dtype": "str", "values": [1]},
])
def test_damaged_id_documents_are_receval_errors(doc):
    with pytest.raises(InputError, match="user_ids"):
        decode_ids(doc)


# ---- CSV / TSV files ------------------------------------------------------------------------
def test_csv_files_whose_item_columns_would_infer_int_and_str_agree(tmp_path):
    """One file's items look numeric, the other's do not: both are text, so they match."""
    (tmp_path / "run.csv").write_text("user,item,score\n1,01,3\n1,7,2\n1,x,1\n")
    (tmp_path / "truth.csv").write_text("user,item\n1,7\n1,y\n")
    run, truth = rv.read_run(tmp_path / "run.csv"), rv.read_truth(tmp_path / "truth.csv")
    items = run["item"].tolist() if isinstance(run, pd.DataFrame) else \
        run.column("item").to_pylist()
    assert items == ["01", "7", "x"]
    res = rv.evaluate(run, truth, ["precision@2", "mrr"])
    assert res["precision@2"] == 0.5 and res["mrr"] == 0.5
    assert res.user_ids.tolist() == ["1"]


def test_cli_csv_run_and_truth_with_different_looking_ids(tmp_path, capsys):
    from receval.cli import main

    (tmp_path / "run.csv").write_text("user,item,score\n1,1,3\n1,2,2\n")
    (tmp_path / "truth.tsv").write_text("user\titem\n1\t2\n1\tb\n")
    code = main(["evaluate", "--run", str(tmp_path / "run.csv"), "--truth",
                 str(tmp_path / "truth.tsv"), "-m", "precision@2,mrr", "--format", "json"])
    out = capsys.readouterr()
    assert code == 0, out.err
    doc = json.loads(out.out)
    summary = {s["metric"]: s["mean"] for s in doc["stats"]}
    assert summary["precision@2"] == 0.5 and summary["mrr"] == 0.5


@needs_arrow
def test_text_file_ids_meet_typed_integer_ids_by_decimal_text(tmp_path):
    """A CSV (text) beside a Parquet file or a frame of integers: compared by decimal text."""
    (tmp_path / "truth.csv").write_text("user,item\n1,2\n")
    run = pd.DataFrame({"user": [1, 1], "item": [1, 2], "score": [2.0, 1.0]})
    run.to_parquet(tmp_path / "run.parquet", index=False)
    truth = rv.read_truth(tmp_path / "truth.csv")
    for r in (run, rv.read_run(tmp_path / "run.parquet")):
        res = rv.evaluate(r, truth, ["mrr"])
        assert res["mrr"] == 0.5 and res.user_ids.tolist() == ["1"]  # the truth's ids
    # the other way round: the run is text, the truth integers
    run.to_csv(tmp_path / "run.csv", index=False)
    res = rv.evaluate(rv.read_run(tmp_path / "run.csv"), pd.DataFrame({"user": [1], "item": [2]}),
                      ["mrr"])
    assert res["mrr"] == 0.5 and res.user_ids.tolist() == [1]
    # a TREC run (text) against integer ids
    (tmp_path / "a.run").write_text("1 Q0 1 1 2.0 t\n1 Q0 2 2 1.0 t\n")
    res = rv.evaluate(rv.read_run(tmp_path / "a.run"), pd.DataFrame({"qid": [1], "docno": [2]}),
                      ["mrr"])
    assert res["mrr"] == 0.5


def test_text_ids_with_leading_zeros_do_not_match_integers(tmp_path):
    (tmp_path / "run.csv").write_text("user,item,score\n1,02,2\n")
    with pytest.raises(InputError, match="'02' was read from a text file"):
        rv.evaluate(rv.read_run(tmp_path / "run.csv"), pd.DataFrame({"user": [1], "item": [2]}),
                    ["mrr"])


@needs_arrow
def test_streamed_csv_ids_are_text_with_a_custom_item_column(tmp_path):
    (tmp_path / "run.csv").write_text("user,product,score\n1,01,2\n1,1,1\n")
    truth = pd.DataFrame({"user": ["1"], "product": ["1"]})
    res = rv.evaluate_blocks(tmp_path / "run.csv", truth, ["mrr"], item_col="product")
    assert res["mrr"] == 0.5


# ---- column names and values ----------------------------------------------------------------
def test_non_string_column_names_are_a_clear_error():
    frame = pd.DataFrame({0: [1], 1: [1], 2: [1.0]})
    with pytest.raises(InputError, match=r"column names must be strings, got 0 \(int\)"):
        rv.evaluate(frame, _truth([1]), ["mrr"])
    with pytest.raises(InputError, match="column names must be strings"):
        rv.evaluate({0: [1], "item": [1], "score": [1.0]}, _truth([1]), ["mrr"])
    with pytest.raises(InputError, match="user_col must be a column name"):
        rv.evaluate(RUN, _truth([1]), ["mrr"], user_col=0)


def test_duplicate_column_names_are_a_clear_error():
    frame = pd.DataFrame([[1, 1, 1.0]], columns=["user", "item", "item"])
    with pytest.raises(InputError, match=r"\['item'\] appear more than once"):
        rv.evaluate(frame, _truth([1]), ["mrr"])
    pa = pytest.importorskip("pyarrow")
    table = pa.table([pa.array([1]), pa.array([1]), pa.array([1.0]), pa.array([2.0])],
                     names=["user", "item", "score", "score"])
    with pytest.raises(InputError, match="more than once"):
        rv.evaluate(table, _truth([1]), ["mrr"])


@pytest.mark.parametrize("value", ["x", "3", 1j, [1], b"1"])
def test_dict_of_dicts_with_non_numeric_values_names_user_item_value(value):
    with pytest.raises(InputError, match=r"user 'u', item 'i' is"):
        rv.evaluate({"u": {"i": value}}, {"u": {"i": 1}}, ["mrr"])
    with pytest.raises(InputError, match=r"relevance of user 'u', item 'i'"):
        rv.evaluate({"u": {"i": 1.0}}, {"u": {"i": value}}, ["mrr"])


@pytest.mark.parametrize("name", ["weight", "clicks", "score", "count", "clicked"])
def test_unrecognised_numeric_truth_column_is_not_silently_relevance_one(name):
    truth = pd.DataFrame({"user": [1, 1], "item": [1, 2], name: [0, 3]})
    if name == "clicked":
        truth[name] = [False, True]
    with pytest.raises(InputError, match=f"numeric column\\(s\\) \\['{name}'\\]") as exc:
        rv.evaluate(RUN, truth, ["precision@2"])
    assert f"rel_col={name!r}" in str(exc.value)
    res = rv.evaluate(RUN, truth, ["precision@2"], rel_col=name)
    assert res.user_values("precision@2").tolist()[0] == 0.5


def test_benign_extra_truth_columns_are_ignored_and_names_record_the_columns_used():
    truth = pd.DataFrame({"user": [1], "item": [1], "timestamp": [17], "session_id": [3],
                          "title": ["x"]})
    cols = read_columns(truth, role="truth")
    assert cols.names == {"user": "user", "item": "item"} and cols.value is None
    cols = read_columns(truth.assign(rating=[4]), role="truth")
    assert cols.names == {"user": "user", "item": "item", "relevance": "rating"}
    cols = read_columns(RUN.rename(columns={"score": "pred"}), role="run")
    assert cols.names == {"user": "user", "item": "item", "score": "pred"}
    # a training table is not a truth: its extra columns are not relevance candidates
    assert read_columns(truth.assign(clicks=[2]), role="train").value is None


# ---- scores ---------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [np.int64, np.uint64, "Int64", "arrow"])
def test_int_scores_above_2_53_keep_their_order(dtype):
    """2**53 + 1 and 2**53 are one float64: the better item used to tie and lose (mrr 0.5)."""
    scores = [2**53, 2**53 + 1]
    run = pd.DataFrame({"user": [1, 1], "item": [1, 2]})
    if dtype == "arrow":
        pa = pytest.importorskip("pyarrow")
        run = pa.table({"user": [1, 1], "item": [1, 2], "score": pa.array(scores, pa.int64())})
    else:
        run["score"] = pd.array(scores, dtype=dtype) if dtype == "Int64" else \
            np.array(scores, dtype=dtype)
    res = rv.evaluate(run, pd.DataFrame({"user": [1], "item": [2]}), ["mrr"])
    assert res["mrr"] == 1.0
    cols = read_columns(run, role="run")
    assert cols.value.tolist() == [0.0, 1.0] and "dense rank" in cols.notes[0]


def test_big_int_ranks_and_ties_are_kept():
    run = pd.DataFrame({"user": [1, 1, 1], "item": [3, 1, 2],
                        "rank": np.array([2**60 + 1, 2**60, 2**60 + 1])})
    res = rv.evaluate(run, pd.DataFrame({"user": [1], "item": [1]}), ["mrr"])
    assert res["mrr"] == 1.0
    cols = read_columns(run, role="run")
    assert cols.value[0] == cols.value[2] > cols.value[1]


def test_small_int_scores_are_cast_unchanged_and_big_relevance_is_refused():
    cols = read_columns(RUN.assign(score=[5, -3, 2**53]), role="run")
    assert cols.value.tolist() == [5.0, -3.0, float(2**53)] and cols.notes == []
    with pytest.raises(InputError, match="beyond 2\\*\\*53"):
        read_columns(pd.DataFrame({"user": [1], "item": [1], "rel": [2**60]}), role="truth")


def test_every_error_here_is_a_receval_error():
    assert issubclass(InputError, RecevalError)
