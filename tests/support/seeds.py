"""The suite's seed records (``data/results/suite/``, the engine's own records and examples)
imported as ``make demo`` imports them, only the lines a test wants."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tests.conftest import DATA_DIR

SUITE = DATA_DIR / "results" / "suite"


def import_seed_records(folder: Path, keep: Callable[[dict], bool]) -> list:
    """Each seed file's records that ``keep`` accepts, copied to ``folder`` with the file's
    predictions linked beside them, then imported; returns the import reports (each checked:
    no error, every kept line imported)."""
    from leaderboard.services.results_import import import_file

    reports = []
    for path in sorted(SUITE.glob("*.jsonl")):
        lines = [line for line in path.read_text().splitlines() if keep(json.loads(line))]
        if not lines:
            continue
        (folder / path.name).write_text("\n".join(lines) + "\n")
        predictions = path.with_suffix(".predictions")
        if predictions.exists():
            (folder / predictions.name).symlink_to(predictions)
        report = import_file(folder / path.name, source=path.name)
        assert report.errors == [] and report.imported == len(lines), report.summary()
        reports.append(report)
    return reports
