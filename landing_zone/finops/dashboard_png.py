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

from landing_zone.cost.alarms import APPLICATION_PROFILE, MetricSpec, evaluate_expression
from landing_zone.cost.dashboard import GraphPanel, TextPanel
from landing_zone.errors import LandingZoneError
from landing_zone.plan import Plan

__all__ = ["MANTLE_SHARE", "SyntheticDay", "render_dashboard", "synthetic_day"]

MANTLE_SHARE = 0.1
STEP_SECONDS = 300
STEPS = 24 * 3600 // STEP_SECONDS
DPI = 100
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
    runtime = plan.metrics.for_endpoint("runtime")
    mantle = plan.metrics.for_endpoint("mantle")
    per_second = {
        "input": w.requests_per_day
        * w.input_tokens_per_request
        * max(0.0, 1 - w.cached_input_fraction - w.cache_write_fraction)
        / 86400,
        "cache_read": w.requests_per_day * w.input_tokens_per_request * w.cached_input_fraction / 86400,
        "cache_write": w.requests_per_day * w.input_tokens_per_request * w.cache_write_fraction / 86400,
        "output": w.requests_per_day * w.output_tokens_per_request / 86400,
    }
    apps = [s for s in plan.cost_alarms.sources if s.dimension_value.startswith(APPLICATION_PROFILE)]
    mantles = [s for s in plan.cost_alarms.sources if s.namespace == mantle.namespace]
    mantle_share = MANTLE_SHARE if mantles else 0.0
    rates: dict[tuple[str, str, str], float] = {}
    for source in plan.cost_alarms.sources:
        if source in apps:
            share = (1 - mantle_share) / len(apps)
        elif source in mantles:
            share = mantle_share / len(mantles)
        else:
            share = 0.0  # direct calls through system profiles or models: none in the synthetic day
        for kind, name in source.token_metrics.items():
            # Mantle has no cache metrics: its billable input includes the cached tokens
            cached = per_second["cache_read"] + per_second["cache_write"]
            rate = per_second[kind] + (cached if source in mantles and kind == "input" else 0.0)
            rates[(source.namespace, source.dimension_value, name)] = rate * share
        if source.namespace == runtime.namespace and "invocations" in runtime.other_metrics:
            rates[(source.namespace, source.dimension_value, runtime.other_metrics["invocations"])] = (
                w.requests_per_day / 86400 * share
            )
        if source in mantles and "invocations" in mantle.other_metrics:
            rates[(source.namespace, source.dimension_value, mantle.other_metrics["invocations"])] = (
                w.requests_per_day / 86400 * share
            )
    description = (
        f"Synthetic day: cost.workload ({w.requests_per_day:,.0f} requests/day, {w.input_tokens_per_request:,.0f} "
        f"input tokens ({w.cached_input_fraction:.0%} cached), {w.output_tokens_per_request:,.0f} output tokens), "
        f"day/night curve, split evenly across {len(apps)} application profile(s)"
        + (f", {mantle_share:.0%} on Mantle" if mantles else "")
        + "; no direct calls."
    )
    return SyntheticDay(rates, description)


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


def render_dashboard(plan: Plan, path: Path) -> SyntheticDay:
    """Draw every panel of ``plan.dashboard`` for the synthetic day into ``path`` (PNG); returns the day used."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError as exc:
        raise LandingZoneError(f"the dashboard picture needs matplotlib ({exc}): make setup-cli") from None
    day = synthetic_day(plan)
    panels = [p for p in plan.dashboard.panels if isinstance(p, GraphPanel | TextPanel)]
    rows = math.ceil(len(panels) / COLUMNS)
    fig = Figure(figsize=(16, 3.2 * rows + 1), dpi=DPI)
    FigureCanvasAgg(fig)
    fig.suptitle(f"{plan.dashboard.name} (offline rendering)\n{day.description}", fontsize=11)
    for index, panel in enumerate(panels):
        ax = fig.add_subplot(rows, COLUMNS, index + 1)
        if isinstance(panel, TextPanel):
            ax.axis("off")
            text = "\n".join(textwrap.wrap(panel.markdown.replace("**", "").replace("`", ""), 110))
            ax.text(0, 1, f"{panel.title}\n\n{text}", va="top", ha="left", fontsize=7, wrap=True)
            continue
        ax.set_title("\n".join(textwrap.wrap(panel.title, 80)), fontsize=8)
        series = _series(panel, day)
        if series is None:
            ax.text(0.5, 0.5, "live data only (no synthetic series)", ha="center", va="center", fontsize=8)
            ax.set_xticks([])
            ax.set_yticks([])
            continue
        scale = 86400 if panel.cumulative else 3600  # days of the month, or hours of the day
        period = 3600 if panel.cumulative else panel.period
        hours = [step * period / scale for step in range(len(series[0][1]))]
        if panel.stacked:
            ax.stackplot(hours, *[v for _, v in series], labels=[label for label, _ in series], alpha=0.8)
        else:
            for label, values in series:
                ax.plot(hours, values, label=label, linewidth=1)
        for annotation in panel.annotations:
            ax.axhline(annotation.value, linestyle="--", linewidth=1, color="black")
            ax.annotate(annotation.label, (hours[0], annotation.value), fontsize=6, va="bottom")
        ax.set_ylabel(panel.unit, fontsize=7)
        ax.set_xlabel("day of the month" if panel.cumulative else "hour of the day", fontsize=7)
        ax.tick_params(labelsize=6)
        ax.legend(fontsize=5, loc="upper left")
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    fig.savefig(path, format="png", dpi=DPI, metadata={"Software": None})
    return day
