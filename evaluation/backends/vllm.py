"""vLLM backend (GPU; the optional ``gpu`` extra). Imported only when vllm is installed.

Prefix caching is on, so the few-shot prefix shared by an iteration's prompts is computed
once; label scoring reads the first generated token's log-probabilities; NER generation is
constrained to the JSON schema by vLLM's structured outputs (XGrammar).
"""

from __future__ import annotations

import importlib.util
import math
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Unpack

from evaluation.backends.base import GenerateOptions, Sampling, Usage
from evaluation.backends.registry import register
from evaluation.errors import EvaluationError, ModelLoadError
from evaluation.hardware import CpuDevice, CudaDevice, RunSettings

TOP_LOGPROBS = 20


@register
class VLLMBackend:
    """A model run here by vLLM (GPU; the optional ``gpu`` extra)."""

    name = "vllm"
    needs_weights = True
    takes_argument = False
    requires: tuple[str, ...] = ("vllm",)
    extra: str | None = "gpu"

    @classmethod
    def load(cls, argument: str, model_id: str, weights: Path | None, *, trust_remote_code: bool) -> VLLMBackend:
        """The model in the ``weights`` folder."""
        assert weights is not None  # the registry checks it: needs_weights
        return cls(weights, trust_remote_code=trust_remote_code)

    def __init__(self, weights: Path | str, *, trust_remote_code: bool = False):
        if importlib.util.find_spec("vllm") is None:
            raise EvaluationError("the vllm backend needs the optional dependency: pip install 'glossa[gpu]'")
        from vllm import LLM

        started = time.perf_counter()
        max_len = int(os.environ.get("GLOSSA_VLLM_MAX_LEN", "8192"))
        try:
            self.llm = LLM(
                model=str(weights),
                dtype="auto",
                trust_remote_code=trust_remote_code,
                enable_prefix_caching=True,
                max_model_len=max_len,
                seed=4242,
                gpu_memory_utilization=float(os.environ.get("GLOSSA_VLLM_GPU_MEM", "0.85")),
            )
        except Exception as exc:
            raise ModelLoadError(f"vLLM could not load {weights}: {exc}") from exc
        self.tokenizer = self.llm.get_tokenizer()
        self.max_context = int(self.llm.llm_engine.model_config.max_model_len)
        self.has_chat_template = bool(getattr(self.tokenizer, "chat_template", None))
        self.usage = Usage()
        self.load_seconds = time.perf_counter() - started

    # --- efficiency (evaluation/measurement.py) ---------------------------------------------
    def device_profile(self):
        """Where the model runs: the GPU, measured in vLLM's engine process, or the CPU with its child processes."""
        import torch

        # the engine core runs in a process of its own: its memory is measured there
        return CudaDevice(in_process=False) if torch.cuda.is_available() else CpuDevice(process_tree=True)

    def run_settings(self):
        """How the model runs: this backend, its dtype and quantisation."""

        config = self.llm.llm_engine.model_config
        return RunSettings(
            backend=self.name,
            dtype=str(config.dtype).removeprefix("torch."),
            quantisation=getattr(config, "quantization", None),
        )

    def _run(self, prompts, params):
        """``llm.generate``, recorded as one batch (vLLM schedules the requests itself)."""
        started = time.perf_counter()
        outputs = self.llm.generate(prompts, params, use_tqdm=False)
        self.usage.add(
            len(outputs),
            time.perf_counter() - started,
            sum(len(out.prompt_token_ids or ()) for out in outputs),
            sum(len(out.outputs[0].token_ids) for out in outputs if out.outputs),
        )
        return outputs

    def render_chat(self, messages: list[dict]) -> str:
        """The model's chat template applied to ``messages``, with the generation prompt."""
        return self.tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)

    def count_tokens(self, text: str) -> int:
        """How many tokens ``text`` encodes to."""
        return len(self.tokenizer(text)["input_ids"])

    def _params(
        self,
        max_tokens: int,
        *,
        logprobs: int | None = None,
        json_schema: dict | None = None,
        sampling: Sampling | None = None,
    ):
        from vllm import SamplingParams

        kwargs = {"temperature": 0.0, "max_tokens": max_tokens, "logprobs": logprobs, "seed": 4242}
        if sampling is not None:
            kwargs.update(temperature=sampling.temperature, top_p=sampling.top_p, seed=sampling.seed)
        if json_schema is not None:
            try:  # vLLM >= 0.11
                from vllm.sampling_params import StructuredOutputsParams

                kwargs["structured_outputs"] = StructuredOutputsParams(json=json_schema)
            except ImportError:  # older releases
                from vllm.sampling_params import GuidedDecodingParams

                kwargs["guided_decoding"] = GuidedDecodingParams(json=json_schema)
        return SamplingParams(**kwargs)

    def label_logprobs(
        self, prompts: Sequence[str], continuations: Sequence[str], shared_prefix: str | None = None
    ) -> list[list[float]] | None:
        """Log-probability of each continuation's first token after each prompt, from the first generated token's
        top log-probabilities; None when two continuations share a first token."""
        ids = [self.tokenizer(c, add_special_tokens=False)["input_ids"][0] for c in continuations]
        if len(set(ids)) != len(ids):
            return None
        outputs = self._run(list(prompts), self._params(1, logprobs=TOP_LOGPROBS))
        result = []
        for out in outputs:
            top = out.outputs[0].logprobs[0] if out.outputs[0].logprobs else {}
            result.append([top[i].logprob if i in top else -math.inf for i in ids])
        return result

    def token_logprobs(self, texts: Sequence[str]) -> list[list[float]]:
        """Each token's log-probability given the tokens before it (vLLM's prompt logprobs;
        the first token after BOS when the tokenizer has one), as the transformers backend."""
        from vllm import SamplingParams
        from vllm.inputs import TokensPrompt

        bos = self.tokenizer.bos_token_id
        prompts = []
        for text in texts:
            ids = ([bos] if bos is not None else []) + self.tokenizer(text, add_special_tokens=False)["input_ids"]
            prompts.append(TokensPrompt(prompt_token_ids=ids[: self.max_context - 1]))
        params = SamplingParams(temperature=0.0, max_tokens=1, prompt_logprobs=0, seed=4242)
        result = []
        for out in self._run(prompts, params):
            ids, steps = out.prompt_token_ids, out.prompt_logprobs or []
            result.append([steps[i][ids[i]].logprob for i in range(1, min(len(ids), len(steps))) if steps[i]])
        return result

    def generate(self, prompts: Sequence[str], max_new_tokens: int, **options: Unpack[GenerateOptions]) -> list[str]:
        """All prompts to vLLM at once (its prefix cache reuses a shared prefix by itself)."""
        params = self._params(max_new_tokens, json_schema=options.get("json_schema"), sampling=options.get("sampling"))
        outputs = self._run(list(prompts), params)
        return [out.outputs[0].text for out in outputs]

    def close(self) -> None:
        """Drop the engine."""
        del self.llm
