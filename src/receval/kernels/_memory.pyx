# cython: language_level=3
"""Large arrays kept for reuse: a numpy memory handler that keeps the blocks it frees.

An evaluation allocates arrays of hundreds of megabytes (the run's sorted lists, their
per-row tables, the fairness metrics' tables) and frees most of them before it returns.
Memory new to the process is handed out by the system a page at a time and cleared on first
write: about 0.02 s per 160 MB on a quiet machine, and several times that when other processes
compete for memory. glibc returns blocks that large to the system when they are freed, so
every evaluation pays it again.

Between :func:`enter` and :func:`leave`, numpy allocates the data of new arrays through
the handler below (numpy's ``PyDataMem_SetHandler``, which is scoped to the current context:
other threads are not affected; each array remembers its handler and is freed through it
whenever it dies, wherever that is). A block of at least ``LARGE`` bytes that is freed is kept,
up to the limit (:func:`set_limit`; 0 keeps nothing), and handed to a later request that it
holds with at most a quarter (or one 2 MiB step) to spare; a zeroed request clears it with ``memset``. Each block
carries a 64-byte header with its capacity, so nothing relies on the size numpy passes back.
:func:`leave` returns to the system the blocks that stayed unused through the last ``keep``
evaluations, so what stays kept is what recent evaluations freed, and :func:`release` returns
them all.
"""

from cpython.pycapsule cimport PyCapsule_New

cimport numpy as cnp

cnp.import_array()

cdef extern from "numpy/arrayobject.h":
    object PyDataMem_SetHandler(object handler)

cdef extern from *:
    """
    #include <stdlib.h>
    #include <string.h>
    #include <stdint.h>
    #include "pythread.h"
    #ifdef __linux__
    #include <sys/mman.h>
    #endif

    #define RV_HEAD 64                   /* header bytes (keeps 64-byte alignment) */
    #define RV_LARGE (4LL << 20)         /* blocks of at least this are kept on free */
    #define RV_CLASS (2LL << 20)         /* their capacities, in steps of a huge page */
    #define RV_SLOTS 256
    #define RV_MAGIC 0x72657665766d656dULL

    typedef struct { uint64_t magic; size_t cap; } rv_head;
    typedef struct { char* base; size_t cap; long long epoch; } rv_slot;

    static rv_slot rv_slots[RV_SLOTS];
    static int rv_n = 0;
    static size_t rv_kept = 0;           /* bytes held in rv_slots */
    static size_t rv_limit = 0;          /* at most this many kept */
    static long long rv_epoch = 0;
    static long long rv_hits = 0, rv_misses = 0;
    static PyThread_type_lock rv_lock = NULL;

    static size_t rv_class(size_t n) {
        return (n + RV_CLASS - 1) / RV_CLASS * RV_CLASS;
    }

    static void rv_huge(char* p, size_t n) {
    #if defined(__linux__) && defined(MADV_HUGEPAGE)
        uintptr_t a = ((uintptr_t) p + 4095) & ~(uintptr_t) 4095;
        uintptr_t b = ((uintptr_t) p + n) & ~(uintptr_t) 4095;
        if (b > a) madvise((void*) a, b - a, MADV_HUGEPAGE);
    #else
        (void) p; (void) n;
    #endif
    }

    /* the smallest kept block that holds n bytes, with at most a class or a quarter of n to
       spare */
    static char* rv_take(size_t n) {
        int j, best = -1;
        char* out = NULL;
        size_t hi = rv_class(n) > n + n / 4 ? rv_class(n) : n + n / 4;
        if (rv_lock == NULL) return NULL;
        PyThread_acquire_lock(rv_lock, WAIT_LOCK);
        for (j = 0; j < rv_n; j++) {
            size_t c = rv_slots[j].cap;
            if (c >= n && c <= hi && (best < 0 || c < rv_slots[best].cap)) best = j;
        }
        if (best >= 0) {
            out = rv_slots[best].base;
            rv_kept -= rv_slots[best].cap;
            rv_slots[best] = rv_slots[--rv_n];
            rv_hits++;
        } else {
            rv_misses++;
        }
        PyThread_release_lock(rv_lock);
        return out;
    }

    static void* rv_new(size_t n, int zero) {
        char* base;
        size_t cap;
        if (n > SIZE_MAX - RV_HEAD - RV_CLASS) return NULL;
        if (n + RV_HEAD < (size_t) RV_LARGE) {
            base = (char*) (zero ? calloc(1, n + RV_HEAD) : malloc(n + RV_HEAD));
            if (base == NULL) return NULL;
            cap = n + RV_HEAD;
        } else {
            cap = rv_class(n + RV_HEAD);
            base = rv_take(n + RV_HEAD);
            if (base != NULL) {
                cap = ((rv_head*) base)->cap;
                if (zero) memset(base + RV_HEAD, 0, n);
            } else {
                base = (char*) (zero ? calloc(1, cap) : malloc(cap));
                if (base == NULL) return NULL;
                rv_huge(base, cap);
            }
        }
        ((rv_head*) base)->magic = RV_MAGIC;
        ((rv_head*) base)->cap = cap;
        return base + RV_HEAD;
    }

    static void* rv_malloc(void* ctx, size_t n) { (void) ctx; return rv_new(n, 0); }

    static void* rv_calloc(void* ctx, size_t m, size_t size) {
        (void) ctx;
        if (size && m > SIZE_MAX / size) return NULL;
        return rv_new(m * size, 1);
    }

    static void rv_free(void* ctx, void* p, size_t size) {
        char* base;
        size_t cap;
        (void) ctx; (void) size;
        if (p == NULL) return;
        base = (char*) p - RV_HEAD;
        cap = ((rv_head*) base)->cap;
        if (cap >= (size_t) RV_LARGE && rv_lock != NULL) {
            PyThread_acquire_lock(rv_lock, WAIT_LOCK);
            if (rv_n < RV_SLOTS && rv_kept + cap <= rv_limit) {
                rv_slots[rv_n].base = base;
                rv_slots[rv_n].cap = cap;
                rv_slots[rv_n].epoch = rv_epoch;
                rv_n++;
                rv_kept += cap;
                base = NULL;
            }
            PyThread_release_lock(rv_lock);
        }
        if (base != NULL) free(base);
    }

    static void* rv_realloc(void* ctx, void* p, size_t n) {
        char* out;
        size_t cap;
        if (p == NULL) return rv_malloc(ctx, n);
        cap = ((rv_head*) ((char*) p - RV_HEAD))->cap;
        if (n + RV_HEAD <= cap && (cap < (size_t) RV_LARGE || n + RV_HEAD >= cap / 2)) return p;
        out = (char*) rv_malloc(ctx, n);
        if (out == NULL) return NULL;
        memcpy(out, p, n + RV_HEAD < cap ? n : cap - RV_HEAD);
        rv_free(ctx, p, 0);
        return out;
    }

    static PyDataMem_Handler rv_handler = {
        "receval_cached", 1, {NULL, rv_malloc, rv_calloc, rv_realloc, rv_free}};

    /* return the kept blocks whose epoch is below `before` (all: before = LLONG_MAX) */
    static void rv_release(long long before) {
        int j = 0;
        if (rv_lock == NULL) return;
        PyThread_acquire_lock(rv_lock, WAIT_LOCK);
        while (j < rv_n) {
            if (rv_slots[j].epoch < before) {
                free(rv_slots[j].base);
                rv_kept -= rv_slots[j].cap;
                rv_slots[j] = rv_slots[--rv_n];
            } else {
                j++;
            }
        }
        PyThread_release_lock(rv_lock);
    }
    """
    ctypedef struct PyDataMem_Handler:
        pass
    PyDataMem_Handler rv_handler
    void rv_release(long long before) noexcept nogil
    ctypedef void* PyThread_type_lock
    PyThread_type_lock PyThread_allocate_lock()
    PyThread_type_lock rv_lock
    size_t rv_kept
    size_t rv_limit
    long long rv_epoch
    long long rv_hits
    long long rv_misses
    int rv_n
    long long RV_LARGE

rv_lock = PyThread_allocate_lock()

_capsule = PyCapsule_New(<void*> &rv_handler, "mem_handler", NULL)

#: the smallest block kept on free (bytes)
LARGE = RV_LARGE


def enter():
    """Allocate the data of new numpy arrays through the caching handler, in the current
    context, and start a new evaluation (epoch). Returns the handler that was in place, for
    :func:`leave`."""
    global rv_epoch
    rv_epoch += 1
    return PyDataMem_SetHandler(_capsule)


def leave(previous, long long keep):
    """Restore the handler ``previous``, then return to the system the kept blocks that no
    evaluation took or freed in the last ``keep`` (>= 1) evaluations, this one included."""
    PyDataMem_SetHandler(previous)
    with nogil:
        rv_release(rv_epoch - keep + 1)


def release():
    """Return every kept block to the system; the bytes returned."""
    cdef size_t before = rv_kept
    with nogil:
        rv_release(1LL << 62)
    return before - rv_kept


def set_limit(long long n_bytes):
    """Keep at most ``n_bytes`` (>= 0; 0 keeps none); a lower limit returns every kept
    block. Returns the limit before."""
    global rv_limit
    if n_bytes < 0:
        raise ValueError("the limit is a number of bytes >= 0")
    before = rv_limit
    rv_limit = n_bytes
    if rv_kept > rv_limit:
        with nogil:
            rv_release(1LL << 62)
    return before


def stats():
    """``{"kept", "blocks", "limit", "reused", "fresh"}``: bytes and blocks kept now, the
    limit, and how many large requests were served by a kept block or by the system."""
    return {"kept": rv_kept, "blocks": rv_n, "limit": rv_limit, "reused": rv_hits,
            "fresh": rv_misses}
