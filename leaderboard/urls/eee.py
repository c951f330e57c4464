from django.urls import path

from leaderboard.views import eee

urlpatterns = [
    path("evaluations/<int:pk>/eee.json", eee.evaluation_log, name="api-evaluation-eee"),
    path("evaluations/<int:pk>/eee-instances.jsonl", eee.evaluation_instances, name="api-evaluation-eee-instances"),
    path("leaderboards/<slug:code>/eee.zip", eee.board_logs, name="api-leaderboard-eee"),
]
