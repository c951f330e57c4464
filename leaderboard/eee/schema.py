"""Validation against the vendored Every Eval Ever schemas (``leaderboard/schemas/eee/``,
provenance in its NOTICE.md), with ``jsonschema`` (Draft 7, as the schemas declare)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from jsonschema import Draft7Validator

SCHEMA_DIR = Path(__file__).resolve().parent.parent / "schemas" / "eee"
LOG_SCHEMA = "eval.schema.json"
INSTANCE_SCHEMA = "instance_level_eval.schema.json"


@cache
def validator(name: str = LOG_SCHEMA) -> Draft7Validator:
    schema = json.loads((SCHEMA_DIR / name).read_text(encoding="utf-8"))
    Draft7Validator.check_schema(schema)
    return Draft7Validator(schema)


def schema_errors(document: object, name: str = LOG_SCHEMA) -> list[str]:
    """Every place where ``document`` breaks the schema, as ``path: message``; [] when valid."""
    errors = sorted(validator(name).iter_errors(document), key=lambda e: list(map(str, e.absolute_path)))
    return [f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}" for e in errors]
