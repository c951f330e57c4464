"""Our engine against lm-evaluation-harness: samples/s and accuracy, same model, rows and prompts.

Not a test: run by hand, numbers go to BENCHMARKS.md ("## Evaluation engine").

    scripts/harness-env.sh   # once: builds .venv-harness (lm_eval[hf]==0.4.13, torch 2.13.0)
    .venv/bin/python benchmarks/harness_compare.py [--limit 160] [--dtype float32] [--batch-size 8]
        [--harness-batch-size B] [--save runs.json [--skip-harness]]

Per dataset, our engine runs one few-shot iteration of ``evaluate_dataset`` on the first
LIMIT test rows (the bootstrap resample's distinct rows, about 63% of LIMIT, are what it
computes). The harness then gets exactly those rows and our few-shot rows, in order, through
the task YAMLs of benchmarks/harness_tasks/ (sampler first_n), so both score the same
prompts: the script checks that the harness's contexts equal our prompts. Both run on the
CPU in the same dtype with the same batch size (``--harness-batch-size`` where the harness's
full-vocabulary logits do not fit in memory); model loading is timed apart.

Ours runs three times: without the intrinsic measures (the scoring), with them (an empty
evidence store: a first evaluation's cost) and without again; the speed-up of the scoring
uses the faster of the two runs without. Each row's predicted label and label log-probabilities
are compared between the runs and with the harness's. The lower bound: one pass over the shared
prefix plus batched passes over the unique suffixes alone (no attention to the prefix), the
second of two. ``--save`` keeps both engines' per-row results; with ``--skip-harness`` ours are
compared with the saved harness results instead of running it again.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this tree's engine, not the one the venv's editable install points at
HARNESS_PYTHON = ROOT / ".venv-harness" / "bin" / "python"
TASKS = {"poem-sentiment-en": "glossa_poem_sentiment_en", "hellaswag-en": "glossa_hellaswag_en"}


def scores(golds: list, preds: list) -> tuple[float, float]:
    from sklearn.metrics import matthews_corrcoef

    accuracy = sum(g == p for g, p in zip(golds, preds, strict=True)) / len(golds)
    return accuracy, float(matthews_corrcoef(golds, preds))


def run_ours(backend, info, dataset, limit: int, intrinsic: bool = False) -> dict:
    """One few-shot iteration of ``evaluate_dataset`` on the first ``limit`` rows, timed (wall and
    this process's CPU seconds); the rows it scored, its shots, prompts and per-row label scores."""
    from evaluation.cache import OutputCache
    from evaluation.prompts import TaskFormat
    from evaluation.runner import EvaluationSettings, evaluate_dataset

    backend._prefix_cache = None  # nothing kept from a run before
    if intrinsic:  # an empty evidence store: the measures' first-time cost
        os.environ["GLOSSA_INTRINSIC_CACHE"] = tempfile.mkdtemp(prefix="glossa-intrinsic-")
    settings = EvaluationSettings(iterations=1, limit=limit, intrinsic=intrinsic)
    start, cpu = time.perf_counter(), time.process_time()
    record, predictions, _ = evaluate_dataset(backend, info, dataset, settings, cache=OutputCache())
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    test, train = dataset.splits["test"][:limit], dataset.splits["train"]
    rows = [test[p["row"]] for p in predictions]
    shots = [train[j] for j in record["shot_ids"][0]]
    fmt = TaskFormat(record["task"], dataset.info.languages[0], dataset.info.labels)
    canon = fmt.canonical_labels(rows[0])
    golds, preds = [canon.index(p["gold"]) for p in predictions], [canon.index(p["prediction"]) for p in predictions]
    accuracy, mcc = scores(golds, preds)
    return {
        "samples": len(predictions),
        "seconds": seconds,
        "cpu": cpu,
        "accuracy": accuracy,
        "mcc": mcc,
        "rows": rows,
        "shots": shots,
        "prompts": [fmt.render_base(shots, r) for r in rows],
        "preds": preds,
        "scores": [p.get("scores") for p in predictions],
    }


def same_predictions(ours: dict, other_preds: list[int], other_scores: list) -> str:
    """How many rows got the same predicted label, and the largest log-probability difference."""
    same = sum(a == b for a, b in zip(ours["preds"], other_preds, strict=True))
    diffs = [
        abs(x - y)
        for a, b in zip(ours["scores"], other_scores, strict=True)
        if a is not None and b is not None
        for x, y in zip(a, b, strict=True)
    ]
    largest = f"{max(diffs):.1e}" if diffs else "n/a"
    return f"{same}/{len(other_preds)} predictions identical, largest log-prob difference {largest}"


def lower_bound(backend, prompts: list[str], shared_prefix: str | None) -> tuple[float, float, int]:
    """(Wall, CPU) seconds of one pass over the shared prefix plus batched passes over the unique
    suffixes alone (last position only, no attention to the prefix: less work than the engine's),
    the second of two; and the tokens passed. Same model, dtype and batches as the engine."""
    torch = backend.torch
    encoded = [backend.encode(p) for p in prompts]
    prefix = backend._common_prefix_ids(encoded, shared_prefix)
    rows = [list(s) for s in dict.fromkeys(tuple(e[len(prefix) :]) for e in encoded)]
    with torch.inference_mode():
        for _ in range(2):  # the second time is measured: the first pays for new shapes
            wall, cpu = time.perf_counter(), time.process_time()
            if prefix:
                backend.model(input_ids=torch.tensor([prefix]), logits_to_keep=1, use_cache=False)
            for batch in backend._batches(rows, single_pass=True):
                ids, mask = backend._left_pad([rows[k] for k in batch])
                pos = (mask.cumsum(-1) - 1).clamp(min=0)
                backend.model(input_ids=ids, attention_mask=mask, position_ids=pos, logits_to_keep=1, use_cache=False)
    return time.perf_counter() - wall, time.process_time() - cpu, len(prefix) + sum(len(r) for r in rows)


def run_harness(task: str, ours: dict, weights: Path, dtype: str, batch_size: int, workdir: Path) -> dict:
    """Write the rows and shots as JSONL, fill in the task YAML, run benchmarks/harness_driver.py."""
    for name, rows in (("test", ours["rows"]), ("fewshot", ours["shots"])):
        with (workdir / f"{name}.jsonl").open("w", encoding="utf-8") as handle:
            handle.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    template = (ROOT / "benchmarks" / "harness_tasks" / f"{task}.yaml").read_text()
    (workdir / f"{task}.yaml").write_text(
        template.replace("@TEST_JSONL@", str(workdir / "test.jsonl")).replace(
            "@FEWSHOT_JSONL@", str(workdir / "fewshot.jsonl")
        )
    )
    output = workdir / "harness.json"
    command = [
        str(HARNESS_PYTHON),
        str(ROOT / "benchmarks" / "harness_driver.py"),
        "--pretrained",
        str(weights),
        "--dtype",
        dtype,
        "--batch-size",
        str(batch_size),
        "--include-path",
        str(workdir),
        "--task",
        task,
        "--output",
        str(output),
    ]
    start = time.perf_counter()
    subprocess.run(
        command,
        check=True,
        env={
            **os.environ,
            "HF_DATASETS_OFFLINE": "1",
            "HF_HUB_OFFLINE": "1",
            "HF_DATASETS_CACHE": str(workdir / "hf-datasets"),
        },
    )
    result = json.loads(output.read_text())
    result["wall_s"] = time.perf_counter() - start
    golds = [s["gold"] for s in result["samples"]]
    preds = [max(range(len(s["loglikelihoods"])), key=s["loglikelihoods"].__getitem__) for s in result["samples"]]
    result["accuracy"], result["mcc"] = scores(golds, preds)
    ordered = sorted(result["samples"], key=lambda s: s["doc_id"])
    result["contexts"] = [s["context"] for s in ordered]
    result["loglikelihoods"] = [s["loglikelihoods"] for s in ordered]
    return result


def compare_one(name: str, backend, info, weights: Path, args, saved: dict) -> list[str]:
    """Ours without the measures, with them (first time), without again; the harness (or the saved
    harness results); the per-row check and the lower bound. The table rows."""
    from evaluation.datasets import load_dataset

    task, dataset = TASKS[name], load_dataset(name)
    plain = run_ours(backend, info, dataset, args.limit)
    measured = run_ours(backend, info, dataset, args.limit, intrinsic=True)
    again = run_ours(backend, info, dataset, args.limit)
    ours = min(plain, again, key=lambda r: r["seconds"])
    for label, run in (("scoring", plain), ("with the intrinsic measures", measured), ("scoring again", again)):
        print(
            f"{name}: ours, {label}: {run['samples']} samples in {run['seconds']:.1f} s (CPU {run['cpu']:.1f} s), "
            f"accuracy {run['accuracy']:.3f}, MCC {run['mcc']:.3f}; load average {os.getloadavg()[0]:.2f}",
            flush=True,
        )
    print(
        f"{name}: ours with the measures against without: "
        f"{same_predictions(plain, measured['preds'], measured['scores'])}"
    )
    calls: list = []
    original = backend.label_logprobs
    backend.label_logprobs = lambda p, c, shared_prefix=None: (
        calls.append((list(p), shared_prefix)) or original(p, c, shared_prefix)
    )
    run_ours(backend, info, dataset, args.limit)
    backend.label_logprobs = original
    prompts, shared = [p for c in calls for p in c[0]], calls[0][1]
    wall, cpu, tokens = lower_bound(backend, prompts, shared)
    print(
        f"{name}: lower bound {wall:.1f} s (CPU {cpu:.1f} s, {tokens} tokens): "
        f"engine / bound {ours['seconds'] / wall:.2f} "
        f"(CPU {ours['cpu'] / cpu:.2f}); load average {os.getloadavg()[0]:.2f}",
        flush=True,
    )
    if args.skip_harness:
        harness = saved.get(name, {}).get("harness")
    else:
        with tempfile.TemporaryDirectory(prefix="glossa-harness-") as tmp:
            harness = run_harness(
                task, ours, weights, args.dtype, args.harness_batch_size or args.batch_size, Path(tmp)
            )
    saved[name] = {"ours": {"preds": ours["preds"], "scores": ours["scores"]}, "harness": harness}
    row = f"| {name} | {{}} | {args.dtype} | {args.batch_size} | {len(ours['shots'])} | {{}} | "
    row += "{:.1f} | {:.2f} | {:.3f} | {:.3f} | {} |"
    lines = [
        row.format(
            "glossa, intrinsic measures",
            measured["samples"],
            measured["seconds"],
            measured["samples"] / measured["seconds"],
            measured["accuracy"],
            measured["mcc"],
            "",
        )
    ]
    lines.append(
        row.format(
            "glossa, scoring",
            ours["samples"],
            ours["seconds"],
            ours["samples"] / ours["seconds"],
            ours["accuracy"],
            ours["mcc"],
            "",
        )
    )
    if harness is None:
        return lines
    same = sum(a == b for a, b in zip(harness["contexts"], ours["prompts"], strict=True))
    h_preds = [max(range(len(ll)), key=ll.__getitem__) for ll in harness["loglikelihoods"]]
    print(
        f"{name}: harness {harness['n_samples']} samples in {harness['eval_s']:.1f} s "
        f"(load {harness['load_s']:.1f} s, process {harness['wall_s']:.1f} s), accuracy {harness['accuracy']:.3f}, "
        f"MCC {harness['mcc']:.3f}; {same}/{harness['n_samples']} harness contexts equal our prompts; "
        f"{same_predictions(ours, h_preds, harness['loglikelihoods'])}; speed-up: scoring "
        f"{harness['eval_s'] / ours['seconds']:.1f}x, with the measures {harness['eval_s'] / measured['seconds']:.1f}x",
        flush=True,
    )
    lines.insert(
        0,
        row.format(
            "lm-eval 0.4.13",
            harness["n_samples"],
            harness["eval_s"],
            harness["n_samples"] / harness["eval_s"],
            harness["accuracy"],
            harness["mcc"],
            "1.00x",
        ),
    )
    lines[1] = lines[1].replace("|  |", f"| {harness['eval_s'] / measured['seconds']:.1f}x |")
    lines[2] = lines[2].replace("|  |", f"| {harness['eval_s'] / ours['seconds']:.1f}x |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="google/gemma-3-270m")
    parser.add_argument("--datasets", nargs="+", default=["poem-sentiment-en", "hellaswag-en"])
    parser.add_argument("--limit", type=int, default=160)
    parser.add_argument("--dtype", default="float32", choices=["float32", "bfloat16"])
    parser.add_argument("--batch-size", type=int, default=8, help="both engines (ours: MAX_BATCH)")
    parser.add_argument(
        "--harness-batch-size", type=int, help="the harness's own (default --batch-size): its logits need ~1.7 GB a row"
    )
    parser.add_argument("--skip-harness", action="store_true", help="compare with the harness results in --save")
    parser.add_argument("--save", type=Path, help="JSON of both engines' per-row results (read with --skip-harness)")
    args = parser.parse_args()
    os.environ["GLOSSA_DTYPE"] = args.dtype

    from evaluation.backends import transformers as transformers_backend
    from evaluation.models import local_weights, resolve_model

    transformers_backend.MAX_BATCH = args.batch_size
    info = resolve_model(args.model)
    weights = local_weights(info)
    start = time.perf_counter()
    backend = transformers_backend.TransformersBackend(weights)
    print(
        f"ours: model loaded in {time.perf_counter() - start:.1f} s, dtype {backend.dtype}, "
        f"batch {args.batch_size}, load average {os.getloadavg()[0]:.2f}",
        flush=True,
    )
    saved = json.loads(args.save.read_text()) if args.skip_harness and args.save and args.save.exists() else {}
    lines = [
        "| task | engine | dtype | batch | shots | samples | seconds | samples/s | accuracy | MCC | speed-up |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name in args.datasets:
        lines += compare_one(name, backend, info, weights, args, saved)
    if args.save and not args.skip_harness:
        args.save.write_text(json.dumps(saved))
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
