"""The :class:`Plan`: everything decided about a configuration, computed once and read by every later layer."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from landing_zone.core.applications import ApplicationPlan
from landing_zone.core.catalog import Catalog, Model
from landing_zone.core.catalog.metrics import MetricCatalog
from landing_zone.core.catalog.prices import PriceCatalog, TokenPrices
from landing_zone.core.config import LandingZoneConfig
from landing_zone.core.routing import RoutingDecision
from landing_zone.cost.alarms import CostAlarmPlan
from landing_zone.cost.budget import MonthlyBudget
from landing_zone.cost.dashboard import DashboardPlan
from landing_zone.cost.model_prices import ModelPrices, PricedPart
from landing_zone.cost.quotas import QuotaAlarmPlan
from landing_zone.errors import Problem, shown
from landing_zone.plan.grants import CrossAccountGrant
from landing_zone.plan.policies import PolicySet

__all__ = ["Plan", "PlanSource"]


@dataclass(frozen=True)
class PlanSource:
    """What a plan was built from: the merged raw configuration (cdk.json defaults + file), where it came from,
    and the text of each catalog overlay it lists (in order).  Recorded into the cloud assembly at synth
    (:mod:`landing_zone.plan.record`) so that the assembly can be reviewed and verified without the config."""

    raw: Mapping[str, Any] = field(default_factory=dict)
    origin: str = "configuration"
    overlays: tuple[str, ...] = ()  # the overlay files' text, in catalog_overlays order


@dataclass(frozen=True)
class Plan:
    """Validated config + catalogs + the routing decision + the numbers derived from them.

    Built by :func:`landing_zone.plan.build_plan`; the constructs, stacks, reports and checks only read it.
    """

    config: LandingZoneConfig
    catalog: Catalog
    prices: PriceCatalog  # the catalog as shipped (contract prices live in model_prices)
    metrics: MetricCatalog
    routing: RoutingDecision
    applications: tuple[ApplicationPlan, ...]
    budget: MonthlyBudget  # the one monthly budget: AWS Budgets, kill switch, alarm threshold, reports
    cost_alarms: CostAlarmPlan  # the token-metric alarms at that budget
    dashboard: DashboardPlan  # the operations dashboard, from the same sources and prices as the alarms
    # Every policy document the landing zone deploys (SCPs, boundary, invoker, endpoint, key, bucket, topic,
    # automation and budget-action policies), built once; deploy-time values are markers the constructs resolve.
    policies: PolicySet
    warnings: tuple[str, ...]
    # each configured model's prices per invocation path (cost.price_source / cost.price_overrides applied)
    model_prices: ModelPrices = field(default_factory=lambda: ModelPrices(MappingProxyType({})))
    # cost.workload per model / application, each part at its own model's prices
    workload_parts: tuple[PricedPart, ...] = ()
    # Placeholder values left in the configuration (example account IDs, example.com e-mails; the rule is in
    # landing_zone.core.config.placeholders): each a Problem(path, value, why).  They do not stop a synth;
    # `validate` and the CDK app print `placeholder_warning`, reports can mark them.
    placeholders: tuple[Problem, ...] = ()
    source: PlanSource = PlanSource()
    # quota headroom alarms (cost.quota_alarms), in home_region; empty when no quota has a value
    quota_alarms: QuotaAlarmPlan = QuotaAlarmPlan(region="", headroom=0.8)
    # where a policy may name another account than its stack's own, and why (landing_zone.plan.grants)
    cross_account_grants: tuple[CrossAccountGrant, ...] = ()

    @property
    def models(self) -> tuple[Model, ...]:
        return tuple(mr.model for mr in self.routing.models)

    @property
    def token_prices(self) -> TokenPrices:
        """The prices of the first workload part (``models[0]`` by default): one model's own prices."""
        if self.workload_parts:
            return self.workload_parts[0].prices
        return self.prices.prices(self.config.cost.offer_for(self.models[0].id))

    @property
    def placeholder_warning(self) -> str | None:
        """One warning naming every placeholder, grouped by kind (the first few paths of each), or None."""
        if not self.placeholders:
            return None
        groups: dict[str, list[str]] = {}
        for p in self.placeholders:
            groups.setdefault(p.allowed, []).append(f"{p.path} ({shown(p.got, 60)})")
        parts = [
            f"{kind} at {', '.join(paths[:4])}{f' and {len(paths) - 4} more' if len(paths) > 4 else ''}"
            for kind, paths in groups.items()
        ]
        return (
            f"{len(self.placeholders)} placeholder value(s) left in the configuration: {'; '.join(parts)}. "
            "The configuration is valid and synthesizes; replace them with your own before deploying"
        )
