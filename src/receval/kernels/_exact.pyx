# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Compiled exact summation: partials whose sum is the exact sum of any doubles (and of their
exact squares), and the per-column summary states of a (users x metrics) block.

Pure array code: floats in, floats (and counts) out. ``math.fsum`` of the partials is the
correctly rounded total, whatever the order or the split of the values, so partials of blocks,
threads and Spark tasks merge by concatenation.
"""

import numpy as np

from cython.parallel cimport prange
from libc.math cimport fabs, fma, isinf, isnan, ldexp
from libc.stdlib cimport free, realloc

include "_threads.pxi"
include "_alloc.pxi"


# The long accumulator of ``exact_partials``: 32-bit digits of a fixed-point number whose unit
# is 2**-1074 (the smallest subnormal), so every finite double is an integer number of units.
DEF DIGITS = 72
DEF LONG_SUM_MIN = 64          # below this many values Shewchuk's expansions are cheaper
DEF CARRY_EVERY = 1 << 28      # values added between carry passes (digits stay far from 2**63)


cdef extern from *:
    """
    #include <string.h>
    static inline unsigned long long receval_bits(double v) {
        unsigned long long b; memcpy(&b, &v, sizeof b); return b;
    }
    #define RECEVAL_MANT 0xFFFFFFFFFFFFFULL     /* a double's 52 stored mantissa bits */
    #define RECEVAL_HIDDEN 0x10000000000000ULL  /* the implicit leading bit of a normal double */
    #define RECEVAL_LOW32 0xFFFFFFFFULL
    """
    unsigned long long receval_bits(double v) nogil
    const unsigned long long MANT "RECEVAL_MANT"
    const unsigned long long HIDDEN "RECEVAL_HIDDEN"
    const unsigned long long LOW32 "RECEVAL_LOW32"


cdef inline void _long_add(long long* dig, double v) noexcept nogil:
    """dig += v exactly (v finite): v = +-m 2**(pos - 1074) with m < 2**53 and pos >= 0."""
    cdef unsigned long long b = receval_bits(v)
    cdef long long ex = <long long> ((b >> 52) & 0x7ff)
    cdef unsigned long long m = b & MANT
    cdef long long pos, d, sh, neg
    cdef unsigned long long lo, hi
    if ex == 0:
        if m == 0:
            return
        pos = 0
    else:
        m = m | HIDDEN
        pos = ex - 1
    d = pos >> 5
    sh = pos & 31
    lo = (m & LOW32) << sh     # < 2**63
    hi = (m >> 32) << sh            # < 2**52
    # negated when v < 0, without a branch (the sign of a rounding error is a coin toss)
    neg = -<long long> (b >> 63)  # 0 or -1 (all bits set)
    dig[d] += (<long long> (lo & LOW32) ^ neg) - neg
    dig[d + 1] += (<long long> ((lo >> 32) + (hi & LOW32)) ^ neg) - neg
    dig[d + 2] += (<long long> (hi >> 32) ^ neg) - neg


cdef extern from *:
    """
    /* dig += v*v exactly, for 1e-140 <= |v| <= 1e150 (digits of 32 bits in units of
       2**-1074, as _long_add). v = m 2**(pos - 1074) with m < 2**53, so v*v = m*m 2**s in
       units of 2**-1074 with s = 2 pos - 1074 >= 0 over that range: the 106-bit product m*m
       enters five digits from s. Returns 0 where the compiler has no 128-bit integer (the
       caller then adds the rounded square and its error). */
    static inline int receval_long_add_square(long long* dig, double v) {
    #if defined(__SIZEOF_INT128__)
        unsigned long long b, m, q0, q1, u0, u1, u2, u3;
        unsigned __int128 q;
        long long ex, s, d;
        int sh;
        memcpy(&b, &v, sizeof b);
        ex = (long long) ((b >> 52) & 0x7ff);
        m = b & RECEVAL_MANT;
        if (ex == 0) return 1;  /* v is 0 (the range has no subnormal): nothing to add */
        m |= RECEVAL_HIDDEN;
        s = 2 * (ex - 1) - 1074;
        d = s >> 5;
        sh = (int) (s & 31);
        q = (unsigned __int128) m * m;
        q0 = (unsigned long long) q;
        q1 = (unsigned long long) (q >> 64);  /* < 2**42 */
        u0 = (q0 & RECEVAL_LOW32) << sh;      /* each < 2**63 */
        u1 = (q0 >> 32) << sh;
        u2 = (q1 & RECEVAL_LOW32) << sh;
        u3 = (q1 >> 32) << sh;
        dig[d] += (long long) (u0 & RECEVAL_LOW32);
        dig[d + 1] += (long long) ((u0 >> 32) + (u1 & RECEVAL_LOW32));
        dig[d + 2] += (long long) ((u1 >> 32) + (u2 & RECEVAL_LOW32));
        dig[d + 3] += (long long) ((u2 >> 32) + (u3 & RECEVAL_LOW32));
        dig[d + 4] += (long long) (u3 >> 32);
        return 1;
    #else
        (void) dig; (void) v;
        return 0;
    #endif
    }
    """
    int receval_long_add_square(long long* dig, double v) nogil


cdef inline void _long_add_square(long long* dig, double v) noexcept nogil:
    """dig += v*v exactly, for 1e-140 <= |v| <= 1e150 or v == 0: the 128-bit product of the
    mantissa where the compiler has one, else the rounded square plus its error."""
    cdef double p
    if receval_long_add_square(dig, v):
        return
    p = v * v
    _long_add(dig, p)
    _long_add(dig, _square_error(v, p))


cdef inline double _square_error(double v, double p) noexcept nogil:
    """``v*v - p`` exactly for ``p = fl(v*v)`` and 1e-140 <= |v| <= 1e150 (Dekker's product with
    Veltkamp's split: the same value as ``fma(v, v, -p)``, without a library call where the
    target has no fused multiply-add instruction)."""
    cdef double a = 134217729.0 * v
    cdef double hi = a - (a - v)
    cdef double lo = v - hi
    return ((hi * hi - p) + 2.0 * hi * lo) + lo * lo


cdef inline void _long_carry(long long* dig) noexcept nogil:
    """Every digit but the last into [0, 2**32); the value is unchanged."""
    cdef long long i, c
    for i in range(DIGITS - 1):
        c = dig[i] >> 32                 # arithmetic shift: floor division by 2**32
        dig[i] -= c << 32
        dig[i + 1] += c


def exact_partials(const double[::1] x, int square=0):
    """Partials whose exact sum is the exact sum of ``x`` (NaN values skipped).

    ``square=1`` sums the exact squares: each ``x*x`` enters whole (the 128-bit square of its
    mantissa, or its rounded product plus the product's rounding error), so nothing is lost.
    Partials of several arrays merge by concatenation; ``math.fsum`` of the merged partials is
    the correctly rounded total, whatever the order or the split of the values.

    Long inputs go into a long accumulator: every finite double is an integer multiple of
    2**-1074, added exactly into 32-bit digits (Kulisch's exact dot product accumulator; Neal,
    "Fast exact summation using small and large superaccumulators", 2015), a few integer
    operations per value. Short inputs, and values whose square could overflow or lose its
    error term to underflow, use Shewchuk's expansions ("Adaptive precision floating-point
    arithmetic", 1997; the algorithm behind Python's ``math.fsum``).
    """
    cdef Py_ssize_t n = x.shape[0], i
    cdef long long dig[DIGITS]
    cdef double v, av
    cdef long long since = 0
    cdef int fallback = 0
    if n < LONG_SUM_MIN:
        return _shewchuk_partials(x, square)
    for i in range(DIGITS):
        dig[i] = 0
    with nogil:
        for i in range(n):
            v = x[i]
            if isnan(v):
                continue
            av = fabs(v)
            if square:
                if av != 0.0 and (av < 1e-140 or av > 1e150):
                    fallback = 1
                    break
                _long_add_square(dig, v)
            else:
                if av > 1.7e308:       # infinite
                    fallback = 1
                    break
                _long_add(dig, v)
            since += 1
            if since >= CARRY_EVERY:
                _long_carry(dig)
                since = 0
        _long_carry(dig)
    if fallback:
        return _shewchuk_partials(x, square)
    out = _digit_partials(dig)
    return _shewchuk_partials(x, square) if out is None else out


cdef object _digit_partials(const long long* dig):
    """The carried digits as partials (one per non-zero digit), or None when one of them is
    beyond the double range (the caller then sums by Shewchuk's expansions)."""
    cdef int i
    cdef double p
    out = []
    for i in range(DIGITS):
        if dig[i] != 0:
            p = ldexp(<double> dig[i], <int> (32 * i - 1074))
            if isinf(p):
                return None
            out.append(p)
    return out


# one column's accumulator in ``column_states``: the digits of the sum, the digits of the sum of
# squares, then n, skipped, nan, the infinite values' sum (as a double) and the flag "squares by
# Shewchuk's expansions", padded to whole 64-byte lines so that threads share no line
DEF COLUMN_SLOTS = 2 * DIGITS + 8


def column_states(const double[:, :] values, const signed char[:, :] status,
                  groups=None, Py_ssize_t n_groups=1):
    """Per column of a (users x metrics) block (any strides: e.g. a range of columns of a
    wider table): what ``MetricState.of`` keeps of it.

    Status 0 enters the summary, 1 is skipped (counted), anything else is left out. Returns
    ``(n, skipped, nan, nonfinite, totals, squares)``: per column the users entering the summary,
    the skipped users, the NaN values among those entering, the sum of their infinite values,
    and the exact partials (as :func:`exact_partials`) of their finite values and of the exact
    squares of those values.

    ``groups``: an int64 group code per row (0 .. ``n_groups`` - 1; a negative code leaves the
    row out): the same, per group and column, in one pass over the rows, the arrays of shape
    ``(n_groups, columns)`` and the partials lists of lists (group, then column).

    In parallel over ranges of rows: a thread adds each of its rows into one long accumulator
    per column (consecutive additions go to different accumulators, so they do not wait on
    each other); the threads' accumulators are then added digit by digit, which is exact. A
    column holding a value whose square could overflow or lose its error term to underflow, or
    whose digits leave the double range, is summed again by Shewchuk's expansions.
    """
    cdef Py_ssize_t n = values.shape[0], m = values.shape[1], j, k, lo, hi, part, g
    if status.shape[0] != n or status.shape[1] != m:
        raise ValueError("column_states: values and status must have the same shape")
    cdef const long long[::1] codes
    cdef const long long* cp = NULL
    if groups is not None:
        codes = np.ascontiguousarray(groups, dtype=np.int64)
        if codes.shape[0] != n:
            raise ValueError("column_states: one group code per row")
        if n_groups < 1:
            raise ValueError("column_states: n_groups >= 1")
        if n:
            cp = &codes[0]
    cdef Py_ssize_t cols = m * n_groups
    cdef int nt = _threads(n * m), t
    cdef Py_ssize_t width = COLUMN_SLOTS * (cols if cols > 0 else 1)
    cdef long long* acc = <long long*> receval_alloc(width * nt, sizeof(long long), 1)
    if acc == NULL:
        raise _no_memory(f"the exact sums of {cols:,} columns", width * sizeof(long long), nt)
    cdef long long* c
    cdef long long* o
    cdef Py_ssize_t step = CARRY_EVERY // 2  # two additions per square
    n_arr = np.zeros(cols, dtype=np.int64)
    skip_arr = np.zeros(cols, dtype=np.int64)
    nan_arr = np.zeros(cols, dtype=np.int64)
    inf_arr = np.zeros(cols, dtype=np.float64)
    totals = []
    squares = []
    try:
        with nogil:
            lo = 0
            while lo < n:
                hi = lo + step if n - lo > step else n
                part = (hi - lo + nt - 1) // nt
                for t in prange(nt, num_threads=nt, schedule="static", chunksize=1):
                    _column_rows(values, status, lo + t * part,
                                 hi if lo + (t + 1) * part > hi else lo + (t + 1) * part,
                                 acc + width * t, cp, n_groups)
                for k in range(cols * nt):
                    _long_carry(acc + COLUMN_SLOTS * k)
                    _long_carry(acc + COLUMN_SLOTS * k + DIGITS)
                lo = hi
            for t in range(1, nt):  # every thread's accumulators into the first one's
                for k in range(width):
                    o = acc + width * t
                    if k % COLUMN_SLOTS == 2 * DIGITS + 3:
                        (<double*> acc)[k] += (<double*> o)[k]
                    elif k % COLUMN_SLOTS == 2 * DIGITS + 4:
                        acc[k] = acc[k] | o[k]
                    else:
                        acc[k] += o[k]
            for j in range(cols):
                _long_carry(acc + COLUMN_SLOTS * j)
                _long_carry(acc + COLUMN_SLOTS * j + DIGITS)
        for k in range(cols):
            c = acc + COLUMN_SLOTS * k
            n_arr[k] = c[2 * DIGITS]
            skip_arr[k] = c[2 * DIGITS + 1]
            nan_arr[k] = c[2 * DIGITS + 2]
            inf_arr[k] = (<double*> c)[2 * DIGITS + 3]
            total = _digit_partials(c)
            square = None if c[2 * DIGITS + 4] else _digit_partials(c + DIGITS)
            if total is None or square is None:
                g, j = k // m, k % m
                keep = np.asarray(status[:, j]) == 0
                if groups is not None:
                    keep &= np.asarray(codes) == g
                x = np.asarray(values[:, j])[keep]
                x = np.ascontiguousarray(np.where(np.isinf(x), np.nan, x))
                total = _shewchuk_partials(x) if total is None else total
                square = _shewchuk_partials(x, 1) if square is None else square
            totals.append(total)
            squares.append(square)
    finally:
        free(acc)
    if groups is None:
        return n_arr, skip_arr, nan_arr, inf_arr, totals, squares
    return (n_arr.reshape(n_groups, m), skip_arr.reshape(n_groups, m),
            nan_arr.reshape(n_groups, m), inf_arr.reshape(n_groups, m),
            [totals[g * m:(g + 1) * m] for g in range(n_groups)],
            [squares[g * m:(g + 1) * m] for g in range(n_groups)])


cdef void _column_rows(const double[:, :] values, const signed char[:, :] status,
                       Py_ssize_t lo, Py_ssize_t hi, long long* acc,
                       const long long* groups, Py_ssize_t n_groups) noexcept nogil:
    """Rows ``lo:hi`` into one accumulator per column (``COLUMN_SLOTS`` apart from ``acc``);
    with ``groups``, into its group's accumulators (a row of a negative code is left out)."""
    cdef Py_ssize_t m = values.shape[1], i, j
    cdef long long* c
    cdef long long* base
    cdef double v, av
    cdef signed char st
    for i in range(lo, hi):
        base = acc
        if groups != NULL:
            if groups[i] < 0 or groups[i] >= n_groups:
                continue
            base = acc + COLUMN_SLOTS * m * groups[i]
        for j in range(m):
            c = base + COLUMN_SLOTS * j
            st = status[i, j]
            if st != 0:
                if st == 1:
                    c[2 * DIGITS + 1] += 1
                continue
            c[2 * DIGITS] += 1
            v = values[i, j]
            if isnan(v):
                c[2 * DIGITS + 2] += 1
                continue
            av = fabs(v)
            if av > 1.7e308:  # infinite: summed apart, never exactly
                (<double*> c)[2 * DIGITS + 3] += v
                continue
            _long_add(c, v)
            if c[2 * DIGITS + 4]:
                continue
            if av != 0.0 and (av < 1e-140 or av > 1e150):
                c[2 * DIGITS + 4] = 1  # this column's squares by Shewchuk's expansions
                continue
            _long_add_square(c + DIGITS, v)


def _shewchuk_partials(const double[::1] x, int square=0):
    """``exact_partials`` by Shewchuk's expansions (non-overlapping partials; any values).

    Infinite values, squares beyond the double range and running sums that leave it are summed
    apart, as ``math.fsum`` sums its special values: once one is met the total is that sum
    (+-inf, or NaN for inf - inf), returned as the only partial, and finite values are no
    longer added (an overflowing term kept among the partials made a NaN partial at every
    later step: the expansion grew by one per value and the time went quadratic)."""
    cdef Py_ssize_t n = x.shape[0], i, j, k, m = 0, t
    cdef double* p = <double*> receval_alloc(64 + 1, sizeof(double), 0)
    cdef Py_ssize_t cap = 64
    cdef double v, a, b, hi, lo, terms[2]
    cdef double special = 0.0  # the sum of the values (or squares) beyond the double range
    cdef int nterms
    cdef double* grown
    if p == NULL:
        raise _no_memory("the partials of an exact sum", (64 + 1) * sizeof(double))
    try:
        for i in range(n):
            v = x[i]
            if isnan(v):
                continue
            if square:
                # exact square: rounded product + its error (Dekker's product, Veltkamp split)
                terms[0] = v * v
                if isinf(terms[0]):
                    special += terms[0]
                    continue
                if fabs(v) < 1e150:
                    a = 134217729.0 * v
                    hi = a - (a - v)
                    lo = v - hi
                    terms[1] = ((hi * hi - terms[0]) + 2.0 * hi * lo) + lo * lo
                else:
                    terms[1] = fma(v, v, -terms[0])
                nterms = 2
            else:
                if isinf(v):
                    special += v
                    continue
                terms[0] = v
                nterms = 1
            if special != 0.0:  # the total is decided: only special values still count
                continue
            for t in range(nterms):
                a = terms[t]
                j = 0
                for k in range(m):
                    b = p[k]
                    if fabs(a) < fabs(b):
                        a, b = b, a
                    hi = a + b
                    if isinf(hi):  # the running sum leaves the double range
                        special += hi
                        break
                    lo = b - (hi - a)
                    if lo != 0.0:
                        p[j] = lo
                        j += 1
                    a = hi
                if special != 0.0:
                    break
                if j >= cap:
                    cap *= 2
                    grown = <double*> realloc(p, (cap + 1) * sizeof(double))
                    if grown == NULL:
                        raise _no_memory("the partials of an exact sum", (cap + 1) * sizeof(double))
                    p = grown
                p[j] = a
                m = j + 1
        if special != 0.0:
            return [special]
        return [p[i] for i in range(m)]
    finally:
        free(p)
