"""Extractive reading comprehension from one SQuAD-format file (a SQuAD translation or a
SQuAD-style set, :mod:`scripts.datasets.squad_sources`).

Paragraphs are taken in the order of a seeded key of their text and assigned whole to test,
then val, then train (a paragraph never spans two splits; when a split fills up part-way
through a paragraph, that paragraph's later questions are left out). A question is dropped
when it is empty, when it has no answer (SQuAD 2.0's unanswerable questions), when its text
repeats a question taken earlier, or when one of its answers is not its context's text at its
offset. Where a source lists one question once per accepted answer
(``SquadSet.merge_repeats``), a question repeating one taken from the same paragraph adds its
answers to that row instead. Every choice depends only on the
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
UNANSWERABLE = " Questions with no answer (SQuAD 2.0's unanswerable ones) are left out ({unanswerable})."
MERGED = (
    " The source lists a question once per accepted answer, so a question whose (stripped) text repeats one taken "
    "from the same paragraph is not dropped but adds its answers to that row ({merged} merged); only repeats of a "
    "question from another paragraph count as repeated."
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
    return {"id": str(qa["id"]), "context": context, "question": qa["question"].strip(), "answers": answers}


def _add_answers(row: dict, answers: list[dict]) -> None:
    """A repeat's answers added to the row of the question it repeats (those it lacks, in order)."""
    for a in answers:
        pair = (a["text"], a["answer_start"])
        if pair not in zip(row["answers"]["text"], row["answers"]["answer_start"]):
            row["answers"]["text"].append(a["text"])
            row["answers"]["answer_start"].append(a["answer_start"])


def build(source: SquadSet, data: bytes) -> tuple[dict[str, list[dict]], list[dict], dict[str, int]]:
    """(splits of rows, the paragraphs read in key order, counts of dropped questions)."""
    paragraphs = sorted(read_paragraphs(data, source.file), key=lambda p: item_key(p["context"], "paragraph"))
    wanted = dict(source.sizes)
    rows: dict[str, list[dict]] = {split: [] for split in wanted}
    counts = {"repeated": 0, "misplaced": 0, "unanswerable": 0, "merged": 0}
    seen: set[str] = set()
    used: list[dict] = []
    for paragraph in paragraphs:
        split = next((s for s in wanted if len(rows[s]) < wanted[s]), None)
        if split is None:
            break
        used.append(paragraph)
        taken: dict[str, dict] = {}  # this paragraph's rows by question text
        for qa in paragraph["qas"]:
            question = qa["question"].strip()
            if source.merge_repeats and question in taken:
                if _answers_found(paragraph["context"], qa["answers"]):
                    _add_answers(taken[question], qa["answers"])
                    counts["merged"] += 1
                else:
                    counts["misplaced"] += 1
                continue
            if len(rows[split]) == wanted[split]:
                continue  # the split is full: only answers of this paragraph's rows are still taken
            if not question or question in seen:
                counts["repeated"] += 1
            elif not qa["answers"]:
                counts["unanswerable"] += 1
            elif not _answers_found(paragraph["context"], qa["answers"]):
                counts["misplaced"] += 1
            else:
                rows[split].append(_row(paragraph["context"], qa))
                taken[question] = rows[split][-1]
            seen.add(question)
    ordered = {split: sorted(rows.get(split, []), key=lambda r: item_key(r["id"], "row")) for split in SPLITS}
    return ordered, used, counts


def fixture_bytes(source: SquadSet, used: list[dict]) -> bytes:
    """A SQuAD file holding just the paragraphs a folder read, with the fields the builder reads
    (gzipped as the source is)."""
    kept = [
        {
            "context": p["context"],
            "qas": [
                {
                    "id": qa["id"],
                    "question": qa["question"],
                    "answers": [{"text": a["text"], "answer_start": a["answer_start"]} for a in qa["answers"]],
                }
                for qa in p["qas"]
            ],
        }
        for p in used
    ]
    raw = json.dumps({"data": [{"title": "fixture", "paragraphs": kept}], "version": "1.1"}, ensure_ascii=False)
    return gzip.compress(raw.encode("utf-8"), mtime=0) if source.file.endswith(".gz") else raw.encode("utf-8")


def describe(source: SquadSet, used: list[dict], counts: dict[str, int]) -> str:
    text = DESCRIPTION.format(about=source.about, file=source.file, seed=SEED, paragraphs=len(used), **counts)
    if counts["unanswerable"]:
        text += UNANSWERABLE.format(**counts)
    if source.merge_repeats:
        text += MERGED.format(**counts)
    return text
