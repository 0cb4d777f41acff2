"""The numbers of the FinOps report, computed once from the plan (pure: no file, no drawing).

All arithmetic is :mod:`landing_zone.cost.pricing`; this module only arranges it: the workload at every price
source, the plan's monthly budget, the break-even of one catalogued node at each measured throughput, and the
cost-against-volume series the chart draws.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from landing_zone.core.catalog.prices import SelfHostingOption, TokenPrices
from landing_zone.cost.budget import MonthlyBudget, config_workload
from landing_zone.cost.model_prices import PricedPart
from landing_zone.cost.pricing import (
    BreakEven,
    CostEstimate,
    CurvePoint,
    Workload,
    break_even,
    estimate_cost,
    monthly_cost_curve,
)
from landing_zone.cost.self_hosting import comparable_api, workload_shape
from landing_zone.errors import LandingZoneError
from landing_zone.plan import Plan

__all__ = [
    "CHART_DPI",
    "CHART_NAME",
    "CHART_SIZE_INCHES",
    "DEFAULT_CHART_THROUGHPUT",
    "DEFAULT_INSTANCE_TYPE",
    "REPORT_NAME",
    "BreakEvenRow",
    "ChartSeries",
    "CheaperRanges",
    "CostReport",
    "ReportError",
    "build_report",
    "cheaper_ranges",
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
    workload: Workload  # the part of cost.workload a self-hosted Kimi K3 node would serve
    hours_per_month: float
    hours_per_month_source: str
    price_source: str  # the entry the configuration prices that workload at
    prices: tuple[TokenPrices, ...]  # the Kimi K3 models' prices (the only ones a node competes with)
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
    cache_write_fraction: float = 0.0  # the share of input written to the cache (cost.workload.cache_write_fraction)
    parts: tuple[PricedPart, ...] = ()  # cost.workload per model, each at its own prices (the budget's basis)

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
    plan: Plan,
    *,
    instance_type: str = DEFAULT_INSTANCE_TYPE,
    chart_throughput: str = DEFAULT_CHART_THROUGHPUT,
    input_output_ratio: float | None = None,
    cached_input_fraction: float | None = None,
) -> CostReport:
    """The numbers of the report for ``plan`` (pure; raises PricingError for unusable catalog data).

    Self-hosting serves Kimi K3 weights: the comparison uses only the Kimi K3 models' prices and the part of the
    workload on them (all of it when no part is on them).  The API side is blended at that workload's input:output
    ratio and cache share unless given."""
    catalog = plan.prices
    configured_api, own = comparable_api(catalog, plan.model_prices, plan.workload_parts)
    configured_ratio, configured_cache, written = workload_shape(plan.config, own)
    input_output_ratio = configured_ratio if input_output_ratio is None else input_output_ratio
    cached = configured_cache if cached_input_fraction is None else cached_input_fraction
    hours = catalog.hours_per_month
    workload = _served_workload(own) if own else config_workload(plan.config)
    family = catalog.self_hosted_model.model_ids if catalog.self_hosted_model is not None else ()
    listed = [p for model_id in family for p in catalog.entries_for(model_id)]
    if all(p.source_name != configured_api.source_name for p in listed):
        listed.insert(0, configured_api)  # a contract price of the configuration
    prices = tuple(configured_api if p.source_name == configured_api.source_name else p for p in listed)
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
                cache_write_fraction=written,
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
            cache_write_fraction=written,
        )
        for p in prices
    ]
    workload_out_month = workload.requests_per_day * workload.output_tokens_per_request * hours / 24.0
    # Whole node segments: at least 3, enough to show every break-even point and the configured workload.
    widest = max([be.breakeven_output_tokens_per_month * 1.2 for be in chart_bes] + [workload_out_month * 1.1])
    segments = min(40, max(3, math.ceil(widest / capacity)))
    top = segments * capacity
    series = []
    for p, be in zip(prices, chart_bes, strict=True):
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
            cache_write_fraction=written,
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
        price_source=configured_api.source_name,
        prices=prices,
        estimates=estimates,
        budget=plan.budget,
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
        cache_write_fraction=written,
        parts=plan.workload_parts,
    )


def _served_workload(parts: tuple[PricedPart, ...]) -> Workload:
    """The parts as one workload: requests summed, tokens per request and cache share weighted (costs add up)."""
    requests = sum(p.workload.requests_per_day for p in parts)
    inp = sum(p.workload.requests_per_day * p.workload.input_tokens_per_request for p in parts)
    out = sum(p.workload.requests_per_day * p.workload.output_tokens_per_request for p in parts)
    cached = sum(
        p.workload.requests_per_day * p.workload.input_tokens_per_request * p.workload.cached_input_fraction
        for p in parts
    )
    written = sum(
        p.workload.requests_per_day * p.workload.input_tokens_per_request * p.workload.cache_write_fraction
        for p in parts
    )
    return Workload(
        requests_per_day=requests,
        input_tokens_per_request=inp / requests if requests else 0.0,
        output_tokens_per_request=out / requests if requests else 0.0,
        cached_input_fraction=cached / inp if inp else 0.0,
        cache_write_fraction=written / inp if inp else 0.0,
    )
