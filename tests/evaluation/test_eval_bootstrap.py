"""The bootstrap equals the methodology's exact numpy calls; shot selection rules."""

import numpy as np

from evaluation.bootstrap import bootstrap_indices, select_shots


def test_bootstrap_equals_methodology_numpy_calls():
    sizes = {"train": 340, "val": 84, "test": 424}
    rng = np.random.default_rng(4242)
    expected = {split: rng.integers(0, sizes[split], size=(10, sizes[split])) for split in ("train", "val", "test")}
    got = bootstrap_indices(sizes, iterations=2)
    for split in expected:
        assert got[split].shape == (10, sizes[split])
        assert np.array_equal(got[split], expected[split])


def test_bootstrap_is_reproducible_and_independent_of_iteration_count():
    sizes = {"train": 50, "val": 10, "test": 64}
    a, b = bootstrap_indices(sizes, 10), bootstrap_indices(sizes, 3)
    assert all(np.array_equal(a[s], b[s]) for s in sizes)


def test_limit_draws_test_indices_from_first_k_rows():
    got = bootstrap_indices({"train": 50, "val": 10, "test": 8})
    assert got["test"].max() < 8 and got["test"].shape == (10, 8)


ROWS = (
    [{"text": "x" * 600 + str(k), "label": "positive"} for k in range(10)]  # long rows
    + [{"text": f"short {k}", "label": ["positive", "negative", "neutral"][k % 3]} for k in range(30)]
    + [{"text": "short 0", "label": "positive"}]
)  # duplicate text of row 10


def _select(indices, iteration=0, stratified=True, shots=6):
    return select_shots(
        ROWS,
        indices,
        num_shots=shots,
        iteration=iteration,
        text_of=lambda r: r["text"],
        dedupe_key=lambda r: r["text"],
        label_of=(lambda r: r["label"]) if stratified else None,
        labels=["positive", "neutral", "negative"] if stratified else None,
    )


def test_shots_prefer_short_stratified_and_deduplicated():
    indices = np.arange(len(ROWS))
    picked = _select(indices)
    assert len(picked) == 6
    assert all(len(ROWS[r]["text"]) <= 512 for r in picked)
    assert len({ROWS[r]["text"] for r in picked}) == 6
    labels = [ROWS[r]["label"] for r in picked]
    assert labels == ["positive", "neutral", "negative"] * 2  # cycles through the labels


def test_shots_follow_the_seeded_shuffle():
    indices = np.arange(len(ROWS))
    order = np.random.default_rng(4242 + 3).permutation(len(indices))
    expected = []
    for k in order:
        row_id = int(indices[k])
        if len(ROWS[row_id]["text"]) <= 512 and ROWS[row_id]["text"] not in {ROWS[e]["text"] for e in expected}:
            expected.append(row_id)
    assert _select(indices, iteration=3, stratified=False, shots=4) == expected[:4]
    assert _select(indices, iteration=3) == _select(indices, iteration=3)
    assert _select(indices, iteration=3) != _select(indices, iteration=4)


def test_larger_cap_when_short_rows_are_too_few():
    indices = np.array([0, 1, 2, 10])  # three long rows, one short one
    picked = _select(indices, stratified=False, shots=3)
    assert len(picked) == 3
