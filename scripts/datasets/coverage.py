"""Which tasks each Glossa language has a dataset for, and why each missing one is missing.

The table's rows are the engine's languages (``evaluation/prompt_texts/<code>.json``), its
columns the tasks the engine evaluates that a board ranks (``evaluation.tasks``); a cell
names the data pack's folders of that language and task. Every empty cell must carry a
reason from ``scripts/datasets/gaps.json``: the public sources looked at and why none was
used (no data in a reachable repository, no licence, too small...). A reason is written for
one language and task (``cells``), or once for a task (``tasks``) and then holds for every
language of that task that has no set and no reason of its own. A reason left for a cell
that now has a dataset is an error too, so the page cannot go stale in either direction.
Beside each gap the page names EuroEval's official sets for that language and task, with
the original sources EuroEval's documentation links (``leaderboard/data/euroeval_datasets.json``,
written by :mod:`scripts.datasets.euroeval_docs`).

    python -m scripts.datasets.coverage            # writes data/datasets/COVERAGE.md
    python -m scripts.datasets.coverage --check    # exits 1 if the file or a reason is out of date
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

from evaluation.prompt_languages import PROMPT_DIR
from evaluation.tasks import TASKS

REPO = Path(__file__).resolve().parents[2]
DATASETS = REPO / "data" / "datasets"
GAPS = Path(__file__).with_name("gaps.json")
EUROEVAL = REPO / "leaderboard" / "data" / "euroeval_datasets.json"
OUT = DATASETS / "COVERAGE.md"


def languages() -> dict[str, str]:
    """The engine's languages, code → English name, in code order."""
    names = {}
    for path in sorted(PROMPT_DIR.glob("*.json")):
        names[path.stem] = json.loads(path.read_text(encoding="utf-8"))["name"]
    return names


def ranked_tasks() -> list[str]:
    """The tasks the engine evaluates and a board ranks, in the task table's order."""
    return [spec.name for spec in TASKS.values() if spec.evaluable and spec.ranked]


def datasets_by_cell(folder: Path = DATASETS) -> dict[tuple[str, str], list[str]]:
    """(language, task) → the names of the data pack's folders for it, sorted."""
    cells: dict[tuple[str, str], list[str]] = defaultdict(list)
    for meta_path in sorted(folder.glob("*/dataset.json")):
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        cells[(meta["language"], meta["task"])].append(meta["name"])
    return dict(cells)


def _task_key(heading: str) -> str:
    """A task heading compared across spellings: "Named Entity Recognition" and
    "Named-entity recognition", "Summarisation" and "Summarization"."""
    return heading.casefold().replace("-", " ").replace("isation", "ization")


def euroeval_sets() -> dict[tuple[str, str], list[str]]:
    """(English language name, task heading key) → EuroEval's official sets, each as
    Markdown: its name and the first source its documentation links."""
    facts = json.loads(EUROEVAL.read_text(encoding="utf-8"))["datasets"]
    sets: dict[tuple[str, str], list[str]] = defaultdict(list)
    for fact in facts.values():
        if fact["official"]:
            link = next(iter(fact["links"]), None)
            shown = f"{fact['pretty_name']} ([{link['text']}]({link['url']}))" if link else fact["pretty_name"]
            sets[(fact["language"], _task_key(fact["task"]))].append(shown)
    return dict(sets)


# Languages EuroEval names otherwise (Glossa's name → EuroEval's); "Norwegian Bokmål" is
# matched by its first word.
EUROEVAL_NAMES = {"Slovenian": "Slovene"}


def euroeval_note(sets: dict, name: str, task: str) -> str:
    key = _task_key(TASKS[task].label)
    names = (EUROEVAL_NAMES.get(name, name), name.split()[0])
    found = next((sets[(n, key)] for n in names if (n, key) in sets), None)
    return f" EuroEval's set: {'; '.join(found)}." if found else " EuroEval has no official set."


def reason_for(gaps: dict, code: str, task: str) -> str | None:
    return gaps["cells"].get(code, {}).get(task) or gaps["tasks"].get(task)


def problems(cells: dict, gaps: dict) -> list[str]:
    """Empty cells without a reason, reasons for cells that have a set, unknown names."""
    names, tasks = languages(), ranked_tasks()
    found = [f"unknown task {t!r} in gaps.json" for t in gaps["tasks"] if t not in tasks]
    for code, reasons in gaps["cells"].items():
        if code not in names:
            found.append(f"unknown language {code!r} in gaps.json")
        found += [f"{code}/{t}: unknown task in gaps.json" for t in reasons if t not in tasks]
        found += [
            f"{code}/{t}: has {cells[(code, t)]} but gaps.json gives a reason" for t in reasons if (code, t) in cells
        ]
    for code in names:
        found += [
            f"{code}/{t}: no dataset and no reason"
            for t in tasks
            if (code, t) not in cells and not reason_for(gaps, code, t)
        ]
    return found


def render(cells: dict, gaps: dict) -> str:
    names, tasks = languages(), ranked_tasks()
    short = {t: TASKS[t].short_label for t in tasks}
    lines = [
        "# Coverage: which tasks each language has a dataset for",
        "",
        "Written by `python -m scripts.datasets.coverage` from the data pack's `dataset.json` files and",
        "`scripts/datasets/gaps.json`; `tests/datasets/test_coverage.py` fails when this file, a dataset",
        "or a reason is out of date. A cell names the language's sets for the task; `–` marks a gap,",
        "whose reason (the public sources looked at, and why none was used) is listed below the table.",
        "",
        "| language | " + " | ".join(short[t] for t in tasks) + " |",
        "|---|" + "---|" * len(tasks),
    ]
    for code, name in names.items():
        row = [", ".join(f"`{n}`" for n in cells.get((code, t), [])) or "–" for t in tasks]
        lines.append(f"| {name} (`{code}`) | " + " | ".join(row) + " |")
    lines += ["", "## Gaps, by task", ""]
    sets = euroeval_sets()
    for task in tasks:
        missing = [code for code in names if (code, task) not in cells]
        if not missing:
            continue
        lines += [f"### {TASKS[task].label} ({len(missing)} of {len(names)} languages without a set)", ""]
        if task in gaps["tasks"]:
            lines += [f"Unless a language says otherwise: {gaps['tasks'][task]}", ""]
        for code in missing:
            own = gaps["cells"].get(code, {}).get(task, "the reason above.")
            lines.append(f"- {names[code]}: {own}{euroeval_note(sets, names[code], task)}")
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args(argv)
    cells, gaps = datasets_by_cell(), json.loads(GAPS.read_text(encoding="utf-8"))
    found = problems(cells, gaps)
    for line in found:
        print(line, file=sys.stderr)
    text = render(cells, gaps)
    if args.check:
        stale = not OUT.exists() or OUT.read_text(encoding="utf-8") != text
        if stale:
            print(f"{OUT.relative_to(REPO)} is out of date: run python -m scripts.datasets.coverage", file=sys.stderr)
        return 1 if found or stale else 0
    OUT.write_text(text, encoding="utf-8")
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
