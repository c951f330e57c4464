"""Closing JSON that generation cut off at ``max_new_tokens``.

XGrammar keeps every generated token inside the JSON schema, but a budget of 128 new
tokens can end the output mid-object. :func:`close_truncated_json` keeps the longest
prefix that ends after a complete element, closes the open strings' containers, and adds
the schema's missing keys with empty lists, so the answer always parses and matches the
schema (an entity that was being written when the budget ran out is dropped).
"""

from __future__ import annotations

import json
from collections.abc import Sequence


def _closers(text: str) -> str | None:
    """Brackets that close ``text``, or None when it ends inside a string or after a key."""
    stack: list[str] = []
    in_string = escape = False
    for ch in text:
        if in_string:
            if escape:
                escape = False
            elif ch == "\\":
                escape = True
            elif ch == '"':
                in_string = False
            continue
        if ch == '"':
            in_string = True
        elif ch in "[{":
            stack.append("]" if ch == "[" else "}")
        elif ch in "]}":
            if not stack:
                return None
            stack.pop()
    if in_string:
        return None
    return "".join(reversed(stack))


def close_truncated_json(text: str, keys: Sequence[str]) -> str:
    """``text`` itself when it parses; otherwise the closed longest valid prefix."""
    try:
        json.loads(text)
        return text
    except json.JSONDecodeError:
        pass
    for end in range(len(text), 0, -1):
        candidate = text[:end].rstrip()
        if not candidate or candidate[-1] not in '"]}[{':
            continue
        candidate = candidate.rstrip(",")
        closers = _closers(candidate)
        if closers is None:
            continue
        try:
            data = json.loads(candidate + closers)
        except json.JSONDecodeError:
            continue
        if not isinstance(data, dict):
            continue
        fixed = {key: data.get(key, []) for key in keys}
        return json.dumps(fixed, ensure_ascii=False)
    return json.dumps({key: [] for key in keys}, ensure_ascii=False)
