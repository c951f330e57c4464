"""The quality-vs-cost chart of a board's efficiency view (docs/methodology.md §11): rank score (lower
is better, nothing of the cost in it) against throughput or memory, one colour per
hardware identity, each identity's Pareto front drawn as a line with its models named.
Identities are never joined into one front: their costs do not compare."""

from __future__ import annotations

import plotly.graph_objects as go

from leaderboard.charts import VARIANT_COLOURS, _layout

DASHES = {"cpu": "dot"}  # a CPU identity's front is dotted, a GPU's solid


def quality_cost(points: list[dict], axis_label: str, log_x: bool = True) -> go.Figure:
    figure = go.Figure(
        layout=_layout(
            xaxis=dict(title=axis_label, type="log" if log_x else "linear", gridcolor="#e6e9ef"),
            yaxis=dict(title="Rank score (lower is better)", autorange="reversed", gridcolor="#e6e9ef"),
            showlegend=True,
            height=460,
        )
    )
    groups: dict[str, list[dict]] = {}
    for point in points:
        groups.setdefault(point["group"], []).append(point)
    for index, (title, members) in enumerate(groups.items()):
        colour = VARIANT_COLOURS[index % len(VARIANT_COLOURS)]
        figure.add_trace(
            go.Scatter(
                x=[p["x"] for p in members],
                y=[p["y"] for p in members],
                mode="markers",
                name=title,
                legendgroup=title,
                marker=dict(color=colour, size=9, line=dict(width=1, color="white")),
                hovertext=[p["name"] for p in members],
                hovertemplate="<b>%{hovertext}</b><br>%{x:,.3g} · rank score %{y:.2f}<extra>" + title + "</extra>",
            )
        )
        front = sorted((p for p in members if p["front"]), key=lambda p: p["x"])
        if front:
            figure.add_trace(
                go.Scatter(
                    x=[p["x"] for p in front],
                    y=[p["y"] for p in front],
                    mode="lines+markers+text",
                    name=f"Pareto front · {title}",
                    legendgroup=title,
                    showlegend=False,
                    line=dict(color=colour, width=1.5, dash=DASHES.get(members[0]["device"], "solid")),
                    marker=dict(color=colour, size=11, symbol="diamond"),
                    text=[p["name"] for p in front],
                    textposition="top center",
                    textfont=dict(size=11),
                    hoverinfo="skip",
                )
            )
    return figure
