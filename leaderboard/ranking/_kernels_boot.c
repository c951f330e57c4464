/* Part of _kernels.c, which includes it (one translation unit: these functions stay static;
 * setup.py compiles _kernels.c only): the bootstraps, euroeval-2026's with its PCG64 draws and
 * euroeval-2024's moments and task means. */

/* --- euroeval-2026: the bootstrap, with numpy's PCG64 stream drawn here --------------- */

/* numpy's pairwise sum of n ≤ 128 doubles (its add.reduce along a contiguous axis). */
static double pairwise_small(const double *a, Py_ssize_t n) {
    double res = 0.0;
    if (n < 8) {
        for (Py_ssize_t i = 0; i < n; i++) res += a[i];
        return 0.0 + res;
    }
    double r[8];
    for (int k = 0; k < 8; k++) r[k] = a[k];
    Py_ssize_t i;
    for (i = 8; i < n - (n % 8); i += 8)
        for (int k = 0; k < 8; k++) r[k] += a[i + k];
    res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; i++) res += a[i];
    return 0.0 + res;
}

#ifdef __SIZEOF_INT128__
/* numpy's PCG64 (XSL-RR, 128-bit LCG) and its next_uint32, which hands out the two halves
 * of a 64-bit output (low first), and its bounded integers: Lemire's method as numpy's
 * buffered_bounded_lemire_uint32 has it (integers(0, high) of any integer dtype draws
 * this way while high − 1 fits 32 bits; high = 1 takes nothing from the stream). */
typedef struct {
    __uint128_t state, inc;
    int has_uint32;
    uint32_t uinteger;
} Pcg64;

static inline uint32_t pcg64_next32(Pcg64 *g) {
    if (g->has_uint32) {
        g->has_uint32 = 0;
        return g->uinteger;
    }
    const __uint128_t mult = ((__uint128_t)0x2360ED051FC65DA4ULL << 64) | 0x4385DF649FCCF645ULL;
    g->state = g->state * mult + g->inc;
    uint64_t x = (uint64_t)(g->state >> 64) ^ (uint64_t)g->state;
    unsigned rot = (unsigned)(g->state >> 122);
    uint64_t next = (x >> rot) | (x << ((-rot) & 63));
    g->has_uint32 = 1;
    g->uinteger = (uint32_t)(next >> 32);
    return (uint32_t)next;
}

static inline uint32_t pcg64_below(Pcg64 *g, uint32_t high) { /* integers(0, high), high ≥ 1 */
    if (high == 1) return 0;
    uint64_t m = (uint64_t)pcg64_next32(g) * high;
    uint32_t leftover = (uint32_t)m;
    if (leftover < high) {
        const uint32_t threshold = (UINT32_MAX - (high - 1)) % high;
        while (leftover < threshold) {
            m = (uint64_t)pcg64_next32(g) * high;
            leftover = (uint32_t)m;
        }
    }
    return (uint32_t)(m >> 32);
}

/* One replicate: per task (its datasets members[start[t]..start[t+1])), the datasets drawn
 * with replacement, then per drawn dataset r, per entry e, counts[r, e] iteration indices;
 * total[e] = Σ_tasks (Σ_r 1 + (best[r] − mean_e(r)) / sd[r]) / |task|, as numpy sums. */
static void replicate(Pcg64 *g, const double *x, const int32_t *counts, const int64_t *members, const int64_t *start,
                      Py_ssize_t ntasks, const double *best, const double *sd, double *total, double *terms,
                      double *sums, int64_t *drawn, Py_ssize_t ne, Py_ssize_t ni) {
    double vals[128];
    for (Py_ssize_t e = 0; e < ne; e++) total[e] = 0.0;
    for (Py_ssize_t t = 0; t < ntasks; t++) {
        const int64_t *m = members + start[t];
        Py_ssize_t size = start[t + 1] - start[t];
        for (Py_ssize_t r = 0; r < size; r++) drawn[r] = m[pcg64_below(g, (uint32_t)size)];
        for (Py_ssize_t r = 0; r < size; r++) {
            const double *xr = x + drawn[r] * ne * ni;
            const int32_t *cr = counts + drawn[r] * ne;
            double br = best[drawn[r]], sr = sd[drawn[r]];
            Pcg64 local = *g; /* in registers through the loop */
            for (Py_ssize_t e = 0; e < ne; e++) {
                uint32_t high = (uint32_t)cr[e];
                for (Py_ssize_t i = 0; i < ni; i++) vals[i] = xr[e * ni + pcg64_below(&local, high)];
                sums[e] = pairwise_small(vals, ni);
            }
            *g = local;
            for (Py_ssize_t e = 0; e < ne; e++) { /* apart from the draws: the divisions overlap */
                double term = 1.0 + (br - sums[e] / (double)ni) / sr;
                terms[e] = r ? terms[e] + term : term;
            }
        }
        for (Py_ssize_t e = 0; e < ne; e++) total[e] = total[e] + terms[e] / (double)size;
    }
}

/* bootstrap(x (D, P, I), counts (D, P) int32, members (M,) int64, start (T + 1,) int64,
 * best (D,), sd (D,), reps out (B, P), state (6,) uint64 in/out: PCG64's state and inc
 * (high, low words), has_uint32, uinteger): the replicates of euroeval_2026.bootstrap_scores,
 * reps[b] = total / T. */
static PyObject *py_bootstrap(PyObject *self, PyObject *args) {
    PyObject *o[8];
    Py_ssize_t nb, ne, ni, ntasks;
    if (!PyArg_ParseTuple(args, "OOOOOOOOnnnn", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &o[6], &o[7], &nb, &ne, &ni,
                          &ntasks))
        return NULL;
    if (ni > 128) return PyErr_Format(PyExc_ValueError, "at most 128 iterations");
    Buffers b = {.used = 0};
    const double *x = buffer(&b, o[0], 8, 0);
    const int32_t *counts = x ? buffer(&b, o[1], 4, 0) : NULL;
    const int64_t *members = counts ? buffer(&b, o[2], 8, 0) : NULL;
    const int64_t *start = members ? buffer(&b, o[3], 8, 0) : NULL;
    const double *best = start ? buffer(&b, o[4], 8, 0) : NULL, *sd = best ? buffer(&b, o[5], 8, 0) : NULL;
    double *reps = sd ? buffer(&b, o[6], 8, 1) : NULL;
    uint64_t *st = reps ? buffer(&b, o[7], 8, 1) : NULL;
    double *work = st ? malloc((3 * ne + 1) * sizeof(double)) : NULL;
    int64_t *drawn = work ? malloc((start[ntasks] + 1) * sizeof(int64_t)) : NULL;
    if (st && !drawn) PyErr_NoMemory();
    if (drawn) {
        Pcg64 g = {((__uint128_t)st[0] << 64) | st[1], ((__uint128_t)st[2] << 64) | st[3], (int)st[4], (uint32_t)st[5]};
        for (Py_ssize_t r = 0; r < nb; r++) {
            double *total = work, *terms = work + ne, *sums = work + 2 * ne;
            replicate(&g, x, counts, members, start, ntasks, best, sd, total, terms, sums, drawn, ne, ni);
            for (Py_ssize_t e = 0; e < ne; e++) reps[r * ne + e] = total[e] / (double)ntasks;
        }
        st[0] = (uint64_t)(g.state >> 64), st[1] = (uint64_t)g.state;
        st[2] = (uint64_t)(g.inc >> 64), st[3] = (uint64_t)g.inc;
        st[4] = (uint64_t)g.has_uint32, st[5] = g.uinteger;
    }
    free(work), free(drawn);
    release(&b);
    if (!drawn) return NULL;
    Py_RETURN_NONE;
}
#endif

/* --- euroeval-2024: the bootstrap's resampled moments ------------------------------------ */

/* One replicate's row of moments. */
static void moments_row(const double *restrict s1, const double *restrict s2, const double *restrict cnt,
                        const double *restrict mu0, float *restrict m, float *restrict var, Py_ssize_t ne) {
    Py_ssize_t e = 0;
#ifdef __SSE2__
    /* two at a time: IEEE operations on vector lanes round as they do one by one */
    const __m128d one = _mm_set1_pd(1.0), zero = _mm_setzero_pd();
    for (; e + 2 <= ne; e += 2) {
        __m128d a = _mm_loadu_pd(s1 + e), c = _mm_loadu_pd(cnt + e);
        __m128 mf = _mm_cvtpd_ps(_mm_add_pd(_mm_loadu_pd(mu0 + e), _mm_div_pd(a, c)));
        __m128d v = _mm_div_pd(_mm_sub_pd(_mm_loadu_pd(s2 + e), _mm_div_pd(_mm_mul_pd(a, a), c)), _mm_sub_pd(c, one));
        __m128 vf = _mm_cvtpd_ps(_mm_andnot_pd(_mm_cmplt_pd(v, zero), v)); /* v < 0: 0; NaN, −0 stay */
        _mm_storel_pi((__m64 *)(m + e), mf);
        _mm_storel_pi((__m64 *)(var + e), vf);
    }
#endif
    for (; e < ne; e++) {
        double a = s1[e];
        m[e] = (float)(mu0[e] + a / cnt[e]);
        double v = (s2[e] - (a * a) / cnt[e]) / (cnt[e] - 1.0);
        var[e] = (float)(v < 0.0 ? 0.0 : v); /* np.maximum(v, 0): NaN and −0 stay */
    }
}

/* moments(s1, s2 (D', B, N), cnt (D', N), mu0 (D', N), m_out, var_out (D', B, N) float32):
 * m = mu0 + s1/cnt and var = max((s2 − s1²/cnt)/(cnt − 1), 0) (NaN kept), each rounded once
 * to single precision: euroeval_2024._moments' elementwise steps in their order, where every
 * replicate has every iteration of a present entry (cnt the same in every replicate). */
static PyObject *py_moments(PyObject *self, PyObject *args) {
    PyObject *o[6];
    Py_ssize_t nd, nb, ne;
    if (!PyArg_ParseTuple(args, "OOOOOOnnn", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &nd, &nb, &ne)) return NULL;
    Buffers b = {.used = 0};
    const double *s1 = buffer(&b, o[0], 8, 0), *s2 = s1 ? buffer(&b, o[1], 8, 0) : NULL;
    const double *cnt = s2 ? buffer(&b, o[2], 8, 0) : NULL, *mu0 = cnt ? buffer(&b, o[3], 8, 0) : NULL;
    float *m = mu0 ? buffer(&b, o[4], 4, 1) : NULL, *var = m ? buffer(&b, o[5], 4, 1) : NULL;
    for (Py_ssize_t k = 0; var && k < nd; k++) {
        const double *ck = cnt + k * ne, *mk = mu0 + k * ne;
        for (Py_ssize_t r = 0; r < nb; r++) {
            Py_ssize_t at = (k * nb + r) * ne;
            moments_row(s1 + at, s2 + at, ck, mk, m + at, var + at, ne);
        }
    }
    release(&b);
    if (!var) return NULL;
    Py_RETURN_NONE;
}

/* --- euroeval-2024: the bootstrap's task means ------------------------------------------- */

/* task_means(rs (D, B, N) float32 in each dataset's own order, inv (D, N) int32: entry e's
 * position in dataset k's order, picks (B, M) int64: each task's drawn datasets side by side,
 * start (T + 1,) int64, lang (B, N) in/out): lang[r, e] += Σ_q rs[pick_q, r, inv[pick_q, e]]
 * / k, task by task, the sum in double precision over the k drawn datasets in order: the
 * numpy code's scatter to entry order, gather and mean along the drawn datasets. */
static PyObject *py_task_means(PyObject *self, PyObject *args) {
    PyObject *o[5];
    Py_ssize_t nb, ne, nm, ntasks;
    if (!PyArg_ParseTuple(args, "OOOOOnnnn", &o[0], &o[1], &o[2], &o[3], &o[4], &nb, &ne, &nm, &ntasks)) return NULL;
    Buffers b = {.used = 0};
    const float *rs = buffer(&b, o[0], 4, 0);
    const int32_t *inv = rs ? buffer(&b, o[1], 4, 0) : NULL;
    const int64_t *picks = inv ? buffer(&b, o[2], 8, 0) : NULL, *start = picks ? buffer(&b, o[3], 8, 0) : NULL;
    double *lang = start ? buffer(&b, o[4], 8, 1) : NULL;
    double *sum = lang ? malloc((ne + 1) * sizeof(double)) : NULL;
    if (lang && !sum) PyErr_NoMemory();
    for (Py_ssize_t r = 0; sum && r < nb; r++) {
        for (Py_ssize_t t = 0; t < ntasks; t++) {
            for (Py_ssize_t q = start[t]; q < start[t + 1]; q++) {
                int64_t k = picks[r * nm + q];
                const float *row = rs + (k * nb + r) * ne;
                const int32_t *at = inv + k * ne;
                if (q == start[t])
                    for (Py_ssize_t e = 0; e < ne; e++) sum[e] = (double)row[at[e]];
                else
                    for (Py_ssize_t e = 0; e < ne; e++) sum[e] = sum[e] + (double)row[at[e]];
            }
            double size = (double)(start[t + 1] - start[t]);
            for (Py_ssize_t e = 0; e < ne; e++) lang[r * ne + e] = lang[r * ne + e] + sum[e] / size;
        }
    }
    free(sum);
    release(&b);
    if (!sum) return NULL;
    Py_RETURN_NONE;
}
