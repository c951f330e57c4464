"""The home page starts where the visitor is (issue #27.4): one entry per language with its
published and evaluated-here boards, the languages with the most ranked entries first, the
counts ranked entries, and a search that works without JavaScript (``?q=``)."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup
from django.utils import timezone

from leaderboard.models import LanguageModel, Leaderboard, LeaderboardEntry
from tests.pages.builders import DA_ENTRIES, build_board


def suite_board(code: str, name: str, ranked: int, unranked: int = 0) -> None:
    """A suite board's cached rows as aggregation leaves them (the home page reads only these)."""
    board = Leaderboard.objects.create(code=code, name=name, kind="language", generated_at=timezone.now())
    for k in range(ranked + unranked):
        model, _ = LanguageModel.objects.get_or_create(model_id=f"org/suite-{k}")
        LeaderboardEntry.objects.create(
            leaderboard=board, model=model, position=k + 1, rank=k + 1 if k < ranked else None
        )


def home(client, query: str = "") -> BeautifulSoup:
    response = client.get("/", {"q": query} if query else {})
    assert response.status_code == 200
    return BeautifulSoup(response.content, "html.parser")


@pytest.fixture
def boards(db):
    build_board()  # Danish, published: 6 ranked of 7
    suite_board("da-suite", "Danish (evaluated here)", ranked=1, unranked=1)
    suite_board("sv-suite", "Swedish (evaluated here)", ranked=1)
    german = [("scala-de", "linguistic-acceptability"), ("sb10k", "sentiment-classification")]
    build_board("de", "German", german, DA_ENTRIES[:3], seed=5)


def test_one_entry_per_language_with_its_boards_most_ranked_first(client, boards):
    soup = home(client)
    entries = soup.select(".language-list > li.language-entry")
    assert [li["id"] for li in entries] == ["lang-da", "lang-de", "lang-sv"]  # 7, 3, 1 ranked
    danish = entries[0]
    assert danish.select_one(".ranked-total").get_text() == "7 ranked"
    assert danish.select_one(".board-published .ranked-count").get_text() == "6"
    assert danish.select_one(".board-suite .ranked-count").get_text() == "1"
    assert danish.select_one(".board-suite a")["href"] == "/leaderboards/da-suite/"
    for card in danish.select(".board-card"):
        assert card.select_one(".board-explained").get_text().strip()  # each board said in a sentence
    swedish = entries[2]
    assert swedish.select_one(".board-published") is None and swedish.select_one(".board-suite")
    assert "3 languages" in soup.select_one("#home-count").get_text()


def test_search_without_javascript_keeps_the_matching_languages(client, boards):
    soup = home(client, "GERM")
    assert [li["id"] for li in soup.select(".language-list > li.language-entry")] == ["lang-de"]
    assert "1 of 3 languages" in soup.select_one("#home-count").get_text()
    assert soup.select_one("#home-q")["value"] == "germ"
    assert [li["id"] for li in home(client, "sv").select("li.language-entry")] == ["lang-sv"]  # by code
    assert "No language matches" in home(client, "klingon").get_text()


def test_every_entry_carries_the_text_the_live_filter_matches(client, boards):
    soup = home(client)
    assert soup.select_one("script[src$='js/home.js']") is not None
    danish = soup.select_one("#lang-da")["data-search"]
    assert "danish" in danish and "da" in danish.split() and "danish (evaluated here)" in danish
