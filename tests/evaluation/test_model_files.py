"""Which files are downloaded, their size and the deployment's limits (evaluation/model_files.py)."""

from __future__ import annotations

import pytest

from evaluation.errors import ModelLoadError, ModelTooLarge
from evaluation.model_files import Limits, RepoFile, root_files, total_bytes

SIBLINGS = [
    RepoFile("config.json", 700),
    RepoFile("model-00001-of-00002.safetensors", 4_000_000_000),
    RepoFile("model-00002-of-00002.safetensors", 1_500_000_000),
    RepoFile("model.safetensors.index.json", 30_000),
    RepoFile("tokenizer.json", 9_000_000),
    RepoFile("tokenizer_config.json", 50_000),
    RepoFile("tokenizer.model", 500_000),
    RepoFile("vocab.txt", 200_000),
    RepoFile("chat_template.jinja", 3_000),
    RepoFile("modeling_custom.py", 20_000),
    RepoFile("pytorch_model.bin", 11_000_000_000),  # pickled: never
    RepoFile("README.md", 10_000),
    RepoFile("onnx/model.safetensors", 5_500_000_000),  # subfolder copies of the weights: never
    RepoFile("fp16/model.safetensors", 2_700_000_000),
    RepoFile("checkpoint-500/config.json", 700),
    RepoFile("1_Pooling/config.json", 190),
    RepoFile("original/tokenizer.model", 500_000),
]


def test_only_root_weights_configs_and_tokenizer_files():
    names = [f.path for f in root_files(SIBLINGS)]
    assert names == [
        "chat_template.jinja",
        "config.json",
        "model-00001-of-00002.safetensors",
        "model-00002-of-00002.safetensors",
        "model.safetensors.index.json",
        "tokenizer.json",
        "tokenizer.model",
        "tokenizer_config.json",
        "vocab.txt",
    ]
    with_code = [f.path for f in root_files(SIBLINGS, remote_code=True)]
    assert with_code == sorted(names + ["modeling_custom.py"])


def test_total_bytes_is_the_sum_or_unknown():
    files = root_files(SIBLINGS)
    assert (
        total_bytes(files)
        == 700 + 4_000_000_000 + 1_500_000_000 + 30_000 + 9_000_000 + 50_000 + 500_000 + 200_000 + 3_000
    )
    assert total_bytes([RepoFile("a.json", 3), RepoFile("b.json", None)]) is None
    assert total_bytes([]) == 0


def test_limits_refuse_with_a_reason():
    limits = Limits(max_parameters=8_000_000_000, max_download_bytes=5_000_000_000)
    limits.check("org/ok", num_parameters=7_000_000_000, download_bytes=4_900_000_000)
    limits.check("org/unknown", num_parameters=None, download_bytes=None)  # the worker checks the real list
    with pytest.raises(ModelTooLarge, match=r"org/big has 70B parameters; .* at most 8B parameters"):
        limits.check("org/big", num_parameters=70_000_000_000, download_bytes=1)
    with pytest.raises(ModelTooLarge, match=r"downloading 5.5 GB .* at most 5.0 GB per model"):
        limits.check("org/heavy", num_parameters=1, download_bytes=total_bytes(root_files(SIBLINGS)))
    assert issubclass(ModelTooLarge, ModelLoadError)  # the worker fails the submission with the message
    Limits().check("org/any", num_parameters=10**15, download_bytes=10**15)  # no limits set


def test_limits_from_the_environment(monkeypatch):
    monkeypatch.setenv("GLOSSA_MAX_PARAMETERS", "1000")
    monkeypatch.setenv("GLOSSA_MAX_DOWNLOAD_BYTES", "0")
    assert Limits.from_env() == Limits(max_parameters=1000, max_download_bytes=None)
    monkeypatch.delenv("GLOSSA_MAX_PARAMETERS")
    assert Limits.from_env() == Limits()
