import pytest
from django.urls import reverse

from leaderboard.models import Language, LanguageGroup


@pytest.mark.django_db
def test_languages_and_groups_are_seeded():
    assert Language.objects.get(code="nb").board == "no"
    assert LanguageGroup.objects.get(slug="scandinavian").boards == ["da", "fo", "is", "no", "sv"]  # EuroEval's


@pytest.mark.django_db
def test_home_page_renders(client):
    response = client.get(reverse("home"))
    assert response.status_code == 200
    assert b"leaderboards" in response.content.lower()
