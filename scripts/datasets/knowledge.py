"""Knowledge sets: exam questions with four options and one right answer
(:class:`scripts.datasets.knowledge_sources.ExamSource`), as multiple-choice rows.

A row is ``{"question", "choices", "label"}`` as in ``mmlu-en``: the question, its four
options in the source's order and the index of the right one (the engine shows them as a. to
d.). Every usable question of the source is ordered by a key of its own texts
(:func:`scripts.datasets.sampling.item_key`), which mixes subjects, and the splits are filled in
that order (test, val, train), so a fixture holding only the questions a build needed (and
those it dropped) rebuilds the same rows."""

from __future__ import annotations

import gzip
import io
import json
import tarfile
from collections import Counter
from dataclasses import dataclass, field

from scripts.datasets.sampling import SEED, cut_in_order, item_key, split_sizes

SIZES = {"test": 2048, "val": 256, "train": 1024}
SPLITS = ("train", "val", "test")
LETTERS = "abcd"
ZNO_LETTERS = ("А", "Б", "В", "Г")  # Ukrainian letters, as ZNO-Eval names the options

DESCRIPTION = (
    "{language} knowledge: four-choice exam questions, built by scripts/datasets (knowledge.py) from {title}: "
    "{about}. A row's question and choices are the source's, stripped of surrounding whitespace, the choices in the "
    "source's order, and its label the index of the right answer (0 to 3; the engine shows the choices as a. to d.). "
    "{skipped}Dropped: {empty} questions with an empty question or option, {repeated} with two identical options, "
    "{conflicts} questions given different right answers ({conflict_rows} copies) and {duplicates} further copies of "
    "a question already read. Questions are ordered by a key, SHA-256 of seed {seed} and the question's texts{mixing}, "
    "and the splits take them in that order: test, val, train, each up to its "
    "size ({sizes}). {files}Rows per right answer (a / b / c / d): {distribution}."
)


@dataclass
class Entry:
    """One question record of a source file: where it is, what it says, and what became of it."""

    path: str
    index: int  # its place among the file's records
    record: dict
    item: dict | None  # question, choices, label; None where the record is not a four-choice text question
    status: str = ""  # "" (in the pool), "used", or why it was skipped or dropped
    split: str = ""  # where it was used
    needed: bool = field(default=False)  # a fixture must hold it


def _choices_item(question, choices, label, where: str) -> dict:
    if not isinstance(question, str) or not isinstance(choices, list) or not all(isinstance(c, str) for c in choices):
        raise ValueError(f"{where}: a question needs a text and a list of option texts")
    return {"question": question.strip(), "choices": [c.strip() for c in choices], "label": label}


def mmlu_records(data: bytes, path: str) -> list[dict]:
    records = json.loads(data.decode("utf-8"))
    if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
        raise ValueError(f"{path}: a JSON list of question objects expected")
    return records


def mmlu_item(record: dict, where: str) -> dict:
    """A question of a "mmlu-json" file (four options, the answer's index), or a refusal."""
    item = _choices_item(record.get("question"), record.get("choices"), record.get("answer"), where)
    if len(item["choices"]) != 4 or item["label"] not in range(4) or isinstance(item["label"], bool):
        raise ValueError(f"{where}: four options and an answer index 0-3 expected")
    return item


def mmlu_fixture(records: list[dict]) -> bytes:
    fields = ("question", "choices", "answer")
    return (json.dumps([{f: r[f] for f in fields} for r in records], ensure_ascii=False) + "\n").encode("utf-8")


def zno_records(data: bytes, path: str) -> list[dict]:
    """The tasks of every exam of a ZNO-Eval file, in order."""
    exams = json.loads(data.decode("utf-8"))
    if not isinstance(exams, list) or not all(isinstance(e, dict) and isinstance(e.get("tasks"), list) for e in exams):
        raise ValueError(f"{path}: a JSON list of exams with their tasks expected")
    return [task for exam in exams for task in exam["tasks"]]


def zno_item(task: dict, where: str) -> dict | None:
    """A ZNO task's question, or None where the task is not a text question with the four options
    А to Г and one right answer (a picture, a matching or ordering task, an open answer)."""
    answers, correct = task.get("answers"), task.get("correct_answer")
    if not isinstance(answers, list) or not isinstance(correct, list):
        raise ValueError(f"{where}: a task needs its answers and correct_answer lists")
    letters = tuple(a.get("answer") for a in answers if isinstance(a, dict))
    if task.get("with_photo") or task.get("answer_hheader") or letters != ZNO_LETTERS or len(correct) != 1:
        return None
    if correct[0] not in ZNO_LETTERS:
        raise ValueError(f"{where}: the right answer {correct[0]!r} is not one of the options")
    return _choices_item(task.get("question"), [a.get("text") for a in answers], ZNO_LETTERS.index(correct[0]), where)


def zno_fixture(tasks: list[dict], kept: list[bool]) -> bytes:
    """One exam holding ``tasks`` with the fields read; a skipped task's texts are left out."""
    fields = ("question", "answers", "answer_hheader", "correct_answer", "with_photo")
    out = []
    for task, keep in zip(tasks, kept, strict=True):
        task = {f: task.get(f) for f in fields}
        if not keep:
            task["question"] = ""
            task["answers"] = [{**a, "text": ""} for a in task["answers"]]
        out.append(task)
    return (json.dumps([{"tasks": out}], ensure_ascii=False) + "\n").encode("utf-8")


EXAMS_LETTERS = ("A", "B", "C", "D")


def exams_records(data: bytes, path: str, language: str = "") -> list[dict]:
    """The questions of an EXAMS archive (a .tar.gz holding one JSON-lines file), only those of
    ``language`` (its ``info.language``) where one is named."""
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
        members = [m for m in archive.getmembers() if m.isfile()]
        if len(members) != 1:
            raise ValueError(f"{path}: one JSON-lines file expected in the archive")
        text = archive.extractfile(members[0]).read().decode("utf-8")
    records = [json.loads(line) for line in text.splitlines() if line.strip()]
    return [r for r in records if not language or r.get("info", {}).get("language") == language]


def exams_item(record: dict, where: str) -> dict | None:
    """An EXAMS question with the four options A to D, or None where it has three or five."""
    question, key = record.get("question"), record.get("answerKey")
    if not isinstance(question, dict) or not isinstance(question.get("choices"), list):
        raise ValueError(f"{where}: a question needs its stem and choices")
    choices = question["choices"]
    if tuple(c.get("label") for c in choices) != EXAMS_LETTERS:
        return None
    if key not in EXAMS_LETTERS:
        raise ValueError(f"{where}: the right answer {key!r} is not one of the options")
    return _choices_item(question.get("stem"), [c.get("text") for c in choices], EXAMS_LETTERS.index(key), where)


def exams_fixture(records: list[dict], kept: list[bool]) -> bytes:
    """An archive as EXAMS's, with the records' fields read (a skipped question's texts left out),
    written the same way every time (no dates)."""
    lines = []
    for record, keep in zip(records, kept, strict=True):
        question = record["question"]
        if not keep:
            question = {"stem": "", "choices": [{**c, "text": ""} for c in question["choices"]]}
        fields = {"question": question, "answerKey": record["answerKey"], "info": record["info"]}
        lines.append(json.dumps(fields, ensure_ascii=False) + "\n")
    data = "".join(lines).encode("utf-8")
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", mtime=0) as packed, tarfile.open(fileobj=packed, mode="w") as archive:
        info = tarfile.TarInfo("questions.jsonl")
        info.size, info.mode = len(data), 0o644
        archive.addfile(info, io.BytesIO(data))
    return out.getvalue()


READERS = {
    "mmlu-json": (mmlu_records, mmlu_item, lambda records, kept: mmlu_fixture(records)),
    "zno": (zno_records, zno_item, zno_fixture),
    "exams": (exams_records, exams_item, exams_fixture),
}


def source_paths(source, files_from) -> list[str]:
    """The files read, in order: the named ones, or every ``.json`` file under ``under`` but the post-edits."""
    if source.files:
        return list(source.files)
    edited = {edited for edited, _ in source.postedits}
    listed = files_from.list(source.repo, source.commit, source.under)
    return sorted(p for p in listed if p.endswith(".json") and p not in edited)


def read_entries(source, files: dict[str, bytes]) -> list[Entry]:
    """Every record of the source's files, post-edits put in place of the questions they edit."""
    records_of, item_of, _ = READERS[source.reader]
    edited = {base: path for path, base in source.postedits}
    language = {"language": source.only} if source.only else {}
    entries = []
    for path, data in files.items():
        if path in {p for p, _ in source.postedits}:
            continue
        records = records_of(data, path, **language)
        edits = records_of(files[edited[path]], edited[path]) if path in edited else []
        for index, record in enumerate(records):
            item = item_of(record, f"{path}: question {index}")
            if index < len(edits):
                edit = item_of(edits[index], f"{edited[path]}: question {index}")
                if item is None or edit is None or edit["label"] != item["label"]:
                    raise ValueError(f"{edited[path]}: question {index} does not edit {path}'s question {index}")
                item = {**edit, "edited": True}
            entries.append(Entry(path, index, record, item, "" if item else "skipped"))
    return entries


def _key(item: dict) -> bytes:
    return item_key("\x00".join((item["question"], *item["choices"])))


def _drop(entries: list[Entry], counts: Counter) -> list[Entry]:
    """The pool in key order: entries without an empty text, repeated options, conflicting or
    repeated copies (dropped ones get their reason as status and are counted)."""
    usable = [e for e in entries if e.item is not None]
    labels: dict[bytes, set[int]] = {}
    for entry in usable:
        labels.setdefault(_key(entry.item), set()).add(entry.item["label"])
    kept: dict[bytes, Entry] = {}
    pool = []
    for entry in sorted(usable, key=lambda e: _key(e.item)):
        item, key = entry.item, _key(entry.item)
        if not item["question"] or not all(item["choices"]):
            entry.status = "empty"
        elif len(set(item["choices"])) < len(item["choices"]):
            entry.status = "repeated"
        elif len(labels[key]) > 1:
            entry.status = "conflict_rows"
        elif key in kept:
            entry.status = "duplicates"
            kept[key].needed = True
        else:
            kept[key] = entry
            pool.append(entry)
        counts[entry.status] += 1
    counts["conflicts"] = sum(len(found) > 1 for found in labels.values())
    return pool


def build(source, files: dict[str, bytes], sizes: dict[str, int] | None = None):
    """(rows of train, val and test; every entry read, with what became of it; counts)."""
    entries = read_entries(source, files)
    counts: Counter = Counter(skipped=sum(e.item is None for e in entries))
    pool = _drop(entries, counts)
    taken = _take(source, pool, sizes or SIZES)
    for split, chosen in taken.items():
        for entry in chosen:
            entry.status, entry.split = "used", split
    for entry in entries:
        entry.needed = entry.needed or entry.status != ""
    rows = {split: [_row(e.item) for e in taken.get(split, [])] for split in SPLITS}
    counts["edited"] = sum(bool(e.item.get("edited")) for split in taken.values() for e in split)
    return rows, entries, counts


def _take(source, pool: list[Entry], sizes: dict[str, int]) -> dict[str, list[Entry]]:
    """split → its entries: the first of the pool up to each size, from the file of the source's
    own split where ``split_of`` names one (else from the whole pool, cut in the sizes' proportions)."""
    own = dict(source.split_of)
    if own:
        return {split: [e for e in pool if own[e.path] == split][:size] for split, size in sizes.items()}
    return cut_in_order(pool, split_sizes(len(pool), sizes))


def _row(item: dict) -> dict:
    return {"question": item["question"], "choices": item["choices"], "label": item["label"]}


def fixture_files(source, entries: list[Entry]) -> dict[str, bytes]:
    """path → a source file holding only the records a build needs (with the fields read), in their
    order, and for a post-edited file the edits of those of its base file's records that it edits."""
    needed: dict[str, list[Entry]] = {}
    for entry in entries:
        if entry.needed:
            needed.setdefault(entry.path, []).append(entry)
    out = {}
    write = READERS[source.reader][2]
    for path, chosen in needed.items():
        out[path] = write([e.record for e in chosen], [e.item is not None for e in chosen])
    return out


def edited_fixture_files(source, files: dict[str, bytes], entries: list[Entry]) -> dict[str, bytes]:
    """The post-edited files holding the edits of the needed records they edit, in order (so
    that the fixture's base file and its edits line up from the first record as in the source)."""
    out = {}
    for edited, base in source.postedits:
        edits = mmlu_records(files[edited], edited)
        indices = [e.index for e in entries if e.needed and e.path == base and e.index < len(edits)]
        out[edited] = mmlu_fixture([edits[i] for i in indices])
    return out


def describe(source, rows: dict[str, list[dict]], entries: list[Entry], counts: Counter) -> str:
    sizes = ", ".join(f"{len(rows[split])} {split}" for split in ("test", "val", "train"))
    own = dict(source.split_of)
    if sum(len(r) for r in rows.values()) < sum(SIZES.values()):
        sizes += "; the source is small: the splits are below EuroEval's 2,048 / 256 / 1,024"
        sizes += "" if own else ", in their proportions"
    per_split = "; ".join(
        f"{split} " + " / ".join(str(sum(r["label"] == k for r in rows[split])) for k in range(4)) for split in SPLITS
    )
    paths = {e.path for e in entries}
    files, mixing = "", ""
    if own:
        files = (
            "Each split takes only questions of the source's own split: "
            + ", ".join(f"{split} from {path}" for path, split in source.split_of)
            + ". "
        )
    elif len(paths) > 1:
        mixing = ", which mixes the source's files (its subjects)"
        test_paths = {e.path for e in entries if e.split == "test"}
        files = f"The test split holds questions of {len(test_paths)} of the {len(paths)} files. "
    skipped = f"Skipped: {counts['skipped']} {source.skipped}. " if counts["skipped"] else ""
    about = source.about + (f" ({counts['edited']} post-edited questions used)" if counts["edited"] else "")
    return DESCRIPTION.format(
        language=source.language, title=source.title, about=about, skipped=skipped, empty=counts["empty"],
        repeated=counts["repeated"], conflicts=counts["conflicts"], conflict_rows=counts["conflict_rows"],
        duplicates=counts["duplicates"], seed=SEED, mixing=mixing, sizes=sizes, files=files, distribution=per_split,
    )  # fmt: skip
