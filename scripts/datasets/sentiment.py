"""Sentiment classification from corpora whose files are JSON lists of records, headerless
CSV files or tab-separated files, one text and one label each
(:class:`scripts.datasets.sources.SentimentCorpus` names the fields, or the columns, maps the
labels onto positive, neutral and negative and names the labels whose records are left out)."""

from __future__ import annotations

import csv
import io
import json
from collections import Counter

from scripts.datasets.sampling import SEED, item_key, split_sizes

LABELS = ("positive", "neutral", "negative")
SIZES = {"test": 2048, "val": 256, "train": 1024}

DESCRIPTION = (
    "Sentiment classification for {language}, built by scripts/datasets (sentiment.py) from {title}: {about} "
    "Labels: {mapping}. Texts are kept as written, only stripped of surrounding whitespace. "
    "Dropped: {empty} empty texts, {conflicts} texts the source gives more than one label ({conflict_rows} records) "
    "and {duplicates} further copies of a text already read. {order} Within a file, texts are sorted by a key, "
    "SHA-256 of seed {seed} and the text, and the splits are filled in the order test, val, train, each up to its "
    "size ({test} test, {val} val, {train} train), taking a file's texts in key order before the next file's. "
    "Rows per label: {distribution}."
)


def _lines(data: bytes, corpus) -> list[list[str]]:
    """The fields of each line: split on the corpus's ``separator`` as they stand (no quoting;
    a last line may lack its newline), or read as CSV where it has none."""
    text = data.decode("utf-8")
    if corpus.separator:
        return [line.split(corpus.separator) for line in text.removesuffix("\n").split("\n")] if text else []
    return list(csv.reader(io.StringIO(text, newline="")))


def _source_records(data: bytes, corpus, path: str) -> list:
    """The file's records: a JSON list, or the lines of a headerless CSV or separated file as
    dicts of the corpus's ``columns`` (a line with another number of fields is refused)."""
    if not corpus.columns:
        records = json.loads(data.decode("utf-8"))
        if not isinstance(records, list):
            raise ValueError(f"{path}: a JSON list of records expected")
        return records
    records = []
    for number, fields in enumerate(_lines(data, corpus), 1):
        if len(fields) != len(corpus.columns):
            raise ValueError(f"{path}:{number}: {len(fields)} fields, {len(corpus.columns)} expected")
        records.append(dict(zip(corpus.columns, fields, strict=True)))
    return records


def read_records(data: bytes, corpus, path: str) -> list[dict]:
    """The file's records as ``{"text", "label", "record"}`` (label mapped; ``None`` for a label
    the corpus leaves out); an unknown label or a record without the corpus's fields is refused
    with the file's name."""
    records = _source_records(data, corpus, path)
    mapping = dict(corpus.labels)
    rows = []
    for number, record in enumerate(records):
        if not isinstance(record, dict) or not isinstance(record.get(corpus.text_field), str):
            raise ValueError(f"{path}: record {number} has no text field {corpus.text_field!r}")
        label = record.get(corpus.label_field)
        if label not in mapping and label not in corpus.left_out:
            raise ValueError(f"{path}: record {number} has the unknown label {label!r}")
        rows.append({"text": record[corpus.text_field].strip(), "label": mapping.get(label), "record": record})
    return rows


def build(corpus, files: dict[str, bytes], sizes: dict[str, int] | None = None):
    """(splits of rows, the source records a fixture needs per file, counts of what was dropped).

    A fixture holds the records used and those dropped or left out (with the kept copy of a
    dropped duplicate), so that a build from it drops and counts the same. Records of a label
    the corpus leaves out are set aside before anything else (they make no conflict)."""
    read, needed = {}, {}
    for path in corpus.files:
        rows = read_records(files[path], corpus, path)
        needed[path] = [row["record"] for row in rows if row["label"] is None]
        read[path] = [row for row in rows if row["label"] is not None]
    labels_of: dict[str, set[str]] = {}
    for rows in read.values():
        for row in rows:
            labels_of.setdefault(row["text"], set()).add(row["label"])
    conflicting = {text for text, labels in labels_of.items() if len(labels) > 1}
    counts = Counter(conflicts=len(conflicting), left_out=sum(len(records) for records in needed.values()))
    kept: dict[str, dict] = {}
    pools: dict[str, list[dict]] = {}
    for path, rows in read.items():
        pools[path] = []
        for row in sorted(rows, key=lambda r: item_key(r["text"])):
            reason = _dropped(row["text"], conflicting, kept)
            if reason:
                counts[reason] += 1
                needed[path].append(row["record"])
                if reason == "duplicates":
                    kept[row["text"]]["needed"] = True
            else:
                kept[row["text"]] = row
                pools[path].append(row)
    room = split_sizes(sum(len(pool) for pool in pools.values()), sizes or SIZES)
    splits: dict[str, list[dict]] = {split: [] for split in room}
    for path, pool in pools.items():
        start = 0
        for split in room:
            taken = pool[start : start + room[split] - len(splits[split])]
            splits[split].extend(taken)
            for row in taken:
                row["needed"] = True
            start += len(taken)
        needed[path].extend(row["record"] for row in pool if row.get("needed"))
    rows = {split: [{"text": r["text"], "label": r["label"]} for r in taken] for split, taken in splits.items()}
    return rows, needed, counts


def _dropped(text: str, conflicting: set[str], kept: dict) -> str:
    if not text:
        return "empty"
    if text in conflicting:
        return "conflict_rows"
    return "duplicates" if text in kept else ""


def fixture_bytes(corpus, records: list[dict]) -> bytes:
    """A source file holding only ``records`` (those a build needs) and of them only the two
    fields read, read as the source is."""
    if corpus.separator:
        return "".join(corpus.separator.join(r[c] for c in corpus.columns) + "\n" for r in records).encode("utf-8")
    if corpus.columns:
        out = io.StringIO()
        csv.writer(out, lineterminator="\n").writerows([r[c] for c in corpus.columns] for r in records)
        return out.getvalue().encode("utf-8")
    fields = (corpus.text_field, corpus.label_field)
    return (json.dumps([{f: r[f] for f in fields} for r in records], ensure_ascii=False) + "\n").encode("utf-8")


def describe(corpus, rows: dict[str, list[dict]], counts: Counter) -> str:
    tally = Counter(row["label"] for split in rows.values() for row in split)
    per_split = "; ".join(
        f"{split} " + ", ".join(f"{sum(r['label'] == label for r in rows[split])} {label}" for label in LABELS)
        for split in ("train", "val", "test")
    )
    return DESCRIPTION.format(
        language=corpus.language,
        title=corpus.title,
        about=corpus.about,
        mapping=corpus.mapping + (f" ({counts['left_out']} records)" if corpus.left_out else ""),
        empty=counts["empty"],
        conflicts=counts["conflicts"],
        conflict_rows=counts["conflict_rows"],
        duplicates=counts["duplicates"],
        order=corpus.order,
        seed=SEED,
        test=len(rows["test"]),
        val=len(rows["val"]),
        train=len(rows["train"]),
        distribution=f"{per_split} ({sum(tally.values())} in all)",
    )
