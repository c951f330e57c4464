"""A model whose config points at code in another repository (``other/repo--module.Class``)
is refused: transformers would fetch that repository's current branch, which no grant for
the model's own commit covers. Checked at resolution (config.json) and once downloaded
(every root JSON config: the tokenizer's ``auto_map`` is not in the Hub's model info)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from safetensors.numpy import save as safetensors_bytes

from evaluation.model_files import other_repository_code
from tests.support.fake_hub import FakeHub
from tests.support.hub_driver import run_calls

POINTS_ELSEWHERE = "glossa-test/code-elsewhere"
TOKENIZER_ELSEWHERE = "glossa-test/tokenizer-elsewhere"
CODE_REPO = "someone-else/modeling-code"
WEIGHTS = safetensors_bytes({"w": np.zeros((2, 2), dtype=np.float32)})


def config(auto_map: dict) -> str:
    return json.dumps({"architectures": ["ToyForCausalLM"], "model_type": "toy", "auto_map": auto_map})


@pytest.fixture
def hub():
    with FakeHub() as server:
        server.add_repo(CODE_REPO, {"modeling_toy.py": "raise SystemExit('never run')\n", "config.json": "{}"})
        server.add_repo(
            POINTS_ELSEWHERE,
            {
                "config.json": config({"AutoModelForCausalLM": f"{CODE_REPO}--modeling_toy.ToyForCausalLM"}),
                "model.safetensors": WEIGHTS,
            },
        )
        server.add_repo(
            TOKENIZER_ELSEWHERE,
            {
                "config.json": config({"AutoModelForCausalLM": "modeling_toy.ToyForCausalLM"}),
                "modeling_toy.py": "raise SystemExit('never run')\n",
                "tokenizer_config.json": json.dumps({"auto_map": {"AutoTokenizer": [f"{CODE_REPO}--tok.Tok", None]}}),
                "model.safetensors": WEIGHTS,
            },
        )
        yield server


def test_auto_map_entries_naming_another_repository():
    assert other_repository_code({"AutoModel": "modeling.M", "AutoTokenizer": ["a/b--tok.T", None]}) == ["a/b--tok.T"]
    assert other_repository_code({"AutoConfig": "configuration.C"}) == []
    assert other_repository_code("not a map") == []


def test_code_in_another_repository_is_refused_even_with_remote_code_allowed(hub, tmp_path):
    home = tmp_path / "hf-home"
    resolve = {"op": "resolve", "revision": "main", "allow_remote_code": True}
    elsewhere, own = run_calls(
        hub.endpoint,
        home,
        [{**resolve, "model_id": POINTS_ELSEWHERE}, {**resolve, "model_id": TOKENIZER_ELSEWHERE}],
    )
    assert elsewhere["error"] == "RemoteCodeRequired" and CODE_REPO in elsewhere["message"], elsewhere
    assert "another repository" in elsewhere["message"]
    info = own["ok"]  # its config's code is its own: allowed by a grant; its tokenizer's is not
    hub.clear_log()
    [downloaded] = run_calls(hub.endpoint, home, [{"op": "local_weights", "info": info}])
    assert downloaded["error"] == "RemoteCodeRequired" and f"{CODE_REPO}--tok.Tok" in downloaded["message"]
    assert CODE_REPO not in {r.repo_id for r in hub.requests}  # the other repository was never asked
