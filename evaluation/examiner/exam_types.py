"""What the steps of an exam share: its settings, its participants, and the questions and
answers one step hands to the next (:mod:`evaluation.examiner.exam` runs the steps)."""

from __future__ import annotations

from dataclasses import dataclass, field

from evaluation.backends.base import Backend
from evaluation.errors import EvaluationError
from evaluation.examiner.metering import MeteredBackend
from evaluation.examiner.taxonomy import LEVEL_NAMES, level


@dataclass(frozen=True)
class ExamSettings:
    """What an exam asks: its language, questions per examiner, follow-ups, round, seed, levels and limits."""

    language: str
    questions: int = 6  # per examiner
    follow_ups: int = 1
    round: int = 1
    seed: int = 0
    levels: tuple[str, ...] = LEVEL_NAMES
    answer_tokens: int = 160
    attempts: int = 3  # tries per question slot (unparseable or near-duplicate output)
    self_preference: bool = True
    bootstrap: int = 1000
    earlier_questions: tuple[str, ...] = ()  # earlier rounds' questions: a new one must differ from them

    def __post_init__(self):
        if self.questions < 1:
            raise EvaluationError("an exam needs at least one question per examiner")
        if not 0 <= self.follow_ups <= 5:
            raise EvaluationError("follow-ups: 0 to 5 rounds")
        for name in self.levels:
            level(name)


@dataclass
class Participant:
    """A model taking part in an exam (as examiner or examinee), its backend metered."""

    name: str  # the model id
    backend: Backend
    revision: str = ""
    family: str = ""  # models of one family never count each other's answers (empty: itself)

    def __post_init__(self):
        if not isinstance(self.backend, MeteredBackend):
            self.backend = MeteredBackend(self.backend)

    def header(self) -> dict:
        """Its entry in the exam line."""
        return {"model": self.name, "revision": self.revision, **({"family": self.family} if self.family else {})}


@dataclass
class Question:
    """A question an examiner wrote: its text, reference answer, domain, level and place in a follow-up chain."""

    id: str
    examiner: Participant
    text: str
    reference: str
    domain: str
    domain_name: str
    level: str
    depth: int = 0
    parent: str | None = None
    examinee: str | None = None  # a follow-up is asked to one examinee


@dataclass
class Answer:
    """An examinee's answer to one question, and the grades it received."""

    id: str
    question: Question
    examinee: Participant
    text: str
    counted: bool
    grades: dict[str, dict] = field(default_factory=dict)  # examiner -> grade
