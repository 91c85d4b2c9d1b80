"""ir_measures: the ``compat="ir_measures"`` preset against ``ir_measures.calc_aggregate``, each measure written as ir_measures
prints it (``str(measure)``: ``P(rel=2)@5``, ``nDCG(dcg='exp-log2')@10``, ``IPrec@0.5``).

ir_measures computes each measure with the first provider of its ``DefaultPipeline`` that
supports it: pytrec_eval for most, msmarco for ``RR@k``, gdeval for ``nDCG(dcg='exp-log2')@k``
and ``ERR@k``, judged for ``Judged``, cwl_eval for RBP and the C/W/L measures, compat for
``Compat`` and accuracy for ``Accuracy``. ir_measures 0.4.3 has no NCG (its issue #19): ``NCG@k``
is checked through its runtime provider (``define_byquery``), ir_measures choosing the queries
and taking the mean, the per-query value written from the TREC Deep Learning definition.
"""

from __future__ import annotations

import importlib.util

import numpy as np
from common import CUTS, TOL, Report, check, make_data, need, ours, strings, version

_PRESET = "ir_measures"


#: the preset's policies: the queries of the qrels, a query the run lacks scoring 0
TRUTH: dict[str, str] = {}
#: the msmarco and judged providers order tied scores by docno ascending
BY_ID = {"ties": "id"}
#: pytrec_eval's counts: the queries of both the run and the qrels (the preset's notes)
BOTH = {"users": "intersection"}
_TIES = "ties: trec_eval's"

Line = tuple[str, object, str, dict]


def _measures(irm) -> list[Line]:
    """(our name, ir_measures measure, known note, policies) for every entry checked."""
    out: list[Line] = []

    def add(measure, name: str | None = None, known: str = "", policies=TRUTH) -> None:
        out.append((name or str(measure), measure, known, policies))

    for k in CUTS:
        add(irm.P @ k)
        add(irm.P(rel=2) @ k)
        add(irm.Precision @ k, f"Precision@{k}")
        add(irm.R @ k)
        add(irm.Recall @ k, f"Recall@{k}")
        add(irm.AP @ k)
        add(irm.nDCG @ k)
        add(irm.Success @ k)
        add(irm.Judged @ k, known=_TIES)
        add(irm.Judged @ k, f"Judged@{k} ties=id", policies=BY_ID)
        add(irm.RR @ k, known=_TIES)
        add(irm.RR @ k, f"RR@{k} ties=id", policies=BY_ID)
        add(irm.MRR @ k, f"MRR@{k} ties=id", policies=BY_ID)
    for m in (irm.AP, irm.AP(rel=2), irm.RR, irm.RR(rel=2), irm.Rprec, irm.Rprec(rel=2),
              irm.Bpref, irm.Bpref(rel=2), irm.infAP, irm.nDCG, irm.SetP,
              irm.SetP(relative=True), irm.SetP(rel=2), irm.SetR, irm.SetF, irm.SetF(rel=2),
              irm.SetAP):
        add(m)
    for m in (irm.NumRet, irm.NumRel, irm.NumQ):
        add(m, policies=BOTH)
    add(irm.NumRelRet, "NumRelRet", policies=BOTH)
    add(irm.Judged, "Judged ties=id", policies=BY_ID)
    add(irm.MAP, "MAP")
    add(irm.MRR, "MRR")
    add(irm.SetRelP, "SetRelP")
    for p in (0.0, 0.3, 0.5, 1.0):
        add(irm.IPrec @ p)
    # judged_only=True: the policy unjudged='remove' (written after the cutoff; see the notes)
    add(irm.P(judged_only=True) @ 5, "P@5(judged_only=True)")
    add(irm.AP(judged_only=True), "AP(judged_only=True)")
    add(irm.nDCG(judged_only=True) @ 10, "nDCG@10(judged_only=True)")
    add(irm.SetF(judged_only=True), "SetF(judged_only=True)")
    return out


def _gdeval(irm) -> list[Line]:
    return [(str(m), m, "", TRUTH) for k in CUTS
            for m in (irm.nDCG(dcg="exp-log2") @ k, irm.ERR @ k)]


def _cwl(irm) -> list[Line]:
    out = [(str(m), m, "", TRUTH) for m in (
        irm.RBP(rel=1), irm.RBP(p=0.5, rel=1), irm.RBP(rel=2), irm.INST(max_rel=3),
        irm.INST(T=2.0, max_rel=3), irm.INSQ(max_rel=3), irm.INSQ(T=2.0, max_rel=3),
        irm.NERR10(max_rel=3), irm.NERR10(p=0.5, max_rel=3), irm.NERR11(max_rel=3),
        irm.NERR11(T=2.0, max_rel=3))]
    for k in CUTS:
        out += [(str(m), m, "", TRUTH) for m in (
            irm.SDCG(max_rel=3) @ k, irm.BPM(max_rel=3) @ k, irm.BPM(T=2.0, max_rel=3) @ k,
            irm.NERR8(max_rel=3) @ k, irm.NERR9(max_rel=3) @ k)]
    return out


def _compat_accuracy(irm) -> list[Line]:
    """Compat (the compat provider) with ties='id', Accuracy (the accuracy provider) with
    ties='input'; the queries of the qrels for Compat, those with a value for Accuracy."""
    out = [(str(m), m, "", BY_ID) for m in (
        irm.Compat, irm.Compat(p=0.8), irm.Compat(p=0.5), irm.Compat(p=1.0),
        irm.Compat(normalize=False), irm.Compat(p=0.8, normalize=False))]
    by_input = {"ties": "input"}
    out += [(str(m), m, "", by_input) for m in (irm.Accuracy, irm.Accuracy(rel=2))]
    # under the preset's own tie order (trec_eval's): the documented difference on ties
    out += [(f"{m} preset-ties", m, "Compat and Accuracy", {}) for m in
            (irm.Compat, irm.Accuracy)]
    return out


def _accuracy_cut(irm) -> list[Line]:
    """Accuracy@k on lists topped by an unjudged document: the provider raises
    ZeroDivisionError on a top k of relevant documents only (receval: NaN)."""
    by_input = {"ties": "input"}
    return [(str(m), m, "", by_input) for k in CUTS
            for m in (irm.Accuracy @ k, irm.Accuracy(rel=2) @ k)]


def _ncg_of(k: int):
    """NCG@k of one query from the TREC Deep Learning definition, for ir_measures' runtime
    provider (ir_measures 0.4.3 has no NCG): CG of the top k over the CG of the best k
    judged grades."""
    def ncg(qrels, run) -> float:
        grade = dict(zip(qrels["doc_id"], qrels["relevance"], strict=True))
        top = [max(grade.get(d, 0), 0) for d in list(run["doc_id"])[:k]]
        best = sorted((max(g, 0) for g in grade.values()), reverse=True)[:k]
        return sum(top) / sum(best) if sum(best) > 0 else 0.0
    return ncg


def _ncg(irm) -> list[Line]:
    return [(f"NCG@{k}", irm.define_byquery(_ncg_of(k), name=f"NCG_{k}", support_cutoff=False),
             "", {"ties": "input"}) for k in CUTS]


def _subtopic_data(seed: int):
    """Seeded subtopic qrels (query_id, iteration = subtopic, doc_id, relevance 0..2) with
    one-subtopic queries, a judged query the run lacks and a run query without judgments, a
    run with tied scores (ir_measures' frames), and the truth receval reads for the users
    (each (query, doc) at its largest subtopic grade)."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    rows, run = [], []
    for q in range(30):
        n_sub = 1 if q % 6 == 0 else int(rng.integers(2, 6))
        for d in range(20):
            for s in range(n_sub):
                if rng.random() < 0.3:
                    rows.append((f"q{q}", str(s), f"d{d:02d}", int(rng.integers(0, 3))))
        if q == 29:
            continue  # judged, not retrieved
        for d in rng.choice(25, size=int(rng.integers(0, 20)), replace=False):
            run.append((f"q{q}", f"d{d:02d}", float(rng.integers(0, 4))))
    run.append(("q99", "d01", 1.0))
    qrels = pd.DataFrame(rows, columns=["query_id", "iteration", "doc_id", "relevance"])
    run_frame = pd.DataFrame(run, columns=["query_id", "doc_id", "score"])
    truth = qrels.groupby(["query_id", "doc_id"], as_index=False)["relevance"].max()
    return qrels, run_frame, truth


def _diversity(irm) -> list[tuple[str, object]]:
    """Every intent-aware measure of the pyndeval provider, at the cutoffs and parameters
    it takes (judged_only=True is left out: the provider raises TypeError on it)."""
    out = []
    for k in CUTS:
        for m in (irm.alpha_nDCG @ k, irm.alpha_nDCG(alpha=0.3) @ k, irm.alpha_DCG @ k,
                  irm.ERR_IA @ k, irm.nERR_IA @ k, irm.P_IA @ k, irm.P_IA(rel=2) @ k,
                  irm.StRecall @ k):
            out.append((str(m), m))
    for m in (irm.NRBP, irm.NRBP(alpha=0.3, beta=0.8), irm.nNRBP, irm.nNRBP(rel=2),
              irm.AP_IA, irm.AP_IA(rel=2)):
        out.append((str(m), m))
    out.append(("MAP_IA", irm.MAP_IA))  # ir_measures prints its alias as AP_IA
    return out


def _drive_diversity(report: Report, irm, label: str) -> None:
    """The pyndeval provider reads the subtopic from the qrels' iteration field; receval
    reads the same frame as intents=. One measure a call: pyndeval keeps alpha and beta in
    global state, so two parameter sets in one call share the last one's."""
    qrels, run, truth = _subtopic_data(615)
    for name, measure in _diversity(irm):
        value = irm.calc_aggregate([measure], qrels, run)[measure]
        own = "nNRBP:" if name.startswith("nNRBP") else ""
        for policies, known, suffix in (({"ties": "id"}, own, " ties=id"),
                                        ({}, own or _TIES, "")):
            got = ours(run, truth, [name], _PRESET, intents=qrels, **policies)[name]
            report.add(_PRESET, label, name + suffix, got, value, known=known)


def _drive(report: Report, irm, label: str, measures: list[Line], run, truth,
           tol: float = TOL) -> None:
    for name, measure, known, policies in measures:
        # one measure a call: asked together, NumRet and NumRet(rel=1) share pytrec_eval's
        # relevance level
        value = irm.calc_aggregate([measure], truth, run)[measure]
        got = ours(run, truth, [name.split(" ")[0]], _PRESET, **policies)[name.split(" ")[0]]
        report.add(_PRESET, label, name, got, value, known=known, tol=tol)


@check(_PRESET, "ir_measures")
def check_ir_measures(report: Report) -> None:
    irm = need("ir_measures")
    label = f"ir_measures {version('ir_measures')}"
    run, truth = strings(*make_data(611, ties=True))
    _drive(report, irm, label, _measures(irm), run, truth)
    # gdeval reads numeric query ids and grades up to 4
    run, truth = make_data(612, ties=True)
    run = {str(q): {f"d{d:03d}": s for d, s in items.items()} for q, items in run.items()}
    truth = {str(q): {f"d{d:03d}": r for d, r in items.items()} for q, items in truth.items()}
    # gdeval prints 5 decimals: half a unit of the fifth
    _drive(report, irm, label + " (gdeval)", _gdeval(irm), run, truth, tol=5e-6)
    # Compat: ties broken as the provider does (docno ascending); its ideal ranking breaks
    # ties of grade and score by qrels order, here docno order as receval does
    run, truth = strings(*make_data(614, ties=True))
    truth = {q: dict(sorted(docs.items())) for q, docs in truth.items()}
    run = {q: dict(sorted(docs.items())) for q, docs in run.items()}
    _drive(report, irm, label + " (compat, accuracy)", _compat_accuracy(irm), run, truth)
    top = {q: {"dtop": max(docs.values()) + 1.0, **docs} for q, docs in run.items()}
    _drive(report, irm, label + " (accuracy, judged top k)", _accuracy_cut(irm), top, truth)
    # NCG: ir_measures' queries and mean, the per-query value from the formula; the runtime
    # provider also scores the run's queries that the qrels lack (0), which the preset ignores
    judged = {q: docs for q, docs in run.items() if q in truth}
    _drive(report, irm, label + " (runtime NCG)", _ncg(irm), judged, truth)
    if importlib.util.find_spec("pyndeval") is not None:
        _drive_diversity(report, irm, label + " (pyndeval)")
    if importlib.util.find_spec("cwl") is not None:
        # cwl_eval keeps tied documents in run order: distinct scores
        run, truth = strings(*make_data(613, ties=False))
        _drive(report, irm, label + " (cwl_eval)", _cwl(irm), run, truth)
