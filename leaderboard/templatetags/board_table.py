"""The rows of a board table, rendered in plain Python.

A board can have hundreds of entries × dozens of cells; rendering them through the
template engine cell by cell costs far more than the page budget, so this tag writes the
``<tr>`` elements directly from the selector's display rows, escaping every value.
``data-v`` attributes carry the raw sort values that static/js/board.js sorts by.
"""

from __future__ import annotations

from html import escape as _escape

from django import template
from django.utils.safestring import SafeString, mark_safe

from leaderboard.selectors.formatting import DASH

register = template.Library()


def esc(value) -> str:
    return _escape(str(value), quote=True)


def _v(value) -> str:
    return "" if value is None else esc(value)


def _dataset_cell(cell: dict) -> str:
    if cell["missing"]:
        return '<td class="num ds" data-v=""><span class="missing" title="no score">–</span></td>'
    secondary = (
        f' <span class="sec">/ {cell["secondary"]}<span class="ci">±{cell["secondary_ci"]}</span></span>'
        if cell["secondary"]
        else ""
    )
    flag = cell.get("flag")
    flag = f' <span class="flag" title="{esc(flag)}">⚠ {esc(flag.split()[0])}</span>' if flag else ""
    probe = cell.get("probe")
    if probe:
        flag += f' <span class="flag probe" title="{esc(probe)}">◎</span>'
    return (
        f'<td class="num ds" data-v="{cell["sort"]:.4f}">{cell["primary"]}'
        f'<span class="ci">±{cell["primary_ci"]}</span>{secondary}{flag}</td>'
    )


def _number_cell(cell: dict) -> str:
    value = "" if cell["sort"] is None else f"{cell['sort']:.4f}"
    return f'<td class="num" data-v="{value}">{cell["text"]}</td>'


def row_html(row: dict, bits_per_byte: bool = False) -> str:
    ranked = row["rank"] is not None
    name = esc(row["name"])
    misses = "" if ranked else f'<div class="misses">missing: {esc(row["missing_display"])}</div>'
    if row["excluded"]:
        misses += (
            f'<div class="misses excluded">not counted: {"; ".join(esc(reason) for reason in row["excluded"])}</div>'
        )
    score = (
        (
            f'<td class="num c-score" data-v="{row["rank_score"]:.4f}"><b>{row["score"]}</b> '
            f'<span class="ci">{row["score_ci"]}</span></td>'
        )
        if ranked
        else '<td class="num c-score" data-v="">–</td>'
    )
    parts = [
        f'<tr class="{row["group"] if ranked else "unranked"}">',
        _rank_cell(row),
        f'<th scope="row" class="c-model" data-v="{name}"><label class="pick-hit"><input type="checkbox" class="pick" '
        f'name="models" value="{esc(row["model_id"])}" form="compare-form" aria-label="Compare {name}"></label> '
        f'<a href="{esc(row["url"])}">{name}</a>{misses}</th>',
        *_rank_uncertainty(row),
        f'<td class="c-type" data-v="{esc(row["type"])}"><span class="type t-{esc(row["type"])}" '
        f'title="{esc(row["type_label"])}">{esc(row["type_badge"])}</span></td>',
        f'<td class="num" data-v="{_v(row["num_parameters"])}">{row["parameters"]}</td>',
        f'<td class="num" data-v="{_v(row["vocabulary_size"])}">{row["vocabulary"]}</td>',
        f'<td class="num" data-v="{_v(row["max_sequence_length"])}">{row["context"]}</td>',
        score,
    ]
    if bits_per_byte:  # the intrinsic column (docs/methodology.md §10): shown, never ranked
        parts.append(_number_cell(row["bpb"]))
    parts += [_number_cell(cell) for cell in row["languages"]]
    parts += [_number_cell(cell) for cell in row["tasks"]]
    parts += [_dataset_cell(cell) for cell in row["datasets"]]
    parts.append("</tr>\n")
    return "".join(parts)


@register.simple_tag
def board_rows(rows: list[dict], bits_per_byte: bool = False) -> SafeString:
    """``<tr>`` elements for ``rows`` (display rows from ``selectors.get_board``), with the
    bits-per-byte column when the board shows it."""
    return mark_safe("".join(row_html(row, bits_per_byte) for row in rows))


def _span(found) -> str | None:
    """``[low, high]`` → "3–7" (or "3" when they meet); None without a set."""
    if not found:
        return None
    low, high = found
    return f"{low}–{high}" if low != high else f"{low}"


def _rank_uncertainty(row: dict) -> list[str]:
    """The cells beside the model: the entry's own 95% rank set, the set that
    holds for every row at once, and P(ranks above the next row). Sorting any of them is
    sorting by position (the sets follow it; P(above next) sorts by itself)."""
    p = row.get("p_above_next")
    return [
        f'<td class="num c-rankint" data-v="{row["position"]}">{_span(row.get("rank_interval")) or DASH}</td>',
        f'<td class="num c-rankset" data-v="{row["position"]}">{_span(row.get("rank_set")) or DASH}</td>',
        f'<td class="num c-pnext" data-v="{"" if p is None else p}">{DASH if p is None else f"{p:.2f}"}</td>',
    ]


def _rank_cell(row: dict) -> str:
    """The rank; on a narrow screen (where the columns of :func:`_rank_uncertainty` are
    hidden) the rank opens, with a tap or a key, a note of the same three numbers."""
    rank = esc(row["rank_display"])
    parts = []
    for label, value in (
        ("95% rank set", _span(row.get("rank_interval"))),
        ("all rows at once", _span(row.get("rank_set"))),
        ("P(above next row)", None if row.get("p_above_next") is None else f"{row['p_above_next']:.2f}"),
    ):
        if value is not None:
            parts.append(f"<span>{label}: <b>{value}</b></span>")
    more = (
        f'<details class="rank-more"><summary><span class="rank-n">{rank}</span>'
        f'<span class="rank-sr"> (rank; open for its 95% set)</span></summary>'
        f'<span class="rank-pop">{"".join(parts)}</span></details>'
        if parts
        else ""
    )
    return f'<td class="num c-rank" data-v="{row["position"]}"><span class="rank-n rank-plain">{rank}</span>{more}</td>'
