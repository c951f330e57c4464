"""What the intrinsic measures (bits per byte, the membership probe) cost on top of an
evaluation, and the engine's time against a lower bound.

Not a test: run by hand, numbers go to BENCHMARKS.md.

    .venv/bin/python benchmarks/intrinsic_cost.py [--limit 48] [--datasets a b] [--model M]

Per dataset, one few-shot iteration of ``evaluate_dataset`` on the first LIMIT test rows (as
``benchmarks/harness_compare.py`` runs ours), timed with the intrinsic measures off and on.
Then, on the documents those measures read: ``token_logprobs`` (chunked, target tokens
only) against the full-vocabulary log-softmax of one forward pass per document (the way
before), with the largest difference of the log-probabilities. Lower bound: one batched
forward pass (last position only) over the unique prompts the evaluation sent, same model
and dtype; the engine's time without the measures divided by it. The evidence store
(``GLOSSA_INTRINSIC_CACHE``) starts empty, and a third evaluation shows its reuse.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ["GLOSSA_INTRINSIC_CACHE"] = tempfile.mkdtemp(prefix="intrinsic-")  # nothing kept from before

from evaluation.backends.transformers import TransformersBackend  # noqa: E402
from evaluation.cache import OutputCache  # noqa: E402
from evaluation.datasets import load_dataset  # noqa: E402
from evaluation.intrinsic import MAX_CHARS, TEXTS  # noqa: E402
from evaluation.models import local_weights, resolve_model  # noqa: E402
from evaluation.prompts import TaskFormat  # noqa: E402
from evaluation.runner import EvaluationSettings, evaluate_dataset  # noqa: E402


class Recording(TransformersBackend):
    """The transformers backend, noting every prompt it is asked to score or continue."""

    prompts: list[str]

    def label_logprobs(self, prompts, continuations, shared_prefix=None):
        self.prompts.extend(prompts)
        return super().label_logprobs(prompts, continuations, shared_prefix)

    def generate(self, prompts, *args, **kwargs):
        self.prompts.extend(prompts)
        return super().generate(prompts, *args, **kwargs)


def full_vocabulary(backend, texts):
    """The way before: one forward pass per text, log-softmax over all logits."""
    torch = backend.torch
    bos = backend.tokenizer.bos_token_id
    out = []
    with torch.inference_mode():
        for text in texts:
            ids = ([bos] if bos is not None else []) + backend.tokenizer(text, add_special_tokens=False)["input_ids"]
            if len(ids) < 2:
                out.append([])
                continue
            tensor = torch.tensor([ids[: backend.max_context]])
            logits = backend.model(input_ids=tensor).logits[0, :-1].float()
            out.append(torch.log_softmax(logits, dim=-1).gather(-1, tensor[0, 1:].unsqueeze(-1)).squeeze(-1).tolist())
    return out


def lower_bound(backend, prompts):
    """One batched forward pass (last position) over the unique prompts."""
    torch = backend.torch
    encoded = [backend.encode(p) for p in dict.fromkeys(prompts)]
    start = time.perf_counter()
    with torch.inference_mode():
        for batch in backend._batches(encoded):
            ids, mask = backend._left_pad([encoded[k] for k in batch])
            pos = (mask.cumsum(-1) - 1).clamp(min=0)
            backend.model(input_ids=ids, attention_mask=mask, position_ids=pos, logits_to_keep=1)
    return time.perf_counter() - start, len(encoded), sum(len(e) for e in encoded)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limit", type=int, default=48)
    parser.add_argument("--model", default="google/gemma-3-270m")
    parser.add_argument("--datasets", nargs="+", default=["tweeteval-sentiment-en", "hellaswag-en"])
    args = parser.parse_args()
    start = time.perf_counter()
    info = resolve_model(args.model)
    backend = Recording(local_weights(info))
    load = time.perf_counter() - start
    print(f"{args.model} ({backend.dtype}), load {load:.1f} s; load average {os.getloadavg()[0]:.1f}")
    for name in args.datasets:
        dataset = load_dataset(name)
        backend.prompts = []
        timings = {}
        for intrinsic in (False, True, "again"):
            t0 = time.perf_counter()
            record, _, _ = evaluate_dataset(
                backend,
                info,
                dataset,
                EvaluationSettings(iterations=1, limit=args.limit, intrinsic=bool(intrinsic)),
                cache=OutputCache(),
            )
            timings[intrinsic] = time.perf_counter() - t0
        prompts = list(backend.prompts)
        fmt = TaskFormat(record["task"], dataset.info.languages[0], dataset.info.labels)
        test, train = dataset.splits["test"][: args.limit], dataset.splits["train"]
        docs = [fmt.document(r)[:MAX_CHARS] for r in [*test[:TEXTS], *train[:TEXTS]]]
        docs = [d for d in docs if d.strip()]
        t0 = time.perf_counter()
        new = backend.token_logprobs(docs)
        t_new = time.perf_counter() - t0
        t0 = time.perf_counter()
        old = full_vocabulary(backend, docs)
        t_old = time.perf_counter() - t0
        worst = max((abs(a - b) for x, y in zip(new, old, strict=True) for a, b in zip(x, y, strict=True)), default=0.0)
        bound, unique, tokens = lower_bound(backend, prompts)
        print(
            f"{name}: evaluation {timings[False]:.1f} s, with the intrinsic measures {timings[True]:.1f} s "
            f"(+{100 * (timings[True] / timings[False] - 1):.0f}%), a second time (reused) "
            f"{timings['again']:.1f} s; their {len(docs)} documents "
            f"({sum(len(x) for x in new)} tokens): {t_new:.1f} s now, {t_old:.1f} s one full-vocabulary pass each, "
            f"largest difference {worst:.2e} nats; lower bound {bound:.1f} s ({unique} unique prompts, "
            f"{tokens} tokens): engine / bound {timings[False] / bound:.1f}; load average {os.getloadavg()[0]:.1f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
