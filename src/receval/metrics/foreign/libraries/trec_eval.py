"""trec_eval (also pytrec_eval, ir_measures)'s metric names and conventions (``compat="trec_eval"``)."""

from __future__ import annotations

from ..records import Name, Preset
from ..trec_eval import TREC_EVAL

#: every trec_eval measure with a receval metric of a built-in family, by its lower-case name
#: (the measures of plugin families are found by :func:`receval.metrics.foreign.library_entry`)
NAMES: dict[str, Name] = {m.name.lower(): Name(m.family, m.compat_params, m.doc)
                          for m in TREC_EVAL if m.family is not None and not m.plugin}

PRESET = Preset(
    "trec_eval", "trec_eval (also pytrec_eval, ir_measures)",
    "pytrec_eval-terrier 0.5.11 (trec_eval's C code)", "usnistgov/trec_eval measures.c and "
    "its m_*.c files; checked by tests/crosscheck/test_pytrec_eval.py",
    (("ties", "trec_eval"), ("users", "intersection"), ("empty_truth", "zero"),
     ("negative_rel", "zero")),
    NAMES,
    ("queries are those present in both the run and the qrels (trec_eval without -c); with "
     "-c use users='truth'",
     "ties: score as a 32-bit float descending, then docno descending"),
)
