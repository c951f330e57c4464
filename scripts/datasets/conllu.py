"""A minimal CoNLL-U reader: sentences as surface tokens (a multiword token is one token)
with the syntactic words behind them, and the sentence's raw block for fixtures."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Word:
    id: int
    form: str
    upos: str
    head: int
    deprel: str


@dataclass
class Token:
    """A surface token: one word, or a multiword token spanning several."""

    form: str
    words: list[Word]
    space_after: bool = True

    @property
    def single(self) -> Word | None:
        return self.words[0] if len(self.words) == 1 else None


@dataclass
class Sentence:
    tokens: list[Token]
    block: str  # the sentence's lines as read, for writing fixtures
    words: dict[int, Word] = field(default_factory=dict)

    def text(self, tokens: list[Token] | None = None) -> str:
        parts = []
        for token in tokens if tokens is not None else self.tokens:
            parts.append(token.form + (" " if token.space_after else ""))
        return "".join(parts).strip()

    def dependents(self, word_id: int) -> list[Word]:
        return [w for w in self.words.values() if w.head == word_id]


def _space_after(misc: str) -> bool:
    return "SpaceAfter=No" not in misc.split("|")


def parse_block(block: str) -> Sentence | None:
    tokens: list[Token] = []
    words: dict[int, Word] = {}
    span_end = 0
    for line in block.split("\n"):
        if not line or line.startswith("#"):
            continue
        cols = line.split("\t")
        if len(cols) != 10:
            return None
        ident = cols[0]
        if "." in ident:  # empty nodes of enhanced dependencies
            continue
        if "-" in ident:
            start, end = (int(x) for x in ident.split("-"))
            tokens.append(Token(cols[1], [], _space_after(cols[9])))
            span_end = end
            continue
        word = Word(int(ident), cols[1], cols[3], int(cols[6]) if cols[6].isdigit() else -1, cols[7].split(":")[0])
        words[word.id] = word
        if word.id <= span_end:
            tokens[-1].words.append(word)
        else:
            tokens.append(Token(word.form, [word], _space_after(cols[9])))
    return Sentence(tokens, block, words) if tokens else None


def read_sentences(data: bytes) -> list[Sentence]:
    text = data.decode("utf-8").replace("\r\n", "\n")
    sentences = []
    for block in text.split("\n\n"):
        block = block.strip("\n")
        if block:
            sentence = parse_block(block)
            if sentence is not None:
                sentences.append(sentence)
    return sentences
