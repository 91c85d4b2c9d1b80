"""The kernel's shared prefix sums against each request's own walk.

``compute_metrics`` answers cutoff-based requests (hits, precision, recall, F, hit rate, RR,
first hit, AP, R-precision, DCG and nDCG with the truth's ideal) from prefix sums built once per
user, relevance threshold and (gain, discount) pair. ``fused=0`` makes every request walk the
list itself. Both must give the same bits for any mix of requests, thresholds, gains,
discounts and cutoffs (with and without a cutoff, deeper than the list, R-precision's R).
"""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from receval.kernels import DISCOUNTS, GAINS, IDEALS, VARIANTS, Request, compute_metrics

FUSED = [Request.HITS, Request.PRECISION, Request.RECALL, Request.FBETA, Request.HIT_RATE,
         Request.RR, Request.FIRST_HIT, Request.AP, Request.RPREC, Request.DCG, Request.NDCG]
OTHERS = [Request.MAR, Request.CG, Request.IDCG, Request.ERR, Request.BPREF, Request.NREL,
          Request.NRET, Request.RBP]


@st.composite
def requests(draw: st.DrawFn) -> dict[str, np.ndarray]:
    n = draw(st.integers(1, 25))
    rows = []
    for _ in range(n):
        code = int(draw(st.sampled_from(FUSED + OTHERS)))
        opts = len(VARIANTS.get(code, ("",)))
        rows.append((code, draw(st.sampled_from([0, 1, 2, 3, 5, 10, 40])),
                     draw(st.sampled_from([0.5, 1.0, 2.0, 3.0])),
                     0.8 if code == Request.RBP else draw(st.sampled_from([0.5, 1.0, 2.0])),
                     draw(st.integers(0, opts - 1)), draw(st.integers(0, len(GAINS) - 1)),
                     draw(st.integers(0, len(IDEALS) - 1)),
                     draw(st.integers(0, len(DISCOUNTS) - 1))))
    cols = list(zip(*rows, strict=True))
    return {"codes": np.array(cols[0], dtype=np.intc), "ks": np.array(cols[1], dtype=np.int64),
            "thrs": np.array(cols[2]), "pars": np.array(cols[3]),
            "opts": np.array(cols[4], dtype=np.intc), "gains": np.array(cols[5], dtype=np.intc),
            "ideals": np.array(cols[6], dtype=np.intc),
            "discounts": np.array(cols[7], dtype=np.intc), "pars2": np.zeros(n)}


@st.composite
def users(draw: st.DrawFn) -> dict[str, np.ndarray]:
    lens = draw(st.lists(st.integers(0, 30), min_size=1, max_size=12))
    tlens = [draw(st.integers(0, 12)) for _ in lens]
    grades = st.sampled_from([0.0, 0.0, 0.0, 1.0, 2.0, 3.0, 0.5])
    rel = np.array(draw(st.lists(grades, min_size=sum(lens), max_size=sum(lens))))
    trel = []
    for t in tlens:
        trel.extend(sorted(draw(st.lists(grades, min_size=t, max_size=t)), reverse=True))
    list_len = [n + draw(st.integers(0, 20)) for n in lens]  # lists may be cut before packing
    return {"indptr": np.concatenate([[0], np.cumsum(lens)]).astype(np.int64), "rel": rel,
            "judged": (rel > 0).astype(np.int8), "grp_end": np.zeros(0, dtype=np.int64),
            "list_len": np.array(list_len, dtype=np.int64),
            "t_indptr": np.concatenate([[0], np.cumsum(tlens)]).astype(np.int64),
            "t_rel_desc": np.array(trel, dtype=np.float64)}


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(users(), requests())
def test_prefix_sums_give_the_walks_bits(data: dict, req: dict) -> None:
    args = {**data, **req}
    fused = compute_metrics(**args)
    walked = compute_metrics(**args, fused=0)
    assert fused.shape == walked.shape
    assert np.array_equal(fused.view(np.int64), walked.view(np.int64))


def test_every_fused_request_code_is_covered() -> None:
    # the codes the kernel answers from prefix sums are exactly those listed above
    from receval.kernels._ranking import _fused_plan

    codes = np.array([int(c) for c in Request], dtype=np.intc)
    n = len(codes)
    kind, *_ = _fused_plan(codes, np.ones(n), np.zeros(n, dtype=np.intc),
                           np.zeros(n, dtype=np.intc), np.zeros(n, dtype=np.intc), 0)
    assert {int(c) for c, k in zip(codes, kind, strict=True) if k} == {int(c) for c in FUSED}


def test_repeated_cutoffs_match_single_requests() -> None:
    # a worked example: one user, hits at positions 1, 3 and 6, three relevant items
    rel = np.array([1.0, 0, 2.0, 0, 0, 1.0, 0, 0])
    base = {"indptr": np.array([0, 8]), "rel": rel, "judged": (rel > 0).astype(np.int8),
            "grp_end": np.zeros(0, dtype=np.int64), "list_len": np.array([8]),
            "t_indptr": np.array([0, 3]), "t_rel_desc": np.array([2.0, 1.0, 1.0])}
    ks = np.array([1, 3, 5, 8], dtype=np.int64)
    n = len(ks)

    def run(code: int) -> np.ndarray:
        return compute_metrics(**base, codes=np.full(n, code, dtype=np.intc), ks=ks,
                               thrs=np.ones(n), pars=np.ones(n), opts=np.zeros(n, dtype=np.intc),
                               gains=np.zeros(n, dtype=np.intc), ideals=np.zeros(n, dtype=np.intc),
                               discounts=np.zeros(n, dtype=np.intc), pars2=np.zeros(n))[0]

    assert run(Request.PRECISION).tolist() == [1.0, 2 / 3, 2 / 5, 3 / 8]
    assert run(Request.AP).tolist() == [1 / 3, (1 + 2 / 3) / 3, (1 + 2 / 3) / 3,
                                        (1 + 2 / 3 + 3 / 6) / 3]
    assert run(Request.RR).tolist() == [1.0] * 4
    dcg = np.cumsum(rel / np.log2(np.arange(2, 10)))
    idcg = np.cumsum(np.array([2.0, 1.0, 1.0]) / np.log2(np.arange(2, 5)))
    np.testing.assert_allclose(run(Request.NDCG), [dcg[0] / idcg[0], dcg[2] / idcg[2],
                                                   dcg[4] / idcg[2], dcg[7] / idcg[2]],
                               rtol=1e-15)
