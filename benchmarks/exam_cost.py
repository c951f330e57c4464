"""Cost of one exam (docs/methodology.md §8) with the bundled models: calls, tokens and seconds.

Runs ``python -m evaluation examine`` in-process: SmolLM2-135M-Instruct and
Gemma-3-270M examine each other (peer examination, each also answering its own
questions for the self-preference check), ``--questions`` per examiner, one round of
follow-ups, on this machine's CPU through the transformers backend. Prints the engine's
cost line per model and the wall time, as a Markdown table for BENCHMARKS.md.

    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/exam_cost.py [--questions 6] [--language da]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from evaluation.__main__ import main  # noqa: E402

MODELS = ["HuggingFaceTB/SmolLM2-135M-Instruct", "google/gemma-3-270m"]


def run(questions: int, language: str, answer_tokens: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "exam.jsonl"
        argv = ["examine", "--language", language, "--questions", str(questions), "--follow-ups", "1"]
        argv += ["--answer-tokens", str(answer_tokens), "--output", str(out)]
        for model in MODELS:
            argv += ["--examiner", model, "--examinee", model]
        started = time.perf_counter()
        assert main(argv) == 0
        wall = time.perf_counter() - started  # includes loading both models
        records = [json.loads(line) for line in out.read_text().splitlines()]
    kinds = {}
    for r in records:
        kinds[r["kind"]] = kinds.get(r["kind"], 0) + 1
    cost = next(r for r in records if r["kind"] == "cost")
    n_questions = sum(1 for r in records if r["kind"] == "question" and r["depth"] == 0)
    print(f"{language}, {questions} questions per examiner, answers ≤ {answer_tokens} tokens; records: {kinds}")
    print("| model | calls | prompt tokens | generated tokens | model seconds |")
    print("|---|---:|---:|---:|---:|")
    rows = [*cost["models"].items(), ("**total**", cost["total"])]
    for model, usage in rows:
        tokens = f"{usage['prompt_tokens']} | {usage['generated_tokens']}"
        print(f"| {model} | {usage['calls']} | {tokens} | {usage['seconds']:.1f} |")
    per_question = cost["total"]["seconds"] / max(n_questions, 1)
    print(f"\nwall time {wall:.1f} s (models loaded); {per_question:.1f} model-seconds per main question")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=6)
    parser.add_argument("--language", default="da")
    parser.add_argument("--answer-tokens", type=int, default=160)
    args = parser.parse_args()
    run(args.questions, args.language, args.answer_tokens)
