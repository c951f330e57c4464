"""The deployment's size caps hold when the Hub's model info does not tell a model's size
(the submission's check passed for want of a number): the worker asks the Hub for each
file's size before downloading and refuses what is over the cap or cannot be sized, and
counts the parameters from the downloaded safetensors headers."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from safetensors.numpy import save as safetensors_bytes

from tests.support.fake_hub import FakeHub
from tests.support.hub_driver import run_calls

UNSIZED = "glossa-test/unsized"
WEIGHTS = safetensors_bytes({"w": np.zeros((16, 16), dtype=np.float32)})  # 256 parameters
REPO = {
    "config.json": json.dumps({"architectures": ["LlamaForCausalLM"], "model_type": "llama", "vocab_size": 10}),
    "model.safetensors": WEIGHTS,
}


@pytest.fixture
def hub():
    with FakeHub() as server:
        server.add_repo(UNSIZED, REPO, hide_sizes=True)
        yield server


def resolved(hub, home: Path) -> dict:
    [outcome] = run_calls(hub.endpoint, home, [{"op": "resolve", "model_id": UNSIZED, "revision": "main"}])
    info = outcome["ok"]
    assert info["download_bytes"] is None and info.get("num_parameters") is None  # unknown at submission
    return info


def download(hub, home: Path, info: dict, **env: str) -> dict:
    [outcome] = run_calls(hub.endpoint, home, [{"op": "local_weights", "info": info}], env=env)
    return outcome


def test_an_unsized_model_over_the_download_cap_is_refused_before_its_files_are_fetched(hub, tmp_path):
    home = tmp_path / "hf-home"
    info = resolved(hub, home)
    hub.clear_log()
    outcome = download(hub, home, info, GLOSSA_MAX_DOWNLOAD_BYTES="500")
    assert outcome["error"] == "ModelTooLarge" and "at most 500 bytes per model" in outcome["message"], outcome
    fetched = [r for r in hub.requests if r.kind == "resolve"]
    assert fetched and {r.method for r in fetched} == {"HEAD"}  # sizes asked, not a byte of the files
    outcome = download(hub, home, info, GLOSSA_MAX_DOWNLOAD_BYTES=str(10 * len(WEIGHTS)))
    assert (Path(outcome["ok"]) / "model.safetensors").read_bytes() == WEIGHTS


def test_an_uncounted_model_over_the_parameter_cap_is_refused_and_removed(hub, tmp_path):
    home = tmp_path / "hf-home"
    info = resolved(hub, home)
    outcome = download(hub, home, info, GLOSSA_MAX_PARAMETERS="100")
    assert outcome["error"] == "ModelTooLarge" and "has 256 parameters" in outcome["message"], outcome
    assert not list(home.rglob("model.safetensors"))  # what was downloaded to count is gone
    assert "ok" in download(hub, home, info, GLOSSA_MAX_PARAMETERS="1000")
