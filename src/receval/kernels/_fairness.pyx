# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""One pass over a block's lists for the exposure, provider-fairness and calibration metrics,
and the reading of training logs into per-user profiles.

Every sum here adds its terms one at a time, starting from 0.0, in the order in which
``np.bincount`` over the positions (or profile entries) adds them: the positions of a list in
rank order, the categories of one item in code order. The results are therefore the bits of
the numpy formulas they replace (``receval.beyond``); no product is formed here where the
numpy formula forms one, except from tables the caller computed with numpy (so no
multiply-add can be fused into one rounding).
"""

import numpy as np

cimport numpy as cnp
from cython.parallel cimport parallel, prange, threadid
from libc.stdlib cimport free, qsort

cnp.import_array()

include "_alloc.pxi"
include "_threads.pxi"
include "_sortlongs.pxi"

cdef extern from *:
    """
    #if defined(__clang__)
    #pragma STDC FP_CONTRACT OFF
    #elif defined(__GNUC__)
    #pragma GCC optimize ("fp-contract=off")
    #endif
    """

ctypedef fused code_t:
    int
    long long

ctypedef fused small_t:  # a table per item code: one byte when its values fit
    signed char
    int


cdef int _cmp_int(const void* a, const void* b) noexcept nogil:
    cdef int x = (<const int*> a)[0], y = (<const int*> b)[0]
    return (x > y) - (x < y)


cdef inline void _sort_int(const int* v, int* out, long long m) noexcept nogil:
    """``out``: ``v`` ascending. Short runs are placed by rank (the values below, and the
    equal ones before: no branch on the data); longer ones by the C library's sort."""
    cdef long long i, j, r
    cdef int x
    if m > 24:
        for i in range(m):
            out[i] = v[i]
        qsort(out, <size_t> m, sizeof(int), _cmp_int)
        return
    for i in range(m):
        x = v[i]
        r = 0
        for j in range(m):
            r += v[j] < x
        for j in range(i):
            r += v[j] == x
        out[r] = x


def dense_factorize(const long long[::1] a, long long max_span):
    """``pandas.factorize(a, sort=False)`` for int64 ids spanning at most ``max_span`` values:
    ``(codes as int32 in order of first appearance, the ids of the codes)``, or ``None`` when
    the ids span more (a direct table over the span replaces hashing).

    On several threads when a table per thread holds no more cells than ``a`` has ids: each
    thread codes its range of ids in its own order of first appearance, the ranges' new ids
    are then numbered in order (the first range's codes are already the global ones), and the
    later ranges' codes are renumbered in parallel."""
    cdef Py_ssize_t n = a.shape[0], j
    cdef long long lo, hi, span, c, m = 0, q, v
    if n == 0:
        return np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.int64)
    cdef int nt = _threads(n), t
    bounds_arr = np.empty((nt, 2), dtype=np.int64)
    cdef long long[:, ::1] bounds = bounds_arr
    cdef long long tlo, thi, x
    for t in prange(nt, nogil=True, num_threads=nt, schedule="static", chunksize=1):
        tlo = a[n * t // nt]  # (each thread's range is not empty: nt <= n)
        thi = tlo
        for j in range(n * t // nt, n * (t + 1) // nt):
            x = a[j]
            if x < tlo:
                tlo = x
            elif x > thi:
                thi = x
        bounds[t, 0] = tlo
        bounds[t, 1] = thi
    lo = bounds_arr[:, 0].min()
    hi = bounds_arr[:, 1].max()
    if hi - lo >= max_span or hi - lo < 0 or hi - lo + 1 > 2147483647:  # (or an overflow)
        return None
    span = hi - lo + 1
    if nt > 1 and span * nt > n:
        nt = 1  # one table: the tables would outweigh the ids
    cdef int* table = <int*> receval_alloc(span * nt, sizeof(int), 0)
    cdef long long* got = <long long*> receval_alloc(nt + 1, sizeof(long long), 1)
    if table == NULL or got == NULL:
        free(table)
        free(got)
        raise _no_memory("a table of item ids", span * 4, nt)
    codes_arr = np.empty(n, dtype=np.int32)
    cdef int[::1] codes = codes_arr
    # each thread's new ids from span * t on (a range holds at most span of them); the
    # global ones, the first range's then the later ranges' new ones, in the first region
    firsts_arr = np.empty(span * nt if nt > 1 else min(n, span), dtype=np.int64)
    cdef long long[::1] firsts = firsts_arr
    cdef int* mine
    cdef long long start, k
    try:
        for t in prange(nt, nogil=True, num_threads=nt, schedule="static", chunksize=1):
            mine = table + span * t
            start = span * t
            k = 0
            for j in range(span):
                mine[j] = -1
            for j in range(n * t // nt, n * (t + 1) // nt):
                c = mine[a[j] - lo]
                if c < 0:
                    c = k
                    mine[a[j] - lo] = <int> k
                    firsts[start + k] = a[j]
                    k = k + 1
                codes[j] = <int> c
            got[t] = k
        if nt == 1:
            return codes_arr, firsts_arr[:got[0]].copy()
        with nogil:
            # the new ids of later ranges numbered after the first's, in order; each range's
            # table now maps its local code to the global one, over its own new ids
            m = got[0]  # (the first range's codes and table are the global ones)
            for t in range(1, nt):
                start = span * t
                mine = table + span * t
                for q in range(got[t]):
                    v = firsts[start + q]
                    c = table[v - lo]
                    if c < 0:  # new: the next global code (m < span: in the first region)
                        c = m
                        table[v - lo] = <int> m
                        firsts[m] = v
                        m += 1
                    mine[q] = <int> c  # (slot q: that range's local code q, read below)
        for t in range(1, nt):
            mine = table + span * t
            for j in prange(n * t // nt, n * (t + 1) // nt, nogil=True, num_threads=nt,
                            schedule="static"):
                codes[j] = mine[codes[j]]
    finally:
        free(table)
        free(got)
    return codes_arr, firsts_arr[:m].copy()


cdef void _train_users(const code_t* items, const long long* bounds, const long long* start,
                       const int* placed, long long lo, long long hi, long long longest,
                       long long* hist, long long* kept, long long* counts, long long n_items,
                       int* fail) noexcept nogil:
    """Users ``lo .. hi - 1`` of :func:`train_lists`: each user's item codes sorted, its
    distinct ones written where its rows start, ``kept`` their number; with ``counts`` (this
    thread's two tables), the rows and the distinct users of each item code counted."""
    cdef int* buf = <int*> receval_alloc(longest, sizeof(int), 0)
    cdef int* srt = <int*> receval_alloc(longest, sizeof(int), 0)
    cdef long long u, s, e, m, j, w, c, prev
    if buf == NULL or srt == NULL:
        fail[0] = 1
    else:
        for u in range(lo, hi):
            if fail[0]:  # out of memory in another thread: no more work
                break
            if bounds != NULL:
                s = bounds[u]
                e = bounds[u + 1]
                for j in range(s, e):
                    buf[j - s] = <int> items[j]
            else:
                s = start[u]
                e = start[u + 1]
                for j in range(s, e):
                    buf[j - s] = placed[j]
            m = e - s
            _sort_int(buf, srt, m)
            prev = -1
            w = s
            for j in range(m):
                c = srt[j]
                if counts != NULL:
                    counts[c] += 1
                if c != prev:
                    hist[w] = c
                    w = w + 1
                    prev = c
                    if counts != NULL:
                        counts[n_items + c] += 1
            kept[u] = w - s
    free(buf)
    free(srt)


def train_lists(const long long[::1] bounds, const code_t[::1] users, long long n_users,
                const code_t[::1] items, long long n_items):
    """Per-user histories of a training log: ``(indptr, hist, item_rows, item_users)``;
    item codes below 2**31.

    Either ``bounds`` (the log grouped by user: user u's rows are ``bounds[u]:bounds[u + 1]``,
    ``users`` empty) or ``users`` (each row's user code, ``bounds`` empty; the rows are first
    placed by user with one counting pass). ``hist`` holds each user's distinct item codes in
    ascending order (``indptr`` its CSR over the ``n_users`` users), ``item_rows`` the rows of
    each item code, ``item_users`` its distinct users: what a sort of the (user, item) pairs
    gives, sorted within each user.

    The users are sorted in parallel, each user's distinct items written where its rows
    start (never past them), and the gaps that repeated items leave are closed afterwards
    (no move when no user repeats an item). The two counts are made in the same parallel
    pass, in a table per thread, when the tables hold no more cells than the log has rows
    (adding them up then costs less than a pass), else by serial passes over the rows and the histories; integer counts, added
    in any order, are exact."""
    cdef bint grouped = bounds.shape[0] > 0
    cdef Py_ssize_t n = items.shape[0], j
    cdef long long u, s, e, m, c, longest = 0, out = 0, prev, w
    if grouped and bounds.shape[0] != n_users + 1:
        raise ValueError("train_lists: bounds must hold n_users + 1 entries")
    if not grouped and users.shape[0] != n:
        raise ValueError("train_lists: one user code per row")
    indptr_arr = np.zeros(n_users + 1, dtype=np.int64)
    cdef long long[::1] indptr = indptr_arr
    rows_arr = np.zeros(n_items, dtype=np.int64)
    cdef long long[::1] item_rows = rows_arr
    iu_arr = np.zeros(n_items, dtype=np.int64)
    cdef long long[::1] item_users = iu_arr
    hist_arr = np.empty(n, dtype=np.int64)
    cdef long long[::1] hist = hist_arr
    kept_arr = np.zeros(n_users, dtype=np.int64)
    cdef long long[::1] kept = kept_arr
    cdef long long* start = NULL
    cdef int* placed = NULL
    cdef int failed = 0
    cdef int* fail = &failed  # written through the pointer: shared by the threads
    cdef int nt = _threads_over(n, n_users), t
    cuts_arr = np.zeros(nt + 1, dtype=np.int64)
    cdef long long[::1] cuts = cuts_arr
    # counts per thread: each thread's rows and users counted in its own two tables
    cdef bint tables = nt > 1 and n_items * nt <= n
    cdef long long* counts = NULL
    cdef long long* mine
    cdef long long i
    try:
        if tables:
            counts = <long long*> receval_alloc(2 * n_items * nt, sizeof(long long), 1)
            if counts == NULL:
                raise _no_memory("the item counts", 2 * n_items * 8, nt)
        if not grouped:  # rows placed by user (stable): start[u] of each user's rows
            start = <long long*> receval_alloc(n_users + 1, sizeof(long long), 1)
            placed = <int*> receval_alloc(n, sizeof(int), 0)
            if start == NULL or placed == NULL:
                raise _no_memory("the training rows by user", (n_users + 1) * 8 + n * 4)
            with nogil:
                for j in range(n):
                    start[users[j] + 1] += 1
                for u in range(n_users):
                    start[u + 1] += start[u]
                for j in range(n):
                    u = users[j]
                    placed[start[u]] = <int> items[j]
                    start[u] += 1
                for u in range(n_users, 0, -1):  # back to each user's first row
                    start[u] = start[u - 1]
                start[0] = 0
        with nogil:
            for u in range(n_users):
                s = bounds[u] if grouped else start[u]
                e = bounds[u + 1] if grouped else start[u + 1]
                if e - s > longest:
                    longest = e - s
            if not tables:
                for j in range(n):
                    item_rows[items[j]] += 1
            # users cut into nt runs of about n / nt rows, one per thread
            for t in range(1, nt):
                i = cuts[t - 1]
                while i < n_users and (bounds[i] if grouped else start[i]) < n * t // nt:
                    i += 1
                cuts[t] = i
            cuts[nt] = n_users
            for t in prange(nt, num_threads=nt, schedule="static", chunksize=1):
                _train_users(&items[0] if n else NULL, &bounds[0] if grouped else NULL,
                             start, placed, cuts[t], cuts[t + 1], longest, &hist[0] if n
                             else NULL, &kept[0] if n_users else NULL,
                             counts + 2 * n_items * t if tables else NULL, n_items, fail)
        if failed:
            raise _no_memory("a training user's rows", longest * 8, nt)
        with nogil:
            for u in range(n_users):  # the gaps closed, in place (each user moves down)
                s = bounds[u] if grouped else start[u]
                if s != out:
                    for j in range(kept[u]):
                        hist[out + j] = hist[s + j]
                out += kept[u]
                indptr[u + 1] = out
            if tables:
                for t in range(nt):
                    mine = counts + 2 * n_items * t
                    for i in range(n_items):
                        item_rows[i] += mine[i]
                        item_users[i] += mine[n_items + i]
            else:
                for j in range(out):
                    item_users[hist[j]] += 1
    finally:
        free(counts)
        free(start)
        free(placed)
    return indptr_arr, hist_arr[:out], rows_arr, iu_arr


cdef inline double _add_categories(const code_t* items, long long s, long long e,
                                   const int* cat_len, const int* cat_one,
                                   const long long* cat_start, const long long* cat_codes,
                                   const double* cw, long long stride,
                                   double* out) noexcept nogil:
    """One list's category mass (places ``s .. e - 1`` of ``items``, place ``r`` weighted by
    ``cw[r * stride + L]`` for an item of L categories) added into ``out[c]`` in rank order;
    returns the list's weight over its categorised places, ``sum cw[r * stride + 1]``."""
    cdef long long q, it, L, a, j, r
    cdef double acc = 0.0
    for q in range(s, e):
        it = items[q]
        L = cat_len[it]
        r = (q - s) * stride
        if L == 1:
            out[cat_one[it]] += cw[r + 1]
            acc = acc + cw[r + 1]
        elif L > 1:
            a = cat_start[it]
            for j in range(L):
                out[cat_codes[a + j]] += cw[r + L]
            acc = acc + cw[r + 1]
    return acc


cdef inline double _add_groups(const code_t* items, long long n, const small_t* group_of,
                               const double* w, double* out) noexcept nogil:
    """One list's attention by group (its ``n`` places, place ``r`` weighted ``w[r]``) added
    into ``out[g]`` in rank order; returns the list's weight over the places whose item has a
    group. (Pointers held in locals: with ``-fno-strict-aliasing``, as Python extensions are
    built, a loop that reads through a memoryview reloads it after every store.)"""
    cdef long long r, g
    cdef double acc = 0.0
    for r in range(n):
        g = group_of[items[r]]
        if g >= 0:
            out[g] += w[r]
            acc = acc + w[r]
    return acc


cdef inline void _count_places(const code_t* items, long long n, long long width,
                               int* table) noexcept nogil:
    """``table[items[r] * width + r] += 1`` for each of a list's ``n`` places. (32-bit counts: a cell counts one list at most once, and a thread's table is asked for
    only when it counts fewer than 2**31 lists; half the cache of 64-bit ones.)"""
    cdef long long r
    for r in range(n):
        table[items[r] * width + r] += 1


cdef long long _longest(const long long[::1] indptr, long long k):
    """The longest list of ``indptr`` cut at ``k`` (``k < 0``: whole)."""
    cdef Py_ssize_t u
    cdef long long e, longest = 0
    for u in range(indptr.shape[0] - 1):
        e = indptr[u + 1] - indptr[u]
        if k >= 0 and e > k:
            e = k
        if e > longest:
            longest = e
    return longest


cdef void _check_categories(const int[::1] cat_len, Py_ssize_t max_l, str name) except *:
    """Refuses an item with more categories than the weight table holds (``max_l``)."""
    cdef Py_ssize_t j
    for j in range(cat_len.shape[0]):
        if cat_len[j] > max_l:
            raise ValueError(f"{name}: an item with more categories than cw")


def list_pass(const long long[::1] indptr, const code_t[::1] items, long long k,
              long long width, long long[::1] counts,
              const small_t[::1] group_of, long long n_groups, const double[:, ::1] gw,
              double[:, ::1] gout, double[:, ::1] gknown,
              const int[::1] cat_len, const int[::1] cat_one, const long long[::1] cat_start,
              const long long[::1] cat_codes, long long n_cats, const double[:, :, ::1] cw,
              double[:, ::1] cout, double[:, ::1] ctot):
    """One pass over the first ``k`` positions of each list (``k < 0``: all), place r of a
    list (0-based) holding the item code ``items[p]``. Returns ``(positions without a group,
    positions without categories)``.

    - ``counts`` (empty: not made): ``counts[i * width + r] += 1``, the lists per (item, rank);
    - groups (``group_of`` per item code, -1 none, int8 or int32; empty: not made): for each
      attention model
      m (rows of ``gw``, the weight of each place), ``gout[m, u * n_groups + g]`` sums the
      weights of the list's places whose item is in group g, and ``gknown[m, u]`` those of
      the places whose item has a group;
    - categories (per item code: ``cat_len`` its number of categories L, -1 when it is absent
      from the categories; ``cat_one`` its category when L = 1; ``cat_start`` where its codes
      start in ``cat_codes``; empty: not made): each place whose item has ``L >= 1``
      categories adds ``cw[m, r, 1]`` (its weight) to ``ctot[m, u]`` and ``cw[m, r, L]`` (its
      weight times ``1 / L``, computed by the caller) to ``cout[m, u * n_cats + c]`` for each
      of its categories c, in code order.

    In parallel over users: the counts in a table per thread, added up after (integers: exact
    in any order), or in one serial pass when those tables would hold more cells than the
    lists have places; the group and category sums per user (each user's cells are its own,
    added in rank order: the same bits on any number of threads)."""
    cdef Py_ssize_t n = indptr.shape[0] - 1, u, p, s, e, m
    cdef bint do_counts = counts.shape[0] > 0
    cdef bint do_groups = group_of.shape[0] > 0
    cdef bint do_cats = cat_len.shape[0] > 0
    cdef Py_ssize_t n_gm = gw.shape[0] if do_groups else 0
    cdef Py_ssize_t n_cm = cw.shape[0] if do_cats else 0
    cdef long long g, ug = 0, uc = 0, longest = 0
    cdef Py_ssize_t max_l = cw.shape[2] - 1 if do_cats else 0
    if do_groups and (gw.shape[1] < width or gout.shape[0] != n_gm
                      or gout.shape[1] != n * n_groups or gknown.shape[1] != n):
        raise ValueError("list_pass: group tables of the wrong shape")
    if do_cats and (cw.shape[1] < width or cout.shape[0] != n_cm
                    or cout.shape[1] != n * n_cats or ctot.shape[1] != n
                    or cat_one.shape[0] != cat_len.shape[0]
                    or cat_start.shape[0] != cat_len.shape[0]):
        raise ValueError("list_pass: category tables of the wrong shape")
    _check_categories(cat_len, max_l, "list_pass")
    longest = _longest(indptr, k)
    if longest > width:
        raise ValueError("list_pass: a list is longer than width")
    cdef long long places = indptr[n] - indptr[0] if n else 0
    cdef int nt = _threads_over(places, n), t
    cdef const long long* codes_p = &cat_codes[0] if cat_codes.shape[0] else NULL
    # the counts in one table per thread, added up after, when the tables hold no more cells
    # than the lists have places (else in ``counts`` itself, on one thread)
    cdef long long cells = counts.shape[0], c
    cdef bint tables = do_counts and nt > 1 and cells * nt <= places and n < 0x7fffffff
    cdef int* mine = NULL
    if tables:
        mine = <int*> receval_alloc(cells * nt, sizeof(int), 1)
        if mine == NULL:
            raise _no_memory("the counts per item and place", cells * 4, nt)
    try:
        with nogil:
            if do_counts and not tables:
                for u in range(n):
                    s = indptr[u]
                    e = indptr[u + 1]
                    if k >= 0 and e - s > k:
                        e = s + k
                    for p in range(s, e):
                        counts[items[p] * width + (p - s)] += 1
            for u in prange(n if do_groups or do_cats or tables else 0, schedule="static",
                            num_threads=nt):
                s = indptr[u]
                e = indptr[u + 1]
                if k >= 0 and e - s > k:
                    e = s + k
                if tables:
                    _count_places(&items[s], e - s, width, mine + cells * threadid())
                if do_groups:
                    for m in range(n_gm):
                        gknown[m, u] = _add_groups(&items[s], e - s, &group_of[0], &gw[m, 0],
                                                   &gout[m, u * n_groups])
                    for p in range(s, e):
                        ug += group_of[items[p]] < 0
                if do_cats:
                    for m in range(n_cm):
                        ctot[m, u] = _add_categories(
                            &items[0], s, e, &cat_len[0], &cat_one[0], &cat_start[0],
                            codes_p, &cw[m, 0, 0], cw.shape[2], &cout[m, u * n_cats])
                    for p in range(s, e):
                        uc += cat_len[items[p]] < 0
            if tables:  # integer counts: exact in any order
                for t in range(nt):
                    for c in range(cells):
                        counts[c] += mine[cells * t + c]
    finally:
        free(mine)
    return ug, uc


cdef long long _profile_users(const long long* starts, const long long* lens,
                              const long long* hist, const int* cat_len, const int* cat_one,
                              const long long* cat_start, const long long* cat_codes,
                              long long n_cats, long long lo, long long hi, long long* cells,
                              double* pv, long long* count, double* total,
                              int* fail) noexcept nogil:
    """Users ``lo .. hi - 1`` of :func:`profile_cells`, their cells written from ``cells``
    and ``pv`` on, each user's number in ``count``; returns how many in all (room for
    ``n_cats`` more is needed: a user's categories are read without a branch)."""
    cdef long long u, j, q, t, c, a, L, s, e, n_out = 0, x, first
    cdef double tot, share
    cdef double* mass = <double*> receval_alloc(max(n_cats, 1), sizeof(double), 1)
    # (one slot more: a category already seen is written past the end, and not counted)
    cdef long long* touched = <long long*> receval_alloc(n_cats + 1, sizeof(long long), 0)
    cdef char* on = <char*> receval_alloc(max(n_cats, 1), 1, 1)
    if mass == NULL or touched == NULL or on == NULL:
        fail[0] = 1
        lo = hi
    for u in range(lo, hi):
        if fail[0]:  # out of memory in another thread: no more work
            break
        s = starts[u]
        e = s + lens[u]
        t = 0
        tot = 0.0
        first = n_out
        for j in range(s, e):
            x = hist[j]
            L = cat_len[x]
            if L == 1:
                c = cat_one[x]
                tot = tot + 1.0
                touched[t] = c
                t += 1 - on[c]
                on[c] = 1
                mass[c] += 1.0
            elif L > 1:
                a = cat_start[x]
                tot = tot + 1.0
                share = 1.0 / L
                for q in range(L):
                    c = cat_codes[a + q]
                    touched[t] = c
                    t += 1 - on[c]
                    on[c] = 1
                    mass[c] += share
        total[u] = tot
        if 4 * t >= n_cats:  # few categories: read them all, without a branch
            for c in range(n_cats):
                cells[n_out] = u * n_cats + c
                pv[n_out] = mass[c] / tot
                n_out += on[c]
                mass[c] = 0.0
                on[c] = 0
        else:
            _sort_longs(touched, t)
            for q in range(t):
                c = touched[q]
                cells[n_out] = u * n_cats + c
                pv[n_out] = mass[c] / tot
                n_out += 1
                mass[c] = 0.0
                on[c] = 0
        count[u] = n_out - first
    free(mass)
    free(touched)
    free(on)
    return n_out


def profile_cells(const long long[::1] starts, const long long[::1] lens,
                  const long long[::1] hist, const int[::1] cat_len, const int[::1] cat_one,
                  const long long[::1] cat_start, const long long[::1] cat_codes,
                  long long n_cats):
    """The category distributions of the block's training profiles: user u's entries are
    ``hist[starts[u]:starts[u] + lens[u]]`` (training item codes; per item code ``cat_len``,
    ``cat_one``, ``cat_start`` as :func:`list_pass` reads them; items absent from the
    categories are left out). Each entry of ``L >= 1`` categories adds ``1 / L`` to each of its
    categories (in entry order) and 1 to the user's total. Returns ``(cells, starts, p,
    total)``: the non-zero (user * n_cats + category) cells ascending, where each user's
    start (CSR offsets, one more than the users), ``mass / total`` of the user, and each
    user's total (float64).

    In parallel over runs of users of about equal entries: each thread writes its users'
    cells from the bound of the cells before them, and the runs are then moved together."""
    cdef Py_ssize_t n = starts.shape[0], u, j
    cdef long long bound = 0, longest = 0, entries = 0, room, n_out = 0
    for j in range(cat_len.shape[0]):
        if cat_len[j] > longest:
            longest = cat_len[j]
    longest = max(longest, 1)
    for u in range(n):
        entries += lens[u]
    cdef int nt = _threads_over(entries, n), t
    cdef int failed = 0
    cdef int* fail = &failed  # written through the pointer: shared by the threads
    cuts_arr = np.zeros(nt + 1, dtype=np.int64)   # each thread's first user
    at_arr = np.zeros(nt + 1, dtype=np.int64)     # where each thread's cells start
    got_arr = np.zeros(nt, dtype=np.int64)        # how many each wrote
    cdef long long[::1] cuts = cuts_arr
    cdef long long[::1] at = at_arr
    cdef long long[::1] got = got_arr
    cdef long long seen = 0
    t = 1
    for u in range(n):  # users cut into runs of about entries / nt
        while t < nt and seen >= entries * t // nt:
            cuts[t] = u
            at[t] = bound + t * max(n_cats, 1)  # (each run's room for a branchless read)
            t += 1
        seen += lens[u]
        room = lens[u] * longest
        bound += room if n_cats <= 0 or room < n_cats else n_cats
    while t < nt:
        cuts[t] = n
        at[t] = bound + t * max(n_cats, 1)
        t += 1
    cuts[nt] = n
    bound += nt * max(n_cats, 1)
    total_arr = np.zeros(n, dtype=np.float64)
    cdef double[::1] total = total_arr
    cells_arr = np.empty(bound, dtype=np.int64)
    p_arr = np.empty(bound, dtype=np.float64)
    count_arr = np.zeros(n, dtype=np.int64)
    cdef long long[::1] cells = cells_arr
    cdef double[::1] pv = p_arr
    cdef long long[::1] count = count_arr
    cdef const long long* hist_p = &hist[0] if hist.shape[0] else NULL
    cdef const int* len_p = &cat_len[0] if cat_len.shape[0] else NULL
    cdef const int* one_p = &cat_one[0] if cat_one.shape[0] else NULL
    cdef const long long* start_p = &cat_start[0] if cat_start.shape[0] else NULL
    cdef const long long* codes_p = &cat_codes[0] if cat_codes.shape[0] else NULL
    with nogil:
        for t in prange(nt, num_threads=nt, schedule="static", chunksize=1):
            got[t] = _profile_users(&starts[0] if n else NULL, &lens[0] if n else NULL,
                                    hist_p, len_p, one_p, start_p, codes_p, n_cats, cuts[t],
                                    cuts[t + 1], &cells[at[t]], &pv[at[t]],
                                    &count[0] if n else NULL, &total[0] if n else NULL, fail)
    if failed:
        raise _no_memory("a profile's categories", max(n_cats, 1) * 17, nt)
    for t in range(nt):  # the runs moved together, in order (each one down)
        if at[t] != n_out:
            cells_arr[n_out:n_out + got[t]] = cells_arr[at[t]:at[t] + got[t]]
            p_arr[n_out:n_out + got[t]] = p_arr[at[t]:at[t] + got[t]]
        n_out += got[t]
    starts_arr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(count_arr, out=starts_arr[1:])
    return cells_arr[:n_out], starts_arr, p_arr[:n_out], total_arr


def list_kl_ratios(const long long[::1] indptr, const code_t[::1] items, long long k,
                   const double[:, ::1] cw, const int[::1] cat_len, const int[::1] cat_one,
                   const long long[::1] cat_start, const long long[::1] cat_codes,
                   long long n_cats, const long long[::1] cstart, const long long[::1] cells,
                   const double[::1] p, double alpha):
    """Steck's KL ratios ``p / q~`` on the profile cells, each list's category mass made per
    user, in parallel (no (users x categories) table): ``(ratios, total, unknown)``.

    User u's list (its first ``k`` places, ``k < 0``: all) adds, in rank order from 0.0,
    ``cw[r, L]`` to each of the categories of the item at place r (``L >= 1`` of them; the
    item tables as :func:`list_pass` reads them) and ``cw[r, 1]`` to ``total[u]``, as
    :func:`list_pass` adds into its table; then each of u's profile cells
    ``cstart[u] .. cstart[u + 1] - 1`` (``cells``: ``u * n_cats + c``, ``p``: ``p(c|u)``) takes
    ``p / ((1 - alpha) (mass[c] / total[u]) + alpha p)``, each product, quotient and sum
    rounded on its own, as numpy forms the formula array by array (this module contracts no
    multiply-add). ``unknown``: the places whose item has no categories entry. The same bits
    as :func:`list_pass`'s table and the numpy formula on it."""
    cdef Py_ssize_t n = indptr.shape[0] - 1, u, q, i, j
    cdef long long s, e, it, L, a, c, uc = 0, longest = 0
    cdef double acc, ratio, part
    cdef double keep = 1.0 - alpha
    cdef Py_ssize_t max_l = cw.shape[1] - 1
    if cstart.shape[0] != n + 1 or cells.shape[0] != p.shape[0] or \
            (n >= 0 and cstart[n] != cells.shape[0]):
        raise ValueError("list_kl_ratios: one offset per user and one p per cell")
    if cat_one.shape[0] != cat_len.shape[0] or cat_start.shape[0] != cat_len.shape[0]:
        raise ValueError("list_kl_ratios: item tables of the wrong shape")
    _check_categories(cat_len, max_l, "list_kl_ratios")
    longest = _longest(indptr, k)
    if longest > cw.shape[0]:
        raise ValueError("list_kl_ratios: a list is longer than cw")
    out_arr = np.empty(cells.shape[0], dtype=np.float64)
    total_arr = np.zeros(n, dtype=np.float64)
    cdef double[::1] out = out_arr
    cdef double[::1] total = total_arr
    cdef int nt = _threads_over(indptr[n] - indptr[0] if n > 0 else 0, n)
    cdef int failed = 0
    cdef int* fail = &failed  # written through the pointer: shared by the threads
    cdef double* mass
    cdef const long long* codes_p = &cat_codes[0] if cat_codes.shape[0] else NULL
    with nogil, parallel(num_threads=nt):
        mass = <double*> receval_alloc(max(n_cats, 1), sizeof(double), 1)
        if mass == NULL:
            fail[0] = 1
        for u in prange(n, schedule="static"):
            if mass == NULL or fail[0]:
                continue
            s = indptr[u]
            e = indptr[u + 1]
            if k >= 0 and e - s > k:
                e = s + k
            acc = _add_categories(&items[0], s, e, &cat_len[0], &cat_one[0], &cat_start[0],
                                  codes_p, &cw[0, 0], cw.shape[1], mass)
            total[u] = acc
            for q in range(s, e):  # (L = 0: an item known to have no category)
                uc += cat_len[items[q]] < 0
            for i in range(cstart[u], cstart[u + 1]):
                c = cells[i] - u * n_cats
                ratio = mass[c] / acc
                ratio = keep * ratio
                part = alpha * p[i]
                out[i] = p[i] / (ratio + part)
            for q in range(s, e):  # back to zero: the categories this list touched
                it = items[q]
                L = cat_len[it]
                if L == 1:
                    mass[cat_one[it]] = 0.0
                elif L > 1:
                    a = cat_start[it]
                    for j in range(L):
                        mass[cat_codes[a + j]] = 0.0
        free(mass)
    if failed:
        raise _no_memory("a list's category mass", max(n_cats, 1) * 8, nt)
    return out_arr, total_arr, uc


def kl_sums(const double[::1] p, double[::1] logs, const long long[::1] starts):
    """Each user's ``sum p log(p / q~)`` over its cells in order (user u's at
    ``starts[u]:starts[u + 1]``; ``logs``: the logarithms of :func:`list_kl_ratios`,
    overwritten by the terms), as ``np.bincount(owner, p * logs)`` adds them: from 0.0, in
    cell order (in parallel over users)."""
    cdef Py_ssize_t m = p.shape[0], n = starts.shape[0] - 1, i, u
    cdef double acc
    values_arr = np.zeros(max(n, 0), dtype=np.float64)
    cdef double[::1] values = values_arr
    if logs.shape[0] != m or n < 0 or starts[n] != m:
        raise ValueError("kl_sums: one log per cell, the users' cells at starts")
    cdef int nt = _threads_over(m, n)
    with nogil:
        for u in prange(n, schedule="static", num_threads=nt):
            acc = 0.0
            for i in range(starts[u], starts[u + 1]):
                logs[i] = p[i] * logs[i]
                acc = acc + logs[i]
            values[u] = acc
    return values_arr


def xlogy_ratios(const double[:, ::1] x, const double[:, ::1] y, int midpoint):
    """The argument of the logarithm of ``x log(x / y)`` per cell: ``x / y`` where ``x > 0``,
    else 1 (a cell whose term is 0). ``midpoint``: divide by ``(x + y) / 2`` instead of y
    (Jensen-Shannon's mixture, formed as numpy forms it: the sum, then the halving)."""
    cdef Py_ssize_t n = x.shape[0], g = x.shape[1], i, j
    cdef double v
    if y.shape[0] != n or y.shape[1] != g:
        raise ValueError("xlogy_ratios: x and y of one shape")
    out_arr = np.empty((n, g), dtype=np.float64)
    cdef double[:, ::1] out = out_arr
    with nogil:
        for i in range(n):
            for j in range(g):
                v = x[i, j]
                if v > 0:
                    out[i, j] = v / ((v + y[i, j]) / 2 if midpoint else y[i, j])
                else:
                    out[i, j] = 1.0
    return out_arr


def xlogy_row_sums(const double[:, ::1] x, double[:, ::1] logs):
    """Each row's ``sum_j x log(...)`` (``logs``: the logarithms of :func:`xlogy_ratios`,
    overwritten by the terms; 0 where ``x <= 0``), the columns added in order from the
    first, as numpy adds rows of fewer than 8 entries."""
    cdef Py_ssize_t n = x.shape[0], g = x.shape[1], i, j
    cdef double s
    if logs.shape[0] != n or logs.shape[1] != g:
        raise ValueError("xlogy_row_sums: x and logs of one shape")
    out_arr = np.zeros(n, dtype=np.float64)
    cdef double[::1] out = out_arr
    with nogil:
        for i in range(n):
            for j in range(g):
                logs[i, j] = x[i, j] * logs[i, j] if x[i, j] > 0 else 0.0
        if g > 0:
            for i in range(n):
                s = logs[i, 0]
                for j in range(1, g):
                    s = s + logs[i, j]
                out[i] = s
    return out_arr
