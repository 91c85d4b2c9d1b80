# Included by _packing.pyx and _join.pyx: the in-place sort of one user's rows. The including
# module defines ``Row`` and ``cdef inline bint _before(const Row* x, const Row* y, const
# void* ctx)`` (x sorts strictly before y; a total order), which the sort inlines.

cdef void _sort_rows(Row* a, long long n, const void* ctx) noexcept nogil:
    """In-place quicksort (median of three, the smaller side first so the stack depth stays
    below log2 n) that hands ranges of 16 rows or fewer to insertion sort. The order is total,
    so the result equals any other correct sort. Rows already in order (a run written in rank
    order, the usual case) are recognised in one pass and left as they are."""
    cdef long long lo = 0, hi = n - 1, i, j, mid
    cdef long long stack[128]
    cdef int top = 0
    cdef Row pivot, tmp
    i = 1
    while i < n and not _before(&a[i], &a[i - 1], ctx):
        i += 1
    if i >= n:
        return
    while True:
        while hi - lo > 16:
            mid = lo + (hi - lo) // 2
            if _before(&a[mid], &a[lo], ctx):
                tmp = a[mid]; a[mid] = a[lo]; a[lo] = tmp
            if _before(&a[hi], &a[lo], ctx):
                tmp = a[hi]; a[hi] = a[lo]; a[lo] = tmp
            if _before(&a[hi], &a[mid], ctx):
                tmp = a[hi]; a[hi] = a[mid]; a[mid] = tmp
            pivot = a[mid]
            i = lo
            j = hi
            while i <= j:
                while _before(&a[i], &pivot, ctx):
                    i += 1
                while _before(&pivot, &a[j], ctx):
                    j -= 1
                if i <= j:
                    tmp = a[i]; a[i] = a[j]; a[j] = tmp
                    i += 1
                    j -= 1
            if j - lo < hi - i:
                stack[top] = i; stack[top + 1] = hi; top += 2
                hi = j
            else:
                stack[top] = lo; stack[top + 1] = j; top += 2
                lo = i
        for i in range(lo + 1, hi + 1):
            tmp = a[i]
            j = i - 1
            while j >= lo and _before(&tmp, &a[j], ctx):
                a[j + 1] = a[j]
                j -= 1
            a[j + 1] = tmp
        if top == 0:
            break
        top -= 2
        lo = stack[top]
        hi = stack[top + 1]
