"""One table of foreign metric names: what trec_eval, ir_measures, ranx and every library preset
call a metric, and the receval metric (family and parameters) that gives the same value.

Three readers, one table: the name resolver (:func:`receval.metrics.parse_metric`, hence
``rv.evaluate`` keys and ``receval evaluate -m``), the trec_eval emulator (``receval trec``,
:mod:`receval.trec`) and the library presets (``compat=``, :mod:`receval.compat`).

==============  =====================================  ==============================
library         table                                  names as written
==============  =====================================  ==============================
trec_eval       :data:`TREC_EVAL` (one record a        ``P.5``, ``P_5``, ``set_F``,
                measure: parsing, summary, target)     ``iprec_at_recall.0.50``
ir_measures     :data:`IR_MEASURE_NAMES` (names with   ``P(rel=2)@5``, ``RBP(p=0.5)``,
                their parameters in parentheses)       ``IPrec@0.5``, ``SetF``
each preset     :data:`PRESETS`: a module a library      ``ndcg_burges@10``, ``hitrate@5``
                in :mod:`.libraries` (names, policies,
                notes); :data:`LIBRARY_NAMES`: names
==============  =====================================  ==============================
"""

from __future__ import annotations

import re

from .libraries import LIBRARY_NAMES, PRESET_ALIASES, PRESETS
from .libraries.ir_measures import IR_MEASURES_NAMES
from .libraries.ranx import RBP_P as RANX_RBP_P
from .records import Name, Preset, TrecMeasure, name, refuse
from .trec_eval import BY_NAME, CUTS, SETS, TREC_EVAL

__all__ = ["BY_NAME", "CUTS", "IR_MEASURES", "IR_MEASURE_NAMES", "LIBRARY_NAMES", "Name", "PRESETS", "PRESET_ALIASES",
           "Preset", "SETS", "TREC_EVAL", "TrecMeasure", "library_entry", "name", "refuse",
           "trec_measure"]

#: ir_measures measure name (lower case, ``ir_measures.measures.registry``) -> its entry under
#: ``compat="ir_measures"``: the receval metric, and its parameters (``rel``, ``judged_only``,
#: ``dcg``, ``p``, ``T``, ``max_rel``, ...) as :attr:`Name.options`
IR_MEASURE_NAMES: dict[str, Name] = IR_MEASURES_NAMES
#: ir_measures measure name (lower case) -> receval family (``None``: refused, the entry says why)
IR_MEASURES: dict[str, str | None] = {k: (e.family or None) for k, e in IR_MEASURES_NAMES.items()}

_LOWER = {m.name.lower(): m for m in TREC_EVAL}
# longest first, so that map_cut is found before map and num_rel_ret before num_rel
_PREFIXES = sorted(_LOWER, key=len, reverse=True)
_PRINTED = re.compile(r"[0-9.\-]")
# the measures of the plugin families (one each), by family: their receval keys under compat
_PLUGIN_FAMILIES = {str(m.family): m for m in TREC_EVAL if m.plugin}
_RANX_RBP = re.compile(r"^\s*rbp\.\d+\s*$", re.IGNORECASE)
_LEADING = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)")


def trec_measure(text: str) -> tuple[TrecMeasure, str | None] | None:
    """The trec_eval measure a name means and its parameter text, or None.

    Accepts the ``-m`` form (``P.5``, ``iprec_at_recall.0.50``, ``ndcg.1=3``) and the printed
    form (``P_5``, ``iprec_at_recall_0.50``, ``utility_2,-1,0,0``); case is folded.

    >>> m, text = trec_measure("iprec_at_recall_0.50"); m.name, text
    ('iprec_at_recall', '0.50')
    """
    low = text.strip().lower()
    if low in _LOWER:
        return _LOWER[low], None
    for base in _PREFIXES:
        rest = low[len(base) + 1:]
        if low.startswith(base) and len(low) > len(base) + 1 and rest:
            sep = low[len(base)]
            if sep == "." or (sep == "_" and _PRINTED.match(rest)):
                return _LOWER[base], text.strip()[len(base) + 1:]
    return None


def library_entry(library: str, text: str) -> Name | None:
    """The entry of a ranx ``rbp.p`` name (``rbp.95``), of a trec_eval name written with its
    parameters (``set_F``, ``Rprec_mult_1.00``), or of a receval key of one of the measures' plugin families
    (``gm_map(rel=2)``), under the ``library`` preset, or None (another library, or a name
    without a receval metric). Its parameters are :attr:`TrecMeasure.compat_params`."""
    if library == "ranx" and _RANX_RBP.match(text.partition("-l")[0]):  # rbp.95: p = 0.95
        return RANX_RBP_P
    found = trec_measure(text) if library == "trec_eval" else None
    if found is None and library == "trec_eval":  # a receval key: gm_map(rel=2), bin_g
        lead = _LEADING.match(text)
        measure = _PLUGIN_FAMILIES.get(lead.group(1).lower()) if lead else None
        found = (measure, None) if measure is not None else None
    if found is None or not found[0].maps(found[1]):
        return None
    return Name(str(found[0].family), found[0].compat_params, found[0].doc)
