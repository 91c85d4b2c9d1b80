"""Log receval results to MLflow: metrics, parameters, tags and artifacts of one run.

    import mlflow
    from receval.integrations import mlflow as rv_mlflow

    with mlflow.start_run():
        rv_mlflow.log(rv.evaluate(run, truth, ["ndcg@10", "recall@20"]))

:func:`log` takes an :class:`~receval.EvalResult`, a :class:`~receval.Comparison` or an
:class:`~receval.online.OnlineResult`. MLflow names may hold only letters, digits, ``_ - . /``
and spaces, so a canonical metric key is written under a readable name (:func:`metric_name`) that
:func:`metric_key` reads back::

    ndcg@10              ndcg_at_10
    precision@5(rel=2)   precision_at_5.rel-2
    rbp(p=0.95)          rbp.p-0.95
    ndcg@10(gain=exp)    ndcg_at_10.gain-exp

``@`` becomes ``_at_``, each ``(param=value`` / ``,param=value`` becomes ``.param-value`` and the
closing ``)`` is dropped. NaN is logged as NaN (MLflow reads it back as NaN); an infinite value
is not a metric (MLflow's SQL stores would keep it as +-1.8e308) but a tag of the same name
holding ``inf`` or ``-inf``. Labels (system names, group labels, online row keys) keep letters,
digits, ``_ - .`` and spaces; any other character becomes ``_``. Every name :func:`log` writes and
the key or label it came from are recorded in the artifact ``names.json``; two keys or labels that
would share a name, or a name the run already holds (a metric at the same step, a param or tag
with another value, the artifact folder), are refused (:class:`~receval.errors.ParameterError`),
never overwritten: pass ``prefix=`` or ``step=`` to log a second result into the same run.
"""

from __future__ import annotations

import json
import math
import numbers
import os
import posixpath
import re
import tempfile
import time
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from ..errors import ParameterError, plain, require

_EXTRA = "mlflow"
# MLflow's rule (mlflow/utils/validation.py), without the colon it refuses on Windows
_VALID = re.compile(r"^[/\w.\- ]*$", re.ASCII)
_MAX_KEY = 250
_MAX_PARAM = 6000
_MAX_TAG = 8000
# a canonical key: name[@k][(p=v,...)]
_KEY_RE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)(?:@([^@(),=]+))?(?:\((.+)\))?$")
_SEP = re.compile(r"\.(?=[A-Za-z_][A-Za-z0-9_]*-)")
_AT = re.compile(r"^(.*)_at_([0-9][0-9.eE+\-]*)$")
_LABEL_BAD = re.compile(r"[^A-Za-z0-9_.\- ]")
_TABLES = ("csv", "parquet")


def metric_name(key: str) -> str:
    """The MLflow name of a canonical metric key: ``metric_name("ndcg@10") == "ndcg_at_10"``.

    Raises :class:`~receval.errors.ParameterError` for a key the mapping cannot write back
    (:func:`metric_key` must return the key); :func:`log` then takes an explicit name through
    ``names={key: "my_name"}``."""
    if not isinstance(key, str) or not key:
        raise ParameterError(f"metric_name: key={key!r} is not a metric key; pass a canonical "
                             "key such as 'ndcg@10'.", function="metric_name", param="key",
                             value=key, expected="a non-empty str")
    m = _KEY_RE.match(key)
    name = key
    if m is not None:
        head, k, params = m.groups()
        name = head + (f"_at_{k}" if k is not None else "")
        for part in (params.split(",") if params else []):
            p, eq, v = part.partition("=")
            name += f".{p}-{v}" if eq else f".{p}"
    if not _VALID.match(name) or metric_key(name) != key or _path_clash(name):
        raise ParameterError(
            f"metric_name: the key {plain(key)} has no reversible MLflow name (MLflow allows "
            "letters, digits, '_', '-', '.', '/' and spaces); pass names={" + repr(key)
            + ": '...'} to log(...) to choose one.", function="metric_name", param="key",
            value=key, expected="a canonical key name[@k][(p=v,...)]")
    return name


def metric_key(name: str) -> str:
    """The canonical metric key of an MLflow name written by :func:`metric_name`:
    ``metric_key("precision_at_5.rel-2") == "precision@5(rel=2)"``."""
    if not isinstance(name, str):
        raise ParameterError(f"metric_key: name={name!r} is not a str.", function="metric_key",
                             param="name", value=name, expected="str")
    head, *params = _SEP.split(name)
    at = _AT.match(head)
    key = f"{at.group(1)}@{at.group(2)}" if at else head
    if params:
        key += "(" + ",".join(p.replace("-", "=", 1) for p in params) + ")"
    return key


def label_name(label: Any) -> str:
    """The MLflow name of a label (system, group, online row): letters, digits, ``_ - .`` and
    spaces kept, any other character written ``_`` (``"clicks/impr:B"`` -> ``clicks_impr_B``)."""
    text = _LABEL_BAD.sub("_", str(label)).strip() or "_"
    return "_" if text in (".", "..") else text


def _path_clash(name: str) -> bool:
    norm = posixpath.normpath(name)
    return norm != name or norm == "." or norm.startswith("..") or norm.startswith("/")


class _Names:
    """The names of one call: each MLflow name with the key or label it came from; a second
    source for a name is refused."""

    def __init__(self, prefix: str, overrides: Mapping[str, str]) -> None:
        self.prefix, self.overrides = prefix, dict(overrides)
        self.sources: dict[str, dict[str, str]] = {"metrics": {}, "params": {}, "tags": {}}

    def metric(self, key: str) -> str:
        if key not in self.overrides:
            return metric_name(key)
        name = self.overrides[key]
        if not _VALID.match(name) or _path_clash(name):
            raise ParameterError(
                f"log: names[{key!r}]={name!r} is not a valid MLflow name: use letters, digits, "
                "'_', '-', '.', '/' and spaces.", function="log", param="names", value=name,
                expected="a valid MLflow name")
        return name

    def add(self, kind: str, parts: Iterable[str], source: str, *, full: bool = False) -> str:
        name = ("" if full else self.prefix) + "/".join(parts)
        if not _VALID.match(name) or _path_clash(name) or len(name) > _MAX_KEY:
            raise ParameterError(
                f"log: the MLflow name {plain(name)} (for {plain(source)}) is not valid: MLflow "
                f"allows letters, digits, '_', '-', '.', '/' and spaces, up to {_MAX_KEY} "
                "characters, without empty or '..' path parts; change prefix= or names=.",
                function="log", param="prefix", value=self.prefix, expected="a valid name")
        seen = self.sources[kind]
        if name in seen and seen[name] != source:
            raise ParameterError(
                f"log: {plain(seen[name])} and {plain(source)} would both be logged as the "
                f"{kind[:-1]} {plain(name)}; rename one (names={{...}} for a metric key, or the "
                "system / group label).", function="log", param="names", value=name,
                expected="distinct names")
        seen[name] = source
        return name


def _flat(value: Any, path: tuple[str, ...] = ()) -> Iterable[tuple[tuple[str, ...], Any]]:
    if isinstance(value, Mapping):
        for k, v in value.items():
            yield from _flat(v, (*path, label_name(k)))
    else:
        yield path, value


def _number(v: Any) -> float | None:
    """A float for MLflow (bools as 1.0 / 0.0), or None for a value that is not a number."""
    if isinstance(v, (bool, np.bool_)):
        return 1.0 if v else 0.0
    if isinstance(v, numbers.Real):
        return float(v)
    return None


def _text(v: Any) -> str:
    if isinstance(v, str):
        return v
    try:
        return json.dumps(v, sort_keys=True, default=str)
    except (TypeError, ValueError):  # pragma: no cover - circular containers
        return str(v)


class _Batch:
    def __init__(self, names: _Names) -> None:
        self.names = names
        self.metrics: dict[str, float] = {}
        self.params: dict[str, str] = {}
        self.tags: dict[str, str] = {}

    def metric(self, parts: Iterable[str], value: Any, source: str) -> None:
        v = _number(value)
        if v is None:
            return
        name = self.names.add("metrics", parts, source)
        if math.isinf(v):  # MLflow's SQL stores keep +-inf as +-1.8e308: a tag says it exactly
            self.tags[self.names.add("tags", [name], source, full=True)] = repr(v)
        else:
            self.metrics[name] = v

    def param(self, parts: Iterable[str], value: Any, source: str) -> None:
        text = "None" if value is None else _text(value)
        if len(text) <= _MAX_PARAM:
            self.params[self.names.add("params", parts, source)] = text
        else:  # too long for a param: a tag, or the JSON artifact alone
            self.tag(parts, text, source)

    def tag(self, parts: Iterable[str], value: Any, source: str) -> None:
        text = _text(value)
        if len(text) > _MAX_TAG:
            text = "(too long for a tag: see result.json in the run's artifacts)"
        self.tags[self.names.add("tags", parts, source)] = text


def _eval(b: _Batch, res: Any) -> dict[str, Any]:
    names = b.names
    for key, value in res.summary.items():
        b.metric([names.metric(key)], value, key)
    for k, v in res.counts.items():
        b.param(["counts", label_name(k)], v, f"counts[{k!r}]")
    for k, v in res.policies.items():
        b.param(["policies", label_name(k)], v, f"policies[{k!r}]")
    b.param(["metrics"], ",".join(res.metrics), "metrics")
    if res.name is not None:
        b.param(["name"], res.name, "name")
    for k, v in res.info.items():
        part = names.metric(k) if k in res.metrics else label_name(k)
        b.tag(["info", part], v, f"info[{k!r}]")
    for row in res.group_stats:
        g, key = row["group"], row["metric"]
        b.metric(["group", label_name(g), names.metric(key)], row["mean"],
                 f"group {g!r}: {key}")
    for part, sub in res.slices.items():
        for key, value in sub.summary.items():
            b.metric(["slice", label_name(part), names.metric(key)], value,
                     f"slice {part!r}: {key}")
    return {"per_user": res.per_user_frame(), "json": res.to_json(), "kind": "EvalResult"}


def _comparison(b: _Batch, cmp: Any) -> dict[str, Any]:
    names = b.names
    for system, means in cmp.summary.items():
        for key, value in means.items():
            b.metric([label_name(system), names.metric(key)], value, f"{system!r}: {key}")
    for row in cmp.pairs:
        pair = f"{label_name(row['a'])}_vs_{label_name(row['b'])}"
        src = f"pair {row['a']!r} vs {row['b']!r}: {row['metric']}"
        for col in ("diff", "p_value", "p_adjusted", "significant"):
            b.metric(["pair", pair, names.metric(row["metric"]), col], row[col],
                     f"{src} {col}")
    b.param(["systems"], ",".join(map(str, cmp.systems)), "systems")
    b.param(["metrics"], ",".join(cmp.metrics), "metrics")
    for k in ("baseline", "test", "correction", "alpha", "n_resamples", "seed"):
        b.param([k], getattr(cmp, k), k)
    for path, v in _flat(cmp.options):
        b.param(["options", *path], v, f"options {path}")
    for path, v in _flat(cmp.counts):
        b.param(["counts", *path], v, f"counts {path}")
    return {"per_user": cmp.table, "json": cmp.to_json(), "kind": "Comparison",
            "table_name": "pairs"}


def _row_labels(rows: list[dict[str, Any]]) -> list[str]:
    """A label per online row: its first column, with the next text columns while two rows
    share one (an A/B row: ``metric``, then ``arm``)."""
    if not rows:
        return []
    labels = [str(next(iter(r.values()))) for r in rows]
    text_cols = [c for c in list(rows[0])[1:] if all(isinstance(r.get(c), str) for r in rows)]
    for c in text_cols:
        if len(set(labels)) == len(labels):
            break
        labels = [f"{lab}:{r[c]}" for lab, r in zip(labels, rows, strict=True)]
    if len(set(labels)) != len(labels):
        labels = [f"{lab}:{i}" for i, lab in enumerate(labels)]
    return labels


def _online(b: _Batch, res: Any) -> dict[str, Any]:
    for key, value in res.summary.items():
        b.metric([label_name(key)], value, f"summary[{key!r}]")
    first = next(iter(res.rows[0])) if res.rows else None
    for label, row in zip(_row_labels(res.rows), res.rows, strict=True):
        for col, value in row.items():
            if col != first and not isinstance(value, str):
                b.metric(["row", label_name(label), label_name(col)], value,
                         f"row {label!r} {col}")
    b.param(["kind"], res.kind, "kind")
    for path, v in _flat(res.counts):
        b.param(["counts", *path], v, f"counts {path}")
    for path, v in _flat(res.provenance):
        b.param(["provenance", *path], v, f"provenance {path}")
    for path, v in _flat(res.diagnostics):
        b.tag(["diagnostics", *path], v, f"diagnostics {path}")
    return {"per_user": res.per_unit if len(res.per_unit) else None, "json": res.to_json(),
            "kind": "OnlineResult", "table": res.table, "table_name": "per_unit"}


def _kind(obj: Any) -> str:
    from ..results import Comparison, EvalResult

    if isinstance(obj, EvalResult):
        return "eval"
    if isinstance(obj, Comparison):
        return "comparison"
    from ..online import OnlineResult

    if isinstance(obj, OnlineResult):
        return "online"
    raise ParameterError(
        f"log: obj={type(obj).__name__} is not a result receval logs; pass an EvalResult "
        "(rv.evaluate), a Comparison (rv.compare) or an OnlineResult (rv.online).",
        function="log", param="obj", value=type(obj).__name__,
        expected="EvalResult | Comparison | OnlineResult")


def _check(prefix: Any, names: Any, table: Any, step: Any, run_name: Any) -> None:
    if not isinstance(prefix, str) or (prefix and (not _VALID.match(prefix)
                                                   or _path_clash(prefix.rstrip("/") or "/"))):
        raise ParameterError(
            f"log: prefix={prefix!r} is not a valid MLflow name start; use letters, digits, "
            "'_', '-', '.', spaces and '/' (e.g. prefix='test/').", function="log",
            param="prefix", value=prefix, expected="str")
    if names is not None and not (isinstance(names, Mapping) and all(
            isinstance(k, str) and isinstance(v, str) and v for k, v in names.items())):
        raise ParameterError(
            f"log: names={names!r} must map metric keys to MLflow names, e.g. "
            "names={'ndcg@10': 'ndcg10'}.", function="log", param="names", value=names,
            expected="dict[str, str]")
    if table not in _TABLES:
        raise ParameterError(f"log: table={table!r} is not one of {list(_TABLES)}.",
                             function="log", param="table", value=table,
                             expected=" | ".join(_TABLES))
    if isinstance(step, bool) or not isinstance(step, int) or step < 0:
        raise ParameterError(f"log: step={step!r} must be an int >= 0.", function="log",
                             param="step", value=step, expected="int >= 0")
    if run_name is not None and not isinstance(run_name, str):
        raise ParameterError(f"log: run_name={run_name!r} must be a str or None.",
                             function="log", param="run_name", value=run_name,
                             expected="str | None")


def log(obj: Any, *, run_id: str | None = None, prefix: str = "", artifacts: bool = True,
        names: Mapping[str, str] | None = None, table: str = "csv", step: int = 0,
        run_name: str | None = None) -> str:
    """Log a result to an MLflow run and return the run's id.

    ``rv_mlflow.log(result)`` writes, for an :class:`~receval.EvalResult`: each summary value as
    a metric (``ndcg@10`` as ``ndcg_at_10``, :func:`metric_name`), each group's mean as
    ``group/<label>/<metric>``, each slice's (``slices=``) as ``slice/<slice>/<metric>``, the counts as params ``counts/<count>``, the policies as params
    ``policies/<policy>``, the per-metric facts of ``info`` as tags ``info/<metric>`` (JSON).
    For a :class:`~receval.Comparison`: each system's means as ``<system>/<metric>``, each pair's
    ``diff``, ``p_value``, ``p_adjusted`` and ``significant`` (1.0 / 0.0) as
    ``pair/<a>_vs_<b>/<metric>/<column>``, the test, correction and options as params.
    For an :class:`~receval.online.OnlineResult`: the headline values (its ``summary``) as
    metrics, every number of its table as ``row/<row>/<column>``, counts and provenance as
    params, diagnostics as tags.

    ``run_id``: the run to log to; default the active run, else a new run (``run_name``) that is
    ended afterwards. ``prefix`` starts every name (``prefix="test/"``). ``artifacts``: also
    write ``names.json`` (each name and the key it came from), ``result.json`` (the whole
    result), the per-user (per-unit, pairs) table as ``table="csv"`` or ``"parquet"``, and the
    HTML report (``rv.report(obj, "html")``). ``names`` overrides the MLflow name of a metric key.
    ``step`` is the metrics' step (a step other than 0 puts the artifacts under
    ``step_<step>/``): one evaluation per epoch makes each metric's history. A value longer than MLflow's parameter limit becomes a tag.
    """
    kind = _kind(obj)
    _check(prefix, names, table, step, run_name)
    unknown = sorted(set(names or {}) - set(getattr(obj, "metrics", [])))
    if unknown and kind != "online" and isinstance(names, Mapping):
        raise ParameterError(
            f"log: names= has keys {unknown} that are not metrics of this result; its metric "
            f"keys are {list(obj.metrics)}.", function="log", param="names", value=unknown,
            expected="metric keys of the result")
    mlflow = require("mlflow", _EXTRA)
    from mlflow.entities import Metric, Param, RunTag
    from mlflow.tracking import MlflowClient

    batch = _Batch(_Names(prefix, names or {}))
    built = {"eval": _eval, "comparison": _comparison, "online": _online}[kind](batch, obj)
    batch.tag(["receval", "kind"], built["kind"], "kind")
    from .._version import __version__

    batch.tag(["receval", "version"], __version__, "version")

    client = MlflowClient()
    started = None
    if run_id is None:
        active = mlflow.active_run()
        if active is None:
            started = mlflow.start_run(run_name=run_name)
            run_id = started.info.run_id
        else:
            run_id = active.info.run_id
    elif not isinstance(run_id, str) or not run_id:
        raise ParameterError(f"log: run_id={run_id!r} must be an MLflow run id (str) or None.",
                             function="log", param="run_id", value=run_id,
                             expected="str | None")
    status = "FAILED"
    try:
        folder = "/".join(p for p in (prefix.strip("/"), f"step_{step}" if step else "") if p)
        clash = _clashes(client, run_id, batch, step, folder if artifacts else None)
        if clash:
            raise ParameterError(
                f"log: the run {run_id} already holds {clash[:5]} with other values (or at "
                f"step {step}); pass prefix= (e.g. prefix='valid/') or another step= to log "
                "another result into it.", function="log", param="prefix", value=prefix,
                expected="names the run does not hold")
        now = int(time.time() * 1000)
        metrics = [Metric(k, v, now, step) for k, v in batch.metrics.items()]
        params = [Param(k, v) for k, v in batch.params.items()]
        tags = [RunTag(k, v) for k, v in batch.tags.items()]
        for i in range(0, len(metrics), 1000):
            client.log_batch(run_id, metrics=metrics[i:i + 1000])
        for i in range(0, len(params), 100):
            client.log_batch(run_id, params=params[i:i + 100])
        for i in range(0, len(tags), 100):
            client.log_batch(run_id, tags=tags[i:i + 100])
        if artifacts:
            _artifacts(client, run_id, obj, built, batch, folder, table)
        status = "FINISHED"
    finally:
        if started is not None:
            mlflow.end_run(status=status)
    return run_id


def _clashes(client: Any, run_id: str, batch: _Batch, step: int,
             folder: str | None) -> list[str]:
    """The names the run already holds with another value: a metric with a value at ``step``
    (other steps are its history), a param or tag with another text, the artifact folder."""
    data = client.get_run(run_id).data
    out = [k for k in batch.metrics if k in data.metrics
           and any(h.step == step for h in client.get_metric_history(run_id, k))]
    out += [k for k, v in batch.params.items() if data.params.get(k, v) != v]
    out += [k for k, v in batch.tags.items() if data.tags.get(k, v) != v]
    if folder is not None and any(a.path == posixpath.join(folder, "names.json")
                                  for a in client.list_artifacts(run_id, folder or None)):
        out.append(posixpath.join(folder, "names.json"))
    return sorted(out)


def _artifacts(client: Any, run_id: str, obj: Any, built: dict[str, Any], batch: _Batch,
               folder: str, table: str) -> None:
    from ..report import report

    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "names.json"), "w", encoding="utf-8") as fh:
            json.dump(batch.names.sources, fh, indent=1, sort_keys=True)
        with open(os.path.join(tmp, "result.json"), "w", encoding="utf-8") as fh:
            fh.write(built["json"])
        frames = {"per_user" if built["kind"] == "EvalResult" else built.get("table_name",
                  "table"): built["per_user"]}
        if "table" in built:
            frames["table"] = built["table"]
        for stem, frame in frames.items():
            if frame is None:
                continue
            if table == "parquet":
                frame.to_parquet(os.path.join(tmp, f"{stem}.parquet"))
            else:
                frame.to_csv(os.path.join(tmp, f"{stem}.csv"))
        report(obj, "html", path=os.path.join(tmp, "report.html"))
        client.log_artifacts(run_id, tmp, folder or None)
