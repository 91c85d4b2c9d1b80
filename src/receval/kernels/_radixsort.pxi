# Included by _join.pyx after _rowsort.pxi: one user's rows ordered by a sort of one 64-bit
# key per row (the score's leading bits above the row's position in the list), the full
# comparison (``_before``) then ordering each run of rows whose leading score bits are equal.
# The including module defines ``Row`` (with ``score``) and ``_before``, and cimports
# ``uint64_t``, ``memcpy`` and ``memset``.

#: lists shorter than this are ordered by an insertion sort of their keys (positions in the
#: key's low 6 bits), longer ones (up to RADIX_MAX) by a most-significant-digit radix sort
#: (positions in 16 bits)
DEF RADIX_MIN = 64
DEF RADIX_MAX = 1 << 16
#: keys sorted without a branch on their values up to this many
DEF BRANCHLESS_MAX = 32
#: the most bits one level of the most-significant-digit sort distributes keys by
DEF MSD_BITS_MAX = 11


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


cdef void _sort_keys_msd(uint64_t* key, uint64_t* spare, long long n, int top) noexcept nogil:
    """Sort ``n`` distinct unsigned keys ascending, most significant digit first: the bits at
    and above ``top`` are the same in every key (64: none known); the highest bit ``h`` at
    which keys differ is found, the keys are distributed by their bits ``h - d + 1 .. h``
    (``d``: one bit more than ``n`` needs, at most ``MSD_BITS_MAX``) into ``spare`` and
    copied back, and each bucket of more than one key is sorted the same way below those
    bits, buckets of up to ``BRANCHLESS_MAX`` keys by :c:func:`_sort_keys_short`. A level
    consumes at least 7 bits (it sorts more than 32 keys), so a key moves at most 10 times;
    random scores are spread by the first level into buckets of a few keys (where a sort of
    8 bits a pass from the least significant moves every key once per varying byte).
    ``spare`` holds ``n`` keys."""
    cdef uint64_t both, either, k
    cdef long long j, b, total, t
    cdef int h, low, d, nb
    cdef int count[1 << MSD_BITS_MAX]
    cdef int at[1 << MSD_BITS_MAX]
    if n <= BRANCHLESS_MAX:
        _sort_keys_short(key, n)
        return
    both = key[0]
    either = key[0]
    for j in range(1, n):
        both = both & key[j]
        either = either | key[j]
    either = either ^ both  # the bits at which some keys differ
    if either == 0:
        return
    h = top - 1
    while not ((either >> h) & 1):
        h -= 1
    d = receval_bits_below(n) + 1
    if d > MSD_BITS_MAX:
        d = MSD_BITS_MAX
    low = h - d + 1
    if low < 0:
        low = 0
    nb = 1 << (h - low + 1)
    memset(count, 0, nb * sizeof(int))
    for j in range(n):
        count[<long long> ((key[j] >> low) & <uint64_t> (nb - 1))] += 1
    total = 0
    for b in range(nb):
        at[b] = <int> total
        total += count[b]
    for j in range(n):
        k = key[j]
        b = <long long> ((k >> low) & <uint64_t> (nb - 1))
        spare[at[b]] = k
        at[b] += 1
    memcpy(key, spare, n * sizeof(uint64_t))
    total = 0
    for b in range(nb):
        t = count[b]
        if t > 1:
            _sort_keys_msd(key + total, spare + total, t, low)
        total += t


cdef void _sort_rows_long(Row* a, long long n, const void* ctx, Row* spare,
                          uint64_t* key) noexcept nogil:
    """:c:func:`_sort_rows` by keys: each row's key is its score's
    :c:func:`_descending_key` with the low bits replaced by the row's position (6 bits under
    ``RADIX_MIN`` rows, else 16); the keys are sorted (an insertion sort of short lists, a
    most-significant-digit radix sort of longer ones), the rows gathered in that order, then each
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
        _sort_keys_msd(key, key + n, n, 64)
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
