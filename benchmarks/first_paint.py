"""First visits: page weight and DOMContentLoaded of each page kind, in headless Chromium
with an empty cache, for one or more builds of the site served side by side.

    .venv/bin/python benchmarks/first_paint.py --database sqlite:////abs/path/glossa.sqlite3 \\
        --tree before=/tmp/glossa-before --tree after=. [--repeats 3]

Each ``--tree LABEL=PATH`` is a checkout of the site (same database schema): its static
files are collected (``collectstatic`` into PATH/var/first-paint) and it is served by
gunicorn (2 workers) over ``--database``. Alternatively ``--site LABEL=URL`` measures a
running site. The pages: home, a language board, a suite board, a model page, a dataset
page (the first model and dataset linked from the board), compare (the board's first two
models), the examiner board, submit, queue and methodology. Each visit is a fresh browser
context (empty cache), over loopback; per page and build it prints the median of
``--repeats`` visits, interleaving the builds: bytes transferred (HTML and every
sub-resource, as sent, so compressed where the server compresses), the HTML's bytes,
first contentful paint, DOMContentLoaded, load, and when the last chart was drawn
(``data-rendered``, measured from the start of navigation by the script).
"""

from __future__ import annotations

import argparse
import os
import re
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
ROOT = Path(__file__).resolve().parent.parent
BOARD, SUITE, EXAMINER = "/leaderboards/da/", "/leaderboards/da-suite/", "/examiner/da/"

# Navigation and resource timing, measured in the page once it has loaded.
MEASURE = """() => {
  const nav = performance.getEntriesByType("navigation")[0];
  const resources = performance.getEntriesByType("resource");
  const bytes = resources.reduce((sum, r) => sum + (r.transferSize || r.encodedBodySize || 0), 0);
  const paint = performance.getEntriesByName("first-contentful-paint")[0];
  return {dcl: nav.domContentLoadedEventEnd, load: nav.loadEventEnd, fcp: paint ? paint.startTime : null,
          html: nav.transferSize || nav.encodedBodySize, total: (nav.transferSize || nav.encodedBodySize) + bytes,
          charts: document.querySelectorAll("[data-figure]").length};
}"""
CHART_DRAWN = """() => {
  const all = document.querySelectorAll("[data-figure]");
  return all.length > 0 && document.querySelectorAll("[data-figure][data-rendered]").length === all.length;
}"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def serve(label: str, tree: Path, database: str) -> tuple[str, subprocess.Popen]:
    """Collects ``tree``'s static files and starts its gunicorn; the site's URL and process."""
    env = {**os.environ, "PYTHONPATH": str(tree), "DATABASE_URL": database, "LOG_LEVEL": "WARNING"}
    env["GLOSSA_VAR_DIR"] = str(tree / "var" / "first-paint")
    env.pop("REDIS_URL", None)
    python = ROOT / ".venv" / "bin" / "python"
    subprocess.run([str(python), "manage.py", "collectstatic", "--noinput", "-v0"], cwd=tree, env=env, check=True)
    port = free_port()
    gunicorn = [str(python), "-m", "gunicorn", "leaderboard.wsgi", "--bind", f"127.0.0.1:{port}", "--workers", "2"]
    proc = subprocess.Popen(gunicorn, cwd=tree, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            urllib.request.urlopen(url + "/methodology/", timeout=5)
            print(f"{label}: {tree} on {url}", flush=True)
            return url, proc
        except OSError:
            time.sleep(0.2)
    proc.terminate()
    sys.exit(f"{label}: gunicorn did not start")


def page_paths(site: str) -> dict[str, str]:
    """The page kinds and the path of each, the model and dataset found on the board."""
    html = urllib.request.urlopen(site + BOARD, timeout=60).read().decode()
    models = list(dict.fromkeys(re.findall(r'href="(/models/[^"#?]+/)"', html)))
    dataset = re.search(r'href="(/datasets/[^"#?]+/)"', html)
    if dataset is None:  # the board links datasets from its column headers, or a model page does
        model_html = urllib.request.urlopen(site + models[0], timeout=60).read().decode()
        dataset = re.search(r'href="(/datasets/[^"#?]+/)"', model_html)
    pair = "&".join(f"models={m.removeprefix('/models/').rstrip('/')}" for m in models[:2])
    return {
        "home": "/",
        "language board": BOARD,
        "suite board": SUITE,
        "model page": models[0],
        "dataset page": dataset.group(1),
        "compare": f"/compare/?{pair}",
        "examiner board": EXAMINER,
        "submit": "/submit/",
        "queue": "/queue/",
        "methodology": "/methodology/",
    }


def visit(browser, url: str) -> dict:
    context = browser.new_context(viewport={"width": 1400, "height": 900})  # a new, empty cache
    page = context.new_page()
    try:
        started = time.perf_counter()
        page.goto(url, wait_until="load", timeout=120_000)
        figures = page.evaluate(MEASURE)
        drawn = None
        if figures["charts"]:
            page.wait_for_function(CHART_DRAWN, timeout=120_000, polling=20)
            drawn = (time.perf_counter() - started) * 1000
        page.wait_for_timeout(200)  # late resources (the chart bundle) into the resource list
        figures.update(page.evaluate(MEASURE) | {key: figures[key] for key in ("dcl", "load", "fcp")})
        figures["drawn"] = drawn
        return figures
    finally:
        context.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", action="append", default=[], help="LABEL=PATH: a checkout to serve")
    parser.add_argument("--site", action="append", default=[], help="LABEL=URL: a running site")
    parser.add_argument("--database", default="", help="DATABASE_URL for --tree sites")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    sites, procs = {}, []
    try:
        for spec in args.tree:
            label, path = spec.split("=", 1)
            sites[label], proc = serve(label, Path(path).resolve(), args.database)
            procs.append(proc)
        for spec in args.site:
            label, url = spec.split("=", 1)
            sites[label] = url.rstrip("/")
        paths = page_paths(next(iter(sites.values())))
        results: dict = {}
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=CHROMIUM,
                headless=True,
                args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
            )
            for kind, path in paths.items():
                for site in sites.values():  # a warm-up visit: the server's caches, not the browser's
                    visit(browser, site + path)
                for _ in range(args.repeats):
                    for label, site in sites.items():
                        results.setdefault((kind, label), []).append(visit(browser, site + path))
            browser.close()
        report(paths, sites, results)
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(30)
    return 0


def report(paths: dict, sites: dict, results: dict) -> None:
    print("| page | build | transferred | HTML | first paint | DOMContentLoaded | load | charts drawn |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for kind, path in paths.items():
        for label in sites:
            runs = results[(kind, label)]
            med = {key: statistics.median(r[key] for r in runs) for key in ("dcl", "load", "total", "html")}
            painted = [r["fcp"] for r in runs if r["fcp"] is not None]  # headless Chromium may not report it
            paint = f"{statistics.median(painted):.0f} ms" if painted else "-"
            drawn = [r["drawn"] for r in runs if r["drawn"] is not None]
            chart = f"{statistics.median(drawn):.0f} ms" if drawn else "-"
            print(
                f"| {kind} (`{path[:40]}`) | {label} | {med['total'] / 1024:.0f} KiB | {med['html'] / 1024:.0f} KiB "
                f"| {paint} | {med['dcl']:.0f} ms | {med['load']:.0f} ms | {chart} |"
            )


if __name__ == "__main__":
    sys.exit(main())
