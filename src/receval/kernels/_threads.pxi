# Threads of a compiled kernel: OpenMP's count, or one thread for small inputs.
# Included (textually) by each kernel module that runs parallel regions; each gets its own copy.

cdef extern from *:
    """
    #ifdef _OPENMP
    #include <omp.h>
    static int receval_max_threads(void) { return omp_get_max_threads(); }
    #else
    static int receval_max_threads(void) { return 1; }
    #endif
    """
    int receval_max_threads() nogil

# Below this much work a parallel region costs more than it saves (thread wake-up and barriers
# take milliseconds on a busy machine), so small inputs run on one thread.
DEF SMALL_WORK = 32768


cdef inline int _threads(long long work) noexcept nogil:
    return 1 if work < SMALL_WORK else receval_max_threads()


cdef inline int _threads_over(long long work, long long parts) noexcept nogil:
    """Threads for ``work`` shared out in ``parts`` (users), each thread holding working memory
    for the largest part: no more threads than parts, since more would hold memory for nothing."""
    cdef int nt = _threads(work)
    return nt if parts >= nt else (<int> parts if parts > 1 else 1)
