"""vLLM's own offline throughput on the speed benchmark's prompts (issue #30 item 7).

The reference that Glossa's vLLM path is held to (goal: at least 80% of it): the same
prompts as ``python -m evaluation speed`` (:func:`evaluation.speed.prompt_of`, 100 and 1,000
GPT-2 tokens), the same batch sizes and generated-token budget, sent straight to
``vllm.LLM.generate`` with greedy sampling. Prints, and writes with ``--output``, one JSON
report in the speed report's shape (``runs`` with tokens per second), so that
``benchmarks/gpu_report.py`` can put the two side by side.

    python benchmarks/vllm_offline.py --model HuggingFaceTB/SmolLM2-135M-Instruct \\
        --batch 8 --new-tokens 32 --output var/gpu-bench/vllm-offline.json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from evaluation.models import local_weights, resolve_model  # noqa: E402
from evaluation.speed import PROMPT_LENGTHS, prompt_of  # noqa: E402


def timed(llm, sampling, prompts: list[str], repetitions: int) -> list[tuple[float, int, int]]:
    llm.generate(prompts, sampling, use_tqdm=False)  # warm-up, as the speed benchmark does
    runs = []
    for _ in range(repetitions):
        started = time.perf_counter()
        outputs = llm.generate(prompts, sampling, use_tqdm=False)
        seconds = time.perf_counter() - started
        prompt_tokens = sum(len(o.prompt_token_ids) for o in outputs)
        generated = sum(len(c.token_ids) for o in outputs for c in o.outputs)
        runs.append((seconds, prompt_tokens, generated))
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="HuggingFaceTB/SmolLM2-135M-Instruct")
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--new-tokens", type=int, default=32)
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--output")
    args = parser.parse_args()

    import vllm  # the optional `gpu` extra

    weights = local_weights(resolve_model(args.model))
    started = time.perf_counter()
    llm = vllm.LLM(model=str(weights), seed=0, enforce_eager=False)
    load_seconds = time.perf_counter() - started
    sampling = vllm.SamplingParams(max_tokens=args.new_tokens, temperature=0.0)
    runs = []
    for length in PROMPT_LENGTHS:
        for batch in sorted({1, args.batch}):
            measured = timed(llm, sampling, [prompt_of(length)] * batch, args.repetitions)
            seconds = statistics.median(r[0] for r in measured)
            runs.append(
                {
                    "prompt_reference_tokens": length,
                    "batch_size": batch,
                    "repetitions": len(measured),
                    "median_seconds": round(seconds, 4),
                    "prompt_tokens_per_second": round(statistics.median(r[1] for r in measured) / seconds, 3),
                    "generated_tokens_per_second": round(statistics.median(r[2] for r in measured) / seconds, 3),
                }
            )
    report = {
        "kind": "vllm-offline",
        "model": args.model,
        "vllm": vllm.__version__,
        "load_seconds": round(load_seconds, 2),
        "runs": runs,
    }
    text = json.dumps(report, indent=1)
    print(text)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as handle:
            handle.write(text + "\n")


if __name__ == "__main__":
    main()
