"""Any OpenAI-compatible HTTP server (vLLM, llama.cpp, TGI, ...), through httpx.

Prompts are rendered locally (the model's chat template from its tokenizer when we have
the weights folder) and sent to ``/v1/completions``; without a local tokenizer, chat
prompts go to ``/v1/chat/completions`` and the server applies its template. Requests run
with bounded concurrency and back off exponentially on 429 / 5xx (honouring Retry-After).
Label scoring uses the returned top log-probabilities of the first token.
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Unpack

from evaluation.backends.base import GenerateOptions, Sampling, Usage
from evaluation.backends.registry import register
from evaluation.errors import EvaluationError
from evaluation.hardware import RemoteDevice, RunSettings

CHAT_MARKER = "\x00chat:"
TOP_LOGPROBS = 20


class ServerError(EvaluationError):
    """The server answered with an error, or not at all, after every retry."""


@register
class OpenAIBackend:
    """A model served by an OpenAI-compatible HTTP server (the choice's argument is its URL)."""

    name = "openai"
    needs_weights = False  # a local folder only lends its tokenizer (chat template, token counts)
    takes_argument = True
    requires: tuple[str, ...] = ("httpx",)
    extra: str | None = None

    @classmethod
    def load(cls, argument: str, model_id: str, weights: Path | None, *, trust_remote_code: bool) -> OpenAIBackend:
        """``model_id`` on the server at ``argument`` (``OPENAI_BASE_URL`` or a local server when empty)."""
        return cls(base_url=argument or None, model=model_id, tokenizer_dir=weights)

    def __init__(
        self,
        base_url: str | None = None,
        model: str = "",
        tokenizer_dir: Path | str | None = None,
        *,
        concurrency: int = 8,
        max_retries: int = 6,
        timeout: float = 120.0,
        api_key: str | None = None,
        max_context: int | None = None,
    ):
        import httpx

        self.base_url = (base_url or os.environ.get("OPENAI_BASE_URL") or "http://127.0.0.1:8000/v1").rstrip("/")
        self.model = model
        self.concurrency = concurrency
        self.max_retries = max_retries
        # None: the environment's OPENAI_API_KEY (the CLI); "": no key at all (an examiner
        # the worker runs never borrows another variable's key)
        key = os.environ.get("OPENAI_API_KEY") if api_key is None else api_key
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        self.client = httpx.Client(timeout=timeout, headers=headers, limits=httpx.Limits(max_connections=concurrency))
        self.tokenizer = None
        if tokenizer_dir is not None:
            from transformers import AutoTokenizer

            self.tokenizer = AutoTokenizer.from_pretrained(str(tokenizer_dir))
        self.has_chat_template = bool(getattr(self.tokenizer, "chat_template", None)) if self.tokenizer else True
        self.max_context = max_context or int(os.environ.get("GLOSSA_SERVER_CONTEXT", "4096"))
        self.usage = Usage()
        self.load_seconds = 0.0  # the server loaded the model, out of sight

    # --- efficiency (evaluation/measurement.py) ---------------------------------------------
    def device_profile(self):
        """Where the model runs: on a server, out of sight (no memory or energy measured here)."""
        return RemoteDevice(self.name)

    def run_settings(self):
        """How the model runs, as far as a client can tell: this backend, the server's dtype unknown."""
        return RunSettings(backend=self.name, dtype="unknown (server)")

    def _used(self, started: float, data: dict, prompt: str, text: str) -> None:
        """One request: the server's own token counts (``usage``) where it sends them, else the
        local tokenizer's; without either, 0 (never a guess)."""
        reported = data.get("usage")
        usage: dict = reported if isinstance(reported, dict) else {}

        def tokens(key: str, sent: str) -> int:
            value = usage.get(key)
            if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
                return value
            return len(self.tokenizer(sent, add_special_tokens=False)["input_ids"]) if self.tokenizer and sent else 0

        prompt_text = "" if prompt.startswith(CHAT_MARKER) else prompt
        self.usage.add(
            1, time.perf_counter() - started, tokens("prompt_tokens", prompt_text), tokens("completion_tokens", text)
        )

    # --- text ------------------------------------------------------------------------------
    def render_chat(self, messages: list[dict]) -> str:
        """The tokenizer's chat template applied to ``messages``; without one, the messages marked for the server's
        chat endpoint."""
        if self.tokenizer is not None and self.tokenizer.chat_template:
            return str(self.tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True))
        return CHAT_MARKER + json.dumps(messages, ensure_ascii=False)

    def count_tokens(self, text: str) -> int:
        """Tokens of ``text`` by the local tokenizer, else a conservative estimate (a token per 3 characters)."""
        if self.tokenizer is not None:
            return len(self.tokenizer(text, add_special_tokens=False)["input_ids"])
        return math.ceil(len(text) / 3)  # conservative estimate without a tokenizer

    # --- HTTP ----------------------------------------------------------------------------------
    def _post(self, path: str, payload: dict) -> dict:
        import httpx

        delay = 1.0
        for attempt in range(self.max_retries + 1):
            try:
                response = self.client.post(self.base_url + path, json=payload)
            except httpx.TransportError as exc:
                if attempt == self.max_retries:
                    raise ServerError(f"the inference server at {self.base_url} is unreachable ({exc})") from None
                time.sleep(delay)
                delay = min(delay * 2, 30)
                continue
            if response.status_code == 429 or response.status_code >= 500:
                if attempt == self.max_retries:
                    raise ServerError(f"the inference server kept answering {response.status_code}; try later")
                retry_after = response.headers.get("retry-after")
                time.sleep(float(retry_after) if retry_after and retry_after.replace(".", "").isdigit() else delay)
                delay = min(delay * 2, 30)
                continue
            if response.status_code >= 400:
                raise ServerError(
                    f"the inference server refused the request ({response.status_code}): {response.text[:300]}"
                )
            return response.json()
        raise ServerError("unreachable")  # pragma: no cover

    def _request(
        self,
        prompt: str,
        max_tokens: int,
        *,
        logprobs: bool = False,
        json_schema: dict | None = None,
        sampling: Sampling | None = None,
    ):
        started = time.perf_counter()
        decoding: dict[str, float | int] = {"temperature": 0}
        if sampling is not None:
            decoding = {"temperature": sampling.temperature, "top_p": sampling.top_p, "seed": sampling.seed}
        if prompt.startswith(CHAT_MARKER):
            payload = {
                "model": self.model,
                "messages": json.loads(prompt[len(CHAT_MARKER) :]),
                "max_tokens": max_tokens,
                **decoding,
            }
            if logprobs:
                payload.update(logprobs=True, top_logprobs=TOP_LOGPROBS)
            if json_schema is not None:
                payload["response_format"] = {
                    "type": "json_schema",
                    "json_schema": {"name": "answer", "schema": json_schema},
                }
            data = self._post("/chat/completions", payload)
            choice = data["choices"][0]
            top = None
            if logprobs and choice.get("logprobs") and choice["logprobs"].get("content"):
                top = {t["token"]: t["logprob"] for t in choice["logprobs"]["content"][0]["top_logprobs"]}
            self._used(started, data, prompt, choice["message"]["content"] or "")
            return choice["message"]["content"] or "", top
        payload = {"model": self.model, "prompt": prompt, "max_tokens": max_tokens, **decoding}
        if logprobs:
            payload["logprobs"] = TOP_LOGPROBS
        if json_schema is not None:
            payload["guided_json"] = json_schema
        data = self._post("/completions", payload)
        choice = data["choices"][0]
        top = None
        if logprobs and choice.get("logprobs") and choice["logprobs"].get("top_logprobs"):
            top = choice["logprobs"]["top_logprobs"][0]
        self._used(started, data, prompt, choice.get("text") or "")
        return choice.get("text") or "", top

    def _map(self, fn, items):
        with ThreadPoolExecutor(max_workers=self.concurrency) as pool:
            return list(pool.map(fn, items))

    # --- protocol ------------------------------------------------------------------------------
    def label_logprobs(
        self, prompts: Sequence[str], continuations: Sequence[str], shared_prefix: str | None = None
    ) -> list[list[float]] | None:
        """The log-probabilities of each continuation's first token among the server's top log-probabilities; None
        when the server gives none."""
        results = self._map(lambda p: self._request(p, 1, logprobs=True)[1], prompts)
        if any(top is None for top in results):
            return None  # the server gives no log-probabilities: generate instead
        targets = [self._first_token_text(c) for c in continuations]
        out = []
        for top in results:
            scores = [
                max((lp for tok, lp in top.items() if self._same(tok, target)), default=-math.inf) for target in targets
            ]
            if all(math.isinf(s) for s in scores):
                return None  # no label word among the top tokens: generate instead
            out.append(scores)
        return out

    def _first_token_text(self, continuation: str) -> str:
        """The text of the continuation's first token (exact with a local tokenizer)."""
        if self.tokenizer is not None:
            first = self.tokenizer(continuation, add_special_tokens=False)["input_ids"][0]
            return str(self.tokenizer.decode([first]))
        return continuation

    def _same(self, token: str, target: str) -> bool:
        if self.tokenizer is not None:
            return token == target
        return token.strip().lower() == target.strip().lower()

    def generate(self, prompts: Sequence[str], max_new_tokens: int, **options: Unpack[GenerateOptions]) -> list[str]:
        """One request a prompt, ``concurrency`` at a time (the server caches a shared prefix itself)."""
        json_schema, sampling = options.get("json_schema"), options.get("sampling")
        return self._map(
            lambda p: self._request(p, max_new_tokens, json_schema=json_schema, sampling=sampling)[0], prompts
        )

    def close(self) -> None:
        """Close the HTTP client."""
        self.client.close()
