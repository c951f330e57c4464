import pytest

from tests.pages.builders import build_board


@pytest.fixture
def da_board(db):
    return build_board()


@pytest.fixture(autouse=True)
def _fresh_page_caches():
    """Board rows and charts are cached per board version; start every test cold."""
    from django.core.cache import cache

    from leaderboard import selectors

    selectors._LOCAL_ROWS.clear()
    cache.clear()
    yield
    selectors._LOCAL_ROWS.clear()
