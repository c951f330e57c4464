"""The compiled loops (leaderboard/ranking/_kernels.c) against the numpy code they stand in
for, on random boards: every number the same to the bit (``np.array_equal``, not allclose)."""

import numpy as np
import pytest

from leaderboard.ranking import family_maxima, kernels, rank_sets, walk
from leaderboard.ranking.methods import euroeval_2024, euroeval_2026
from leaderboard.ranking.registry import all_methods

pytestmark = pytest.mark.skipif(kernels._kernels is None, reason="the C kernels are not built (pip install -e .)")


@pytest.fixture
def numpy_only(monkeypatch):
    """A function running its argument with the kernels off."""

    def run(fn, *args, **kwargs):
        with monkeypatch.context() as m:
            m.setattr(kernels, "AVAILABLE", False)
            return fn(*args, **kwargs)

    monkeypatch.setattr(kernels, "AVAILABLE", True)
    return run


def _lanes(rng, lanes, n, missing, ties):
    m = rng.uniform(0, 1, (lanes, n))
    if ties:
        m = np.round(m * 12) / 12
    v = rng.uniform(0, 0.02, (lanes, n))
    v[:, :: max(1, n // 5)] = 0.0 if ties else v[:, :: max(1, n // 5)]
    c = np.full((lanes, n), 10.0)
    c[rng.random((lanes, n)) < 0.1] = rng.integers(1, 12)
    m[rng.random((lanes, n)) < missing] = np.nan
    return (a.astype(np.float32) for a in (m, v, c))


@pytest.mark.parametrize("seed", range(4))
def test_stable_order_is_numpys_stable_argsort(seed):
    """The walk's and the maxima's sort: ties, ±0, +inf (missing entries), keys spread out
    (buckets), bunched (a bucket overflows: the radix sort) and rows under 64 keys."""
    rng = np.random.default_rng(seed)
    n = 2000
    spread = rng.uniform(-1, 1, n)
    near = np.sort(spread) + rng.normal(0, 0.01, n)  # nearly sorted, as the bootstrap's lanes are
    ties = np.round(rng.uniform(-1, 1, n) * 8) / 8
    fine = np.round(rng.uniform(-1, 1, n) * 3000) / 3000  # ties among other keys in one bucket
    bunched = np.where(rng.random(n) < 0.9, 0.5 + rng.normal(0, 1e-4, n), rng.uniform(-50, 50, n))
    for keys in (spread, near, ties, fine, bunched, np.concatenate([ties[:40], [-0.0, 0.0, -0.0]]), np.zeros(5)):
        keys = keys.astype(np.float32)
        keys[rng.random(keys.size) < 0.05] = np.inf
        rows = np.stack([keys, keys[::-1].copy()])
        order = np.empty(rows.shape, dtype=np.int32)
        kernels._kernels.stable_order(rows, order, *rows.shape)
        assert np.array_equal(order, np.argsort(rows, axis=1, kind="stable"))


@pytest.mark.parametrize("seed", range(6))
def test_walk_is_the_numpy_walk(numpy_only, seed):
    rng = np.random.default_rng(seed)
    for lanes, n, missing, ties in ((40, 300, 0.0, False), (30, 120, 0.2, True), (7, 2, 0.5, False), (3, 1, 0, False)):
        m, v, c = _lanes(rng, lanes, n, missing, ties)
        # small steps: many t statistics fall in the band where the t tail decides
        m = np.sort(m, axis=1) * np.float32(0.05)
        want = numpy_only(walk._walk_lanes, m, v, c, walk.ALPHA)
        got = walk._walk_lanes(m, v, c, walk.ALPHA)
        assert got.dtype == want.dtype == np.float32
        assert np.array_equal(got, want)
        if lanes % 10 == 0:  # one row of counts per 10 lanes, as the bootstrap passes them
            rows = np.ascontiguousarray(c[::10][: lanes // 10])
            rows[0, :3] = (1.0, 2.0, 30.0)  # counts that widen the df band
            want = numpy_only(walk._walk_lanes, m, v, rows, walk.ALPHA)
            assert np.array_equal(walk._walk_lanes(m, v, rows, walk.ALPHA), want)


@pytest.mark.parametrize("seed", range(4))
def test_walk_of_bootstrap_like_lanes_is_the_numpy_walk(numpy_only, seed):
    """Lanes as the bootstrap walks them: nearly in order already (best first), so that the
    value buckets hold several entries, out of order, with significant steps and steps in the
    df band inside them; ties (also ±0) within a bucket, variances of 0, missing entries, and
    counts that leave df outside the tail table (one iteration) or widen it."""
    rng = np.random.default_rng(seed)
    lanes, n = 50, 700
    base = np.sort(rng.uniform(0, 1, n))[::-1]
    m = base[None, :] + rng.normal(0, 0.004, (lanes, n))
    if seed % 2:
        m = np.round(m * 400) / 400  # ties, within one bucket and across
        m[:, 5:9] = 0.0
        m[::2, 5:7] = -0.0
    v = rng.uniform(0.0, 0.003, (lanes, n)) * rng.choice([0.0, 1.0, 10.0], (lanes, n), p=[0.05, 0.8, 0.15])
    c = np.full((lanes, n), 10.0)
    if seed >= 2:
        c[rng.random((lanes, n)) < 0.05] = rng.integers(1, 30)
    m[rng.random((lanes, n)) < 0.02] = np.nan
    m, v, c = (a.astype(np.float32) for a in (m, v, c))
    want = numpy_only(walk._walk_lanes, m, v, c, walk.ALPHA)
    assert np.array_equal(walk._walk_lanes(m, v, c, walk.ALPHA), want)
    rows = np.ascontiguousarray(c[::10])  # one row of counts per 10 lanes
    want = numpy_only(walk._walk_lanes, m, v, rows, walk.ALPHA)
    assert np.array_equal(walk._walk_lanes(m, v, rows, walk.ALPHA), want)


@pytest.mark.parametrize("lanes,n", [(40, 2001), (3, 1), (20, 300)])
def test_lane_spread_is_numpys(numpy_only, lanes, n):
    """σ of single-precision lanes (its elementwise steps in C): missing entries, a lane with
    none present, one with one present, and more lanes than one block."""
    rng = np.random.default_rng(n)
    m = rng.uniform(0, 1, (lanes, n)).astype(np.float32)
    m[rng.random(m.shape) < 0.1] = np.nan
    m[0] = np.nan
    m[1, 1:] = np.nan
    want = numpy_only(walk._lane_spread, m)
    got = walk._lane_spread(m)
    assert all(g.dtype == w.dtype and np.array_equal(g, w, equal_nan=True) for g, w in zip(got, want))


@pytest.mark.parametrize("count_range", [(2.0, 2.0), (10.0, 10.0), (3.0, 40.0), (5.0, 1000.0)])
def test_tail_table_decides_as_the_t_tail(count_range):
    """The table that settles steps in the df band without their t tail: every step it calls
    significant (or not) is so by the single-precision ``special.stdtr`` the walk compares with
    alpha, which is within δ/100 of the double-precision tail there; and it settles most steps."""
    from scipy import special

    table = walk._tail_table(count_range)
    grid, sure_sig, sure_not = table[0], table[1, :-1], table[2, :-1]
    rng = np.random.default_rng(int(count_range[1]))
    df = rng.uniform(grid[0], grid[-1], 400_000).astype(np.float32)
    low, high = walk._band_of(count_range)
    t = rng.uniform(low, high, df.size).astype(np.float32)
    k = np.clip(np.searchsorted(grid, df, side="right") - 1, 0, grid.size - 2)
    sig, not_sig = t > sure_sig[k], t < sure_not[k]
    p32 = special.stdtr(df, -t)
    assert p32.dtype == np.float32
    assert np.all(p32[sig] < walk.ALPHA) and not np.any(p32[not_sig] < walk.ALPHA)
    assert (sig | not_sig).mean() > 0.9
    p64 = special.stdtr(df.astype(float), -t.astype(float))
    near = np.abs(p64 / walk.ALPHA - 1) < 0.2
    assert np.max(np.abs(p32[near] / p64[near] - 1)) < walk.TAIL_MARGIN / 100
    assert walk._tail_table(None).size == 0


@pytest.mark.parametrize("seed", range(4))
def test_family_maxima_are_the_dense_maxima(seed):
    rng = np.random.default_rng(seed)
    for p, b in ((120, 40), (300, 25), (2, 3), (1, 4)):
        f = rng.normal(size=(p, 15)) * rng.uniform(0.2, 3, (p, 1))
        zt = np.ascontiguousarray((f @ rng.standard_normal((15, b))).astype(np.float32))
        w = (1 / rng.uniform(0.3, 3, (p, p))).astype(np.float32)
        est = np.sort(rng.normal(size=p) * 3)
        gap = est[:, None] - est[None, :]
        off = ~np.eye(p, dtype=bool)
        fams = (off & (gap < 4), off & (gap < 1 + rng.random((p, p))), off & (gap > -0.5))
        sim, marg = family_maxima.dense_maxima(zt, w, *fams)
        got_sim, got_marg = kernels.family_maxima(zt, w, *fams)
        assert np.array_equal(got_sim, sim) and np.array_equal(got_marg, marg)
        for share in (0.3, 0.99):  # pairs leave the families: many, or a few per row
            gone = tuple(fam & (rng.random((p, p)) > share) for fam in fams)
            fams = tuple(fam & ~g for fam, g in zip(fams, gone))
            kernels.update_maxima(zt, w, fams, got_sim, got_marg, gone, True)
            sim, marg = family_maxima.dense_maxima(zt, w, *fams)
            assert np.array_equal(got_sim, sim) and np.array_equal(got_marg, marg)


@pytest.mark.parametrize(
    "iterations,missing,odd", [(1, 0, False), (3, 0.2, True), (10, 0, True), (10, 0.05, False), (33, 0.3, True)]
)
def test_bootstrap_draws_are_numpys_and_leave_the_generator_as_numpy_does(iterations, missing, odd):
    """The replicates, and the generator's state after them (the next draws too), with the
    PCG64 stream drawn in C: ragged and whole iterations, one-dataset tasks, and a generator
    holding half of a 64-bit output (``odd``) when the bootstrap starts."""
    rng = np.random.default_rng(iterations)
    x = rng.uniform(0, 1, (7, 50, iterations)) ** 3
    x[rng.random(x.shape) < missing] = np.nan
    x[:, :, 0] = rng.uniform(0, 1, (7, 50))
    x = np.ascontiguousarray(np.sort(x, axis=2))
    counts = (~np.isnan(x)).sum(axis=2)
    members = [np.array([0, 3, 5]), np.array([1]), np.array([2, 4, 6, 1])]
    best, sd = rng.uniform(0.5, 1, 7), rng.uniform(0.01, 0.3, 7)
    ours, numpys = np.random.default_rng(5), np.random.default_rng(5)
    if odd:
        ours.integers(0, 7, dtype=np.int32), numpys.integers(0, 7, dtype=np.int32)
    got = kernels.bootstrap_draws(x, counts, members, best, sd, 9, ours)
    want = euroeval_2026._bootstrap_numpy(x, counts, members, best, sd, 9, numpys)
    assert np.array_equal(got, want)
    assert ours.bit_generator.state == numpys.bit_generator.state
    assert np.array_equal(ours.integers(0, 1000, size=9), numpys.integers(0, 1000, size=9))


def test_bootstrap_draws_leave_other_generators_to_numpy():
    x = np.zeros((1, 2, 3))
    rng = np.random.Generator(np.random.Philox(1))
    assert kernels.bootstrap_draws(x, np.full((1, 2), 3), [np.array([0])], np.ones(1), np.ones(1), 2, rng) is None


@pytest.mark.parametrize("seed", range(3))
def test_resampled_moments_are_numpys(numpy_only, seed):
    """The 2024 bootstrap's means and variances of every iteration of a present entry:
    absent entries, a constant entry (variance 0 or a rounding below it) and one iteration."""
    rng = np.random.default_rng(seed)
    d, b, n, i = 3, 5, 60, 10 if seed else 1
    x = rng.uniform(0, 1, (d, n, i))
    x[:, 3] = 0.3
    count0 = np.full((d, n), i)
    count0[:, 7] = 0
    x[:, 7] = np.nan
    mean0, var0 = x.mean(axis=2), np.zeros((d, n))  # NaN for the absent entry
    mu0 = np.where(count0 > 0, mean0, 0.0)
    valid = ~np.isnan(x)
    centred = np.where(valid, x - mu0[..., None], 0.0).transpose(0, 2, 1)
    w = rng.multinomial(i, np.ones(i) / i, size=(d, b)).astype(float)
    outs = [(np.empty((d, b, n), np.float32), np.empty((d, b, n), np.float32)) for _ in range(2)]
    args = (w, centred, centred * centred, mu0, mean0, var0, count0, valid, i)
    numpy_only(euroeval_2024._moments, *args, *outs[0], None)
    euroeval_2024._moments(*args, *outs[1], None)
    for want, got in zip(*outs):
        assert np.array_equal(got, want, equal_nan=True)


@pytest.mark.parametrize("seed", range(3))
def test_task_means_are_numpys(numpy_only, seed):
    """The 2024 bootstrap's task means of a chunk: unranked entries (inf) and tasks of one
    and of many datasets."""
    rng = np.random.default_rng(seed)
    d, b, n = 9, 6, 70
    rs = (1 + rng.uniform(0, 3, (d, b, n))).astype(np.float32)
    rs[rng.random(rs.shape) < 0.05] = np.inf
    perm = np.argsort(rng.random((d, n)), axis=1)
    picks = [rng.integers(0, d, size=(b, k)) for k in (1, 4, 9)]
    want, got = rng.uniform(0, 2, (b, n)), np.empty((b, n))
    got[...] = want
    numpy_only(euroeval_2024._task_means, rs, perm, picks, want)
    euroeval_2024._task_means(rs, perm, picks, got)
    assert np.array_equal(got, want)


def _board(rng, entries, datasets, iterations, missing):
    ability = rng.uniform(0.2, 0.8, entries)
    mean = np.clip(ability[None, :] + rng.normal(0, 0.05, (datasets, entries)), 0, 1)
    scores = np.clip(mean[..., None] + rng.normal(0, 0.03, (datasets, entries, iterations)), 0, 1)
    scores[rng.random(scores.shape) < missing] = np.nan
    return np.sort(scores, axis=2), [f"task-{d % 3}" for d in range(datasets)]


@pytest.mark.parametrize("seed,missing", [(0, 0.0), (1, 0.03)])
def test_every_method_ranks_as_with_numpy(numpy_only, seed, missing):
    scores, tasks = _board(np.random.default_rng(seed), 300, 6, 10, missing)
    entries = [(e, True, False) for e in range(scores.shape[1])]
    for method in all_methods():
        run = lambda m=method: m.rank_language_board(scores, tasks, entries, replicates=20, seed=seed)  # noqa: E731
        want, got = numpy_only(run), run()
        for name in ("rank_scores", "ci_low", "ci_high", "ranks", "replicates", "dataset_rank_scores"):
            assert np.array_equal(getattr(got, name), getattr(want, name), equal_nan=True), (method.name, name)
        if want.rank_sets is not None:
            for name in ("marginal_low", "marginal_high", "simultaneous_low", "simultaneous_high"):
                assert np.array_equal(getattr(got.rank_sets, name), getattr(want.rank_sets, name)), (method.name, name)


@pytest.mark.parametrize("seed", range(3))
def test_pair_statistics_and_their_comparisons_are_numpys(numpy_only, seed):
    rng = np.random.default_rng(seed)
    p = 150
    est = np.round(rng.normal(size=p), 1)  # ties: equal estimates
    f = rng.normal(size=(p, 12)) * rng.uniform(0, 1, (p, 1))
    f[:5] = 0.0  # no spread between these five
    want_t, want_w = numpy_only(rank_sets._pair_t, est, f)
    t, w = rank_sets._pair_t(est, f)
    assert np.array_equal(t, want_t) and np.array_equal(w, want_w)
    c = np.linspace(1.5, 3.5, p)[:, None]
    for df in (None, 9):
        above = rank_sets._Exceeds(t, df)
        for back in (False, True):
            for crit in (2.2, c):
                want = numpy_only(above, crit, back=back)
                assert np.array_equal(above(crit, back=back), want)
        both = [(2.2, False), (c, False), (c, True), (c[::-1], True)]  # in one pass, as the stepdown asks
        for got, want in zip(above.many(both), numpy_only(above.many, both), strict=True):
            assert np.array_equal(got, want)
