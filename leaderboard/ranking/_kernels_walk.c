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
