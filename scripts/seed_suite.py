"""Write the suite's seed results: the bundled models evaluated by the engine on every
dataset of ``data/datasets`` under the demo's protocol (``make demo``: 3 iterations on the
first 32 test rows, encoders fine-tuned for at most 20 steps).

    .venv/bin/python scripts/seed_suite.py [--model ID ...] [--dataset NAME ...] [--part NAME] [--print-only]

One ``python -m evaluation run`` per model, printed before it runs; the records go to
``data/results/suite/<model>[.<part>].jsonl`` (replaced, not appended): ``--dataset`` and
``--part`` split a model's datasets over several processes (each dataset's numbers do not
depend on the others). Encoders skip the tasks an encoder cannot do (summarization), as
the engine says, extractive question answering (fine-tuning a QA head takes about 10
minutes per iteration on a CPU) and knowledge (four long question-and-option pairs a row:
with micro-batches bounded at 8,192 padded tokens, all-MiniLM-L6-v2 held 3.5-4 GB but had
not ended its first fine-tuning on ``mmlu-lv`` or ``zno-geography-uk`` after 10 CPU minutes;
about 20 steps × 32 rows × 4 pairs of up to 512 tokens, some 10^14 operations a
fine-tuning); they are seeded on every board but English and German,
whose older sets were never seeded for them. SmolLM2 is left out by default (on the older
boards it is the model the demo invites a user to submit); ``--model
HuggingFaceTB/SmolLM2-135M-Instruct --dataset ...`` seeds it on the new languages' sets,
whole languages at a time (``data/results/suite/README.md`` says which ran).
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from evaluation.datasets import discover  # noqa: E402
from evaluation.errors import EvaluationError  # noqa: E402
from evaluation.finetune import check_task_supported  # noqa: E402
from evaluation.models import BUNDLED  # noqa: E402
from leaderboard.registry.languages import default_board  # noqa: E402

DATA_DIR = REPO / "data" / "datasets"
OUTPUT_DIR = REPO / "data" / "results" / "suite"
DEMO_PROTOCOL = {"iterations": 3, "limit": 32, "max_train_steps": 20}
SEEDED = ["google/gemma-3-270m", "sentence-transformers/all-MiniLM-L6-v2"]
# Fine-tuning is the slow part on a CPU (3 fresh heads per dataset): the English and German
# boards (a dozen older sets, some of them long) are left without the encoder, and a board
# where it has no results lists it nowhere.
ENCODER_SKIPPED_BOARDS = {"en", "de"}
ENCODER_SKIPPED_TASKS = {"reading-comprehension", "knowledge"}


def datasets_for(model_id: str) -> list[str]:
    names = []
    for info in discover(DATA_DIR):
        if BUNDLED[model_id].info.model_type == "encoder":
            boards = {default_board(code) for code in info.languages}
            if boards & ENCODER_SKIPPED_BOARDS or info.task in ENCODER_SKIPPED_TASKS:
                continue
            try:
                check_task_supported(info.task)
            except EvaluationError:
                continue
        names.append(info.name)
    return names


def command(model_id: str, only: list[str] | None = None, part: str | None = None) -> list[str]:
    output = OUTPUT_DIR / f"{model_id.replace('/', '--')}{f'.{part}' if part else ''}.jsonl"
    cmd = [".venv/bin/python", "-m", "evaluation", "run", "--model", model_id]
    available = datasets_for(model_id)
    for name in [n for n in only if n in available] if only else available:  # --dataset order is kept
        cmd += ["--dataset", name]
    cmd += [
        "--iterations",
        str(DEMO_PROTOCOL["iterations"]),
        "--limit",
        str(DEMO_PROTOCOL["limit"]),
        "--max-train-steps",
        str(DEMO_PROTOCOL["max_train_steps"]),
        "--data-dir",
        "data/datasets",
        "--output",
        str(output.relative_to(REPO)),
    ]
    return cmd


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", action="append", choices=sorted(BUNDLED), help="default: " + ", ".join(SEEDED))
    parser.add_argument("--dataset", action="append", help="only these of the model's datasets")
    parser.add_argument("--part", help="write <model>.<part>.jsonl (with --dataset: one process's share)")
    parser.add_argument("--print-only", action="store_true")
    args = parser.parse_args()
    # float32 on every CPU: one with AMX would otherwise run bfloat16 (pick_dtype), and a
    # board's seeds must share one protocol
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "GLOSSA_DTYPE": "float32"}
    for model_id in args.model or SEEDED:
        cmd = command(model_id, args.dataset, args.part)
        print("HF_HUB_OFFLINE=1 GLOSSA_DTYPE=float32 " + shlex.join(cmd), flush=True)
        if args.print_only:
            continue
        (REPO / cmd[-1]).unlink(missing_ok=True)
        subprocess.run(cmd, cwd=REPO, env=env, check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
