"""Root URL configuration: each area of the site keeps its routes in its own module."""

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", include("leaderboard.urls.api")),
    path("", include("leaderboard.urls.submissions")),
    path("", include("leaderboard.urls.pages")),
]
