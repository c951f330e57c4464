"""Real bundled models, loaded once per test session (slow tests only)."""

import os

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")

SMOL = "HuggingFaceTB/SmolLM2-135M-Instruct"
GEMMA = "google/gemma-3-270m"


def _backend(model_id):
    from evaluation.backends.transformers import TransformersBackend
    from evaluation.models import local_weights, resolve_model

    info = resolve_model(model_id)
    return info, TransformersBackend(local_weights(info))


@pytest.fixture(scope="session")
def smol():
    return _backend(SMOL)


@pytest.fixture(scope="session")
def gemma():
    return _backend(GEMMA)
