"""Common-sense reasoning from XCOPA (COPA's 600 validation and test items translated and
re-annotated), one language at a time, as two-choice multiple-choice rows.

A COPA item is a premise, whether its cause or its effect is asked for, and two
alternatives, one of them the more plausible. A row's ``question`` is the premise followed
by the language's sentence asking for the cause or the effect
(:class:`scripts.datasets.sources.XcopaLanguage`), its ``choices`` the two alternatives in
the source's order, its ``label`` the index of the right one (the engine shows them as
a. and b.)."""

from __future__ import annotations

import json
from collections import Counter

from scripts.datasets.sampling import SEED, item_key

FIELDS = ("premise", "choice1", "choice2")
ASKED = ("cause", "effect")
EUROEVAL_SIZES = {"val": 256, "train": 1024}  # the share of val in the source's validation file

DESCRIPTION = (
    "XCOPA {language} (common-sense reasoning), built by scripts/datasets (xcopa.py) from {val_file} and "
    "{test_file}: the Choice of Plausible Alternatives (COPA) validation and test items, translated from English "
    "and re-annotated by native speakers (XCOPA's 'changed' flag, kept in no row, marks {changed} items adapted in "
    "translation). Each item is a premise, whether its cause or its effect is asked for, and two alternatives. "
    "A row's question is the premise, a space and the sentence {cause!r} (cause) or {effect!r} (effect), written "
    "for Glossa (XCOPA gives only the English words); its choices are the two alternatives in the source's order "
    "and its label the index of the more plausible one (0 or 1; the engine shows the choices as a. and b.). Texts "
    "are stripped of surrounding whitespace. Dropped: {dropped} items with an empty text or two identical "
    "alternatives and {duplicates} repeats of an item already read (the test file is read first). Items are "
    "ordered by a key, SHA-256 of seed "
    "{seed} and the item's texts; the test split is the whole test file ({test} items); the validation file gives "
    "val ({val} items, a fifth, as EuroEval's 256 to 1,024) and train ({train} items, the few-shot pool). XCOPA "
    "is small: the splits are below EuroEval's sizes. Rows per label (0 / 1) and per question (cause / effect): "
    "{distribution}."
)


def read_items(data: bytes, path: str) -> list[dict]:
    """The file's items (one JSON object a line); a line without the fields, with an unknown
    question or label, is refused with the file's name and the line's number."""
    items = []
    for number, line in enumerate(data.decode("utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}:{number}: not JSON ({exc})") from None
        if not isinstance(item, dict) or not all(isinstance(item.get(field), str) for field in FIELDS):
            raise ValueError(f"{path}:{number}: an item needs the texts {', '.join(FIELDS)}")
        if item.get("question") not in ASKED:
            raise ValueError(f"{path}:{number}: question {item.get('question')!r} is not cause or effect")
        if item.get("label") not in (0, 1) or isinstance(item.get("label"), bool):
            raise ValueError(f"{path}:{number}: label {item.get('label')!r} is not 0 or 1")
        items.append(
            {**{field: item[field].strip() for field in FIELDS}, **{k: item[k] for k in ("question", "label")}}
        )
        items[-1]["changed"] = bool(item.get("changed"))
    return items


def _key(item: dict) -> bytes:
    return item_key("\x00".join((item["premise"], item["question"], item["choice1"], item["choice2"])))


def _usable(items: list[dict], seen: set[bytes], counts: Counter) -> list[dict]:
    """The items in key order, without those dropped (counted in ``counts``)."""
    kept = []
    for item in sorted(items, key=_key):
        if not all(item[field] for field in FIELDS) or item["choice1"] == item["choice2"]:
            counts["dropped"] += 1
        elif _key(item) in seen:
            counts["duplicates"] += 1
        else:
            seen.add(_key(item))
            kept.append(item)
    return kept


def row(lang, item: dict) -> dict:
    """The multiple-choice row of an item."""
    asked = lang.cause if item["question"] == "cause" else lang.effect
    return {
        "question": f"{item['premise']} {asked}",
        "choices": [item["choice1"], item["choice2"]],
        "label": item["label"],
    }


def build(lang, val_data: bytes, test_data: bytes):
    """(rows of train, val and test; the source items of each split; counts of what was dropped)."""
    counts: Counter = Counter()
    seen: set[bytes] = set()
    test = _usable(read_items(test_data, lang.file("test")), seen, counts)
    pool = _usable(read_items(val_data, lang.file("val")), seen, counts)
    n_val = len(pool) * EUROEVAL_SIZES["val"] // sum(EUROEVAL_SIZES.values())
    items = {"train": pool[n_val:], "val": pool[:n_val], "test": test}
    counts["changed"] = sum(item["changed"] for split in items.values() for item in split)
    rows = {split: [row(lang, item) for item in taken] for split, taken in items.items()}
    return rows, items, counts


def describe(lang, rows: dict[str, list[dict]], items: dict[str, list[dict]], counts: Counter) -> str:
    labels = {split: Counter(r["label"] for r in rows[split]) for split in rows}
    asked = {split: Counter(i["question"] for i in items[split]) for split in items}
    per_split = "; ".join(
        f"{split} {labels[split][0]} / {labels[split][1]}, {asked[split]['cause']} / {asked[split]['effect']}"
        for split in ("train", "val", "test")
    )
    return DESCRIPTION.format(
        language=lang.language,
        val_file=lang.file("val"),
        test_file=lang.file("test"),
        changed=counts["changed"],
        cause=lang.cause,
        effect=lang.effect,
        dropped=counts["dropped"],
        duplicates=counts["duplicates"],
        seed=SEED,
        test=len(rows["test"]),
        val=len(rows["val"]),
        train=len(rows["train"]),
        distribution=per_split,
    )
