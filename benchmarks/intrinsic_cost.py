"""What the intrinsic measures (bits per byte, the membership probe) cost on top of an
evaluation, what their budget costs in precision, and the engine's time against a lower bound.

Not a test: run by hand, numbers go to BENCHMARKS.md.

    .venv/bin/python benchmarks/intrinsic_cost.py [--limit 48] [--datasets a b] [--model M]
        [--iterations 1] [--repeat 3] [--against-full] [--precision]

Per dataset, ITERATIONS few-shot iterations of ``evaluate_dataset`` on the first LIMIT test
rows (one: as ``benchmarks/harness_compare.py`` runs ours; ``--limit 32 --iterations 3``: the
demo protocol), timed with the intrinsic measures off, on (the budget for the rows it
scored, ``evaluation.intrinsic.budget``: an empty evidence store) and on again (the evidence
reused): after a warm-up run, REPEAT rounds of the three, medians in wall and in CPU seconds
of the process (on a shared machine the CPU seconds of one thread, ``OMP_NUM_THREADS=1``, are
the steadier: two threads spin while they wait for a core). Then the measures alone at that
budget and at the budget before it (32 documents per split of 600 characters), each with
bits per byte and the probe's AUC and their standard errors from the real per-document
values. ``--against-full`` also compares
``token_logprobs`` with one full-vocabulary log-softmax pass per document (the way before);
``--precision`` prints only bits per byte and the AUC with their standard errors on the
first 2, 3, 4, 8, 16 and 32 documents a split (300 characters each).

Lower bound for this engine, which computes a few-shot prefix's KV cache once and then only
the prompts' suffixes: one forward pass over each distinct shared prefix plus batched passes
over the unique suffixes alone (last position; a suffix attending to no prefix is less work
than the engine's), same model and dtype, timed the second of two times; the engine's time
without the measures over it.
"""

from __future__ import annotations

import argparse
import functools
import os
import statistics
import tempfile
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ["GLOSSA_INTRINSIC_CACHE"] = tempfile.mkdtemp(prefix="intrinsic-")  # nothing kept from before

from evaluation.backends.transformers import TransformersBackend  # noqa: E402
from evaluation.datasets import load_dataset  # noqa: E402
from evaluation.intrinsic import budget, intrinsic_scores, membership_probe  # noqa: E402
from evaluation.models import local_weights, resolve_model  # noqa: E402
from evaluation.prompts import TaskFormat  # noqa: E402
from evaluation.runner import EvaluationSettings, engine_task, evaluate_dataset  # noqa: E402

BEFORE = (32, 600)  # the budget before it was a setting: documents per split, characters each


class Recording(TransformersBackend):
    """The transformers backend, noting every prompt it is asked to score or continue, with
    the shared prefix it was given."""

    calls: list[tuple[list[str], str | None]]

    def label_logprobs(self, prompts, continuations, shared_prefix=None):
        self.calls.append((list(prompts), shared_prefix))
        return super().label_logprobs(prompts, continuations, shared_prefix)

    def generate(self, prompts, *args, **kwargs):
        self.calls.append((list(prompts), None))
        return super().generate(prompts, *args, **kwargs)


def full_vocabulary(backend, texts):
    """The way before: one forward pass per text, log-softmax over all logits."""
    torch = backend.torch
    bos = backend.tokenizer.bos_token_id
    out = []
    with torch.inference_mode():
        for text in texts:
            ids = ([bos] if bos is not None else []) + backend.tokenizer(text, add_special_tokens=False)["input_ids"]
            if len(ids) < 2:
                out.append([])
                continue
            tensor = torch.tensor([ids[: backend.max_context]])
            logits = backend.model(input_ids=tensor).logits[0, :-1].float()
            out.append(torch.log_softmax(logits, dim=-1).gather(-1, tensor[0, 1:].unsqueeze(-1)).squeeze(-1).tolist())
    return out


def lower_bound(backend, calls):
    """(Wall, CPU) seconds of one pass over each distinct shared prefix plus batched passes
    over the unique suffixes alone, the second of two; with the count of suffixes and of the
    tokens passed."""
    torch = backend.torch
    prefixes: dict[tuple[int, ...], None] = {}
    suffixes: dict[tuple[int, ...], None] = {}
    for prompts, shared in calls:
        encoded = [backend.encode(p) for p in prompts]
        prefix = backend._common_prefix_ids(encoded, shared)
        if prefix:
            prefixes[tuple(prefix)] = None
        suffixes.update((tuple(e[len(prefix) :]), None) for e in encoded)
    rows = [list(s) for s in suffixes]
    run = functools.partial(backend.model, logits_to_keep=1, use_cache=False)
    with torch.inference_mode():
        for _ in range(2):  # the second time is measured: the first pays for new shapes
            wall, cpu = time.perf_counter(), time.process_time()
            for prefix in prefixes:
                run(input_ids=torch.tensor([prefix], device=backend.device))
            for batch in backend._batches(rows):
                ids, mask = backend._left_pad([rows[k] for k in batch])
                pos = (mask.cumsum(-1) - 1).clamp(min=0)
                run(input_ids=ids, attention_mask=mask, position_ids=pos)
    tokens = sum(len(p) for p in prefixes) + sum(len(r) for r in rows)
    return (time.perf_counter() - wall, time.process_time() - cpu), len(rows), tokens


def documents(dataset, fmt, limit, texts, chars):
    """The measures' test and train documents under a budget, as ``evaluation/intrinsic.py`` cuts them."""
    test = [fmt.document(r)[:chars] for r in dataset.splits["test"][:limit][:texts]]
    test = [d for d in test if d.strip()]
    train = [fmt.document(r)[:chars] for r in dataset.splits["train"][:texts]][: len(test)]
    return test, [d for d in train if d.strip()]


def at_budget(backend, dataset, fmt, limit, limits):
    """The measures alone under ``limits`` (documents, characters): seconds, tokens, bits
    per byte and the probe's AUC with their standard errors."""
    test, train = documents(dataset, fmt, limit, *limits)
    (test_lp, train_lp), seconds, cpu = timed(lambda: (backend.token_logprobs(test), backend.token_logprobs(train)))
    scores, probe = intrinsic_scores(test, test_lp), membership_probe(test_lp, train_lp)
    return (
        f"{limits[0]} × {limits[1]} chars: {seconds:.1f} s (CPU {cpu:.1f} s), {len(test)}+{len(train)} documents, "
        f"{sum(map(len, test_lp)) + sum(map(len, train_lp))} tokens; bits per byte "
        f"{scores['bits_per_byte']:.3f} ± {scores['bits_per_byte_se']:.3f} (SE); "
        f"AUC {probe['auc']:.3f} ± {probe['auc_se']:.3f} (SE), p {probe['p_value']:.2g}"
    )


def precision(backend, dataset, fmt, limit):
    """Bits per byte and the probe's AUC with their standard errors on the first n of 32
    documents a split (300 characters), for n from 2 to 32: one scoring, real values."""
    test, train = documents(dataset, fmt, limit, 32, 300)  # the first 48 test rows hold 32 documents
    test_lp, train_lp = backend.token_logprobs(test), backend.token_logprobs(train)
    rows = []
    for n in (2, 3, 4, 8, 16, 32):
        scores, probe = intrinsic_scores(test[:n], test_lp[:n]), membership_probe(test_lp[:n], train_lp[:n])
        rows.append(
            f"{n}: {scores['bits_per_byte']:.3f} ± {scores['bits_per_byte_se']:.3f}, "
            f"AUC {probe['auc']:.2f} ± {probe['auc_se']:.2f} (p {probe['p_value']:.2g})"
        )
    return "; ".join(rows)


def against_full(backend, docs):
    """``token_logprobs`` against one full-vocabulary pass per document: both times and the largest difference."""
    t0 = time.perf_counter()
    new = backend.token_logprobs(docs)
    t_new = time.perf_counter() - t0
    t0 = time.perf_counter()
    old = full_vocabulary(backend, docs)
    t_old = time.perf_counter() - t0
    worst = max((abs(a - b) for x, y in zip(new, old, strict=True) for a, b in zip(x, y, strict=True)), default=0.0)
    return f"chunked {t_new:.1f} s, one full-vocabulary pass each {t_old:.1f} s, largest difference {worst:.2e} nats"


def timed(fn, *args):
    """``fn(*args)``, its wall seconds and this process's CPU seconds (all its threads)."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = fn(*args)
    return result, time.perf_counter() - wall, time.process_time() - cpu


def evaluations(backend, info, dataset, args):
    """Median (wall, CPU) seconds of the evaluation with the measures off, on (an empty
    evidence store) and on again (reused), over ``repeat`` rounds after one unmeasured
    warm-up run; its record and the backend calls of one run. Each run starts without the
    prefix KV cache a run before left, and with an empty output cache (``evaluate_dataset``'s
    default)."""
    runs: dict = {}
    calls: list = []
    record: dict = {}
    for intrinsic in ["warm-up"] + [False, True, "again"] * args.repeat:
        if intrinsic is True:
            os.environ["GLOSSA_INTRINSIC_CACHE"] = tempfile.mkdtemp(prefix="intrinsic-")
        backend.calls, backend._prefix_cache = [], None
        settings = EvaluationSettings(
            iterations=args.iterations, limit=args.limit, intrinsic=intrinsic in (True, "again")
        )
        (record, _, _), wall, cpu = timed(evaluate_dataset, backend, info, dataset, settings)
        runs.setdefault(intrinsic, []).append((wall, cpu))
        calls = calls or list(backend.calls)
    timings = {key: tuple(statistics.median(t[i] for t in got) for i in (0, 1)) for key, got in runs.items()}
    rounds = "; ".join(f"{key}: " + ", ".join(f"{w:.1f}/{c:.1f}" for w, c in got) for key, got in runs.items())
    print(f"  each run, wall/CPU s: {rounds}", flush=True)
    return timings, record, calls


def _ratios(timings) -> str:
    (off, off_cpu), parts = timings[False], []
    for key, label in ((True, "with the intrinsic measures"), ("again", "a second time (reused)")):
        wall, cpu = timings[key]
        extra = f"+{100 * (wall / off - 1):.0f}%), CPU {cpu:.1f} s (+{100 * (cpu / off_cpu - 1):.0f}%)"
        parts.append(f"{label} {wall:.1f} s ({extra}")
    return f"evaluation {off:.1f} s, CPU {off_cpu:.1f} s; " + "; ".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limit", type=int, default=48)
    parser.add_argument("--model", default="google/gemma-3-270m")
    parser.add_argument("--datasets", nargs="+", default=["poem-sentiment-en", "hellaswag-en"])
    parser.add_argument("--iterations", type=int, default=1, help="3 with --limit 32: the demo protocol")
    parser.add_argument("--repeat", type=int, default=3, help="rounds of the three evaluations (medians shown)")
    parser.add_argument("--against-full", action="store_true", help="also time the full-vocabulary pass")
    parser.add_argument("--precision", action="store_true", help="only the standard errors for 2 to 32 documents")
    args = parser.parse_args()
    start = time.perf_counter()
    info = resolve_model(args.model)
    backend = Recording(local_weights(info))
    load = time.perf_counter() - start
    print(f"{args.model} ({backend.dtype}), load {load:.1f} s; load average {_load()}")
    for name in args.datasets:
        dataset = load_dataset(name)
        if args.precision:
            fmt = TaskFormat(engine_task(dataset.info.task).name, dataset.info.languages[0], dataset.info.labels)
            print(f"{name}, documents a split: bits per byte ± SE, AUC ± SE: {precision(backend, dataset, fmt, 48)}")
            continue
        timings, record, calls = evaluations(backend, info, dataset, args)
        scored = len({p for prompts, _ in calls for p in prompts})  # each iteration's distinct rows
        print(f"{name}: {_ratios(timings)}; load average {_load()}", flush=True)
        fmt = TaskFormat(record["task"], dataset.info.languages[0], dataset.info.labels)
        for limits in (budget(scored), BEFORE):
            print(f"  the measures alone at {at_budget(backend, dataset, fmt, args.limit, limits)}", flush=True)
        if args.against_full:
            test, train = documents(dataset, fmt, args.limit, *BEFORE)
            print(f"  their {len(test) + len(train)} documents: {against_full(backend, test + train)}", flush=True)
        (bound, bound_cpu), unique, tokens = lower_bound(backend, calls)
        off, off_cpu = timings[False]
        print(
            f"  lower bound {bound:.1f} s, CPU {bound_cpu:.1f} s ({unique} unique suffixes, {tokens} tokens with "
            f"the prefixes): engine / bound {off / bound:.1f} (CPU {off_cpu / bound_cpu:.1f}); load average {_load()}",
            flush=True,
        )


def _load() -> str:
    return f"{os.getloadavg()[0]:.1f}"


if __name__ == "__main__":
    main()
