"""Run ``evaluation.models`` calls in a fresh process against a given Hub endpoint.

``huggingface_hub`` reads ``HF_ENDPOINT``, ``HF_HOME`` and ``HF_HUB_OFFLINE`` once, at import
time, so the code under test runs in a child process whose environment names the endpoint:
nothing is patched. :func:`run_calls` sends the child a list of calls on stdin and gets one
outcome per call back as JSON::

    {"op": "resolve", "model_id": ..., "revision": "main", "allow_remote_code": false}
        -> {"ok": <ModelInfo.to_dict()>} | {"error": "ModelNotFound", "message": ...}
    {"op": "local_weights", "info": <ModelInfo dict>}
        -> {"ok": "<folder>"} | {"error": ..., "message": ...}
    {"op": "submit", "model_id": ..., "revision": "main", "few_shot": true,
     "client_address": "10.0.0.1", "user": null | "<username of an existing account>"}
        -> {"ok": {"id", "revision", "commit_sha", "created"}} | {"error": "SubmissionRefused", "code", "message"}

``submit`` runs the site's submission service (Django set up in the child from the
environment given to :func:`run_calls`: the test database's ``DATABASE_URL``, Redis).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]


def hub_env(endpoint: str, hf_home: Path) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("HF_", "HUGGINGFACE_", "TRANSFORMERS_")) and "proxy" not in key.lower()
    }
    env.update(
        {
            "HF_ENDPOINT": endpoint,
            "HF_HUB_OFFLINE": "0",
            "HF_HOME": str(hf_home),
            "HF_HUB_DISABLE_TELEMETRY": "1",
            "HF_HUB_DISABLE_PROGRESS_BARS": "1",
            "GLOSSA_MODEL_CACHE": str(hf_home / "glossa"),
            "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")])),
        }
    )
    return env


def run_calls(
    endpoint: str, hf_home: Path, calls: list[dict], timeout: float = 120, env: dict[str, str] | None = None
) -> list[dict]:
    proc = subprocess.run(
        [sys.executable, "-m", "tests.support.hub_driver"],
        input=json.dumps(calls),
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=REPO_ROOT,
        env={**hub_env(endpoint, hf_home), **(env or {})},
    )
    if proc.returncode != 0:
        raise RuntimeError(f"hub driver failed ({proc.returncode}):\n{proc.stderr[-4000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _call(call: dict) -> dict:
    from evaluation import models
    from evaluation.errors import EvaluationError

    try:
        if call["op"] == "resolve":
            info = models.resolve_model(
                call["model_id"], call.get("revision", "main"), allow_remote_code=call.get("allow_remote_code", False)
            )
            return {"ok": info.to_dict()}
        if call["op"] == "local_weights":
            return {"ok": str(models.local_weights(models.ModelInfo(**call["info"])))}
        if call["op"] == "submit":
            return _submit(call)
        raise ValueError(f"unknown op {call['op']!r}")
    except EvaluationError as exc:
        return {"error": type(exc).__name__, "message": str(exc)}


def _submit(call: dict) -> dict:
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "leaderboard.settings")
    django.setup()
    from django.contrib.auth import get_user_model

    from leaderboard.services import submissions

    user = get_user_model().objects.get(username=call["user"]) if call.get("user") else None
    try:
        outcome = submissions.submit(
            call["model_id"],
            revision=call.get("revision", "main"),
            few_shot=call.get("few_shot", True),
            client_address=call.get("client_address", "10.0.0.1"),
            user=user,
        )
    except submissions.SubmissionRefused as exc:
        return {"error": "SubmissionRefused", "code": exc.code, "message": str(exc)}
    submission = outcome.submission
    return {
        "ok": {
            "id": submission.pk,
            "revision": submission.revision,
            "commit_sha": submission.commit_sha,
            "created": outcome.created,
        }
    }


def main() -> None:
    calls = json.loads(sys.stdin.read())
    outcomes = [_call(call) for call in calls]
    sys.stdout.write("\n" + json.dumps(outcomes) + "\n")


if __name__ == "__main__":
    main()
