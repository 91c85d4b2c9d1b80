# Included by _join.pyx after _rowsort.pxi: one user's rows ordered by a radix sort of their
# scores when the list is long, the full comparison (``_before``) then ordering each run of
# equal scores. The including module defines ``Row`` (with ``score``) and ``_before``, and
# cimports ``uint64_t``, ``memcpy`` and ``memset``.

#: lists of at least this many rows (and at most RADIX_MAX) are ordered by the radix sort
DEF RADIX_MIN = 64
DEF RADIX_MAX = 1 << 16


cdef inline uint64_t _descending_key(double d) noexcept nogil:
    """An unsigned key that ascends as ``d`` descends, equal for -0.0 and 0.0 (which the
    comparison holds equal): the IEEE 754 bits with the sign flipped, or every bit flipped
    for a negative number (the order of the bits is then the order of the numbers), then
    complemented."""
    cdef uint64_t b
    d = d + 0.0  # -0.0 becomes 0.0
    memcpy(&b, &d, 8)
    if b >> 63:
        b = ~b
    else:
        b = b | 0x8000000000000000ULL
    return ~b


cdef void _sort_rows_long(Row* a, long long n, const void* ctx, Row* spare, uint64_t* key,
                          int* pos) noexcept nogil:
    """:c:func:`_sort_rows` for lists of ``RADIX_MIN`` to ``RADIX_MAX`` rows: a stable LSD
    radix sort of the scores (8 bits a pass; a pass whose byte is the same for every row is
    skipped), then each run of equal scores ordered by ``_before`` (its ids, then rows). The
    result is the one order ``_before`` defines, as :c:func:`_sort_rows` gives it. ``spare``
    holds ``n`` rows; ``key`` and ``pos`` ``2 n`` entries each. Shorter or longer lists, and
    rows already in order, go to :c:func:`_sort_rows`."""
    cdef long long i, j, e, d, b, total, t
    cdef int count[2048]
    cdef uint64_t* k2
    cdef int* p2
    cdef uint64_t* ks
    cdef int* ps
    if n < RADIX_MIN or n > RADIX_MAX:
        _sort_rows(a, n, ctx)
        return
    i = 1
    while i < n and not _before(&a[i], &a[i - 1], ctx):
        i += 1
    if i >= n:
        return
    k2 = key + n
    p2 = pos + n
    memset(count, 0, sizeof(count))
    for j in range(n):
        key[j] = _descending_key(a[j].score)
        pos[j] = <int> j
        for d in range(8):
            count[d * 256 + <long long> ((key[j] >> (8 * d)) & 255)] += 1
    for d in range(8):
        if count[d * 256 + <long long> ((key[0] >> (8 * d)) & 255)] == n:
            continue  # one byte value for every row: nothing moves
        total = 0
        for b in range(256):
            t = count[d * 256 + b]
            count[d * 256 + b] = <int> total
            total += t
        for j in range(n):
            b = d * 256 + <long long> ((key[j] >> (8 * d)) & 255)
            k2[count[b]] = key[j]
            p2[count[b]] = pos[j]
            count[b] += 1
        ks = key
        key = k2
        k2 = ks
        ps = pos
        pos = p2
        p2 = ps
    for j in range(n):
        spare[j] = a[pos[j]]
    memcpy(a, spare, n * sizeof(Row))
    j = 0
    while j < n:  # runs of equal scores: ids, then rows (the input order, kept so far)
        e = j + 1
        while e < n and key[e] == key[j]:
            e += 1
        if e - j > 1:
            _sort_rows(a + j, e - j, ctx)
        j = e
