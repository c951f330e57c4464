import pytest

from tests.pages.builders import build_board


@pytest.fixture
def da_board(db):
    return build_board()
