# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""ndeval's greedy ideal ranking of every topic (the normaliser of alpha-nDCG, nERR-IA, nNRBP).

Each topic's judged relevant documents are grouped into clusters of documents relevant to the
same subtopics (a bit pattern over the topic's local subtopics). At each rank the greedy ideal
takes, among the clusters with documents left, the one of largest gain
``sum_j w_j g_j`` over its subtopics (summed in subtopic order, as ndeval does; ``g_j`` starts at
1 and is multiplied by ``1 - alpha`` whenever a document relevant to ``j`` is placed); a tie
goes to the cluster whose next document has the largest id in byte order (documents of a
cluster are taken in descending byte order). Only positive gains are kept.
"""

import numpy as np

cimport numpy as cnp
from libc.stdlib cimport free, malloc

cnp.import_array()


def greedy_ideal(const long long[::1] t_first, const long long[::1] pattern,
                 const long long[::1] count, const long long[::1] start,
                 const long long[::1] doc_rank, const double[:, ::1] weight,
                 const long long[::1] n_sub, double alpha, long long steps):
    """``(n_topics, steps)`` gains of each topic's greedy ideal list, 0 past its end.

    ``t_first``: CSR of each topic's clusters; per cluster its subtopic bit ``pattern``
    (< 2**62), document ``count`` and ``start`` into ``doc_rank`` (each cluster's documents'
    byte-order ranks, descending). ``weight[t, j]``: the weight of local subtopic j (the
    uniform weight 1 where none are given), ``n_sub[t]``: its subtopics."""
    cdef Py_ssize_t n_t = t_first.shape[0] - 1
    cdef Py_ssize_t s = weight.shape[1]
    out_arr = np.zeros((n_t, steps), dtype=np.float64)
    cdef double[:, ::1] out = out_arr
    cdef double decay = 1.0 - alpha
    cdef Py_ssize_t t, c, j, step, c0, c1, best_c, m_max = 0
    cdef double score, best
    cdef long long nxt, best_nxt, bits
    cdef double* g = <double*> malloc(max(s, 1) * sizeof(double))
    cdef long long* taken
    for t in range(n_t):
        if t_first[t + 1] - t_first[t] > m_max:
            m_max = t_first[t + 1] - t_first[t]
    taken = <long long*> malloc(max(m_max, 1) * sizeof(long long))
    if g == NULL or taken == NULL:
        free(g)
        free(taken)
        raise MemoryError()
    try:
        with nogil:
            for t in range(n_t):
                c0, c1 = t_first[t], t_first[t + 1]
                if c1 == c0:
                    continue
                for j in range(s):
                    g[j] = 1.0 if j < n_sub[t] else 0.0
                for c in range(c1 - c0):
                    taken[c] = 0
                for step in range(steps):
                    best_c = -1
                    best = -1.0
                    best_nxt = -1
                    for c in range(c0, c1):
                        if taken[c - c0] >= count[c]:
                            continue
                        score = 0.0
                        bits = pattern[c]
                        for j in range(s):
                            if (bits >> j) & 1:
                                score = score + weight[t, j] * g[j]
                        nxt = doc_rank[start[c] + taken[c - c0]]
                        if score > best or (score == best and nxt > best_nxt):
                            best, best_c, best_nxt = score, c, nxt
                    if best_c < 0 or best <= 0.0:
                        break
                    out[t, step] = best
                    bits = pattern[best_c]
                    for j in range(s):
                        if (bits >> j) & 1:
                            g[j] = g[j] * decay
                    taken[best_c - c0] += 1
    finally:
        free(g)
        free(taken)
    return out_arr
