"""``cost-vs-volume.png``: monthly cost against monthly output-token volume, drawn with matplotlib.

One line per API price source and the self-hosted step line (``nodes = ceil(volume / node capacity)``) at the chart
throughput, with the break-even points marked.  matplotlib (Agg backend, no display) is imported only when the
chart is drawn.  Output is deterministic: fixed size and dpi, no software or date metadata.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from landing_zone.finops.build import CHART_DPI, CHART_SIZE_INCHES, ChartSeries, CostReport
from landing_zone.finops.markdown import _profile_label, _short_tokens, _usd

__all__ = ["render_chart"]

_LINE_STYLES = ("-", "--", "-.", ":")
# Text boxes, in axes fractions: break-even points in the free area above the first node step, the
# "API always cheaper" markers (ordered by volume) along the bottom, under the API lines.
_CROSSING_SLOTS = ((0.13, 0.56), (0.13, 0.44), (0.13, 0.32))
_NO_CROSSING_SLOTS = ((0.30, 0.04), (0.66, 0.04), (0.66, 0.16))


def _footnote(report: CostReport) -> str:
    # Status only: the full citations (titles in several scripts, URLs) are in cost.md next to the chart.
    parts = [
        f"{p.source_name} (as of {p.as_of}, {'verified' if p.verified else 'NOT verified'})" for p in report.prices
    ]
    inst = report.instance
    parts.append(f"{inst.instance_type} (as of {inst.as_of}, {'verified' if inst.verified else 'NOT verified'})")
    text = (
        "Data: landing_zone/core/catalog/prices.yaml, cited in cost.md. "
        + "; ".join(parts)
        + f". API cost assumes {report.input_output_ratio:g} input tokens per output token, "
        f"{report.cached_input_fraction:.0%} of them cached"
        + (f", {report.cache_write_fraction:.0%} written to the cache" if report.cache_write_fraction else "")
        + "; "
        f"a month is {report.hours_per_month:g} h; self-hosted nodes run 24/7."
    )
    return "\n".join(textwrap.wrap(text, width=200))


_SCALE_X, _SCALE_Y = 1e9, 1e3  # the axes' units: billions of output tokens, thousands of USD
_COLORS = ("tab:orange", "tab:blue", "tab:purple", "tab:green", "tab:red")
_Callout = tuple[bool, float, str, tuple[float, float], str]  # crossing?, volume, text, point, colour


def _plot_self_hosted(ax: Any, report: CostReport) -> None:
    """The self-hosted nodes' monthly cost, a step per node."""
    inst = report.instance
    node_month = report.node_monthly_usd
    first = report.chart_series[0].curve
    ax.plot(
        [p.output_tokens_per_month / _SCALE_X for p in first],
        [p.self_hosted_monthly_usd / _SCALE_Y for p in first],
        drawstyle="steps-pre",
        color="black",
        linewidth=2.2,
        label=(
            f"Self-hosted {inst.instance_type} (8xB300, {_usd(report.hourly_usd)} USD/h = {node_month / 1e3:,.1f}k "
            f"USD/month per node) at {report.chart_tokens_per_second:g} output tok/s per node "
            f"({_profile_label(report.chart_profile)})"
        ),
    )


def _plot_series(ax: Any, report: CostReport, i: int, s: ChartSeries) -> _Callout | None:
    """One token API's monthly cost line, its break-even marker, and the callout text for it (None: off the chart)."""
    node_month = report.node_monthly_usd
    p = s.prices
    color = _COLORS[i % len(_COLORS)]
    ax.plot(
        [c.output_tokens_per_month / _SCALE_X for c in s.curve],
        [c.api_monthly_usd / _SCALE_Y for c in s.curve],
        linestyle=_LINE_STYLES[i % len(_LINE_STYLES)],
        color=color,
        linewidth=1.8,
        label=(
            f"API {p.source_name}: {_usd(p.input_usd_per_million)} in / {_usd(p.output_usd_per_million)} out "
            f"USD per 1M tokens{'' if p.verified else ' (unverified)'}"
        ),
    )
    be = s.breakeven
    if s.crossings:
        blended = be.api_blended_usd_per_million_output_tokens / 1e6
        ax.plot(
            [v / _SCALE_X for v in s.crossings],
            [v * blended / _SCALE_Y for v in s.crossings],
            marker="o",
            markersize=8,
            linestyle="none",
            color=color,
        )
        v = s.crossings[0]
        text = (
            f"break-even vs {p.source_name}: {_short_tokens(v)} output tokens/month\n"
            "(filled dots: self-hosting becomes cheaper)"
        )
        if p.source_name == report.price_source:
            text = f"configured ({text[len('break-even vs ') :]}"
            text = text.replace("\n", ")\n", 1)
        return (True, v, text, (v / _SCALE_X, v * blended / _SCALE_Y), color)
    else:
        v = be.breakeven_output_tokens_per_month
        if v > report.chart_max_volume:
            return None
        ax.plot(
            [v / _SCALE_X],
            [node_month / _SCALE_Y],
            marker="o",
            markersize=8,
            markerfacecolor="white",
            markeredgewidth=2,
            linestyle="none",
            color=color,
        )
        text = (
            f"{p.source_name}: 1-node break-even {_short_tokens(v)}/month,\n"
            f"but one node serves {_short_tokens(be.output_tokens_per_month_capacity)}: API always cheaper"
        )
        if p.source_name == report.price_source:
            text = (
                f"configured ({p.source_name}): break-even {_short_tokens(v)} output tokens/month\n"
                f"= {be.breakeven_tokens_per_second_blended:,.1f} tok/s per node ({be.ratio_to_api_blended:,.2f}x "
                f"the API at {be.tokens_per_second:g});\none node serves "
                f"{_short_tokens(be.output_tokens_per_month_capacity)}: API always cheaper"
            )
        return (False, v, text, (v / _SCALE_X, node_month / _SCALE_Y), color)


def _draw_callouts(ax: Any, annotations: list[_Callout]) -> None:
    """Boxed callouts: the configured price source's first (it always gets a box), the others by volume."""

    # the configured price source's callout first (it always gets a box), the others by volume while slots last
    def order(a: _Callout) -> tuple[bool, float]:
        return (not a[2].startswith("configured"), a[1])

    crossing = sorted((a for a in annotations if a[0]), key=order)
    no_crossing = sorted((a for a in annotations if not a[0]), key=order)
    for group, slots in ((crossing, _CROSSING_SLOTS), (no_crossing, _NO_CROSSING_SLOTS)):
        for (_, _, text, xy, color), slot in zip(
            group, slots, strict=False
        ):  # more markers than slots: the rest are not boxed
            ax.annotate(
                text,
                xy=xy,
                xytext=slot,
                textcoords="axes fraction",
                fontsize=8.5,
                color=color,
                arrowprops={"arrowstyle": "->", "color": color, "linewidth": 1},
                bbox={"boxstyle": "round,pad=0.3", "facecolor": "white", "edgecolor": color, "alpha": 0.9},
            )


def _mark_configured(ax: Any, report: CostReport) -> None:
    """The configured price source's break-even line and the configured workload's volume and cost."""
    chosen = next((s for s in report.chart_series if s.prices.source_name == report.price_source), None)
    if chosen is not None:
        v = chosen.crossings[0] if chosen.crossings else chosen.breakeven.breakeven_output_tokens_per_month
        if v <= report.chart_max_volume:
            ax.axvline(
                v / _SCALE_X,
                color=_COLORS[report.chart_series.index(chosen) % len(_COLORS)],
                linestyle=(0, (6, 3)),
                linewidth=1.2,
                label=f"break-even on the configured {report.price_source}: {_short_tokens(v)} output tokens/month",
            )
    wl = report.workload_output_tokens_per_month / _SCALE_X
    ax.axvline(wl, color="grey", linestyle=":", linewidth=1.2)
    configured = next((s for s in report.chart_series if s.prices.source_name == report.price_source), None)
    if configured is not None:  # the configured workload's own monthly API cost, on its price source's line
        cost = (
            report.workload_output_tokens_per_month
            * configured.breakeven.api_blended_usd_per_million_output_tokens
            / 1e6
        )
        ax.plot(
            [wl],
            [cost / _SCALE_Y],
            marker="D",
            markersize=8,
            color="dimgrey",
            linestyle="none",
            label=f"configured workload on {report.price_source}: {_usd(cost)} USD/month",
        )
    ax.text(
        wl,
        0.55,
        f" configured workload:\n {_short_tokens(report.workload_output_tokens_per_month)} output tokens/month",
        transform=ax.get_xaxis_transform(),
        ha="left",
        va="center",
        fontsize=8,
        color="dimgrey",
    )


def _decorate_axes(ax: Any, report: CostReport) -> None:
    from matplotlib.ticker import FuncFormatter

    inst = report.instance
    ax.set_xlim(0, report.chart_max_volume / _SCALE_X)
    ax.set_ylim(0, None)
    ax.set_xlabel(f"Output tokens per month (billions; input = {report.input_output_ratio:g} x output)", fontsize=10)
    ax.set_ylabel("Monthly cost (USD; k = thousand)", fontsize=10)
    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _pos: f"{x:,.1f}"))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _pos: f"{y:,.0f}k"))
    ax.grid(True, color="0.9")
    ax.set_title(
        f"Kimi K3.1 Pro: monthly cost against output volume, token APIs vs self-hosted {inst.instance_type}",
        fontsize=12,
    )
    ax.legend(loc="upper left", fontsize=8.5, framealpha=0.95)


def render_chart(report: CostReport, path: Path) -> None:
    """Draw the chart to ``path`` (PNG, CHART_SIZE_INCHES at CHART_DPI, no metadata that varies)."""
    # matplotlib is the CLI tier (requirements-cli.txt): `cost-report` declares it (landing_zone.cli.tiers).
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=CHART_SIZE_INCHES, dpi=CHART_DPI)
    FigureCanvasAgg(fig)  # Agg: no display, same pixels everywhere
    footnote = _footnote(report)
    footnote_lines = footnote.count("\n") + 1
    bottom = 0.11 + 0.022 * footnote_lines
    fig.subplots_adjust(left=0.075, right=0.98, top=0.92, bottom=bottom)
    ax = fig.add_subplot(1, 1, 1)

    _plot_self_hosted(ax, report)
    annotations = [a for i, s in enumerate(report.chart_series) if (a := _plot_series(ax, report, i, s))]
    _draw_callouts(ax, annotations)

    _mark_configured(ax, report)

    _decorate_axes(ax, report)
    fig.text(0.01, 0.012, footnote, fontsize=7, color="dimgrey", ha="left", va="bottom")
    fig.savefig(path, format="png", dpi=CHART_DPI, metadata={"Software": None})
