from django.urls import path

from leaderboard.views import submissions

urlpatterns = [
    path("submit/", submissions.submit, name="submit"),
    path("submissions/<int:pk>/", submissions.detail, name="submission-detail"),
    path("submissions/<int:pk>.json", submissions.detail_json, name="submission-json"),
    path("queue/", submissions.queue, name="queue"),
]
