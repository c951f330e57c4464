from django.urls import path, register_converter
from django.views.generic import RedirectView

from leaderboard.views import efficiency, examiner, history, pages


class IdentifierConverter:
    """A stored identifier that may appear in an address (an exam question's key): letters,
    digits, ``.``, ``_``, ``-``, starting with a letter or digit. Any other (a newline, a
    slash) neither matches (404) nor reverses (the page shows it without a link)."""

    regex = r"[A-Za-z0-9][A-Za-z0-9._-]{0,299}"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(IdentifierConverter, "ident")

urlpatterns = [
    path("", pages.home, name="home"),
    path("methodology/", pages.methodology, name="methodology"),
    path("compare/", pages.compare, name="compare"),
    path("leaderboards/", RedirectView.as_view(pattern_name="home", permanent=False)),
    path("leaderboards/<str:code>/", pages.board, name="board"),
    path("leaderboards/<str:code>/export.<str:fmt>", pages.board_export, name="board-export"),
    path("leaderboards/<str:code>/history/", history.board_history, name="board-history"),
    path("leaderboards/<str:code>/efficiency/", efficiency.board, name="board-efficiency"),
    path("leaderboards/<str:code>/history/<int:pk>/", history.board_snapshot, name="board-snapshot"),
    path("examiner/<str:code>/", examiner.board, name="examiner-board"),
    path("examiner/<str:code>/round/<int:round_number>/questions/", examiner.questions, name="exam-questions"),
    path("examiner/<str:code>/round/<int:round_number>/exam.jsonl", examiner.export, name="exam-export"),
    path(
        "examiner/<str:code>/round/<int:round_number>/questions/<ident:key>/",
        examiner.question,
        name="exam-question",
    ),
    # before the model page: <path:model_id> would swallow the rest
    path("models/<path:model_id>/datasets/<str:dataset>/examples/", pages.model_examples, name="model-examples"),
    path("models/<path:model_id>/", pages.model, name="model"),
    path("model/", pages.model_by_id, name="model-by-id"),  # ?id=: ids a path cannot carry (/mnt/x/)
    # <path:>: a dataset stored under a name with a slash (before names were validated) keeps its page.
    path("datasets/<path:name>/", pages.dataset, name="dataset"),
]
