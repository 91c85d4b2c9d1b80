# The metric kernel's per-user step, shared with the join (receval.kernels._join), which measures
# each user's list as soon as it is joined, while it is still in cache.

cdef struct MetricPlan:
    # the requests (one entry each) and how they share prefix sums
    long long n_req
    const int* codes
    const long long* ks
    const double* thrs
    const double* pars
    const int* opts
    const int* gains
    const int* ideals
    const int* discounts
    const double* pars2
    const int* fkind      # F_SLOW / F_BINARY / F_DCG
    const int* fslot      # the threshold or (gain, discount) slot of a fused request
    long long n_t         # relevance thresholds
    const double* tthr
    long long n_d         # (gain, discount) pairs
    const int* dgain
    const int* ddisc
    # lists (and truth lists) of up to maxlen (maxtruth) positions
    long long maxlen
    long long stride      # maxlen + 1
    long long tstride     # maxtruth + 1
    long long ideal_depth
    const double* dtab    # discount of each position, per discount


cdef struct MetricBuffers:
    # one thread's working memory for MetricPlan's lists
    double* scratch
    long long* gbuf
    long long* hpos       # per threshold: the positions of its hits
    double* ap            # per threshold: the AP sum up to each hit
    long long* nhit_t     # per threshold: its hits
    double* dp
    double* ip
    long long* nrel_t
    long long* first_t
    long long* depth_t


cdef class MetricSetup:
    cdef object keep
    cdef MetricPlan plan


cdef bint metric_buffers(const MetricPlan* P, MetricBuffers* B) noexcept nogil
cdef void free_metric_buffers(MetricBuffers* B) noexcept nogil
cdef void user_metrics(const MetricPlan* P, MetricBuffers* B, const double* r,
                       const signed char* judged, const long long* gbuf, long long n_avail,
                       long long list_len, const double* tr, long long n_truth,
                       const long long* jpos, long long n_jpos, double* out) noexcept nogil
