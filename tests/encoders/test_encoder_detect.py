"""Encoder vs decoder from the config alone."""

from __future__ import annotations

import json
from pathlib import Path

from evaluation.encoders.detect import is_encoder_config


def test_bundled_minilm_config_is_an_encoder(minilm_dir):
    config = json.loads((Path(minilm_dir) / "config.json").read_text())
    assert is_encoder_config(config)
    from transformers import AutoConfig

    assert is_encoder_config(AutoConfig.from_pretrained(minilm_dir))


def test_known_encoder_and_decoder_types():
    assert is_encoder_config({"model_type": "xlm-roberta", "architectures": ["XLMRobertaForMaskedLM"]})
    assert is_encoder_config({"model_type": "modernbert", "architectures": ["ModernBertForMaskedLM"]})
    assert not is_encoder_config({"model_type": "llama", "architectures": ["LlamaForCausalLM"]})
    assert not is_encoder_config({"model_type": "gemma3_text", "architectures": ["Gemma3ForCausalLM"]})
    assert not is_encoder_config({"model_type": "t5", "is_encoder_decoder": True})
    # a BERT config set up as a decoder (BertLMHeadModel) generates text
    assert not is_encoder_config({"model_type": "bert", "is_decoder": True, "architectures": ["BertLMHeadModel"]})


def test_unknown_types_decide_by_architecture():
    assert is_encoder_config({"model_type": "newbert", "architectures": ["NewBertForMaskedLM"]})
    assert not is_encoder_config({"model_type": "newlm", "architectures": ["NewLMModel"]})  # ambiguous: not an encoder
    assert not is_encoder_config({"model_type": "newlm", "architectures": ["NewLMForCausalLM"]})
    # a decoder type with a classification head (reward model) is still a decoder
    assert not is_encoder_config({"model_type": "llama", "architectures": ["LlamaForSequenceClassification"]})
