"""Content-Security-Policy on every response (``ContentSecurityPolicyMiddleware``).

Scripts come only from this site (``static/js``, Plotly from ``static/vendor``): no inline
script and no ``eval``; data for charts travels as ``<script type="application/json">``
islands, which a browser never executes. Styles allow ``'unsafe-inline'`` because Plotly
sets inline styles on the elements it draws (and the admin uses ``style`` attributes).
Nothing may frame the site, post forms elsewhere, change the base URL or load plugins.
"""

from __future__ import annotations

POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data:",
        "font-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)


class ContentSecurityPolicyMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        response.headers.setdefault("Content-Security-Policy", POLICY)
        return response
