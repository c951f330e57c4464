"""Extractive reading comprehension from XQuAD (240 SQuAD v1.1 paragraphs and their 1,190
questions, professionally translated), one language at a time.

XQuAD ships one test set per language and the languages are parallel (a question has the
same id in every file), so the splits are made once, on the English file, and every
language gets the same paragraphs in each split: the assignment that the older folders
``xquad-en`` and ``xquad-de`` use (this module reproduces their paragraph assignment from
``xquad.en.json``; their rows differ in that they also dropped a few questions)."""

from __future__ import annotations

import json
import random

SEED = 4242
ARTICLES_KEPT = 32  # of XQuAD's 48 articles
SHARES = {"test": 2, "val": 10}  # test fills to a half of the questions, then val to a tenth; train the rest

DESCRIPTION = (
    "XQuAD {language} (reading comprehension), built by scripts/datasets (xquad.py) from {file}: SQuAD v1.1 "
    "development paragraphs and questions professionally translated from English, with extractive answers. XQuAD "
    "only ships a test set, so splits are made here, on the English file ({english}), so that every language has "
    "the same paragraphs in each split (the split of xquad-en and xquad-de, which this procedure reproduces): the "
    "indices of the 48 articles are shuffled by Python's random.Random({seed}) and the first {kept} kept, in their "
    "original order; their paragraphs are shuffled by a fresh random.Random({seed}); an English question whose "
    "text (stripped) an earlier one in that order already has is dropped; the paragraphs are assigned whole (all "
    "questions of a paragraph stay in one split) to test while it holds fewer than half (rounded down) of the kept "
    "English questions, then to val while it holds fewer than a tenth, the rest to train. The {language} "
    "questions are those with the same ids, question text stripped; one is dropped when its text repeats an "
    "earlier {language} question or an answer's text is not in its context at its offset ({dropped} dropped). "
    "Rows follow the shuffled order (paragraphs as shuffled, questions as in the source), as in xquad-en, so the "
    "first test rows are the same questions as xquad-en's."
)


def read_articles(data: bytes) -> list[dict]:
    articles = json.loads(data.decode("utf-8"))["data"]
    if not articles or not all("paragraphs" in a for a in articles):
        raise ValueError("an XQuAD file holds {'data': [articles with paragraphs]}")
    return articles


def _shuffled_paragraphs(english: bytes) -> list[dict]:
    articles = read_articles(english)
    order = list(range(len(articles)))
    random.Random(SEED).shuffle(order)
    paragraphs = [p for index in sorted(order[:ARTICLES_KEPT]) for p in articles[index]["paragraphs"]]
    random.Random(SEED).shuffle(paragraphs)
    return paragraphs


def _first_asked(questions: list[tuple[str, str]]) -> set[str]:
    """The ids of the questions whose text (stripped) no earlier question has."""
    seen, first = set(), set()
    for qid, text in questions:
        if text.strip() not in seen:
            first.add(qid)
        seen.add(text.strip())
    return first


def assignment(english: bytes) -> dict[str, tuple[str, int]]:
    """question id → (split, position in the shuffled English order), for the kept English
    questions (a repeated question text is kept once)."""
    paragraphs = _shuffled_paragraphs(english)
    kept = _first_asked([(qa["id"], qa["question"]) for p in paragraphs for qa in p["qas"]])
    total = len(kept)
    filled = dict.fromkeys(SHARES, 0)
    split_of: dict[str, tuple[str, int]] = {}
    for paragraph in paragraphs:
        ids = [qa["id"] for qa in paragraph["qas"] if qa["id"] in kept]
        split = next((s for s, share in SHARES.items() if filled[s] < total // share), "train")
        if split in filled:
            filled[split] += len(ids)
        split_of.update({qid: (split, len(split_of) + i) for i, qid in enumerate(ids)})
    return split_of


def _answers_found(context: str, answers: list[dict]) -> bool:
    return bool(answers) and all(
        context[a["answer_start"] : a["answer_start"] + len(a["text"])] == a["text"] for a in answers
    )


def build(english: bytes, language: bytes) -> tuple[dict[str, list[dict]], int]:
    """(splits of rows, questions dropped: an answer not at its offset, or a question text
    repeated in this language)."""
    split_of = assignment(english)
    found = {
        qa["id"]: (paragraph["context"], qa)
        for article in read_articles(language)
        for paragraph in article["paragraphs"]
        for qa in paragraph["qas"]
        if qa["id"] in split_of
    }
    ordered = sorted(found, key=lambda qid: split_of[qid][1])
    first = _first_asked([(qid, found[qid][1]["question"]) for qid in ordered])
    rows: dict[str, list[dict]] = {"train": [], "val": [], "test": []}
    dropped = 0
    for qid in ordered:
        context, qa = found[qid]
        if qid not in first or not _answers_found(context, qa["answers"]):
            dropped += 1
            continue
        answers = {
            "text": [a["text"] for a in qa["answers"]],
            "answer_start": [a["answer_start"] for a in qa["answers"]],
        }
        row = {"id": qid, "context": context, "question": qa["question"].strip(), "answers": answers}
        rows[split_of[qid][0]].append(row)
    return rows, dropped


def describe(language: str, file: str, english: str, dropped: int) -> str:
    return DESCRIPTION.format(
        language=language, file=file, english=english, seed=SEED, kept=ARTICLES_KEPT, dropped=dropped
    )
