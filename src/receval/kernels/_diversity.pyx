# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The compiled passes of the intent-aware (ndeval) measures: ndeval's greedy ideal ranking of
every topic (the normaliser of alpha-nDCG, nERR-IA, nNRBP: ``greedy_ideal`` over clusters
found beforehand, ``ideal_lists`` from the judged pairs), one pass over the run's lists that
gives what every measure sums (``list_gains``), the per-user sums above a cutoff
(``cut_sums``) and the codes of ``str`` ids (``str_codes``). Every sum is added in the order
of the array operations it replaces (subtopic order within a position, rank order within a
user), so the values are the same bits.

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
from cython.parallel cimport parallel, prange, threadid
from libc.stdlib cimport free, malloc, qsort

cnp.import_array()

include "_threads.pxi"
include "_alloc.pxi"
include "_sortlongs.pxi"

cdef extern from *:
    """
    /* the lowest set bit of a nonzero word */
    #if defined(_MSC_VER)
    #include <intrin.h>
    static int receval_ctz64(unsigned long long x) {
        unsigned long i; _BitScanForward64(&i, x); return (int) i;
    }
    #else
    static int receval_ctz64(unsigned long long x) { return __builtin_ctzll(x); }
    #endif
    """
    int receval_ctz64(unsigned long long x) nogil


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


ctypedef fused code_t:
    int
    long long


cdef object _runs(const long long[::1] offsets, int nt):
    """Each thread's first part (``nt + 1`` bounds): parts ``i`` of work
    ``offsets[i + 1] - offsets[i]`` cut into ``nt`` runs of about equal work."""
    cdef Py_ssize_t n = offsets.shape[0] - 1, i
    cdef long long total = offsets[n] - offsets[0] if n > 0 else 0
    cuts_arr = np.zeros(nt + 1, dtype=np.int64)
    cdef long long[::1] cuts = cuts_arr
    cdef int t = 1
    for i in range(max(n, 0)):
        while t < nt and offsets[i] - offsets[0] >= total * t // nt:
            cuts[t] = i
            t += 1
    while t < nt:
        cuts[t] = n
        t += 1
    cuts[nt] = max(n, 0)
    return cuts_arr


cdef inline int _sub_bits(long long n_subs) noexcept nogil:
    """The bits of a subtopic code in a judgment's key: the least ``b`` with ``2**b >=
    n_subs``, so that the key's fields are read by shifts and masks, not divisions."""
    cdef int b = 0
    while (1LL << b) < n_subs:
        b += 1
    return b


cdef long long _topic_keys(const long long* rows, long long m, const long long* doc,
                           const long long* sub, const double* relevance, double rel,
                           int sb, long long* keys) noexcept nogil:
    """One topic's judgments (``rows``) as ascending keys ``((doc << sb | sub) << 1) |
    relevant``; returns the number of judged documents, or -1 when a (document, subtopic)
    judgment is given twice."""
    cdef long long q, r
    cdef bint ascending = True
    for q in range(m):
        r = rows[q]
        keys[q] = (((doc[r] << sb) | sub[r]) << 1) | (1 if relevance[r] >= rel else 0)
        if q and keys[q] < keys[q - 1]:
            ascending = False
    if not ascending:
        qsort(keys, m, sizeof(long long), _cmp_ll)
    return _topic_docs(keys, m, sb)


cdef long long _topic_docs(const long long* keys, long long m, int sb) noexcept nogil:
    """The judged documents of one topic's ascending keys; -1 when a (document, subtopic)
    judgment is given twice."""
    cdef long long q, n_docs = 0
    for q in range(m):
        if q and (keys[q] >> 1) == (keys[q - 1] >> 1):
            return -1
        if q == 0 or (keys[q] >> (sb + 1)) != (keys[q - 1] >> (sb + 1)):
            n_docs += 1
    return n_docs


cdef long long _topic_subtopics(const long long* keys, long long m, int sb,
                                char* seen, long long* found) noexcept nogil:
    """The topic's subtopics with a relevant judgment, ascending, into ``found``; their
    number (``seen``: a zeroed flag per subtopic, zeroed again after)."""
    cdef long long q, c, n = 0, smask = (1LL << sb) - 1
    for q in range(m):
        if keys[q] & 1:
            c = (keys[q] >> 1) & smask
            if not seen[c]:
                seen[c] = 1
                found[n] = c
                n += 1
    for q in range(n):
        seen[found[q]] = 0
    _sort_longs(found, n)  # (a topic has few subtopics: sorted in line)
    return n


cdef void _intent_topics(const long long* start, const long long* sorted_keys,
                         const long long* order, const long long* doc,
                         const long long* sub, const double* relevance, double rel,
                         long long n_docs, long long n_subs, Py_ssize_t lo, Py_ssize_t hi,
                         long long m_max, long long* n_pairs, long long* n_sub,
                         const long long* pair_off, const long long* ts_off, long long s_max,
                         long long* key, unsigned char* relm, long long* nrel_sub,
                         long long* ts_sub, long long* bits, int* fail) noexcept nogil:
    """Topics ``lo .. hi - 1`` of :func:`intent_pairs`: without ``pair_off``, each topic's
    judged documents and subtopics with a relevant document counted (``fail`` 2: a
    judgment given twice); with it, written. Each topic's keys are its part of
    ``sorted_keys`` (its rows ``start[t]:start[t + 1]``), or else made from its rows
    ``order[start[t]:start[t + 1]]`` and sorted."""
    cdef long long t, q, p, d, c, m, k, base
    cdef int sb = _sub_bits(n_subs)
    cdef long long smask = (1LL << sb) - 1
    cdef long long* keys = <long long*> receval_alloc(m_max, sizeof(long long), 0)
    cdef long long* found = <long long*> receval_alloc(min(m_max, n_subs), sizeof(long long), 0)
    cdef long long* local = <long long*> receval_alloc(n_subs, sizeof(long long), 0)
    cdef char* seen = <char*> receval_alloc(n_subs, 1, 1)
    if keys == NULL or found == NULL or local == NULL or seen == NULL:
        fail[0] = 1
        hi = lo
    for t in range(lo, hi):
        if fail[0]:
            break
        m = start[t + 1] - start[t]
        if sorted_keys != NULL:  # the topic's keys, less its base
            base = (t * n_docs) << (sb + 1)
            for q in range(m):
                keys[q] = sorted_keys[start[t] + q] - base
        if pair_off == NULL:
            if sorted_keys != NULL:
                n_pairs[t] = _topic_docs(keys, m, sb)
            else:
                n_pairs[t] = _topic_keys(&order[start[t]], m, doc, sub, relevance, rel,
                                         sb, keys)
            if n_pairs[t] < 0:
                fail[0] = 2
                break
            n_sub[t] = _topic_subtopics(keys, m, sb, seen, found)
            continue
        if sorted_keys == NULL:
            _topic_keys(&order[start[t]], m, doc, sub, relevance, rel, sb, keys)
        k = _topic_subtopics(keys, m, sb, seen, found)
        for q in range(k):
            local[found[q]] = q
            ts_sub[ts_off[t] + q] = found[q]
        p = pair_off[t] - 1
        for q in range(m):
            d = keys[q] >> (sb + 1)
            if q == 0 or d != keys[q - 1] >> (sb + 1):
                p += 1
                key[p] = t * n_docs + d
            if keys[q] & 1:
                c = local[(keys[q] >> 1) & smask]
                relm[p * s_max + c] = 1
                nrel_sub[t * s_max + c] += 1
                if bits != NULL:
                    bits[p] |= 1LL << c
    free(keys)
    free(found)
    free(local)
    free(seen)


cdef inline Py_ssize_t _run_at(const long long* starts, Py_ssize_t n_runs,
                               Py_ssize_t i) noexcept nogil:
    """The run holding row ``i``: the last ``r < n_runs`` with ``starts[r] <= i``."""
    cdef Py_ssize_t lo = 0, hi = n_runs - 1, mid
    while lo < hi:
        mid = (lo + hi + 1) >> 1
        if starts[mid] <= i:
            lo = mid
        else:
            hi = mid - 1
    return lo


cdef inline long long _coded(const long long* codes, const long long* rank,
                             const long long* starts, Py_ssize_t n_runs, Py_ssize_t i,
                             Py_ssize_t* run) noexcept nogil:
    """Row ``i``'s code (``rank`` applied when not NULL): ``codes[i]``, or with ``starts``
    the code of its run (``run``: the run of the row before, moved on)."""
    cdef long long c
    if starts != NULL:
        while run[0] + 1 < n_runs and starts[run[0] + 1] <= i:
            run[0] += 1
        c = codes[run[0]]
    else:
        c = codes[i]
    return rank[c] if rank != NULL else c


cdef bint _one_per(const long long[::1] codes, const long long[::1] runs, Py_ssize_t n):
    """Whether ``codes`` holds one code per row of ``n`` (``runs`` None) or per run."""
    if runs is None:
        return codes.shape[0] == n
    return runs.shape[0] == codes.shape[0] + 1 and runs[0] == 0 and \
        runs[runs.shape[0] - 1] == n


def intent_keys(const long long[::1] topic, const long long[::1] topic_rank,
                const long long[::1] doc, const long long[::1] doc_rank,
                const long long[::1] sub, const long long[::1] sub_rank,
                const double[::1] relevance, double rel, long long n_topics, long long n_docs,
                long long n_subs, const long long[::1] topic_runs=None,
                const long long[::1] doc_runs=None, const long long[::1] sub_runs=None):
    """Every judgment's key ``(((t * n_docs + d) << b | s) << 1) | [relevance >= rel]``
    (``b``: the bits of a subtopic code, ``2**b >= n_subs``), ``t = topic_rank[topic]``
    (``topic`` itself when ``topic_rank`` is empty), likewise ``d`` and ``s``:
    :func:`intent_pairs`' ``sorted_keys`` before their sort, in parallel; ``None`` when
    ``n_topics`` x ``n_docs`` x ``2**(b + 1)`` keys do not fit below ``2**62``.

    ``topic_runs`` (likewise ``doc_runs``, ``sub_runs``): the column is coded by runs of
    equal rows, ``topic[r]`` the code of the rows ``topic_runs[r] .. topic_runs[r + 1] -
    1`` (the last entry: the number of rows), so that no code per row is made."""
    cdef Py_ssize_t n = relevance.shape[0], i, lo, hi, rt, rd, rs
    cdef long long t, d, c
    cdef int sb = _sub_bits(n_subs), th
    if sb > 60 or max(n_docs, 1) > (1LL << (61 - sb)) // max(n_topics, 1):
        return None  # (n_topics * n_docs * 2**(sb + 1) > 2**62, tested without overflow)
    if not (_one_per(topic, topic_runs, n) and _one_per(doc, doc_runs, n) and
            _one_per(sub, sub_runs, n)):
        raise ValueError("intent_keys: a column has not one code per row or per run")
    out_arr = np.empty(n, dtype=np.int64)
    cdef long long* out = <long long*> cnp.PyArray_DATA(out_arr)
    cdef const long long* tp = &topic[0] if topic.shape[0] else NULL
    cdef const long long* dp = &doc[0] if doc.shape[0] else NULL
    cdef const long long* sp = &sub[0] if sub.shape[0] else NULL
    cdef const long long* trk = &topic_rank[0] if topic_rank.shape[0] else NULL
    cdef const long long* drk = &doc_rank[0] if doc_rank.shape[0] else NULL
    cdef const long long* srk = &sub_rank[0] if sub_rank.shape[0] else NULL
    cdef const long long* tr = &topic_runs[0] if topic_runs is not None else NULL
    cdef const long long* dr = &doc_runs[0] if doc_runs is not None else NULL
    cdef const long long* sr = &sub_runs[0] if sub_runs is not None else NULL
    cdef Py_ssize_t ntr = topic.shape[0], ndr = doc.shape[0], nsr = sub.shape[0]
    cdef const double* relp = &relevance[0] if n else NULL
    cdef int nt = _threads(n)
    with nogil, parallel(num_threads=nt):  # each thread a range of rows, in order
        th = threadid()
        lo = n * th // nt
        hi = n * (th + 1) // nt
        rt = _run_at(tr, ntr, lo) if tr != NULL and lo < hi else 0
        rd = _run_at(dr, ndr, lo) if dr != NULL and lo < hi else 0
        rs = _run_at(sr, nsr, lo) if sr != NULL and lo < hi else 0
        for i in range(lo, hi):
            t = _coded(tp, trk, tr, ntr, i, &rt)
            d = _coded(dp, drk, dr, ndr, i, &rd)
            c = _coded(sp, srk, sr, nsr, i, &rs)
            out[i] = ((((t * n_docs + d) << sb) | c) << 1) | (1 if relp[i] >= rel else 0)
    return out_arr


def intent_pairs(const long long[::1] topic, const long long[::1] doc,
                 const long long[::1] sub, const double[::1] relevance, double rel,
                 long long n_topics, long long n_docs, long long n_subs,
                 const long long[::1] sorted_keys=None):
    """Subtopic judgments (codes of sorted raw ids per row) as the judged (topic, document)
    pairs: ``(key, rel, bits, n_sub, nrel_sub, ts_topic, ts_sub, local_of_ts)``, or ``None`` when
    a (topic, document, subtopic) judgment is given twice.

    ``key``: the pairs ``topic * n_docs + doc``, ascending; ``rel[p, j]`` (bool): pair ``p``
    has a judgment >= ``rel`` for the topic's local subtopic ``j`` (its subtopics with a
    relevant document, ascending), ``bits[p]`` the same as bits (``None`` past 62 local
    subtopics); ``n_sub`` (A per topic), ``nrel_sub`` (topics x the most
    local subtopics: relevant documents per local subtopic); per (topic, local subtopic):
    topic, subtopic code and local index. In parallel over runs of topics of about equal
    rows (counted, then written).

    ``sorted_keys``: every judgment's key of :func:`intent_keys`, ascending (the other
    columns are then not read); else rows are grouped by topic (a counting sort) and each
    topic's judgments sorted on their own."""
    cdef bint presorted = sorted_keys is not None
    cdef Py_ssize_t n = sorted_keys.shape[0] if presorted else topic.shape[0], i, t
    start_arr = np.zeros(n_topics + 1, dtype=np.int64)
    order_arr = np.empty(1 if presorted else max(n, 1), dtype=np.int64)
    cdef long long[::1] start = start_arr
    cdef long long[::1] order = order_arr
    cdef long long m_max = 1, s_max = 0, span = n_docs << (_sub_bits(n_subs) + 1)
    if presorted:
        start_arr[:] = np.searchsorted(sorted_keys, np.arange(n_topics + 1, dtype=np.int64)
                                       * span)
        if n_topics:
            m_max = max(1, int(np.diff(start_arr).max()))
    else:
        with nogil:
            for i in range(n):
                start[topic[i] + 1] += 1
            for t in range(n_topics):
                m_max = max(m_max, start[t + 1])
                start[t + 1] += start[t]
            for i in range(n):  # (start[t] runs ahead while topic t is placed, then back)
                order[start[topic[i]]] = i
                start[topic[i]] += 1
            for t in range(n_topics, 0, -1):
                start[t] = start[t - 1]
            start[0] = 0
    cdef const long long* sk_p = &sorted_keys[0] if presorted and n else NULL
    n_pairs_arr = np.zeros(n_topics, dtype=np.int64)
    n_sub_arr = np.zeros(n_topics, dtype=np.int64)
    cdef long long[::1] n_pairs = n_pairs_arr
    cdef long long[::1] n_sub = n_sub_arr
    cdef int nt = _threads_over(n, n_topics), th
    cdef long long[::1] cuts = _runs(start_arr, nt)
    cdef int failed = 0
    cdef int* fail = &failed  # written through the pointer: shared by the threads
    cdef const long long* doc_p = &doc[0] if doc.shape[0] else NULL
    cdef const long long* sub_p = &sub[0] if sub.shape[0] else NULL
    cdef const double* rel_p = &relevance[0] if relevance.shape[0] else NULL
    cdef long long* np_p = &n_pairs[0] if n_topics else NULL
    cdef long long* ns_p = &n_sub[0] if n_topics else NULL
    with nogil:
        for th in prange(nt, num_threads=nt, schedule="static", chunksize=1):
            _intent_topics(&start[0], sk_p, &order[0], doc_p, sub_p, rel_p, rel, n_docs,
                           max(n_subs, 1), cuts[th], cuts[th + 1], m_max, np_p, ns_p, NULL,
                           NULL, 0, NULL, NULL, NULL, NULL, NULL, fail)
    if failed == 2:
        return None
    if failed:
        raise _no_memory("a topic's judgments", m_max * 16 + max(n_subs, 1) * 9, nt)
    pair_off_arr = np.zeros(n_topics + 1, dtype=np.int64)
    ts_off_arr = np.zeros(n_topics + 1, dtype=np.int64)
    np.cumsum(n_pairs_arr, out=pair_off_arr[1:])
    np.cumsum(n_sub_arr, out=ts_off_arr[1:])
    s_max = int(n_sub_arr.max()) if n_topics else 0
    key_arr = np.empty(pair_off_arr[n_topics], dtype=np.int64)
    relm_arr = np.zeros((pair_off_arr[n_topics], s_max), dtype=np.uint8)
    nrel_arr = np.zeros((n_topics, s_max), dtype=np.int64)
    ts_sub_arr = np.empty(ts_off_arr[n_topics], dtype=np.int64)
    cdef long long[::1] pair_off = pair_off_arr
    cdef long long[::1] ts_off = ts_off_arr
    cdef long long[::1] key = key_arr
    cdef unsigned char* relm_p = <unsigned char*> cnp.PyArray_DATA(relm_arr)
    cdef long long* nrel_p = <long long*> cnp.PyArray_DATA(nrel_arr)
    cdef long long* ts_p = <long long*> cnp.PyArray_DATA(ts_sub_arr)
    cdef long long* key_p = <long long*> cnp.PyArray_DATA(key_arr)
    bits_arr = np.zeros(pair_off_arr[n_topics] if s_max <= 62 else 0, dtype=np.int64)
    cdef long long* bits_p = <long long*> cnp.PyArray_DATA(bits_arr) if s_max <= 62 else NULL
    with nogil:
        for th in prange(nt, num_threads=nt, schedule="static", chunksize=1):
            _intent_topics(&start[0], sk_p, &order[0], doc_p, sub_p, rel_p, rel, n_docs,
                           max(n_subs, 1), cuts[th], cuts[th + 1], m_max, np_p, ns_p,
                           &pair_off[0], &ts_off[0], s_max, key_p, relm_p, nrel_p, ts_p,
                           bits_p, fail)
    if failed:
        raise _no_memory("a topic's judgments", m_max * 16 + max(n_subs, 1) * 9, nt)
    ts_topic = np.repeat(np.arange(n_topics, dtype=np.int64), n_sub_arr)
    local_of_ts = np.arange(len(ts_topic), dtype=np.int64) - ts_off_arr[:-1][ts_topic]
    return (key_arr, relm_arr.view(np.bool_), bits_arr if s_max <= 62 else None, n_sub_arr,
            nrel_arr, ts_topic, ts_sub_arr, local_of_ts)


cdef long long _gains_users(const long long* indptr, const int* items32,
                           const long long* items64, const long long* vocab_docs,
                           const long long* topic, const long long* pair_lo,
                           const long long* pair_hi, const long long* key, long long n_docs,
                           const unsigned char* rel, const unsigned char* any_rel,
                           const double* weight, const long long* nrel_sub, Py_ssize_t s,
                           double alpha, bint judged_only, Py_ssize_t lo, Py_ssize_t hi,
                           long long cap, long long* out_user, long long* out_rank,
                           double* out_gain, double* out_wrel, double* out_wnew,
                           long long* length, double* ap, int* fail) noexcept nogil:
    """Users ``lo .. hi - 1`` of :func:`list_gains`, their relevant positions written from the
    outputs' start (at most ``cap``); how many, or -1 when they do not fit. Working memory
    of its own (``fail`` set, nothing done, when it cannot be had)."""
    cdef Py_ssize_t u, p, j, q
    cdef long long t, d, pair, rank, base, n_out = 0, c
    cdef double decay = 1.0 - alpha
    cdef double g, wr, wn, w, total, apj
    cdef long long* where = <long long*> receval_alloc(max(n_docs, 1), sizeof(long long), 0)
    cdef long long* cnt = <long long*> receval_alloc(max(s, 1), sizeof(long long), 0)
    cdef double* cur = <double*> receval_alloc(max(s, 1), sizeof(double), 0)
    cdef double* apsum = <double*> receval_alloc(max(s, 1), sizeof(double), 0)
    if where == NULL or cnt == NULL or cur == NULL or apsum == NULL:
        fail[0] = 1
        hi = lo
    else:
        for q in range(n_docs):
            where[q] = -1
    for u in range(lo, hi):
        if fail[0]:  # out of memory in another thread: no more work
            break
        t = topic[u]
        if t < 0:
            length[u] = 0 if judged_only else indptr[u + 1] - indptr[u]
            ap[u] = 0.0
            continue
        base = t * n_docs
        for q in range(pair_lo[u], pair_hi[u]):
            where[key[q] - base] = q
        for j in range(s):
            cnt[j] = 0
            cur[j] = 1.0
            apsum[j] = 0.0
        rank = 0
        for p in range(indptr[u], indptr[u + 1]):
            c = items32[p] if items32 != NULL else items64[p]
            d = c if vocab_docs == NULL or c < 0 else vocab_docs[c]
            pair = where[d] if d >= 0 else -1
            if pair < 0:
                if not judged_only:
                    rank += 1
                continue
            if any_rel[pair]:
                if n_out >= cap:
                    n_out = -1
                    break
                g = 0.0
                wr = 0.0
                wn = 0.0
                for j in range(s):
                    if rel[pair * s + j]:
                        w = weight[t * s + j]
                        g = g + w * cur[j]
                        wr = wr + w
                        if cnt[j] == 0:
                            wn = wn + w
                        apsum[j] = apsum[j] + <double> (cnt[j] + 1) / (rank + 1.0)
                        cur[j] = cur[j] * decay
                        cnt[j] += 1
                out_user[n_out] = u
                out_rank[n_out] = rank
                out_gain[n_out] = g
                out_wrel[n_out] = wr
                out_wnew[n_out] = wn
                n_out += 1
            rank += 1
        for q in range(pair_lo[u], pair_hi[u]):
            where[key[q] - base] = -1
        if n_out < 0:
            break
        length[u] = rank if judged_only else indptr[u + 1] - indptr[u]
        total = 0.0
        for j in range(s):
            if nrel_sub[t * s + j] > 0:
                apj = apsum[j] / <double> nrel_sub[t * s + j]
                total = total + apj * weight[t * s + j]
        ap[u] = total
    free(where)
    free(cnt)
    free(cur)
    free(apsum)
    return n_out


def list_gains(const long long[::1] indptr, const code_t[::1] items,
               const long long[::1] vocab_docs, const long long[::1] topic,
               const long long[::1] pair_lo, const long long[::1] pair_hi,
               const long long[::1] key, long long n_docs, const unsigned char[:, ::1] rel,
               const unsigned char[::1] any_rel, const double[:, ::1] weight,
               const long long[:, ::1] nrel_sub, double alpha, bint judged_only):
    """One pass over each list in rank order: ``(user, rank, gain, wrel, wnew, length, ap)``.

    User ``u`` ranks ``items[indptr[u]:indptr[u + 1]]`` (run-vocabulary codes, which
    ``vocab_docs`` maps to document codes, -1: never judged; ``vocab_docs`` empty: document
    codes themselves, -1 for the documents never judged) for topic ``topic[u]`` (-1: none), whose
    judged pairs are ``pair_lo[u]:pair_hi[u]`` of ``key`` (``topic * n_docs + doc``), ``rel``
    their relevant local subtopics. Per position relevant to some subtopic: the user, its rank
    (0-based; among the judged documents under ``judged_only``), its gain
    ``sum_j w_j rel_j (1 - alpha)^c_j`` (``c_j`` the documents relevant to ``j`` above; the
    powers as running products, the sum in subtopic order), ``sum_j w_j rel_j`` and the same
    over the subtopics it covers first. Per user: the list length read and
    ``sum_j [R_j > 0] AP_j / R_j w_j`` with ``AP_j = sum_{r: rel_rj} (c_rj + 1) / (r + 1)``
    (positions in rank order, subtopics in order).

    In parallel over runs of users of about equal positions, each writing from the bound of
    the runs before it (a user's relevant positions are at most its judged pairs, unless its
    list repeats a document: then at most its positions), the runs then moved together."""
    cdef Py_ssize_t n_u = indptr.shape[0] - 1, u
    cdef Py_ssize_t s = rel.shape[1]
    cdef long long positions = indptr[n_u] - indptr[0] if n_u > 0 else 0, room
    cdef long long n_out
    cdef int nt = _threads_over(positions, n_u), t, attempt
    cdef int failed = 0
    cdef int* fail = &failed  # written through the pointer: shared by the threads
    cdef long long[::1] cuts = _runs(indptr, nt)  # each thread's first user
    at_arr = np.zeros(nt + 1, dtype=np.int64)    # where each run's positions start
    got_arr = np.zeros(nt, dtype=np.int64)       # how many each wrote (-1: did not fit)
    cdef long long[::1] at = at_arr
    cdef long long[::1] got = got_arr
    length_arr = np.zeros(max(n_u, 0), dtype=np.int64)
    ap_arr = np.zeros(max(n_u, 0), dtype=np.float64)
    cdef long long[::1] length = length_arr
    cdef double[::1] ap = ap_arr
    cdef const int* items32 = NULL
    cdef const long long* items64 = NULL
    if code_t is int:
        items32 = &items[0] if items.shape[0] else NULL
    else:
        items64 = &items[0] if items.shape[0] else NULL
    cdef const unsigned char* rel_p = &rel[0, 0] if rel.shape[0] and s else NULL
    cdef const unsigned char* any_p = &any_rel[0] if any_rel.shape[0] else NULL
    cdef const double* w_p = &weight[0, 0] if weight.shape[0] and weight.shape[1] else NULL
    cdef const long long* nrel_p = &nrel_sub[0, 0] \
        if nrel_sub.shape[0] and nrel_sub.shape[1] else NULL
    cdef const long long* docs_p = &vocab_docs[0] if vocab_docs.shape[0] else NULL
    cdef long long[::1] o_user
    cdef long long[::1] o_rank
    cdef double[::1] o_gain
    cdef double[::1] o_wrel
    cdef double[::1] o_wnew
    for attempt in range(2):  # room: the judged pairs, then (a list repeats) the positions
        for t in range(nt):
            room = 0
            for u in range(cuts[t], cuts[t + 1]):
                room += indptr[u + 1] - indptr[u] if attempt else \
                    min(indptr[u + 1] - indptr[u], pair_hi[u] - pair_lo[u])
            at[t + 1] = at[t] + room
        outs = [np.empty(max(at[nt], 1), dtype=dt) for dt in
                (np.int64, np.int64, np.float64, np.float64, np.float64)]
        o_user, o_rank, o_gain, o_wrel, o_wnew = outs
        with nogil:
            for t in prange(nt, num_threads=nt, schedule="static", chunksize=1):
                got[t] = _gains_users(
                    &indptr[0], items32, items64, docs_p, &topic[0] if n_u else NULL,
                    &pair_lo[0] if n_u else NULL, &pair_hi[0] if n_u else NULL,
                    &key[0] if key.shape[0] else NULL, n_docs, rel_p, any_p, w_p, nrel_p, s,
                    alpha, judged_only, cuts[t], cuts[t + 1], at[t + 1] - at[t],
                    &o_user[at[t]], &o_rank[at[t]], &o_gain[at[t]], &o_wrel[at[t]],
                    &o_wnew[at[t]], &length[0] if n_u else NULL, &ap[0] if n_u else NULL,
                    fail)
        if failed:
            raise _no_memory("a list's document table", max(n_docs, 1) * 8, nt)
        if (got_arr >= 0).all():
            break
    n_out = 0
    for t in range(nt):  # the runs moved together, in order (each one down)
        if at[t] != n_out:
            for a in outs:
                a[n_out:n_out + got[t]] = a[at[t]:at[t] + got[t]]
        n_out += got[t]
    return tuple(a[:n_out] for a in outs) + (length_arr, ap_arr)


def cut_sums(const long long[::1] indptr, const long long[::1] rank,
             const double[::1] values, const double[::1] factor, const double[::1] k):
    """Per user ``u``: ``sum values[i] * factor[rank[i]]`` over its positions ``i`` in
    ``indptr[u] .. indptr[u + 1] - 1`` with ``rank[i] < k[u]``, added in position order
    (``factor`` empty: 1; ``k`` empty: every position). Each user's ranks ascend, so that
    the sum stops at the first rank at or past the cutoff."""
    cdef Py_ssize_t n = indptr.shape[0] - 1 if indptr.shape[0] else 0
    out_arr = np.zeros(n, dtype=np.float64)
    cdef double[::1] out = out_arr
    cdef Py_ssize_t u, i
    cdef bint cut = k.shape[0] > 0, scaled = factor.shape[0] > 0
    cdef double total, ku
    with nogil:
        for u in range(n):
            total = 0.0
            ku = k[u] if cut else 0.0
            for i in range(indptr[u], indptr[u + 1]):
                if cut and not (<double> rank[i] < ku):
                    break
                if scaled:
                    total = total + values[i] * factor[rank[i]]
                else:
                    total = total + values[i]
            out[u] = total
    return out_arr


cdef struct _Doc:
    long long pattern
    long long rank


cdef int _by_pattern_then_rank_desc(const void* a, const void* b) noexcept nogil:
    cdef const _Doc* x = <const _Doc*> a
    cdef const _Doc* y = <const _Doc*> b
    if x.pattern != y.pattern:
        return -1 if x.pattern < y.pattern else 1
    if x.rank != y.rank:
        return -1 if x.rank > y.rank else 1
    return 0


cdef long long _ideal_topics(const long long* topic, const long long* pair_lo,
                            const long long* pair_hi, const long long* bits,
                            const long long* key, long long n_docs, const long long* doc_order,
                            const double* weight, Py_ssize_t s, const long long* n_sub,
                            double alpha, const long long* off, Py_ssize_t lo, Py_ssize_t hi, Py_ssize_t m_max, double* out,
                            long long* count, int* fail) noexcept nogil:
    """Topics ``lo .. hi - 1`` of :func:`ideal_lists`: topic ``i``'s gains written from
    ``out[off[i] - off[lo]]`` on (its judged pairs bound them), their number to
    ``count[i]``; ``m_max``: the most judged pairs of one topic. Working memory of its own
    (``fail`` set, nothing done, when it cannot be had)."""
    cdef Py_ssize_t i, q, m, c, j, n_cl, best_c, best_i, li, n_live, n_tab, slot
    cdef long long t, b, nxt, best_nxt, pos
    cdef unsigned long long rest
    cdef double score, best, decay = 1.0 - alpha
    cdef bint ascending
    cdef _Doc* arr
    cdef _Doc* docs = <_Doc*> receval_alloc(m_max, sizeof(_Doc), 0)
    cdef _Doc* grouped = <_Doc*> receval_alloc(m_max, sizeof(_Doc), 0)
    cdef long long* tab = <long long*> receval_alloc(4 * m_max + 16, sizeof(long long), 0)
    cdef long long* cl_of = <long long*> receval_alloc(m_max, sizeof(long long), 0)
    cdef long long* fill = <long long*> receval_alloc(m_max, sizeof(long long), 0)
    cdef long long* cl_pat = <long long*> receval_alloc(m_max, sizeof(long long), 0)
    cdef long long* cl_start = <long long*> receval_alloc(m_max, sizeof(long long), 0)
    cdef long long* cl_end = <long long*> receval_alloc(m_max, sizeof(long long), 0)
    cdef double* cl_score = <double*> receval_alloc(m_max, sizeof(double), 0)
    cdef double* g = <double*> receval_alloc(max(s, 1), sizeof(double), 0)
    cdef long long first = off[lo] if lo < hi else 0
    if docs == NULL or cl_pat == NULL or cl_start == NULL or cl_end == NULL or \
            cl_score == NULL or g == NULL or grouped == NULL or tab == NULL or \
            cl_of == NULL or fill == NULL:
        fail[0] = 1
        hi = lo
    for i in range(lo, hi):
        if fail[0]:  # out of memory in another thread: no more work
            break
        t = topic[i]
        pos = off[i] - first
        m = 0
        for q in range(pair_lo[i], pair_hi[i]):
            if bits[q] != 0:
                docs[m].pattern = bits[q]
                docs[m].rank = doc_order[key[q] - t * n_docs]
                m += 1
        ascending = True  # str ids: key order is byte order
        for q in range(1, m):
            if docs[q].rank < docs[q - 1].rank:
                ascending = False
                break
        n_cl = 0
        if ascending:  # clusters by a table of patterns, documents placed backwards
            n_tab = 16
            while n_tab < 2 * m:
                n_tab *= 2
            for slot in range(n_tab):
                tab[slot] = -1
            for q in range(m):
                slot = <Py_ssize_t> (((<unsigned long long> docs[q].pattern)
                                      * 0x9E3779B97F4A7C15ULL) >> 40) & (n_tab - 1)
                while tab[slot] >= 0 and cl_pat[tab[slot]] != docs[q].pattern:
                    slot = (slot + 1) & (n_tab - 1)
                if tab[slot] < 0:
                    tab[slot] = n_cl
                    cl_pat[n_cl] = docs[q].pattern
                    cl_end[n_cl] = 0
                    n_cl += 1
                cl_of[q] = tab[slot]
                cl_end[tab[slot]] += 1
            q = 0
            for c in range(n_cl):
                cl_start[c] = q
                q += cl_end[c]
                cl_end[c] = q
                fill[c] = cl_start[c]
            for q in range(m - 1, -1, -1):
                grouped[fill[cl_of[q]]] = docs[q]
                fill[cl_of[q]] += 1
            arr = grouped
        else:
            qsort(docs, m, sizeof(_Doc), _by_pattern_then_rank_desc)
            for q in range(m):
                if q == 0 or docs[q].pattern != docs[q - 1].pattern:
                    if n_cl:
                        cl_end[n_cl - 1] = q
                    cl_pat[n_cl] = docs[q].pattern
                    cl_start[n_cl] = q
                    n_cl += 1
            if n_cl:
                cl_end[n_cl - 1] = m
            arr = docs
        for j in range(s):
            g[j] = 1.0 if j < n_sub[t] else 0.0
        b = -1  # the subtopics whose gain changed: at first, all
        for c in range(n_cl):  # the clusters with documents left (a cluster drops out
            fill[c] = c        # when its last one is placed)
        n_live = n_cl
        while True:
            best_c = -1
            best_i = -1
            best = -1.0
            best_nxt = -1
            for li in range(n_live):
                c = fill[li]
                if cl_pat[c] & b:  # else its gain is the one computed before
                    score = 0.0
                    rest = <unsigned long long> cl_pat[c]
                    while rest:  # its subtopics, ascending
                        j = receval_ctz64(rest)
                        score = score + weight[t * s + j] * g[j]
                        rest = rest & (rest - 1)
                    cl_score[c] = score
                score = cl_score[c]
                nxt = arr[cl_start[c]].rank
                if score > best or (score == best and nxt > best_nxt):
                    best, best_c, best_i, best_nxt = score, c, li, nxt
            if best_c < 0 or best <= 0.0:
                break
            out[pos] = best
            pos += 1
            b = cl_pat[best_c]
            rest = <unsigned long long> b
            while rest:
                j = receval_ctz64(rest)
                g[j] = g[j] * decay
                rest = rest & (rest - 1)
            cl_start[best_c] += 1
            if cl_start[best_c] >= cl_end[best_c]:
                n_live -= 1
                fill[best_i] = fill[n_live]
        count[i] = pos - (off[i] - first)
    free(docs)
    free(grouped)
    free(tab)
    free(cl_of)
    free(fill)
    free(cl_pat)
    free(cl_start)
    free(cl_end)
    free(cl_score)
    free(g)
    return 0


def ideal_lists(const long long[::1] topic, const long long[::1] pair_lo,
                const long long[::1] pair_hi, const long long[::1] bits,
                const long long[::1] key, long long n_docs, const long long[::1] doc_order,
                const double[:, ::1] weight, const long long[::1] n_sub, double alpha):
    """ndeval's greedy ideal list of each topic ``topic[i]``: ``(indptr, gains)``, topic
    ``i``'s gains ``gains[indptr[i]:indptr[i + 1]]``.

    The topic's pairs ``pair_lo[i]:pair_hi[i]`` with a subtopic bit pattern ``bits`` (< 2**62; 0: relevant to none, left out) are grouped
    into clusters of one pattern, each cluster's documents in descending ``doc_order`` (byte
    order of their ids: when that is the order of the pairs, as for ``str`` ids, by a table
    of the patterns, else by a sort); then the greedy loop of :func:`greedy_ideal`, whose
    result does not depend on the order of the clusters (a cluster's gain is computed again
    only when the gain of one of its subtopics changed).

    In parallel over runs of topics of about equal pairs: each topic's gains are written from
    the sum of the pairs of the topics before it (its own bound them), then moved together."""
    cdef Py_ssize_t n_t = topic.shape[0], i, m_max = 1
    cdef long long pairs = 0, n_out = 0
    off_arr = np.zeros(n_t + 1, dtype=np.int64)   # where each topic's gains are written
    cdef long long[::1] off = off_arr
    for i in range(n_t):
        m_max = max(m_max, pair_hi[i] - pair_lo[i])
        pairs += pair_hi[i] - pair_lo[i]
        off[i + 1] = pairs
    cdef int nt = _threads_over(pairs, n_t), t
    cdef int failed = 0
    cdef int* fail = &failed  # written through the pointer: shared by the threads
    cdef long long[::1] cuts = _runs(off_arr, nt)  # each thread's first topic
    out_arr = np.empty(max(pairs, 1), dtype=np.float64)
    count_arr = np.zeros(n_t, dtype=np.int64)
    cdef double[::1] out = out_arr
    cdef long long[::1] count = count_arr
    cdef const long long* topic_p = &topic[0] if n_t else NULL
    cdef const long long* lo_p = &pair_lo[0] if n_t else NULL
    cdef const long long* hi_p = &pair_hi[0] if n_t else NULL
    cdef const long long* bits_p = &bits[0] if bits.shape[0] else NULL
    cdef const long long* key_p = &key[0] if key.shape[0] else NULL
    cdef const long long* order_p = &doc_order[0] if doc_order.shape[0] else NULL
    cdef const long long* nsub_p = &n_sub[0] if n_sub.shape[0] else NULL
    cdef long long* count_p = &count[0] if n_t else NULL
    cdef const double* weight_p = &weight[0, 0] if weight.shape[0] and weight.shape[1] else NULL
    with nogil:
        for t in prange(nt, num_threads=nt, schedule="static", chunksize=1):
            _ideal_topics(topic_p, lo_p, hi_p, bits_p, key_p, n_docs, order_p, weight_p,
                          weight.shape[1], nsub_p, alpha, &off[0], cuts[t], cuts[t + 1],
                          m_max, &out[off[cuts[t]]] if cuts[t] < cuts[t + 1] else &out[0],
                          count_p, fail)
    if failed:
        raise _no_memory("a topic's ideal list", m_max * 72, nt)
    indptr_arr = np.zeros(n_t + 1, dtype=np.int64)
    cdef long long[::1] indptr = indptr_arr
    with nogil:  # each topic's gains moved down to follow the one before
        for i in range(n_t):
            for t in range(count[i]):
                out[n_out + t] = out[off[i] + t]
            n_out += count[i]
            indptr[i + 1] = n_out
    return indptr_arr, out_arr[:n_out]


from cpython.ref cimport PyObject
from libc.stdint cimport uint64_t
from libc.string cimport memcmp


cdef extern from *:
    """
    /* a str (exactly) whose canonical (PEP 393) data can be read in place */
    static int receval_div_is_str(PyObject* o) {
        if (!PyUnicode_CheckExact(o)) return 0;
    #if PY_VERSION_HEX < 0x030C0000
        if (!PyUnicode_IS_READY(o)) return 0;
    #endif
        return 1;
    }
    static Py_ssize_t receval_div_bytes(PyObject* o) {
        return PyUnicode_GET_LENGTH(o) * (Py_ssize_t) PyUnicode_KIND(o);
    }
    static int receval_div_kind(PyObject* o) { return (int) PyUnicode_KIND(o); }
    static const unsigned char* receval_div_data(PyObject* o) {
        return (const unsigned char*) PyUnicode_DATA(o);
    }
    """
    int receval_div_is_str(PyObject* o) nogil
    Py_ssize_t receval_div_bytes(PyObject* o) nogil
    int receval_div_kind(PyObject* o) nogil
    const unsigned char* receval_div_data(PyObject* o) nogil


cdef inline bint _same_str(PyObject* a, PyObject* b) noexcept nogil:
    """Equal ``str`` values (equal strings have the same canonical kind and data)."""
    cdef Py_ssize_t n
    if a == b:
        return True
    n = receval_div_bytes(a)
    return receval_div_kind(a) == receval_div_kind(b) and n == receval_div_bytes(b) and \
        memcmp(receval_div_data(a), receval_div_data(b), n) == 0


cdef inline uint64_t _str_hash(PyObject* o) noexcept nogil:
    """FNV-1a over the canonical data, then a final mix."""
    cdef const unsigned char* p = receval_div_data(o)
    cdef Py_ssize_t n = receval_div_bytes(o), i
    cdef uint64_t h = 14695981039346656037ULL ^ <uint64_t> receval_div_kind(o)
    for i in range(n):
        h = (h ^ p[i]) * 1099511628211ULL
    h ^= h >> 32
    h *= 0xd6e8feb86659fd93ULL
    return h ^ (h >> 32)


def str_codes(cnp.ndarray values):
    """``(codes, distinct)`` of an object array of ``str``: ``distinct`` in order of first
    appearance, ``codes[i]`` the position of ``values[i]`` there; ``None`` when a value is not
    a ``str`` (the caller then reads the column another way). A row equal to the row before
    takes its code; the others are looked up in an open-addressing table of the distinct
    values (hash of their canonical data, compared byte by byte)."""
    if values.dtype != object or values.ndim != 1 or not values.flags.c_contiguous:
        raise ValueError("str_codes reads a contiguous 1-d object array")
    cdef Py_ssize_t n = values.shape[0], i
    codes_arr = np.empty(n, dtype=np.int64)
    cdef long long[::1] codes = codes_arr
    cdef list distinct = []
    cdef PyObject** objs = <PyObject**> cnp.PyArray_DATA(values)
    cdef PyObject* v
    cdef PyObject* prev = NULL
    cdef long long code = -1, n_distinct = 0, cap = 1024, mask, slot, j
    cdef uint64_t h
    cdef long long* table = <long long*> malloc(cap * sizeof(long long))
    cdef uint64_t* hashes = <uint64_t*> malloc(cap * sizeof(uint64_t))
    cdef PyObject** first = <PyObject**> malloc(cap * sizeof(PyObject*))
    cdef long long* grown
    cdef uint64_t* grown_h
    cdef PyObject** grown_f
    if table == NULL or hashes == NULL or first == NULL:
        free(table)
        free(hashes)
        free(first)
        raise MemoryError()
    try:
        for slot in range(cap):
            table[slot] = -1
        mask = cap - 1
        for i in range(n):
            v = objs[i]
            if prev != NULL and v == prev:
                codes[i] = code
                continue
            if not receval_div_is_str(v):
                return None
            if prev != NULL and _same_str(v, prev):  # a run of one id: no lookup
                codes[i] = code
                prev = v
                continue
            h = _str_hash(v)
            slot = <long long> (h & <uint64_t> mask)
            while table[slot] >= 0 and not (hashes[slot] == h and _same_str(first[slot], v)):
                slot = (slot + 1) & mask
            if table[slot] < 0:  # a new id
                code = n_distinct
                n_distinct += 1
                distinct.append(<object> v)
                table[slot] = code
                hashes[slot] = h
                first[slot] = v
                if 2 * n_distinct > cap:  # at most half full: grow, and place every id again
                    grown = <long long*> malloc(2 * cap * sizeof(long long))
                    grown_h = <uint64_t*> malloc(2 * cap * sizeof(uint64_t))
                    grown_f = <PyObject**> malloc(2 * cap * sizeof(PyObject*))
                    if grown == NULL or grown_h == NULL or grown_f == NULL:
                        free(grown)
                        free(grown_h)
                        free(grown_f)
                        raise MemoryError()
                    for j in range(2 * cap):
                        grown[j] = -1
                    for j in range(cap):
                        if table[j] >= 0:
                            slot = <long long> (hashes[j] & <uint64_t> (2 * cap - 1))
                            while grown[slot] >= 0:
                                slot = (slot + 1) & (2 * cap - 1)
                            grown[slot] = table[j]
                            grown_h[slot] = hashes[j]
                            grown_f[slot] = first[j]
                    free(table)
                    free(hashes)
                    free(first)
                    table, hashes, first = grown, grown_h, grown_f
                    cap *= 2
                    mask = cap - 1
            else:
                code = table[slot]
            codes[i] = code
            prev = v
    finally:
        free(table)
        free(hashes)
        free(first)
    return codes_arr, distinct
