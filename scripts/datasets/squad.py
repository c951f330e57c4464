"""Extractive reading comprehension from one SQuAD-format file (a SQuAD translation or a
SQuAD-style set, :mod:`scripts.datasets.squad_sources`).

Paragraphs are taken in the order of a seeded key of their text and assigned whole to test,
then val, then train (a paragraph never spans two splits; when a split fills up part-way
through a paragraph, that paragraph's later questions are left out). A question is dropped
when it is empty, when its text repeats a question taken earlier, or when one of its
answers is not its context's text at its offset. Every choice depends only on the
paragraphs read before it in key order, so a fixture holding just those paragraphs
rebuilds a folder byte for byte."""

from __future__ import annotations

import gzip
import json

from scripts.datasets.sampling import SEED, item_key
from scripts.datasets.squad_sources import SquadSet

SPLITS = ("train", "val", "test")

DESCRIPTION = (
    "{about}. Built by scripts/datasets (squad.py) from {file}: the paragraphs (questions of the same context "
    "text merged) are ordered by SHA-256 of '{seed}', 'paragraph' and their text and assigned whole to test, "
    "then val, then train, until each holds its number of questions (a paragraph never spans two splits; when "
    "a split fills up part-way through a paragraph, its later questions are left out); {paragraphs} paragraphs "
    "were read. A question is dropped when it is empty, repeats (stripped) the text of a question read before "
    "it, or has an answer whose text is not in its context at its offset ({repeated} repeated, {misplaced} with "
    "a misplaced answer). Question text is stripped; every answer of a question is kept, so the F1 and "
    "exact-match scores take the best match. Rows of a split are ordered by SHA-256 of '{seed}', 'row' and their id."
)


def read_paragraphs(data: bytes, file: str) -> list[dict]:
    """The file's paragraphs in source order, those with the same context text merged
    (their questions in source order)."""
    raw = gzip.decompress(data) if file.endswith(".gz") else data
    articles = json.loads(raw.decode("utf-8"))["data"]
    if not articles or not all("paragraphs" in a for a in articles):
        raise ValueError(f"{file}: a SQuAD file holds {{'data': [articles with paragraphs]}}")
    merged: dict[str, dict] = {}
    for article in articles:
        for paragraph in article["paragraphs"]:
            merged.setdefault(paragraph["context"], {"context": paragraph["context"], "qas": []})
            merged[paragraph["context"]]["qas"].extend(paragraph["qas"])
    return list(merged.values())


def _answers_found(context: str, answers: list[dict]) -> bool:
    return bool(answers) and all(
        context[a["answer_start"] : a["answer_start"] + len(a["text"])] == a["text"] for a in answers
    )


def _row(context: str, qa: dict) -> dict:
    answers = {
        "text": [a["text"] for a in qa["answers"]],
        "answer_start": [a["answer_start"] for a in qa["answers"]],
    }
    return {"id": qa["id"], "context": context, "question": qa["question"].strip(), "answers": answers}


def build(source: SquadSet, data: bytes) -> tuple[dict[str, list[dict]], list[dict], dict[str, int]]:
    """(splits of rows, the paragraphs read in key order, counts of dropped questions)."""
    paragraphs = sorted(read_paragraphs(data, source.file), key=lambda p: item_key(p["context"], "paragraph"))
    wanted = dict(source.sizes)
    rows: dict[str, list[dict]] = {split: [] for split in wanted}
    counts = {"repeated": 0, "misplaced": 0}
    seen: set[str] = set()
    used: list[dict] = []
    for paragraph in paragraphs:
        split = next((s for s in wanted if len(rows[s]) < wanted[s]), None)
        if split is None:
            break
        used.append(paragraph)
        for qa in paragraph["qas"]:
            if len(rows[split]) == wanted[split]:
                break
            question = qa["question"].strip()
            if not question or question in seen:
                counts["repeated"] += 1
            elif not _answers_found(paragraph["context"], qa["answers"]):
                counts["misplaced"] += 1
            else:
                rows[split].append(_row(paragraph["context"], qa))
            seen.add(question)
    ordered = {split: sorted(rows.get(split, []), key=lambda r: item_key(r["id"], "row")) for split in SPLITS}
    return ordered, used, counts


def fixture_bytes(source: SquadSet, used: list[dict]) -> bytes:
    """A SQuAD file holding just the paragraphs a folder read (gzipped as the source is)."""
    raw = json.dumps({"data": [{"title": "fixture", "paragraphs": used}], "version": "1.1"}, ensure_ascii=False)
    return gzip.compress(raw.encode("utf-8"), mtime=0) if source.file.endswith(".gz") else raw.encode("utf-8")


def describe(source: SquadSet, used: list[dict], counts: dict[str, int]) -> str:
    return DESCRIPTION.format(about=source.about, file=source.file, seed=SEED, paragraphs=len(used), **counts)
