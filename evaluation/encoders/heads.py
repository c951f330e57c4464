"""One head per task family: how rows become features, and model outputs become predictions.

- ``SequenceClassificationHead``: sentiment, linguistic acceptability
  (AutoModelForSequenceClassification, one label per row).
- ``MultipleChoiceHead``: knowledge, common-sense reasoning (AutoModelForMultipleChoice:
  every choice is encoded as the pair (question, choice), a shared scorer gives each
  pair one logit and a softmax over the choices is trained with cross-entropy; the
  prediction is the index of the best choice). This keeps the question and each choice
  together within the length limit and works for any number of choices.
- ``TokenClassificationHead``: NER (AutoModelForTokenClassification, labels on the first
  sub-token of each word; see :mod:`evaluation.encoders.alignment`).
- ``QuestionAnsweringHead``: reading comprehension (AutoModelForQuestionAnswering with
  windowed contexts; see :mod:`evaluation.encoders.qa`).

Every head turns one row into a *list* of features (QA rows may have several windows),
so a bootstrap resample of rows maps to features by concatenation.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from evaluation.encoders import alignment, qa
from evaluation.encoders.collate import make_collate
from evaluation.encoders.training import BatchSize, predict_batches

# Tokenizers with a byte-level BPE need a prefix space to tokenize pre-split words.
_PREFIX_SPACE_MODEL_TYPES = frozenset(
    {"roberta", "roberta-prelayernorm", "deberta", "longformer", "data2vec-text", "xmod"}
)


def _token_features(encoded: Any, index: int | None = None) -> dict:
    keys = ("input_ids", "attention_mask", "token_type_ids")
    if index is None:
        return {k: list(encoded[k]) for k in keys if k in encoded}
    return {k: list(encoded[k][index]) for k in keys if k in encoded}


class Head:
    """How an encoder is fine-tuned and read for one kind of task: its transformers auto class, how rows are
    encoded, and how outputs become predictions."""

    auto_class_name: str = ""

    def __init__(self, tokenizer, *, max_length: int, labels: Sequence[str] = ()) -> None:
        self.tokenizer = tokenizer
        self.max_length = max_length
        self.labels = list(labels)
        pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
        self.collate = make_collate(pad_id)

    def model_kwargs(self) -> dict:
        """Extra arguments the model class is loaded with (labels, for classification heads)."""
        return {}

    def load_model(self, model_dir: str, **load_kwargs):
        """The encoder in ``model_dir`` with this head on top (a new head: it is trained here)."""
        import transformers

        auto_class = getattr(transformers, self.auto_class_name)
        return auto_class.from_pretrained(model_dir, **self.model_kwargs(), **load_kwargs)

    def encode(self, rows: Sequence[dict]) -> list[list[dict]]:
        """Training / validation features, one list per row."""
        raise NotImplementedError

    def predict(self, model, rows: Sequence[dict], batch: BatchSize, device: str) -> list:
        """The predictions of ``model`` for ``rows``, computed in batches on ``device``."""
        raise NotImplementedError

    def gold(self, row: dict) -> Any:
        """The gold answer of ``row``, as predictions are compared with it."""
        raise NotImplementedError


class SequenceClassificationHead(Head):
    """Sequence classification: one label per document."""

    auto_class_name = "AutoModelForSequenceClassification"

    def __init__(self, tokenizer, *, max_length: int, labels: Sequence[str]) -> None:
        super().__init__(tokenizer, max_length=max_length, labels=labels)
        if len(self.labels) < 2:
            raise ValueError("a classification dataset needs at least two labels")
        self.label2id = {label: i for i, label in enumerate(self.labels)}

    def model_kwargs(self) -> dict:
        """The labels, by index and name, for the classification layer."""
        return {
            "num_labels": len(self.labels),
            "id2label": dict(enumerate(self.labels)),
            "label2id": dict(self.label2id),
        }

    def _encode_texts(self, rows: Sequence[dict]) -> Any:
        return self.tokenizer([row["text"] for row in rows], truncation=True, max_length=self.max_length)

    def encode(self, rows: Sequence[dict]) -> list[list[dict]]:
        """The features of each row (one each), with its label; an unknown label raises."""
        encoded = self._encode_texts(rows)
        features = []
        for i, row in enumerate(rows):
            if row["label"] not in self.label2id:
                raise ValueError(f"unknown label {row['label']!r}; known labels: {', '.join(self.labels)}")
            feature = _token_features(encoded, i)
            feature["labels"] = self.label2id[row["label"]]
            features.append([feature])
        return features

    def predict(self, model, rows: Sequence[dict], batch: BatchSize, device: str) -> list[str]:
        """The label of each row: the highest logit's."""
        encoded = self._encode_texts(rows)
        features = [_token_features(encoded, i) for i in range(len(rows))]
        logits = np.concatenate(
            [out["logits"] for out in predict_batches(model, features, self.collate, batch, device)]
        )
        return [self.labels[int(k)] for k in logits.argmax(axis=-1)]

    def gold(self, row: dict) -> str:
        """The row's label."""
        return row["label"]


class MultipleChoiceHead(Head):
    """Multiple choice: the question paired with each choice, the best-scored choice predicted."""

    auto_class_name = "AutoModelForMultipleChoice"

    def _encode_row(self, row: dict) -> dict:
        choices = row["choices"]
        encoded = self.tokenizer(
            [row["question"]] * len(choices), list(choices), truncation="longest_first", max_length=self.max_length
        )
        return {
            k: [list(x) for x in encoded[k]] for k in ("input_ids", "attention_mask", "token_type_ids") if k in encoded
        }

    def _check_choices(self, rows: Sequence[dict]) -> None:
        counts = {len(row["choices"]) for row in rows}
        if len(counts) > 1:
            raise ValueError(f"multiple-choice rows must all have the same number of choices, found {sorted(counts)}")

    def encode(self, rows: Sequence[dict]) -> list[list[dict]]:
        """The features of each row: the question paired with each choice, with the right choice's index."""
        self._check_choices(rows)
        features = []
        for row in rows:
            feature = self._encode_row(row)
            feature["labels"] = int(row["label"])
            features.append([feature])
        return features

    def predict(self, model, rows: Sequence[dict], batch: BatchSize, device: str) -> list[int]:
        """The index of each row's best-scored choice."""
        self._check_choices(rows)
        features = [self._encode_row(row) for row in rows]
        logits = np.concatenate(
            [out["logits"] for out in predict_batches(model, features, self.collate, batch, device)]
        )
        return [int(k) for k in logits.argmax(axis=-1)]

    def gold(self, row: dict) -> int:
        """The index of the row's right choice."""
        return int(row["label"])


class TokenClassificationHead(Head):
    """Token classification (NER): a BIO tag per word, read from its first sub-token."""

    auto_class_name = "AutoModelForTokenClassification"

    def __init__(self, tokenizer, *, max_length: int, labels: Sequence[str]) -> None:
        super().__init__(tokenizer, max_length=max_length, labels=labels)
        if not getattr(tokenizer, "is_fast", False):
            raise ValueError("named-entity recognition needs a fast tokenizer (word ids)")
        self.label2id = {label: i for i, label in enumerate(self.labels)}
        self.id2label = dict(enumerate(self.labels))

    def model_kwargs(self) -> dict:
        """The BIO tags, by index and name, for the classification layer."""
        return {"num_labels": len(self.labels), "id2label": dict(self.id2label), "label2id": dict(self.label2id)}

    def _encode_words(self, rows: Sequence[dict]) -> Any:
        return self.tokenizer(
            [row["tokens"] for row in rows], is_split_into_words=True, truncation=True, max_length=self.max_length
        )

    def encode(self, rows: Sequence[dict]) -> list[list[dict]]:
        """The features of each row, with each word's tag on its first sub-token."""
        encoded = self._encode_words(rows)
        features = []
        for i, row in enumerate(rows):
            feature = _token_features(encoded, i)
            feature["labels"] = alignment.align_labels(encoded.word_ids(i), row["labels"], self.label2id)
            features.append([feature])
        return features

    def predict(self, model, rows: Sequence[dict], batch: BatchSize, device: str) -> list[list[str]]:
        """The BIO tags of each row's words, read from each word's first sub-token."""
        encoded = self._encode_words(rows)
        features = [_token_features(encoded, i) for i in range(len(rows))]
        outputs = predict_batches(model, features, self.collate, batch, device)
        token_ids = [row for out in outputs for row in out["logits"].argmax(axis=-1)]
        return [
            alignment.word_predictions(encoded.word_ids(i), token_ids[i], self.id2label, len(row["tokens"]))
            for i, row in enumerate(rows)
        ]

    def gold(self, row: dict) -> list[str]:
        """The row's BIO tags."""
        return list(row["labels"])


class QuestionAnsweringHead(Head):
    """Extractive question answering: the answer span found in overlapping windows of the context."""

    auto_class_name = "AutoModelForQuestionAnswering"

    def __init__(self, tokenizer, *, max_length: int, labels: Sequence[str] = ()) -> None:
        super().__init__(tokenizer, max_length=min(max_length, qa.DEFAULT_MAX_LENGTH), labels=labels)
        self.stride = min(qa.DEFAULT_STRIDE, self.max_length // 4)

    def _windows(self, rows: Sequence[dict], with_labels: bool) -> list[qa.Window]:
        return qa.tokenize_windows(
            self.tokenizer, rows, max_length=self.max_length, stride=self.stride, with_labels=with_labels
        )

    def encode(self, rows: Sequence[dict]) -> list[list[dict]]:
        """The features of each row: one per window of its context, with the answer's span."""
        features: list[list[dict]] = [[] for _ in rows]
        for window in self._windows(rows, with_labels=True):
            features[window.example].append(window.feature)
        return features

    def predict(self, model, rows: Sequence[dict], batch: BatchSize, device: str) -> list[str]:
        """The answer of each row: the best-scored span over its windows."""
        windows = self._windows(rows, with_labels=False)
        outputs = predict_batches(
            model, [w.feature for w in windows], self.collate, batch, device, output_keys=("start_logits", "end_logits")
        )
        starts = [row for out in outputs for row in out["start_logits"]]
        ends = [row for out in outputs for row in out["end_logits"]]
        per_example: list[list] = [[] for _ in rows]
        for w, window in enumerate(windows):
            per_example[window.example].append((starts[w], ends[w], window.offsets))
        return [qa.best_span(per_example[i], row["context"]) for i, row in enumerate(rows)]

    def gold(self, row: dict) -> list[str]:
        """The row's gold answers."""
        return list(row["answers"]["text"])


def head_for(spec) -> type[Head]:
    """The head class a task's kind names (``TaskKind.encoder_head``)."""
    return globals()[spec.kind.encoder_head]


def needs_prefix_space(model_type: str, spec) -> bool:
    """Whether the tokenizer needs ``add_prefix_space`` (byte-level BPE encoders reading pre-split words)."""
    return spec.kind.needs_prefix_space and model_type in _PREFIX_SPACE_MODEL_TYPES
