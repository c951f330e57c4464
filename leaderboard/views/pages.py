"""Read-only pages. Views stay thin: selectors read, templates render."""

from django.shortcuts import render

from leaderboard import selectors


def home(request):
    return render(request, "leaderboard/home.html", {"boards": selectors.home_boards()})
