"""The monthly budget: ``cost.monthly_budget_usd`` if set, else (token cost + self-hosted nodes) x headroom.

The token cost is the sum of the workload's parts (:func:`landing_zone.cost.model_prices.workload_parts`), each
at its own model's prices.

Computed once, by the plan (``Plan.budget``); the budget, the kill switch, the spend-alarm threshold, the member
baseline's parameters and the cost report all read that one value.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from landing_zone.core.catalog.prices import PriceCatalog
from landing_zone.core.config import LandingZoneConfig
from landing_zone.cost.model_prices import PricedPart, combine_estimates
from landing_zone.cost.pricing import CostEstimate, Workload
from landing_zone.cost.self_hosting import monthly_cost_line

__all__ = ["MonthlyBudget", "config_workload", "monthly_budget"]

_HOURS_PER_DAY = 24.0


def config_workload(config: LandingZoneConfig) -> Workload:
    """The configured ``cost.workload`` as a :class:`landing_zone.cost.pricing.Workload` (all models together)."""
    w = config.cost.workload
    return Workload(
        requests_per_day=w.requests_per_day,
        input_tokens_per_request=w.input_tokens_per_request,
        output_tokens_per_request=w.output_tokens_per_request,
        cached_input_fraction=w.cached_input_fraction,
        cache_write_fraction=w.cache_write_fraction,
    )


@dataclass(frozen=True)
class MonthlyBudget:
    """The monthly budget of a configuration: explicit (``cost.monthly_budget_usd``) or estimate x headroom."""

    usd: float
    explicit: bool
    basis: str  # one readable sentence
    estimate: CostEstimate  # the configured workload, every part at its own model's prices (summed)
    headroom: float
    hours_per_month: float = 730.0
    self_hosted_monthly_usd: float = 0.0  # GPU nodes of self_hosting (24/7), when enabled
    parts: tuple[tuple[PricedPart, CostEstimate], ...] = ()  # per model / application

    @property
    def computed_monthly_usd(self) -> float:
        """What the configuration will spend: token cost + self-hosted nodes."""
        return self.estimate.monthly_usd + self.self_hosted_monthly_usd

    @property
    def hourly_usd(self) -> float:
        return self.usd / self.hours_per_month

    @property
    def daily_usd(self) -> float:
        return self.usd / self.hours_per_month * _HOURS_PER_DAY


def _parts_text(parts: Sequence[tuple[PricedPart, CostEstimate]]) -> str:
    return " + ".join(
        f"{part.label} on {part.path} at {part.prices.source_name!r} ({estimate.monthly_usd:,.2f} USD/month)"
        for part, estimate in parts
    )


def monthly_budget(config: LandingZoneConfig, prices: PriceCatalog, parts: Sequence[PricedPart]) -> MonthlyBudget:
    """``cost.monthly_budget_usd`` if set, else (token cost of every workload part + self-hosted nodes) x
    ``budget_headroom``."""
    cost = config.cost
    hours = prices.hours_per_month
    priced = tuple((part, part.estimate(hours)) for part in parts)
    estimate = combine_estimates([e for _, e in priced])
    line = monthly_cost_line(config, prices)
    self_hosted = line.monthly_usd if line is not None else 0.0
    if cost.monthly_budget_usd is not None:
        return MonthlyBudget(
            usd=float(cost.monthly_budget_usd),
            explicit=True,
            basis="set in config (cost.monthly_budget_usd)",
            estimate=estimate,
            headroom=cost.budget_headroom,
            hours_per_month=hours,
            self_hosted_monthly_usd=self_hosted,
            parts=priced,
        )
    usd = (estimate.monthly_usd + self_hosted) * cost.budget_headroom
    nodes = f" + self-hosted nodes ({self_hosted:,.2f} USD/month)" if line is not None else ""
    return MonthlyBudget(
        usd=usd,
        explicit=False,
        basis=f"computed: configured workload, {_parts_text(priced)}{nodes} x budget_headroom {cost.budget_headroom:g}",
        estimate=estimate,
        headroom=cost.budget_headroom,
        hours_per_month=hours,
        self_hosted_monthly_usd=self_hosted,
        parts=priced,
    )
