/* Part of _kernels.c, which includes it (one translation unit: these functions stay static;
 * setup.py compiles _kernels.c only): the stable order of float32 keys. */

/* --- sorting: a stable order of float32 keys by their order-preserving bits ----------- */

static inline uint32_t ordered_bits(float x) {
    uint32_t u;
    x = x + 0.0f; /* -0 + 0 = +0: equal keys get equal bits */
    memcpy(&u, &x, 4);
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

/* order[0..n) = the stable ascending order of keys: an LSD radix sort, 8 bits a pass, of
 * the keys' bits above their index (a pass where every key has the same byte is skipped).
 * tmp holds 2n uint64 of scratch. */
static void radix_order(const float *keys, Py_ssize_t n, int32_t *order, uint64_t *tmp) {
    uint64_t *a = tmp, *b = tmp + n;
    Py_ssize_t count[4][256];
    memset(count, 0, sizeof(count));
    for (Py_ssize_t i = 0; i < n; i++) {
        uint32_t u = ordered_bits(keys[i]);
        a[i] = ((uint64_t)u << 32) | (uint64_t)i;
        for (int p = 0; p < 4; p++) count[p][(u >> (8 * p)) & 255]++;
    }
    for (int p = 0; p < 4 && n > 0; p++) {
        int shift = 32 + 8 * p;
        if (count[p][(a[0] >> shift) & 255] == n) continue;
        Py_ssize_t at = 0;
        for (int c = 0; c < 256; c++) {
            Py_ssize_t k = count[p][c];
            count[p][c] = at;
            at += k;
        }
        for (Py_ssize_t i = 0; i < n; i++) b[count[p][(a[i] >> shift) & 255]++] = a[i];
        uint64_t *swap = a;
        a = b, b = swap;
    }
    for (Py_ssize_t i = 0; i < n; i++) order[i] = (int32_t)(a[i] & 0xFFFFFFFFu);
}

#define BUCKET_MAX 48 /* a bucket holding more keys than this: the radix sort instead */

/* The least and the largest key below +inf (+inf and −inf where there is none), four at a
 * time where SSE2 is there. */
static void key_range(const float *keys, Py_ssize_t n, float *least, float *largest) {
    float lo = INFINITY, hi = -INFINITY;
    Py_ssize_t i = 0;
#ifdef __SSE2__
    __m128 vlo = _mm_set1_ps(INFINITY), vhi = _mm_set1_ps(-INFINITY), inf = vlo;
    for (; i + 4 <= n; i += 4) { /* +inf never lowers lo, and counts as −inf for hi */
        __m128 k = _mm_loadu_ps(keys + i), below = _mm_cmpneq_ps(k, inf);
        vlo = _mm_min_ps(vlo, k);
        vhi = _mm_max_ps(vhi, _mm_or_ps(_mm_and_ps(below, k), _mm_andnot_ps(below, _mm_set1_ps(-INFINITY))));
    }
    float l4[4], h4[4];
    _mm_storeu_ps(l4, vlo), _mm_storeu_ps(h4, vhi);
    for (int q = 0; q < 4; q++) lo = l4[q] < lo ? l4[q] : lo, hi = h4[q] > hi ? h4[q] : hi;
#endif
    for (; i < n; i++)
        if (keys[i] != INFINITY) lo = keys[i] < lo ? keys[i] : lo, hi = keys[i] > hi ? keys[i] : hi;
    *least = lo, *largest = hi;
}

/* The counting pass of a bucket order: bucket[i] = key i's bucket, (key − least)·scale
 * (monotone in the key, so buckets are in key order) for keys below +inf, n for +inf; then
 * start[k] = where bucket k begins in the bucket order (n + 1 starts). Returns 0 where a
 * bucket below n would hold more than BUCKET_MAX keys (start and bucket are then garbage),
 * 1 otherwise. */
static int bucket_fill(const float *keys, Py_ssize_t n, float lo, double scale, int32_t *start, int32_t *bucket) {
    memset(start, 0, (n + 1) * sizeof(int32_t));
    for (Py_ssize_t i = 0; i < n; i++) {
        int32_t k = keys[i] == INFINITY ? (int32_t)n : (int32_t)(((double)keys[i] - (double)lo) * scale);
        k = k < 0 ? 0 : k > n ? (int32_t)n : k;
        bucket[i] = k;
        if (++start[k] > BUCKET_MAX && k < n) return 0;
    }
    int32_t at = 0;
    for (Py_ssize_t k = 0; k <= n; k++) {
        int32_t c = start[k];
        start[k] = at;
        at += c;
    }
    return 1;
}

/* The same order as radix_order, for keys spread over a range: a stable counting pass into n
 * buckets (bucket_fill), then an insertion sort by (key, index), which moves keys within
 * their bucket only; +inf keys last. tmp holds 2n uint64. */
static void stable_order(const float *keys, Py_ssize_t n, int32_t *order, uint64_t *tmp) {
    float lo, hi;
    key_range(keys, n, &lo, &hi);
    double scale = hi > lo ? (double)(n - 1) / ((double)hi - (double)lo) : 0.0;
    if (n < 64 || !isfinite(scale)) return radix_order(keys, n, order, tmp);
    int32_t *start = (int32_t *)tmp, *bucket = start + n + 1; /* n + 1 bucket starts, then n ids */
    if (!bucket_fill(keys, n, lo, scale, start, bucket)) return radix_order(keys, n, order, tmp);
    float *sorted = (float *)(bucket + n); /* the keys in the order being built */
    for (Py_ssize_t i = 0; i < n; i++) {
        int32_t at = start[bucket[i]]++;
        order[at] = (int32_t)i, sorted[at] = keys[i];
    }
    /* One insertion sort over the whole bucket order: a key never passes a key of an earlier
     * bucket (buckets are in key order), so each moves only within its bucket, and the keys
     * of a bucket are in index order, so equal keys keep it. */
    for (Py_ssize_t i = 1; i < n; i++) {
        float key = sorted[i];
        if (!(sorted[i - 1] > key)) continue;
        int32_t e = order[i];
        Py_ssize_t j = i;
        do {
            sorted[j] = sorted[j - 1], order[j] = order[j - 1];
            j--;
        } while (j > 0 && sorted[j - 1] > key);
        sorted[j] = key, order[j] = e;
    }
}

static PyObject *py_stable_order(PyObject *self, PyObject *args) {
    PyObject *ko, *oo;
    Py_ssize_t rows, n;
    if (!PyArg_ParseTuple(args, "OOnn", &ko, &oo, &rows, &n)) return NULL;
    Buffers b = {.used = 0};
    const float *keys = buffer(&b, ko, 4, 0);
    int32_t *order = keys ? buffer(&b, oo, 4, 1) : NULL;
    uint64_t *tmp = order ? malloc((2 * n + 1) * sizeof(uint64_t)) : NULL;
    if (order && !tmp) PyErr_NoMemory();
    if (tmp) {
        for (Py_ssize_t r = 0; r < rows; r++) stable_order(keys + r * n, n, order + r * n, tmp);
        free(tmp);
    }
    release(&b);
    if (!tmp) return NULL;
    Py_RETURN_NONE;
}
