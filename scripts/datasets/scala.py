"""ScaLA-style linguistic acceptability from a Universal Dependencies treebank.

Half of each split's sentences stay as written (label ``correct``); the other half are
corrupted once (label ``incorrect``) by swapping two adjacent words or deleting a word
that is not a leaf of the dependency tree. :data:`DESCRIPTION` says every rule exactly and
goes into the folder's ``dataset.json``."""

from __future__ import annotations

from scripts.datasets.conllu import Sentence, Token, read_sentences
from scripts.datasets.sampling import SEED, item_key, item_rng, take_splits

PUNCT = {"PUNCT", "SYM"}
SIZES = {"test": 256, "val": 64, "train": 256}
ATTEMPTS = 20

DESCRIPTION = (
    "ScaLA-style linguistic acceptability for {language}, built by scripts/datasets (scala.py) from the UD "
    "{treebank} treebank ({files}). Sentence text is rebuilt from the surface tokens (multiword tokens kept as one "
    "token) honouring SpaceAfter=No. Kept sentences have 5-50 surface tokens, do not start with punctuation, have "
    "balanced double quotes, admit at least one corruption and are de-duplicated. Each kept sentence gets a key, "
    "SHA-256 of seed {seed} and its text; sentences are sorted by key and the first {test} form test, the next "
    "{val} val and the next {train} train. Within each split the sentences at even positions keep label 'correct' "
    "and those at odd positions are corrupted once and labelled 'incorrect'; rows are then ordered by a second "
    "key of their original text. A corruption (random generator seeded from the sentence's text) is chosen 50/50 "
    "between (a) swapping two adjacent tokens, neither punctuation/symbol, not identical (case-insensitively), not "
    "both proper nouns or both numerals, and (b) deleting one single-word token, not punctuation/symbol, that is "
    "not a leaf of the dependency tree (it heads at least one word that is not punctuation); the deleted token's "
    "SpaceAfter passes to the token before it. If the chosen kind is impossible the other is used. When the first "
    "token is moved or deleted the sentence-initial capital is moved to the new first token (proper nouns, "
    "all-caps tokens{noun_case} keep their case). A corruption that reproduces its own sentence or any sentence "
    "of the dataset is redrawn. Corruptions made: {swaps} swaps, {deletions} deletions."
)


def _is_punct(token: Token) -> bool:
    return all(w.upos in PUNCT for w in token.words)


def _upos(token: Token) -> str | None:
    return token.single.upos if token.single else None


def swap_positions(sentence: Sentence) -> list[int]:
    tokens = sentence.tokens
    found = []
    for i in range(len(tokens) - 1):
        a, b = tokens[i], tokens[i + 1]
        if _is_punct(a) or _is_punct(b) or a.form.casefold() == b.form.casefold():
            continue
        if _upos(a) == _upos(b) and _upos(a) in ("PROPN", "NUM"):
            continue
        found.append(i)
    return found


def deletion_positions(sentence: Sentence) -> list[int]:
    found = []
    for i, token in enumerate(sentence.tokens):
        word = token.single
        if word is None or word.upos in PUNCT:
            continue
        if any(dep.upos not in PUNCT for dep in sentence.dependents(word.id)):
            found.append(i)
    return found


def eligible(sentence: Sentence) -> bool:
    tokens = sentence.tokens
    if not 5 <= len(tokens) <= 50 or _is_punct(tokens[0]):
        return False
    if sentence.text().count('"') % 2:
        return False
    return bool(swap_positions(sentence) or deletion_positions(sentence))


def _keeps_case(token: Token, nouns_capitalised: bool) -> bool:
    upos = _upos(token)
    return upos == "PROPN" or (len(token.form) > 1 and token.form.isupper()) or (nouns_capitalised and upos == "NOUN")


def _recase(original_first: Token, tokens: list[Token], nouns_capitalised: bool) -> list[Token]:
    """Move the sentence-initial capital to the new first token (the old one, if it moved,
    loses it unless its case is its own)."""
    if tokens[0].words is original_first.words or not original_first.form[:1].isupper():
        return tokens
    out = []
    for token in tokens:
        if token.words is original_first.words and not _keeps_case(token, nouns_capitalised):
            token = Token(token.form[:1].lower() + token.form[1:], token.words, token.space_after)
        out.append(token)
    first = out[0]
    out[0] = Token(first.form[:1].upper() + first.form[1:], first.words, first.space_after)
    return out


def _swap(sentence: Sentence, i: int) -> list[Token]:
    tokens = list(sentence.tokens)
    a, b = tokens[i], tokens[i + 1]
    tokens[i] = Token(b.form, b.words, a.space_after)  # spacing stays with the position
    tokens[i + 1] = Token(a.form, a.words, b.space_after)
    return tokens


def _delete(sentence: Sentence, i: int) -> list[Token]:
    tokens = list(sentence.tokens)
    gone = tokens.pop(i)
    if i > 0:
        before = tokens[i - 1]
        tokens[i - 1] = Token(before.form, before.words, gone.space_after)
    return tokens


def corrupt(sentence: Sentence, forbidden: set[str], nouns_capitalised: bool) -> tuple[str, str]:
    """(the corrupted text, "swap" or "deletion")."""
    original = sentence.text()
    rng = item_rng(original, "corruption")
    options = {"swap": swap_positions(sentence), "deletion": deletion_positions(sentence)}
    for _ in range(ATTEMPTS):
        first = rng.choice(["swap", "deletion"])
        kind = first if options[first] else ("deletion" if first == "swap" else "swap")
        position = rng.choice(options[kind])
        tokens = _swap(sentence, position) if kind == "swap" else _delete(sentence, position)
        tokens = _recase(sentence.tokens[0], tokens, nouns_capitalised)
        text = sentence.text(tokens)
        if text != original and text not in forbidden:
            return text, kind
    raise ValueError(f"no corruption of {original!r} differs from every sentence of the dataset")


def build(files: dict[str, bytes], nouns_capitalised: bool = False, sizes: dict[str, int] | None = None):
    """(splits of rows, the sentences used, counts of each corruption kind)."""
    sentences = [s for data in files.values() for s in read_sentences(data)]
    pool = [s for s in sentences if eligible(s)]
    splits = take_splits(pool, lambda s: item_key(s.text()), sizes or SIZES)
    used = [s for split in splits.values() for s in split]
    forbidden = {s.text() for s in used}
    counts = {"swap": 0, "deletion": 0}
    rows: dict[str, list[dict]] = {}
    for name, split in splits.items():
        made = []
        for position, sentence in enumerate(split):
            if position % 2 == 0:
                made.append((sentence.text(), {"text": sentence.text(), "label": "correct"}))
                continue
            text, kind = corrupt(sentence, forbidden, nouns_capitalised)
            counts[kind] += 1
            made.append((sentence.text(), {"text": text, "label": "incorrect"}))
        made.sort(key=lambda pair: item_key(pair[0], "rows"))
        rows[name] = [row for _, row in made]
    return rows, used, counts


def describe(language: str, treebank: str, files: list[str], rows: dict, counts: dict, nouns_capitalised: bool) -> str:
    return DESCRIPTION.format(
        language=language,
        treebank=treebank,
        files=", ".join(files),
        seed=SEED,
        test=len(rows["test"]),
        val=len(rows["val"]),
        train=len(rows["train"]),
        noun_case=", nouns (capitalised in this language)" if nouns_capitalised else "",
        swaps=counts["swap"],
        deletions=counts["deletion"],
    )
