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
        f'<td class="num c-rank" data-v="{row["position"]}"{_rank_title(row)}>{row["rank_display"]}</td>',
        f'<th scope="row" class="c-model" data-v="{name}"><input type="checkbox" class="pick" name="models" '
        f'value="{esc(row["model_id"])}" form="compare-form" aria-label="Compare {name}"> '
        f'<a href="{esc(row["url"])}">{name}</a>{misses}</th>',
        _rank_set(row),
        f'<td class="c-type" data-v="{esc(row["type"])}"><span class="type t-{esc(row["type"])}" '
        f'title="{esc(row["type_label"])}">{esc(row["type_badge"])}</span></td>',
        f'<td class="num" data-v="{_v(row["num_parameters"])}">{row["parameters"]}</td>',
        f'<td class="num" data-v="{_v(row["vocabulary_size"])}">{row["vocabulary"]}</td>',
        f'<td class="num" data-v="{_v(row["max_sequence_length"])}">{row["context"]}</td>',
        score,
    ]
    if bits_per_byte:  # the intrinsic column (seed 002): shown, never ranked
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


def _rank_set(row: dict) -> str:
    """The "Rank set" cell: the 95% simultaneous confidence set of the rank."""
    found = row.get("rank_set")
    if not found:
        return f'<td class="num c-rankset" data-v="{row["position"]}">–</td>'
    low, high = found
    shown = f"{low}–{high}" if low != high else f"{low}"
    return f'<td class="num c-rankset" data-v="{row["position"]}">{shown}</td>'


def _rank_title(row: dict) -> str:
    """Tooltip of the rank cell: what the rank and its set mean, the entry's own (marginal)
    set and the odds against the next entry."""
    parts = []
    interval = row.get("rank_interval")
    if interval:
        parts.append(f"95% confidence set for this entry's rank alone: {interval[0]}–{interval[1]}")
    if row.get("p_above_next") is not None:
        parts.append(f"P(ranks above the next entry) = {row['p_above_next']:.2f}")
    return f' title="{esc("; ".join(parts))}"' if parts else ""
