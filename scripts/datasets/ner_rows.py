"""Rows of a named-entity set from sentences with their corpus's own IOB2 tags, shared by
:mod:`scripts.datasets.uner` and :mod:`scripts.datasets.ner_corpora`.

The sentences of a corpus's files are pooled, duplicate token sequences dropped and the
sentences cut into splits by a key of their own tokens (:mod:`scripts.datasets.sampling`);
each sentence's tags are mapped onto PER/LOC/ORG/MISC as valid IOB2 (:func:`glossa_tags`).
Every count is of the rows kept, so that a fixture of the sentences used gives the same."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from scripts.datasets.sampling import item_key, take_splits

SIZES = {"test": 2048, "val": 256, "train": 1024}  # EuroEval's mini splits, as norne-nb (and the withdrawn conll-en)
LABELS = ("O", "B-PER", "I-PER", "B-LOC", "I-LOC", "B-ORG", "I-ORG", "B-MISC", "I-MISC")
KINDS = ("PER", "LOC", "ORG", "MISC")


@dataclass(frozen=True)
class Sentence:
    tokens: tuple[str, ...]
    tags: tuple[str, ...]  # as in the source
    block: str  # the sentence's lines as read, for writing fixtures

    @property
    def key(self) -> bytes:
        return item_key("\t".join(self.tokens))


def is_known_tag(tag: str, types: Mapping[str, str]) -> bool:
    """``O``, or ``B-``/``I-`` and one of the corpus's entity types."""
    if tag == "O":
        return True
    prefix, _, kind = tag.partition("-")
    return prefix in ("B", "I") and kind in types


def glossa_tags(
    tags: Iterable[str], types: Mapping[str, str], fixes: Mapping[str, str] | None = None
) -> tuple[list[str], int, int]:
    """(the tags mapped onto PER/LOC/ORG/MISC as valid IOB2, I- tags made B-, malformed tags fixed).

    ``types`` maps the corpus's entity types onto Glossa's (or onto ``O``, for a type that is
    not read as an entity: its tokens are tagged O) and ``fixes`` a malformed source tag
    onto the tag read in its place. An I- tag that does not continue an entity of its own type
    (the corpus's type, before the mapping: PRO after DATE starts anew) becomes B-."""
    fixes = fixes or {}
    out, repaired, fixed, previous = [], 0, 0, "O"  # previous: the source tag before this one
    for tag in tags:
        if tag in fixes:
            tag, fixed = fixes[tag], fixed + 1
        mapped = tag
        if tag != "O" and types[tag[2:]] == "O":
            mapped = "O"
        elif tag != "O":
            prefix, kind = tag[0], tag[2:]
            if prefix == "I" and previous[2:] != kind:
                prefix, repaired = "B", repaired + 1
            mapped = f"{prefix}-{types[kind]}"
        out.append(mapped)
        previous = tag
    return out, repaired, fixed


def build_rows(
    sentences: list[Sentence],
    types: Mapping[str, str],
    fixes: Mapping[str, str] | None = None,
    sizes: dict[str, int] | None = None,
):
    """(splits of rows, the sentences used, counts of the rows kept: ``repaired`` and ``fixed``
    tags and the entities of each type, ``PER``, ``LOC``, ``ORG`` and ``MISC``)."""
    splits = take_splits(sentences, lambda s: s.key, sizes or SIZES)
    rows: dict[str, list[dict]] = {}
    counts = {"repaired": 0, "fixed": 0, **dict.fromkeys(KINDS, 0)}
    for name, split in splits.items():
        rows[name] = []
        for sentence in split:
            tags, repaired, fixed = glossa_tags(sentence.tags, types, fixes)
            counts["repaired"] += repaired
            counts["fixed"] += fixed
            for tag in tags:
                if tag.startswith("B-"):
                    counts[tag[2:]] += 1
            rows[name].append({"tokens": list(sentence.tokens), "labels": tags})
    used = [s for split in splits.values() for s in split]
    return rows, used, counts


def sizes_note(rows: dict) -> str:
    """The description's words on the split sizes: EuroEval's, or in proportion to a smaller pool."""
    wanted = sum(SIZES.values())
    if sum(len(split) for split in rows.values()) == wanted:
        return " (EuroEval's mini sizes)"
    return f", sizes in proportion because the pool is smaller than {wanted}"
