"""The operations dashboard, rendered offline for a synthetic token series (``make cost``: ``dashboard.png``).

A reviewer sees what ``<name>-operations`` will show before anything is deployed.  The panels are the plan's
(:mod:`landing_zone.cost.dashboard`); every spend line is the panel's own metric-math expression evaluated
with :func:`landing_zone.cost.alarms.evaluate_expression` for each period of the synthetic series, so the picture
and the live dashboard compute the same numbers.

The synthetic series: the configured ``cost.workload`` over one day with a day/night curve (peak at 14:00, 1.6x
the mean; trough at 02:00, 0.4x), split evenly across the application profiles, with ``MANTLE_SHARE`` of it on
Mantle when Mantle is configured.  Health panels (latency, errors) need live data and are drawn as such.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from landing_zone.core.catalog.metrics import MetricSource
from landing_zone.core.config import Workload
from landing_zone.cost.alarms import APPLICATION_PROFILE, MetricSpec, evaluate_expression
from landing_zone.cost.dashboard import GraphPanel, TextPanel
from landing_zone.plan import Plan

__all__ = ["MANTLE_SHARE", "SyntheticDay", "layout", "render_dashboard", "synthetic_day"]

MANTLE_SHARE = 0.1
STEP_SECONDS = 300
STEPS = 24 * 3600 // STEP_SECONDS
DPI = 100
LINE_STYLES = ("-", (0, (6, 3)), (0, (1, 2)), (0, (6, 2, 1, 2)))  # solid, dashed, dotted, dash-dot
COLUMNS = 2


@dataclass(frozen=True)
class SyntheticDay:
    """Tokens per second of each (namespace, dimension value, metric name), as a function of the step."""

    rates: Mapping[tuple[str, str, str], float]  # mean tokens per second
    description: str

    @staticmethod
    def curve(step: int) -> float:
        hour = step * STEP_SECONDS / 3600
        return 1 + 0.6 * math.sin(2 * math.pi * (hour - 8) / 24)

    def value(self, metric: MetricSpec, step: int | None, period: int) -> float | None:
        """The metric's Sum over one period at ``step`` of the day (None: the day's mean)."""
        (dimension,) = metric.dimensions.values()
        rate = self.rates.get((metric.namespace, dimension, metric.metric_name))
        factor = 1.0 if step is None else self.curve(step)
        return None if rate is None else rate * factor * period


def synthetic_day(plan: Plan) -> SyntheticDay:
    """The configured workload as tokens per second per metric series (see the module docstring)."""
    w = plan.config.cost.workload
    mantle = plan.metrics.for_endpoint("mantle")
    per_second = _per_second(w)
    apps = [s for s in plan.cost_alarms.sources if s.dimension_value.startswith(APPLICATION_PROFILE)]
    mantles = [s for s in plan.cost_alarms.sources if s.namespace == mantle.namespace]
    mantle_share = MANTLE_SHARE if mantles else 0.0
    rates: dict[tuple[str, str, str], float] = {}
    # the synthetic day follows cost.workload.tier_split
    tiers: dict[str, float] = {str(t): v for t, v in w.tier_split.items()} or {"default": 1.0}
    profiles = {s.dimension_value.partition("+")[0] for s in apps}
    for source in plan.cost_alarms.sources:
        share = _share(source, apps, mantles, profiles, tiers, mantle_share)
        rates.update(_source_rates(plan, source, per_second, share, on_mantle=source in mantles))
    description = (
        f"Synthetic day: cost.workload ({w.requests_per_day:,.0f} requests/day, {w.input_tokens_per_request:,.0f} "
        f"input tokens ({w.cached_input_fraction:.0%} cached), {w.output_tokens_per_request:,.0f} output tokens), "
        f"day/night curve, split evenly across {len(apps)} application profile(s)"
        + (f", {mantle_share:.0%} on Mantle" if mantles else "")
        + "; no direct calls; no failed request (the Invocations line counts failed requests too, so on a live "
        "dashboard it can exceed the requests served)."
    )
    return SyntheticDay(rates, description)


def _per_second(w: Workload) -> dict[str, float]:
    """The workload's tokens per second, by kind (input not cached, cache read, cache write, output)."""
    return {
        "input": w.requests_per_day
        * w.input_tokens_per_request
        * max(0.0, 1 - w.cached_input_fraction - w.cache_write_fraction)
        / 86400,
        "cache_read": w.requests_per_day * w.input_tokens_per_request * w.cached_input_fraction / 86400,
        "cache_write": w.requests_per_day * w.input_tokens_per_request * w.cache_write_fraction / 86400,
        "output": w.requests_per_day * w.output_tokens_per_request / 86400,
    }


def _share(
    source: MetricSource,
    apps: list[MetricSource],
    mantles: list[MetricSource],
    profiles: set[str],
    tiers: dict[str, float],
    mantle_share: float,
) -> float:
    """The share of the synthetic day's traffic a metric source carries."""
    if source in apps:
        tier = source.dimension_value.partition("+")[2] or "default"
        return (1 - mantle_share) / len(profiles) * tiers.get(tier, 0.0)
    if source in mantles:
        return mantle_share / len(mantles)
    return 0.0  # direct calls through system profiles or models: none in the synthetic day


def _source_rates(
    plan: Plan, source: MetricSource, per_second: dict[str, float], share: float, *, on_mantle: bool
) -> dict[tuple[str, str, str], float]:
    """The rates of one metric source's series (tokens, quota usage, invocations)."""
    w = plan.config.cost.workload
    runtime = plan.metrics.for_endpoint("runtime")
    mantle = plan.metrics.for_endpoint("mantle")
    usage = plan.catalog.quotas.usage_metric if plan.catalog.quotas is not None else None
    rates: dict[tuple[str, str, str], float] = {}
    for kind, name in source.token_metrics.items():
        # Mantle has no cache metrics: its billable input includes the cached tokens
        cached = per_second["cache_read"] + per_second["cache_write"]
        rate = per_second[kind] + (cached if on_mantle and kind == "input" else 0.0)
        rates[(source.namespace, source.dimension_value, name)] = rate * share
    if source.namespace == runtime.namespace and usage is not None:
        # EstimatedTPMQuotaUsage: the tokens that count against the TPM quota (cache reads do not)
        counted = per_second["input"] + per_second["cache_write"] + per_second["output"]
        rates[(usage.namespace, source.dimension_value, usage.metric_name)] = counted * share
    if source.namespace == runtime.namespace and "invocations" in runtime.other_metrics:
        # Invocations counts failed requests too (metrics.yaml metric_semantics); the synthetic day has no failed
        # request, so it equals the workload's requests here, and nothing divides by it.
        rates[(source.namespace, source.dimension_value, runtime.other_metrics["invocations"])] = (
            w.requests_per_day / 86400 * share
        )
    if on_mantle and "invocations" in mantle.other_metrics:
        rates[(source.namespace, source.dimension_value, mantle.other_metrics["invocations"])] = (
            w.requests_per_day / 86400 * share
        )
    return rates


def _series(panel: GraphPanel, day: SyntheticDay) -> list[tuple[str, list[float]]] | None:
    """Each line's values over the day (None when a metric has no synthetic data: a live-only panel)."""
    out = []
    period = panel.period
    steps = 31 * 24 if panel.cumulative else 86400 // period  # a month of hours, or one day of periods
    for line in panel.lines:
        values = []
        for step in range(steps):
            at = None if panel.cumulative else step * period // STEP_SECONDS % STEPS
            metric_values = {m.id: day.value(m, at, period) for m in line.metrics}
            if any(v is None for v in metric_values.values()):
                return None
            if line.expression is not None:
                values.append(evaluate_expression(line.expression, metric_values))
            else:
                values.append(float(next(iter(metric_values.values())) or 0.0))
        if panel.cumulative:
            total, running = 0.0, []
            for v in values:  # USD per hour-long period: hours of the month at the day's mean rate
                total += v
                running.append(total)
            values = running
        out.append((line.label, values))
    return out


# Sizes for a picture read at 100 %: 1,600 px wide, two panels a row, text at 9-12 pt (12-16 px), never below 9.
ROW_HEIGHT_INCHES = 4.4
TITLE_PT = 12
TEXT_PT = 10
TICK_PT = 9
LEGEND_PT = 9
WRAP_TITLE = 70
WRAP_TEXT = 95


def _text_panel(ax: Any, title: str, body: str) -> None:
    ax.axis("off")
    ax.set_title("\n".join(textwrap.wrap(title, WRAP_TITLE)), fontsize=TITLE_PT, loc="left")
    paragraphs = [textwrap.fill(p, WRAP_TEXT) for p in body.replace("**", "").replace("`", "").split("\n\n")]
    ax.text(0, 1, "\n\n".join(paragraphs), va="top", ha="left", fontsize=TEXT_PT)


Drawn = list[tuple[GraphPanel | TextPanel, list[tuple[str, list[float]]] | None]]


def layout(plan: Plan, day: SyntheticDay) -> Drawn:
    """The panels drawn, each with its synthetic series (None: a text panel).  Graphs that need live data are not
    drawn as empty frames: one closing text panel lists them."""
    drawn: Drawn = []
    live_only: list[str] = []
    for panel in plan.dashboard.panels:
        if isinstance(panel, TextPanel):
            drawn.append((panel, None))
        elif isinstance(panel, GraphPanel):
            series = _series(panel, day)
            if series is None:
                live_only.append(panel.title)
            else:
                drawn.append((panel, series))
    if live_only:
        drawn.append(
            (
                TextPanel(
                    "Live data only (on the deployed dashboard, not in this rendering)",
                    "\n\n".join(f"- {title}" for title in live_only),
                ),
                None,
            )
        )
    return drawn


def render_dashboard(plan: Plan, path: Path) -> SyntheticDay:
    """Draw every panel of ``plan.dashboard`` for the synthetic day into ``path`` (PNG); returns the day used.

    Panels that need live data (latency, time to first token, errors) are listed in one closing text panel rather
    than drawn as empty frames."""
    # matplotlib is the CLI tier (requirements-cli.txt): `cost-report` declares it (landing_zone.cli.tiers).
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    day = synthetic_day(plan)
    drawn = layout(plan, day)
    rows = math.ceil(len(drawn) / COLUMNS)
    fig = Figure(figsize=(16, ROW_HEIGHT_INCHES * rows + 1.2), dpi=DPI)
    FigureCanvasAgg(fig)
    fig.suptitle(
        f"{plan.dashboard.name} (offline rendering)\n" + "\n".join(textwrap.wrap(day.description, 150)),
        fontsize=TITLE_PT + 1,
    )
    for index, (panel, series) in enumerate(drawn):
        ax = fig.add_subplot(rows, COLUMNS, index + 1)
        if isinstance(panel, TextPanel):
            _text_panel(ax, panel.title, panel.markdown)
            continue
        assert series is not None
        ax.set_title("\n".join(textwrap.wrap(panel.title, WRAP_TITLE)), fontsize=TITLE_PT)
        scale = 86400 if panel.cumulative else 3600  # days of the month, or hours of the day
        period = 3600 if panel.cumulative else panel.period
        hours = [step * period / scale for step in range(len(series[0][1]))]
        if panel.stacked:
            ax.stackplot(hours, *[v for _, v in series], labels=[label for label, _ in series], alpha=0.8)
            top = max(sum(v[i] for _, v in series) for i in range(len(hours)))
        else:
            # lines of equal values (e.g. applications with the same share) would hide each other: vary the style
            for i, (label, values) in enumerate(series):
                ax.plot(hours, values, label=label, linewidth=1.5, linestyle=LINE_STYLES[i % len(LINE_STYLES)])
            top = max(max(v) for _, v in series)
        for annotation in panel.annotations:
            ax.axhline(annotation.value, linestyle="--", linewidth=1.2, color="black")
            ax.annotate(
                annotation.label,
                (hours[-1], annotation.value),
                fontsize=LEGEND_PT,
                ha="right",
                va="bottom",
                bbox={"boxstyle": "round,pad=0.15", "facecolor": "white", "edgecolor": "none", "alpha": 0.85},
            )
            top = max(top, annotation.value)
        # the legend sits above the highest line, label or annotation: about 6.5 % of the height per entry
        free = 1 - (0.06 + 0.065 * len(series))
        ax.set_ylim(0, top / max(free, 0.4) if top > 0 else 1)
        ax.set_ylabel(panel.unit, fontsize=TEXT_PT)
        ax.set_xlabel("day of the month" if panel.cumulative else "hour of the day (UTC)", fontsize=TEXT_PT)
        ax.tick_params(labelsize=TICK_PT)
        ax.grid(True, color="0.92")
        ax.legend(fontsize=LEGEND_PT, loc="upper left", framealpha=0.9)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.9 / (ROW_HEIGHT_INCHES * rows + 1.2)))
    fig.savefig(path, format="png", dpi=DPI, metadata={"Software": None})
    return day
