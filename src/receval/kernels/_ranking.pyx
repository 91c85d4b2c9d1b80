# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Compiled kernel: every ranking metric at every cutoff for every user, in one pass.

Pure array code: integers and floats in, arrays out. Nothing here knows about ids,
frames or metric names; metric definitions bind to the ``Request`` codes below.
"""

import numpy as np

cimport numpy as cnp
from cython.parallel cimport parallel, prange
from libc.math cimport NAN, exp, expm1, isnan, log, log1p, log2, log10, pow, sqrt
from libc.limits cimport LLONG_MAX
from libc.stdlib cimport free, qsort

cnp.import_array()

include "_threads.pxi"
include "_alloc.pxi"


# Request codes: the one definition. Python reads them as ``receval.kernels.Request``.
cpdef enum Request:
    HITS = 0
    PRECISION = 1
    RECALL = 2
    FBETA = 3
    HIT_RATE = 4
    RR = 5
    FIRST_HIT = 6
    AP = 7
    MAR = 8
    CG = 9
    DCG = 10
    IDCG = 11
    NDCG = 12
    RPREC = 13
    ERR = 14
    RBP = 15
    BPREF = 16
    NREL = 17
    NRET = 18
    # retrieval measures of trec_eval / ir_measures (computed by _metric_ext)
    JUDGED = 19
    INFAP = 20
    IPREC = 21
    IPREC_AVG = 22
    SET_MAP = 23
    NCRR = 24
    # C/W/L user models (Moffat et al.; cwl_eval): variant = output (eu, etu, etc, ed)
    CWL_RBP = 25
    CWL_INST = 26
    CWL_INSQ = 27
    CWL_SDCG = 28
    CWL_BPM = 29
    CWL_NERR8 = 30
    CWL_NERR9 = 31
    CWL_NERR10 = 32
    CWL_NERR11 = 33
    # recommender extras: RecTools PAUC / PAP / MCC, RecPack percentile ranking
    PAUC = 34
    PAP = 35
    MCC = 36
    PERC_RANK = 37
    PERC_NUM = 38    # numerator of the percentile rank's micro average

# first request code handled by _metric_ext
DEF FIRST_EXT = 19
# cwl_eval's default evaluation depth (--max_depth): a ranking is padded with zero gains to it
DEF CWL_DEPTH = 1000

# A request's options are indexes into these tuples (metric parameters take their choices from
# here, so a choice's position is its kernel value by construction).
VARIANTS = {
    PRECISION: ("k", "list", "min_k_rel"),      # denominator
    RECALL: ("rel", "min_k_rel"),               # denominator
    AP: ("rel", "min_k_rel", "hits", "k"),      # denominator
    HIT_RATE: ("user", "recommended", "truth"),  # level
    RPREC: ("rel", "min_k_rel"),                # denominator (with a cutoff)
}
CWL_OUTPUTS = ("eu", "etu", "etc", "ed")  # expected utility (rate), total utility, total cost, depth
for _code in range(CWL_RBP, CWL_NERR11 + 1):
    VARIANTS[_code] = CWL_OUTPUTS
VARIANTS[PERC_RANK] = ("items", "users")  # average
VARIANTS[PAUC] = VARIANTS[PAP] = ("ignore", "exclude")  # insufficient
GAINS = ("linear", "exp", "binary")
IDEALS = ("truth", "list", "k")
DISCOUNTS = ("log2", "log2_max2", "ln", "log10")

cdef enum:
    V_FIRST = 0
    V_SECOND = 1
    V_THIRD = 2
    V_FOURTH = 3
    I_TRUTH = 0
    I_K = 2
    D_LOG2 = 0
    D_LOG2_MAX2 = 1
    D_LN = 2
    D_LOG10 = 3


cdef inline double _disc(long long i, int kind) noexcept nogil:
    """Discount denominator of 0-based position i (the gain is divided by it)."""
    if kind == D_LOG2_MAX2:
        return log2(i + 1.0) if i >= 1 else 1.0
    if kind == D_LN:
        return log(i + 2.0)
    if kind == D_LOG10:
        return log10(i + 2.0)
    return log2(i + 2.0)


cdef inline double _gain(double r, int exp_gain) noexcept nogil:
    """Gain of relevance r: linear (0), exponential 2^r - 1 (1), binary [r > 0] (2)."""
    if r <= 0:
        return 0.0
    if exp_gain == 2:
        return 1.0
    if exp_gain:
        return pow(2.0, r) - 1.0
    return r


cdef int _cmp_desc(const void* a, const void* b) noexcept nogil:
    cdef double x = (<const double*> a)[0]
    cdef double y = (<const double*> b)[0]
    if x > y:
        return -1
    if x < y:
        return 1
    return 0


# ---------------------------------------------------------------------------------------------
# Long sums over the ranks up to k with no list item in them (C/W/L tails past the end of a
# list, IDCG with ideal=k) in closed form: every metric's cost depends on the list, not on k
# ---------------------------------------------------------------------------------------------

# sums of up to this many ranks run the plain loop (ordinary depths keep the loop's exact bits)
DEF TAIL_LOOP = 4096

# 16-point Gauss-Legendre nodes and weights on [-1, 1] (the positive half; symmetric)
cdef double[8] _GL_X = [0.09501250983763744, 0.2816035507792589, 0.45801677765722737,
                        0.6178762444026438, 0.755404408355003, 0.8656312023878318,
                        0.9445750230732326, 0.9894009349916499]
cdef double[8] _GL_W = [0.18945061045506864, 0.18260341504492364, 0.16915651939500265,
                        0.1495959888165767, 0.12462897125553407, 0.0951585116824926,
                        0.062253523938647456, 0.027152459411754176]


cdef inline double _psi_rest(double z) noexcept nogil:
    """R(z) with digamma(z) = log(z) - R(z): the asymptotic series, for z >= 16."""
    cdef double w = 1.0 / (z * z)
    return 0.5 / z + w * (1.0 / 12 - w * (1.0 / 120 - w * (1.0 / 252 - w * (
        1.0 / 240 - w * (1.0 / 132)))))


cdef double _sum_inv(double a, double m) noexcept nogil:
    """sum_{j=0}^{m-1} 1 / (a + j) for a > 0: digamma(a + m) - digamma(a)."""
    cdef double acc = 0.0
    while m > 0 and (a < 16.0 or m < 16.0):
        acc += 1.0 / a
        a += 1.0
        m -= 1.0
    if m <= 0:
        return acc
    return acc + log1p(m / a) + (_psi_rest(a) - _psi_rest(a + m))


cdef inline double _zeta2_rest(double z) noexcept nogil:
    """T(z) with zeta(2, z) = 1/z + T(z) (Hurwitz zeta; asymptotic series, for z >= 16)."""
    cdef double w = 1.0 / (z * z)
    return w * (0.5 + (1.0 / z) * (1.0 / 6 - w * (1.0 / 30 - w * (1.0 / 42 - w * (
        1.0 / 30 - w * (5.0 / 66))))))


cdef double _sum_inv_sq(double q, double m) noexcept nogil:
    """sum_{j=0}^{m-1} 1 / (q + j)^2 for q > 0: zeta(2, q) - zeta(2, q + m) (trigamma)."""
    cdef double acc = 0.0
    while m > 0 and (q < 16.0 or m < 16.0):
        acc += 1.0 / (q * q)
        q += 1.0
        m -= 1.0
    if m <= 0:
        return acc
    return acc + m / (q * (q + m)) + (_zeta2_rest(q) - _zeta2_rest(q + m))


cdef inline double _inv_log_em(double u) noexcept nogil:
    """Euler-Maclaurin end correction of f(u) = 1 / log(u): f/2 + f'/12 - f'''/720 + f^(5)/30240."""
    cdef double h = 1.0 / log(u), v = 1.0 / u, h2 = h * h
    cdef double d1 = -h2 * v
    cdef double d3 = -h2 * (2.0 + h * (6.0 + 6.0 * h)) * v * v * v
    cdef double d5 = -h2 * (24.0 + h * (100.0 + h * (210.0 + h * (240.0 + 120.0 * h)))) * (
        v * v * v * v * v)
    return d1 / 12.0 - d3 / 720.0 + d5 / 30240.0


cdef double _int_inv_log(double lo, double hi) noexcept nogil:
    """The integral of 1 / log(u) over [lo, hi], lo >= 2: Gauss-Legendre on panels [x, 2x]."""
    cdef double acc = 0.0, e, c, r, t
    cdef int j
    while lo < hi:
        e = 2.0 * lo if 2.0 * lo < hi else hi
        c = 0.5 * (lo + e)
        r = 0.5 * (e - lo)
        t = 0.0
        for j in range(8):
            t += _GL_W[j] * (1.0 / log(c - r * _GL_X[j]) + 1.0 / log(c + r * _GL_X[j]))
        acc += r * t
        lo = e
    return acc


cdef double _sum_inv_log(double u, double m) noexcept nogil:
    """sum_{j=0}^{m-1} 1 / log(u + j) for u >= 2 (Euler-Maclaurin past u = 128)."""
    cdef double acc = 0.0, b
    while m > 0 and (u < 128.0 or m < 64.0):
        acc += 1.0 / log(u)
        u += 1.0
        m -= 1.0
    if m <= 0:
        return acc
    b = u + m - 1.0
    return acc + _int_inv_log(u, b) + 0.5 * (1.0 / log(u) + 1.0 / log(b)) + (
        _inv_log_em(b) - _inv_log_em(u))


cdef double _sum_disc(long long m, int kind) noexcept nogil:
    """sum_{i<m} 1 / _disc(i, kind) in closed form (sums of 1 / log(u))."""
    if kind == D_LOG2_MAX2:
        return 1.0 + log(2.0) * _sum_inv_log(2.0, m - 1.0)
    if kind == D_LN:
        return _sum_inv_log(2.0, <double> m)
    return (log(10.0) if kind == D_LOG10 else log(2.0)) * _sum_inv_log(2.0, <double> m)


cdef inline double _cwl_cont(int code, double x, double g, double cg, double par,
                             long long depth) noexcept nogil:
    """C(x) of rank x (1-based) with gain g and cumulative gain cg (NaN for no C/W/L code)."""
    cdef double y
    if code == CWL_RBP:
        return par
    if code == CWL_INST:
        y = x + par + (par - cg)   # T_i = T - cg
        return ((y - 1.0) / y) * ((y - 1.0) / y)
    if code == CWL_INSQ:
        y = x + 2.0 * par
        return ((y - 1.0) / y) * ((y - 1.0) / y)
    if code == CWL_SDCG:
        return log(x + 1.0) / log(x + 2.0) if x < depth else 0.0
    if code == CWL_BPM:
        return 1.0 if (cg < par and x < depth) else 0.0
    if code == CWL_NERR8:
        return 1.0 - g if x < depth else 0.0
    if code == CWL_NERR9:
        return (x / (x + 1.0)) * (1.0 - g) if x < depth else 0.0
    if code == CWL_NERR10:
        return par * (1.0 - g)
    if code == CWL_NERR11:
        y = x + 2.0 * par
        return ((y - 1.0) / y) * ((y - 1.0) / y) * (1.0 - g)
    return NAN


# accumulators of a C/W/L pass: P(i), sum P, sum P g, sum L cg, sum L rank, cumulative gain
cdef struct CwlState:
    double p
    double s
    double acc
    double etu
    double etc
    double cg


cdef long long _cwl_loop(int code, long long i, long long lim, long long n, long long depth,
                         double par, double par2, const double* rel,
                         CwlState* st) noexcept nogil:
    """Ranks i + 1 .. lim one by one (gains past the list, i >= n, are 0); returns where it
    stopped (lim, or earlier once P reaches 0)."""
    cdef double g, x, cont
    while i < lim and st.p != 0.0:
        g = rel[i] / par2 if i < n and rel[i] > 0 else 0.0
        st.cg += g
        x = i + 1.0  # rank
        cont = _cwl_cont(code, x, g, st.cg, par, depth)
        st.s += st.p
        st.acc += st.p * g
        st.etu += st.p * (1.0 - cont) * st.cg
        st.etc += st.p * (1.0 - cont) * x
        st.p = st.p * cont
        i += 1
    return i


cdef void _cwl_tail(int code, double a, double b, double par, CwlState* st) noexcept nogil:
    """Ranks a .. b (b = the depth) past the list in closed form: gain 0, cg fixed, so with
    P(x + 1) = P(x) C(x): sum L(x) cg = cg (P(a) - P(b + 1)) and, by Abel summation,
    sum L(x) x = a P(a) - b P(b + 1) + sum_{x=a+1}^{b} P(x)."""
    cdef double m = b - a + 1.0, p = st.p, q, lr, d, tot, end
    if code == CWL_RBP or code == CWL_NERR10:
        # geometric: P(x) = P(a) phi^(x - a)
        lr = log1p(par - 1.0) if par >= 0.5 else log(par)
        d = -p * expm1(m * lr)               # P(a) - P(b + 1)
        tot = d / (1.0 - par)
        end = p * exp(m * lr)
    elif code == CWL_INST or code == CWL_INSQ or code == CWL_NERR11:
        # C(x) = (q(x) / q(x + 1))^2, q(x) = x + 2T - 1 (INST: - cg): P(x) = P(a) (q(a) / q(x))^2
        q = a - 1.0 + 2.0 * par - (st.cg if code == CWL_INST else 0.0)
        tot = p * q * q * _sum_inv_sq(q, m)
        end = p * (q / (q + m)) * (q / (q + m))
        d = p * (m / (q + m)) * ((2.0 * q + m) / (q + m))
    else:
        # C(b) = 0: the whole reach stops by the depth
        d = p
        end = 0.0
        if code == CWL_BPM:
            # C = 1 while the gain is short of T
            tot = p * m if st.cg < par else p
        elif code == CWL_NERR8:
            tot = p * m                          # C = 1
        elif code == CWL_NERR9:
            tot = p * a * _sum_inv(a, m)         # P(x) = P(a) a / x
        else:
            # SDCG: P(x) = P(a) log(a + 1) / log(x + 1)
            tot = p * log(a + 1.0) * _sum_inv_log(a + 1.0, m)
    st.s += tot
    st.etu += st.cg * d
    st.etc += (a - 1.0) * p + tot - b * end
    st.p = end


cdef inline double _from_hits(int code, long long kk, double par, int opt, long long nread,
                              long long nrel, double x) noexcept nogil:
    """Hits, precision, R-precision, recall, F and hit rate from x, the (expected) hits in the
    top min(n_avail, kk) positions; ``nread``: the positions read, min(list_len, kk) (with
    per-slot ranks: the slots with rank <= kk); NaN for any other code."""
    cdef double den
    if code == HITS:
        return x
    if code == PRECISION or code == RPREC:
        if code == RPREC:
            den = <double> (nrel if opt == V_FIRST else kk)
        elif opt == 0:
            den = <double> kk
        elif opt == 1:
            den = <double> nread
        else:
            den = <double> (kk if kk < nrel else nrel)
        return x / den if den > 0 else 0.0
    if code == RECALL:
        den = <double> (nrel if opt == 0 else (kk if kk < nrel else nrel))
        return x / den if den > 0 else 0.0
    if code == FBETA:
        den = par * par * nrel + kk
        return (1.0 + par * par) * x / den if den > 0 else 0.0
    if code == HIT_RATE:
        if opt == 0:
            return 1.0 if x > 0 else 0.0
        if opt == 1:
            den = <double> nread
        else:
            den = <double> nrel
        return x / den if den > 0 else 0.0
    return NAN


cdef inline double _ap_den(int opt, long long kk, long long nrel, double hits) noexcept nogil:
    """AP's denominator: R (rel), min(k, R) (min_k_rel), the hits (hits) or k (k)."""
    if opt == V_FIRST:
        return <double> nrel
    if opt == V_SECOND:
        return <double> (kk if kk < nrel else nrel)
    if opt == V_FOURTH:
        return <double> kk
    return hits


cdef double _metric(int code, long long k, double thr, double par, int opt, int gain,
                    int ideal, int disc,
                    const double* rel, const signed char* judged, const long long* grp_end,
                    long long n_avail, long long list_len,
                    const double* trel, long long n_truth, double* scratch) noexcept nogil:
    """One metric for one user. rel/judged/grp_end point at the user's ordered positions.

    grp_end is NULL unless ties are averaged; then grp_end[i] is the (user-relative) end of
    the tie group containing position i.
    """
    cdef long long n, i, j, nrel = 0, nnonrel = 0, h = 0, kk, s, t, r, m
    cdef double acc = 0.0, den, prob, x, y, p_, q
    cdef int avg = grp_end != NULL
    for i in range(n_truth):
        if trel[i] >= thr:
            nrel += 1
        else:
            nnonrel += 1
    if code == NREL:
        return <double> nrel
    kk = k if k > 0 else list_len
    n = n_avail if n_avail < kk else kk
    if code == NRET:
        return <double> (list_len if list_len < kk else kk)

    if code == IDCG or code == NDCG:
        # ideal DCG over k positions: from the truth (ideal=truth) or from the list
        m = k if k > 0 else (n_truth if ideal == I_TRUTH else n_avail)
        if ideal == I_TRUTH:
            for i in range(n_truth if n_truth < m else m):
                acc += _gain(trel[i], gain) / _disc(i, disc)
        elif ideal == I_K:
            # every one of the m positions holds the user's largest truth relevance
            x = _gain(trel[0], gain) if n_truth > 0 else 0.0
            if m <= TAIL_LOOP:
                for i in range(m):
                    acc += x / _disc(i, disc)
            else:
                acc = x * _sum_disc(m, disc)
        else:
            for i in range(n_avail):
                scratch[i] = rel[i]
            qsort(scratch, n_avail, sizeof(double), _cmp_desc)
            for i in range(n_avail if n_avail < m else m):
                acc += _gain(scratch[i], gain) / _disc(i, disc)
        if code == IDCG:
            return acc
        den = acc
        acc = 0.0
        if avg:
            _avg_gain(rel, grp_end, n_avail, 0.0, 1, gain, scratch)
            for i in range(n):
                acc += scratch[i] / _disc(i, disc)
        else:
            for i in range(n):
                acc += _gain(rel[i], gain) / _disc(i, disc)
        return acc / den if den > 0 else 0.0

    if code == CG or code == DCG:
        if avg:
            _avg_gain(rel, grp_end, n_avail, 0.0, 1, gain, scratch)
            for i in range(n):
                acc += scratch[i] if code == CG else scratch[i] / _disc(i, disc)
        else:
            for i in range(n):
                x = _gain(rel[i], gain)
                acc += x if code == CG else x / _disc(i, disc)
        return acc

    if code == ERR:
        p_ = 1.0
        y = pow(2.0, par)
        for i in range(n):
            x = _gain(rel[i], 1) / y
            acc += p_ * x / (i + 1.0)
            p_ = p_ * (1.0 - x)
        return acc

    if code == BPREF:
        s = 0
        for i in range(n):
            if not judged[i]:
                continue
            if rel[i] >= thr:
                if s > 0:
                    x = <double> (s if s < nrel else nrel)
                    y = <double> (nnonrel if nnonrel < nrel else nrel)
                    acc += 1.0 - x / y
                else:
                    acc += 1.0
            else:
                s += 1
        return acc / nrel if nrel > 0 else 0.0

    if code == RPREC:
        # R-precision: the top R; with a cutoff, the top min(k, R)
        kk = nrel if (k <= 0 or nrel < k) else k
        n = n_avail if n_avail < kk else kk

    # binary relevance, averaged over tie groups when asked
    if avg:
        _avg_gain(rel, grp_end, n_avail, thr, 0, 0, scratch)
    else:
        for i in range(n):
            scratch[i] = 1.0 if rel[i] >= thr else 0.0

    if code == RR and avg:
        # exact expectation of 1/rank of the first relevant item over tie orders
        i = 0
        while i < n:
            t = grp_end[i] - i
            x = scratch[i] * t
            r = <long long> (x + 0.5)
            if r > 0:
                q = 1.0
                for j in range(t - r + 1):
                    if i + j >= n:
                        break
                    prob = q * r / (t - j)
                    acc += prob / (i + j + 1.0)
                    q = q * (t - j - r) / (t - j)
                return acc
            i = grp_end[i]
        return 0.0

    if code == HIT_RATE and opt == 0 and avg:
        i = 0
        while i < n:
            t = grp_end[i] - i
            r = <long long> (scratch[i] * t + 0.5)
            if r > 0:
                m = n - i if n - i < t else t
                q = 1.0
                for j in range(m):
                    q = q * (t - r - j) / (t - j) if t - r - j > 0 else 0.0
                return 1.0 - q
            i = grp_end[i]
        return 0.0

    if code == AP and avg:
        x = 0.0  # relevant before the group (expected = exact count)
        i = 0
        while i < n:
            t = grp_end[i] - i
            r = <long long> (scratch[i] * t + 0.5)
            if r > 0:
                for j in range(t):
                    if i + j >= n:
                        break
                    if t > 1:
                        y = x + j * (r - 1.0) / (t - 1.0) + 1.0
                    else:
                        y = x + 1.0
                    acc += (r / <double> t) * y / (i + j + 1.0)
            x += r
            i = grp_end[i]
        if opt == V_SECOND:
            den = <double> (kk if kk < nrel else nrel)
        elif opt == V_FOURTH:
            den = <double> kk
        else:
            den = <double> nrel
        return acc / den if den > 0 else 0.0

    x = 0.0
    for i in range(n):
        x += scratch[i]
    # x = hits in top n (expected hits when averaged)
    if code <= HIT_RATE or code == RPREC:
        return _from_hits(code, kk, par, opt, list_len if list_len < kk else kk, nrel, x)
    if code == RR or code == FIRST_HIT:
        for i in range(n):
            if scratch[i] > 0:
                return 1.0 / (i + 1.0) if code == RR else i + 1.0
        return 0.0 if code == RR else NAN
    if code == AP:
        h = 0
        for i in range(n):
            if scratch[i] > 0:
                h += 1
                acc += h / (i + 1.0)
        den = _ap_den(opt, kk, nrel, <double> h)
        return acc / den if den > 0 else 0.0
    if code == MAR:
        # mean over the k cutoffs of recall@i; past the list's end recall stays at its last
        # value, so the tail is one product (cost O(list length), not O(k))
        if nrel <= 0 or kk <= 0:
            return 0.0
        y = 0.0
        for i in range(n):
            y += scratch[i]
            acc += y / nrel
        acc += (kk - n) * (y / nrel)
        return acc / kk
    if code == RBP:
        q = 1.0
        for i in range(n):
            acc += scratch[i] * q
            q = q * par
        return (1.0 - par) * acc
    return NAN


cdef double _metric_ext(int code, long long k, double thr, double par, double par2, int opt,
                        const double* rel, const signed char* judged, const long long* grp_end,
                        long long n_avail, long long list_len,
                        const double* trel, long long n_truth, double* scratch) noexcept nogil:
    """The request codes from FIRST_EXT on, for one user (same arguments as _metric; ``par2``
    is the second numeric parameter: the gain scale of the C/W/L models).

    ``judged[i]``: 1 = the item is in the user's truth, 0 = it is not, 2 = in the pool but
    unjudged (trec_eval qrels lines with a negative relevance; only ``receval trec`` sets it).
    """
    cdef long long n, i, j, nrel = 0, kk, c, h, m, depth
    cdef double acc = 0.0, den, x, y, best, p_, g, r_prev, n_prev, u_prev
    cdef CwlState st
    cdef int avg = grp_end != NULL
    for i in range(n_truth):
        if trel[i] >= thr:
            nrel += 1
    kk = k if k > 0 else list_len
    n = n_avail if n_avail < kk else kk

    if code == JUDGED:
        # share of the top min(k, L) that is judged (ir_measures Judged@k)
        if avg:
            i = 0
            while i < n:
                m = grp_end[i]
                x = 0.0
                for j in range(i, m):
                    x += 1.0 if judged[j] == 1 else 0.0
                x = x / (m - i)
                for j in range(i, m if m < n else n):
                    acc += x
                i = m
        else:
            for i in range(n):
                if judged[i] == 1:
                    acc += 1.0
        den = <double> (list_len if list_len < kk else kk)
        return acc / den if den > 0 else 0.0

    if code == INFAP:
        # trec_eval 9.0.8 m_infAP.c (Yilmaz & Aslam 2006): items outside the pool are skipped
        r_prev = 0.0
        n_prev = 0.0
        u_prev = 0.0
        for i in range(n):
            if judged[i] == 2:
                u_prev += 1.0
                continue
            if judged[i] == 0:
                continue
            if rel[i] >= thr:
                if i == 0:
                    acc += 1.0
                else:
                    x = <double> i
                    acc += 1.0 / (x + 1.0) + (x / (x + 1.0)) * (
                        (r_prev + n_prev + u_prev) / x) * (
                        (r_prev + 1e-5) / (r_prev + n_prev + 2 * 1e-5))
                r_prev += 1.0
            else:
                n_prev += 1.0
        return acc / nrel if nrel > 0 else 0.0

    if code == IPREC or code == IPREC_AVG:
        # interpolated precision (trec_eval iprec_at_recall / 11pt_avg): the largest precision
        # at or below the rank of the c-th relevant item, c = (long) (p R + 0.9); 0 when fewer
        # than c relevant items are retrieved
        h = 0
        for i in range(n):
            if rel[i] >= thr:
                h += 1
            scratch[i] = h / (i + 1.0)
        best = 0.0
        i = n - 1
        while i >= 0:
            if scratch[i] > best:
                best = scratch[i]
            scratch[i] = best
            i -= 1
        for j in range(11 if code == IPREC_AVG else 1):
            p_ = par if code == IPREC else j / 10.0
            c = <long long> (p_ * nrel + 0.9)
            if c > h or h == 0:
                continue
            if c < 1:
                c = 1
            m = 0
            for i in range(n):
                if rel[i] >= thr:
                    m += 1
                    if m == c:
                        acc += scratch[i]
                        break
        return acc / 11.0 if code == IPREC_AVG else acc

    if code == SET_MAP:
        # trec_eval set_map: set precision times set recall, h^2 / (k R)
        for i in range(n):
            if rel[i] >= thr:
                acc += 1.0
        den = <double> kk * <double> nrel
        return acc * acc / den if den > 0 else 0.0

    if code == NCRR:
        # Cornac NCRR: sum of 1/rank over the hits in the top k, over the same sum for the
        # best list of min(R, k, L) hits
        if avg:
            _avg_gain(rel, grp_end, n_avail, thr, 0, 0, scratch)
        else:
            for i in range(n):
                scratch[i] = 1.0 if rel[i] >= thr else 0.0
        for i in range(n):
            acc += scratch[i] / (i + 1.0)
        m = list_len if list_len < kk else kk
        m = m if m < nrel else nrel
        den = 0.0
        for i in range(m):
            den += 1.0 / (i + 1.0)
        return acc / den if den > 0 else 0.0

    if code == PAUC or code == PAP:
        # RecTools PAUC@k / PAP@k over the whole list: each relevant item with fp (< k)
        # non-relevant items above it gains k - fp; PAP keeps the first k relevant items only
        m = 0   # non-relevant items above
        h = 0   # relevant items seen
        kk = k if k > 0 else list_len
        for i in range(n_avail):
            if rel[i] >= thr:
                h += 1
                if code == PAP and h > kk:
                    break
                if m < kk:
                    acc += <double> (kk - m)
            else:
                m += 1
                if m >= kk:
                    break
        if opt == V_SECOND:
            # insufficient_handling="exclude": fewer than k non-relevant items in the whole
            # list while a relevant item is missing from it leaves no value (NaN)
            h = 0
            for i in range(n_avail):
                if rel[i] >= thr:
                    h += 1
            if list_len - h < kk and h < nrel:
                return NAN
        c = nrel if code == PAUC or nrel < kk else kk
        den = <double> c * <double> kk
        return acc / den if den > 0 else 0.0

    if code == MCC:
        # RecTools MCC@k: TP = h_k, FP = k - TP, FN = R - TP, TN = n_items - k - FN
        for i in range(n):
            if rel[i] >= thr:
                acc += 1.0
        x = <double> kk - acc                      # FP
        y = <double> nrel - acc                    # FN
        g = par - <double> kk - y                  # TN
        den = sqrt((acc + x) * (acc + y) * (g + x) * (g + y))
        return (acc * g - x * y) / den if den > 0 else 0.0

    if code == PERC_RANK or code == PERC_NUM:
        # RecPack PercentileRanking (Hu, Koren, Volinsky 2008), in percent: a relevant item at
        # rank r scores (r - 1) / N; one not in the list ((L - 1) / N + 1) / 2
        if avg:
            _avg_gain(rel, grp_end, n_avail, thr, 0, 0, scratch)
        else:
            for i in range(n):
                scratch[i] = 1.0 if rel[i] >= thr else 0.0
        x = 0.0
        for i in range(n):
            acc += scratch[i] * (<double> i / par)
            x += scratch[i]
        m = list_len if list_len < kk else kk
        y = (<double> (m - 1 if m > 0 else 0) / par + 1.0) / 2.0
        acc = 100.0 * (acc + (nrel - x) * y)
        if code == PERC_NUM:
            return acc
        return acc / nrel if nrel > 0 else 0.0

    # C/W/L: continuation C(i) -> reach P(i) = prod_{j<i} C(j) -> weight W(i) = P(i) / sum P
    # (etu: sum L(i) * (gain of ranks 1..i+1), L(i) = P(i) (1 - C(i)); etc: sum L(i) * (i + 1)
    # with unit costs; ed: sum P = 1 / W(1)). Past the list the gain is 0: a tail longer than
    # TAIL_LOOP ranks is summed in closed form.
    if code < CWL_RBP or code > CWL_NERR11:
        return NAN
    st.p = 1.0
    st.s = 0.0
    st.acc = 0.0
    st.etu = 0.0
    st.etc = 0.0
    st.cg = 0.0
    depth = k if k > 0 else CWL_DEPTH
    n = n_avail if n_avail < depth else depth
    i = _cwl_loop(code, 0, depth if depth - n <= TAIL_LOOP else n, n, depth, par, par2,
                  rel, &st)
    if i < depth and st.p != 0.0 and code == CWL_INST:
        # gains above 1 can make q(x) = x + 2T - cg - 1 <= 0 past the list: loop on until
        # q(i + 1) = i + 2T - cg > 0 (the closed form needs q > 0)
        x = st.cg - 2.0 * par
        if x >= i:
            c = depth if x >= depth - 1 else <long long> x + 1
            i = _cwl_loop(code, i, depth if depth - c <= TAIL_LOOP else c, n, depth, par,
                          par2, rel, &st)
    if i < depth and st.p != 0.0:
        _cwl_tail(code, i + 1.0, <double> depth, par, &st)
    if opt == 0:
        return st.acc / st.s if st.s > 0 else 0.0
    if opt == 1:
        return st.etu
    if opt == 2:
        return st.etc
    return st.s

cdef void _avg_gain(const double* rel, const long long* grp_end, long long n_avail,
                    double thr, int graded, int exp_gain, double* out) noexcept nogil:
    """Mean (binary or graded) gain of each position's tie group, written to out[0:n_avail]."""
    cdef long long i = 0, j, e
    cdef double acc
    while i < n_avail:
        e = grp_end[i]
        acc = 0.0
        for j in range(i, e):
            if graded:
                acc += _gain(rel[j], exp_gain)
            else:
                acc += 1.0 if rel[j] >= thr else 0.0
        acc = acc / (e - i)
        for j in range(i, e):
            out[j] = acc
        i = e


# ---------------------------------------------------------------------------------------------
# Per-slot ranks (``ranks="position"`` with shared ranks): slot i of a list holds one row at
# rank rank[i] (ascending; several slots may share a rank, and every rank from 1 to the last
# has a slot, a placeholder where no row has it). The top k is the slots with rank <= k.
# ---------------------------------------------------------------------------------------------

#: the requests that need a strict order of the rows (which of two rows at one rank comes
#: first), refused with per-slot ranks: bpref, infAP and interpolated precision count the rows
#: above, RecTools' PartialAUC / PAP order shared rows arbitrarily, percentile ranking and the
#: C/W/L user models step from one position to the next
SHARED_RANK_REFUSED = frozenset(int(c) for c in (BPREF, INFAP, IPREC, IPREC_AVG, PAUC, PAP, PERC_RANK, PERC_NUM,
                       CWL_RBP, CWL_INST, CWL_INSQ, CWL_SDCG, CWL_BPM, CWL_NERR8, CWL_NERR9,
                       CWL_NERR10, CWL_NERR11))


cdef double _metric_ranked(int code, long long k, double thr, double par, int opt, int gain,
                           int ideal, int disc, const double* rel, const signed char* judged,
                           const long long* rank, long long n_avail, long long list_len,
                           const double* trel, long long n_truth,
                           double* scratch) noexcept nogil:
    """One metric for one user whose slot i sits at rank ``rank[i]`` (ascending).

    With kk = k (the list length L without a cutoff) the top kk is the n slots with rank <= kk,
    and with h the hits among them, hit i at rank r_i:
    hits h; precision h / kk (``list``: h / n); recall h / R; F = (1 + b^2) h / (b^2 R + kk);
    hit rate [h > 0] (``recommended``: h / n); RR 1 / min r_i; AP the sum over the ranks r
    holding a hit of (hits at ranks <= r) / r (RecTools MAP); MAR sum_i (kk - r_i + 1) /
    (R kk); CG sum g_i, DCG sum g_i / disc(r_i) (nDCG over the ideal of ``_metric``); ERR
    sum_i P_i x_i / r_i; RBP (1 - p) sum_i p^(r_i - 1); R-precision the hits at rank <= min(R, k);
    num_ret n; Judged the judged share of the n slots; set_map h^2 / (kk R); NCRR sum 1 / r_i
    over the same sum for min(R, n) hits at ranks 1, 2, ...; MCC from TP = h, FP = kk - h.
    Without shared ranks (rank[i] = i + 1) each equals ``_metric`` / ``_metric_ext``. The
    codes of :data:`SHARED_RANK_REFUSED` give NaN (the caller refuses them first).
    """
    cdef long long n = 0, i, nrel = 0, kk, h = 0, m
    cdef double acc = 0.0, den, x, y, p_, g
    for i in range(n_truth):
        if trel[i] >= thr:
            nrel += 1
    if code == NREL:
        return <double> nrel
    if code == IDCG:
        return _metric(code, k, thr, par, opt, gain, ideal, disc, rel, judged, NULL, n_avail,
                       list_len, trel, n_truth, scratch)
    kk = k if k > 0 else list_len
    if code == RPREC:
        kk = nrel if (k <= 0 or nrel < k) else k
    while n < n_avail and rank[n] <= kk:
        n += 1
    if code == NRET:
        return <double> n
    if code == CG or code == DCG or code == NDCG:
        for i in range(n):
            x = _gain(rel[i], gain)
            acc += x if code == CG else x / _disc(rank[i] - 1, disc)
        if code != NDCG:
            return acc
        den = _metric(IDCG, k, thr, par, opt, gain, ideal, disc, rel, judged, NULL, n_avail,
                      list_len, trel, n_truth, scratch)
        return acc / den if den > 0 else 0.0
    if code == ERR:
        p_ = 1.0
        y = pow(2.0, par)
        for i in range(n):
            x = _gain(rel[i], 1) / y
            acc += p_ * x / <double> rank[i]
            p_ = p_ * (1.0 - x)
        return acc
    if code == JUDGED:
        for i in range(n):
            if judged[i] == 1:
                acc += 1.0
        return acc / n if n > 0 else 0.0
    for i in range(n):
        if rel[i] >= thr:
            h += 1
    x = <double> h
    if code <= HIT_RATE or code == RPREC:
        return _from_hits(code, kk, par, opt, n, nrel, x)
    if code == RR or code == FIRST_HIT:
        for i in range(n):
            if rel[i] >= thr:
                return 1.0 / <double> rank[i] if code == RR else <double> rank[i]
        return 0.0 if code == RR else NAN
    if code == AP:
        h = 0
        m = 0  # a hit at the current rank
        for i in range(n):
            if rel[i] >= thr:
                h += 1
                m = 1
            if i + 1 == n or rank[i + 1] != rank[i]:  # the rank's last slot
                if m:
                    acc += h / <double> rank[i]
                m = 0
        den = _ap_den(opt, kk, nrel, <double> h)
        return acc / den if den > 0 else 0.0
    if code == MAR:
        if nrel <= 0 or kk <= 0:
            return 0.0
        for i in range(n):
            if rel[i] >= thr:
                acc += <double> (kk - rank[i] + 1)
        return acc / nrel / kk
    if code == RBP:
        for i in range(n):
            if rel[i] >= thr:
                acc += pow(par, <double> (rank[i] - 1))
        return (1.0 - par) * acc
    if code == SET_MAP:
        den = <double> kk * <double> nrel
        return x * x / den if den > 0 else 0.0
    if code == NCRR:
        for i in range(n):
            if rel[i] >= thr:
                acc += 1.0 / <double> rank[i]
        m = n if n < nrel else nrel
        den = 0.0
        for i in range(m):
            den += 1.0 / (i + 1.0)
        return acc / den if den > 0 else 0.0
    if code == MCC:
        y = <double> kk - x                        # FP
        p_ = <double> nrel - x                     # FN
        g = par - <double> kk - p_                 # TN
        den = sqrt((x + y) * (x + p_) * (g + y) * (g + p_))
        return (x * g - y * p_) / den if den > 0 else 0.0
    return NAN


cdef void user_metrics_ranked(const MetricPlan* P, MetricBuffers* B, const double* r,
                              const signed char* judged, const long long* rank,
                              long long n_avail, long long list_len, const double* tr,
                              long long n_truth, double* out) noexcept nogil:
    """Every request of ``P`` for one user whose slots carry their ranks (``_metric_ranked``;
    no prefix sums are shared: each request walks the list)."""
    cdef long long q
    for q in range(P.n_req):
        out[q] = _metric_ranked(P.codes[q], P.ks[q], P.thrs[q], P.pars[q], P.opts[q],
                                P.gains[q], P.ideals[q], P.discounts[q], r, judged, rank,
                                n_avail, list_len, tr, n_truth, B.scratch)


# Requests answered from shared per-user prefix sums (see ``_fused_plan``): one walk of the list
# per relevance threshold and one per (gain, discount) pair serves every cutoff of them.
DEF F_SLOW = 0
DEF F_BINARY = 1
DEF F_DCG = 2


def _fused_plan(const int[::1] codes, const double[::1] thrs, const int[::1] gains,
                const int[::1] ideals, const int[::1] discounts, int avg):
    """Which requests read shared prefix sums, and the slot (threshold or gain/discount) of each.

    A prefix sum accumulates the same terms in the same order as the request's own walk, so
    its value at a cutoff is bit-identical to the walk stopped there.
    """
    cdef Py_ssize_t q, n_req = codes.shape[0]
    kind = np.zeros(n_req, dtype=np.intc)
    slot = np.full(n_req, -1, dtype=np.intc)
    thr_slots: dict = {}
    dcg_slots: dict = {}
    if avg:
        return kind, slot, np.zeros(0), np.zeros(0, dtype=np.intc), np.zeros(0, dtype=np.intc)
    for q in range(n_req):
        c = codes[q]
        if c in (HITS, PRECISION, RECALL, FBETA, HIT_RATE, RR, FIRST_HIT, AP, RPREC):
            kind[q] = F_BINARY
            slot[q] = thr_slots.setdefault(float(thrs[q]), len(thr_slots))
        elif c == DCG or (c == NDCG and ideals[q] == I_TRUTH):
            kind[q] = F_DCG
            slot[q] = dcg_slots.setdefault((int(gains[q]), int(discounts[q])), len(dcg_slots))
    pairs = list(dcg_slots)
    return (kind, slot, np.array(list(thr_slots), dtype=np.float64),
            np.array([g for g, _ in pairs], dtype=np.intc),
            np.array([d for _, d in pairs], dtype=np.intc))


cdef double _binary_from_prefix(int code, long long k, double par, int opt, long long n_avail,
                                long long list_len, long long nrel, const long long* hpos,
                                const double* ap, long long nhit, long long first) noexcept nogil:
    """A binary-relevance request from the threshold's hits (``hpos``: the positions of its
    ``nhit`` hits; ``ap``: the AP sum up to each).

    Mirrors the tail of ``_metric`` (same denominators, same arithmetic).
    """
    cdef long long kk = k if k > 0 else list_len
    cdef long long n, c = 0
    cdef double x, den
    if code == RPREC:
        kk = nrel if (k <= 0 or nrel < k) else k
    n = n_avail if n_avail < kk else kk
    while c < nhit and hpos[c] < n:  # the hits within the first n positions
        c = c + 1
    x = <double> c
    if code <= HIT_RATE or code == RPREC:
        return _from_hits(code, kk, par, opt, list_len if list_len < kk else kk, nrel, x)
    if code == RR or code == FIRST_HIT:
        if 0 <= first < n:
            return 1.0 / (first + 1.0) if code == RR else first + 1.0
        return 0.0 if code == RR else NAN
    den = _ap_den(opt, kk, nrel, x)  # AP
    return (ap[c - 1] if c > 0 else 0.0) / den if den > 0 else 0.0


cdef class MetricSetup:
    """The requests of one evaluation, ready for :c:func:`user_metrics`: the request arrays,
    which of them share prefix sums (``_fused_plan``), and the discount table for lists of up
    to ``maxlen`` positions and truth lists of up to ``maxtruth`` items (both upper bounds
    are enough: they size buffers, and the ideal depth they give reads no truth item beyond
    a user's own)."""

    def __init__(self, const int[::1] codes, const long long[::1] ks, const double[::1] thrs,
                 const double[::1] pars, const int[::1] opts, const int[::1] gains,
                 const int[::1] ideals, const int[::1] discounts, const double[::1] pars2,
                 long long maxlen, long long maxtruth, int avg=0, int fused=1):
        cdef Py_ssize_t n_req = codes.shape[0], q, t, i
        cdef long long m
        if maxlen < 1:
            maxlen = 1
        if maxtruth < 1:
            maxtruth = 1
        if maxtruth > maxlen:
            maxlen = maxtruth  # the discount table also serves the ideal lists
        kind_a, slot_a, thr_a, dgain_a, ddisc_a = _fused_plan(codes, thrs, gains, ideals,
                                                               discounts, avg or not fused)
        cdef const int[::1] fkind = kind_a
        # the DCG requests' ideal depth: the largest cutoff (every truth item when one has none)
        cdef long long ideal_depth = 0
        for q in range(n_req):
            if fkind[q] == F_DCG and codes[q] == NDCG:
                m = maxtruth if ks[q] <= 0 or ks[q] > maxtruth else ks[q]
                if m > ideal_depth:
                    ideal_depth = m
        cdef long long stride = maxlen + 1
        dtab_a = np.empty(len(DISCOUNTS) * stride, dtype=np.float64)
        cdef double[::1] dtab = dtab_a
        for t in range(len(DISCOUNTS)):
            for i in range(stride):
                dtab[t * stride + i] = _disc(i, <int> t)
        arrays = [np.array(codes, dtype=np.intc), np.array(ks, dtype=np.int64),
                  np.array(thrs, dtype=np.float64), np.array(pars, dtype=np.float64),
                  np.array(opts, dtype=np.intc), np.array(gains, dtype=np.intc),
                  np.array(ideals, dtype=np.intc), np.array(discounts, dtype=np.intc),
                  np.array(pars2, dtype=np.float64),
                  np.ascontiguousarray(kind_a, dtype=np.intc),
                  np.ascontiguousarray(slot_a, dtype=np.intc),
                  np.ascontiguousarray(thr_a, dtype=np.float64),
                  np.ascontiguousarray(dgain_a, dtype=np.intc),
                  np.ascontiguousarray(ddisc_a, dtype=np.intc), dtab_a]
        self.keep = arrays
        cdef MetricPlan* P = &self.plan
        P.n_req = n_req
        P.codes = <const int*> _data(arrays[0])
        P.ks = <const long long*> _data(arrays[1])
        P.thrs = <const double*> _data(arrays[2])
        P.pars = <const double*> _data(arrays[3])
        P.opts = <const int*> _data(arrays[4])
        P.gains = <const int*> _data(arrays[5])
        P.ideals = <const int*> _data(arrays[6])
        P.discounts = <const int*> _data(arrays[7])
        P.pars2 = <const double*> _data(arrays[8])
        P.fkind = <const int*> _data(arrays[9])
        P.fslot = <const int*> _data(arrays[10])
        P.n_t = len(arrays[11])
        P.tthr = <const double*> _data(arrays[11])
        P.n_d = len(arrays[12])
        P.dgain = <const int*> _data(arrays[12])
        P.ddisc = <const int*> _data(arrays[13])
        P.maxlen = maxlen
        P.stride = stride
        P.tstride = maxtruth + 1
        P.ideal_depth = ideal_depth
        P.dtab = <const double*> _data(arrays[14])

    @property
    def n_requests(self):
        return self.plan.n_req

    @property
    def reads_lists(self):
        """Whether a request reads the lists (every one but the truth's relevant count)."""
        cdef Py_ssize_t q
        for q in range(self.plan.n_req):
            if self.plan.codes[q] != NREL:
                return True
        return False


cdef const void* _data(object a):
    cdef cnp.ndarray arr = a
    return <const void*> cnp.PyArray_DATA(arr)


cdef inline long long _count(long long a, long long b) noexcept nogil:
    """``a * b + 1`` entries, or -1 (refused by the allocation) when that overflows."""
    return a * b + 1 if b == 0 or a <= (LLONG_MAX - 1) // b else -1


cdef object _buffer_bytes(const MetricPlan* P):
    """The bytes of one thread's :c:func:`metric_buffers` for ``P`` (for a message)."""
    return 8 * (2 * P.maxlen + 2 * (P.n_t * P.stride + 1) + 3 * (P.n_t + 1) +
                P.n_d * P.stride + P.n_d * P.tstride + 2 + P.n_t + P.n_d + 1)


cdef bint metric_buffers(const MetricPlan* P, MetricBuffers* B) noexcept nogil:
    """One thread's working memory for ``P`` (False when out of memory; free it with
    :c:func:`free_metric_buffers` either way)."""
    B.scratch = <double*> receval_alloc(P.maxlen, sizeof(double), 0)
    B.gbuf = <long long*> receval_alloc(P.maxlen, sizeof(long long), 0)
    B.hpos = <long long*> receval_alloc(_count(P.n_t, P.stride), sizeof(long long), 0)
    B.ap = <double*> receval_alloc(_count(P.n_t, P.stride), sizeof(double), 0)
    B.nhit_t = <long long*> receval_alloc(P.n_t + 1, sizeof(long long), 0)
    B.dp = <double*> receval_alloc(_count(P.n_d, P.stride), sizeof(double), 0)
    B.ip = <double*> receval_alloc(_count(P.n_d, P.tstride), sizeof(double), 0)
    B.nrel_t = <long long*> receval_alloc(P.n_t + 1, sizeof(long long), 0)
    B.first_t = <long long*> receval_alloc(P.n_t + 1, sizeof(long long), 0)
    B.depth_t = <long long*> receval_alloc(P.n_t + P.n_d + 1, sizeof(long long), 0)
    return (B.scratch != NULL and B.gbuf != NULL and B.hpos != NULL and B.ap != NULL and
            B.nhit_t != NULL and
            B.dp != NULL and B.ip != NULL and B.nrel_t != NULL and B.first_t != NULL and
            B.depth_t != NULL)


cdef void free_metric_buffers(MetricBuffers* B) noexcept nogil:
    free(B.scratch)
    free(B.gbuf)
    free(B.hpos)
    free(B.ap)
    free(B.nhit_t)
    free(B.dp)
    free(B.ip)
    free(B.nrel_t)
    free(B.first_t)
    free(B.depth_t)


cdef void user_metrics(const MetricPlan* P, MetricBuffers* B, const double* r,
                       const signed char* judged, const long long* gbuf, long long n_avail,
                       long long list_len, const double* tr, long long n_truth,
                       const long long* jpos, long long n_jpos, double* out) noexcept nogil:
    """Every request of ``P`` for one user, into ``out[0 .. n_req - 1]``.

    ``r`` / ``judged``: the relevance and judged flag of the user's ``n_avail`` positions (the
    list cut at the plan's depth; ``list_len`` its full length); ``gbuf``: the user-relative
    end of each position's tie group (ties averaged), else NULL; ``tr``: the user's ``n_truth``
    truth relevances, descending. ``jpos`` (else NULL): the ``n_jpos`` positions, ascending, of
    the items in the truth, every other position having relevance 0 (as the join knows them);
    a threshold above 0 then finds its hits among those positions alone.

    The list is walked once per relevance threshold (the positions of its hits, then the AP
    sum up to each hit) and once per (gain, discount) pair (DCG prefix sums; the ideal from
    the truth likewise); the cutoff-based requests read them (the hits within a cutoff are
    counted off the positions), so more cutoffs cost almost nothing. Other requests walk the
    list themselves.
    """
    cdef long long stride = P.stride, tstride = P.tstride, n_t = P.n_t, n_d = P.n_d
    cdef long long q, t, i, h, m, nr, k
    cdef double acc, x, den
    cdef long long* hpos = B.hpos
    cdef double* ap = B.ap
    cdef long long* nhit_t = B.nhit_t
    cdef long long* pos
    cdef double thr
    cdef double* dp = B.dp
    cdef double* ip = B.ip
    cdef long long* nrel_t = B.nrel_t
    cdef long long* first_t = B.first_t
    cdef long long* depth_t = B.depth_t
    cdef const int* fkind = P.fkind
    cdef const int* fslot = P.fslot
    cdef const int* codes = P.codes
    cdef const long long* ks = P.ks
    cdef const double* dtab = P.dtab
    for t in range(n_t + n_d):
        depth_t[t] = 0
    for t in range(n_t):
        nr = 0
        for i in range(n_truth):
            if tr[i] >= P.tthr[t]:
                nr = nr + 1
        nrel_t[t] = nr
    for q in range(P.n_req):
        if fkind[q] == F_SLOW:
            continue
        m = ks[q] if ks[q] > 0 else list_len
        if codes[q] == RPREC:
            nr = nrel_t[fslot[q]]
            m = nr if (ks[q] <= 0 or nr < ks[q]) else ks[q]
        t = fslot[q] if fkind[q] == F_BINARY else n_t + fslot[q]
        m = n_avail if n_avail < m else m
        if m > depth_t[t]:
            depth_t[t] = m
    for t in range(n_t):
        # the hits' positions, without a branch on the relevances (hits fall at random)
        pos = &hpos[t * stride]
        thr = P.tthr[t]
        h = 0
        if jpos != NULL and thr > 0:  # only the truth's items can reach the threshold
            for k in range(n_jpos):
                i = jpos[k]
                if i >= depth_t[t]:
                    break
                pos[h] = i
                h = h + (r[i] >= thr)
        else:
            for i in range(depth_t[t]):
                pos[h] = i
                h = h + (r[i] >= thr)
        acc = 0.0
        for i in range(h):  # the AP sum up to each hit: hit i + 1 at position pos[i]
            acc = acc + (i + 1) / (pos[i] + 1.0)
            ap[t * stride + i] = acc
        nhit_t[t] = h
        first_t[t] = pos[0] if h > 0 else -1
    for t in range(n_d):
        acc = 0.0
        dp[t * stride] = 0.0
        for i in range(depth_t[n_t + t]):
            acc = acc + _gain(r[i], P.dgain[t]) / dtab[P.ddisc[t] * stride + i]
            dp[t * stride + i + 1] = acc
        acc = 0.0
        ip[t * tstride] = 0.0
        for i in range(n_truth if n_truth < P.ideal_depth else P.ideal_depth):
            acc = acc + _gain(tr[i], P.dgain[t]) / dtab[P.ddisc[t] * stride + i]
            ip[t * tstride + i + 1] = acc
    for q in range(P.n_req):
        if fkind[q] == F_BINARY:
            t = fslot[q]
            out[q] = _binary_from_prefix(
                codes[q], ks[q], P.pars[q], P.opts[q], n_avail, list_len, nrel_t[t],
                &hpos[t * stride], &ap[t * stride], nhit_t[t], first_t[t])
            continue
        if fkind[q] == F_DCG:
            t = fslot[q]
            m = ks[q] if ks[q] > 0 else list_len
            x = dp[t * stride + (n_avail if n_avail < m else m)]
            if codes[q] == DCG:
                out[q] = x
                continue
            m = ks[q] if ks[q] > 0 else n_truth
            den = ip[t * tstride + (n_truth if n_truth < m else m)]
            out[q] = x / den if den > 0 else 0.0
            continue
        if codes[q] >= FIRST_EXT:
            out[q] = _metric_ext(
                codes[q], ks[q], P.thrs[q], P.pars[q], P.pars2[q], P.opts[q],
                r, judged, gbuf, n_avail, list_len, tr, n_truth, B.scratch)
            continue
        out[q] = _metric(codes[q], ks[q], P.thrs[q], P.pars[q], P.opts[q], P.gains[q],
                         P.ideals[q], P.discounts[q], r, judged, gbuf, n_avail, list_len, tr,
                         n_truth, B.scratch)


def compute_metrics(const long long[::1] indptr, const double[::1] rel,
                    const signed char[::1] judged, const long long[::1] grp_end,
                    const long long[::1] list_len, const long long[::1] t_indptr,
                    const double[::1] t_rel_desc, const int[::1] codes,
                    const long long[::1] ks, const double[::1] thrs, const double[::1] pars,
                    const int[::1] opts, const int[::1] gains, const int[::1] ideals,
                    const int[::1] discounts, const double[::1] pars2, int fused=1,
                    slot_rank=None):
    """Every requested metric for every user in one parallel pass (:c:func:`user_metrics` per
    user).

    ``pars2``: the requests' second numeric parameter (the C/W/L gain scale), else 0.

    ``grp_end`` is empty unless ties are averaged; otherwise ``grp_end[p]`` is the absolute
    end of the tie group that holds position p. Returns a (users x requests) float64 array.
    ``fused=0`` makes every request walk the list itself (the same bits, slower).

    ``slot_rank`` (int64, aligned with ``rel``; None or empty: position i of a list is rank
    i + 1) gives each slot its rank, ascending within a list, as :func:`receval.pack.positions.
    fill_positions` lays out shared absolute ranks: every request then reads the ranks
    (:c:func:`_metric_ranked`), tie groups are not averaged (each slot is its own group), and
    a request of :data:`SHARED_RANK_REFUSED` raises ValueError.
    """
    cdef Py_ssize_t n_users = indptr.shape[0] - 1, n_req = codes.shape[0]
    cdef cnp.ndarray[cnp.float64_t, ndim=2] out_arr = np.empty((n_users, n_req), dtype=np.float64)
    cdef double[:, ::1] out = out_arr
    cdef long long maxlen = 1, maxtruth = 1, u, s, e, j, n_avail, n_truth
    cdef int avg = grp_end.shape[0] > 0
    cdef const long long[::1] rk
    cdef int ranked = slot_rank is not None and len(slot_rank) > 0
    if ranked:
        rk = slot_rank
        if rk.shape[0] != rel.shape[0]:
            raise ValueError(f"slot_rank has {rk.shape[0]} entries for {rel.shape[0]} slots")
        bad = sorted({int(c) for c in codes} & set(SHARED_RANK_REFUSED))
        if bad:
            raise ValueError("per-slot ranks cannot be read by the requests "
                             f"{[Request(c).name for c in bad]} (they need a strict order)")
        avg = 0
        fused = 0
    for u in range(n_users):
        if indptr[u + 1] - indptr[u] > maxlen:
            maxlen = indptr[u + 1] - indptr[u]
        if t_indptr[u + 1] - t_indptr[u] > maxtruth:
            maxtruth = t_indptr[u + 1] - t_indptr[u]
    cdef MetricSetup setup = MetricSetup(codes, ks, thrs, pars, opts, gains, ideals, discounts,
                                         pars2, maxlen, maxtruth, avg, fused)
    cdef const MetricPlan* P = &setup.plan
    cdef MetricBuffers* B  # a pointer assigned in the parallel block: each thread has its own
    cdef int nt = _threads_over(indptr[n_users] * n_req + n_users, n_users)
    cdef int failed = 0
    cdef int* fail = &failed  # written through the pointer: shared by the threads
    cdef bint ok
    with nogil, parallel(num_threads=nt):
        B = <MetricBuffers*> receval_alloc(1, sizeof(MetricBuffers), 1)
        ok = B != NULL and metric_buffers(P, B)
        if not ok:
            fail[0] = 1
        for u in prange(n_users, schedule="guided"):
            if not ok or fail[0]:  # out of memory (here or in another thread): no more work
                continue
            s = indptr[u]
            e = indptr[u + 1]
            n_avail = e - s
            n_truth = t_indptr[u + 1] - t_indptr[u]
            if ranked:
                user_metrics_ranked(P, B, &rel[s] if e > s else NULL,
                                    &judged[s] if e > s else NULL, &rk[s] if e > s else NULL,
                                    n_avail, list_len[u],
                                    &t_rel_desc[t_indptr[u]] if n_truth > 0 else NULL,
                                    n_truth, &out[u, 0] if n_req > 0 else NULL)
                continue
            if avg:
                for j in range(n_avail):
                    B.gbuf[j] = grp_end[s + j] - s
            user_metrics(P, B, &rel[s] if e > s else NULL, &judged[s] if e > s else NULL,
                         B.gbuf if avg else NULL, n_avail, list_len[u],
                         &t_rel_desc[t_indptr[u]] if n_truth > 0 else NULL, n_truth,
                         NULL, 0, &out[u, 0] if n_req > 0 else NULL)
        if B != NULL:
            free_metric_buffers(B)
            free(B)
    if failed:
        raise _no_memory(f"measuring lists of up to {maxlen:,} positions", _buffer_bytes(P), nt)
    return out_arr


def kernel_columns(const double[:, ::1] out, const long long[::1] cols,
                   const long long[::1] nrel_cols, const signed char[::1] undefined,
                   const signed char[::1] count, int zero, int skip, int skipped_code,
                   int no_value_code, double[:, :] values, signed char[:, :] status):
    """The kernel's output columns ``cols`` into ``values`` (users x len(cols), any strides:
    e.g. a range of columns of a wider table) under the empty-truth policy, and each user's
    status per column into ``status`` (likewise), in one pass.

    User ``u`` has no relevant item for column ``k`` when ``out[u, nrel_cols[k]] <= 0``; its
    value is then NaN, except under ``zero`` (empty_truth="zero"): 0 for a metric defined
    without a hit (``undefined[k] == 0``) that is not a count (``count[k] == 0``), NaN for one
    undefined without a hit, the count itself for a count. Its status is ``skipped_code``
    under ``skip`` (empty_truth="skip"), else 0; a NaN value of a column undefined without a
    hit that is still 0 becomes ``no_value_code``, and so does the NaN of a user with a
    relevant item (a value the metric leaves undefined, e.g. ``pauc(insufficient=exclude)``).
    Returns, per column, the users without a relevant item.
    """
    cdef Py_ssize_t n = out.shape[0], m = cols.shape[0], u, k
    if values.shape[0] != n or values.shape[1] != m or status.shape[0] != n or \
            status.shape[1] != m or nrel_cols.shape[0] != m or undefined.shape[0] != m or \
            count.shape[0] != m:
        raise ValueError("kernel_columns: inconsistent shapes")
    for k in range(m):
        if not (0 <= cols[k] < out.shape[1] and 0 <= nrel_cols[k] < out.shape[1]):
            raise ValueError("kernel_columns: a column outside the kernel's output")
    no_rel_arr = np.zeros(m, dtype=np.int64)
    cdef long long[::1] no_rel = no_rel_arr
    cdef double v
    cdef signed char st
    cdef bint none
    with nogil:
        for u in range(n):
            for k in range(m):
                v = out[u, cols[k]]
                st = 0
                none = out[u, nrel_cols[k]] <= 0
                if none:
                    no_rel[k] += 1
                    if zero:
                        if undefined[k]:
                            v = NAN
                        elif not count[k]:
                            v = 0.0
                    else:
                        v = NAN
                        if skip:
                            st = <signed char> skipped_code
                if st == 0 and isnan(v) and (undefined[k] or not none):
                    st = <signed char> no_value_code
                values[u, k] = v
                status[u, k] = st
    return no_rel_arr
