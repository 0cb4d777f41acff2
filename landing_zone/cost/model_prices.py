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
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any

from landing_zone.core.applications import ApplicationPlan
from landing_zone.core.catalog import Catalog, Model
from landing_zone.core.catalog.prices import PriceCatalog, TokenPrices
from landing_zone.core.config import LandingZoneConfig
from landing_zone.core.routing import RoutingDecision
from landing_zone.cost.pricing import CostEstimate, Workload, estimate_cost, with_overrides
from landing_zone.errors import PricingError, Problem

__all__ = [
    "ModelPrices",
    "PricedPart",
    "combine_estimates",
    "resolve_model_prices",
    "workload_parts",
]


@dataclass(frozen=True)
class ModelPrices:
    """The prices of every configured model on every compliant path: ``(model ID, path) -> TokenPrices``."""

    by_path: Mapping[tuple[str, str], TokenPrices]

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
    return ModelPrices(MappingProxyType(table)), problems


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
    problems: list[Problem] = []
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
            mr = configured[target]
            home = [r.kind.value for r in mr.compliant_routes if config.home_region in r.source_regions]
            paths = home or [r.kind.value for r in mr.compliant_routes]
            chosen = _dearest(target, workload, model_prices, list(dict.fromkeys(paths)), hours_per_month)
            model_id = target
        else:
            route = target.route or target.mantle_route
            model_id = target.model.id
            chosen = None
            if route is not None and (model_id, route.kind.value) in model_prices.by_path:
                chosen = (route.kind.value, model_prices.by_path[(model_id, route.kind.value)])
        if chosen is None:  # the model's missing price is already a problem of resolve_model_prices
            if index is not None and not any(p.path.startswith("cost.price_overrides") for p in problems):
                problems.append(Problem(f"cost.workload.split[{index}]", label, "a model with prices"))
            continue
        parts.append(
            PricedPart(
                label=label,
                model_id=model_id,
                path=chosen[0],
                share_of_requests=share,
                workload=workload,
                prices=chosen[1],
            )
        )
    return tuple(parts), problems


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
