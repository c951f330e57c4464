"""Common-sense reasoning from translations of COPA in XCOPA's JSON-lines format (XCOPA,
COPA-lv), one language at a time, as two-choice multiple-choice rows.

A COPA item is a premise, whether its cause or its effect is asked for, and two
alternatives, one of them the more plausible. A row's ``question`` is the premise followed
by the language's sentence asking for the cause or the effect
(:class:`scripts.datasets.sources.CopaSet`), its ``choices`` the two alternatives in the
source's order, its ``label`` the index of the right one (the engine shows them as a. and b.)."""

from __future__ import annotations

import json
from collections import Counter

from scripts.datasets.sampling import SEED, cut_val_train, item_key, usable_in_key_order

FIELDS = ("premise", "choice1", "choice2")
SPLITS = ("train", "val", "test")

DESCRIPTION = (
    "{language} common-sense reasoning, built by scripts/datasets (copa.py) from {about}. Each item is a premise, "
    "whether its cause or its effect is asked for, and two alternatives. A row's question is the premise, a space "
    "and the sentence {cause!r} (cause) or {effect!r} (effect), written for Glossa (the source names only which is "
    "asked); its choices are the two alternatives in the source's order and its label the index of the more "
    "plausible one (0 or 1; the engine shows the choices as a. and b.). Texts are stripped of surrounding "
    "whitespace. {unreadable}Dropped: {dropped} items with an empty text or two identical alternatives and "
    "{duplicates} repeats of an item already read (files read in the order test, val, train). Items are ordered by "
    "a key, SHA-256 of seed {seed} and the item's texts. {splits} The source is small: the splits are below "
    "EuroEval's sizes. Rows per label (0 / 1) and per question (cause / effect): {distribution}."
)


def read_items(data: bytes, path: str, asked: dict[str, str], unreadable: list[int] | None = None) -> list[dict]:
    """The file's items (one JSON object a line), question mapped to cause or effect. A line that
    is not JSON is refused with the file's name and the line's number, or, where ``unreadable``
    is given, its number appended there; an item without the fields, with an unknown question
    or label, is always refused."""
    items = []
    for number, line in enumerate(data.decode("utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            if unreadable is None:
                raise ValueError(f"{path}:{number}: not JSON ({exc})") from None
            unreadable.append(number)
            continue
        if not isinstance(item, dict) or not all(isinstance(item.get(field), str) for field in FIELDS):
            raise ValueError(f"{path}:{number}: an item needs the texts {', '.join(FIELDS)}")
        if item.get("question") not in asked:
            raise ValueError(f"{path}:{number}: question {item.get('question')!r} is not one of {', '.join(asked)}")
        if item.get("label") not in (0, 1) or isinstance(item.get("label"), bool):
            raise ValueError(f"{path}:{number}: label {item.get('label')!r} is not 0 or 1")
        items.append({field: item[field].strip() for field in FIELDS})
        items[-1].update(question=asked[item["question"]], label=item["label"], changed=bool(item.get("changed")))
    return items


def _key(item: dict) -> bytes:
    return item_key("\x00".join((item["premise"], item["question"], item["choice1"], item["choice2"])))


def _unusable(item: dict) -> bool:
    return not all(item[field] for field in FIELDS) or item["choice1"] == item["choice2"]


def row(copa, item: dict) -> dict:
    """The multiple-choice row of an item."""
    asked = copa.cause if item["question"] == "cause" else copa.effect
    return {
        "question": f"{item['premise']} {asked}",
        "choices": [item["choice1"], item["choice2"]],
        "label": item["label"],
    }


def build(copa, files: dict[str, bytes]):
    """(rows of train, val and test; the source items of each split; counts of what was dropped
    and skipped). ``files`` maps each of the set's paths to its bytes; a source with another
    number of unreadable lines than the set expects is refused."""
    counts: Counter = Counter()
    seen: set[bytes] = set()
    unreadable: list[int] = []
    items: dict[str, list[dict]] = {}
    for split, path in copa.files:
        read = read_items(files[path], path, dict(copa.asked), unreadable if copa.unreadable_lines else None)
        taken = usable_in_key_order(read, _key, _unusable, seen, counts)
        if split == "val+train":
            items["val"], items["train"] = cut_val_train(taken)
        else:
            items[split] = taken
    if len(unreadable) != copa.unreadable_lines:
        raise ValueError(f"{copa.dataset}: {len(unreadable)} lines are not JSON, {copa.unreadable_lines} expected")
    counts["unreadable"] = len(unreadable)
    counts["changed"] = sum(item["changed"] for taken in items.values() for item in taken)
    rows = {split: [row(copa, item) for item in items[split]] for split in SPLITS}
    return rows, {split: items[split] for split in SPLITS}, counts


def describe(copa, rows: dict[str, list[dict]], items: dict[str, list[dict]], counts: Counter) -> str:
    labels = {split: Counter(r["label"] for r in rows[split]) for split in SPLITS}
    asked = {split: Counter(i["question"] for i in items[split]) for split in SPLITS}
    per_split = "; ".join(
        f"{split} {labels[split][0]} / {labels[split][1]}, {asked[split]['cause']} / {asked[split]['effect']}"
        for split in SPLITS
    )
    file_of = dict(copa.files)
    if "val+train" in file_of:
        splits = (
            f"The test split is the whole of {file_of['test']} ({len(rows['test'])} items); {file_of['val+train']} "
            f"gives val ({len(rows['val'])} items, a fifth, as EuroEval's 256 to 1,024) and train "
            f"({len(rows['train'])} items, the few-shot pool)."
        )
    else:
        splits = (
            "Each split is the whole of its file: "
            + ", ".join(f"{split} {file_of[split]} ({len(rows[split])} items)" for split in ("test", "val", "train"))
            + "."
        )
    unreadable = (
        f"{counts['unreadable']} lines of the source that are not JSON (a quotation mark missing) are skipped. "
        if counts["unreadable"]
        else ""
    )
    changed = f", {counts['changed']} of the items used" if counts["changed"] else ""
    return DESCRIPTION.format(
        language=copa.language,
        about=copa.about + changed,
        cause=copa.cause,
        effect=copa.effect,
        unreadable=unreadable,
        dropped=counts["dropped"],
        duplicates=counts["duplicates"],
        seed=SEED,
        splits=splits,
        distribution=per_split,
    )
