"""Synthetic Danish boards with known true ranks, run through the real pipeline:
EuroEval result records → ``import_file`` → ``aggregate`` → ``export_leaderboard``.

A board has 20 models on 4 Danish datasets (one per task), 10 iterations each, every
iteration score the model's true score plus Gaussian noise (sd 0.02). *Tied*: every true
score 0.5, so every true rank is 1 (nobody is strictly better). *Spaced*: true scores
0.80, 0.78, …, 0.42, true ranks 1-20. Used by ``test_rank_sets_end_to_end.py`` and
``benchmarks/rank_set_coverage.py``.
"""

from __future__ import annotations

import gzip
import json
import tempfile
from io import StringIO
from pathlib import Path

import numpy as np

MODELS = 20
ITERATIONS = 10
NOISE = 0.02
DATASETS = [  # (dataset, task, metric keys of a raw iteration)
    ("angry-tweets", "sentiment-classification", ("test_mcc", "test_macro_f1")),
    ("dane", "named-entity-recognition", ("test_micro_f1_no_misc", "test_micro_f1")),
    ("scala-da", "linguistic-acceptability", ("test_mcc", "test_macro_f1")),
    ("scandiqa-da", "reading-comprehension", ("test_f1", "test_em")),
]
KINDS = {"tied": np.full(MODELS, 0.5), "spaced": 0.80 - 0.02 * np.arange(MODELS)}


def true_ranks(mu: np.ndarray) -> np.ndarray:
    return 1 + (mu[None, :] > mu[:, None]).sum(axis=1)


def records(prefix: str, mu: np.ndarray, rng) -> list[dict]:
    out = []
    for j, truth in enumerate(mu):
        for name, task, (primary, secondary) in DATASETS:
            values = np.clip(truth + NOISE * rng.standard_normal(ITERATIONS), 0, 1)
            out.append(
                {
                    "dataset": name,
                    "task": task,
                    "dataset_languages": ["da"],
                    "model": f"{prefix}/m{j:02d}",
                    "results": {"raw": [{primary: float(v), secondary: float(v)} for v in values]},
                    "few_shot": True,
                    "validation_split": False,
                    "generative": True,
                    "generative_type": "base",
                    "num_model_parameters": 1_000_000,
                    "max_sequence_length": -1,
                    "vocabulary_size": -1,
                }
            )
    return out


def run_board(prefix: str, kind: str, seed: int) -> dict:
    """Import, aggregate and export one board; returns ``{marginal, simultaneous, width}``
    (per-entry coverage of the exported marginal set ``rank_interval`` and of
    ``rank_set_simultaneous``, mean width of the marginal set) and removes its models."""
    from django.core.management import call_command

    from leaderboard.models import LanguageModel
    from leaderboard.services.aggregation import aggregate
    from leaderboard.services.results_import import import_file

    mu = KINDS[kind]
    rng = np.random.default_rng(seed)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"{prefix}.jsonl.gz"
        with gzip.open(path, "wt", encoding="utf-8") as fh:
            fh.writelines(json.dumps(r) + "\n" for r in records(prefix, mu, rng))
        report = import_file(path)
        assert report.errors == [] and report.imported == MODELS * len(DATASETS), report.summary()
    aggregate(["da"])
    out = StringIO()
    call_command("export_leaderboard", "da", stdout=out)
    entries = {e["model"]: e for e in json.loads(out.getvalue())["entries"]}
    truth = true_ranks(mu)
    hits_m, hits_s, widths = [], [], []
    for j in range(MODELS):
        e = entries[f"{prefix}/m{j:02d}"]
        (ml, mh), (sl, sh) = e["rank_interval"], e["rank_set_simultaneous"]
        hits_m.append(ml <= truth[j] <= mh)
        hits_s.append(sl <= truth[j] <= sh)
        widths.append(mh - ml)  # as the issue measures it: 0 for a single rank
        assert e["rank"] == ml  # the printed rank is the marginal set's lower end
    LanguageModel.objects.filter(model_id__startswith=f"{prefix}/").delete()
    return {"marginal": float(np.mean(hits_m)), "simultaneous": float(np.mean(hits_s)), "width": float(np.mean(widths))}


def run_boards(kind: str, boards: int, seed0: int = 0) -> dict:
    """Mean of :func:`run_board` over ``boards`` boards of ``kind``."""
    runs = [run_board(f"sim-{kind}-{b}", kind, seed0 + b) for b in range(boards)]
    return {key: float(np.mean([r[key] for r in runs])) for key in runs[0]}
