"""What answers look like: multiple-choice letters, the NER entity types and their JSON
(IOB2 tags ↔ ``{type: [entity, ...]}``, the XGrammar schema), word lists. Pure functions
shared by the prompts (:mod:`evaluation.prompts`), the answer parsers
(:mod:`evaluation.predict`) and the task kinds (:mod:`evaluation.task_kinds`)."""

from __future__ import annotations

from collections.abc import Sequence

MC_LETTERS = ("a", "b", "c", "d", "e", "f", "g", "h")
NER_TYPES = ("PER", "LOC", "ORG", "MISC")
MAX_NER_PER_TYPE = 5


def join_words(words: Sequence[str], conjunction: str) -> str:
    """``a, b or c`` (the last two joined by ``conjunction``)."""
    words = list(words)
    if len(words) <= 1:
        return "".join(words)
    return f"{', '.join(words[:-1])} {conjunction} {words[-1]}"


def bio_to_entities(tokens: Sequence[str], tags: Sequence[str], keys: dict[str, str]) -> dict[str, list[str]]:
    """IOB2 tags → ``{translated type: [entity text, ...]}`` (every key present)."""
    out: dict[str, list[str]] = {name: [] for name in keys.values()}
    current: list[str] = []
    current_type: str | None = None
    for token, tag in [*zip(tokens, tags, strict=True), ("", "O")]:
        if current and (tag == "O" or tag.startswith("B-") or tag[2:] != current_type):
            if current_type is not None and current_type in keys:
                out[keys[current_type]].append(" ".join(current))
            current, current_type = [], None
        if tag.startswith("B-") or (tag.startswith("I-") and not current):
            current, current_type = [token], tag[2:]
        elif tag.startswith("I-"):
            current.append(token)
    return out


def entities_to_bio(tokens: Sequence[str], entities: dict, keys: dict[str, str]) -> list[str]:
    """Predicted ``{translated type: [strings]}`` → IOB2 tags over ``tokens``.

    Every occurrence of an entity's token sequence is tagged (first prediction wins on
    overlaps); strings that do not occur in the sentence are ignored.
    """
    tags = ["O"] * len(tokens)
    by_name = {name: tag for tag, name in keys.items()}
    lowered = [t.lower() for t in tokens]
    for name, values in entities.items():
        tag = by_name.get(name)
        if tag is None or not isinstance(values, list):
            continue
        for value in values:
            if not isinstance(value, str) or not value.strip():
                continue
            words = value.lower().split()
            n = len(words)
            for start in range(len(tokens) - n + 1):
                if lowered[start : start + n] == words and all(t == "O" for t in tags[start : start + n]):
                    tags[start] = f"B-{tag}"
                    for k in range(start + 1, start + n):
                        tags[k] = f"I-{tag}"
    return tags


def ner_json_schema(keys: dict[str, str]) -> dict:
    """The JSON schema NER answers are constrained to: one list of short strings per entity type."""
    names = list(keys.values())
    return {
        "type": "object",
        "properties": {
            name: {"type": "array", "items": {"type": "string", "maxLength": 48}, "maxItems": MAX_NER_PER_TYPE}
            for name in names
        },
        "required": names,
        "additionalProperties": False,
    }
