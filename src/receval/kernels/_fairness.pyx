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
from cython.parallel cimport prange
from libc.stdlib cimport free, qsort

cnp.import_array()

include "_alloc.pxi"
include "_threads.pxi"

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


cdef int _cmp_ll(const void* a, const void* b) noexcept nogil:
    cdef long long x = (<const long long*> a)[0], y = (<const long long*> b)[0]
    return (x > y) - (x < y)


cdef inline void _sort(long long* v, long long m) noexcept nogil:
    """Ascending: insertion sort for short runs, else the C library's sort."""
    cdef long long i, j, x
    if m > 32:
        qsort(v, <size_t> m, sizeof(long long), _cmp_ll)
        return
    for i in range(1, m):
        x = v[i]
        j = i - 1
        while j >= 0 and v[j] > x:
            v[j + 1] = v[j]
            j -= 1
        v[j + 1] = x


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
    the ids span more (a direct table over the span replaces hashing)."""
    cdef Py_ssize_t n = a.shape[0], j
    cdef long long lo, hi, span, c, m = 0
    if n == 0:
        return np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.int64)
    lo = hi = a[0]
    with nogil:
        for j in range(1, n):
            if a[j] < lo:
                lo = a[j]
            elif a[j] > hi:
                hi = a[j]
    if hi - lo >= max_span or hi - lo < 0 or hi - lo + 1 > 2147483647:  # (or an overflow)
        return None
    span = hi - lo + 1
    cdef int* table = <int*> receval_alloc(span, sizeof(int), 0)
    if table == NULL:
        raise _no_memory("a table of item ids", span * 4)
    codes_arr = np.empty(n, dtype=np.int32)
    cdef int[::1] codes = codes_arr
    firsts_arr = np.empty(min(n, span), dtype=np.int64)
    cdef long long[::1] firsts = firsts_arr
    try:
        with nogil:
            for j in range(span):
                table[j] = -1
            for j in range(n):
                c = table[a[j] - lo]
                if c < 0:
                    c = m
                    table[a[j] - lo] = <int> m
                    firsts[m] = a[j]
                    m += 1
                codes[j] = <int> c
    finally:
        free(table)
    return codes_arr, firsts_arr[:m].copy()


def train_lists(const long long[::1] bounds, const code_t[::1] users, long long n_users,
                const code_t[::1] items, long long n_items):
    """Per-user histories of a training log: ``(indptr, hist, item_rows, item_users)``;
    item codes below 2**31.

    Either ``bounds`` (the log grouped by user: user u's rows are ``bounds[u]:bounds[u + 1]``,
    ``users`` empty) or ``users`` (each row's user code, ``bounds`` empty; the rows are first
    placed by user with one counting pass). ``hist`` holds each user's distinct item codes in
    ascending order (``indptr`` its CSR over the ``n_users`` users), ``item_rows`` the rows of
    each item code, ``item_users`` its distinct users: what a sort of the (user, item) pairs
    gives, sorted within each user."""
    cdef bint grouped = bounds.shape[0] > 0
    cdef Py_ssize_t n = items.shape[0], j
    cdef long long u, s, e, m, i, c, longest = 0, out = 0, prev
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
    cdef long long* start = NULL
    cdef int* placed = NULL
    cdef int* buf = NULL
    cdef int* srt = NULL
    try:
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
        buf = <int*> receval_alloc(longest, sizeof(int), 0)
        srt = <int*> receval_alloc(longest, sizeof(int), 0)
        if buf == NULL or srt == NULL:
            raise _no_memory("a training user's rows", longest * 8)
        with nogil:
            for u in range(n_users):
                if grouped:
                    s, e = bounds[u], bounds[u + 1]
                    for j in range(s, e):
                        buf[j - s] = <int> items[j]
                else:
                    s, e = start[u], start[u + 1]
                    for j in range(s, e):
                        buf[j - s] = placed[j]
                m = e - s
                for j in range(m):
                    item_rows[buf[j]] += 1
                _sort_int(buf, srt, m)
                prev = -1
                for j in range(m):
                    c = srt[j]
                    if c != prev:
                        hist[out] = c
                        out += 1
                        item_users[c] += 1
                        prev = c
                indptr[u + 1] = out
    finally:
        free(start)
        free(placed)
        free(buf)
        free(srt)
    return indptr_arr, hist_arr[:out], rows_arr, iu_arr


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

    The counts are made in one serial pass (one table); the group and category sums per user
    in parallel over users (each user's cells are its own, added in rank order: the same bits
    on any number of threads)."""
    cdef Py_ssize_t n = indptr.shape[0] - 1, u, p, s, e, r, m, j
    cdef bint do_counts = counts.shape[0] > 0
    cdef bint do_groups = group_of.shape[0] > 0
    cdef bint do_cats = cat_len.shape[0] > 0
    cdef Py_ssize_t n_gm = gw.shape[0] if do_groups else 0
    cdef Py_ssize_t n_cm = cw.shape[0] if do_cats else 0
    cdef long long it, g, a, L, ug = 0, uc = 0, longest = 0
    cdef double acc
    cdef Py_ssize_t max_l = cw.shape[2] - 1 if do_cats else 0
    if do_groups and (gw.shape[1] < width or gout.shape[0] != n_gm
                      or gout.shape[1] != n * n_groups or gknown.shape[1] != n):
        raise ValueError("list_pass: group tables of the wrong shape")
    if do_cats and (cw.shape[1] < width or cout.shape[0] != n_cm
                    or cout.shape[1] != n * n_cats or ctot.shape[1] != n
                    or cat_one.shape[0] != cat_len.shape[0]
                    or cat_start.shape[0] != cat_len.shape[0]):
        raise ValueError("list_pass: category tables of the wrong shape")
    for j in range(cat_len.shape[0]):
        if cat_len[j] > max_l:
            raise ValueError("list_pass: an item with more categories than cw")
    for u in range(n):
        e = indptr[u + 1] - indptr[u]
        if k >= 0 and e > k:
            e = k
        if e > longest:
            longest = e
    if longest > width:
        raise ValueError("list_pass: a list is longer than width")
    cdef int nt = _threads_over(indptr[n] - indptr[0] if n else 0, n)
    with nogil:
        if do_counts:  # (one table: a serial pass)
            for u in range(n):
                s = indptr[u]
                e = indptr[u + 1]
                if k >= 0 and e - s > k:
                    e = s + k
                for p in range(s, e):
                    counts[items[p] * width + (p - s)] += 1
        for u in prange(n if do_groups or do_cats else 0, schedule="static", num_threads=nt):
            s = indptr[u]
            e = indptr[u + 1]
            if k >= 0 and e - s > k:
                e = s + k
            if do_groups:
                for m in range(n_gm):
                    acc = 0.0
                    for p in range(s, e):
                        g = group_of[items[p]]
                        if g >= 0:
                            gout[m, u * n_groups + g] += gw[m, p - s]
                            acc = acc + gw[m, p - s]
                    gknown[m, u] = acc
                for p in range(s, e):
                    ug += group_of[items[p]] < 0
            if do_cats:
                for m in range(n_cm):
                    acc = 0.0
                    for p in range(s, e):
                        it = items[p]
                        L = cat_len[it]
                        r = p - s
                        if L == 1:
                            cout[m, u * n_cats + cat_one[it]] += cw[m, r, 1]
                            acc = acc + cw[m, r, 1]
                        elif L > 1:
                            a = cat_start[it]
                            for j in range(L):
                                cout[m, u * n_cats + cat_codes[a + j]] += cw[m, r, L]
                            acc = acc + cw[m, r, 1]
                    ctot[m, u] = acc
                for p in range(s, e):
                    uc += cat_len[items[p]] < 0
    return ug, uc


def profile_cells(const long long[::1] starts, const long long[::1] lens,
                  const long long[::1] hist, const int[::1] cat_len, const int[::1] cat_one,
                  const long long[::1] cat_start, const long long[::1] cat_codes,
                  long long n_cats):
    """The category distributions of the block's training profiles: user u's entries are
    ``hist[starts[u]:starts[u] + lens[u]]`` (training item codes; per item code ``cat_len``,
    ``cat_one``, ``cat_start`` as :func:`list_pass` reads them; items absent from the
    categories are left out). Each entry of ``L >= 1`` categories adds ``1 / L`` to each of its
    categories (in entry order) and 1 to the user's total. Returns ``(cells, owner, p,
    total)``: the non-zero (user * n_cats + category) cells ascending, their user,
    ``mass / total`` of the user, and each user's total (float64)."""
    cdef Py_ssize_t n = starts.shape[0], u, j, q, t, c
    cdef long long a, L, s, e, n_out = 0, bound = 0, longest = 0, x
    cdef double tot, share
    for u in range(n):
        bound += lens[u]
    for j in range(cat_len.shape[0]):
        if cat_len[j] > longest:
            longest = cat_len[j]
    bound *= max(longest, 1)
    if n_cats > 0 and bound > n * n_cats:
        bound = n * n_cats
    bound += max(n_cats, 1)  # room for a user's categories read without a branch
    total_arr = np.zeros(n, dtype=np.float64)
    cdef double[::1] total = total_arr
    cells_arr = np.empty(bound, dtype=np.int64)
    owner_arr = np.empty(bound, dtype=np.int64)
    p_arr = np.empty(bound, dtype=np.float64)
    cdef long long[::1] cells = cells_arr
    cdef long long[::1] owner = owner_arr
    cdef double[::1] pv = p_arr
    cdef double* mass = <double*> receval_alloc(max(n_cats, 1), sizeof(double), 1)
    # (one slot more: a category already seen is written past the end, and not counted)
    cdef long long* touched = <long long*> receval_alloc(n_cats + 1, sizeof(long long), 0)
    cdef char* on = <char*> receval_alloc(max(n_cats, 1), 1, 1)
    if mass == NULL or touched == NULL or on == NULL:
        free(mass)
        free(touched)
        free(on)
        raise _no_memory("a profile's categories", max(n_cats, 1) * 17)
    try:
        with nogil:
            for u in range(n):
                s = starts[u]
                e = s + lens[u]
                t = 0
                tot = 0.0
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
                        owner[n_out] = u
                        pv[n_out] = mass[c] / tot
                        n_out += on[c]
                        mass[c] = 0.0
                        on[c] = 0
                    continue
                _sort(touched, t)
                for q in range(t):
                    c = touched[q]
                    cells[n_out] = u * n_cats + c
                    owner[n_out] = u
                    pv[n_out] = mass[c] / tot
                    n_out += 1
                    mass[c] = 0.0
                    on[c] = 0
    finally:
        free(mass)
        free(touched)
        free(on)
    return cells_arr[:n_out], owner_arr[:n_out], p_arr[:n_out], total_arr


DEF KL_CHUNK = 2048


def kl_ratios(const double[::1] mass, const double[::1] total, const long long[::1] cells,
              const long long[::1] owner, const double[::1] p, long long width, double alpha):
    """``p / q~`` on each profile cell, ``q = mass[cell] / total[owner]`` (the list's share
    of the cell's category, ``mass`` the flat (users x width) table) and
    ``q~ = (1 - alpha) q + alpha p``: each product and sum rounded on its own, in separate
    loops, as numpy forms them array by array (chunk by chunk: the term ``alpha p`` needs
    a chunk's buffer only, not an array of every cell)."""
    cdef Py_ssize_t m = cells.shape[0], i, lo, hi
    cdef double keep = 1.0 - alpha
    cdef double part[KL_CHUNK]
    out_arr = np.empty(m, dtype=np.float64)
    cdef double[::1] out = out_arr
    if owner.shape[0] != m or p.shape[0] != m:
        raise ValueError("kl_ratios: one owner and one p per cell")
    with nogil:
        for lo in range(0, m, KL_CHUNK):
            hi = lo + KL_CHUNK if lo + KL_CHUNK < m else m
            for i in range(lo, hi):
                out[i] = keep * (mass[cells[i]] / total[owner[i]])
            for i in range(lo, hi):
                part[i - lo] = alpha * p[i]
            for i in range(lo, hi):
                out[i] = p[i] / (out[i] + part[i - lo])
    return out_arr


def kl_sums(const double[::1] p, double[::1] logs, const long long[::1] owner, long long n):
    """Each user's ``sum p log(p / q~)`` over its cells in order (``logs``: the logarithms of
    :func:`kl_ratios`, overwritten by the terms), as ``np.bincount(owner, p * logs)``."""
    cdef Py_ssize_t m = p.shape[0], i
    values_arr = np.zeros(n, dtype=np.float64)
    cdef double[::1] values = values_arr
    if logs.shape[0] != m or owner.shape[0] != m:
        raise ValueError("kl_sums: one log and one owner per cell")
    with nogil:
        for i in range(m):
            logs[i] = p[i] * logs[i]
        for i in range(m):
            values[owner[i]] += logs[i]
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
