"""The in-process cache of recently built values that board rows and examples share."""

from __future__ import annotations

from leaderboard.selectors.recent import RecentValues


def test_a_kept_value_is_not_built_again_and_the_least_recent_goes_first():
    built: list[str] = []
    recent: RecentValues[str] = RecentValues(2)

    def build(key: str):
        return lambda: built.append(key) or key.upper()

    assert recent.get_or_build("a", build("a")) == "A"
    assert recent.get_or_build("b", build("b")) == "B"
    assert recent.get_or_build("a", build("a")) == "A"  # kept: not built again, now the most recent
    assert recent.get_or_build("c", build("c")) == "C"  # "b" is dropped, not "a"
    assert recent.get_or_build("a", build("a")) == "A"
    assert recent.get_or_build("b", build("b")) == "B"
    assert built == ["a", "b", "c", "b"] and len(recent) == 2
    recent.clear()
    assert len(recent) == 0
