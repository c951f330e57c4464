"""Model types and EuroEval's generative types: one mapping, shared by the engine and the site."""

from __future__ import annotations

import json

from evaluation.model_types import GENERATIVE_TYPES, GenerativeType, ModelType
from evaluation.models import BUNDLED, ModelInfo


def test_every_decoder_has_a_generative_type_and_an_encoder_none():
    assert ModelType.ENCODER.generative_type is None and not ModelType.ENCODER.generative
    assert ModelType.BASE.generative_type is GenerativeType.BASE
    assert ModelType.INSTRUCTION_TUNED.generative_type == "instruction_tuned"
    assert set(GENERATIVE_TYPES.values()) == set(GenerativeType)


def test_a_generative_type_names_its_model_type_back():
    for model_type in GENERATIVE_TYPES:
        assert ModelType.of_generative_type(model_type.generative_type) is model_type
        assert ModelType.of_generative_type(model_type.value) is model_type
    assert ModelType.of_generative_type("encoder") is None
    assert ModelType.of_generative_type(None) is None
    assert ModelType.of_generative_type("chat") is None


def test_model_info_holds_the_enum_and_writes_plain_strings():
    info = ModelInfo("org/name", model_type="instruction-tuned")  # as read back from JSON
    assert info.model_type is ModelType.INSTRUCTION_TUNED and info.model_type.chats
    assert info.generative_type is GenerativeType.INSTRUCTION_TUNED
    assert json.loads(json.dumps(info.to_dict()))["model_type"] == "instruction-tuned"
    assert json.dumps({"generative_type": info.generative_type}) == '{"generative_type": "instruction_tuned"}'
    assert not BUNDLED["sentence-transformers/all-MiniLM-L6-v2"].info.generative


def test_the_sites_choices_are_the_engines_types_and_unknown():
    from leaderboard.models import ModelType as SiteModelType

    assert set(SiteModelType.values) == {t.value for t in ModelType} | {"unknown"}
    assert SiteModelType.INSTRUCTION_TUNED.euroeval_generative_type == "instruction_tuned"
    assert SiteModelType.ENCODER.euroeval_generative_type is None
    assert SiteModelType.UNKNOWN.euroeval_generative_type is None
    assert SiteModelType.from_euroeval_generative_type("reasoning") is SiteModelType.REASONING
    assert SiteModelType.from_euroeval_generative_type("instruction-tuned") is SiteModelType.INSTRUCTION_TUNED
    assert SiteModelType.from_euroeval_generative_type("unknown") is None
