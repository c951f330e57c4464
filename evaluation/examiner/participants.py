"""Loading the models of an exam: ``MODEL`` or ``MODEL@BACKEND`` (e.g.
``HuggingFaceTB/SmolLM2-135M-Instruct@openai:http://127.0.0.1:8000/v1``). A model listed
as examiner and as examinee is loaded once and shares its backend (and its meter)."""

from __future__ import annotations

from collections.abc import Sequence

from evaluation.backends import load_backend
from evaluation.backends.openai import OpenAIBackend
from evaluation.errors import EvaluationError
from evaluation.examiner.exam_types import Participant
from evaluation.examiner.metering import MeteredBackend
from evaluation.examiner.residency import LazyBackend, ModelPool
from evaluation.models import local_weights, resolve_model

MAX_SERVED_NAME = 200


def parse_spec(spec: str, default_backend: str) -> tuple[str, str]:
    """A participant spec ``model@backend`` split into model and backend (``default_backend`` when none is named)."""
    model, _, backend = spec.partition("@")
    model, backend = model.strip(), (backend.strip() or default_backend)
    if not model:
        raise EvaluationError(f"{spec!r}: a model id is needed before '@'")
    return model, backend


def load_participant(
    model: str,
    backend: str,
    *,
    revision: str = "",
    api_key: str | None = None,
    trust_remote_code: bool = False,
    pool: ModelPool | None = None,
) -> Participant:
    """``revision``: the commit to load (a submission's pinned one); ``api_key``: an
    OpenAI-compatible endpoint's key (else ``OPENAI_API_KEY`` from the environment);
    ``pool``: the model is resolved now but its weights are loaded when first used, and
    unloaded when the pool needs the room (:mod:`evaluation.examiner.residency`)."""
    if backend.startswith("openai"):
        # A served model may be any name the server knows (a hosted API's too); a local
        # tokenizer is used when the model is one we can resolve (its chat template).
        if len(model) > MAX_SERVED_NAME or any(ch.isspace() for ch in model):
            raise EvaluationError(f"{model[:80]!r} is not a served model name")
        try:
            info = resolve_model(model)
            weights, revision = local_weights(info), info.commit_sha or revision
        except EvaluationError:
            weights = None
        served = OpenAIBackend(
            base_url=backend.partition(":")[2] or None, model=model, tokenizer_dir=weights, api_key=api_key
        )
        return Participant(model, served, revision)
    info = resolve_model(model, revision or "main", allow_remote_code=trust_remote_code)
    if not info.generative:
        raise EvaluationError(f"{model} is an encoder: examiners and examinees must generate text")

    def load():
        return load_backend(backend, info.model_id, local_weights(info), trust_remote_code=trust_remote_code)

    return Participant(info.model_id, LazyBackend(load, pool) if pool else load(), info.commit_sha or "")


class ParticipantLoader:
    """Loads each (model, backend) once for an exam, however often it is listed (examiner
    and examinee share one backend and one meter); ``resident``: at most this many local
    models in memory at once (0: all)."""

    def __init__(self, *, resident: int = 0, trust_remote_code: bool = False):
        self.pool = ModelPool(resident) if resident else None
        self.trust_remote_code = trust_remote_code
        self.loaded: dict[tuple[str, str], Participant] = {}

    def get(self, model: str, backend: str, revision: str = "", api_key: str | None = None) -> Participant:
        """The participant for ``model`` on ``backend``, loaded once and shared by every role it plays."""
        key = (model, backend)
        if key not in self.loaded:
            self.loaded[key] = load_participant(
                model,
                backend,
                revision=revision,
                api_key=api_key,
                trust_remote_code=self.trust_remote_code,
                pool=self.pool,
            )
        return self.loaded[key]

    def close(self) -> None:
        """Close every loaded participant's backend."""
        close_all(list(self.loaded.values()))


def load_participants(
    examiner_specs: Sequence[str],
    examinee_specs: Sequence[str],
    default_backend: str,
    *,
    trust_remote_code=False,
    resident: int = 0,
) -> tuple[list[Participant], list[Participant]]:
    """The CLI's ``MODEL`` / ``MODEL@BACKEND`` specs, loaded by one :class:`ParticipantLoader`."""
    loader = ParticipantLoader(resident=resident, trust_remote_code=trust_remote_code)
    examiners = [loader.get(*parse_spec(spec, default_backend)) for spec in examiner_specs]
    examinees = [loader.get(*parse_spec(spec, default_backend)) for spec in examinee_specs]
    return examiners, examinees


def close_all(participants: Sequence[Participant]) -> None:
    """Close every participant's backend once (participants may share one)."""
    seen = set()
    for p in participants:
        backend = p.backend.backend if isinstance(p.backend, MeteredBackend) else p.backend
        if id(backend) not in seen:
            seen.add(id(backend))
            backend.close()
