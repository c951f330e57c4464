"""Facts about EuroEval's datasets from EuroEval's own documentation, for the dataset pages.

Reads ``src/frontend/md/datasets/<language>.md`` (one ``### Name`` section per dataset,
ending in ``euroeval --model <model-id> --dataset NAME``) and the Hugging Face repositories
of ``src/euroeval/dataset_configs/<language>.py`` from a git checkout of EuroEval/EuroEval,
and writes ``leaderboard/data/euroeval_datasets.json``: per dataset name its pretty name,
task heading, language, whether EuroEval calls it official, the split sizes EuroEval uses,
the original dataset's size, the links of its prose (the paper or source EuroEval cites),
any licence sentence, and the repository EuroEval loads it from. Only facts are carried
over; the page writes its own sentences around them. The commit read is recorded.

    python -m scripts.datasets.euroeval_docs --repo /path/to/EuroEval [--commit SHA]
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
from pathlib import Path

OUT = Path(__file__).resolve().parents[2] / "leaderboard" / "data" / "euroeval_datasets.json"
DOCS = "src/frontend/md/datasets"
CONFIGS = "src/euroeval/dataset_configs"
NUMBER = r"(\d[\d,]*)"
SPLIT = re.compile(
    rf"{NUMBER}\s*/\s*{NUMBER}(?:\s*/\s*{NUMBER})?\s+(?:samples\s+)?(?:split\s+)?"
    r"(?:for|as)\s+(?:our\s+|the\s+)?(?:training|train\b)",
    re.S,
)
ORIGINAL = re.compile(rf"consists of {NUMBER} samples")
LINK = re.compile(r"\[([^\]]+)\]\((https?://[^)\s]+)\)")
NAME = re.compile(r"--dataset ([a-z0-9][a-z0-9_-]*)")
CONFIG = re.compile(r'name="([a-z0-9][a-z0-9_-]*)".*?source="([^"]+)"', re.S)


def git_show(repo: Path, commit: str, path: str) -> str:
    return subprocess.run(
        ["git", "--git-dir", str(repo), "show", f"{commit}:{path}"], capture_output=True, text=True, check=True
    ).stdout


def git_files(repo: Path, commit: str, folder: str) -> list[str]:
    out = subprocess.run(
        ["git", "--git-dir", str(repo), "ls-tree", "--name-only", f"{commit}:{folder}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return [line for line in out.splitlines() if line.endswith((".md", ".py")) and not line.startswith(("README", "_"))]


def _int(text: str | None) -> int | None:
    return int(text.replace(",", "")) if text else None


def parse_language(text: str, language: str, sources: dict[str, str]) -> dict[str, dict]:
    """One language page: name → facts."""
    out: dict[str, dict] = {}
    task = ""
    for block in re.split(r"(?m)^(?=#{2,3} )", text):
        heading = block.splitlines()[0] if block else ""
        if heading.startswith("## "):
            task = heading[3:].strip()
            continue
        if not heading.startswith("### "):
            continue
        names = NAME.findall(block)
        if not names:
            continue
        title = heading[4:].strip()
        official = not title.startswith("Unofficial:")
        prose = block.split("Here are a few examples", 1)[0]
        flat = " ".join(prose.split()[len(heading.split()) :])
        # The sizes EuroEval uses: the triple after "we use" / "using" / "from which we use";
        # an earlier one describes the original dataset.
        found = list(SPLIT.finditer(flat))
        used = [m for m in found if re.search(r"\b(use|using|used)\b", flat[max(0, m.start() - 60) : m.start()])]
        split = (used or found[-1:] or [None])[-1]
        sizes = {}
        if split:
            first, second, third = split.groups()
            if third:
                sizes = {"train": _int(first), "val": _int(second), "test": _int(third)}
            else:
                sizes = {"train": _int(first), "test": _int(second)}
        original = ORIGINAL.search(flat)
        licence = [s.strip() for s in re.split(r"(?<=\.)\s", flat) if re.search(r"licen[cs]e", s, re.I)]
        name = names[-1]
        out[name] = {
            "pretty_name": title.removeprefix("Unofficial:").strip(),
            "language": language,
            "task": task,
            "official": official,
            "splits": sizes,
            "original_size": _int(original.group(1)) if original else None,
            "links": [{"text": t, "url": u} for t, u in LINK.findall(flat) if not u.startswith("/")][:4],
            "licence": licence[:2],
            "repository": sources.get(name, ""),
        }
    return out


def build(repo: Path, commit: str) -> dict:
    datasets: dict[str, dict] = {}
    sources: dict[str, str] = {}
    for name in git_files(repo, commit, CONFIGS):
        sources.update(dict(CONFIG.findall(git_show(repo, commit, f"{CONFIGS}/{name}"))))
    for name in sorted(git_files(repo, commit, DOCS)):
        language = name.removesuffix(".md").capitalize()
        for key, facts in parse_language(git_show(repo, commit, f"{DOCS}/{name}"), language, sources).items():
            datasets.setdefault(key, facts)
    return {
        "source": "EuroEval/EuroEval (MIT licence): src/frontend/md/datasets/*.md and src/euroeval/dataset_configs/",
        "commit": commit,
        "datasets": datasets,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", required=True, type=Path, help="EuroEval's git directory")
    parser.add_argument("--commit", default="HEAD")
    args = parser.parse_args()
    commit = subprocess.run(
        ["git", "--git-dir", str(args.repo), "rev-parse", args.commit], capture_output=True, text=True, check=True
    ).stdout.strip()
    document = build(args.repo, commit)
    OUT.write_text(json.dumps(document, ensure_ascii=False, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{len(document['datasets'])} datasets from EuroEval@{commit[:12]} → {OUT}")


if __name__ == "__main__":
    main()
