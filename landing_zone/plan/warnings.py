"""The plan's warnings: true, valid configurations that a person should still hear about."""

from __future__ import annotations

import re
from collections.abc import Sequence

from landing_zone.core.applications import ApplicationPlan, effective_budget_scope, untagged_paths
from landing_zone.core.catalog import Model
from landing_zone.core.catalog.metrics import MetricCatalog
from landing_zone.core.catalog.prices import TokenPrices
from landing_zone.core.config import LandingZoneConfig
from landing_zone.core.routing import ModelRouting, PathKind
from landing_zone.cost.budget import MonthlyBudget

__all__ = [
    "HEADLINE_CHARACTERS",
    "budget_warnings",
    "headline",
    "kill_switch_warnings",
    "mantle_only_warning",
    "metric_assumption_warning",
    "retention_warning",
    "service_tier_warnings",
    "short_citation",
    "unverified_warnings",
]


HEADLINE_CHARACTERS = 151  # a warning on a terminal: "warning: " + this many = one line of at most 160 characters


def short_citation(source: str, limit: int = 140) -> str:
    """A catalog ``source`` cut after its first URL (or at ``limit`` characters): enough to follow it.  A cut never
    leaves a parenthesis open (it is cut before it), so that the warning around it stays balanced."""
    match = re.search(r"https://\S+?(?=[\s),;]|$)", source)
    text = source[: match.end()] if match else source
    if len(text) <= limit:
        return text
    text = text[: limit - 3]
    depth, opened_at = 0, []
    for i, ch in enumerate(text):
        if ch == "(":
            opened_at.append(i)
        elif ch == ")" and opened_at:
            opened_at.pop()
        depth = len(opened_at)
    if depth:
        text = text[: opened_at[0]].rstrip()
    return text + "..."


def _without_asides(text: str) -> str:
    """``text`` without its parenthesised asides (`` (source; as of ...)``): a ``(`` after a space opens one; words
    such as ``model(s)`` keep theirs."""
    out: list[str] = []
    depth = 0
    for i, ch in enumerate(text):
        if depth:
            depth += {"(": 1, ")": -1}.get(ch, 0)
            continue
        if ch == "(" and i > 0 and text[i - 1] == " ":
            depth = 1
            if out and out[-1] == " ":
                out.pop()
            continue
        out.append(ch)
    return re.sub(r"\s+([,;:.])", r"\1", "".join(out))


def headline(warning: str, limit: int = HEADLINE_CHARACTERS) -> str:
    """The one line a terminal shows of a warning: its first line without the parenthesised provenance, cut at a
    word boundary (with " …") to ``limit`` characters.  The full text stays in the plan, the review report and
    ``--verbose``."""
    text = _without_asides(warning.splitlines()[0] if warning else "").strip()
    if len(text) <= limit:
        return text
    cut = text[: limit - 2]
    cut = cut[: cut.rfind(" ")] if " " in cut else cut
    return cut.rstrip(" ,;:") + " …"


def unverified_warnings(plan_models: tuple[Model, ...], unverified_prices: Sequence[TokenPrices]) -> list[str]:
    """One warning per unverified catalog model, and ONE short line for every unverified price in use."""
    warnings = []
    for m in plan_models:
        if not m.verified:
            warnings.append(
                f"catalog model {m.id!r} is unverified ({short_citation(m.source)}; as of {m.as_of}): confirm its ID, "
                "Regions and profiles with `python -m landing_zone discover` before relying on the routing decision"
            )
    if unverified_prices:
        by_model: dict[str, list[str]] = {}
        for p in unverified_prices:
            by_model.setdefault(p.model_id, []).append(p.source_name)
        listed = ", ".join(f"{model} ({', '.join(names)})" for model, names in by_model.items())
        warnings.append(
            f"unverified prices in budget and alarms: {listed}; sources in core/catalog/prices.yaml, "
            "contract prices: cost.price_overrides.<model-id>"
            + (
                ", tier prices: cost.tier_price_overrides.<model-id>.<tier>"
                if any("+" in p.source_name for p in unverified_prices)
                else ""
            )
        )
    return warnings


def retention_warning(mode: str | None, plan_models: tuple[Model, ...]) -> str | None:
    """One line when ``data_retention.mode`` is ``none`` (zero data retention) and a model's allowed modes are
    unknown: a model that requires retention is then blocked (data-retention.html); the catalog does not say."""
    if mode != "none":
        return None
    unknown = [m.id for m in plan_models if m.retention_modes is None]
    if not unknown:
        return None
    return (
        f"allowed data retention modes unknown for {', '.join(unknown)}: data_retention.mode none blocks a model "
        "that requires retention (read data_retention.allowed_modes from bedrock-mantle GET /v1/models/{model}; "
        "https://docs.aws.amazon.com/bedrock/latest/userguide/data-retention.html)"
    )


def service_tier_warnings(config: LandingZoneConfig, plan_models: tuple[Model, ...]) -> list[str]:
    """One line per allowed tier besides default that the catalog does not confirm for a model, and one for an
    allowed reserved tier (a capacity commitment the token cost does not include)."""
    warnings = []
    for tier in config.policy_guardrails.allowed_service_tiers:
        unknown = [m.id for m in plan_models if m.tier_status(tier, config.compliant_regions) == "unknown"]
        if tier != "default" and unknown:
            warnings.append(
                f"service tier {tier} is allowed but unconfirmed for {', '.join(unknown)} (catalog service_tiers: "
                "unknown): read the models and Regions table of "
                "https://docs.aws.amazon.com/bedrock/latest/userguide/service-tiers-inference.html"
            )
    warnings += _tier_api_warnings(config, plan_models)
    if "reserved" in config.policy_guardrails.allowed_service_tiers:
        warnings.append(
            "service tier reserved is allowed: it is reserved capacity billed monthly per 1,000 tokens per minute, "
            "not per token, so the budget estimate and the spend alarms leave it out; add the commitment to "
            "cost.monthly_budget_usd"
        )
    return warnings


# The APIs of core/catalog/models.yaml service_tiers.apis, as the Bedrock user guide names them.
_API_NAMES = {
    "invoke": "InvokeModel",
    "converse": "Converse",
    "chat-completions": "Chat Completions",
    "responses": "Responses",
}


def _tier_api_warnings(config: LandingZoneConfig, plan_models: tuple[Model, ...]) -> list[str]:
    """One line per allowed Priority/Flex tier that a model offers on some APIs only (catalog service_tiers.apis):
    a request on another API runs in Standard, whatever tier it names (e.g. Kimi K3: Chat Completions and Responses
    only)."""
    warnings = []
    for tier in (t for t in config.policy_guardrails.allowed_service_tiers if t in ("priority", "flex")):
        for m in plan_models:
            offer = m.service_tiers
            if offer is None or offer.apis is None or m.tier_status(tier, config.compliant_regions) != "offered":
                continue
            apis = " and ".join(_API_NAMES.get(a, a) for a in offer.apis)
            warnings.append(
                f"service tier {tier} of {m.id} is selectable only on {apis}: a Converse or Invoke request runs in "
                f"the Standard tier (catalog service_tiers.apis; {short_citation(offer.source)})"
            )
    return warnings


def metric_assumption_warning(catalog: MetricCatalog) -> str | None:
    """One line for the explicit assumptions about CloudWatch metric names (core/catalog/metrics.yaml)."""
    count = sum(len(e.assumptions) for e in catalog.endpoints.values())
    if not count:
        return None
    unverified = [
        f"{e.namespace} {e.token_metrics[k]}" for e in catalog.endpoints.values() for k in e.unverified_metrics
    ]
    return (
        f"the spend alarms rest on {count} assumption(s) about CloudWatch metrics (core/catalog/metrics.yaml; among "
        f"them the names {', '.join(unverified) or '-'}): `python -m landing_zone discover` compares them with the "
        "metrics your account publishes"
    )


def mantle_only_warning(mr: ModelRouting, home_region: str, compliant_regions: Sequence[str]) -> str:
    """Why a model is Mantle only, and what would make a runtime path (InvokeModel/Converse) compliant."""
    hints = []
    for route in mr.rejected_routes:
        if route.endpoint != "runtime":
            continue
        missing = sorted(set(route.destination_regions) - set(compliant_regions))
        if route.kind is PathKind.GLOBAL_PROFILE:
            hints.append(
                f"{route.invoke_id}: set allow_global_inference: true (it may process data in any commercial Region)"
            )
        elif home_region not in route.source_regions:
            hints.append(
                f"{route.invoke_id}: not callable from home_region {home_region} (sources: "
                f"{', '.join(route.source_regions)})"
            )
        elif missing:
            hints.append(
                f"{route.invoke_id}: add {', '.join(missing)} to compliant_regions (it may process data there)"
            )
    offered = "; ".join(hints) or "no runtime path is offered from home_region"
    return (
        f"model {mr.model.id!r} has no compliant runtime path from home_region {home_region}: its applications get "
        f"Mantle only (bedrock-mantle, not captured by invocation logging) and no application inference profile. "
        f"To admit a runtime path: {offered}"
    )


def budget_warnings(config: LandingZoneConfig, budget: MonthlyBudget) -> list[str]:
    """An explicit budget below the computed spend is allowed, but said out loud with both numbers."""
    computed = budget.computed_monthly_usd
    if budget.explicit and budget.usd < computed:
        return [
            f"cost.monthly_budget_usd {budget.usd:,.2f} USD is below the computed monthly spend of {computed:,.2f} USD "
            "for the configured workload at each model's own prices: budget alerts and the kill "
            f"switch will fire around day {budget.usd / computed * 30.4:.0f} of a month at that load"
        ]
    return []


def _per_request(config: LandingZoneConfig) -> bool:
    """Per-request guardrail enforcement grants no Mantle request anyway (no bedrock:GuardrailIdentifier there)."""
    return config.content_guardrail.enabled and config.content_guardrail.enforcement == "per-request"


def kill_switch_warnings(config: LandingZoneConfig, applications: Sequence[ApplicationPlan]) -> list[str]:
    """What the kill switch counts and who can reset it, when a person should hear it (docs/COST.md).

    * ``cost.budget_scope: auto`` that fell back to ``account``: the budget counts the whole deployment account, so
      another team's spend there can trip it; names the applications' untagged paths and the way to ``tagged``.
    * applications whose Mantle path is withheld (:func:`~landing_zone.core.applications.withholds_default_project`):
      a user who expected Mantle hears why it is not granted and what grants it.
    * organization mode with tamper protection and neither ``cost.kill_switch_reset_principal_arns`` nor
      ``policy_guardrails.deployment_principal_arns``: once it fires, nobody in the targeted accounts can reverse it.
    """
    cost = config.cost
    if not (cost.kill_switch and applications):
        return []
    out = []
    if cost.budget_scope == "auto" and effective_budget_scope(config, applications) == "account":
        where = "each member account" if config.member_baseline.enabled else f"account {config.deployment_account}"
        paths = "; ".join(f"{a.app.name}: {', '.join(p)}" for a in applications if (p := untagged_paths(a, config)))
        out.append(
            f"the kill switch counts everything billed to {where}, so another team's spend there can trip it: "
            f"cost.budget_scope auto falls back to account because some spend carries no landing-zone tag ({paths}); "
            "a runtime path for each application (a Mantle-only one uses the account's default project unless "
            "home_region has AWS::BedrockMantle::Project) and no applications[].batch_role_arns make it count only "
            "the landing zone's own spend (docs/COST.md)"
        )
    withheld = [a.app.name for a in applications if a.withheld_mantle_route is not None and not _per_request(config)]
    if withheld:
        out.append(
            f"applications {', '.join(withheld)} are granted their runtime path only, not Mantle: they have no Mantle "
            f"Project of their own (none in home_region {config.home_region}, or access.mantle_projects false) and "
            "the account's default project carries no cost-allocation tag, so the kill switch would not count that "
            "spend; cost.budget_scope: account grants it and counts the whole account (docs/COST.md)"
        )
    g = config.policy_guardrails
    if (
        config.organization is not None
        and g.tamper_protection
        and not cost.kill_switch_reset_principal_arns
        and not g.deployment_principal_arns
    ):
        out.append(
            "nobody in the targeted accounts can reset the kill switch once it fires (the SCPs deny reversing its "
            "budget action and detaching its deny to all but the exempt principals): set "
            "cost.kill_switch_reset_principal_arns (docs/COST.md, 'Resetting the kill switch')"
        )
    return out
