from django.urls import path

from leaderboard.views import pages

urlpatterns = [
    path("", pages.home, name="home"),
]
