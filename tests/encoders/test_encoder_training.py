"""The training loop's control flow: OOM halving, gradient accumulation, early stopping.

The model here is a real (one-weight) torch module, so the optimizer, the gradients and
the state restoring are the real ones; its size is what makes the control flow testable.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import torch

from evaluation.encoders.training import (
    CPU_BATCH_TOKENS,
    BatchSize,
    EarlyStopping,
    OutOfMemoryAtBatchSizeOne,
    TrainingSettings,
    chunks,
    is_out_of_memory,
    run_with_oom_halving,
    train,
)


def test_is_out_of_memory_recognises_torch_and_runtime_errors():
    assert is_out_of_memory(torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 2 GiB"))
    assert is_out_of_memory(RuntimeError("DefaultCPUAllocator: can't allocate memory: you tried... out of memory"))
    assert not is_out_of_memory(RuntimeError("shape mismatch"))
    assert not is_out_of_memory(ValueError("out of memory"))


def test_oom_halving_retries_the_whole_pass_with_smaller_chunks():
    calls = []
    resets = []

    def run_chunk(chunk):
        calls.append(len(chunk))
        if len(chunk) > 8:
            raise torch.OutOfMemoryError("out of memory")
        return sum(chunk)

    batch = BatchSize(32)
    results = run_with_oom_halving(list(range(40)), batch, run_chunk, on_oom=lambda: resets.append(True))
    assert batch.size == 8 and batch.halvings == 2
    assert len(resets) == 2  # gradients cleared after each failed attempt
    assert calls == [32, 16, 8, 8, 8, 8, 8]
    assert results == [sum(range(0, 8)), sum(range(8, 16)), sum(range(16, 24)), sum(range(24, 32)), sum(range(32, 40))]


def test_oom_at_batch_size_one_is_a_clear_error():
    def always_oom(chunk):
        raise RuntimeError("CUDA out of memory")

    batch = BatchSize(4)
    with pytest.raises(OutOfMemoryAtBatchSizeOne, match="batch of one example"):
        run_with_oom_halving([1, 2, 3, 4], batch, always_oom)
    assert batch.size == 1


def test_other_errors_propagate_without_halving():
    batch = BatchSize(4)

    def broken(chunk):
        raise RuntimeError("shape mismatch")

    with pytest.raises(RuntimeError, match="shape mismatch"):
        run_with_oom_halving([1, 2], batch, broken)
    assert batch.size == 4


class Scalar(torch.nn.Module):
    """y = w·x with squared-error loss; raises OOM on batches larger than ``max_batch``."""

    def __init__(self, max_batch: int | None = None) -> None:
        super().__init__()
        self.w = torch.nn.Parameter(torch.zeros(()))
        self.max_batch = max_batch
        self.batch_sizes: list[int] = []

    def forward(self, x, labels):
        if self.training:
            self.batch_sizes.append(len(x))
        if self.max_batch is not None and len(x) > self.max_batch:
            raise torch.OutOfMemoryError("simulated: out of memory")
        return SimpleNamespace(loss=((self.w * x - labels) ** 2).mean())


def collate(features):
    return {"x": torch.tensor([f["x"] for f in features]), "labels": torch.tensor([f["y"] for f in features])}


def examples(slope: float, n: int):
    return [{"x": 1.0 + (i % 3), "y": slope * (1.0 + (i % 3))} for i in range(n)]


def test_oom_during_training_halves_and_keeps_the_effective_batch():
    settings = TrainingSettings(learning_rate=0.1, effective_batch_size=32, batch_size=32, max_steps=3, eval_every=100)
    reference = Scalar()
    train(reference, examples(2.0, 64), [], collate, settings, seed=1)

    small = Scalar(max_batch=8)
    batch = BatchSize(32)
    report = train(small, examples(2.0, 64), [], collate, settings, seed=1, batch=batch)
    assert report.steps == 3 and report.final_batch_size == 8 and batch.halvings == 2
    # after the halving every step is 4 micro-batches of 8 (accumulation 4): the same gradient
    assert small.batch_sizes[-4:] == [8, 8, 8, 8]
    assert small.w.item() == pytest.approx(reference.w.item(), abs=1e-5)


def feature(length: int, choices: int = 0) -> dict:
    if choices:
        return {"input_ids": [[1] * length] * choices}
    return {"input_ids": [1] * length}


def test_a_token_bound_cuts_chunks_by_padded_tokens_as_well_as_by_count():
    items = [feature(10), feature(10), feature(30), feature(5), feature(5), feature(5)]
    # padded to each chunk's longest: [10, 10] = 20 tokens; adding 30 would make 3 x 30 = 90
    assert [len(c) for c in chunks(items, 4, max_tokens=64)] == [2, 2, 2]
    assert [len(c) for c in chunks(items, 4, max_tokens=None)] == [4, 2]
    assert [len(c) for c in chunks(items, 2, max_tokens=10_000)] == [2, 2, 2]
    # a multiple-choice row counts each choice; a row over the bound alone is its own chunk
    rows = [feature(20, choices=4), feature(20, choices=4), feature(100, choices=4), feature(5, choices=4)]
    assert [len(c) for c in chunks(rows, 32, max_tokens=200)] == [2, 1, 1]


def test_only_a_cpu_bounds_the_tokens_of_a_micro_batch():
    assert BatchSize.for_device(32, "cpu").max_tokens == CPU_BATCH_TOKENS
    assert BatchSize.for_device(32, "cuda").max_tokens is None


def test_a_token_bound_gives_the_same_training_as_one_micro_batch():
    """Micro-batches cut by tokens accumulate the gradient of the whole step."""

    def with_ids(rows):
        return [{**row, "input_ids": [1] * (3 if row["x"] > 2 else 1)} for row in rows]

    settings = TrainingSettings(learning_rate=0.1, effective_batch_size=32, batch_size=32, max_steps=3, eval_every=100)
    reference = Scalar()
    train(reference, with_ids(examples(2.0, 64)), [], collate, settings, seed=1)
    bounded = Scalar()
    train(bounded, with_ids(examples(2.0, 64)), [], collate, settings, seed=1, batch=BatchSize(32, max_tokens=24))
    assert len(bounded.batch_sizes) > len(reference.batch_sizes) == 3
    # every third row has 3 tokens: a chunk with one of them pads to 3 a row, so 8 rows at most
    assert max(bounded.batch_sizes) == 8
    assert bounded.w.item() == pytest.approx(reference.w.item(), abs=1e-6)


def test_early_stopping_restores_the_best_checkpoint():
    # train pulls w towards 5, validation wants w = 0.3: AdamW moves w by ~lr = 0.1 per
    # step, so the val loss falls until step 3 (w ≈ 0.3), then rises at steps 4 and 5
    settings = TrainingSettings(learning_rate=0.1, max_steps=50, eval_every=1, patience=2)
    model = Scalar()
    weights = {}
    report = train(
        model,
        examples(5.0, 32),
        examples(0.3, 8),
        collate,
        settings,
        seed=7,
        on_step=lambda step, cap: weights.__setitem__(step, model.w.item()),
    )
    assert report.stopped_early
    assert report.steps == 5  # two evaluations without improvement after the best
    assert report.best_step == 3
    assert [step for step, _ in report.val_losses] == [1, 2, 3, 4, 5]
    assert model.w.item() == pytest.approx(weights[3])
    assert weights[5] > weights[3]


def test_early_stopping_counts_only_consecutive_bad_evaluations():
    model = torch.nn.Linear(1, 1)
    stopper = EarlyStopping(patience=2)
    assert not stopper.update(30, 1.0, model)
    assert not stopper.update(60, 1.2, model)  # one bad
    assert not stopper.update(90, 0.8, model)  # improvement resets the count
    assert not stopper.update(120, 0.8, model)  # equal is not better
    assert stopper.update(150, 0.9, model)  # second bad in a row: stop
    assert stopper.best_step == 90


def test_max_steps_bounds_training_without_validation():
    settings = TrainingSettings(learning_rate=0.1, max_steps=4, eval_every=30)
    model = Scalar()
    report = train(model, examples(1.0, 10), [], collate, settings, seed=3)
    assert report.steps == 4 and not report.stopped_early and report.best_step is None


def test_settings_validate_their_values():
    with pytest.raises(ValueError):
        TrainingSettings(max_steps=0)
    with pytest.raises(ValueError):
        TrainingSettings(eval_every=0)
    assert TrainingSettings().step_cap == 1000
    assert TrainingSettings(batch_size=64).batch_size == 32
