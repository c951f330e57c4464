"""The time each language's suite board took to seed, from the seed records themselves.

    .venv/bin/python benchmarks/seed_times.py            # a markdown table on stdout

Every record the engine writes carries ``efficiency.wall_seconds`` (the evaluation's wall
time, model load included) and the machine it ran on; records written before that field
existed have none and are counted as untimed. The wall times are those of the machine as it
was then (often shared with other seeding processes), so they are an upper bound of the
work, not a quiet-machine measurement.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SUITE = REPO / "data" / "results" / "suite"
DATASETS = REPO / "data" / "datasets"
MODELS = ("google/gemma-3-270m", "HuggingFaceTB/SmolLM2-135M-Instruct", "sentence-transformers/all-MiniLM-L6-v2")


def language_of_each_dataset() -> dict[str, str]:
    """Dataset name → its language code, from the folders' ``dataset.json``."""
    found = {}
    for meta in DATASETS.glob("*/dataset.json"):
        data = json.loads(meta.read_text(encoding="utf-8"))
        found[data["name"]] = data["language"]
    return found


def seed_seconds(records: list[dict], languages: dict[str, str]) -> dict[tuple[str, str], list[float | None]]:
    """(language, model) → the wall seconds of each of its records (None where untimed)."""
    seconds: dict[tuple[str, str], list[float | None]] = defaultdict(list)
    for record in records:
        language = languages.get(record["dataset"])
        if language is None:
            continue  # a record of a dataset no longer in the data pack
        wall = (record.get("efficiency") or {}).get("wall_seconds")
        seconds[language, record["model"]].append(float(wall) if wall is not None else None)
    return seconds


def cell(values: list[float | None]) -> str:
    """The cell for one model: its minutes and how many of its records were timed; "–" where not seeded."""
    if not values:
        return "–"
    timed = [v for v in values if v is not None]
    minutes = sum(timed) / 60
    return f"{minutes:.1f} min ({len(timed)}/{len(values)} timed)"


def table(seconds: dict[tuple[str, str], list[float | None]]) -> str:
    languages = sorted({language for language, _ in seconds})
    lines = [
        "| language | " + " | ".join(m.split("/")[1] for m in MODELS) + " | all timed records |",
        "|---|" + "---|" * (len(MODELS) + 1),
    ]
    for language in languages:
        per_model = [seconds.get((language, model), []) for model in MODELS]
        total = sum(v for values in per_model for v in values if v is not None) / 60
        lines.append(f"| {language} | " + " | ".join(cell(v) for v in per_model) + f" | {total:.1f} min |")
    return "\n".join(lines)


def main() -> None:
    records = [json.loads(line) for path in sorted(SUITE.glob("*.jsonl")) for line in path.open(encoding="utf-8")]
    print(table(seed_seconds(records, language_of_each_dataset())))


if __name__ == "__main__":
    main()
