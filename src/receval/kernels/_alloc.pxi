# Checked allocation of a kernel's working memory. Included (textually) by each kernel module
# that allocates with malloc; each gets its own copy.
#
# A parallel region cannot raise: a thread whose allocation fails sets the region's shared
# failure flag, skips its share of the work and frees what it holds; after the region the
# module raises the MemoryError made by ``_no_memory``.

cdef extern from *:
    """
    #include <stdint.h>
    #include <stdlib.h>
    /* n items of size bytes (zeroed when zero), or NULL when memory is short or n * size
       overflows; n == 0 takes one byte, so that NULL always means "out of memory". */
    static void* receval_alloc(long long n, size_t size, int zero) {
        if (n < 0 || (size != 0 && (unsigned long long) n > SIZE_MAX / size)) return NULL;
        if (n == 0) n = 1;
        return zero ? calloc((size_t) n, size) : malloc((size_t) n * size);
    }
    """
    void* receval_alloc(long long n, size_t size, int zero) nogil


cdef object _no_memory(str what, object n_bytes, int threads=1):
    """The MemoryError for ``what`` (``n_bytes`` in each of ``threads`` threads), as a value to
    raise. ``n_bytes`` is a Python int: a size beyond the address space is reported as it is."""
    each = f" in each of {threads} threads" if threads > 1 else ""
    return MemoryError(f"out of memory: {what} needs {int(n_bytes):,} bytes{each}")
