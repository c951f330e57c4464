"""A small fine-tuning loop: AdamW, gradient accumulation, early stopping, OOM halving.

docs/methodology.md §1 (encoders): AdamW, learning rate 2e-5, effective batch 32, evaluate on
val every 30 steps, early stopping with patience 2, restore the best checkpoint.

- A *step* is one optimizer update over one effective batch (32 examples), computed as
  micro-batches of ``batch_size`` examples whose gradients are accumulated.
- Early stopping watches the validation loss (lower is better), like the Hugging Face
  Trainer's default with ``load_best_model_at_end``. The best ``state_dict`` is kept in
  memory (on the CPU) and restored at the end.
- On out-of-memory the micro-batch size halves (accumulation doubles, so the effective
  batch stays 32) and the interrupted step is redone from scratch; the run goes on.
- A CPU has no out-of-memory error to halve on: the kernel kills the process. There a
  micro-batch also holds at most ``CPU_BATCH_TOKENS`` padded tokens (every sequence of
  every row, multiple-choice rows counting each choice, padded to the chunk's longest), so
  long texts and many choices make more, smaller micro-batches instead of a process that
  outgrows the machine (20 GB for 32 four-choice exam questions). The gradient is the same
  sum: each micro-batch's loss is weighted by its share of the step.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

logger = logging.getLogger(__name__)

DEFAULT_LEARNING_RATE = 2e-5
DEFAULT_EFFECTIVE_BATCH = 32
DEFAULT_EVAL_EVERY = 30
DEFAULT_PATIENCE = 2
# With max_steps=None training runs until early stopping, capped here (EuroEval's cap).
DEFAULT_MAX_STEPS_CAP = 1000
# Padded tokens per micro-batch on a CPU: 32 sequences of 256 tokens.
CPU_BATCH_TOKENS = 8192


class OutOfMemoryAtBatchSizeOne(RuntimeError):
    """Even a micro-batch of one example does not fit in memory."""


def is_out_of_memory(exc: BaseException) -> bool:
    """Whether ``exc`` is torch running out of (GPU) memory."""
    if isinstance(exc, torch.OutOfMemoryError):
        return True
    return isinstance(exc, RuntimeError) and "out of memory" in str(exc).lower()


@dataclass
class TrainingSettings:
    """How an encoder is fine-tuned: learning rate, batch sizes, evaluation interval, early-stopping patience and a
    step cap."""

    learning_rate: float = DEFAULT_LEARNING_RATE
    effective_batch_size: int = DEFAULT_EFFECTIVE_BATCH
    batch_size: int = DEFAULT_EFFECTIVE_BATCH  # first micro-batch size tried; halves on OOM
    eval_every: int = DEFAULT_EVAL_EVERY
    patience: int = DEFAULT_PATIENCE
    max_steps: int | None = None  # None: until early stopping, at most DEFAULT_MAX_STEPS_CAP

    def __post_init__(self) -> None:
        if self.effective_batch_size < 1 or self.batch_size < 1:
            raise ValueError("batch sizes must be positive")
        if self.eval_every < 1:
            raise ValueError("eval_every must be at least 1")
        if self.patience < 1:
            raise ValueError("patience must be at least 1")
        if self.max_steps is not None and self.max_steps < 1:
            raise ValueError("max_steps must be at least 1 (or None for the default)")
        self.batch_size = min(self.batch_size, self.effective_batch_size)

    @property
    def step_cap(self) -> int:
        """The most steps a fine-tuning takes: ``max_steps``, else the default cap."""
        return self.max_steps if self.max_steps is not None else DEFAULT_MAX_STEPS_CAP


@dataclass
class BatchSize:
    """The current micro-batch size; shared by training and inference so an OOM is learnt once."""

    size: int
    halvings: int = 0
    max_tokens: int | None = None  # padded tokens per micro-batch (a CPU's bound); None: no bound

    @classmethod
    def for_device(cls, size: int, device: str) -> BatchSize:
        """``size`` examples per micro-batch, and on a CPU at most ``CPU_BATCH_TOKENS`` padded tokens."""
        return cls(size, max_tokens=CPU_BATCH_TOKENS if device == "cpu" else None)

    def halve(self) -> None:
        """Halve the batch size after running out of memory; out of memory at one example raises."""
        if self.size <= 1:
            raise OutOfMemoryAtBatchSizeOne(
                "out of memory even with a batch of one example: use a device with more memory or a smaller model"
            )
        self.size = max(1, self.size // 2)
        self.halvings += 1


def chunks(items: Sequence, size: int, max_tokens: int | None = None) -> list[Sequence]:
    """``items`` cut into consecutive slices of at most ``size``, and, with ``max_tokens``, of
    at most that many padded tokens (a single item over it is a slice of its own)."""
    if max_tokens is None:
        return [items[start : start + size] for start in range(0, len(items), size)]
    slices, start = [], 0
    while start < len(items):
        end, sequences, longest = start + 1, *_shape(items[start])
        while end < len(items) and end - start < size:
            more, length = _shape(items[end])
            if (sequences + more) * max(longest, length) > max_tokens:
                break
            end, sequences, longest = end + 1, sequences + more, max(longest, length)
        slices.append(items[start:end])
        start = end
    return slices


def _shape(item: Any) -> tuple[int, int]:
    """(sequences, longest sequence) of one encoded feature; multiple choice: one per choice."""
    ids = item.get("input_ids", []) if isinstance(item, dict) else []
    if ids and isinstance(ids[0], list):
        return len(ids), max(len(choice) for choice in ids)
    return 1, len(ids)


def run_with_oom_halving(
    items: Sequence,
    batch: BatchSize,
    run_chunk: Callable[[Sequence], Any],
    *,
    on_oom: Callable[[], None] | None = None,
) -> list[Any]:
    """Call ``run_chunk`` on consecutive chunks of ``items`` of ``batch.size`` each.

    On out-of-memory: ``on_oom()`` (e.g. zero the gradients), halve the batch size and
    start over with the whole of ``items``, so a partly accumulated step never counts.
    Returns the results of the successful pass, one per chunk.
    """
    while True:
        try:
            return [run_chunk(chunk) for chunk in chunks(items, batch.size, batch.max_tokens)]
        except Exception as exc:  # noqa: BLE001 - re-raised unless it is an OOM
            if not is_out_of_memory(exc):
                raise
            if on_oom is not None:
                on_oom()
            _release_cached_memory()
            batch.halve()


def _release_cached_memory() -> None:
    if torch.cuda.is_available():
        torch.cuda.empty_cache()


class EarlyStopping:
    """Track validation losses; say when to stop; keep the best state in memory."""

    def __init__(self, patience: int) -> None:
        self.patience = patience
        self.best_loss = math.inf
        self.best_step: int | None = None
        self.best_state: dict[str, torch.Tensor] | None = None
        self.bad_evaluations = 0

    def update(self, step: int, loss: float, model: torch.nn.Module) -> bool:
        """Record an evaluation; return True when training should stop."""
        if loss < self.best_loss:
            self.best_loss = loss
            self.best_step = step
            self.best_state = {k: v.detach().to("cpu", copy=True) for k, v in model.state_dict().items()}
            self.bad_evaluations = 0
            return False
        self.bad_evaluations += 1
        return self.bad_evaluations >= self.patience

    def restore_best(self, model: torch.nn.Module) -> None:
        """Load the weights of the best validation loss back into ``model``."""
        if self.best_state is not None:
            model.load_state_dict(self.best_state)


@dataclass
class TrainingReport:
    """What a fine-tuning did: its steps, best validation loss and step, and whether it stopped early."""

    steps: int
    best_step: int | None
    best_val_loss: float
    val_losses: list[tuple[int, float]] = field(default_factory=list)
    stopped_early: bool = False
    final_batch_size: int = 0


def epoch_order(num_examples: int, seed: int) -> Callable[[int], np.ndarray]:
    """Shuffled example order of each epoch, reproducible from ``seed``."""
    rng = np.random.default_rng(seed)
    cache: dict[int, np.ndarray] = {}

    def order(epoch: int) -> np.ndarray:
        while len(cache) <= epoch:
            cache[len(cache)] = rng.permutation(num_examples)
        return cache[epoch]

    return order


def effective_batches(num_examples: int, batch: int, seed: int):
    """Endless stream of index arrays of size ``batch`` (the last of an epoch may be smaller)."""
    order = epoch_order(num_examples, seed)
    epoch = 0
    while True:
        perm = order(epoch)
        for start in range(0, num_examples, batch):
            yield perm[start : start + batch]
        epoch += 1


def train(
    model: torch.nn.Module,
    train_features: Sequence[dict],
    val_features: Sequence[dict],
    collate: Callable[[Sequence[dict]], dict[str, torch.Tensor]],
    settings: TrainingSettings,
    *,
    seed: int,
    device: str = "cpu",
    batch: BatchSize | None = None,
    on_step: Callable[[int, int], None] | None = None,
) -> TrainingReport:
    """Fine-tune ``model`` (a transformers model whose forward returns ``.loss``) in place."""
    if not train_features:
        raise ValueError("no training examples")
    torch.manual_seed(seed)
    batch = batch or BatchSize.for_device(settings.batch_size, device)
    model.to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=settings.learning_rate)
    stopper = EarlyStopping(settings.patience)
    report = TrainingReport(steps=0, best_step=None, best_val_loss=math.inf)
    cap = settings.step_cap
    stream = effective_batches(len(train_features), settings.effective_batch_size, seed)

    def evaluate_and_check(step: int) -> bool:
        loss = validation_loss(model, val_features, collate, batch, device)
        report.val_losses.append((step, loss))
        logger.info("step %d: val loss %.4f (best %.4f)", step, loss, min(loss, stopper.best_loss))
        return stopper.update(step, loss, model)

    for step in range(1, cap + 1):
        model.train()
        examples = [train_features[j] for j in next(stream)]
        total = len(examples)

        def run_chunk(chunk: Sequence[dict], total: int = total) -> float:
            inputs = {k: v.to(device) for k, v in collate(chunk).items()}
            loss = model(**inputs).loss * (len(chunk) / total)
            loss.backward()
            return float(loss.detach())

        run_with_oom_halving(examples, batch, run_chunk, on_oom=lambda: optimizer.zero_grad(set_to_none=True))
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        report.steps = step
        if on_step is not None:
            on_step(step, cap)
        validate = val_features and (step % settings.eval_every == 0 or step == cap)
        if validate and evaluate_and_check(step):
            report.stopped_early = True
            break

    stopper.restore_best(model)
    report.best_step = stopper.best_step
    report.best_val_loss = stopper.best_loss
    report.final_batch_size = batch.size
    model.eval()
    return report


@torch.no_grad()
def validation_loss(
    model: torch.nn.Module,
    features: Sequence[dict],
    collate: Callable[[Sequence[dict]], dict[str, torch.Tensor]],
    batch: BatchSize,
    device: str,
) -> float:
    """Mean loss over ``features``, weighted by micro-batch size."""
    model.eval()

    def run_chunk(chunk: Sequence[dict]) -> tuple[float, int]:
        inputs = {k: v.to(device) for k, v in collate(chunk).items()}
        return float(model(**inputs).loss) * len(chunk), len(chunk)

    parts = run_with_oom_halving(features, batch, run_chunk)
    return sum(p for p, _ in parts) / max(1, sum(n for _, n in parts))


@torch.no_grad()
def predict_batches(
    model: torch.nn.Module,
    features: Sequence[dict],
    collate: Callable[[Sequence[dict]], dict[str, torch.Tensor]],
    batch: BatchSize,
    device: str,
    output_keys: Sequence[str] = ("logits",),
) -> list[dict[str, np.ndarray]]:
    """Model outputs per chunk (numpy, on the CPU), without labels in the inputs."""
    model.eval()

    def run_chunk(chunk: Sequence[dict]) -> dict[str, np.ndarray]:
        inputs = {k: v.to(device) for k, v in collate(chunk).items() if k not in LABEL_KEYS}
        outputs = model(**inputs)
        result = {key: getattr(outputs, key).float().cpu().numpy() for key in output_keys}
        result["attention_mask"] = inputs["attention_mask"].cpu().numpy()
        return result

    return run_with_oom_halving(features, batch, run_chunk)


LABEL_KEYS = frozenset({"labels", "start_positions", "end_positions"})
