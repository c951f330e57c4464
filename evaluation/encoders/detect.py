"""Tell encoders (BERT-like, evaluated by fine-tuning) from decoders, from the config alone.

Works on a ``transformers`` config object or on the plain ``config.json`` dict, so model
resolution can decide without loading weights.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# model_type values of encoder-only architectures in transformers.
ENCODER_MODEL_TYPES = frozenset(
    {
        "albert",
        "bert",
        "camembert",
        "convbert",
        "data2vec-text",
        "deberta",
        "deberta-v2",
        "distilbert",
        "electra",
        "ernie",
        "eurobert",
        "flaubert",
        "funnel",
        "ibert",
        "layoutlm",
        "luke",
        "megatron-bert",
        "mobilebert",
        "modernbert",
        "mpnet",
        "mra",
        "nezha",
        "nystromformer",
        "rembert",
        "roberta",
        "roberta-prelayernorm",
        "roc_bert",
        "roformer",
        "squeezebert",
        "xlm",
        "xlm-roberta",
        "xlm-roberta-xl",
        "xmod",
        "yoso",
    }
)
# Architecture name endings that only encoders have.
ENCODER_HEAD_SUFFIXES = (
    "ForMaskedLM",
    "ForSequenceClassification",
    "ForTokenClassification",
    "ForQuestionAnswering",
    "ForMultipleChoice",
)
DECODER_ARCHITECTURE_SUFFIXES = ("ForCausalLM", "LMHeadModel", "ForConditionalGeneration")


def _get(config: Any, key: str, default: Any = None) -> Any:
    if isinstance(config, Mapping):
        return config.get(key, default)
    return getattr(config, key, default)


def is_encoder_config(config: Any) -> bool:
    """True for encoder-only models (BERT, RoBERTa, XLM-R, DeBERTa, ELECTRA, ModernBERT, ...).

    Encoder-decoder models (T5, BART) and anything with a causal-LM architecture count as
    decoders (generative). Unknown model types count as encoders only when their listed
    architectures are all encoder heads and the config says it is not a decoder.
    """
    if _get(config, "is_encoder_decoder", False) or _get(config, "is_decoder", False):
        return False
    architectures = _get(config, "architectures") or []
    if any(arch.endswith(DECODER_ARCHITECTURE_SUFFIXES) for arch in architectures):
        return False
    model_type = (_get(config, "model_type") or "").lower()
    if model_type in ENCODER_MODEL_TYPES:
        return True
    if model_type in _causal_lm_model_types():
        return False  # e.g. a LlamaForSequenceClassification reward model is still a decoder
    # Unknown type: encoder-only heads decide; a bare "...Model" is ambiguous (LlamaModel).
    return bool(architectures) and all(arch.endswith(ENCODER_HEAD_SUFFIXES) for arch in architectures)


def _causal_lm_model_types() -> frozenset[str]:
    from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES

    return frozenset(MODEL_FOR_CAUSAL_LM_MAPPING_NAMES)
