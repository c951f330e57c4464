"""The kinds of model the engine tells apart, and EuroEval's word for a generative one.

:class:`ModelType` is what a model is (an encoder, or a decoder of one of three styles);
:class:`GenerativeType` is EuroEval's ``generative_type`` of a decoder, written in
records. :data:`GENERATIVE_TYPES` is the one mapping between them. The site's choices
(``leaderboard.models.ModelType``) take their values from these enums.
"""

from __future__ import annotations

from enum import StrEnum


class ModelType(StrEnum):
    """What a model is: an encoder, or a decoder pretrained only, instruction-tuned, or reasoning."""

    ENCODER = "encoder"
    BASE = "base"
    INSTRUCTION_TUNED = "instruction-tuned"
    REASONING = "reasoning"

    @property
    def generative(self) -> bool:
        """Whether the model generates text (every decoder; not an encoder)."""
        return self is not ModelType.ENCODER

    @property
    def chats(self) -> bool:
        """Whether the model is prompted through its chat template (when it has one)."""
        return self in (ModelType.INSTRUCTION_TUNED, ModelType.REASONING)

    @property
    def generative_type(self) -> GenerativeType | None:
        """EuroEval's ``generative_type`` of this type; None for an encoder."""
        return GENERATIVE_TYPES.get(self)

    @classmethod
    def of_generative_type(cls, value: str | None) -> ModelType | None:
        """The type a EuroEval ``generative_type`` names (the type's own value accepted too:
        ``instruction-tuned``); None for anything else."""
        for model_type, generative_type in GENERATIVE_TYPES.items():
            if value in (generative_type.value, model_type.value):
                return model_type
        return None


class GenerativeType(StrEnum):
    """EuroEval's ``generative_type``: how a decoder was trained."""

    BASE = "base"
    INSTRUCTION_TUNED = "instruction_tuned"
    REASONING = "reasoning"


GENERATIVE_TYPES: dict[ModelType, GenerativeType] = {
    ModelType.BASE: GenerativeType.BASE,
    ModelType.INSTRUCTION_TUNED: GenerativeType.INSTRUCTION_TUNED,
    ModelType.REASONING: GenerativeType.REASONING,
}
