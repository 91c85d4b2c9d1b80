# Included by _packing.pyx and _join.pyx: the parts the truth-grouping kernels share. The
# including module cimports numpy as ``cnp`` and imports it as ``np``.

cdef int _cmp_desc(const void* a, const void* b) noexcept nogil:
    """qsort order of doubles, descending."""
    cdef double x = (<const double*> a)[0]
    cdef double y = (<const double*> b)[0]
    return (x < y) - (x > y)


cdef inline void _insert_desc(double* a, long long i) noexcept nogil:
    """``a[i]`` into the descending ``a[:i]`` without a branch on the values: every position
    takes ``a'[j] = min(a[j - 1], max(a[j], x))`` (``a[-1] = +inf``, ``a[i] = -inf``), which
    shifts the values below ``x`` one place and puts ``x`` in the gap, so random grades cost
    no mispredicted branch (an insertion sort's exit test mispredicts about once a value)."""
    cdef double x = a[i], p, c
    cdef long long j
    a[i] = a[i - 1] if a[i - 1] < x else x
    for j in range(i - 1, 0, -1):
        p = a[j - 1]
        c = a[j]
        c = c if c > x else x
        a[j] = p if p < c else c
    a[0] = a[0] if a[0] > x else x


DEF FEW_GRADES = 8


cdef inline bint _sort_desc_few(double* a, long long n) noexcept nogil:
    """Sort ``a`` descending by counting its values when it holds at most ``FEW_GRADES``
    distinct ones and no -0.0 (graded judgments); ``False``, ``a`` untouched, otherwise."""
    cdef double v[FEW_GRADES]
    cdef long long cnt[FEW_GRADES]
    cdef long long i, c, pos = 0
    cdef int k = 0, j, q
    cdef double x
    for i in range(n):
        x = a[i]
        if x == 0.0 and signbit(x):
            return False
        j = 0
        while j < k and v[j] != x:
            j += 1
        if j == k:
            if k == FEW_GRADES:
                return False
            v[k] = x
            cnt[k] = 0
            k += 1
        cnt[j] += 1
    for j in range(1, k):  # the distinct values, descending
        x = v[j]
        c = cnt[j]
        q = j - 1
        while q >= 0 and v[q] < x:
            v[q + 1] = v[q]
            cnt[q + 1] = cnt[q]
            q -= 1
        v[q + 1] = x
        cnt[q + 1] = c
    for j in range(k):
        for i in range(cnt[j]):
            a[pos] = v[j]
            pos += 1
    return True


cdef inline void _sort_desc(double* a, long long n) noexcept nogil:
    """Sort ``n`` finite doubles descending in place (a user's relevances). Nothing moves when
    they are already descending, as binary or ordered grades are; otherwise a short list is sorted
    by insertion without branches, a long one by counting its grades when they are few, else by
    qsort."""
    cdef long long i = 1
    while i < n and a[i] <= a[i - 1]:
        i += 1
    if i >= n:
        return
    if n > 32:
        if not _sort_desc_few(a, n):
            qsort(a, n, sizeof(double), _cmp_desc)
        return
    for i in range(i, n):
        _insert_desc(a, i)


cdef tuple _close_gaps(const long long[::1] start, const long long[::1] kept, Py_ssize_t n,
                       cnp.ndarray first_arr, cnp.ndarray rel_arr, cnp.ndarray desc_arr):
    """``(indptr, first, rel, desc)``: per-user outputs written from each user's first input
    row (user ``g`` wrote ``kept[g]`` values from ``start[g]``) laid out as CSR, the gaps left
    by removed duplicates closed (``first``: int64, ``rel`` / ``desc``: float64)."""
    cdef Py_ssize_t n_users = kept.shape[0], g, j
    cdef cnp.ndarray indptr_arr = np.zeros(n_users + 1, dtype=np.int64)
    cdef long long[::1] indptr = indptr_arr
    cdef long long[::1] first = first_arr
    cdef double[::1] rel = rel_arr
    cdef double[::1] desc = desc_arr
    cdef long long s, w
    for g in range(n_users):
        indptr[g + 1] = indptr[g] + kept[g]
    if indptr[n_users] == n:
        return indptr_arr, first_arr, rel_arr, desc_arr
    for g in range(n_users):
        s = start[g]
        w = indptr[g]
        if s != w:
            for j in range(kept[g]):
                first[w + j] = first[s + j]
                rel[w + j] = rel[s + j]
                desc[w + j] = desc[s + j]
    w = indptr[n_users]
    return indptr_arr, first_arr[:w].copy(), rel_arr[:w].copy(), desc_arr[:w].copy()
