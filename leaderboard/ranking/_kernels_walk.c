/* Part of _kernels.c, which includes it (one translation unit: these functions stay static;
 * setup.py compiles _kernels.c only): the anchor walk of single-precision lanes. */

/* --- the anchor walk, single precision ----------------------------------------------- */

/* walk_counts(m, c, lanes, n, per): the smallest and largest count of 2 or more of a present
 * entry (None without one); the counts c have one row per ``per`` lanes. */
static PyObject *py_walk_counts(PyObject *self, PyObject *args) {
    PyObject *mo, *co;
    Py_ssize_t lanes, n, per;
    if (!PyArg_ParseTuple(args, "OOnnn", &mo, &co, &lanes, &n, &per)) return NULL;
    Buffers b = {.used = 0};
    const float *m = buffer(&b, mo, 4, 0), *c = m ? buffer(&b, co, 4, 0) : NULL;
    float lo = 0.0f, hi = 0.0f;
    int has = 0;
    for (Py_ssize_t l0 = 0; c && l0 < lanes; l0 += per) { /* a row of counts and its lanes */
        const float *cl = c + (l0 / per) * n;
        Py_ssize_t l1 = l0 + per < lanes ? l0 + per : lanes;
        for (Py_ssize_t i = 0; i < n; i++) {
            float ci = cl[i];
            if (!(ci >= 2.0f) || (has && ci >= lo && ci <= hi)) continue; /* it would change nothing */
            for (Py_ssize_t l = l0; l < l1; l++) {
                if (isnan(m[l * n + i])) continue;
                lo = has && lo < ci ? lo : ci;
                hi = has && hi > ci ? hi : ci;
                has = 1;
                break;
            }
        }
    }
    release(&b);
    if (!c) return NULL;
    if (!has) Py_RETURN_NONE;
    return Py_BuildValue("(dd)", (double)lo, (double)hi);
}

typedef struct {
    float *ms, *vn; /* by position: the means and s²/n */
    const float *c, *inv_sigma; /* c: the counts, one row per ``per`` lanes */
    int32_t *order; /* by position: the entry, with the bucket mark (FIRST_OF_BUCKET) */
    const int32_t *kept;
    int32_t *at, *anchor;
    float *score, *out, *pend_t, *pend_df;
    int32_t *pend_lane;
    float t_low, t_high;
    const double *tails; /* the t tail's table (settle): grid, surely significant, surely not */
    Py_ssize_t cells, n, per;
} Walk;

#define FIRST_OF_BUCKET 0x80000000u /* order[j]'s top bit: position j begins a bucket */
#define ENTRY(o) ((o) & 0x7FFFFFFF)  /* order[j]'s entry */

/* Sort positions [s, e) of a lane, one bucket, by mean, best first, ties in entry order (the
 * bucket holds them in entry order, and the insertion sort keeps equal means' order); the
 * bucket's first position keeps the bucket's mark. */
static void sort_bucket(float *ms, float *vn, int32_t *order, Py_ssize_t s, Py_ssize_t e) {
    order[s] = ENTRY(order[s]);
    for (Py_ssize_t i = s + 1; i < e; i++) {
        float m = ms[i], v = vn[i];
        int32_t o = order[i];
        Py_ssize_t j = i;
        for (; j > s && ms[j - 1] < m; j--) ms[j] = ms[j - 1], vn[j] = vn[j - 1], order[j] = order[j - 1];
        ms[j] = m, vn[j] = v, order[j] = o;
    }
    order[s] |= (int32_t)FIRST_OF_BUCKET;
}

/* Before the walk decides position j by its t: the positions of j's bucket in the stable
 * order. A bucket out of order is sorted, and j moves back to its first position (returns 1):
 * nothing was decided in it yet (a decision sorts first), so the walk's state there is the
 * same. A sorted bucket returns 0. */
static int bucket_in_order(const Walk *w, Py_ssize_t l, Py_ssize_t *j) {
    Py_ssize_t n = w->n, s = *j, e = *j + 1, kept = w->kept[l];
    int32_t *order = w->order + l * n;
    float *ms = w->ms + l * n;
    if ((order[s] & FIRST_OF_BUCKET) && (e >= kept || (order[e] & FIRST_OF_BUCKET))) return 0; /* alone */
    while (!(order[s] & FIRST_OF_BUCKET)) s--;
    while (e < kept && !(order[e] & FIRST_OF_BUCKET)) e++;
    Py_ssize_t p = s;
    while (p + 1 < e && !(ms[p] < ms[p + 1])) p++;
    if (p + 1 >= e) return 0;
    sort_bucket(ms, w->vn + l * n, order, s, e);
    *j = s;
    return 1;
}

#ifdef __SSE2__
/* Whether each of two steps' t = gap / sqrt(s2) (single precision, from these single-precision gap
 * and s2) surely lies below the band, t < t_low: where the gap is at most 0, or where, in
 * double precision, gap² < low2 · s2 with low2 = t_low² (1 − 10⁻⁶). The float sqrt and
 * division each round by at most 2⁻²⁴ relatively (their results are normal numbers or 0
 * here, or t is far below), which the 10⁻⁶ covers; NaN or infinite values fail both tests
 * and are left to the exact step. Bit q of the result: step q is. */
static inline int below(__m128d gap, __m128d s2, __m128d low2) {
    __m128d sure = _mm_or_pd(_mm_cmple_pd(gap, _mm_setzero_pd()), _mm_cmplt_pd(_mm_mul_pd(gap, gap), _mm_mul_pd(low2, s2)));
    return _mm_movemask_pd(sure);
}
#endif

/* A step in the band, decided without its t tail where the table says surely: 1 (p < alpha),
 * 0 (not), or −1 (the tail decides). For df in [grid[k], grid[k + 1]], a t above
 * sure_sig[k] has p below alpha (1 − δ) and a t below sure_not[k] p above alpha (1 + δ)
 * exactly (walk._tail_table); the single-precision tail scipy computes is within δ/100
 * of the exact p there, so its comparison with alpha comes out the same. */
static int settle(const Walk *w, float t, float df) {
    Py_ssize_t cells = w->cells;
    const double *grid = w->tails, *sure_sig = grid + cells + 1, *sure_not = sure_sig + cells + 1;
    if (!(cells > 0 && df >= grid[0] && df <= grid[cells])) return -1;
    Py_ssize_t k = (Py_ssize_t)(((double)df - grid[0]) / (grid[cells] - grid[0]) * (double)cells);
    k = k < 0 ? 0 : k >= cells ? cells - 1 : k;
    if (!(df >= grid[k] && df <= grid[k + 1])) return -1; /* rounding put it in a neighbouring cell */
    return (double)t > sure_sig[k] ? 1 : (double)t < sure_not[k] ? 0 : -1;
}

/* Walk one lane from its position at[l] on until its end (returns 0) or a step whose
 * decision needs the t tail (returns 1: t and df recorded in ``slot``, the lane waits).
 * Positions are in bucket order (walk_start): a step that changes nothing (t below the
 * band) needs no order, and the bucket of a step that may is put in order first. Four
 * steps at a time where SSE2 is there (the same single-precision operations per value). */
static int walk_lane(Walk *w, Py_ssize_t l, Py_ssize_t slot) {
    Py_ssize_t n = w->n, j = w->at[l], kept = w->kept[l];
    const float *ms = w->ms + l * n, *vn = w->vn + l * n, *c = w->c + (l / w->per) * n;
    const int32_t *order = w->order + l * n;
    float *out = w->out + l * n;
    Py_ssize_t a = w->anchor[l];
    float acc = w->score[l], inv_sigma = w->inv_sigma[l], t_low = w->t_low, t_high = w->t_high;
#ifdef __SSE2__
    const __m128d low2 = _mm_set1_pd((1.0 - 1e-6) * (double)t_low * (double)t_low);
#endif
    while (j < kept) {
#ifdef __SSE2__
        if (j + 4 <= kept) { /* the steps of four surely below the band (below) before any other */
            __m128 gap = _mm_sub_ps(_mm_set1_ps(ms[a]), _mm_loadu_ps(ms + j));
            __m128 s2 = _mm_add_ps(_mm_set1_ps(vn[a]), _mm_loadu_ps(vn + j));
            int sure = below(_mm_cvtps_pd(gap), _mm_cvtps_pd(s2), low2) |
                       below(_mm_cvtps_pd(_mm_movehl_ps(gap, gap)), _mm_cvtps_pd(_mm_movehl_ps(s2, s2)), low2) << 2;
            int k = sure == 15 ? 4 : __builtin_ctz(~sure); /* the first step not surely below */
            if (k) {
                acc = acc + 0.0f;
                for (int q = 0; q < k; q++) out[ENTRY(order[j + q])] = acc;
                j += k;
                if (k == 4) continue;
            }
        }
#endif
        float s = sqrtf(vn[a] + vn[j]);
        float gap = ms[a] - ms[j];
        float t = gap / s;
        if (t > t_high || t >= t_low) {
            if (bucket_in_order(w, l, &j)) continue; /* sorted: walk the bucket again */
            int sig = t > t_high;
            if (!sig) {
                float se2 = s * s; /* (s²/n)²/(n − 1) of both, as the numpy walk has them */
                float ca = c[ENTRY(order[a])], cj = c[ENTRY(order[j])];
                float qa = vn[a] * vn[a] / (ca - 1.0f), qj = vn[j] * vn[j] / (cj - 1.0f);
                float df = se2 * se2 / (qa + qj);
                df = isnan(df) ? 1.0f : df;
                sig = settle(w, t, df);
                if (sig < 0) {
                    w->pend_lane[slot] = (int32_t)l;
                    w->pend_t[slot] = t;
                    w->pend_df[slot] = df;
                    break;
                }
            }
            if (sig) {
                acc = acc + gap * inv_sigma;
                a = j;
            } else {
                acc = acc + 0.0f;
            }
        } else {
            acc = acc + 0.0f;
        }
        out[ENTRY(order[j])] = acc;
        j++;
    }
    w->at[l] = (int32_t)j;
    w->anchor[l] = (int32_t)a;
    w->score[l] = acc;
    return j < kept;
}

/* The arrays of a walk, from a tuple of 13 buffers (ms, vn, c, inv_sigma, order, kept, at,
 * anchor, score, out, pend_lane, pend_t, pend_df); returns 0 on success. */
static int walk_arrays(Walk *w, Buffers *b, PyObject **o) {
    void **slots[13] = {(void **)&w->ms, (void **)&w->vn, (void **)&w->c, (void **)&w->inv_sigma,
                        (void **)&w->order, (void **)&w->kept, (void **)&w->at, (void **)&w->anchor,
                        (void **)&w->score, (void **)&w->out, (void **)&w->pend_lane, (void **)&w->pend_t,
                        (void **)&w->pend_df};
    for (int i = 0; i < 13; i++) {
        *slots[i] = buffer(b, o[i], 4, i != 3 && i != 2);
        if (!*slots[i]) return -1;
    }
    return 0;
}

/* The t tail's table (a float64 array of 3 (cells + 1) values: grid, sure_sig, sure_not,
 * each row with one value to spare but the grid; no cells: every band step waits). */
static int walk_tails(Walk *w, Buffers *b, PyObject *o) {
    w->tails = buffer(b, o, 8, 0);
    if (!w->tails) return -1;
    w->cells = b->view[b->used - 1].len / 8 / 3 - 1;
    return 0;
}

/* A lane's sort keys (present: −mean, missing: +inf) and s²/n = v / c, by entry, and the least
 * and largest key below +inf (key_range's); returns how many entries are present. Four at a
 * time where SSE2 is there (the same IEEE negation and division per value). */
static Py_ssize_t lane_keys(const float *ml, const float *vl, const float *cl, Py_ssize_t n, float *keys, float *vn,
                            float *least, float *largest) {
    Py_ssize_t i = 0, k = 0;
    float lo = INFINITY, hi = -INFINITY;
#ifdef __SSE2__
    static const int8_t present_of[16] = {0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4};
    const __m128 inf = _mm_set1_ps(INFINITY), sign = _mm_set1_ps(-0.0f), none = _mm_set1_ps(-INFINITY);
    __m128 vlo = inf, vhi = none;
    for (; i + 4 <= n; i += 4) {
        __m128 x = _mm_loadu_ps(ml + i), present = _mm_cmpord_ps(x, x);
        __m128 key = _mm_or_ps(_mm_and_ps(present, _mm_xor_ps(x, sign)), _mm_andnot_ps(present, inf));
        _mm_storeu_ps(keys + i, key);
        _mm_storeu_ps(vn + i, _mm_div_ps(_mm_loadu_ps(vl + i), _mm_loadu_ps(cl + i)));
        k += present_of[_mm_movemask_ps(present)];
        __m128 below = _mm_cmpneq_ps(key, inf); /* +inf never lowers lo, and counts as −inf for hi */
        vlo = _mm_min_ps(vlo, key);
        vhi = _mm_max_ps(vhi, _mm_or_ps(_mm_and_ps(below, key), _mm_andnot_ps(below, none)));
    }
    float l4[4], h4[4];
    _mm_storeu_ps(l4, vlo), _mm_storeu_ps(h4, vhi);
    for (int q = 0; q < 4; q++) lo = l4[q] < lo ? l4[q] : lo, hi = h4[q] > hi ? h4[q] : hi;
#endif
    for (; i < n; i++) {
        keys[i] = isnan(ml[i]) ? INFINITY : -ml[i];
        vn[i] = vl[i] / cl[i];
        k += !isnan(ml[i]);
        if (keys[i] != INFINITY) lo = keys[i] < lo ? keys[i] : lo, hi = keys[i] > hi ? keys[i] : hi;
    }
    *least = lo, *largest = hi;
    return k;
}

/* A lane's entries in bucket order (ms, vns and order by position): the present entries
 * counted into n buckets by key (bucket_fill), each bucket in entry order, the missing ones
 * (+inf) last; the first position of each bucket marked in order (FIRST_OF_BUCKET), and the
 * first bucket sorted (the walk starts from its best). Where buckets overfill, or for under
 * 64 entries, the stable order itself (radix_order), every position a bucket of its own.
 * lo and hi: the least and largest key below +inf. tmp holds 2n uint64. */
static void lane_buckets(const float *keys, float lo, float hi, const float *ml, const float *vnl, Py_ssize_t n,
                         float *ms, float *vns, int32_t *order, uint64_t *tmp) {
    double scale = hi > lo ? (double)(n - 1) / ((double)hi - (double)lo) : 0.0;
    int32_t *start = (int32_t *)tmp, *bucket = start + n + 1;
    if (n < 64 || !isfinite(scale) || !bucket_fill(keys, n, lo, scale, start, bucket)) {
        radix_order(keys, n, order, tmp);
        for (Py_ssize_t j = 0; j < n; j++) {
            int32_t e = order[j];
            ms[j] = ml[e], vns[j] = vnl[e], order[j] = e | (int32_t)FIRST_OF_BUCKET;
        }
        return;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        int32_t at = start[bucket[i]]++;
        order[at] = (int32_t)i, ms[at] = ml[i], vns[at] = vnl[i];
    }
    order[0] |= (int32_t)FIRST_OF_BUCKET; /* start[k] is now where bucket k + 1 begins */
    for (Py_ssize_t k = 0; k < n; k++)
        if (start[k] < n) order[start[k]] |= (int32_t)FIRST_OF_BUCKET;
    Py_ssize_t e = 1;
    while (e < n && !(order[e] & FIRST_OF_BUCKET)) e++;
    sort_bucket(ms, vns, order, 0, e);
}

/* walk_start(m, v, <the 13 arrays of a walk>, tails, lanes, n, per, t_low, t_high): per lane, the
 * stable order of the keys (present: −mean, missing: +inf), the means and s²/n gathered in
 * that order (counts c: one row per ``per`` lanes; (s²/n)²/(n − 1), the other piece of
 * Welch's df, is computed where a step needs it), then the walk while the lane is in cache;
 * returns how many lanes wait for a t tail. */
static PyObject *py_walk_start(PyObject *self, PyObject *args) {
    PyObject *o[16];
    Py_ssize_t lanes, n, per;
    Walk w;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOOOOOOOOnnnff", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &o[6], &o[7], &o[8],
                          &o[9], &o[10], &o[11], &o[12], &o[13], &o[14], &o[15], &lanes, &n, &per, &w.t_low,
                          &w.t_high))
        return NULL;
    w.n = n, w.per = per;
    Buffers b = {.used = 0};
    const float *m = buffer(&b, o[0], 4, 0), *v = m ? buffer(&b, o[1], 4, 0) : NULL;
    int ok = v && walk_arrays(&w, &b, o + 2) == 0 && walk_tails(&w, &b, o[15]) == 0;
    const float *c = w.c;
    float *keys = ok ? malloc(2 * n * sizeof(float) + 1) : NULL, *vn = keys + n; /* vn: s²/n by entry */
    uint64_t *tmp = keys ? malloc((2 * n + 1) * sizeof(uint64_t)) : NULL;
    if (ok && !tmp) PyErr_NoMemory();
    Py_ssize_t waiting = 0;
    for (Py_ssize_t l = 0; tmp && l < lanes; l++) {
        const float *ml = m + l * n, *vl = v + l * n, *cl = c + (l / per) * n;
        float lo, hi;
        int32_t k = (int32_t)lane_keys(ml, vl, cl, n, keys, vn, &lo, &hi), *ol = w.order + l * n;
        lane_buckets(keys, lo, hi, ml, vn, n, w.ms + l * n, w.vn + l * n, ol, tmp);
        ((int32_t *)w.kept)[l] = k;
        w.at[l] = 1, w.anchor[l] = 0, w.score[l] = 1.0f;
        if (k > 0) w.out[l * n + ENTRY(ol[0])] = 1.0f;
        waiting += walk_lane(&w, l, waiting);
    }
    free(keys), free(tmp);
    release(&b);
    if (!tmp) return NULL;
    return PyLong_FromSsize_t(waiting);
}

/* walk_run(<the 13 arrays of a walk>, tails, sig, lanes, n, per, resumed): settle the ``resumed`` waiting
 * lanes (sig[i]: lane pend_lane[i] is significant at its step) and walk them on; returns how
 * many wait for a t tail now. */
static PyObject *py_walk_run(PyObject *self, PyObject *args) {
    PyObject *o[15];
    Py_ssize_t lanes, n, per, resumed;
    Walk w;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOOOOOOOnnnnff", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &o[6], &o[7], &o[8],
                          &o[9], &o[10], &o[11], &o[12], &o[13], &o[14], &lanes, &n, &per, &resumed, &w.t_low,
                          &w.t_high))
        return NULL;
    w.n = n, w.per = per;
    Buffers b = {.used = 0};
    int ok = walk_arrays(&w, &b, o) == 0 && walk_tails(&w, &b, o[13]) == 0;
    const uint8_t *sig = ok ? buffer(&b, o[14], 1, 0) : NULL;
    Py_ssize_t waiting = 0;
    for (Py_ssize_t i = 0; sig && i < resumed; i++) { /* slots are reused in order: i ≥ waiting */
        Py_ssize_t l = w.pend_lane[i], j = w.at[l], a = w.anchor[l];
        float gap = w.ms[l * n + a] - w.ms[l * n + j];
        float acc = w.score[l] + (sig[i] ? gap * w.inv_sigma[l] : 0.0f);
        if (sig[i]) w.anchor[l] = (int32_t)j;
        w.score[l] = acc;
        w.out[l * n + ENTRY(w.order[l * n + j])] = acc;
        w.at[l] = (int32_t)(j + 1);
        waiting += walk_lane(&w, l, waiting);
    }
    release(&b);
    if (!sig) return NULL;
    return PyLong_FromSsize_t(waiting);
}

/* --- the lanes' σ: its elementwise steps (the sums stay numpy's) ----------------------- */

/* present_values(m, x, count, rows, n): x = where(isnan(m), 0, m) and count[r] = the present
 * (non-NaN) values of row r, for (rows, n) float32 m. */
static PyObject *py_present_values(PyObject *self, PyObject *args) {
    PyObject *mo, *xo, *ko;
    Py_ssize_t rows, n;
    if (!PyArg_ParseTuple(args, "OOOnn", &mo, &xo, &ko, &rows, &n)) return NULL;
    Buffers b = {.used = 0};
    const float *m = buffer(&b, mo, 4, 0);
    float *x = m ? buffer(&b, xo, 4, 1) : NULL;
    int64_t *count = x ? buffer(&b, ko, 8, 1) : NULL;
    for (Py_ssize_t r = 0; count && r < rows; r++) {
        const float *mr = m + r * n;
        float *xr = x + r * n;
        int64_t k = 0;
        for (Py_ssize_t i = 0; i < n; i++) {
            int present = !isnan(mr[i]);
            xr[i] = present ? mr[i] : 0.0f;
            k += present;
        }
        count[r] = k;
    }
    release(&b);
    if (!count) return NULL;
    Py_RETURN_NONE;
}

/* deviations(m, mu, dev, rows, n): dev = where(isnan(m), 0, (double)m − mu[r]) in double
 * precision, for (rows, n) float32 m and (rows,) double mu (numpy's float32 − float64). */
static PyObject *py_deviations(PyObject *self, PyObject *args) {
    PyObject *mo, *uo, *dO;
    Py_ssize_t rows, n;
    if (!PyArg_ParseTuple(args, "OOOnn", &mo, &uo, &dO, &rows, &n)) return NULL;
    Buffers b = {.used = 0};
    const float *m = buffer(&b, mo, 4, 0);
    const double *mu = m ? buffer(&b, uo, 8, 0) : NULL;
    double *dev = mu ? buffer(&b, dO, 8, 1) : NULL;
    for (Py_ssize_t r = 0; dev && r < rows; r++) {
        const float *mr = m + r * n;
        double *dr = dev + r * n, u = mu[r];
        for (Py_ssize_t i = 0; i < n; i++) dr[i] = isnan(mr[i]) ? 0.0 : (double)mr[i] - u;
    }
    release(&b);
    if (!dev) return NULL;
    Py_RETURN_NONE;
}
