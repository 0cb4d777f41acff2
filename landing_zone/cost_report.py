"""The FinOps cost report: ``cost.md`` plus the chart ``cost-vs-volume.png``, computed offline.

:func:`write_cost_report` writes, for the configured landing zone:

* the workload (``cost.workload``), the prices of every price source with source / as of / verified,
* the daily and monthly cost of the workload at every price source,
* the monthly budget (explicit, or the estimate x ``budget_headroom``),
* the self-hosting break-even of one catalogued 8xB300 node (``p6-b300.48xlarge``) at each measured
  throughput against each price source (input:output ratio 5, no prompt caching),
* a chart of monthly cost against monthly output-token volume: one line per API price source and the
  self-hosted step line (``nodes = ceil(volume / node capacity)``) at the concurrency-8 throughput, with
  the break-even points marked.

All arithmetic is :mod:`landing_zone.pricing`; this module only arranges and draws it.  :func:`build_report`
is pure; matplotlib (Agg backend, no display) is imported only when the chart is drawn, so importing this
module never needs it.  Output is deterministic: fixed size and dpi, no software or date metadata.
"""

from __future__ import annotations

import math
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from landing_zone.cost_alarms import MonthlyBudget, config_workload, monthly_budget
from landing_zone.errors import LandingZoneError
from landing_zone.pricing import (
    DEFAULT_INPUT_OUTPUT_RATIO,
    BreakEven,
    CostEstimate,
    CurvePoint,
    SelfHostingOption,
    TokenPrices,
    Workload,
    break_even,
    estimate_cost,
    monthly_cost_curve,
)

if TYPE_CHECKING:
    from landing_zone.plan import Plan

__all__ = [
    "REPORT_NAME",
    "CHART_NAME",
    "DEFAULT_INSTANCE_TYPE",
    "DEFAULT_CHART_THROUGHPUT",
    "CHART_SIZE_INCHES",
    "CHART_DPI",
    "ReportError",
    "CheaperRanges",
    "CostReport",
    "build_report",
    "cheaper_ranges",
    "write_cost_report",
]

REPORT_NAME = "cost.md"
CHART_NAME = "cost-vs-volume.png"
DEFAULT_INSTANCE_TYPE = "p6-b300.48xlarge"
# The realistic sustained figure: 8 concurrent requests on one node (prices.yaml throughput profile).
DEFAULT_CHART_THROUGHPUT = "concurrency_8"
CHART_SIZE_INCHES = (12.0, 7.0)
CHART_DPI = 100  # -> 1200 x 700 pixels
_MAX_LISTED_RANGES = 5


class ReportError(LandingZoneError):
    """The report cannot be written (e.g. matplotlib missing, output folder not writable)."""


# --------------------------------------------------------------------------------------------------
# Pure part: the numbers of the report
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CheaperRanges:
    """Monthly output volumes at which ``k = ceil(V / capacity)`` self-hosted nodes cost less than the API.

    With ``B`` the one-node break-even volume and ``C`` one node's capacity: in the k-node segment
    ``((k-1)C, kC]`` the API costs more when ``V > kB``.  So self-hosting is cheaper on ``[kB, kC]`` for
    every k while ``B < C``, and at *every* volume from ``(k0-1) * B`` on, ``k0 = ceil(C / (C - B))``.
    """

    ranges: tuple[tuple[float, float], ...]  # [from, to] output tokens/month, before permanent_from
    permanent_from: float | None  # None: self-hosting is never cheaper (B >= C)

    @property
    def never(self) -> bool:
        return self.permanent_from is None


def cheaper_ranges(breakeven_volume: float, capacity: float) -> CheaperRanges:
    """Where self-hosting beats the API; see :class:`CheaperRanges` for the derivation."""
    b, c = breakeven_volume, capacity
    if not b < c * (1.0 - 1e-12):
        return CheaperRanges(ranges=(), permanent_from=None)
    k0 = math.ceil(c / (c - b))
    return CheaperRanges(
        ranges=tuple((k * b, k * c) for k in range(1, k0 - 1)),
        permanent_from=(k0 - 1) * b,
    )


@dataclass(frozen=True)
class BreakEvenRow:
    profile: str  # throughput profile name in prices.yaml
    result: BreakEven
    cheaper: CheaperRanges


@dataclass(frozen=True)
class ChartSeries:
    prices: TokenPrices
    curve: tuple[CurvePoint, ...]
    breakeven: BreakEven
    crossings: tuple[float, ...]  # volumes where the API line climbs above the step line, within range
    cheaper: CheaperRanges


@dataclass(frozen=True)
class CostReport:
    """Everything the report shows, computed once."""

    name: str
    workload: Workload
    hours_per_month: float
    hours_per_month_source: str
    price_source: str  # the configured one
    prices: tuple[TokenPrices, ...]
    estimates: tuple[CostEstimate, ...]  # same order as prices
    budget: MonthlyBudget
    instance: SelfHostingOption
    hourly_usd: float
    input_output_ratio: float
    breakevens: tuple[BreakEvenRow, ...]  # profile-major, then price source
    chart_profile: str
    chart_tokens_per_second: float
    chart_max_volume: float
    chart_series: tuple[ChartSeries, ...]
    workload_output_tokens_per_month: float
    cached_input_fraction: float = 0.0  # the cache share every API figure of the report assumes

    @property
    def node_monthly_usd(self) -> float:
        return self.hourly_usd * self.hours_per_month

    @property
    def chart_capacity(self) -> float:
        return self.chart_tokens_per_second * 3600.0 * self.hours_per_month


def _crossings(breakeven_volume: float, capacity: float, top: float) -> tuple[float, ...]:
    """Volumes ``k * B`` up to ``top`` where the API line climbs above the k-node step (see CheaperRanges)."""
    if cheaper_ranges(breakeven_volume, capacity).never:
        return ()
    out = []
    k = 1
    while k * breakeven_volume <= top * (1 + 1e-12):
        if k * breakeven_volume > (k - 1) * capacity:  # inside the k-node segment
            out.append(k * breakeven_volume)
        k += 1
    return tuple(out)


def build_report(
    plan: "Plan",
    *,
    instance_type: str = DEFAULT_INSTANCE_TYPE,
    chart_throughput: str = DEFAULT_CHART_THROUGHPUT,
    input_output_ratio: float | None = None,
    cached_input_fraction: float | None = None,
) -> CostReport:
    """The numbers of the report for ``plan`` (pure; raises PricingError for unusable catalog data).

    The API side is blended at the configured workload's input:output ratio and cache share unless given."""
    from landing_zone.self_hosting import workload_ratio

    configured_ratio, configured_cache = workload_ratio(plan.config)
    input_output_ratio = configured_ratio if input_output_ratio is None else input_output_ratio
    cached = configured_cache if cached_input_fraction is None else cached_input_fraction
    catalog = plan.prices
    hours = catalog.hours_per_month
    workload = config_workload(plan)
    prices = tuple(catalog.price_sources.values())
    estimates = tuple(estimate_cost(workload, p, hours_per_month=hours) for p in prices)
    option = catalog.self_hosting_option(instance_type)
    hourly = option.require_hourly_usd()

    rows: list[BreakEvenRow] = []
    for profile, tps in option.throughput_output_tokens_per_second.items():
        for p in prices:
            be = break_even(
                tokens_per_second=tps,
                hourly_usd=hourly,
                api_prices=p,
                hours_per_month=hours,
                input_output_ratio=input_output_ratio,
                instance_type=instance_type,
                cached_input_fraction=cached,
            )
            rows.append(
                BreakEvenRow(
                    profile=profile,
                    result=be,
                    cheaper=cheaper_ranges(be.breakeven_output_tokens_per_month, be.output_tokens_per_month_capacity),
                )
            )

    chart_tps = option.tokens_per_second(chart_throughput)
    capacity = chart_tps * 3600.0 * hours
    chart_bes = [
        break_even(
            tokens_per_second=chart_tps,
            hourly_usd=hourly,
            api_prices=p,
            hours_per_month=hours,
            input_output_ratio=input_output_ratio,
            instance_type=instance_type,
            cached_input_fraction=cached,
        )
        for p in prices
    ]
    workload_out_month = workload.requests_per_day * workload.output_tokens_per_request * hours / 24.0
    # Whole node segments: at least 3, enough to show every break-even point and the configured workload.
    widest = max([be.breakeven_output_tokens_per_month * 1.2 for be in chart_bes] + [workload_out_month * 1.1])
    segments = min(40, max(3, math.ceil(widest / capacity)))
    top = segments * capacity
    series = []
    for p, be in zip(prices, chart_bes):
        curve = monthly_cost_curve(
            api_prices=p,
            hourly_usd=hourly,
            tokens_per_second=chart_tps,
            hours_per_month=hours,
            input_output_ratio=input_output_ratio,
            max_output_tokens_per_month=top,
            points=max(2, math.ceil(segments / 10)),  # the curve adds node boundaries only up to 10 x points
            instance_type=instance_type,
            cached_input_fraction=cached,
        )
        series.append(
            ChartSeries(
                prices=p,
                curve=tuple(curve),
                breakeven=be,
                crossings=_crossings(be.breakeven_output_tokens_per_month, capacity, top),
                cheaper=cheaper_ranges(be.breakeven_output_tokens_per_month, capacity),
            )
        )

    return CostReport(
        name=plan.config.name,
        workload=workload,
        hours_per_month=hours,
        hours_per_month_source=catalog.hours_per_month_source,
        price_source=plan.config.cost.price_source,
        prices=prices,
        estimates=estimates,
        budget=monthly_budget(plan),
        instance=option,
        hourly_usd=hourly,
        input_output_ratio=input_output_ratio,
        breakevens=tuple(rows),
        chart_profile=chart_throughput,
        chart_tokens_per_second=chart_tps,
        chart_max_volume=top,
        chart_series=tuple(series),
        workload_output_tokens_per_month=workload_out_month,
        cached_input_fraction=cached,
    )


# --------------------------------------------------------------------------------------------------
# Formatting helpers
# --------------------------------------------------------------------------------------------------


def _usd(value: float) -> str:
    return f"{value:,.2f}"


def _tokens(value: float) -> str:
    return f"{value:,.0f}"


def _short_tokens(value: float) -> str:
    """1.54B / 365M / 12.2k (3 significant digits): for chart labels and prose next to exact figures."""
    for size, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= size:
            return f"{value / size:,.3g}{suffix}"
    return f"{value:,.0f}"


def _verified(flag: bool) -> str:
    return "yes" if flag else "**no**"


def _profile_label(profile: str) -> str:
    return profile.replace("_", " ")


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _table(header: Sequence[str], align: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    rule = {"l": "---", "r": "---:", "c": ":---:"}
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(rule[a] for a in align) + "|"]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return lines


# --------------------------------------------------------------------------------------------------
# Markdown
# --------------------------------------------------------------------------------------------------


def _describe_ranges(cheaper: CheaperRanges) -> str:
    """``1.04B–1.36B, 2.07B–2.71B and any volume from 4.15B`` (caller handles ``never``)."""
    parts = [f"{_short_tokens(lo)}–{_short_tokens(hi)}" for lo, hi in cheaper.ranges[:_MAX_LISTED_RANGES]]
    hidden = len(cheaper.ranges) - _MAX_LISTED_RANGES
    if hidden > 0:
        parts.append(f"{hidden} more range(s)")
    last = f"any volume from {_short_tokens(cheaper.permanent_from or 0.0)}"
    return f"{', '.join(parts)} and {last}" if parts else last


def _describe_cheaper(row: BreakEvenRow) -> str:
    if row.cheaper.never:
        return (
            f"never: one node produces {_short_tokens(row.result.output_tokens_per_month_capacity)}, "
            "less than its break-even volume"
        )
    return _describe_ranges(row.cheaper)


def render_markdown(report: CostReport, chart_name: str = CHART_NAME) -> str:
    """The text of ``cost.md`` (the chart is embedded by the relative path ``chart_name``)."""
    w = report.workload
    hours = report.hours_per_month
    days = hours / 24.0
    input_day = w.requests_per_day * w.input_tokens_per_request
    output_day = w.requests_per_day * w.output_tokens_per_request
    ratio = input_day / output_day if output_day else float("nan")
    out: list[str] = [
        f"# Cost report: {report.name}",
        "",
        "Computed offline by `python -m landing_zone cost-report` from the configuration and "
        "`landing_zone/catalog/prices.yaml`; no AWS call. Money is USD; a month is "
        f"{hours:g} hours ({days:g} days; {report.hours_per_month_source or 'prices.yaml'}). "
        "Figures are estimates from list prices: the bill is the authority.",
        "",
        "## Workload (`cost.workload`)",
        "",
    ]
    out += _table(
        ("quantity", "value"),
        "lr",
        [
            ("requests per day", _tokens(w.requests_per_day)),
            ("input tokens per request (including the cached part)", _tokens(w.input_tokens_per_request)),
            ("share of input read from the prompt cache", f"{w.cached_input_fraction:.0%}"),
            ("output tokens per request", _tokens(w.output_tokens_per_request)),
            ("input tokens per day", _tokens(input_day)),
            ("output tokens per day", _tokens(output_day)),
            ("output tokens per month", _tokens(report.workload_output_tokens_per_month)),
            ("input:output token ratio", f"{ratio:.2f}" if math.isfinite(ratio) else "n/a"),
        ],
    )

    out += ["", "## Prices (USD per 1M tokens)", ""]
    out += _table(
        ("price source", "input", "cache read", "cache write", "output", "source", "as of", "verified"),
        "lrrrrlll",
        [
            (
                f"`{p.source_name}`" + (" (configured)" if p.source_name == report.price_source else ""),
                _usd(p.input_usd_per_million),
                _usd(p.cache_read_usd_per_million),
                _usd(p.cache_write_usd_per_million),
                _usd(p.output_usd_per_million),
                p.source,
                p.as_of,
                _verified(p.verified),
            )
            for p in report.prices
        ],
    )
    discounts = [p for p in report.prices if p.global_profile_discount_fraction]
    if discounts:
        out += [
            "",
            "Global cross-Region profiles are cheaper by "
            + ", ".join(f"{p.global_profile_discount_fraction:.0%} (`{p.source_name}`)" for p in discounts)
            + "; the figures below use the undiscounted prices.",
        ]
    unverified = [p.source_name for p in report.prices if not p.verified]
    if unverified:
        out += [
            "",
            f"**Unverified prices:** {', '.join(f'`{n}`' for n in unverified)}. Check them against the "
            "provider's pricing page or your contract before relying on these numbers.",
        ]

    out += ["", "## Cost of the configured workload", ""]
    out += _table(
        ("price source", "input USD/day", "cache read USD/day", "cache write USD/day", "output USD/day",
         "total USD/day", "total USD/month"),
        "lrrrrrr",
        [
            (
                f"`{e.price_source}`" + (" (configured)" if e.price_source == report.price_source else ""),
                _usd(e.input_usd_per_day),
                _usd(e.cache_read_usd_per_day),
                _usd(e.cache_write_usd_per_day),
                _usd(e.output_usd_per_day),
                _usd(e.daily_usd),
                _usd(e.monthly_usd),
            )
            for e in report.estimates
        ],
    )

    b = report.budget
    out += ["", "## Budget", ""]
    out.append(
        f"**{_usd(b.usd)} USD/month** ({_usd(b.daily_usd)} USD/day, {_usd(b.hourly_usd)} USD/hour on average): "
        f"{b.basis}."
    )
    if b.explicit:
        share = b.estimate.monthly_usd / b.usd
        out.append(
            f"The configured workload is estimated at {_usd(b.estimate.monthly_usd)} USD/month at "
            f"`{report.price_source}`, {share:.0%} of the budget."
        )

    node_month = report.node_monthly_usd
    inst = report.instance
    out += [
        "",
        f"## Self-hosting break-even: {inst.instance_type}",
        "",
        f"{inst.description or inst.instance_type}. {_usd(report.hourly_usd)} USD/hour = "
        f"**{_usd(node_month)} USD/month per node** running 24/7 ({hours:g} h). Source: {inst.source} "
        f"(as of {inst.as_of}, {'verified' if inst.verified else 'NOT verified'}).",
        "",
        f"The comparison is **blended**: a node's throughput already includes reading the prompts, while the API "
        f"bills the input tokens on top of every output token, so the API side is the cost of 1M output tokens "
        f"with their {report.input_output_ratio:g}M input tokens, {report.cached_input_fraction:.0%} of them read "
        "from the prompt cache (the configured workload). The break-even volume is where the API bill equals "
        "one node's monthly cost; a node that cannot produce that volume never pays off, whatever the volume. "
        "The last two columns compare with the output price alone, which ignores the input tokens.",
        "",
    ]
    out += _table(
        ("throughput profile", "output tok/s per node", "self-hosted USD/1M output", "vs",
         "API USD/1M output (blended)", "ratio self/API (blended)", "break-even tok/s (blended)",
         "break-even output tokens/month", "break-even input tokens/month", "one node's output tokens/month",
         "nodes at break-even", "self-hosting cheaper at output tokens/month", "API output price alone",
         "ratio, output price alone"),
        "lrrlrrrrrrrlrr",
        [
            (
                _profile_label(row.profile),
                f"{row.result.tokens_per_second:,.1f}",
                _usd(row.result.usd_per_million_output_tokens),
                f"`{row.result.price_source}`",
                _usd(row.result.api_usd_per_million_output_tokens_blended),
                f"{row.result.ratio_to_api_blended:,.2f}",
                f"{row.result.breakeven_tokens_per_second_blended:,.1f}",
                _tokens(row.result.breakeven_output_tokens_per_month),
                _tokens(row.result.breakeven_input_tokens_per_month),
                _tokens(row.result.output_tokens_per_month_capacity),
                str(row.result.breakeven_nodes),
                _describe_cheaper(row),
                _usd(row.result.api_usd_per_million_output_tokens),
                f"{row.result.ratio_to_api:,.2f}",
            )
            for row in report.breakevens
        ],
    )

    out += [
        "",
        "## Monthly cost against volume",
        "",
        f"![Monthly cost against monthly output-token volume: API price sources and self-hosted "
        f"{inst.instance_type} nodes]({chart_name})",
        "",
        f"The step line is self-hosting at {report.chart_tokens_per_second:g} output tokens/s per node "
        f"(`{report.chart_profile}`, the realistic sustained figure): nodes = ceil(volume / "
        f"{_tokens(report.chart_capacity)}), each {_usd(node_month)} USD/month. The dotted vertical line is "
        f"the configured workload ({_tokens(report.workload_output_tokens_per_month)} output tokens/month).",
        "",
    ]
    for s in report.chart_series:
        be = s.breakeven
        name = f"`{s.prices.source_name}`"
        if s.crossings:
            first = s.crossings[0]
            out.append(
                f"- {name}: break-even at **{_tokens(first)} output tokens/month** "
                f"({_tokens(first * report.input_output_ratio)} input tokens/month). Self-hosting is cheaper at "
                f"{_describe_ranges(s.cheaper)} output tokens/month; in the gaps between those ranges the "
                "volume has just outgrown the last node and the next node is not yet paid for."
            )
        else:
            out.append(
                f"- {name}: the API stays cheaper at every volume. One node's cost buys "
                f"{_tokens(be.breakeven_output_tokens_per_month)} output tokens/month from the API, more than the "
                f"{_tokens(be.output_tokens_per_month_capacity)} one node produces at this throughput: "
                f"self-hosting costs {_usd(be.usd_per_million_output_tokens)} USD per 1M output tokens, the API "
                f"{_usd(be.api_blended_usd_per_million_output_tokens)} USD for 1M output tokens with their "
                f"{report.input_output_ratio:g}M input tokens ({be.ratio_to_api_blended:,.2f}x)."
            )
    out += [
        "",
        "## Provenance",
        "",
        "- Prices, throughputs and hours per month: `landing_zone/catalog/prices.yaml`.",
    ]
    for p in report.prices:
        out.append(
            f"- `{p.source_name}`: {p.source} (as of {p.as_of}, {'verified' if p.verified else 'NOT verified'})."
        )
    out.append(
        f"- `{inst.instance_type}`: {inst.source} (as of {inst.as_of}, "
        f"{'verified' if inst.verified else 'NOT verified'})."
    )
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------------------------------
# Chart
# --------------------------------------------------------------------------------------------------

_LINE_STYLES = ("-", "--", "-.", ":")
# Text boxes, in axes fractions: break-even points in the free area above the first node step, the
# "API always cheaper" markers (ordered by volume) along the bottom, under the API lines.
_CROSSING_SLOTS = ((0.13, 0.56), (0.13, 0.44), (0.13, 0.32))
_NO_CROSSING_SLOTS = ((0.30, 0.04), (0.66, 0.04), (0.66, 0.16))


def _footnote(report: CostReport) -> str:
    # Status only: the full citations (titles in several scripts, URLs) are in cost.md next to the chart.
    parts = [f"{p.source_name} (as of {p.as_of}, {'verified' if p.verified else 'NOT verified'})" for p in report.prices]
    inst = report.instance
    parts.append(f"{inst.instance_type} (as of {inst.as_of}, {'verified' if inst.verified else 'NOT verified'})")
    text = (
        "Data: landing_zone/catalog/prices.yaml, cited in cost.md. "
        + "; ".join(parts)
        + f". API cost assumes {report.input_output_ratio:g} input tokens per output token, "
        f"{report.cached_input_fraction:.0%} of them cached; "
        f"a month is {report.hours_per_month:g} h; self-hosted nodes run 24/7."
    )
    return "\n".join(textwrap.wrap(text, width=200))


def render_chart(report: CostReport, path: Path) -> None:
    """Draw the chart to ``path`` (PNG, CHART_SIZE_INCHES at CHART_DPI, no metadata that varies)."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
        from matplotlib.ticker import FuncFormatter
    except ImportError as exc:
        raise ReportError(
            f"the cost chart needs matplotlib ({exc}); install the pinned requirements: "
            "pip install -r requirements.txt -c constraints.txt"
        ) from None

    fig = Figure(figsize=CHART_SIZE_INCHES, dpi=CHART_DPI)
    FigureCanvasAgg(fig)  # Agg: no display, same pixels everywhere
    footnote = _footnote(report)
    footnote_lines = footnote.count("\n") + 1
    bottom = 0.11 + 0.022 * footnote_lines
    fig.subplots_adjust(left=0.075, right=0.98, top=0.92, bottom=bottom)
    ax = fig.add_subplot(1, 1, 1)

    scale_x, scale_y = 1e9, 1e3
    inst = report.instance
    node_month = report.node_monthly_usd
    first = report.chart_series[0].curve
    ax.plot(
        [p.output_tokens_per_month / scale_x for p in first],
        [p.self_hosted_monthly_usd / scale_y for p in first],
        drawstyle="steps-pre",
        color="black",
        linewidth=2.2,
        label=(
            f"Self-hosted {inst.instance_type} (8xB300, {_usd(report.hourly_usd)} USD/h = {node_month / 1e3:,.1f}k "
            f"USD/month per node) at {report.chart_tokens_per_second:g} output tok/s per node "
            f"({_profile_label(report.chart_profile)})"
        ),
    )
    colors = ("tab:orange", "tab:blue", "tab:purple", "tab:green", "tab:red")
    annotations: list[tuple[bool, float, str, tuple[float, float], str]] = []
    for i, s in enumerate(report.chart_series):
        p = s.prices
        color = colors[i % len(colors)]
        ax.plot(
            [c.output_tokens_per_month / scale_x for c in s.curve],
            [c.api_monthly_usd / scale_y for c in s.curve],
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
                [v / scale_x for v in s.crossings],
                [v * blended / scale_y for v in s.crossings],
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
            annotations.append((True, v, text, (v / scale_x, v * blended / scale_y), color))
        else:
            v = be.breakeven_output_tokens_per_month
            if v > report.chart_max_volume:
                continue
            ax.plot([v / scale_x], [node_month / scale_y], marker="o", markersize=8, markerfacecolor="white",
                    markeredgewidth=2, linestyle="none", color=color)
            text = (
                f"{p.source_name}: 1-node break-even {_short_tokens(v)}/month,\n"
                f"but one node serves {_short_tokens(be.output_tokens_per_month_capacity)}: API always cheaper"
            )
            annotations.append((False, v, text, (v / scale_x, node_month / scale_y), color))

    crossing = sorted((a for a in annotations if a[0]), key=lambda a: a[1])
    no_crossing = sorted((a for a in annotations if not a[0]), key=lambda a: a[1])
    for group, slots in ((crossing, _CROSSING_SLOTS), (no_crossing, _NO_CROSSING_SLOTS)):
        for (_, _, text, xy, color), slot in zip(group, slots):
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

    wl = report.workload_output_tokens_per_month / scale_x
    ax.axvline(wl, color="grey", linestyle=":", linewidth=1.2)
    configured = next((s for s in report.chart_series if s.prices.source_name == report.price_source), None)
    if configured is not None:  # the configured workload's own monthly API cost, on its price source's line
        cost = report.workload_output_tokens_per_month * configured.breakeven.api_blended_usd_per_million_output_tokens / 1e6
        ax.plot([wl], [cost / scale_y], marker="D", markersize=8, color="dimgrey", linestyle="none",
                label=f"configured workload on {report.price_source}: {_usd(cost)} USD/month")
    ax.text(
        wl,
        0.70,
        f" configured workload:\n {_short_tokens(report.workload_output_tokens_per_month)} output tokens/month",
        transform=ax.get_xaxis_transform(),
        ha="left",
        va="center",
        fontsize=8,
        color="dimgrey",
    )

    ax.set_xlim(0, report.chart_max_volume / scale_x)
    ax.set_ylim(0, None)
    ax.set_xlabel(
        f"Output tokens per month (billions; input = {report.input_output_ratio:g} x output)", fontsize=10
    )
    ax.set_ylabel("Monthly cost (USD; k = thousand)", fontsize=10)
    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _pos: f"{x:,.1f}"))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _pos: f"{y:,.0f}k"))
    ax.grid(True, color="0.9")
    ax.set_title(
        f"Kimi K3.1 Pro: monthly cost against output volume, token APIs vs self-hosted {inst.instance_type}",
        fontsize=12,
    )
    ax.legend(loc="upper left", fontsize=8.5, framealpha=0.95)
    fig.text(0.01, 0.012, footnote, fontsize=7, color="dimgrey", ha="left", va="bottom")
    fig.savefig(path, format="png", dpi=CHART_DPI, metadata={"Software": None})


# --------------------------------------------------------------------------------------------------
# Entry point
# --------------------------------------------------------------------------------------------------


def write_cost_report(plan: "Plan", out_dir: Path) -> dict[str, Path]:
    """Write ``out_dir/cost.md`` and ``out_dir/cost-vs-volume.png``; returns ``{"markdown": ..., "chart": ...}``."""
    folder = Path(out_dir)
    report = build_report(plan)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ReportError(f"--out {str(folder)!r}: cannot create the folder ({exc.strerror})") from None
    chart = folder / CHART_NAME
    markdown = folder / REPORT_NAME
    try:
        render_chart(report, chart)
        markdown.write_text(render_markdown(report, CHART_NAME), encoding="utf-8")
    except OSError as exc:
        raise ReportError(f"--out {str(folder)!r}: cannot write the report ({exc.strerror or exc})") from None
    return {"markdown": markdown, "chart": chart}
