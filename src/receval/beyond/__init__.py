"""Beyond-accuracy metrics: coverage, entropy, Gini, novelty, diversity, serendipity,
personalization and popularity bias; agreement of two runs (:func:`run_overlap`).

Standalone functions work on plain arrays (lists as ``(indptr, items)``, a (users x k) id array
with -1 padding, or a list of sequences); each family module also registers its metrics, beside
their array code, as plugin metric families of :func:`receval.evaluate` (importing this package
registers them all).
"""

from .catalogue import (
    ExposureState,
    catalog_coverage,
    effective_coverage,
    entropy,
    gini,
    tail_share,
)
from .categories import ItemCategories, as_item_categories, profile_intent_weights
from .diversity import (
    Similarity,
    intra_list_diversity,
    intra_list_similarity,
    similarity_novelty,
)
from .dq import unrepeated_reco
from .inputs import ItemFeatures, as_item_features, as_train, resolve_catalog
from .listpairs import kendall_tau, rbo
from .personalization import PersonalizationState, personalization
from .popularity import aplt, arp, novelty, popularity_curve, self_information, tail_mask
from .runs import run_overlap
from .serendipity import expected_by_popularity, serendipity

__all__ = [
    "ExposureState", "ItemCategories", "ItemFeatures", "PersonalizationState", "Similarity", "aplt", "arp",
    "as_item_categories", "as_item_features", "profile_intent_weights", "as_train", "catalog_coverage", "effective_coverage", "entropy",
    "expected_by_popularity", "gini", "intra_list_diversity", "intra_list_similarity",
    "kendall_tau", "novelty", "personalization", "popularity_curve", "rbo", "resolve_catalog",
    "run_overlap", "self_information",
    "serendipity", "similarity_novelty", "tail_mask", "tail_share", "unrepeated_reco",
]
