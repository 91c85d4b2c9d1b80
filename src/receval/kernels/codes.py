"""Integer request codes understood by ``_ranking.compute_metrics`` (kept in step with it)."""

HITS = 0
PRECISION = 1
RECALL = 2
FBETA = 3
HIT_RATE = 4
RR = 5
FIRST_HIT = 6
AP = 7
MAR = 8
CG = 9
DCG = 10
IDCG = 11
NDCG = 12
RPREC = 13
ERR = 14
RBP = 15
BPREF = 16
NREL = 17
NRET = 18
