"""Plotly figures for the pages, built with the ``plotly`` package and embedded as JSON.

Each builder takes the display rows the selectors produce and returns a figure (a
``plotly.graph_objects.Figure``); :func:`embed` turns one into JSON that is safe to put
inside a ``<script type="application/json">`` element, where static/js/charts.js finds it
and calls ``Plotly.newPlot``. Scores on the pages are ×100; rank scores are lower-is-better.
"""

from __future__ import annotations

import math

import plotly.graph_objects as go
import plotly.io as pio
from django.utils.safestring import SafeString, mark_safe

TYPE_COLOURS = {
    "encoder": "#2a9d8f",
    "base": "#e9a23b",
    "instruction-tuned": "#3a6ea5",
    "reasoning": "#c8553d",
    "unknown": "#8d99ae",
}
TYPE_NAMES = {
    "encoder": "Encoder",
    "base": "Base decoder",
    "instruction-tuned": "Instruction-tuned",
    "reasoning": "Reasoning",
    "unknown": "Unknown type",
}
VARIANT_COLOURS = ["#3a6ea5", "#e9a23b", "#2a9d8f", "#c8553d", "#6d597a", "#8d99ae"]
FONT = dict(family="system-ui, -apple-system, Segoe UI, Roboto, sans-serif", size=13, color="#1d2330")

_JSON_ESCAPES = {ord("<"): "\\u003C", ord(">"): "\\u003E", ord("&"): "\\u0026"}


def embed(figure: go.Figure) -> SafeString:
    """Figure JSON safe inside ``<script type="application/json">`` (no ``</script>`` breakout)."""
    return embedded(pio.to_json(figure, validate=False, pretty=False))


def embedded(text: str) -> SafeString:
    """``text`` (figure JSON, e.g. read back from the cache) made safe the same way; escaping
    twice changes nothing."""
    return mark_safe(str(text).translate(_JSON_ESCAPES))


def _layout(**extra) -> dict:
    layout = dict(
        template="none",
        font=FONT,
        margin=dict(l=60, r=20, t=30, b=50),
        paper_bgcolor="rgba(0,0,0,0)",
        plot_bgcolor="#fafbfc",
        hoverlabel=dict(font=dict(family=FONT["family"], size=12)),
        legend=dict(orientation="h", yanchor="bottom", y=1.02, xanchor="left", x=0),
    )
    layout.update(extra)
    return layout


def _short_count(value: float) -> str:
    for threshold, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M")):
        if value >= threshold:
            return f"{value / threshold:g}{suffix}"
    return f"{value:g}"


def board_scatter(rows: list[dict]) -> go.Figure:
    """Parameters (log scale) against rank score, one trace per model type, CIs as error bars.

    Entries without a rank score or a parameter count cannot be placed and are left out.
    """
    by_type: dict[str, list[dict]] = {}
    for row in rows:
        if row["rank_score"] is None or not math.isfinite(row["rank_score"]) or not row["num_parameters"]:
            continue
        by_type.setdefault(row["type"], []).append(row)
    ticks = [m * 10**k for k in range(6, 13) for m in (1, 3)]
    figure = go.Figure(
        layout=_layout(
            xaxis=dict(
                title="Parameters",
                type="log",
                gridcolor="#e6e9ef",
                tickvals=ticks,
                ticktext=[_short_count(t) for t in ticks],
            ),
            yaxis=dict(title="Rank score (lower is better)", autorange="reversed", gridcolor="#e6e9ef"),
            showlegend=True,
            height=440,
        )
    )
    for model_type in TYPE_COLOURS:
        points = by_type.get(model_type)
        if not points:
            continue
        upper = [(p["ci_high"] - p["rank_score"]) if p["ci_high"] is not None else 0 for p in points]
        lower = [(p["rank_score"] - p["ci_low"]) if p["ci_low"] is not None else 0 for p in points]
        figure.add_trace(
            go.Scatter(
                x=[p["num_parameters"] for p in points],
                y=[p["rank_score"] for p in points],
                error_y=dict(
                    type="data", array=upper, arrayminus=lower, thickness=1, width=0, color="rgba(60,60,60,0.25)"
                ),
                mode="markers",
                name=TYPE_NAMES[model_type],
                marker=dict(color=TYPE_COLOURS[model_type], size=9, line=dict(width=1, color="white")),
                customdata=[[p["name"], p["parameters"], p["score_ci"] or "–", p["rank_display"]] for p in points],
                hovertemplate="<b>%{customdata[0]}</b><br>rank %{customdata[3]} · score %{y:.2f} [%{customdata[2]}]"
                "<br>%{customdata[1]} parameters<extra></extra>",
            )
        )
    return figure


def model_strip(evaluations: list[dict]) -> go.Figure:
    """Every iteration's primary score per dataset (one point per iteration), one trace per variant."""
    variants: dict[str, list[dict]] = {}
    for row in evaluations:
        if row["primary_values"]:
            variants.setdefault(row["variant"], []).append(row)
    figure = go.Figure(
        layout=_layout(
            yaxis=dict(title="Primary score (×100)", gridcolor="#e6e9ef"),
            xaxis=dict(tickangle=-45, automargin=True),
            height=420,
            boxmode="group",
        )
    )
    for index, (variant, rows) in enumerate(variants.items()):
        x, y, text = [], [], []
        for row in rows:
            for iteration, value in enumerate(row["primary_values"]):
                x.append(row["dataset"])
                y.append(value)
                text.append(f"{row['dataset']} · iteration {iteration + 1} · {row['primary_metric']} {value:.2f}")
        figure.add_trace(
            go.Box(
                x=x,
                y=y,
                name=variant,
                boxpoints="all",
                jitter=0.5,
                pointpos=0,
                fillcolor="rgba(0,0,0,0)",
                line=dict(width=1, color="rgba(0,0,0,0.25)"),
                marker=dict(color=VARIANT_COLOURS[index % len(VARIANT_COLOURS)], size=6, opacity=0.8),
                hovertext=text,
                hoverinfo="text",
            )
        )
    return figure


def model_task_bars(evaluations: list[dict]) -> go.Figure:
    """Mean primary score per task (unweighted mean of its datasets), one bar group per variant."""
    per_variant: dict[str, dict[str, list[float]]] = {}
    for row in evaluations:
        if row["primary"] is not None:
            per_variant.setdefault(row["variant"], {}).setdefault(row["task_label"], []).append(row["primary"]["mean"])
    figure = go.Figure(
        layout=_layout(
            yaxis=dict(title="Mean primary score (×100)", gridcolor="#e6e9ef"),
            barmode="group",
            height=360,
        )
    )
    for index, (variant, tasks) in enumerate(per_variant.items()):
        labels = list(tasks)
        means = [sum(v) / len(v) for v in tasks.values()]
        figure.add_trace(
            go.Bar(
                x=labels,
                y=means,
                name=variant,
                marker=dict(color=VARIANT_COLOURS[index % len(VARIANT_COLOURS)]),
                text=[f"{m:.1f}" for m in means],
                textposition="outside",
                hovertemplate="%{x}: %{y:.2f}<extra>" + variant + "</extra>",
            )
        )
    return figure


def dataset_distribution(rows: list[dict], metric_label: str) -> go.Figure:
    """Histogram of the entries' primary means with a box plot of them above it."""
    values = [row["primary"]["mean"] for row in rows]
    names = [row["name"] for row in rows]
    figure = go.Figure(
        layout=_layout(
            xaxis=dict(title=f"{metric_label} (×100)", gridcolor="#e6e9ef"),
            yaxis=dict(title="Entries", domain=[0, 0.78], gridcolor="#e6e9ef"),
            yaxis2=dict(domain=[0.82, 1], showticklabels=False),
            showlegend=False,
            height=380,
        )
    )
    figure.add_trace(
        go.Histogram(
            x=values,
            nbinsx=min(30, max(5, len(values) // 3)),
            marker=dict(color="#3a6ea5"),
            hovertemplate="%{x}: %{y} entries<extra></extra>",
        )
    )
    figure.add_trace(
        go.Box(
            x=values,
            yaxis="y2",
            name="",
            boxpoints="all",
            jitter=0.6,
            pointpos=0,
            marker=dict(color="#1d3557", size=5, opacity=0.6),
            line=dict(color="#1d3557", width=1),
            fillcolor="rgba(58,110,165,0.15)",
            hovertext=names,
            hoverinfo="text+x",
        )
    )
    return figure


def dataset_stability(rows: list) -> go.Figure:
    """The stability question (docs/methodology.md §9), per subsample size: the share of model pairs a paired test
    separates and Kendall's τ against the full ranking (``evaluation.stability`` rows)."""
    sizes = [row.n for row in rows]
    figure = go.Figure(
        layout=_layout(
            xaxis=dict(title="Test examples in the subsample", type="log", gridcolor="#e6e9ef"),
            yaxis=dict(title="Share / τ", range=[min(0, *(row.tau for row in rows)) - 0.05, 1.05], gridcolor="#e6e9ef"),
            height=340,
        )
    )
    lines = (
        ([row.separated for row in rows], "pairs separated (Wilcoxon, p < 0.05)", "#3a6ea5", "%{y:.2f} of the pairs"),
        ([row.tau for row in rows], "Kendall τ against the full ranking", "#e07a1f", "τ = %{y:.2f}"),
    )
    for values, name, color, hover in lines:
        figure.add_trace(
            go.Scatter(
                x=sizes,
                y=values,
                mode="lines+markers",
                name=name,
                line=dict(color=color),
                hovertemplate=f"n = %{{x}}: {hover}<extra></extra>",
            )
        )
    figure.add_hline(y=0.9, line=dict(color="#9aa5b1", dash="dot"))
    return figure


def examiner_scores(rows: list[dict]) -> go.Figure:
    """The Examiner board: each examinee's overall Likert score (1-5) with its 95% interval."""
    shown = [r for r in rows if r["summary"].get("overall") is not None]
    names = [r["examinee"] for r in shown]
    means = [r["summary"]["overall"] for r in shown]
    low = [m - (r["summary"].get("overall_ci") or [m, m])[0] for m, r in zip(means, shown, strict=True)]
    high = [(r["summary"].get("overall_ci") or [m, m])[1] - m for m, r in zip(means, shown, strict=True)]
    figure = go.Figure(
        layout=_layout(
            xaxis=dict(title="Overall Likert score (1-5), 95% bootstrap interval over questions", range=[0.8, 5.2]),
            yaxis=dict(autorange="reversed", automargin=True),
            height=max(220, 60 + 36 * len(shown)),
            showlegend=False,
        )
    )
    figure.add_trace(
        go.Scatter(
            x=means,
            y=names,
            mode="markers",
            marker=dict(color=VARIANT_COLOURS[0], size=9),
            error_x=dict(type="data", symmetric=False, array=high, arrayminus=low, color="#8d99ae"),
            hovertemplate="%{y}: %{x:.2f}<extra></extra>",
        )
    )
    return figure
