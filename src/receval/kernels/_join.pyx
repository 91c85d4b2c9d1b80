# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Join each user's ranked list with its truth on raw ids, without global item codes.

Per evaluated user, in parallel over users: the truth items go into a small open-addressing
hash table (reused from user to user: a slot belongs to the user whose number it carries, so
nothing is cleared), the run rows are ordered (score descending, then the raw item id, then
the row; under ``ties="input"`` score descending, then the row), and each recommended item is
probed once: found in the truth (relevance, judged), already recommended above (a
duplicate), or new. When asked (``metrics=``), the joined list is measured right away by the
metric kernel's per-user step, while it is still in cache, and is not kept. Ids are read in
place from the buffers that hold them:

=====  =====================================================================================
kind   buffers
=====  =====================================================================================
0      int64 values (compared and ordered by value)
1      UTF-8 strings: int32 offsets + data (Arrow ``string``)
2      UTF-8 strings: int64 offsets + data (Arrow ``large_string``)
3      Python ``str`` objects (an object array; compared by code point, read in place)
4, 5   Arrow chunks (int32 / int64 offsets): each chunk's offsets and data by address, the
       chunk of a row found from the chunks' first rows (no concatenation)
6      integers narrower than 64 bits (int8 / int16 / int32, uint8 / uint16 / uint32), read
       where they lie and compared by value, as kind 0 (a categorical column's codes too)
=====  =====================================================================================

Scores are float64 or float32. A float32 score is widened as it is read (every float32 is a
float64, exactly, IEEE 754-2008 5.4.2), so both widths give the same lists, bit for bit; narrow
ids and float32 scores are widened per user, into buffers that stay in cache, never per column.

Strings are ordered by code point, which for UTF-8 is the byte order (C's ``strcmp``), so the
order of tied scores is the one :func:`receval.pack.vocab.order_keys` gives.
"""

import numpy as np

cimport numpy as cnp
from cpython.object cimport PyObject
from cpython.ref cimport Py_DECREF, Py_INCREF
from cpython.unicode cimport PyUnicode_DecodeUTF8
from cython.parallel cimport parallel, prange
from libc.math cimport INFINITY, isfinite, signbit
from libc.stdint cimport uint64_t
from libc.stdlib cimport free, qsort, realloc
from libc.string cimport memcmp, memcpy, memset

from receval.kernels._ranking cimport (MetricBuffers, MetricPlan, MetricSetup,
                                       free_metric_buffers, metric_buffers, user_metrics)

cnp.import_array()

cdef extern from *:
    """
    /* a str object whose canonical (PEP 393) data can be read in place */
    static int receval_is_str(PyObject* o) {
        if (!PyUnicode_Check(o)) return 0;
    #if PY_VERSION_HEX < 0x030C0000
        if (!PyUnicode_IS_READY(o)) return 0;
    #endif
        return 1;
    }
    static Py_ssize_t receval_ulen(PyObject* o) { return PyUnicode_GET_LENGTH(o); }
    static int receval_ukind(PyObject* o) { return (int) PyUnicode_KIND(o); }
    static const void* receval_udata(PyObject* o) { return PyUnicode_DATA(o); }
    static unsigned int receval_uread(int kind, const void* data, Py_ssize_t i) {
        return (unsigned int) PyUnicode_READ(kind, data, i);
    }
    """
    int receval_is_str(PyObject* o) nogil
    Py_ssize_t receval_ulen(PyObject* o) nogil
    int receval_ukind(PyObject* o) nogil
    const void* receval_udata(PyObject* o) nogil
    unsigned int receval_uread(int kind, const void* data, Py_ssize_t i) nogil

include "_threads.pxi"
include "_alloc.pxi"


cdef struct Ids:
    int kind
    const long long* ints
    const int* off32
    const long long* off64
    const char* data
    PyObject** objs
    # kinds 4 / 5: Arrow chunks (int32 / int64 offsets), read in place chunk by chunk
    long long n_chunks
    const long long* chunk_start  # first row of each chunk, then the number of rows
    const unsigned long long* chunk_off  # address of each chunk's first offset
    const unsigned long long* chunk_data  # address of each chunk's data
    # kind 6: integers of ``width`` bytes (1, 2 or 4), signed or not, read in place
    const void* narrow
    int width
    bint signed_


cdef struct Row:
    double score
    uint64_t pre      # order-preserving prefix of the raw id
    long long idx     # row of the run
    uint64_t h        # hash of the raw id


cdef struct ShortSlot:
    uint64_t word  # a UTF-8 id of at most 8 bytes, zero-padded
    int len        # its length (-1: a longer id)
    int code       # its position (-1: a free slot)


cdef struct Slot:
    long long owner   # evaluated user that wrote the slot (-1: never written)
    uint64_t h
    long long ref     # >= 0: truth position; < 0: run row -(ref + 1)
    long long seen    # truth slot already matched by a recommended item


cdef extern from *:
    """
    /* a slot of the table of int64 ids (one definition, read by Cython and by the C walk
       below): the id, the user that wrote the slot, the truth position or state */
    typedef struct { long long id; int owner; int ref; } receval_islot;
    """
    ctypedef struct IntSlot "receval_islot":
        # the table of int64 ids: the id itself, found from its Fibonacci hash (``_int_slot``)
        long long id
        int owner     # evaluated user of the block that wrote the slot (-1: never written)
        int ref       # >= 0: truth item ``ref`` of the user, not matched yet; -1: a run row;
                      # <= -2: truth item ``-ref - 2``, already matched


cdef inline long long _int_at(const Ids* ids, long long i) noexcept nogil:
    """The integer id of row ``i`` of kind 0 or 6 (its value, as int64)."""
    if ids.kind == 0:
        return ids.ints[i]
    if ids.width == 4:
        if ids.signed_:
            return (<const int*> ids.narrow)[i]
        return (<const unsigned int*> ids.narrow)[i]
    if ids.width == 2:
        if ids.signed_:
            return (<const short*> ids.narrow)[i]
        return (<const unsigned short*> ids.narrow)[i]
    if ids.signed_:
        return (<const signed char*> ids.narrow)[i]
    return (<const unsigned char*> ids.narrow)[i]


cdef inline void _widen_span(const Ids* ids, long long s, long long e,
                             long long* out) noexcept nogil:
    """The ids of rows ``s .. e - 1`` of kind 6 as int64 into ``out``: one loop per width,
    which the compiler vectorises (:func:`_int_at` chooses the width at each row). The
    source is a local pointer: read through ``ids``, it would be loaded again after every
    store (extensions are built with ``-fno-strict-aliasing``)."""
    cdef long long j, n = e - s
    cdef const void* src = ids.narrow
    cdef const int* i32
    cdef const unsigned int* u32
    cdef const short* i16
    cdef const unsigned short* u16
    cdef const signed char* i8
    cdef const unsigned char* u8
    if ids.width == 4 and ids.signed_:
        i32 = <const int*> src + s
        for j in range(n):
            out[j] = i32[j]
    elif ids.width == 4:
        u32 = <const unsigned int*> src + s
        for j in range(n):
            out[j] = u32[j]
    elif ids.width == 2 and ids.signed_:
        i16 = <const short*> src + s
        for j in range(n):
            out[j] = i16[j]
    elif ids.width == 2:
        u16 = <const unsigned short*> src + s
        for j in range(n):
            out[j] = u16[j]
    elif ids.signed_:
        i8 = <const signed char*> src + s
        for j in range(n):
            out[j] = i8[j]
    else:
        u8 = <const unsigned char*> src + s
        for j in range(n):
            out[j] = u8[j]


cdef inline bint _any_negative(const long long* v, long long n) noexcept nogil:
    """Whether one of ``v[:n]`` is below 0: their bits or-ed together (a loop the compiler
    vectorises), its sign bit read once."""
    cdef long long j, acc = 0
    for j in range(n):
        acc = acc | v[j]
    return acc < 0


cdef inline void _widen_floats(const float* src, long long n, double* out) noexcept nogil:
    """``n`` float32 scores as float64 into ``out`` (exact: IEEE 754-2008 5.4.2). The
    pointers are locals, so the compiler vectorises the loop (read through the kernel's
    shared state, each would be loaded again after every store: extensions are built with
    ``-fno-strict-aliasing``)."""
    cdef long long j
    for j in range(n):
        out[j] = <double> src[j]


cdef inline long long _int_slot(long long v, int shift) noexcept nogil:
    """The home slot of int64 id ``v`` in a table of ``2**(64 - shift)`` slots: Fibonacci
    hashing (Knuth, TAOCP vol. 3, 6.4), the top bits of ``v * 2**64 / phi``; one multiply,
    and consecutive or strided ids spread over the table."""
    return <long long> ((<uint64_t> v * 0x9E3779B97F4A7C15ULL) >> shift)


cdef inline uint64_t _mix(uint64_t x) noexcept nogil:
    x ^= x >> 30
    x *= 0xbf58476d1ce4e5b9ULL
    x ^= x >> 27
    x *= 0x94d049bb133111ebULL
    x ^= x >> 31
    return x


cdef extern from *:
    """
    static inline unsigned long long receval_bswap64(unsigned long long x) {
    #if defined(__GNUC__) || defined(__clang__)
        return __builtin_bswap64(x);
    #else
        unsigned long long r = 0; int k;
        for (k = 0; k < 8; k++) { r = (r << 8) | (x & 0xff); x >>= 8; }
        return r;
    #endif
    }
    """
    uint64_t receval_bswap64(uint64_t x) nogil

cdef extern from *:
    """
    static inline void receval_prefetch(const void* p) {
    #if defined(__GNUC__) || defined(__clang__)
        __builtin_prefetch(p);
    #endif
    }
    """
    void receval_prefetch(const void* p) nogil

#: rows ahead whose str object the join asks the memory for (objects lie anywhere in memory)
DEF PREFETCH_AHEAD = 16


cdef inline uint64_t _load_le(const char* p, long long n) noexcept nogil:
    """The first ``min(n, 8)`` bytes at ``p`` as a little-endian word, zero-padded."""
    cdef uint64_t w = 0
    cdef long long k
    if n >= 8:
        memcpy(&w, p, 8)
        return w
    for k in range(n):
        w |= (<uint64_t> (<unsigned char> p[k])) << (8 * k)
    return w


cdef inline uint64_t _hash_bytes(const char* p, long long n) noexcept nogil:
    """The hash of ``n`` bytes at ``p``: ``_mix(seed ^ n ^ word)`` for at most 8 bytes; a
    longer id goes 16 bytes a step through two independent multiply lanes (so a 32-byte hash
    or a UUID costs a few multiplies, not a chain of them), its last 16 bytes read as two
    words (overlapping the step before when the length is not a multiple of 16), and the
    lanes are joined and mixed at the end. Every byte reaches the result; ids are compared
    in full wherever hashes agree, so the hash only spreads them over a table."""
    cdef uint64_t h = 0x9E3779B97F4A7C15ULL ^ <uint64_t> n, a, b, x, y
    cdef const char* end = p + n
    if n <= 8:
        return _mix(h ^ _load_le(p, n))
    a = h
    b = h ^ 0x6A09E667F3BCC909ULL
    if n >= 16:
        while end - p > 16:
            memcpy(&x, p, 8)
            memcpy(&y, p + 8, 8)
            a = (a ^ x) * 0xff51afd7ed558ccdULL
            b = (b ^ y) * 0xc4ceb9fe1a85ec53ULL
            p += 16
        memcpy(&x, end - 16, 8)
    else:
        memcpy(&x, p, 8)
    memcpy(&y, end - 8, 8)
    a = (a ^ x) * 0xff51afd7ed558ccdULL
    b = (b ^ y) * 0xc4ceb9fe1a85ec53ULL
    return _mix(a ^ ((b << 32) | (b >> 32)))


cdef inline long long _chunk_of(const Ids* ids, long long i) noexcept nogil:
    cdef long long lo = 0, hi = ids.n_chunks - 1, mid
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if ids.chunk_start[mid] <= i:
            lo = mid
        else:
            hi = mid - 1
    return lo


cdef inline void _span_in(const Ids* ids, long long c, long long i, const char** p,
                          long long* n) noexcept nogil:
    """Bytes of row ``i`` of chunk ``c`` (chunked kinds)."""
    cdef long long s, j = i - ids.chunk_start[c]
    cdef const int* o32
    cdef const long long* o64
    if ids.kind == 4:
        o32 = <const int*> ids.chunk_off[c]
        s = o32[j]
        n[0] = o32[j + 1] - s
    else:
        o64 = <const long long*> ids.chunk_off[c]
        s = o64[j]
        n[0] = o64[j + 1] - s
    p[0] = (<const char*> ids.chunk_data[c]) + s


cdef inline void _span(const Ids* ids, long long i, const char** p, long long* n) noexcept nogil:
    """The UTF-8 bytes of row ``i``: ``p[0]``, ``n[0]`` bytes."""
    cdef long long s
    if ids.kind == 1:
        s = ids.off32[i]
        p[0] = ids.data + s
        n[0] = ids.off32[i + 1] - s
    elif ids.kind == 2:
        s = ids.off64[i]
        p[0] = ids.data + s
        n[0] = ids.off64[i + 1] - s
    else:
        _span_in(ids, _chunk_of(ids, i), i, p, n)


cdef inline void _span_near(const Ids* ids, long long i, const char** p, long long* n,
                            long long* hint) noexcept nogil:
    """:func:`_span` that tries the chunk of the previous row first (rows come in order)."""
    cdef long long c = hint[0]
    if ids.kind < 4 or ids.kind > 5:
        _span(ids, i, p, n)
        return
    if c < 0 or c >= ids.n_chunks or i < ids.chunk_start[c] or i >= ids.chunk_start[c + 1]:
        c = _chunk_of(ids, i)
        hint[0] = c
    _span_in(ids, c, i, p, n)


cdef inline uint64_t _hash(const Ids* ids, long long i) noexcept nogil:
    cdef const char* p
    cdef long long n
    cdef PyObject* o
    cdef int kind
    if ids.kind == 0 or ids.kind == 6:
        return _mix(<uint64_t> _int_at(ids, i))
    if ids.kind == 3:
        o = ids.objs[i]
        kind = receval_ukind(o)
        return _hash_bytes(<const char*> receval_udata(o), receval_ulen(o) * kind) ^ <uint64_t> kind
    _span(ids, i, &p, &n)
    return _hash_bytes(p, n)


cdef inline bint _equal(const Ids* a, long long i, const Ids* b, long long j) noexcept nogil:
    cdef const char* p
    cdef const char* q
    cdef long long n, m
    cdef PyObject* x
    cdef PyObject* y
    if a.kind == 0 and b.kind == 0:
        return a.ints[i] == b.ints[j]
    if a.kind == 0 or a.kind == 6:  # (b is of kind 0 or 6 too: ids of one family)
        return _int_at(a, i) == _int_at(b, j)
    if a.kind == 3:
        x = a.objs[i]
        y = b.objs[j]
        if x == y:
            return True
        n = receval_ulen(x)
        if n != receval_ulen(y) or receval_ukind(x) != receval_ukind(y):
            return False
        return memcmp(receval_udata(x), receval_udata(y), n * receval_ukind(x)) == 0
    _span(a, i, &p, &n)
    _span(b, j, &q, &m)
    return n == m and _same_bytes(p, q, n)


cdef inline bint _same_bytes(const char* p, const char* q, long long n) noexcept nogil:
    """``memcmp(p, q, n) == 0``, with ids of 8 to 64 bytes (prefixed ids, hashes, UUIDs)
    compared a word at a time in line, the last word overlapping the one before it, and
    shorter ids byte by byte in line (no call)."""
    cdef uint64_t x, y
    cdef long long k = 0
    if n < 8:
        while k < n:
            if p[k] != q[k]:
                return False
            k += 1
        return True
    if 8 <= n <= 16:
        memcpy(&x, p, 8)
        memcpy(&y, q, 8)
        if x != y:
            return False
        memcpy(&x, p + n - 8, 8)
        memcpy(&y, q + n - 8, 8)
        return x == y
    if 16 < n <= 64:
        while k + 8 < n:
            memcpy(&x, p + k, 8)
            memcpy(&y, q + k, 8)
            if x != y:
                return False
            k += 8
        memcpy(&x, p + n - 8, 8)
        memcpy(&y, q + n - 8, 8)
        return x == y
    return memcmp(p, q, n) == 0


cdef inline int _compare(const Ids* ids, long long i, long long j) noexcept nogil:
    """Sign of raw id i minus raw id j in ascending raw order."""
    cdef const char* p
    cdef const char* q
    cdef long long n, m, t, c
    cdef PyObject* x
    cdef PyObject* y
    cdef int kx, ky
    cdef unsigned int cx, cy
    cdef long long vi, vj
    if ids.kind == 0 or ids.kind == 6:
        vi = _int_at(ids, i)
        vj = _int_at(ids, j)
        return (vi > vj) - (vi < vj)
    if ids.kind == 3:
        x = ids.objs[i]
        y = ids.objs[j]
        n = receval_ulen(x)
        m = receval_ulen(y)
        kx = receval_ukind(x)
        ky = receval_ukind(y)
        t = n if n < m else m
        if kx == 1 and ky == 1:
            c = memcmp(receval_udata(x), receval_udata(y), t)
            if c != 0:
                return 1 if c > 0 else -1
        else:
            for c in range(t):
                cx = receval_uread(kx, receval_udata(x), c)
                cy = receval_uread(ky, receval_udata(y), c)
                if cx != cy:
                    return 1 if cx > cy else -1
        return (n > m) - (n < m)
    _span(ids, i, &p, &n)
    _span(ids, j, &q, &m)
    t = n if n < m else m
    c = memcmp(p, q, t)
    if c != 0:
        return 1 if c > 0 else -1
    return (n > m) - (n < m)


cdef inline uint64_t _str_prefix(Py_ssize_t n, int kind, const void* data) noexcept nogil:
    """The first 8 bytes of the UTF-8 form of a ``str`` (``n`` code points of ``kind`` bytes at
    ``data``), big-endian, zero-padded: the prefix of a UTF-8 id (:c:func:`_prefix`). UTF-8's
    byte order is code point order (RFC 3629), so the prefix preserves the order of the ids;
    an ASCII string's is its first 8 bytes, read in one load."""
    cdef uint64_t w, v = 0
    cdef unsigned int c
    cdef int filled = 0, k
    cdef Py_ssize_t i
    if kind == 1:
        w = _load_le(<const char*> data, n)
        if (w & 0x8080808080808080ULL) == 0:  # ASCII: the bytes are the UTF-8 form
            return receval_bswap64(w)
    for i in range(n):
        c = receval_uread(kind, data, i)
        if c < 0x80:
            k = 1
        elif c < 0x800:
            k = 2
            c = ((0xC0 | (c >> 6)) << 8) | (0x80 | (c & 0x3F))
        elif c < 0x10000:
            k = 3
            c = ((0xE0 | (c >> 12)) << 16) | ((0x80 | ((c >> 6) & 0x3F)) << 8) | \
                (0x80 | (c & 0x3F))
        else:
            k = 4
            c = ((0xF0 | (c >> 18)) << 24) | ((0x80 | ((c >> 12) & 0x3F)) << 16) | \
                ((0x80 | ((c >> 6) & 0x3F)) << 8) | (0x80 | (c & 0x3F))
        if filled + k > 8:  # the bytes of this code point that still fit
            v = (v << (8 * (8 - filled))) | (<uint64_t> c >> (8 * (k - (8 - filled))))
            return v
        v = (v << (8 * k)) | c
        filled += k
        if filled == 8:
            return v
    return v << (8 * (8 - filled)) if filled > 0 else 0


cdef inline void _str_key(PyObject* o, uint64_t* pre, uint64_t* h) noexcept nogil:
    """``_prefix`` and ``_hash`` of a ``str`` object (kind 3), its header read once."""
    cdef Py_ssize_t n = receval_ulen(o)
    cdef int kind = receval_ukind(o)
    cdef const void* data = receval_udata(o)
    h[0] = _hash_bytes(<const char*> data, n * kind) ^ <uint64_t> kind
    pre[0] = _str_prefix(n, kind, data)


cdef inline uint64_t _prefix(const Ids* ids, long long i) noexcept nogil:
    """An order-preserving prefix: prefix(a) < prefix(b) implies a < b; equal prefixes need
    the full comparison."""
    cdef const char* p
    cdef long long n, k
    cdef uint64_t v = 0
    cdef PyObject* o
    cdef int kind
    if ids.kind == 0 or ids.kind == 6:
        return (<uint64_t> _int_at(ids, i)) ^ 0x8000000000000000ULL
    if ids.kind == 3:  # the first 8 bytes of its UTF-8 form
        o = ids.objs[i]
        return _str_prefix(receval_ulen(o), receval_ukind(o), receval_udata(o))
    _span(ids, i, &p, &n)
    return receval_bswap64(_load_le(p, n))  # the first 8 bytes, big-endian, zero-padded


cdef struct Order:
    const Ids* ids
    bint desc
    bint by_row  # ties="input": tied scores in input row order, ids not compared


cdef inline bint _before(const Row* x, const Row* y, const void* ctx) noexcept nogil:
    """x sorts strictly before y: score descending, raw id ascending (descending when
    ``ctx.desc``; not compared when ``ctx.by_row``), then row ascending."""
    cdef const Ids* ids = (<const Order*> ctx).ids
    cdef bint desc = (<const Order*> ctx).desc
    cdef int c
    if x.score != y.score:
        return x.score > y.score
    if (<const Order*> ctx).by_row:
        return x.idx < y.idx
    if x.pre != y.pre:
        return (x.pre < y.pre) != desc
    c = _compare(ids, x.idx, y.idx)
    if c != 0:
        return (c < 0) != desc
    return x.idx < y.idx


include "_rowsort.pxi"
include "_radixsort.pxi"
include "_truthgroups.pxi"


#: the relevances of a user without truth items, as the int64 walk reads them
cdef double NO_REL = 0.0

#: int64 truth lists up to this long are sorted as packed keys (their positions fit 6 bits)
DEF SHORT_INT_LIST = 48


cdef inline void _sort_keys(long long* a, long long n) noexcept nogil:
    """Sort ``n`` distinct int64 keys ascending in place: nothing moves when they already
    ascend; otherwise each is inserted without a branch on the values, every position taking
    ``a'[j] = max(a[j - 1], min(a[j], x))`` (a user's truth items, ten or so, in random order:
    an insertion sort's exit test would mispredict about once a key)."""
    cdef long long i = 1, j, x, p, c
    while i < n and a[i] > a[i - 1]:
        i += 1
    for i in range(i, n):
        x = a[i]
        a[i] = a[i - 1] if a[i - 1] > x else x
        for j in range(i - 1, 0, -1):
            p = a[j - 1]
            c = a[j]
            c = c if c < x else x
            a[j] = p if p > c else c
        a[0] = a[0] if a[0] < x else x


cdef inline bint _packed_keys(long long* keys, long long* rows_of, const Ids* ids,
                              const long long* rows, long long s, long long m) noexcept nogil:
    """A user's truth rows ``s .. s + m - 1`` (through ``rows`` when not NULL; ``m <=
    SHORT_INT_LIST``) as sortable keys ``id * 64 + position``, their rows in ``rows_of``;
    False when an id lies outside [-2**57, 2**57) (the caller sorts that user otherwise)."""
    cdef long long j, r, v
    for j in range(m):
        r = rows[s + j] if rows != NULL else s + j
        v = _int_at(ids, r)
        if (v >> 57) != 0 and (v >> 57) != -1:  # outside [-2**57, 2**57): would not fit
            return False
        keys[j] = <long long> ((<uint64_t> v << 6) | <uint64_t> j)
        rows_of[j] = r
    return True


cdef inline long long _walk_keys(const long long* keys, long long m, const long long* rows_of,
                                 const double* rel, int dedupe, long long* oid, double* orel,
                                 double* odesc, long long* n_dup) noexcept nogil:
    """A user's truth rows as sorted packed keys: repeated ids counted in ``n_dup`` and, under
    ``dedupe``, the one with the highest relevance kept (the first row among equal ones); each
    kept row's id into ``oid`` and relevance into ``orel``, their relevances into ``odesc``
    sorted descending. Returns how many rows were kept."""
    cdef long long j = 0, w = 0, best, r, v, dup = 0
    while j < m:
        best = rows_of[keys[j] & 63]
        v = keys[j] >> 6
        j = j + 1
        while j < m and keys[j] >> 6 == v:
            dup += 1
            if not dedupe:
                break
            r = rows_of[keys[j] & 63]
            if rel[r] > rel[best] or (rel[r] == rel[best] and r < best):
                best = r
            j = j + 1
        oid[w] = v
        orel[w] = rel[best]
        odesc[w] = rel[best]
        w = w + 1
    _sort_desc(odesc, w)
    n_dup[0] += dup
    return w


cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #define RECEVAL_LIKELY(x) __builtin_expect(!!(x), 1)
    #else
    #define RECEVAL_LIKELY(x) (x)
    #endif

    /* The int64 walk of a list joined where it lies, every position within the depth, for
       the metric kernel: _walk_ints with no row buffer, no scores and no depth test, written
       out so that its state stays in registers (the general walk, inlined into the join's
       parallel body, reloads it from the stack on every row). The same outputs, bit for bit,
       and the positions of the truth's items in jpos (n_j of them), for the metric kernel;
       only those positions are written in orel / ojd, which the caller keeps at 0 elsewhere
       (it clears the listed positions after each list). */
    #if defined(__GNUC__) || defined(__clang__)
    __attribute__((noinline))
    #endif
    static long long receval_walk_in_place(const long long* ids, long long m,
                                           receval_islot* tab, long long mask, int shift,
                                           int owner, const double* trel, int dedupe,
                                           double* orel, signed char* ojd, long long* jpos,
                                           long long* n_j, long long* n_dup) {
        const unsigned long long golden = 0x9E3779B97F4A7C15ULL;
        long long q, w = 0, dup = 0, j, v;
        receval_islot* s;
        receval_islot fresh_slot;
        unsigned long long fresh_tail;  /* owner and ref = -1 of a new item's slot, as 8 bytes */
        fresh_slot.owner = owner;
        fresh_slot.ref = -1;
        memcpy(&fresh_tail, &fresh_slot.owner, sizeof fresh_tail);
        for (q = 0; q < m; q++) {
            v = ids[q];
            j = (long long) (((unsigned long long) v * golden) >> shift);
            for (;;) {
                s = &tab[j];
                if (RECEVAL_LIKELY(s->owner != owner)) goto fresh;  /* a free slot: a new item */
                if (s->id == v) break;              /* a truth item, or a repeat */
                j = (j + 1) & mask;
            }
            if (s->ref >= 0) {  /* a truth item's first match */
                orel[w] = trel[s->ref] + 0.0;  /* (+0.0, never -0.0, as _walk_ints) */
                ojd[w] = 1;
                s->ref = -s->ref - 2;
                jpos[(*n_j)++] = w;
                w++;
                continue;
            }
            dup++;  /* a repeated item */
            if (dedupe == 1) continue;
            if (dedupe != 2 && s->ref != -1) {  /* (else as an item outside the truth) */
                orel[w] = trel[-s->ref - 2];
                ojd[w] = 1;
                jpos[(*n_j)++] = w;
            }
            w++;
            continue;
        fresh:  /* its relevance and judged flag stay 0, as the caller keeps them */
            s->id = v;
            memcpy(&s->owner, &fresh_tail, sizeof fresh_tail);
            w++;
        }
        *n_dup += dup;
        return w;
    }
    """
    long long receval_walk_in_place(const long long* ids, long long m, IntSlot* table,
                                    long long mask, int shift, int owner, const double* trel,
                                    int dedupe, double* orel, signed char* ojd, long long* jpos,
                                    long long* n_j, long long* n_dup) nogil


cdef inline void _insert_truth_ints(IntSlot* itab, long long mask, int shift, int owner,
                                    const long long* tints, long long n) noexcept nogil:
    """A user's ``n`` truth ids into its table of int64 slots (item ``q`` as ``ref = q``)."""
    cdef long long q, j
    for q in range(n):
        j = _int_slot(tints[q], shift)
        while itab[j].owner == owner:
            j = (j + 1) & mask
        itab[j].id = tints[q]
        itab[j].owner = owner
        itab[j].ref = <int> q


cdef inline void _prefetch_span(const char* score, int score_w, const char* ids, int ids_w,
                                long long lo, long long hi) noexcept nogil:
    """Ask the memory for the scores (``score_w`` bytes each) and ids (``ids_w`` bytes each)
    of rows ``lo .. hi - 1``, 8 rows at a time (a cache line of the widest)."""
    cdef long long j
    for j in range(lo, hi, 8):
        receval_prefetch(score + j * score_w)
        receval_prefetch(ids + j * ids_w)


cdef inline bint _score_kept(double* sc, int nan_mode, bint as_float32,
                             long long* n_nonfinite) noexcept nogil:
    """A run row's score under the non-finite score policy (``nan_mode`` as in
    :func:`join_lists`; a non-finite one counted in ``n_nonfinite``), rounded to float32 when
    asked; False when the row is dropped."""
    if not isfinite(sc[0]):
        n_nonfinite[0] += 1
        if nan_mode == 1:
            return False
        if nan_mode == 2:
            sc[0] = -INFINITY
    if as_float32:
        sc[0] = <double> (<float> sc[0])
    return True


cdef inline long long _fill_ints(Row* buf, const long long* rints, const double* score,
                                 const long long* rows, long long s, long long e, int nan_mode,
                                 bint as_float32, long long* n_nonfinite,
                                 bint* descending, const long long* uids,
                                 const double* uscore) noexcept nogil:
    """A user's run rows ``s .. e - 1`` (through ``rows`` when not NULL) into ``buf``, in input
    order, under the non-finite score policy; returns how many were kept, and sets
    ``descending`` when their scores strictly descend (the rows are then in order, with no tie
    to look at). ``h`` is left unset: the int64 walk reads the ids (:c:func:`_row_ids`).
    ``uids`` / ``uscore`` (when not NULL): the user's ids / scores widened, row ``j`` at
    ``j - s``, read instead of ``rints`` / ``score``."""
    cdef long long j, r, m = 0, bad = 0, rises = 0
    cdef double sc, prev = INFINITY
    for j in range(s, e):
        r = rows[j] if rows != NULL else j
        sc = uscore[j - s] if uscore != NULL else score[r]
        if not _score_kept(&sc, nan_mode, as_float32, &bad):
            continue
        rises += sc >= prev
        prev = sc
        buf[m].score = sc
        buf[m].pre = (<uint64_t> (uids[j - s] if uids != NULL else rints[r])) ^ \
            0x8000000000000000ULL
        buf[m].idx = r
        m = m + 1
    n_nonfinite[0] += bad
    descending[0] = rises == 0
    return m


cdef extern from *:
    """
    #include <math.h>
    #if defined(__SSE2__) || defined(_M_X64) || (defined(_M_IX86_FP) && _M_IX86_FP >= 2)
    #include <emmintrin.h>
    #define RECEVAL_SSE2 1
    #endif

    /* Every one of the n scores finite and below the one before it (a NaN fails every
       comparison). Two scores a step where the target has SSE2 (every x86-64): the compiler
       does not vectorise this loop itself. */
    static inline int receval_strictly_descending(const double* s, long long n) {
        long long j = 1;
        int ok;
        if (n <= 0) return 1;
        ok = (s[0] > -INFINITY) & (s[0] < INFINITY);
    #ifdef RECEVAL_SSE2
        {
            const __m128d floor = _mm_set1_pd(-INFINITY);
            __m128d all = _mm_castsi128_pd(_mm_set1_epi32(-1)), cur;
            for (; j + 1 < n; j += 2) {
                cur = _mm_loadu_pd(s + j);  /* s[j], s[j + 1] against s[j - 1], s[j] */
                all = _mm_and_pd(all, _mm_and_pd(_mm_cmplt_pd(cur, _mm_loadu_pd(s + j - 1)),
                                                 _mm_cmpgt_pd(cur, floor)));
            }
            ok &= _mm_movemask_pd(all) == 3;
        }
    #endif
        for (; j < n; j++)
            ok &= (s[j] < s[j - 1]) & (s[j] > -INFINITY);
        return ok;
    }
    """
    bint receval_strictly_descending(const double* s, long long n) nogil


cdef inline bint _strictly_descending(const double* score, long long n) noexcept nogil:
    """Every one of the ``n`` scores finite and below the one before it: the rows are then in
    rank order with no tie, so they can be joined where they lie."""
    return receval_strictly_descending(score, n)


cdef inline void _row_ids(const Row* buf, long long m, long long* ids) noexcept nogil:
    """The int64 id of each of ``buf[:m]`` (held as an order-preserving prefix)."""
    cdef long long q
    for q in range(m):
        ids[q] = <long long> (buf[q].pre ^ 0x8000000000000000ULL)


cdef inline long long _walk_ints(const long long* ids, Row* buf, long long m, IntSlot* itab,
                                 long long mask, int shift, int owner, const double* trel,
                                 int dedupe, long long lim, double* orel, signed char* ojd,
                                 double* oscore, long long* n_dup, long long* orow=NULL,
                                 long long row0=0, const int* rcode=NULL) noexcept nogil:
    """Probe a user's ``m`` ids in rank order (``ids``) in its table of int64 slots: each
    row's relevance and judged flag (0 outside the truth) into ``orel`` / ``ojd`` (when not
    NULL) for the first ``lim`` positions, repeated items counted in ``n_dup`` and handled by ``dedupe`` as
    :func:`join_lists` says; returns how many rows are kept. ``buf`` (when not NULL) holds the
    same rows: the kept ones are moved to its front, and their scores go into ``oscore``
    (when not NULL). ``orow`` (when not NULL): each kept position's run row (``buf``'s, or
    ``row0 + q`` for the ``q``-th id of a list joined where it lies), or ``rcode`` at that
    row (when not NULL).

    ``trel``: the user's truth relevances (readable at 0 even without truth items). A truth
    item's first match and a new item take the same steps, the outcome chosen by selects, so
    that hits, which fall at random, cost no mispredicted branch; only a repeated item (rare)
    branches off."""
    cdef long long q, j, v, w = 0, dup = 0, src
    cdef int iref, found
    cdef double rv
    cdef signed char jd
    for q in range(m):
        v = ids[q]
        j = _int_slot(v, shift)
        while itab[j].owner == owner and itab[j].id != v:
            j = (j + 1) & mask
        found = itab[j].owner == owner  # the slot holds this id (else it is free)
        iref = itab[j].ref
        if found & (iref < 0):  # matched before: a repeated item
            dup += 1
            if dedupe == 1:
                continue
            if dedupe == 2 or iref == -1:  # as an item without a truth row
                rv = 0.0
                jd = 0
            else:
                rv = trel[-iref - 2]
                jd = 1
        else:  # a truth item's first match, or a new item outside the truth
            rv = trel[iref if found else 0] * found
            jd = <signed char> found
            itab[j].id = v
            itab[j].owner = owner
            itab[j].ref = -iref - 2 if found else -1
        if w < lim:
            if orel != NULL:
                orel[w] = rv
                ojd[w] = jd
            if oscore != NULL:
                oscore[w] = buf[q].score
            if orow != NULL:
                src = buf[q].idx if buf != NULL else row0 + q
                orow[w] = rcode[src] if rcode != NULL else src
        if buf != NULL and w != q:
            buf[w] = buf[q]
        w = w + 1
    n_dup[0] += dup
    return w


cdef class _Holder:
    """Keeps the objects whose buffers an ``Ids`` points into alive."""
    cdef object keep
    cdef Ids ids


cdef _Holder _ids_of(int kind, object a, object b):
    """``Ids`` over: kind 0 ``a`` int64; kind 1/2 ``a`` offsets (int32/int64) and ``b`` uint8
    data; kind 3 ``a`` an object array."""
    cdef _Holder h = _Holder()
    cdef cnp.ndarray arr = np.ascontiguousarray(a)
    cdef cnp.ndarray dat, offs, dats
    h.keep = [arr]
    h.ids.kind = kind
    if kind == 0:
        if arr.dtype != np.int64:
            raise TypeError("kind 0 ids must be int64")
        h.ids.ints = <const long long*> cnp.PyArray_DATA(arr)
    elif kind == 6:
        if arr.dtype.kind not in "iu" or arr.dtype.itemsize not in (1, 2, 4):
            raise TypeError("kind 6 ids must be integers of 1, 2 or 4 bytes")
        h.ids.narrow = cnp.PyArray_DATA(arr)
        h.ids.width = arr.dtype.itemsize
        h.ids.signed_ = arr.dtype.kind == "i"
    elif kind == 1 or kind == 2:
        if arr.dtype != (np.int32 if kind == 1 else np.int64):
            raise TypeError("string offsets of the wrong width")
        dat = np.ascontiguousarray(b, dtype=np.uint8)
        h.keep.append(dat)
        if kind == 1:
            h.ids.off32 = <const int*> cnp.PyArray_DATA(arr)
        else:
            h.ids.off64 = <const long long*> cnp.PyArray_DATA(arr)
        h.ids.data = <const char*> cnp.PyArray_DATA(dat)
    elif kind == 3:
        if arr.dtype != object:
            raise TypeError("kind 3 ids must be an object array")
        h.ids.objs = <PyObject**> cnp.PyArray_DATA(arr)
    elif kind == 4 or kind == 5:
        # a: row starts (n_chunks + 1, int64); b: (offset addresses, data addresses), uint64
        if arr.dtype != np.int64 or arr.shape[0] < 2:
            raise TypeError("chunk starts must be int64")
        offs = np.ascontiguousarray(b[0], dtype=np.uint64)
        dats = np.ascontiguousarray(b[1], dtype=np.uint64)
        if offs.shape[0] != arr.shape[0] - 1 or dats.shape[0] != arr.shape[0] - 1:
            raise ValueError("one offset and one data address per chunk")
        h.keep += [offs, dats]
        h.ids.n_chunks = arr.shape[0] - 1
        h.ids.chunk_start = <const long long*> cnp.PyArray_DATA(arr)
        h.ids.chunk_off = <const unsigned long long*> cnp.PyArray_DATA(offs)
        h.ids.chunk_data = <const unsigned long long*> cnp.PyArray_DATA(dats)
    else:
        raise ValueError(f"unknown id kind {kind}")
    return h


def all_str(object arr):
    """True when every value of an object array is a ``str`` (or subclass) readable in place.

    Threads over ranges of rows (each stops at its first other value): the pass reads one
    object header per row, so it is bound by memory latency, which threads overlap. A row
    holding the same object as the row before (a user's rows, when equal strings share one
    object, as pyarrow's and pandas' readers make them) is not looked at again."""
    cdef cnp.ndarray a = np.ascontiguousarray(arr)
    if a.dtype != object:
        return False
    cdef PyObject** objs = <PyObject**> cnp.PyArray_DATA(a)
    cdef Py_ssize_t n = a.shape[0], i
    cdef int nt = _threads(n)
    cdef cnp.ndarray[cnp.int8_t, ndim=1] ok_arr = np.ones(nt, dtype=np.int8)
    cdef signed char[::1] ok = ok_arr
    cdef long long t, lo, hi
    cdef PyObject* prev
    for t in prange(nt, nogil=True, schedule="static", num_threads=nt):
        lo = n * t // nt
        hi = n * (t + 1) // nt
        prev = NULL
        for i in range(lo, hi):
            if objs[i] == prev:
                continue
            if not receval_is_str(objs[i]):
                ok[t] = 0
                break
            prev = objs[i]
    return bool(ok_arr.all())


cdef cnp.ndarray _buffer(object scratch, str name, long long n, object dtype):
    """``n`` entries of a reused buffer (grown when too small), or a new array."""
    cdef cnp.ndarray buf
    if scratch is None:
        return np.empty(n, dtype=dtype)
    buf = scratch.get(name)
    if buf is None or buf.shape[0] < n:
        buf = np.empty(max(n, 1), dtype=dtype)
        scratch[name] = buf
    return buf[:n]


cdef extern from *:
    """
    /* The bits of n - 1 (n > 1): the exponent of the least power of two >= n. */
    #if defined(__GNUC__) || defined(__clang__)
    static inline int receval_bits_below(long long n) {
        return n <= 1 ? 0 : 64 - __builtin_clzll((unsigned long long) (n - 1));
    }
    #else
    static inline int receval_bits_below(long long n) {
        int k = 0;
        while ((1LL << k) < n) k++;
        return k;
    }
    #endif
    """
    int receval_bits_below(long long n) nogil


cdef inline long long _pow2_at_least(long long n) noexcept nogil:
    """The least power of two >= ``n``, at least 16."""
    return (<long long> 1) << receval_bits_below(n if n > 16 else 16)


cdef inline int _log2(long long cap) noexcept nogil:
    """``k`` for ``cap == 2**k``."""
    return receval_bits_below(cap)


cdef inline long long _table_cap(long long n) noexcept nogil:
    """Slots of a user's table for ``n`` ids: at most 1/8 full for lists of up to 1024 ids
    (short probe runs: about a fifth less time per row than 1/2 full at 100 ids), at most 1/2
    full beyond (the table of one very long list stays within twice its rows)."""
    return _pow2_at_least(8 * n if n <= 1024 else 2 * n)


cdef inline long long _matched(Slot* slot, int dedupe, long long* n_dup) noexcept nogil:
    """What the probe of a recommended item that found ``slot`` gives: the truth position
    (>= 0, the first match of a truth item, or a repeat of one under ``dedupe`` 0), -1 (an
    item without a truth row: a repeated run item, or any repeat under ``dedupe`` 2) or -2 (a
    repeat left out under ``dedupe`` 1); repeats counted in ``n_dup``."""
    cdef long long ref = slot.ref
    if ref < 0 or slot.seen:
        n_dup[0] += 1
        if dedupe == 1:
            return -2
        return -1 if dedupe == 2 or ref < 0 else ref
    slot.seen = 1
    return ref


cdef inline const char* _row_bytes(const char* data, const int* o32, const long long* o64,
                                   long long q, long long* n) noexcept nogil:
    """Row ``q`` of a UTF-8 buffer (``data``, offsets int32 in ``o32`` or int64 in ``o64``):
    its bytes, ``n[0]`` of them."""
    cdef long long st
    if o64 != NULL:
        st = o64[q]
        n[0] = o64[q + 1] - st
    else:
        st = o32[q]
        n[0] = o32[q + 1] - st
    return data + st


cdef inline bint _one_buffer(const Ids* ids, long long s, long long e, const int** o32,
                             const long long** o64, const char** data,
                             long long* hint) noexcept nogil:
    """Rows ``s .. e - 1`` (``e > s``) of UTF-8 ids (kinds 1, 2, 4, 5) held by one buffer: its
    offsets from row ``s`` (int32 in ``o32`` or int64 in ``o64``, the other NULL) and its data;
    False when they span Arrow chunks or the ids are of another kind. ``hint``: the chunk of
    the previous call, tried first."""
    cdef long long c = hint[0], j
    o32[0] = NULL
    o64[0] = NULL
    if ids.kind == 1:
        o32[0] = ids.off32 + s
        data[0] = ids.data
        return True
    if ids.kind == 2:
        o64[0] = ids.off64 + s
        data[0] = ids.data
        return True
    if ids.kind != 4 and ids.kind != 5:
        return False
    if c < 0 or c >= ids.n_chunks or s < ids.chunk_start[c] or s >= ids.chunk_start[c + 1]:
        c = _chunk_of(ids, s)
        hint[0] = c
    if e > ids.chunk_start[c + 1]:
        return False
    j = s - ids.chunk_start[c]
    if ids.kind == 4:
        o32[0] = (<const int*> ids.chunk_off[c]) + j
    else:
        o64[0] = (<const long long*> ids.chunk_off[c]) + j
    data[0] = <const char*> ids.chunk_data[c]
    return True


cdef long long _walk_utf8_in_place(const char* data, const int* o32, const long long* o64,
                                   long long s, long long m, Slot* table, long long mask,
                                   long long g, const Ids* T, const double* trel, int dedupe,
                                   double* orel, signed char* ojd, long long* jpos,
                                   long long* n_j, long long* n_dup) noexcept nogil:
    """The walk of a UTF-8 list joined where it lies (run rows ``s .. s + m - 1`` in rank order,
    every position within the depth, held by one buffer: ``data`` and the offsets of row ``s``
    on), for the metric kernel: the outputs of the join's general walk over such a list, bit
    for bit, with the truth's positions listed in ``jpos`` (``n_j`` of them); only those
    positions are written in ``orel`` / ``ojd``, which the caller keeps at 0 elsewhere.

    A function of its own, called through a pointer (:data:`_utf8_walk`), so that the
    compiler keeps its state in registers (inlined into the join's parallel body, it would be
    reloaded from the stack on every row)."""
    cdef long long q, j, nb, ref, found, pn, tn, w = 0, dup = 0, nj = 0
    cdef const char* p
    cdef const char* tp
    cdef uint64_t h
    for q in range(m):
        p = _row_bytes(data, o32, o64, q, &nb)
        h = _hash_bytes(p, nb)
        j = <long long> (h & <uint64_t> mask)
        found = -1
        while table[j].owner == g:
            if table[j].h == h:
                ref = table[j].ref
                if ref >= 0:  # a truth item
                    _span(T, ref, &tp, &tn)
                    if tn == nb and _same_bytes(tp, p, nb):
                        found = j
                        break
                else:  # an earlier row of this list
                    tp = _row_bytes(data, o32, o64, -ref - 1 - s, &pn)
                    if pn == nb and _same_bytes(tp, p, nb):
                        found = j
                        break
            j = (j + 1) & mask
        if found < 0:  # a new item: its relevance and judged flag stay 0
            table[j].owner = g
            table[j].h = h
            table[j].ref = -(s + q) - 1
            table[j].seen = 0
            w += 1
            continue
        ref = _matched(&table[found], dedupe, &dup)
        if ref == -2:
            continue
        if ref >= 0:
            orel[w] = trel[ref]
            ojd[w] = 1
            jpos[nj] = w
            nj += 1
        w += 1
    n_j[0] = nj
    n_dup[0] += dup
    return w


ctypedef long long (*Utf8Walk)(const char*, const int*, const long long*, long long, long long,
                               Slot*, long long, long long, const Ids*, const double*, int,
                               double*, signed char*, long long*, long long*,
                               long long*) noexcept nogil

#: :func:`_walk_utf8_in_place`, called through this pointer (set once, when the module
#: loads): the compiler cannot inline it into the join's parallel body
cdef Utf8Walk _utf8_walk = _walk_utf8_in_place


class NotStrIds(ValueError):
    """An object id column read by :func:`join_lists` with ``check_str`` holds a value that is
    not a ``str`` readable in place, or a categorical one a missing code (its check was left
    to the join): the caller reads the column again with the check made first."""


def join_lists(int run_kind, object run_a, object run_b, object score,
               const long long[::1] rows, const long long[::1] rstart,
               const long long[::1] run_of, int truth_kind, object truth_a, object truth_b,
               const long long[::1] t_start, const long long[::1] t_count,
               const double[::1] t_rel, long long depth, int dedupe, int nan_mode,
               int as_float32, int desc, int keep_scores, const long long[::1] cutoffs,
               object scratch=None, int by_row=0, MetricSetup metrics=None,
               const double[::1] t_rel_desc=None, int check_str=0, int rank_rows=0,
               int keep_rows=0, const int[::1] row_codes=None, int keep_rel=1,
               int lookup_kind=-1, object lookup_a=None, object lookup_b=None):
    """Packed lists of one run, joined with its truth on raw item ids.

    Evaluated user ``g`` has the run rows ``rows[rstart[c]:rstart[c + 1]]`` with ``c =
    run_of[g]`` (none when -1; ``rows`` empty: the rows themselves), and the truth positions
    ``t_start[g] ... t_start[g] + t_count[g] - 1`` of the truth ids and ``t_rel``.
    ``dedupe``, ``nan_mode``, ``as_float32`` and ``cutoffs`` as in
    :func:`receval.kernels.pack_lists`; ``desc`` orders tied scores by raw id descending
    (trec_eval), else ascending; ``by_row`` orders them by input row (``ties="input"``).

    ``scratch``: a dict of arrays reused from call to call for the per-position outputs (the
    returned arrays are then views into them, valid until the next call with it), so that
    fresh memory is touched once when a run is packed block by block.

    ``metrics``: measure each user's list as soon as it is joined, while it is in cache
    (:c:func:`receval.kernels._ranking.user_metrics`; ``t_rel_desc``: the truth relevances,
    each user's descending, at the positions of ``t_rel``); the lists themselves are then
    not kept (``scores``, ``rel`` and ``judged`` come back empty), unless ``keep_rows``
    keeps them (each list measured from its kept positions), and a ninth value is returned:
    the (users x requests) metric values.

    ``score``: float64 or float32 (read where it lies, each user's widened exactly in cache).

    ``check_str`` (run ids of kind 3): each run row read is first checked to hold a ``str``
    readable in place, as :func:`all_str` does, so that the column needs no pass of its own;
    :class:`NotStrIds` is raised when one does not (every row of every evaluated user is
    checked, whatever its score). With run ids of kind 6 (a categorical column's codes):
    each code read is checked not to be below 0 (a missing value), likewise.

    ``rank_rows`` (int64 or narrow integer ids on both sides): each user's rows are in rank
    order, row ``rstart[c] + i`` scored ``-(i + 1)`` (a top-k matrix); ``score`` is not read
    (it may be empty), so that no score column is made.

    ``keep_rows``: each position's run row is returned too, as a ninth value (int64; for a
    ``rank_rows`` run, the row of the flattened matrix), so that what the metrics on the
    recommended items read of each position comes from the run's own columns; with
    ``row_codes`` (int32, one per run row), the code at that row instead (e.g. the run's item
    codes); with ``metrics``, after the metric values. ``lookup_kind`` (0 or more, with
    ``keep_rows``; ids of the run's family, not on the int64 path): each position's place in
    those ids (``lookup_a`` / ``lookup_b``, distinct, fewer than 2**31; int32, -1 when
    absent) instead of its row, found with the hash the join has already taken of the
    row's id, as :func:`index_at` finds it. ``keep_rel=0`` (with ``keep_rows``): the kept lists hold no relevance and no
    judged flag (``rel`` and ``judged`` come back empty; with ``metrics``, each list is
    measured from its own buffers), for metrics on the recommended items that read
    neither.

    Returns ``(indptr, scores, rel, judged, list_len, n_dup, n_dropped, tied)``;
    ``n_dropped`` counts the rows with a non-finite score: dropped under ``nan_mode=1``,
    ranked last under ``nan_mode=2``, kept as they are under ``nan_mode=0`` (whose caller
    refuses them).
    """
    cdef _Holder rh = _ids_of(run_kind, run_a, run_b)
    cdef _Holder th = _ids_of(truth_kind, truth_a, truth_b)
    cdef Ids* R = &rh.ids
    cdef Ids* T = &th.ids
    cdef cnp.ndarray score_arr = np.ascontiguousarray(score)
    if score_arr.ndim != 1 or score_arr.dtype not in (np.float64, np.float32):
        raise TypeError(f"join_lists: scores must be float64 or float32, got {score_arr.dtype}")
    cdef bint f32 = score_arr.dtype == np.float32 and not rank_rows
    cdef const float* score32 = <const float*> cnp.PyArray_DATA(score_arr) if f32 else NULL
    cdef Py_ssize_t n_eval = run_of.shape[0]
    cdef bint has_rows = rows.shape[0] > 0
    cdef long long g, c, nr, maxrows = 1, maxcap = 16, total_rows = 0, maxpos = 1, maxtruth = 1
    cdef bint measure = metrics is not None
    cdef bint measure_only = measure and not keep_rows  # (else measured from the kept lists)
    # kept lists without their relevance: each measured from the thread's buffers
    cdef bint no_rel = measure and keep_rows and not keep_rel
    # kept lists with neither relevance nor judged flag, written nowhere (nothing measured)
    cdef bint rel_kept = keep_rel or not keep_rows
    # the truth's items go into each user's table only when something reads what they give
    # (else the table finds the run's repeated items only): kept relevance, or a request
    # that reads the lists (the truth's relevant count reads the truth alone)
    cdef bint truth_read = rel_kept or (measure and metrics.reads_lists)
    # upper-bound layout: at most min(depth, rows) positions per user
    cdef cnp.ndarray[cnp.int64_t, ndim=1] ub_arr = np.zeros(n_eval + 1, dtype=np.int64)
    cdef long long[::1] ub = ub_arr
    for g in range(n_eval):
        c = run_of[g]
        nr = rstart[c + 1] - rstart[c] if c >= 0 else 0
        total_rows += nr
        if nr > maxrows:
            maxrows = nr
        if _table_cap(nr + t_count[g]) > maxcap:
            maxcap = _table_cap(nr + t_count[g])
        if depth > 0 and nr > depth:
            nr = depth
        ub[g + 1] = ub[g] + nr
        if nr > maxpos:
            maxpos = nr
        if t_count[g] > maxtruth:
            maxtruth = t_count[g]
    cdef long long ub_total = ub[n_eval]
    cdef long long n_req = metrics.plan.n_req if measure else 0
    if measure and (t_rel_desc is None or t_rel_desc.shape[0] != t_rel.shape[0]):
        raise ValueError("measuring the lists needs t_rel_desc, aligned with t_rel")
    cdef const int* rcode_p = &row_codes[0] if row_codes is not None and \
        row_codes.shape[0] > 0 else NULL
    # the ids each kept position is looked up in (lookup_kind >= 0): their table of slots
    cdef _Holder lh = _ids_of(lookup_kind, lookup_a, lookup_b) if lookup_kind >= 0 else None
    cdef Ids* LV = &lh.ids if lookup_kind >= 0 else NULL
    cdef long long[::1] lslot
    cdef uint64_t[::1] lhash
    cdef const long long* lslot_p = NULL
    cdef const uint64_t* lhash_p = NULL
    cdef long long lmask = 0
    cdef const ShortSlot* lshort = NULL
    if lookup_kind >= 0:
        if not keep_rows or row_codes is not None:
            raise ValueError("join_lists: a lookup writes the kept positions' places; ask for "
                             "keep_rows, without row_codes")
        if _n_ids(lookup_kind, lookup_a) > 0x7fffffff:
            raise ValueError("join_lists: the ids looked up are more than int32 places")
        lslot, lhash, _ = _id_table(LV, _n_ids(lookup_kind, lookup_a))
        lslot_p = &lslot[0]
        lhash_p = &lhash[0]
        lmask = lslot.shape[0] - 1
        if R.kind != 0 and R.kind != 3 and R.kind != 6:  # UTF-8: short ids by their word
            lshort_arr = _short_table(LV, lslot)
            lshort = <const ShortSlot*> cnp.PyArray_DATA(lshort_arr)
    if measure and (metrics.plan.maxlen < maxpos or metrics.plan.tstride <= maxtruth):
        raise ValueError("the metric setup is for shorter lists than these")
    cdef cnp.ndarray[cnp.float64_t, ndim=2] kout_arr = np.empty((n_eval if measure else 0,
                                                                n_req), dtype=np.float64)
    cdef double* kout = <double*> cnp.PyArray_DATA(kout_arr)
    cdef const MetricPlan* P = &metrics.plan if measure else NULL
    cdef MetricBuffers* B
    cdef double* urel
    cdef signed char* ujd
    cdef long long* ujpos  # the positions of the truth's items, as the in-place walk finds them
    cdef long long n_j
    cdef long long n_av
    cdef const double* tr
    if measure_only:
        ub_total = 0  # no list is kept

    cdef cnp.ndarray[cnp.float64_t, ndim=1] scores_arr = _buffer(
        scratch, "scores", ub_total if keep_scores else 0, np.float64)
    cdef cnp.ndarray[cnp.float64_t, ndim=1] rel_arr = _buffer(
        scratch, "rel", ub_total if rel_kept else 0, np.float64)
    cdef cnp.ndarray[cnp.int8_t, ndim=1] judged_arr = _buffer(
        scratch, "judged", ub_total if rel_kept else 0, np.int8)
    # kept positions' run rows (int64), or their places in the lookup's ids (int32)
    cdef bint places = LV != NULL
    cdef cnp.ndarray[cnp.int64_t, ndim=1] row_arr = _buffer(
        scratch, "rows", ub_total if keep_rows and not places else 0, np.int64)
    cdef long long[::1] out_row = row_arr
    cdef cnp.ndarray[cnp.int32_t, ndim=1] place_arr = _buffer(
        scratch, "places", ub_total if places else 0, np.int32)
    cdef int[::1] out_place = place_arr
    cdef cnp.ndarray[cnp.int64_t, ndim=1] full_arr = np.zeros(n_eval, dtype=np.int64)
    cdef cnp.ndarray[cnp.int64_t, ndim=1] ndup_arr = np.zeros(n_eval, dtype=np.int64)
    cdef cnp.ndarray[cnp.int64_t, ndim=1] drop_arr = np.zeros(n_eval, dtype=np.int64)
    cdef cnp.ndarray[cnp.int8_t, ndim=1] tied_arr = np.zeros(n_eval, dtype=np.int8)
    cdef double[::1] out_score = scores_arr
    cdef double[::1] out_rel = rel_arr
    cdef signed char[::1] out_judged = judged_arr
    cdef long long[::1] full_len = full_arr
    cdef long long[::1] ndup = ndup_arr
    cdef long long[::1] dropped = drop_arr
    cdef signed char[::1] tied = tied_arr
    if cutoffs is None:
        cutoffs = np.zeros(0, dtype=np.int64)
    cdef Py_ssize_t n_cut = cutoffs.shape[0], ci
    cdef long long ck

    cdef Row* buf
    cdef Row* spare  # the sort's: rows and keys
    cdef uint64_t* rkeys
    cdef long long n_spare = maxrows if maxrows < RADIX_MAX else RADIX_MAX
    cdef Slot* table
    cdef IntSlot* itab
    cdef int shift
    cdef bint in_place
    cdef long long* ibuf  # the ids of a user's rows, once ordered
    cdef const long long* ids_p
    cdef int g32
    # int64 ids on both sides (the usual numeric case): 16-byte slots holding the ids
    cdef bint ints = (R.kind == 0 or R.kind == 6) and T.kind == 0 and n_eval < 0x7fffffff
    # narrow ids or float32 scores on the int64 path: each user's widened into buffers
    cdef bint widen = ints and (R.kind == 6 or f32 or rank_rows)
    if rank_rows and not ints:
        raise ValueError("rank_rows needs integer ids on both sides")
    if ints and LV != NULL:
        raise ValueError("join_lists: a lookup reads the hashes of the joins on text ids")
    cdef long long* wids
    cdef double* wscore
    cdef const long long* uids
    cdef const double* uscore
    cdef bint verify = check_str and R.kind == 3
    cdef bint verify_codes = check_str and R.kind == 6  # categorical codes: none below 0
    # per user, so that no two threads write one flag
    cdef cnp.ndarray[cnp.int8_t, ndim=1] not_str_arr = np.zeros(
        n_eval if verify or verify_codes else 0, dtype=np.int8)
    cdef signed char[::1] not_str = not_str_arr
    cdef long long k0, mask, cap, j, q, p, r, m, w, s, e, ref, found, base, lim
    cdef uint64_t h
    cdef double sc, rv
    cdef signed char jd
    cdef Order order
    order.ids = R
    order.desc = desc
    order.by_row = by_row
    cdef const char* sp
    cdef long long sn, hint
    cdef const int* o32
    cdef const long long* o64
    cdef const char* dbase
    cdef bint fast
    cdef uint64_t word
    # UTF-8 rows grouped by user, each list kept whole: each row's place found while its
    # bytes are read for the sort, in row order, and taken up again by the walk
    cdef int* lplace
    cdef bint early
    # plain pointers for the int64 path (passed by value, so kept in registers)
    cdef const long long* rints = R.ints
    cdef const long long* tints = T.ints
    cdef const double* score_p = <const double*> cnp.PyArray_DATA(score_arr) \
        if not f32 and score_arr.shape[0] > 0 else NULL
    cdef const char* id_bytes = <const char*> (R.narrow if R.kind == 6 else R.ints)
    cdef int id_w = R.width if R.kind == 6 else 8
    # (rank_rows: no scores to ask the memory for; the ids are asked for twice)
    cdef const char* score_bytes = id_bytes if rank_rows else \
        <const char*> cnp.PyArray_DATA(score_arr)
    cdef int score_w = id_w if rank_rows else 4 if f32 else 8
    cdef const long long* rows_p = &rows[0] if has_rows else NULL
    cdef const double* trel_p = &t_rel[0] if t_rel.shape[0] > 0 else NULL
    cdef long long n_rows = len(rh.keep[0]) if rank_rows else score_arr.shape[0]
    if row_codes is not None and row_codes.shape[0] < n_rows:
        raise ValueError("join_lists: row_codes needs one code per run row")
    cdef bint descending
    cdef int nt = _threads_over(total_rows, n_eval)
    cdef int failed = 0
    cdef int* fail = &failed  # written through the pointer: shared by the threads
    cdef bint ok
    with nogil, parallel(num_threads=nt):
        hint = -1
        buf = <Row*> receval_alloc(maxrows, sizeof(Row), 0)
        spare = <Row*> receval_alloc(n_spare, sizeof(Row), 0)
        rkeys = <uint64_t*> receval_alloc(2 * n_spare, sizeof(uint64_t), 0)
        table = <Slot*> receval_alloc(maxcap, sizeof(Slot), 0)
        lplace = <int*> receval_alloc(maxrows, sizeof(int), 0) \
            if lshort != NULL and not has_rows else NULL
        ibuf = <long long*> receval_alloc(maxrows, sizeof(long long), 0) if ints else NULL
        wids = <long long*> receval_alloc(maxrows, sizeof(long long), 0) \
            if widen and R.kind == 6 else NULL
        wscore = <double*> receval_alloc(maxrows, sizeof(double), 0) \
            if widen and (f32 or rank_rows) else NULL
        ok = buf != NULL and table != NULL and (ibuf != NULL or not ints) and \
            spare != NULL and rkeys != NULL and \
            (lplace != NULL or lshort == NULL or has_rows) and \
            (wids != NULL or not (widen and R.kind == 6)) and \
            (wscore != NULL or not (widen and (f32 or rank_rows)))
        B = NULL
        urel = NULL
        ujd = NULL
        ujpos = NULL
        if measure:  # pointers assigned here: each thread has its own
            B = <MetricBuffers*> receval_alloc(1, sizeof(MetricBuffers), 1)
            ok = ok and B != NULL and metric_buffers(P, B)
            # zero between lists: the in-place walk writes the truth's positions only
            urel = <double*> receval_alloc(maxpos, sizeof(double), 1)
            ujd = <signed char*> receval_alloc(maxpos, sizeof(signed char), 1)
            ujpos = <long long*> receval_alloc(maxpos, sizeof(long long), 0)
            ok = ok and urel != NULL and ujd != NULL and ujpos != NULL
        if not ok:
            fail[0] = 1
        itab = <IntSlot*> table
        if ok and ints:
            for k0 in range(maxcap):
                itab[k0].owner = -1
        elif ok:
            for k0 in range(maxcap):
                table[k0].owner = -1
        for g in prange(n_eval, schedule="guided"):
            if not ok or fail[0]:  # out of memory (here or in another thread): no more work
                continue
            c = run_of[g]
            if c < 0:
                if measure:  # a user without run rows: an empty list
                    tr = &t_rel_desc[t_start[g]] if t_count[g] > 0 else NULL
                    user_metrics(P, B, NULL, NULL, NULL, 0, 0, tr, t_count[g], NULL, 0,
                                 kout + g * n_req)
                continue
            s = rstart[c]
            e = rstart[c + 1]
            cap = _table_cap(e - s + t_count[g])
            mask = cap - 1
            g32 = <int> g
            base = ub[g]
            lim = ub[g + 1] - base
            in_place = False
            n_j = -1  # no list of the truth's positions
            if ints:  # int64 ids on both sides: the table of ids placed by Fibonacci hashing
                shift = 64 - _log2(cap)
                _insert_truth_ints(itab, mask, shift, g32, tints + t_start[g],
                                   t_count[g] if truth_read else 0)
                if rows_p == NULL:  # the next list's rows, from memory while this one is joined
                    _prefetch_span(score_bytes, score_w, id_bytes, id_w, e,
                                   e + (e - s) if e + (e - s) < n_rows else n_rows)
                tr = trel_p + t_start[g] if t_count[g] > 0 else &NO_REL
                uids = NULL
                uscore = NULL
                # this user's narrow ids / float32 scores widened, exactly
                if rows_p == NULL:  # (contiguous: one loop per width, vectorised)
                    if wids != NULL:
                        _widen_span(R, s, e, wids)
                    if wscore != NULL and not rank_rows:
                        _widen_floats(score32 + s, e - s, wscore)
                elif wids != NULL or (wscore != NULL and not rank_rows):
                    for j in range(s, e):
                        r = rows_p[j] if rows_p != NULL else j
                        if wids != NULL and rows_p != NULL:
                            wids[j - s] = _int_at(R, r)
                        if wscore != NULL and not rank_rows:
                            wscore[j - s] = <double> score32[r]
                if verify_codes and _any_negative(wids, e - s):
                    not_str[g] = 1  # a missing code (the caller reads the column again)
                uids = wids
                uscore = wscore
                # rows in rank order with no tie (the usual case): joined where they lie
                if rank_rows:  # in rank order by construction: -1, -2, ... when asked for
                    in_place = not as_float32 and not keep_scores
                    if not in_place:
                        for j in range(e - s):
                            wscore[j] = <double> (-j - 1)
                else:
                    in_place = rows_p == NULL and not as_float32 and not keep_scores and \
                        _strictly_descending(uscore if uscore != NULL else score_p + s, e - s)
                if in_place:
                    m = e - s
                    ids_p = uids if uids != NULL else rints + s
                else:
                    descending = False  # assigned here so that each thread has its own
                    m = _fill_ints(buf, rints, score_p, rows_p, s, e, nan_mode, as_float32,
                                   &dropped[g], &descending, uids, uscore)
                    if not descending:
                        # (rows in order are left as they are)
                        _sort_rows_long(buf, m, &order, spare, rkeys)
                    _row_ids(buf, m, ibuf)
                    ids_p = ibuf
                if measure_only and in_place and m <= lim:
                    n_j = 0  # (the walk lists the positions of the truth's items)
                    w = receval_walk_in_place(ids_p, m, itab, mask, shift, g32, tr, dedupe,
                                              urel, ujd, ujpos, &n_j, &ndup[g])
                elif measure_only:
                    w = _walk_ints(ids_p, NULL if in_place else buf, m, itab, mask, shift, g32,
                                   tr, dedupe, lim, urel, ujd, NULL, &ndup[g])
                else:
                    w = _walk_ints(ids_p, NULL if in_place else buf, m, itab, mask, shift, g32,
                                   tr, dedupe, lim,
                                   &out_rel[base] if rel_kept else urel,
                                   &out_judged[base] if rel_kept else ujd,
                                   &out_score[base] if keep_scores else NULL, &ndup[g],
                                   &out_row[base] if keep_rows else NULL, s, rcode_p)
            else:
                # the user's truth items
                for q in range(t_count[g] if truth_read else 0):
                    p = t_start[g] + q
                    h = _hash(T, p)
                    j = <long long> (h & <uint64_t> mask)
                    while table[j].owner == g:
                        j = (j + 1) & mask
                    table[j].owner = g
                    table[j].h = h
                    table[j].ref = p
                    table[j].seen = 0
                sp = NULL  # assigned here so that each thread has its own (they are written
                sn = 0     # through their addresses only, which prange does not see)
                # UTF-8 rows in rank order with no tie (the usual case): hashed and walked
                # where they lie, with no row buffer to fill and check
                in_place = not has_rows and not f32 and not as_float32 and not keep_scores \
                    and R.kind != 0 and R.kind != 3 and R.kind != 6 and \
                    _strictly_descending(score_p + s, e - s)
                early = lplace != NULL and not in_place and lim == e - s
                # the user's rows, ordered
                m = e - s if in_place else 0
                for j in range(s, s if in_place else e):
                    r = rows[j] if has_rows else j
                    if verify and not receval_is_str(R.objs[r]):
                        not_str[g] = 1  # (the caller reads the column again)
                        continue
                    if verify_codes and _int_at(R, r) < 0:
                        not_str[g] = 1
                        continue
                    sc = <double> score32[r] if f32 else score_p[r]
                    if not _score_kept(&sc, nan_mode, as_float32, &dropped[g]):
                        continue
                    buf[m].score = sc
                    if R.kind == 3:
                        if j + PREFETCH_AHEAD < e:
                            receval_prefetch(R.objs[rows[j + PREFETCH_AHEAD] if has_rows
                                                    else j + PREFETCH_AHEAD])
                        _str_key(R.objs[r], &buf[m].pre, &buf[m].h)
                    elif R.kind == 0 or R.kind == 6:
                        buf[m].pre = _prefix(R, r)
                        buf[m].h = _hash(R, r)
                    else:  # UTF-8: one look at the bytes for both
                        _span_near(R, r, &sp, &sn, &hint)
                        word = _load_le(sp, sn)
                        buf[m].pre = receval_bswap64(word)
                        buf[m].h = _hash_bytes(sp, sn)
                        if early:
                            lplace[j - s] = <int> (
                                _probe_short(lshort, lmask, buf[m].h, word, sn) if sn <= 8
                                else _probe(LV, lslot_p, lhash_p, lmask, buf[m].h, R, r))
                    buf[m].idx = r
                    m = m + 1
                if not in_place:
                    # (rows already in order are left as they are)
                    _sort_rows_long(buf, m, &order, spare, rkeys)
                # walk: probe each recommended item once (a list in rank order, measured
                # and held by one buffer: by the walk of its own)
                o32 = NULL  # assigned here so that each thread has its own (as sp, sn)
                o64 = NULL
                dbase = NULL
                fast = measure_only and in_place and m <= lim and m > 0 and \
                    T.kind != 3 and _one_buffer(R, s, e, &o32, &o64, &dbase, &hint)
                if fast:
                    w = _utf8_walk(dbase, o32, o64, s, m, table, mask, g, T, trel_p,
                                   dedupe, urel, ujd, ujpos, &n_j, &ndup[g])
                else:
                    w = 0
                for q in range(0 if fast else m):
                    if in_place:
                        r = s + q
                        _span_near(R, r, &sp, &sn, &hint)
                        h = _hash_bytes(sp, sn)
                    else:
                        r = buf[q].idx
                        h = buf[q].h
                    j = <long long> (h & <uint64_t> mask)
                    rv = 0.0
                    jd = 0
                    found = -1
                    while table[j].owner == g:
                        if table[j].h == h:
                            ref = table[j].ref
                            if (ref >= 0 and _equal(T, ref, R, r)) or \
                                    (ref < 0 and _equal(R, -ref - 1, R, r)):
                                found = j
                                break
                        j = (j + 1) & mask
                    if found >= 0:
                        ref = _matched(&table[found], dedupe, &ndup[g])
                        if ref == -2:
                            continue
                        if ref >= 0:
                            rv = t_rel[ref]
                            jd = 1
                    else:
                        table[j].owner = g
                        table[j].h = h
                        table[j].ref = -r - 1
                        table[j].seen = 0
                    if w < lim:
                        if measure_only or no_rel:
                            urel[w] = rv
                            ujd[w] = jd
                        elif rel_kept:
                            out_rel[base + w] = rv
                            out_judged[base + w] = jd
                        if not measure_only:
                            if keep_scores:
                                out_score[base + w] = buf[q].score
                            if keep_rows and early:
                                out_place[base + w] = lplace[r - s]
                            elif keep_rows and places:
                                if lshort != NULL:  # UTF-8 (sp, sn: this row's, in place)
                                    if not in_place:
                                        _span_near(R, r, &sp, &sn, &hint)
                                    out_place[base + w] = <int> (_probe_short(
                                        lshort, lmask, h, _load_le(sp, sn), sn) if sn <= 8
                                        else _probe(LV, lslot_p, lhash_p, lmask, h, R, r))
                                else:
                                    out_place[base + w] = <int> _probe(LV, lslot_p, lhash_p,
                                                                       lmask, h, R, r)
                            elif keep_rows:
                                out_row[base + w] = rcode_p[r] if rcode_p != NULL else r
                    if w != q and not in_place:
                        buf[w] = buf[q]
                    w = w + 1
            for ci in range(0 if in_place else n_cut):  # (in place: no tie anywhere)
                ck = cutoffs[ci]
                if ck < w and buf[ck - 1].score == buf[ck].score:
                    tied[g] = 1
                    break
            full_len[g] = w
            if no_rel:  # from the thread's buffers, back to zero after
                n_av = w if w < lim else lim
                tr = &t_rel_desc[t_start[g]] if t_count[g] > 0 else NULL
                user_metrics(P, B, urel, ujd, NULL, n_av, w, tr, t_count[g], NULL, 0,
                             kout + g * n_req)
                memset(urel, 0, n_av * sizeof(double))
                memset(ujd, 0, n_av * sizeof(signed char))
            elif measure and not measure_only:  # from the kept positions
                n_av = w if w < lim else lim
                tr = &t_rel_desc[t_start[g]] if t_count[g] > 0 else NULL
                user_metrics(P, B, &out_rel[base], &out_judged[base], NULL, n_av, w, tr,
                             t_count[g], NULL, 0, kout + g * n_req)
            elif measure:
                n_av = w if w < lim else lim
                tr = &t_rel_desc[t_start[g]] if t_count[g] > 0 else NULL
                user_metrics(P, B, urel, ujd, NULL, n_av, w, tr, t_count[g],
                             ujpos if n_j >= 0 else NULL, n_j, kout + g * n_req)
                if n_j >= 0:  # back to zero: the positions the in-place walk wrote
                    for q in range(n_j):
                        urel[ujpos[q]] = 0.0
                        ujd[ujpos[q]] = 0
                else:  # the other walks write every position
                    memset(urel, 0, n_av * sizeof(double))
                    memset(ujd, 0, n_av * sizeof(signed char))
        free(buf)
        free(spare)
        free(rkeys)
        free(table)
        free(lplace)
        free(ibuf)
        free(wids)
        free(wscore)
        if B != NULL:
            free_metric_buffers(B)
            free(B)
        free(urel)
        free(ujd)
        free(ujpos)
    if failed:
        raise _no_memory(
            f"joining a list of {maxrows:,} run rows (table of {maxcap:,} slots)",
            maxrows * (sizeof(Row) + (sizeof(long long) if ints else 0)) + maxcap * sizeof(Slot)
            + n_spare * (sizeof(Row) + 2 * sizeof(uint64_t))
            + (maxpos * (sizeof(double) + 1 + sizeof(long long)) if measure else 0), nt)

    if verify and not_str_arr.any():
        raise NotStrIds("an object id column holds a value that is not a str")
    if verify_codes and not_str_arr.any():
        raise NotStrIds("a categorical id column holds a missing value (code -1)")
    # final layout; compact when dropped rows or removed duplicates shortened a list
    cdef cnp.ndarray[cnp.int64_t, ndim=1] indptr_arr = np.zeros(n_eval + 1, dtype=np.int64)
    cdef long long[::1] indptr = indptr_arr
    cdef long long n_dropped = 0
    for g in range(n_eval):
        m = full_len[g]
        if depth > 0 and m > depth:
            m = depth
        indptr[g + 1] = indptr[g] + m
        n_dropped += dropped[g]
    cdef long long total = indptr[n_eval]
    if measure_only:
        return (indptr_arr, scores_arr, rel_arr, judged_arr, full_arr, ndup_arr, n_dropped,
                tied_arr, kout_arr)
    if total != ub_total:
        for g in range(n_eval):
            s = ub[g]
            p = indptr[g]
            if s == p:
                continue
            for j in range(indptr[g + 1] - p):
                if rel_kept:
                    out_rel[p + j] = out_rel[s + j]
                    out_judged[p + j] = out_judged[s + j]
                if keep_scores:
                    out_score[p + j] = out_score[s + j]
                if keep_rows and places:
                    out_place[p + j] = out_place[s + j]
                elif keep_rows:
                    out_row[p + j] = out_row[s + j]
        if rel_kept:
            rel_arr = rel_arr[:total]
            judged_arr = judged_arr[:total]
        if keep_scores:
            scores_arr = scores_arr[:total]
        if keep_rows:
            row_arr = row_arr[:total]
            place_arr = place_arr[:total]
        if scratch is None:
            rel_arr, judged_arr, scores_arr = rel_arr.copy(), judged_arr.copy(), scores_arr.copy()
            row_arr, place_arr = row_arr.copy(), place_arr.copy()
    if keep_rows and measure:
        return (indptr_arr, scores_arr, rel_arr, judged_arr, full_arr, ndup_arr, n_dropped,
                tied_arr, kout_arr, place_arr if places else row_arr)
    if keep_rows:
        return (indptr_arr, scores_arr, rel_arr, judged_arr, full_arr, ndup_arr, n_dropped,
                tied_arr, place_arr if places else row_arr)
    return (indptr_arr, scores_arr, rel_arr, judged_arr, full_arr, ndup_arr, n_dropped,
            tied_arr)


def group_truth_raw(int kind, object a, object b, const long long[::1] start,
                    const long long[::1] rows, const double[::1] rel, int dedupe):
    """Truth rows grouped by user and ordered by raw item id, in parallel over users.

    User ``g`` has the rows ``rows[start[g]:start[g + 1]]`` (``rows`` empty: the rows
    themselves). Per user, the rows are ordered by raw item id ascending (the order of
    :func:`join_lists`), and ``dedupe=1`` keeps, of the rows of one (user, item), the one
    with the highest relevance (the first row among equal ones); ``dedupe=0`` keeps them all
    (the caller refuses them). No global item code is made: the ids are compared in place.

    Returns ``(indptr, first, rel, rel_desc, n_dup)``: ``first`` at each packed position the
    id for int64 ids (kind 0; read off as the rows are grouped), else the input row (the
    caller takes the ids there), ``rel`` its relevance, ``rel_desc`` each user's relevances
    sorted descending (the ideal list) and ``n_dup`` the repeated (user, item) rows per user.
    """
    cdef _Holder hold = _ids_of(kind, a, b)
    cdef Ids* ids = &hold.ids
    cdef Py_ssize_t n_users = start.shape[0] - 1
    cdef Py_ssize_t n = start[n_users] if n_users >= 0 else 0
    cdef bint has_rows = rows.shape[0] > 0
    cdef long long g, s, e, m, j, w, r, best, maxlen = 1
    for g in range(n_users):
        if start[g + 1] - start[g] > maxlen:
            maxlen = start[g + 1] - start[g]
    cdef cnp.ndarray[cnp.int64_t, ndim=1] first_arr = np.empty(n, dtype=np.int64)
    cdef cnp.ndarray[cnp.float64_t, ndim=1] rel_arr = np.empty(n, dtype=np.float64)
    cdef cnp.ndarray[cnp.float64_t, ndim=1] desc_arr = np.empty(n, dtype=np.float64)
    cdef cnp.ndarray[cnp.int64_t, ndim=1] kept_arr = np.zeros(n_users, dtype=np.int64)
    cdef cnp.ndarray[cnp.int64_t, ndim=1] ndup_arr = np.zeros(n_users, dtype=np.int64)
    cdef bint ints = kind == 0 or kind == 6
    cdef long long[::1] out_first = first_arr
    cdef double[::1] out_rel = rel_arr
    cdef double[::1] out_desc = desc_arr
    cdef long long[::1] kept = kept_arr
    cdef long long[::1] ndup = ndup_arr
    cdef Order order
    order.ids = ids
    order.desc = 0
    order.by_row = 0
    cdef Row* buf
    cdef long long* keys  # packed keys, then their rows
    cdef const long long* rows_p = &rows[0] if has_rows else NULL
    cdef int nt = _threads_over(n, n_users)
    cdef int failed = 0
    cdef int* fail = &failed  # written through the pointer: shared by the threads
    cdef bint ok
    with nogil, parallel(num_threads=nt):
        buf = <Row*> receval_alloc(maxlen, sizeof(Row), 0)
        keys = <long long*> receval_alloc(2 * SHORT_INT_LIST, sizeof(long long), 0)
        ok = buf != NULL and keys != NULL
        if not ok:
            fail[0] = 1
        for g in prange(n_users, schedule="guided"):
            if not ok or fail[0]:  # out of memory (here or in another thread): no more work
                continue
            s = start[g]
            e = start[g + 1]
            m = e - s
            if ints and m <= SHORT_INT_LIST and \
                    _packed_keys(keys, keys + SHORT_INT_LIST, ids, rows_p, s, m):
                _sort_keys(keys, m)
                kept[g] = _walk_keys(keys, m, keys + SHORT_INT_LIST, &rel[0], dedupe,
                                     &out_first[s], &out_rel[s], &out_desc[s], &ndup[g])
            else:
                for j in range(m):
                    r = rows[s + j] if has_rows else s + j
                    buf[j].score = 0.0
                    buf[j].pre = _prefix(ids, r)
                    buf[j].idx = r
                    buf[j].h = 0
                if m > 1:
                    _sort_rows(buf, m, &order)
                w = 0
                j = 0
                while j < m:
                    best = j
                    j = j + 1
                    while j < m and buf[j].pre == buf[best].pre and \
                            _compare(ids, buf[j].idx, buf[best].idx) == 0:
                        ndup[g] += 1
                        if not dedupe:
                            break
                        if rel[buf[j].idx] > rel[buf[best].idx]:
                            best = j
                        j = j + 1
                    out_first[s + w] = _int_at(ids, buf[best].idx) if ints else buf[best].idx
                    out_rel[s + w] = rel[buf[best].idx]
                    out_desc[s + w] = rel[buf[best].idx]
                    w = w + 1
                if w > 1:
                    _sort_desc(&out_desc[s], w)
                kept[g] = w
        free(buf)
        free(keys)
    if failed:
        raise _no_memory(f"grouping a truth list of {maxlen:,} rows",
                         maxlen * sizeof(Row) + 2 * SHORT_INT_LIST * sizeof(long long), nt)
    return (*_close_gaps(start, kept, n, first_arr, rel_arr, desc_arr), ndup_arr)


cdef extern from *:
    """
    /* The rows i of lo .. hi - 1 where v[i] != v[i - 1] (row 0 always) into out and their
       ids into oid; returns how many. Each row is written unconditionally and the count moves
       only on a change, so the loop has no branch to mispredict; with SSE2, eight rows that
       all repeat the row before them (most rows: a user's list) are passed over at once. */
    static inline long long receval_int_starts(const long long* v, long long lo, long long hi,
                                               long long* out, long long* oid) {
        long long i, k, c = 0;
        if (lo >= hi) return 0;
        if (lo == 0) {
            out[0] = 0;
            oid[0] = v[0];
            c = 1;
            lo = 1;
        }
        i = lo;
    #ifdef RECEVAL_SSE2
        for (; i + 8 <= hi; i += 8) {
            /* rows i .. i + 7 against rows i - 1 .. i + 6, as 32-bit halves: all equal when
               every pair of halves is */
            __m128i e = _mm_cmpeq_epi32(_mm_loadu_si128((const __m128i*) (v + i)),
                                        _mm_loadu_si128((const __m128i*) (v + i - 1)));
            e = _mm_and_si128(e, _mm_cmpeq_epi32(
                _mm_loadu_si128((const __m128i*) (v + i + 2)),
                _mm_loadu_si128((const __m128i*) (v + i + 1))));
            e = _mm_and_si128(e, _mm_cmpeq_epi32(
                _mm_loadu_si128((const __m128i*) (v + i + 4)),
                _mm_loadu_si128((const __m128i*) (v + i + 3))));
            e = _mm_and_si128(e, _mm_cmpeq_epi32(
                _mm_loadu_si128((const __m128i*) (v + i + 6)),
                _mm_loadu_si128((const __m128i*) (v + i + 5))));
            if (_mm_movemask_epi8(e) == 0xFFFF) continue;
            for (k = i; k < i + 8; k++) {
                out[c] = k;
                oid[c] = v[k];
                c += v[k] != v[k - 1];
            }
        }
    #endif
        for (; i < hi; i++) {
            out[c] = i;
            oid[c] = v[i];
            c += v[i] != v[i - 1];
        }
        return c;
    }
    """
    long long receval_int_starts(const long long* v, long long lo, long long hi, long long* out,
                                 long long* oid) nogil


cdef extern from *:
    """
    /* receval_int_starts for ids of width 1, 2 or 4 bytes (kind 6), without the ids: equal
       ids have equal bits whatever their sign, so they are compared as unsigned words. */
    #define RECEVAL_NARROW_STARTS(T) { \
        const T* a = (const T*) v; \
        for (i = lo; i < hi; i++) { out[c] = i; c += a[i] != a[i - 1]; } }
    static inline long long receval_narrow_starts(const void* v, int width, long long lo,
                                                  long long hi, long long* out) {
        long long i, c = 0;
        if (lo >= hi) return 0;
        if (lo == 0) {
            out[0] = 0;
            c = 1;
            lo = 1;
        }
        if (width == 4) RECEVAL_NARROW_STARTS(unsigned int)
        else if (width == 2) RECEVAL_NARROW_STARTS(unsigned short)
        else RECEVAL_NARROW_STARTS(unsigned char)
        return c;
    }
    """
    long long receval_narrow_starts(const void* v, int width, long long lo, long long hi,
                                    long long* out) nogil


#: rows a thread reads between two checks that its buffer of starts has room for all of them
DEF STARTS_CHUNK = 4096


cdef inline bint _room_for(long long** buf, long long** bid, long long* cap, long long need,
                           bint with_ids) noexcept nogil:
    """Grow a thread's buffer of starts (and of their ids when ``with_ids``) to hold ``need``
    entries, doubling its capacity; False when memory is short (what it held is kept)."""
    cdef long long c = cap[0]
    cdef void* p
    if need <= c:
        return True
    while c < need:
        c = 2 * c
    p = realloc(buf[0], c * sizeof(long long))
    if p == NULL:
        return False
    buf[0] = <long long*> p
    if with_ids:
        p = realloc(bid[0], c * sizeof(long long))
        if p == NULL:
            return False
        bid[0] = <long long*> p
    cap[0] = c
    return True


cdef long long _utf8_starts(const char* data, const int* o32, const long long* o64,
                            long long a0, long long n, const char* pp, long long pn,
                            long long* out) noexcept nogil:
    """Of the UTF-8 rows ``a0 .. a0 + n - 1``, held by one buffer (``data`` and the offsets
    of row ``a0`` on, int32 in ``o32`` or int64 in ``o64``), those whose bytes differ from the
    row before (``pp``, ``pn`` bytes; ``pn = -1``: none) into ``out``; returns how many. The
    offsets and data are read through local pointers (the chunk of each row is not looked up
    again)."""
    cdef long long q, qn, c = 0
    cdef const char* qp
    for q in range(n):
        qp = _row_bytes(data, o32, o64, q, &qn)
        if qn != pn or not _same_bytes(pp, qp, qn):
            out[c] = a0 + q
            c = c + 1
        pp = qp
        pn = qn
    return c


def adjacent_starts(int kind, object a, object b, int check_str=0, int with_ids=0,
                    int with_end=0):
    """Rows whose id differs from the previous row's (row 0 included): the starts of the runs
    of equal adjacent ids, as int64.

    ``check_str`` (kind 3): first make sure each row holds a ``str`` readable in place, as
    :func:`all_str` does, in the same pass (each object is looked at once); ``None`` when one
    does not. ``with_ids`` (kind 0): return ``(starts, ids)``, the id of each run read in the
    same pass (no gather from the column afterwards). ``with_end``: the starts end with the
    number of rows (the runs' bounds, as an ``indptr``).

    Reads the id column once; allocates no array of one entry per row. The rows are cut into
    one range per thread; each thread writes its starts (and, for int64 ids, their ids) into
    buffers of its own, sized for a start every 16 rows and doubled when a chunk of
    ``STARTS_CHUNK`` rows could overflow them, and the buffers are copied into the result in
    thread order. UTF-8 ids are read once per row (the previous row's bytes are kept),
    Arrow chunks found from the previous row's chunk, so a column of many chunks takes one
    call."""
    cdef _Holder hold = _ids_of(kind, a, b)
    cdef Ids* ids = &hold.ids
    cdef Py_ssize_t n = (a[a.shape[0] - 1] if kind == 4 or kind == 5 else
                         a.shape[0] - (1 if kind == 1 or kind == 2 else 0)), i
    cdef bint ints = kind == 0
    if with_ids and not ints:
        raise ValueError("adjacent_starts: with_ids takes int64 ids (kind 0)")
    if n <= 0:
        none = np.zeros(1 if with_end else 0, dtype=np.int64)
        return (none, np.zeros(0, dtype=np.int64)) if with_ids else none
    cdef int nt = _threads(n)
    # per thread: its starts, their ids (kind 0 with ids), its capacity and count
    cdef long long** tbuf = <long long**> receval_alloc(nt, sizeof(long long*), 1)
    cdef long long** tid = <long long**> receval_alloc(nt, sizeof(long long*), 1)
    cdef cnp.ndarray[cnp.int64_t, ndim=1] cnt_arr = np.zeros(nt, dtype=np.int64)
    cdef long long[::1] cnt = cnt_arr
    cdef long long t, lo, hi, c, j = 0, k, hint, pn, qn, cap, a0, a1
    cdef long long* out
    cdef long long* oid
    cdef const char* pp
    cdef const char* qp
    cdef const int* o32
    cdef const long long* o64
    cdef const char* dbase
    cdef bint utf8 = kind == 1 or kind == 2 or kind == 4 or kind == 5
    cdef bint verify = check_str and kind == 3
    cdef bint keep_ids = ints  # (the int64 pass writes each run's id as it goes)
    cdef cnp.ndarray[cnp.int8_t, ndim=1] ok_arr = np.ones(nt, dtype=np.int8)
    cdef signed char[::1] ok = ok_arr
    cdef int failed = tbuf == NULL or tid == NULL
    cdef int* fail = &failed  # written through the pointer: shared by the threads
    if failed:
        free(tbuf)
        free(tid)
        raise _no_memory("the starts of the runs of equal ids", nt * sizeof(long long*))
    for t in prange(nt, nogil=True, schedule="static", num_threads=nt):
        lo = n * t // nt
        hi = n * (t + 1) // nt
        c = 0
        # a start every 16 rows fits without growing (users' lists are longer)
        cap = (hi - lo) // 16 + STARTS_CHUNK + 1
        out = <long long*> receval_alloc(cap, sizeof(long long), 0)
        oid = <long long*> receval_alloc(cap, sizeof(long long), 0) if keep_ids else NULL
        tbuf[t] = out
        tid[t] = oid
        if out == NULL or (keep_ids and oid == NULL):
            fail[0] = 1
            hi = lo  # this range is not read
        if verify:
            if not receval_is_str(ids.objs[lo]) or \
                    (lo > 0 and not receval_is_str(ids.objs[lo - 1])):
                ok[t] = 0
                hi = lo  # this range is not read
        hint = -1
        pp = NULL
        pn = -1  # no previous row: row 0 starts a run
        if utf8 and lo > 0 and hi > lo:
            _span_near(ids, lo - 1, &pp, &pn, &hint)
        qp = NULL  # assigned here so that each thread has its own (they are written
        qn = 0     # through their addresses only, which prange does not see)
        a0 = lo
        while a0 < hi:
            a1 = a0 + STARTS_CHUNK if a0 + STARTS_CHUNK < hi else hi
            if not _room_for(&tbuf[t], &tid[t], &cap, c + (a1 - a0) + 1, keep_ids):
                fail[0] = 1
                break
            out = tbuf[t]
            oid = tid[t]
            if verify:
                k = 0  # (set when a row is not a str)
                for i in range(a0, a1):
                    if i + 1 < n and ids.objs[i + 1] != ids.objs[i] and \
                            not receval_is_str(ids.objs[i + 1]):
                        k = 1
                        break
                    if i == 0 or not _equal(ids, i - 1, ids, i):
                        out[c] = i
                        c = c + 1
                if k:
                    ok[t] = 0
                    break
            elif utf8:
                o32 = NULL  # assigned here so that each thread has its own (as qp, qn)
                o64 = NULL
                dbase = NULL
                if _one_buffer(ids, a0, a1, &o32, &o64, &dbase, &hint):
                    c = c + _utf8_starts(dbase, o32, o64, a0, a1 - a0, pp, pn, out + c)
                    _span_near(ids, a1 - 1, &pp, &pn, &hint)
                else:  # the range spans chunks
                    for i in range(a0, a1):
                        _span_near(ids, i, &qp, &qn, &hint)
                        if qn != pn or not _same_bytes(pp, qp, qn):
                            out[c] = i
                            c = c + 1
                        pp = qp
                        pn = qn
            elif ints:
                c = c + receval_int_starts(ids.ints, a0, a1, out + c, oid + c)
            elif kind == 6:
                c = c + receval_narrow_starts(ids.narrow, ids.width, a0, a1, out + c)
            else:
                for i in range(a0, a1):
                    if i == 0 or not _equal(ids, i - 1, ids, i):
                        out[c] = i
                        c = c + 1
            a0 = a1
        cnt[t] = c
    cdef cnp.ndarray res_arr
    cdef cnp.ndarray rid_arr
    cdef long long* res
    cdef long long* rid
    if not failed and not (verify and not ok_arr.all()):
        for t in range(nt):
            j += cnt[t]
        res_arr = np.empty(j + (1 if with_end else 0), dtype=np.int64)
        rid_arr = np.empty(j if with_ids else 0, dtype=np.int64)
        res = <long long*> cnp.PyArray_DATA(res_arr)
        rid = <long long*> cnp.PyArray_DATA(rid_arr)
        with nogil:
            j = 0
            for t in range(nt):
                memcpy(res + j, tbuf[t], cnt[t] * sizeof(long long))
                if with_ids:
                    memcpy(rid + j, tid[t], cnt[t] * sizeof(long long))
                j += cnt[t]
            if with_end:
                res[j] = n
    for t in range(nt):
        free(tbuf[t])
        free(tid[t])
    free(tbuf)
    free(tid)
    if failed:
        raise _no_memory("the starts of the runs of equal ids", 2 * n * sizeof(long long), nt)
    if verify and not ok_arr.all():
        return None
    return (res_arr, rid_arr) if with_ids else res_arr


cdef bint _ranges_hold(const Ids* a, const Ids* b, Py_ssize_t n, int nt, int ascending):
    """Whether ``a[i]`` equals ``b[i]`` for every ``i < n`` (``ascending=0``), or ``a[i - 1] <
    a[i]`` for every ``0 < i < n`` (``ascending=1``): ``nt`` threads over ranges of entries, each
    stopping at its first exception. Ascending ids are compared by their order-preserving
    prefixes, and in full only when those are equal."""
    cdef cnp.ndarray[cnp.int8_t, ndim=1] ok_arr = np.ones(nt, dtype=np.int8)
    cdef signed char[::1] ok = ok_arr
    cdef long long t, lo, hi, i
    cdef uint64_t prev, cur
    for t in prange(nt, nogil=True, schedule="static", num_threads=nt):
        lo = n * t // nt
        hi = n * (t + 1) // nt
        if not ascending:
            for i in range(lo, hi):
                if not _equal(a, i, b, i):
                    ok[t] = 0
                    break
        elif hi > lo:
            if lo == 0:
                lo = 1
            prev = _prefix(a, lo - 1)
            for i in range(lo, hi):
                cur = _prefix(a, i)
                if cur < prev or (cur == prev and _compare(a, i - 1, i) >= 0):
                    ok[t] = 0
                    break
                prev = cur
    return bool(ok_arr.all())


cdef inline long long _probe(const Ids* V, const long long* slot, const uint64_t* hs,
                             long long mask, uint64_t h, const Ids* X, long long i
                             ) noexcept nogil:
    """The position in ``V`` of id ``i`` of ``X`` (hash ``h``) through ``V``'s table
    (:func:`_id_table`), -1 when absent."""
    cdef long long j = <long long> (h & <uint64_t> mask)
    while slot[j] >= 0:
        if hs[j] == h and _equal(V, slot[j], X, i):
            return slot[j]
        j = (j + 1) & mask
    return -1


cdef long long _fill_table(const Ids* V, Py_ssize_t n, long long* slot, uint64_t* hs,
                           long long mask) noexcept nogil:
    """Ids ``0 .. n - 1`` of ``V`` placed in an open-addressing table (``slot``: -1 when free,
    else the id's first position; ``hs``: its hash); returns how many repeat an earlier one."""
    cdef Py_ssize_t i
    cdef long long j, n_rep = 0
    cdef uint64_t h
    for i in range(n):
        h = _hash(V, i)
        j = <long long> (h & <uint64_t> mask)
        while slot[j] >= 0:
            if hs[j] == h and _equal(V, slot[j], V, i):
                n_rep += 1
                break
            j = (j + 1) & mask
        else:
            slot[j] = i
            hs[j] = h
    return n_rep


cdef tuple _id_table(const Ids* V, Py_ssize_t n):
    """``(slot, hash, n_repeated)``: the ids ``0 .. n - 1`` of ``V`` in an open-addressing
    table of a power of two slots, at most half full (:func:`_fill_table`)."""
    cdef long long cap = _pow2_at_least(2 * n + 1), n_rep
    slot_arr = np.full(cap, -1, dtype=np.int64)
    hash_arr = np.empty(cap, dtype=np.uint64)
    cdef long long[::1] slot = slot_arr
    cdef uint64_t[::1] hs = hash_arr
    with nogil:
        n_rep = _fill_table(V, n, &slot[0], &hs[0], cap - 1)
    return slot_arr, hash_arr, n_rep


cdef object _short_table(const Ids* V, const long long[::1] slot):
    """The ids of ``V``'s table (:func:`_id_table`) again, one 16-byte slot each (its bytes
    as one little-endian word and its length when at most 8 bytes, else length -1; its
    position, -1 in free slots): a UTF-8 id of at most 8 bytes is then found by comparing
    one word and one length, one cache line per probe. Its hash is the table's
    (:c:func:`_hash_bytes` of at most 8 bytes is ``_mix(seed ^ length ^ word)``)."""
    cdef long long cap = slot.shape[0], j, L
    cdef const char* sp
    short_arr = np.zeros(cap * 2, dtype=np.uint64)
    cdef ShortSlot* stab = <ShortSlot*> cnp.PyArray_DATA(short_arr)
    with nogil:
        for j in range(cap):
            stab[j].code = <int> slot[j]
            stab[j].len = -1
            if slot[j] >= 0:
                _span(V, slot[j], &sp, &L)
                if L <= 8:
                    stab[j].len = <int> L
                    stab[j].word = _load_le(sp, L)
    return short_arr


cdef inline long long _probe_short(const ShortSlot* stab, long long mask, uint64_t h,
                                   uint64_t w, long long L) noexcept nogil:
    """The position of the id of ``L <= 8`` bytes ``w`` (hash ``h``) in a
    :func:`_short_table`, -1 when absent."""
    cdef long long j = <long long> (h & <uint64_t> mask)
    while stab[j].code >= 0:
        if stab[j].word == w and stab[j].len == L:
            return stab[j].code
        j = (j + 1) & mask
    return -1


def index_ids(int kind, object vocab, object ids, int vocab_unique=0):
    """``(codes, n_repeated)``: the position of each of ``ids`` in ``vocab`` (-1 when absent),
    and how many entries of ``vocab`` repeat an earlier one (a code is the first occurrence).

    Kinds 0 (int64 values) and 3 (object arrays of ``str``, compared by their code points),
    both sides of the same kind. When ``ids`` equals ``vocab`` entry by entry (a run and a truth
    over the same users in the same order), or is empty (a uniqueness check), and ``vocab`` is
    strictly ascending or known to hold no repeat (``vocab_unique``; ``n_repeated`` is then
    0), the answer is read off without hashing; both checks run in parallel over ranges of
    entries, and ``str`` ids are compared by their 8-byte prefixes first. Otherwise ``vocab``
    goes into an open-addressing table (hash and position per slot), which ``ids`` probe in
    parallel.
    """
    if kind != 0 and kind != 3:
        raise ValueError("index_ids takes int64 (kind 0) or str objects (kind 3)")
    cdef _Holder vh = _ids_of(kind, vocab, None)
    cdef _Holder ih = _ids_of(kind, ids, None)
    cdef Ids* V = &vh.ids
    cdef Ids* I = &ih.ids
    cdef Py_ssize_t n = len(vocab), m = len(ids), i
    cdef cnp.ndarray[cnp.int64_t, ndim=1] codes_arr = np.empty(m, dtype=np.int64)
    cdef long long[::1] codes = codes_arr
    cdef bint same = n == m, ascending = True
    cdef long long n_rep = 0, j, mask, cap, p
    cdef uint64_t h
    cdef int nt = _threads(n)
    if same:
        same = _ranges_hold(V, I, n, nt, 0)
    if (same or m == 0) and not vocab_unique:  # strictly ascending ids have no repeat
        ascending = _ranges_hold(V, V, n, nt, 1)
    if (same or m == 0) and (ascending or vocab_unique):
        if same:
            codes_arr[:] = np.arange(m, dtype=np.int64)
        return codes_arr, 0
    slot_arr, hash_arr, n_rep = _id_table(V, n)
    cdef long long[::1] slot = slot_arr
    cdef uint64_t[::1] hs = hash_arr
    mask = slot.shape[0] - 1
    if same and n_rep == 0:
        codes_arr[:] = np.arange(m, dtype=np.int64)
        return codes_arr, n_rep
    nt = _threads(m)
    for i in prange(m, nogil=True, schedule="static", num_threads=nt):
        codes[i] = _probe(V, &slot[0], &hs[0], mask, _hash(I, i), I, i)
    return codes_arr, n_rep


cdef Py_ssize_t _n_ids(int kind, object a):
    """How many ids a column of ``kind`` holds (``a`` as :func:`_ids_of` reads it)."""
    if kind == 1 or kind == 2:
        return max(len(a) - 1, 0)
    if kind == 4 or kind == 5:
        return int(a[len(a) - 1])
    return len(a)


cdef uint64_t[9] _WORD_MASK
_WORD_MASK[0] = 0
for _k in range(1, 9):
    _WORD_MASK[_k] = 0xFFFFFFFFFFFFFFFFULL >> (64 - 8 * _k)


def index_at(int kind_v, object v_a, object v_b, int kind_x, object x_a, object x_b,
             const long long[::1] rows, int wide=0):
    """The position in ``v`` of the id at each of ``rows`` of ``x`` (-1 when absent; an id
    repeated in ``v``: its first position), as int32 (``wide``: int64). Both sides of one
    family: integers (kinds 0 and 6, by value), UTF-8 (kinds 1, 2, 4, 5: their bytes) or
    ``str`` objects (kind 3: their code points). ``v`` goes into an open-addressing table
    (hash and position per slot), which the rows probe in parallel. A UTF-8 id of at most 8
    bytes in one buffer (kinds 1, 2) is read as one word (the bytes past it masked off), and
    compared with the word and length kept in a 16-byte slot: no branch on its length, one
    cache line per probe."""
    cdef int fam_v = 0 if kind_v == 0 or kind_v == 6 else 2 if kind_v == 3 else 1
    cdef int fam_x = 0 if kind_x == 0 or kind_x == 6 else 2 if kind_x == 3 else 1
    if fam_v != fam_x:
        raise ValueError("index_at reads ids of one family on both sides")
    cdef _Holder vh = _ids_of(kind_v, v_a, v_b)
    cdef _Holder xh = _ids_of(kind_x, x_a, x_b)
    cdef Ids* V = &vh.ids
    cdef Ids* X = &xh.ids
    cdef Py_ssize_t n = _n_ids(kind_v, v_a), m = rows.shape[0], i, n_x = _n_ids(kind_x, x_a)
    if not wide and n > 0x7fffffff:
        raise ValueError("index_at: more ids than int32 codes hold; ask for wide codes")
    out_arr = np.empty(m, dtype=np.int64 if wide else np.int32)
    cdef long long[::1] out64
    cdef int[::1] out32
    if wide:
        out64 = out_arr
    else:
        out32 = out_arr
    cdef long long j, mask, cap, p, s, L
    cdef uint64_t h, w
    cdef const char* sp
    cdef bint words = kind_x == 1 or kind_x == 2
    # the end of the bytes of x's ids: a word read below it stays in the buffer
    cdef long long x_end = 0
    if words and n_x > 0:
        x_end = X.off32[n_x] if kind_x == 1 else X.off64[n_x]
    slot_arr, hash_arr, _ = _id_table(V, n)
    cdef long long[::1] slot = slot_arr
    cdef uint64_t[::1] hs = hash_arr
    cap = slot.shape[0]
    mask = cap - 1
    words = words and not wide
    # the short UTF-8 ids again, one 16-byte slot each
    short_arr = _short_table(V, slot) if words else np.zeros(2, dtype=np.uint64)
    cdef const ShortSlot* stab = <const ShortSlot*> cnp.PyArray_DATA(short_arr)
    cdef int nt = _threads(m)
    for i in prange(m, nogil=True, schedule="static", num_threads=nt):
        p = -1
        L = -1
        if words:
            if kind_x == 1:
                s = X.off32[rows[i]]
                L = X.off32[rows[i] + 1] - s
            else:
                s = X.off64[rows[i]]
                L = X.off64[rows[i] + 1] - s
            if L > 8 or s + 8 > x_end:
                L = -1  # (read the general way)
        if L >= 0:
            w = 0
            memcpy(&w, X.data + s, 8)
            w = w & _WORD_MASK[L]
            h = _mix((0x9E3779B97F4A7C15ULL ^ <uint64_t> L) ^ w)
            p = _probe_short(stab, mask, h, w, L)
        else:
            p = _probe(V, &slot[0], &hs[0], mask, _hash(X, rows[i]), X, rows[i])
        if wide:
            out64[i] = p
        else:
            out32[i] = <int> p
    return out_arr


def same_ids_at(int kind_a, object a_a, object a_b, const long long[::1] rows_a,
                int kind_b, object b_a, object b_b, const long long[::1] rows_b):
    """Whether the text id at ``rows_a[i]`` of one column equals the one at ``rows_b[i]`` of
    another for every ``i`` (same length). Both UTF-8 (kinds 1, 2, 4, 5: their bytes), or both
    ``str`` objects (kind 3: their code points); in parallel over ranges of entries, each
    stopping at its first difference."""
    cdef bint utf8_a = kind_a == 1 or kind_a == 2 or kind_a == 4 or kind_a == 5
    cdef bint utf8_b = kind_b == 1 or kind_b == 2 or kind_b == 4 or kind_b == 5
    if not ((utf8_a and utf8_b) or (kind_a == 3 and kind_b == 3)):
        raise ValueError("same_ids_at compares UTF-8 ids (kinds 1, 2, 4, 5) or str objects "
                         "(kind 3), both sides of one family")
    if rows_a.shape[0] != rows_b.shape[0]:
        return False
    cdef _Holder ha = _ids_of(kind_a, a_a, a_b)
    cdef _Holder hb = _ids_of(kind_b, b_a, b_b)
    cdef Ids* A = &ha.ids
    cdef Ids* B = &hb.ids
    cdef Py_ssize_t n = rows_a.shape[0]
    cdef int nt = _threads(n)
    cdef cnp.ndarray[cnp.int8_t, ndim=1] ok_arr = np.ones(nt, dtype=np.int8)
    cdef signed char[::1] ok = ok_arr
    cdef long long t, lo, hi, i, na, nb, hint_a, hint_b
    cdef const char* pa
    cdef const char* pb
    for t in prange(nt, nogil=True, schedule="static", num_threads=nt):
        lo = n * t // nt
        hi = n * (t + 1) // nt
        hint_a = -1
        hint_b = -1
        for i in range(lo, hi):
            if not utf8_a:
                if not _equal(A, rows_a[i], B, rows_b[i]):
                    ok[t] = 0
                    break
                continue
            pa = NULL  # assigned here so that each thread has its own
            pb = NULL
            na = 0
            nb = 0
            _span_near(A, rows_a[i], &pa, &na, &hint_a)
            _span_near(B, rows_b[i], &pb, &nb, &hint_b)
            if na != nb or not _same_bytes(pa, pb, na):
                ok[t] = 0
                break
    return bool(ok_arr.all())


def sorted_index(int kind_v, object v_a, object v_b, int kind_x, object x_a, object x_b):
    """``(codes, ok)``: the position of each UTF-8 id of ``x`` in ``v`` (-1 when absent), both
    strictly ascending in byte order (code point order, RFC 3629), found by one merge of the
    two: |v| + |x| comparisons, no hash table. ``ok`` is False (and ``codes`` meaningless)
    when either side is out of order or repeats an id (every id of both is checked). Kinds
    1, 2, 4, 5 (Arrow string data read in place)."""
    for kind in (kind_v, kind_x):
        if kind != 1 and kind != 2 and kind != 4 and kind != 5:
            raise ValueError("sorted_index reads UTF-8 ids (kinds 1, 2, 4, 5)")
    cdef _Holder vh = _ids_of(kind_v, v_a, v_b)
    cdef _Holder xh = _ids_of(kind_x, x_a, x_b)
    cdef Ids* V = &vh.ids
    cdef Ids* X = &xh.ids
    cdef long long n = len(v_a) - 1 if kind_v < 4 else int(v_a[len(v_a) - 1])
    cdef long long m = len(x_a) - 1 if kind_x < 4 else int(x_a[len(x_a) - 1])
    cdef cnp.ndarray[cnp.int64_t, ndim=1] codes_arr = np.full(m, -1, dtype=np.int64)
    cdef long long[::1] codes = codes_arr
    cdef long long i = 0, j = 0, c, hv = -1, hx = -1, pn = 0, qn = 0
    cdef const char* p = NULL
    cdef const char* q = NULL
    cdef bint ok = True, step_v, step_x
    with nogil:
        if n > 0:
            _span_near(V, 0, &p, &pn, &hv)
        if m > 0:
            _span_near(X, 0, &q, &qn, &hx)
        while ok and (i < n or j < m):
            if i < n and j < m:
                c = _bytes_order(p, pn, q, qn)
                step_v = c <= 0
                step_x = c >= 0
                if c == 0:
                    codes[j] = i
            else:  # one side is done: the other is read on for its order
                step_v = i < n
                step_x = j < m
            if step_v:
                i += 1
                if i < n:
                    ok = _next_above(V, i, &p, &pn, &hv)
            if step_x and ok:
                j += 1
                if j < m:
                    ok = _next_above(X, j, &q, &qn, &hx)
    return codes_arr, bool(ok)


cdef inline int _bytes_order(const char* p, long long pn, const char* q,
                             long long qn) noexcept nogil:
    """Sign of byte string ``p`` minus ``q`` in byte order (a prefix first)."""
    cdef int c = memcmp(p, q, pn if pn < qn else qn)
    if c != 0:
        return 1 if c > 0 else -1
    return (pn > qn) - (pn < qn)


cdef inline bint _next_above(const Ids* ids, long long i, const char** p, long long* n,
                             long long* hint) noexcept nogil:
    """Moves ``p``, ``n`` from id ``i - 1`` to id ``i``; whether id ``i`` is above it."""
    cdef const char* before = p[0]
    cdef long long nb = n[0]
    _span_near(ids, i, p, n, hint)
    return _bytes_order(before, nb, p[0], n[0]) < 0


cdef long long _place_code(ShortSlot* tab, uint64_t* hs, long long mask, uint64_t h,
                           uint64_t w, long long L, const Ids* X, long long i,
                           const long long* firsts) noexcept nogil:
    """The slot of ``tab`` holding id ``i`` of ``X`` (``L`` bytes, ``w`` its word when at
    most 8, hash ``h``), or the free slot where it goes."""
    cdef long long j = <long long> (h & <uint64_t> mask)
    cdef int short_len = <int> L if L <= 8 else -1
    while tab[j].code >= 0:
        if hs[j] == h and tab[j].len == short_len:
            if (L <= 8 and tab[j].word == w) or \
                    (L > 8 and _equal(X, firsts[tab[j].code], X, i)):
                return j
        j = (j + 1) & mask
    return j


def first_codes(int kind, object a, object b):
    """``(codes, firsts)`` of UTF-8 ids (kinds 1, 2, 4, 5) in order of first appearance:
    ``codes[i]`` (int64) the code of row ``i``'s id, ``firsts[c]`` (int64, ascending) the row
    where code ``c`` first appears: ``pandas.factorize(sort=False)``'s codes, the distinct ids
    read at ``firsts`` (:func:`utf8_at`). A row equal to the row before takes its code; the
    others probe a table of the distinct ids (at most half full, doubled as it fills), an id
    of at most 8 bytes compared as one word and its length, a longer one byte by byte."""
    if kind != 1 and kind != 2 and kind != 4 and kind != 5:
        raise ValueError("first_codes reads UTF-8 ids (kinds 1, 2, 4, 5)")
    cdef _Holder hold = _ids_of(kind, a, b)
    cdef Ids* X = &hold.ids
    cdef Py_ssize_t n = _n_ids(kind, a), i
    if n > 0x7fffffff:
        raise ValueError("first_codes: more ids than its int32 codes hold")
    codes_arr = np.empty(n, dtype=np.int64)
    cdef long long[::1] codes = codes_arr
    cdef long long cap = 1024, mask = 1023, j, k, n_codes = 0, room = 1024, L, prev_L = -1
    cdef long long hint = -1, new_cap
    cdef const char* sp
    cdef const char* prev_sp = NULL
    cdef uint64_t h, w, prev_w = 0
    cdef ShortSlot* tab = <ShortSlot*> receval_alloc(cap, sizeof(ShortSlot), 0)
    cdef uint64_t* hs = <uint64_t*> receval_alloc(cap, sizeof(uint64_t), 0)
    cdef long long* firsts = <long long*> receval_alloc(room, sizeof(long long), 0)
    cdef ShortSlot* new_tab
    cdef uint64_t* new_hs
    cdef void* grown
    cdef bint failed = tab == NULL or hs == NULL or firsts == NULL
    # one buffer of bytes (kinds 1, 2): a word read below its end stays in it
    cdef const char* data_end = X.data + (X.off32[n] if kind == 1 else X.off64[n]) \
        if (kind == 1 or kind == 2) and n > 0 else NULL
    with nogil:
        for j in range(0 if failed else cap):
            tab[j].code = -1
        for i in range(0 if failed else n):
            _span_near(X, i, &sp, &L, &hint)
            w = 0
            if L <= 8 and sp + 8 <= data_end:  # one load, the bytes past the id masked off
                memcpy(&w, sp, 8)
                w = w & _WORD_MASK[L]
            elif L <= 8:
                w = _load_le(sp, L)
            if L == prev_L and ((L <= 8 and w == prev_w) or
                                (L > 8 and memcmp(sp, prev_sp, L) == 0)):
                codes[i] = codes[i - 1]  # (a run of one id)
                continue
            prev_L, prev_w, prev_sp = L, w, sp
            # (_hash_bytes of at most 8 bytes, from the word in hand)
            h = _mix((0x9E3779B97F4A7C15ULL ^ <uint64_t> L) ^ w) if L <= 8 else \
                _hash_bytes(sp, L)
            j = _place_code(tab, hs, mask, h, w, L, X, i, firsts)
            if tab[j].code >= 0:
                codes[i] = tab[j].code
                continue
            if n_codes == room:  # a new id: its first row kept
                grown = realloc(firsts, 2 * room * sizeof(long long))
                if grown == NULL:
                    failed = True
                    break
                firsts = <long long*> grown
                room = 2 * room
            firsts[n_codes] = i
            tab[j].code = <int> n_codes
            tab[j].len = <int> L if L <= 8 else -1
            tab[j].word = w
            hs[j] = h
            codes[i] = n_codes
            n_codes += 1
            if 2 * n_codes > cap:  # the table doubled, each id placed again by its hash
                new_cap = 2 * cap
                new_tab = <ShortSlot*> receval_alloc(new_cap, sizeof(ShortSlot), 0)
                new_hs = <uint64_t*> receval_alloc(new_cap, sizeof(uint64_t), 0)
                if new_tab == NULL or new_hs == NULL:
                    free(new_tab)
                    free(new_hs)
                    failed = True
                    break
                for k in range(new_cap):
                    new_tab[k].code = -1
                for k in range(cap):
                    if tab[k].code >= 0:
                        j = <long long> (hs[k] & <uint64_t> (new_cap - 1))
                        while new_tab[j].code >= 0:
                            j = (j + 1) & (new_cap - 1)
                        new_tab[j] = tab[k]
                        new_hs[j] = hs[k]
                free(tab)
                free(hs)
                tab, hs, cap, mask = new_tab, new_hs, new_cap, new_cap - 1
    firsts_arr = np.empty(n_codes, dtype=np.int64)
    cdef long long[::1] fv = firsts_arr
    if not failed:
        for k in range(n_codes):
            fv[k] = firsts[k]
    free(tab)
    free(hs)
    free(firsts)
    if failed:
        raise _no_memory(f"coding {n:,} text ids", cap * (sizeof(ShortSlot) + 8) + room * 8)
    return codes_arr, firsts_arr


def utf8_take(int kind, object a, object b, const long long[::1] rows):
    """The UTF-8 ids (kinds 1, 2, 4, 5) at ``rows`` as one ``large_string`` layout:
    ``(offsets, data)``, int64 offsets (``len(rows) + 1``) and uint8 bytes. The lengths, then
    the bytes, are copied in parallel over ranges of rows (Arrow's ``take`` of strings runs on
    one thread); the bytes are not decoded."""
    if kind != 1 and kind != 2 and kind != 4 and kind != 5:
        raise ValueError("utf8_take reads UTF-8 ids (kinds 1, 2, 4, 5)")
    cdef _Holder hold = _ids_of(kind, a, b)
    cdef Ids* ids = &hold.ids
    cdef Py_ssize_t n = rows.shape[0], i
    cdef long long n_ids = _n_ids(kind, a)
    for i in range(n):
        if rows[i] < 0 or rows[i] >= n_ids:
            raise IndexError(f"utf8_take: row {rows[i]} is outside the {n_ids} ids")
    import pyarrow as pa  # (UTF-8 ids are Arrow's)

    # the outputs taken from Arrow's memory pool, which keeps its pages from call to call
    # (fresh numpy memory is faulted in, page by page, on every call)
    cdef cnp.ndarray[cnp.int64_t, ndim=1] off_arr = np.frombuffer(
        pa.allocate_buffer(8 * (n + 1)), dtype=np.int64)
    cdef long long[::1] off = off_arr
    cdef cnp.ndarray data_arr = None
    cdef char* data = NULL
    cdef const char* p
    cdef long long m, t, lo, hi, hint
    cdef int nt = _threads(n), copy
    off[0] = 0
    for copy in range(2):  # the lengths, then (their sums the offsets) the bytes
        if copy:
            for i in range(n):
                off[i + 1] += off[i]
            data_arr = np.frombuffer(pa.allocate_buffer(max(off[n], 1)), dtype=np.uint8)
            data = <char*> cnp.PyArray_DATA(data_arr)
        for t in prange(nt, nogil=True, schedule="static", num_threads=nt):
            lo = n * t // nt
            hi = n * (t + 1) // nt
            hint = -1
            p = NULL  # assigned here so that each thread has its own (written through their
            m = 0     # addresses only, which prange does not see)
            for i in range(lo, hi):
                _span_near(ids, rows[i], &p, &m, &hint)
                if copy:
                    memcpy(data + off[i], p, m)
                else:
                    off[i + 1] = m
    return off_arr, data_arr


def utf8_at(int kind, object a, object b, const long long[::1] rows):
    """The UTF-8 ids (kinds 1, 2, 4, 5) at ``rows``, ascending, as an object array of ``str``:
    each decoded straight from the Arrow buffers (no ``take`` and no intermediate array).
    Bytes that are not valid UTF-8 raise ``UnicodeDecodeError``."""
    if kind != 1 and kind != 2 and kind != 4 and kind != 5:
        raise ValueError("utf8_at reads UTF-8 ids (kinds 1, 2, 4, 5)")
    cdef _Holder hold = _ids_of(kind, a, b)
    cdef Ids* ids = &hold.ids
    cdef Py_ssize_t n = rows.shape[0], i
    cdef cnp.ndarray out = np.empty(n, dtype=object)
    cdef PyObject** slots = <PyObject**> cnp.PyArray_DATA(out)
    cdef const char* p
    cdef long long m, hint = -1
    cdef object s
    for i in range(n):  # each str stored straight into the array (it held None)
        _span_near(ids, rows[i], &p, &m, &hint)
        s = PyUnicode_DecodeUTF8(p, m, NULL)
        Py_INCREF(s)
        Py_DECREF(<object> slots[i])
        slots[i] = <PyObject*> s
    return out
