"""Glossa's EEE code against EuroEval's own ``eee_utils.py``, on every record of a file.

Not a test: EuroEval's source is not part of this repository. Give it the path of
EuroEval's ``src/euroeval/eee_utils.py`` (any checkout; the figures in BENCHMARKS.md are
from f37841c8d). Its two functions run under this Python with two stand-ins: its
``constants`` module (only ``EEE_SCHEMA_VERSION = "0.2.1"``) and its pydantic
``BenchmarkResult`` (a plain object holding the fields it is given).

    .venv/bin/python benchmarks/eee_against_euroeval.py EEE_UTILS.py RECORDS.jsonl.gz

It checks, per record, that (1) the port in ``tests/support/euroeval_eee.py`` writes the
very dict EuroEval's ``benchmark_result_to_eee_dict`` writes, and (2) Glossa's reader
(``leaderboard/eee/records.py``) reads from it what EuroEval's
``benchmark_result_from_eee_dict`` reads: results (raw and total), dataset, task, model,
languages, few-shot, split, counts, flags, generative type and EuroEval version.
"""

from __future__ import annotations

import gzip
import json
import os
import sys
import tempfile
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "leaderboard.settings")
NOW = 1_780_000_000.0
FIELDS = (
    ("dataset", "dataset"), ("task", "task"), ("model", "model"), ("few_shot", "few_shot"),
    ("validation_split", "validation_split"), ("num_model_parameters", "num_model_parameters"),
    ("max_sequence_length", "max_sequence_length"), ("vocabulary_size", "vocabulary_size"),
    ("generative", "generative"), ("merge", "merge"), ("generative_type", "generative_type"),
    ("euroeval_version", "euroeval_version"), ("results", "results"),
)  # fmt: skip


def load_euroeval(eee_utils: Path):
    """EuroEval's module, importable as ``euroeval.eee_utils`` from a scratch folder."""
    package = Path(tempfile.mkdtemp()) / "euroeval"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "constants.py").write_text('EEE_SCHEMA_VERSION = "0.2.1"\n')
    (package / "data_models.py").write_text(
        "class BenchmarkResult:\n    def __init__(self, **fields):\n        self.__dict__.update(fields)\n"
    )
    (package / "eee_utils.py").write_text(eee_utils.read_text(encoding="utf-8"), encoding="utf-8")
    sys.path.insert(0, str(package.parent))
    import euroeval.eee_utils as module

    module.time.time = lambda: NOW
    return module


def main() -> int:
    import django

    django.setup()
    from leaderboard.eee.records import legacy_record
    from tests.support.euroeval_eee import benchmark_result_from_dict, benchmark_result_to_eee_dict

    euroeval = load_euroeval(Path(sys.argv[1]))
    opener = gzip.open if sys.argv[2].endswith(".gz") else open
    records = written_alike = read_alike = 0
    with opener(sys.argv[2], "rt", encoding="utf-8") as handle:
        for line in handle:
            fields = benchmark_result_from_dict(json.loads(line))
            theirs = euroeval.benchmark_result_to_eee_dict(types.SimpleNamespace(**fields))
            ours = benchmark_result_to_eee_dict(fields, NOW)
            written_alike += json.dumps(theirs, sort_keys=True) == json.dumps(ours, sort_keys=True)
            eee = json.loads(json.dumps(theirs))
            read = euroeval.benchmark_result_from_eee_dict(eee).__dict__
            glossa = legacy_record(eee)
            same = all(read[a] == glossa.get(b) for a, b in FIELDS)
            read_alike += same and list(read["languages"]) == glossa["dataset_languages"]
            records += 1
    print(f"records {records}; written alike {written_alike}; read alike {read_alike}")
    return 0 if records == written_alike == read_alike else 1


if __name__ == "__main__":
    raise SystemExit(main())
