"""The local engine: run the compiled kernel (and plugin metrics) over packed arrays."""

from __future__ import annotations

import numpy as np

from ..errors import MetricError, PolicyError
from ..kernels import codes as C
from ..kernels import compute_metrics
from ..metrics import MetricSpec
from ..pack import Packed
from ..policies import Policies
from .plugins import Context, MetricValues

# Smallest positive double: "relevant" for graded metrics means relevance > 0.
POSITIVE = float(np.nextafter(0.0, 1.0))

_CODES = {
    "hits": C.HITS, "precision": C.PRECISION, "recall": C.RECALL, "f1": C.FBETA,
    "fbeta": C.FBETA, "hit_rate": C.HIT_RATE, "mrr": C.RR, "first_hit_rank": C.FIRST_HIT,
    "map": C.AP, "mar": C.MAR, "cg": C.CG, "dcg": C.DCG, "idcg": C.IDCG, "ndcg": C.NDCG,
    "r_precision": C.RPREC, "err": C.ERR, "rbp": C.RBP, "bpref": C.BPREF, "num_rel": C.NREL,
    "num_ret": C.NRET,
}
GRADED = {"cg", "dcg", "idcg", "ndcg", "err"}
# counts that stay defined for a user without relevant items (empty_truth='zero' keeps them)
COUNTS = {"num_ret", "num_rel", "hits"}
_OPTS = {
    ("precision", "denominator"): {"k": 0, "list": 1, "min_k_rel": 2},
    ("recall", "denominator"): {"rel": 0, "min_k_rel": 1},
    ("map", "denominator"): {"rel": 0, "min_k_rel": 1, "hits": 2},
    ("hit_rate", "level"): {"user": 0, "recommended": 1, "truth": 2},
}
# metrics whose expectation over tie orders receval computes exactly
_AVERAGE_OK = {"hits", "precision", "recall", "f1", "fbeta", "hit_rate", "mrr", "map", "cg",
               "dcg", "idcg", "ndcg", "r_precision", "rbp", "num_rel", "num_ret", "mar"}


def is_kernel_metric(spec: MetricSpec) -> bool:
    return spec.name in _CODES


def needed_depth(specs: list[MetricSpec], policies: Policies) -> int:
    """Deepest cutoff the kernel metrics need; 0 means the whole list."""
    if policies.ties == "average":
        return 0
    depth = 0
    for s in specs:
        if s.name == "num_rel":
            continue
        whole = s.k is None or s.definition.cutoff == "none" or (
            s.name in ("ndcg", "idcg") and s.get("ideal") == "list")
        if whole:
            return 0
        depth = max(depth, s.k)
    return depth


def threshold(spec: MetricSpec) -> float:
    """Relevance threshold of a spec: its ``rel`` parameter; any positive relevance for graded
    metrics and for metrics without a ``rel`` parameter (``num_ret``)."""
    if spec.name in GRADED or not any(p.name == "rel" for p in spec.definition.params):
        return POSITIVE
    return float(spec.get("rel"))


def _request(spec: MetricSpec, packed: Packed) -> tuple[int, int, float, float, int]:
    name = spec.name
    code = _CODES[name]
    k = spec.k or 0
    par, opt = 0.0, 0
    if name == "f1":
        par = 1.0
    elif name == "fbeta":
        par = float(spec.get("beta"))
    elif name == "rbp":
        par = float(spec.get("p"))
    elif name == "err":
        grade = spec.get("max_grade")
        par = float(grade) if grade is not None else max(packed.max_rel, POSITIVE)
        if par < packed.max_rel:
            raise MetricError(
                f"{spec.key}: max_grade={grade!r} is below the largest relevance in the truth "
                f"({packed.max_rel!r}), so a stopping probability (2^rel - 1) / 2^max_grade "
                "would exceed 1. Set max_grade to the top of the relevance scale, or leave it "
                "out (the truth maximum is used)."
            )
    if name in ("cg", "dcg", "idcg", "ndcg"):
        opt = (1 if spec.get("gain") == "exp" else 0)
        if name in ("idcg", "ndcg"):
            opt |= 2 if spec.get("ideal") == "list" else 0
    for (mname, pname), table in _OPTS.items():
        if mname == name:
            opt = table[spec.get(pname)]
    return code, k, threshold(spec), par, opt


def run_kernel(packed: Packed, requests: list[tuple[int, int, float, float, int]]) -> np.ndarray:
    codes = np.array([r[0] for r in requests], dtype=np.int32)
    ks = np.array([r[1] for r in requests], dtype=np.int64)
    thrs = np.array([r[2] for r in requests], dtype=np.float64)
    pars = np.array([r[3] for r in requests], dtype=np.float64)
    opts = np.array([r[4] for r in requests], dtype=np.int32)
    return compute_metrics(packed.indptr, packed.rel, packed.judged, packed.grp_end,
                           packed.list_len, packed.t_indptr, packed.t_rel_desc, codes, ks,
                           thrs, pars, opts)


def evaluate_packed(packed: Packed, specs: list[MetricSpec], policies: Policies,
                    context: Context) -> dict:
    """Per-user values, summary statistics and counts for every spec."""
    if policies.ties == "average":
        bad = [s.key for s in specs if is_kernel_metric(s) and (
            s.name not in _AVERAGE_OK or (s.name == "map" and s.get("denominator") == "hits"))]
        if bad:
            raise PolicyError(
                f"ties='average' (expected value over tie orders) is not available for {bad}; "
                "use ties='id' or ties='trec_eval' for them, or evaluate them separately."
            )
    kernel_specs = [s for s in specs if is_kernel_metric(s)]
    requests = [_request(s, packed) for s in kernel_specs]
    # relevant-item counts per distinct threshold, for the empty-truth policy
    thresholds = sorted({threshold(s) for s in specs} | {POSITIVE})
    nrel_index = {}
    for t in thresholds:
        nrel_index[t] = len(requests)
        requests.append((C.NREL, 0, t, 0.0, 0))
    # micro aggregates: numerator (hits) and denominator per item-level hit rate
    micro_index = {}
    for s in kernel_specs:
        if s.definition.aggregate == "micro" or (s.name == "hit_rate" and s.get("level") != "user"):
            micro_index[s] = len(requests)
            requests.append((C.HITS, s.k or 0, threshold(s), 0.0, 0))
            den_code = C.NRET if s.get("level") == "recommended" else C.NREL
            requests.append((den_code, s.k or 0, threshold(s), 0.0, 0))
    out = run_kernel(packed, requests) if requests else np.zeros((len(packed.user_ids), 0))

    n_users = len(packed.user_ids)
    values = np.empty((n_users, len(specs)), dtype=np.float64)
    rows = []
    info: dict[str, dict] = {}
    kernel_col = {s: i for i, s in enumerate(kernel_specs)}
    for j, s in enumerate(specs):
        if s in kernel_col:
            col = out[:, kernel_col[s]].copy()
            has_rel = out[:, nrel_index[threshold(s)]] > 0
            no_rel = ~has_rel
            n_empty = int(no_rel.sum())
            if n_empty:
                if policies.empty_truth == "error":
                    uid = packed.user_ids[np.flatnonzero(no_rel)[0]]
                    raise PolicyError(
                        f"{n_empty} user(s) have no relevant truth item for {s.key} (e.g. user "
                        f"{uid!r}); empty_truth='error' forbids that. Use empty_truth='skip' "
                        "(default), 'zero' or 'nan'."
                    )
                if policies.empty_truth != "zero":
                    col[no_rel] = np.nan
                elif s.name == "first_hit_rank":
                    col[no_rel] = np.nan  # no hit: no rank (0 would read as the best rank)
                elif s.name not in COUNTS:
                    col[no_rel] = 0.0  # counts keep their true value (trec_eval num_ret)
            values[:, j] = col
            evaluated = has_rel if policies.empty_truth in ("skip",) else np.ones(n_users, bool)
            skipped = n_empty if policies.empty_truth == "skip" else 0
            if s in micro_index:
                num = out[evaluated, micro_index[s]].sum()
                den = out[evaluated, micro_index[s] + 1].sum()
                mean = float(num / den) if den > 0 else float("nan")
                if n_empty and policies.empty_truth == "nan":
                    mean = float("nan")  # as for every other metric under 'nan'
            else:
                mean = None
            rows.append(_stats(s, col[evaluated], mean, skipped))
        else:
            mv: MetricValues = s.definition.compute(s, packed, context)
            col = mv.per_user if mv.per_user is not None else np.full(n_users, np.nan)
            values[:, j] = col
            if mv.per_user is None:
                rows.append({"metric": s.key, "mean": float(mv.value), "std": float("nan"),
                             "se": float("nan"), "n": n_users, "skipped": 0})
            else:
                rows.append(_stats(s, col, mv.value, 0))
            if mv.info:
                info[s.key] = mv.info
    return {"values": values, "stats": rows, "info": info}


def _stats(spec: MetricSpec, col: np.ndarray, mean: float | None, skipped: int) -> dict:
    """Mean (or the given micro value), sample std, standard error and n over non-NaN values.

    With ``empty_truth='nan'`` NaN values stay in and make the mean NaN, on purpose.
    """
    finite = col[~np.isnan(col)] if spec.name == "first_hit_rank" or spec.definition.compute \
        else col
    # sorted first: the sums no longer depend on the user order, i.e. on the input row order
    finite = np.sort(finite)
    n = len(finite)
    m = float(np.mean(finite)) if n else float("nan")
    std = float(np.std(finite, ddof=1)) if n > 1 else float("nan")
    return {"metric": spec.key, "mean": m if mean is None else mean, "std": std,
            "se": std / np.sqrt(n) if n > 1 else float("nan"), "n": n, "skipped": skipped}
