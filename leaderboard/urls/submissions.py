from django.urls import path

from leaderboard.views import submissions
from leaderboard.web.http_cache import shared_for

LIVE = 2  # seconds a shared cache may keep a page that follows work in progress

urlpatterns = [
    path("submit/", submissions.submit, name="submit"),
    path("submissions/<int:pk>/", shared_for(LIVE)(submissions.detail), name="submission-detail"),
    path("submissions/<int:pk>.json", shared_for(LIVE)(submissions.detail_json), name="submission-json"),
    path("queue/", shared_for(LIVE)(submissions.queue), name="queue"),
]
