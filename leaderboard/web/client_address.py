"""Who is asking: the client's address behind trusted proxies, and the bucket it counts in.

``X-Forwarded-For`` is written by whoever sends the request, so it is believed only as far
as the proxies named in ``GLOSSA_TRUSTED_PROXIES`` (addresses or networks). The hops are
walked from the right: ``REMOTE_ADDR`` first, then the header's entries from the last one;
the first address that is not a trusted proxy is the client. Without trusted proxies the
header is ignored and the client is ``REMOTE_ADDR``.

Rate limits count per :func:`rate_key`: an IPv4 address, or the /64 network of an IPv6
address (one subscriber gets a whole /64 and can rotate addresses inside it).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping
from functools import lru_cache

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def _address(text: str) -> Address | None:
    text = (text or "").strip()
    if text.startswith("[") and "]" in text:  # "[2001:db8::1]:443"
        text = text[1 : text.index("]")]
    elif text.count(":") == 1:  # "203.0.113.7:51234"
        text = text.split(":", 1)[0]
    try:
        address = ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


@lru_cache(maxsize=16)
def trusted_networks(proxies: tuple[str, ...]) -> tuple[Network, ...]:
    """The networks of a ``GLOSSA_TRUSTED_PROXIES`` list (an invalid entry is an error at startup)."""
    return tuple(ipaddress.ip_network(p.strip(), strict=False) for p in proxies if p.strip())


def client_address(meta: Mapping[str, str], trusted: Iterable[str] = ()) -> str | None:
    """The client's address for a request's ``META`` (None when the server saw none)."""
    networks = trusted_networks(tuple(trusted))
    remote = _address(meta.get("REMOTE_ADDR", ""))
    if remote is None:
        return None
    if not networks:
        return str(remote)
    hops = [h for h in meta.get("HTTP_X_FORWARDED_FOR", "").split(",") if h.strip()]
    current = remote
    while any(current in net for net in networks) and hops:
        previous = _address(hops.pop())
        if previous is None:  # a trusted proxy wrote garbage: count it as that proxy
            break
        current = previous
    return str(current)


def rate_key(address: str | None) -> str:
    """The bucket an address counts in: itself (IPv4) or its /64 network (IPv6)."""
    parsed = _address(address or "")
    if parsed is None:
        return "unknown"
    if isinstance(parsed, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network((parsed, 64), strict=False))
    return str(parsed)


def axes_client_ip(request) -> str | None:
    """django-axes' client (``AXES_CLIENT_IP_CALLABLE``), bucketed as the rate limit's: an
    IPv4 address itself, an IPv6 address as the first address of its /64 (axes stores an
    address, so every address of one /64 counts as that one)."""
    from django.conf import settings

    address = client_address(request.META, settings.TRUSTED_PROXIES)
    parsed = _address(address or "")
    if isinstance(parsed, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network((parsed, 64), strict=False).network_address)
    return address
