"""The C/W/L family (Moffat, Bailey, Scholer, Thomas, TOIS 2017): RBP, INST, INSQ, scaled DCG,
BPM and the NERR variants as continuation probabilities over one core; each model's
step-by-step display beside its definition."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ..kernels import VARIANTS, Request
from .grades import auto_grade, max_grade_par
from .spec import Kernel, MetricDef, Param, register
from .steps import Positions, Steps, UserList, num, ratio

OUTPUT = Param(
    "output", "eu",
    "which expectation of the user model: eu = expected utility per item examined, the "
    "expected rate of gain (cwl_eval EU, the metric's usual value) | etu = expected total "
    "utility (ETU) | etc = expected total cost with unit costs, sum L(i) i (ETC) | ed = "
    "expected depth 1 / W(1) (cwl_eval ED)",
    VARIANTS[Request.CWL_RBP],
)
CWL_GRADE = Param(
    "max_grade", None,
    "gain = relevance / max_grade, in [0, 1] (ir_measures max_rel; auto: the truth's largest "
    "relevance; cwl_eval reads the qrels values themselves as gains, i.e. max_grade=1)",
    kind=float, low=0.0, low_open=True,
)
CWL_T = Param("T", 1.0, "T: the gain the user wants (INST, INSQ, BPM, NERR eq. 11)",
              kind=float, low=0.0, low_open=True)
CWL_PHI = Param("phi", 0.8, "persistence: probability of going on to the next rank",
                kind=float, low=0.0, high=1.0, low_open=True, high_open=True)


def _cwl_t(spec, max_rel: float) -> float:
    return float(spec.get("T"))


def _cwl_phi(spec, max_rel: float) -> float:
    return float(spec.get("phi"))


_CWL_COMMON = (
    "One C/W/L core (Moffat, Bailey, Scholer, Thomas, TOIS 2017; cwl_eval, Azzopardi, Thomas, "
    "Moffat SIGIR 2019): the continuation probability C(i) gives the probability of reaching "
    "rank i, P(i) = prod_{j<i} C(j), the weights W(i) = P(i) / sum_j P(j) and the stopping "
    "probabilities L(i) = P(i) (1 - C(i)); output=eu is sum_i W(i) g_i. Gains g_i = rel_i / "
    "max_grade. The ranking is padded with zero gains to the depth k (cwl_eval --max_depth; "
    "1000 without a cutoff), and C, W and L run over those k ranks as in cwl_eval. "
)


#: the continuation probability of a C/W/L model: C(spec, rank i, gain g_i, sum_{j<=i} g_j, depth)
Continuation = Callable[[Any, int, float, float, int], float]


def _cwl_steps(cont: Continuation) -> Callable[[Any, UserList], Steps | None]:
    """The step-by-step display of a C/W/L model with continuation ``cont``: P(i), the gains
    and the expectations EU, ETU, ETC and ED over the ranks up to the depth k."""

    def steps(spec: Any, user: UserList) -> Steps | None:
        out = spec.get("output")
        if out not in ("eu", "etu", "etc", "ed"):
            return None
        t = Positions(spec, user)
        notes: list[str] = []
        grade = auto_grade(spec, user, notes)
        depth = spec.k if spec.k is not None else 1000
        gains = [max(r, 0.0) / grade for r in t.rels[:depth]]
        gains += [0.0] * (depth - len(gains))
        t.add("gain", "C(i)", "P(reach i)")
        reach, ed, eu, etu, etc, cum = 1.0, 0.0, 0.0, 0.0, 0.0, 0.0
        for i, g in enumerate(gains):
            if reach == 0.0:
                break
            cum += g
            c = cont(spec, i + 1, g, cum, depth)
            if i < len(t.rows):
                t.rows[i] += [g, c, reach]
            ed += reach
            eu += reach * g
            etu += reach * (1 - c) * cum
            etc += reach * (1 - c) * (i + 1)
            reach *= c
        t.steps += [f"gains g_i = relevance / {grade:g}; ranks past the list have gain 0, up "
                    f"to depth {depth}",
                    f"sum P(i) = expected depth ED = {num(ed)}",
                    f"EU = sum P(i) g_i / sum P(i) = {num(eu)} / {num(ed)}"]
        if out != "eu":
            t.steps.append(f"output = {out}: ETU = {num(etu)}, ETC = {num(etc)}")
        value = {"eu": ratio(eu, ed), "etu": etu, "etc": etc, "ed": ed}[out]
        return t.done(value, notes=notes)

    return steps


def _cwl(name: str, title: str, c_formula: str, doc: str, params: tuple, request: int,
         par, reference: str, example: str, cont: Continuation,
         aliases: tuple[str, ...] = ()) -> None:
    register(MetricDef(
        name, title, f"C(i) = {c_formula}; EU = sum_i W(i) g_i", _CWL_COMMON + doc,
        (*params, CWL_GRADE, OUTPUT), bounds=(0.0, None),
        reference=reference + "; cwl_eval (github.com/ireval/cwl, cwl/ruler/measures)",
        example=example,
        kernel=Kernel(request, graded=True, par=par, par2=max_grade_par, variant="output",
                      average=False),
        explain=_cwl_steps(cont),
    ), aliases)


def _inst(s: Any, i: int, g: float, cum: float, d: int) -> float:
    T = float(s.get("T"))
    y = i + T + (T - cum)
    return ((y - 1) / y) ** 2


def _insq(s: Any, i: int, g: float, cum: float, d: int) -> float:
    y = i + 2 * float(s.get("T"))
    return ((y - 1) / y) ** 2


_cwl("cwl_rbp", "RBP as a C/W/L model", "phi",
     "Rank-biased precision with graded gains; equals rbp(p=phi) up to cwl_eval's "
     "normalization of W over the evaluation depth, (1 - phi) / (1 - phi^k).",
     (CWL_PHI,), Request.CWL_RBP, _cwl_phi,
     "Moffat & Zobel (TOIS 2008); cwl_rbp.py",
     "gains [1, 0, 1], phi = 0.5, k = 3: W = [4, 2, 1] / 7, EU = 5/7",
     cont=lambda s, i, g, cum, d: float(s.get("phi")))
_cwl("inst", "INST (adaptive expected rate of gain)",
     "((i + T + T_i - 1) / (i + T + T_i))^2, T_i = T - sum_{j<=i} g_j",
     "A user who wants T units of gain and stops sooner once it is found.",
     (CWL_T,), Request.CWL_INST, _cwl_t,
     "Moffat, Bailey, Scholer, Thomas, 'INST: an adaptive metric' (ADCS 2015); cwl_inst.py",
     "gains [1], T = 1, k = 1: EU = 1 (one rank: W(1) = 1)",
     cont=_inst)
_cwl("insq", "INSQ", "((i + 2T - 1) / (i + 2T))^2",
     "INST without the adaptation to the gain found (Moffat, Scholer, Thomas 2012).",
     (CWL_T,), Request.CWL_INSQ, _cwl_t,
     "Moffat, Scholer, Thomas, 'Models and metrics: IR evaluation as a user process' "
     "(ADCS 2012); cwl_insq.py",
     "gains [1, 0], T = 1, k = 2: C(1) = (2/3)^2, W = [9, 4] / 13, EU = 9/13",
     cont=_insq)
_cwl("sdcg", "Scaled DCG (DCG as a C/W/L model)",
     "log2(i + 1) / log2(i + 2) for i < k, 0 from k on",
     "DCG@k with its discount scaled to sum to 1 (cwl_eval NDCG-k, ir_measures SDCG@k): "
     "SDCG@k = DCG@k / sum_{i<=k} 1/log2(i + 1), with linear gains in [0, 1]. Without a "
     "cutoff k = 1000.",
     (), Request.CWL_SDCG, None,
     "Jarvelin & Kekalainen (2002); Moffat et al. (TOIS 2017); cwl_dcg.py",
     "gains [0, 1], k = 2: (1/log2(3)) / (1 + 1/log2(3)) = 0.38685",
     cont=lambda s, i, g, cum, d: math.log(i + 1) / math.log(i + 2) if i < d else 0.0)
_cwl("bpm", "Bejeweled player model (static)",
     "1 while sum_{j<=i} g_j < T and i < k, else 0",
     "The user stops once T units of gain are found or k items (unit costs) are examined "
     "(cwl_eval BPM-Static-T-K with K = k; ir_measures BPM(T)@k).",
     (CWL_T,), Request.CWL_BPM, _cwl_t,
     "Zhang, Liu, Li, Zhang, Xu, Ma, 'Evaluating web search with a bejeweled player model' "
     "(SIGIR 2017); cwl_bpm.py",
     "gains [0, 1, 1], T = 1, k = 3: C = [1, 0, ...], W = [1/2, 1/2], EU = 1/2",
     cont=lambda s, i, g, cum, d: 1.0 if cum < float(s.get("T")) and i < d else 0.0)
_cwl("nerr_eq8", "NERR, equation 8 (ERR with C(i) = 1 - g_i)",
     "1 - g_i for i < k, 0 from k on",
     "A C/W/L relative of ERR truncated at k (Azzopardi, Mackenzie, Moffat 2021, eq. 8).",
     (), Request.CWL_NERR8, None,
     "Azzopardi, Mackenzie, Moffat, 'ERR is not C/W/L' (ICTIR 2021); cwl_nerr.py",
     "gains [1/2, 1], k = 2: P = [1, 1/2], EU = (1/2 + 1/2) / (3/2) = 2/3",
     cont=lambda s, i, g, cum, d: 1.0 - g if i < d else 0.0)
_cwl("nerr_eq9", "NERR, equation 9", "(i / (i + 1)) (1 - g_i) for i < k, 0 from k on",
     "ERR's rank discount inside the continuation (Azzopardi et al. 2021, eq. 9).",
     (), Request.CWL_NERR9, None,
     "Azzopardi, Mackenzie, Moffat, 'ERR is not C/W/L' (ICTIR 2021); cwl_nerr.py",
     "gains [0, 1], k = 2: P = [1, 1/2], EU = (1/2) / (3/2) = 1/3",
     cont=lambda s, i, g, cum, d: (i / (i + 1)) * (1.0 - g) if i < d else 0.0)
_cwl("nerr_eq10", "NERR, equation 10", "phi (1 - g_i)",
     "ERR's satisfaction with RBP's persistence (Azzopardi et al. 2021, eq. 10).",
     (CWL_PHI,), Request.CWL_NERR10, _cwl_phi,
     "Azzopardi, Mackenzie, Moffat, 'ERR is not C/W/L' (ICTIR 2021); cwl_nerr.py",
     "gains [1], phi = 0.8: C(1) = 0, EU = 1",
     cont=lambda s, i, g, cum, d: float(s.get("phi")) * (1.0 - g))
_cwl("nerr_eq11", "NERR, equation 11", "((i + 2T - 1) / (i + 2T))^2 (1 - g_i)",
     "ERR's satisfaction with INSQ's patience (Azzopardi et al. 2021, eq. 11).",
     (CWL_T,), Request.CWL_NERR11, _cwl_t,
     "Azzopardi, Mackenzie, Moffat, 'ERR is not C/W/L' (ICTIR 2021); cwl_nerr.py",
     "gains [1], T = 1: C(1) = 0, EU = 1",
     cont=lambda s, i, g, cum, d: _insq(s, i, g, cum, d) * (1.0 - g))
