/* Part of _kernels.c, which includes it (one translation unit: these functions stay static;
 * setup.py compiles _kernels.c only): the rank sets' family maxima, pair statistics and comparisons. */

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
