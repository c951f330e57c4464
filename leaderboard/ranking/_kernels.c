/* Compiled loops of the ranking (leaderboard/ranking/kernels.py is their Python face).
 *
 * Every function does the floating-point operations of the numpy code it replaces, in the
 * same order and precision, so the results are the same to the bit: build with -O2
 * -fno-fast-math -ffp-contract=off (no fused multiply-add, no reassociation; setup.py).
 * Arrays come in through the buffer protocol (C-contiguous numpy arrays), so only
 * Python.h is needed to build.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

typedef struct {
    Py_buffer view[16];
    int used;
} Buffers;

static void *buffer(Buffers *b, PyObject *obj, Py_ssize_t itemsize, int writable) {
    Py_buffer *v = &b->view[b->used];
    if (PyObject_GetBuffer(obj, v, PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0)) < 0) return NULL;
    b->used++;
    if (v->itemsize != itemsize) {
        PyErr_SetString(PyExc_TypeError, "array of the wrong item size");
        return NULL;
    }
    return v->buf;
}

static void release(Buffers *b) {
    for (int i = 0; i < b->used; i++) PyBuffer_Release(&b->view[i]);
}

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

/* The same order as radix_order, for keys spread over a range: a stable counting pass into n
 * buckets by (key − least)·scale (monotone in the key, so buckets are in key order), then an
 * insertion sort by (key, index), which moves keys within their bucket only; +inf keys
 * last. tmp holds 2n uint64. */
static void stable_order(const float *keys, Py_ssize_t n, int32_t *order, uint64_t *tmp) {
    float lo = INFINITY, hi = -INFINITY; /* the least and the largest key below +inf */
    Py_ssize_t i = 0;
#ifdef __SSE2__
    __m128 vlo = _mm_set1_ps(INFINITY), vhi = _mm_set1_ps(-INFINITY), inf = vlo;
    for (; i + 4 <= n; i += 4) { /* four at a time; +inf never lowers lo, and counts as −inf for hi */
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
    double scale = hi > lo ? (double)(n - 1) / ((double)hi - (double)lo) : 0.0;
    if (n < 64 || !isfinite(scale)) return radix_order(keys, n, order, tmp);
    int32_t *start = (int32_t *)tmp, *bucket = start + n + 1; /* n + 1 bucket starts, then n ids */
    memset(start, 0, (n + 1) * sizeof(int32_t));
    for (Py_ssize_t i = 0; i < n; i++) {
        int32_t k = keys[i] == INFINITY ? (int32_t)n : (int32_t)(((double)keys[i] - (double)lo) * scale);
        k = k < 0 ? 0 : k > n ? (int32_t)n : k;
        bucket[i] = k;
        if (++start[k] > BUCKET_MAX && k < n) return radix_order(keys, n, order, tmp);
    }
    int32_t at = 0;
    for (Py_ssize_t k = 0; k <= n; k++) {
        int32_t c = start[k];
        start[k] = at;
        at += c;
    }
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
    const float *ms, *vn, *c, *inv_sigma; /* c: the counts, one row per ``per`` lanes */
    const int32_t *order, *kept;
    int32_t *at, *anchor;
    float *score, *out, *pend_t, *pend_df;
    int32_t *pend_lane;
    float t_low, t_high;
    Py_ssize_t n, per;
} Walk;

/* Walk one lane from its position at[l] on until its end (returns 0) or a step whose
 * decision needs the t tail (returns 1: t and df recorded in ``slot``, the lane waits). */
static int walk_lane(Walk *w, Py_ssize_t l, Py_ssize_t slot) {
    Py_ssize_t n = w->n, j = w->at[l];
    const float *ms = w->ms + l * n, *vn = w->vn + l * n, *c = w->c + (l / w->per) * n;
    const int32_t *order = w->order + l * n;
    float *out = w->out + l * n;
    Py_ssize_t a = w->anchor[l];
    float acc = w->score[l], inv_sigma = w->inv_sigma[l];
    for (; j < w->kept[l]; j++) {
        float s = sqrtf(vn[a] + vn[j]);
        float gap = ms[a] - ms[j];
        float t = gap / s;
        if (t > w->t_high) {
            acc = acc + gap * inv_sigma;
            a = j;
        } else if (t >= w->t_low) {
            float se2 = s * s; /* (s²/n)²/(n − 1) of both, as the numpy walk has them */
            float qa = vn[a] * vn[a] / (c[order[a]] - 1.0f), qj = vn[j] * vn[j] / (c[order[j]] - 1.0f);
            float df = se2 * se2 / (qa + qj);
            w->pend_lane[slot] = (int32_t)l;
            w->pend_t[slot] = t;
            w->pend_df[slot] = isnan(df) ? 1.0f : df;
            break;
        } else {
            acc = acc + 0.0f;
        }
        out[order[j]] = acc;
    }
    w->at[l] = (int32_t)j;
    w->anchor[l] = (int32_t)a;
    w->score[l] = acc;
    return j < w->kept[l];
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

/* A lane's sort keys (present: −mean, missing: +inf) and s²/n = v / c, by entry; returns
 * how many entries are present. Four at a time where SSE2 is there (the same IEEE negation
 * and division per value). */
static Py_ssize_t lane_keys(const float *ml, const float *vl, const float *cl, Py_ssize_t n, float *keys, float *vn) {
    Py_ssize_t i = 0, k = 0;
#ifdef __SSE2__
    const __m128 inf = _mm_set1_ps(INFINITY), sign = _mm_set1_ps(-0.0f);
    for (; i + 4 <= n; i += 4) {
        __m128 x = _mm_loadu_ps(ml + i), present = _mm_cmpord_ps(x, x);
        __m128 key = _mm_or_ps(_mm_and_ps(present, _mm_xor_ps(x, sign)), _mm_andnot_ps(present, inf));
        _mm_storeu_ps(keys + i, key);
        _mm_storeu_ps(vn + i, _mm_div_ps(_mm_loadu_ps(vl + i), _mm_loadu_ps(cl + i)));
        k += __builtin_popcount((unsigned)_mm_movemask_ps(present));
    }
#endif
    for (; i < n; i++) {
        keys[i] = isnan(ml[i]) ? INFINITY : -ml[i];
        vn[i] = vl[i] / cl[i];
        k += !isnan(ml[i]);
    }
    return k;
}

/* walk_start(m, v, <the 13 arrays of a walk>, lanes, n, per, t_low, t_high): per lane, the
 * stable order of the keys (present: −mean, missing: +inf), the means and s²/n gathered in
 * that order (counts c: one row per ``per`` lanes; (s²/n)²/(n − 1), the other piece of
 * Welch's df, is computed where a step needs it), then the walk while the lane is in cache;
 * returns how many lanes wait for a t tail. */
static PyObject *py_walk_start(PyObject *self, PyObject *args) {
    PyObject *o[15];
    Py_ssize_t lanes, n, per;
    Walk w;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOOOOOOOnnnff", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &o[6], &o[7], &o[8],
                          &o[9], &o[10], &o[11], &o[12], &o[13], &o[14], &lanes, &n, &per, &w.t_low, &w.t_high))
        return NULL;
    w.n = n, w.per = per;
    Buffers b = {.used = 0};
    const float *m = buffer(&b, o[0], 4, 0), *v = m ? buffer(&b, o[1], 4, 0) : NULL;
    int ok = v && walk_arrays(&w, &b, o + 2) == 0;
    const float *c = w.c;
    float *keys = ok ? malloc(2 * n * sizeof(float) + 1) : NULL, *vn = keys + n; /* vn: s²/n by entry */
    uint64_t *tmp = keys ? malloc((2 * n + 1) * sizeof(uint64_t)) : NULL;
    if (ok && !tmp) PyErr_NoMemory();
    Py_ssize_t waiting = 0;
    for (Py_ssize_t l = 0; tmp && l < lanes; l++) {
        const float *ml = m + l * n, *vl = v + l * n, *cl = c + (l / per) * n;
        int32_t k = (int32_t)lane_keys(ml, vl, cl, n, keys, vn), *ol = (int32_t *)w.order + l * n;
        stable_order(keys, n, ol, tmp);
        float *ms = (float *)w.ms + l * n, *vns = (float *)w.vn + l * n;
        for (Py_ssize_t j = 0; j < n; j++) {
            int32_t e = ol[j];
            ms[j] = ml[e], vns[j] = vn[e];
        }
        ((int32_t *)w.kept)[l] = k;
        w.at[l] = 1, w.anchor[l] = 0, w.score[l] = 1.0f;
        if (k > 0) w.out[l * n + ol[0]] = 1.0f;
        waiting += walk_lane(&w, l, waiting);
    }
    free(keys), free(tmp);
    release(&b);
    if (!tmp) return NULL;
    return PyLong_FromSsize_t(waiting);
}

/* walk_run(<the 13 arrays of a walk>, sig, lanes, n, per, resumed): settle the ``resumed`` waiting
 * lanes (sig[i]: lane pend_lane[i] is significant at its step) and walk them on; returns how
 * many wait for a t tail now. */
static PyObject *py_walk_run(PyObject *self, PyObject *args) {
    PyObject *o[14];
    Py_ssize_t lanes, n, per, resumed;
    Walk w;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOOOOOOnnnnff", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &o[6], &o[7], &o[8],
                          &o[9], &o[10], &o[11], &o[12], &o[13], &lanes, &n, &per, &resumed, &w.t_low, &w.t_high))
        return NULL;
    w.n = n, w.per = per;
    Buffers b = {.used = 0};
    const uint8_t *sig = walk_arrays(&w, &b, o) == 0 ? buffer(&b, o[13], 1, 0) : NULL;
    Py_ssize_t waiting = 0;
    for (Py_ssize_t i = 0; sig && i < resumed; i++) { /* slots are reused in order: i ≥ waiting */
        Py_ssize_t l = w.pend_lane[i], j = w.at[l], a = w.anchor[l];
        float gap = w.ms[l * n + a] - w.ms[l * n + j];
        float acc = w.score[l] + (sig[i] ? gap * w.inv_sigma[l] : 0.0f);
        if (sig[i]) w.anchor[l] = (int32_t)j;
        w.score[l] = acc;
        w.out[l * n + w.order[l * n + j]] = acc;
        w.at[l] = (int32_t)(j + 1);
        waiting += walk_lane(&w, l, waiting);
    }
    release(&b);
    if (!sig) return NULL;
    return PyLong_FromSsize_t(waiting);
}

/* --- per-draw maxima of S_jk = (Z_j − Z_k)·w_jk over families of pairs ------------------ */

typedef struct {
    const float *w; /* (p, p) */
    const uint8_t *fam[3]; /* (p, p): sim, pos, neg */
    float *wtop[3]; /* (p,): a row's largest weight in each family */
    int32_t **members[3]; /* per row: its members in a sparse family, else NULL */
    int32_t *count[3];
    Py_ssize_t p;
} Families;

/* The largest value of row j's family f in a draw of Z (z; zs: its values in the ascending
 * order ``order``), from ``found`` up: S_jk for the sim (0) and pos (1) families, S_kj =
 * −S_jk for neg (2). Scans the entries by Z away from the row's own (down for pos, up for
 * neg) and stops where the gap times the row's largest weight cannot beat ``found``:
 * rounding is monotone, so no later product can either. A non-member's product is 0 (or
 * −0): it never raises ``found``, which starts at 0 or above. */
static float row_max(const Families *F, int f, Py_ssize_t j, const float *z, const float *zs, const int32_t *order,
                     float found) {
    Py_ssize_t p = F->p;
    const float *w = F->w + j * p;
    const uint8_t *in = F->fam[f] + j * p;
    float zj = z[j], wt = F->wtop[f][j];
    if (F->members[f][j]) {
        const int32_t *mem = F->members[f][j];
        for (int32_t i = 0; i < F->count[f][j]; i++) {
            float d = f == 2 ? z[mem[i]] - zj : zj - z[mem[i]];
            float v = d * w[mem[i]];
            found = v > found ? v : found;
        }
        return found;
    }
    if (f == 2) {
        for (Py_ssize_t i = p - 1; i >= 0; i--) {
            float d = zs[i] - zj;
            if (!(d * wt > found)) break;
            float v = d * (w[order[i]] * (float)in[order[i]]);
            found = v > found ? v : found;
        }
    } else {
        for (Py_ssize_t i = 0; i < p; i++) {
            float d = zj - zs[i];
            if (!(d * wt > found)) break;
            float v = d * (w[order[i]] * (float)in[order[i]]);
            found = v > found ? v : found;
        }
    }
    return found;
}

/* The simultaneous family's maximum in one draw: rows with the highest Z first. */
static float sim_max(const Families *F, const float *z, const float *zs, const int32_t *order) {
    float found = 0.0f;
    for (Py_ssize_t i = F->p - 1; i >= 0; i--) {
        Py_ssize_t j = order[i];
        if ((z[j] - zs[0]) * F->wtop[0][j] > found) found = row_max(F, 0, j, z, zs, order, found);
    }
    return found;
}

#define SPARSE 8 /* a family of fewer than p / SPARSE members is walked member by member */

/* Each row's largest weight and, for a sparse family, its members: of the simultaneous
 * family with want_sim, of the marginal ones for the rows set. */
static int families_init(Families *F, int want_sim, const uint8_t *rows) {
    Py_ssize_t p = F->p;
    for (int f = 0; f < 3; f++) {
        F->wtop[f] = calloc(p + 1, sizeof(float));
        F->count[f] = calloc(p + 1, sizeof(int32_t));
        F->members[f] = calloc(p + 1, sizeof(int32_t *));
        if (!F->wtop[f] || !F->count[f] || !F->members[f]) return -1;
        for (Py_ssize_t j = 0; j < p; j++) {
            if (f ? !rows[j] : !want_sim) continue;
            const uint8_t *in = F->fam[f] + j * p;
            const float *w = F->w + j * p;
            float top = 0.0f;
            int32_t c = 0;
            for (Py_ssize_t k = 0; k < p; k++) { /* without branches: members are scattered */
                float cand = w[k] * (float)in[k]; /* a non-member's 0 (or NaN) never beats top ≥ 0 */
                c += in[k];
                top = cand > top ? cand : top;
            }
            F->wtop[f][j] = top, F->count[f][j] = c;
            if (c * SPARSE >= p) continue;
            int32_t *mem = malloc((c + 1) * sizeof(int32_t));
            if (!mem) return -1;
            for (Py_ssize_t k = 0, i = 0; k < p; k++)
                if (in[k]) mem[i++] = (int32_t)k;
            F->members[f][j] = mem;
        }
    }
    return 0;
}

static void families_free(Families *F) {
    for (int f = 0; f < 3; f++) {
        if (F->members[f])
            for (Py_ssize_t j = 0; j < F->p; j++) free(F->members[f][j]);
        free(F->members[f]), free(F->wtop[f]), free(F->count[f]);
    }
}

/* Whether the pairs that left row j's families (gone[0..npos): pos, then neg) hold a value
 * of at least ``found``, the row's maximum before they left: if not, that maximum sat on a
 * pair still there (or was the floor of 0) and is the maximum of what is left. */
static int left_max(const Families *F, Py_ssize_t j, const float *z, const int32_t *gone, Py_ssize_t npos,
                    Py_ssize_t ngone, float found) {
    const float *w = F->w + j * F->p;
    for (Py_ssize_t i = 0; i < ngone; i++) {
        int32_t k = gone[i];
        float d = i < npos ? z[j] - z[k] : z[k] - z[j];
        if (d * w[k] >= found) return 1;
    }
    return 0;
}

/* maxima(zd (B, p) draws of Z, w (p, p), sim, pos, neg (p, p) bool, rows (p,) bool,
 * sim_out (B,), marg_out (p, B), gone_pos, gone_neg (p, p) bool, want_sim, check): in every
 * draw d, sim_out[d] (with want_sim) and marg_out[j, d] for the rows j set: the families'
 * maxima, each at least 0. With ``check``, marg_out holds the maxima before the pairs
 * gone_* left the families, and a row's maximum is recomputed only in the draws where a
 * pair that left may have held it. */
static PyObject *py_maxima(PyObject *self, PyObject *args) {
    PyObject *o[10];
    Py_ssize_t p, nb;
    int want_sim, check;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOOnnii", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &o[6], &o[7], &o[8], &o[9],
                          &p, &nb, &want_sim, &check))
        return NULL;
    Buffers b = {.used = 0};
    Families F = {.p = p};
    const float *zd = buffer(&b, o[0], 4, 0);
    F.w = zd ? buffer(&b, o[1], 4, 0) : NULL;
    for (int f = 0; f < 3; f++) F.fam[f] = F.w ? buffer(&b, o[2 + f], 1, 0) : NULL;
    const uint8_t *rows = F.fam[2] ? buffer(&b, o[5], 1, 0) : NULL;
    float *sim = rows ? buffer(&b, o[6], 4, 1) : NULL;
    float *marg = sim ? buffer(&b, o[7], 4, 1) : NULL;
    const uint8_t *gone_pn[2] = {marg ? buffer(&b, o[8], 1, 0) : NULL, NULL};
    gone_pn[1] = gone_pn[0] ? buffer(&b, o[9], 1, 0) : NULL;
    int32_t *order = gone_pn[1] ? malloc((nb * p + 1) * sizeof(int32_t)) : NULL;
    float *zs = order ? malloc((nb * p + 1) * sizeof(float)) : NULL;
    uint64_t *tmp = zs ? malloc((2 * p + 1) * sizeof(uint64_t)) : NULL;
    int ok = tmp && families_init(&F, want_sim, rows) == 0;
    if (gone_pn[1] && !ok) PyErr_NoMemory();
    for (Py_ssize_t d = 0; ok && d < nb; d++) { /* each draw's order of Z */
        stable_order(zd + d * p, p, order + d * p, tmp);
        for (Py_ssize_t i = 0; i < p; i++) zs[d * p + i] = zd[d * p + order[d * p + i]];
        if (want_sim) sim[d] = sim_max(&F, zd + d * p, zs + d * p, order + d * p);
    }
    int32_t *gone = ok ? malloc((2 * p + 1) * sizeof(int32_t)) : NULL;
    for (Py_ssize_t j = 0; gone && j < p; j++) { /* row by row: its weights stay in cache */
        if (!rows[j]) continue;
        Py_ssize_t npos = 0, ngone = 0; /* the pairs that left the row's families: pos first */
        for (int f = 0; check && f < 2; f++) {
            for (Py_ssize_t k = 0; k < p; k++)
                if (gone_pn[f][j * p + k]) gone[ngone++] = (int32_t)k;
            npos = f ? npos : ngone;
        }
        for (Py_ssize_t d = 0; d < nb; d++) {
            const float *z = zd + d * p, *zsd = zs + d * p;
            if (check && ngone * 4 < p && !left_max(&F, j, z, gone, npos, ngone, marg[j * nb + d])) continue;
            float top = row_max(&F, 1, j, z, zsd, order + d * p, 0.0f);
            marg[j * nb + d] = row_max(&F, 2, j, z, zsd, order + d * p, top);
        }
    }
    if (ok && !gone) PyErr_NoMemory(), ok = 0;
    free(gone);
    families_free(&F);
    free(order), free(zs), free(tmp);
    release(&b);
    if (!ok) return NULL;
    Py_RETURN_NONE;
}

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

/* --- rank sets: the pairs' t statistics and the comparisons with critical values -------- */

/* pair_t(est (p,), sq (p,), gram2 (p, p) = 2·F Fᵀ, t out (p, p), w out (p, p) float32): the
 * elementwise part of rank_sets._pair_t, in its order: σ = √max(sq_j + sq_k − gram2_jk, 0),
 * w = 1/σ in single precision (0 without spread), t = (est_j − est_k)/σ (±inf without spread,
 * then numpy's nan_to_num: NaN → 0, ±inf → ±the largest double), the lower triangle the
 * negated upper one and −inf on the diagonal. */
static PyObject *py_pair_t(PyObject *self, PyObject *args) {
    PyObject *o[5];
    Py_ssize_t p;
    if (!PyArg_ParseTuple(args, "OOOOOn", &o[0], &o[1], &o[2], &o[3], &o[4], &p)) return NULL;
    Buffers b = {.used = 0};
    const double *est = buffer(&b, o[0], 8, 0);
    const double *sq = est ? buffer(&b, o[1], 8, 0) : NULL, *g = sq ? buffer(&b, o[2], 8, 0) : NULL;
    double *t = g ? buffer(&b, o[3], 8, 1) : NULL;
    float *w = t ? buffer(&b, o[4], 4, 1) : NULL;
    for (Py_ssize_t j = 0; w && j < p; j++) {
        for (Py_ssize_t k = 0; k < p; k++) {
            double sd = (sq[j] + sq[k]) - g[j * p + k];
            sd = sd >= 0.0 || isnan(sd) ? sd : 0.0; /* np.maximum(sd, 0): NaN stays */
            sd = sqrt(sd);
            double d = est[j] - est[k];
            if (sd > 0) {
                w[j * p + k] = (float)(1.0 / sd);
                d = d / sd;
            } else {
                w[j * p + k] = 0.0f;
                d = d > 0 ? INFINITY : d < 0 ? -INFINITY : NAN; /* sign(d)·inf */
            }
            if (k > j) t[j * p + k] = isnan(d) ? 0.0 : isinf(d) ? (d > 0 ? DBL_MAX : -DBL_MAX) : d;
        }
    }
    for (Py_ssize_t j0 = 0; w && j0 < p; j0 += 64) /* the lower triangle, in tiles */
        for (Py_ssize_t k0 = 0; k0 <= j0; k0 += 64)
            for (Py_ssize_t j = j0; j < j0 + 64 && j < p; j++)
                for (Py_ssize_t k = k0; k < k0 + 64 && k < j; k++) t[j * p + k] = -t[k * p + j];
    for (Py_ssize_t j = 0; w && j < p; j++) t[j * p + j] = -INFINITY;
    release(&b);
    if (!w) return NULL;
    Py_RETURN_NONE;
}

/* out[k] = v > h for v = sign·row[k] over [k0, k1), the diagonal k = j read as −inf (as
 * _pair_t has it); with ``near``, the k with lo ≤ v ≤ h appended to nj/nk (up to cap). */
static void compare_row(const double *row, Py_ssize_t j, Py_ssize_t p, double sign, double l, double h, uint8_t *out,
                        int with_near, int64_t *nj, int64_t *nk, int64_t *near, Py_ssize_t cap) {
    uint8_t seen = 0;
    for (Py_ssize_t k = 0; k < p; k++) {
        double v = sign * row[k];
        uint8_t above = v > h;
        out[k] = above;
        seen |= !above & (v >= l);
    }
    out[j] = -INFINITY > h;
    seen = seen || (-INFINITY >= l);
    for (Py_ssize_t k = 0; with_near && seen && k < p; k++) {
        double v = k == j ? -INFINITY : sign * row[k];
        if (!(v > h) && v >= l) {
            if (*near < cap) nj[*near] = j, nk[*near] = k;
            (*near)++;
        }
    }
}

/* exceeds(t (p, p), lo (m, p), hi (m, p), back (m,) uint8, out (m, p, p) bool, near_j, near_k
 * (m, cap) int64, count (m,) int64 out, m, p, cap, with_near): for each of the m comparisons o,
 * out[o, j, k] = x > hi[o, j] with x = t[j, k] (back[o]: t[k, j], read as −t[j, k]: t is
 * exactly antisymmetric with −inf on its diagonal, as _pair_t makes it), all in one pass
 * over t; with with_near, the pairs with lo[o, j] ≤ x ≤ hi[o, j] are listed (up to cap of
 * them; count[o] says how many there are). */
static PyObject *py_exceeds(PyObject *self, PyObject *args) {
    PyObject *o[8];
    Py_ssize_t m, p, cap;
    int with_near;
    if (!PyArg_ParseTuple(args, "OOOOOOOOnnni", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &o[6], &o[7], &m, &p, &cap,
                          &with_near))
        return NULL;
    Buffers b = {.used = 0};
    const double *t = buffer(&b, o[0], 8, 0);
    const double *lo = t ? buffer(&b, o[1], 8, 0) : NULL, *hi = lo ? buffer(&b, o[2], 8, 0) : NULL;
    const uint8_t *back = hi ? buffer(&b, o[3], 1, 0) : NULL;
    uint8_t *out = back ? buffer(&b, o[4], 1, 1) : NULL;
    int64_t *nj = out ? buffer(&b, o[5], 8, 1) : NULL, *nk = nj ? buffer(&b, o[6], 8, 1) : NULL;
    int64_t *near = nk ? buffer(&b, o[7], 8, 1) : NULL;
    for (Py_ssize_t c = 0; near && c < m; c++) near[c] = 0;
    for (Py_ssize_t j = 0; near && j < p; j++) /* row by row: the row stays in cache across comparisons */
        for (Py_ssize_t c = 0; c < m; c++)
            compare_row(t + j * p, j, p, back[c] ? -1.0 : 1.0, lo[c * p + j], hi[c * p + j], out + c * p * p + j * p,
                        with_near, nj + c * cap, nk + c * cap, near + c, cap);
    release(&b);
    if (!near) return NULL;
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"stable_order", py_stable_order, METH_VARARGS, "Stable ascending order of float32 rows."},
    {"walk_counts", py_walk_counts, METH_VARARGS, "The range of the walk's counts."},
    {"walk_start", py_walk_start, METH_VARARGS, "Sort, gather and walk the lanes up to their first t tail."},
    {"walk_run", py_walk_run, METH_VARARGS, "Walk the waiting lanes up to their next t tail."},
    {"maxima", py_maxima, METH_VARARGS, "Per-draw maxima over families of pairs."},
#ifdef __SIZEOF_INT128__
    {"bootstrap", py_bootstrap, METH_VARARGS, "euroeval-2026's bootstrap replicates."},
#endif
    {"moments", py_moments, METH_VARARGS, "euroeval-2024's resampled means and variances."},
    {"task_means", py_task_means, METH_VARARGS, "euroeval-2024's task means of a bootstrap chunk."},
    {"pair_t", py_pair_t, METH_VARARGS, "The pairs' t statistics and weights."},
    {"exceeds", py_exceeds, METH_VARARGS, "Pairs whose t is above critical values."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_kernels", "Compiled loops of the ranking.", -1, methods};

/* The interface's version: leaderboard/ranking/kernels.py uses a build of another version
 * (a stale one, not rebuilt after a change of this file) as if there were none. */
#define KERNELS_VERSION 5

PyMODINIT_FUNC PyInit__kernels(void) {
    PyObject *m = PyModule_Create(&module);
    if (m && PyModule_AddIntConstant(m, "VERSION", KERNELS_VERSION) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
