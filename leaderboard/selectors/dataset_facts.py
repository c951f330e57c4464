"""What the dataset page says beyond the dataset's own row: what EuroEval's documentation
says about it (``leaderboard/data/euroeval_datasets.json``, built by
``scripts/datasets/euroeval_docs.py`` at a recorded EuroEval commit; facts only, the
sentences are ours) and which boards it is a column of."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from urllib.parse import urlsplit

from leaderboard.models import Dataset, Leaderboard
from leaderboard.selectors.formatting import board_url, format_int

EUROEVAL_DOCS = Path(__file__).resolve().parents[1] / "data" / "euroeval_datasets.json"


@cache
def _docs() -> dict:
    try:
        document = json.loads(EUROEVAL_DOCS.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return document if isinstance(document.get("datasets"), dict) else {}


def _article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def euroeval_facts(name: str) -> dict | None:
    """EuroEval's facts about dataset ``name`` with our sentences around them, or None."""
    document = _docs()
    facts = document.get("datasets", {}).get(name)
    if not isinstance(facts, dict):
        return None
    task = str(facts.get("task") or "").lower()
    pretty = str(facts.get("pretty_name") or name)
    language = str(facts.get("language") or "")
    splits = facts.get("splits") or {}
    standing = "one of the datasets its leaderboards count" if facts.get("official") else "listed as unofficial"
    sentences = [f"{pretty} is {_article(task)} {task} dataset in {language}; in EuroEval it is {standing}."]
    if splits:
        parts = [
            f"{format_int(splits[k])} {label}"
            for k, label in (("train", "training"), ("val", "validation"), ("test", "test"))
            if splits.get(k)
        ]
        sentences.append(f"EuroEval evaluates on {', '.join(parts)} examples.")
    if facts.get("original_size"):
        sentences.append(f"The dataset it samples them from has {format_int(facts['original_size'])} examples.")
    repository = str(facts.get("repository") or "")
    return {
        "pretty_name": pretty,
        "official": bool(facts.get("official")),
        "description": " ".join(sentences),
        "splits": {k: format_int(v) for k, v in splits.items()},
        "links": [
            {**link, "host": urlsplit(str(link.get("url", ""))).hostname or ""}
            for link in facts.get("links") or []
            if isinstance(link, dict)
        ],
        "licence": " ".join(facts.get("licence") or []),
        "repository": repository,
        "repository_url": f"https://huggingface.co/datasets/{repository}" if "/" in repository else "",
        "commit": str(document.get("commit") or ""),
    }


def boards_counting(dataset: Dataset) -> list[dict]:
    """The boards whose columns include ``dataset`` (a suite board counts the data directory's
    datasets, whatever their published standing), suite boards first."""
    boards = []
    for board in Leaderboard.objects.filter(kind="language").only("code", "name", "datasets"):
        names = {d.get("name") for d in board.datasets or [] if isinstance(d, dict)}
        if dataset.name in names:
            boards.append(
                {"code": board.code, "name": board.name, "url": board_url(board.code), "suite": board.is_suite}
            )
    boards.sort(key=lambda b: (not b["suite"], b["name"]))
    return boards
