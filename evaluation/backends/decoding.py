"""Greedy decoding by hand, one token a step, for a batch whose KV-cache already holds
the prompts (the transformers backend's shared-prefix path).

Rows are right-padded; the attention mask hides the pads and every row's position ids
continue from its own length, so each row decodes as if alone. A row that finishes leaves
the batch (its cache row, mask row and position go), so the decode steps after it only
compute the rows still generating. With a grammar (xgrammar), each row's next token is
chosen among those its grammar allows, and the row ends when its grammar is complete.
"""

from __future__ import annotations


class GrammarRows:
    """One xgrammar matcher a row of a batch: masks what each row's grammar forbids next, and
    follows the tokens the rows take."""

    def __init__(self, grammar, rows: int):
        import xgrammar as xgr

        self.matchers = [xgr.GrammarMatcher(grammar) for _ in range(rows)]
        self.bitmask = xgr.allocate_token_bitmask(rows, grammar.tokenizer_info.vocab_size)

    def mask(self, scores, active: list[int]) -> None:
        """Forbid in ``scores`` (a row per row in ``active``) the tokens each row's grammar forbids."""
        import xgrammar as xgr

        for j, r in enumerate(active):
            self.matchers[r].fill_next_token_bitmask(self.bitmask, j)
        xgr.apply_token_bitmask_inplace(scores, self.bitmask[: len(active)])

    def accept(self, row: int, token: int) -> bool:
        """Follow ``token`` in the row's grammar; whether the grammar is complete after it."""
        self.matchers[row].accept_token(token)
        return self.matchers[row].is_terminated()


def greedy_decode(model, device, prefilled: tuple, max_new_tokens: int, grammar, stop_ids: set[int]) -> list[list[int]]:
    """The greedy answer tokens of every row (a stop token not included), up to
    ``max_new_tokens`` each. ``prefilled`` is what the prompts' forward pass left: the
    logits after each row's last token, the KV-cache, the attention mask and each row's
    length."""
    import torch

    last, cache, mask, lengths = prefilled
    constraint = GrammarRows(grammar, len(last)) if grammar is not None else None
    generated: list[list[int]] = [[] for _ in range(len(last))]
    active = list(range(len(last)))  # the original row of each row of the batch tensors
    for _ in range(max_new_tokens):
        scores = last.float().cpu()
        if constraint is not None:
            constraint.mask(scores, active)
        next_tokens = scores.argmax(-1)
        still = []
        for j, r in enumerate(active):
            tok = int(next_tokens[j])
            complete = constraint.accept(r, tok) if constraint is not None else False
            if tok in stop_ids or complete:
                continue
            generated[r].append(tok)
            still.append(j)
        if not still:
            break
        if len(still) < len(active):  # drop the finished rows from every batch tensor
            rows = torch.tensor(still, dtype=torch.long)
            cache.batch_select_indices(rows.to(device))
            mask, lengths, next_tokens = mask[rows], lengths[rows], next_tokens[rows]
            active = [active[j] for j in still]
        mask = torch.cat([mask, torch.ones((len(active), 1), dtype=torch.long)], dim=1)
        out = model(
            input_ids=next_tokens.unsqueeze(1).to(device),
            attention_mask=mask.to(device),
            position_ids=lengths.unsqueeze(1).to(device),
            past_key_values=cache,
            use_cache=True,
        )
        lengths = lengths + 1
        last = out.logits[:, -1]
    return generated
