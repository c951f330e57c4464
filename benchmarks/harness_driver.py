"""Run lm-evaluation-harness on prepared task YAMLs and time it (model load apart).

Runs inside .venv-harness (scripts/harness-env.sh), started by benchmarks/harness_compare.py.
It does what the CLI does,

    lm_eval --model hf --model_args pretrained=DIR,dtype=DTYPE,add_bos_token=True --device cpu \
        --tasks TASK --include_path DIR --batch_size B --bootstrap_iters 0 --log_samples --output_path OUT

but through the Python API, so that the model load and the evaluation are timed apart.
Writes one JSON: load and evaluation seconds, the harness's own total_evaluation_time_seconds,
metrics, and per sample the context, gold and predicted choice.
"""

from __future__ import annotations

import argparse
import json
import time


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pretrained", required=True)
    parser.add_argument("--dtype", default="float32")
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--include-path", required=True)
    parser.add_argument("--task", required=True)
    parser.add_argument("--output", required=True)
    args = parser.parse_args()

    from lm_eval import simple_evaluate
    from lm_eval.models.huggingface import HFLM
    from lm_eval.tasks import TaskManager

    start = time.perf_counter()
    lm = HFLM(
        pretrained=args.pretrained, dtype=args.dtype, batch_size=args.batch_size, device="cpu", add_bos_token=True
    )
    load_s = time.perf_counter() - start
    start = time.perf_counter()
    results = simple_evaluate(
        model=lm,
        tasks=[args.task],
        task_manager=TaskManager(include_path=args.include_path),
        batch_size=args.batch_size,
        device="cpu",
        bootstrap_iters=0,
        log_samples=True,
    )
    eval_s = time.perf_counter() - start
    samples = results["samples"][args.task]
    out = {
        "load_s": load_s,
        "eval_s": eval_s,
        "harness_total_evaluation_time_seconds": float(results.get("total_evaluation_time_seconds", "nan")),
        "metrics": results["results"][args.task],
        "n_samples": len(samples),
        "samples": [
            {
                "doc_id": s["doc_id"],
                "context": s["arguments"][0][0],
                "gold": s["target"],
                "loglikelihoods": [r[0][0] for r in s["resps"]],
            }
            for s in samples
        ],
    }
    with open(args.output, "w", encoding="utf-8") as handle:
        json.dump(out, handle, ensure_ascii=False)


if __name__ == "__main__":
    main()
