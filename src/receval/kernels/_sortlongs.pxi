# Included by _diversity.pyx and _fairness.pyx: a short list of int64 sorted in place.

cdef int _cmp_ll(const void* a, const void* b) noexcept nogil:
    """qsort order of int64, ascending."""
    cdef long long x = (<const long long*> a)[0], y = (<const long long*> b)[0]
    return (x > y) - (x < y)


cdef inline void _sort_longs(long long* v, long long m) noexcept nogil:
    """``v[:m]`` ascending: an insertion sort of up to 32 values (no call, no allocation),
    else the C library's sort."""
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
