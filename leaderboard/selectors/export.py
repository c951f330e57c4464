"""The export contract: one JSON document per board (and a flat CSV of it).

Result identity is part of the contract: each board dataset carries the ``version`` (the
dataset fingerprint) and ``protocol`` it counts; each entry's score carries its
``dataset_version``; each entry names the model ``commit`` it shows and lists under
``excluded`` ([{dataset, reason, ...}]) the scores it has that the board does not count.
The document names the ranking ``method`` (name and version) that produced its ranks; a
board can be exported under another registered method (``method=``) once that ranking is
stored, see :mod:`leaderboard.selectors.method_view` (a command computes it first:
:func:`leaderboard.services.method_rankings.computed_ranking`, then :func:`board_document`).

Built from the cached ``Leaderboard`` / ``LeaderboardEntry`` rows, so pages, the API and
``manage.py export_leaderboard`` all show the same numbers. Means and intervals are ×100.

This is the one export of a board: a board page's downloads are this document
filtered to the entries the page shows, in the page's order (:func:`shown_document`), and
its CSV is the same flat table (:func:`document_csv`), and so is a past board's
(``selectors.snapshots.snapshot_csv``).
"""

from __future__ import annotations

import io

from django.urls import reverse

from evaluation.model_types import GenerativeType
from leaderboard import csv_safe
from leaderboard.models import LanguageModel, Leaderboard, LeaderboardRanking, ModelType
from leaderboard.ranking import entry_display_name
from leaderboard.selectors.method_view import apply_ranking, method_info, ranking_for


class LeaderboardNotFound(LookupError):
    pass


def generative_type(model: LanguageModel) -> str | None:
    """EuroEval's ``generative_type``: base, instruction_tuned, reasoning, or None (encoders)."""
    if model.model_type in (ModelType.BASE, ModelType.INSTRUCTION_TUNED, ModelType.REASONING, ModelType.ENCODER):
        return ModelType(model.model_type).euroeval_generative_type
    value = (model.metadata or {}).get("generative_type")
    return value if value in {t.value for t in GenerativeType} else None


def get_leaderboard(code: str) -> Leaderboard:
    try:
        return Leaderboard.objects.get(code=code)
    except Leaderboard.DoesNotExist:
        known = ", ".join(Leaderboard.objects.order_by("code").values_list("code", flat=True)) or "none yet"
        raise LeaderboardNotFound(f"no leaderboard {code!r} (known: {known})") from None


def leaderboard_document(code: str, method: str | None = None) -> dict:
    """The board as the export contract describes it, under ``method`` (default: the
    method its entries show); raises LeaderboardNotFound, UnknownMethod, and RankingPending
    when that method's ranking is not stored (``method_view.ranking_for``)."""
    lb = get_leaderboard(code)
    return board_document(lb, ranking_for(lb, method))


def board_document(lb: Leaderboard, ranking: LeaderboardRanking | None) -> dict:
    """``lb``'s export document with ``ranking`` laid over its entries (None: its own)."""
    entries = []
    eee_url = reverse("api-evaluation-eee", args=[0]).replace("/0/", "/{}/")  # one reverse per document
    ranked = apply_ranking(list(lb.entries.select_related("model").order_by("position")), ranking)
    for position, row in enumerate(ranked, start=1):
        ci = None
        if row.rank_score_ci_low is not None and row.rank_score_ci_high is not None:
            ci = [row.rank_score_ci_low, row.rank_score_ci_high]
        entry = {
            "position": position,  # its place on the whole board under this method
            "model": row.model.model_id,
            "name": entry_display_name(row.model.model_id, row.few_shot, row.validation_split),
            "few_shot": row.few_shot,
            "validation_split": row.validation_split,
            "rank": row.rank,
            "rank_score": row.rank_score,
            "rank_score_ci": ci,
            "task_rank_scores": row.task_rank_scores,
            "scores": with_eee_links(row.scores, eee_url),
            "missing_datasets": row.missing_datasets,
            "excluded": row.excluded,
            "commit": row.commit_sha or None,
            "num_model_parameters": row.model.num_parameters,
            "generative_type": generative_type(row.model),
            "model_type": row.model.model_type,
            "vocabulary_size": row.model.vocabulary_size,
            "max_sequence_length": row.model.max_sequence_length,
        }
        if lb.kind == "group":
            entry["language_rank_scores"] = (row.extra or {}).get("language_rank_scores", {})
        extra = row.extra or {}
        # 95% confidence sets for the rank: this entry alone (the printed rank is its lower
        # end for euroeval-2024) and all entries at once; rank_interval = the marginal set
        entry["rank_set_marginal"] = extra.get("rank_set_marginal")
        entry["rank_set_simultaneous"] = extra.get("rank_set_simultaneous")
        entry["rank_interval"] = extra.get("rank_set_marginal") or extra.get("rank_interval")
        entry["p_above_next"] = extra.get("p_above_next")
        shown = ("language_rank_scores", "rank_interval", "rank_set_marginal", "rank_set_simultaneous", "p_above_next")
        others = {k: v for k, v in extra.items() if k not in shown}
        if others:
            entry["method_extra"] = others
        entries.append(entry)
    doc = {
        "language": lb.code,
        "name": lb.name,
        "kind": lb.kind,
        "generated_at": lb.generated_at.isoformat() if lb.generated_at else None,
        "method": {k: v for k, v in method_info(lb, ranking).items() if k not in ("label", "rank_text")},
        "datasets": lb.datasets,
        "entries": entries,
    }
    if lb.kind == "group":
        doc["boards"] = lb.boards
    doc["eee"] = reverse("api-leaderboard-eee", args=[lb.code])  # its counted evaluations as EEE logs
    return doc


def with_eee_links(scores: dict, url: str) -> dict:
    """A board row's scores, each with its counted evaluation's EEE log (``eee``) when the
    board knows the evaluation (boards aggregated before it did give none)."""
    return {
        name: dict(cell, eee=url.format(cell["evaluation"])) if cell.get("evaluation") else cell
        for name, cell in (scores or {}).items()
    }


def _fmt(x) -> str:
    return "" if x is None else repr(x) if isinstance(x, float) else str(x)


def shown_document(board) -> dict:
    """The document of a board page (``selectors.Board``): the board's export document under
    the method the page shows, with only the entries shown, in the page's order, and the
    page's filters. A shown row whose entry is gone (the board was re-aggregated after the
    page's rows were cached) is left out rather than failing the download."""
    doc = leaderboard_document(board.board.code, board.method.get("name"))
    by_key = {(e["model"], e["few_shot"], e["validation_split"]): e for e in doc["entries"]}
    keys = [(row["model_id"], row["few_shot"], row["validation_split"]) for row in board.rows]
    shown = [by_key[key] for key in keys if key in by_key]
    return {
        **doc,
        "filters": board.filters.as_dict(),
        "num_entries_total": len(doc["entries"]),
        "num_entries_shown": len(shown),
        "entries": shown,
    }


def leaderboard_csv(code: str, method: str | None = None) -> str:
    """The board's document as CSV (:func:`document_csv`)."""
    return document_csv(leaderboard_document(code, method))


ENTRY_COLUMNS = (
    "position",
    "rank",
    "model",
    "name",
    "few_shot",
    "validation_split",
    "rank_score",
    "rank_score_ci_low",
    "rank_score_ci_high",
    "rank_marginal_low",
    "rank_marginal_high",
    "rank_simultaneous_low",
    "rank_simultaneous_high",
    "p_above_next",
    "num_model_parameters",
    "generative_type",
    "model_type",
    "commit",
)
DATASET_COLUMNS = (
    "primary_metric",
    "primary_mean",
    "primary_ci",
    "secondary_metric",
    "secondary_mean",
    "secondary_ci",
    "rank_score",
)


def document_csv(doc: dict) -> str:
    """One row per entry, flat columns (``<dataset>_primary_mean`` etc.); the last two
    columns name the ranking method and its version. A field the document lacks is an empty
    cell. Cells are neutralised (``csv_safe``)."""
    tasks = list(dict.fromkeys(ds["task"] for ds in doc["datasets"] if ds.get("task")))
    names = [ds["name"] for ds in doc["datasets"]] if doc["kind"] == "language" else []
    buf = io.StringIO()
    writer = csv_safe.writer(buf, lineterminator="\n")
    writer.writerow(_csv_header(doc, tasks, names))
    for e in doc["entries"]:
        writer.writerow([_fmt(v) for v in _csv_row(doc, e, tasks, names)])
    return buf.getvalue()


def _csv_header(doc: dict, tasks: list[str], names: list[str]) -> list[str]:
    header = list(ENTRY_COLUMNS)
    if doc["kind"] == "language":
        header += [f"task_{t}_rank_score" for t in tasks]
        header += [f"{name}_{column}" for name in names for column in DATASET_COLUMNS]
    else:
        header += [f"{b}_rank_score" for b in doc.get("boards", [])]
    return header + ["missing_datasets", "method", "method_version"]


def _csv_row(doc: dict, e: dict, tasks: list[str], names: list[str]) -> list:
    ci = e.get("rank_score_ci") or [None, None]
    marginal = e.get("rank_set_marginal") or [None, None]
    simultaneous = e.get("rank_set_simultaneous") or [None, None]
    row = [e["position"], e["rank"], e["model"], e["name"], e["few_shot"], e["validation_split"], e["rank_score"]]
    row += [ci[0], ci[1], *marginal, *simultaneous, e.get("p_above_next")]
    row += [e.get(k) for k in ("num_model_parameters", "generative_type", "model_type", "commit")]
    if doc["kind"] == "language":
        row += [(e.get("task_rank_scores") or {}).get(t) for t in tasks]
        for name in names:
            s = (e.get("scores") or {}).get(name) or {}
            for part in ("primary", "secondary"):
                m = s.get(part) or {}
                row += [m.get("metric"), m.get("mean"), m.get("ci")]
            row.append(s.get("rank_score"))
    else:
        row += [(e.get("language_rank_scores") or {}).get(b) for b in doc.get("boards", [])]
    return row + [";".join(e.get("missing_datasets") or []), doc["method"]["name"], doc["method"]["version"]]
