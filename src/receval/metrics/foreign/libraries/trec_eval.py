"""trec_eval's metric names and conventions (``compat="trec_eval"``, also
``compat="pytrec_eval"``): its measures as ``-m`` and its output write them (``P.5``,
``P_5``, ``set_F``, ``iprec_at_recall.0.50``)."""

from __future__ import annotations

from ..records import Name, Preset
from ..trec_eval import TREC_EVAL

#: every trec_eval measure with a receval metric of a built-in family, by its lower-case name
#: (the measures of plugin families are found by :func:`receval.metrics.foreign.library_entry`)
#: (a measure without integer cutoffs, set_P or num_ret, is no reading of a receval key @k)
NAMES: dict[str, Name] = {
    m.name.lower(): Name(m.family, m.compat_params, m.doc,
                         cutoff="optional" if m.kind == "cut_long" else "none")
    for m in TREC_EVAL if m.family is not None and not m.plugin}

PRESET = Preset(
    "trec_eval", "trec_eval (also pytrec_eval)",
    "pytrec_eval-terrier 0.5.11 (trec_eval's C code)", "usnistgov/trec_eval measures.c and "
    "its m_*.c files; checked by tests/crosscheck/test_pytrec_eval.py and "
    "test_preset_trec_eval.py",
    (("ties", "trec_eval"), ("users", "intersection"), ("empty_truth", "zero"),
     ("negative_rel", "zero")),
    NAMES,
    ("queries are those present in both the run and the qrels (trec_eval without -c); with "
     "-c use users='truth'",
     "ties: score as a 32-bit float descending, then docno descending"),
)
