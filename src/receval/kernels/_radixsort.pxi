# Included by _join.pyx after _rowsort.pxi: one user's rows ordered by a sort of one 64-bit
# key per row (the score's leading bits above the row's position in the list), the full
# comparison (``_before``) then ordering each run of rows whose leading score bits are equal.
# The including module defines ``Row`` (with ``score``) and ``_before``, and cimports
# ``uint64_t``, ``memcpy`` and ``memset``.

#: lists shorter than this are ordered by an insertion sort of their keys (positions in the
#: key's low 6 bits), longer ones (up to RADIX_MAX) by a radix sort (positions in 16 bits)
DEF RADIX_MIN = 64
DEF RADIX_MAX = 1 << 16
#: keys sorted without a branch on their values up to this many
DEF BRANCHLESS_MAX = 32


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


cdef inline void _sort_keys_short(uint64_t* key, long long n) noexcept nogil:
    """Sort ``n`` distinct unsigned keys ascending: up to ``BRANCHLESS_MAX`` keys, each
    inserted without a branch on the values (every position takes ``a'[j] = max(a[j - 1],
    min(a[j], x))``: random scores would mispredict an insertion sort's exit test about once
    a key), longer lists by an insertion sort."""
    cdef long long i, j
    cdef uint64_t x, p, c
    if n <= BRANCHLESS_MAX:
        for i in range(1, n):
            x = key[i]
            key[i] = key[i - 1] if key[i - 1] > x else x
            for j in range(i - 1, 0, -1):
                p = key[j - 1]
                c = key[j]
                c = c if c < x else x
                key[j] = p if p > c else c
            key[0] = key[0] if key[0] < x else x
        return
    for i in range(1, n):
        x = key[i]
        j = i - 1
        while j >= 0 and key[j] > x:
            key[j + 1] = key[j]
            j -= 1
        key[j + 1] = x


cdef void _sort_keys_radix(uint64_t* key, uint64_t* spare, long long n, int low) noexcept nogil:
    """Stable LSD radix sort (8 bits a pass) of ``n`` unsigned keys by their bits ``low ..
    63`` (``low`` a multiple of 8), ascending; a pass whose byte is the same for every key is
    skipped. The result is left in ``key`` (``spare`` holds ``n`` keys)."""
    cdef long long j, b, total, t
    cdef int d, first = low // 8
    cdef int count[8 * 256]
    cdef uint64_t* src = key
    cdef uint64_t* dst = spare
    cdef uint64_t* tmp
    cdef uint64_t k
    memset(count, 0, sizeof(count))
    for j in range(n):
        k = key[j]
        for d in range(first, 8):
            count[d * 256 + <long long> ((k >> (8 * d)) & 255)] += 1
    for d in range(first, 8):
        if count[d * 256 + <long long> ((src[0] >> (8 * d)) & 255)] == n:
            continue  # one byte value for every key: nothing moves
        total = 0
        for b in range(256):
            t = count[d * 256 + b]
            count[d * 256 + b] = <int> total
            total += t
        for j in range(n):
            k = src[j]
            b = d * 256 + <long long> ((k >> (8 * d)) & 255)
            dst[count[b]] = k
            count[b] += 1
        tmp = src
        src = dst
        dst = tmp
    if src != key:
        memcpy(key, src, n * sizeof(uint64_t))


cdef void _sort_rows_long(Row* a, long long n, const void* ctx, Row* spare,
                          uint64_t* key) noexcept nogil:
    """:c:func:`_sort_rows` by keys: each row's key is its score's
    :c:func:`_descending_key` with the low bits replaced by the row's position (6 bits under
    ``RADIX_MIN`` rows, else 16); the keys are sorted (an insertion sort of short lists, a
    radix sort of the score bits of longer ones), the rows gathered in that order, then each
    run of rows whose kept score bits are equal ordered by ``_before`` (the full scores, ids,
    then rows). The keys order rows as their scores do, so the result is the one order
    ``_before`` defines, as :c:func:`_sort_rows` gives it. ``spare`` holds ``n`` rows, ``key``
    ``2 n`` keys. Lists longer than ``RADIX_MAX`` rows, and rows already in order, go to
    :c:func:`_sort_rows`."""
    cdef long long i, j, e
    cdef int low = 6 if n < RADIX_MIN else 16
    cdef uint64_t mask = (<uint64_t> 1 << low) - 1
    if n < 2:
        return
    if n > RADIX_MAX:
        _sort_rows(a, n, ctx)
        return
    i = 1
    while i < n and not _before(&a[i], &a[i - 1], ctx):
        i += 1
    if i >= n:
        return
    for j in range(n):
        key[j] = (_descending_key(a[j].score) & ~mask) | <uint64_t> j
    if n < RADIX_MIN:
        _sort_keys_short(key, n)
    else:
        _sort_keys_radix(key, key + n, n, low)
    for j in range(n):
        spare[j] = a[<long long> (key[j] & mask)]
    memcpy(a, spare, n * sizeof(Row))
    j = 0
    while j < n:  # runs of equal kept score bits: scores, ids, then rows (input order so far)
        e = j + 1
        while e < n and (key[e] >> low) == (key[j] >> low):
            e += 1
        if e - j > 1:
            _sort_rows(a + j, e - j, ctx)
        j = e
