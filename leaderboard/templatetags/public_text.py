from django import template

from leaderboard.public_text import public_reason as _public_reason

register = template.Library()


@register.filter
def public_reason(text: str) -> str:
    """A failure reason as the public may read it (leaderboard/public_text.py)."""
    return _public_reason(text)
