"""trec_eval compatibility: measure names and aliases, trec_eval's measures and output layout."""

from ..metrics import canonical_key, canonical_keys
from .evaluate import TrecResult, trec_eval
from .measures import parse_measures

__all__ = ["TrecResult", "canonical_key", "canonical_keys", "parse_measures", "trec_eval"]
