# Included by _packing.pyx and _join.pyx: the parts the truth-grouping kernels share. The
# including module cimports numpy as ``cnp`` and imports it as ``np``.

cdef int _cmp_desc(const void* a, const void* b) noexcept nogil:
    """qsort order of doubles, descending."""
    cdef double x = (<const double*> a)[0]
    cdef double y = (<const double*> b)[0]
    return (x < y) - (x > y)


cdef inline void _sort_desc(double* a, long long n) noexcept nogil:
    """Sort ``n`` finite doubles descending in place: insertion sort for a short list (a
    user's relevances: linear when already ordered, as binary or ordered grades are), qsort
    for a long one."""
    cdef long long i, j
    cdef double x
    if n > 32:
        qsort(a, n, sizeof(double), _cmp_desc)
        return
    for i in range(1, n):
        x = a[i]
        j = i
        while j > 0 and a[j - 1] < x:
            a[j] = a[j - 1]
            j = j - 1
        a[j] = x


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
