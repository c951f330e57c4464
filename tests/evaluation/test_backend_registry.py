"""Backends register themselves by name; choosing one that is not there says which are."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest

from evaluation.backends import backend_class, backend_names, load_backend, needs_weights
from evaluation.backends.registry import UnknownBackend, register, unregister
from evaluation.errors import EvaluationError


def test_the_built_in_backends_are_registered():
    assert {"transformers", "vllm", "openai"} <= set(backend_names())
    assert backend_class("openai:http://127.0.0.1:9/v1").name == "openai"
    assert needs_weights("transformers") and needs_weights("vllm") and not needs_weights("openai:http://x/v1")


def test_an_unknown_backend_names_the_known_ones():
    with pytest.raises(UnknownBackend) as caught:
        load_backend("llamacpp", "google/gemma-3-270m", None)
    message = str(caught.value)
    assert "'llamacpp'" in message
    assert all(name in message for name in ("transformers", "vllm", "openai"))


def test_an_argument_to_a_backend_that_takes_none_is_refused(tmp_path):
    with pytest.raises(EvaluationError, match="takes no argument"):
        load_backend("transformers:fast", "google/gemma-3-270m", tmp_path)


def test_a_local_backend_without_weights_is_refused():
    with pytest.raises(EvaluationError, match="needs its weights"):
        load_backend("transformers", "google/gemma-3-270m", None)


@pytest.mark.skipif(importlib.util.find_spec("vllm") is not None, reason="vLLM is installed here")
def test_vllm_when_not_installed_names_the_extra(tmp_path):
    with pytest.raises(EvaluationError, match=r"glossa\[gpu\]"):
        load_backend("vllm", "google/gemma-3-270m", tmp_path)


def test_registering_the_engine_imports_no_heavy_package():
    code = "import sys, evaluation.backends; print(sorted({'vllm', 'torch', 'httpx'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_a_registered_backend_is_chosen_by_name():
    @register
    class EchoBackend:
        name = "echo-test"
        needs_weights = False
        takes_argument = True
        requires: tuple[str, ...] = ()
        extra: str | None = None

        def __init__(self, prefix: str, model_id: str):
            self.prefix, self.model_id = prefix, model_id

        @classmethod
        def load(cls, argument, model_id, weights, *, trust_remote_code):
            return cls(argument, model_id)

    try:
        loaded = load_backend("echo-test:>>", "org/model", None)
        assert isinstance(loaded, EchoBackend)
        assert (loaded.prefix, loaded.model_id) == (">>", "org/model")
        assert "echo-test" in backend_names()
    finally:
        unregister("echo-test")
