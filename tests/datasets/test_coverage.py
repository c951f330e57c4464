"""The coverage page (data/datasets/COVERAGE.md): every language and ranked task has a set or
a recorded reason, and the committed page is what the data pack and the reasons give."""

from __future__ import annotations

import json

from scripts.datasets import coverage


def committed():
    return coverage.datasets_by_cell(), json.loads(coverage.GAPS.read_text(encoding="utf-8"))


def test_every_language_and_ranked_task_has_a_set_or_a_reason_and_no_reason_is_stale():
    cells, gaps = committed()
    assert coverage.problems(cells, gaps) == []
    assert len(coverage.languages()) >= 32


def test_the_committed_page_is_what_the_builder_writes():
    assert coverage.main(["--check"]) == 0
    assert coverage.OUT.read_text(encoding="utf-8") == coverage.render(*committed())


def test_a_new_set_makes_its_reason_stale_and_a_removed_one_leaves_a_gap_without_reason(tmp_path):
    cells, gaps = committed()
    code, task = next((c, t) for c, reasons in gaps["cells"].items() for t in reasons)
    folder = tmp_path / "new-set"
    folder.mkdir()
    (folder / "dataset.json").write_text(json.dumps({"name": "new-set", "language": code, "task": task}))
    with_new = {**cells, **coverage.datasets_by_cell(tmp_path)}
    assert coverage.problems(with_new, gaps) == [f"{code}/{task}: has ['new-set'] but gaps.json gives a reason"]

    (code, task), names = next((cell, names) for cell, names in cells.items() if cell[1] == "named-entity-recognition")
    without = {cell: found for cell, found in cells.items() if cell != (code, task)}
    no_task_reason = {**gaps, "tasks": {t: r for t, r in gaps["tasks"].items() if t != task}}
    assert f"{code}/{task}: no dataset and no reason" in coverage.problems(without, no_task_reason)


def test_the_page_lists_each_reason_under_its_task():
    cells, gaps = committed()
    sections = coverage.render(cells, gaps).split("\n### ")[1:]
    by_task = {coverage.TASKS[t].label: t for t in coverage.ranked_tasks()}
    listed = {by_task[s.split(" (")[0]]: s for s in sections}
    for code, reasons in gaps["cells"].items():
        for task, reason in reasons.items():
            assert f"- {coverage.languages()[code]}: {reason} EuroEval" in listed[task]
    for task, reason in gaps["tasks"].items():
        if task in listed:
            assert reason in listed[task]
