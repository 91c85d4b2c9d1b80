# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Fused packing kernel: group run rows by user, order, deduplicate, cut, join with the truth.

One serial counting pass groups rows by user (stable, so input order survives within a user);
then each user's rows are gathered, ordered (score descending, then the tie key ascending, or
the input row ascending for ``ties="input"``; lists that are already ordered are not sorted
again), deduplicated, cut at ``depth`` and joined with the user's truth slice by binary search,
in parallel over users. Integers and floats only.
"""

import numpy as np

cimport numpy as cnp
from cython.parallel cimport parallel, prange
from libc.math cimport INFINITY, isfinite, signbit
from libc.stdlib cimport free, qsort

cnp.import_array()

include "_threads.pxi"
include "_alloc.pxi"


cdef struct Row:
    double score
    long long key
    long long idx


cdef inline bint _before(const Row* x, const Row* y, const void* ctx) noexcept nogil:
    """x sorts strictly before y: score descending, then key, then row ascending; with a
    non-NULL ``ctx`` (``ties="input"``) score descending, then row ascending."""
    if x.score != y.score:
        return x.score > y.score
    if ctx == NULL and x.key != y.key:
        return x.key < y.key
    return x.idx < y.idx


include "_rowsort.pxi"
include "_truthgroups.pxi"


cdef inline long long _absll(long long v) noexcept nogil:
    return -v if v < 0 else v


def pack_lists(const int[::1] user_codes, const long long[::1] user_map,
               long long n_groups, const double[::1] score,
               const int[::1] item_codes, const long long[::1] item_key,
               const long long[::1] item_truth, const long long[::1] t_indptr,
               const long long[::1] t_items, const double[::1] t_rel,
               long long depth, int dedupe, int nan_mode, int as_float32,
               int keep_items=1, int keep_scores=1, const long long[::1] cutoffs=None,
               int keep_rows=0, int by_row=0):
    """Packed lists of one run.

    Row i belongs to evaluated user ``user_map[user_codes[i]]`` (dropped when either is -1).
    Row codes are int32 (half the memory of int64 on runs of 1e8 rows).
    ``item_key[c]`` orders tied scores of run item c ascending (its absolute value identifies the
    item for duplicate detection); ``item_truth[c]`` is its truth code or -1.
    ``dedupe``: 0 keep and count duplicates, every occurrence with the item's relevance
    (``duplicates="count"``; ``"error"`` refuses them afterwards); 1 keep, of the rows of one
    item, the best-ranked (first in sorted order: highest score, then tie key, then row), which
    does not depend on the order of the input rows (``duplicates="first"`` and ``"max"``);
    2 keep every row at its position, the best-ranked occurrence with the item's relevance and
    the later ones as items without a truth row (relevance 0, not judged;
    ``duplicates="keep"``). ``nan_mode``: 0 keep, 1 drop rows with non-finite scores, 2 rank
    them last. ``as_float32``: compare scores as 32-bit floats (trec_eval). ``by_row``: order
    tied scores by input row instead of the tie key (``ties="input"``).

    Returns ``(indptr, items, scores, rel, judged, list_len, n_dup, n_dropped)``.
    """
    cdef Py_ssize_t n = user_codes.shape[0], i
    cdef long long g, u
    cdef cnp.ndarray[cnp.int64_t, ndim=1] counts_arr = np.zeros(n_groups + 1, dtype=np.int64)
    cdef long long[::1] counts = counts_arr
    cdef long long n_dropped = 0
    for i in range(n):
        u = user_codes[i]
        if u < 0:
            continue
        g = user_map[u]
        if g < 0:
            continue
        if nan_mode == 1 and not isfinite(score[i]):
            n_dropped += 1
            continue
        counts[g + 1] += 1
    for g in range(n_groups):
        counts[g + 1] += counts[g]
    cdef cnp.ndarray[cnp.int64_t, ndim=1] rows_arr = np.empty(counts[n_groups], dtype=np.int64)
    cdef long long[::1] rows = rows_arr
    cdef cnp.ndarray[cnp.int64_t, ndim=1] fill_arr = counts_arr[:n_groups].copy()
    cdef long long[::1] fill = fill_arr
    for i in range(n):
        u = user_codes[i]
        if u < 0:
            continue
        g = user_map[u]
        if g < 0:
            continue
        if nan_mode == 1 and not isfinite(score[i]):
            continue
        rows[fill[g]] = i
        fill[g] += 1
    del fill_arr

    cdef long long maxlen = 1, n_keys = 1
    for g in range(n_groups):
        if counts[g + 1] - counts[g] > maxlen:
            maxlen = counts[g + 1] - counts[g]
    for i in range(item_key.shape[0]):
        if _absll(item_key[i]) >= n_keys:
            n_keys = _absll(item_key[i]) + 1

    cdef cnp.ndarray[cnp.int64_t, ndim=1] full_arr = np.zeros(n_groups, dtype=np.int64)
    cdef long long[::1] full_len = full_arr
    cdef cnp.ndarray[cnp.int64_t, ndim=1] ndup_arr = np.zeros(n_groups, dtype=np.int64)
    cdef long long[::1] ndup = ndup_arr
    cdef cnp.ndarray[cnp.int8_t, ndim=1] tied_arr = np.zeros(n_groups, dtype=np.int8)
    cdef signed char[::1] tied = tied_arr
    if cutoffs is None:
        cutoffs = np.zeros(0, dtype=np.int64)
    cdef Py_ssize_t n_cut = cutoffs.shape[0], ci
    cdef long long ck
    cdef Row* buf
    cdef long long* mark
    cdef long long s, e, m, j, jj, w, kk, r
    cdef double sc
    cdef int nt = _threads_over(n, n_groups)
    cdef int row_order = 1
    cdef const void* ctx = <const void*> &row_order if by_row else NULL
    cdef int failed = 0
    cdef int* fail = &failed  # written through the pointer: shared by the threads
    cdef bint ok
    with nogil, parallel(num_threads=nt):
        buf = <Row*> receval_alloc(maxlen, sizeof(Row), 0)
        mark = <long long*> receval_alloc(n_keys, sizeof(long long), 0)
        ok = buf != NULL and mark != NULL
        if not ok:
            fail[0] = 1
        for jj in range(n_keys if ok else 0):
            mark[jj] = -1
        for g in prange(n_groups, schedule="guided"):
            if not ok or fail[0]:  # out of memory (here or in another thread): no more work
                continue
            s = counts[g]
            e = counts[g + 1]
            m = 0
            for j in range(e - s):
                r = rows[s + j]
                kk = item_key[item_codes[r]]
                if mark[_absll(kk)] == g:
                    ndup[g] += 1
                else:
                    mark[_absll(kk)] = g
                sc = score[r]
                if nan_mode == 2 and not isfinite(sc):
                    sc = -INFINITY
                if as_float32:
                    sc = <double> (<float> sc)
                buf[m].score = sc
                buf[m].key = kk
                buf[m].idx = r
                m = m + 1
            _sort_rows(buf, m, ctx)  # rows already in order are left as they are
            if dedupe == 2 and ndup[g] > 0:  # later occurrences: marked by a negative row
                for j in range(m):
                    if mark[_absll(buf[j].key)] == -2 - g:
                        buf[j].idx = -buf[j].idx - 1
                    else:
                        mark[_absll(buf[j].key)] = -2 - g
            elif dedupe != 0 and ndup[g] > 0:
                w = 0
                for j in range(m):
                    if mark[_absll(buf[j].key)] == -2 - g:
                        continue
                    mark[_absll(buf[j].key)] = -2 - g
                    buf[w] = buf[j]
                    w = w + 1
                m = w
            for ci in range(n_cut):
                ck = cutoffs[ci]
                if ck < m and buf[ck - 1].score == buf[ck].score:
                    tied[g] = 1
                    break
            full_len[g] = m
            for j in range(m):
                rows[s + j] = buf[j].idx
        free(buf)
        free(mark)
    if failed:
        raise _no_memory(f"packing a list of {maxlen:,} rows over {n_keys:,} item keys",
                         maxlen * sizeof(Row) + n_keys * sizeof(long long), nt)

    cdef cnp.ndarray[cnp.int64_t, ndim=1] indptr_arr = np.zeros(n_groups + 1, dtype=np.int64)
    cdef long long[::1] indptr = indptr_arr
    for g in range(n_groups):
        m = full_len[g]
        if depth > 0 and m > depth:
            m = depth
        indptr[g + 1] = indptr[g] + m
    cdef long long total = indptr[n_groups]
    cdef cnp.ndarray[cnp.int64_t, ndim=1] items_arr = np.empty(total if keep_items else 0,
                                                                dtype=np.int64)
    cdef cnp.ndarray[cnp.float64_t, ndim=1] scores_arr = np.empty(total if keep_scores else 0,
                                                                   dtype=np.float64)
    cdef cnp.ndarray[cnp.float64_t, ndim=1] rel_arr = np.zeros(total, dtype=np.float64)
    cdef cnp.ndarray[cnp.int8_t, ndim=1] judged_arr = np.zeros(total, dtype=np.int8)
    cdef cnp.ndarray[cnp.int64_t, ndim=1] perm_arr = np.empty(total if keep_rows else 0,
                                                               dtype=np.int64)
    cdef long long[::1] perm = perm_arr
    cdef long long[::1] items = items_arr
    cdef double[::1] scores = scores_arr
    cdef double[::1] rel = rel_arr
    cdef signed char[::1] judged = judged_arr
    cdef long long p, c, lo, hi, mid, tend
    cdef bint later
    for g in prange(n_groups, nogil=True, schedule="guided", num_threads=nt):
        tend = t_indptr[g + 1]
        for j in range(indptr[g + 1] - indptr[g]):
            r = rows[counts[g] + j]
            later = r < 0
            if later:
                r = -r - 1
            p = indptr[g] + j
            if keep_rows:
                perm[p] = r
            c = item_codes[r]
            if keep_items:
                items[p] = c
            if keep_scores:
                sc = score[r]
                if nan_mode == 2 and not isfinite(sc):
                    sc = -INFINITY
                if as_float32:
                    sc = <double> (<float> sc)
                scores[p] = sc
            c = item_truth[c]
            if c < 0 or later:
                continue
            lo = t_indptr[g]
            hi = tend
            while lo < hi:
                mid = (lo + hi) // 2
                if t_items[mid] < c:
                    lo = mid + 1
                else:
                    hi = mid
            if lo < tend and t_items[lo] == c:
                rel[p] = t_rel[lo]
                judged[p] = 1
    return (indptr_arr, items_arr, scores_arr, rel_arr, judged_arr, full_arr, ndup_arr,
            n_dropped, tied_arr, perm_arr)


def group_rows(const int[::1] codes, long long n_codes):
    """Rows of each user code: ``(rstart, rows)`` with user ``c``'s rows
    ``rows[rstart[c]:rstart[c + 1]]`` in input order. When the codes are the block numbers of
    grouped input (0, 0, 1, 1, 1, 2, ...) ``rows`` is empty: the rows themselves."""
    cdef Py_ssize_t n = codes.shape[0], i
    cdef cnp.ndarray[cnp.int64_t, ndim=1] start_arr = np.zeros(n_codes + 1, dtype=np.int64)
    cdef long long[::1] start = start_arr
    cdef bint grouped = n == 0 or codes[0] == 0
    cdef long long c, prev = 0
    with nogil:
        for i in range(1, n):
            c = codes[i] - codes[i - 1]
            if c != 0 and c != 1:
                grouped = False
                break
        if grouped:
            for i in range(1, n):
                if codes[i] != codes[i - 1]:
                    start[codes[i]] = i
            if n:
                for c in range(codes[n - 1] + 1, n_codes + 1):
                    start[c] = n
    if grouped:
        return start_arr, np.zeros(0, dtype=np.int64)
    start_arr[:] = 0
    for i in range(n):
        if codes[i] >= 0:
            start[codes[i] + 1] += 1
    for c in range(n_codes):
        start[c + 1] += start[c]
    cdef cnp.ndarray[cnp.int64_t, ndim=1] rows_arr = np.empty(start[n_codes], dtype=np.int64)
    cdef long long[::1] rows = rows_arr
    cdef cnp.ndarray[cnp.int64_t, ndim=1] fill_arr = start_arr[:n_codes].copy()
    cdef long long[::1] fill = fill_arr
    for i in range(n):
        c = codes[i]
        if c >= 0:
            rows[fill[c]] = i
            fill[c] += 1
    return start_arr, rows_arr


cdef struct TRow:
    long long item
    double rel
    long long idx


cdef int _cmp_trow(const void* a, const void* b) noexcept nogil:
    """Item ascending, relevance descending, row ascending."""
    cdef const TRow* x = <const TRow*> a
    cdef const TRow* y = <const TRow*> b
    if x.item != y.item:
        return -1 if x.item < y.item else 1
    if x.rel != y.rel:
        return -1 if x.rel > y.rel else 1
    return (x.idx > y.idx) - (x.idx < y.idx)




def group_truth(const int[::1] user_codes, long long n_users, const int[::1] item_codes,
                const double[::1] rel, int dedupe):
    """Truth rows grouped by user, in parallel over users.

    Per user: the item codes ascending (int64), their relevances, the same relevances sorted
    descending (the ideal list), and the number of repeated (user, item) rows. ``dedupe=1``
    keeps, of the rows of one (user, item), the one with the highest relevance (the first row
    among equal ones); ``dedupe=0`` keeps them all (the caller refuses them).

    Returns ``(indptr, items, rel, rel_desc, n_dup)``.
    """
    cdef Py_ssize_t n = user_codes.shape[0]
    cdef long long g
    start_arr, rows_arr = group_rows(user_codes, n_users)
    cdef long long[::1] start = start_arr
    cdef long long[::1] rows = rows_arr
    cdef bint has_rows = rows.shape[0] > 0
    cdef long long maxlen = 1
    for g in range(n_users):
        if start[g + 1] - start[g] > maxlen:
            maxlen = start[g + 1] - start[g]
    cdef cnp.ndarray[cnp.int64_t, ndim=1] items_arr = np.empty(n, dtype=np.int64)
    cdef cnp.ndarray[cnp.float64_t, ndim=1] rel_arr = np.empty(n, dtype=np.float64)
    cdef cnp.ndarray[cnp.float64_t, ndim=1] desc_arr = np.empty(n, dtype=np.float64)
    cdef cnp.ndarray[cnp.int64_t, ndim=1] kept_arr = np.zeros(n_users, dtype=np.int64)
    cdef cnp.ndarray[cnp.int64_t, ndim=1] ndup_arr = np.zeros(n_users, dtype=np.int64)
    cdef long long[::1] out_items = items_arr
    cdef double[::1] out_rel = rel_arr
    cdef double[::1] out_desc = desc_arr
    cdef long long[::1] kept = kept_arr
    cdef long long[::1] ndup = ndup_arr
    cdef TRow* buf
    cdef long long s, e, j, m, w, r
    cdef int nt = _threads_over(n, n_users)
    cdef int failed = 0
    cdef int* fail = &failed  # written through the pointer: shared by the threads
    cdef bint ok
    with nogil, parallel(num_threads=nt):
        buf = <TRow*> receval_alloc(maxlen, sizeof(TRow), 0)
        ok = buf != NULL
        if not ok:
            fail[0] = 1
        for g in prange(n_users, schedule="guided"):
            if not ok or fail[0]:  # out of memory (here or in another thread): no more work
                continue
            s = start[g]
            e = start[g + 1]
            m = e - s
            for j in range(m):
                r = rows[s + j] if has_rows else s + j
                buf[j].item = item_codes[r]
                buf[j].rel = rel[r]
                buf[j].idx = r
            if m > 1:
                qsort(buf, m, sizeof(TRow), _cmp_trow)
            w = 0
            for j in range(m):
                if j > 0 and buf[j].item == buf[j - 1].item:
                    ndup[g] += 1
                    if dedupe:
                        continue
                out_items[s + w] = buf[j].item
                out_rel[s + w] = buf[j].rel
                out_desc[s + w] = buf[j].rel
                w = w + 1
            if w > 1:
                _sort_desc(&out_desc[s], w)
            kept[g] = w
        free(buf)
    if failed:
        raise _no_memory(f"grouping a truth list of {maxlen:,} rows", maxlen * sizeof(TRow), nt)
    return (*_close_gaps(start, kept, n, items_arr, rel_arr, desc_arr), ndup_arr)


def nonfinite(const double[::1] values, double floor=-INFINITY):
    """``(count, first)``: how many of ``values`` are NaN or infinite (or below ``floor``),
    and the index of the first one (-1: none). One pass, threads over ranges of rows, no
    temporary array (the check ``~np.isfinite(values)`` followed by a sum writes and reads one
    byte per value)."""
    cdef Py_ssize_t n = values.shape[0], i
    cdef int nt = _threads(n)
    cdef cnp.ndarray[cnp.int64_t, ndim=1] cnt_arr = np.zeros(nt, dtype=np.int64)
    cdef cnp.ndarray[cnp.int64_t, ndim=1] first_arr = np.full(nt, -1, dtype=np.int64)
    cdef long long[::1] cnt = cnt_arr
    cdef long long[::1] first = first_arr
    cdef long long t, lo, hi, c, f
    for t in prange(nt, nogil=True, schedule="static", num_threads=nt):
        lo = n * t // nt
        hi = n * (t + 1) // nt
        c = 0
        f = -1
        for i in range(lo, hi):
            if not isfinite(values[i]) or values[i] < floor:
                if c == 0:
                    f = i
                c = c + 1
        cnt[t] = c
        first[t] = f
    cdef long long total = 0, at = -1
    for t in range(nt):
        total += cnt[t]
        if at < 0 and first[t] >= 0:
            at = first[t]
    return total, at


ctypedef fused anyint_t:
    signed char
    short
    int
    long long


def gather_int64(const long long[::1] table, const anyint_t[::1] codes):
    """``table[codes]`` as a new int64 array, threads over ranges of rows. Every code must
    lie in ``[0, len(table))``: the caller has checked them (no bounds are tested here)."""
    cdef Py_ssize_t n = codes.shape[0], i
    cdef cnp.ndarray[cnp.int64_t, ndim=1] out_arr = np.empty(n, dtype=np.int64)
    cdef long long[::1] out = out_arr
    cdef int nt = _threads(n)
    cdef long long t, lo, hi
    if n == 0:
        return out_arr
    for t in prange(nt, nogil=True, schedule="static", num_threads=nt):
        lo = n * t // nt
        hi = n * (t + 1) // nt
        for i in range(lo, hi):
            out[i] = table[codes[i]]
    return out_arr
