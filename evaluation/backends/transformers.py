"""Hugging Face transformers backend (CPU or GPU).

Efficiency: bfloat16 where the hardware supports it, batches sorted by length, label
scoring in one forward step, and a shared few-shot prefix whose KV-cache is computed
once and reused for every prompt that starts with it (prefix and suffix are cut from the
same token ids, so the result equals the full forward pass).
"""

from __future__ import annotations

import copy
import json
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Unpack

from evaluation.backends.base import GenerateOptions, Sampling, Usage
from evaluation.backends.batching import greedy_batches, padded_batches
from evaluation.backends.decoding import greedy_decode
from evaluation.backends.registry import register
from evaluation.errors import ModelLoadError
from evaluation.hardware import CpuDevice, CudaDevice, RunSettings
from evaluation.structured import close_truncated_json

TOKEN_BUDGET = int(os.environ.get("GLOSSA_TOKEN_BUDGET", "8192"))  # padded tokens per forward batch
MAX_BATCH = 32
LOGIT_ROWS = 64  # positions per output-layer call in token_logprobs (64 × 262k floats: 67 MB)


def pick_dtype(device: str):
    """The torch dtype to run in: ``GLOSSA_DTYPE`` if set, else bfloat16 (float16 without it) on a GPU, bfloat16 on
    a CPU with AMX, float32 on other CPUs."""
    import torch

    forced = os.environ.get("GLOSSA_DTYPE")
    if forced:
        return getattr(torch, forced)
    if device == "cuda":
        return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
    try:
        flags = Path("/proc/cpuinfo").read_text()
    except OSError:
        flags = ""
    # CPUs with native bfloat16 matrix units (AMX) gain from it; with only AVX512-BF16 we
    # measured bfloat16 slower than float32 (generation 5x slower on the 2-core VM).
    return torch.bfloat16 if "amx_bf16" in flags else torch.float32


@register
class TransformersBackend:
    """A Hugging Face causal language model run here, on the GPU when there is one."""

    name = "transformers"
    needs_weights = True
    takes_argument = False
    requires: tuple[str, ...] = ("torch", "transformers")
    extra: str | None = None

    @classmethod
    def load(
        cls, argument: str, model_id: str, weights: Path | None, *, trust_remote_code: bool
    ) -> TransformersBackend:
        """The model in the ``weights`` folder."""
        assert weights is not None  # the registry checks it: needs_weights
        return cls(weights, trust_remote_code=trust_remote_code)

    def __init__(self, weights: Path | str, *, trust_remote_code: bool = False, device: str | None = None):
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        started = time.perf_counter()
        self.torch = torch
        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        self.dtype = pick_dtype(self.device)
        try:
            self.tokenizer = AutoTokenizer.from_pretrained(str(weights), trust_remote_code=trust_remote_code)
            self.model = AutoModelForCausalLM.from_pretrained(
                str(weights), dtype=self.dtype, trust_remote_code=trust_remote_code
            )
        except Exception as exc:
            raise ModelLoadError(f"could not load the model weights from {weights}: {exc}") from exc
        self.model.to(self.device).eval()  # type: ignore[arg-type]  # transformers types .to as its decorator's
        if self.tokenizer.pad_token_id is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        cfg = (
            self.model.config.get_text_config() if hasattr(self.model.config, "get_text_config") else self.model.config
        )
        self._text_config = cfg
        self.max_context = int(getattr(cfg, "max_position_embeddings", 2048) or 2048)
        self.vocab_size = int(cfg.vocab_size)
        self.has_chat_template = bool(getattr(self.tokenizer, "chat_template", None))
        self._grammars: dict[str, object] = {}
        self._prefix_cache: tuple[tuple[int, ...], object] | None = None
        self.usage = Usage()
        self.load_seconds = time.perf_counter() - started  # weights into memory, on the device

    # --- efficiency (evaluation/measurement.py) ---------------------------------------------
    def device_profile(self):
        """Where the model runs: the GPU, or this machine's CPU."""
        return CudaDevice() if self.device == "cuda" else CpuDevice()

    def run_settings(self):
        """How the model runs: this backend and its dtype."""

        # bundled GGUF files are dequantised on conversion: the weights run in ``dtype``
        return RunSettings(backend=self.name, dtype=str(self.dtype).removeprefix("torch."))

    # --- text ----------------------------------------------------------------------------
    def render_chat(self, messages: list[dict]) -> str:
        """The model's chat template applied to ``messages``, with the generation prompt."""
        return str(self.tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True))

    def encode(self, text: str) -> list[int]:
        """Token ids of ``text``, with the special tokens unless the text already starts with BOS."""
        bos = self.tokenizer.bos_token
        add_special = not (bos and text.startswith(bos))
        return self.tokenizer(text, add_special_tokens=add_special)["input_ids"]

    def count_tokens(self, text: str) -> int:
        """How many tokens ``text`` encodes to."""
        return len(self.encode(text))

    def first_token(self, continuation: str) -> int:
        """The id of the first token of ``continuation`` (no special tokens)."""
        return self.tokenizer(continuation, add_special_tokens=False)["input_ids"][0]

    # --- batching ----------------------------------------------------------------------------
    def _batches(self, encoded: list[list[int]], *, single_pass: bool = False):
        """Index lists, sorted by length (longest first), within the token budget; for one
        forward pass per batch (``single_pass``), cut where padding and batches cost least."""
        lengths = [len(e) for e in encoded]
        if single_pass:
            return padded_batches(lengths, MAX_BATCH, TOKEN_BUDGET)
        return greedy_batches(lengths, MAX_BATCH, TOKEN_BUDGET)

    def _left_pad(self, seqs: list[list[int]]):
        torch = self.torch
        width = max(len(s) for s in seqs)
        pad = self.tokenizer.pad_token_id
        ids = torch.full((len(seqs), width), pad, dtype=torch.long)
        mask = torch.zeros((len(seqs), width), dtype=torch.long)
        for r, s in enumerate(seqs):
            ids[r, width - len(s) :] = torch.tensor(s, dtype=torch.long)
            mask[r, width - len(s) :] = 1
        return ids.to(self.device), mask.to(self.device)

    # --- label scoring --------------------------------------------------------------------------
    def label_logprobs(
        self, prompts: Sequence[str], continuations: Sequence[str], shared_prefix: str | None = None
    ) -> list[list[float]] | None:
        """Log-probability of each continuation's first token after each prompt, in one forward step per batch
        (after the shared prefix's KV-cache when there is one); None when two continuations share a first token."""
        torch = self.torch
        token_ids = [self.first_token(c) for c in continuations]
        if len(set(token_ids)) != len(token_ids):
            return None  # ambiguous first tokens: the runner falls back to generation
        encoded = [self.encode(p) for p in prompts]
        out: list[list[float] | None] = [None] * len(prompts)
        prefix_ids = self._common_prefix_ids(encoded, shared_prefix)
        with torch.inference_mode():
            suffixes = [e[len(prefix_ids) :] for e in encoded] if prefix_ids else encoded
            for batch in self._batches(suffixes, single_pass=True):
                started = time.perf_counter()
                if prefix_ids:
                    last = self._prefill(prefix_ids, [encoded[k][len(prefix_ids) :] for k in batch])[0]
                else:
                    ids, mask = self._left_pad([encoded[k] for k in batch])
                    pos = (mask.cumsum(-1) - 1).clamp(min=0)
                    logits = self.model(input_ids=ids, attention_mask=mask, position_ids=pos, logits_to_keep=1).logits
                    last = logits[:, -1, :]
                logp = torch.log_softmax(last.float(), dim=-1)[:, token_ids]
                for row, k in enumerate(batch):
                    out[k] = logp[row].tolist()
                self._used(batch, encoded, started)
        return out  # type: ignore[return-value]

    # --- text likelihood ------------------------------------------------------------------------
    def token_logprobs(self, texts: Sequence[str]) -> list[list[float]]:
        """Natural-log probability of each token of each text given the tokens before it (the
        first token after the BOS token when the tokenizer has one; else it is not scored).

        Texts go in length-sorted, right-padded batches (a real token never attends to the
        pads after it). The vocabulary's logits (Gemma's 262k) are never held for every
        position at once: the output layer runs on ``LOGIT_ROWS`` positions at a time, and
        of each row only the target's logit and the log-sum-exp are kept."""
        torch = self.torch
        bos = self.tokenizer.bos_token_id
        encoded = [
            (([bos] if bos is not None else []) + self.tokenizer(t, add_special_tokens=False)["input_ids"])[
                : self.max_context
            ]
            for t in texts
        ]
        out: list[list[float]] = [[] for _ in texts]
        scored = [k for k, ids in enumerate(encoded) if len(ids) >= 2]
        body, head = getattr(self.model, "model", None), self.model.get_output_embeddings()
        cap = getattr(self._text_config, "final_logit_softcapping", None)
        with torch.inference_mode():
            for part in self._batches([encoded[k] for k in scored], single_pass=True):
                started = time.perf_counter()
                rows = [scored[i] for i in part]
                width = max(len(encoded[k]) for k in rows)
                ids = torch.full((len(rows), width), self.tokenizer.pad_token_id, dtype=torch.long)
                mask = torch.zeros((len(rows), width), dtype=torch.long)
                for r, k in enumerate(rows):
                    ids[r, : len(encoded[k])] = torch.tensor(encoded[k], dtype=torch.long)
                    mask[r, : len(encoded[k])] = 1
                ids, mask = ids.to(self.device), mask.to(self.device)
                if body is None or head is None:  # no separate output layer: whole logits
                    logits = self.model(input_ids=ids, attention_mask=mask).logits[:, :-1].float()
                    hidden, project = logits, None
                else:
                    hidden, project = body(input_ids=ids, attention_mask=mask).last_hidden_state[:, :-1], head
                keep = mask[:, 1:].bool()
                states, targets = hidden[keep], ids[:, 1:][keep]  # (T, ·) every scored position
                logps = torch.cat(
                    [
                        _target_logprobs(states[i : i + LOGIT_ROWS], targets[i : i + LOGIT_ROWS], project, cap)
                        for i in range(0, targets.numel(), LOGIT_ROWS)
                    ]
                ).tolist()
                at = 0
                for k in rows:
                    out[k] = logps[at : at + len(encoded[k]) - 1]
                    at += len(encoded[k]) - 1
                self.usage.add(len(rows), time.perf_counter() - started, sum(len(encoded[k]) for k in rows))
        return out

    def _common_prefix_ids(
        self, encoded: list[list[int]], shared_prefix: str | None, decode_steps: int = 0
    ) -> list[int]:
        """Token ids all prompts share, cut from the prompts' own ids (never re-tokenised)."""
        if not shared_prefix or len(encoded) < 2 or os.environ.get("GLOSSA_NO_PREFIX_CACHE"):
            return []
        n = len(self.encode(shared_prefix)) - 2  # stay clear of a merge across the boundary
        if n < 16:
            return []
        first = encoded[0][:n]
        if not all(e[:n] == first and len(e) > n for e in encoded):
            return []
        window = getattr(self._text_config, "sliding_window", None)
        # One forward pass over right-padded suffixes is exact with a sliding window too (the
        # cache keeps the prefix's last window-1 positions: all a suffix token may attend to).
        # Decoding after the pads is not (pads take window slots): keep the full forward pass.
        if decode_steps and window and max(len(e) for e in encoded) + decode_steps >= window:
            return []
        return first

    def _prefix_kv(self, prefix_ids: list[int]):
        key = tuple(prefix_ids)
        if self._prefix_cache is None or self._prefix_cache[0] != key:
            torch = self.torch
            ids = torch.tensor([prefix_ids], dtype=torch.long, device=self.device)
            out = self.model(input_ids=ids, use_cache=True, logits_to_keep=1)
            self._prefix_cache = (key, out.past_key_values)
        return self._prefix_cache[1]

    def _prefill(self, prefix_ids: list[int], suffixes: list[list[int]]):
        """One forward pass over right-padded ``prefix + suffix`` rows, the prefix's KV-cache
        computed once: the logits after each row's last token, the cache (now holding the
        suffixes too) and the attention mask. Right padding: real tokens never see the pads."""
        torch = self.torch
        cache = copy.deepcopy(self._prefix_kv(prefix_ids))
        n = len(suffixes)
        if n > 1:
            cache.batch_repeat_interleave(n)
        width = max(len(s) for s in suffixes)
        p = len(prefix_ids)
        ids = torch.full((n, width), self.tokenizer.pad_token_id, dtype=torch.long)
        mask = torch.zeros((n, p + width), dtype=torch.long)
        mask[:, :p] = 1
        for r, s in enumerate(suffixes):
            ids[r, : len(s)] = torch.tensor(s, dtype=torch.long)
            mask[r, p : p + len(s)] = 1
        pos = torch.arange(p, p + width).unsqueeze(0).expand(n, -1)
        inputs = {
            "input_ids": ids.to(self.device),
            "attention_mask": mask.to(self.device),
            "position_ids": pos.to(self.device),
            "past_key_values": cache,
            "use_cache": True,
        }
        rows = torch.arange(n, device=self.device)
        last = torch.tensor([len(s) - 1 for s in suffixes], device=self.device)
        body, head = getattr(self.model, "model", None), self.model.get_output_embeddings()
        if body is not None and head is not None:  # the output layer on each row's last position only
            logits = head(body(**inputs).last_hidden_state[rows, last])
            cap = getattr(self._text_config, "final_logit_softcapping", None)
            return (torch.tanh(logits / cap) * cap if cap else logits), cache, mask
        keep = sorted(set(last.tolist()))  # only the positions we read: the vocabulary is large
        logits = self.model(**inputs, logits_to_keep=torch.tensor(keep, device=self.device)).logits
        column = torch.tensor([keep.index(k) for k in last.tolist()], device=logits.device)
        return logits[rows, column], cache, mask

    # --- generation ------------------------------------------------------------------------------
    def _grammar(self, schema: dict):
        import xgrammar as xgr

        key = json.dumps(schema)  # property order matters: the grammar follows it
        if key not in self._grammars:
            info = xgr.TokenizerInfo.from_huggingface(self.tokenizer, vocab_size=self.vocab_size)
            compiler = xgr.GrammarCompiler(info)
            self._grammars[key] = compiler.compile_json_schema(key, any_whitespace=False)
        return self._grammars[key]

    def generate(self, prompts: Sequence[str], max_new_tokens: int, **options: Unpack[GenerateOptions]) -> list[str]:
        """Greedy continuations (seeded samples with ``sampling``) in length-sorted batches; with
        ``json_schema`` constrained to it, and closed within it where cut at ``max_new_tokens``.
        Greedy prompts that share a prefix decode after its KV-cache, computed once."""
        json_schema, sampling = options.get("json_schema"), options.get("sampling")
        encoded = [self.encode(p) for p in prompts]
        prefix_ids = (
            self._common_prefix_ids(encoded, options.get("shared_prefix"), decode_steps=max_new_tokens)
            if sampling is None
            else []
        )
        with self.torch.inference_mode():
            if prefix_ids:
                return self._generate_after_prefix(encoded, prefix_ids, max_new_tokens, json_schema)
            return self._generate_batches(encoded, max_new_tokens, json_schema, sampling)

    def _stop_ids(self) -> list[int]:
        """The tokens that end an answer: the generation config's end tokens, else the tokenizer's."""
        configured = self.model.generation_config.eos_token_id
        return list(configured or []) if isinstance(configured, list) else [self.tokenizer.eos_token_id]

    def _generate_after_prefix(
        self, encoded: list[list[int]], prefix_ids: list[int], max_new_tokens: int, json_schema: dict | None
    ) -> list[str]:
        """Greedy answers to prompts that all start with ``prefix_ids``, batch by batch."""
        grammar = self._grammar(json_schema) if json_schema is not None else None
        stop_ids = set(self._stop_ids())
        suffixes = [e[len(prefix_ids) :] for e in encoded]
        out: list[str] = [""] * len(encoded)
        for batch in self._batches(suffixes):
            started = time.perf_counter()
            texts, counts = self._greedy_with_prefix(
                prefix_ids, [suffixes[k] for k in batch], max_new_tokens, grammar, stop_ids
            )
            self._used(batch, encoded, started, sum(counts))
            for k, text in zip(batch, texts, strict=True):
                out[k] = close_truncated_json(text, list(json_schema["properties"])) if json_schema else text
        return out

    def _generate_batches(
        self, encoded: list[list[int]], max_new_tokens: int, json_schema: dict | None, sampling: Sampling | None
    ) -> list[str]:
        """Answers from ``model.generate`` on left-padded batches: greedy, or sampled with one
        seed for the whole call (the same prompts give the same samples)."""
        torch = self.torch
        stop_ids = self._stop_ids()
        decoding: dict[str, bool | float | None] = {
            "do_sample": False,
            "top_p": None,
            "top_k": None,
            "temperature": None,
        }
        if sampling is not None:
            torch.manual_seed(sampling.seed)
            decoding = {"do_sample": True, "top_p": sampling.top_p, "top_k": None, "temperature": sampling.temperature}
        out: list[str] = [""] * len(encoded)
        for batch in self._batches(encoded):
            started = time.perf_counter()
            ids, mask = self._left_pad([encoded[k] for k in batch])
            processors = []
            if json_schema is not None:
                from xgrammar.contrib.hf import LogitsProcessor

                processors.append(LogitsProcessor(self._grammar(json_schema)))
            gen = self.model.generate(
                input_ids=ids,
                attention_mask=mask,
                max_new_tokens=max_new_tokens,
                logits_processor=processors or None,
                pad_token_id=self.tokenizer.pad_token_id,
                eos_token_id=stop_ids,
                **decoding,
            )
            for row, k in enumerate(batch):
                out[k] = self.tokenizer.decode(gen[row, ids.shape[1] :], skip_special_tokens=True)
                if json_schema is not None:  # cut off at max_new_tokens: close it within the schema
                    out[k] = close_truncated_json(out[k], list(json_schema.get("properties", {})))
            self._used(batch, encoded, started, self._answer_tokens(gen[:, ids.shape[1] :], stop_ids))
        return out

    def _used(self, batch: list[int], encoded: list[list[int]], started: float, generated: int = 0) -> None:
        self.usage.add(len(batch), time.perf_counter() - started, sum(len(encoded[k]) for k in batch), generated)

    def _answer_tokens(self, generated, stop_ids: list[int]) -> int:
        """Tokens of the answers in a batch of generations: each up to its first stop or pad token."""
        ends = set(stop_ids) | {self.tokenizer.pad_token_id}
        total = 0
        for row in generated.tolist():
            total += next((j for j, tok in enumerate(row) if tok in ends), len(row))
        return total

    def _greedy_with_prefix(
        self, prefix_ids: list[int], suffixes: list[list[int]], max_new_tokens: int, grammar, stop_ids: set[int]
    ) -> tuple[list[str], list[int]]:
        """Greedy decoding of ``prefix + suffix`` rows, the prefix's KV-cache computed once;
        the answers, and how many tokens each has (:func:`greedy_decode`)."""
        last, cache, mask = self._prefill(prefix_ids, suffixes)
        lengths = self.torch.tensor([len(prefix_ids) + len(s) for s in suffixes])
        generated = greedy_decode(
            self.model, self.device, (last, cache, mask, lengths), max_new_tokens, grammar, stop_ids
        )
        return [str(self.tokenizer.decode(g, skip_special_tokens=True)) for g in generated], [len(g) for g in generated]

    def close(self) -> None:
        """Drop the model and the prefix cache."""
        self._prefix_cache = None
        del self.model


def _target_logprobs(states, targets, project, cap):
    """log p(target) = logit(target) − logsumexp(logits) for a few positions; ``project``
    (the output layer, None when ``states`` are logits already) and the model's final
    logit soft-capping applied as its forward pass does."""
    import torch

    logits = states if project is None else project(states).float()
    if project is not None and cap:
        logits = torch.tanh(logits / cap) * cap
    return logits.gather(-1, targets.unsqueeze(-1)).squeeze(-1) - torch.logsumexp(logits, dim=-1)
