"""Per-example evidence: what it costs to store, and how fast the prediction
browser and the comparison page answer on 2,048 examples.

In a scratch database (Django's test database machinery, destroyed afterwards):

1. the engine evaluates scala-nb (2,048 test rows, 10 iterations, zero-shot) with a
   scripted backend (generated labels, one answer in six unreadable: no model weights, so
   the outputs are short; the inputs and the bootstrap are the real ones), for two model
   names; the records and their examples are imported as a worker's are;
2. with ``--real``, SmolLM2-135M also evaluates bbc-news-summary-en (free text, the
   largest outputs; ``--real-limit`` rows, 2 iterations) for the storage cost of real
   generations;
3. pages are requested with Django's test Client (median of ``--repeat``).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/glossa_examples \\
        .venv/bin/python benchmarks/examples_browser.py [--repeat 30] [--real]
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "leaderboard.settings")

import django  # noqa: E402

django.setup()

from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import setup_test_environment  # noqa: E402

DATA = ROOT / "data" / "datasets"


class ScriptedBackend:
    """Generated labels (Norwegian "ja"/"nei"), one answer in six naming no label."""

    name = "scripted"
    max_context = 100_000
    has_chat_template = False

    def __init__(self, answers):
        self.answers = itertools.cycle(answers)

    def render_chat(self, messages):
        raise NotImplementedError

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def label_logprobs(self, prompts, continuations, shared_prefix=None):
        return None

    def generate(self, prompts, max_new_tokens, *, json_schema=None, shared_prefix=None):
        return [next(self.answers) for _ in prompts]

    def close(self) -> None:
        pass


def evaluate_scripted(model_id: str, answers: list[str], out: Path) -> dict:
    from evaluation import runner
    from evaluation.models import ModelInfo

    backend = ScriptedBackend(answers)
    runner.resolve_model = lambda *a, **k: ModelInfo(model_id, "c" * 40)
    runner.local_weights = lambda info: None
    runner.load_backend = lambda *a, **k: backend
    settings = runner.EvaluationSettings(iterations=10, few_shot=False, data_dir=DATA, output_dir=out)
    (record,) = runner.evaluate_model(model_id, ["scala-nb"], settings)
    return record


def store(record: dict) -> tuple[int, int]:
    from leaderboard.services.results_import import import_record

    data = Path(record["examples_file"]).read_bytes()
    started = time.perf_counter()
    import_record(record, source="benchmark", examples=data)
    return len(data), round((time.perf_counter() - started) * 1000)


def time_url(client: Client, url: str, repeat: int) -> tuple[float, float, int]:
    first = time.perf_counter()
    response = client.get(url)
    cold = (time.perf_counter() - first) * 1000
    assert response.status_code == 200, (url, response.status_code)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        response = client.get(url)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), cold, len(response.content)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--real", action="store_true", help="also evaluate SmolLM2 on summaries")
    parser.add_argument("--real-limit", type=int, default=16)
    args = parser.parse_args()

    from django.conf import settings

    from evaluation.examples import read_examples
    from leaderboard.services.dataset_registry import sync_datasets

    settings.ALLOWED_HOSTS = ["*"]
    setup_test_environment()
    old_name = connection.settings_dict["NAME"]
    connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False, keepdb=False)
    try:
        sync_datasets(DATA)
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp)
            for model_id, answers in (("org/scripted-a", ["ja", "nei", "ja", "hmm", "nei", "ja"]),
                                      ("org/scripted-b", ["nei", "ja", "ja", "nei", "", "ja"])):  # fmt: skip
                started = time.perf_counter()
                record = evaluate_scripted(model_id, answers, out)
                seconds = time.perf_counter() - started
                size, ms = store(record)
                examples = read_examples(Path(record["examples_file"]))
                print(
                    f"{model_id} on scala-nb: {len(examples)} examples ({sum(len(e['iterations']) for e in examples)} "
                    f"draws), engine {seconds:.1f} s, stored {size / 1024:.0f} KiB compressed "
                    f"({size / len(examples):.0f} B per example), import {ms} ms"
                )
            if args.real:
                from evaluation.runner import EvaluationSettings, evaluate_model

                real = EvaluationSettings(iterations=2, limit=args.real_limit, output_dir=out / "real")
                (record,) = evaluate_model("HuggingFaceTB/SmolLM2-135M-Instruct", ["bbc-news-summary-en"], real)
                size, ms = store(record)
                count = len(read_examples(Path(record["examples_file"])))
                print(
                    f"SmolLM2-135M on bbc-news-summary-en ({count} examples, real summaries): "
                    f"{size / 1024:.0f} KiB compressed, {size / count:.0f} B per example"
                )
        client = Client()
        base = "/models/org/scripted-a/datasets/scala-nb/examples/"
        print(f"pages, median of {args.repeat} (cold: the first request of the process)")
        for label, url in (
            ("browser, page 1 of 50", base),
            ("browser, page 20", base + "?page=20"),
            ("browser, unparseable only", base + "?outcome=unparseable"),
            ("browser, search", base + "?q=ikke"),
            ("JSONL download, all", base + "?format=jsonl"),
            ("compare two models", "/compare/?models=org/scripted-a&models=org/scripted-b"),
            ("dataset page with stability", "/datasets/scala-nb/"),
        ):
            median, cold, size = time_url(client, url, args.repeat)
            print(f"{label:30s} median {median:7.1f} ms  cold {cold:7.1f} ms  {size / 1024:.0f} KiB")
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)


if __name__ == "__main__":
    main()
