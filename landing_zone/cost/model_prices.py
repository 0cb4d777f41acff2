"""Prices per model and invocation path, and the workload split per model: what every cost consumer reads.

Decided once by the plan:

* :func:`resolve_model_prices` — for every configured model and every compliant path of it, the catalog entry of
  the model's offer (``cost.price_source``, default ``bedrock``) that prices that path, with the contract prices
  of ``cost.price_overrides.<model-id>`` applied.  A model (or path) without a price is a problem naming
  ``cost.price_overrides.<model-id>``: no model is ever priced at another model's figures.
* :func:`workload_parts` — ``cost.workload`` split by model or application (default: all of it on ``models[0]``),
  each part with the path and the prices its tokens are billed at.

The budget, the spend alarms, the dashboard, the cost report and the break-even read these; standard library only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

from landing_zone.core.applications import ApplicationPlan
from landing_zone.core.catalog import Catalog, Model
from landing_zone.core.catalog.prices import PER_TOKEN_TIERS, PriceCatalog, TierRule, TokenPrices
from landing_zone.core.config import LandingZoneConfig
from landing_zone.core.routing import ModelRouting, RoutingDecision
from landing_zone.cost.pricing import CostEstimate, Workload, estimate_cost, with_overrides
from landing_zone.errors import PricingError, Problem

__all__ = [
    "ModelPrices",
    "PricedPart",
    "combine_estimates",
    "resolve_model_prices",
    "tier_split_of",
    "workload_parts",
]


@dataclass(frozen=True)
class ModelPrices:
    """The prices of every configured model on every compliant path: ``(model ID, path) -> TokenPrices`` (the
    Standard tier), and of each other per-token tier that ``policy_guardrails.allowed_service_tiers`` allows:
    ``(model ID, path, tier) -> TokenPrices``."""

    by_path: Mapping[tuple[str, str], TokenPrices]
    by_tier: Mapping[tuple[str, str, str], TokenPrices] = field(default_factory=lambda: MappingProxyType({}))
    # the rule each tier price comes from (config or catalog): its basis and provenance for the reports
    tier_rules: Mapping[tuple[str, str, str], TierRule] = field(default_factory=lambda: MappingProxyType({}))

    def tier(self, model_id: str, path: str, tier: str) -> TokenPrices:
        """The prices of ``tier`` (an API value: ``default`` is the Standard tier) on one model and path."""
        if tier == "default":
            return self.get(model_id, path)
        try:
            return self.by_tier[(model_id, path, tier)]
        except KeyError:
            raise PricingError(
                f"cost.tier_price_overrides.{model_id}.{tier}", None, f"prices of the {tier} tier on the {path} path"
            ) from None

    def tiers_of(self, model_id: str, path: str) -> dict[str, TokenPrices]:
        """Tier -> prices of one model and path: ``default`` and every other allowed per-token tier."""
        out = {"default": self.get(model_id, path)}
        out |= {t: p for (m, pa, t), p in self.by_tier.items() if (m, pa) == (model_id, path)}
        return out

    def get(self, model_id: str, path: str) -> TokenPrices:
        try:
            return self.by_path[(model_id, path)]
        except KeyError:
            raise PricingError(
                f"cost.price_overrides.{model_id}", None, f"prices for the {path} path of {model_id}"
            ) from None

    def for_model(self, model_id: str) -> dict[str, TokenPrices]:
        """Path -> prices of one model."""
        return {path: p for (m, path), p in self.by_path.items() if m == model_id}

    @property
    def entries(self) -> tuple[TokenPrices, ...]:
        """Each distinct price entry used, in order (one per entry name and model)."""
        seen: dict[tuple[str, str], TokenPrices] = {}
        for (model_id, _), p in self.by_path.items():
            seen.setdefault((model_id, p.source_name), p)
        for (model_id, _, _), p in self.by_tier.items():
            seen.setdefault((model_id, p.source_name), p)
        return tuple(seen.values())

    @property
    def unverified(self) -> tuple[TokenPrices, ...]:
        return tuple(p for p in self.entries if not p.verified)


@dataclass(frozen=True)
class PricedPart:
    """One part of ``cost.workload``: its requests on one model and path, at that model's prices."""

    label: str  # "model <id>" or "application <name>"
    model_id: str
    path: str
    share_of_requests: float
    workload: Workload
    prices: TokenPrices
    service_tier: str = "default"  # the API value (default: the Standard tier); cost.workload.tier_split

    def estimate(self, hours_per_month: float) -> CostEstimate:
        return estimate_cost(self.workload, self.prices, hours_per_month=hours_per_month)

    def as_dict(self) -> dict[str, Any]:
        w = self.workload
        return {
            "label": self.label,
            "model_id": self.model_id,
            "path": self.path,
            "share_of_requests": self.share_of_requests,
            "requests_per_day": w.requests_per_day,
            "input_tokens_per_request": w.input_tokens_per_request,
            "output_tokens_per_request": w.output_tokens_per_request,
            "cached_input_fraction": w.cached_input_fraction,
            "cache_write_fraction": w.cache_write_fraction,
            "price_entry": self.prices.source_name,
            "service_tier": self.service_tier,
        }


def _missing_price(model_id: str, offer: str, paths: Sequence[str]) -> Problem:
    where = f"the {paths[0]} path" if len(paths) == 1 else f"the paths {', '.join(paths)}"
    return Problem(
        f"cost.price_overrides.{model_id}",
        None,
        f"prices for {model_id} on {where}: landing_zone/core/catalog/prices.yaml has no {offer!r} entry "
        f"for it; set cost.price_overrides.{model_id} with input_usd_per_million_tokens, "
        "output_usd_per_million_tokens and source"
        + ("" if offer == "bedrock" else f" (or price it with another cost.price_source than {offer!r})"),
    )


def _contract(
    base: TokenPrices | None, model_id: str, offer: str, path: str, key: str, override: Any
) -> TokenPrices | None:
    """``base`` with the contract prices of ``cost.price_overrides.<key>``; None when there is no base and the
    override lacks an input or output price."""
    figures: dict[str, float] = override.prices()
    note = f"contract price (cost.price_overrides.{key}): {override.source}"
    if base is not None:
        changed = with_overrides(base, **figures)
        return replace(changed, source=f"{note}; other figures: {base.source}", verified=True)
    if "input_usd_per_million_tokens" not in figures or "output_usd_per_million_tokens" not in figures:
        return None
    price_in = figures["input_usd_per_million_tokens"]
    return TokenPrices(
        source_name=f"cost.price_overrides.{key}",
        input_usd_per_million=price_in,
        cache_read_usd_per_million=figures.get("cache_read_usd_per_million_tokens", price_in),
        cache_write_usd_per_million=figures.get("cache_write_usd_per_million_tokens", price_in),
        output_usd_per_million=figures["output_usd_per_million_tokens"],
        source=f"{note} (cache reads and writes at the input price unless given)",
        as_of="contract",
        verified=True,
        description=f"contract prices of {model_id}",
        model_id=model_id,
        offer=offer,
        paths=(path,),
    )


def _resolved_keys(config_keys: Sequence[str], models: Sequence[Model], where: str) -> list[Problem]:
    known = {name for m in models for name in (m.id, *m.aliases)}
    return [
        Problem(f"{where}.{key}", key, f"a model of `models` (ID or alias): {', '.join(m.id for m in models)}")
        for key in config_keys
        if key not in known
    ]


def resolve_model_prices(
    config: LandingZoneConfig, prices: PriceCatalog, routing: RoutingDecision
) -> tuple[ModelPrices, list[Problem]]:
    """The prices of every configured model on each of its compliant paths, and every missing price as a problem."""
    cost = config.cost
    models = [mr.model for mr in routing.models]
    problems = _resolved_keys(list(cost.price_overrides), models, "cost.price_overrides")
    if not isinstance(cost.price_source, str):
        problems += _resolved_keys(list(cost.price_source), models, "cost.price_source")
    table: dict[tuple[str, str], TokenPrices] = {}
    for mr in routing.models:
        model = mr.model
        offer = cost.offer_for(model.id, tuple(model.aliases))
        override = cost.override_for(model.id, tuple(model.aliases))
        missing: list[str] = []
        for path in dict.fromkeys(r.kind.value for r in mr.compliant_routes):
            base = prices.lookup(model.id, offer, path)
            resolved = base if override is None else _contract(base, model.id, offer, path, *override)
            if resolved is None:
                missing.append(path)
            else:
                table[(model.id, path)] = resolved
        if missing:
            problems.append(_missing_price(model.id, offer, missing))
    tiers, rules, tier_problems = _tier_prices(config, prices, routing, table)
    model_prices = ModelPrices(MappingProxyType(table), MappingProxyType(tiers), MappingProxyType(rules))
    return model_prices, problems + tier_problems


def _missing_tier_price(model_id: str, tier: str, index: int) -> Problem:
    return Problem(
        f"cost.tier_price_overrides.{model_id}.{tier}",
        None,
        f"prices of the {tier} service tier of {model_id}: policy_guardrails.allowed_service_tiers[{index}] allows it "
        "and landing_zone/core/catalog/prices.yaml has no rule for it (AWS publishes per-model tier prices only on "
        f"https://aws.amazon.com/bedrock/pricing/); set cost.tier_price_overrides.{model_id}.{tier} with multiplier "
        f"(of the standard prices) and/or token prices, and source — or remove {tier} from allowed_service_tiers",
    )


def _tier_prices(
    config: LandingZoneConfig,
    prices: PriceCatalog,
    routing: RoutingDecision,
    table: Mapping[tuple[str, str], TokenPrices],
) -> tuple[dict[tuple[str, str, str], TokenPrices], dict[tuple[str, str, str], TierRule], list[Problem]]:
    """Each allowed per-token tier other than default, on every priced (model, path): the config's
    ``cost.tier_price_overrides`` rule, else the catalog's (``tiers`` of the model's Bedrock entry, else
    ``service_tier_prices``).  reserved is not priced per token (see docs/COST.md)."""
    cost = config.cost
    allowed = list(config.policy_guardrails.allowed_service_tiers)
    problems = _resolved_keys(
        list(cost.tier_price_overrides), [mr.model for mr in routing.models], "cost.tier_price_overrides"
    )
    out: dict[tuple[str, str, str], TokenPrices] = {}
    used: dict[tuple[str, str, str], TierRule] = {}
    for index, tier in enumerate(allowed):
        if tier not in PER_TOKEN_TIERS:
            continue
        for mr in routing.models:
            model = mr.model
            override = cost.tier_override_for(model.id, tier, tuple(model.aliases))
            missing = False
            for (model_id, path), base in table.items():
                if model_id != model.id:
                    continue
                rule: TierRule | None
                if override is not None:
                    key, given = override
                    rule = TierRule(
                        tier=tier,
                        where=f"cost.tier_price_overrides.{key}.{tier}",
                        source=given.source,
                        as_of="config",
                        verified=True,
                        multiplier=given.multiplier,
                        prices=MappingProxyType(given.prices()),
                    )
                else:
                    entry = prices.lookup(model.id, "bedrock", path)
                    rule = prices.tier_rule(entry.source_name, tier) if entry is not None else None
                if rule is None:
                    missing = True
                    continue
                out[(model_id, path, tier)] = rule.apply(base)
                used[(model_id, path, tier)] = rule
            if missing:
                problems.append(_missing_tier_price(model.id, tier, index))
    return out, used, problems


def _part_workload(
    total: Any, share: float, inp: float | None, out: float | None, cached: float | None, written: float | None
) -> Workload:
    return Workload(
        requests_per_day=total.requests_per_day * share,
        input_tokens_per_request=total.input_tokens_per_request if inp is None else inp,
        output_tokens_per_request=total.output_tokens_per_request if out is None else out,
        cached_input_fraction=total.cached_input_fraction if cached is None else cached,
        cache_write_fraction=total.cache_write_fraction if written is None else written,
    )


def _dearest(
    model_id: str, workload: Workload, model_prices: ModelPrices, paths: Sequence[str], hours: float
) -> tuple[str, TokenPrices] | None:
    """The path (of ``paths``, in order) whose prices make ``workload`` cost most: the budget's safe side."""
    best: tuple[float, str, TokenPrices] | None = None
    for path in paths:
        p = model_prices.by_path.get((model_id, path))
        if p is None:
            continue
        monthly = estimate_cost(workload, p, hours_per_month=hours).monthly_usd
        if best is None or monthly > best[0]:
            best = (monthly, path, p)
    return None if best is None else (best[1], best[2])


def _model_path(
    config: LandingZoneConfig, mr: ModelRouting, workload: Workload, model_prices: ModelPrices, hours_per_month: float
) -> tuple[str, TokenPrices] | None:
    """A model part's path: the dearest compliant path callable from ``home_region`` (else of any compliant path)."""
    home = [r.kind.value for r in mr.compliant_routes if config.home_region in r.source_regions]
    paths = home or [r.kind.value for r in mr.compliant_routes]
    return _dearest(mr.model.id, workload, model_prices, list(dict.fromkeys(paths)), hours_per_month)


def _application_path(app: ApplicationPlan, model_prices: ModelPrices) -> tuple[str, TokenPrices] | None:
    """An application part's path: the one its profile copies (Mantle for a Mantle-only application), if priced."""
    route = app.route or app.mantle_route
    if route is None or (app.model.id, route.kind.value) not in model_prices.by_path:
        return None
    return route.kind.value, model_prices.by_path[(app.model.id, route.kind.value)]


def workload_parts(
    config: LandingZoneConfig,
    catalog: Catalog,
    routing: RoutingDecision,
    applications: Sequence[ApplicationPlan],
    model_prices: ModelPrices,
    *,
    hours_per_month: float,
) -> tuple[tuple[PricedPart, ...], list[Problem]]:
    """``cost.workload`` per model or application, each part priced at its own model's prices.

    A model part is billed on the dearest compliant path callable from ``home_region`` (the safe side for a
    budget); an application part on the path its profile copies (Mantle for a Mantle-only application).  Without
    ``split`` the whole workload is one part on ``models[0]``.
    """
    total = config.cost.workload
    split = total.split
    tier_split, problems = tier_split_of(config)
    if problems:
        return (), problems
    parts: list[PricedPart] = []
    configured = {mr.model.id: mr for mr in routing.models}
    apps = {a.app.name: a for a in applications}
    entries: list[tuple[int | None, str, Any, float, float | None, float | None, float | None, float | None]] = []
    if not split:
        first = catalog.require_model(config.models[0]).id
        entries.append((None, f"model {first}", first, 1.0, None, None, None, None))
    for i, part in enumerate(split):
        where = f"cost.workload.split[{i}]"
        if part.model is not None:
            resolved = catalog.resolve_model(part.model)
            model_id = resolved.id if resolved is not None else ""
            if model_id not in configured:
                problems.append(Problem(f"{where}.model", part.model, f"a model of `models`: {', '.join(configured)}"))
                continue
            target: Any = model_id
        else:
            if part.application not in apps:
                problems.append(
                    Problem(
                        f"{where}.application", part.application, f"an application name: {', '.join(apps) or 'none'}"
                    )
                )
                continue
            target = apps[part.application]
        entries.append(
            (
                i,
                part.target,
                target,
                part.share_of_requests,
                part.input_tokens_per_request,
                part.output_tokens_per_request,
                part.cached_input_fraction,
                part.cache_write_fraction,
            )
        )
    for index, label, target, share, inp, out, cached, written in entries:
        workload = _part_workload(total, share, inp, out, cached, written)
        if isinstance(target, str):
            model_id, chosen = target, _model_path(config, configured[target], workload, model_prices, hours_per_month)
        else:
            model_id, chosen = target.model.id, _application_path(target, model_prices)
        if chosen is None:  # the model's missing price is already a problem of resolve_model_prices
            if index is not None and not any(p.path.startswith("cost.price_overrides") for p in problems):
                problems.append(Problem(f"cost.workload.split[{index}]", label, "a model with prices"))
            continue
        priced = PricedPart(
            label=label, model_id=model_id, path=chosen[0], share_of_requests=share, workload=workload, prices=chosen[1]
        )
        parts += _by_tier(priced, tier_split, model_prices)
    return tuple(parts), problems


def tier_split_of(config: LandingZoneConfig) -> tuple[dict[str, float], list[Problem]]:
    """``cost.workload.tier_split`` (default: every request in the default tier), in the order default, flex,
    priority; a tier not in ``policy_guardrails.allowed_service_tiers`` is a problem (the guardrails deny it)."""
    given = dict(config.cost.workload.tier_split) or {"default": 1.0}
    allowed = config.policy_guardrails.allowed_service_tiers
    problems = [
        Problem(
            f"cost.workload.tier_split.{tier}",
            share,
            f"a tier of policy_guardrails.allowed_service_tiers ({', '.join(allowed)}): the guardrails deny "
            f"requests on {tier}, so no workload can run there",
        )
        for tier, share in given.items()
        if tier not in allowed
    ]
    order = ("default", "flex", "priority")
    return {t: given[t] for t in order if t in given}, problems


def _by_tier(part: PricedPart, tier_split: Mapping[str, float], model_prices: ModelPrices) -> list[PricedPart]:
    """``part`` split by service tier, each share at its tier's prices (one part unchanged when all is default)."""
    if list(tier_split) == ["default"]:
        return [part]
    out = []
    for tier, share in tier_split.items():
        w = part.workload
        out.append(
            replace(
                part,
                label=f"{part.label} ({tier} tier)",
                share_of_requests=part.share_of_requests * share,
                workload=replace(w, requests_per_day=w.requests_per_day * share),
                prices=model_prices.tier(part.model_id, part.path, tier),
                service_tier=tier,
            )
        )
    return out


def combine_estimates(estimates: Sequence[CostEstimate]) -> CostEstimate:
    """The sum of per-part estimates (one estimate unchanged); prices and provenance listed per entry."""
    if len(estimates) == 1:
        return estimates[0]
    if not estimates:
        raise PricingError("workload parts", [], "at least one part")
    names = list(dict.fromkeys(e.price_source for e in estimates))
    tokens: dict[str, float] = {}
    for e in estimates:
        for kind, value in e.tokens_per_day.items():
            tokens[kind] = tokens.get(kind, 0.0) + value

    def total(attr: str) -> float:
        return sum(float(getattr(e, attr)) for e in estimates)

    single = len(names) == 1
    return CostEstimate(
        price_source=names[0] if single else " + ".join(names),
        input_usd_per_day=total("input_usd_per_day"),
        cache_read_usd_per_day=total("cache_read_usd_per_day"),
        cache_write_usd_per_day=total("cache_write_usd_per_day"),
        output_usd_per_day=total("output_usd_per_day"),
        daily_usd=total("daily_usd"),
        monthly_usd=total("monthly_usd"),
        hourly_usd=total("hourly_usd"),
        tokens_per_day=tokens,
        hours_per_month=estimates[0].hours_per_month,
        usd_per_million=dict(estimates[0].usd_per_million) if single else {},
        prices_source="; ".join(dict.fromkeys(e.prices_source for e in estimates)),
        prices_as_of=", ".join(dict.fromkeys(e.prices_as_of for e in estimates)),
        prices_verified=all(e.prices_verified for e in estimates),
    )
