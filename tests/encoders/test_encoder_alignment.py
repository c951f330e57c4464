"""NER label alignment: first sub-token carries the word's label, -100 elsewhere."""

from __future__ import annotations

import pytest

from evaluation.encoders.alignment import IGNORE_INDEX, align_labels, repair_iob2, word_predictions

LABELS = ["O", "B-PER", "I-PER", "B-LOC", "I-LOC", "B-ORG", "I-ORG", "B-MISC", "I-MISC"]
L2I = {label: i for i, label in enumerate(LABELS)}
I2L = dict(enumerate(LABELS))


def test_align_labels_hand_made_word_ids():
    # [CLS] johan ##son lives in copen ##ha ##gen . [SEP]
    word_ids = [None, 0, 0, 1, 2, 3, 3, 3, 4, None]
    labels = ["B-PER", "O", "O", "B-LOC", "O"]
    assert align_labels(word_ids, labels, L2I) == [-100, 1, -100, 0, 0, 3, -100, -100, 0, -100]


def test_align_labels_with_real_fast_tokenizer(minilm_tokenizer):
    tokens = ["Johanson", "lives", "in", "Copenhagen", "."]
    encoded = minilm_tokenizer(tokens, is_split_into_words=True)
    # MiniLM's uncased WordPiece: [CLS] johan ##son lives in copenhagen . [SEP]
    assert minilm_tokenizer.convert_ids_to_tokens(encoded["input_ids"]) == [
        "[CLS]",
        "johan",
        "##son",
        "lives",
        "in",
        "copenhagen",
        ".",
        "[SEP]",
    ]
    aligned = align_labels(encoded.word_ids(), ["B-PER", "O", "O", "B-LOC", "O"], L2I)
    assert aligned == [IGNORE_INDEX, L2I["B-PER"], IGNORE_INDEX, 0, 0, L2I["B-LOC"], 0, IGNORE_INDEX]


def test_align_labels_rejects_unknown_tag():
    with pytest.raises(ValueError, match="unknown NER tag 'B-FOO'"):
        align_labels([None, 0, None], ["B-FOO"], L2I)


def test_word_predictions_read_first_subtoken_only():
    word_ids = [None, 0, 0, 1, 2, 2, None]
    # the second sub-token of words 0 and 2 predicts something else: ignored
    token_preds = [0, L2I["B-ORG"], L2I["O"], L2I["I-ORG"], L2I["O"], L2I["B-PER"], 0]
    assert word_predictions(word_ids, token_preds, I2L, 3) == ["B-ORG", "I-ORG", "O"]


def test_word_predictions_truncated_words_are_outside():
    word_ids = [None, 0, 1, None]  # words 2 and 3 were cut off by truncation
    assert word_predictions(word_ids, [0, L2I["B-LOC"], L2I["I-LOC"], 0], I2L, 4) == ["B-LOC", "I-LOC", "O", "O"]


def test_repair_iob2_turns_orphan_inside_tags_into_begin():
    assert repair_iob2(["I-PER", "I-PER", "O", "I-LOC", "B-ORG", "I-LOC"]) == [
        "B-PER",
        "I-PER",
        "O",
        "B-LOC",
        "B-ORG",
        "B-LOC",
    ]
