from django.urls import include, path

from leaderboard.views import api

urlpatterns = [
    path("leaderboards/<slug:code>.json", api.leaderboard_json, name="api-leaderboard-json"),
    path("leaderboards/<slug:code>.csv", api.leaderboard_csv_view, name="api-leaderboard-csv"),
    path("", include("leaderboard.urls.eee")),  # Every Eval Ever downloads
]
