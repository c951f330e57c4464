"""What measuring an evaluation's efficiency costs (docs/methodology.md §11; it must add under 2%).

Loads a bundled model once, then evaluates the same slice with the measurement on and off,
alternating (``--pairs`` times), each time with an empty output cache, and prints per run the
wall time and this process's CPU time (all threads). On a shared machine those two vary more
between runs than the measurement costs, so the measurement's own work is also timed directly:
the reference-token counting (the only per-prompt work it adds; it runs in a thread beside the
model calls, so its time is an upper bound of the wall time it adds) and the closing of each
dataset's object (memory, energy, hardware identity). A first evaluation, not counted, warms
the process up.

    nice -n 10 python benchmarks/efficiency_overhead.py --model HuggingFaceTB/SmolLM2-135M-Instruct \
        --dataset scala-da --limit 8 --iterations 2 --pairs 3
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from evaluation import measurement  # noqa: E402
from evaluation.backends.transformers import TransformersBackend  # noqa: E402
from evaluation.cache import OutputCache  # noqa: E402
from evaluation.datasets import load_dataset  # noqa: E402
from evaluation.models import local_weights, resolve_model  # noqa: E402
from evaluation.runner import EvaluationSettings, evaluate_dataset  # noqa: E402

SPENT = {"count": 0.0, "finish": 0.0}


def _timed(key, fn):
    def wrapped(*args, **kwargs):
        started = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            SPENT[key] += time.perf_counter() - started

    return wrapped


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="HuggingFaceTB/SmolLM2-135M-Instruct")
    parser.add_argument("--dataset", default="scala-da")
    parser.add_argument("--limit", type=int, default=8)
    parser.add_argument("--iterations", type=int, default=2)
    parser.add_argument("--pairs", type=int, default=3)
    args = parser.parse_args()
    info = resolve_model(args.model)
    backend = TransformersBackend(local_weights(info))
    dataset = load_dataset(args.dataset)
    measurement.reference_tokens.count_all = _timed("count", measurement.reference_tokens.count_all)
    measurement.DatasetMeter.finish = _timed("finish", measurement.DatasetMeter.finish)
    measurement.reference_tokens.tokenizer()  # once per process (timed below, apart)
    # one evaluation first, not counted: the process's warm-up (kernels, allocator, caches)
    # would otherwise land on whichever setting runs first
    evaluate_dataset(backend, info, dataset, EvaluationSettings(iterations=1, limit=args.limit), cache=OutputCache())
    for key in SPENT:
        SPENT[key] = 0.0
    rows: dict[bool, list[tuple[float, float, float]]] = {True: [], False: []}
    for pair in range(args.pairs):
        for on in (pair % 2 == 0, pair % 2 != 0):  # alternate which goes first
            settings = EvaluationSettings(iterations=args.iterations, limit=args.limit, efficiency=on)
            before = dict(SPENT)
            wall, cpu = time.perf_counter(), time.process_time()
            record, _, _ = evaluate_dataset(backend, info, dataset, settings, cache=OutputCache())
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            own = sum(SPENT[k] - before[k] for k in SPENT)
            rows[on].append((wall, cpu, own))
            print(f"efficiency={'on ' if on else 'off'} wall {wall:7.2f} s  cpu {cpu:7.2f} s  measurement {own:.3f} s")
            if on:
                eff = record["efficiency"]
                tokens = eff["prompt_tokens"], eff["reference_prompt_tokens"]
                print(f"  examples {eff['examples']}, prompt tokens {tokens[0]}, reference tokens {tokens[1]}")
    for on in (False, True):
        walls, cpus = [r[0] for r in rows[on]], [r[1] for r in rows[on]]
        wall, cpu = statistics.median(walls), statistics.median(cpus)
        print(f"median efficiency={'on ' if on else 'off'}: wall {wall:.2f} s, cpu {cpu:.2f} s")
    on, off = statistics.median(r[0] for r in rows[True]), statistics.median(r[0] for r in rows[False])
    spread = max(r[0] for r in rows[False]) - min(r[0] for r in rows[False])
    print(f"wall time added: {on - off:+.3f} s = {100 * (on - off) / off:+.2f}% (off runs spread {spread:.3f} s)")
    own = [r[2] / r[0] for r in rows[True]]
    median, most = 100 * statistics.median(own), 100 * max(own)
    print(f"the measurement's own work: {median:.3f}% of the wall time (median; max {most:.3f}%)")
    started = time.perf_counter()
    measurement.reference_tokens.tokenizer.cache_clear()
    measurement.reference_tokens.tokenizer()
    print(f"loading the reference tokenizer (once per process): {time.perf_counter() - started:.2f} s")


if __name__ == "__main__":
    main()
