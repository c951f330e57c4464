"""What kind of task a task is, and everything that follows from it.

A task (:class:`evaluation.tasks.TaskSpec`) names its kind; the kind carries the
behaviour that used to be spread over the prompts, the runner, the metrics and the
encoders as ``if task == ...`` branches:

* the document a row shows, the gold answer a shot writes, the gold a metric compares;
* the label words and the canonical labels a model chooses among;
* how a too-long row is cut;
* how answers are obtained from a backend and parsed (label scoring, constrained JSON,
  generation cut at a stop);
* which encoder head fine-tunes it, and where its labels come from.

Kinds: :class:`LabelScoring` (classification), :class:`MultipleChoice`,
:class:`StructuredGeneration` (NER as JSON), :class:`SpanExtraction` (reading
comprehension), :class:`FreeGeneration` (summarization), :class:`Rewriting`
(simplification). A new task of an existing kind is
one ``TaskSpec`` line in ``evaluation/tasks.py`` plus its prompt texts.

The kinds reach a backend only through a ``predictor`` (``evaluation.predictor.Predictor``):
``label_scores(prompts, continuations)`` (None when the backend cannot score labels) and
``generate(prompts, schema=None)``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np

from evaluation.answer_formats import MC_LETTERS, bio_to_entities, join_words, ner_json_schema
from evaluation.answer_metrics import chrf3pp, squad_em, squad_f1
from evaluation.backends.base import cut_at_stop
from evaluation.predict import closest_label, label_named, ner_tags
from evaluation.simplification_metrics import meteor_single, sari_single


def _cut(text: str, keep_fraction: float) -> str:
    return text[: max(1, int(len(text) * keep_fraction))]


class TaskKind:
    """The behaviour of one kind of task. ``fmt`` is the task's ``TaskFormat`` (its
    language table, its labels); ``row`` a dataset row."""

    name = ""
    example_score_keys: tuple[str, ...] = ()  # the keys of example_scores, in order
    label_based = False  # answers are label words (scored, not generated, where the backend can)
    text_field = "text"  # the row's main text: what the document shows and truncation cuts
    encoder_head: str | None = None  # the head class in evaluation.encoders.heads, None: no encoder
    encoder_refusal = "cannot be evaluated with encoder models"  # when encoder_head is None
    needs_prefix_space = False  # BPE tokenizers of pre-split words need add_prefix_space

    def document(self, fmt, row: dict) -> str:
        """The row's text as the prompt shows it."""
        return row[self.text_field]

    def shot_text(self, fmt, row: dict) -> str:
        """The text whose length decides "short examples" and whose value deduplicates."""
        return self.document(fmt, row)

    def gold_answer(self, fmt, row: dict) -> str:
        """What a perfect model writes after the label prefix (used for the shots)."""
        raise NotImplementedError

    def gold(self, row: dict):
        """What the task's metrics compare a prediction with."""
        raise NotImplementedError

    def gold_label(self, row: dict):
        """The label shots are stratified by; None: not stratified."""
        return None

    def label_words(self, fmt, row: dict | None = None) -> list[str]:
        """The answer words a prompt offers (none for a task that is not label-based)."""
        return []

    def canonical_labels(self, fmt, row: dict | None = None) -> list:
        """The labels the answer words stand for, in the same order."""
        return []

    def labels_phrase(self, fmt, row: dict | None = None) -> str:
        """The answer words joined with the language's "or"."""
        return join_words(self.label_words(fmt, row), fmt.table.or_word)

    def truncate(self, row: dict, keep_fraction: float) -> dict:
        """A copy of ``row`` with its main text cut to ``keep_fraction`` of its characters."""
        return {**row, self.text_field: _cut(row[self.text_field], keep_fraction)}

    def predict(self, predictor, fmt, rows: list[dict], prompts: list[str]) -> list[dict]:
        """One dict per row: ``prediction``, plus ``output`` / ``scores`` / ``valid_json``."""
        raise NotImplementedError

    def example_scores(self, gold, prediction) -> dict[str, float]:
        """One example's scores (per-example evidence, paired tests), in [0, 1]."""
        raise NotImplementedError

    def answer_valid(self, fmt, row: dict, answer: dict) -> bool:
        """Whether the model's answer (a ``predict`` dict) could be read as an answer at all;
        a generated text is valid when it is not empty."""
        output = answer.get("output")
        return output is None or bool(str(output).strip())

    def encoder_labels(self, declared: Sequence, train_rows: Sequence[dict]) -> list:
        """The label list an encoder head is trained on: the dataset's declared labels."""
        return list(declared)


class LabelScoring(TaskKind):
    """Classification: the model picks one of the dataset's label words."""

    name = "label-scoring"
    example_score_keys: tuple[str, ...] = ("correct",)
    label_based = True
    encoder_head = "SequenceClassificationHead"

    def gold_answer(self, fmt, row: dict) -> str:
        """The label's word in the prompt's language."""
        return fmt.table.labels.get(row["label"], row["label"])

    def gold(self, row: dict):
        """The row's label."""
        return row["label"]

    gold_label = gold

    def label_words(self, fmt, row: dict | None = None) -> list[str]:
        """Each of the dataset's labels in the prompt's language."""
        return [fmt.table.labels.get(label, label) for label in fmt.labels]

    def canonical_labels(self, fmt, row: dict | None = None) -> list:
        """The dataset's labels."""
        return list(fmt.labels)

    def predict(self, predictor, fmt, rows: list[dict], prompts: list[str]) -> list[dict]:
        """The label of each row: the best-scored label word, or the label most like the generated text where the
        backend cannot score."""
        words = self.label_words(fmt, rows[0])
        canonical = self.canonical_labels(fmt, rows[0])
        continuations = [(" " + w) if predictor.style == "base" else w for w in words]
        scores = predictor.label_scores(prompts, continuations)
        if scores is not None:
            return [{"scores": s, "prediction": canonical[int(np.argmax(s))]} for s in scores]
        return [{"output": o, "prediction": canonical[closest_label(o, words)]} for o in predictor.generate(prompts)]

    def encoder_labels(self, declared: Sequence, train_rows: Sequence[dict]) -> list:
        """The declared labels, else every label of the training rows."""
        return list(declared) or sorted({row["label"] for row in train_rows})

    def example_scores(self, gold, prediction) -> dict[str, float]:
        """1 when the prediction is the gold label, else 0."""
        return {"correct": float(prediction == gold)}

    def answer_valid(self, fmt, row: dict, answer: dict) -> bool:
        """Scored answers are always one of the labels; a generated one must name a label
        (an answer naming none is mapped to the most similar label, and counted invalid)."""
        if "output" not in answer:
            return True
        return label_named(answer["output"], self.label_words(fmt, row)) is not None


class MultipleChoice(LabelScoring):
    """A question with lettered choices: the model picks a letter."""

    name = "multiple-choice"
    text_field = "question"
    encoder_head = "MultipleChoiceHead"

    def document(self, fmt, row: dict) -> str:
        """The question and its lettered choices."""
        options = "\n".join(f"{MC_LETTERS[k]}. {choice}" for k, choice in enumerate(row["choices"]))
        return f"{row['question']}\n{fmt.table.choices}:\n{options}"

    def gold_answer(self, fmt, row: dict) -> str:
        """The letter of the right choice."""
        return MC_LETTERS[int(row["label"])]

    def gold(self, row: dict):
        """The index of the right choice."""
        return int(row["label"])

    gold_label = gold

    def label_words(self, fmt, row: dict | None = None) -> list[str]:
        """The letters of the row's choices (A to D without a row)."""
        return list(MC_LETTERS[: len(row["choices"]) if row else 4])

    def canonical_labels(self, fmt, row: dict | None = None) -> list:
        """The indices of the row's choices (0 to 3 without a row)."""
        return list(range(len(row["choices"]) if row else 4))

    def encoder_labels(self, declared: Sequence, train_rows: Sequence[dict]) -> list:
        """The declared labels."""
        return list(declared)


class StructuredGeneration(TaskKind):
    """Named entities as a JSON dictionary, constrained by a schema (XGrammar)."""

    name = "structured-generation"
    example_score_keys: tuple[str, ...] = ("f1",)
    text_field = "tokens"
    encoder_head = "TokenClassificationHead"
    needs_prefix_space = True

    def document(self, fmt, row: dict) -> str:
        """The row's words joined by spaces."""
        return " ".join(row["tokens"])

    def gold_answer(self, fmt, row: dict) -> str:
        """The row's entities as the JSON a perfect model writes."""
        return json.dumps(bio_to_entities(row["tokens"], row["labels"], fmt.ner_keys()), ensure_ascii=False)

    def gold(self, row: dict):
        """The row's BIO tags."""
        return list(row["labels"])

    def labels_phrase(self, fmt, row: dict | None = None) -> str:
        """The entity type names joined with the language's "and"."""
        return join_words(list(fmt.ner_keys().values()), fmt.table.ner_and)

    def truncate(self, row: dict, keep_fraction: float) -> dict:
        """A copy of ``row`` with its words (and their tags) cut to ``keep_fraction``."""
        n = max(1, int(len(row["tokens"]) * keep_fraction))
        return {**row, "tokens": row["tokens"][:n], "labels": row["labels"][:n]}

    def predict(self, predictor, fmt, rows: list[dict], prompts: list[str]) -> list[dict]:
        """BIO tags for each row from its schema-constrained JSON answer, and whether the JSON was valid."""
        keys = fmt.ner_keys()
        outputs = predictor.generate(prompts, schema=ner_json_schema(keys))
        out = []
        for row, output in zip(rows, outputs, strict=True):
            tags, valid = ner_tags(row["tokens"], output, keys)
            out.append({"output": output, "prediction": tags, "valid_json": valid})
        return out

    def encoder_labels(self, declared: Sequence, train_rows: Sequence[dict]) -> list:
        """The declared tags, else every tag of the training rows ("O" first)."""
        if declared:
            return list(declared)
        return sorted({tag for row in train_rows for tag in row["labels"]}, key=lambda t: (t != "O", t))

    def example_scores(self, gold, prediction) -> dict[str, float]:
        """The sentence's entity F1 (1 when neither gold nor answer has an entity)."""
        from seqeval.metrics.sequence_labeling import get_entities

        true, found = set(get_entities(list(gold))), set(get_entities(list(prediction)))
        if not true and not found:
            return {"f1": 1.0}
        return {"f1": 2 * len(true & found) / (len(true) + len(found))}

    def answer_valid(self, fmt, row: dict, answer: dict) -> bool:
        """Whether the answer was valid JSON."""
        return bool(answer.get("valid_json", True))


class SpanExtraction(TaskKind):
    """Reading comprehension: a short answer taken from the context."""

    name = "span-extraction"
    example_score_keys: tuple[str, ...] = ("f1", "em")
    text_field = "context"
    encoder_head = "QuestionAnsweringHead"

    def document(self, fmt, row: dict) -> str:
        """The context, then the question."""
        return f"{row['context']}\n{fmt.table.question}: {row['question']}"

    def shot_text(self, fmt, row: dict) -> str:
        """The context (shots are chosen and deduplicated by it)."""
        return row["context"]

    def gold_answer(self, fmt, row: dict) -> str:
        """The first gold answer."""
        return row["answers"]["text"][0] if row["answers"]["text"] else ""

    def gold(self, row: dict):
        """Every gold answer."""
        return list(row["answers"]["text"])

    def predict(self, predictor, fmt, rows: list[dict], prompts: list[str]) -> list[dict]:
        """The generated text up to its first line break, as the answer."""
        return [{"output": o, "prediction": cut_at_stop(o, ("\n",))} for o in predictor.generate(prompts)]

    def example_scores(self, gold, prediction) -> dict[str, float]:
        """SQuAD F1 and exact match against the best of the gold answers."""
        return {"f1": squad_f1([prediction], [gold]), "em": squad_em([prediction], [gold])}


class FreeGeneration(TaskKind):
    """A text written from a text (summarization): generation cut at a blank line."""

    name = "free-generation"
    example_score_keys: tuple[str, ...] = ("chrf3pp",)
    encoder_refusal = (
        "needs a generative model: encoder models (BERT-like) cannot be evaluated on {task} datasets; "
        "pick a decoder model or another dataset"
    )

    def gold_answer(self, fmt, row: dict) -> str:
        """The target text."""
        return row["target_text"]

    def gold(self, row: dict):
        """The target text."""
        return row["target_text"]

    def predict(self, predictor, fmt, rows: list[dict], prompts: list[str]) -> list[dict]:
        """The generated text up to its first blank line, as the answer."""
        return [{"output": o, "prediction": cut_at_stop(o)} for o in predictor.generate(prompts)]

    def example_scores(self, gold, prediction) -> dict[str, float]:
        """The text's chrF++ (β = 3), sacreBLEU's sentence score, in [0, 1]."""
        return {"chrf3pp": chrf3pp([prediction], [gold])}


class Rewriting(FreeGeneration):
    """A text rewritten from a source text (simplification): generated like a summary, but
    its metrics also see the source (SARI rewards keeping, deleting and adding the right
    words), so the gold carries both: ``{"source": text, "references": [target, ...]}``.
    A row's ``target_text`` is one reference or a list of them."""

    name = "rewriting"
    example_score_keys: tuple[str, ...] = ("meteor", "sari")

    def gold_answer(self, fmt, row: dict) -> str:
        """The first reference."""
        return self.references(row)[0]

    def gold(self, row: dict):
        """The source text and every reference (SARI needs the source)."""
        return {"source": row[self.text_field], "references": self.references(row)}

    def example_scores(self, gold, prediction) -> dict[str, float]:
        """METEOR and SARI of the answer against the references."""
        return {
            "meteor": meteor_single(prediction, gold["references"]),
            "sari": sari_single(gold["source"], prediction, gold["references"]),
        }

    @staticmethod
    def references(row: dict) -> list[str]:
        """The row's references: its target text, or each of its target texts."""
        target = row["target_text"]
        return [target] if isinstance(target, str) else list(target)


LABEL_SCORING = LabelScoring()
MULTIPLE_CHOICE = MultipleChoice()
STRUCTURED_GENERATION = StructuredGeneration()
SPAN_EXTRACTION = SpanExtraction()
FREE_GENERATION = FreeGeneration()
REWRITING = Rewriting()
