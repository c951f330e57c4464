"""``python -m evaluation run --model HUB_ID --dataset NAME [...] --output FILE``, and
``python -m evaluation examine --examiner M --examinee A [...] --language da --output FILE``
(language models as examiners: :mod:`evaluation.examiner`), and
``python -m evaluation speed --model M [--output FILE]`` (the speed benchmark: :mod:`evaluation.speed`).

Appends one EuroEval result record (JSON line) per dataset to FILE, and writes the
per-sample predictions beside it (``<FILE stem>.predictions/<model>.<dataset>.predictions.jsonl``).
``--limit K`` keeps the first K rows of the test split (of val with ``--validation-split``)
before bootstrapping, so every iteration resamples those K rows. A dataset that cannot be
loaded is reported and skipped; the others are evaluated, and the exit status is then 2.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path
from typing import Any

from evaluation.errors import EvaluationError
from evaluation.examiner.participants import close_all, load_participants
from evaluation.examiner.records import read_exam
from evaluation.examiner.taxonomy import LEVEL_NAMES
from evaluation.runner import EvaluationSettings, evaluate_model
from evaluation.speed import SpeedSettings, run_speed

log = logging.getLogger("evaluation")


def build_parser() -> argparse.ArgumentParser:
    """The command line: ``run``, ``examine`` and ``speed``, with their options."""
    parser = argparse.ArgumentParser(prog="python -m evaluation", description="Glossa evaluation engine")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="evaluate a model on datasets")
    run.add_argument("--model", required=True, help="Hugging Face model id, e.g. google/gemma-3-270m")
    run.add_argument("--revision", default="main")
    run.add_argument("--dataset", action="append", required=True, help="dataset name (repeatable)")
    run.add_argument("--iterations", type=int, default=10)
    run.add_argument("--limit", type=int, default=None, help="first K test rows, taken before bootstrapping")
    run.add_argument("--zero-shot", action="store_true")
    run.add_argument("--validation-split", action="store_true", help="score on val instead of test")
    run.add_argument("--backend", default="transformers", help="transformers | vllm | openai:URL")
    run.add_argument("--data-dir", default=None)
    run.add_argument("--trust-remote-code", action="store_true")
    run.add_argument(
        "--max-train-steps",
        type=int,
        default=None,
        help="encoders: optimizer steps per iteration at most (default: until early stopping)",
    )
    run.add_argument("--output", required=True, help="JSONL file the records are appended to")

    exam = sub.add_parser("examine", help="language models as examiners: write, answer, grade and rank an exam")
    exam.add_argument("--examiner", action="append", required=True, help="MODEL or MODEL@BACKEND (repeatable)")
    exam.add_argument("--examinee", action="append", required=True, help="MODEL or MODEL@BACKEND (repeatable)")
    exam.add_argument("--language", required=True, help="the exam's language, e.g. da")
    exam.add_argument("--questions", type=int, default=6, help="questions per examiner")
    exam.add_argument("--follow-ups", type=int, default=1, help="rounds of follow-up questions after correct answers")
    exam.add_argument("--round", type=int, default=1, help="exam version: a new round writes new questions")
    exam.add_argument("--seed", type=int, default=0)
    exam.add_argument("--level", action="append", default=None, help="memorisation | comprehension | analysis")
    exam.add_argument("--answer-tokens", type=int, default=160)
    exam.add_argument("--no-self-preference", action="store_true", help="skip the examiners' own answers")
    exam.add_argument(
        "--after",
        action="append",
        default=[],
        help="an earlier round's exam document: its questions are not asked again",
    )
    exam.add_argument("--backend", default="transformers", help="default backend: transformers | vllm | openai:URL")
    exam.add_argument("--trust-remote-code", action="store_true")
    exam.add_argument(
        "--resident-models", type=int, default=0, help="at most N local models in memory at once (default: all)"
    )
    exam.add_argument("--output", required=True, help="JSONL file the exam is written to (replaced)")

    speed = sub.add_parser("speed", help="the speed benchmark: fixed prompts of 100 and 1,000 GPT-2 tokens")
    speed.add_argument("--model", required=True)
    speed.add_argument("--revision", default="main")
    speed.add_argument("--backend", default="transformers", help="transformers | vllm | openai:URL")
    speed.add_argument("--batch", type=int, default=8, help="the larger batch tried (halved until it fits)")
    speed.add_argument("--repetitions", type=int, default=10, help="timed runs per configuration at most")
    speed.add_argument("--seconds", type=float, default=10.0, help="or stop a configuration after this long")
    speed.add_argument("--new-tokens", type=int, default=32, help="generated tokens per prompt at most")
    speed.add_argument("--trust-remote-code", action="store_true")
    speed.add_argument("--output", default=None, help="JSON file for the report (default: standard output)")
    return parser


def speed(args: argparse.Namespace) -> int:
    """``speed``: benchmark a model's generation speed and print the report as JSON."""
    if args.batch < 1 or args.repetitions < 1 or args.new_tokens < 1 or not args.seconds >= 0:
        raise EvaluationError("--batch, --repetitions and --new-tokens must be positive, --seconds not negative")
    settings = SpeedSettings(
        batch=args.batch, repetitions=args.repetitions, min_seconds=args.seconds, new_tokens=args.new_tokens
    )
    report = run_speed(
        args.model,
        settings,
        backend_name=args.backend,
        revision=args.revision,
        trust_remote_code=args.trust_remote_code,
    )
    text = json.dumps(report, indent=2, ensure_ascii=False) + "\n"
    if args.output:
        Path(args.output).parent.mkdir(parents=True, exist_ok=True)
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


class _Progress:
    """tqdm on a terminal, plain log lines otherwise."""

    def __init__(self) -> None:
        self.tty = sys.stderr.isatty()
        self.bars: dict[str, Any] = {}  # tqdm bars (tqdm is imported only on a terminal)
        self.last_logged: dict[str, int] = {}

    def __call__(self, dataset: str, done: int, total: int) -> None:
        if self.tty:
            from tqdm import tqdm

            bar = self.bars.get(dataset)
            if bar is None:
                bar = self.bars[dataset] = tqdm(total=total, desc=dataset, unit="prompt")
            bar.update(done - bar.n)
            if done >= total:
                bar.close()
        else:
            pct = int(100 * done / max(total, 1))
            if pct // 10 != self.last_logged.get(dataset, -1) // 10 or done >= total:
                self.last_logged[dataset] = pct
                log.info("%s: %d/%d prompts (%d%%)", dataset, done, total, pct)


def earlier_questions(paths: list[str]) -> list[str]:
    """The main questions of earlier rounds' exam documents (checked as any document)."""
    texts: list[str] = []
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            texts += [q["text"] for q in read_exam(handle).questions if q["depth"] == 0]
    return texts


def examine(args: argparse.Namespace) -> int:
    """``examine``: run an exam between examiner and examinee models and write its records."""
    from evaluation.examiner.exam import ExamSettings, run_exam  # scipy (its rankings): for ``examine`` only

    settings = ExamSettings(
        language=args.language,
        questions=args.questions,
        follow_ups=args.follow_ups,
        round=args.round,
        seed=args.seed,
        levels=tuple(args.level or LEVEL_NAMES),
        answer_tokens=args.answer_tokens,
        self_preference=not args.no_self_preference,
        earlier_questions=tuple(earlier_questions(args.after)),
    )
    examiners, examinees = load_participants(
        args.examiner,
        args.examinee,
        args.backend,
        trust_remote_code=args.trust_remote_code,
        resident=args.resident_models,
    )
    output = Path(args.output)
    output.parent.mkdir(parents=True, exist_ok=True)
    partial = output.with_name(output.name + ".partial")
    try:
        with partial.open("w", encoding="utf-8") as handle:

            def write(record: dict) -> None:
                handle.write(json.dumps(record, ensure_ascii=False) + "\n")
                handle.flush()
                if record["kind"] in ("question", "summary", "cost"):
                    log.info("%s", {k: v for k, v in record.items() if k not in ("reference_answer",)})

            run_exam(examiners, examinees, settings, on_record=write)
        partial.replace(output)  # a complete exam or none: an interrupted run leaves only the .partial
    finally:
        close_all(examiners + examinees)
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run the command ``argv`` names; the exit status (2 on an evaluation error, said on stderr)."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    args = build_parser().parse_args(argv)
    if args.command in ("examine", "speed"):
        try:
            return examine(args) if args.command == "examine" else speed(args)
        except EvaluationError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    output = Path(args.output)
    output.parent.mkdir(parents=True, exist_ok=True)
    settings = EvaluationSettings(
        revision=args.revision,
        few_shot=not args.zero_shot,
        iterations=args.iterations,
        limit=args.limit,
        backend=args.backend,
        trust_remote_code=args.trust_remote_code,
        data_dir=args.data_dir,
        output_dir=output.with_name(output.stem + ".predictions"),
        validation_split=args.validation_split,
        max_train_steps=args.max_train_steps,
    )

    def append(record: dict) -> None:
        with output.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
        total = record["results"]["total"]
        shown = ", ".join(f"{k[5:]}={v:.2f}" for k, v in total.items() if not k.endswith("_se"))
        log.info("%s on %s: %s → %s", record["model"], record["dataset"], shown, output)

    failed: list[str] = []

    def skip(dataset: str, reason: str) -> None:  # one bad dataset does not stop the others
        failed.append(dataset)
        print(f"error: {reason}", file=sys.stderr)

    try:
        evaluate_model(
            args.model, args.dataset, settings, on_record=append, on_progress=_Progress(), on_dataset_error=skip
        )
    except EvaluationError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 2 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
