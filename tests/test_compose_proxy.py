"""compose.yaml puts the repository's nginx configuration in front of the site."""

from __future__ import annotations

import ipaddress
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]


def test_readers_reach_the_site_through_the_caching_proxy():
    doc = yaml.safe_load((REPO / "compose.yaml").read_text())
    services, proxy, web = doc["services"], doc["services"]["proxy"], doc["services"]["web"]
    assert "ports" not in web and proxy["ports"] == ["8000:8080"]  # nothing reaches gunicorn directly
    template = "./deploy/nginx/glossa.conf.template:/etc/nginx/templates/glossa.conf.template:ro"
    assert template in proxy["volumes"] and (REPO / "deploy/nginx/glossa.conf.template").is_file()
    assert proxy["environment"]["GLOSSA_UPSTREAM"] == "web:8000"
    # The proxy serves what the site collects at start, and shares a network with the site only.
    assert "static:/static:ro" in proxy["volumes"] and "static:/app/var/staticfiles" in web["volumes"]
    assert "collectstatic" in web["command"]
    shared = {name for name, service in services.items() if "edge" in service.get("networks", [])}
    assert shared == {"proxy", "web"} and doc["networks"]["edge"]["internal"] is True
    # Its address is a trusted proxy, so rate limits see the reader behind it.
    subnet = doc["networks"]["edge"]["ipam"]["config"][0]["subnet"]
    default = doc["x-app-env"]["GLOSSA_TRUSTED_PROXIES"].split(":-", 1)[1].rstrip("}")
    assert ipaddress.ip_network(default) == ipaddress.ip_network(subnet)
